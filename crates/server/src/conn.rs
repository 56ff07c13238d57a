//! An accepted client socket (TCP or Unix) as accept returns it: the raw stream
//! plus who is on the other end, worked out by the thread that serves it.

use crate::accounts::Peer;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

pub enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    /// The socket was closed (the pool closes it as soon as the session ends,
    /// even if a stale queue entry still refers to the connection).
    Closed,
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
        match &self.stream {
            Stream::Tcp(s) => match self.addr.map(Ok).unwrap_or_else(|| s.peer_addr()) {
                Ok(a) => {
                    let ip = match a.ip() {
                        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().map(std::net::IpAddr::V4).unwrap_or(a.ip()),
                        v4 => v4,
                    };
                    let a = std::net::SocketAddr::new(ip, a.port());
                    (Peer { ip: ip_text(ip), local: ip.is_loopback() }, Some(a))
                }
                Err(_) => (Peer { ip: "unknown".into(), local: false }, None),
            },
            Stream::Unix(_) | Stream::Closed => (Peer { ip: "localhost".into(), local: true }, None),
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
    /// Called before the socket is closed after the client's COM_QUIT: make
    /// close(2) send an RST instead of a FIN (SO_LINGER with a zero timeout).
    /// The client has said goodbye and closed its end, so nothing is lost; its
    /// socket then goes away at once instead of waiting in TIME_WAIT for a
    /// minute, and the server skips the FIN/ACK exchange (58.4 -> 51.6 µs of
    /// server CPU per connection in bench/ab.py, see docs/configuration.md).
    pub fn reset_on_close(&self) {
        if let Stream::Tcp(s) = self {
            let _ = socket2::SockRef::from(s).set_linger(Some(Duration::ZERO));
        }
    }

    pub fn set_read_timeout(&self, d: Duration) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_read_timeout(Some(d)),
            Stream::Unix(s) => s.set_read_timeout(Some(d)),
            Stream::Closed => Err(closed()),
        }
    }

    pub fn set_write_timeout(&self, d: Duration) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_write_timeout(Some(d)),
            Stream::Unix(s) => s.set_write_timeout(Some(d)),
            Stream::Closed => Err(closed()),
        }
    }

    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
            Stream::Closed => Err(closed()),
        }
    }

    /// Write everything, retrying on EINTR; a timeout (net_write_timeout) is an error.
    pub fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf),
            Stream::Unix(s) => s.write_all(buf),
            Stream::Closed => Err(closed()),
        }
    }

    /// Write what the socket takes now (non-blocking sockets).
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
            Stream::Closed => Err(closed()),
        }
    }

    pub fn set_nonblocking(&self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nonblocking(true),
            Stream::Unix(s) => s.set_nonblocking(true),
            Stream::Closed => Err(closed()),
        }
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Closed => -1,
        }
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
