//! The protocol session and the connection driver, tested in memory: no
//! socket, no listener, no scheduler thread. A `Server` is built around the
//! blackhole engine in a temporary directory; each test plays the client by
//! handing bytes to a `Driver` and reading what it asks to write, with the
//! clock injected (`Driver::new`'s accept time, `wait_ms`'s clock), so
//! timeouts are tested without waiting.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use turnstile_server::accounts::{Accounts, Peer};
use turnstile_server::driver::{self, Driver, Want};
use turnstile_server::session::Session;
use turnstile_server::{Config, Server};
use turnstile_wire::auth;
use turnstile_wire::consts::cap;
use turnstile_wire::handshake::HandshakeResponse;

const PASSWORD: &str = "pw";
const T0_MS: u64 = 1_000_000;

/// A temporary data directory, removed when the server is dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Mem {
    server: Arc<Server>,
    _dir: Dir,
}

fn server_with(tweak: impl FnOnce(&mut Config)) -> Mem {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("ts-mem-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    // No RSA key pair unless a test asks (generating one takes a tenth of a second).
    let mut config = Config { datadir: dir.clone(), engine: turnstile_server::config::EngineKind::Blackhole, caching_sha2_password_auto_generate_rsa_keys: false, ..Config::default() };
    tweak(&mut config);
    let accounts = Accounts::open(&dir, Some(PASSWORD), false, 5000, turnstile_wire::auth::CACHING_SHA2).unwrap();
    // root's first login since the start would be a full authentication: most
    // tests start from the fast path, as after any earlier login (the
    // full_authentication tests below start cold).
    if !config.caching_sha2_password_auto_generate_rsa_keys {
        let root = accounts.find("root", &Peer { ip: "127.0.0.1".into(), local: true }).unwrap();
        assert!(root.secret.check_password(PASSWORD.as_bytes()));
    }
    let engine = Box::new(turnstile_engine::blackhole::Blackhole::open(&dir).unwrap());
    let tls = turnstile_server::tls::Tls::load(&config).unwrap();
    let rsa = turnstile_server::rsa_keys::RsaKeys::load(&config).unwrap();
    let mut server = Server::new(config, engine, accounts, None, 0, 0);
    server.tls = tls;
    server.rsa = rsa;
    Mem { server: Arc::new(server), _dir: Dir(dir) }
}

fn server() -> Mem {
    server_with(|_| {})
}

/// Frame `payload` as one packet with sequence id `seq`.
fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    v.push(seq);
    v.extend_from_slice(payload);
    v
}

/// The client side of one connection.
struct Client {
    d: Driver,
    /// Bytes the driver wrote and the tests have not read yet.
    inbox: Vec<u8>,
    /// Calls of the mid-command flush.
    flushes: usize,
    last: Want,
    scramble: Vec<u8>,
}

impl Client {
    fn new(m: &Mem) -> Client {
        Client::with_peer(m, Peer { ip: "127.0.0.1".into(), local: true })
    }

    fn with_peer(m: &Mem, peer: Peer) -> Client {
        let s = Session::new(m.server.clone(), peer, None, false, -1);
        let mut c = Client { d: Driver::new(s, T0_MS), inbox: Vec::new(), flushes: 0, last: Want::Close, scramble: Vec::new() };
        c.d.start();
        c.pump_budget(usize::MAX);
        let (seq, greeting) = c.next_packet();
        assert_eq!(seq, 0);
        c.scramble = greeting_scramble(&greeting);
        c
    }

    /// Poll until the driver wants to read (or closes); writes go to `inbox`.
    fn pump_budget(&mut self, mut budget: usize) -> Want {
        loop {
            let (inbox, flushes) = (&mut self.inbox, &mut self.flushes);
            let mut flush = |buf: &mut Vec<u8>| {
                *flushes += 1;
                inbox.append(buf);
                Ok(())
            };
            let w = self.d.poll(&mut budget, &mut flush);
            self.last = w;
            match w {
                Want::Write => {
                    let out = std::mem::take(self.d.out());
                    self.inbox.extend_from_slice(&out);
                }
                Want::Close => {
                    let out = std::mem::take(self.d.out());
                    self.inbox.extend_from_slice(&out);
                    return w;
                }
                Want::Read { .. } | Want::Backend { .. } | Want::Yield | Want::StartTls | Want::Sleep => return w,
            }
        }
    }

    fn pump(&mut self) -> Want {
        self.pump_budget(usize::MAX)
    }

    fn send(&mut self, seq: u8, payload: &[u8]) -> Want {
        self.d.received(&packet(seq, payload));
        self.pump()
    }

    fn next_packet(&mut self) -> (u8, Vec<u8>) {
        assert!(self.inbox.len() >= 4, "no packet in {:?}", self.inbox);
        let len = u32::from_le_bytes([self.inbox[0], self.inbox[1], self.inbox[2], 0]) as usize;
        let seq = self.inbox[3];
        let p = self.inbox[4..4 + len].to_vec();
        self.inbox.drain(..4 + len);
        (seq, p)
    }

