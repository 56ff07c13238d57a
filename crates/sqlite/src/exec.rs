//! The SQLite engine session (`SqliteSession`): its state, and the
//! `EngineSession` entry points the server calls.
//!
//! A session holds the client's default database, its open transaction
//! (`Txn`) and, while it needs one, a SQLite connection. The rest is split by
//! job over the files of `exec/`:
//!
//! - `dispatch`: a statement's first word picks the code that runs it;
//!   PREPARE and COM_FIELD_LIST.
//! - `connection`: which SQLite connection the session runs on (pooled, its
//!   own, or its database's writer connection) and when it gives it back.
//! - `txn`: MySQL transactions on SQLite: when the SQLite transaction begins,
//!   writer locks, savepoints, COMMIT/ROLLBACK, group commit.
//! - `compile`: a DML statement translated and compiled into the statement
//!   cache, with the privileges it needs.
//! - `explain`: EXPLAIN of a statement: compiled and checked as running it
//!   would be, never run; its SQLite plan mapped by crate::explain.
//! - `normalize`: literals replaced by parameters, so that statements
//!   differing only in values share one compiled statement.
//! - `run_dml`: running a compiled statement: locks, bind, step, MySQL's
//!   affected rows and error messages.
//! - `run_multi`: a multi-table UPDATE or DELETE: its join, then a write per
//!   target row, in a savepoint.
//! - `results`: result sets: column metadata, SQLite values converted to wire
//!   values and streamed to the sink.
//! - `run_ddl`: CREATE/DROP/RENAME/TRUNCATE and the privileges DDL needs.
//! - `alter_table`: ALTER TABLE (and CREATE/DROP INDEX) on SQLite's tables.
//! - `table_admin`: LOCK TABLES and ANALYZE/OPTIMIZE/CHECK/REPAIR TABLE.
//! - `views`: CREATE/ALTER/DROP VIEW and CREATE TABLE ... SELECT (a query's
//!   result columns as column definitions).
//!
//! The entry points below keep a panic from reaching the client's thread: it
//! becomes ERR 1105 and the connection is closed, not pooled.

mod alter_table;
mod compile;
mod connection;
mod dispatch;
mod explain;
mod normalize;
mod or_replace;
mod results;
pub(crate) mod routines;
mod run_ddl;
mod run_dml;
mod run_multi;
mod scopes;
mod show_where;
mod sources;
mod table_admin;
mod txn;
mod view_body;
mod view_calls;
pub(crate) mod view_dml;
mod view_expr;
mod view_text;
mod views;
pub(crate) use views::{MAX_VIEW_DEPTH, MAX_VIEW_TABLES};

use super::conn::{ColMeta, Conn};
use super::{Db, Inner};
use results::{column_meta, stream_rows};
use rusqlite::ffi;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use turnstile_engine::catalog::Catalog;
use turnstile_engine::{Access, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};

/// A transaction the session has open (MySQL's view; see txn.rs for how it
/// maps onto SQLite's).
struct Txn {
    read_only: bool,
    /// The SQLite transaction has been started.
    begun: bool,
    /// Writer locks held (released at the end of the transaction).
    locks: Vec<Arc<Db>>,
    wrote: bool,
    /// AUTO_INCREMENT values generated in the transaction: per table written
    /// (`InsertInfo::schema/table`), the highest id.
    /// SQLite rolls its counter back with the transaction; MySQL does not
    /// reuse the ids, so a ROLLBACK puts the counter back up to these
    /// (`keep_generated_ids`).
    generated: Vec<(String, String, u64)>,
    /// READ COMMITTED (or READ UNCOMMITTED), fixed when the transaction starts.
    read_committed: bool,
    /// Savepoints set while the SQLite transaction has not begun (READ
    /// COMMITTED before the first write), oldest first.
    savepoints: Vec<String>,
}

impl Txn {
    fn new(read_only: bool, read_committed: bool) -> Txn {
        Txn { read_only, begun: false, locks: Vec::new(), wrote: false, generated: Vec::new(), read_committed, savepoints: Vec::new() }
    }
}

