//! Which SQLite connection a session runs on, and for how long.
//!
//! A session takes a connection from its database's pool for a statement and
//! gives it back after it, unless it holds state there (`detach_conn`).
//! A writer that starts under the lock (BEGIN IMMEDIATE, or an autocommit
//! write) runs on the database's writer connection, handed from writer to
//! writer with the lock, and gets its own connection back when it releases
//! the lock (`use_writer_conn`, `restore_own_conn`; why: `Inner::take_writer_conn`).

use super::SqliteSession;
use crate::conn::Conn;
use crate::Db;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use turnstile_engine::{EngineSession, SqlError};

impl SqliteSession {
    /// The session's connection, with no held read transaction left open.
    pub(super) fn ensure_conn(&mut self) -> Result<(), SqlError> {
        self.ensure_conn_for_read()?;
        self.conn.as_mut().expect("conn").end_held_read();
        Ok(())
    }

    /// The session's connection, possibly with a held read transaction
    /// (`dml_compiled` reuses it for an autocommit read, or ends it).
    pub(super) fn ensure_conn_for_read(&mut self) -> Result<(), SqlError> {
        if self.conn.is_none() {
            let c = self.inner.take_conn_for_read(self.db.as_deref())?;
            c.counters.last_insert_id.store(self.last_insert_id, Ordering::Relaxed);
            if self.fk_off {
                // SET foreign_key_checks=0 holds for the session, across USE.
                let _ = c.exec("PRAGMA foreign_keys=OFF");
            }
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
    pub(super) fn detach_conn(&mut self) {
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

    pub(super) fn conn(&mut self) -> &mut Conn {
        self.conn.as_mut().expect("ensure_conn first")
    }

    /// Having just taken the writer lock of `d`, run on its writer connection
    /// unless this session's connection holds state of its own (TEMPORARY
    /// tables, attached databases, foreign-key checks off, a paused result, an
    /// open SQLite transaction) or another database's.
    pub(super) fn use_writer_conn(&mut self, d: &Arc<Db>) {
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
    pub(super) fn restore_own_conn(&mut self) {
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
}
