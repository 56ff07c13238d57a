//! floor — a canned-reply MySQL-protocol server: the cost floor for
//! Turnstile's connection benchmark (bench/connect.sh).
//!
//! What it does, per connection:
//!   1. sends a fixed protocol-v10 greeting (CLIENT_PROTOCOL_41,
//!      SECURE_CONNECTION, PLUGIN_AUTH = mysql_native_password,
//!      CONNECT_WITH_DB; DEPRECATE_EOF is advertised only with
//!      `--deprecate-eof`);
//!   2. reads the handshake response and replies OK — any user, any password;
//!   3. answers every COM_QUERY with one fixed result set: one BIGINT column
//!      named `1` and one row `1` (text protocol; EOF packets unless the
//!      client negotiated DEPRECATE_EOF, in which case the final packet is an
//!      OK with the 0xFE header). Queries beginning with `SET` or `USE` get a
//!      plain OK instead so that drivers issuing session setup keep working;
//!   4. prepared statements: COM_STMT_PREPARE gets a PREPARE_OK with one
//!      parameter per `?` and one CHAR column; every COM_STMT_EXECUTE gets
//!      one fixed binary-protocol row of 120 characters (the size of
//!      sysbench's `c`), whatever the statement and parameters;
//!      COM_STMT_CLOSE gets no reply, COM_STMT_RESET an OK;
//!   5. COM_PING / COM_INIT_DB / COM_RESET_CONNECTION -> OK,
//!      COM_SET_OPTION -> EOF, COM_QUIT or end of stream -> close,
//!      anything else -> ERR 1047 "Unknown command".
//!
//! Why it exists: a server cannot do less than this and still complete a real
//! login, so its conn/s and CPU-per-connection are what the kernel and the
//! protocol cost on this machine. Turnstile's figures are reported as a ratio
//! to it (and to MariaDB).
//!
//! Design: ONE thread, a level-triggered epoll loop over non-blocking
//! sockets (no thread per connection, so the floor includes no thread
//! creation or context-switch cost). Per-connection state is a few flags plus
//! buffers that are allocated only when a packet arrives split or a write is
//! short, so an idle connection costs little more than its kernel socket.
//! Written from the protocol description; no code copied from elsewhere.
//!
//! Usage: floor [--port N] [--socket PATH] [--bind ADDR] [--deprecate-eof]
//! Prints `floor ready: port=N socket=PATH` to stderr once listening.

use std::io;
use std::net::TcpListener;
use std::os::unix::io::{AsRawFd, RawFd};
use std::os::unix::net::UnixListener;

// Capability flags (protocol constants).
const CLIENT_LONG_PASSWORD: u32 = 1;
const CLIENT_FOUND_ROWS: u32 = 1 << 1;
const CLIENT_LONG_FLAG: u32 = 1 << 2;
const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
const CLIENT_PROTOCOL_41: u32 = 1 << 9;
const CLIENT_SSL: u32 = 1 << 11;
const CLIENT_TRANSACTIONS: u32 = 1 << 13;
const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

const SERVER_STATUS_AUTOCOMMIT: u16 = 0x0002;
const CHARSET_UTF8MB4_GENERAL_CI: u8 = 45;
const SERVER_VERSION: &[u8] = b"5.7.99-floor";
const AUTH_PLUGIN: &[u8] = b"mysql_native_password";
// 20 scramble bytes; any fixed non-NUL bytes do, since every login is accepted.
const SCRAMBLE: &[u8; 20] = b"floor-canned-scrambl";

const COM_QUIT: u8 = 0x01;
const COM_INIT_DB: u8 = 0x02;
const COM_QUERY: u8 = 0x03;
const COM_PING: u8 = 0x0e;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;
const COM_STMT_RESET: u8 = 0x1a;
const COM_SET_OPTION: u8 = 0x1b;
const COM_RESET_CONNECTION: u8 = 0x1f;

const TOK_TCP: u64 = u64::MAX;
const TOK_UNIX: u64 = u64::MAX - 1;
const MAX_PENDING_IN: usize = 16 << 20;