    fn packets(&mut self) -> Vec<(u8, Vec<u8>)> {
        let mut v = Vec::new();
        while !self.inbox.is_empty() {
            v.push(self.next_packet());
        }
        v
    }

    fn response(&self, user: &str, token: Vec<u8>, plugin: Option<&str>, db: Option<&str>, extra_caps: u32) -> Vec<u8> {
        let mut caps = cap::PROTOCOL_41 | cap::SECURE_CONNECTION | cap::PLUGIN_AUTH | cap::LONG_PASSWORD | cap::TRANSACTIONS | extra_caps;
        if db.is_some() {
            caps |= cap::CONNECT_WITH_DB;
        }
        let r = HandshakeResponse {
            capabilities: caps,
            max_packet: 1 << 24,
            charset: 45,
            username: user.into(),
            auth_response: token,
            database: db.map(str::to_string),
            auth_plugin: plugin.map(str::to_string),
            attributes_raw: Vec::new(),
        };
        let mut out = Vec::new();
        r.encode(&mut out);
        out
    }

    /// Log in as root with caching_sha2_password (the fast path).
    fn login_db(&mut self, db: Option<&str>, extra_caps: u32) {
        let token = auth::sha2_token(PASSWORD.as_bytes(), &self.scramble);
        let resp = self.response("root", token, Some(auth::CACHING_SHA2), db, extra_caps);
        self.send(1, &resp);
        let p = self.packets();
        assert_eq!(p.len(), 2, "{:?}", p);
        assert_eq!(p[0], (2, vec![0x01, auth::FAST_AUTH_SUCCESS]));
        assert_eq!(p[1].0, 3);
        assert_eq!(p[1].1[0], 0x00, "OK after login: {:?}", p[1]);
        assert!(self.d.session().authenticated);
    }

    /// A wrong fast-path token, then (asked for the password) bytes that
    /// decrypt to nothing: what the driver wants after the verdict.
    fn wrong_password(&mut self, user: &str) -> Want {
        let resp = self.response(user, auth::sha2_token(b"nope", &self.scramble), Some(auth::CACHING_SHA2), None, 0);
        self.send(1, &resp);
        assert_eq!(self.next_packet(), (2, vec![0x01, auth::PERFORM_FULL_AUTH]));
        self.send(3, &[0u8; 256])
    }

    fn login(&mut self) {
        self.login_db(None, cap::DEPRECATE_EOF | cap::MULTI_STATEMENTS | cap::MULTI_RESULTS);
    }

    fn query(&mut self, sql: &str) -> Vec<(u8, Vec<u8>)> {
        let mut p = vec![0x03];
        p.extend_from_slice(sql.as_bytes());
        self.send(0, &p);
        self.packets()
    }
}

fn greeting_scramble(g: &[u8]) -> Vec<u8> {
    assert_eq!(g[0], 10, "protocol version 10");
    let nul = g[1..].iter().position(|&b| b == 0).unwrap() + 1;
    let at = nul + 1 + 4;
    let mut s = g[at..at + 8].to_vec();
    // filler, caps low, charset, status, caps high, auth data length, 10 reserved
    let rest = at + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
    s.extend_from_slice(&g[rest..rest + 12]);
    s
}

fn err_code(p: &[u8]) -> u16 {
    assert_eq!(p[0], 0xff, "not an ERR packet: {:?}", p);
    u16::from_le_bytes([p[1], p[2]])
}

fn stat(m: &Mem, name: &str) -> i64 {
    let st = &m.server.stats;
    match name {
        "aborted_connects" => st.aborted_connects.get(),
        "aborted_clients" => st.aborted_clients.get(),
        "connection_control_delay_generated" => m.server.guard.delays.get(),
        _ => unreachable!(),
    }
}

// --- the handshake ---------------------------------------------------------

#[test]
fn greeting_offers_caching_sha2_and_a_20_byte_scramble() {
    let m = server();
    let s = Session::new(m.server.clone(), Peer { ip: "127.0.0.1".into(), local: true }, None, false, -1);
    let mut d = Driver::new(s, T0_MS);
    d.start();
    let greeting = d.out().clone();
    assert_eq!(greeting[3], 0, "sequence id 0");
    let payload = &greeting[4..];
    assert_eq!(payload[0], 10);
    assert!(payload.ends_with(b"caching_sha2_password\0"));
    assert_eq!(greeting_scramble(payload).len(), 20);
    assert!(!d.session().authenticated);
}

#[test]
fn caching_sha2_login_takes_the_fast_path() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    assert!(matches!(c.last, Want::Read { .. }));
}

