//! What a statement's start and end tell the operators: Slow_queries and
//! the slow query log, the statement's digest (performance_schema), and the
//! general query log's line per command.
//!
//! A statement starts where the session begins to run it (each statement of
//! a multi-statement COM_QUERY, a COM_STMT_EXECUTE, a LOAD DATA LOCAL) and
//! ends in `finish_statement` when its last packet is written; a result
//! paused for a slow client ends when it is resumed to its end, possibly on
//! another thread. Under the upstream engine a command is one statement,
//! ended with the command (`end_command`).
//!
//! The cost when all of it is on is one clock read at each end, the
//! normalization of the text (`turnstile_sqltext::digest`) and two
//! uncontended locks of the thread's digest shard; when it is off, the
//! clock reads only (Slow_queries needs them).

use super::Session;
use crate::digests::Measure;
use crate::query_log::{Kind, SlowEntry};
use std::sync::atomic::Ordering;
use std::time::Instant;
use turnstile_wire::command::Command;

/// The statement running now.
#[derive(Debug, Default)]
pub(super) struct Watch {
    started: Option<Instant>,
    /// The command the statement came in: 0 COM_QUERY, 1 COM_STMT_EXECUTE
    /// (the metrics' `command` label).
    pub(super) command: u8,
    /// Its digest (`digests::key_of`) and the shard holding it; None when
    /// digests are off.
    digest: Option<crate::digests::Slot>,
    pub(super) rows_sent: u64,
    /// The slow log's copy of the text and the database of the session's
    /// last slow log entry; only once the slow log was ON for the session.
    slow: Option<Box<SlowText>>,
}

/// A prepared statement's digest (`Stmt::digest`).
#[derive(Debug)]
pub(super) struct StmtDigest {
    schema: Option<Box<str>>,
    key: u64,
    text: Box<str>,
}

#[derive(Debug, Default)]
struct SlowText {
    text: String,
    logged_db: Option<String>,
}

/// Bytes of the slow log's statement copy a session keeps between statements.
const SLOW_TEXT_KEPT: usize = 64 * 1024;

