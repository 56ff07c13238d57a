//! The SQLite engine session: statements, transactions, locks, results, DDL.
//!
//! Transactions follow MySQL: BEGIN only marks the session (IN_TRANS); the
//! SQLite transaction starts with the first statement. A statement that writes
//! takes the database's writer lock first (ERR 1205 after
//! innodb_lock_wait_timeout) and keeps it to the end of the transaction. A
//! read transaction that later writes may find that another writer committed
//! since its snapshot: SQLite refuses the upgrade (BUSY_SNAPSHOT) and the whole
//! transaction is rolled back with ERR 1213, which clients retry. To keep that
//! rare, a session whose previous transaction wrote starts the next one as a
//! writer (BEGIN IMMEDIATE under the writer lock), unless it is READ ONLY.
//! Under READ COMMITTED (and READ UNCOMMITTED) a transaction opens no SQLite
//! transaction until it writes: each read sees the latest commit, as MySQL's
//! READ COMMITTED does, so there is no snapshot to go stale, no 1213 on the
//! first write and no need to start as a writer. Savepoints set before the
//! first write are kept in `Txn::savepoints` and replayed into SQLite when it
//! begins.
//! Autocommit statements that write hold the lock for the statement only.
//! The lock is released at COMMIT before the group-commit fsync, so the next
//! writer proceeds while the disk flushes.
//!
//! A writer that starts under the lock (BEGIN IMMEDIATE, or an autocommit
//! write) runs on the database's writer connection, handed from writer to
//! writer with the lock, and gets its own connection back when it releases
//! the lock (`use_writer_conn`, `restore_own_conn`; why: `Inner::take_writer_conn`).
//!
//! DDL commits the open transaction first (MySQL's implicit commit), then runs
//! in its own SQLite transaction together with the definition in
//! `turnstile_meta`; the shared schema and the engine epoch are then updated,
//! which makes every connection re-translate statements that depend on it.

use super::authorize;
use super::conn::{Cached, ColMeta, Conn, Conv, StatementEpoch};
use super::ddl::{self, AlterOp, Ddl, Name};
use super::errors;
use super::rewrite::{self, Kind, Resolver, Rewritten};
use super::schema::{sq_ident, sq_str, Base, IndexDef, TableDef, META_TABLE};
use super::{show, Db, Durability, Inner};
use crate::catalog::Catalog;
use crate::{privs, Access, Column, Done, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};
use rusqlite::ffi;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use turnstile_wire::consts::{colflag, coltype};

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

pub struct SqliteSession {
    inner: Arc<Inner>,
    id: u64,
    db: Option<String>,
    conn: Option<Box<Conn>>,
    txn: Option<Txn>,
    autocommit: bool,
    prev_txn_wrote: bool,
    /// The session's transaction_isolation is READ COMMITTED or READ
    /// UNCOMMITTED (see the module header); REPEATABLE READ and SERIALIZABLE
    /// both get snapshot transactions.
    read_committed: bool,
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
}

struct Res<'a> {
    conn: &'a Conn,
    inner: &'a Inner,
}

impl Resolver for Res<'_> {
    fn home(&self) -> Option<&str> {
        self.conn.home.as_ref().map(|h| h.name.as_str())
    }
    fn is_database(&self, name: &str) -> bool {
        !Catalog::is_system(name) && self.inner.catalog.exists(name)
    }
    fn is_temp(&self, name: &str) -> bool {
        self.conn.temp.table(name).is_some()
    }
    fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<TableDef>> {
        match db {
            None => self.conn.temp.table(name).cloned().or_else(|| self.conn.home.as_ref().and_then(|h| h.schema().table(name).cloned())),
            Some(d) if Some(d) == self.home() => self.conn.temp.table(name).cloned().or_else(|| self.conn.home.as_ref().and_then(|h| h.schema().table(name).cloned())),
            Some(d) => {
                if !self.is_database(d) {
                    return None;
                }
                self.inner.db(d).ok().and_then(|x| x.schema().table(name).cloned())
            }
        }
    }
}

/// First word of a statement, uppercased into a small buffer (no allocation).
fn first_word(sql: &str) -> ([u8; 12], usize) {
    let b = sql.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'(') {
            i += 1;
        }
        if b[i..].starts_with(b"/*") {
            match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(p) if !b[i..].starts_with(b"/*!") => {
                    i += p + 4;
                    continue;
                }
                _ => {
                    if b[i..].starts_with(b"/*!") {
                        i += 3;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        continue;
                    }
                    break;
                }
            }
        }
        if b[i..].starts_with(b"--") || b[i..].starts_with(b"#") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        break;
    }
    let mut out = [0u8; 12];
    let mut n = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') && n < 12 {
        out[n] = b[i].to_ascii_uppercase();
        n += 1;
        i += 1;
    }
    (out, n)
}

impl SqliteSession {
    pub(crate) fn new(inner: Arc<Inner>, id: u64) -> SqliteSession {
        let lock_wait = Duration::from_secs(inner.opts.lock_wait_timeout);
        SqliteSession {
            inner,
            id,
            db: None,
            conn: None,
            txn: None,
            autocommit: true,
            prev_txn_wrote: false,
            read_committed: false,
            lock_wait,
            last_insert_id: 0,
            lent: None,
            swaps: 0,
            fk_off: false,
            paused: None,
            found_rows: false,
            rows_found: 0,
        }
    }

    /// The session's connection, with no held read transaction left open.
    fn ensure_conn(&mut self) -> Result<(), SqlError> {
        self.ensure_conn_for_read()?;
        self.conn.as_mut().expect("conn").end_held_read();
        Ok(())
    }

    /// The session's connection, possibly with a held read transaction
    /// (`dml_compiled` reuses it for an autocommit read, or ends it).
    fn ensure_conn_for_read(&mut self) -> Result<(), SqlError> {
        if self.conn.is_none() {
            let c = self.inner.take_conn_for_read(self.db.as_deref())?;
            c.counters.last_insert_id.store(self.last_insert_id, Ordering::Relaxed);
            self.conn = Some(c);
        }
        Ok(())
    }

    /// Between statements a session holds a SQLite connection only while it
    /// has state there: an open transaction, TEMPORARY tables, foreign-key
    /// checks off, a paused result or a writer connection it drives. Otherwise
    /// the connection goes back to its database's pool (a LIFO stack) after
    /// each statement. Why: a thousand sessions then share the few connections
    /// that are actually running (as many as statements run at once), whose
    /// page caches and compiled statements stay hot, instead of each touching
    /// its own cold copies; and an idle session costs no SQLite memory.
    /// Measured with `bench/ab.py --workload point-select --threads 1000`: see
    /// docs/architecture.md.
    fn detach_conn(&mut self) {
        if self.txn.is_some() || self.lent.is_some() || self.fk_off || self.paused.is_some() {
            return;
        }
        let Some(c) = self.conn.as_ref() else { return };
        // A held read transaction (`Conn::held_read`) is parked with the connection.
        if (!c.autocommit() && c.held_read.is_none()) || !c.temp.tables.is_empty() {
            return;
        }
        self.last_insert_id = c.counters.last_insert_id.load(Ordering::Relaxed);
        if let Some(c) = self.conn.take() {
            self.swaps += 1;
            self.inner.park_conn(c);
        }
    }

    fn conn(&mut self) -> &mut Conn {
        self.conn.as_mut().expect("ensure_conn first")
    }

    fn release_locks(&mut self, locks: &[Arc<Db>]) {
        if self.lent.as_ref().is_some_and(|(w, _)| locks.iter().any(|l| Arc::ptr_eq(l, w))) {
            self.restore_own_conn();
        }
        for d in locks {
            d.writer.release(self.id);
        }
    }

    /// Having just taken the writer lock of `d`, run on its writer connection
    /// unless this session's connection holds state of its own (TEMPORARY
    /// tables, attached databases, foreign-key checks off, a paused result, an
    /// open SQLite transaction) or another database's.
    fn use_writer_conn(&mut self, d: &Arc<Db>) {
        let Some(own) = self.conn.as_ref() else { return };
        let plain = own.home.as_ref().is_some_and(|h| Arc::ptr_eq(h, d)) && own.attached.is_empty() && own.temp.tables.is_empty() && own.autocommit();
        if !plain || self.lent.is_some() || self.fk_off || self.paused.is_some() {
            return;
        }
        let Ok(w) = self.inner.take_writer_conn(d) else { return };
        w.counters.last_insert_id.store(own.counters.last_insert_id.load(Ordering::Relaxed), Ordering::Relaxed);
        let own = self.conn.replace(w);
        self.lent = Some((d.clone(), own));
        self.swaps += 1;
    }