#[test]
fn native_password_client_is_switched_to_the_accounts_plugin() {
    let m = server();
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::native_token(PASSWORD.as_bytes(), &c.scramble), Some(auth::NATIVE), None, 0);
    c.send(1, &resp);
    let (seq, p) = c.next_packet();
    assert_eq!(seq, 2);
    assert_eq!(p[0], 0xfe, "AuthSwitchRequest");
    assert!(p[1..].starts_with(b"caching_sha2_password\0"));
    let token = auth::sha2_token(PASSWORD.as_bytes(), &c.scramble);
    c.send(3, &token);
    let p = c.packets();
    assert_eq!(p[0], (4, vec![0x01, auth::FAST_AUTH_SUCCESS]));
    assert_eq!(p[1].1[0], 0x00);
    assert!(c.d.session().authenticated);
}

#[test]
fn native_password_account_logs_in_without_a_switch() {
    let m = server();
    let mut root = Client::new(&m);
    root.login();
    let r = root.query("CREATE USER nat@'%' IDENTIFIED WITH mysql_native_password BY 'np'");
    assert_eq!(r[0].1[0], 0x00, "{:?}", r);
    let mut c = Client::new(&m);
    let resp = c.response("nat", auth::native_token(b"np", &c.scramble), Some(auth::NATIVE), None, 0);
    c.send(1, &resp);
    let p = c.packets();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].0, 2);
    assert_eq!(p[0].1[0], 0x00);
}

#[test]
fn wrong_password_is_1045_and_closes() {
    let m = server();
    let mut c = Client::new(&m);
    assert_eq!(c.wrong_password("root"), Want::Close);
    let (seq, p) = c.next_packet();
    assert_eq!(seq, 4);
    assert_eq!(err_code(&p), 1045);
}

#[test]
fn unknown_user_is_1045() {
    let m = server();
    let mut c = Client::new(&m);
    assert_eq!(c.wrong_password("nobody"), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1045);
}

#[test]
fn an_unknown_user_with_a_native_client_gets_the_same_switch_as_a_real_account() {
    // Real accounts default to caching_sha2_password: an unknown name is
    // switched to it too, then refused, so the answer does not tell.
    let m = server();
    let mut c = Client::new(&m);
    let resp = c.response("nobody", auth::native_token(b"x", &c.scramble), Some(auth::NATIVE), None, 0);
    c.send(1, &resp);
    let (seq, p) = c.next_packet();
    assert_eq!((seq, p[0]), (2, 0xfe), "AuthSwitchRequest");
    // Asked for the password itself, as a real account whose cache cannot tell.
    c.send(3, &auth::sha2_token(b"x", &c.scramble));
    assert_eq!(c.next_packet(), (4, vec![0x01, auth::PERFORM_FULL_AUTH]));
    assert_eq!(c.send(5, &[0u8; 256]), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1045);
}

/// A client on the Unix socket (the session's peer is "localhost").
fn socket_client(m: &Mem) -> Client {
    Client::with_peer(m, Peer { ip: "localhost".into(), local: true })
}

#[test]
fn full_authentication_over_the_socket_takes_the_password_in_the_clear_and_fills_the_cache() {
    let m = server_with(|c| c.caching_sha2_password_auto_generate_rsa_keys = true);
    for (password, ok) in [(&b"wrong"[..], false), (PASSWORD.as_bytes(), true)] {
        let mut c = socket_client(&m);
        let resp = c.response("root", auth::sha2_token(password, &c.scramble), Some(auth::CACHING_SHA2), None, 0);
        c.send(1, &resp);
        assert_eq!(c.next_packet(), (2, vec![0x01, auth::PERFORM_FULL_AUTH]), "the cache is empty after a start");
        let mut clear = password.to_vec();
        clear.push(0);
        c.send(3, &clear);
        let (seq, p) = c.next_packet();
        assert_eq!(seq, 4);
        if ok {
            assert_eq!(p[0], 0x00, "OK: {p:?}");
            assert!(c.d.session().authenticated);
        } else {
            assert_eq!(err_code(&p), 1045);
        }
    }
    // The cache is filled: the next login takes the fast path, over plain TCP too.
    let mut c = Client::new(&m);
    c.login();
}

