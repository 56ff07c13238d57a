//! Fuzz target: what a client sends after its SSLRequest (crates/server
//! tls/stream.rs, with rustls underneath), and the certificate-date reader.
//!
//! Input: the bytes of the connection after the SSLRequest, split at the
//! first byte's value: the head arrives with the SSLRequest (`early`, as a
//! ClientHello in the same segment), the rest from the socket in chunks of
//! at most 1,500 bytes. The stream is read until it ends, fails or has taken
//! everything, and writes go to a socket that takes every other call; no
//! input may panic or loop. The same bytes are also read as a DER
//! certificate by `tls::validity::validity`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::{self, Read, Write};
use std::sync::{Arc, OnceLock};
use turnstile_server::tls::stream::{TlsInfo, TlsStream};
use turnstile_server::tls::Tls;
use turnstile_server::transport::Transport;

/// A socket in memory: reads hand out the input in chunks, then WouldBlock
/// (the pool's non-blocking socket), then end of stream.
struct Mem {
    input: Vec<u8>,
    pos: usize,
    reads: usize,
    writes: usize,
}

impl Read for Mem {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.reads % 3 == 0 && self.pos < self.input.len() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(1500).min(self.input.len() - self.pos);
        buf[..n].copy_from_slice(&self.input[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Write for Mem {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        if self.writes % 2 == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Transport for Mem {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Read::read(self, buf)
    }
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Write::write(self, buf)
    }
    fn fd(&self) -> std::os::fd::RawFd {
        -1
    }
    fn set_read_timeout(&self, _: std::time::Duration) -> io::Result<()> {
        Ok(())
    }
    fn set_write_timeout(&self, _: std::time::Duration) -> io::Result<()> {
        Ok(())
    }
    fn set_nonblocking(&self) -> io::Result<()> {
        Ok(())
    }
    fn peer_addr(&self) -> Option<io::Result<std::net::SocketAddr>> {
        None
    }
}

/// The server's TLS, with a certificate generated once per process.
fn tls() -> &'static Arc<Tls> {
    static TLS: OnceLock<Arc<Tls>> = OnceLock::new();
    TLS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ts-fuzz-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = turnstile_server::Config { datadir: dir, ..Default::default() };
        Tls::load(&config).unwrap().unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = turnstile_server::tls::validity::validity(data);
    let Some((&split, rest)) = data.split_first() else { return };
    let (early, later) = rest.split_at((split as usize).min(rest.len()));
    let tls = tls().clone();
    let (conn, _) = tls.accept().unwrap();
    let socket = Mem { input: later.to_vec(), pos: 0, reads: 0, writes: 0 };
    let Ok(mut s) = TlsStream::new(socket, conn, early, Arc::new(TlsInfo::default()), tls) else { return };
    let mut buf = [0u8; 4096];
    // Each read either takes input, ends, or fails: bounded by the input's length.
    for _ in 0..later.len() + 8 {
        match Transport::read(&mut s, &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                let _ = Transport::write(&mut s, b"\x07\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00");
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let _ = s.pending_input();
                let _ = s.wants_write();
            }
            Err(_) => break,
        }
    }
});
