//! The client side of the MySQL protocol, sans-I/O.
//!
//! `Client` is a state machine: the caller feeds it the bytes the server sent
//! (`feed`), sends whatever it leaves in `out`, and reads the returned
//! `Step`s. It performs the v10 handshake with mysql_native_password or
//! caching_sha2_password (fast path; an AuthSwitchRequest is followed), can
//! send one COM_QUERY and skim its result (text protocol, with or without
//! DEPRECATE_EOF), COM_PING and COM_QUIT. It never touches a socket, so the
//! same code serves the blocking connect loop and the epoll drivers, and the
//! unit tests drive it against canned server bytes built with turnstile-wire.
//!
//! Everything is bounded: one logical packet may be at most `MAX_PACKET`
//! bytes; a longer one is a protocol failure (the slow-reader mode never reads
//! its big result, so it never meets this limit).

use turnstile_wire::auth;
use turnstile_wire::buf::Reader;
use turnstile_wire::consts::{cap, com};
use turnstile_wire::handshake::HandshakeResponse;

/// Largest logical packet the load generator accepts (results it reads are tiny).
pub const MAX_PACKET: usize = 64 << 20;

/// Capabilities the load generator asks for (no SSL, no compression, no
/// DEPRECATE_EOF unless `deprecate_eof` is set and the server offers it).
const CLIENT_CAPS: u32 =
    cap::LONG_PASSWORD | cap::LONG_FLAG | cap::PROTOCOL_41 | cap::TRANSACTIONS | cap::SECURE_CONNECTION | cap::MULTI_RESULTS | cap::PLUGIN_AUTH | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA;

#[derive(Debug, Clone)]
pub struct Login {
    pub user: String,
    pub password: String,
    pub database: Option<String>,
    /// Ask for CLIENT_DEPRECATE_EOF when the server offers it.
    pub deprecate_eof: bool,
}

/// Why a connection failed, as a short stable label (used as a histogram key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// ERR packet from the server: code and message.
    Server(u16, String),
    /// Malformed or unexpected bytes.
    Protocol(&'static str),
    /// The server asked for caching_sha2_password full authentication (needs TLS or RSA).
    FullAuthRequired,
}

impl Failure {
    pub fn kind(&self) -> String {
        match self {
            Failure::Server(code, _) => format!("ERR {code}"),
            Failure::Protocol(what) => format!("protocol: {what}"),
            Failure::FullAuthRequired => "full auth required".to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Login finished with OK.
    Authenticated,
    /// The query's result (or OK) has been read completely.
    QueryDone {
        rows: u64,
    },
    /// COM_PING answered with OK.
    Pong,
    Failed(Failure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Greeting,
    Auth,
    Ready,
    ResultHead,
    Columns(u64),
    ColumnsEof,
    Rows(u64),
    Ping,
    Failed,
}

pub struct Client {
    login: Login,
    state: State,
    /// Bytes received and not yet framed.
    inbuf: Vec<u8>,
    /// A logical packet being joined from 16 MiB frames.
    partial: Vec<u8>,
    /// Bytes the caller must send.
    pub out: Vec<u8>,
    seq: u8,
    server_caps: u32,
    deprecate_eof: bool,
    pub server_version: String,
    pub connection_id: u32,
}

fn push_packet(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
    let n = payload.len();
    debug_assert!(n < 0xff_ffff);
    out.extend_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, seq]);
    out.extend_from_slice(payload);
}

fn err_packet(p: &[u8]) -> Failure {
    // 0xff, code u16, ['#', sqlstate(5)], message
    if p.len() < 3 {
        return Failure::Protocol("short ERR packet");
    }
    let code = u16::from_le_bytes([p[1], p[2]]);
    let mut msg = &p[3..];
    if msg.first() == Some(&b'#') && msg.len() >= 6 {
        msg = &msg[6..];
    }
    Failure::Server(code, String::from_utf8_lossy(msg).into_owned())
}

/// The parts of a protocol-v10 greeting the client needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GreetingInfo {
    pub server_version: String,
    pub connection_id: u32,
    pub scramble: Vec<u8>,
    pub capabilities: u32,
    pub auth_plugin: String,
}

