//! An accepted client socket (TCP or Unix) as accept returns it: the raw stream
//! plus who is on the other end, worked out by the thread that serves it; and
//! `Stream`, the transport a connection holds (a socket, or TLS on it).

use crate::accounts::Peer;
use crate::tls::stream::{TlsInfo, TlsStream};
use crate::transport::Transport;
use std::io;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

/// A connection's transport, or nothing once the connection is closed (the
/// pool closes the socket as soon as the session ends, even if a stale queue
/// entry still refers to the connection).
///
/// The two sockets every connection arrives on are held as themselves, so
/// their reads and writes are static calls and a connection costs no
/// allocation for its transport; any other `Transport` (`Stream::new`) is
/// boxed. Either way the schedulers see only `Stream`'s methods, which call
/// the `Transport` trait.
pub struct Stream(Held);

enum Held {
    Tcp(TcpStream),
    Unix(UnixStream),
    Other(Box<dyn Transport>),
    Closed,
}

/// `$body` with `$t` bound to the transport as a `Transport` (`&mut` after
/// `mut`, else `&`), or `$closed` when the stream is closed.
macro_rules! with_transport {
    ($held:expr, mut $t:ident => $body:expr, $closed:expr) => {
        with_transport!(@ $held, $t, (&mut), $body, $closed)
    };
    ($held:expr, $t:ident => $body:expr, $closed:expr) => {
        with_transport!(@ $held, $t, (&), $body, $closed)
    };
    (@ $held:expr, $t:ident, ($($borrow:tt)+), $body:expr, $closed:expr) => {
        match $held {
            Held::Tcp($t) => $body,
            Held::Unix($t) => $body,
            Held::Other(b) => {
                let $t = $($borrow)+ **b;
                $body
            }
            Held::Closed => $closed,
        }
    };
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "connection closed")
}

pub struct Accepted {
    pub stream: Stream,
    /// True for the admin listener.
    pub admin_port: bool,
    /// The TCP peer as accept(2) returned it (no getpeername later).
    pub addr: Option<std::net::SocketAddr>,
    /// Socket options already inherited from the listener (TCP only).
    pub inherited: Option<crate::listener::Inherited>,
    /// The socket is already non-blocking (accepted with SOCK_NONBLOCK).
    pub nonblocking: bool,
}

impl Accepted {
    /// Who is connecting: computed on the thread that serves the session.
    pub fn peer(&self) -> (Peer, Option<std::net::SocketAddr>) {
        let local = || (Peer { ip: "localhost".into(), local: true }, None);
        let addr = match self.addr {
            Some(a) => Ok(a),
            None => match with_transport!(&self.stream.0, t => Transport::peer_addr(t), return local()) {
                Some(a) => a,
                None => return local(),
            },
        };
        match addr {
            Ok(a) => {
                let ip = match a.ip() {
                    std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().map(std::net::IpAddr::V4).unwrap_or(a.ip()),
                    v4 => v4,
                };
                let a = std::net::SocketAddr::new(ip, a.port());
                (Peer { ip: ip_text(ip), local: ip.is_loopback() }, Some(a))
            }
            Err(_) => (Peer { ip: "unknown".into(), local: false }, None),
        }
    }
}

/// The text form of a client address. IPv4 (every loopback client) is written
/// digit by digit: `Display` goes through the formatting machinery and cost
/// about 1,400 instructions per connection, more than the rest of accept.
fn ip_text(ip: std::net::IpAddr) -> String {
    match ip {
        std::net::IpAddr::V4(v4) => {
            let mut s = String::with_capacity(15);
            for (i, o) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    s.push('.');
                }
                if o >= 100 {
                    s.push((b'0' + o / 100) as char);
                }
                if o >= 10 {
                    s.push((b'0' + o / 10 % 10) as char);
                }
                s.push((b'0' + o % 10) as char);
            }
            s
        }
        v6 => v6.to_string(),
    }
}