thread_local! {
    /// The digest text being built (reused: no allocation per statement).
    static NORMALIZED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

impl Session {
    /// A statement begins: its clock starts, its digest is found.
    pub(super) fn statement_start(&mut self, sql: &str) {
        // (An upstream COM_STMT_EXECUTE has no text here: no digest.)
        let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
        self.watch.digest = self.server.digests.as_ref().filter(|_| !sql.is_empty()).map(|d| {
            NORMALIZED.with_borrow_mut(|text| {
                turnstile_sqltext::digest::normalize(sql, d.max_text_bytes, text);
                d.begin(self.sql.db.as_deref(), text)
            })
        });
        self.start_watch(sql);
    }

    /// A prepared statement's execute begins: as `statement_start`, with the
    /// digest normalized once per statement (and again if the session's
    /// database changed since).
    pub(super) fn execute_start(&mut self, id: u32, sql: &str) {
        let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
        self.watch.digest = match (self.server.digests.as_ref(), self.stmts.get_mut(&id)) {
            (Some(d), Some(st)) => {
                let db = self.sql.db.as_deref();
                let cached = st.digest.as_ref().filter(|c| c.schema.as_deref() == db);
                let c = match cached {
                    Some(c) => c,
                    None => {
                        let text: Box<str> = NORMALIZED.with_borrow_mut(|text| {
                            turnstile_sqltext::digest::normalize(sql, d.max_text_bytes, text);
                            text.as_str().into()
                        });
                        let key = crate::digests::key_of(db, &text);
                        st.digest.insert(Box::new(StmtDigest { schema: db.map(Into::into), key, text }))
                    }
                };
                Some(d.begin_keyed(c.key, db, &c.text))
            }
            _ => None,
        };
        self.start_watch(sql);
    }

    fn start_watch(&mut self, sql: &str) {
        let server = &self.server;
        self.watch.started = Some(Instant::now());
        self.watch.rows_sent = 0;
        if server.globals.hot.slow_query_log.load(Ordering::Relaxed) != 0 {
            let slow = self.watch.slow.get_or_insert_with(Box::default);
            slow.text.clear();
            slow.text.push_str(sql);
        } else if let Some(slow) = self.watch.slow.as_mut() {
            slow.text.clear();
        }
    }

    /// The statement ended (its answer written): `error`, its code if it failed.
    pub(super) fn statement_end(&mut self, error: Option<u16>, rows_affected: u64, warnings: u64) {
        let Some(started) = self.watch.started.take() else { return };
        self.finish_watch(started, error, rows_affected, warnings);
        self.release_slow_text();
    }

    fn finish_watch(&mut self, started: Instant, error: Option<u16>, rows_affected: u64, warnings: u64) {
        let ended = Instant::now();
        let elapsed = ended.saturating_duration_since(started);
        let server = &self.server;
        if server.config.statistics {
            let stats = &server.stats;
            stats.statements[usize::from(self.watch.command.min(1))][usize::from(error.is_some())].inc();
            if let Some(code) = error {
                stats.errors.inc(code);
            }
            if server.config.metrics_port != 0 {
                stats.statement_seconds.observe_ns(elapsed.as_nanos().min(u64::MAX as u128) as u64);
            }
        }
        if let (Some(d), Some(slot)) = (server.digests.as_ref(), self.watch.digest.take()) {
            let m = Measure { elapsed_ps: elapsed.as_nanos().min(u64::MAX as u128 / 1000) as u64 * 1000, error: error.is_some(), warnings, rows_affected, rows_sent: self.watch.rows_sent };
            d.end(slot, &m, ended);
        }
        if elapsed.as_micros() <= self.long_query_time_us() as u128 {
            return;
        }
        if server.config.statistics {
            server.stats.slow_queries.inc();
        }
        if server.globals.hot.slow_query_log.load(Ordering::Relaxed) != 0 {
            self.write_slow_entry(started, elapsed.as_secs_f64(), rows_affected);
        }
    }

    /// The slow log's copy of a long statement is not kept once it is
    /// written: a session keeps at most `SLOW_TEXT_KEPT` bytes between
    /// statements (one 64 MB statement must not hold 64 MB per connection).
    fn release_slow_text(&mut self) {
        if let Some(slow) = self.watch.slow.as_mut() {
            if slow.text.capacity() > SLOW_TEXT_KEPT {
                slow.text = String::new();
            }
        }
    }

    fn write_slow_entry(&mut self, started: Instant, query_s: f64, rows_affected: u64) {
        let Some(slow) = self.watch.slow.as_mut() else { return };
        if slow.text.is_empty() {
            // The slow log was turned on while the statement ran.
            return;
        }
        let use_db = slow.logged_db != self.sql.db;
        if use_db {
            slow.logged_db.clone_from(&self.sql.db);
        }
        let now_s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let started_s = now_s.saturating_sub(started.elapsed().as_secs());
        let entry = SlowEntry {
            user: &self.sql.user,
            host: &self.sql.host,
            thread_id: self.handle.id,
            schema: self.sql.db.as_deref(),
            query_s,
            rows_sent: self.watch.rows_sent,
            rows_affected,
            started_s,
            use_db,
            text: &slow.text,
        };
        let server = &self.server;
        let path = server.logs.path_of(Kind::Slow, &server.globals.text("slow_query_log_file"));
        server.logs.slow(&path, &entry);
    }

    /// The general log's line for a command (`general_log` ON).
    pub(super) fn log_command(&self, command: &str, argument: &str) {
        let server = &self.server;
        if server.globals.hot.general_log.load(Ordering::Relaxed) == 0 {
            return;
        }
        let path = server.logs.path_of(Kind::General, &server.globals.text("general_log_file"));
        server.logs.general(&path, self.handle.id, command, argument);
    }

    /// The general log's line for a command the client sent, named as MariaDB names it.
    pub(super) fn log_decoded(&self, cmd: &Command<'_>) {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let (name, argument) = match cmd {
            Command::Quit => ("Quit", String::new()),
            Command::InitDb(db) => ("Init DB", text(db)),
            Command::Query(sql) => ("Query", text(sql)),
            Command::FieldList { table, .. } => ("Field List", text(table)),
            Command::Statistics => ("Statistics", String::new()),
            Command::ProcessKill(id) => ("Kill", id.to_string()),
            Command::Ping => ("Ping", String::new()),
            Command::ChangeUser(c) => ("Change user", c.username.clone()),
            Command::StmtPrepare(sql) => ("Prepare", text(sql)),
            Command::StmtExecute { statement_id, .. } => ("Execute", self.prepared_text(*statement_id)),
            Command::StmtClose(id) => ("Close stmt", id.to_string()),
            Command::StmtReset(id) => ("Reset stmt", id.to_string()),
            Command::StmtFetch { statement_id, .. } => ("Fetch", statement_id.to_string()),
            Command::ResetConnection => ("Reset connection", String::new()),
            Command::StmtSendLongData { .. } | Command::SetOption(_) | Command::Sleep | Command::Unknown(_) => return,
        };
        self.log_command(name, &argument);
    }

    fn prepared_text(&self, id: u32) -> String {
        self.stmts.get(&id).map(|s| s.sql.to_string()).unwrap_or_default()
    }

    /// The general log's Connect line: `user@host on db using transport`.
    pub(super) fn log_connect(&self) {
        if self.server.globals.hot.general_log.load(Ordering::Relaxed) == 0 {
            return;
        }
        let transport = match (self.tls.is_some(), self.sql.host.as_str()) {
            (true, _) => "SSL/TLS",
            (false, "localhost") => "Socket",
            _ => "TCP/IP",
        };
        let line = format!("{}@{} on {} using {}", self.sql.user, self.sql.host, self.sql.db.as_deref().unwrap_or(""), transport);
        self.log_command("Connect", &line);
    }
}
