//! One client session through the upstream engine: the state it keeps
//! (user, schema, system variables it set, LAST_INSERT_ID, why it is
//! pinned) and each command run on a borrowed backend connection.
//!
//! A command: borrow a connection (the session's own while it is pinned),
//! bring it to the session's state (one batched SET for the variables that
//! differ, COM_SET_OPTION for multi-statements, COM_INIT_DB for the schema;
//! each only where it differs), send the client's packet as it came, pass
//! the answer through (`forward`), learn what it changed from the
//! session-state tracker and the statement's shape (`classify`), and give
//! the connection back unless the session now holds state on it.
//! Binary-protocol prepared statements: `prepared.rs`; bringing a
//! connection to the session's state and learning what an answer changed:
//! `state.rs`.

use crate::backend::{err_parts, Backend, BackendError, Login, Watch};
use crate::classify::{pin, Shape};
use crate::forward::{Forward, Step as Pumped};
use crate::local;
use crate::pool::{Handed, LendError, Lent, Waiter, Wake};
use crate::Upstream;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use turnstile_engine::{SqlError, WaitHook};
use turnstile_wire::consts::{com, status};
use turnstile_wire::packet::{begin_packet, end_packet};
use turnstile_wire::response::encode_err;

mod prepared;
mod state;

use prepared::{Exec, PStmt};

/// What the session's I/O loop lends a command.
pub struct Io<'a, 'f> {
    pub waits: &'static (dyn WaitHook + Sync),
    pub flush: &'a mut (dyn FnMut(&mut Vec<u8>) -> io::Result<()> + 'f),
    /// Results may pause when the buffer fills (pool-of-threads).
    pub pausable: bool,
    /// The backend thread running this session's statement (0: none), for KILL.
    pub running: &'a AtomicU32,
    pub multi_statements: bool,
    pub deprecate_eof: bool,
    /// The client may be asked for a LOCAL INFILE file (it offered
    /// CLIENT_LOCAL_FILES and Turnstile's local_infile is ON).
    pub local_files: bool,
    /// Resumes the session (pool-of-threads): with it, a statement that
    /// finds no free backend connection is queued (`Step::Waiting`) instead
    /// of blocking its thread.
    pub wake: Option<&'a Wake>,
    /// SHOW STATUS rows that describe the client's own connection to
    /// Turnstile (its TLS: `Ssl_version`, `Ssl_cipher`, the accept counts),
    /// not the backend's; `true`: GLOBAL. Called only for SHOW STATUS.
    pub front_status: &'a dyn Fn(bool) -> Vec<(String, String)>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Done,
    /// A result waits for the client to read: call `resume` when it has.
    Paused,
    /// The backend has not answered yet (only when `Io::pausable`): call
    /// `resume` when `waiting_for()` says.
    Waiting,
    /// The backend asked for a LOCAL INFILE file and the request is in
    /// `out`: the client's next packets (from sequence id `file_seq()`) go
    /// to `file_packet`, up to its empty one.
    File,
}

/// A statement whose answer is still coming: paused (the client's buffer
/// is full) or waiting (the backend has not sent the rest yet). The
/// connection is the session's (`Proxy::conn`) until the answer is in.
struct InFlight {
    fwd: Forward,
    shape: Option<Shape>,
    lent: bool,
    /// Nothing pinned, a read, not a prepared statement's execute: may run
    /// again on a fresh connection if this one dies before answering.
    retry_safe: bool,
    /// What to send again then (kept only once the statement waits).
    retry: Option<(Vec<u8>, Kind)>,
    /// Waiting for the backend (else paused for the client).
    waiting: bool,
    /// The sequence id of the next file packet to the backend (`Step::File`).
    file_seq: u8,
    /// What the answer settles once it is in.
    after: After,
}

/// What an answer settles besides the session's state (`Proxy::learn`).
enum After {
    Nothing,
    /// A COM_STMT_EXECUTE with a cursor type or a COM_STMT_FETCH of the
    /// session's statement: is its cursor open now?
    Cursor(u32),
    /// A COM_STMT_PREPARE: the statement the session gets under `id`.
    Prepared {
        id: u32,
        sql: String,
        shape: Shape,
    },
}

/// A statement queued for a backend connection (`Step::Waiting` with no
/// socket to wait for: the pool calls `Io::wake`).
enum Queued {
    Command { payload: Vec<u8>, shape: Option<Shape>, kind: Kind, how: Start },
    Execute { exec: Exec, shape: Shape },
}

