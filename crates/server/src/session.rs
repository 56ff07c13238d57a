//! One client session as a state machine: packets in, response bytes out.
//!
//! The session knows the protocol phases (greeting, authentication, auth
//! switch, commands) and runs statements through the SQL front and the engine.
//! It never touches the socket: the scheduler's driver reads packets, calls
//! `on_packet`, and writes what the session appended to `out`. Large result
//! sets call `flush` whenever the buffer passes `FLUSH_AT`, so the session never
//! holds a whole result in memory. The same session runs under either scheduler.

use crate::accounts::{Account, Peer};
use crate::registry::{login, Handle};
use crate::server::Server;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use turnstile_engine::{Column, EngineSession, ExecContext, NoWait, Outcome, RowSink, SqlError, Value, WaitHook};
use turnstile_sql::front::{self, Call};
use turnstile_sql::{privs, SessionState, SERVER_VERSION};
use turnstile_wire::auth;
use turnstile_wire::command::{decode_execute_params_into, ChangeUser, Command, ParamType};
use turnstile_wire::consts::{cap, charset, status};
use turnstile_wire::handshake::{encode_auth_more_data, encode_auth_switch, Greeting, HandshakeResponse};
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::{encode_binary_row_typed, encode_column_count, encode_eof, encode_err, encode_ok, encode_text_row, text_fsp, EncodedColumns};

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
    Paused,
}

/// What happens after one statement.
enum Step {
    Next,
    Stop,
    Paused,
    Close,
}

/// A result set waiting for the client to read, and what follows it.
struct PausedResult {
    rest: std::collections::VecDeque<String>,
    binary: bool,
}

/// Output buffer size at which a pausable result set pauses.
pub const PAUSE_AT: usize = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Handshake,
    /// Waiting for the client's answer to an AuthSwitchRequest.
    AuthSwitch,
    Command,
}

/// Login details kept across an auth switch.
struct PendingLogin {
    account: Option<std::sync::Arc<Account>>,
    username: String,
    database: Option<String>,
    plugin: &'static str,
    change_user: bool,
}

struct Stmt {
    /// Shared so an execute does not copy the text or the column list.
    sql: Arc<str>,
    params: usize,
    columns: Arc<[Column]>,
    /// `front::is_direct_engine` of the text, decided at prepare.
    direct: bool,
    types: Vec<ParamType>,
    long_data: Vec<Option<Vec<u8>>>,
    /// Bytes held in `long_data`, at most max_allowed_packet for the whole
    /// statement (`add_long_data`).
    long_data_bytes: usize,
    /// More long data arrived than max_allowed_packet allows: what was sent is
    /// dropped and the next execute fails (ERR 1105, as MariaDB).
    long_data_over: bool,
}

impl Stmt {
    /// COM_STMT_SEND_LONG_DATA: append to parameter `param`, unless the
    /// statement's long data would pass `max` bytes; then everything buffered
    /// is freed and further chunks are ignored until the execute (or
    /// COM_STMT_RESET), so memory stays bounded however much the client sends.
    fn add_long_data(&mut self, param: usize, data: &[u8], max: usize) {
        if self.long_data_over || param >= self.long_data.len() {
            return;
        }
        if self.long_data_bytes + data.len() > max {
            self.long_data_over = true;
            self.clear_long_data();
            return;
        }
        self.long_data_bytes += data.len();
        self.long_data[param].get_or_insert_with(Vec::new).extend_from_slice(data);
    }

    /// Forget the long data (after an execute or COM_STMT_RESET), keeping `long_data_over`.
    fn clear_long_data(&mut self) {
        self.long_data.iter_mut().for_each(|d| *d = None);
        self.long_data_bytes = 0;
    }
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

thread_local! {
    /// Each thread's parameter vector for COM_STMT_EXECUTE (see `execute_prepared`).
    static EXEC_PARAMS: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `EXEC_PARAMS` keeps at most this many parameters' room.
const EXEC_PARAMS_KEEP: usize = 256;

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
}

impl Session {
    /// Build a session on the connection's own thread and register it.
    pub fn new(server: Arc<Server>, peer: Peer, addr: Option<std::net::SocketAddr>, admin_port: bool, fd: std::os::fd::RawFd) -> Session {
        let id = server.registry.next_id();
        let handle = Arc::new(Handle::new(id, addr, admin_port, fd));
        server.registry.insert(handle.clone());
        let probe_handle = handle.clone();
        if server.config.statistics {
            server.stats.connections.inc();
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
        }
    }