#[test]
fn full_authentication_over_plain_tcp_sends_the_public_key_and_decrypts_the_password() {
    use aws_lc_rs::rsa::{OaepPublicEncryptingKey, PublicEncryptingKey, OAEP_SHA1_MGF1SHA1};
    use rustls::pki_types::pem::PemObject;
    let m = server_with(|c| c.caching_sha2_password_auto_generate_rsa_keys = true);
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(PASSWORD.as_bytes(), &c.scramble), Some(auth::CACHING_SHA2), None, 0);
    c.send(1, &resp);
    assert_eq!(c.next_packet(), (2, vec![0x01, auth::PERFORM_FULL_AUTH]));
    // The password in the clear on plain TCP is refused below; first ask for the key.
    c.send(3, &[auth::REQUEST_PUBLIC_KEY]);
    let (seq, key) = c.next_packet();
    assert_eq!((seq, key[0]), (4, 0x01));
    let pem = std::str::from_utf8(&key[1..]).unwrap();
    assert_eq!(pem, m.server.rsa.as_ref().unwrap().public_pem);
    let der = rustls::pki_types::SubjectPublicKeyInfoDer::from_pem_slice(pem.as_bytes()).unwrap();
    let public = OaepPublicEncryptingKey::new(PublicEncryptingKey::from_der(der.as_ref()).unwrap()).unwrap();
    let mut plain = PASSWORD.as_bytes().to_vec();
    plain.push(0);
    for (i, b) in plain.iter_mut().enumerate() {
        *b ^= c.scramble[i % c.scramble.len()];
    }
    let mut sealed = vec![0u8; public.ciphertext_size()];
    let sealed = public.encrypt(&OAEP_SHA1_MGF1SHA1, &plain, &mut sealed, None).unwrap().to_vec();
    c.send(5, &sealed);
    let (seq, ok) = c.next_packet();
    assert_eq!((seq, ok[0]), (6, 0x00), "OK: {ok:?}");
    assert!(c.d.session().authenticated);
    // A password in the clear over plain TCP is not taken.
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(b"not it", &c.scramble), Some(auth::CACHING_SHA2), None, 0);
    c.send(1, &resp);
    assert_eq!(c.next_packet(), (2, vec![0x01, auth::PERFORM_FULL_AUTH]));
    let mut clear = PASSWORD.as_bytes().to_vec();
    clear.push(0);
    assert_eq!(c.send(3, &clear), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1045);
}

#[test]
fn without_a_key_pair_plain_tcp_cannot_make_a_full_authentication() {
    let m = server();
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(b"other", &c.scramble), Some(auth::CACHING_SHA2), None, 0);
    c.send(1, &resp);
    assert_eq!(c.next_packet(), (2, vec![0x01, auth::PERFORM_FULL_AUTH]));
    assert_eq!(c.send(3, &[auth::REQUEST_PUBLIC_KEY]), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1045);
}

#[test]
fn past_the_failed_login_threshold_the_answer_is_held_even_for_the_right_password() {
    let m = server_with(|c| c.connection_control_failed_connections_threshold = 1);
    let mut bad = Client::new(&m);
    assert_eq!(bad.wrong_password("root"), Want::Close, "the first failure answers at once");
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(PASSWORD.as_bytes(), &c.scramble), Some(auth::CACHING_SHA2), None, 0);
    assert_eq!(c.send(1, &resp), Want::Sleep);
    assert!(c.inbox.is_empty(), "nothing goes out while the answer is held");
    let now = turnstile_engine::clock::coarse_ms();
    let wait = c.d.wait_ms(Want::Sleep, || now);
    assert!((900..=1100).contains(&wait), "{wait} ms");
    assert_eq!(c.d.wait_ms(Want::Sleep, || now + 5_000), 0);
    c.d.deadline_passed();
    assert!(matches!(c.pump(), Want::Read { .. }));
    assert!(c.d.session().authenticated);
    assert_eq!(stat(&m, "connection_control_delay_generated"), 1);
    // The success ended the series: the next login is not held.
    let mut again = Client::new(&m);
    again.login();
}

#[test]
fn a_hang_up_while_the_answer_is_held_drops_it() {
    let m = server_with(|c| c.connection_control_failed_connections_threshold = 1);
    let mut bad = Client::new(&m);
    assert_eq!(bad.wrong_password("root"), Want::Close);
    let mut c = Client::new(&m);
    assert_eq!(c.wrong_password("root"), Want::Sleep);
    c.d.eof();
    assert_eq!(c.pump(), Want::Close);
    assert!(c.inbox.is_empty());
}

#[test]
fn connect_with_db_selects_the_database() {
    let m = server();
    let mut root = Client::new(&m);
    root.login();
    assert_eq!(root.query("CREATE DATABASE d1")[0].1[0], 0x00);
    let mut c = Client::new(&m);
    c.login_db(Some("d1"), cap::DEPRECATE_EOF);
    let rows = c.query("SELECT DATABASE()");
    assert!(rows.iter().any(|(_, p)| p.windows(2).any(|w| w == b"d1")), "{:?}", rows);
}

#[test]
fn connect_with_a_missing_db_is_1049_and_closes() {
    let m = server();
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(PASSWORD.as_bytes(), &c.scramble), Some(auth::CACHING_SHA2), Some("nosuch"), 0);
    assert_eq!(c.send(1, &resp), Want::Close);
    let p = c.packets();
    assert_eq!(err_code(&p.last().unwrap().1), 1049);
}

