//! MySQL transactions on SQLite: when the SQLite transaction begins, writer
//! locks, savepoints, COMMIT/ROLLBACK and group commit.
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

use super::{SqliteSession, Txn};
use crate::conn::Conn;
use crate::rewrite::Rewritten;
use crate::schema::{sq_ident, sq_str};
use crate::{errors, Db, Durability};
use std::sync::Arc;
use turnstile_engine::{Done, EngineSession, ExecContext, Outcome, SqlError};
use turnstile_sqltext::cursor::TokenCursor;

impl SqliteSession {
    pub(super) fn release_locks(&mut self, locks: &[Arc<Db>]) {
        if self.lent.as_ref().is_some_and(|(w, _)| locks.iter().any(|l| Arc::ptr_eq(l, w))) {
            self.restore_own_conn();
        }
        for d in locks {
            d.writer.release(self.id);
        }
    }

    /// Take writer locks for `dbs` (sorted by name, so concurrent multi-database
    /// writers cannot deadlock). Holding other locks and finding one busy is a
    /// potential deadlock: answered with 1213 at once.
    pub(super) fn lock_dbs(&self, dbs: &[Arc<Db>], held: &[Arc<Db>], ctx: &ExecContext<'_>) -> Result<Vec<Arc<Db>>, SqlError> {
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
    pub(super) fn durable(&self, dbs: &[Arc<Db>], ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        for d in dbs {
            let ticket = d.sync.committed();
            if self.inner.opts.durability == Durability::Full {
                d.sync.wait_durable(ticket, ctx)?;
            }
        }
        Ok(())
    }

    /// The databases a statement touches (for writer locks).
    pub(super) fn stmt_dbs(&self, rw: &Rewritten) -> Vec<Arc<Db>> {
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
    pub(super) fn prelude(&mut self, ctx: &ExecContext<'_>, writes: bool, dbs: &[Arc<Db>]) -> Result<Vec<Arc<Db>>, SqlError> {
        if self.txn.is_none() && !self.autocommit {
            self.txn = Some(Txn::new(self.read_only, self.read_committed));
        }
        let Some(t) = self.txn.as_ref() else {
            if writes && self.read_only {
                return Err(read_only_transaction());
            }
            return if writes { self.lock_dbs(dbs, &[], ctx) } else { Ok(Vec::new()) };
        };
        if writes && t.read_only {
            return Err(read_only_transaction());
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
    pub(super) fn after_error(&mut self, e: &SqlError) {
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

    pub(super) fn savepoint(&mut self, ctx: &ExecContext<'_>, sql: &str) -> Result<Outcome, SqlError> {
        let toks = turnstile_sqltext::lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        let mut c = TokenCursor::new(sql, &toks);
        enum SavepointOp {
            Set,
            Release,
            RollbackTo,
        }
        let op = if c.eat_kw("SAVEPOINT") {
            SavepointOp::Set
        } else if c.eat_kw("RELEASE") {
            c.expect_kw("SAVEPOINT")?;
            SavepointOp::Release
        } else {
            c.expect_kw("ROLLBACK")?;
            c.eat_kw("WORK");
            c.expect_kw("TO")?;
            c.eat_kw("SAVEPOINT");
            SavepointOp::RollbackTo
        };
        let name = c.ident()?;
        c.eat_op(";");
        if !c.at_end() {
            return Err(c.error().into());
        }
        self.ensure_conn()?;
        if self.txn.is_none() && self.autocommit {
            // Outside a transaction a savepoint is gone at once (MySQL).
            return match op {
                SavepointOp::Set => Ok(Outcome::Done(Done::default())),
                _ => Err(SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name))),
            };
        }
        self.prelude(ctx, false, &[])?;
        if let Some(t) = self.txn.as_mut().filter(|t| !t.begun) {
            // READ COMMITTED before the first write: nothing to undo yet; the
            // savepoints are replayed when the SQLite transaction begins.
            let at = t.savepoints.iter().position(|s| s.eq_ignore_ascii_case(&name));
            match (op, at) {
                (SavepointOp::Set, at) => {
                    if let Some(i) = at {
                        t.savepoints.remove(i);
                    }
                    t.savepoints.push(name);
                }
                (SavepointOp::Release, Some(i)) => t.savepoints.truncate(i),
                (SavepointOp::RollbackTo, Some(i)) => t.savepoints.truncate(i + 1),
                (_, None) => return Err(SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name))),
            }
            return Ok(Outcome::Done(Done::default()));
        }
        let q = sq_ident(&name);
        let conn = self.conn.as_ref().expect("conn");
        let r = match op {
            SavepointOp::Set => conn.exec(&format!("SAVEPOINT {}", q)),
            SavepointOp::Release => conn.exec(&format!("RELEASE {}", q)),
            SavepointOp::RollbackTo => conn.exec(&format!("ROLLBACK TO {}", q)),
        };
        r.map_err(|e| if e.message.contains("no such savepoint") { SqlError::new(1305, "42000", format!("SAVEPOINT {} does not exist", name)) } else { e })?;
        Ok(Outcome::Done(Done::default()))
    }

    pub(super) fn finish_txn(&mut self, ctx: &ExecContext<'_>, commit: bool) -> Result<(), SqlError> {
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

/// ERR 1792: a write in a READ ONLY transaction (or session).
pub(super) fn read_only_transaction() -> SqlError {
    SqlError::new(1792, "25006", "Cannot execute statement in a READ ONLY transaction.")
}