    /// Give the writer connection back (before the lock is released) and take
    /// the session's own connection again.
    fn restore_own_conn(&mut self) {
        let Some((d, own)) = self.lent.take() else { return };
        if self.paused.is_some() {
            self.cancel_paused();
        }
        let w = std::mem::replace(&mut self.conn, own);
        self.swaps += 1;
        if let Some(w) = w {
            if let Some(c) = self.conn.as_ref() {
                c.counters.last_insert_id.store(w.counters.last_insert_id.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            self.inner.return_writer_conn(&d, w);
        }
    }

    /// Take writer locks for `dbs` (sorted by name, so concurrent multi-database
    /// writers cannot deadlock). Holding other locks and finding one busy is a
    /// potential deadlock: answered with 1213 at once.
    fn lock_dbs(&self, dbs: &[Arc<Db>], held: &[Arc<Db>], ctx: &ExecContext<'_>) -> Result<Vec<Arc<Db>>, SqlError> {
        let mut want: Vec<Arc<Db>> = dbs.iter().filter(|d| !held.iter().any(|h| Arc::ptr_eq(h, d))).cloned().collect();
        want.sort_by(|a, b| a.name.cmp(&b.name));
        want.dedup_by(|a, b| Arc::ptr_eq(a, b));
        let mut got: Vec<Arc<Db>> = Vec::new();
        for d in want {
            let r = if held.is_empty() && got.is_empty() {
                d.writer.acquire(self.id, self.lock_wait, ctx)
            } else if d.writer.try_acquire(self.id) {
                Ok(())
            } else if held.is_empty() {
                d.writer.acquire(self.id, self.lock_wait, ctx)
            } else {
                Err(errors::deadlock())
            };
            if let Err(e) = r {
                for g in &got {
                    g.writer.release(self.id);
                }
                return Err(e);
            }
            got.push(d);
        }
        Ok(got)
    }

    /// Make written data durable (group commit) for these databases.
    fn durable(&self, dbs: &[Arc<Db>], ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        for d in dbs {
            let ticket = d.sync.committed();
            if self.inner.opts.durability == Durability::Full {
                d.sync.wait_durable(ticket, ctx)?;
            }
        }
        Ok(())
    }

    fn stamp(&self) -> u64 {
        let t = self.conn.as_ref().map_or(0, |c| c.temp_version);
        (self.inner.epoch() << 20) ^ t
    }

    /// Find or compile the statement; returns nothing (it stays in the cache).
    fn compile(&mut self, sql: &str, kind: Kind, access: &dyn Access) -> Result<(), SqlError> {
        let stamp = self.stamp();
        let inner = self.inner.clone();
        let conn = self.conn.as_mut().expect("conn");
        if let Some(c) = conn.cache_get(sql) {
            if c.stamp == stamp {
                return Ok(());
            }
            conn.cache.remove(sql);
        }
        // Databases dropped since they were attached go away (SQLite would still find them).
        if conn.attached.iter().any(|a| a.dropped()) && conn.autocommit() {
            let gone: Vec<String> = conn.attached.iter().filter(|a| a.dropped()).map(|a| a.name.clone()).collect();
            for g in gone {
                let _ = conn.exec(&format!("DETACH DATABASE {}", sq_ident(&g)));
            }
            conn.attached.retain(|a| !a.dropped());
        }
        let rw = {
            let r = Res { conn, inner: &inner };
            match super::cte::limit_depth(sql) {
                Some(limited) => rewrite::rewrite(&limited, kind, &r).map(|rw| Rewritten { cte_limited: true, ..rw })?,
                None => rewrite::rewrite(sql, kind, &r)?,
            }
        };
        for name in &rw.dbs {
            let d = inner.db(name)?;
            conn.attach(&d)?;
        }
        // SQLite would look an unqualified name up in attached databases too;
        // MySQL only in the current one.
        if !conn.attached.is_empty() {
            for (d, t) in &rw.tables {
                if d.is_none() && !rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(t)) && conn.temp.table(t).is_none() && conn.home.as_ref().is_none_or(|h| h.schema().table(t).is_none()) {
                    return Err(match &conn.home {
                        Some(h) => errors::no_such_table(&h.name, t),
                        None => SqlError::no_database(),
                    });
                }
            }
        }
        if rw.info_schema {
            show::attach_info_schema(conn)?;
        }
        let rules = authorize::Rules { ctes: &rw.ctes, info_schema: rw.info_schema };
        let epoch = inner.epoch();
        conn.refresh_schemas(epoch)?;
        let (stmt, mut needs) = match authorize::compile(conn, &rw.sql, sql, &rules) {
            Ok(c) => c,
            // DDL ran while it compiled: what it read of the schema may be
            // from before and after. Compiled again (1412 is retried once).
            Err(_) if inner.epoch() != epoch => return Err(errors::table_definition_changed()),
            Err(e) => return Err(hide_missing_table(conn, &rw, name_missing_table(conn, &rw, e), access)),
        };
        needs = named_tables_need_select(conn, &rw, needs);
        if let Some(ins) = rw.insert.as_ref().filter(|i| i.replace) {
            // REPLACE deletes the rows it replaces: MySQL asks for DELETE too.
            needs.iter_mut().filter(|n| n.bits & privs::INSERT != 0 && n.table.eq_ignore_ascii_case(&ins.table)).for_each(|n| n.bits |= privs::DELETE);
        }
        let writes = !stmt.readonly() || rw.for_update;
        conn.cache_put(sql, Cached { stmt, rw: Arc::new(rw), needs, writes, meta: None, stamp, epoch: inner.epoch(), last_use: 0 });
        Ok(())
    }

    /// The databases a statement touches (for writer locks).
    fn stmt_dbs(&self, rw: &Rewritten) -> Vec<Arc<Db>> {
        let conn = self.conn.as_ref().expect("conn");
        let mut v: Vec<Arc<Db>> = Vec::new();
        let touches_home = rw.tables.iter().any(|(d, _)| d.is_none() || d.as_deref() == conn.home.as_ref().map(|h| h.name.as_str())) || rw.dbs.is_empty();
        if touches_home {
            if let Some(h) = &conn.home {
                v.push(h.clone());
            }
        }
        for n in &rw.dbs {
            if let Some(a) = conn.attached.iter().find(|a| &a.name == n) {
                v.push(a.clone());
            }
        }
        v
    }

    /// Transaction bookkeeping before a statement. Returns the locks taken for
    /// an autocommit statement (released by the caller).
    fn prelude(&mut self, ctx: &ExecContext<'_>, writes: bool, dbs: &[Arc<Db>]) -> Result<Vec<Arc<Db>>, SqlError> {
        if self.txn.is_none() && !self.autocommit {
            self.txn = Some(Txn::new(false, self.read_committed));
        }
        let Some(t) = self.txn.as_ref() else {
            return if writes { self.lock_dbs(dbs, &[], ctx) } else { Ok(Vec::new()) };
        };
        if writes && t.read_only {
            return Err(SqlError::new(1792, "25006", "Cannot execute statement in a READ ONLY transaction."));
        }
        if !t.begun {
            if t.read_committed && !writes {
                // Each read sees the latest commit; the SQLite transaction
                // starts with the first write.
                return Ok(Vec::new());
            }
            let conn = self.conn.as_ref().expect("conn");
            let eager = !t.read_only && (writes || (self.prev_txn_wrote && !t.read_committed)) && conn.attached.is_empty();
            let (sql, locks) = if eager {
                let target: Vec<Arc<Db>> = if dbs.is_empty() { conn.home.iter().cloned().collect() } else { dbs.to_vec() };
                let locks = self.lock_dbs(&target, &[], ctx)?;
                if let [d] = &locks[..] {
                    self.use_writer_conn(d);
                }
                (if target.is_empty() { "BEGIN" } else { "BEGIN IMMEDIATE" }, locks)
            } else {
                ("BEGIN", Vec::new())
            };
            let conn = self.conn.as_ref().expect("conn");
            conn.begin_call(ctx, self.lock_wait);
            let mut r = conn.exec(sql);
            for name in &self.txn.as_ref().expect("txn").savepoints {
                if r.is_ok() {
                    r = conn.exec(&format!("SAVEPOINT {}", sq_ident(name)));
                }
            }
            if r.is_err() && !conn.autocommit() {
                let _ = conn.exec("ROLLBACK");
            }
            conn.end_call();
            if let Err(e) = r {
                self.release_locks(&locks);
                return Err(e);
            }
            let t = self.txn.as_mut().expect("txn");
            t.begun = true;
            t.locks = locks;
            t.savepoints.clear();
        }
        if writes {
            let held = self.txn.as_ref().expect("txn").locks.clone();
            let more = self.lock_dbs(dbs, &held, ctx)?;
            let t = self.txn.as_mut().expect("txn");
            t.locks.extend(more);
            t.wrote = true;
        }
        Ok(Vec::new())
    }

    /// After an error inside a transaction: if SQLite rolled the transaction
    /// back (or the error is a deadlock), end it on our side too.
    fn after_error(&mut self, e: &SqlError) {
        let Some(conn) = self.conn.as_ref() else { return };
        let sqlite_rolled_back = self.txn.as_ref().is_some_and(|t| t.begun) && conn.autocommit();
        if e.code == 1213 || sqlite_rolled_back {
            if !conn.autocommit() {
                let _ = conn.exec("ROLLBACK");
            }
            if let Some(t) = self.txn.take() {
                self.release_locks(&t.locks);
                self.prev_txn_wrote = t.wrote;
            }
        }
    }

    fn dml(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, kind: Kind) -> Result<Outcome, SqlError> {
        match self.dml_once(ctx, sql, params, sink, kind) {
            // The schema changed under a compiled statement and SQLite may not
            // recompile it by itself (authorize.rs): compile it again here,
            // checked again, and run it once more. Nothing ran the first time.
            Err(e) if e.code == 1412 => {
                if let Some(c) = self.conn.as_mut() {
                    c.cache.clear();
                }
                self.dml_once(ctx, sql, params, sink, kind)
            }
            r => r,
        }
    }

    fn dml_once(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, kind: Kind) -> Result<Outcome, SqlError> {
        self.ensure_conn_for_read()?;
        // A statement text seen before (prepared statements) is used as is. A new
        // text has its comparison/IN/VALUES/LIMIT literals replaced by parameters,
        // so that text-protocol statements differing only in values share one
        // compiled statement.
        // One lookup: a statement compiled for the current schema is used as is.
        let stamp = self.stamp();
        let cached = match self.conn.as_mut().and_then(|c| c.cache_get(sql)) {
            Some(c) if c.stamp == stamp => return self.dml_compiled(ctx, sql, params, sink),
            Some(_) => true,
            None => false,
        };
        if !cached {
            if let Some((norm, slots)) = normalize(sql) {
                let merged: Vec<Value> = slots
                    .into_iter()
                    .map(|s| match s {
                        Slot::Param(i) => params.get(i).cloned().unwrap_or(Value::Null),
                        Slot::Lit(v) => v,
                    })
                    .collect();
                if self.compile(&norm, kind, ctx.access).is_ok() {
                    return self.dml_compiled(ctx, &norm, &merged, sink);
                }
            }
        }
        self.compile(sql, kind, ctx.access)?;
        self.dml_compiled(ctx, sql, params, sink)
    }

    fn dml_compiled(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let (writes, rw, nparams) = {
            let c = self.conn.as_ref().expect("conn").cache.get(sql).expect("compiled");
            authorize::check(&c.needs, ctx.access)?;
            (c.writes, c.rw.clone(), c.stmt.param_count())
        };
        if nparams != params.len() {
            return Err(SqlError::wrong_arguments("mysqld_stmt_execute"));
        }
        // An autocommit read on a connection with nothing else open may run
        // in the read transaction the previous one left (see `Conn::held_read`);
        // anything else ends that transaction first.
        let plain_read = !writes && !rw.for_update && !rw.info_schema && self.autocommit && self.txn.is_none() && self.lent.is_none() && !self.fk_off && self.paused.is_none();
        {
            let conn = self.conn.as_mut().expect("conn");
            if plain_read && conn.attached.is_empty() && conn.temp.tables.is_empty() && super::thread_may_hold_reads() {
                conn.prepare_autocommit_read();
            } else {
                conn.end_held_read();
            }
        }
        if rw.info_schema {
            show::refresh_info_schema(self.conn.as_mut().expect("conn"), &self.inner, ctx.access)?;
        }
        let dbs = if writes { self.stmt_dbs(&rw) } else { Vec::new() };
        let swaps = self.swaps;
        let locks = self.prelude(ctx, writes, &dbs)?;
        if let [d] = &locks[..] {
            // An autocommit write (not a locking read, whose rows may be paused
            // after the lock is released).
            if !rw.for_update {
                self.use_writer_conn(d);
            }
        }
        // On another connection now: the statement is compiled there too (and
        // the information_schema tables it reads are filled there).
        let ready = if self.swaps != swaps {
            self.compile(sql, rw.kind, ctx.access).and_then(|()| if rw.info_schema { show::refresh_info_schema(self.conn.as_mut().expect("conn"), &self.inner, ctx.access) } else { Ok(()) })
        } else {
            Ok(())
        };
        let before = if writes { self.conn.as_ref().map_or(0, |c| c.total_changes()) } else { 0 };
        let r = ready.and_then(|()| self.run(ctx, sql, params, sink, &rw));
        if let (Ok(Outcome::Done(Done { generated_id: Some(_), .. })), Some(ins), Some(t)) = (&r, &rw.insert, self.txn.as_mut()) {
            let high = self.conn.as_ref().map_or(0, |c| c.last_rowid().max(0) as u64);
            match t.generated.iter_mut().find(|(s, n, _)| *s == ins.schema && *n == ins.table) {
                Some(g) => g.2 = g.2.max(high),
                None => t.generated.push((ins.schema.clone(), ins.table.clone(), high)),
            }
        }
        let wrote = writes && self.conn.as_ref().map_or(0, |c| c.total_changes()) != before;
        if !locks.is_empty() {
            self.release_locks(&locks);
        }
        match r {
            Ok(out) => {
                if wrote && self.txn.is_none() {
                    self.durable(&locks, ctx)?;
                }
                Ok(out)
            }
            Err(e) => {
                self.after_error(&e);
                Err(e)
            }
        }
    }

    /// Bind, step, stream rows or count changes.
    fn run(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, rw: &Rewritten) -> Result<Outcome, SqlError> {
        let lock_wait = self.lock_wait;
        let epoch_now = self.inner.epoch_cell();
        let conn = self.conn.as_mut().expect("conn");
        let counters = conn.counters.clone();
        if rw.cte_limited {
            counters.cte_limit.store(ctx.cte_max_recursion_depth, Ordering::Relaxed);
        }
        counters.ai_generated.store(0, Ordering::Relaxed);
        counters.upserted.store(0, Ordering::Relaxed);
        counters.matched.store(0, Ordering::Relaxed);
        counters.deleted.store(0, Ordering::Relaxed);
        let found_rows = self.found_rows;
        let rows_found = &mut self.rows_found;
        conn.begin_call(ctx, lock_wait);
        let result = (|| -> Result<Outcome, SqlError> {
            if let Some(ins) = rw.insert.as_ref().filter(|i| i.replace) {
                // SQLite does not count the rows REPLACE deletes to make room
                // (MySQL does); a TEMP trigger on the target counts them (it
                // fires for those deletes because recursive_triggers is on).
                // Created here, not at compile time: a rollback or a DROP
                // TABLE takes it away again.
                let name = sq_ident(&format!("ts_replace:{}", ins.target.to_lowercase()));
                conn.exec(&format!("CREATE TEMP TRIGGER IF NOT EXISTS {} AFTER DELETE ON {} BEGIN SELECT ts_deleted(); END", name, ins.target))?;
            }
            let entry = conn.cache.get(sql).expect("compiled");
            let st = &entry.stmt;
            for (i, p) in params.iter().enumerate() {
                let rc = st.bind(i + 1, p);
                if rc != ffi::SQLITE_OK {
                    return Err(errors::from_conn(conn, rc, sql));
                }
            }
            // Only the first step may recompile (see authorize.rs).
            let rc = conn.step_user(st, &StatementEpoch { now: epoch_now, compiled: entry.epoch });
            let ncols = st.column_count();
            if ncols > 0 && (rc == ffi::SQLITE_ROW || rc == ffi::SQLITE_DONE) {
                // Column metadata is worked out on the first execution and kept
                // with the statement when it cannot change.
                let (meta, keep) = match &entry.meta {
                    Some(m) => (m.clone(), false),
                    None => {
                        let (m, stable) = column_meta(conn, entry, rc == ffi::SQLITE_ROW);
                        (Arc::new(m), stable)
                    }
                };
                let st = if keep {
                    if let Some(e) = conn.cache.get_mut(sql) {
                        e.meta = Some(meta.clone());
                    }
                    &conn.cache.get(sql).expect("compiled").stmt
                } else {
                    st
                };
                sink.columns_encoded(&meta.cols, &meta.encoded)?;
                *rows_found = 0;
                let out = stream_rows(conn, st, rc, &meta, sink, sql, rows_found)?;
                if let (Outcome::Rows, Some(count_sql)) = (&out, rw.count_sql.as_deref()) {
                    *rows_found = count_rows(conn, count_sql, params, sql)?;
                }
                return Ok(out);
            }
            if rc != ffi::SQLITE_DONE && rc != ffi::SQLITE_ROW {
                let mut e = errors::from_conn(conn, rc, sql);
                if e.code == 1062 {
                    e = duplicate_entry(conn, rw, params, &e);
                } else if rc & 0xff == ffi::SQLITE_MISMATCH {
                    e = rowid_mismatch(conn, rw).unwrap_or(e);
                }
                return Err(e);
            }
            let changes = conn.changes();
            let mut done = Done { affected_rows: changes, ..Default::default() };
            if rw.kind == Kind::Update {
                // SQLite changed only the rows whose values differ (rewrite.rs: update).
                let matched = counters.matched.load(Ordering::Relaxed);
                done.affected_rows = if found_rows { matched } else { changes };
                done.info = format!("Rows matched: {}  Changed: {}  Warnings: {}", matched, changes, done.warnings);
            }
            if let Some(ins) = &rw.insert {
                // Duplicates updated (and changed), duplicates met, rows inserted.
                let upd = counters.upserted.load(Ordering::Relaxed);
                let dups = if ins.odku { counters.matched.load(Ordering::Relaxed).max(upd) } else { 0 };
                let inserted = changes.saturating_sub(upd);
                let replaced = if ins.replace { counters.deleted.load(Ordering::Relaxed) } else { 0 };
                if ins.replace {
                    // MySQL: 1 per row inserted plus 1 per row it deleted.
                    done.affected_rows = changes + replaced;
                }
                if ins.odku {
                    // MySQL: 1 per row inserted, 2 per row updated, 0 per duplicate
                    // left as it was (1 with CLIENT_FOUND_ROWS).
                    done.affected_rows = inserted + 2 * upd + if found_rows { dups - upd } else { 0 };
                }
                if ins.rows != 1 {
                    // Multi-row and INSERT ... SELECT: MySQL's info string.
                    let records = if ins.rows > 0 { ins.rows as u64 } else { inserted + dups };
                    let duplicates = if ins.odku {
                        upd
                    } else if ins.replace {
                        replaced
                    } else if ins.ignore {
                        records.saturating_sub(inserted)
                    } else {
                        0
                    };
                    done.info = format!("Records: {}  Duplicates: {}  Warnings: {}", records, duplicates, done.warnings);
                }
                if ins.has_ai && changes > upd {
                    let inserted = changes - upd;
                    let generated = if ins.ai_named { counters.ai_generated.load(Ordering::Relaxed).min(inserted) } else { inserted };
                    let last = conn.last_rowid().max(0) as u64;
                    if generated > 0 {
                        let first = last.saturating_sub(generated - 1);
                        done.last_insert_id = first;
                        done.generated_id = Some(first);
                        counters.last_insert_id.store(first, Ordering::Relaxed);
                    } else {
                        done.last_insert_id = last;
                    }
                }
            }
            Ok(Outcome::Done(done))
        })();
        if matches!(result, Ok(Outcome::Paused)) {
            // The cursor stays open (not reset) until resume or cancel_paused.
            let meta = conn.cache.get(sql).and_then(|e| e.meta.clone());
            conn.end_call();
            self.paused = Some((sql.to_string(), meta));
            return result;
        }
        if let Some(e) = conn.cache.get(sql) {
            e.stmt.reset();
        }
        conn.end_call();
        if let Ok(Outcome::Done(d)) = &result {
            if let Some(g) = d.generated_id {
                self.last_insert_id = g;
            }
        }
        result
    }

    // ------------------------------------------------------------ DDL

    /// Resolve a table name to (SQLite schema name, MySQL db, shared Db or None for TEMPORARY).
    fn target(&mut self, name: &Name, temporary: bool) -> Result<(String, String, Option<Arc<Db>>), SqlError> {
        let home_or_none = name.0.is_none() || name.0 == self.db;
        if temporary || (home_or_none && self.conn.as_ref().is_some_and(|c| c.temp.table(&name.1).is_some())) {
            let home = self.db.clone().ok_or_else(SqlError::no_database)?;
            return Ok(("temp".into(), home, None));
        }
        let dbname = match &name.0 {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or_else(SqlError::no_database)?,
        };
        if Catalog::is_system(&dbname) {
            return Err(SqlError::db_access_denied("", "", &dbname));
        }
        let d = self.inner.db(&dbname)?;
        let conn = self.conn.as_mut().expect("conn");
        if conn.home.as_ref().is_some_and(|h| Arc::ptr_eq(h, &d)) {
            return Ok(("main".into(), dbname, Some(d)));
        }
        conn.attach(&d)?;
        Ok((dbname.clone(), dbname, Some(d)))
    }

    fn def_of(&self, schema: &str, table: &str) -> Option<Arc<TableDef>> {
        self.conn.as_ref().and_then(|c| c.table_def(schema, table))
    }

    fn ddl(&mut self, ctx: &ExecContext<'_>, sql: &str) -> Result<Outcome, SqlError> {
        let stmt = match ddl::parse(sql)? {
            Some(s) => s,
            None => {
                let kw = crate::lex::first_keyword(sql);
                let what = sql.split_whitespace().take(2).collect::<Vec<_>>().join(" ").to_ascii_uppercase();
                return Err(if kw == "CREATE" || kw == "DROP" || kw == "ALTER" { SqlError::unsupported(&what) } else { SqlError::syntax(sql) });
            }
        };
        // MySQL commits the open transaction before DDL.
        if self.txn.is_some() {
            self.commit(ctx)?;
        }
        self.ensure_conn()?;
        self.check_ddl(&stmt, ctx.access)?;
        // Before the schema changes as well as after: a statement compiled
        // meanwhile must not be recompiled by SQLite on its own (authorize.rs).
        self.inner.bump_epoch();
        let temporary = matches!(&stmt, Ddl::CreateTable { temporary: true, .. } | Ddl::DropTable { temporary: true, .. });
        let first = match &stmt {
            Ddl::CreateTable { table, .. } | Ddl::CreateIndex { table, .. } | Ddl::DropIndex { table, .. } | Ddl::Alter { table, .. } | Ddl::Truncate { table } => table.clone(),
            Ddl::DropTable { tables, .. } => tables[0].clone(),
            Ddl::Rename { pairs } => pairs[0].0.clone(),
        };
        let (schema, dbname, db) = self.target(&first, temporary)?;
        let locks = match &db {
            Some(d) => self.lock_dbs(std::slice::from_ref(d), &[], ctx)?,
            None => Vec::new(),
        };
        let conn = self.conn.as_ref().expect("conn");
        let fk_off = matches!(&stmt, Ddl::Alter { .. });
        if fk_off {
            let _ = conn.exec("PRAGMA foreign_keys=OFF");
        }
        conn.begin_call(ctx, self.lock_wait);
        let begin = conn.exec("BEGIN IMMEDIATE");
        let result = match begin {
            Ok(()) => {
                let r = self.ddl_body(&stmt, &schema, &dbname, db.as_ref());
                let conn = self.conn.as_ref().expect("conn");
                match r {
                    Ok(out) => match conn.exec("COMMIT") {
                        Ok(()) => Ok(out),
                        Err(e) => {
                            let _ = conn.exec("ROLLBACK");
                            Err(e)
                        }
                    },
                    Err(e) => {
                        let _ = conn.exec("ROLLBACK");
                        Err(e)
                    }
                }
            }
            Err(e) => Err(e),
        };
        let conn = self.conn.as_mut().expect("conn");
        conn.end_call();
        if fk_off {
            let _ = conn.exec("PRAGMA foreign_keys=ON");
        }
        // Refresh the shared definitions (also after a failure: harmless).
        if let Some(d) = &db {
            if let Ok(s) = super::load_schema(&conn.db, &schema) {
                d.set_schema(s);
            }
        }
        conn.temp_version += 1;
        conn.cache.clear();
        self.inner.bump_epoch();
        self.release_locks(&locks);
        if result.is_ok() {
            self.durable(&locks, ctx)?;
        }
        result
    }

    /// The privileges a DDL statement needs on each table it names (as
    /// MariaDB 10.11 asks: ALTER TABLE needs ALTER; a rename also DROP on the
    /// old name and CREATE and INSERT on the new; indexes INDEX; foreign keys
    /// REFERENCES on the parent), checked before anything is resolved or
    /// opened, so a database the account may not see is not revealed by
    /// "unknown database". The session's own TEMPORARY tables need none.
    fn check_ddl(&self, stmt: &Ddl, access: &dyn Access) -> Result<(), SqlError> {
        let temp = |n: &Name| (n.0.is_none() || n.0 == self.db) && self.conn.as_ref().is_some_and(|c| c.temp.table(&n.1).is_some());
        let check = |n: &Name, bits: u32| -> Result<(), SqlError> {
            let db = n.0.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            access.check_table(db, &n.1, bits)
        };
        // A parent table lives in the child's database: another database's
        // is refused (not silently taken for a table of the child's own).
        let parent = |child: &Name, fk: &super::schema::ForeignKey| -> Result<(), SqlError> {
            let own = child.0.as_deref().or(self.db.as_deref());
            if let Some(other) = fk.ref_db.as_deref().filter(|d| Some(*d) != own) {
                check(&(Some(other.to_string()), fk.ref_table.clone()), privs::REFERENCES)?;
                return Err(SqlError::unsupported("foreign keys to a table of another database"));
            }
            check(&(child.0.clone(), fk.ref_table.clone()), privs::REFERENCES)
        };
        match stmt {
            Ddl::CreateTable { temporary, table, like, def, .. } => {
                check(table, if *temporary { privs::CREATE_TMP_TABLE } else { privs::CREATE })?;
                def.foreign_keys.iter().try_for_each(|fk| parent(table, fk))?;
                match like {
                    Some(src) if !temp(src) => check(src, privs::SELECT),
                    _ => Ok(()),
                }
            }
            Ddl::DropTable { temporary, tables, .. } => tables.iter().filter(|t| !*temporary && !temp(t)).try_for_each(|t| check(t, privs::DROP)),
            Ddl::Truncate { table } if !temp(table) => check(table, privs::DROP),
            Ddl::CreateIndex { table, .. } | Ddl::DropIndex { table, .. } if !temp(table) => check(table, privs::INDEX),
            Ddl::Alter { table, ops } if !temp(table) => {
                check(table, privs::ALTER)?;
                for op in ops {
                    match op {
                        AlterOp::RenameTable(to) => {
                            check(table, privs::DROP)?;
                            check(&(to.0.clone().or_else(|| table.0.clone()), to.1.clone()), privs::CREATE | privs::INSERT)?;
                        }
                        AlterOp::AddForeignKey(fk) => parent(table, fk)?,
                        _ => {}
                    }
                }
                Ok(())
            }
            Ddl::Rename { pairs } => pairs.iter().filter(|(from, _)| !temp(from)).try_for_each(|(from, to)| {
                check(from, privs::ALTER | privs::DROP)?;
                check(to, privs::CREATE | privs::INSERT)
            }),
            Ddl::Truncate { .. } | Ddl::DropIndex { .. } | Ddl::CreateIndex { .. } | Ddl::Alter { .. } => Ok(()),
        }
    }

    fn ddl_body(&mut self, stmt: &Ddl, schema: &str, dbname: &str, db: Option<&Arc<Db>>) -> Result<Outcome, SqlError> {
        let temp = db.is_none();
        let ok = |warnings: u16| Ok(Outcome::Done(Done { warnings, ..Default::default() }));
        match stmt {
            Ddl::CreateTable { if_not_exists, table, def, auto_increment, like, .. } => {
                if table.1.eq_ignore_ascii_case(META_TABLE) || table.1.starts_with("sqlite_") || table.1.starts_with("ts_rebuild_") {
                    return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", table.1)));
                }
                if table.1.len() > 64 || table.1.is_empty() {
                    return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", table.1)));
                }
                if self.def_of(schema, &table.1).is_some() || self.sqlite_object_exists(schema, &table.1)? {
                    if *if_not_exists {
                        return ok(1);
                    }
                    return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", table.1)));
                }
                let mut def: TableDef = match like {
                    Some(src) => {
                        let (s2, _, _) = self.target(src, false).or_else(|_| self.target(src, true))?;
                        let d = self.def_of(&s2, &src.1).ok_or_else(|| errors::no_such_table(src.0.as_deref().unwrap_or(dbname), &src.1))?;
                        let mut d = (*d).clone();
                        d.name = table.1.clone();
                        d.created = ddl::empty_def("").created;
                        d
                    }
                    None => (**def).clone(),
                };
                for ix in def.indexes.iter_mut() {
                    ix.sqlite_name.clear();
                }
                self.create_objects(&mut def, schema)?;
                if let Some(ai) = auto_increment.filter(|v| *v > 1) {
                    if def.auto_increment_column().is_some() {
                        self.conn().exec(&format!("INSERT INTO {}.sqlite_sequence(name, seq) VALUES ({}, {})", sq_ident(schema), sq_str(&def.name), ai - 1))?;
                    }
                }
                self.save_def(schema, temp, &def)?;
                ok(0)
            }
            Ddl::DropTable { if_exists, tables, temporary } => {
                let mut missing = Vec::new();
                for t in tables {
                    // DROP TEMPORARY TABLE drops only the session's own
                    // temporary tables (an unknown one is 1051), never a real
                    // table of the same name.
                    let (s, dbn, _) = self.target(t, *temporary)?;
                    match self.def_of(&s, &t.1) {
                        Some(d) => {
                            self.conn().exec(&format!("DROP TABLE {}.{}", sq_ident(&s), sq_ident(&d.name)))?;
                            self.remove_def(&s, s == "temp", &d.name)?;
                        }
                        None => missing.push(format!("{}.{}", t.0.as_deref().unwrap_or(&dbn), t.1)),
                    }
                }
                if !missing.is_empty() && !if_exists {
                    return Err(SqlError::new(1051, "42S02", format!("Unknown table '{}'", missing.join(","))));
                }
                ok(missing.len() as u16)
            }
            Ddl::Truncate { table } => {
                let d = self.def_of(schema, &table.1).ok_or_else(|| errors::no_such_table(dbname, &table.1))?;
                let conn = self.conn();
                conn.exec(&format!("DELETE FROM {}.{}", sq_ident(schema), sq_ident(&d.name)))?;
                if d.auto_increment_column().is_some() {
                    conn.exec(&format!("DELETE FROM {}.sqlite_sequence WHERE name = {}", sq_ident(schema), sq_str(&d.name)))?;
                }
                ok(0)
            }
            Ddl::CreateIndex { table, index } => {
                let d = self.def_of(schema, &table.1).ok_or_else(|| errors::no_such_table(dbname, &table.1))?;
                let mut nd = (*d).clone();
                nd.indexes.push(index.clone());
                ddl::finish_def(&mut nd)?;
                let ix = nd.indexes.last_mut().expect("pushed");
                self.create_index(&d, ix, schema)?;
                self.save_def(schema, temp, &nd)?;
                Ok(altered(0))
            }
            Ddl::DropIndex { table, name } => {
                let d = self.def_of(schema, &table.1).ok_or_else(|| errors::no_such_table(dbname, &table.1))?;
                self.alter(schema, temp, dbname, &d, &[AlterOp::DropIndex(name.clone())])
            }
            Ddl::Alter { table, ops } => {
                let d = self.def_of(schema, &table.1).ok_or_else(|| errors::no_such_table(dbname, &table.1))?;
                self.alter(schema, temp, dbname, &d, ops)
            }
            Ddl::Rename { pairs } => {
                for (from, to) in pairs {
                    let (s1, db1, _) = self.target(from, false)?;
                    let (s2, db2, _) = self.target(to, false)?;
                    if db1 != db2 {
                        return Err(SqlError::unsupported("RENAME TABLE across databases"));
                    }
                    let d = self.def_of(&s1, &from.1).ok_or_else(|| errors::no_such_table(&db1, &from.1))?;
                    if self.def_of(&s2, &to.1).is_some() {
                        return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", to.1)));
                    }
                    self.rename_table(&s1, s1 == "temp", &d, &to.1)?;
                }
                ok(0)
            }
        }
    }

    fn sqlite_object_exists(&self, schema: &str, name: &str) -> Result<bool, SqlError> {
        let conn = self.conn.as_ref().expect("conn");
        let sql = format!("SELECT count(*) FROM {}.sqlite_master WHERE type IN ('table','view') AND name = ?1 COLLATE NOCASE", sq_ident(schema));
        conn.db.query_row(&sql, [name], |r| r.get::<_, i64>(0)).map(|n| n > 0).map_err(|e| errors::from_rusqlite(conn, &e, &sql))
    }

    fn create_index(&mut self, def: &TableDef, ix: &mut IndexDef, schema: &str) -> Result<(), SqlError> {
        if ix.sqlite_name.is_empty() {
            let conn = self.conn.as_ref().expect("conn");
            let base = format!("{}_{}", def.name, ix.name);
            let mut name = base.clone();
            let mut n = 1;
            loop {
                let sql = format!("SELECT count(*) FROM {}.sqlite_master WHERE name = ?1 COLLATE NOCASE", sq_ident(schema));
                let exists: i64 = conn.db.query_row(&sql, [&name], |r| r.get(0)).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
                if exists == 0 {
                    break;
                }
                n += 1;
                name = format!("{}_{}", base, n);
            }
            ix.sqlite_name = name;
        }
        let sql = ddl::sqlite_create_index(def, ix, schema);
        self.conn().exec(&sql)
    }

    /// CREATE TABLE + indexes + triggers for a definition (index names assigned).
    fn create_objects(&mut self, def: &mut TableDef, schema: &str) -> Result<(), SqlError> {
        let sql = ddl::sqlite_create_table(def, schema, &def.name);
        self.conn().exec(&sql)?;
        let snapshot = def.clone();
        for ix in def.indexes.iter_mut() {
            self.create_index(&snapshot, ix, schema)?;
        }
        for t in ddl::sqlite_triggers(def, schema) {
            self.conn().exec(&t)?;
        }
        Ok(())
    }

    fn save_def(&mut self, schema: &str, temp: bool, def: &TableDef) -> Result<(), SqlError> {
        let conn = self.conn.as_mut().expect("conn");
        if temp {
            conn.temp.tables.insert(def.name.to_ascii_lowercase(), Arc::new(def.clone()));
            return Ok(());
        }
        let json = serde_json::to_string(def).map_err(|e| SqlError::internal(e.to_string()))?;
        let sql = format!("INSERT OR REPLACE INTO {}.{}(name, def) VALUES (?1, ?2)", sq_ident(schema), META_TABLE);
        conn.db.execute(&sql, rusqlite::params![def.name.to_ascii_lowercase(), json]).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
        Ok(())
    }

    fn remove_def(&mut self, schema: &str, temp: bool, name: &str) -> Result<(), SqlError> {
        let conn = self.conn.as_mut().expect("conn");
        if temp {
            conn.temp.tables.remove(&name.to_ascii_lowercase());
            return Ok(());
        }
        let sql = format!("DELETE FROM {}.{} WHERE name = ?1", sq_ident(schema), META_TABLE);
        conn.db.execute(&sql, [name.to_ascii_lowercase()]).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
        Ok(())
    }

    fn rename_table(&mut self, schema: &str, temp: bool, def: &TableDef, to: &str) -> Result<(), SqlError> {
        self.conn().exec(&format!("ALTER TABLE {}.{} RENAME TO {}", sq_ident(schema), sq_ident(&def.name), sq_ident(to)))?;
        let conn = self.conn();
        if def.auto_increment_column().is_some() {
            let _ = conn.exec(&format!("UPDATE {}.sqlite_sequence SET name = {} WHERE name = {}", sq_ident(schema), sq_str(to), sq_str(&def.name)));
        }
        self.remove_def(schema, temp, &def.name)?;
        let mut nd = def.clone();
        nd.name = to.to_string();
        self.save_def(schema, temp, &nd)
    }

    fn alter(&mut self, schema: &str, temp: bool, dbname: &str, old: &TableDef, ops: &[AlterOp]) -> Result<Outcome, SqlError> {
        let mut nd = old.clone();
        let (rebuild, renames) = ddl::apply_alter(&mut nd, ops)?;
        let new_name = ops.iter().rev().find_map(|o| if let AlterOp::RenameTable(n) = o { Some(n.clone()) } else { None });
        if let Some(n) = &new_name {
            if n.0.as_deref().is_some_and(|d| d != dbname) {
                return Err(SqlError::unsupported("RENAME TABLE across databases"));
            }
            if !n.1.eq_ignore_ascii_case(&old.name) && self.def_of(schema, &n.1).is_some() {
                return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", n.1)));
            }
        }
        if rebuild {
            // Copy algorithm: new table, copy rows, drop old, rename.
            let tmp = format!("ts_rebuild_{}", old.name);
            let mut tmp_def = nd.clone();
            tmp_def.name = tmp.clone();
            for ix in tmp_def.indexes.iter_mut() {
                ix.sqlite_name.clear();
            }
            let sql = ddl::sqlite_create_table(&tmp_def, schema, &tmp);
            self.conn().exec(&sql)?;
            let mut cols = Vec::new();
            let mut exprs = Vec::new();
            for c in &nd.columns {
                cols.push(sq_ident(&c.name));
                match renames.iter().find(|(_, new)| new.eq_ignore_ascii_case(&c.name)) {
                    Some((oldname, _)) => exprs.push(sq_ident(oldname)),
                    None => exprs.push(ddl::implicit_default(c)),
                }
            }
            let copy = format!("INSERT INTO {s}.{} ({}) SELECT {} FROM {s}.{}", sq_ident(&tmp), cols.join(", "), exprs.join(", "), sq_ident(&old.name), s = sq_ident(schema));
            self.conn().exec(&copy)?;
            let conn = self.conn();
            let copied = conn.changes();
            let seq = if old.auto_increment_column().is_some() {
                conn.db.query_row(&format!("SELECT seq FROM {}.sqlite_sequence WHERE name = ?1", sq_ident(schema)), [&old.name], |r| r.get::<_, i64>(0)).ok()
            } else {
                None
            };
            conn.exec(&format!("DROP TABLE {}.{}", sq_ident(schema), sq_ident(&old.name)))?;
            let final_name = new_name.as_ref().map(|n| n.1.clone()).unwrap_or_else(|| old.name.clone());
            conn.exec(&format!("ALTER TABLE {}.{} RENAME TO {}", sq_ident(schema), sq_ident(&tmp), sq_ident(&final_name)))?;
            if let (Some(seq), true) = (seq, nd.auto_increment_column().is_some()) {
                let _ = conn.exec(&format!("UPDATE {}.sqlite_sequence SET seq = max(seq, {}) WHERE name = {}", sq_ident(schema), seq, sq_str(&final_name)));
            }
            nd.name = final_name;
            let snapshot = nd.clone();
            for ix in nd.indexes.iter_mut() {
                ix.sqlite_name.clear();
                self.create_index(&snapshot, ix, schema)?;
            }
            for t in ddl::sqlite_triggers(&nd, schema) {
                self.conn().exec(&t)?;
            }
            self.remove_def(schema, temp, &old.name)?;
            self.save_def(schema, temp, &nd)?;
            return Ok(altered(if mysql_copies(old, ops) { copied } else { 0 }));
        }
        // Index changes only.
        for ix in &old.indexes {
            let kept = nd.indexes.iter().any(|n| n.sqlite_name == ix.sqlite_name && n.columns == ix.columns && n.unique == ix.unique);
            if !kept {
                self.conn().exec(&format!("DROP INDEX IF EXISTS {}.{}", sq_ident(schema), sq_ident(&ix.sqlite_name)))?;
            }
        }
        let snapshot = nd.clone();
        for ix in nd.indexes.iter_mut() {
            let exists = old.indexes.iter().any(|o| o.sqlite_name == ix.sqlite_name && !ix.sqlite_name.is_empty() && o.columns == ix.columns && o.unique == ix.unique);
            if !exists {
                ix.sqlite_name.clear();
                self.create_index(&snapshot, ix, schema)?;
            }
        }
        if let Some(n) = &new_name {
            if !n.1.eq_ignore_ascii_case(&old.name) || n.1 != old.name {
                self.save_def(schema, temp, &nd)?;
                // A rename alone is answered without the info string (MySQL).
                let rename_only = ops.iter().all(|o| matches!(o, AlterOp::RenameTable(_)));
                return self.rename_table(schema, temp, &nd, &n.1).map(|_| if rename_only { Outcome::Done(Done::default()) } else { altered(0) });
            }
        }
        self.save_def(schema, temp, &nd)?;
        Ok(altered(0))
    }

    // ------------------------------------------------------------ other statements

    fn savepoint(&mut self, ctx: &ExecContext<'_>, sql: &str) -> Result<Outcome, SqlError> {
        let toks = crate::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = super::cursor::Cur::new(sql, &toks);
        enum Op {
            Set,
            Release,
            RollbackTo,
        }
        let op = if c.eat_kw("SAVEPOINT") {
            Op::Set
        } else if c.eat_kw("RELEASE") {
            c.expect_kw("SAVEPOINT")?;
            Op::Release
        } else {
            c.expect_kw("ROLLBACK")?;
            c.eat_kw("WORK");
            c.expect_kw("TO")?;
            c.eat_kw("SAVEPOINT");
            Op::RollbackTo
        };
        let name = c.ident()?;
        c.eat_op(";");
        if !c.at_end() {
            return Err(c.error());
        }
        self.ensure_conn()?;
        if self.txn.is_none() && self.autocommit {
            // Outside a transaction a savepoint is gone at once (MySQL).
            return match op {
                Op::Set => Ok(Outcome::Done(Done::default())),
                _ => Err(SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name))),
            };
        }
        self.prelude(ctx, false, &[])?;
        if let Some(t) = self.txn.as_mut().filter(|t| !t.begun) {
            // READ COMMITTED before the first write: nothing to undo yet; the
            // savepoints are replayed when the SQLite transaction begins.
            let at = t.savepoints.iter().position(|s| s.eq_ignore_ascii_case(&name));
            match (op, at) {
                (Op::Set, at) => {
                    if let Some(i) = at {
                        t.savepoints.remove(i);
                    }
                    t.savepoints.push(name);
                }
                (Op::Release, Some(i)) => t.savepoints.truncate(i),
                (Op::RollbackTo, Some(i)) => t.savepoints.truncate(i + 1),
                (_, None) => return Err(SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name))),
            }
            return Ok(Outcome::Done(Done::default()));
        }
        let q = sq_ident(&name);
        let conn = self.conn.as_ref().expect("conn");
        let r = match op {
            Op::Set => conn.exec(&format!("SAVEPOINT {}", q)),
            Op::Release => conn.exec(&format!("RELEASE {}", q)),
            Op::RollbackTo => conn.exec(&format!("ROLLBACK TO {}", q)),
        };
        r.map_err(|e| if e.message.contains("no such savepoint") { SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name)) } else { e })?;
        Ok(Outcome::Done(Done::default()))
    }

    /// `LOCK TABLE[S] name [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE}, ...`:
    /// LOCK TABLES on the database and SELECT on every table named, as MySQL asks.
    fn check_lock_tables(&self, sql: &str, access: &dyn Access) -> Result<(), SqlError> {
        let toks = crate::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = super::cursor::Cur::new(sql, &toks);
        c.expect_kw("LOCK")?;
        if !(c.eat_kw("TABLES") || c.eat_kw("TABLE")) {
            return Err(c.error());
        }
        loop {
            let (db, table) = c.qualified()?;
            let db = db.or_else(|| self.db.clone()).ok_or_else(SqlError::no_database)?;
            let temp = db.as_str() == self.db.as_deref().unwrap_or("") && self.conn.as_ref().is_some_and(|c| c.temp.table(&table).is_some());
            if !temp {
                // A database privilege, checked first (1044), then SELECT (1142).
                if access.privileges(&db) & privs::LOCK_TABLES == 0 {
                    let (user, host) = access.who();
                    return Err(SqlError::db_access_denied(user, host, &db));
                }
                access.check_table(&db, &table, privs::SELECT)?;
            }
            if c.eat_kw("AS") || !(c.is_kw("READ") || c.is_kw("WRITE") || c.is_kw("LOW_PRIORITY")) {
                c.ident()?;
            }
            if c.eat_kw("READ") {
                c.eat_kw("LOCAL");
            } else {
                c.eat_kw("LOW_PRIORITY");
                c.expect_kw("WRITE")?;
            }
            if !c.eat_op(",") {
                break;
            }
        }
        c.eat_op(";");
        if c.at_end() {
            Ok(())
        } else {
            Err(c.error())
        }
    }

    fn maintenance(&mut self, access: &dyn Access, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        let toks = crate::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = super::cursor::Cur::new(sql, &toks);
        let op = c.ident()?.to_ascii_lowercase();
        c.eat_kw("NO_WRITE_TO_BINLOG");
        c.eat_kw("LOCAL");
        if !(c.eat_kw("TABLE") || c.eat_kw("TABLES")) {
            return Err(c.error());
        }
        let mut names = vec![c.qualified()?];
        while c.eat_op(",") {
            names.push(c.qualified()?);
        }
        // MySQL: SELECT and INSERT (CHECK TABLE: any privilege on the table).
        let need = if op == "check" { privs::SELECT } else { privs::SELECT | privs::INSERT };
        for (db, table) in &names {
            let db = db.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            access.check_table(db, table, need)?;
        }
        self.ensure_conn()?;
        sink.columns(&["Table", "Op", "Msg_type", "Msg_text"].map(Column::varchar))?;
        for n in names {
            let (s, dbn, _) = self.target(&n, false)?;
            let exists = self.def_of(&s, &n.1).is_some();
            let (ty, text) = if exists { ("status", "OK".to_string()) } else { ("Error", format!("Table '{}.{}' doesn't exist", dbn, n.1)) };
            if exists && op == "analyze" {
                let _ = self.conn().exec(&format!("ANALYZE {}.{}", sq_ident(&s), sq_ident(&n.1)));
            }
            sink.row(&[Value::str(&format!("{}.{}", dbn, n.1)), Value::str(&op), Value::str(ty), Value::str(&text)])?;
        }
        Ok(Outcome::Rows)
    }

    fn finish_txn(&mut self, ctx: &ExecContext<'_>, commit: bool) -> Result<(), SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
        let Some(t) = self.txn.take() else { return Ok(()) };
        let mut result = Ok(());
        if t.begun {
            if let Some(conn) = self.conn.as_ref() {
                conn.begin_call(ctx, self.lock_wait);
                result = conn.exec(if commit { "COMMIT" } else { "ROLLBACK" });
                if result.is_err() && !conn.autocommit() {
                    let _ = conn.exec("ROLLBACK");
                }
                if !commit || result.is_err() {
                    keep_generated_ids(conn, &t.generated);
                }
                conn.end_call();
            }
        }
        self.release_locks(&t.locks);
        self.prev_txn_wrote = t.wrote;
        result?;
        if commit && t.wrote {
            self.durable(&t.locks, ctx)?;
        }
        Ok(())
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }
    pub(crate) fn current_db(&self) -> Option<&str> {
        self.db.as_deref()
    }
    pub(crate) fn conn_for_show(&mut self) -> Result<&mut Conn, SqlError> {
        self.ensure_conn()?;
        Ok(self.conn.as_mut().expect("conn"))
    }
}

