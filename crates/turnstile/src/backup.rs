//! `turnstile backup --to DIR`: ask a running server for a copy of its data
//! directory (issue #26 item 6).
//!
//! The server does the copying (BACKUP DATA TO '/abs/dir', turnstile-server's
//! backup.rs): every database at one point in time, the accounts and the key
//! files, written into DIR on the server's host, a directory a server starts
//! on. This subcommand is only the client: it connects as a MySQL client
//! would (the mysql client's options and defaults: `--host localhost` means
//! the Unix socket, `--socket` defaults to the server's documented
//! /tmp/turnstile.sock, `--port` 3306, `--user root`, the password from
//! `--password` or MYSQL_PWD), makes DIR absolute against the current
//! directory, sends the statement and prints the row it answers. Exit status
//! 0 on success, 1 with the server's error (or why it could not connect).
//!
//! A small blocking client of its own, without TLS: the login
//! (mysql_native_password, or caching_sha2_password with its fast path, its
//! full authentication sending the password over the Unix socket or
//! RSA-encrypted to the server's public key over TCP) and one COM_QUERY with
//! a text result. The workspace's other clients do not fit: the upstream
//! engine's logs in with mysql_native_password only, the load generator's
//! has no full authentication.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;
use turnstile_wire::auth;
use turnstile_wire::buf::Reader;
use turnstile_wire::consts::{cap, com};
use turnstile_wire::handshake::HandshakeResponse;

/// What the server documents as its defaults (docs/configuration.md).
const DEFAULT_SOCKET: &str = "/tmp/turnstile.sock";
const DEFAULT_PORT: u16 = 3306;

/// Largest packet read (the answer is one short row).
const MAX_PAYLOAD: usize = 16 << 20;

#[derive(clap::Parser, Debug)]
#[command(
    name = "turnstile backup",
    about = "Ask a running Turnstile server to write a consistent copy of its data directory into DIR (on the server's host); start a server on DIR to restore",
    disable_help_flag = true
)]
struct Args {
    /// Directory to write the copy into: must not exist, or be empty (made absolute here).
    #[arg(long, value_name = "DIR")]
    to: PathBuf,
    /// Server host; "localhost" connects through the Unix socket, as the mysql client does.
    #[arg(short = 'h', long, default_value = "localhost")]
    host: String,
    /// TCP port (when --host is not localhost).
    #[arg(short = 'P', long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Unix socket (when --host is localhost).
    #[arg(short = 'S', long, default_value = DEFAULT_SOCKET)]
    socket: PathBuf,
    /// Account to log in as (it needs the administrator privilege).
    #[arg(short = 'u', long, default_value = "root")]
    user: String,
    /// Password (default: MYSQL_PWD, else none).
    #[arg(short = 'p', long, env = "MYSQL_PWD", hide_env_values = true)]
    password: Option<String>,
    /// Seconds to wait for the connection and login.
    #[arg(long, default_value_t = 10)]
    connect_timeout: u64,
    /// Over TCP, let a caching_sha2_password account's full authentication
    /// ask the server for its RSA public key and trust it unverified (as the
    /// mysql client's option of that name); without it, such a login over
    /// TCP fails rather than send the password to a key nobody checked.
    #[arg(long)]
    get_server_public_key: bool,
    /// Print help.
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
}

/// Run the subcommand with the arguments after `backup`; the exit status.
pub fn main(args: Vec<String>) -> i32 {
    use clap::Parser;
    let args = match Args::try_parse_from(std::iter::once("turnstile backup".to_string()).chain(args)) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    match run(&args) {
        Ok(line) => {
            println!("{}", line);
            0
        }
        Err(e) => {
            eprintln!("turnstile backup: {}", e);
            1
        }
    }
}

/// DIR made absolute against the current directory, `..` resolved through
/// the parent directory when it exists (the server refuses `..`).
fn absolute(dir: &Path) -> Result<PathBuf, String> {
    let abs = std::path::absolute(dir).map_err(|e| format!("--to {}: {}", dir.display(), e))?;
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) if name != ".." => Ok(parent.canonicalize().map(|p| p.join(name)).unwrap_or(abs)),
        _ => abs.canonicalize().map_err(|e| format!("--to {}: {}", dir.display(), e)),
    }
}

