//! BACKUP DATA's engine side: a copy of every database file, all taken at
//! one point in time, while the server keeps serving.
//!
//! Why a point across databases and not one per file: a transaction may
//! write several databases (`UPDATE d1.t, d2.u ...`), and a copy that has
//! one half of it and not the other is not a state the server was ever in.
//! How: every database's writer lock (sync.rs; the only way a write reaches
//! a database file) is taken, so no commit is under way anywhere; a read
//! transaction is opened on each file; the locks are let go. That hold
//! lasts as long as opening the read transactions, a millisecond or so per
//! database. Taking the locks (`hold_all`) waits only briefly
//! (`SHORT_WAIT`) for a lock while holding others: a transaction that keeps
//! one database's lock longer is waited for holding nothing else, so writers
//! of the other databases are not stopped behind it; the whole wait is
//! bounded by innodb_lock_wait_timeout (then 1205). Each file is then copied from its
//! read snapshot with SQLite's online backup API while writers carry on
//! (WAL: a reader's snapshot is not disturbed by later commits, and the
//! backup never restarts because its read transaction stays open).
//!
//! The copies are ordinary SQLite files at `<dir>/<db>/data.sqlite`, the
//! layout of a data directory's `databases` directory (lib.rs), written with
//! the default VFS and fsynced. Nothing SQLite says reaches the client: a
//! failure is logged with SQLite's text and answered with a MySQL error
//! naming the file.

use crate::{functions, vfs, Db, Inner, DATA_FILE};
use rusqlite::backup::{Backup, StepResult};
use rusqlite::OpenFlags;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use turnstile_engine::{BackupCopied, ExecContext, SqlError};

/// The writer-lock owner id of a backup (sessions count up from 1; DROP
/// DATABASE uses u64::MAX).
const BACKUP_OWNER: u64 = u64::MAX - 1;

/// How long `hold_all` waits for one writer lock while it holds others.
const SHORT_WAIT: Duration = Duration::from_millis(50);

/// Pages copied between looks at KILL.
const PAGES_PER_STEP: i32 = 4096;

/// A database's read snapshot: a connection of its own inside a read transaction.
struct Snapshot {
    db: Arc<Db>,
    conn: rusqlite::Connection,
}

/// A write to the copy failed (ER_ERROR_ON_WRITE).
fn write_error(path: &Path, why: impl std::fmt::Display) -> SqlError {
    tracing::warn!(file = %path.display(), error = %why, "BACKUP DATA: cannot write the copy");
    SqlError::new(1026, "HY000", format!("Error writing file '{}' (backup failed; the server's log has the cause)", path.display()))
}

/// Reading a database for the copy failed.
fn read_error(d: &Db, why: impl std::fmt::Display) -> SqlError {
    tracing::warn!(database = %d.name, file = %d.file.display(), error = %why, "BACKUP DATA: cannot read the database");
    SqlError::new(1024, "HY000", format!("Error reading file '{}' (backup of database '{}' failed; the server's log has the cause)", d.file.display(), d.name))
}

/// Open `d`'s file on a connection of its own and begin a read transaction.
fn snapshot(d: &Arc<Db>) -> Result<Snapshot, SqlError> {
    // No CREATE: a database dropped meanwhile must not come back as an empty file.
    let flags = OpenFlags::default() - OpenFlags::SQLITE_OPEN_CREATE;
    let conn = rusqlite::Connection::open_with_flags_and_vfs(&d.file, flags, vfs::name()).map_err(|e| read_error(d, e))?;
    // The schema is parsed when the snapshot begins: a generated column's
    // expression may call the engine's functions (as for the anchor, lib.rs).
    functions::register(&conn, Arc::new(functions::Counters::default()), Some(d.name.clone())).map_err(|e| read_error(d, e))?;
    conn.busy_timeout(Duration::from_secs(5)).map_err(|e| read_error(d, e))?;
    conn.execute_batch("BEGIN").map_err(|e| read_error(d, e))?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())).map_err(|e| read_error(d, e))?;
    Ok(Snapshot { db: d.clone(), conn })
}