/// An SSLRequest's payload: capabilities with CLIENT_SSL, max packet, charset, 23 zero bytes.
fn ssl_request() -> Vec<u8> {
    let mut ssl = Vec::new();
    ssl.extend_from_slice(&(cap::PROTOCOL_41 | cap::SSL | cap::SECURE_CONNECTION).to_le_bytes());
    ssl.extend_from_slice(&(1u32 << 24).to_le_bytes());
    ssl.push(45);
    ssl.extend_from_slice(&[0u8; 23]);
    ssl
}

#[test]
fn ssl_request_to_a_server_without_tls_is_refused_with_1043() {
    let m = server_with(|c| c.ssl = false);
    let mut c = Client::new(&m);
    assert_eq!(c.send(1, &ssl_request()), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1043);
}

#[test]
fn truncated_handshake_response_is_1043() {
    let m = server();
    let mut c = Client::new(&m);
    let before = stat(&m, "aborted_connects");
    assert_eq!(c.send(1, &[0x05, 0x02]), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1043);
    assert_eq!(stat(&m, "aborted_connects"), before + 1);
}

#[test]
fn handshake_with_the_wrong_sequence_id_is_1156() {
    let m = server();
    let mut c = Client::new(&m);
    let resp = c.response("root", auth::sha2_token(PASSWORD.as_bytes(), &c.scramble), Some(auth::CACHING_SHA2), None, 0);
    assert_eq!(c.send(5, &resp), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1156);
}

#[test]
fn oversized_packet_before_login_closes_without_an_answer() {
    let m = server();
    let mut c = Client::new(&m);
    let before = stat(&m, "aborted_connects");
    let big = vec![0u8; turnstile_server::session::MAX_HANDSHAKE_PACKET + 1];
    assert_eq!(c.send(1, &big), Want::Close);
    assert!(c.inbox.is_empty());
    assert_eq!(stat(&m, "aborted_connects"), before + 1);
}

// --- commands --------------------------------------------------------------

#[test]
fn ping_is_ok() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    c.send(0, &[0x0e]);
    let p = c.packets();
    assert_eq!(p, vec![(1, p[0].1.clone())]);
    assert_eq!(p[0].1[0], 0x00);
}

#[test]
fn select_one_is_a_result_set() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let p = c.query("SELECT 1");
    // column count, column definition, row, OK (DEPRECATE_EOF)
    assert_eq!(p.len(), 4, "{:?}", p);
    assert_eq!(p[0].1, vec![1]);
    assert_eq!(p[2].1, vec![1, b'1']);
    assert_eq!(p[3].1[0], 0xfe);
    let seqs: Vec<u8> = p.iter().map(|x| x.0).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4]);
}

#[test]
fn quit_closes_and_counts_no_aborted_client() {
    let m = server_with(|c| c.reset_after_quit = true);
    let mut c = Client::new(&m);
    c.login();
    let before = stat(&m, "aborted_clients");
    assert_eq!(c.send(0, &[0x01]), Want::Close);
    assert!(c.inbox.is_empty());
    assert!(c.d.finish(), "reset_after_quit asks for an RST");
    assert_eq!(stat(&m, "aborted_clients"), before);
}

#[test]
fn a_client_that_vanishes_is_an_aborted_client() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let before = stat(&m, "aborted_clients");
    c.d.eof();
    assert_eq!(c.pump(), Want::Close);
    assert!(!c.d.finish());
    assert_eq!(stat(&m, "aborted_clients"), before + 1);
}

#[test]
fn command_with_a_nonzero_sequence_id_is_1156() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    assert_eq!(c.send(3, &[0x0e]), Want::Close);
    assert_eq!(err_code(&c.next_packet().1), 1156);
}

#[test]
fn unknown_command_is_1047_and_the_session_goes_on() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    assert!(matches!(c.send(0, &[0x7f]), Want::Read { .. }));
    assert_eq!(err_code(&c.next_packet().1), 1047);
    c.send(0, &[0x0e]);
    assert_eq!(c.next_packet().1[0], 0x00);
}

#[test]
fn empty_command_packet_is_malformed() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    c.send(0, &[]);
    let p = c.packets();
    assert!(p.iter().any(|(_, x)| x[0] == 0xff), "{:?}", p);
}

#[test]
fn init_db_of_a_missing_database_is_1049_and_the_session_goes_on() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let mut p = vec![0x02];
    p.extend_from_slice(b"nosuch");
    assert!(matches!(c.send(0, &p), Want::Read { .. }));
    assert_eq!(err_code(&c.next_packet().1), 1049);
}

