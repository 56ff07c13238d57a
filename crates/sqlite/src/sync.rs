//! Writer serialization and commit durability for one database file.
//!
//! SQLite allows one writer per database at a time. Rather than letting
//! connections collide inside SQLite (SQLITE_BUSY and sleep-polling), a
//! session takes `WriterLock` before its first write and keeps it until the
//! transaction ends; waiters block on a condition variable (announced to the
//! scheduler through `WaitHook`) and give up after innodb_lock_wait_timeout
//! with MySQL's 1205. KILL wakes them within `POLL`.
//!
//! Durability: connections run with `synchronous=NORMAL`, so a COMMIT has
//! written its WAL frames to the OS (safe against a crash of the server
//! process) but not synced them. `GroupCommit` then makes the commit durable
//! before it is acknowledged: committers take a ticket, one of them fsyncs the
//! WAL for everybody who committed before the sync began, the others wait for
//! it (group commit, as InnoDB does with innodb_flush_log_at_trx_commit=1).
//! The writer lock is already released during the fsync, so the next writer
//! proceeds while the disk flushes. In `Periodic` mode nobody waits: a
//! background thread syncs every interval (like innodb_flush_log_at_trx_commit=2).

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};
use turnstile_engine::{ExecContext, SqlError, WaitKind};

const POLL: Duration = Duration::from_millis(100);

pub struct WriterLock {
    owner: Mutex<Option<u64>>,
    cv: Condvar,
}

