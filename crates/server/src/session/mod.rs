//! One client session as a state machine: packets in, response bytes out.
//!
//! The session knows the protocol phases (greeting, authentication, auth
//! switch, commands) and runs statements through the SQL front and the engine.
//! It never touches the socket: the scheduler's driver reads packets, calls
//! `on_packet`, and writes what the session appended to `out`. Large result
//! sets call `flush` whenever the buffer passes `FLUSH_AT`, so the session never
//! holds a whole result in memory. The same session runs under either scheduler.
//!
//! The session is split by job: `authentication` (handshake, authentication, COM_CHANGE_USER),
//! `statements` (running COM_QUERY statements and paused results), `prepared`
//! (COM_STMT_*), `cursor` (COM_STMT_FETCH and the rows a cursor keeps),
//! `result_sink` (encoding rows into packets as they come).

mod authentication;
mod cursor;
mod infile;
mod observe;
mod prepared;
mod result_sink;
mod statements;
mod upstream;

use crate::accounts::Peer;
use crate::registry::{login, Handle};
use crate::server::Server;
use authentication::PendingLogin;
use prepared::Stmt;
use result_sink::RowFormat;
use statements::PausedResult;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use turnstile_engine::{EngineSession, ExecContext, NoWait, SqlError, WaitHook};
use turnstile_sql::front::{self};
use turnstile_sql::{SessionState, SERVER_VERSION};
use turnstile_wire::auth;
use turnstile_wire::command::Command;
use turnstile_wire::consts::{cap, charset, status};
use turnstile_wire::handshake::Greeting;
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::{encode_eof, encode_err, encode_ok};

/// Output buffer size past which a result set is flushed to the socket.
pub const FLUSH_AT: usize = 64 * 1024;
/// Largest handshake packet accepted before authentication.
pub const MAX_HANDSHAKE_PACKET: usize = 64 * 1024;
/// Longest statement text kept for PROCESSLIST.
const MAX_INFO_LEN: usize = 1024;

/// What the driver does after a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Write what is in `out`, then close the connection.
    Close,
    /// A result set is waiting for the client to read: write `out`, and when
    /// the socket is writable again call `resume`. No new packet is read meanwhile.
    /// Under the upstream engine also: the answer waits for the backend
    /// (`Session::backend_fd`); call `resume` when that socket is readable.
    Paused,
    /// An SSLRequest was accepted: start TLS on the socket, then read the
    /// handshake response inside it.
    StartTls,
}

/// Output buffer size at which a pausable result set pauses.
pub const PAUSE_AT: usize = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Handshake,
    /// Waiting for the client's answer to an AuthSwitchRequest.
    AuthSwitch,
    /// caching_sha2_password's full authentication: waiting for the password
    /// (in the clear over TLS or the socket, else RSA-encrypted) or for a
    /// request for the RSA public key.
    FullAuth,
    Command,
    /// Receiving the file of a LOAD DATA LOCAL INFILE (`infile.rs`).
    LocalInfile,
}

pub type Flush<'a> = dyn FnMut(&mut Vec<u8>) -> io::Result<()> + 'a;

/// The text of COM_QUERY / COM_STMT_PREPARE. Raw bytes in string literals
/// (binary values a client interpolated) become hex literals, byte for byte
/// (`binary_text`); other bytes that are not UTF-8 are ERR 1300.
fn statement_text(sql: &[u8]) -> Result<std::borrow::Cow<'_, str>, SqlError> {
    match std::str::from_utf8(sql) {
        Ok(sql) => Ok(std::borrow::Cow::Borrowed(sql)),
        Err(_) => turnstile_sql::binary_text::hex_encode_binary_literals(sql).map(std::borrow::Cow::Owned).ok_or_else(|| SqlError::new(1300, "HY000", "Invalid utf8mb4 character string in query")),
    }
}