pub fn parse_greeting(p: &[u8]) -> Result<GreetingInfo, Failure> {
    let bad = |_| Failure::Protocol("malformed greeting");
    let mut r = Reader::new(p);
    if r.u8().map_err(bad)? != 10 {
        return Err(Failure::Protocol("greeting is not protocol v10"));
    }
    let server_version = String::from_utf8_lossy(r.nul_bytes()).into_owned();
    let connection_id = r.u32().map_err(bad)?;
    let mut scramble = r.take(8).map_err(bad)?.to_vec();
    r.u8().map_err(bad)?; // filler
    let cap_lo = r.u16().map_err(bad)? as u32;
    let mut capabilities = cap_lo;
    let mut auth_plugin = String::new();
    if !r.is_empty() {
        r.u8().map_err(bad)?; // charset
        r.u16().map_err(bad)?; // status
        capabilities |= (r.u16().map_err(bad)? as u32) << 16;
        let auth_len = r.u8().map_err(bad)? as usize;
        r.take(10).map_err(bad)?; // reserved (MariaDB keeps extended caps in the last 4)
        if capabilities & cap::SECURE_CONNECTION != 0 {
            let n = std::cmp::max(13, auth_len.saturating_sub(8));
            let part2 = r.take(n.min(r.remaining())).map_err(bad)?;
            // The second part is NUL-terminated; the scramble is 20 bytes in all.
            let part2 = match part2.iter().position(|&b| b == 0) {
                Some(i) => &part2[..i],
                None => part2,
            };
            scramble.extend_from_slice(part2);
        }
        if capabilities & cap::PLUGIN_AUTH != 0 {
            auth_plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
        }
    }
    if auth_plugin.is_empty() {
        auth_plugin = auth::NATIVE.to_string();
    }
    Ok(GreetingInfo { server_version, connection_id, scramble, capabilities, auth_plugin })
}

fn token_for(plugin: &str, password: &str, scramble: &[u8]) -> Result<Vec<u8>, Failure> {
    match plugin {
        auth::NATIVE => Ok(auth::native_token(password.as_bytes(), scramble)),
        auth::CACHING_SHA2 => Ok(auth::sha2_token(password.as_bytes(), scramble)),
        _ => Err(Failure::Protocol("unsupported auth plugin")),
    }
}

impl Client {
    pub fn new(login: Login) -> Client {
        Client { login, state: State::Greeting, inbuf: Vec::new(), partial: Vec::new(), out: Vec::new(), seq: 0, server_caps: 0, deprecate_eof: false, server_version: String::new(), connection_id: 0 }
    }

    /// True once the login finished and no command is in flight.
    pub fn is_ready(&self) -> bool {
        self.state == State::Ready
    }

    /// Queue COM_QUERY. Only valid when `is_ready()`.
    pub fn query(&mut self, sql: &[u8]) {
        assert!(self.is_ready(), "query() before login or while a command is in flight");
        let mut p = Vec::with_capacity(1 + sql.len());
        p.push(com::QUERY);
        p.extend_from_slice(sql);
        push_packet(&mut self.out, 0, &p);
        self.state = State::ResultHead;
        self.seq = 1;
    }

    /// Queue COM_PING. Only valid when `is_ready()`.
    pub fn ping(&mut self) {
        assert!(self.is_ready(), "ping() before login or while a command is in flight");
        push_packet(&mut self.out, 0, &[com::PING]);
        self.state = State::Ping;
        self.seq = 1;
    }

    /// Queue COM_QUIT (the server closes the connection; no reply).
    pub fn quit(&mut self) {
        push_packet(&mut self.out, 0, &[com::QUIT]);
    }

