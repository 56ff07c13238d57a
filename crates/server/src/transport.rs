//! The byte streams a connection runs over, behind one small trait.
//!
//! A scheduler's I/O loop moves bytes between a `Transport` and the
//! connection's `Driver` (driver.rs), and never asks which transport it is.
//! TCP and Unix sockets are here; a new one (TLS, shared memory) is one more
//! implementation of `Transport`, with no change to either scheduler or to the
//! driver. A transport that wraps a socket (TLS) reports that socket's
//! descriptor in `fd`: the pool waits on it with epoll, a long statement polls
//! it to learn that the client left, and KILL shuts it down.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

pub trait Transport: Send {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    fn write(&mut self, buf: &[u8]) -> io::Result<usize>;
    /// The socket underneath (see the module header).
    fn fd(&self) -> RawFd;
    /// Blocking use (thread-per-connection): how long a read may wait.
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()>;
    /// Blocking use: how long a write may wait.
    fn set_write_timeout(&self, timeout: Duration) -> io::Result<()>;
    /// The pool's use: reads and writes return WouldBlock instead of waiting.
    fn set_nonblocking(&self) -> io::Result<()>;
    /// Close with a reset rather than an orderly shutdown, where the
    /// transport has one (`reset_after_quit`).
    fn reset_on_close(&self) {}
    /// The peer's address (None: a local transport with no address, such as a Unix socket).
    fn peer_addr(&self) -> Option<io::Result<SocketAddr>>;
}

impl Transport for TcpStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Read::read(self, buf)
    }
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Write::write(self, buf)
    }
    fn fd(&self) -> RawFd {
        self.as_raw_fd()
    }
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        TcpStream::set_read_timeout(self, Some(timeout))
    }
    fn set_write_timeout(&self, timeout: Duration) -> io::Result<()> {
        TcpStream::set_write_timeout(self, Some(timeout))
    }
    fn set_nonblocking(&self) -> io::Result<()> {
        TcpStream::set_nonblocking(self, true)
    }
    /// SO_LINGER 0: the client, which has already closed its end after
    /// COM_QUIT, keeps no TIME_WAIT socket.
    fn reset_on_close(&self) {
        let _ = socket2::SockRef::from(self).set_linger(Some(Duration::ZERO));
    }
    fn peer_addr(&self) -> Option<io::Result<SocketAddr>> {
        Some(TcpStream::peer_addr(self))
    }
}

impl Transport for UnixStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Read::read(self, buf)
    }
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Write::write(self, buf)
    }
    fn fd(&self) -> RawFd {
        self.as_raw_fd()
    }
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        UnixStream::set_read_timeout(self, Some(timeout))
    }
    fn set_write_timeout(&self, timeout: Duration) -> io::Result<()> {
        UnixStream::set_write_timeout(self, Some(timeout))
    }
    fn set_nonblocking(&self) -> io::Result<()> {
        UnixStream::set_nonblocking(self, true)
    }
    fn peer_addr(&self) -> Option<io::Result<SocketAddr>> {
        None
    }
}