/// A client session of the SQLite engine (see the module header).
pub struct SqliteSession {
    inner: Arc<Inner>,
    id: u64,
    db: Option<String>,
    /// The current database when it is a system schema (`USE mysql`), which
    /// `db` (the connection's home) leaves out: SHOW reads it.
    system_db: Option<String>,
    conn: Option<Box<Conn>>,
    txn: Option<Txn>,
    autocommit: bool,
    prev_txn_wrote: bool,
    /// The session's transaction_isolation is READ COMMITTED or READ
    /// UNCOMMITTED (see txn.rs); REPEATABLE READ and SERIALIZABLE
    /// both get snapshot transactions.
    read_committed: bool,
    /// The session's transaction_read_only: its transactions and autocommit
    /// statements may not write (ERR 1792) unless started READ WRITE.
    read_only: bool,
    /// LOCK TABLES is in force: UNLOCK TABLES commits (as MySQL's does).
    tables_locked: bool,
    lock_wait: Duration,
    last_insert_id: u64,
    /// While this session drives its database's writer connection (which is
    /// then in `conn`): the database and the session's own connection.
    lent: Option<(Arc<Db>, Option<Box<Conn>>)>,
    /// Incremented whenever `conn` is swapped (a cached statement must then be
    /// looked up again).
    swaps: u64,
    /// SET foreign_key_checks=0 was applied to the connection (undone before pooling it).
    fk_off: bool,
    /// A result set paused by the sink: the cached statement's text and its
    /// column metadata (when it was cached; otherwise recomputed).
    paused: Option<(String, Option<Arc<ColMeta>>)>,
    /// FOUND_ROWS(): rows the last SELECT sent, or with SQL_CALC_FOUND_ROWS
    /// the rows it would have sent without its LIMIT.
    rows_found: u64,
    /// The client's CLIENT_FOUND_ROWS: UPDATE (and an upsert's unchanged
    /// duplicates) count rows matched instead of rows changed.
    found_rows: bool,
    /// The sql_mode of the session's last statement (`ExecContext::sql_mode`):
    /// statements are translated by it (compile.rs: `mode_key`).
    sql_mode: turnstile_engine::SqlMode,
    /// The session's sql_quote_show_create for its last statement
    /// (`ExecContext::quote_show_create`): how SHOW CREATE TABLE quotes names.
    quote_show_create: bool,
    /// User variables the front handed over for a statement that assigns
    /// them, and what it assigned (functions/user_vars.rs).
    user_vars: std::collections::HashMap<String, Value>,
    /// While a view of another database than the current one is made (run
    /// with that database current: views.rs `create_view_elsewhere`), the
    /// session's own current database.
    view_caller_db: Option<Option<String>>,
}

impl SqliteSession {
    pub(crate) fn new(inner: Arc<Inner>, id: u64) -> SqliteSession {
        let lock_wait = Duration::from_secs(inner.opts.lock_wait_timeout);
        SqliteSession {
            inner,
            id,
            db: None,
            conn: None,
            system_db: None,
            txn: None,
            autocommit: true,
            prev_txn_wrote: false,
            read_committed: false,
            read_only: false,
            tables_locked: false,
            lock_wait,
            last_insert_id: 0,
            lent: None,
            swaps: 0,
            sql_mode: turnstile_engine::SqlMode::DEFAULT,
            quote_show_create: true,
            fk_off: false,
            paused: None,
            found_rows: false,
            rows_found: 0,
            user_vars: std::collections::HashMap::new(),
            view_caller_db: None,
        }
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }
    pub(crate) fn current_db(&self) -> Option<&str> {
        self.db.as_deref()
    }
    /// The current database as the client set it, system schemas included.
    /// Does SHOW CREATE TABLE quote every name (sql_quote_show_create)?
    pub(crate) fn quote_show_create(&self) -> bool {
        self.quote_show_create
    }