fn run(args: &Args) -> Result<String, String> {
    let dir = absolute(&args.to)?;
    let dir = dir.to_str().ok_or_else(|| format!("--to {}: not valid UTF-8", dir.display()))?.to_string();
    if dir.contains(['\'', '\\']) {
        // How the server reads a backslash depends on its sql_mode: none is sent.
        return Err(format!("--to {}: a path with a quote or a backslash is not supported", dir));
    }
    let timeout = Duration::from_secs(args.connect_timeout.max(1));
    let password = args.password.clone().unwrap_or_default();
    let (mut conn, via) = if args.host == "localhost" {
        let s = UnixStream::connect(&args.socket).map_err(|e| format!("cannot connect to the server through socket '{}': {}", args.socket.display(), e))?;
        (Conn { stream: Stream::Unix(s), seq: 0, tcp: false, trust_server_key: false }, format!("socket '{}'", args.socket.display()))
    } else {
        use std::net::ToSocketAddrs;
        let where_ = format!("{}:{}", args.host, args.port);
        let addrs: Vec<_> = (args.host.as_str(), args.port).to_socket_addrs().map_err(|e| format!("cannot resolve '{}': {}", args.host, e))?.collect();
        let mut last = None;
        let mut stream = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let s = stream.ok_or_else(|| format!("cannot connect to the server at {}: {}", where_, last.map_or("no address".to_string(), |e| e.to_string())))?;
        (Conn { stream: Stream::Tcp(s), seq: 0, tcp: true, trust_server_key: args.get_server_public_key }, where_)
    };
    conn.set_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    conn.login(&args.user, password.as_bytes()).map_err(|e| format!("login to {} as '{}' failed: {}", via, args.user, e))?;
    // The copy takes as long as it takes.
    conn.set_timeout(None).map_err(|e| e.to_string())?;
    let sql = format!("BACKUP DATA TO '{}'", dir);
    let rows = conn.query(&sql)?;
    match rows.first() {
        Some(row) if row.len() >= 3 => Ok(format!("backup written to {}: {} database(s), {} bytes", row[0], row[1], row[2])),
        _ => Ok(format!("backup written to {}", dir)),
    }
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

struct Conn {
    stream: Stream,
    /// Sequence number of the next packet written.
    seq: u8,
    /// Over TCP (caching_sha2_password's full authentication then encrypts).
    tcp: bool,
    /// --get-server-public-key: ask for the server's RSA key and use it.
    trust_server_key: bool,
}

/// An ERR packet's "ERROR code (state): message".
fn err_text(payload: &[u8]) -> String {
    let code = if payload.len() >= 3 { u16::from_le_bytes([payload[1], payload[2]]) } else { 0 };
    let rest = payload.get(3..).unwrap_or(&[]);
    let (state, msg) = if rest.first() == Some(&b'#') && rest.len() >= 6 { (String::from_utf8_lossy(&rest[1..6]).into_owned(), &rest[6..]) } else { ("HY000".to_string(), rest) };
    format!("ERROR {} ({}): {}", code, state, String::from_utf8_lossy(msg))
}

impl Conn {
    fn set_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        match &self.stream {
            Stream::Tcp(s) => s.set_read_timeout(t).and_then(|_| s.set_write_timeout(t)),
            Stream::Unix(s) => s.set_read_timeout(t).and_then(|_| s.set_write_timeout(t)),
        }
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        match &mut self.stream {
            Stream::Tcp(s) => s.read_exact(buf),
            Stream::Unix(s) => s.read_exact(buf),
        }
    }

    fn read_packet(&mut self) -> Result<Vec<u8>, String> {
        let lost = |e: std::io::Error| format!("lost connection to the server: {}", e);
        let mut head = [0u8; 4];
        self.read_exact(&mut head).map_err(lost)?;
        let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
        if len > MAX_PAYLOAD {
            return Err(format!("the server sent a packet of {} bytes", len));
        }
        self.seq = head[3].wrapping_add(1);
        let mut payload = vec![0u8; len];
        self.read_exact(&mut payload).map_err(lost)?;
        Ok(payload)
    }

    fn write_packet(&mut self, payload: &[u8]) -> Result<(), String> {
        let mut out = Vec::with_capacity(payload.len() + 4);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
        out.push(self.seq);
        out.extend_from_slice(payload);
        self.seq = self.seq.wrapping_add(1);
        let r = match &mut self.stream {
            Stream::Tcp(s) => s.write_all(&out),
            Stream::Unix(s) => s.write_all(&out),
        };
        r.map_err(|e| format!("lost connection to the server: {}", e))
    }

    fn login(&mut self, user: &str, password: &[u8]) -> Result<(), String> {
        let greeting = self.read_packet()?;
        if greeting.first() == Some(&0xff) {
            return Err(err_text(&greeting));
        }
        let bad = |_| "the server's greeting is too short".to_string();
        let mut r = Reader::new(&greeting);
        if r.u8().map_err(bad)? != 10 {
            return Err("the server does not speak protocol 10".into());
        }
        r.nul_bytes();
        r.u32().map_err(bad)?;
        let mut scramble = r.take(8).map_err(bad)?.to_vec();
        r.u8().map_err(bad)?;
        let caps_lo = r.u16().map_err(bad)? as u32;
        r.u8().map_err(bad)?;
        r.u16().map_err(bad)?;
        let caps_hi = r.u16().map_err(bad)? as u32;
        let auth_len = r.u8().map_err(bad)? as usize;
        r.take(10).map_err(bad)?;
        let more = auth_len.saturating_sub(9).max(12).min(r.remaining());
        scramble.extend_from_slice(r.take(more).map_err(bad)?);
        let _ = r.u8();
        let plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
        let server_caps = caps_lo | (caps_hi << 16);
        let want = cap::LONG_PASSWORD | cap::PROTOCOL_41 | cap::TRANSACTIONS | cap::SECURE_CONNECTION | cap::MULTI_RESULTS | cap::PLUGIN_AUTH | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA;
        let plugin = if plugin == auth::CACHING_SHA2 { auth::CACHING_SHA2 } else { auth::NATIVE };
        let resp = HandshakeResponse {
            capabilities: want & server_caps | cap::PROTOCOL_41,
            max_packet: MAX_PAYLOAD as u32,
            charset: 45,
            username: user.to_string(),
            auth_response: token(plugin, password, &scramble),
            database: None,
            auth_plugin: Some(plugin.to_string()),
            attributes_raw: Vec::new(),
        };
        let mut p = Vec::new();
        resp.encode(&mut p);
        self.write_packet(&p)?;
        let mut plugin = plugin;
        loop {
            let reply = self.read_packet()?;
            match reply.first() {
                Some(0x00) => return Ok(()),
                Some(0xff) => return Err(err_text(&reply)),
                // AuthSwitchRequest: another plugin, a fresh scramble.
                Some(0xfe) => {
                    let mut r = Reader::new(&reply[1..]);
                    let name = String::from_utf8_lossy(r.nul_bytes()).into_owned();
                    plugin = match name.as_str() {
                        auth::NATIVE => auth::NATIVE,
                        auth::CACHING_SHA2 => auth::CACHING_SHA2,
                        other => return Err(format!("the server asks for the {} authentication plugin, which this client does not have", other)),
                    };
                    scramble = r.rest().to_vec();
                    if scramble.last() == Some(&0) {
                        scramble.pop();
                    }
                    self.write_packet(&token(plugin, password, &scramble))?;
                }
                // AuthMoreData (caching_sha2_password).
                Some(0x01) if plugin == auth::CACHING_SHA2 => match reply.get(1) {
                    Some(&auth::FAST_AUTH_SUCCESS) => {}
                    Some(&auth::PERFORM_FULL_AUTH) if !self.tcp => {
                        let mut clear = password.to_vec();
                        clear.push(0);
                        self.write_packet(&clear)?;
                    }
                    Some(&auth::PERFORM_FULL_AUTH) if self.trust_server_key => self.write_packet(&[auth::REQUEST_PUBLIC_KEY])?,
                    Some(&auth::PERFORM_FULL_AUTH) => {
                        return Err("the server asks for the password itself over plain TCP (caching_sha2_password's full authentication): connect through the socket, or give --get-server-public-key to send it encrypted to the RSA key the server sends, unverified".into())
                    }
                    // The public key we asked for.
                    _ => {
                        let sealed = encrypt_password(&reply[1..], password, &scramble)?;
                        self.write_packet(&sealed)?;
                    }
                },
                _ => return Err("unexpected reply to the login".into()),
            }
        }
    }

    /// COM_QUERY; the rows of its result as text (none for an OK).
    fn query(&mut self, sql: &str) -> Result<Vec<Vec<String>>, String> {
        self.seq = 0;
        let mut p = vec![com::QUERY];
        p.extend_from_slice(sql.as_bytes());
        self.write_packet(&p)?;
        let first = self.read_packet()?;
        match first.first() {
            Some(0x00) => return Ok(Vec::new()),
            Some(0xff) => return Err(err_text(&first)),
            _ => {}
        }
        let n = Reader::new(&first).lenenc_int().ok().flatten().unwrap_or(0) as usize;
        for _ in 0..n {
            self.read_packet()?;
        }
        let eof = self.read_packet()?; // EOF after the column definitions
        if eof.first() == Some(&0xff) {
            return Err(err_text(&eof));
        }
        let mut rows = Vec::new();
        loop {
            let row = self.read_packet()?;
            match row.first() {
                Some(0xfe) if row.len() < 9 => return Ok(rows),
                Some(0xff) => return Err(err_text(&row)),
                _ => {}
            }
            let mut r = Reader::new(&row);
            let mut vals = Vec::with_capacity(n);
            for _ in 0..n {
                if r.peek() == Some(0xfb) {
                    let _ = r.u8();
                    vals.push("NULL".to_string());
                } else {
                    vals.push(String::from_utf8_lossy(r.lenenc_bytes().unwrap_or(b"")).into_owned());
                }
            }
            rows.push(vals);
        }
    }
}

