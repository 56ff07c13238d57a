//! Listeners and accepting.
//!
//! The listening sockets: client TCP, the Unix socket and the admin port.
//! There is no acceptor thread. Under thread-per-connection the accepting
//! threads of `per_thread` block in accept and serve what they take; under
//! pool-of-threads the client listeners sit in every thread group's epoll set
//! (EPOLLEXCLUSIVE) and the worker that is woken drains a batch with
//! `accept_nonblocking` (accept4(SOCK_NONBLOCK)) and builds the sessions on
//! itself. Either way nothing but accept runs between the kernel's queue and
//! the thread that will serve the connection: no hand-off, no session state
//! built for somebody else, no lock.
//! TCP_NODELAY and the socket timeouts are set once on the listeners and
//! inherited. Listen backlogs are explicit (`back_log`). TCP_DEFER_ACCEPT is
//! deliberately not set: the server speaks first, so a deferred accept would
//! never complete.
//!
//! Out of file descriptors (EMFILE/ENFILE), accept leaves the connection in
//! the kernel's queue, where its client would wait for a greeting that never
//! comes. `refuse_out_of_files` keeps one descriptor in reserve: it frees it,
//! accepts, sends ERR 1040 and closes, then takes the reserve again. Another
//! thread's accept can take the freed descriptor first; with no reserve left
//! the oldest connection that has not logged in is closed to free one
//! (`Registry::drop_oldest_login`). The warning is logged at most once per
//! `ACCEPT_LOG_INTERVAL_MS` with a count of the ones left out.

use crate::conn::{Accepted, Stream};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;

pub struct Listeners {
    /// Options set on the TCP listeners (inherited by accepted sockets).
    pub inherited: Inherited,
    pub tcp: TcpListener,
    pub admin: TcpListener,
    pub unix: Option<(UnixListener, PathBuf)>,
    wake_read: OwnedFd,
    wake_write: Arc<OwnedFd>,
}

/// Wakes the acceptor (from a signal thread) so it notices shutdown.
#[derive(Clone)]
pub struct Waker(Arc<OwnedFd>);

impl Waker {
    pub fn wake(&self) {
        let b = [1u8];
        // SAFETY: writing one byte to our own pipe; failure (full pipe) is harmless.
        unsafe { libc::write(self.0.as_raw_fd(), b.as_ptr() as *const libc::c_void, 1) };
    }
}

/// Socket options every accepted TCP connection needs. Linux copies them from
/// the listening socket to each accepted one, so setting them here once saves
/// three setsockopt calls per connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inherited {
    /// SO_RCVTIMEO, seconds: connect_timeout (the handshake's read timeout).
    pub read_timeout: u64,
    /// SO_SNDTIMEO, seconds: net_write_timeout.
    pub write_timeout: u64,
}

fn tcp_listener(addr: &str, port: u16, backlog: u32, inherit: Inherited) -> io::Result<TcpListener> {
    let sa: SocketAddr = (addr, port).to_socket_addrs()?.next().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("cannot resolve bind address {}", addr)))?;
    let s = Socket::new(Domain::for_address(sa), Type::STREAM, None)?;
    s.set_reuse_address(true)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(inherit.read_timeout.max(1))))?;
    s.set_write_timeout(Some(std::time::Duration::from_secs(inherit.write_timeout.max(1))))?;
    s.bind(&sa.into())?;
    s.listen(backlog.min(i32::MAX as u32) as i32)?;
    s.set_nonblocking(true)?;
    Ok(s.into())
}

/// Bind the Unix socket. A stale file from a crashed server is replaced; a
/// socket a live server is listening on is never taken over.
fn unix_listener(path: &Path, backlog: u32) -> io::Result<UnixListener> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists and is not a socket; not touching it", path.display())));
        }
        match UnixStream::connect(path) {
            Ok(_) => {
                return Err(io::Error::new(io::ErrorKind::AddrInUse, format!("another server is listening on {}", path.display())));
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused || e.kind() == io::ErrorKind::NotFound => {
                tracing::warn!(path = %path.display(), "removing stale socket file left by an earlier server");
                std::fs::remove_file(path)?;
            }
            Err(e) => return Err(e),
        }
    }
    let s = Socket::new(Domain::UNIX, Type::STREAM, None)?;
    s.bind(&SockAddr::unix(path)?)?;
    // Any local user may connect (connecting needs write permission on the
    // file), as with MySQL's socket; the umask (see `datadir`) would leave 0700.
    // Set before listen(2), so nobody connects before.
    std::fs::set_permissions(path, <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o777))?;
    s.listen(backlog.min(i32::MAX as u32) as i32)?;
    s.set_nonblocking(true)?;
    // SAFETY: the fd comes from a Socket we own and release here.
    Ok(unsafe { UnixListener::from_raw_fd(std::os::fd::IntoRawFd::into_raw_fd(s)) })
}