#[test]
fn statement_prepare_and_execute() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let mut p = vec![0x16];
    p.extend_from_slice(b"SELECT ? + 1");
    c.send(0, &p);
    let prep = c.packets();
    assert_eq!(prep[0].1[0], 0x00, "{:?}", prep);
    let id = u32::from_le_bytes(prep[0].1[1..5].try_into().unwrap());
    let params = u16::from_le_bytes(prep[0].1[7..9].try_into().unwrap());
    assert_eq!(params, 1);
    // COM_STMT_EXECUTE: id, flags, iteration count, null bitmap, new-params flag, type, value
    let mut e = vec![0x17];
    e.extend_from_slice(&id.to_le_bytes());
    e.push(0);
    e.extend_from_slice(&1u32.to_le_bytes());
    e.push(0);
    e.push(1);
    e.extend_from_slice(&[0x08, 0x00]);
    e.extend_from_slice(&41i64.to_le_bytes());
    c.send(0, &e);
    let rows = c.packets();
    let row = rows.iter().find(|(_, x)| x[0] == 0x00 && x.len() > 2 && x.len() < 12).expect("a binary row");
    assert_eq!(i64::from_le_bytes(row.1[2..10].try_into().unwrap()), 42);
}

#[test]
fn packet_over_max_allowed_packet_is_1153_then_close() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let max = m.server.max_allowed_packet();
    let mut p = vec![0x03];
    p.resize(max + 10, b' ');
    // Bigger than one physical packet: send the frames the client would.
    let mut seq = 0u8;
    let mut bytes = Vec::new();
    for chunk in p.chunks(0xff_ffff) {
        bytes.extend_from_slice(&packet(seq, chunk));
        seq = seq.wrapping_add(1);
    }
    if p.len() % 0xff_ffff == 0 {
        bytes.extend_from_slice(&packet(seq, &[]));
    }
    c.d.received(&bytes);
    assert_eq!(c.pump(), Want::Close);
    let (seq, e) = c.next_packet();
    assert_eq!((seq, err_code(&e)), (1, 1153));
}

#[test]
fn multi_statements_answer_each_statement() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let p = c.query("SELECT 1; SELECT 2");
    let rows: Vec<&Vec<u8>> = p.iter().map(|x| &x.1).filter(|x| x.len() == 2 && x[0] == 1).collect();
    assert_eq!(rows, vec![&vec![1, b'1'], &vec![1, b'2']]);
}

#[test]
fn pipelined_commands_are_answered_in_order() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let mut bytes = packet(0, b"\x03SELECT 7");
    bytes.extend_from_slice(&packet(0, &[0x0e]));
    c.d.received(&bytes);
    c.pump();
    let p = c.packets();
    assert_eq!(p[2].1, vec![1, b'7']);
    assert_eq!(p.last().unwrap(), &(1, p.last().unwrap().1.clone()));
    assert_eq!(p.len(), 5);
}

#[test]
fn a_command_arriving_byte_by_byte_is_answered_once_complete() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let bytes = packet(0, b"\x03SELECT 5");
    for (i, b) in bytes.iter().enumerate() {
        c.d.received(&[*b]);
        let w = c.pump();
        if i + 1 < bytes.len() {
            assert!(c.inbox.is_empty());
            assert!(matches!(w, Want::Read { awaiting_reply: false, .. }));
            assert!(i < 4 || c.d.mid_packet());
        }
    }
    assert_eq!(c.packets()[2].1, vec![1, b'5']);
}

#[test]
fn the_packet_budget_yields_between_commands() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let mut bytes = Vec::new();
    for _ in 0..3 {
        bytes.extend_from_slice(&packet(0, &[0x0e]));
    }
    c.d.received(&bytes);
    assert_eq!(c.pump_budget(1), Want::Yield);
    assert_eq!(c.packets().len(), 1);
    assert!(c.d.holds_input(), "the packet decoded past the budget is kept");
    assert!(matches!(c.pump_budget(5), Want::Read { .. }));
    assert_eq!(c.packets().len(), 2, "every pipelined command is answered");
}

#[test]
fn a_large_result_is_flushed_while_it_is_built() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let p = c.query("SELECT REPEAT('x', 200000), REPEAT('y', 200000)");
    assert!(c.flushes >= 1, "a result over FLUSH_AT goes out while the command runs");
    assert!(p.iter().any(|(_, x)| x.len() > 400_000), "{:?}", p.iter().map(|x| x.1.len()).collect::<Vec<_>>());
}

#[test]
fn a_blocked_writer_is_asked_to_write_before_anything_else() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    c.d.received(&packet(0, &[0x0e]));
    let mut budget = usize::MAX;
    let w = c.d.poll(&mut budget, &mut |_| Ok(()));
    let write_ms = m.server.globals.hot.net_write_timeout.load(Ordering::Relaxed) as u64 * 1000;
    assert_eq!(w, Want::Write);
    assert_eq!(c.d.wait_ms(w, || unreachable!("a logged-in session reads no clock")), write_ms);
    // Nothing written: still wants to write, however often polled.
    assert_eq!(c.d.poll(&mut budget, &mut |_| Ok(())), w);
}

// --- time ------------------------------------------------------------------