    /// Configure for a non-blocking driver: results pause when output backs up,
    /// and blocking waits are reported to `waits`.
    pub fn set_scheduler_hooks(&mut self, pausable: bool, waits: &'static (dyn WaitHook + Sync)) {
        self.pausable = pausable;
        self.waits = waits;
    }

    /// At login and reset: a READ COMMITTED (or READ UNCOMMITTED) global
    /// transaction_isolation becomes the session's, as MySQL copies globals at
    /// login. The default, REPEATABLE-READ, is the engine's own: one atomic load.
    fn apply_global_isolation(&mut self) {
        if !self.server.globals.weak_isolation.load(Ordering::Relaxed) {
            return;
        }
        let Some(def) = turnstile_sql::vars::lookup("transaction_isolation") else { return };
        let Some(level) = turnstile_sql::vars::isolation_level(&self.server.globals.get(def)) else { return };
        if let Some(e) = self.engine.as_mut() {
            front::set_session_isolation(&mut self.sql, e.as_mut(), level);
        }
    }

    pub fn in_transaction(&self) -> bool {
        self.engine.as_ref().is_some_and(|e| e.in_transaction())
    }

    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    pub fn id(&self) -> u32 {
        self.handle.id
    }

    pub fn server(&self) -> &Server {
        &self.server
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
        let mut s = 0;
        if self.sql.autocommit {
            s |= status::AUTOCOMMIT;
        }
        if self.engine.as_ref().is_some_and(|e| e.in_transaction()) {
            s |= status::IN_TRANS;
        }
        s
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
        if n > limit {
            if reg.evict_oldest_login(admin_port, self.id()) {
                // The evicted connection's slot is ours; it does not release it.
                count.fetch_sub(1, Ordering::AcqRel);
            } else {
                // The client listeners' extra slot is for an administrator.
                over = admin_port || n > limit + 1;
            }
        }
        if over || self.server.is_shutting_down() {
            self.server.stats.connection_errors_max_connections.inc();
            self.server.stats.aborted_connects.inc();
            let e = if over { SqlError::too_many_connections() } else { SqlError::server_shutdown() };
            self.seq = 0;
            self.send_err(out, &e);
            return Flow::Close;
        }
        reg.login_pending(&self.handle);
        self.seq = 0;
        let scramble = self.scramble;
        let g = Greeting {
            server_version: SERVER_VERSION,
            connection_id: self.id(),
            scramble: &scramble,
            capabilities: cap::SERVER_DEFAULT,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            status: status::AUTOCOMMIT,
            auth_plugin: auth::CACHING_SHA2,
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
        // `seq` is the id of the last physical packet; the first one's is checked.
        let physical = payload.len() / turnstile_wire::consts::MAX_PACKET_PAYLOAD + 1;
        if seq.wrapping_sub((physical - 1) as u8) != self.expected_seq() {
            return self.packets_out_of_order(out);
        }
        self.seq = seq.wrapping_add(1);
        match self.phase {
            Phase::Handshake => self.on_handshake(payload, out),
            Phase::AuthSwitch => self.on_auth_switch(payload, out),
            Phase::Command => self.guarded(out, |s, out| s.on_command(payload, out, flush)),
        }
    }

    /// The sequence id the client's next packet must start with.
    fn expected_seq(&self) -> u8 {
        match self.phase {
            Phase::Command => 0,
            // After the greeting or an auth switch request: one past ours.
            Phase::Handshake | Phase::AuthSwitch => self.seq,
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
        if self.handle.login.load(Ordering::Acquire) != login::EVICTED {
            return false;
        }
        self.server.stats.connection_errors_max_connections.inc();
        // The client answers the greeting (or auth switch) with `seq`; a reply to that is one more.
        self.seq = self.expected_seq().wrapping_add(1);
        self.send_err(out, &SqlError::too_many_connections());
        true
    }

    fn login_failed(&mut self, out: &mut Vec<u8>, user: &str, token_given: bool) -> Flow {
        self.server.stats.aborted_connects.inc();
        let host = if self.peer.local && self.peer.ip == "localhost" { "localhost".to_string() } else { self.peer.ip.clone() };
        let e = SqlError::access_denied(user, &host, token_given);
        self.send_err(out, &e);
        Flow::Close
    }

    fn bad_handshake(&mut self, out: &mut Vec<u8>) -> Flow {
        self.server.stats.aborted_connects.inc();
        self.send_err(out, &SqlError::new(1043, "08S01", "Bad handshake"));
        Flow::Close
    }

    fn on_handshake(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Flow {
        if HandshakeResponse::is_ssl_request(payload) {
            // We never offer CLIENT_SSL; a client asking anyway gets a clear refusal.
            self.server.stats.aborted_connects.inc();
            self.send_err(out, &SqlError::new(1043, "08S01", "Bad handshake: this server does not offer SSL/TLS"));
            return Flow::Close;
        }
        let resp = match HandshakeResponse::decode(payload) {
            Ok(r) => r,
            Err(_) => return self.bad_handshake(out),
        };
        self.caps = (resp.capabilities & cap::SERVER_DEFAULT) | cap::PROTOCOL_41;
        self.sql.interactive = resp.capabilities & cap::INTERACTIVE != 0;
        self.multi_statements = resp.capabilities & cap::MULTI_STATEMENTS != 0;
        let plugin = match resp.auth_plugin.as_deref() {
            None => auth::NATIVE,
            Some(auth::NATIVE) => auth::NATIVE,
            Some(auth::CACHING_SHA2) => auth::CACHING_SHA2,
            Some(_) => "",
        };
        let account = self.server.accounts.find(&resp.username, &self.peer);
        self.authenticate(PendingLogin { account, username: resp.username, database: resp.database, plugin, change_user: false }, &resp.auth_response, out)
    }

    /// Check the token, or switch the client to the account's plugin first.
    fn authenticate(&mut self, login: PendingLogin, token: &[u8], out: &mut Vec<u8>) -> Flow {
        let Some(account) = &login.account else {
            return self.login_failed(out, &login.username, !token.is_empty());
        };
        let want: &'static str = if account.plugin == auth::NATIVE { auth::NATIVE } else { auth::CACHING_SHA2 };
        if login.plugin != want {
            let scramble = self.scramble;
            self.packet(out, |o| encode_auth_switch(o, want, &scramble));
            self.pending = Some(PendingLogin { plugin: want, ..login });
            self.phase = Phase::AuthSwitch;
            return Flow::Continue;
        }
        if !account.verify(want, &self.scramble, token) {
            let user = login.username.clone();
            return self.login_failed(out, &user, !token.is_empty());
        }
        if want == auth::CACHING_SHA2 && account.has_password() {
            // Fast path: the scramble proved the password; no RSA, no TLS.
            self.packet(out, |o| encode_auth_more_data(o, &[auth::FAST_AUTH_SUCCESS]));
        }
        self.finish_login(login, out)
    }

    fn on_auth_switch(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Flow {
        let Some(login) = self.pending.take() else { return self.bad_handshake(out) };
        let Some(account) = &login.account else { return self.bad_handshake(out) };
        if !account.verify(login.plugin, &self.scramble, payload) {
            let user = login.username.clone();
            return self.login_failed(out, &user, !payload.is_empty());
        }
        if login.plugin == auth::CACHING_SHA2 && account.has_password() {
            self.packet(out, |o| encode_auth_more_data(o, &[auth::FAST_AUTH_SUCCESS]));
        }
        self.finish_login(login, out)
    }

    fn finish_login(&mut self, login: PendingLogin, out: &mut Vec<u8>) -> Flow {
        let account = login.account.expect("checked by caller");
        let admin = account.privileges(None) & privs::ADMIN != 0;
        if self.handle.admin_port && !admin {
            self.server.stats.aborted_connects.inc();
            self.send_err(out, &SqlError::specific_access_denied("SERVICE_CONNECTION_ADMIN"));
            return Flow::Close;
        }
        if !login.change_user && !self.claim_login_slot(admin) {
            self.server.stats.aborted_connects.inc();
            self.server.stats.connection_errors_max_connections.inc();
            self.send_err(out, &SqlError::too_many_connections());
            return Flow::Close;
        }
        if login.change_user {
            if let Some(e) = self.engine.as_mut() {
                e.reset();
            }
            self.sql.reset();
            self.stmts.clear();
            self.sql.db = None;
        }
        self.sql.user = login.username;
        self.sql.host = if self.peer.ip == "localhost" { "localhost".into() } else { self.peer.ip.clone() };
        self.sql.account_user = account.user.clone();
        self.sql.account_host = account.host.clone();
        self.sql.priv_cache = None;
        self.sql.apply_login_defaults(&self.server.globals);
        if self.engine.is_none() {
            match self.server.engine.open_session() {
                Ok(e) => self.engine = Some(e),
                Err(e) => {
                    self.send_err(out, &e);
                    return Flow::Close;
                }
            }
        }
        let found_rows = self.caps & cap::FOUND_ROWS != 0;
        self.engine.as_mut().expect("opened above").set_found_rows(found_rows);
        self.apply_global_isolation();
        if let Some(db) = &login.database {
            let engine = self.engine.as_mut().expect("opened above");
            if let Err(e) = front::use_database(&mut self.sql, engine.as_mut(), &*self.server, db) {
                self.server.stats.aborted_connects.inc();
                self.send_err(out, &e);
                return Flow::Close;
            }
        }
        self.phase = Phase::Command;
        self.authenticated = true;
        let (user, db) = (self.sql.user.clone(), self.sql.db.clone());
        self.handle.set_info(|i| {
            i.user = user;
            i.db = db;
            i.command = "Sleep";
            i.state = "";
            i.since = std::time::Instant::now();
        });
        self.send_ok(out, 0, 0, 0, false);
        Flow::Continue
    }

    /// At the first login: leave PENDING (so nobody can evict us any more)
    /// and, on the client listeners, take a logged-in slot: max_connections of
    /// them, one more for an administrator. False: no slot (ERR 1040), or the
    /// slot was already given to a newer connection.
    fn claim_login_slot(&mut self, admin: bool) -> bool {
        let reg = &self.server.registry;
        if reg.login_leave(&self.handle, login::DONE) == login::EVICTED {
            return false;
        }
        if self.counted_admin_port {
            return true;
        }
        let limit = self.server.max_connections() + admin as u64;
        if reg.logged_in.fetch_add(1, Ordering::AcqRel) + 1 > limit {
            reg.logged_in.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        self.counted_login = true;
        true
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
                            self.packet(out, |o| c.encode_for_field_list(o));
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
                if let Some(e) = self.engine.as_mut() {
                    e.reset();
                }
                let db = self.sql.db.clone();
                self.sql.reset();
                self.sql.db = db;
                self.sql.apply_login_defaults(&self.server.globals);
                self.apply_global_isolation();
                self.stmts.clear();
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
                match statement_text(sql) {
                    Ok(sql) => self.prepare(sql.into_owned(), out),
                    Err(e) => self.send_err(out, &e),
                }
                Flow::Continue
            }
            Command::StmtExecute { statement_id, rest, .. } => {
                if stats {
                    self.server.stats.com_stmt_execute.inc();
                    self.server.stats.questions.inc();
                }
                self.execute_prepared(statement_id, rest, out, flush)
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
                        self.send_ok(out, 0, 0, 0, false);
                    }
                    None => self.send_err(out, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_reset")),
                }
                Flow::Continue
            }
            Command::StmtFetch { .. } => {
                self.send_err(out, &SqlError::unsupported("cursors (COM_STMT_FETCH)"));
                Flow::Continue
            }
            Command::Sleep | Command::Unknown(_) => {
                self.send_err(out, &SqlError::unknown_command());
                Flow::Continue
            }
        }
    }

    fn begin_command(&mut self, command: &'static str, text: &str) {
        if self.server.config.statistics {
            self.server.stats.threads_running.inc();
        }
        self.handle.killed.store(false, Ordering::Relaxed);
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
        self.handle.set_info(|i| {
            i.command = "Sleep";
            i.state = "";
            i.query_active = false;
            i.since = std::time::Instant::now();
        });
    }

    /// COM_QUERY, possibly several statements.
    fn run_query(&mut self, sql: &str, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        if self.multi_statements && sql.contains(';') {
            let mut stmts: std::collections::VecDeque<String> = turnstile_engine::lex::split_statements(sql).into_iter().map(str::to_string).collect();
            let first = stmts.pop_front().unwrap_or_default();
            self.run_statements(&first, stmts, out, flush)
        } else {
            // The common case: one statement, run from the packet without a copy.
            self.run_statements(sql, Default::default(), out, flush)
        }
    }

    /// Run `first`, then `rest`, in order until one fails or pauses.
    fn run_statements(&mut self, first: &str, mut rest: std::collections::VecDeque<String>, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let mut owned;
        let mut stmt: &str = first;
        loop {
            if self.server.config.statistics {
                self.server.stats.questions.inc();
            }
            let more = !rest.is_empty();
            let result = self.run_statement(stmt, &[], false, &[], false, out, flush);
            match self.finish_statement(result, more, out) {
                Step::Next => {}
                Step::Stop => break,
                Step::Paused => {
                    self.paused = Some(PausedResult { rest, binary: false });
                    return Flow::Paused;
                }
                Step::Close => {
                    self.end_command();
                    return Flow::Close;
                }
            }
            match rest.pop_front() {
                Some(next) => {
                    owned = next;
                    stmt = &owned;
                }
                None => break,
            }
        }
        self.end_command();
        Flow::Continue
    }

    /// Continue a paused result set once the client has read some output.
    pub fn resume(&mut self, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        self.guarded(out, |s, out| s.resume_inner(out, flush))
    }

    /// Run a command with panics caught: a bug anywhere in the front or the
    /// session (the engine catches its own) ends this connection with ERR
    /// 1105, not the worker thread serving it and every other connection
    /// queued on it. The panic hook (`panics.rs`) logs it once, briefly.
    fn guarded(&mut self, out: &mut Vec<u8>, f: impl FnOnce(&mut Session, &mut Vec<u8>) -> Flow) -> Flow {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self, out))) {
            Ok(flow) => flow,
            Err(_) => {
                out.clear();
                self.seq = 1;
                self.paused = None;
                self.send_err(out, &SqlError::internal("internal error; the connection is closed"));
                Flow::Close
            }
        }
    }