/// A statement refused for touching a table that is not a MySQL table (a
/// table-valued function such as `pragma_table_info` first touches SQLite's
/// own `sqlite_master`): name the table the client wrote.
fn name_missing_table(conn: &Conn, rw: &Rewritten, e: SqlError) -> SqlError {
    if e.code != 1146 {
        return e;
    }
    let home = conn.home.as_ref().map_or("", |h| h.name.as_str());
    let unknown = rw.tables.iter().find(|(db, t)| {
        let cte = rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(t));
        let known = match db.as_deref() {
            None => conn.temp.table(t).is_some() || conn.table_def("main", t).is_some(),
            Some(d) if d == home => conn.table_def("main", t).is_some() || conn.temp.table(t).is_some(),
            Some(d) => conn.table_def(d, t).is_some() || d.eq_ignore_ascii_case("information_schema"),
        };
        !cte && !known
    });
    match unknown {
        Some((db, t)) => errors::no_such_table(db.as_deref().unwrap_or(home), t),
        None => e,
    }
}

/// Every table the statement names, other than what it writes, needs SELECT
/// as in MySQL, even where SQLite reads nothing of it: it drops a LEFT JOIN
/// that cannot change the result (NATURAL LEFT JOIN on a unique key), and
/// success against "doesn't exist" would still tell whether the table exists.
fn named_tables_need_select(conn: &Conn, rw: &Rewritten, needs: Box<[authorize::Need]>) -> Box<[authorize::Need]> {
    let mut needs = needs.into_vec();
    let home = conn.home.as_ref().map(|h| h.name.as_str());
    for (db, table) in &rw.tables {
        let unqualified = db.is_none();
        let Some(db) = db.as_deref().or(home) else { continue };
        let private = db.eq_ignore_ascii_case("information_schema") || (unqualified && conn.temp.table(table).is_some()) || (unqualified && rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(table)));
        if private {
            continue;
        }
        match needs.iter_mut().find(|n| *n.db == *db && n.table.eq_ignore_ascii_case(table)) {
            Some(n) if n.bits & (privs::INSERT | privs::UPDATE | privs::DELETE) != 0 => {}
            Some(n) => n.bits |= privs::SELECT,
            None => needs.push(authorize::Need { db: db.into(), table: table.as_str().into(), bits: privs::SELECT }),
        }
    }
    needs.into_boxed_slice()
}

