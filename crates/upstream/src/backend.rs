//! One connection to the backend server, blocking, as a MySQL client: the
//! login (mysql_native_password from SHA1(password), which is what a
//! client's scramble yields, so Turnstile never needs the password itself),
//! commands written as packets, and packets read back one at a time.
//!
//! It also remembers what it holds for the sessions it serves (`Held`): the
//! user it is logged in as, its schema, the system variables set on it, its
//! multi-statement option, and the prepared statements it has, so a session
//! that borrows it is brought to its own state with only what differs.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use turnstile_engine::{ClientProbe, WaitHook, WaitKind};
use turnstile_wire::auth;
use turnstile_wire::buf::{put_u16, put_u32, Reader};
use turnstile_wire::consts::{cap, com};

/// Capabilities every backend connection asks for: the protocol Turnstile
/// reads (DEPRECATE_EOF, so every result ends with an OK that carries the
/// session's state changes), session tracking, multi-results and
/// multi-statements (switched off per session with COM_SET_OPTION).
pub const BACKEND_CAPS: u32 = cap::LOCAL_FILES
    | cap::LONG_PASSWORD
    | cap::LONG_FLAG
    | cap::PROTOCOL_41
    | cap::TRANSACTIONS
    | cap::SECURE_CONNECTION
    | cap::MULTI_STATEMENTS
    | cap::MULTI_RESULTS
    | cap::PS_MULTI_RESULTS
    | cap::PLUGIN_AUTH
    | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA
    | cap::SESSION_TRACK
    | cap::DEPRECATE_EOF;

/// utf8mb4_general_ci: the character set every backend connection logs in with.
pub const BACKEND_COLLATION: u8 = 45;

/// Largest packet read from a backend (logical payload: 1 GiB, MariaDB's own cap).
const MAX_PAYLOAD: usize = 1 << 30;

/// The credentials a backend login needs: the user and SHA1(password)
/// (None: an empty password).
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    pub user: String,
    pub hash1: Option<[u8; 20]>,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Login({})", self.user)
    }
}

impl Login {
    /// The mysql_native_password token for `scramble`.
    pub fn token(&self, scramble: &[u8]) -> Vec<u8> {
        match &self.hash1 {
            None => Vec::new(),
            Some(h1) => {
                let h2 = auth::sha1(&[h1]);
                let x = auth::sha1(&[scramble, &h2]);
                h1.iter().zip(x.iter()).map(|(a, b)| a ^ b).collect()
            }
        }
    }

    /// The login of an account whose password is known (the monitor account).
    pub fn with_password(user: &str, password: &str) -> Login {
        Login { user: user.to_string(), hash1: (!password.is_empty()).then(|| auth::sha1(&[password.as_bytes()])) }
    }
}

/// A failure talking to a backend.
#[derive(Debug)]
pub enum BackendError {
    /// The socket failed or closed: the connection is gone.
    Io(io::Error),
    /// The backend answered with ERR (the raw payload, for the client).
    Err { code: u16, message: String, payload: Vec<u8> },
    /// The backend sent something this client does not understand.
    Protocol(String),
}

impl From<io::Error> for BackendError {
    fn from(e: io::Error) -> Self {
        BackendError::Io(e)
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackendError::Io(e) => write!(f, "{}", e),
            BackendError::Err { code, message, .. } => write!(f, "ERROR {}: {}", code, message),
            BackendError::Protocol(m) => write!(f, "protocol: {}", m),
        }
    }
}

/// Parse an ERR payload's code and message.
pub fn err_parts(payload: &[u8]) -> (u16, String) {
    let code = if payload.len() >= 3 { u16::from_le_bytes([payload[1], payload[2]]) } else { 0 };
    let rest = payload.get(3..).unwrap_or(&[]);
    let msg = if rest.first() == Some(&b'#') && rest.len() >= 6 { &rest[6..] } else { rest };
    (code, String::from_utf8_lossy(msg).into_owned())
}

fn err_of(payload: &[u8]) -> BackendError {
    let (code, message) = err_parts(payload);
    BackendError::Err { code, message, payload: payload.to_vec() }
}

/// A result read as text: column names, and rows (None for NULL).
pub type TextRows = (Vec<String>, Vec<Vec<Option<String>>>);

/// What a backend connection holds for the sessions it serves.
#[derive(Debug, Default)]
pub struct Held {
    /// The user it is logged in as.
    pub user: String,
    /// Its current schema.
    pub schema: Option<String>,
    /// System variables set on it since its login or last reset (name, value).
    pub vars: HashMap<String, String>,
    /// Multi-statements on (its login default) or off (COM_SET_OPTION).
    pub multi_statements: bool,
    /// Prepared statements by text: the backend's id and its parameter count.
    pub stmts: HashMap<String, (u32, u16)>,
    /// LAST_INSERT_ID() as last set here by a session, when known.
    pub last_insert_id: Option<u64>,
}

