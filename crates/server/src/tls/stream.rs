//! A connection after the client's SSLRequest: the same socket, with a
//! rustls `ServerConnection` between it and the driver. It is one more
//! `Transport` (transport.rs), so neither scheduler nor the driver changes;
//! the only things a loop must ask of it that a socket never needs are
//! `pending_input` (plaintext or ciphertext already taken off the socket:
//! an edge-triggered loop must read again before it waits) and
//! `wants_write` (a TLS record of rustls's own, such as the handshake's
//! flight, waits for a socket that is full: wait for EPOLLOUT too).
//!
//! Reads and writes follow rustls's contract (`read_tls`,
//! `process_new_packets`, `write_tls`); a write reports bytes as written
//! only once their records are on the socket, so "out is empty" still means
//! "the client can have it all", which the loops' waits rely on.
//!
//! On a non-blocking socket a read that returned fewer bytes than rustls
//! asked for (`ReadProbe`) found the socket empty, just as WouldBlock
//! would have: once that read's plaintext is all handed out the transport
//! counts as drained, and the pool waits for EPOLLIN without a read that
//! would only say EAGAIN (anything arriving later raises a new edge).
//! Reading on to WouldBlock instead cost 0.40 extra `recvfrom` per point
//! select (docs/architecture.md, TLS).

use crate::transport::Transport;
use rustls::ServerConnection;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Duration;

/// Plaintext taken per write: a few TLS records (16 KiB each), so one
/// write's records fit a socket buffer and a would-block holds little back.
const WRITE_CHUNK_BYTES: usize = 64 * 1024;

/// What the session may know of its TLS session once the handshake is over
/// (Ssl_version, Ssl_cipher): written once by the transport, read by the session.
#[derive(Default, Debug)]
pub struct TlsInfo {
    pub version: std::sync::OnceLock<&'static str>,
    pub cipher: std::sync::OnceLock<&'static str>,
    /// The client's certificate (DER), verified against ssl_ca, if it sent one.
    pub peer_cert: std::sync::OnceLock<Vec<u8>>,
    /// SHA-256 of the certificate the server presented.
    pub server_cert_sha256: std::sync::OnceLock<[u8; 32]>,
}

pub struct TlsStream<S: Transport + Write> {
    socket: S,
    tls: ServerConnection,
    info: Arc<TlsInfo>,
    server: Arc<crate::tls::Tls>,
    /// The first `written` bytes of the caller's buffer are encrypted and
    /// partly on the socket: reported as written once all of them are.
    written_pending: usize,
    /// The last read stopped at the socket's WouldBlock (or a short read of
    /// it) with no plaintext left.
    drained: bool,
    /// The last read of the socket returned less than asked: it was empty then.
    socket_short: bool,
    /// The socket is non-blocking (the pool): a short read means drained.
    /// Blocking sockets (thread-per-connection) just read again.
    nonblocking: bool,
    handshake_done: bool,
}

/// The socket as rustls's `read_tls` reads it, noting whether the read
/// returned less than asked for.
struct ReadProbe<'a, S> {
    socket: &'a mut S,
    short: bool,
}

impl<S: Read> Read for ReadProbe<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.socket.read(buf)?;
        self.short = n < buf.len();
        Ok(n)
    }
}

/// Is `fd` in non-blocking mode?
fn is_nonblocking(fd: RawFd) -> bool {
    // SAFETY: F_GETFL only reads the descriptor's flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && flags & libc::O_NONBLOCK != 0
}

impl<S: Transport + Read + Write> TlsStream<S> {
    /// Start TLS on `socket` with `early`: bytes of the handshake that
    /// arrived with the SSLRequest (they are not lost).
    pub fn new(socket: S, tls: ServerConnection, early: &[u8], info: Arc<TlsInfo>, server: Arc<crate::tls::Tls>) -> io::Result<Self> {
        server.counters.accepts.inc();
        let nonblocking = is_nonblocking(socket.fd());
        let mut s = TlsStream { socket, tls, info, server, written_pending: 0, drained: false, socket_short: false, nonblocking, handshake_done: false };
        let mut rest = early;
        while !rest.is_empty() {
            s.tls.read_tls(&mut rest)?;
            s.process()?;
        }
        Ok(s)
    }