    pub(crate) fn shown_db(&self) -> Option<&str> {
        self.db.as_deref().or(self.system_db.as_deref())
    }
    /// A transaction begun without a default database that has read no
    /// database (only information_schema: `mariadb-dump --single-transaction`
    /// starts one, reads information_schema.FILES, then selects the database
    /// to dump) holds a snapshot of nothing. Its SQLite transaction is ended,
    /// so the next statement begins it on the new database's connection; the
    /// MySQL transaction stays open. False when there is more to it.
    fn end_empty_snapshot(&mut self) -> bool {
        let Some(t) = self.txn.as_mut() else { return false };
        let Some(c) = self.conn.as_ref() else { return false };
        if t.wrote || !t.locks.is_empty() || c.home.is_some() || !c.attached.is_empty() || self.lent.is_some() {
            return false;
        }
        if c.exec("ROLLBACK").is_err() {
            return false;
        }
        t.begun = false;
        true
    }
    pub(crate) fn conn_for_show(&mut self) -> Result<&mut Conn, SqlError> {
        self.ensure_conn()?;
        Ok(self.conn.as_mut().expect("conn"))
    }
}

impl EngineSession for SqliteSession {
    fn set_database(&mut self, db: Option<&str>) -> Result<(), SqlError> {
        self.system_db = db.filter(|d| Catalog::is_system(d)).map(str::to_string);
        if self.db.as_deref() == db {
            return Ok(());
        }
        if self.txn.as_ref().is_some_and(|t| t.begun) && !self.end_empty_snapshot() {
            return Err(SqlError::unsupported("changing the default database inside a transaction"));
        }
        if self.paused.is_some() {
            self.cancel_paused();
        }
        if let Some(name) = db {
            if !Catalog::is_system(name) {
                self.inner.db(name)?;
            }
        }
        if let Some(c) = self.conn.take() {
            // Foreign-key checks stay off for the session (`fk_off`): the
            // next connection gets them off again (`ensure_conn_for_read`),
            // this one goes back to the pool with them on.
            if self.fk_off {
                let _ = c.exec("PRAGMA foreign_keys=ON");
            }
            self.inner.return_conn(c);
        }
        self.db = db.filter(|d| !Catalog::is_system(d)).map(str::to_string);
        Ok(())
    }