/// Refuse text a client sends in a character set Turnstile would have to
/// convert (SET NAMES latin1 and 'é' as 0xE9): stored as sent it would be
/// bytes no UTF-8 reader can read. ASCII text, and any bytes in a `_binary`
/// literal, are the same in every character set a client may name.
fn refuse_unconverted_text(charset: &str) -> SqlError {
    SqlError::unsupported(&format!("non-ASCII text from a client whose character set is {} (text is kept as UTF-8 and not converted: SET NAMES utf8mb4)", charset))
}

pub struct Session {
    server: Arc<Server>,
    pub handle: Arc<Handle>,
    peer: Peer,
    phase: Phase,
    scramble: [u8; 20],
    caps: u32,
    seq: u8,
    sql: SessionState,
    engine: Option<Box<dyn EngineSession>>,
    stmts: HashMap<u32, Stmt, rustc_hash::FxBuildHasher>,
    next_stmt_id: u32,
    multi_statements: bool,
    pending: Option<PendingLogin>,
    /// The counter this connection was added to (released on drop).
    counted_admin_port: bool,
    /// `start` added this connection to its listener's count.
    counted: bool,
    /// The login took one of `Registry::logged_in` (released on drop).
    counted_login: bool,
    pub authenticated: bool,
    /// The client said COM_QUIT (not an aborted client).
    pub quit: bool,
    /// Results may pause when the output buffer fills (pool scheduler).
    pausable: bool,
    /// Told about blocking waits (the pool scheduler's hook, or none).
    waits: &'static (dyn WaitHook + Sync),
    /// Asked by long statements whether the client is still connected.
    probe: crate::conn::PeerProbe,
    paused: Option<PausedResult>,
    /// How the current (or paused) result's rows are encoded; kept between
    /// statements so an execute allocates nothing for it, and so a paused
    /// result resumes with its column types.
    row_format: RowFormat,
    /// The LOAD DATA LOCAL file being received (`Phase::LocalInfile`).
    infile: Option<Box<infile::Infile>>,
    /// Upstream engine: the session's proxy to the backend (`upstream.rs`).
    upstream: Option<Box<turnstile_upstream::proxy::Proxy>>,
    /// Upstream engine: SHA1(password) from the login's token, until the proxy takes it.
    upstream_hash1: Option<[u8; 20]>,
    /// An upstream command's answer is still in flight (paused or waiting
    /// for the backend): it ends (`end_command`) when the answer is in.
    upstream_command_open: bool,
    /// Upstream engine under the pool: resumes the session (`set_upstream_wake`).
    upstream_wake: Option<turnstile_upstream::pool::Wake>,
    /// The client asked for TLS (SSLRequest): what the transport learns of
    /// the TLS session once its handshake is over.
    tls: Option<Arc<crate::tls::stream::TlsInfo>>,
    /// The login was decided (a password checked, or a refusal by policy):
    /// a connection that ends before that is a connect error of its host
    /// (max_connect_errors, guard.rs).
    login_decided: bool,
    /// connection_control: the login's answer waits until then (coarse ms; 0: no wait).
    login_delay_until_ms: u64,
    /// The statement running now, for Slow_queries, the slow log and digests (`observe.rs`).
    watch: observe::Watch,
    /// The handshake's connection attributes until the login is done (then
    /// the registry's, for performance_schema).
    connect_attrs: Box<[u8]>,
}