/// Appends one packet (header + payload) and returns the next sequence id.
fn put_packet(out: &mut Vec<u8>, seq: u8, payload: &[u8]) -> u8 {
    let n = payload.len();
    out.extend_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, seq]);
    out.extend_from_slice(payload);
    seq.wrapping_add(1)
}

fn ok_payload(header: u8) -> [u8; 7] {
    // header, affected_rows=0, last_insert_id=0, status, warnings=0
    let s = SERVER_STATUS_AUTOCOMMIT.to_le_bytes();
    [header, 0, 0, s[0], s[1], 0, 0]
}

fn eof_payload() -> [u8; 5] {
    let s = SERVER_STATUS_AUTOCOMMIT.to_le_bytes();
    [0xfe, 0, 0, s[0], s[1]]
}

/// Greeting packet (sequence 0). The connection id sits at `greeting_id_offset()`.
fn build_greeting(caps: u32) -> Vec<u8> {
    let mut p = Vec::with_capacity(96);
    p.push(10); // protocol version
    p.extend_from_slice(SERVER_VERSION);
    p.push(0);
    p.extend_from_slice(&0u32.to_le_bytes()); // connection id, patched per connection
    p.extend_from_slice(&SCRAMBLE[..8]);
    p.push(0);
    p.extend_from_slice(&(caps as u16).to_le_bytes());
    p.push(CHARSET_UTF8MB4_GENERAL_CI);
    p.extend_from_slice(&SERVER_STATUS_AUTOCOMMIT.to_le_bytes());
    p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    p.push(21); // length of auth-plugin-data (20 + NUL)
    p.extend_from_slice(&[0u8; 10]);
    p.extend_from_slice(&SCRAMBLE[8..]);
    p.push(0);
    p.extend_from_slice(AUTH_PLUGIN);
    p.push(0);
    let mut out = Vec::with_capacity(p.len() + 4);
    put_packet(&mut out, 0, &p);
    out
}

fn greeting_id_offset() -> usize {
    4 + 1 + SERVER_VERSION.len() + 1
}

fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    // Only short strings occur here.
    debug_assert!(s.len() < 251);
    out.push(s.len() as u8);
    out.extend_from_slice(s);
}

/// One column definition (protocol 4.1).
fn column_def(name: &[u8], charset: u16, length: u32, ty: u8, flags: u16) -> Vec<u8> {
    let mut col = Vec::with_capacity(32);
    lenenc_str(&mut col, b"def"); // catalog
    lenenc_str(&mut col, b""); // schema
    lenenc_str(&mut col, b""); // table
    lenenc_str(&mut col, b""); // org_table
    lenenc_str(&mut col, name);
    lenenc_str(&mut col, b""); // org_name
    col.push(0x0c); // length of the fixed fields
    col.extend_from_slice(&charset.to_le_bytes());
    col.extend_from_slice(&length.to_le_bytes());
    col.push(ty);
    col.extend_from_slice(&flags.to_le_bytes());
    col.push(0); // decimals
    col.extend_from_slice(&[0, 0]);
    col
}

/// The column every canned row has: BIGINT `1` for COM_QUERY.
fn query_column() -> Vec<u8> {
    column_def(b"1", 63, 1, 0x08, 0x0081) // binary charset, LONGLONG, NOT_NULL | BINARY
}

/// The column every prepared statement has: CHAR(120) `c`, as sysbench's.
fn stmt_column() -> Vec<u8> {
    column_def(b"c", CHARSET_UTF8MB4_GENERAL_CI as u16, 480, 0xfe, 0x0001) // STRING, NOT_NULL
}

const STMT_VALUE: &[u8; 120] = b"floor-canned-value-floor-canned-value-floor-canned-value-\
floor-canned-value-floor-canned-value-floor-canned-value-123456";

