//! Thread-per-connection scheduler with a thread cache.
//!
//! Each connection runs on one thread from greeting to close; the session is
//! built and torn down on that thread. The thread cache *is* the set of idle
//! threads blocked in accept(2) on a listener (a "door"): the kernel wakes
//! exactly one of them per incoming connection (accept waits are exclusive), and
//! that thread serves the connection it accepted. Nothing is handed from one
//! thread to another, so a connection costs no futex wake, no acceptor wake-up
//! and one context switch less than an acceptor thread feeding a cache (the
//! design measured first; see docs/architecture.md).
//!
//! Invariant: every door always has at least one thread waiting in accept. A
//! thread that accepts leaves the door's idle count; if it was the last one it
//! starts a replacement before serving (the only place threads are created).
//! After its connection a thread rejoins the door while the cache holds fewer
//! than `thread_cache_size` idle threads beyond the one waiter per door, and
//! retires otherwise. An idle thread retires after `thread_idle_timeout` unless
//! it is the door's last waiter. Counts are atomics; there is no lock here.
//! Shutdown wakes the waiters with shutdown(2) on the listening sockets.

use crate::conn::{Accepted, Stream};
use crate::driver::{self, Driver, Want};
use crate::listener::Inherited;
use crate::server::Server;
use crate::session::Session;
use std::io;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use turnstile_engine::clock::coarse_ms;

/// Bytes read per idle read (a command packet usually fits).
const SMALL_READ: usize = 4096;

/// A listening socket served by accepting threads.
pub enum DoorSocket {
    Tcp(TcpListener, Inherited),
    Unix(UnixListener),
}

struct Door {
    socket: DoorSocket,
    admin_port: bool,
    /// Threads blocked in accept on this door (or about to be).
    idle: AtomicI64,
}

impl Door {
    /// Blocking accept; the listener's SO_RCVTIMEO bounds the wait.
    fn accept(&self) -> io::Result<Accepted> {
        match &self.socket {
            DoorSocket::Tcp(l, inherited) => {
                let (s, addr) = l.accept()?;
                Ok(Accepted { stream: Stream::from(s), admin_port: self.admin_port, addr: Some(addr), inherited: Some(*inherited), nonblocking: false })
            }
            DoorSocket::Unix(l) => {
                let (s, _) = l.accept()?;
                Ok(Accepted { stream: Stream::from(s), admin_port: self.admin_port, addr: None, inherited: None, nonblocking: false })
            }
        }
    }

    fn raw_fd(&self) -> i32 {
        match &self.socket {
            DoorSocket::Tcp(l, _) => l.as_raw_fd(),
            DoorSocket::Unix(l) => l.as_raw_fd(),
        }
    }
}

pub struct ThreadCache {
    server: Arc<Server>,
    doors: std::sync::Mutex<Vec<Arc<Door>>>,
    /// Idle threads at all doors (Threads_cached is this minus one per door).
    idle_total: AtomicI64,
    door_count: AtomicI64,
}

impl ThreadCache {
    pub fn new(server: Arc<Server>) -> Arc<ThreadCache> {
        Arc::new(ThreadCache { server, doors: std::sync::Mutex::new(Vec::new()), idle_total: AtomicI64::new(0), door_count: AtomicI64::new(0) })
    }

    /// Serve a listener with accepting threads. The socket must be blocking.
    pub fn open(self: &Arc<Self>, socket: DoorSocket, admin_port: bool) -> io::Result<()> {
        let door = Arc::new(Door { socket, admin_port, idle: AtomicI64::new(0) });
        self.door_count.fetch_add(1, Ordering::Relaxed);
        self.doors.lock().unwrap_or_else(|e| e.into_inner()).push(door.clone());
        self.spawn_waiter(&door)
    }