/// What the session waits for (`Proxy::waiting_for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Its backend connection's socket to become readable.
    Socket(std::os::fd::RawFd),
    /// A backend connection (`Io::wake` is called when it was handed one).
    Checkout,
}

pub struct Proxy {
    up: Arc<Upstream>,
    login: Login,
    found_rows: bool,
    schema: Option<String>,
    /// System variables the session set (name → value, as the backend reports them).
    vars: HashMap<String, String>,
    pins: u16,
    conn: Option<Backend>,
    last_insert_id: u64,
    /// Rows of the last result (FOUND_ROWS() without SQL_CALC_FOUND_ROWS).
    last_rows: u64,
    /// ROW_COUNT(): what the session's last statement affected; -1 after a
    /// result set or an error.
    row_count: i64,
    stmts: HashMap<u32, PStmt>,
    next_stmt_id: u32,
    /// Statements (session ids) with a cursor open on the session's
    /// connection (`pin::CURSOR` while any is).
    cursors: Vec<u32>,
    /// The session ran an XA statement: leaving inside a transaction closes
    /// its connection instead of resetting it (`release_all`).
    xa: bool,
    in_flight: Option<InFlight>,
    /// Queued for a connection: the ticket and the statement.
    queued: Option<(Arc<Waiter>, Queued)>,
    /// A connection handed to the session while it was queued, for the
    /// statement it resumes.
    handed: Option<Backend>,
    /// The character set variables of the client's handshake.
    login_charset: Vec<(String, String)>,
    /// The client, watched during long backend waits.
    watch: Option<Arc<Watch>>,
    /// Turnstile's id of this session (CONNECTION_ID(), KILL).
    pub connection_id: u32,
    /// The conditions of the session's last statement (SHOW WARNINGS):
    /// read from the connection that ran it before it is given back.
    diag: Vec<local::Condition>,
    /// How many conditions it raised (@@warning_count: also those past the
    /// backend's max_error_count, which SHOW WARNINGS does not list).
    diag_count: u64,
}

fn lost() -> SqlError {
    SqlError::new(2013, "HY000", "Lost connection to backend server during query")
}

fn lend_error(up: &Upstream, e: LendError) -> SqlError {
    let w = up.writer();
    match e {
        LendError::Connect(BackendError::Err { code, message, .. }) => SqlError::new(code, "HY000", message),
        LendError::Connect(e) => SqlError::new(2003, "HY000", format!("Can't connect to backend server '{}' ({})", w.name, e)),
        LendError::Down => SqlError::new(2003, "HY000", format!("Can't connect to backend server '{}' (it was down less than upstream_retry_interval_ms ago)", w.name)),
        LendError::Timeout => SqlError::new(1040, "08004", format!("Too many connections: all {} backend connections stayed busy for upstream_checkout_timeout_ms", up.writer().max())),
    }
}

/// The variables a handshake's collation sets (none for the backend
/// connections' own, utf8mb4_general_ci).
fn login_charset(collation: Option<(&str, &str)>) -> Vec<(String, String)> {
    let mut vars = Vec::new();
    if let Some((coll, cs)) = collation {
        // MySQL 8's utf8mb4_0900_* ids are unknown to MariaDB, which then
        // keeps its defaults; so do its connections here.
        if coll != "utf8mb4_general_ci" && !coll.contains("_0900_") {
            for v in ["character_set_client", "character_set_connection", "character_set_results"] {
                vars.push((v.to_string(), cs.to_string()));
            }
            vars.push(("collation_connection".to_string(), coll.to_string()));
        }
    }
    vars
}

/// SHOW STATUS LIKE, as every LIKE in Turnstile reads it (case-insensitive).
fn like(text: &str, pattern: &str) -> bool {
    turnstile_sqltext::like::like(text, pattern, true)
}

impl Proxy {
    /// A session logged in as `login`, with the client's handshake collation.
    pub fn new(up: Arc<Upstream>, login: Login, found_rows: bool, collation: Option<(&str, &str)>) -> Proxy {
        let login_charset = login_charset(collation);
        let vars = login_charset.iter().cloned().collect();
        Proxy {
            up,
            login,
            found_rows,
            schema: None,
            vars,
            pins: 0,
            conn: None,
            last_insert_id: 0,
            last_rows: 0,
            row_count: 0,
            stmts: HashMap::new(),
            cursors: Vec::new(),
            xa: false,
            next_stmt_id: 1,
            in_flight: None,
            queued: None,
            handed: None,
            login_charset,
            watch: None,
            connection_id: 0,
            diag: Vec::new(),
            diag_count: 0,
        }
    }