#[test]
fn login_deadline_is_connect_timeout_from_accept() {
    let m = server_with(|c| c.connect_timeout = 7);
    let mut c = Client::new(&m);
    let w = c.pump();
    assert_eq!(w, Want::Read { awaiting_reply: true });
    assert_eq!(c.d.wait_ms(w, || T0_MS + 3_000), 4_000);
    assert_eq!(c.d.wait_ms(w, || T0_MS + 7_000), 0, "over at connect_timeout from accept");
    assert_eq!(driver::timeout_s(c.d.wait_ms(w, || T0_MS + 3_001)), Some(4));
}

#[test]
fn half_a_login_packet_waits_at_most_net_read_timeout() {
    let m = server_with(|c| {
        c.connect_timeout = 60;
        c.net_read_timeout = 5;
    });
    let mut c = Client::new(&m);
    c.d.received(&[10, 0, 0]);
    let w = c.pump();
    assert_eq!(w, Want::Read { awaiting_reply: false });
    assert_eq!(c.d.wait_ms(w, || T0_MS + 1_000), 5_000);
    assert_eq!(c.d.wait_ms(w, || T0_MS + 58_000), 2_000, "never past the login's end");
}

#[test]
fn idle_deadline_after_login_is_wait_timeout() {
    let m = server_with(|c| c.wait_timeout = 30);
    let mut c = Client::new(&m);
    c.login();
    let w = c.pump();
    assert_eq!(w, Want::Read { awaiting_reply: true });
    assert_eq!(c.d.wait_ms(w, || unreachable!("a logged-in session reads no clock")), 30_000);
}

#[test]
fn interactive_clients_get_interactive_timeout() {
    let m = server_with(|c| {
        c.wait_timeout = 30;
        c.interactive_timeout = 90;
    });
    let mut c = Client::new(&m);
    c.login_db(None, cap::INTERACTIVE);
    let w = c.pump();
    assert_eq!(c.d.wait_ms(w, || unreachable!()), 90_000);
}

#[test]
fn idle_timeout_sends_4031_then_closes() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    c.d.deadline_passed();
    assert_eq!(c.pump(), Want::Close);
    let (seq, p) = c.next_packet();
    assert_eq!((seq, err_code(&p)), (0, 4031));
}

#[test]
fn login_timeout_is_an_aborted_connect_without_an_answer() {
    let m = server();
    let mut c = Client::new(&m);
    let before = stat(&m, "aborted_connects");
    c.d.deadline_passed();
    assert_eq!(c.pump(), Want::Close);
    assert!(c.inbox.is_empty());
    assert_eq!(stat(&m, "aborted_connects"), before + 1);
}

#[test]
fn timeout_inside_a_packet_closes_without_4031() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    c.d.received(&[20, 0, 0, 0, 3]);
    c.pump();
    assert!(c.d.mid_packet());
    c.d.deadline_passed();
    assert_eq!(c.pump(), Want::Close);
    assert!(c.inbox.is_empty());
}

#[test]
fn hang_up_during_login_is_an_aborted_connect() {
    let m = server();
    let mut c = Client::new(&m);
    let before = stat(&m, "aborted_connects");
    c.d.received(&[]);
    assert_eq!(c.pump(), Want::Close);
    assert_eq!(stat(&m, "aborted_connects"), before + 1);
}

#[test]
fn receive_reads_large_packets_straight_into_the_decoder() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    let mut small = [0u8; 16];
    let sql = format!("\x03SELECT '{}'", "z".repeat(100_000));
    let bytes = packet(0, sql.as_bytes());
    let mut at = 0;
    let mut largest_read = 0;
    while at < bytes.len() {
        let r = c.d.receive(&mut small, |buf| {
            let n = buf.len().min(bytes.len() - at);
            buf[..n].copy_from_slice(&bytes[at..at + n]);
            Ok(n)
        });
        let n = r.unwrap();
        largest_read = largest_read.max(n);
        at += n;
    }
    assert!(largest_read > small.len(), "mid-packet reads are not limited to the small buffer");
    c.pump();
    assert!(c.packets().iter().any(|(_, x)| x.len() > 100_000));
}

#[test]
fn whole_second_timeouts_round_up() {
    assert_eq!(driver::timeout_s(30_000), Some(30));
    assert_eq!(driver::timeout_s(1), Some(1));
    assert_eq!(driver::timeout_s(1_001), Some(2));
    assert_eq!(driver::timeout_s(0), None);
}

// --- limits ----------------------------------------------------------------

#[test]
fn past_max_connections_the_greeting_is_1040() {
    let m = server_with(|c| c.max_connections = 1);
    let mut a = Client::new(&m);
    a.login();
    // max_connections + 1 may connect (the extra slot is for an administrator).
    let mut b = Client::new(&m);
    b.login();
    // Nobody is left logging in whose slot a newcomer could take.
    let s = Session::new(m.server.clone(), Peer { ip: "127.0.0.1".into(), local: true }, None, false, -1);
    let mut d = Driver::new(s, T0_MS);
    d.start();
    assert!(d.is_closing());
    let out = d.out().clone();
    assert_eq!(err_code(&out[4..]), 1040);
}