    fn execute(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        // No panic may reach the client's thread: a bug becomes ERR 1105, the
        // connection (whose state is then unknown) is closed, not pooled, and
        // the transaction's locks are released (SQLite rolls back on close).
        crate::functions::enter_session(ctx.access);
        let mut vars = std::mem::take(&mut self.user_vars);
        let caught = crate::functions::with_user_vars(&mut vars, || std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.execute_inner(ctx, sql, params, sink))));
        self.user_vars = vars;
        match caught {
            Ok(r) => {
                self.detach_conn();
                r.map_err(|e| crate::errors::near_client_text(e, sql))
            }
            Err(_) => {
                self.paused = None;
                if let Some(c) = self.conn.take() {
                    c.end_call();
                    drop(c);
                }
                if let Some(t) = self.txn.take() {
                    self.release_locks(&t.locks);
                }
                // An autocommit statement's locks (and the writer connection it
                // drove, now closed) too.
                self.restore_own_conn();
                for d in self.inner.open_dbs() {
                    d.writer.release(self.id);
                }
                Err(SqlError::internal("internal error in the sqlite engine; the statement was aborted and the transaction rolled back"))
            }
        }
    }

    fn filter_rows(&mut self, ctx: &ExecContext<'_>, columns: &[turnstile_engine::Column], rows: Vec<Vec<Value>>, condition: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        crate::functions::enter_session(ctx.access);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.filter_show_rows(ctx, columns, rows, condition, sink))) {
            Ok(r) => {
                self.detach_conn();
                r
            }
            Err(_) => {
                self.paused = None;
                self.conn = None;
                Err(SqlError::internal("internal error in the sqlite engine while filtering a SHOW statement's rows"))
            }
        }
    }

    fn field_list(&mut self, access: &dyn Access, table: &str) -> Result<Vec<turnstile_engine::FieldListColumn>, SqlError> {
        let r = self.field_list_inner(access, table);
        self.detach_conn();
        r
    }

    fn prepare(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.prepare_inner(access, sql))) {
            Ok(r) => {
                self.detach_conn();
                r.map_err(|e| crate::errors::near_client_text(e, sql))
            }
            Err(_) => {
                self.conn = None;
                Err(SqlError::internal("internal error in the sqlite engine while preparing the statement"))
            }
        }
    }
    fn begin(&mut self, ctx: &ExecContext<'_>, read_only: bool) -> Result<(), SqlError> {
        if self.txn.is_some() {
            self.commit(ctx)?;
        }
        self.txn = Some(Txn::new(read_only, self.read_committed));
        Ok(())
    }

    fn commit(&mut self, ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        let r = self.finish_txn(ctx, true);
        self.detach_conn();
        r
    }

    fn rollback(&mut self, ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        let r = self.finish_txn(ctx, false);
        self.detach_conn();
        r
    }

    fn in_transaction(&self) -> bool {
        self.txn.is_some()
    }

    fn resume(&mut self, ctx: &ExecContext<'_>, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        crate::functions::enter_session(ctx.access);
        let mut vars = std::mem::take(&mut self.user_vars);
        let r = crate::functions::with_user_vars(&mut vars, || self.resume_rows(ctx, sink));
        self.user_vars = vars;
        r
    }

    fn keeps_user_variables(&self) -> bool {
        true
    }

    fn load_user_variables(&mut self, vars: Vec<(String, Value)>) {
        self.user_vars = vars.into_iter().collect();
    }

    fn take_user_variables(&mut self) -> Vec<(String, Value)> {
        std::mem::take(&mut self.user_vars).into_iter().collect()
    }

    fn set_found_rows(&mut self, on: bool) {
        self.found_rows = on;
    }

    fn evaluates_expressions(&self) -> bool {
        true
    }

    fn found_rows(&self) -> u64 {
        self.rows_found
    }

    fn last_insert_id(&self) -> Option<u64> {
        Some(self.conn.as_ref().map_or(self.last_insert_id, |c| c.counters.last_insert_id.load(Ordering::Relaxed)))
    }

    fn routine_save(&mut self, ctx: &ExecContext<'_>, row: &turnstile_engine::RoutineRow, replace: bool) -> Result<(), SqlError> {
        let r = self.save_routine(ctx, row, replace);
        self.detach_conn();
        r
    }

    fn routine_drop(&mut self, ctx: &ExecContext<'_>, db: &str, kind: turnstile_engine::RoutineKind, name: &str) -> Result<bool, SqlError> {
        let r = self.drop_routine(ctx, db, kind, name);
        self.detach_conn();
        r
    }

    fn routine_load(&mut self, db: &str, kind: turnstile_engine::RoutineKind, name: &str) -> Result<Option<turnstile_engine::RoutineRow>, SqlError> {
        self.load_routine(db, kind, name)
    }

    fn routine_list(&mut self) -> Result<Vec<turnstile_engine::RoutineRow>, SqlError> {
        self.list_routines()
    }

    fn expand_views(&mut self, sql: &str) -> Result<Option<turnstile_engine::ExpandedViews>, SqlError> {
        self.ensure_conn_for_read()?;
        let conn = self.conn.as_ref().expect("conn");
        let inner = self.inner.clone();
        let x = crate::view_expand::expand(sql, &|db, name| compile::expanded_view(conn, &inner, sql, db, name))?;
        Ok(x.map(|x| (x.text, x.views)))
    }

    fn set_last_insert_id(&mut self, id: u64) {
        self.last_insert_id = id;
        if let Some(c) = self.conn.as_ref() {
            c.counters.last_insert_id.store(id, Ordering::Relaxed);
        }
    }

    fn cancel_paused(&mut self) {
        if let Some((key, _)) = self.paused.take() {
            if let Some(e) = self.conn.as_ref().and_then(|c| c.cache.get(&key)) {
                e.stmt.reset();
            }
        }
    }

    fn set_autocommit(&mut self, on: bool) {
        self.autocommit = on;
    }

    fn set_variable(&mut self, name: &str, value: &Value) {
        match name {
            "transaction_isolation" | "tx_isolation" => {
                // Applies from the next transaction (the open one keeps its level).
                let level = value.to_text().unwrap_or_default();
                self.read_committed = level.eq_ignore_ascii_case(b"READ-COMMITTED") || level.eq_ignore_ascii_case(b"READ-UNCOMMITTED");
            }
            "transaction_read_only" | "tx_read_only" => {
                // Applies from the next transaction, and to autocommit statements.
                self.read_only = value.as_i64().unwrap_or(0) != 0;
            }
            "innodb_lock_wait_timeout" | "lock_wait_timeout" => {
                if let Some(v) = value.as_i64() {
                    self.lock_wait = Duration::from_secs(v.clamp(1, 1 << 30) as u64);
                }
            }
            "foreign_key_checks" => {
                let on = value.as_i64().unwrap_or(1) != 0;
                if self.ensure_conn().is_ok() {
                    // The session's own connection (not a writer connection it drives).
                    let own = match &self.lent {
                        Some((_, own)) => own.as_ref(),
                        None => self.conn.as_ref(),
                    };
                    if let Some(c) = own {
                        let _ = c.exec(if on { "PRAGMA foreign_keys=ON" } else { "PRAGMA foreign_keys=OFF" });
                        self.fk_off = !on;
                    }
                }
                self.detach_conn();
            }
            _ => {}
        }
    }

    fn reset(&mut self) {
        self.release_connection();
        self.autocommit = true;
        self.last_insert_id = 0;
        self.lock_wait = Duration::from_secs(self.inner.opts.lock_wait_timeout);
        self.read_committed = false;
        self.read_only = false;
        self.tables_locked = false;
    }
}