    /// Wake every waiting thread so it sees the shutdown flag and leaves.
    pub fn close(&self) {
        for door in self.doors.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            // SAFETY: shutdown(2) on a listening socket we own; accept then fails with EINVAL.
            unsafe { libc::shutdown(door.raw_fd(), libc::SHUT_RDWR) };
        }
    }

    fn publish_cached(&self) {
        let n = self.idle_total.load(Ordering::Relaxed) - self.door_count.load(Ordering::Relaxed);
        self.server.threads_cached.store(n.max(0), Ordering::Relaxed);
    }

    /// Start a thread that waits at `door`, counted as idle from now on.
    fn spawn_waiter(self: &Arc<Self>, door: &Arc<Door>) -> io::Result<()> {
        door.idle.fetch_add(1, Ordering::AcqRel);
        self.idle_total.fetch_add(1, Ordering::AcqRel);
        let (me, d) = (self.clone(), door.clone());
        let spawned = std::thread::Builder::new().name("ts-conn".into()).stack_size(self.server.config.thread_stack).spawn(move || me.door_thread(d));
        match spawned {
            Ok(_) => {
                if self.server.config.statistics {
                    self.server.stats.threads_created.inc();
                }
                self.publish_cached();
                Ok(())
            }
            Err(e) => {
                door.idle.fetch_sub(1, Ordering::AcqRel);
                self.idle_total.fetch_sub(1, Ordering::AcqRel);
                tracing::error!(error = %e, "cannot start a connection thread");
                Err(e)
            }
        }
    }

    /// Leave the idle set of `door`, unless this is its last waiter.
    fn retire_idle(&self, door: &Door) -> bool {
        if door.idle.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| if n > 1 { Some(n - 1) } else { None }).is_ok() {
            self.idle_total.fetch_sub(1, Ordering::AcqRel);
            self.publish_cached();
            return true;
        }
        false
    }

    /// Rejoin `door` after a connection if the cache has room.
    fn rejoin(&self, door: &Door) -> bool {
        let limit = self.server.globals.hot.thread_cache_size.load(Ordering::Relaxed).max(0);
        let doors = self.door_count.load(Ordering::Relaxed);
        if self.idle_total.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| if n - doors < limit { Some(n + 1) } else { None }).is_err() {
            return false;
        }
        door.idle.fetch_add(1, Ordering::AcqRel);
        self.publish_cached();
        true
    }

    fn door_thread(self: Arc<Self>, door: Arc<Door>) {
        // One read buffer per thread, reused by every connection it serves.
        let mut scratch = vec![0u8; SMALL_READ].into_boxed_slice();
        let idle_timeout = Duration::from_secs(self.server.config.thread_idle_timeout);
        let mut idle_since = Instant::now();
        loop {
            if self.server.is_shutting_down() {
                door.idle.fetch_sub(1, Ordering::AcqRel);
                self.idle_total.fetch_sub(1, Ordering::AcqRel);
                self.publish_cached();
                return;
            }
            match door.accept() {
                Ok(conn) => {
                    self.idle_total.fetch_sub(1, Ordering::AcqRel);
                    if door.idle.fetch_sub(1, Ordering::AcqRel) == 1 {
                        // The door must never be left without a waiter.
                        let _ = self.spawn_waiter(&door);
                    } else {
                        self.publish_cached();
                    }
                    serve(&self.server, conn, &mut scratch);
                    if self.server.is_shutting_down() || !self.rejoin(&door) {
                        return;
                    }
                    idle_since = Instant::now();
                }
                Err(e) => match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                        if idle_since.elapsed() >= idle_timeout && self.retire_idle(&door) {
                            return;
                        }
                    }
                    io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted => {}
                    _ if self.server.is_shutting_down() => {}
                    _ => {
                        crate::listener::log_accept_error(&e);
                        // Out of descriptors: refuse a waiting client with 1040
                        // (reserve descriptor) rather than leave it hanging.
                        // A blocking accept here could only wait as long as the
                        // listener's SO_RCVTIMEO if another thread took that client.
                        if crate::listener::out_of_files(&e) {
                            if crate::listener::refuse_out_of_files(door.raw_fd(), &self.server.registry) {
                                continue;
                            }
                            // Every thread blocked in accept holds a descriptor
                            // (the kernel allocates it before waiting): with
                            // none left, the cache shrinks to one waiter.
                            if self.retire_idle(&door) {
                                return;
                            }
                        }
                        // Back off instead of spinning.
                        std::thread::sleep(Duration::from_millis(50));
                    }
                },
            }
        }
    }
}