impl Listeners {
    pub fn bind(cfg: &crate::config::Config) -> io::Result<Listeners> {
        let inherited = Inherited { read_timeout: cfg.connect_timeout, write_timeout: cfg.net_write_timeout };
        let tcp = tcp_listener(&cfg.bind_address, cfg.port, cfg.back_log, inherited).map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}:{}: {}", cfg.bind_address, cfg.port, e)))?;
        let admin = tcp_listener(&cfg.admin_address, cfg.admin_port, cfg.back_log.min(128), inherited)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on admin {}:{}: {}", cfg.admin_address, cfg.admin_port, e)))?;
        let unix = if cfg.socket.is_empty() {
            None
        } else {
            let p = PathBuf::from(&cfg.socket);
            Some((unix_listener(&p, cfg.back_log).map_err(|e| io::Error::new(e.kind(), format!("socket {}: {}", p.display(), e)))?, p))
        };
        let mut fds = [0 as RawFd; 2];
        // SAFETY: pipe2 fills two fds that we immediately own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Listeners { inherited, tcp, admin, unix, wake_read: r, wake_write: Arc::new(w) })
    }

    pub fn waker(&self) -> Waker {
        Waker(self.wake_write.clone())
    }

    pub fn tcp_port(&self) -> u16 {
        self.tcp.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    pub fn admin_port(&self) -> u16 {
        self.admin.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// The listeners as blocking sockets for accepting threads (`per_thread`):
    /// (client TCP, admin TCP, Unix). The clones share the listening sockets.
    pub fn doors(&self) -> io::Result<(TcpListener, TcpListener, Option<UnixListener>)> {
        let tcp = self.tcp.try_clone()?;
        tcp.set_nonblocking(false)?;
        let admin = self.admin_door()?;
        let unix = match &self.unix {
            Some((u, _)) => {
                let u = u.try_clone()?;
                u.set_nonblocking(false)?;
                // Waiting threads wake now and then to apply thread_idle_timeout
                // (TCP listeners have SO_RCVTIMEO already, see `Inherited`).
                socket2::SockRef::from(&u).set_read_timeout(Some(std::time::Duration::from_secs(self.inherited.read_timeout.max(1))))?;
                Some(u)
            }
            None => None,
        };
        Ok((tcp, admin, unix))
    }

    /// The admin listener as a blocking socket for accepting threads.
    pub fn admin_door(&self) -> io::Result<TcpListener> {
        let admin = self.admin.try_clone()?;
        admin.set_nonblocking(false)?;
        Ok(admin)
    }

    /// The client listeners (TCP, then the Unix socket) as non-blocking
    /// descriptors for the pool's workers to accept on (`pool`), each with the
    /// options its accepted sockets inherit (None: the Unix socket).
    pub fn client_fds(&self) -> Vec<(RawFd, Option<Inherited>)> {
        let mut v = vec![(self.tcp.as_raw_fd(), Some(self.inherited))];
        if let Some((u, _)) = &self.unix {
            v.push((u.as_raw_fd(), None));
        }
        v
    }

    /// Wait until `stop` is set (the signal thread wakes us through `Waker`).
    /// Nobody accepts here: accepting threads (`per_thread`) and pool workers
    /// (`pool`) take connections straight from the listeners.
    pub fn wait_for_stop(&self, stop: &AtomicBool) {
        let mut pfd = libc::pollfd { fd: self.wake_read.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        while !stop.load(Ordering::SeqCst) {
            // SAFETY: one valid pollfd for the call's duration.
            let n = unsafe { libc::poll(&mut pfd, 1, 1000) };
            if n > 0 {
                let mut buf = [0u8; 64];
                // SAFETY: reading into a local buffer from our own non-blocking pipe.
                while unsafe { libc::read(self.wake_read.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len()) } > 0 {}
            }
        }
    }

    /// The Unix socket's path, removed at shutdown.
    pub fn socket_file(&self) -> Option<PathBuf> {
        self.unix.as_ref().map(|(_, p)| p.clone())
    }
}

/// The descriptor kept in reserve for `refuse_out_of_files` (-1: none now).
static RESERVE_FD: AtomicI32 = AtomicI32::new(-1);
/// At most one "accept failed" line per this many milliseconds.
pub const ACCEPT_LOG_INTERVAL_MS: u64 = 5000;
static ACCEPT_LOG_AT_MS: AtomicU64 = AtomicU64::new(0);
static ACCEPT_LOG_SUPPRESSED: AtomicU64 = AtomicU64::new(0);

/// Take a descriptor in reserve (at start-up, and again after each use).
pub fn take_reserve_fd() {
    if RESERVE_FD.load(Ordering::Acquire) >= 0 {
        return;
    }
    // SAFETY: opening /dev/null; the descriptor is owned by RESERVE_FD.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd >= 0 && RESERVE_FD.compare_exchange(-1, fd, Ordering::AcqRel, Ordering::Acquire).is_err() {
        // SAFETY: our own descriptor, not stored anywhere.
        unsafe { libc::close(fd) };
    }
}

/// Log a failed accept, at most once per `ACCEPT_LOG_INTERVAL_MS`, counting
/// the lines left out (a flood of EMFILE once wrote 390 lines a second).
pub fn log_accept_error(e: &io::Error) {
    let now = turnstile_engine::clock::coarse_ms().max(1);
    let last = ACCEPT_LOG_AT_MS.load(Ordering::Relaxed);
    let due = last == 0 || now.saturating_sub(last) >= ACCEPT_LOG_INTERVAL_MS;
    if !due || ACCEPT_LOG_AT_MS.compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed).is_err() {
        ACCEPT_LOG_SUPPRESSED.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let suppressed = ACCEPT_LOG_SUPPRESSED.swap(0, Ordering::Relaxed);
    tracing::warn!(error = %e, suppressed, "accept failed (logged at most once per {} s; `suppressed` counts the failures since the last line)", ACCEPT_LOG_INTERVAL_MS / 1000);
}

/// Out of descriptors: accept one pending connection on `listener` with the
/// reserve descriptor, send it ERR 1040 and close it, so its client is told
/// instead of waiting for a greeting. Returns false when there is no reserve
/// or no pending connection (the caller then backs off); without a reserve
/// the oldest login in progress is closed so that a descriptor comes free.
pub fn refuse_out_of_files(listener: RawFd, registry: &crate::registry::Registry) -> bool {
    let mut pfd = libc::pollfd { fd: listener, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd; a zero timeout never blocks (the listener may be blocking).
    if unsafe { libc::poll(&mut pfd, 1, 0) } != 1 {
        return false;
    }
    let reserve = RESERVE_FD.swap(-1, Ordering::AcqRel);
    if reserve < 0 {
        take_reserve_fd();
        if RESERVE_FD.load(Ordering::Acquire) < 0 {
            registry.drop_oldest_login();
        }
        return false;
    }
    // SAFETY: closing our reserve descriptor, then accept4 on a listener we own.
    let fd = unsafe {
        libc::close(reserve);
        libc::accept4(listener, std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK)
    };
    if fd >= 0 {
        let msg = too_many_connections_packet();
        // SAFETY: a send on the socket just accepted, then its close.
        unsafe {
            libc::send(fd, msg.as_ptr().cast(), msg.len(), libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL);
            libc::close(fd);
        }
    }
    take_reserve_fd();
    fd >= 0
}

/// ERR 1040 in place of the greeting (sequence id 0).
fn too_many_connections_packet() -> Vec<u8> {
    let mut msg = Vec::with_capacity(32);
    let mut seq = 0u8;
    let e = turnstile_engine::SqlError::too_many_connections();
    let start = turnstile_wire::packet::begin_packet(&mut msg);
    turnstile_wire::response::encode_err_before_handshake(&mut msg, e.code, &e.message);
    turnstile_wire::packet::end_packet(&mut msg, start, &mut seq);
    msg
}

/// EMFILE or ENFILE.
pub fn out_of_files(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE))
}