impl SqliteSession {
    /// `resume`'s work: the paused statement's next rows.
    fn resume_rows(&mut self, ctx: &ExecContext<'_>, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let Some((key, meta)) = self.paused.take() else { return Err(SqlError::internal("no paused result to resume")) };
        let lock_wait = self.lock_wait;
        let Some(conn) = self.conn.as_mut() else { return Err(SqlError::internal("no paused result to resume")) };
        let Some(entry) = conn.cache.get(&key) else { return Err(SqlError::internal("paused statement vanished")) };
        let meta = match meta.or_else(|| entry.meta.clone()) {
            Some(m) => m,
            None => Arc::new(column_meta(conn, entry, &key, true).0),
        };
        conn.begin_call(ctx, lock_wait);
        let st = &conn.cache.get(&key).expect("checked").stmt;
        let r = stream_rows(conn, st, ffi::SQLITE_ROW, &meta, sink, &key, &mut self.rows_found);
        if conn.counters.noted.load(std::sync::atomic::Ordering::Relaxed) {
            run_dml::raise_notes(ctx, &conn.counters);
        }
        conn.end_call();
        match r {
            Ok(Outcome::Paused) => {
                self.paused = Some((key, Some(meta)));
                Ok(Outcome::Paused)
            }
            other => {
                if let Some(e) = conn.cache.get(&key) {
                    e.stmt.reset();
                }
                self.detach_conn();
                other
            }
        }
    }

    /// Drop any paused result, roll back, and give the SQLite connection back
    /// to the pool (foreign-key checks restored).
    fn release_connection(&mut self) {
        self.cancel_paused();
        let killed = std::sync::atomic::AtomicBool::new(false);
        let ctx = ExecContext::internal(&killed);
        let _ = self.finish_txn(&ctx, false);
        if let Some(c) = self.conn.take() {
            if self.fk_off {
                let _ = c.exec("PRAGMA foreign_keys=ON");
                self.fk_off = false;
            }
            self.inner.return_conn(c);
        }
        self.inner.unpark_conn();
    }
}

impl Drop for SqliteSession {
    fn drop(&mut self) {
        self.release_connection();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, SqliteEngine};
    use std::sync::atomic::AtomicBool;
    use turnstile_engine::{Column, Engine};
    use turnstile_wire::consts::coltype;

