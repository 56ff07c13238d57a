//! A canned MySQL-protocol server for the unit tests (thread per connection):
//! greeting with mysql_native_password, any login -> OK, `SELECT 1` -> one row,
//! `BIG` -> one 1 MiB row (written blocking), COM_PING -> OK, COM_QUIT -> close.
#![cfg(test)]

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::time::Duration;

use turnstile_wire::consts::cap;
use turnstile_wire::handshake::Greeting;

use crate::net::Target;

pub struct TestServer {
    pub port: u16,
}

impl TestServer {
    pub fn target(&self) -> Target {
        Target::Tcp(SocketAddrV4::new(Ipv4Addr::LOCALHOST, self.port))
    }
}

fn frame(out: &mut Vec<u8>, seq: u8, p: &[u8]) {
    let n = p.len();
    out.extend_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, seq]);
    out.extend_from_slice(p);
}

fn read_packet(s: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h).ok()?;
    let n = h[0] as usize | (h[1] as usize) << 8 | (h[2] as usize) << 16;
    let mut p = vec![0u8; n];
    s.read_exact(&mut p).ok()?;
    Some((h[3], p))
}

const OK: [u8; 7] = [0, 0, 0, 2, 0, 0, 0];
const EOF: [u8; 5] = [0xfe, 0, 0, 2, 0];

fn serve(mut s: TcpStream) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    let scramble = *b"abcdefghij0123456789";
    let g = Greeting {
        server_version: "8.0.36-canned",
        connection_id: 1,
        scramble: &scramble,
        capabilities: cap::SERVER_DEFAULT & !cap::DEPRECATE_EOF,
        charset: 45,
        status: 2,
        auth_plugin: "mysql_native_password",
    };
    let mut p = Vec::new();
    g.encode(&mut p);
    let mut out = Vec::new();
    frame(&mut out, 0, &p);
    if s.write_all(&out).is_err() {
        return;
    }
    let Some((seq, _)) = read_packet(&mut s) else { return };
    let mut out = Vec::new();
    frame(&mut out, seq + 1, &OK);
    if s.write_all(&out).is_err() {
        return;
    }
    while let Some((_, cmd)) = read_packet(&mut s) {
        let mut out = Vec::new();
        match cmd.first() {
            Some(0x01) | None => return,
            Some(0x0e) => frame(&mut out, 1, &OK),
            Some(0x03) => {
                let big = &cmd[1..] == b"BIG";
                frame(&mut out, 1, &[1]);
                frame(&mut out, 2, b"\x03def\x00\x00\x00\x011\x00\x0c\x3f\x00\x01\x00\x00\x00\x08\x81\x00\x00\x00\x00");
                frame(&mut out, 3, &EOF);
                if big {
                    let n = 1 << 20;
                    let mut row = vec![0xfd, n as u8, (n >> 8) as u8, (n >> 16) as u8];
                    row.resize(4 + n, b'x');
                    frame(&mut out, 4, &row);
                } else {
                    frame(&mut out, 4, b"\x011");
                }
                frame(&mut out, 5, &EOF);
            }
            Some(_) => frame(&mut out, 1, &[0xff, 0x17, 0x04, b'#', b'0', b'8', b'S', b'0', b'1', b'?']),
        }
        if s.write_all(&out).is_err() {
            return;
        }
    }
}

/// Start the server on an ephemeral port; it serves at most `max_conns` connections.
pub fn spawn(max_conns: usize) -> TestServer {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for s in l.incoming().take(max_conns).flatten() {
            std::thread::spawn(move || serve(s));
        }
    });
    TestServer { port }
}
