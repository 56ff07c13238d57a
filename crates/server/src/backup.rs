//! BACKUP DATA TO '/dir': a copy of the whole data directory, written by the
//! running server into a directory on its own host, that a server starts on
//! (`turnstile --datadir /dir`). `turnstile backup --to DIR` sends it.
//!
//! What the copy holds: every database as the engine copies it
//! (`Engine::backup`: all at one point in time, see turnstile-sqlite's
//! backup.rs), `accounts.json` as the accounts were when the backup began,
//! and the TLS and RSA key files the server generated in its data directory
//! (so clients that trust its certificate or pinned its key still do). The
//! lock file is not copied.
//!
//! Safety of the target: it must be an absolute path without `.` or `..`
//! parts, outside the data directory, and must not exist or be an empty
//! directory (not a symbolic link). The copy is built in a sibling directory
//! with a temporary name (`.<name>.partial-<pid>-<n>`) and renamed to the
//! target only once complete and fsynced, so a failed or killed backup leaves
//! nothing at the target that looks like a whole copy (the partial one is
//! removed on failure). One backup runs at a time (3634 for a second one).

use crate::server::Server;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use turnstile_engine::{BackupCopied, ExecContext, SqlError};

/// The files besides the databases and accounts a server keeps at the top of
/// its data directory and a copy keeps too (when they are there).
const KEY_FILES: [&str; 6] = [crate::tls::CA_FILE, crate::tls::CA_KEY_FILE, crate::tls::CERT_FILE, crate::tls::KEY_FILE, "private_key.pem", "public_key.pem"];

/// Longest target path accepted (Linux's PATH_MAX less room for what goes inside).
const MAX_PATH: usize = 3800;

/// Held while a backup runs.
static RUNNING: Mutex<()> = Mutex::new(());
/// Tells apart the temporary directories of backups in one process.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// What BACKUP DATA made.
#[derive(Debug, Clone)]
pub struct Report {
    pub dir: PathBuf,
    pub copied: BackupCopied,
}

/// The target is not acceptable (ER_WRONG_ARGUMENTS).
fn bad_target(why: &str) -> SqlError {
    SqlError::new(1210, "HY000", format!("Incorrect arguments to BACKUP DATA: {}", why))
}

/// A file operation on `path` failed (ER_CANT_CREATE_FILE, with errno as MySQL shows it).
fn io_error(path: &Path, e: &std::io::Error) -> SqlError {
    let errno = e.raw_os_error().unwrap_or(0);
    SqlError::new(1004, "HY000", format!("Can't create file '{}' (errno: {} \"{}\")", path.display(), errno, plain_io_text(e)))
}

/// std's text of an I/O error without its " (os error N)" tail.
fn plain_io_text(e: &std::io::Error) -> String {
    let t = e.to_string();
    match t.find(" (os error") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

/// Check the target path's text: absolute, no `.`/`..`, no NUL, not too long.
pub fn check_target(target: &str) -> Result<PathBuf, SqlError> {
    if target.is_empty() {
        return Err(bad_target("the target directory is empty"));
    }
    if target.contains('\0') {
        return Err(bad_target("the target directory contains a NUL byte"));
    }
    if target.len() > MAX_PATH {
        return Err(bad_target(&format!("the target directory is longer than {} bytes", MAX_PATH)));
    }
    if !target.starts_with('/') {
        return Err(bad_target("the target directory must be an absolute path"));
    }
    if target.split('/').any(|part| part == "." || part == "..") {
        return Err(bad_target("the target directory must not contain '.' or '..'"));
    }
    let path = PathBuf::from(target.trim_end_matches('/'));
    if path.file_name().is_none() || !path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_))) {
        return Err(bad_target("the target directory cannot be the root directory"));
    }
    Ok(path)
}

/// Is `path` (which may not exist yet) the data directory or inside it?
fn inside(path: &Path, datadir: &Path) -> bool {
    let Ok(data) = datadir.canonicalize() else { return false };
    let parent = path.parent().and_then(|p| p.canonicalize().ok());
    let full = match (parent, path.file_name()) {
        (Some(p), Some(n)) => p.join(n),
        _ => path.to_path_buf(),
    };
    full.starts_with(&data)
}