/// A statement that fails to compile (a table, a column or a function that
/// does not exist, bad syntax near it) while it names a database where the
/// session lacks the privilege the statement needs is refused as MySQL
/// refuses it, with 1142: MySQL checks privileges before it looks for
/// columns and tables. Otherwise "doesn't exist" against "denied" would tell
/// any account which databases, tables and columns exist.
fn hide_missing_table(conn: &Conn, rw: &Rewritten, e: SqlError, access: &dyn Access) -> SqlError {
    if matches!(e.code, 1142 | 1044) {
        return e;
    }
    let home = conn.home.as_ref().map_or("", |h| h.name.as_str());
    let need_for = |table: &str| -> u32 {
        let target = rw.insert.as_ref().map(|i| i.table.as_str());
        match rw.kind {
            Kind::Insert if target.is_some_and(|t| t.eq_ignore_ascii_case(table)) => privs::INSERT,
            Kind::Update => privs::UPDATE,
            Kind::Delete => privs::DELETE,
            _ => privs::SELECT,
        }
    };
    let other = |db: &str| db != home && !db.eq_ignore_ascii_case("information_schema");
    // The tables it names in other databases (the rewriter saw them).
    for (db, table) in &rw.tables {
        if let Some(db) = db.as_deref().filter(|d| other(d)) {
            if let Err(denied) = access.check_table(db, table, need_for(table)) {
                return denied;
            }
        }
    }
    // A database the rewriter did not know ("Table 'db.table' doesn't exist").
    if e.code == 1146 {
        if let Some((db, table)) = e.message.strip_prefix("Table '").and_then(|m| m.strip_suffix("' doesn't exist")).and_then(|m| m.split_once('.')) {
            if other(db) {
                return access.check_table(db, table, need_for(table)).err().unwrap_or(e);
            }
        }
    }
    e
}