/// The first answer for `plugin`.
fn token(plugin: &str, password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if plugin == auth::CACHING_SHA2 {
        auth::sha2_token(password, scramble)
    } else {
        auth::native_token(password, scramble)
    }
}

/// caching_sha2_password over plain TCP: RSA-OAEP(SHA-1) of `password\0`
/// XOR the scramble, to the public key the server sent (PEM).
fn encrypt_password(pem_text: &[u8], password: &[u8], scramble: &[u8]) -> Result<Vec<u8>, String> {
    use aws_lc_rs::rsa::{OaepPublicEncryptingKey, PublicEncryptingKey, OAEP_SHA1_MGF1SHA1};
    let bad = || "the server's RSA public key cannot be read".to_string();
    let pem = pem::parse(pem_text).map_err(|_| bad())?;
    let key = OaepPublicEncryptingKey::new(PublicEncryptingKey::from_der(pem.contents()).map_err(|_| bad())?).map_err(|_| bad())?;
    if scramble.is_empty() {
        return Err("the server sent no scramble".into());
    }
    let mut plain = password.to_vec();
    plain.push(0);
    for (i, b) in plain.iter_mut().enumerate() {
        *b ^= scramble[i % scramble.len()];
    }
    let mut out = vec![0u8; key.ciphertext_size()];
    let n = key.encrypt(&OAEP_SHA1_MGF1SHA1, &plain, &mut out, None).map_err(|_| "the password is too long for the server's RSA key".to_string())?.len();
    out.truncate(n);
    Ok(out)
}