pub struct Backend {
    stream: Sock,
    buf: Vec<u8>,
    start: usize,
    /// The backend's thread id (for KILL QUERY).
    pub thread_id: u32,
    scramble: Vec<u8>,
    /// CLIENT_FOUND_ROWS: fixed at login (affected rows of UPDATE).
    pub found_rows: bool,
    pub held: Held,
    /// Left with state a session set that the next one must not see.
    pub dirty: bool,
    /// Left with state a reset does not remove, or must not (a prepared XA
    /// transaction, which COM_RESET_CONNECTION leaves the connection unable
    /// to use InnoDB with; the profiling history): closed, not reset, when
    /// given back.
    pub discard: bool,
    /// Its server's index in `upstream_servers`.
    pub server: usize,
    /// The version its greeting announced.
    pub server_version: String,
    /// Told when a read waits longer than `ANNOUNCE_AFTER_MS` (the
    /// pool-of-threads scheduler then lets another worker serve others);
    /// set while a session uses the connection.
    pub waits: Option<&'static (dyn WaitHook + Sync)>,
    /// The client of the session using the connection, watched during a
    /// long wait: if it goes away, the backend statement is killed.
    pub watch: Option<Arc<Watch>>,
}

/// What a long backend wait watches (`Backend::watch`).
pub struct Watch {
    /// Is the session's client still there?
    pub client: Box<dyn ClientProbe + Send + Sync>,
    /// KILL QUERY this backend thread (the monitor's connection does it).
    pub kill: Box<dyn Fn(u32) + Send + Sync>,
}

/// How often a long backend wait asks whether the client is still there.
const WATCH_MS: u64 = turnstile_engine::CLIENT_PROBE_MS;

/// A backend read that has waited this long is announced to the scheduler.
/// Shorter ones (a point select answers in ~0.1 ms) are not: announcing
/// every one made the pool hand work between threads on each statement
/// (38 futex calls per connection, 96 workers, under connection churn).
pub const ANNOUNCE_AFTER_MS: u64 = 1;

/// Bytes asked of the socket per read.
const READ_CHUNK: usize = 16 * 1024;

/// Where a backend server listens: TCP, or a Unix socket on this host
/// (cheaper per statement when the database runs beside Turnstile:
/// docs/architecture.md, "The upstream engine").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Address::Tcp(a) => write!(f, "{}", a),
            Address::Unix(p) => write!(f, "{}", p.display()),
        }
    }
}