/// The OK of ALTER TABLE (and CREATE/DROP INDEX, which MySQL runs as one):
/// `records` rows copied, MySQL's info string.
fn altered(records: u64) -> Outcome {
    Outcome::Done(Done { affected_rows: records, info: format!("Records: {}  Duplicates: 0  Warnings: 0", records), ..Default::default() })
}

/// Whether MySQL 8.0 runs these ALTER operations with the COPY algorithm (it
/// then reports the rows copied; INSTANT and INPLACE report 0): changing a
/// column's type, and adding a foreign key (with foreign_key_checks on).
fn mysql_copies(old: &TableDef, ops: &[AlterOp]) -> bool {
    ops.iter().any(|op| match op {
        AlterOp::ChangeColumn { old: name, col, .. } => match old.column(name) {
            Some(o) => o.base != col.base || o.unsigned != col.unsigned || o.scale != col.scale || col.length.unwrap_or(0) < o.length.unwrap_or(0),
            None => false,
        },
        AlterOp::AddForeignKey(_) => true,
        _ => false,
    })
}

thread_local! {
    /// Each thread's row for `stream_rows`. Its values keep their byte buffers
    /// from row to row and statement to statement, so a streamed text column
    /// costs no allocation (callgrind, oltp_point_select: two allocations and
    /// frees per query before).
    static ROW_BUF: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A value's byte buffer larger than this is not kept in `ROW_BUF`.
const ROW_BUF_KEEP: usize = 64 * 1024;

/// Send rows from the current one on until the end, an error, or until the
/// sink asks to pause (Outcome::Paused: the statement is left positioned).
fn stream_rows(conn: &Conn, st: &super::conn::Stmt, first_rc: std::os::raw::c_int, meta: &ColMeta, sink: &mut dyn RowSink, sql: &str, sent: &mut u64) -> Result<Outcome, SqlError> {
    // Taken out of the slot (not borrowed) while rows go to the sink.
    let mut row = ROW_BUF.with_borrow_mut(std::mem::take);
    row.truncate(meta.convs.len());
    row.resize_with(meta.convs.len(), || Value::Null);
    let result = stream_rows_into(conn, st, first_rc, meta, sink, sql, sent, &mut row);
    for v in row.iter_mut() {
        if matches!(v, Value::Bytes(b) if b.capacity() > ROW_BUF_KEEP) {
            *v = Value::Null;
        }
    }
    ROW_BUF.with_borrow_mut(|slot| *slot = row);
    result
}

#[allow(clippy::too_many_arguments)]
fn stream_rows_into(
    conn: &Conn,
    st: &super::conn::Stmt,
    first_rc: std::os::raw::c_int,
    meta: &ColMeta,
    sink: &mut dyn RowSink,
    sql: &str,
    sent: &mut u64,
    row: &mut [Value],
) -> Result<Outcome, SqlError> {
    let mut rc = first_rc;
    while rc == ffi::SQLITE_ROW {
        for (i, (conv, slot)) in meta.convs.iter().zip(row.iter_mut()).enumerate() {
            convert_into(st, i, *conv, slot);
        }
        sink.row(row)?;
        *sent += 1;
        rc = st.step();
        if rc == ffi::SQLITE_ROW && sink.wants_pause() {
            // SQLite has the next row ready; it is sent first on resume.
            return Ok(Outcome::Paused);
        }
    }
    if rc != ffi::SQLITE_DONE {
        return Err(errors::from_conn(conn, rc, sql));
    }
    Ok(Outcome::Rows)
}

/// `convert`, writing text into the byte buffer `slot` already holds where
/// it can (a new value otherwise).
fn convert_into(st: &super::conn::Stmt, i: usize, conv: Conv, slot: &mut Value) {
    let ty = st.column_type(i);
    let text = ty != ffi::SQLITE_NULL
        && match conv {
            Conv::Text | Conv::CharTrim => true,
            Conv::Any => ty == ffi::SQLITE_TEXT || ty == ffi::SQLITE_BLOB,
            _ => false,
        };
    match slot {
        Value::Bytes(buf) if text => {
            let mut b = st.bytes(i);
            if matches!(conv, Conv::CharTrim) {
                while let [rest @ .., b' '] = b {
                    b = rest;
                }
            }
            buf.clear();
            buf.extend_from_slice(b);
        }
        _ => *slot = convert(st, i, conv, ty),
    }
}

/// FOUND_ROWS() after SELECT SQL_CALC_FOUND_ROWS: run the statement's count
/// query (its text without the LIMIT) with the parameters that precede it.
fn count_rows(conn: &mut Conn, count_sql: &str, params: &[Value], sql: &str) -> Result<u64, SqlError> {
    let st = conn.prepare(count_sql, sql)?;
    let n = st.param_count().min(params.len());
    for (i, p) in params.iter().take(n).enumerate() {
        let rc = st.bind(i + 1, p);
        if rc != ffi::SQLITE_OK {
            return Err(errors::from_conn(conn, rc, sql));
        }
    }
    match st.step() {
        ffi::SQLITE_ROW => Ok(st.int64(0).max(0) as u64),
        rc => Err(errors::from_conn(conn, rc, sql)),
    }
}

/// Statements longer than this are not normalized (`normalize`).
const NORMALIZE_MAX_BYTES: usize = 64 * 1024;

/// A parameter of a normalized statement: the client's `?` number i, or a
/// literal taken out of the text.
enum Slot {
    Param(usize),
    Lit(Value),
}

/// Replace literals in value positions (after a comparison operator, BETWEEN/AND,
/// LIMIT/OFFSET, inside IN (...) and VALUES (...) lists) by `?`. `None` when the
/// text has no such literal. Positions where a literal changes meaning as a
/// parameter (ORDER BY 1, select-list items, type arguments, LIKE patterns) are
/// left alone.
fn normalize(sql: &str) -> Option<(String, Vec<Slot>)> {
    use crate::lex::Tok;
    // A statement this long is not one of many that differ only in values
    // (and SQLite takes at most 32,766 parameters): compiled as it is, not
    // copied into a second text with a value per literal.
    if sql.len() > NORMALIZE_MAX_BYTES {
        return None;
    }
    let toks = crate::lex::tokenize(sql).ok()?;
    let mut out = String::with_capacity(sql.len());
    let mut slots = Vec::new();
    let mut last = 0;
    let mut params = 0;
    let mut lists: Vec<bool> = Vec::new(); // per open paren: is it an IN/VALUES list
    let mut values_clause = false;
    let mut between = false;
    let mut changed = false;
    // Paren depth of the select list being read: its literals stay, because
    // the text of an expression column is its name (`SELECT a = 1 FROM t`).
    let mut select_list: Option<usize> = None;
    for (i, t) in toks.iter().enumerate() {
        let prev = if i > 0 { Some(&toks[i - 1]) } else { None };
        match &t.tok {
            Tok::Param => {
                slots.push(Slot::Param(params));
                params += 1;
            }
            Tok::Op("(") => {
                let is_list =
                    prev.is_some_and(|p| p.is_kw("IN") || p.is_kw("VALUES") || p.is_kw("VALUE") || p.is_kw("ROW")) || (values_clause && prev.is_some_and(|p| p.is_op(",")) && lists.is_empty());
                lists.push(is_list);
            }
            Tok::Op(")") => {
                lists.pop();
                if select_list.is_some_and(|d| lists.len() < d) {
                    select_list = None;
                }
            }
            Tok::Word(w) => {
                if w.eq_ignore_ascii_case("SELECT") && select_list.is_none() {
                    select_list = Some(lists.len());
                } else if w.eq_ignore_ascii_case("FROM") && select_list == Some(lists.len()) {
                    select_list = None;
                }
                if w.eq_ignore_ascii_case("VALUES") || w.eq_ignore_ascii_case("VALUE") {
                    values_clause = true;
                } else if w.eq_ignore_ascii_case("BETWEEN") {
                    between = true;
                } else if ["ON", "SELECT", "UPDATE", "WHERE", "SET"].iter().any(|k| w.eq_ignore_ascii_case(k)) {
                    values_clause = false;
                }
            }
            Tok::Number(_) | Tok::Str(_) => {
                let adjacent_word = prev.is_some_and(|p| matches!(p.tok, Tok::Word(_)) && p.end == t.start);
                let value_pos = match prev {
                    Some(p) => {
                        ["=", "<", ">", "<=", ">=", "<>", "!=", "<=>"].iter().any(|o| p.is_op(o))
                            || p.is_kw("BETWEEN")
                            || (p.is_kw("AND") && between)
                            || p.is_kw("LIMIT")
                            || p.is_kw("OFFSET")
                            || ((p.is_op("(") || p.is_op(",")) && lists.last() == Some(&true))
                    }
                    None => false,
                };
                let next_is_str = toks.get(i + 1).is_some_and(|n| matches!(n.tok, Tok::Str(_)));
                if p_and_between_done(prev) {
                    between = false;
                }
                if value_pos && !adjacent_word && !next_is_str && select_list.is_none() {
                    let v = match &t.tok {
                        Tok::Number(n) => {
                            if let Ok(i) = n.parse::<i64>() {
                                Value::Int(i)
                            } else if crate::lex::hybrid_bytes(n).is_some() || n.contains(['e', 'E']) {
                                continue;
                            } else if let Ok(f) = n.parse::<f64>() {
                                // keep DECIMAL literal text (exact); SQLite converts by affinity
                                let _ = f;
                                Value::Bytes(n.as_bytes().to_vec())
                            } else {
                                continue;
                            }
                        }
                        Tok::Str(b) => Value::Bytes(b.clone()),
                        _ => unreachable!(),
                    };
                    if matches!(v, Value::Bytes(_)) && matches!(t.tok, Tok::Number(_)) {
                        // a decimal literal: binding it as text would compare as text
                        continue;
                    }
                    out.push_str(&sql[last..t.start]);
                    out.push('?');
                    last = t.end;
                    slots.push(Slot::Lit(v));
                    changed = true;
                }
            }
            _ => {}
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&sql[last..]);
    Some((out, slots))
}

fn p_and_between_done(prev: Option<&crate::lex::Token>) -> bool {
    prev.is_some_and(|p| p.is_kw("AND"))
}

/// A wire value from column `i` of the current row.
/// `ty` is the column's `sqlite3_column_type`, read before any text
/// conversion (the caller has it already).
fn convert(st: &super::conn::Stmt, i: usize, conv: Conv, ty: std::os::raw::c_int) -> Value {
    if ty == ffi::SQLITE_NULL {
        return Value::Null;
    }
    match conv {
        Conv::Int => match ty {
            ffi::SQLITE_INTEGER => Value::Int(st.int64(i)),
            ffi::SQLITE_FLOAT => Value::Int(st.double(i).round() as i64),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::UInt => match ty {
            ffi::SQLITE_INTEGER => Value::UInt(st.int64(i) as u64),
            ffi::SQLITE_FLOAT => Value::UInt(st.double(i).round() as u64),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Double => match ty {
            ffi::SQLITE_INTEGER | ffi::SQLITE_FLOAT => Value::Double(st.double(i)),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Float => match ty {
            ffi::SQLITE_INTEGER | ffi::SQLITE_FLOAT => Value::Float(st.double(i) as f32),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Decimal(scale) => match ty {
            ffi::SQLITE_INTEGER if scale == 0 => Value::Bytes(st.int64(i).to_string().into_bytes()),
            ffi::SQLITE_INTEGER => Value::Bytes(format!("{}.{}", st.int64(i), "0".repeat(scale as usize)).into_bytes()),
            ffi::SQLITE_FLOAT => {
                let f = st.double(i);
                let s = format!("{:.*}", scale as usize, f);
                Value::Bytes(if s == "-0" || s.starts_with("-0.") && s[3..].bytes().all(|b| b == b'0') { s[1..].to_string() } else { s }.into_bytes())
            }
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
        Conv::Text => Value::Bytes(st.bytes(i).to_vec()),
        Conv::CharTrim => {
            let b = st.bytes(i);
            let mut e = b.len();
            while e > 0 && b[e - 1] == b' ' {
                e -= 1;
            }
            Value::Bytes(b[..e].to_vec())
        }
        Conv::Temporal(base) => {
            let b = st.bytes(i);
            super::schema::parse_temporal(base, b).unwrap_or_else(|| Value::Bytes(b.to_vec()))
        }
        Conv::Any => match ty {
            ffi::SQLITE_INTEGER => Value::Int(st.int64(i)),
            ffi::SQLITE_FLOAT => Value::Double(st.double(i)),
            _ => Value::Bytes(st.bytes(i).to_vec()),
        },
    }
}

fn conv_of(col: &super::schema::ColumnDef) -> Conv {
    match col.base {
        b if b.is_integer() && col.unsigned => Conv::UInt,
        b if b.is_integer() => Conv::Int,
        Base::Decimal => Conv::Decimal(col.scale.unwrap_or(0) as u8),
        Base::Float => Conv::Float,
        Base::Double => Conv::Double,
        Base::Char => Conv::CharTrim,
        b if b.is_temporal() => Conv::Temporal(b),
        _ => Conv::Text,
    }
}

/// The name MySQL gives an unaliased select item.
fn mysql_item_name(text: &str) -> String {
    let toks = match crate::lex::tokenize(text) {
        Ok(t) => t,
        Err(_) => return text.to_string(),
    };
    let idents = toks.iter().all(|t| t.ident().is_some() || t.is_op("."));
    if idents && !toks.is_empty() {
        return toks.last().and_then(|t| t.ident()).unwrap_or(text).to_string();
    }
    text.to_string()
}

/// Is select item `text` a binary string expression (`strtype`), given the
/// statement's tables for its column references?
fn is_binary_item(text: &str, tables: &[Arc<TableDef>]) -> bool {
    crate::strtype::is_binary_text(text, &|c| tables.iter().any(|t| t.column(c).is_some_and(|cd| cd.base.is_binary())))
}

/// Column definitions for a result. Returns whether they can be cached
/// (false when a type was guessed from a NULL or from no row at all).
fn column_meta(conn: &Conn, entry: &Cached, have_row: bool) -> (ColMeta, bool) {
    let st = &entry.stmt;
    let n = st.column_count();
    let items = &entry.rw.select_items;
    let items_ok = items.len() == n;
    let mut cols = Vec::with_capacity(n);
    let mut convs = Vec::with_capacity(n);
    let mut stable = true;
    let tables: Vec<Arc<TableDef>> = entry
        .rw
        .tables
        .iter()
        .filter_map(|(d, t)| match d {
            None => conn.table_def("temp", t).or_else(|| conn.table_def("main", t)),
            Some(d) if conn.home.as_ref().is_some_and(|h| &h.name == d) => conn.table_def("main", t),
            Some(d) => conn.table_def(d, t),
        })
        .collect();
    for i in 0..n {
        let sqlite_name = st.column_name(i);
        let name = match items.get(i) {
            Some((text, false)) if items_ok => mysql_item_name(text),
            _ => sqlite_name.clone(),
        };
        if let Some((dbn, tbl, orig)) = st.origin(i) {
            if let Some(def) = conn.table_def(&dbn, &tbl) {
                if let Some(cd) = def.column(&orig) {
                    let c = cd.wire_column(&conn.mysql_db_name(&dbn), &def.name, &name, def.key_flags(&orig));
                    convs.push(conv_of(cd));
                    cols.push(c);
                    continue;
                }
            }
            // information_schema and other tables without MySQL definitions
            let decl = st.decltype(i).unwrap_or_default().to_ascii_uppercase();
            let mut c = if decl.contains("INT") { Column::computed(&name, coltype::LONGLONG) } else { Column::varchar(&name) };
            c.schema = conn.mysql_db_name(&dbn);
            c.table = tbl.clone();
            c.org_table = tbl;
            c.org_name = orig;
            convs.push(if decl.contains("INT") { Conv::Int } else { Conv::Text });
            cols.push(c);
            continue;
        }
        // An expression: by the function it starts with, then by the value.
        let text = items.get(i).filter(|_| items_ok).map(|x| x.0.clone()).unwrap_or_else(|| sqlite_name.clone());
        let up = text.trim_start().to_ascii_uppercase();
        let func = up.split('(').next().unwrap_or("").trim().to_string();
        let arg = up.find('(').and_then(|a| up.rfind(')').map(|b| (a, b))).map(|(a, b)| text.trim_start()[a + 1..b].trim().to_string()).unwrap_or_default();
        let arg_col = {
            let a = arg.trim_start_matches("DISTINCT ").trim_start_matches("distinct ").trim();
            let a = a.rsplit('.').next().unwrap_or(a).trim_matches('`');
            tables.iter().find_map(|t| t.column(a).cloned())
        };
        let vt = if have_row { st.column_type(i) } else { 0 };
        let (mut c, conv) = match func.as_str() {
            "COUNT" => (Column::computed(&name, coltype::LONGLONG), Conv::Int),
            "SUM" | "AVG" => {
                let extra = if func == "AVG" { 4 } else { 0 };
                match &arg_col {
                    Some(cd) if matches!(cd.base, Base::Float | Base::Double) => (Column::computed(&name, coltype::DOUBLE), Conv::Double),
                    Some(cd) if cd.base.is_numeric() => {
                        let scale = cd.scale.unwrap_or(0) as u8 + extra;
                        let mut c = Column::computed(&name, coltype::NEWDECIMAL);
                        c.decimals = scale;
                        (c, Conv::Decimal(scale))
                    }
                    _ if vt == ffi::SQLITE_FLOAT => (Column::computed(&name, coltype::DOUBLE), Conv::Double),
                    _ => {
                        let mut c = Column::computed(&name, coltype::NEWDECIMAL);
                        c.decimals = extra;
                        (c, Conv::Decimal(extra))
                    }
                }
            }
            "MIN" | "MAX" if arg_col.is_some() => {
                let cd = arg_col.clone().expect("checked");
                let mut c = cd.wire_column("", "", &name, 0);
                c.flags &= !colflag::NOT_NULL;
                c.org_name.clear();
                (c, conv_of(&cd))
            }
            "NOW" | "CURRENT_TIMESTAMP" | "SYSDATE" | "UTC_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => (Column::computed(&name, coltype::DATETIME), Conv::Temporal(Base::DateTime)),
            "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "LAST_DAY" => (Column::computed(&name, coltype::DATE), Conv::Temporal(Base::Date)),
            "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => (Column::computed(&name, coltype::TIME), Conv::Temporal(Base::Time)),
            _ => match vt {
                ffi::SQLITE_INTEGER => (Column::computed(&name, coltype::LONGLONG), Conv::Int),
                ffi::SQLITE_FLOAT => (Column::computed(&name, coltype::DOUBLE), Conv::Double),
                ffi::SQLITE_BLOB => (Column::computed(&name, coltype::BLOB), Conv::Text),
                ffi::SQLITE_TEXT => (Column::varchar(&name), Conv::Text),
                _ => {
                    stable = false;
                    (Column::varchar(&name), Conv::Any)
                }
            },
        };
        if items_ok && matches!(vt, 0 | ffi::SQLITE_NULL | ffi::SQLITE_TEXT) && matches!(conv, Conv::Text | Conv::Any) && is_binary_item(&text, &tables) {
            c = Column::varbinary(&name);
        }
        c.name = name;
        convs.push(conv);
        cols.push(c);
    }
    let encoded = turnstile_wire::response::EncodedColumns::new(&cols);
    (ColMeta { cols, encoded, convs }, stable)
}

/// ERR 1366 naming the column when a value that is no integer was written to
/// the table's INTEGER PRIMARY KEY (SQLite's rowid: "datatype mismatch").
fn rowid_mismatch(conn: &Conn, rw: &Rewritten) -> Option<SqlError> {
    let def = match &rw.insert {
        Some(ins) => conn.table_def(&ins.schema, &ins.table),
        None => rw.tables.first().and_then(|(d, t)| match d {
            None => conn.table_def("temp", t).or_else(|| conn.table_def("main", t)),
            Some(d) if conn.home.as_ref().is_some_and(|h| &h.name == d) => conn.table_def("main", t),
            Some(d) => conn.table_def(d, t),
        }),
    }?;
    let pk = def.primary.first().filter(|_| def.primary.len() == 1)?;
    Some(SqlError::new(1366, "HY000", format!("Incorrect integer value for column '{}' at row 1", pk)))
}

/// ERR 1062 with MySQL's message: the duplicate value (from the first row of
/// an INSERT) and the key's name.
fn duplicate_entry(conn: &Conn, rw: &Rewritten, params: &[Value], fallback: &SqlError) -> SqlError {
    let cols_text = fallback.message.split("for key '").nth(1).unwrap_or("").trim_end_matches('\'').to_string();
    let cols: Vec<String> = cols_text.split(',').map(|c| c.trim().rsplit('.').next().unwrap_or("").to_string()).filter(|c| !c.is_empty()).collect();
    let Some((db, table)) = rw.tables.first() else { return fallback.clone() };
    let def = match db {
        None => conn.table_def("temp", table).or_else(|| conn.table_def("main", table)),
        Some(d) if conn.home.as_ref().is_some_and(|h| &h.name == d) => conn.table_def("main", table),
        Some(d) => conn.table_def(d, table),
    };
    let Some(def) = def else { return fallback.clone() };
    let same = |a: &[String]| a.len() == cols.len() && a.iter().zip(&cols).all(|(x, y)| x.eq_ignore_ascii_case(y));
    let key = if same(&def.primary) { "PRIMARY".to_string() } else { def.indexes.iter().find(|ix| ix.unique && same(&ix.columns)).map(|ix| ix.name.clone()).unwrap_or_else(|| cols.join(",")) };
    let mut value = String::new();
    if let Some(ins) = &rw.insert {
        if !ins.first_row.is_empty() && ins.first_row.len() == ins.cols.len() {
            let sel = format!("SELECT {}", ins.first_row.iter().map(|e| e.replace("ts_ai(", "(")).collect::<Vec<_>>().join(", "));
            if let Ok(st) = conn.prepare(&sel, &sel) {
                let n = st.param_count();
                if n <= params.len() {
                    for (i, p) in params[..n].iter().enumerate() {
                        st.bind(i + 1, p);
                    }
                    if st.step() == ffi::SQLITE_ROW {
                        let parts: Vec<String> =
                            cols.iter().filter_map(|c| ins.cols.iter().position(|x| x.eq_ignore_ascii_case(c))).map(|k| String::from_utf8_lossy(st.bytes(k)).into_owned()).collect();
                        value = parts.join("-");
                    }
                }
            }
        }
    }
    SqlError::new(1062, "23000", format!("Duplicate entry '{}' for key '{}.{}'", value, def.name, key))
}

/// After a rollback (the writer lock still held): raise each table's
/// AUTO_INCREMENT counter to the highest id the transaction generated, so
/// the next insert does not reuse ids a client may already have seen (MySQL
/// never hands an id out twice). Best effort: a failure leaves SQLite's
/// counter, which reuses the ids.
fn keep_generated_ids(conn: &Conn, generated: &[(String, String, u64)]) {
    for (schema, table, high) in generated {
        let name = sq_str(table);
        let seq = format!("{}.sqlite_sequence", schema);
        let _ = conn.exec(&format!(
            "UPDATE {seq} SET seq = max(seq, {high}) WHERE name = {name}; INSERT INTO {seq}(name, seq) SELECT {name}, {high} WHERE NOT EXISTS (SELECT 1 FROM {seq} WHERE name = {name})"
        ));
    }
}

impl SqliteSession {
    fn execute_inner(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.paused.is_some() {
            self.cancel_paused();
        }
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
                Ok(Outcome::Done(Done::default()))
            }
            b"UNLOCK" => Ok(Outcome::Done(Done::default())),
            b"ANALYZE" | b"OPTIMIZE" | b"CHECK" | b"REPAIR" => self.maintenance(ctx.access, sql, sink),
            b"BEGIN" => {
                self.begin(ctx, false)?;
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

    fn field_list_inner(&mut self, access: &dyn Access, table: &str) -> Result<Vec<Column>, SqlError> {
        let db = self.db.clone().ok_or_else(SqlError::no_database)?;
        access.check_table(&db, table, privs::SELECT)?;
        self.ensure_conn()?;
        let def = self.conn.as_ref().and_then(|c| c.table_def("temp", table).or_else(|| c.table_def("main", table))).ok_or_else(|| errors::no_such_table(&db, table))?;
        Ok(def.columns.iter().map(|c| c.wire_column(&db, &def.name, &c.name, def.key_flags(&c.name))).collect())
    }

    fn prepare_inner(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        let (w, n) = first_word(sql);
        let kind = match &w[..n] {
            b"SELECT" | b"WITH" | b"TABLE" => Kind::Select,
            b"INSERT" | b"REPLACE" => Kind::Insert,
            b"UPDATE" => Kind::Update,
            b"DELETE" => Kind::Delete,
            _ => {
                let params = crate::lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
                // What SHOW and DESCRIBE would refuse (no privilege, no such
                // table), PREPARE refuses too: run it into a sink that keeps nothing.
                show::run(self, access, sql, &mut crate::DiscardRows)?;
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

impl EngineSession for SqliteSession {
    fn set_database(&mut self, db: Option<&str>) -> Result<(), SqlError> {
        if self.db.as_deref() == db {
            return Ok(());
        }
        if self.txn.as_ref().is_some_and(|t| t.begun) {
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
            self.inner.return_conn(c);
        }
        self.db = db.filter(|d| !Catalog::is_system(d)).map(str::to_string);
        Ok(())
    }

    fn execute(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        // No panic may reach the client's thread: a bug becomes ERR 1105, the
        // connection (whose state is then unknown) is closed, not pooled, and
        // the transaction's locks are released (SQLite rolls back on close).
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.execute_inner(ctx, sql, params, sink))) {
            Ok(r) => {
                self.detach_conn();
                r
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

    fn field_list(&mut self, access: &dyn Access, table: &str) -> Result<Vec<Column>, SqlError> {
        let r = self.field_list_inner(access, table);
        self.detach_conn();
        r
    }

    fn prepare(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.prepare_inner(access, sql))) {
            Ok(r) => {
                self.detach_conn();
                r
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
        let Some((key, meta)) = self.paused.take() else { return Err(SqlError::internal("no paused result to resume")) };
        let lock_wait = self.lock_wait;
        let Some(conn) = self.conn.as_mut() else { return Err(SqlError::internal("no paused result to resume")) };
        let Some(entry) = conn.cache.get(&key) else { return Err(SqlError::internal("paused statement vanished")) };
        let meta = match meta.or_else(|| entry.meta.clone()) {
            Some(m) => m,
            None => Arc::new(column_meta(conn, entry, true).0),
        };
        conn.begin_call(ctx, lock_wait);
        let st = &conn.cache.get(&key).expect("checked").stmt;
        let r = stream_rows(conn, st, ffi::SQLITE_ROW, &meta, sink, &key, &mut self.rows_found);
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
    }
}

impl SqliteSession {
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
    use crate::sqlite::{Options, SqliteEngine};
    use crate::Engine;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn literal_normalization() {
        let (n, s) = normalize("SELECT c FROM sbtest1 WHERE id=5").unwrap();
        assert_eq!(n, "SELECT c FROM sbtest1 WHERE id=?");
        assert!(matches!(s[..], [Slot::Lit(Value::Int(5))]));
        let (n, _) = normalize("INSERT INTO t VALUES (1,'a'),(2,'b')").unwrap();
        assert_eq!(n, "INSERT INTO t VALUES (?,?),(?,?)");
        let (n, s) = normalize("SELECT * FROM t WHERE a = ? AND b BETWEEN 3 AND 4 LIMIT 10").unwrap();
        assert_eq!(n, "SELECT * FROM t WHERE a = ? AND b BETWEEN ? AND ? LIMIT ?");
        assert!(matches!(s[0], Slot::Param(0)) && s.len() == 4);
        assert!(normalize("SELECT c FROM t ORDER BY 1").is_none());
        assert!(normalize("SELECT c FROM t WHERE c LIKE 'a%'").is_none());
        assert!(normalize("SELECT 1, 'x' FROM t").is_none());
        assert!(normalize("SELECT c FROM t WHERE d = 1.5").is_none());
        // select-list literals name their columns: left alone, the rest still normalized
        assert!(normalize("SELECT IF(a>0,'y','n'), b = 2 FROM t").is_none());
        assert_eq!(normalize("SELECT a = 1, (SELECT 2 > 1) FROM t WHERE b = 3").unwrap().0, "SELECT a = 1, (SELECT 2 > 1) FROM t WHERE b = ?");
        assert_eq!(normalize("SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d = 4)").unwrap().0, "SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d = ?)");
    }

    struct Rows(Vec<Column>, Vec<Vec<Value>>);
    impl RowSink for Rows {
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
            let mut rows = Rows(Vec::new(), Vec::new());
            match s.execute(&ctx, sql, params, &mut rows).unwrap_or_else(|e| panic!("{}: {:?}", sql, e)) {
                Outcome::Done(d) => (d.affected_rows, d.info),
                other => panic!("{}: {:?}", sql, other),
            }
        };
        let query = |s: &mut Box<dyn EngineSession>, sql: &str| -> Vec<Vec<Value>> {
            let mut rows = Rows(Vec::new(), Vec::new());
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
        let mut rows = Rows(Vec::new(), Vec::new());
        s.execute(&ctx, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10) NOT NULL, amount DECIMAL(8,2))", &[], &mut rows).unwrap();
        let out = s.execute(&ctx, "INSERT INTO t (name, amount) VALUES (?, ?), ('b', 2.5)", &[Value::str("a"), Value::Double(1.25)], &mut rows).unwrap();
        match out {
            Outcome::Done(d) => {
                assert_eq!(d.affected_rows, 2);
                assert_eq!(d.generated_id, Some(1));
            }
            other => panic!("{:?}", other),
        }
        let p = s.prepare(&crate::access::Unrestricted, "SELECT id, name, amount, COUNT(*) FROM t WHERE name = ? GROUP BY id").unwrap();
        assert_eq!(p.params, 1);
        assert_eq!(p.columns[0].coltype, coltype::LONG);
        for _ in 0..2 {
            let mut rows = Rows(Vec::new(), Vec::new());
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
        let mut rows = Rows(Vec::new(), Vec::new());
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
