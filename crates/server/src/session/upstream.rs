//! A session under the upstream engine: after the login (checked here
//! against the backend's accounts), its commands go to `turnstile_upstream`'s
//! `Proxy`, which runs them on the backend as the session's user. Turnstile
//! still answers what concerns the connection itself (COM_PING, COM_QUIT,
//! COM_STATISTICS, COM_SET_OPTION, KILL with Turnstile's connection ids).

use super::{Flow, Flush, Phase, Session};
use std::sync::atomic::Ordering;
use turnstile_engine::SqlError;
use turnstile_upstream::backend::Login;
use turnstile_upstream::classify::{self, Local};
use turnstile_upstream::proxy::{Io, Proxy, Step};
use turnstile_wire::auth;
use turnstile_wire::command::Command;

fn flow(step: Step) -> Flow {
    match step {
        Step::Done => Flow::Continue,
        Step::Paused | Step::Waiting => Flow::Paused,
        // The session is in `Phase::LocalInfile` (`with_proxy`).
        Step::File => Flow::Continue,
    }
}

impl Session {
    pub(super) fn is_upstream(&self) -> bool {
        self.server.upstream.is_some()
    }

    /// The scheduler can resume this session when the upstream pool hands it
    /// a backend connection (pool-of-threads): its statements then queue
    /// for a connection instead of blocking the thread.
    pub fn set_upstream_wake(&mut self, wake: turnstile_upstream::pool::Wake) {
        self.upstream_wake = Some(wake);
    }

    /// After a mysql_native_password token was proved: keep SHA1(password),
    /// which logs in to the backend as this user.
    pub(super) fn keep_upstream_secret(&mut self, account: &crate::accounts::Account, plugin: &str, token: &[u8]) {
        if !self.is_upstream() {
            return;
        }
        self.upstream_hash1 = match (&account.secret.native, plugin) {
            (Some(h), auth::NATIVE) => auth::unhex::<20>(h).and_then(|stored| auth::native_hash1(&stored, &self.scramble, token)),
            _ => None,
        };
    }

    /// The account for a login; under the upstream engine an unknown user
    /// makes Turnstile read the backend's accounts again first.
    pub(super) fn find_account(&self, user: &str) -> Option<std::sync::Arc<crate::accounts::Account>> {
        let found = self.server.accounts.find(user, &self.peer);
        match (&found, &self.server.upstream) {
            (None, Some(up)) => {
                self.waits.wait_begin(turnstile_engine::WaitKind::Network);
                let read = up.refresh_accounts();
                self.waits.wait_end();
                if read {
                    self.server.accounts.find(user, &self.peer)
                } else {
                    None
                }
            }
            _ => found,
        }
    }

    /// The login succeeded: start (or, after COM_CHANGE_USER, restart) the
    /// session's proxy, and check the database asked for on the backend.
    pub(super) fn start_upstream_session(&mut self, user: &str, database: Option<&str>) -> Result<(), SqlError> {
        let up = self.server.upstream.clone().expect("upstream engine");
        let login = Login { user: user.to_string(), hash1: self.upstream_hash1.take() };
        match self.upstream.as_mut() {
            Some(p) => p.change_user(login, self.sql.handshake_collation),
            None => {
                let found_rows = self.caps & turnstile_wire::consts::cap::FOUND_ROWS != 0;
                let mut proxy = Box::new(Proxy::new(up, login, found_rows, self.sql.handshake_collation));
                proxy.watch_client(Box::new(crate::conn::PeerProbe { fd: self.probe.fd, handle: self.handle.clone() }));
                proxy.connection_id = self.handle.id;
                self.upstream = Some(proxy);
            }
        }
        let Some(db) = database else { return Ok(()) };
        let mut no_flush = |_: &mut Vec<u8>| Ok(());
        let no_status = |_: bool| Vec::new();
        let mut io = Io {
            waits: self.waits,
            flush: &mut no_flush,
            pausable: false,
            running: &self.handle.upstream_thread,
            multi_statements: self.multi_statements,
            deprecate_eof: self.deprecate_eof(),
            local_files: false,
            wake: None,
            front_status: &no_status,
        };
        let r = self.upstream.as_mut().expect("set above").use_database(db, &mut io);
        if r.is_ok() {
            self.sql.db = Some(db.to_string());
        }
        r
    }