    fn resume_inner(&mut self, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let Some(p) = self.paused.take() else { return Flow::Continue };
        let result = {
            let deprecate_eof = self.deprecate_eof();
            let engine = self.engine.as_mut().expect("authenticated");
            // The paused result's row format (its column types) carries on.
            let format = std::mem::take(&mut self.row_format);
            let mut sink = WireSink::new(out, &mut self.seq, deprecate_eof, p.binary, format, flush, 0, self.pausable);
            sink.sent_columns = true;
            let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe).with_deadline(self.sql.deadline_ms, self.sql.deadline_kind);
            let r = engine.resume(&ctx, &mut sink);
            let r = if sink.io_error.is_some() { Err(None) } else { r.map_err(Some) };
            self.row_format = std::mem::take(&mut sink.format);
            (r, true)
        };
        let more = !p.rest.is_empty();
        match self.finish_statement(result, more, out) {
            Step::Paused => {
                self.paused = Some(p);
                Flow::Paused
            }
            Step::Close => {
                self.end_command();
                Flow::Close
            }
            Step::Stop => {
                self.end_command();
                Flow::Continue
            }
            Step::Next => {
                let mut rest = p.rest;
                match rest.pop_front() {
                    Some(next) if !p.binary => self.run_statements(&next, rest, out, flush),
                    _ => {
                        self.end_command();
                        Flow::Continue
                    }
                }
            }
        }
    }

    /// Drop a paused result (client gone or killed).
    pub fn cancel_paused(&mut self) {
        if self.paused.take().is_some() {
            if let Some(e) = self.engine.as_mut() {
                e.cancel_paused();
            }
            self.end_command();
        }
    }

    /// Write the end of one statement's response; decide what happens next.
    fn finish_statement(&mut self, result: (Result<Outcome, Option<SqlError>>, bool), more: bool, out: &mut Vec<u8>) -> Step {
        let (result, sent_columns) = result;
        if self.sql.kill_self || self.handle.kill_connection.load(Ordering::Relaxed) {
            self.sql.kill_self = false;
            if let Some(e) = self.engine.as_mut() {
                e.cancel_paused();
            }
            out.clear();
            self.seq = 1;
            self.send_err(out, &SqlError::query_interrupted());
            return Step::Close;
        }
        let st = self.status_flags() | if more { status::MORE_RESULTS_EXISTS } else { 0 };
        match result {
            Err(None) => Step::Close,
            Ok(Outcome::Paused) => Step::Paused,
            Ok(Outcome::Rows) => {
                if !sent_columns {
                    // An engine that streamed nothing still owes a well-formed reply.
                    self.send_ok(out, 0, 0, 0, more);
                } else if self.deprecate_eof() {
                    self.packet(out, |o| encode_ok(o, 0xfe, 0, 0, st, 0, ""));
                } else {
                    self.packet(out, |o| encode_eof(o, 0, st));
                }
                Step::Next
            }
            Ok(Outcome::Done(d)) => {
                self.send_ok_info(out, d.affected_rows, d.last_insert_id, d.warnings, &d.info, more);
                Step::Next
            }
            Err(Some(e)) => {
                self.send_err(out, &e);
                Step::Stop
            }
        }
    }

    /// Run one statement, streaming its rows. `direct`: a prepared statement's
    /// `front::is_direct_engine`. `Err(None)` means the socket failed.
    #[allow(clippy::too_many_arguments)]
    fn run_statement(&mut self, sql: &str, params: &[Value], binary: bool, columns: &[Column], direct: bool, out: &mut Vec<u8>, flush: &mut Flush<'_>) -> (Result<Outcome, Option<SqlError>>, bool) {
        let deprecate_eof = self.deprecate_eof();
        let status_before = self.status_flags();
        let engine = self.engine.as_mut().expect("authenticated");
        // A prepared statement's known columns set the format up front; the
        // engine's column definitions (if it sends them) set it again.
        let mut format = std::mem::take(&mut self.row_format);
        set_row_format(&mut format, binary, columns);
        let mut sink = WireSink::new(out, &mut self.seq, deprecate_eof, binary, format, flush, status_before, self.pausable);
        let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe);
        let mut call = Call { sess: &mut self.sql, engine: engine.as_mut(), ops: &*self.server, ctx: &ctx, params };
        let result = if direct { front::execute_direct(&mut call, sql, &mut sink) } else { front::execute(&mut call, sql, &mut sink) };
        let sent_columns = sink.sent_columns;
        self.row_format = std::mem::take(&mut sink.format);
        if sink.io_error.is_some() {
            return (Err(None), sent_columns);
        }
        (result.map_err(Some), sent_columns)
    }

    fn prepare(&mut self, sql: String, out: &mut Vec<u8>) {
        if self.stmts.len() >= self.server.config.max_prepared_stmt_count as usize {
            let e = SqlError::new(1461, "42000", format!("Can't create more than max_prepared_stmt_count statements (current value: {})", self.server.config.max_prepared_stmt_count));
            self.send_err(out, &e);
            return;
        }
        let params = match turnstile_engine::lex::count_params(&sql) {
            Ok(n) => n,
            Err(e) => {
                self.send_err(out, &SqlError::syntax(&sql[e.at..]));
                return;
            }
        };
        if params > u16::MAX as usize {
            self.send_err(out, &SqlError::new(1390, "HY000", "Prepared statement contains too many placeholders"));
            return;
        }
        let kw = turnstile_engine::lex::first_keyword(&sql);
        if kw.is_empty() {
            self.send_err(out, &SqlError::empty_query());
            return;
        }
        if !front::is_statement_keyword(&kw) {
            self.send_err(out, &SqlError::syntax(sql.trim_start()));
            return;
        }
        // Result columns: the engine describes its own statements; session
        // statements describe theirs when executed. DML is compiled now too, so
        // a syntax error or an unknown table or column is reported by PREPARE
        // (1064/1146/1054), as MySQL does, not by the first EXECUTE.
        let engine_prepares = matches!(kw.as_str(), "SELECT" | "SHOW" | "DESCRIBE" | "DESC" | "EXPLAIN" | "WITH" | "INSERT" | "REPLACE" | "UPDATE" | "DELETE");
        let columns = if engine_prepares && self.engine_bound(&sql) {
            match front::prepare(&mut self.sql, self.engine.as_mut().expect("authenticated").as_mut(), &*self.server, &sql) {
                Ok(p) => p.columns,
                Err(e) => {
                    self.send_err(out, &e);
                    return;
                }
            }
        } else {
            Vec::new()
        };
        let id = self.next_stmt_id;
        self.next_stmt_id = self.next_stmt_id.wrapping_add(1).max(1);
        let deprecate_eof = self.deprecate_eof();
        let (ncols, nparams) = (columns.len() as u16, params as u16);
        self.packet(out, |o| {
            o.push(0);
            o.extend_from_slice(&id.to_le_bytes());
            o.extend_from_slice(&ncols.to_le_bytes());
            o.extend_from_slice(&nparams.to_le_bytes());
            o.push(0);
            o.extend_from_slice(&0u16.to_le_bytes());
        });
        let st = self.status_flags();
        if params > 0 {
            let p = Column::computed("?", turnstile_wire::consts::coltype::VAR_STRING);
            for _ in 0..params {
                self.packet(out, |o| p.encode(o));
            }
            if !deprecate_eof {
                self.packet(out, |o| encode_eof(o, 0, st));
            }
        }
        if !columns.is_empty() {
            for c in &columns {
                self.packet(out, |o| c.encode(o));
            }
            if !deprecate_eof {
                self.packet(out, |o| encode_eof(o, 0, st));
            }
        }
        self.stmts.insert(
            id,
            Stmt {
                direct: front::is_direct_engine(&sql),
                sql: sql.into(),
                params,
                columns: columns.into(),
                types: Vec::new(),
                long_data: vec![None; params],
                long_data_bytes: 0,
                long_data_over: false,
            },
        );
    }

    /// Does this statement go to the engine (rather than being answered by the front)?
    fn engine_bound(&self, sql: &str) -> bool {
        let Ok(toks) = turnstile_engine::lex::tokenize(sql) else { return false };
        match turnstile_engine::lex::first_keyword(sql).as_str() {
            "SELECT" => front::has_table(&toks),
            "SHOW" => !toks
                .iter()
                .any(|t| ["VARIABLES", "STATUS", "PROCESSLIST", "DATABASES", "SCHEMAS", "GRANTS", "WARNINGS", "ERRORS", "ENGINES", "COLLATION", "CHARACTER", "CHARSET"].iter().any(|k| t.is_kw(k))),
            _ => true,
        }
    }

    fn execute_prepared(&mut self, id: u32, rest: &[u8], out: &mut Vec<u8>, flush: &mut Flush<'_>) -> Flow {
        let Some(st) = self.stmts.get_mut(&id) else {
            self.send_err(out, &SqlError::unknown_stmt_handler(id, "mysqld_stmt_execute"));
            return Flow::Continue;
        };
        if std::mem::take(&mut st.long_data_over) {
            st.clear_long_data();
            let e = SqlError::new(1105, "HY000", "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes");
            self.send_err(out, &e);
            return Flow::Continue;
        }
        // The thread's parameter vector, reused by every execute it runs
        // (the engine copies what it binds).
        let mut params = EXEC_PARAMS.with_borrow_mut(std::mem::take);
        let decoded = decode_execute_params_into(rest, st.params, &mut st.types, &mut st.long_data, &mut params);
        // The execute consumed the long data (what it did not take is dropped too).
        st.clear_long_data();
        if decoded.is_err() {
            self.send_err(out, &SqlError::wrong_arguments("mysqld_stmt_execute"));
            return Flow::Continue;
        }
        let (sql, columns, direct) = (Arc::clone(&st.sql), Arc::clone(&st.columns), st.direct);
        self.begin_command("Execute", &sql);
        let result = self.run_statement(&sql, &params, true, &columns, direct, out, flush);
        params.clear();
        if params.capacity() <= EXEC_PARAMS_KEEP {
            EXEC_PARAMS.with_borrow_mut(|slot| *slot = params);
        }
        match self.finish_statement(result, false, out) {
            Step::Paused => {
                self.paused = Some(PausedResult { rest: Default::default(), binary: true });
                Flow::Paused
            }
            Step::Close => {
                self.end_command();
                Flow::Close
            }
            Step::Next | Step::Stop => {
                self.end_command();
                Flow::Continue
            }
        }
    }

    fn change_user(&mut self, cu: ChangeUser, out: &mut Vec<u8>) -> Flow {
        let plugin = match cu.auth_plugin.as_deref() {
            None | Some(auth::NATIVE) => auth::NATIVE,
            Some(auth::CACHING_SHA2) => auth::CACHING_SHA2,
            Some(_) => "",
        };
        let account = self.server.accounts.find(&cu.username, &self.peer);
        self.phase = Phase::Handshake;
        self.authenticated = false;
        let login = PendingLogin { account, username: cu.username, database: cu.database, plugin, change_user: true };
        self.authenticate(login, &cu.auth_response, out)
    }

    /// Tear down: unregister and release the connection slot.
    /// The connection should be closed with an RST: the client said COM_QUIT
    /// and `reset_after_quit` is on (see `Stream::reset_on_close`).
    pub fn close_with_reset(&self) -> bool {
        self.quit && self.server.config.reset_after_quit
    }

    pub fn finish(&mut self) {
        self.handle.detach_socket();
        if let Some(mut e) = self.engine.take() {
            e.cancel_paused();
            if e.in_transaction() {
                let ctx = ExecContext::new(self.waits, &self.handle.killed, &self.probe);
                let _ = e.rollback(&ctx);
            }
        }
        let reg = &self.server.registry;
        reg.remove(self.handle.id);
        // An evicted connection's slot now belongs to the one that evicted it.
        let evicted = reg.login_leave(&self.handle, login::GONE) == login::EVICTED;
        if self.counted && !evicted {
            let count = if self.counted_admin_port { &reg.admin_connected } else { &reg.connected };
            count.fetch_sub(1, Ordering::AcqRel);
        }
        if self.counted_login {
            reg.logged_in.fetch_sub(1, Ordering::AcqRel);
        }
        if self.authenticated && !self.quit {
            self.server.stats.aborted_clients.inc();
        }
    }
}