impl Stream {
    /// A transport other than the sockets (`From<TcpStream>`,
    /// `From<UnixStream>`), behind the trait.
    pub fn new(transport: impl Transport + 'static) -> Stream {
        Stream(Held::Other(Box::new(transport)))
    }

    /// Close the transport now.
    pub fn close(&mut self) {
        self.0 = Held::Closed;
    }

    pub fn reset_on_close(&self) {
        with_transport!(&self.0, t => Transport::reset_on_close(t), ())
    }

    pub fn set_read_timeout(&self, d: Duration) -> io::Result<()> {
        with_transport!(&self.0, t => Transport::set_read_timeout(t, d), Err(closed()))
    }

    pub fn set_write_timeout(&self, d: Duration) -> io::Result<()> {
        with_transport!(&self.0, t => Transport::set_write_timeout(t, d), Err(closed()))
    }

    pub fn set_nonblocking(&self) -> io::Result<()> {
        with_transport!(&self.0, t => Transport::set_nonblocking(t), Err(closed()))
    }

    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        with_transport!(&mut self.0, mut t => Transport::read(t, buf), Err(closed()))
    }

    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        with_transport!(&mut self.0, mut t => Transport::write(t, buf), Err(closed()))
    }

    /// See `Transport::pending_input`.
    pub fn pending_input(&self) -> bool {
        with_transport!(&self.0, t => Transport::pending_input(t), false)
    }

    /// See `Transport::wants_write`.
    pub fn wants_write(&self) -> bool {
        with_transport!(&self.0, t => Transport::wants_write(t), false)
    }

    /// The socket becomes a TLS connection (the client's SSLRequest):
    /// `early` are the bytes that arrived after that request.
    pub fn start_tls(&mut self, tls: rustls::ServerConnection, early: &[u8], info: Arc<TlsInfo>, server: Arc<crate::tls::Tls>) -> io::Result<()> {
        self.0 = match std::mem::replace(&mut self.0, Held::Closed) {
            Held::Tcp(s) => Held::Other(Box::new(TlsStream::new(s, tls, early, info, server)?)),
            Held::Unix(s) => Held::Other(Box::new(TlsStream::new(s, tls, early, info, server)?)),
            _ => return Err(io::Error::new(io::ErrorKind::InvalidInput, "TLS is started once, on a socket")),
        };
        Ok(())
    }

    /// Write all of `buf` (blocking transports).
    pub fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match self.write(buf) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "peer closed")),
                Ok(n) => buf = &buf[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl From<TcpStream> for Stream {
    fn from(s: TcpStream) -> Stream {
        Stream(Held::Tcp(s))
    }
}

impl From<UnixStream> for Stream {
    fn from(s: UnixStream) -> Stream {
        Stream(Held::Unix(s))
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        with_transport!(&self.0, t => Transport::fd(t), -1)
    }
}

/// Whether a client socket's peer has gone, asked by a long statement (see
/// `turnstile_engine::ClientProbe`) so that the statement of a client that
/// disconnected stops instead of running on for nobody.
pub struct PeerProbe {
    pub fd: RawFd,
    /// The session's registry entry: a read side the server shut down itself
    /// (graceful shutdown lets running statements finish) is no sign.
    pub handle: std::sync::Arc<crate::registry::Handle>,
}

impl turnstile_engine::ClientProbe for PeerProbe {
    fn gone(&self) -> bool {
        if self.handle.closed_by_server.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let mut p = libc::pollfd { fd: self.fd, events: libc::POLLRDHUP, revents: 0 };
        // SAFETY: one valid pollfd; a zero timeout never blocks. The session
        // owns the socket for the whole statement, so `fd` is still its own.
        let n = unsafe { libc::poll(&mut p, 1, 0) };
        n > 0 && p.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::ip_text;
    use std::net::IpAddr;

    #[test]
    fn ip_text_matches_display() {
        for s in ["127.0.0.1", "0.0.0.0", "10.9.100.255", "192.168.1.20", "::1", "fe80::1"] {
            let ip: IpAddr = s.parse().unwrap();
            assert_eq!(ip_text(ip), ip.to_string());
        }
    }
}