impl Session {
    /// Build a session on the connection's own thread and register it.
    ///
    /// Always inlined: built in its caller's final place (the pool's
    /// connection), with no 536-byte copies through temporaries.
    #[inline(always)]
    pub fn new(server: Arc<Server>, peer: Peer, addr: Option<std::net::SocketAddr>, admin_port: bool, fd: std::os::fd::RawFd) -> Session {
        let id = server.registry.next_id();
        let handle = Arc::new(Handle::new(id, addr, admin_port, fd));
        server.registry.insert(handle.clone());
        let probe_handle = handle.clone();
        if server.config.statistics {
            server.stats.accepted[crate::stats::Listener::of(admin_port, addr.is_some()) as usize].inc();
        }
        let mut random = [0u8; 20];
        rand::Rng::fill(&mut rand::thread_rng(), &mut random);
        Session {
            sql: SessionState::new(id),
            server,
            handle,
            peer,
            phase: Phase::Handshake,
            scramble: auth::scramble_from_random(&random),
            caps: 0,
            seq: 0,
            engine: None,
            stmts: HashMap::with_hasher(rustc_hash::FxBuildHasher),
            next_stmt_id: 1,
            multi_statements: false,
            pending: None,
            counted_admin_port: admin_port,
            counted: false,
            counted_login: false,
            authenticated: false,
            quit: false,
            pausable: false,
            waits: &NoWait,
            probe: crate::conn::PeerProbe { fd, handle: probe_handle },
            paused: None,
            row_format: RowFormat::default(),
            infile: None,
            upstream: None,
            upstream_hash1: None,
            upstream_command_open: false,
            upstream_wake: None,
            tls: None,
            login_decided: false,
            login_delay_until_ms: 0,
            watch: observe::Watch::default(),
            connect_attrs: Box::default(),
        }
    }

    /// Configure for a non-blocking driver: results pause when output backs up,
    /// and blocking waits are reported to `waits`.
    pub fn set_scheduler_hooks(&mut self, pausable: bool, waits: &'static (dyn WaitHook + Sync)) {
        self.pausable = pausable;
        self.waits = waits;
    }

    pub fn in_transaction(&self) -> bool {
        self.engine.as_ref().is_some_and(|e| e.in_transaction()) || self.upstream.as_ref().is_some_and(|p| p.pins() & turnstile_upstream::classify::pin::TRANSACTION != 0)
    }

    pub fn is_paused(&self) -> bool {
        self.paused.is_some() || self.upstream.as_ref().is_some_and(|p| p.is_streaming())
    }

    /// Under the upstream engine, while a statement waits for the backend:
    /// Some(Some(fd)) for its connection's answer (the pool waits for the
    /// socket to become readable, then resumes the session), Some(None) for a
    /// free connection (the upstream pool wakes the session: `set_upstream_wake`).
    pub fn backend_wait(&self) -> Option<Option<std::os::fd::RawFd>> {
        use turnstile_upstream::proxy::Wait;
        self.upstream.as_ref().and_then(|p| p.waiting_for()).map(|w| match w {
            Wait::Socket(fd) => Some(fd),
            Wait::Checkout => None,
        })
    }

    /// The client hung up (the same probe a long statement asks: a read
    /// side the server shut itself, in a graceful shutdown, is no sign).
    pub fn client_gone(&self) -> bool {
        use turnstile_engine::ClientProbe;
        self.probe.gone()
    }

    pub fn id(&self) -> u32 {
        self.handle.id
    }

    /// connection_control: when the login's answer may go out (coarse ms),
    /// taken once by the driver, which holds the answer until then.
    pub fn take_login_delay(&mut self) -> Option<u64> {
        (self.login_delay_until_ms != 0).then(|| std::mem::take(&mut self.login_delay_until_ms))
    }

    /// The TLS session's details, once the client asked for TLS.
    pub fn tls_info(&self) -> Option<Arc<crate::tls::stream::TlsInfo>> {
        self.tls.clone()
    }