    /// Feed received bytes; returns what happened. After `Step::Failed` the
    /// connection is unusable.
    pub fn feed(&mut self, data: &[u8]) -> Vec<Step> {
        let mut steps = Vec::new();
        if self.state == State::Failed {
            return steps;
        }
        self.inbuf.extend_from_slice(data);
        let mut pos = 0;
        loop {
            let avail = &self.inbuf[pos..];
            if avail.len() < 4 {
                break;
            }
            let len = avail[0] as usize | (avail[1] as usize) << 8 | (avail[2] as usize) << 16;
            if avail.len() < 4 + len {
                break;
            }
            let seq = avail[3];
            if self.partial.len() + len > MAX_PACKET {
                self.state = State::Failed;
                steps.push(Step::Failed(Failure::Protocol("packet larger than the load generator accepts")));
                break;
            }
            self.partial.extend_from_slice(&avail[4..4 + len]);
            pos += 4 + len;
            self.seq = seq.wrapping_add(1);
            if len == 0xff_ffff {
                continue; // more frames of the same logical packet follow
            }
            let payload = std::mem::take(&mut self.partial);
            if let Some(step) = self.on_packet(&payload) {
                let failed = matches!(step, Step::Failed(_));
                steps.push(step);
                if failed {
                    self.state = State::Failed;
                    break;
                }
            }
        }
        self.inbuf.drain(..pos);
        steps
    }

