//! Routing a statement to the code that runs it, by its first word (read
//! without allocating); and PREPARE and COM_FIELD_LIST, which describe what a
//! statement or a table returns (a prepared DML statement is compiled, not run).

use super::results::column_meta;
use super::SqliteSession;
use crate::rewrite::Kind;
use crate::{authorize, errors, show};
use turnstile_engine::{privs, Access, Column, Done, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};

/// First word of a statement (turnstile-sqltext's `scan::first_word`: the
/// lexer's comment rules), uppercased into a small buffer (no allocation);
/// a longer word is cut at 12 bytes, which no word routed on is.
fn first_word(sql: &str) -> ([u8; 12], usize) {
    let w = turnstile_sqltext::scan::first_word(sql).as_bytes();
    let n = w.len().min(12);
    let mut out = [0u8; 12];
    out[..n].copy_from_slice(&w[..n]);
    out.make_ascii_uppercase();
    (out, n)
}

impl SqliteSession {
    pub(super) fn execute_inner(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
        self.sql_mode = ctx.sql_mode;
        let (w, n) = first_word(sql);
        match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => self.dml(ctx, sql, params, sink, Kind::Select),
            b"INSERT" | b"REPLACE" => self.dml(ctx, sql, params, sink, Kind::Insert),
            b"UPDATE" => self.dml(ctx, sql, params, sink, Kind::Update),
            b"DELETE" => self.dml(ctx, sql, params, sink, Kind::Delete),
            b"SHOW" | b"DESCRIBE" | b"DESC" | b"EXPLAIN" => show::run(self, ctx.access, sql, sink),
            b"CREATE" | b"DROP" | b"ALTER" | b"RENAME" | b"TRUNCATE" => self.ddl(ctx, sql),
            b"SAVEPOINT" | b"RELEASE" | b"ROLLBACK" => self.savepoint(ctx, sql),
            b"LOCK" => {
                // LOCK TABLES commits (MySQL) and is otherwise a no-op:
                // writers are serialized anyway. The tables still need SELECT.
                self.check_lock_tables(sql, ctx.access)?;
                self.commit(ctx)?;
                self.tables_locked = true;
                Ok(Outcome::Done(Done::default()))
            }
            b"UNLOCK" => {
                // UNLOCK TABLES commits what was done under LOCK TABLES.
                if std::mem::take(&mut self.tables_locked) {
                    self.commit(ctx)?;
                }
                Ok(Outcome::Done(Done::default()))
            }
            b"ANALYZE" | b"OPTIMIZE" | b"CHECK" | b"REPAIR" => self.maintenance(ctx.access, sql, sink),
            b"BEGIN" => {
                self.begin(ctx, self.read_only)?;
                Ok(Outcome::Done(Done::default()))
            }
            b"COMMIT" => {
                self.commit(ctx)?;
                Ok(Outcome::Done(Done::default()))
            }
            _ => {
                let what: String = sql.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                Err(SqlError::unsupported(&what))
            }
        }
    }

    pub(super) fn field_list_inner(&mut self, access: &dyn Access, table: &str) -> Result<Vec<Column>, SqlError> {
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        access.check_table(&db, table, privs::SELECT)?;
        self.ensure_conn()?;
        let def = self.conn.as_ref().and_then(|c| c.table_def("temp", table).or_else(|| c.table_def("main", table))).ok_or_else(|| errors::no_such_table(&db, table))?;
        Ok(def.columns.iter().map(|c| c.wire_column(&db, &def.name, &c.name, def.key_flags(&c.name))).collect())
    }

    pub(super) fn prepare_inner(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        let (w, n) = first_word(sql);
        let kind = match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => Kind::Select,
            b"INSERT" | b"REPLACE" => Kind::Insert,
            b"UPDATE" => Kind::Update,
            b"DELETE" => Kind::Delete,
            _ => {
                let params = turnstile_sqltext::lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
                // What SHOW and DESCRIBE would refuse (no privilege, no such
                // table), PREPARE refuses too: run it into a sink that keeps nothing.
                show::run(self, access, sql, &mut turnstile_engine::DiscardRows)?;
                let columns = show::describe_columns(self, sql)?;
                return Ok(Prepared { params, columns });
            }
        };
        self.ensure_conn()?;
        match self.compile(sql, kind, access) {
            // The schema changed while it compiled: once more (as `dml`).
            Err(e) if e.code == 1412 => self.compile(sql, kind, access)?,
            r => r?,
        }
        let conn = self.conn.as_ref().expect("conn");
        let entry = conn.cache.get(sql).expect("compiled");
        authorize::check(&entry.needs, access)?;
        let params = entry.stmt.param_count();
        let columns = if entry.stmt.column_count() > 0 {
            match &entry.meta {
                Some(m) => m.cols.clone(),
                None => column_meta(conn, entry, false).0.cols,
            }
        } else {
            Vec::new()
        };
        Ok(Prepared { params, columns })
    }
}
