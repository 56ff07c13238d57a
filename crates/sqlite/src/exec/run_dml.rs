//! Running SELECT, INSERT, UPDATE and DELETE: the compiled statement found
//! in the cache (or the text normalized and compiled), the transaction and
//! writer locks prepared, parameters bound, the statement stepped, and MySQL's
//! affected rows, info string, LAST_INSERT_ID() and error messages (1062,
//! 1366) worked out.

use super::normalize::{normalize, Slot};
use super::results::{column_meta, stream_rows};
use super::SqliteSession;
use crate::conn::{Conn, StatementEpoch};
use crate::rewrite::{Kind, Rewritten};
use crate::schema::sq_ident;
use crate::{authorize, errors, show};
use rusqlite::ffi;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use turnstile_engine::{Done, ExecContext, Outcome, RowSink, SqlError, Value};

impl SqliteSession {
    pub(super) fn dml(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, kind: Kind) -> Result<Outcome, SqlError> {
        // After USE mysql, a bare `user` is mysql.user (mysql_user.rs); the
        // text is redirected before the cache sees it, as it means another
        // table in any other database.
        if self.system_db.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("mysql")) {
            if let Some(redirected) = crate::mysql_user::redirect(sql, true) {
                return self.dml(ctx, &redirected, params, sink, kind);
            }
        }
        // After USE information_schema, a bare table name is one of its tables.
        if self.system_db.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("information_schema")) {
            if let Some(qualified) = crate::info_tables::qualify_bare_tables(sql) {
                return self.dml(ctx, &qualified, params, sink, kind);
            }
        }
        match self.dml_retrying(ctx, sql, params, sink, kind) {
            // SQLite writes no view: written again over its base (view_dml.rs).
            Err(e) if (e.code == 1471 || e.code == 1288) && kind != Kind::Select => self.write_through_view(ctx, sql, params, sink, kind, e),
            r => r,
        }
    }

    pub(super) fn dml_retrying(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, kind: Kind) -> Result<Outcome, SqlError> {
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
        if writes && rw.info_schema {
            refuse_system_view_write(&rw, ctx.access)?;
        }
        // An autocommit read on a connection with nothing else open may run
        // in the read transaction the previous one left (see `Conn::held_read`);
        // anything else ends that transaction first.
        let plain_read = !writes && !rw.for_update && !rw.info_schema && self.autocommit && self.txn.is_none() && self.lent.is_none() && !self.fk_off && self.paused.is_none();
        {
            let conn = self.conn.as_mut().expect("conn");
            if plain_read && conn.attached.is_empty() && conn.temp.tables.is_empty() && crate::thread_may_hold_reads() {
                conn.prepare_autocommit_read();
            } else {
                conn.end_held_read();
            }
        }
        if rw.info_schema {
            show::refresh_info_schema(self.conn.as_mut().expect("conn"), &self.inner, ctx.access, &rw.tables)?;
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
            self.compile(sql, rw.kind, ctx.access)
                .and_then(|()| if rw.info_schema { show::refresh_info_schema(self.conn.as_mut().expect("conn"), &self.inner, ctx.access, &rw.tables) } else { Ok(()) })
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
        let multi_write_bytes = self.inner.opts.multi_write_bytes;
        let epoch_now = self.inner.epoch_cell();
        let conn = self.conn.as_mut().expect("conn");
        let counters = conn.counters.clone();
        if rw.cte_limited {
            counters.cte_limit.store(ctx.cte_max_recursion_depth, Ordering::Relaxed);
        }
        counters.ai_generated.store(0, Ordering::Relaxed);
        counters.ai_next.store(0, Ordering::Relaxed);
        counters.ai_first.store(0, Ordering::Relaxed);
        counters.upserted.store(0, Ordering::Relaxed);
        counters.matched.store(0, Ordering::Relaxed);
        counters.deleted.store(0, Ordering::Relaxed);
        if counters.noted.load(Ordering::Relaxed) {
            // left by a statement that failed
            counters.take_notes();
        }
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
            if !rw.fits.is_empty() {
                // The columns this lenient write's ts_fit calls name.
                counters.install_fits(rw.fits.clone());
            }
            if let Some(ins) = &rw.insert {
                // Columns left without a default (insert.rs): the error of a
                // strict INSERT, checked after its privileges; else warnings.
                if let (true, Some(first)) = (ins.no_default_fails, ins.no_default.first()) {
                    return Err(SqlError::new(1364, "HY000", first.clone()));
                }
                for message in &ins.no_default {
                    ctx.warn(1364, message.clone());
                }
                for message in &ins.generated {
                    ctx.warn(1906, message.clone());
                }
            }
            let entry = conn.cache.get(sql).expect("compiled");
            let st = &entry.stmt;
            for (i, p) in params.iter().enumerate() {
                let rc = st.bind(i + 1, p);
                if rc != ffi::SQLITE_OK {
                    return Err(errors::from_conn(conn, rc, sql));
                }
            }
            if let Some(m) = rw.multi.as_deref() {
                // A multi-table UPDATE or DELETE: its join, then its writes.
                let r = super::run_multi::run(conn, st, &StatementEpoch { now: epoch_now, compiled: entry.epoch }, m, sql, multi_write_bytes);
                if counters.noted.load(Ordering::Relaxed) {
                    raise_notes(ctx, &counters);
                }
                let d = r?;
                let warnings = ctx.warning_count().min(u64::from(u16::MAX)) as u16;
                let mut done = Done { affected_rows: d.changed, warnings, ..Default::default() };
                if m.update {
                    done.affected_rows = if found_rows { d.matched } else { d.changed };
                    done.info = format!("Rows matched: {}  Changed: {}  Warnings: {}", d.matched, d.changed, warnings);
                }
                return Ok(Outcome::Done(done));
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
                        let (m, stable) = column_meta(conn, entry, sql, rc == ffi::SQLITE_ROW);
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
                let out = stream_rows(conn, st, rc, &meta, sink, sql, rows_found);
                if counters.noted.load(Ordering::Relaxed) {
                    // A division by zero's warnings (fit.rs), also before an error.
                    raise_notes(ctx, &counters);
                }
                let out = out?;
                if let (Outcome::Rows, Some(count_sql)) = (&out, rw.count_sql.as_deref()) {
                    *rows_found = count_rows(conn, count_sql, params, sql)?;
                }
                return Ok(out);
            }
            if rc != ffi::SQLITE_DONE && rc != ffi::SQLITE_ROW {
                if counters.noted.load(Ordering::Relaxed) {
                    // What the rows before the error raised stays with it (SHOW WARNINGS).
                    raise_notes(ctx, &counters);
                }
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
            if counters.noted.load(Ordering::Relaxed) {
                // What the statement's functions raised (ts_dec's notes, fit.rs).
                raise_notes(ctx, &counters);
            }
            done.warnings = ctx.warning_count().min(u64::from(u16::MAX)) as u16;
            if rw.kind == Kind::Update {
                // SQLite changed only the rows whose values differ (rewrite.rs: update).
                let matched = counters.matched.load(Ordering::Relaxed);
                done.affected_rows = if found_rows { matched } else { changes };
                done.info = format!("Rows matched: {}  Changed: {}  Warnings: {}", matched, changes, done.warnings);
            }
            if let Some(ins) = &rw.insert {
                // Duplicates updated (and changed), duplicates met, rows inserted.
                let upd = counters.upserted.load(Ordering::Relaxed);
                // (INSERT IGNORE's rows skipped are counted as matched: fit.rs, ts_dup and ts_fk.)
                let dups = if ins.odku || ins.ignore { counters.matched.load(Ordering::Relaxed).max(upd) } else { 0 };
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
                    let keyed_first = counters.ai_first.load(Ordering::Relaxed);
                    if ins.ai_keyed && keyed_first > 0 {
                        let first = keyed_first as u64;
                        done.last_insert_id = first;
                        done.generated_id = Some(first);
                        counters.last_insert_id.store(first, Ordering::Relaxed);
                    } else if ins.ai_keyed {
                        // Nothing generated: LAST_INSERT_ID stays (not the rowid).
                    } else if generated > 0 {
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
}

/// The conditions the statement's functions raised, into the statement's
/// diagnostics (ExecContext's collector, as the engine's other notes).
pub(super) fn raise_notes(ctx: &ExecContext<'_>, counters: &crate::functions::Counters) {
    let (kept, total) = counters.take_notes();
    if let Some(w) = ctx.warnings() {
        let n = kept.len() as u64;
        for c in kept {
            w.push(c.level, c.code, c.message);
        }
        w.add_uncounted(total.saturating_sub(n));
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

/// information_schema and performance_schema are the server's to fill: a
/// statement that writes one of their tables (its first named table) is
/// refused for every account, with MariaDB's errors (1044 for
/// information_schema, 1142 naming the table for performance_schema).
fn refuse_system_view_write(rw: &crate::rewrite::Rewritten, access: &dyn turnstile_engine::Access) -> Result<(), SqlError> {
    let Some((Some(db), table)) = rw.tables.first() else { return Ok(()) };
    let (user, host) = access.who();
    if db.eq_ignore_ascii_case("information_schema") {
        return Err(SqlError::db_access_denied(user, host, "information_schema"));
    }
    if db.eq_ignore_ascii_case(crate::perf_tables::SCHEMA) {
        let command = match rw.kind {
            crate::rewrite::Kind::Insert => "INSERT",
            crate::rewrite::Kind::Update => "UPDATE",
            _ => "DELETE",
        };
        return Err(SqlError::table_access_denied(command, user, host, crate::perf_tables::SCHEMA, table));
    }
    Ok(())
}
