//! Stored routines on disk: each database file keeps its procedures and
//! functions in `turnstile_routines` (made with the first one), beside
//! `turnstile_meta`, so they survive a restart and go with DROP DATABASE.
//! Clients never see the table (the authorizer refuses it, SHOW TABLES
//! lists only `turnstile_meta`'s tables); the SQL front reads and writes
//! routines through `EngineSession::routine_*` only.
//!
//! A write takes the database's writer lock and runs on its writer
//! connection, as DDL does; reads take a pooled connection of the database,
//! so listing every routine attaches nothing to the session's connection.

use super::SqliteSession;
use crate::conn::Conn;
use crate::schema::sq_ident;
use crate::{errors, Db};
use std::sync::Arc;
use turnstile_engine::{EngineSession, ExecContext, RoutineKind, RoutineRow, SqlError};

/// The table, in every database file that has routines.
pub(crate) const ROUTINES_TABLE: &str = "turnstile_routines";

const COLUMNS: &str = "kind, name, definer, definition, body, params, returns, invoker, deterministic, data_access, comment, sql_mode, created, modified";

fn kind_text(k: RoutineKind) -> &'static str {
    k.keyword()
}

fn row_of(db: &str, r: &rusqlite::Row<'_>) -> rusqlite::Result<RoutineRow> {
    let kind: String = r.get(0)?;
    Ok(RoutineRow {
        db: db.to_string(),
        kind: match kind.as_str() {
            "FUNCTION" => RoutineKind::Function,
            "TRIGGER" => RoutineKind::Trigger,
            _ => RoutineKind::Procedure,
        },
        name: r.get(1)?,
        definer: r.get(2)?,
        definition: r.get(3)?,
        body: r.get(4)?,
        params: r.get(5)?,
        returns: r.get(6)?,
        invoker: r.get::<_, i64>(7)? != 0,
        deterministic: r.get::<_, i64>(8)? != 0,
        data_access: r.get(9)?,
        comment: r.get(10)?,
        sql_mode: r.get(11)?,
        created: r.get(12)?,
        modified: r.get(13)?,
    })
}

/// Does this connection's database have the routines table yet?
fn has_table(conn: &Conn) -> Result<bool, SqlError> {
    let sql = "SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = ?1";
    conn.db.query_row(sql, [ROUTINES_TABLE], |r| r.get::<_, i64>(0)).map(|n| n > 0).map_err(|e| errors::from_rusqlite(conn, &e, sql))
}

/// Rows of one database's table matching `filter` (an SQL condition on
/// `?1` kind and `?2` name, or all rows).
fn read(conn: &Conn, db: &str, one: Option<(RoutineKind, &str)>) -> Result<Vec<RoutineRow>, SqlError> {
    if !has_table(conn)? {
        return Ok(Vec::new());
    }
    let map = |e: rusqlite::Error, sql: &str| errors::from_rusqlite(conn, &e, sql);
    match one {
        Some((kind, name)) => {
            let sql = format!("SELECT {} FROM main.{} WHERE kind = ?1 AND name = ?2 COLLATE NOCASE", COLUMNS, sq_ident(ROUTINES_TABLE));
            let mut st = conn.db.prepare(&sql).map_err(|e| map(e, &sql))?;
            let rows = st.query_map([kind_text(kind), name], |r| row_of(db, r)).map_err(|e| map(e, &sql))?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| map(e, &sql))
        }
        None => {
            let sql = format!("SELECT {} FROM main.{} ORDER BY name COLLATE NOCASE, kind", COLUMNS, sq_ident(ROUTINES_TABLE));
            let mut st = conn.db.prepare(&sql).map_err(|e| map(e, &sql))?;
            let rows = st.query_map([], |r| row_of(db, r)).map_err(|e| map(e, &sql))?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| map(e, &sql))
        }
    }
}

impl SqliteSession {
    /// Run `f` on a pooled connection of `db` (not the session's), given back after.
    fn on_db_conn<T>(&self, db: &str, f: impl FnOnce(&Conn) -> Result<T, SqlError>) -> Result<T, SqlError> {
        let conn = self.inner.take_conn(Some(db))?;
        let r = f(&conn);
        self.inner.return_conn(conn);
        r
    }