    /// A command under the upstream engine; None for those the session
    /// answers as with any engine.
    pub(super) fn on_upstream_command(&mut self, cmd: &Command<'_>, payload: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Option<Flow> {
        let stats = self.server.config.statistics;
        match cmd {
            Command::Query(sql) => {
                let shape = self.upstream.as_ref().expect("logged in").classify(sql);
                if let Err(e) = self.nesting_allowed(&shape) {
                    self.send_err(out, &e);
                    return Some(Flow::Continue);
                }
                if let Some(Local::Kill { id, query_only }) = shape.local {
                    return Some(self.upstream_kill(id, query_only, out));
                }
                self.begin_command("Query", &String::from_utf8_lossy(&sql[..sql.len().min(1024)]));
                self.statement_start(&String::from_utf8_lossy(sql));
                if stats {
                    self.server.stats.questions.inc();
                }
                let f = self.with_proxy(flush, |p, io, out| p.query(payload, &shape, out, io), out);
                Some(self.command_ran(f))
            }
            Command::InitDb(db) => {
                self.begin_command("Init DB", &String::from_utf8_lossy(db));
                let f = self.with_proxy(flush, |p, io, out| p.command(payload, None, out, io), out);
                Some(self.command_ran(f))
            }
            Command::FieldList { .. } => Some(self.with_proxy(flush, |p, io, out| p.field_list(payload, out, io), out)),
            Command::StmtPrepare(sql) => {
                if stats {
                    self.server.stats.com_stmt_prepare.inc();
                }
                if let Err(e) = self.nesting_allowed(&self.upstream.as_ref().expect("logged in").classify(sql)) {
                    self.send_err(out, &e);
                    return Some(Flow::Continue);
                }
                let sql = sql.to_vec();
                self.begin_command("Prepare", "");
                let f = self.with_proxy(flush, |p, io, out| p.prepare(&sql, out, io), out);
                Some(self.command_ran(f))
            }
            Command::StmtExecute { .. } => {
                if stats {
                    self.server.stats.com_stmt_execute.inc();
                    self.server.stats.questions.inc();
                }
                self.begin_command("Execute", "");
                self.statement_start("");
                let f = self.with_proxy(flush, |p, io, out| p.execute(payload, out, io), out);
                Some(self.command_ran(f))
            }
            Command::StmtSendLongData { statement_id, param, data } => {
                let max = self.server.max_allowed_packet();
                let p = self.upstream.as_mut().expect("logged in");
                p.long_data(*statement_id, *param, data, max);
                Some(Flow::Continue)
            }
            Command::StmtClose(id) => {
                self.upstream.as_mut().expect("logged in").close_statement(*id);
                Some(Flow::Continue)
            }
            Command::StmtReset(id) => {
                if self.upstream.as_mut().expect("logged in").reset_statement(*id) {
                    self.send_ok(out, 0, 0, 0, false);
                } else {
                    self.send_err(out, &SqlError::unknown_stmt_handler(*id, "mysqld_stmt_reset"));
                }
                Some(Flow::Continue)
            }
            Command::StmtFetch { statement_id, rows } => {
                self.begin_command("Fetch", "");
                let (id, rows) = (*statement_id, *rows);
                let f = self.with_proxy(flush, |p, io, out| p.fetch(id, rows, out, io), out);
                Some(self.command_ran(f))
            }
            Command::ResetConnection => {
                self.upstream.as_mut().expect("logged in").reset();
                self.stmts.clear();
                self.send_ok(out, 0, 0, 0, false);
                Some(Flow::Continue)
            }
            _ => None,
        }
    }

    /// A statement nested deeper than `upstream_max_nesting` never reaches
    /// the backend (some crash MariaDB 10.11: tests/test_upstream.py).
    fn nesting_allowed(&self, shape: &classify::Shape) -> Result<(), SqlError> {
        let max = self.server.config.upstream_max_nesting;
        if shape.nesting <= max {
            return Ok(());
        }
        Err(SqlError::new(1436, "HY000", format!("Thread stack overrun: the statement nests parentheses {} deep; upstream_max_nesting allows {}", shape.nesting, max)))
    }