    /// TLS, or the Unix socket (the peer "localhost" has no address): a
    /// transport require_secure_transport allows and a password may cross in
    /// the clear.
    fn secure_transport(&self) -> bool {
        self.tls.is_some() || (self.peer.local && self.peer.ip == "localhost")
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Query text the client may send: ASCII-only unless its character set
    /// is UTF-8 (`refuse_unconverted_text`). An ASCII query costs one scan.
    fn check_client_text(&self, sql: &[u8]) -> Result<(), SqlError> {
        if sql.is_ascii() || !turnstile_sql::binary_text::non_ascii_text(sql) {
            return Ok(());
        }
        match self.sql.unconverted_client_charset(&self.server.globals) {
            Some(cs) => Err(refuse_unconverted_text(&cs)),
            None => Ok(()),
        }
    }

    /// Idle timeout in seconds for the current phase.
    pub fn idle_timeout(&self) -> u64 {
        if self.authenticated {
            self.sql.idle_timeout(&self.server.globals).max(1) as u64
        } else {
            crate::server::seconds(&self.server.globals.hot.connect_timeout)
        }
    }

    /// Largest packet accepted now.
    pub fn max_packet(&self) -> usize {
        if self.authenticated {
            self.server.max_allowed_packet()
        } else {
            MAX_HANDSHAKE_PACKET
        }
    }

    fn packet(&mut self, out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) {
        let start = begin_packet(out);
        f(out);
        end_packet(out, start, &mut self.seq);
    }

    fn status_flags(&self) -> u16 {
        if let Some(p) = &self.upstream {
            return p.status();
        }
        let mut s = 0;
        if self.sql.autocommit {
            s |= status::AUTOCOMMIT;
        }
        // Clients escape strings by it (libmysqlclient's mysql_real_escape_string
        // doubles quotes instead of writing backslashes).
        if self.authenticated && self.no_backslash_escapes() {
            s |= status::NO_BACKSLASH_ESCAPES;
        }
        if self.engine.as_ref().is_some_and(|e| e.in_transaction()) {
            s |= status::IN_TRANS;
        }
        s
    }

    /// Is NO_BACKSLASH_ESCAPES in the session's sql_mode? (How its statements
    /// are lexed: `lex::lexing_mode`.)
    fn no_backslash_escapes(&self) -> bool {
        self.sql.sql_mode(&self.server.globals).no_backslash_escapes()
    }

    fn send_ok(&mut self, out: &mut Vec<u8>, affected: u64, last_id: u64, warnings: u16, more: bool) {
        self.send_ok_info(out, affected, last_id, warnings, "", more);
    }

    /// OK with MySQL's human-readable info string (`Rows matched: 3  Changed: 1
    /// Warnings: 0` after UPDATE, `Records: ...` after a multi-row INSERT or
    /// ALTER TABLE), which the mysql CLI prints and drivers parse (mysqli's
    /// info, mysql2's changedRows).
    /// The info is a length-encoded string, as mysqld writes it (net_send_ok
    /// uses net_store_data also without CLIENT_SESSION_TRACK), and as
    /// libmysqlclient, MariaDB Connector/C and mysql-connector-python read it:
    /// sent raw, the MariaDB mysql CLI fails with 2027 "malformed packet".
    fn send_ok_info(&mut self, out: &mut Vec<u8>, affected: u64, last_id: u64, warnings: u16, info: &str, more: bool) {
        let st = self.status_flags() | if more { status::MORE_RESULTS_EXISTS } else { 0 };
        self.packet(out, |o| encode_ok(o, 0, affected, last_id, st, warnings, info));
    }

    pub fn send_err(&mut self, out: &mut Vec<u8>, e: &SqlError) {
        self.packet(out, |o| encode_err(o, e.code, e.state, &e.message));
    }

    /// First bytes of the connection: the greeting, or ERR 1040 past the limits.
    /// Past the limit, the oldest connection still logging in gives its slot
    /// to this one (`Registry::evict_oldest_login`); without one, the client
    /// listeners keep one more slot for an administrator (checked at login).
    /// On the client listeners, past max_handshakes logins in progress, the
    /// oldest of them gives way too (SHED), so slow or silent handshakes
    /// cannot pile up however high max_connections is.
    pub fn start(&mut self, out: &mut Vec<u8>) -> Flow {
        let reg = &self.server.registry;
        let admin_port = self.counted_admin_port;
        let (count, limit) = if admin_port { (&reg.admin_connected, self.server.config.admin_max_connections as u64) } else { (&reg.connected, self.server.max_connections()) };
        let n = count.fetch_add(1, Ordering::AcqRel) + 1;
        self.counted = true;
        if !admin_port {
            self.server.stats.note_connected(n);
        }
        let mut over = false;
        let full = n > limit;
        let crowded = !full && !admin_port && reg.pending(false) >= self.server.max_handshakes();
        if full || crowded {
            if reg.evict_oldest_login(admin_port, self.id(), if full { login::EVICTED } else { login::SHED }) {
                // The evicted connection's slot is ours; it does not release it.
                let before = count.fetch_sub(1, Ordering::AcqRel);
                debug_assert!(before > 0, "a connection slot released twice");
            } else if full {
                // The client listeners' extra slot is for an administrator.
                over = admin_port || n > limit + 1;
            }
        }
        if !self.peer.local && self.server.guard.host_blocked(&self.peer.ip, &self.server.guard_limits()) {
            self.login_decided = true;
            self.server.stats.aborted_connects.inc();
            self.seq = 0;
            let message = format!("Host '{}' is blocked because of many connection errors; unblock with 'mariadb-admin flush-hosts'", self.peer.ip);
            self.packet(out, |o| turnstile_wire::response::encode_err_before_handshake(o, 1129, &message));
            return Flow::Close;
        }
        if over || self.server.is_shutting_down() {
            self.login_decided = true;
            self.count_refused();
            self.server.stats.aborted_connects.inc();
            let e = if over { SqlError::too_many_connections() } else { SqlError::server_shutdown() };
            self.seq = 0;
            self.packet(out, |o| turnstile_wire::response::encode_err_before_handshake(o, e.code, &e.message));
            return Flow::Close;
        }
        reg.login_pending(&self.handle);
        self.seq = 0;
        let scramble = self.scramble;
        // The upstream engine presents its backend's version: drivers pick
        // protocol features by it.
        let server = self.server.clone();
        let g = Greeting {
            server_version: server.upstream.as_ref().map_or(SERVER_VERSION, |u| u.server_version.as_str()),
            connection_id: self.id(),
            scramble: &scramble,
            capabilities: cap::SERVER_DEFAULT | if server.tls.is_some() { cap::SSL } else { 0 },
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            status: status::AUTOCOMMIT,
            // The upstream engine proves passwords with the backend's
            // mysql_native_password hashes: no auth switch.
            auth_plugin: if self.server.upstream.is_some() { auth::NATIVE } else { self.server.default_plugin() },
        };
        self.packet(out, |o| g.encode(o));
        Flow::Continue
    }

    /// Handle one complete packet. `seq` is the sequence id it arrived with.
    /// A packet whose sequence id is not the one expected (0 for a command,
    /// the next one during a login exchange) gets ERR 1156 and the connection
    /// closes, as MySQL does.
    pub fn on_packet(&mut self, seq: u8, payload: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if self.server.config.statistics {
            self.server.stats.bytes_received.add(payload.len() as i64 + 4);
        }
        debug_assert_eq!(self.authenticated, matches!(self.phase, Phase::Command | Phase::LocalInfile), "commands run only after a login");
        debug_assert!(self.paused.is_none(), "no packet is read while a result is paused");
        // `seq` is the id of the last physical packet; the first one's is checked.
        let physical = payload.len() / turnstile_wire::consts::MAX_PACKET_PAYLOAD + 1;
        if seq.wrapping_sub((physical - 1) as u8) != self.expected_seq() {
            return self.packets_out_of_order(out);
        }
        self.seq = seq.wrapping_add(1);
        match self.phase {
            Phase::Handshake => self.on_handshake(payload, out),
            Phase::AuthSwitch => self.on_auth_switch(payload, out),
            Phase::FullAuth => self.on_full_auth(payload, out),
            Phase::Command => {
                // Every reader of the command's text lexes it by the session's sql_mode.
                let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
                self.guarded(out, |s, out| s.on_command(payload, out, flush))
            }
            Phase::LocalInfile => {
                let _lexing = turnstile_sqltext::lex::lexing_mode(self.no_backslash_escapes());
                self.guarded(out, |s, out| s.on_infile_packet(payload, out, flush))
            }
        }
    }

    /// The sequence id the client's next packet must start with.
    fn expected_seq(&self) -> u8 {
        match self.phase {
            Phase::Command => 0,
            // After the greeting, an auth switch request or a file request: one past ours.
            Phase::Handshake | Phase::AuthSwitch | Phase::FullAuth | Phase::LocalInfile => self.seq,
        }
    }

    /// ERR 1156 (sent with the sequence id the client should have used, as
    /// MariaDB does), then close. Also for a continuation packet out of order
    /// (`FrameError::OutOfOrder` from the decoder).
    pub fn packets_out_of_order(&mut self, out: &mut Vec<u8>) -> Flow {
        if !self.authenticated {
            self.server.stats.aborted_connects.inc();
        }
        self.seq = self.expected_seq();
        self.send_err(out, &SqlError::new(1156, "08S01", "Got packets out of order"));
        Flow::Close
    }

    /// After the socket reported end of input: if another connection took
    /// this one's slot (`Registry::evict_oldest_login`), ERR 1040 for the
    /// client; true when there is something in `out` to send before closing.
    pub fn evicted_notice(&mut self, out: &mut Vec<u8>) -> bool {
        match self.handle.login.load(Ordering::Acquire) {
            login::EVICTED => self.count_refused(),
            login::SHED => self.server.stats.handshakes_evicted.inc(),
            _ => return false,
        }
        // The client answers the greeting (or auth switch) with `seq`; a reply to that is one more.
        self.seq = self.expected_seq().wrapping_add(1);
        self.send_err(out, &SqlError::too_many_connections());
        true
    }

    /// A connection refused with 1040 (max_connections): by its listener too.
    fn count_refused(&self) {
        let stats = &self.server.stats;
        stats.connection_errors_max_connections.inc();
        stats.refused[crate::stats::Listener::of(self.counted_admin_port, self.handle.peer.is_some()) as usize].inc();
    }

    fn deprecate_eof(&self) -> bool {
        self.caps & cap::DEPRECATE_EOF != 0
    }

    fn on_command(&mut self, payload: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let cmd = match Command::decode(payload, self.caps) {
            Ok(c) => c,
            Err(_) => {
                self.send_err(out, &SqlError::new(1835, "HY000", "Malformed communication packet."));
                return Flow::Close;
            }
        };
        if self.server.globals.hot.general_log.load(Ordering::Relaxed) != 0 {
            self.log_decoded(&cmd);
        }
        if self.upstream.is_some() {
            if let Some(flow) = self.on_upstream_command(&cmd, payload, out, flush) {
                return flow;
            }
        }
        let stats = self.server.config.statistics;
        match cmd {
            Command::Quit => {
                self.quit = true;
                Flow::Close
            }
            Command::Ping => {
                self.send_ok(out, 0, 0, 0, false);
                Flow::Continue
            }
            Command::Query(sql) => {
                if let Err(e) = self.check_client_text(sql) {
                    self.send_err(out, &e);
                    return Flow::Continue;
                }
                let sql = match statement_text(sql) {
                    Ok(sql) => sql,
                    Err(e) => {
                        self.send_err(out, &e);
                        return Flow::Continue;
                    }
                };
                self.begin_command("Query", &sql);
                self.run_query(&sql, out, flush)
            }
            Command::InitDb(db) => {
                let db = String::from_utf8_lossy(db).into_owned();
                self.begin_command("Init DB", &db);
                let engine = self.engine.as_mut().expect("authenticated");
                match front::use_database(&mut self.sql, engine.as_mut(), &*self.server, &db) {
                    Ok(()) => self.send_ok(out, 0, 0, 0, false),
                    Err(e) => self.send_err(out, &e),
                }
                self.end_command();
                Flow::Continue
            }
            Command::FieldList { table, .. } => {
                let table = String::from_utf8_lossy(table).into_owned();
                let engine = self.engine.as_mut().expect("authenticated");
                match front::field_list(&mut self.sql, engine.as_mut(), &*self.server, &table) {
                    Ok(cols) => {
                        for c in cols {
                            self.packet(out, |o| c.column.encode_for_field_list(o, c.default.as_deref().map(str::as_bytes)));
                        }
                        let st = self.status_flags();
                        if self.deprecate_eof() {
                            self.packet(out, |o| encode_ok(o, 0xfe, 0, 0, st, 0, ""));
                        } else {
                            self.packet(out, |o| encode_eof(o, 0, st));
                        }
                    }
                    Err(e) => self.send_err(out, &e),
                }
                Flow::Continue
            }
            Command::Statistics => {
                let s = &self.server;
                let up = s.uptime().max(1);
                let q = s.stats.questions.get();
                let text = format!(
                    "Uptime: {}  Threads: {}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: {:.3}",
                    up,
                    s.registry.connected.load(Ordering::Relaxed),
                    q,
                    q as f64 / up as f64
                );
                self.packet(out, |o| o.extend_from_slice(text.as_bytes()));
                Flow::Continue
            }
            Command::ProcessKill(id) => {
                use turnstile_sql::ServerOps;
                match self.server.kill(&self.sql, id as u64, false) {
                    Ok(()) if id == self.id() => {
                        self.send_err(out, &SqlError::query_interrupted());
                        return Flow::Close;
                    }
                    Ok(()) => self.send_ok(out, 0, 0, 0, false),
                    Err(e) => self.send_err(out, &e),
                }
                Flow::Continue
            }
            Command::ChangeUser(cu) => self.change_user(cu, out),
            Command::ResetConnection => {
                self.reset_session();
                self.send_ok(out, 0, 0, 0, false);
                Flow::Continue
            }
            Command::SetOption(opt) => {
                match opt {
                    0 => self.multi_statements = true,
                    1 => self.multi_statements = false,
                    _ => {
                        self.send_err(out, &SqlError::unknown_command());
                        return Flow::Continue;
                    }
                }
                let st = self.status_flags();
                self.packet(out, |o| encode_eof(o, 0, st));
                Flow::Continue
            }
            Command::StmtPrepare(sql) => {
                if stats {
                    self.server.stats.com_stmt_prepare.inc();
                }
                match self.check_client_text(sql).and_then(|()| statement_text(sql)) {
                    Ok(sql) => self.prepare(sql.into_owned(), out),
                    Err(e) => self.send_err(out, &e),
                }
                Flow::Continue
            }
            Command::StmtExecute { statement_id, flags, rest } => {
                if stats {
                    self.server.stats.com_stmt_execute.inc();
                    self.server.stats.questions.inc();
                }
                self.execute_prepared(statement_id, flags, rest, out, flush)
            }
            Command::StmtSendLongData { statement_id, param, data } => {
                let max = self.server.max_allowed_packet();
                if let Some(st) = self.stmts.get_mut(&statement_id) {
                    st.add_long_data(param as usize, data, max);
                }
                // COM_STMT_SEND_LONG_DATA has no response.
                Flow::Continue
            }
            Command::StmtClose(id) => {
                self.stmts.remove(&id);
                Flow::Continue
            }
            Command::StmtReset(id) => {
                match self.stmts.get_mut(&id) {
                    Some(st) => {
                        st.clear_long_data();
                        st.long_data_over = false;
                        st.cursor = None;
                        self.send_ok(out, 0, 0, 0, false);
                    }
                    None => self.send_err(out, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_reset")),
                }
                Flow::Continue
            }
            Command::StmtFetch { statement_id, rows } => self.fetch(statement_id, rows, out, flush),
            Command::Sleep | Command::Unknown(_) => {
                self.send_err(out, &SqlError::unknown_command());
                Flow::Continue
            }
        }
    }

    /// COM_RESET_CONNECTION: roll back, forget what the session set and its
    /// prepared statements (and their cursors); keep its user and database.
    fn reset_session(&mut self) {
        if let Some(e) = self.engine.as_mut() {
            e.reset();
        }
        if let Some(p) = self.upstream.as_mut() {
            p.reset();
        }
        let db = self.sql.db.clone();
        self.sql.reset();
        self.sql.db = db;
        self.sql.apply_login_defaults(&self.server.globals);
        self.apply_global_isolation();
        self.stmts.clear();
    }

    fn begin_command(&mut self, command: &'static str, text: &str) {
        if self.server.config.statistics {
            self.server.stats.threads_running.inc();
        }
        self.handle.killed.store(false, Ordering::Relaxed);
        self.watch.command = u8::from(command == "Execute");
        let db = &self.sql.db;
        self.handle.set_info(|i| {
            i.command = command;
            i.state = "executing";
            let mut end = text.len().min(MAX_INFO_LEN);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            i.query.clear();
            i.query.push_str(&text[..end]);
            i.query_active = true;
            if i.db != *db {
                i.db.clone_from(db);
            }
            i.since = std::time::Instant::now();
        });
    }

    fn end_command(&mut self) {
        if self.server.config.statistics {
            self.server.stats.threads_running.dec();
        }
        // A statement the command began and no statement end closed (the
        // upstream engine's, whose answer the proxy relays).
        self.statement_end(None, 0, 0);
        let db = &self.sql.db;
        self.handle.set_info(|i| {
            // USE or COM_INIT_DB changed it: PROCESSLIST shows it while idle.
            if i.db != *db {
                i.db.clone_from(db);
            }
            i.command = "Sleep";
            i.state = "";
            i.query_active = false;
            i.since = std::time::Instant::now();
        });
    }

    /// The session's long_query_time in microseconds (its own if it set one,
    /// else the global's atomic copy).
    fn long_query_time_us(&self) -> i64 {
        let own = if self.sql.vars.is_empty() { None } else { self.sql.vars.get("long_query_time").and_then(|v| v.as_f64()) };
        match own {
            Some(s) => (s * 1_000_000.0).round() as i64,
            None => self.server.globals.hot.long_query_time_us.load(Ordering::Relaxed),
        }
        .max(0)
    }

    /// Tear down: unregister and release the connection slot.
    /// The connection should be closed with an RST: the client said COM_QUIT
    /// and `reset_after_quit` is on (see `Stream::reset_on_close`).
    pub fn close_with_reset(&self) -> bool {
        self.quit && self.server.config.reset_after_quit
    }

    /// Give back the connection slot (and the logged-in slot): at `finish`,
    /// or as soon as the session decided to close, before its last packet
    /// (ERR 1040, 1045, ...) is written, so a client that reconnects the
    /// moment it reads that packet does not find the slot still taken.
    /// Idempotent.
    pub fn release_slots(&mut self) {
        let reg = &self.server.registry;
        // An evicted connection's slot now belongs to the one that evicted it.
        let evicted = login::evicted(reg.login_leave(&self.handle, login::GONE));
        if std::mem::take(&mut self.counted) && !evicted {
            let count = if self.counted_admin_port { &reg.admin_connected } else { &reg.connected };
            let before = count.fetch_sub(1, Ordering::AcqRel);
            debug_assert!(before > 0, "a connection slot released twice");
        }
        if std::mem::take(&mut self.counted_login) {
            let before = reg.logged_in.fetch_sub(1, Ordering::AcqRel);
            debug_assert!(before > 0, "a login slot released twice");
        }
    }

    pub fn finish(&mut self) {
        if !self.authenticated && !self.login_decided && !self.peer.local {
            self.server.guard.connect_error(&self.peer.ip, &self.server.guard_limits());
        }
        self.handle.detach_socket();
        self.drop_infile();
        if let Some(mut p) = self.upstream.take() {
            p.finish();
        }
        if let Some(mut e) = self.engine.take() {
            e.cancel_paused();
            if e.in_transaction() {
                let warnings = turnstile_engine::Warnings::default();
                let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe, &warnings);
                let _ = e.rollback(&ctx);
            }
        }
        self.server.registry.remove(self.handle.id);
        self.release_slots();
        if self.authenticated && !self.quit {
            self.server.stats.aborted_clients.inc();
        }
    }
}
