//! The data directory's files and their permissions.
//!
//! The data directory holds password hashes (`accounts.json`) and every
//! database, so nobody but the server's user may read it: directories are
//! created 0700 and files 0600, and start-up tightens an existing directory
//! made by an older version (or by hand) and logs each change. The process
//! umask is set to 077 as well, for the files SQLite creates itself (a
//! database file is created with 0644 less the umask, and its -wal and
//! -journal files copy the database file's mode). The Unix socket is the one
//! file made for others: `listener` makes it 0777, as MySQL does.

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Mode of every directory the server creates.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file the server creates.
pub const FILE_MODE: u32 = 0o600;
/// Name of the lock file inside the data directory.
const LOCK_FILE: &str = "turnstile.lock";
/// How deep start-up looks for files to tighten (datadir/databases/<db>/<file> is 3).
const MAX_DEPTH: usize = 8;
/// Changed paths logged one by one; past this only the total is logged.
const LOG_EACH: usize = 20;

/// Create (0700) or tighten the data directory, then lock it so two servers
/// never share it. Returns the lock file, held for the life of the server.
pub fn prepare(datadir: &Path) -> Result<fs::File, String> {
    // SAFETY: umask(2) only sets the process's file-creation mask.
    unsafe { libc::umask(0o077) };
    fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(datadir).map_err(|e| format!("cannot create datadir {}: {}", datadir.display(), e))?;
    tighten(datadir);
    lock(datadir)
}

/// Exclusive lock on the data directory (the lock file is created 0600).
fn lock(datadir: &Path) -> Result<fs::File, String> {
    let path = datadir.join(LOCK_FILE);
    let f = fs::OpenOptions::new().create(true).truncate(false).write(true).mode(FILE_MODE).open(&path).map_err(|e| format!("{}: {}", path.display(), e))?;
    // SAFETY: flock on an fd we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(format!("data directory {} is in use by another turnstile process", datadir.display()));
    }
    Ok(f)
}

/// Remove group and other permissions from the data directory and everything
/// in it (directories and regular files; symbolic links are not followed),
/// logging what changed.
pub fn tighten(datadir: &Path) {
    let mut changed: Vec<(PathBuf, u32, u32)> = Vec::new();
    walk(datadir, 0, &mut changed);
    for (path, from, to) in changed.iter().take(LOG_EACH) {
        tracing::warn!(path = %path.display(), "data directory: permissions {:o} -> {:o} (group and other access removed)", from, to);
    }
    if !changed.is_empty() {
        tracing::warn!(datadir = %datadir.display(), changed = changed.len(), "data directory permissions tightened: only the server's user may read it");
    }
}

fn walk(path: &Path, depth: usize, changed: &mut Vec<(PathBuf, u32, u32)>) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    let ft = meta.file_type();
    if !(ft.is_dir() || ft.is_file()) {
        return;
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        let to = mode & !0o077;
        match fs::set_permissions(path, fs::Permissions::from_mode(to)) {
            Ok(()) => changed.push((path.to_path_buf(), mode, to)),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot tighten permissions")
            }
        }
    }
    if ft.is_dir() && depth < MAX_DEPTH {
        let Ok(entries) = fs::read_dir(path) else {
            return;
        };
        for e in entries.flatten() {
            walk(&e.path(), depth + 1, changed);
        }
    }
}

/// Create `path` for writing with mode 0600 (also when it already exists with
/// a wider mode, e.g. left over from a crash).
pub fn create_private_file(path: &Path) -> io::Result<fs::File> {
    let f = fs::OpenOptions::new().create(true).truncate(true).write(true).mode(FILE_MODE).open(path)?;
    f.set_permissions(fs::Permissions::from_mode(FILE_MODE))?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tighten_removes_group_and_other_bits() {
        let dir = std::env::temp_dir().join(format!("ts-datadir-{}", std::process::id()));
        fs::create_dir_all(dir.join("databases/d1")).unwrap();
        fs::write(dir.join("accounts.json"), b"{}").unwrap();
        fs::write(dir.join("databases/d1/data.sqlite"), b"").unwrap();
        for (p, m) in [("", 0o755), ("databases", 0o775), ("databases/d1", 0o705), ("accounts.json", 0o644), ("databases/d1/data.sqlite", 0o664)] {
            fs::set_permissions(dir.join(p), fs::Permissions::from_mode(m)).unwrap();
        }
        tighten(&dir);
        let mode = |p: &str| fs::metadata(dir.join(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(""), mode("databases"), mode("databases/d1")), (0o700, 0o700, 0o700));
        assert_eq!((mode("accounts.json"), mode("databases/d1/data.sqlite")), (0o600, 0o600));
        fs::remove_dir_all(dir).unwrap();
    }
}