/// Returns true to keep accepting (transient error), false at EAGAIN.
fn accept_error(e: io::Error, listener: RawFd, registry: &crate::registry::Registry) -> bool {
    match e.kind() {
        io::ErrorKind::WouldBlock => false,
        io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted => true,
        _ => {
            log_accept_error(&e);
            if out_of_files(&e) && refuse_out_of_files(listener, registry) {
                return true;
            }
            // Back off briefly instead of spinning.
            std::thread::sleep(std::time::Duration::from_millis(5));
            false
        }
    }
}

/// Accept on a non-blocking listener until EAGAIN or `max` connections,
/// handing each to `take`; returns how many were accepted. The sockets come out
/// non-blocking already (accept4 with SOCK_NONBLOCK: no fcntl per connection).
/// `tcp` carries the options inherited from a TCP listener; None is the Unix socket.
pub fn accept_nonblocking(fd: RawFd, tcp: Option<Inherited>, max: usize, registry: &crate::registry::Registry, mut take: impl FnMut(Accepted)) -> usize {
    let mut n = 0;
    // Connections refused for want of descriptors count against the batch too.
    let mut refused = 0;
    while n + refused < max {
        // SAFETY: accept4 writes at most `len` bytes of address into the storage try_init provides.
        let accepted = unsafe {
            SockAddr::try_init(|storage, len| {
                let r = libc::accept4(fd, storage.cast(), len, libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC);
                if r < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(OwnedFd::from_raw_fd(r))
                }
            })
        };
        match accepted {
            Ok((sock, addr)) => {
                let stream = match tcp {
                    Some(_) => Stream::from(std::net::TcpStream::from(sock)),
                    None => Stream::from(UnixStream::from(sock)),
                };
                n += 1;
                // TCP_NODELAY and the timeouts came with the socket (see `Inherited`).
                take(Accepted { stream, admin_port: false, addr: addr.as_socket(), inherited: tcp, nonblocking: true });
            }
            Err(e) => {
                let out_of_files = out_of_files(&e);
                if !accept_error(e, fd, registry) {
                    break;
                }
                refused += out_of_files as usize;
            }
        }
    }
    n
}