#[test]
fn finishing_a_session_frees_its_slot() {
    let m = server_with(|c| c.max_connections = 1);
    for _ in 0..5 {
        let mut c = Client::new(&m);
        c.login();
        c.d.finish();
    }
    assert_eq!(m.server.registry.connected.load(Ordering::Relaxed), 0);
}

#[test]
fn kill_of_a_session_reaches_it_through_its_handle() {
    let m = server();
    let mut a = Client::new(&m);
    a.login();
    let mut b = Client::new(&m);
    b.login();
    let id = a.d.session().id();
    let r = b.query(&format!("KILL QUERY {}", id));
    assert_eq!(r[0].1[0], 0x00, "{:?}", r);
    assert!(a.d.session().handle.killed.load(Ordering::SeqCst));
}

// --- LOAD DATA LOCAL INFILE ------------------------------------------------

/// Log in asking for LOCAL files and start a LOAD DATA LOCAL into `d.t`:
/// the 0xFB request naming the file comes back with sequence id 1.
fn start_local_load(m: &Mem) -> Client {
    let mut c = Client::new(m);
    c.login_db(None, cap::DEPRECATE_EOF | cap::LOCAL_FILES);
    assert_eq!(c.query("CREATE DATABASE d")[0].1[0], 0x00);
    let p = c.query("LOAD DATA LOCAL INFILE 'the file' INTO TABLE d.t (a, b)");
    assert_eq!(p, vec![(1, b"\xfbthe file".to_vec())]);
    c
}

#[test]
fn local_infile_is_a_state_the_driver_waits_in() {
    let m = server();
    let mut c = start_local_load(&m);
    // Between the file's packets the session answers nothing and the driver
    // waits for input (no worker held), for net_read_timeout.
    for (seq, chunk) in [(2u8, &b"1\tx\n"[..]), (3, b"2\ty\n")] {
        let w = c.send(seq, chunk);
        assert_eq!(w, Want::Read { awaiting_reply: false });
        assert!(c.inbox.is_empty());
        assert_eq!(c.d.wait_ms(w, || T0_MS), 30_000, "net_read_timeout");
    }
    c.send(4, b"");
    let p = c.packets();
    assert_eq!(p.len(), 1, "{:?}", p);
    assert_eq!(p[0].0, 5, "the OK follows the empty packet");
    assert_eq!(p[0].1[0], 0x00);
    assert!(p[0].1.windows(10).any(|w| w == b"Records: 2"), "{:?}", p[0]);
    // The session takes commands again.
    assert_eq!(c.query("SELECT 1")[0].0, 1);
}

#[test]
fn local_infile_refused_without_the_client_flag() {
    let m = server();
    let mut c = Client::new(&m);
    c.login();
    assert_eq!(c.query("CREATE DATABASE d")[0].1[0], 0x00);
    let p = c.query("LOAD DATA LOCAL INFILE 'f' INTO TABLE d.t (a)");
    assert_eq!(err_code(&p[0].1), 4166);
}

#[test]
fn local_infile_client_gone_mid_file_closes_without_an_answer() {
    let m = server();
    let mut c = start_local_load(&m);
    c.send(2, b"1\tx\n");
    c.d.received(b"");
    assert_eq!(c.pump(), Want::Close);
    assert!(c.inbox.is_empty());
    c.d.finish();
    assert_eq!(m.server.registry.connected.load(Ordering::Relaxed), 0);
}

#[test]
fn local_infile_timeout_closes_without_err_4031() {
    let m = server();
    let mut c = start_local_load(&m);
    c.send(2, b"1\tx\n");
    c.d.deadline_passed();
    assert_eq!(c.pump(), Want::Close);
    assert!(c.inbox.is_empty(), "no ERR 4031 in the middle of a file");
}

#[test]
fn local_infile_past_the_limit_is_dropped_and_1105() {
    let m = server_with(|c| c.load_data_max_bytes = 8);
    let mut c = start_local_load(&m);
    assert_eq!(c.send(2, b"1\tx\n2\ty\n3\tz\n"), Want::Read { awaiting_reply: false });
    c.send(3, b"more");
    c.send(4, b"");
    let p = c.packets();
    assert_eq!(p[0].0, 5);
    assert_eq!(err_code(&p[0].1), 1105);
}

#[test]
fn an_ssl_request_asks_the_loop_to_start_tls_with_the_bytes_that_came_after_it() {
    let m = server();
    let mut c = Client::new(&m);
    let mut bytes = packet(1, &ssl_request());
    bytes.extend_from_slice(b"\x16\x03\x01 first bytes of a ClientHello");
    c.d.received(&bytes);
    assert_eq!(c.pump(), Want::StartTls);
    assert_eq!(c.d.take_input(), b"\x16\x03\x01 first bytes of a ClientHello");
    assert!(c.inbox.is_empty(), "nothing is written in the clear after an SSLRequest");
}