    /// A sink that keeps the columns and rows it is sent.
    struct CollectRows(Vec<Column>, Vec<Vec<Value>>);
    impl RowSink for CollectRows {
        fn columns(&mut self, c: &[Column]) -> Result<(), SqlError> {
            self.0 = c.to_vec();
            Ok(())
        }
        fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
            self.1.push(r.to_vec());
            Ok(())
        }
    }

    /// A new engine in its own temporary directory, with database `d` and a
    /// session using it.
    fn fresh_session(tag: u32) -> (std::path::PathBuf, SqliteEngine, Box<dyn EngineSession>) {
        let dir = std::env::temp_dir().join(format!("ts-sqlite-{}-{}", std::process::id(), tag));
        let _ = std::fs::remove_dir_all(&dir);
        let eng = SqliteEngine::open(&dir, Options::default()).unwrap();
        eng.create_database("d", false).unwrap();
        let mut s = eng.open_session().unwrap();
        s.set_database(Some("d")).unwrap();
        (dir, eng, s)
    }

    /// UPDATE and upsert affected rows as MySQL counts them, with and
    /// without CLIENT_FOUND_ROWS, and the OK packet's info string.
    #[test]
    fn affected_rows_follow_mysql() {
        let (dir, eng, mut s) = fresh_session(line!());
        let killed = AtomicBool::new(false);
        let ctx = ExecContext::internal(&killed);
        let run = |s: &mut Box<dyn EngineSession>, sql: &str, params: &[Value]| -> (u64, String) {
            let mut rows = CollectRows(Vec::new(), Vec::new());
            match s.execute(&ctx, sql, params, &mut rows).unwrap_or_else(|e| panic!("{}: {:?}", sql, e)) {
                Outcome::Done(d) => (d.affected_rows, d.info),
                other => panic!("{}: {:?}", sql, other),
            }
        };
        let query = |s: &mut Box<dyn EngineSession>, sql: &str| -> Vec<Vec<Value>> {
            let mut rows = CollectRows(Vec::new(), Vec::new());
            s.execute(&ExecContext::internal(&AtomicBool::new(false)), sql, &[], &mut rows).unwrap();
            rows.1
        };
        let info = |m: u64, c: u64| format!("Rows matched: {}  Changed: {}  Warnings: 0", m, c);
        run(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(10), r DOUBLE, d DECIMAL(8,2), dt DATETIME, \
                     ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, KEY (v))",
            &[],
        );
        assert_eq!(
            run(
                &mut s,
                "INSERT INTO t (id, v, s, ts) VALUES (1, 1, 'a', '2001-01-01 00:00:00'), (2, 1, NULL, '2001-01-01 00:00:00'), \
                                 (3, 0, 'abc', '2001-01-01 00:00:00'), (4, 0, '5', '2001-01-01 00:00:00')",
                &[]
            ),
            (4, "Records: 4  Duplicates: 0  Warnings: 0".into())
        );
        for found_rows in [false, true] {
            s.set_found_rows(found_rows);
            let n = |matched: u64, changed: u64| (if found_rows { matched } else { changed }, info(matched, changed));
            run(&mut s, "UPDATE t SET v = 0, s = NULL, r = NULL, d = NULL, dt = NULL", &[]);
            run(&mut s, "UPDATE t SET v = 1, s = 'a' WHERE id = 1", &[]);
            // some of the matched rows already hold the values
            assert_eq!(run(&mut s, "UPDATE t SET v = 1 WHERE id <= 3", &[]), n(3, 2));
            assert_eq!(run(&mut s, "UPDATE t SET v = v, s = s", &[]), n(4, 0));
            // NULL compares as a value: NULL -> NULL is no change, 'a' -> NULL is one
            assert_eq!(run(&mut s, "UPDATE t SET s = NULL WHERE id IN (1, 2)", &[]), n(2, 1));
            assert_eq!(run(&mut s, "UPDATE t SET s = 'abc' WHERE id IN (1, 2)", &[]), n(2, 2));
            // byte-exact, whatever the column's collation
            assert_eq!(run(&mut s, "UPDATE t SET s = 'ABC' WHERE id IN (1, 2)", &[]), n(2, 2));
            // the value as the column stores it: '5' into INT, 5 into VARCHAR, 2 into DOUBLE, 1.50 into DECIMAL(8,2)
            run(&mut s, "UPDATE t SET v = 5, s = '5', r = 2.0, d = 1.5, dt = '2020-01-02 03:04:05' WHERE id = 4", &[]);
            assert_eq!(run(&mut s, "UPDATE t SET v = '5' WHERE id = 4", &[]), n(1, 0));
            assert_eq!(run(&mut s, "UPDATE t SET v = 5.0, s = 5, r = 2, d = 1.50 WHERE id = 4", &[]), n(1, 0));
            assert_eq!(run(&mut s, "UPDATE t SET dt = '2020-01-02 03:04:05' WHERE id = 4", &[]), n(1, 0));
            assert_eq!(run(&mut s, "UPDATE t SET v = 6 WHERE id = 4", &[]), n(1, 1));
            // prepared, parameters used twice by the rewritten statement
            assert_eq!(run(&mut s, "UPDATE t SET v = ?, s = ? WHERE id >= ?", &[Value::Int(6), Value::str("5"), Value::Int(3)]), n(2, 1));
            assert_eq!(run(&mut s, "UPDATE t SET v = ?, s = ? WHERE id >= ?", &[Value::Int(6), Value::str("5"), Value::Int(3)]), n(2, 0));
            // a secondary index drives the loop, the change test must still come after the WHERE
            assert_eq!(run(&mut s, "UPDATE t SET v = 1 WHERE v >= 0 AND s = '5'", &[]), n(2, 2));
            // a value that is not repeatable is not compared: every matched row is written
            // (and ts_chg still runs once per row: it is not hoisted out of the loop)
            assert_eq!(run(&mut s, "UPDATE t SET v = FLOOR(RAND() * 0) + 1 WHERE id >= 3", &[]), n(2, 2));
            assert_eq!(run(&mut s, "UPDATE t SET r = RAND() * 0", &[]), n(4, 4));
            // ORDER BY ... LIMIT counts matched rows: rows 1-3 are taken, 4 stays
            run(&mut s, "UPDATE t SET v = 0", &[]);
            run(&mut s, "UPDATE t SET v = 1 WHERE id IN (1, 2)", &[]);
            assert_eq!(run(&mut s, "UPDATE t SET v = 1 ORDER BY id LIMIT 3", &[]), n(3, 1));
            assert_eq!(query(&mut s, "SELECT id FROM t WHERE v = 0"), vec![vec![Value::Int(4)]]);
            assert_eq!(run(&mut s, "UPDATE t SET v = 1 WHERE v = 1 ORDER BY id DESC LIMIT 2", &[]), n(2, 0));
            // ON UPDATE CURRENT_TIMESTAMP moves only when another column changed
            run(&mut s, "UPDATE t SET ts = '2001-01-01 00:00:00'", &[]);
            assert_eq!(run(&mut s, "UPDATE t SET v = 1 WHERE id <= 2", &[]), n(2, 0));
            assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t WHERE ts = '2001-01-01 00:00:00'"), vec![vec![Value::Int(4)]]);
            assert_eq!(run(&mut s, "UPDATE t SET v = 2 WHERE id = 1", &[]), n(1, 1));
            assert_eq!(query(&mut s, "SELECT id FROM t WHERE ts <> '2001-01-01 00:00:00'"), vec![vec![Value::Int(1)]]);
            // INSERT ... ON DUPLICATE KEY UPDATE: 1 inserted, 2 changed, 0 unchanged (1 with found_rows)
            run(&mut s, "DELETE FROM t WHERE id >= 10", &[]);
            assert_eq!(run(&mut s, "INSERT INTO t (id, v) VALUES (10, 1) ON DUPLICATE KEY UPDATE v = VALUES(v)", &[]), (1, String::new()));
            assert_eq!(run(&mut s, "INSERT INTO t (id, v) VALUES (10, 2) ON DUPLICATE KEY UPDATE v = VALUES(v)", &[]), (2, String::new()));
            assert_eq!(run(&mut s, "INSERT INTO t (id, v) VALUES (10, 2) ON DUPLICATE KEY UPDATE v = VALUES(v)", &[]), (found_rows as u64, String::new()));
            assert_eq!(run(&mut s, "INSERT INTO t (id, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = ?", &[Value::Int(10), Value::Int(7), Value::Int(2)]), (found_rows as u64, String::new()));
            let r = run(&mut s, "INSERT INTO t (id, v) VALUES (10, 3), (11, 1), (1, 2) ON DUPLICATE KEY UPDATE v = VALUES(v)", &[]);
            assert_eq!(r, (2 + 1 + found_rows as u64, "Records: 3  Duplicates: 1  Warnings: 0".into()));
            let r = run(&mut s, "INSERT INTO t (id, v) SELECT id + 100, v FROM t WHERE id >= 10 ON DUPLICATE KEY UPDATE v = 9", &[]);
            assert_eq!(r, (2, "Records: 2  Duplicates: 0  Warnings: 0".into()));
            let r = run(&mut s, "INSERT IGNORE INTO t (id, v) VALUES (10, 3), (12, 1)", &[]);
            assert_eq!(r, (1, "Records: 2  Duplicates: 1  Warnings: 0".into()));
            run(&mut s, "DELETE FROM t WHERE id >= 10", &[]);
        }
        let r = run(&mut s, "ALTER TABLE t ADD COLUMN extra INT", &[]);
        assert_eq!(r, (0, "Records: 0  Duplicates: 0  Warnings: 0".into()));
        let r = run(&mut s, "ALTER TABLE t MODIFY extra BIGINT", &[]);
        assert_eq!(r, (4, "Records: 4  Duplicates: 0  Warnings: 0".into()));
        assert_eq!(run(&mut s, "DELETE FROM t WHERE id = 4", &[]), (1, String::new()));
        drop(s);
        drop(eng);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn engine_round_trip() {
        let (dir, eng, mut s) = fresh_session(line!());
        let killed = AtomicBool::new(false);
        let ctx = ExecContext::internal(&killed);
        let mut rows = CollectRows(Vec::new(), Vec::new());
        s.execute(&ctx, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10) NOT NULL, amount DECIMAL(8,2))", &[], &mut rows).unwrap();
        let out = s.execute(&ctx, "INSERT INTO t (name, amount) VALUES (?, ?), ('b', 2.5)", &[Value::str("a"), Value::Double(1.25)], &mut rows).unwrap();
        match out {
            Outcome::Done(d) => {
                assert_eq!(d.affected_rows, 2);
                assert_eq!(d.generated_id, Some(1));
            }
            other => panic!("{:?}", other),
        }
        let p = s.prepare(&turnstile_engine::access::Unrestricted, "SELECT id, name, amount, COUNT(*) FROM t WHERE name = ? GROUP BY id").unwrap();
        assert_eq!(p.params, 1);
        assert_eq!(p.columns[0].coltype, coltype::LONG);
        for _ in 0..2 {
            let mut rows = CollectRows(Vec::new(), Vec::new());
            s.execute(&ctx, "SELECT id, name, amount, COUNT(*) FROM t WHERE name = ? GROUP BY id", &[Value::str("A ")], &mut rows).unwrap();
            assert_eq!(rows.1, vec![vec![Value::Int(1), Value::str("a"), Value::str("1.25"), Value::Int(1)]]);
            assert_eq!(rows.0[2].coltype, coltype::NEWDECIMAL);
            assert_eq!(rows.0[3].coltype, coltype::LONGLONG);
        }
        let e = s.execute(&ctx, "INSERT INTO t (id, name) VALUES (1, 'x')", &[], &mut rows).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry '1' for key 't.PRIMARY'"));
        // a transaction rolled back leaves nothing behind
        s.begin(&ctx, false).unwrap();
        s.execute(&ctx, "DELETE FROM t", &[], &mut rows).unwrap();
        assert!(s.in_transaction());
        s.rollback(&ctx).unwrap();
        let mut rows = CollectRows(Vec::new(), Vec::new());
        s.execute(&ctx, "SELECT COUNT(*) FROM t", &[], &mut rows).unwrap();
        assert_eq!(rows.1, vec![vec![Value::Int(2)]]);
        // a sink that asks to pause after every two rows gets the rest on resume
        struct Pausing(Vec<Vec<Value>>, usize);
        impl RowSink for Pausing {
            fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
                Ok(())
            }
            fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
                self.0.push(r.to_vec());
                self.1 += 1;
                Ok(())
            }
            fn wants_pause(&self) -> bool {
                self.1 >= 2
            }
        }
        s.execute(&ctx, "INSERT INTO t (name) VALUES ('c'), ('d'), ('e')", &[], &mut rows).unwrap();
        let mut p = Pausing(Vec::new(), 0);
        let mut out = s.execute(&ctx, "SELECT id FROM t ORDER BY id", &[], &mut p).unwrap();
        let mut rounds = 0;
        while out == Outcome::Paused {
            p.1 = 0;
            rounds += 1;
            out = s.resume(&ctx, &mut p).unwrap();
        }
        assert_eq!(out, Outcome::Rows);
        assert_eq!(rounds, 2);
        assert_eq!(p.0.iter().map(|r| r[0].clone()).collect::<Vec<_>>(), (1..=5).map(Value::Int).collect::<Vec<_>>());
        drop(s);
        drop(eng);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