/// Streams a result set into the output buffer, flushing as it fills.
/// What a result's rows need from its column definitions.
#[derive(Default)]
struct RowFormat {
    /// Column types of the result, for binary rows.
    coltypes: Vec<u8>,
    /// Fractional-second digits per column for text rows (see `text_fsp`).
    fsp: Vec<u8>,
}

struct WireSink<'a, 'f> {
    out: &'a mut Vec<u8>,
    seq: &'a mut u8,
    deprecate_eof: bool,
    binary: bool,
    format: RowFormat,
    sent_columns: bool,
    flush: &'a mut Flush<'f>,
    io_error: Option<io::Error>,
    status: u16,
    pausable: bool,
}

impl<'a, 'f> WireSink<'a, 'f> {
    #[allow(clippy::too_many_arguments)]
    fn new(out: &'a mut Vec<u8>, seq: &'a mut u8, deprecate_eof: bool, binary: bool, format: RowFormat, flush: &'a mut Flush<'f>, status: u16, pausable: bool) -> Self {
        WireSink { out, seq, deprecate_eof, binary, format, sent_columns: false, flush, io_error: None, status, pausable }
    }

    fn packet(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let start = begin_packet(self.out);
        f(self.out);
        end_packet(self.out, start, self.seq);
    }

    /// After the column definitions: the EOF packet (unless DEPRECATE_EOF) and
    /// the row format for the rows that follow.
    fn columns_end(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        if !self.deprecate_eof {
            let st = self.status;
            self.packet(|o| encode_eof(o, 0, st));
        }
        set_row_format(&mut self.format, self.binary, columns);
        self.sent_columns = true;
        self.maybe_flush()
    }