/// Serve one connection on this thread until it closes: the blocking I/O
/// loop around the connection's `Driver`. Writes block (bounded by
/// net_write_timeout); reads block until the driver's deadline, kept as the
/// socket's SO_RCVTIMEO in whole seconds (set only when it changes, and not
/// at all when the listener's inherited value already matches).
pub fn serve(server: &Arc<Server>, conn: Accepted, small: &mut [u8]) {
    let (peer, host) = conn.peer();
    let inherited = conn.inherited;
    let mut stream = conn.stream;
    let session = Session::new(server.clone(), peer, host, conn.admin_port, stream.as_raw_fd());
    let mut driver = Driver::new(session, coarse_ms());
    let write_timeout_s = crate::server::seconds(&server.globals.hot.net_write_timeout);
    if inherited.map(|i| i.write_timeout) != Some(write_timeout_s) {
        let _ = stream.set_write_timeout(Duration::from_secs(write_timeout_s));
    }
    let mut current_timeout_s = inherited.map_or(0, |i| i.read_timeout);
    driver.start();
    loop {
        let mut flush = |buf: &mut Vec<u8>| write_all(&mut stream, server, buf);
        let mut unlimited = usize::MAX;
        match driver.poll(&mut unlimited, &mut flush) {
            Want::Write => {
                if write_all(&mut stream, server, driver.out()).is_err() {
                    break;
                }
            }
            want @ Want::Read { .. } => {
                let Some(timeout_s) = driver::timeout_s(driver.wait_ms(want, coarse_ms)) else {
                    driver.deadline_passed();
                    continue;
                };
                if timeout_s != current_timeout_s {
                    let _ = stream.set_read_timeout(Duration::from_secs(timeout_s));
                    current_timeout_s = timeout_s;
                }
                match driver.receive(small, |buf| stream.read(buf)) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::TimedOut => driver.deadline_passed(),
                    Err(_) => break,
                }
            }
            // Not asked of this loop (its session's backend reads block), met all the same.
            Want::Backend { fd } => {
                if let Some(fd) = fd {
                    wait_readable(fd);
                }
                driver.backend_ready();
            }
            // No budget here: a thread serves one connection.
            Want::Yield => {}
            Want::StartTls => {
                if crate::tls::upgrade(&mut stream, &mut driver).is_err() {
                    break;
                }
            }
            // A held login answer (connection_control): this thread serves no one else.
            want @ Want::Sleep => {
                std::thread::sleep(Duration::from_millis(driver.wait_ms(want, coarse_ms)));
                driver.deadline_passed();
            }
            Want::Close => {
                let _ = write_all(&mut stream, server, driver.out());
                break;
            }
        }
    }
    if driver.finish() {
        stream.reset_on_close();
    }
    drop(stream);
}

/// Block until `fd` is readable (or closed).
fn wait_readable(fd: std::os::fd::RawFd) {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd; -1 waits without a timeout.
    unsafe { libc::poll(&mut p, 1, -1) };
}

/// Write all of `buf` (blocking), counting it in Bytes_sent.
fn write_all(stream: &mut Stream, server: &Server, buf: &mut Vec<u8>) -> io::Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let r = stream.write_all(buf);
    if server.config.statistics {
        server.stats.bytes_sent.add(buf.len() as i64);
    }
    buf.clear();
    r
}