    /// Decrypt what `read_tls` took; send what the handshake answers (an
    /// alert on failure, then the error).
    fn process(&mut self) -> io::Result<()> {
        if let Err(e) = self.tls.process_new_packets() {
            self.server.counters.failures.inc();
            let _ = self.flush();
            return Err(io::Error::new(io::ErrorKind::InvalidData, e));
        }
        if !self.handshake_done && !self.tls.is_handshaking() {
            self.handshake_done = true;
            self.server.note_handshake(&self.tls, &self.info);
        }
        self.flush_or_wait()
    }

    /// `flush`, where a full socket is no error: the records stay queued and
    /// `wants_write` tells the loop to wait for EPOLLOUT.
    fn flush_or_wait(&mut self) -> io::Result<()> {
        match self.flush() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            r => r,
        }
    }
}

/// A TLS connection ends with the server's close_notify, so a client
/// closing in order after COM_QUIT reads a TLS end, not a broken one. One
/// best-effort write that never waits (the socket goes non-blocking first:
/// a client that stopped reading must not hold a thread for
/// net_write_timeout); skipped when records are still queued.
impl<S: Transport + Write> Drop for TlsStream<S> {
    fn drop(&mut self) {
        if self.handshake_done && !self.tls.wants_write() {
            if !self.nonblocking && self.socket.set_nonblocking().is_err() {
                return;
            }
            self.tls.send_close_notify();
            let _ = self.flush();
        }
    }
}

impl<S: Transport + Write> TlsStream<S> {
    /// Write rustls's pending records; Err(WouldBlock) when the socket is full.
    fn flush(&mut self) -> io::Result<()> {
        while self.tls.wants_write() {
            if self.tls.write_tls(&mut self.socket)? == 0 {
                return Err(io::Error::new(io::ErrorKind::WriteZero, "peer closed"));
            }
        }
        Ok(())
    }
}

impl<S: Transport + Read + Write> Transport for TlsStream<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut read_short = false;
        loop {
            match self.tls.reader().read(buf) {
                Ok(n) => {
                    // n == 0: the client's close_notify. The reader fills
                    // `buf` while it has plaintext, so less means none left.
                    self.drained = self.nonblocking && n > 0 && n < buf.len() && self.socket_short;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            self.flush_or_wait()?;
            if read_short && self.nonblocking {
                // Part of a record, or a handshake message answered: the
                // socket was empty when read, so wait for its next edge.
                self.drained = true;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let mut probe = ReadProbe { socket: &mut self.socket, short: false };
            let got = self.tls.read_tls(&mut probe);
            (read_short, self.socket_short) = (probe.short, probe.short);
            match got {
                Ok(0) => return Ok(0),
                Ok(_) => self.process()?,
                Err(e) => {
                    self.drained = e.kind() == io::ErrorKind::WouldBlock;
                    return Err(e);
                }
            }
        }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written_pending > 0 {
            // The caller comes back with the same bytes at the front of `buf`.
            debug_assert!(buf.len() >= self.written_pending, "a TLS write resumed with fewer bytes than it took");
            self.flush()?;
            return Ok(std::mem::take(&mut self.written_pending));
        }
        let n = self.tls.writer().write(&buf[..buf.len().min(WRITE_CHUNK_BYTES)])?;
        match self.flush() {
            Ok(()) => Ok(n),
            Err(e) => {
                if e.kind() == io::ErrorKind::WouldBlock {
                    self.written_pending = n;
                }
                Err(e)
            }
        }
    }

    fn fd(&self) -> RawFd {
        self.socket.fd()
    }

    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        self.socket.set_read_timeout(timeout)
    }

    fn set_write_timeout(&self, timeout: Duration) -> io::Result<()> {
        self.socket.set_write_timeout(timeout)
    }

    fn set_nonblocking(&self) -> io::Result<()> {
        self.socket.set_nonblocking()
    }

    /// Never over TLS: a TLS client closes after COM_QUIT with its own
    /// close_notify and may read the server's, and a reset in between fails
    /// its close (mysql_async saw ECONNRESET about one time in three).
    /// TLS connections close with FIN, as MariaDB's do.
    fn reset_on_close(&self) {}

    fn peer_addr(&self) -> Option<io::Result<SocketAddr>> {
        self.socket.peer_addr()
    }

    fn pending_input(&self) -> bool {
        !self.drained
    }

    fn wants_write(&self) -> bool {
        self.tls.wants_write()
    }
}