    /// Run `f` in a write transaction on `db`'s writer connection, under its
    /// writer lock, then make it durable. An open transaction is committed
    /// first (MySQL's implicit commit of DDL).
    fn write_routines<T>(&mut self, ctx: &ExecContext<'_>, db: &str, f: impl FnOnce(&Conn) -> Result<T, SqlError>) -> Result<T, SqlError> {
        if self.txn.is_some() {
            self.commit(ctx)?;
        }
        if self.read_only {
            return Err(super::txn::read_only_transaction());
        }
        let d: Arc<Db> = self.inner.db(db)?;
        let locks = self.lock_dbs(std::slice::from_ref(&d), &[], ctx)?;
        let result = match self.inner.take_writer_conn(&d) {
            Ok(conn) => {
                conn.begin_call(ctx, self.lock_wait);
                let r = conn.exec("BEGIN IMMEDIATE").and_then(|()| {
                    let create = format!(
                        "CREATE TABLE IF NOT EXISTS main.{} (kind TEXT NOT NULL, name TEXT NOT NULL COLLATE NOCASE, definer TEXT NOT NULL, definition TEXT NOT NULL, body TEXT NOT NULL, \
                         params TEXT NOT NULL, returns TEXT NOT NULL, invoker INTEGER NOT NULL, deterministic INTEGER NOT NULL, data_access TEXT NOT NULL, comment TEXT NOT NULL, \
                         sql_mode TEXT NOT NULL, created TEXT NOT NULL, modified TEXT NOT NULL, PRIMARY KEY (kind, name))",
                        sq_ident(ROUTINES_TABLE)
                    );
                    conn.exec(&create)?;
                    f(&conn)
                });
                let r = match r {
                    Ok(v) => conn.exec("COMMIT").map(|()| v),
                    Err(e) => Err(e),
                };
                if r.is_err() {
                    let _ = conn.exec("ROLLBACK");
                }
                conn.end_call();
                self.inner.return_writer_conn(&d, conn);
                r
            }
            Err(e) => Err(e),
        };
        self.release_locks(&locks);
        if result.is_ok() {
            self.durable(&locks, ctx)?;
        }
        result
    }

    pub(super) fn save_routine(&mut self, ctx: &ExecContext<'_>, row: &RoutineRow, replace: bool) -> Result<(), SqlError> {
        self.write_routines(ctx, &row.db, |conn| {
            let existing = read(conn, &row.db, Some((row.kind, &row.name)))?;
            if !existing.is_empty() && !replace {
                return Err(SqlError::new(1304, "42000", format!("{} {} already exists", row.kind.keyword(), row.name)));
            }
            let created = existing.first().map_or(row.created.clone(), |old| if replace { row.created.clone() } else { old.created.clone() });
            let sql = format!("INSERT OR REPLACE INTO main.{} ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", sq_ident(ROUTINES_TABLE), COLUMNS);
            conn.db
                .execute(
                    &sql,
                    rusqlite::params![
                        kind_text(row.kind),
                        row.name,
                        row.definer,
                        row.definition,
                        row.body,
                        row.params,
                        row.returns,
                        row.invoker as i64,
                        row.deterministic as i64,
                        row.data_access,
                        row.comment,
                        row.sql_mode,
                        created,
                        row.modified
                    ],
                )
                .map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
            Ok(())
        })
    }

    pub(super) fn drop_routine(&mut self, ctx: &ExecContext<'_>, db: &str, kind: RoutineKind, name: &str) -> Result<bool, SqlError> {
        if !self.inner.database_names().iter().any(|d| d == db) {
            return Ok(false);
        }
        self.write_routines(ctx, db, |conn| {
            let sql = format!("DELETE FROM main.{} WHERE kind = ?1 AND name = ?2 COLLATE NOCASE", sq_ident(ROUTINES_TABLE));
            let n = conn.db.execute(&sql, [kind_text(kind), name]).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
            Ok(n > 0)
        })
    }

    pub(super) fn load_routine(&mut self, db: &str, kind: RoutineKind, name: &str) -> Result<Option<RoutineRow>, SqlError> {
        if !self.inner.database_names().iter().any(|d| d == db) {
            return Ok(None);
        }
        self.on_db_conn(db, |conn| Ok(read(conn, db, Some((kind, name)))?.into_iter().next()))
    }

    pub(super) fn list_routines(&mut self) -> Result<Vec<RoutineRow>, SqlError> {
        list(&self.inner, |_| true)
    }
}

/// Every routine of the databases `wanted` accepts (information_schema
/// reads only those the account sees), by database and name.
pub(crate) fn list(inner: &crate::Inner, wanted: impl Fn(&str) -> bool) -> Result<Vec<RoutineRow>, SqlError> {
    let mut all = Vec::new();
    for db in inner.database_names().into_iter().filter(|d| wanted(d)) {
        let conn = inner.take_conn(Some(&db))?;
        let r = read(&conn, &db, None);
        inner.return_conn(conn);
        all.extend(r?);
    }
    Ok(all)
}