/// A result set (column count, one column, one row, end) numbered from 1.
fn result_set(column: &[u8], row: &[u8], deprecate_eof: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + row.len());
    let mut seq = put_packet(&mut out, 1, &[1]); // column count = 1
    seq = put_packet(&mut out, seq, column);
    if !deprecate_eof {
        seq = put_packet(&mut out, seq, &eof_payload());
    }
    seq = put_packet(&mut out, seq, row);
    if deprecate_eof {
        put_packet(&mut out, seq, &ok_payload(0xfe));
    } else {
        put_packet(&mut out, seq, &eof_payload());
    }
    out
}

/// Result set answering a COM_QUERY (whose sequence id is 0): text row "1".
fn build_result_set(deprecate_eof: bool) -> Vec<u8> {
    result_set(&query_column(), &[1, b'1'], deprecate_eof)
}

/// Result set answering a COM_STMT_EXECUTE: binary row with the 120-byte value.
fn build_stmt_result_set(deprecate_eof: bool) -> Vec<u8> {
    let mut row = Vec::with_capacity(3 + STMT_VALUE.len());
    row.push(0x00); // binary row header
    row.push(0x00); // NULL bitmap: (1 column + 7 + 2) / 8 = 1 byte, nothing NULL
    lenenc_str(&mut row, STMT_VALUE);
    result_set(&stmt_column(), &row, deprecate_eof)
}

/// PREPARE_OK for a statement with `params` placeholders and the one column.
fn put_prepare_ok(out: &mut Vec<u8>, seq: u8, id: u32, params: u16, deprecate_eof: bool) {
    let mut ok = Vec::with_capacity(12);
    ok.push(0x00);
    ok.extend_from_slice(&id.to_le_bytes());
    ok.extend_from_slice(&1u16.to_le_bytes()); // columns
    ok.extend_from_slice(&params.to_le_bytes());
    ok.push(0); // filler
    ok.extend_from_slice(&0u16.to_le_bytes()); // warnings
    let mut seq = put_packet(out, seq, &ok);
    if params > 0 {
        let param = column_def(b"?", 63, 0, 0xfd, 0x0080); // VAR_STRING, BINARY
        for _ in 0..params {
            seq = put_packet(out, seq, &param);
        }
        if !deprecate_eof {
            seq = put_packet(out, seq, &eof_payload());
        }
    }
    seq = put_packet(out, seq, &stmt_column());
    if !deprecate_eof {
        put_packet(out, seq, &eof_payload());
    }
}

/// Placeholders in a statement: `?` outside quotes (enough for benchmark SQL).
fn count_placeholders(sql: &[u8]) -> u16 {
    let mut quote = 0u8;
    let mut n = 0u16;
    for &b in sql {
        match (quote, b) {
            (0, b'\'' | b'"' | b'`') => quote = b,
            (0, b'?') => n = n.saturating_add(1),
            (q, c) if q != 0 && c == q => quote = 0,
            _ => {}
        }
    }
    n
}

/// Appends `canned` (packets numbered from 1) renumbered from `first`.
fn put_renumbered(out: &mut Vec<u8>, canned: &[u8], first: u8) {
    let mut p = 0;
    let mut s = first;
    while p < canned.len() {
        let l = canned[p] as usize | (canned[p + 1] as usize) << 8 | (canned[p + 2] as usize) << 16;
        s = put_packet(out, s, &canned[p + 4..p + 4 + l]);
        p += 4 + l;
    }
}

struct Conn {
    authed: bool,
    deprecate_eof: bool,
    next_stmt_id: u32,
    out_armed: bool,
    pending_in: Vec<u8>,
    pending_out: Vec<u8>,
}