impl Default for WriterLock {
    fn default() -> Self {
        WriterLock { owner: Mutex::new(None), cv: Condvar::new() }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl WriterLock {
    /// Take the lock for `session`, waiting at most `timeout`.
    pub fn acquire(&self, session: u64, timeout: Duration, ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        let mut g = lock(&self.owner);
        if g.is_none() || *g == Some(session) {
            *g = Some(session);
            return Ok(());
        }
        let deadline = Instant::now() + timeout;
        ctx.waits.wait_begin(WaitKind::RowLock);
        let result = loop {
            if let Some(why) = ctx.interruption() {
                break Err(why.error());
            }
            let now = Instant::now();
            if now >= deadline {
                break Err(SqlError::new(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction"));
            }
            let (g2, _) = self.cv.wait_timeout(g, (deadline - now).min(POLL)).unwrap_or_else(|e| e.into_inner());
            g = g2;
            if g.is_none() {
                *g = Some(session);
                break Ok(());
            }
        };
        drop(g);
        ctx.waits.wait_end();
        result
    }

    /// Try without waiting.
    pub fn try_acquire(&self, session: u64) -> bool {
        let mut g = lock(&self.owner);
        if g.is_none() || *g == Some(session) {
            *g = Some(session);
            true
        } else {
            false
        }
    }

    pub fn release(&self, session: u64) {
        let mut g = lock(&self.owner);
        if *g == Some(session) {
            *g = None;
            drop(g);
            self.cv.notify_one();
        }
    }
}

#[derive(Default)]
struct GcState {
    requested: u64,
    synced: u64,
    syncing: bool,
    /// The WAL file we fsync, and its inode (re-opened if the file was replaced).
    wal: Option<(File, u64)>,
    failed: Option<String>,
}

pub struct GroupCommit {
    wal_path: PathBuf,
    state: Mutex<GcState>,
    cv: Condvar,
}

impl GroupCommit {
    pub fn new(wal_path: PathBuf) -> GroupCommit {
        GroupCommit { wal_path, state: Mutex::new(GcState::default()), cv: Condvar::new() }
    }

    /// Called after a COMMIT returned: its WAL frames are written. Returns the ticket.
    pub fn committed(&self) -> u64 {
        let mut s = lock(&self.state);
        s.requested += 1;
        s.requested
    }

    /// Commits counted so far (the checkpointer compares it between looks).
    pub fn commits(&self) -> u64 {
        lock(&self.state).requested
    }

    fn open_wal(&self, s: &mut GcState) -> std::io::Result<()> {
        let meta = std::fs::metadata(&self.wal_path);
        let ino = match &meta {
            Ok(m) => m.ino(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                s.wal = None;
                return Ok(());
            }
            Err(e) => return Err(std::io::Error::new(e.kind(), e.to_string())),
        };
        if s.wal.as_ref().is_none_or(|(_, i)| *i != ino) {
            s.wal = Some((File::open(&self.wal_path)?, ino));
        }
        Ok(())
    }

    /// Block until everything committed up to `ticket` is on disk.
    pub fn wait_durable(&self, ticket: u64, ctx: &ExecContext<'_>) -> Result<(), SqlError> {
        let mut s = lock(&self.state);
        if s.synced >= ticket {
            return Ok(());
        }
        ctx.waits.wait_begin(WaitKind::DiskSync);
        let result = loop {
            if s.synced >= ticket {
                break Ok(());
            }
            if !s.syncing {
                s.syncing = true;
                let target = s.requested;
                let opened = self.open_wal(&mut s);
                let file = s.wal.as_ref().map(|(f, _)| f.try_clone());
                drop(s);
                let r = match (opened, file) {
                    (Err(e), _) => Err(e),
                    (Ok(()), None) => Ok(()),
                    (Ok(()), Some(Ok(f))) => f.sync_data(),
                    (Ok(()), Some(Err(e))) => Err(e),
                };
                s = lock(&self.state);
                s.syncing = false;
                match r {
                    Ok(()) => s.synced = s.synced.max(target),
                    Err(e) => s.failed = Some(e.to_string()),
                }
                self.cv.notify_all();
                if let Some(msg) = s.failed.take() {
                    break Err(SqlError::new(1180, "HY000", format!("Got error {} during COMMIT (fsync of the write-ahead log failed)", msg)));
                }
                continue;
            }
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        };
        drop(s);
        ctx.waits.wait_end();
        result
    }

    /// Periodic mode: sync whatever was committed since the last sync.
    pub fn sync_pending(&self) {
        let mut s = lock(&self.state);
        if s.syncing || s.synced >= s.requested {
            return;
        }
        s.syncing = true;
        let target = s.requested;
        let _ = self.open_wal(&mut s);
        let file = s.wal.as_ref().and_then(|(f, _)| f.try_clone().ok());
        drop(s);
        let ok = file.is_none_or(|f| f.sync_data().is_ok());
        let mut s = lock(&self.state);
        s.syncing = false;
        if ok {
            s.synced = s.synced.max(target);
        }
        self.cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn writer_lock_times_out_with_1205() {
        let l = Arc::new(WriterLock::default());
        let killed = AtomicBool::new(false);
        let ctx = ExecContext::internal(&killed);
        l.acquire(1, Duration::from_secs(1), &ctx).unwrap();
        l.acquire(1, Duration::from_secs(1), &ctx).unwrap();
        let e = l.acquire(2, Duration::from_millis(50), &ctx).unwrap_err();
        assert_eq!(e.code, 1205);
        let l2 = l.clone();
        let t = std::thread::spawn(move || {
            let killed = AtomicBool::new(false);
            let ctx = ExecContext::internal(&killed);
            l2.acquire(2, Duration::from_secs(5), &ctx).is_ok()
        });
        std::thread::sleep(Duration::from_millis(30));
        l.release(1);
        assert!(t.join().unwrap());
    }

    #[test]
    fn group_commit_syncs() {
        let dir = std::env::temp_dir().join(format!("ts-gc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wal = dir.join("x-wal");
        std::fs::write(&wal, b"frames").unwrap();
        let gc = GroupCommit::new(wal);
        let killed = AtomicBool::new(false);
        let ctx = ExecContext::internal(&killed);
        let t = gc.committed();
        gc.wait_durable(t, &ctx).unwrap();
        assert!(lock(&gc.state).synced >= t);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