    fn on_packet(&mut self, p: &[u8]) -> Option<Step> {
        let first = *p.first().unwrap_or(&0);
        match self.state {
            State::Greeting => {
                if first == 0xff {
                    return Some(Step::Failed(err_packet(p)));
                }
                let g = match parse_greeting(p) {
                    Ok(g) => g,
                    Err(f) => return Some(Step::Failed(f)),
                };
                if g.capabilities & cap::PROTOCOL_41 == 0 {
                    return Some(Step::Failed(Failure::Protocol("server lacks PROTOCOL_41")));
                }
                self.server_caps = g.capabilities;
                self.server_version = g.server_version.clone();
                self.connection_id = g.connection_id;
                let mut caps = CLIENT_CAPS & (g.capabilities | cap::LONG_PASSWORD);
                if self.login.deprecate_eof && g.capabilities & cap::DEPRECATE_EOF != 0 {
                    caps |= cap::DEPRECATE_EOF;
                }
                if self.login.database.is_some() && g.capabilities & cap::CONNECT_WITH_DB != 0 {
                    caps |= cap::CONNECT_WITH_DB;
                }
                self.deprecate_eof = caps & cap::DEPRECATE_EOF != 0;
                let plugin = match g.auth_plugin.as_str() {
                    auth::NATIVE | auth::CACHING_SHA2 => g.auth_plugin.clone(),
                    _ => auth::NATIVE.to_string(), // the server will switch us
                };
                let token = match token_for(&plugin, &self.login.password, &g.scramble) {
                    Ok(t) => t,
                    Err(f) => return Some(Step::Failed(f)),
                };
                let resp = HandshakeResponse {
                    capabilities: caps,
                    max_packet: 1 << 24,
                    charset: 45, // utf8mb4_general_ci
                    username: self.login.user.clone(),
                    auth_response: token,
                    database: if caps & cap::CONNECT_WITH_DB != 0 { self.login.database.clone() } else { None },
                    auth_plugin: Some(plugin),
                    attributes_raw: Vec::new(),
                };
                let mut payload = Vec::with_capacity(128);
                resp.encode(&mut payload);
                push_packet(&mut self.out, self.seq, &payload);
                self.state = State::Auth;
                None
            }
            State::Auth => match first {
                0x00 => {
                    self.state = State::Ready;
                    Some(Step::Authenticated)
                }
                0xff => Some(Step::Failed(err_packet(p))),
                0xfe => {
                    // AuthSwitchRequest: plugin name NUL, then the new scramble (NUL-terminated).
                    let mut r = Reader::new(&p[1..]);
                    let plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
                    let mut data = r.rest();
                    if data.last() == Some(&0) {
                        data = &data[..data.len() - 1];
                    }
                    match token_for(&plugin, &self.login.password, data) {
                        Ok(token) => {
                            push_packet(&mut self.out, self.seq, &token);
                            None
                        }
                        Err(f) => Some(Step::Failed(f)),
                    }
                }
                0x01 => match p.get(1) {
                    Some(&auth::FAST_AUTH_SUCCESS) => None, // the OK follows
                    Some(&auth::PERFORM_FULL_AUTH) => Some(Step::Failed(Failure::FullAuthRequired)),
                    _ => Some(Step::Failed(Failure::Protocol("unexpected AuthMoreData"))),
                },
                _ => Some(Step::Failed(Failure::Protocol("unexpected packet during login"))),
            },
            State::Ready => Some(Step::Failed(Failure::Protocol("packet while idle"))),
            State::Ping => match first {
                0x00 => {
                    self.state = State::Ready;
                    Some(Step::Pong)
                }
                0xff => Some(Step::Failed(err_packet(p))),
                _ => Some(Step::Failed(Failure::Protocol("unexpected reply to COM_PING"))),
            },
            State::ResultHead => match first {
                0x00 => {
                    self.state = State::Ready;
                    Some(Step::QueryDone { rows: 0 })
                }
                0xff => Some(Step::Failed(err_packet(p))),
                0xfb => Some(Step::Failed(Failure::Protocol("LOCAL INFILE request"))),
                _ => {
                    let mut r = Reader::new(p);
                    match r.lenenc_int() {
                        Ok(Some(n)) if n > 0 && n < 4096 => {
                            self.state = State::Columns(n);
                            None
                        }
                        _ => Some(Step::Failed(Failure::Protocol("bad column count"))),
                    }
                }
            },
            State::Columns(n) => {
                if first == 0xff {
                    return Some(Step::Failed(err_packet(p)));
                }
                self.state = if n > 1 {
                    State::Columns(n - 1)
                } else if self.deprecate_eof {
                    State::Rows(0)
                } else {
                    State::ColumnsEof
                };
                None
            }
            State::ColumnsEof => {
                if first == 0xfe && p.len() < 9 {
                    self.state = State::Rows(0);
                    None
                } else {
                    Some(Step::Failed(Failure::Protocol("missing EOF after columns")))
                }
            }
            State::Rows(n) => {
                if first == 0xff {
                    return Some(Step::Failed(err_packet(p)));
                }
                let is_end = first == 0xfe && if self.deprecate_eof { p.len() < 0xff_ffff } else { p.len() < 9 };
                if is_end {
                    // MORE_RESULTS_EXISTS is not requested by our queries; treat the end as final.
                    self.state = State::Ready;
                    Some(Step::QueryDone { rows: n })
                } else {
                    self.state = State::Rows(n + 1);
                    None
                }
            }
            State::Failed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_wire::handshake::Greeting;

    const SCRAMBLE: [u8; 20] = *b"ABCDEFGHIJKLMNOPQRST";

    fn frame(seq: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        push_packet(&mut v, seq, payload);
        v
    }

    fn greeting(plugin: &str, caps: u32) -> Vec<u8> {
        let g = Greeting { server_version: "8.0.36-test", connection_id: 7, scramble: &SCRAMBLE, capabilities: caps, charset: 45, status: 2, auth_plugin: plugin };
        let mut p = Vec::new();
        g.encode(&mut p);
        frame(0, &p)
    }

    fn login() -> Login {
        Login { user: "root".into(), password: "pw".into(), database: Some("sbtest".into()), deprecate_eof: false }
    }

    /// Split the client's output into (seq, payload) packets.
    fn packets(mut b: &[u8]) -> Vec<(u8, Vec<u8>)> {
        let mut v = Vec::new();
        while b.len() >= 4 {
            let n = b[0] as usize | (b[1] as usize) << 8 | (b[2] as usize) << 16;
            v.push((b[3], b[4..4 + n].to_vec()));
            b = &b[4 + n..];
        }
        v
    }

    #[test]
    fn greeting_parses_scramble_and_plugin() {
        let g = greeting("caching_sha2_password", cap::SERVER_DEFAULT);
        let info = parse_greeting(&g[4..]).unwrap();
        assert_eq!(info.scramble, SCRAMBLE.to_vec());
        assert_eq!(info.auth_plugin, "caching_sha2_password");
        assert_eq!(info.connection_id, 7);
        assert_eq!(info.server_version, "8.0.36-test");
    }

    #[test]
    fn sha2_fast_auth_login_and_query() {
        let mut c = Client::new(login());
        assert!(c.feed(&greeting(auth::CACHING_SHA2, cap::SERVER_DEFAULT)).is_empty());
        let pk = packets(&c.out);
        assert_eq!(pk.len(), 1);
        assert_eq!(pk[0].0, 1);
        let resp = HandshakeResponse::decode(&pk[0].1).unwrap();
        assert_eq!(resp.username, "root");
        assert_eq!(resp.database.as_deref(), Some("sbtest"));
        assert_eq!(resp.auth_plugin.as_deref(), Some(auth::CACHING_SHA2));
        // The server can verify the token against what it stores.
        assert!(auth::verify_sha2(Some(&auth::sha2_stored(b"pw")), &SCRAMBLE, &resp.auth_response));
        c.out.clear();
        // fast auth success, then OK.
        let mut bytes = frame(2, &[0x01, auth::FAST_AUTH_SUCCESS]);
        bytes.extend(frame(3, &[0, 0, 0, 2, 0, 0, 0]));
        assert_eq!(c.feed(&bytes), vec![Step::Authenticated]);
        c.query(b"SELECT 1");
        assert_eq!(packets(&c.out), vec![(0, b"\x03SELECT 1".to_vec())]);
        // one column, EOF, one row, EOF — fed one byte at a time.
        let mut res = frame(1, &[1]);
        res.extend(frame(2, b"\x03def\x00\x00\x00\x011\x00\x0c\x3f\x00\x01\x00\x00\x00\x08\x81\x00\x00\x00\x00"));
        res.extend(frame(3, &[0xfe, 0, 0, 2, 0]));
        res.extend(frame(4, b"\x011"));
        res.extend(frame(5, &[0xfe, 0, 0, 2, 0]));
        let mut steps = Vec::new();
        for b in &res {
            steps.extend(c.feed(std::slice::from_ref(b)));
        }
        assert_eq!(steps, vec![Step::QueryDone { rows: 1 }]);
        assert!(c.is_ready());
    }

    #[test]
    fn native_password_and_auth_switch() {
        let mut c = Client::new(login());
        c.feed(&greeting(auth::NATIVE, cap::SERVER_DEFAULT));
        let pk = packets(&c.out);
        let resp = HandshakeResponse::decode(&pk[0].1).unwrap();
        assert!(auth::verify_native(Some(&auth::native_stored(b"pw")), &SCRAMBLE, &resp.auth_response));
        c.out.clear();
        // The server switches us to caching_sha2_password with a new scramble.
        let fresh = *b"01234567890123456789";
        let mut sw = vec![0xfe];
        sw.extend_from_slice(b"caching_sha2_password\0");
        sw.extend_from_slice(&fresh);
        sw.push(0);
        assert!(c.feed(&frame(2, &sw)).is_empty());
        let pk = packets(&c.out);
        assert_eq!(pk[0].0, 3);
        assert!(auth::verify_sha2(Some(&auth::sha2_stored(b"pw")), &fresh, &pk[0].1));
        assert_eq!(c.feed(&frame(4, &[0, 0, 0, 2, 0, 0, 0])), vec![Step::Authenticated]);
    }

    #[test]
    fn err_1040_on_greeting_and_wrong_password() {
        let mut c = Client::new(login());
        let mut e = vec![0xff, 0x10, 0x04];
        e.extend_from_slice(b"#08004Too many connections");
        let steps = c.feed(&frame(0, &e));
        assert_eq!(steps.len(), 1);
        match &steps[0] {
            Step::Failed(f) => assert_eq!(f.kind(), "ERR 1040"),
            s => panic!("{s:?}"),
        }
        let mut c = Client::new(login());
        c.feed(&greeting(auth::NATIVE, cap::SERVER_DEFAULT));
        let mut e = vec![0xff, 0x15, 0x04];
        e.extend_from_slice(b"#28000Access denied");
        match &c.feed(&frame(2, &e))[0] {
            Step::Failed(Failure::Server(1045, m)) => assert_eq!(m, "Access denied"),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn deprecate_eof_result_and_ping() {
        let mut l = login();
        l.deprecate_eof = true;
        let mut c = Client::new(l);
        c.feed(&greeting(auth::NATIVE, cap::SERVER_DEFAULT));
        let resp = HandshakeResponse::decode(&packets(&c.out)[0].1).unwrap();
        assert_ne!(resp.capabilities & cap::DEPRECATE_EOF, 0);
        c.out.clear();
        c.feed(&frame(2, &[0, 0, 0, 2, 0, 0, 0]));
        c.query(b"SELECT 1");
        let mut res = frame(1, &[1]);
        res.extend(frame(2, b"\x03def\x00\x00\x00\x011\x00\x0c\x3f\x00\x01\x00\x00\x00\x08\x81\x00\x00\x00\x00"));
        res.extend(frame(3, b"\x011"));
        res.extend(frame(4, b"\x011"));
        res.extend(frame(5, &[0xfe, 0, 0, 2, 0, 0, 0]));
        assert_eq!(c.feed(&res), vec![Step::QueryDone { rows: 2 }]);
        c.out.clear();
        c.ping();
        assert_eq!(packets(&c.out), vec![(0, vec![com::PING])]);
        assert_eq!(c.feed(&frame(1, &[0, 0, 0, 2, 0, 0, 0])), vec![Step::Pong]);
    }

    #[test]
    fn mariadb_style_greeting() {
        // MariaDB 10.11: 20-byte scramble, auth data length 21, mysql_native_password.
        let mut p = vec![10];
        p.extend_from_slice(b"5.5.5-10.11.19-MariaDB\0");
        p.extend_from_slice(&5u32.to_le_bytes());
        p.extend_from_slice(&SCRAMBLE[..8]);
        p.push(0);
        p.extend_from_slice(&0xf7feu16.to_le_bytes());
        p.push(45);
        p.extend_from_slice(&2u16.to_le_bytes());
        p.extend_from_slice(&0x81bfu16.to_le_bytes());
        p.push(21);
        p.extend_from_slice(&[0; 6]);
        p.extend_from_slice(&[0x1d, 0, 0, 0]);
        p.extend_from_slice(&SCRAMBLE[8..]);
        p.push(0);
        p.extend_from_slice(b"mysql_native_password\0");
        let g = parse_greeting(&p).unwrap();
        assert_eq!(g.scramble, SCRAMBLE.to_vec());
        assert_eq!(g.auth_plugin, auth::NATIVE);
    }

    #[test]
    fn garbage_never_panics() {
        for len in 0..80usize {
            let junk: Vec<u8> = (0..len).map(|i| (i * 53 + 7) as u8).collect();
            let mut c = Client::new(login());
            let _ = c.feed(&frame(0, &junk));
            let _ = parse_greeting(&junk);
        }
    }
}