    fn with_proxy(&mut self, flush: &mut Flush<'_>, f: impl FnOnce(&mut Proxy, &mut Io<'_, '_>, &mut Vec<u8>) -> Step, out: &mut Vec<u8>) -> Flow {
        let deprecate_eof = self.deprecate_eof();
        let local_files = self.local_infile_allowed();
        let wake = self.upstream_wake.as_ref();
        let (server, sql) = (&self.server, &self.sql);
        let front_status = |global: bool| front_status(server, sql, global);
        let mut io = Io {
            waits: self.waits,
            flush,
            pausable: self.pausable,
            running: &self.handle.upstream_thread,
            multi_statements: self.multi_statements,
            deprecate_eof,
            local_files,
            wake,
            front_status: &front_status,
        };
        let p = self.upstream.as_mut().expect("logged in");
        let step = f(p, &mut io, out);
        self.sql.db = p.schema().map(str::to_string);
        if step == Step::File && self.phase != Phase::LocalInfile {
            // The backend asked for the client's file: its packets come next.
            self.seq = p.file_seq();
            self.phase = Phase::LocalInfile;
        }
        flow(step)
    }

    /// A command (begun with `begin_command`) ran: it ends now, or when its
    /// answer is in (`resume_upstream`).
    fn command_ran(&mut self, f: Flow) -> Flow {
        if f == Flow::Paused || self.phase == Phase::LocalInfile {
            self.upstream_command_open = true;
        } else {
            self.end_command();
        }
        f
    }

    /// Continue an answer in flight: the client read what was buffered, or
    /// the backend's socket became readable.
    pub(super) fn resume_upstream(&mut self, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let f = self.with_proxy(flush, |p, io, out| p.resume(out, io), out);
        self.answer_went_on(f)
    }

    /// After a resumed answer or a file packet: the command ends when its
    /// answer is in.
    fn answer_went_on(&mut self, f: Flow) -> Flow {
        if f != Flow::Paused && self.phase != Phase::LocalInfile && std::mem::take(&mut self.upstream_command_open) {
            self.end_command();
        }
        f
    }

    /// A packet of the LOCAL INFILE file the backend asked for: straight to
    /// the backend; the empty one ends the file and its answer follows.
    pub(super) fn upstream_file_packet(&mut self, payload: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if payload.is_empty() {
            self.phase = Phase::Command;
        }
        // `on_packet` set `seq` one past the client's packet: the answer's first id.
        let client_seq = self.seq;
        let f = self.with_proxy(flush, |p, io, out| p.file_packet(payload, client_seq, out, io), out);
        self.answer_went_on(f)
    }

    /// The session ends with an answer in flight.
    pub(super) fn cancel_upstream(&mut self) {
        if std::mem::take(&mut self.upstream_command_open) {
            self.end_command();
        }
    }

    /// KILL [QUERY | CONNECTION] n with Turnstile's connection ids; the
    /// backend statement of that session is killed too (`Server::kill`).
    fn upstream_kill(&mut self, id: u64, query_only: bool, out: &mut Vec<u8>) -> Flow {
        use turnstile_sql::ServerOps;
        match self.server.kill(&self.sql, id, query_only) {
            Ok(()) if id == self.id() as u64 && !query_only => {
                self.send_err(out, &SqlError::query_interrupted());
                Flow::Close
            }
            Ok(()) => {
                self.handle.killed.store(false, Ordering::Relaxed);
                self.send_ok(out, 0, 0, 0, false);
                Flow::Continue
            }
            Err(e) => {
                self.send_err(out, &e);
                Flow::Continue
            }
        }
    }
}

/// The SHOW STATUS rows about the client's own connection to Turnstile,
/// which the backend's answer must not stand for: TLS is between the client
/// and Turnstile (the backend's Ssl_cipher describes its link to Turnstile).
fn front_status(server: &crate::server::Server, sql: &turnstile_sql::SessionState, global: bool) -> Vec<(String, String)> {
    use turnstile_sql::ServerOps;
    let text = |v: &turnstile_engine::Value| v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
    server.status(sql, global).into_iter().filter(|(n, _)| n.starts_with("Ssl_")).map(|(n, v)| (n.to_string(), text(&v))).collect()
}
