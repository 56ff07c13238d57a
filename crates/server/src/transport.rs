//! The byte streams a connection runs over, behind one small trait.
//!
//! A scheduler's I/O loop moves bytes between a `Transport` and the
//! connection's `Driver` (driver.rs), and never asks which transport it is.
//! TCP and Unix sockets are here, TLS in tls/stream.rs; a new one (shared memory) is one more
//! implementation of `Transport`, with no change to either scheduler or to the
//! driver (a connection holds it as `conn::Stream::new(t)`; the two sockets
//! convert with `From`, held unboxed and called statically). A transport that wraps a socket (TLS) reports that socket's
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
    /// Input already taken off the socket may be waiting (TLS: plaintext, or
    /// records read with it), or the last read did not end at WouldBlock: an
    /// edge-triggered loop reads again before it waits. A socket: never.
    fn pending_input(&self) -> bool {
        false
    }
    /// Bytes of the transport's own (TLS records) wait for the socket to
    /// take them: a non-blocking loop also waits for writability.
    fn wants_write(&self) -> bool {
        false
    }
}

/// The methods a socket type implements the same way (std's TcpStream and
/// UnixStream share their names but no trait).
macro_rules! socket_transport {
    ($t:ty, $reset:expr, $peer:expr) => {
        impl Transport for $t {
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
                <$t>::set_read_timeout(self, Some(timeout))
            }
            fn set_write_timeout(&self, timeout: Duration) -> io::Result<()> {
                <$t>::set_write_timeout(self, Some(timeout))
            }
            fn set_nonblocking(&self) -> io::Result<()> {
                <$t>::set_nonblocking(self, true)
            }
            fn reset_on_close(&self) {
                #[allow(clippy::redundant_closure_call)]
                ($reset)(self)
            }
            fn peer_addr(&self) -> Option<io::Result<SocketAddr>> {
                #[allow(clippy::redundant_closure_call)]
                ($peer)(self)
            }
        }
    };
}

// SO_LINGER 0 on TCP: the client, which has already closed its end after
// COM_QUIT, keeps no TIME_WAIT socket.
socket_transport!(
    TcpStream,
    |s: &TcpStream| {
        let _ = socket2::SockRef::from(s).set_linger(Some(Duration::ZERO));
    },
    |s: &TcpStream| Some(TcpStream::peer_addr(s))
);
// A Unix socket has no reset and no peer address: the peer is "localhost".
socket_transport!(UnixStream, |_: &UnixStream| {}, |_: &UnixStream| None);
