//! The slow query log and the general query log: files in MariaDB's formats
//! (pt-query-digest and mysqldumpslow read the slow one), written when
//! `slow_query_log` / `general_log` are ON, to `slow_query_log_file` /
//! `general_log_file`, all four changeable with SET GLOBAL.
//!
//! A file is opened at its first entry (append, 0600) and kept open; FLUSH
//! LOGS and SIGHUP close it so that the next entry opens the path again, which
//! is what logrotate needs after moving a log away. An entry is formatted in
//! the session's thread and written with one `write` under the file's lock,
//! so entries from many sessions never interleave. A file that cannot be
//! opened or written is reported once in the server's log and retried at
//! the next entry; the statement being logged is never failed for it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Which log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Slow,
    General,
}

/// One log file: the path it was opened at, and the file.
#[derive(Debug, Default)]
struct Open {
    path: PathBuf,
    file: Option<std::fs::File>,
    /// The path whose failure was last reported (reported once).
    failed: Option<PathBuf>,
    /// The second of the last slow entry (`# Time:` is written when it changes).
    last_second: u64,
}

/// The two logs of a server.
#[derive(Debug)]
pub struct QueryLogs {
    slow: Mutex<Open>,
    general: Mutex<Open>,
    /// The header each file starts with (MariaDB's three lines).
    header: String,
    datadir: PathBuf,
    /// The machine's name, read once: the default files are named for it.
    host: String,
}

/// What the slow log says of one statement.
pub struct SlowEntry<'a> {
    pub user: &'a str,
    pub host: &'a str,
    pub thread_id: u32,
    pub schema: Option<&'a str>,
    pub query_s: f64,
    pub rows_sent: u64,
    pub rows_affected: u64,
    /// Seconds since the epoch at which the statement began.
    pub started_s: u64,
    /// `use db;` goes first: the session's database changed since its last entry.
    pub use_db: bool,
    pub text: &'a str,
}

impl QueryLogs {
    pub fn new(datadir: &Path, version: &str, port: u16, socket: &str) -> QueryLogs {
        let header = format!("turnstile, Version: {version}. started with:\nTcp port: {port}  Unix socket: {socket}\nTime\t\t    Id Command\tArgument\n");
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_else(|_| "turnstile".into());
        QueryLogs { slow: Mutex::new(Open::default()), general: Mutex::new(Open::default()), header, datadir: datadir.to_path_buf(), host }
    }

    /// The file `setting` names: under the data directory when relative;
    /// `<hostname>.log` / `<hostname>-slow.log` there when empty.
    pub fn path_of(&self, kind: Kind, setting: &str) -> PathBuf {
        if setting.is_empty() {
            return self.datadir.join(match kind {
                Kind::Slow => format!("{}-slow.log", self.host),
                Kind::General => format!("{}.log", self.host),
            });
        }
        self.datadir.join(setting)
    }

    /// FLUSH LOGS, SIGHUP: close both files; the next entry opens its path again.
    pub fn reopen(&self) {
        for log in [&self.slow, &self.general] {
            let mut o = log.lock().unwrap_or_else(|e| e.into_inner());
            o.file = None;
            o.failed = None;
        }
    }

    /// Write a slow log entry to the file `path`.
    pub fn slow(&self, path: &Path, e: &SlowEntry<'_>) {
        let mut text = String::with_capacity(256 + e.text.len());
        let mut log = self.slow.lock().unwrap_or_else(|e| e.into_inner());
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if now != log.last_second {
            log.last_second = now;
            let _ = writeln!(text, "# Time: {}", short_time(now));
        }
        let _ = writeln!(
            text,
            "# User@Host: {}[{}] @ {} [{}]",
            e.user,
            e.user,
            if e.host.parse::<std::net::IpAddr>().is_ok() { "" } else { e.host },
            if e.host.parse::<std::net::IpAddr>().is_ok() { e.host } else { "" }
        );
        let _ = writeln!(text, "# Thread_id: {}  Schema: {}  QC_hit: No", e.thread_id, e.schema.unwrap_or(""));
        let _ = writeln!(text, "# Query_time: {:.6}  Lock_time: 0.000000  Rows_sent: {}  Rows_examined: 0", e.query_s, e.rows_sent);
        let _ = writeln!(text, "# Rows_affected: {}", e.rows_affected);
        if let (true, Some(db)) = (e.use_db, e.schema) {
            let _ = writeln!(text, "use {};", quote(db));
        }
        let _ = writeln!(text, "SET timestamp={};", e.started_s);
        text.push_str(e.text.trim_end());
        if !text.ends_with(';') {
            text.push(';');
        }
        text.push('\n');
        self.write(&mut log, path, text.as_bytes());
    }

    /// Write a general log entry: `command` (Connect, Query, Quit, ...) and its argument.
    pub fn general(&self, path: &Path, thread_id: u32, command: &str, argument: &str) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut log = self.general.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::with_capacity(48 + argument.len());
        if now != log.last_second {
            log.last_second = now;
            text.push_str(&short_time(now));
        } else {
            text.push('\t');
        }
        let _ = writeln!(text, "\t{thread_id:>6} {command}\t{argument}");
        self.write(&mut log, path, text.as_bytes());
    }

    fn write(&self, log: &mut Open, path: &Path, bytes: &[u8]) {
        if log.file.is_none() || log.path != path {
            log.file = None;
            match open(path) {
                Ok((f, new)) => {
                    let mut f = f;
                    if new {
                        let _ = f.write_all(self.header.as_bytes());
                    }
                    log.file = Some(f);
                    log.path = path.to_path_buf();
                    log.failed = None;
                }
                Err(err) => {
                    if log.failed.as_deref() != Some(path) {
                        tracing::error!(path = %path.display(), "cannot open the query log: {err}");
                        log.failed = Some(path.to_path_buf());
                    }
                    return;
                }
            }
        }
        if let Some(f) = log.file.as_mut() {
            if let Err(err) = f.write_all(bytes) {
                tracing::error!(path = %path.display(), "cannot write the query log: {err}");
                log.file = None;
            }
        }
    }
}

/// Open for appending, 0600; true when the file is new (or empty). Not
/// through a symbolic link, and only a plain file: a FIFO put at the path
/// would block every session's logging behind the log's lock (O_NONBLOCK
/// makes its open fail instead), a device is no log.
fn open(path: &Path) -> std::io::Result<(std::fs::File, bool)> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().create(true).append(true).mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)?;
    let meta = f.metadata()?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok((f, meta.len() == 0))
}

/// Can `path` be a log file? Its directory exists and it is not a directory
/// (SET GLOBAL of a log file's path refuses a path that is not, as MariaDB).
pub fn usable_path(path: &Path) -> bool {
    let dir_ok = path.parent().is_none_or(|d| d.as_os_str().is_empty() || d.is_dir());
    dir_ok && !path.is_dir() && path.file_name().is_some()
}

/// `yymmdd hh:mm:ss` in UTC, as MariaDB's logs write it.
fn short_time(epoch_s: u64) -> String {
    let days = (epoch_s / 86_400) as i64;
    let secs = epoch_s % 86_400;
    let (y, m, d) = turnstile_sqltext::civil::civil_from_days(days);
    format!("{:02}{:02}{:02} {:2}:{:02}:{:02}", y % 100, m, d, secs / 3600, secs / 60 % 60, secs % 60)
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadbs_time_stamp() {
        assert_eq!(short_time(1_795_888_970), "261128 18:02:50");
        assert_eq!(short_time(0), "700101  0:00:00");
    }
}