struct Server {
    ep: RawFd,
    advertise_deof: bool,
    conns: Vec<Option<Conn>>,
    greeting: Vec<u8>,
    rs_eof: Vec<u8>,
    rs_deof: Vec<u8>,
    stmt_rs_eof: Vec<u8>,
    stmt_rs_deof: Vec<u8>,
    next_id: u32,
    rbuf: Vec<u8>,
    wbuf: Vec<u8>,
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn epoll_ctl(ep: RawFd, op: i32, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
    let mut ev = libc::epoll_event { events, u64: token };
    if unsafe { libc::epoll_ctl(ep, op, fd, &mut ev) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sends as much of `buf` as the socket takes; returns bytes sent or None on a hard error.
fn send_some(fd: RawFd, buf: &[u8]) -> Option<usize> {
    let mut off = 0;
    while off < buf.len() {
        let n = unsafe { libc::send(fd, buf[off..].as_ptr() as *const libc::c_void, buf.len() - off, libc::MSG_NOSIGNAL) };
        if n < 0 {
            match errno() {
                libc::EINTR => continue,
                libc::EAGAIN => break,
                _ => return None,
            }
        }
        off += n as usize;
    }
    Some(off)
}

/// Appends a canned result set; renumbers it when the command's sequence id is unusual.
fn put_canned(out: &mut Vec<u8>, canned: &[u8], first: u8) {
    if first == 1 {
        out.extend_from_slice(canned);
    } else {
        put_renumbered(out, canned, first);
    }
}

fn starts_with_word(q: &[u8], word: &[u8]) -> bool {
    let q = match q.iter().position(|b| !b.is_ascii_whitespace()) {
        Some(i) => &q[i..],
        None => return false,
    };
    q.len() >= word.len() && q[..word.len()].eq_ignore_ascii_case(word) && q.get(word.len()).is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_')
}

impl Server {
    fn accept_all(&mut self, lfd: RawFd, tcp: bool) {
        loop {
            let fd = unsafe { libc::accept4(lfd, std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) };
            if fd < 0 {
                match errno() {
                    libc::EINTR | libc::ECONNABORTED => continue,
                    libc::EAGAIN => return,
                    e => {
                        // EMFILE and friends: report and let the backlog wait.
                        eprintln!("floor: accept: {}", io::Error::from_raw_os_error(e));
                        return;
                    }
                }
            }
            if tcp {
                let one: libc::c_int = 1;
                unsafe {
                    libc::setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, &one as *const _ as *const libc::c_void, std::mem::size_of::<libc::c_int>() as libc::socklen_t);
                }
            }
            self.next_id = self.next_id.wrapping_add(1);
            let off = greeting_id_offset();
            self.greeting[off..off + 4].copy_from_slice(&self.next_id.to_le_bytes());
            let mut conn = Conn { authed: false, deprecate_eof: false, next_stmt_id: 0, out_armed: false, pending_in: Vec::new(), pending_out: Vec::new() };
            let sent = match send_some(fd, &self.greeting) {
                Some(n) => n,
                None => {
                    unsafe { libc::close(fd) };
                    continue;
                }
            };
            let mut events = libc::EPOLLIN as u32;
            if sent < self.greeting.len() {
                conn.pending_out.extend_from_slice(&self.greeting[sent..]);
                conn.out_armed = true;
                events |= libc::EPOLLOUT as u32;
            }
            if epoll_ctl(self.ep, libc::EPOLL_CTL_ADD, fd, events, fd as u64).is_err() {
                unsafe { libc::close(fd) };
                continue;
            }
            let idx = fd as usize;
            if self.conns.len() <= idx {
                self.conns.resize_with(idx + 1, || None);
            }
            self.conns[idx] = Some(conn);
        }
    }

    fn close(&mut self, fd: RawFd) {
        // Closing the only reference removes it from the epoll set.
        unsafe { libc::close(fd) };
        self.conns[fd as usize] = None;
    }

    /// Handles every complete packet in `data`. Appends replies to `out`.
    /// Returns (bytes consumed, close requested).
    fn process(&self, conn: &mut Conn, data: &[u8], out: &mut Vec<u8>) -> (usize, bool) {
        let mut pos = 0;
        while data.len() - pos >= 4 {
            let len = data[pos] as usize | (data[pos + 1] as usize) << 8 | (data[pos + 2] as usize) << 16;
            if len == 0xff_ffff {
                return (pos, true); // multi-packet payloads never occur in this benchmark
            }
            if data.len() - pos - 4 < len {
                break;
            }
            let seq = data[pos + 3];
            let payload = &data[pos + 4..pos + 4 + len];
            pos += 4 + len;
            if !conn.authed {
                if payload.len() < 32 {
                    return (pos, true); // pre-4.1 or truncated response
                }
                let caps = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
                if caps & CLIENT_SSL != 0 && payload.len() == 32 {
                    return (pos, true); // SSL request: TLS is not offered
                }
                conn.deprecate_eof = self.advertise_deof && caps & CLIENT_DEPRECATE_EOF != 0;
                conn.authed = true;
                put_packet(out, seq.wrapping_add(1), &ok_payload(0x00));
                continue;
            }
            let reply = seq.wrapping_add(1);
            match payload.first().copied() {
                None | Some(COM_QUIT) => return (pos, true),
                Some(COM_QUERY) => {
                    let q = &payload[1..];
                    if starts_with_word(q, b"SET") || starts_with_word(q, b"USE") {
                        put_packet(out, reply, &ok_payload(0x00));
                    } else {
                        let rs = if conn.deprecate_eof { &self.rs_deof } else { &self.rs_eof };
                        put_canned(out, rs, reply);
                    }
                }
                Some(COM_STMT_PREPARE) => {
                    conn.next_stmt_id = conn.next_stmt_id.wrapping_add(1);
                    let params = count_placeholders(&payload[1..]);
                    put_prepare_ok(out, reply, conn.next_stmt_id, params, conn.deprecate_eof);
                }
                Some(COM_STMT_EXECUTE) => {
                    let rs = if conn.deprecate_eof { &self.stmt_rs_deof } else { &self.stmt_rs_eof };
                    put_canned(out, rs, reply);
                }
                Some(COM_STMT_CLOSE) => {}
                Some(COM_STMT_RESET) => {
                    put_packet(out, reply, &ok_payload(0x00));
                }
                Some(COM_PING) | Some(COM_INIT_DB) | Some(COM_RESET_CONNECTION) => {
                    put_packet(out, reply, &ok_payload(0x00));
                }
                Some(COM_SET_OPTION) => {
                    put_packet(out, reply, &eof_payload());
                }
                Some(_) => {
                    let mut e = Vec::with_capacity(32);
                    e.push(0xff);
                    e.extend_from_slice(&1047u16.to_le_bytes());
                    e.extend_from_slice(b"#08S01Unknown command");
                    put_packet(out, reply, &e);
                }
            }
        }
        (pos, false)
    }

    fn on_event(&mut self, fd: RawFd, events: u32) {
        let mut conn = match self.conns.get_mut(fd as usize).and_then(|c| c.take()) {
            Some(c) => c,
            None => return,
        };
        let mut want_close = false;

        if events & libc::EPOLLOUT as u32 != 0 && !conn.pending_out.is_empty() {
            match send_some(fd, &conn.pending_out) {
                Some(n) => {
                    conn.pending_out.drain(..n);
                }
                None => want_close = true,
            }
        }

        if !want_close && events & (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0 {
            let mut rbuf = std::mem::take(&mut self.rbuf);
            let n = unsafe { libc::read(fd, rbuf.as_mut_ptr() as *mut libc::c_void, rbuf.len()) };
            if n == 0 {
                want_close = true;
            } else if n < 0 {
                let e = errno();
                if e != libc::EAGAIN && e != libc::EINTR {
                    want_close = true;
                }
            } else {
                let n = n as usize;
                let mut out = std::mem::take(&mut self.wbuf);
                out.clear();
                let quit;
                if conn.pending_in.is_empty() {
                    let (used, q) = self.process(&mut conn, &rbuf[..n], &mut out);
                    quit = q;
                    if !q && used < n {
                        conn.pending_in.extend_from_slice(&rbuf[used..n]);
                    }
                } else {
                    let mut data = std::mem::take(&mut conn.pending_in);
                    data.extend_from_slice(&rbuf[..n]);
                    let (used, q) = self.process(&mut conn, &data, &mut out);
                    quit = q;
                    data.drain(..used);
                    if data.len() > MAX_PENDING_IN {
                        want_close = true;
                    }
                    conn.pending_in = data;
                }
                if !out.is_empty() {
                    if conn.pending_out.is_empty() {
                        match send_some(fd, &out) {
                            Some(sent) => conn.pending_out.extend_from_slice(&out[sent..]),
                            None => want_close = true,
                        }
                    } else {
                        conn.pending_out.extend_from_slice(&out);
                    }
                }
                self.wbuf = out;
                if quit {
                    want_close = true;
                }
            }
            self.rbuf = rbuf;
        }

        if want_close {
            self.conns[fd as usize] = Some(conn);
            self.close(fd);
            return;
        }
        let need_out = !conn.pending_out.is_empty();
        if need_out != conn.out_armed {
            let ev = libc::EPOLLIN as u32 | if need_out { libc::EPOLLOUT as u32 } else { 0 };
            if epoll_ctl(self.ep, libc::EPOLL_CTL_MOD, fd, ev, fd as u64).is_err() {
                self.conns[fd as usize] = Some(conn);
                self.close(fd);
                return;
            }
            conn.out_armed = need_out;
        }
        self.conns[fd as usize] = Some(conn);
    }
}

fn usage() -> ! {
    eprintln!("usage: floor [--port N] [--socket PATH] [--bind ADDR] [--deprecate-eof]");
    std::process::exit(2);
}

fn set_backlog(fd: RawFd) {
    // std listens with a small backlog; raise it like the servers under test (back_log 4096).
    unsafe { libc::listen(fd, 4096) };
}

fn main() {
    let mut port: Option<u16> = None;
    let mut socket: Option<String> = None;
    let mut bind = String::from("127.0.0.1");
    let mut advertise_deof = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        let mut val = || inline.clone().or_else(|| args.next()).unwrap_or_else(|| usage());
        match key.replace('_', "-").as_str() {
            "--port" => port = Some(val().parse().unwrap_or_else(|_| usage())),
            "--socket" => socket = Some(val()),
            "--bind" | "--bind-address" => bind = val(),
            "--deprecate-eof" => advertise_deof = true,
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    if port.is_none() && socket.is_none() {
        usage();
    }

    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if ep < 0 {
        panic!("epoll_create1: {}", io::Error::last_os_error());
    }

    let tcp = port.map(|p| {
        let l = TcpListener::bind((bind.as_str(), p)).unwrap_or_else(|e| {
            eprintln!("floor: bind {bind}:{p}: {e}");
            std::process::exit(1)
        });
        l.set_nonblocking(true).expect("set_nonblocking");
        set_backlog(l.as_raw_fd());
        epoll_ctl(ep, libc::EPOLL_CTL_ADD, l.as_raw_fd(), libc::EPOLLIN as u32, TOK_TCP).expect("epoll add");
        l
    });
    let unix = socket.as_ref().map(|path| {
        // Remove a stale socket file from an earlier run (only if it is a socket).
        if let Ok(md) = std::fs::symlink_metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            if md.file_type().is_socket() {
                let _ = std::fs::remove_file(path);
            }
        }
        let l = UnixListener::bind(path).unwrap_or_else(|e| {
            eprintln!("floor: bind {path}: {e}");
            std::process::exit(1)
        });
        l.set_nonblocking(true).expect("set_nonblocking");
        set_backlog(l.as_raw_fd());
        epoll_ctl(ep, libc::EPOLL_CTL_ADD, l.as_raw_fd(), libc::EPOLLIN as u32, TOK_UNIX).expect("epoll add");
        l
    });

    let caps = CLIENT_LONG_PASSWORD
        | CLIENT_FOUND_ROWS
        | CLIENT_LONG_FLAG
        | CLIENT_CONNECT_WITH_DB
        | CLIENT_PROTOCOL_41
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | if advertise_deof { CLIENT_DEPRECATE_EOF } else { 0 };

    let mut server = Server {
        ep,
        advertise_deof,
        conns: Vec::new(),
        greeting: build_greeting(caps),
        rs_eof: build_result_set(false),
        rs_deof: build_result_set(true),
        stmt_rs_eof: build_stmt_result_set(false),
        stmt_rs_deof: build_stmt_result_set(true),
        next_id: 0,
        rbuf: vec![0u8; 16 * 1024],
        wbuf: Vec::with_capacity(4096),
    };

    let port_s = tcp.as_ref().map(|l| l.local_addr().map(|a| a.port().to_string()).unwrap_or_default()).unwrap_or_default();
    eprintln!("floor ready: port={} socket={}", port_s, socket.as_deref().unwrap_or(""));

    let tcp_fd = tcp.as_ref().map(|l| l.as_raw_fd()).unwrap_or(-1);
    let unix_fd = unix.as_ref().map(|l| l.as_raw_fd()).unwrap_or(-1);
    let mut events: Vec<libc::epoll_event> = vec![libc::epoll_event { events: 0, u64: 0 }; 512];
    loop {
        let n = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), events.len() as i32, -1) };
        if n < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            panic!("epoll_wait: {}", io::Error::last_os_error());
        }
        for ev in &events[..n as usize] {
            let (token, flags) = (ev.u64, ev.events);
            match token {
                TOK_TCP => server.accept_all(tcp_fd, true),
                TOK_UNIX => server.accept_all(unix_fd, false),
                fd => server.on_event(fd as RawFd, flags),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequence ids of the packets in `buf`, which must hold whole packets only.
    fn sequence_ids(buf: &[u8]) -> Vec<u8> {
        let mut p = 0;
        let mut seqs = vec![];
        while p < buf.len() {
            let l = buf[p] as usize | (buf[p + 1] as usize) << 8 | (buf[p + 2] as usize) << 16;
            seqs.push(buf[p + 3]);
            p += 4 + l;
        }
        assert_eq!(p, buf.len());
        seqs
    }

    #[test]
    fn greeting_layout() {
        let g = build_greeting(CLIENT_PROTOCOL_41 | CLIENT_PLUGIN_AUTH);
        let len = g[0] as usize | (g[1] as usize) << 8 | (g[2] as usize) << 16;
        assert_eq!(len + 4, g.len());
        assert_eq!(g[3], 0);
        assert_eq!(g[4], 10);
        assert!(g.ends_with(b"mysql_native_password\0"));
    }

    #[test]
    fn result_set_packets() {
        for deof in [false, true] {
            let want: Vec<u8> = if deof { vec![1, 2, 3, 4] } else { vec![1, 2, 3, 4, 5] };
            assert_eq!(sequence_ids(&build_result_set(deof)), want);
        }
    }

    #[test]
    fn prepared_statement_packets() {
        assert_eq!(count_placeholders(b"SELECT c FROM sbtest1 WHERE id=?"), 1);
        assert_eq!(count_placeholders(b"SELECT '?' , ? , `a?` FROM t WHERE x BETWEEN ? AND ?"), 3);
        for deof in [false, true] {
            let mut out = Vec::new();
            put_prepare_ok(&mut out, 1, 7, 2, deof);
            // PREPARE_OK, 2 params (+EOF), 1 column (+EOF)
            assert_eq!(sequence_ids(&out).len(), if deof { 4 } else { 6 });
            assert_eq!(&out[5..9], &7u32.to_le_bytes());
            let rs = build_stmt_result_set(deof);
            let mut renumbered = Vec::new();
            put_canned(&mut renumbered, &rs, 3);
            assert_eq!(renumbered.len(), rs.len());
            assert_eq!(renumbered[3], 3);
        }
    }

    #[test]
    fn set_detection() {
        assert!(starts_with_word(b"  set autocommit=1", b"SET"));
        assert!(!starts_with_word(b"SETTINGS", b"SET"));
        assert!(!starts_with_word(b"SELECT 1", b"SET"));
    }
}