    /// Watch `client` during long backend waits: a client that went away has
    /// its backend statement killed (as Turnstile's own engine cancels it).
    pub fn watch_client(&mut self, client: Box<dyn turnstile_engine::ClientProbe + Send + Sync>) {
        let up = Arc::downgrade(&self.up);
        let kill = Box::new(move |thread: u32| {
            if let Some(up) = up.upgrade() {
                up.kill_backend_query(thread);
            }
        });
        self.watch = Some(Arc::new(Watch { client, kill }));
    }

    /// `classify` under the session's sql_mode (or the backend's default).
    pub fn classify(&self, sql: &[u8]) -> Shape {
        let literal = self.vars.get("sql_mode").map_or(self.up.literal_backslashes, |m| crate::literal_backslashes(m));
        crate::classify::classify_for(sql, literal)
    }

    pub fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
    }

    /// A statement's answer is still coming (`Step::Paused`, `Step::Waiting`).
    /// (Not while the client sends a LOCAL INFILE file: its packets drive the statement then.)
    pub fn is_streaming(&self) -> bool {
        self.in_flight.as_ref().is_some_and(|f| !f.fwd.in_file()) || self.queued.is_some()
    }

    /// What the session waits for after `Step::Waiting`.
    pub fn waiting_for(&self) -> Option<Wait> {
        if self.queued.is_some() {
            return Some(Wait::Checkout);
        }
        self.in_flight.as_ref().filter(|f| f.waiting).and(self.conn.as_ref()).map(|b| Wait::Socket(b.fd()))
    }

    pub fn pins(&self) -> u16 {
        self.pins
    }

    /// Status flags for answers Turnstile makes itself.
    pub fn status(&self) -> u16 {
        let mut s = 0;
        if !matches!(self.vars.get("autocommit").map(String::as_str), Some("OFF" | "0")) {
            s |= status::AUTOCOMMIT;
        }
        if self.pins & pin::TRANSACTION != 0 {
            s |= status::IN_TRANS;
        }
        s
    }

    fn set_pins(&mut self, new: u16) {
        let c = &self.up.counters;
        for (i, (bit, _)) in pin::NAMES.iter().enumerate() {
            let (was, now) = (self.pins & bit != 0, new & bit != 0);
            if now && !was {
                c.pinned_now[i].fetch_add(1, Ordering::Relaxed);
                c.pinned_total[i].fetch_add(1, Ordering::Relaxed);
            } else if was && !now {
                c.pinned_now[i].fetch_sub(1, Ordering::Relaxed);
            }
        }
        self.pins = new;
    }

    /// For a statement: the session's connection, one handed to it while it
    /// was queued, or one lent now (true: lent); or, when none is free and
    /// the session must not block (`Io::wake`), a place in the pool's queue.
    /// `first`: it was handed room to open one.
    fn borrow_or_queue(&mut self, io: &Io<'_, '_>, first: bool) -> Result<Result<(Backend, bool), Arc<Waiter>>, SqlError> {
        if let Some(b) = self.conn.take() {
            return Ok(Ok((b, false)));
        }
        if let Some(b) = self.handed.take() {
            return Ok(Ok((b, true)));
        }
        let Some(wake) = io.wake else { return self.borrow(io).map(Ok) };
        let wait = Duration::from_millis(self.up.options.checkout_timeout_ms);
        match self.up.writer().lend_or_queue(&self.login, self.found_rows, wait, io.waits, wake, first) {
            Ok(Lent::Now(b)) => Ok(Ok((b, true))),
            Ok(Lent::Queued(w)) => Ok(Err(w)),
            Err(e) => Err(lend_error(&self.up, e)),
        }
    }

    /// The session's connection, or one lent for this command (waiting on
    /// this thread if none is free). True: lent.
    fn borrow(&mut self, io: &Io<'_, '_>) -> Result<(Backend, bool), SqlError> {
        if let Some(b) = self.conn.take() {
            return Ok((b, false));
        }
        let wait = Duration::from_millis(self.up.options.checkout_timeout_ms);
        let r = self.up.writer().lend(&self.login, self.found_rows, wait, io.waits);
        r.map(|b| (b, true)).map_err(|e| lend_error(&self.up, e))
    }

    /// Keep the connection while pinned; otherwise give it back.
    fn settle(&mut self, mut b: Backend) {
        b.waits = None;
        b.watch = None;
        if self.pins != 0 {
            self.conn = Some(b);
        } else {
            self.up.writer().give_back(b);
        }
    }

    /// The connection died under a command: close it; a pinned session
    /// lost what it held there.
    fn broken(&mut self, b: Backend) {
        self.up.writer().give_up(b);
        // Its cursors died with it (a fetch now gets 1421).
        self.cursors.clear();
        if self.pins != 0 {
            self.set_pins(0);
        }
    }

    fn send_err(out: &mut Vec<u8>, seq: u8, e: &SqlError) {
        let mut s = seq;
        let start = begin_packet(out);
        encode_err(out, e.code, e.state, &e.message);
        end_packet(out, start, &mut s);
    }

    fn send_backend_err(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
        let mut s = seq;
        turnstile_wire::packet::write_packet(out, &mut s, payload);
    }

    /// Run one command (the client's packet as it came) on the backend.
    pub fn command(&mut self, payload: &[u8], shape: Option<&Shape>, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        self.run(payload, shape, out, io, Kind::Plain)
    }

    /// COM_FIELD_LIST.
    pub fn field_list(&mut self, payload: &[u8], out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        self.run(payload, None, out, io, Kind::FieldList)
    }

    /// COM_QUERY, with what Turnstile answers itself.
    pub fn query(&mut self, payload: &[u8], shape: &Shape, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        use crate::classify::Local;
        match &shape.local {
            Some(Local::LastInsertId(name)) => return self.one_value(out, io, name, self.last_insert_id),
            Some(Local::FoundRows(name)) if self.pins & pin::FOUND_ROWS == 0 => return self.one_value(out, io, name, self.last_rows),
            Some(Local::ConnectionId(name)) => return self.one_value(out, io, name, self.connection_id as u64),
            Some(Local::RowCount(name)) => return self.local_value(out, io, local::signed_column(name), self.row_count.to_string()),
            Some(Local::DiagnosticsCount { errors, name }) => {
                let n = self.diagnostics_count(*errors);
                return self.one_value(out, io, name, n);
            }
            Some(Local::ShowDiagnostics { errors, count, offset, limit }) => return self.show_diagnostics(out, io, *errors, *count, *offset, *limit),
            Some(Local::BackupData) => {
                Self::send_err(out, 1, &SqlError::unsupported("BACKUP DATA with the upstream engine"));
                return Step::Done;
            }
            _ => {}
        }
        if shape.get_diagnostics && !(self.conn.is_some() && self.pins != 0) {
            // Unpinned, the session's previous statement may have run on
            // another connection, and this one's diagnostics area may hold
            // another session's conditions (MariaDB keeps them across
            // statements that use no table): refused rather than answered
            // with someone else's.
            Self::send_err(out, 1, &SqlError::unsupported("GET DIAGNOSTICS outside a transaction through the upstream engine (the previous statement's backend connection was shared since; SHOW WARNINGS is answered from the session's own)"));
            return Step::Done;
        }
        if shape.local_infile && !io.local_files {
            Self::send_err(out, 1, &SqlError::new(4166, "HY000", "The used command is not allowed because the MariaDB server or client has disabled the local infile capability"));
            return Step::Done;
        }
        let kind = match &shape.show_status {
            Some(like_pattern) => {
                let mut rows = self.up.status();
                rows.extend((io.front_status)(shape.show_status_global));
                let rows = rows.into_iter().filter(|(n, _)| like_pattern.as_deref().is_none_or(|p| like(n, p))).collect();
                Kind::Inject(rows)
            }
            None => Kind::Plain,
        };
        let step = self.run(payload, Some(shape), out, io, kind);
        if shape.changes_accounts {
            self.up.refresh_accounts();
        }
        if shape.drops_database {
            self.up.proofs.forget_all();
        }
        self.xa |= shape.xa;
        step
    }

    fn one_value(&mut self, out: &mut Vec<u8>, io: &Io<'_, '_>, name: &str, v: u64) -> Step {
        self.local_value(out, io, local::unsigned_column(name), v.to_string())
    }

    /// A one-row, one-column result Turnstile answers itself (a SELECT:
    /// ROW_COUNT() is -1 after it).
    fn local_value(&mut self, out: &mut Vec<u8>, io: &Io<'_, '_>, column: turnstile_wire::response::Column, v: String) -> Step {
        local::result_set(out, io.deprecate_eof, self.status(), &[column], &[vec![Some(v)]]);
        self.last_rows = 1;
        self.row_count = -1;
        Step::Done
    }

    fn show_diagnostics(&mut self, out: &mut Vec<u8>, io: &Io<'_, '_>, errors: bool, count: bool, offset: u64, limit: Option<u64>) -> Step {
        if count {
            let n = self.diagnostics_count(errors);
            let name = if errors { "@@session.error_count" } else { "@@session.warning_count" };
            return self.one_value(out, io, name, n);
        }
        let rows: Vec<Vec<Option<String>>> = local::select(&self.diag, errors)
            .skip(offset as usize)
            .take(limit.unwrap_or(u64::MAX) as usize)
            .map(|(level, code, message)| vec![Some(level.clone()), Some(code.to_string()), Some(message.clone())])
            .collect();
        self.last_rows = rows.len() as u64;
        self.row_count = -1;
        local::result_set(out, io.deprecate_eof, self.status(), &local::diagnostics_columns(), &rows);
        Step::Done
    }

    fn diagnostics_count(&self, errors: bool) -> u64 {
        if errors {
            local::select(&self.diag, true).count() as u64
        } else {
            self.diag_count.max(self.diag.len() as u64)
        }
    }

    /// The conditions of the statement that just ran on `b`: the error it
    /// ended with, or its warnings read from `b` (only when it had some).
    fn keep_diagnostics(&mut self, b: &mut Backend, fwd: &Forward) -> Result<(), BackendError> {
        let o = &fwd.outcome;
        if let Some(err) = &o.error {
            let (code, message) = err_parts(err);
            self.diag = vec![("Error".to_string(), code as u32, message)];
            self.diag_count = 1;
            return Ok(());
        }
        let warnings = o.last.as_ref().map_or(0, |ok| ok.warnings);
        self.diag_count = warnings as u64;
        if warnings == 0 {
            self.diag.clear();
            return Ok(());
        }
        let (_, rows) = b.query_rows("SHOW WARNINGS")?;
        self.diag = rows
            .into_iter()
            .map(|r| {
                let mut it = r.into_iter();
                let level = it.next().flatten().unwrap_or_default();
                let code = it.next().flatten().and_then(|c| c.parse().ok()).unwrap_or(0);
                (level, code, it.next().flatten().unwrap_or_default())
            })
            .collect();
        Ok(())
    }

    fn run(&mut self, payload: &[u8], shape: Option<&Shape>, out: &mut Vec<u8>, io: &mut Io<'_, '_>, kind: Kind) -> Step {
        self.start(payload, shape, out, io, kind, Start::default())
    }

    /// Borrow a connection, bring it to the session's state, send `payload`
    /// and pass on the answer (`advance`).
    fn start(&mut self, payload: &[u8], shape: Option<&Shape>, out: &mut Vec<u8>, io: &mut Io<'_, '_>, kind: Kind, how: Start) -> Step {
        debug_assert!(self.in_flight.is_none(), "no command while an answer is in flight");
        let (mut b, lent) = match self.borrow_or_queue(io, how.first) {
            Ok(Ok(x)) => x,
            Ok(Err(w)) => {
                self.queued = Some((w, Queued::Command { payload: payload.to_vec(), shape: shape.cloned(), kind, how }));
                return Step::Waiting;
            }
            Err(e) => {
                Self::send_err(out, 1, &e);
                return Step::Done;
            }
        };
        let read_only = shape.is_none_or(|s| s.read_only) && matches!(kind, Kind::Plain | Kind::Inject(_));
        let retry_safe = !how.retried && self.pins == 0 && (read_only && payload.first() != Some(&com::STMT_EXECUTE) || payload.first() == Some(&com::INIT_DB));
        b.waits = io.waits.announces().then_some(io.waits);
        b.watch.clone_from(&self.watch);
        let synced = self.sync(&mut b, shape, io, payload.first() != Some(&com::INIT_DB));
        let sent = synced.and_then(|()| {
            io.running.store(b.thread_id, Ordering::Relaxed);
            b.write_packet(0, payload).map_err(BackendError::Io)
        });
        self.up.counters.statements.fetch_add(1, Ordering::Relaxed);
        let mut fwd = Forward::new(io.deprecate_eof, self.status(), 1);
        fwd = match &kind {
            Kind::FieldList => fwd.field_list(),
            Kind::Inject(rows) => fwd.inject(rows.clone()),
            Kind::Plain => fwd,
            Kind::Cursor(_) => fwd.cursor_open(),
            Kind::Fetch(_) => fwd.fetch(),
            Kind::Prepare(id) => fwd.prepare(*id),
        };
        let after = match kind {
            Kind::Cursor(id) | Kind::Fetch(id) => After::Cursor(id),
            Kind::Prepare(id) => After::Prepared { id, sql: String::from_utf8_lossy(&payload[1..]).into_owned(), shape: self.classify(&payload[1..]) },
            _ => After::Nothing,
        };
        let fl = InFlight { fwd: fwd.local_files(io.local_files), shape: shape.cloned(), lent: lent || how.lent, retry_safe, retry: None, waiting: false, file_seq: 0, after };
        match sent {
            Ok(()) => self.advance(b, fl, out, io, Some((payload, kind))),
            Err(BackendError::Err { payload: p, .. }) => {
                // The state sync failed: the client sees why.
                io.running.store(0, Ordering::Relaxed);
                Self::send_backend_err(out, 1, &p);
                self.settle(b);
                Step::Done
            }
            Err(e) => self.failed(b, fl, out, io, Some((payload, kind)), e),
        }
    }

    /// Pass on the answer until it is in (the connection is learned from
    /// and settled), the client's buffer is full (`Paused`), or the backend
    /// has sent nothing more yet (`Waiting`; only when the loop is pausable,
    /// else the read blocks). `sent`: the command and its kind, on the first
    /// call (kept for a retry if the statement must wait).
    fn advance(&mut self, mut b: Backend, mut fl: InFlight, out: &mut Vec<u8>, io: &mut Io<'_, '_>, sent: Option<(&[u8], Kind)>) -> Step {
        let limit = self.up.options.result_buffer_bytes;
        // Just sent, the answer cannot be there yet: wait for the socket
        // without a read that would find nothing (one system call a statement).
        let pumped = if io.pausable && sent.is_some() { Ok(Pumped::Wait) } else { self.pump(&mut b, &mut fl.fwd, out, io, limit) };
        self.answer(b, fl, out, io, sent, pumped)
    }

    /// Pass on what the backend sent; past `limit` bytes buffered, flush
    /// (blocking loop) or stop (`Full`).
    fn pump(&mut self, b: &mut Backend, fwd: &mut Forward, out: &mut Vec<u8>, io: &mut Io<'_, '_>, limit: usize) -> Result<Pumped, BackendError> {
        loop {
            match fwd.pump(b, out, limit, !io.pausable) {
                Ok(Pumped::Full) if !io.pausable => (io.flush)(out).map_err(BackendError::Io)?,
                r => return r,
            }
        }
    }

    /// What `pump` did: the answer is in (learn from it, settle the
    /// connection), or it goes on later (`Paused`, `Waiting`), or the
    /// connection died (`failed`).
    fn answer(&mut self, mut b: Backend, mut fl: InFlight, out: &mut Vec<u8>, io: &mut Io<'_, '_>, sent: Option<(&[u8], Kind)>, pumped: Result<Pumped, BackendError>) -> Step {
        match pumped {
            Ok(Pumped::Done) => {
                io.running.store(0, Ordering::Relaxed);
                if Self::complete_collation(&mut b, &mut fl.fwd).and_then(|()| self.keep_diagnostics(&mut b, &fl.fwd)).is_err() {
                    self.broken(b);
                    return Step::Done;
                }
                match std::mem::replace(&mut fl.after, After::Nothing) {
                    After::Cursor(id) => self.note_cursor(&mut b, id, &fl.fwd),
                    After::Prepared { id, sql, shape } => self.note_prepared(&mut b, id, sql, shape, &fl.fwd),
                    After::Nothing => {}
                }
                self.learn(&mut b, &fl.fwd, fl.shape.as_ref());
                if fl.lent && self.pins == 0 {
                    self.up.counters.multiplexed.fetch_add(1, Ordering::Relaxed);
                }
                self.settle(b);
                Step::Done
            }
            Ok(Pumped::File) => {
                fl.file_seq = fl.fwd.backend_file_seq();
                self.conn = Some(b);
                self.in_flight = Some(fl);
                Step::File
            }
            Ok(step) => {
                fl.waiting = step == Pumped::Wait;
                if fl.waiting && fl.retry_safe && fl.retry.is_none() && fl.fwd.written == 0 {
                    fl.retry = sent.map(|(p, k)| (p.to_vec(), k));
                }
                self.conn = Some(b);
                self.in_flight = Some(fl);
                if step == Pumped::Wait {
                    Step::Waiting
                } else {
                    Step::Paused
                }
            }
            Err(e) => self.failed(b, fl, out, io, sent, e),
        }
    }

    /// The connection died under a statement: run it again on a fresh one
    /// when that is safe (nothing pinned, a read, nothing passed on yet),
    /// else the client gets 2013-style "lost connection".
    fn failed(&mut self, b: Backend, fl: InFlight, out: &mut Vec<u8>, io: &mut Io<'_, '_>, sent: Option<(&[u8], Kind)>, e: BackendError) -> Step {
        io.running.store(0, Ordering::Relaxed);
        tracing::debug!(error = %e, "backend connection lost");
        self.broken(b);
        let nothing_sent = fl.fwd.written == 0;
        if fl.retry_safe && nothing_sent {
            let again = Start { retried: true, lent: fl.lent, first: false };
            match (sent, fl.retry) {
                (Some((p, k)), _) => {
                    self.up.counters.retries.fetch_add(1, Ordering::Relaxed);
                    return self.start(p, fl.shape.as_ref(), out, io, k, again);
                }
                (None, Some((p, k))) => {
                    self.up.counters.retries.fetch_add(1, Ordering::Relaxed);
                    return self.start(&p, fl.shape.as_ref(), out, io, k, again);
                }
                (None, None) => {}
            }
        }
        self.up.counters.lost.fetch_add(1, Ordering::Relaxed);
        // Part of a result may have gone out: the error ends it.
        let seq = if nothing_sent { 1 } else { fl.fwd.seq() };
        Self::send_err(out, seq, &lost());
        Step::Done
    }

    /// Go on with an answer in flight: the client read what was buffered
    /// (`Paused`), or the backend's socket became readable (`Waiting`).
    pub fn resume(&mut self, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        if let Some((w, q)) = self.queued.take() {
            return self.resume_queued(w, q, out, io);
        }
        let Some(fl) = self.in_flight.take() else { return Step::Done };
        let Some(mut b) = self.conn.take() else { return Step::Done };
        b.waits = io.waits.announces().then_some(io.waits);
        self.advance(b, fl, out, io, None)
    }

    /// The sequence id the client's first file packet must have (`Step::File`).
    pub fn file_seq(&self) -> u8 {
        self.in_flight.as_ref().map_or(0, |f| f.fwd.seq())
    }

    /// One packet of a LOCAL INFILE file, passed to the backend as it came
    /// (nothing is buffered); the empty one ends the file and the backend's
    /// answer follows, to the client from sequence id `client_seq`.
    pub fn file_packet(&mut self, payload: &[u8], client_seq: u8, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        let (Some(mut fl), Some(mut b)) = (self.in_flight.take(), self.conn.take()) else {
            debug_assert!(false, "a file packet without a file asked for");
            return Step::Done;
        };
        let sent = b.write_packet(fl.file_seq, payload);
        fl.file_seq = fl.file_seq.wrapping_add((payload.len() / turnstile_wire::consts::MAX_PACKET_PAYLOAD) as u8 + 1);
        if payload.is_empty() || sent.is_err() {
            fl.fwd.file_sent(client_seq);
        }
        match sent {
            Ok(()) if payload.is_empty() => self.advance(b, fl, out, io, None),
            Ok(()) => {
                self.conn = Some(b);
                self.in_flight = Some(fl);
                Step::File
            }
            Err(e) => self.failed(b, fl, out, io, None, BackendError::Io(e)),
        }
    }

    /// A queued statement was woken: run it on what the session was handed.
    fn resume_queued(&mut self, w: Arc<Waiter>, q: Queued, out: &mut Vec<u8>, io: &mut Io<'_, '_>) -> Step {
        let first = match w.take() {
            Handed::Nothing => {
                // Woken by something else (the client's socket): still queued.
                self.queued = Some((w, q));
                return Step::Waiting;
            }
            Handed::TimedOut => {
                Self::send_err(out, 1, &lend_error(&self.up, LendError::Timeout));
                return Step::Done;
            }
            Handed::Room => true,
            Handed::Conn(b) => match self.up.writer().prepare_lent(b, &self.login, self.found_rows, io.waits) {
                Ok(b) => {
                    self.handed = Some(b);
                    false
                }
                Err(e) => {
                    Self::send_err(out, 1, &lend_error(&self.up, e));
                    return Step::Done;
                }
            },
        };
        match q {
            Queued::Command { payload, shape, kind, how } => self.start(&payload, shape.as_ref(), out, io, kind, Start { first, ..how }),
            Queued::Execute { exec, shape } => self.run_exec(exec, &shape, out, io, first),
        }
    }

    /// Log in with a database (CONNECT_WITH_DB) or COM_INIT_DB's check:
    /// the backend says whether the user may use it.
    pub fn use_database(&mut self, db: &str, io: &mut Io<'_, '_>) -> Result<(), SqlError> {
        // The backend let this user in lately: no round trip (`proofs`).
        if self.up.proofs.proven(&self.login.user, db) {
            self.schema = Some(db.to_string());
            return Ok(());
        }
        let mut payload = vec![com::INIT_DB];
        payload.extend_from_slice(db.as_bytes());
        let mut out = Vec::new();
        self.run(&payload, None, &mut out, io, Kind::Plain);
        // One packet: OK or ERR.
        match out.get(4) {
            Some(0x00) => {
                self.schema = Some(db.to_string());
                self.up.proofs.record(&self.login.user, db);
                Ok(())
            }
            Some(0xff) => {
                let (code, message) = err_parts(&out[4..]);
                // 1044 (access denied to the database) and 1049 (unknown database) are 42000.
                let state = if matches!(code, 1044 | 1049) { "42000" } else { "HY000" };
                Err(SqlError::new(code, state, message))
            }
            _ => Err(lost()),
        }
    }

    /// COM_RESET_CONNECTION: forget what the session set; its connection,
    /// if it held one, is reset before anyone else uses it.
    pub fn reset(&mut self) {
        self.release_all();
        self.xa = false;
        self.vars = self.login_charset.iter().cloned().collect();
        self.last_insert_id = 0;
        self.last_rows = 0;
        self.row_count = 0;
        self.diag.clear();
        self.diag_count = 0;
        self.stmts.clear();
    }

    /// COM_CHANGE_USER done: a fresh session for `login` (no schema), with
    /// the character set it names.
    pub fn change_user(&mut self, login: Login, collation: Option<(&str, &str)>) {
        self.login_charset = login_charset(collation);
        self.reset();
        self.login = login;
        self.schema = None;
    }

    fn release_all(&mut self) {
        if let Some((w, _)) = self.queued.take() {
            self.up.writer().cancel(&w);
        }
        if let Some(b) = self.handed.take() {
            self.up.writer().give_back(b);
        }
        if let Some(mut b) = self.conn.take() {
            if let Some(fl) = self.in_flight.take() {
                if fl.waiting {
                    // Nobody will read the answer: stop the statement.
                    if let Some(w) = &self.watch {
                        (w.kill)(b.thread_id);
                    }
                }
                self.up.writer().give_up(b);
            } else {
                if self.pins != 0 {
                    b.dirty = true;
                }
                if self.pins & pin::TRANSACTION != 0 && self.xa {
                    // Closed as a client's connection would be: a prepared
                    // XA transaction is detached (kept for XA COMMIT from
                    // elsewhere). A reset would leave it attached and the
                    // connection unable to use InnoDB for whoever gets it
                    // next. (Other transactions are rolled back by the
                    // reset, and the connection is kept.)
                    b.discard = true;
                }
                self.up.writer().give_back(b);
            }
        }
        self.cursors.clear();
        self.set_pins(0);
    }

    /// The session ended.
    pub fn finish(&mut self) {
        self.release_all();
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.release_all();
    }
}

/// How `start` runs a statement.
#[derive(Default, Clone, Copy)]
struct Start {
    /// Already run once on a connection that died.
    retried: bool,
    /// The connection was lent for this command (COM_STMT_EXECUTE places a
    /// lent one as the session's before `start`).
    lent: bool,
    /// The session was handed room to open a connection (`Handed::Room`).
    first: bool,
}

#[derive(Clone)]
enum Kind {
    Plain,
    FieldList,
    Inject(Vec<(String, String)>),
    /// COM_STMT_EXECUTE with a cursor type, of the session's statement.
    Cursor(u32),
    /// COM_STMT_FETCH of the session's statement.
    Fetch(u32),
    /// COM_STMT_PREPARE; the session's id for the statement.
    Prepare(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        assert!(like("Upstream_statements", "upstream%"));
        assert!(like("Upstream_statements", "Upstream_statement_"));
        assert!(!like("Uptime", "Upstream%"));
    }
}