/// Run BACKUP DATA TO `target` on `server` (privilege already checked).
pub fn run(server: &Server, target: &str, ctx: &ExecContext<'_>) -> Result<Report, SqlError> {
    if !server.engine.can_back_up() {
        return Err(SqlError::unsupported(&format!("BACKUP DATA with the {} engine", server.engine.name())));
    }
    let path = check_target(target)?;
    let datadir = &server.config.datadir;
    if inside(&path, datadir) {
        return Err(bad_target("the target directory is inside the server's data directory"));
    }
    let _running = match RUNNING.try_lock() {
        Ok(g) => g,
        // A backup that panicked left nothing to guard.
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return Err(SqlError::new(3634, "HY000", "Too many concurrent backups: BACKUP DATA runs one at a time, and one is running")),
    };
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(&path, &e)),
        Ok(m) if m.is_dir() && std::fs::read_dir(&path).map_err(|e| io_error(&path, &e))?.next().is_none() => {}
        Ok(_) => return Err(SqlError::new(1086, "HY000", format!("File '{}' already exists", path.display()))),
    }
    let parent = path.parent().unwrap_or(Path::new("/"));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = parent.join(format!(".{}.partial-{}-{}", name, std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::DirBuilder::new().mode(crate::datadir::DIR_MODE).create(&tmp).map_err(|e| io_error(&tmp, &e))?;
    let began = std::time::Instant::now();
    let r = build(server, &tmp, ctx).and_then(|copied| {
        std::fs::rename(&tmp, &path).map_err(|e| match e.raw_os_error() {
            Some(libc::ENOTEMPTY) | Some(libc::EEXIST) | Some(libc::ENOTDIR) => SqlError::new(1086, "HY000", format!("File '{}' already exists", path.display())),
            _ => io_error(&path, &e),
        })?;
        sync_dir(parent).map_err(|e| io_error(parent, &e))?;
        Ok(copied)
    });
    match r {
        Ok(copied) => {
            tracing::info!(dir = %path.display(), databases = copied.databases, bytes = copied.bytes, ms = began.elapsed().as_millis() as u64, "BACKUP DATA: copy complete");
            Ok(Report { dir: path, copied })
        }
        Err(e) => {
            if let Err(rm) = std::fs::remove_dir_all(&tmp) {
                tracing::warn!(dir = %tmp.display(), error = %rm, "BACKUP DATA: cannot remove the partial copy");
            }
            tracing::warn!(dir = %path.display(), code = e.code, error = %e.message, "BACKUP DATA failed");
            Err(e)
        }
    }
}

/// Fill `tmp` with the copy.
fn build(server: &Server, tmp: &Path, ctx: &ExecContext<'_>) -> Result<BackupCopied, SqlError> {
    let datadir = &server.config.datadir;
    let mut bytes = 0u64;
    server.accounts.write_copy(tmp).map_err(|e| io_error(&tmp.join(crate::accounts::FILE_NAME), &e))?;
    bytes += std::fs::metadata(tmp.join(crate::accounts::FILE_NAME)).map(|m| m.len()).unwrap_or(0);
    for name in KEY_FILES {
        let from = datadir.join(name);
        if !std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let to = tmp.join(name);
        let copied = copy_private(&from, &to).map_err(|e| io_error(&to, &e))?;
        bytes += copied;
    }
    let databases = tmp.join("databases");
    std::fs::DirBuilder::new().mode(crate::datadir::DIR_MODE).create(&databases).map_err(|e| io_error(&databases, &e))?;
    let mut copied = server.engine.backup(&databases, ctx)?;
    sync_dir(&databases).map_err(|e| io_error(&databases, &e))?;
    sync_dir(tmp).map_err(|e| io_error(tmp, &e))?;
    copied.bytes += bytes;
    Ok(copied)
}

/// Copy a file into a new 0600 file and fsync it; its length.
fn copy_private(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut src = std::fs::File::open(from)?;
    let mut dst = crate::datadir::create_private_file(to)?;
    let n = std::io::copy(&mut src, &mut dst)?;
    dst.sync_all()?;
    Ok(n)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_paths() {
        assert!(check_target("/tmp/b1").is_ok());
        assert_eq!(check_target("/tmp/b1/").unwrap(), PathBuf::from("/tmp/b1"));
        for bad in ["", "rel/dir", "./x", "/tmp/../etc", "/tmp/./x", "/", "//", "/tmp/a\0b"] {
            assert_eq!(check_target(bad).unwrap_err().code, 1210, "{:?}", bad);
        }
        assert_eq!(check_target(&format!("/{}", "a".repeat(5000))).unwrap_err().code, 1210);
    }
}