/// Copy one snapshot to `<into>/<db>/data.sqlite`; its size in bytes.
fn copy(s: &Snapshot, into: &Path, ctx: &ExecContext<'_>) -> Result<u64, SqlError> {
    let dir = into.join(&s.db.name);
    std::fs::DirBuilder::new().mode(0o700).create(&dir).map_err(|e| write_error(&dir, e))?;
    let path = dir.join(DATA_FILE);
    let mut dst = rusqlite::Connection::open(&path).map_err(|e| write_error(&path, e))?;
    {
        let b = Backup::new(&s.conn, &mut dst).map_err(|e| write_error(&path, e))?;
        loop {
            if let Some(why) = ctx.interruption() {
                return Err(why.error());
            }
            match b.step(PAGES_PER_STEP).map_err(|e| write_error(&path, e))? {
                StepResult::Done => break,
                StepResult::More => {}
                // Only the copy's own connection could lock it; a moment.
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
    // Closed, the copy is one self-contained file (its header says WAL, as
    // the original's does: the server opens it so).
    dst.close().map_err(|(_, e)| write_error(&path, e))?;
    let f = std::fs::File::open(&path).map_err(|e| write_error(&path, e))?;
    f.sync_all().map_err(|e| write_error(&path, e))?;
    std::fs::File::open(&dir).and_then(|d| d.sync_all()).map_err(|e| write_error(&dir, e))?;
    Ok(f.metadata().map_err(|e| write_error(&path, e))?.len())
}

/// Every database, at one point, into `into` (`Engine::backup`).
pub(crate) fn backup(inner: &Inner, into: &Path, ctx: &ExecContext<'_>) -> Result<BackupCopied, SqlError> {
    let total = Duration::from_secs(inner.opts.lock_wait_timeout);
    let began = Instant::now();
    let (dbs, snaps) = snapshots(inner, total, ctx)?;
    tracing::info!(databases = snaps.len(), waited_ms = began.elapsed().as_millis() as u64, "BACKUP DATA: snapshots taken; writers resumed");
    drop(dbs);
    let mut copied = BackupCopied::default();
    // Each snapshot's read transaction ends with its copy, so no database's
    // WAL is held from its checkpoint for longer than its own copy.
    for s in snaps {
        copied.bytes += copy(&s, into, ctx)?;
        copied.databases += 1;
    }
    Ok(copied)
}

/// The databases there are, as of a moment when every one of them is held:
/// listed, held, listed again; a database created meanwhile (it could hold
/// half of a transaction that spans it and another) means listing and
/// holding again, a few times at most.
fn snapshots(inner: &Inner, total: Duration, ctx: &ExecContext<'_>) -> Result<(Vec<Arc<Db>>, Vec<Snapshot>), SqlError> {
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        let dbs = open_all(inner)?;
        hold_all(&dbs, total, ctx)?;
        let release = || dbs.iter().for_each(|d| d.writer.release(BACKUP_OWNER));
        let now: Vec<String> = inner.catalog.list();
        if now.iter().any(|n| !dbs.iter().any(|d| d.name == *n)) {
            release();
            continue;
        }
        let mut snaps: Vec<Snapshot> = Vec::new();
        let r = dbs.iter().filter(|d| !d.dropped()).try_for_each(|d| snapshot(d).map(|s| snaps.push(s)));
        release();
        r?;
        return Ok((dbs, snaps));
    }
    Err(SqlError::new(1205, "HY000", "Lock wait timeout exceeded; databases kept being created while BACKUP DATA took its snapshots"))
}

/// Every database of the catalog, by name.
fn open_all(inner: &Inner) -> Result<Vec<Arc<Db>>, SqlError> {
    let mut dbs: Vec<Arc<Db>> = Vec::new();
    for name in inner.catalog.list() {
        match inner.db(&name) {
            Ok(d) => dbs.push(d),
            // Dropped since the list was read.
            Err(e) if e.code == 1049 => {}
            Err(e) => return Err(e),
        }
    }
    dbs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(dbs)
}

/// Take every database's writer lock, waiting at most `total` in all. A lock
/// still busy after `SHORT_WAIT` while others are held (a transaction that
/// keeps it) is waited for with nothing else held, then the rest are taken
/// again: writers of the other databases go on meanwhile. No deadlock with a
/// writer that waits for a second database holding a first: one of the two
/// short waits gives up and lets go.
fn hold_all(dbs: &[Arc<Db>], total: Duration, ctx: &ExecContext<'_>) -> Result<(), SqlError> {
    let deadline = Instant::now() + total;
    let mut held: Vec<usize> = Vec::new();
    let release = |held: &mut Vec<usize>| {
        for i in held.drain(..) {
            dbs[i].writer.release(BACKUP_OWNER);
        }
    };
    loop {
        let mut busy = None;
        for (i, d) in dbs.iter().enumerate() {
            if held.contains(&i) {
                continue;
            }
            let wait = if held.is_empty() { deadline.saturating_duration_since(Instant::now()) } else { SHORT_WAIT };
            match d.writer.acquire(BACKUP_OWNER, wait, ctx) {
                Ok(()) => held.push(i),
                Err(e) if e.code == 1205 && !held.is_empty() && Instant::now() < deadline => {
                    busy = Some(i);
                    break;
                }
                Err(e) => {
                    release(&mut held);
                    return Err(e);
                }
            }
        }
        let Some(i) = busy else { return Ok(()) };
        release(&mut held);
        let left = deadline.saturating_duration_since(Instant::now());
        dbs[i].writer.acquire(BACKUP_OWNER, left, ctx)?;
        held.push(i);
    }
}