    fn maybe_flush(&mut self) -> Result<(), SqlError> {
        if self.out.len() >= FLUSH_AT {
            if let Err(e) = (self.flush)(self.out) {
                self.io_error = Some(e);
                return Err(SqlError::new(1160, "08S01", "Got an error writing communication packets"));
            }
        }
        Ok(())
    }
}

/// Fill `format` for a result with `columns` (reusing its buffers): column
/// types for binary rows, fractional-second digits for text rows.
fn set_row_format(format: &mut RowFormat, binary: bool, columns: &[Column]) {
    if binary {
        format.coltypes.clear();
        format.coltypes.extend(columns.iter().map(|c| c.coltype));
    } else {
        format.fsp = text_fsp(columns);
    }
}

impl RowSink for WireSink<'_, '_> {
    fn columns(&mut self, columns: &[Column]) -> Result<(), SqlError> {
        self.packet(|o| encode_column_count(o, columns.len()));
        for c in columns {
            self.packet(|o| c.encode(o));
        }
        self.columns_end(columns)
    }

    fn columns_encoded(&mut self, columns: &[Column], encoded: &EncodedColumns) -> Result<(), SqlError> {
        self.packet(|o| encode_column_count(o, columns.len()));
        for payload in encoded.payloads() {
            self.packet(|o| o.extend_from_slice(payload));
        }
        self.columns_end(columns)
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        let format = std::mem::take(&mut self.format);
        if self.binary {
            self.packet(|o| encode_binary_row_typed(o, format.coltypes.iter().copied(), row));
        } else {
            self.packet(|o| encode_text_row(o, row, &format.fsp));
        }
        self.format = format;
        self.maybe_flush()
    }

    fn wants_pause(&self) -> bool {
        self.pausable && self.out.len() >= PAUSE_AT
    }
}