/// A backend connection's socket.
enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    fn connect(addr: &Address, timeout: Duration) -> io::Result<Sock> {
        match addr {
            Address::Tcp(a) => {
                let s = TcpStream::connect_timeout(a, timeout)?;
                s.set_nodelay(true)?;
                Ok(Sock::Tcp(s))
            }
            Address::Unix(p) => Ok(Sock::Unix(UnixStream::connect(p)?)),
        }
    }

    fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.set_read_timeout(t),
            Sock::Unix(s) => s.set_read_timeout(t),
        }
    }

    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.set_write_timeout(t),
            Sock::Unix(s) => s.set_write_timeout(t),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.write_all(bytes),
            Sock::Unix(s) => s.write_all(bytes),
        }
    }

    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        match self {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl Backend {
    /// Connect and log in as `login`; `found_rows` is the client flag.
    pub fn connect(addr: &Address, timeout: Duration, login: &Login, found_rows: bool, server: usize) -> Result<Backend, BackendError> {
        let stream = Sock::connect(addr, timeout)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        let mut b = Backend {
            stream,
            buf: Vec::with_capacity(16 * 1024),
            start: 0,
            thread_id: 0,
            scramble: Vec::new(),
            found_rows,
            held: Held::default(),
            dirty: false,
            discard: false,
            server,
            waits: None,
            watch: None,
            server_version: String::new(),
        };
        b.login(login)?;
        // Statements may run as long as they like; the login may not. A
        // read that takes longer than ANNOUNCE_AFTER_MS returns early so the
        // wait is announced (`fill`); writes block.
        b.stream.set_read_timeout(Some(Duration::from_millis(ANNOUNCE_AFTER_MS)))?;
        b.stream.set_write_timeout(None)?;
        b.held.user = login.user.clone();
        b.held.multi_statements = true;
        Ok(b)
    }

    fn login(&mut self, login: &Login) -> Result<(), BackendError> {
        let (_, greeting) = self.read_packet()?;
        let greeting = greeting.to_vec();
        if greeting.first() == Some(&0xff) {
            return Err(err_of(&greeting));
        }
        let mut r = Reader::new(&greeting);
        let proto = r.u8().map_err(|_| BackendError::Protocol("empty greeting".into()))?;
        if proto != 10 {
            return Err(BackendError::Protocol(format!("greeting protocol {}", proto)));
        }
        self.server_version = String::from_utf8_lossy(r.nul_bytes()).into_owned();
        let bad = |_| BackendError::Protocol("short greeting".into());
        self.thread_id = r.u32().map_err(bad)?;
        let mut scramble = r.take(8).map_err(bad)?.to_vec();
        r.u8().map_err(bad)?;
        let caps_lo = r.u16().map_err(bad)? as u32;
        let _charset = r.u8().map_err(bad)?;
        let _status = r.u16().map_err(bad)?;
        let caps_hi = r.u16().map_err(bad)? as u32;
        let server_caps = caps_lo | (caps_hi << 16);
        let auth_len = r.u8().map_err(bad)? as usize;
        r.take(10).map_err(bad)?;
        let more = auth_len.saturating_sub(9).max(12);
        scramble.extend_from_slice(r.take(more.min(r.remaining())).map_err(bad)?);
        let _ = r.u8();
        self.scramble = scramble;
        let mut caps = BACKEND_CAPS & server_caps;
        if self.found_rows {
            caps |= cap::FOUND_ROWS;
        }
        if caps & (cap::SESSION_TRACK | cap::DEPRECATE_EOF) != (cap::SESSION_TRACK | cap::DEPRECATE_EOF) {
            return Err(BackendError::Protocol("the backend does not offer CLIENT_SESSION_TRACK and CLIENT_DEPRECATE_EOF (MySQL 5.7+ / MariaDB 10.2+ do)".into()));
        }
        let token = login.token(&self.scramble);
        let mut p = Vec::with_capacity(128);
        put_u32(&mut p, caps);
        put_u32(&mut p, MAX_PAYLOAD as u32);
        p.push(BACKEND_COLLATION);
        p.extend_from_slice(&[0u8; 23]);
        p.extend_from_slice(login.user.as_bytes());
        p.push(0);
        turnstile_wire::buf::put_lenenc_bytes(&mut p, &token);
        p.extend_from_slice(auth::NATIVE.as_bytes());
        p.push(0);
        self.write_packet(1, &p)?;
        self.finish_auth(login)
    }

    /// After a login or COM_CHANGE_USER was sent: OK, ERR, or an auth switch
    /// to mysql_native_password with a fresh scramble.
    fn finish_auth(&mut self, login: &Login) -> Result<(), BackendError> {
        let (seq, reply) = self.read_packet()?;
        match reply.first() {
            Some(0x00) => Ok(()),
            Some(0xff) => Err(err_of(reply)),
            Some(0xfe) => {
                let mut r = Reader::new(&reply[1..]);
                let plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
                if plugin != auth::NATIVE {
                    return Err(BackendError::Protocol(format!("the backend asks for the {} plugin; Turnstile logs in with mysql_native_password only", plugin)));
                }
                let mut s = r.rest().to_vec();
                if s.last() == Some(&0) {
                    s.pop();
                }
                self.scramble = s;
                let token = login.token(&self.scramble);
                self.write_packet(seq.wrapping_add(1), &token)?;
                let (_, reply) = self.read_packet()?;
                match reply.first() {
                    Some(0x00) => Ok(()),
                    Some(0xff) => Err(err_of(reply)),
                    _ => Err(BackendError::Protocol("unexpected reply to the auth switch".into())),
                }
            }
            _ => Err(BackendError::Protocol("unexpected reply to the login".into())),
        }
    }

    /// COM_CHANGE_USER to `login` (the backend resets the session).
    pub fn change_user(&mut self, login: &Login) -> Result<(), BackendError> {
        let token = login.token(&self.scramble);
        let mut p = Vec::with_capacity(96);
        p.push(com::CHANGE_USER);
        p.extend_from_slice(login.user.as_bytes());
        p.push(0);
        p.push(token.len() as u8);
        p.extend_from_slice(&token);
        p.push(0); // no schema
        put_u16(&mut p, BACKEND_COLLATION as u16);
        p.extend_from_slice(auth::NATIVE.as_bytes());
        p.push(0);
        self.write_packet(0, &p)?;
        self.finish_auth(login)?;
        self.held = Held { user: login.user.clone(), multi_statements: true, ..Held::default() };
        Ok(())
    }

    /// COM_RESET_CONNECTION: the backend forgets the session's state (its
    /// prepared statements too).
    pub fn reset(&mut self) -> Result<(), BackendError> {
        self.simple_command(com::RESET_CONNECTION, &[])?;
        // The backend keeps the user and the current database.
        let user = std::mem::take(&mut self.held.user);
        let schema = self.held.schema.take();
        self.held = Held { user, schema, multi_statements: true, ..Held::default() };
        self.dirty = false;
        Ok(())
    }

    /// Send command `cmd` with `arg` (sequence id 0), framed straight into
    /// one buffer: one copy, one write.
    pub fn send_command(&mut self, cmd: u8, arg: &[u8]) -> io::Result<()> {
        let len = arg.len() + 1;
        if len >= turnstile_wire::consts::MAX_PACKET_PAYLOAD {
            let mut p = Vec::with_capacity(len);
            p.push(cmd);
            p.extend_from_slice(arg);
            return self.write_packet(0, &p);
        }
        let mut out = Vec::with_capacity(len + 4);
        out.extend_from_slice(&(len as u32).to_le_bytes()[..3]);
        out.push(0);
        out.push(cmd);
        out.extend_from_slice(arg);
        self.stream.write_all(&out)
    }

    /// Send a command whose answer is one OK or ERR.
    pub fn simple_command(&mut self, cmd: u8, arg: &[u8]) -> Result<(), BackendError> {
        self.send_command(cmd, arg)?;
        let (_, reply) = self.read_packet()?;
        match reply.first() {
            Some(0x00) | Some(0xfe) => Ok(()),
            Some(0xff) => Err(err_of(reply)),
            _ => Err(BackendError::Protocol("expected OK".into())),
        }
    }

    /// Run a statement whose answer Turnstile reads itself: its result's
    /// rows as text (None for NULL), or none for an OK.
    pub fn query_rows(&mut self, sql: &str) -> Result<TextRows, BackendError> {
        self.send_command(com::QUERY, sql.as_bytes())?;
        let (_, first) = self.read_packet()?;
        let first = first.to_vec();
        match first.first() {
            Some(0x00) => return Ok((Vec::new(), Vec::new())),
            Some(0xff) => return Err(err_of(&first)),
            _ => {}
        }
        let n = Reader::new(&first).lenenc_int().ok().flatten().unwrap_or(0) as usize;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let (_, def) = self.read_packet()?;
            let mut r = Reader::new(def);
            for _ in 0..4 {
                let _ = r.lenenc_bytes();
            }
            names.push(String::from_utf8_lossy(r.lenenc_bytes().unwrap_or(b"")).into_owned());
        }
        let mut rows = Vec::new();
        loop {
            let (_, row) = self.read_packet()?;
            if row.first() == Some(&0xfe) && row.len() < 0xff_ffff {
                break;
            }
            if row.first() == Some(&0xff) {
                return Err(err_of(row));
            }
            let mut r = Reader::new(row);
            let mut vals = Vec::with_capacity(n);
            for _ in 0..n {
                if r.peek() == Some(0xfb) {
                    let _ = r.u8();
                    vals.push(None);
                } else {
                    vals.push(Some(String::from_utf8_lossy(r.lenenc_bytes().unwrap_or(b"")).into_owned()));
                }
            }
            rows.push(vals);
        }
        Ok((names, rows))
    }

    /// Write one logical payload as packets starting at `seq`.
    pub fn write_packet(&mut self, seq: u8, payload: &[u8]) -> io::Result<()> {
        let mut out = Vec::with_capacity(payload.len() + 8);
        let mut s = seq;
        turnstile_wire::packet::write_packet(&mut out, &mut s, payload);
        self.stream.write_all(&out)
    }

    /// COM_STMT_CLOSE (no answer).
    pub fn close_statement(&mut self, id: u32) -> io::Result<()> {
        self.send_command(com::STMT_CLOSE, &id.to_le_bytes())
    }

    /// Read one physical packet: its sequence id and payload (valid until
    /// the next read). A payload of 0xffffff bytes continues in the next one.
    pub fn read_packet(&mut self) -> Result<(u8, &[u8]), BackendError> {
        self.fill(4)?;
        let len = self.buffered_len();
        self.fill(4 + len)?;
        Ok(self.take_packet(len))
    }

    /// `read_packet` without waiting: None when the whole packet has not
    /// arrived yet (the caller waits for the socket to become readable).
    pub fn try_read_packet(&mut self) -> Result<Option<(u8, &[u8])>, BackendError> {
        if !self.fill_now(4)? {
            return Ok(None);
        }
        let len = self.buffered_len();
        if !self.fill_now(4 + len)? {
            return Ok(None);
        }
        Ok(Some(self.take_packet(len)))
    }

    /// The payload length in the buffered packet header.
    fn buffered_len(&self) -> usize {
        let h = &self.buf[self.start..self.start + 4];
        u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize
    }

    fn take_packet(&mut self, len: usize) -> (u8, &[u8]) {
        let seq = self.buf[self.start + 3];
        let at = self.start + 4;
        self.start += 4 + len;
        (seq, &self.buf[at..at + len])
    }

    /// The socket, for a scheduler that waits for it to become readable.
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.stream.as_raw_fd()
    }

    /// True when bytes are already buffered (a pipelined answer).
    pub fn has_buffered(&self) -> bool {
        self.start < self.buf.len()
    }

    /// Make room for `need` bytes from `start`; false when they are buffered already.
    fn make_room(&mut self, need: usize) -> Result<bool, BackendError> {
        if self.buf.len() - self.start >= need {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        if need > MAX_PAYLOAD + 4 {
            return Err(BackendError::Protocol("packet too large".into()));
        }
        Ok(true)
    }

    /// One recv into the buffer's spare room (at least what is missing of
    /// `need`, at least READ_CHUNK: no zeroing of the room first).
    fn recv(&mut self, need: usize, flags: libc::c_int) -> io::Result<usize> {
        let len = self.buf.len();
        let want = (need - len).max(READ_CHUNK);
        self.buf.reserve(want);
        // SAFETY: `reserve` made `want` bytes of spare capacity after `len`;
        // recv writes at most `want` bytes there and reports how many.
        let n = unsafe { libc::recv(self.stream.as_raw_fd(), self.buf.as_mut_ptr().add(len).cast(), want, flags) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: recv initialised the first n (≤ want) spare bytes.
        unsafe { self.buf.set_len(len + n as usize) };
        Ok(n as usize)
    }

    /// What a recv's result means: Ok(true) bytes came, Ok(false) try
    /// again, Err the connection is gone.
    fn received(r: io::Result<usize>) -> Result<bool, BackendError> {
        match r {
            Ok(0) => Err(BackendError::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "the backend closed the connection"))),
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(e) => Err(BackendError::Io(e)),
        }
    }

    /// `fill` without waiting: false when the bytes have not all arrived.
    fn fill_now(&mut self, need: usize) -> Result<bool, BackendError> {
        if !self.make_room(need)? {
            return Ok(true);
        }
        while self.buf.len() < need {
            match self.recv(need, libc::MSG_DONTWAIT) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                r => {
                    Self::received(r)?;
                }
            }
        }
        Ok(true)
    }

    fn fill(&mut self, need: usize) -> Result<(), BackendError> {
        if !self.make_room(need)? {
            return Ok(());
        }
        while self.buf.len() < need {
            let mut r = self.recv(need, 0);
            if matches!(&r, Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)) {
                r = self.slow_recv(need);
            }
            Self::received(r)?;
        }
        Ok(())
    }

    /// A read that outlasted ANNOUNCE_AFTER_MS: announce the wait, then
    /// block in longer steps, asking between them whether the client is
    /// still there (if not, the statement is killed).
    fn slow_recv(&mut self, need: usize) -> io::Result<usize> {
        if let Some(h) = self.waits {
            h.wait_begin(WaitKind::Network);
        }
        let step = if self.watch.is_some() { Some(Duration::from_millis(WATCH_MS)) } else { None };
        let _ = self.stream.set_read_timeout(step);
        let mut killed = false;
        let r = loop {
            let r = self.recv(need, 0);
            let timed_out = matches!(&r, Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut));
            if !timed_out {
                break r;
            }
            if let Some(w) = &self.watch {
                if !killed && w.client.gone() {
                    // Nobody will read the answer: stop the statement.
                    (w.kill)(self.thread_id);
                    killed = true;
                }
            }
        };
        let _ = self.stream.set_read_timeout(Some(Duration::from_millis(ANNOUNCE_AFTER_MS)));
        if let Some(h) = self.waits {
            h.wait_end();
        }
        r
    }

    /// The socket is readable or closed while nothing was asked: the
    /// backend closed it (wait_timeout, a restart, KILL). Checked before a
    /// pooled connection is lent.
    pub fn looks_closed(&self) -> bool {
        if self.has_buffered() {
            return true;
        }
        let mut b = [0u8; 1];
        // SAFETY: a one-byte buffer on the stack; MSG_DONTWAIT leaves the socket blocking.
        let n = unsafe { libc::recv(self.stream.as_raw_fd(), b.as_mut_ptr().cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
        !(n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock)
    }
}
