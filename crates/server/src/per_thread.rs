//! Thread-per-connection scheduler with a thread cache.
//!
//! Each connection runs on one thread from greeting to close; the session is
//! built and torn down on that thread. When a connection ends, its thread parks
//! in the cache (up to `thread_cache_size`, for `thread_idle_timeout`) and is
//! handed the next connection, so creating a thread is the exception.
//!
//! Hand-off without a lock and without spinning: an idle thread publishes a
//! `Slot` on a lock-free queue and parks (futex). The acceptor pops a slot,
//! claims it with a compare-and-swap (WAITING -> CLAIMED), stores the socket
//! and unparks the thread. A thread whose idle timeout expires retires only if
//! its own CAS (WAITING -> RETIRED) wins; a slot that lost that race is already
//! claimed, so its connection is on the way. Retired slots left in the queue
//! are skipped by the acceptor. If no slot can be claimed, the acceptor starts
//! a new thread. (A channel was used first; its receive loop spun with
//! sched_yield, about two system calls per connection for nothing.)

use crate::conn::{Accepted, Stream};
use crate::server::Server;
use crate::session::{Flow, Session};
use crossbeam_queue::SegQueue;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use turnstile_engine::SqlError;
use turnstile_wire::packet::{FrameError, PacketDecoder};

/// Bytes read per idle read (a command packet usually fits).
const SMALL_READ: usize = 4096;
/// Bytes read per call while a large packet is arriving.
const LARGE_READ: usize = 64 * 1024;
/// Buffers above this are released after the command that grew them.
const KEEP_BUFFER: usize = 64 * 1024;

const WAITING: u8 = 0;
const CLAIMED: u8 = 1;
const FILLED: u8 = 2;
const RETIRED: u8 = 3;

/// One idle thread's mailbox.
struct Slot {
    state: AtomicU8,
    conn: Mutex<Option<Accepted>>,
    thread: std::thread::Thread,
}

pub struct ThreadCache {
    server: Arc<Server>,
    idle: SegQueue<Arc<Slot>>,
}

impl ThreadCache {
    pub fn new(server: Arc<Server>) -> Arc<ThreadCache> {
        Arc::new(ThreadCache { server, idle: SegQueue::new() })
    }

    /// Called by the acceptor: give the socket to a cached thread or a new one.
    pub fn dispatch(self: &Arc<Self>, conn: Accepted) {
        while let Some(slot) = self.idle.pop() {
            if slot.state.compare_exchange(WAITING, CLAIMED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                self.server.threads_cached.fetch_sub(1, Ordering::Relaxed);
                *slot.conn.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn);
                slot.state.store(FILLED, Ordering::Release);
                slot.thread.unpark();
                return;
            }
            // Retired while queued: skip it.
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new().name("ts-conn".into()).stack_size(self.server.config.thread_stack.max(64 * 1024)).spawn(move || me.thread_main(conn));
        match spawned {
            Ok(_) => {
                if self.server.config.statistics {
                    self.server.stats.threads_created.inc();
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot start a connection thread; connection dropped"),
        }
    }

    fn thread_main(self: Arc<Self>, first: Accepted) {
        let mut conn = first;
        loop {
            serve(&self.server, conn);
            match self.wait_for_next() {
                Some(next) => conn = next,
                None => return,
            }
        }
    }

    /// Park in the cache; `None` means retire.
    fn wait_for_next(&self) -> Option<Accepted> {
        let cached = &self.server.threads_cached;
        let limit = self.server.globals.hot.thread_cache_size.load(Ordering::Relaxed);
        if self.server.is_shutting_down() || cached.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| if n < limit { Some(n + 1) } else { None }).is_err() {
            return None;
        }
        let slot = Arc::new(Slot { state: AtomicU8::new(WAITING), conn: Mutex::new(None), thread: std::thread::current() });
        self.idle.push(slot.clone());
        let deadline = Instant::now() + Duration::from_secs(self.server.config.thread_idle_timeout.max(1));
        loop {
            match slot.state.load(Ordering::Acquire) {
                FILLED => return slot.conn.lock().unwrap_or_else(|e| e.into_inner()).take(),
                WAITING => {
                    let now = Instant::now();
                    if now >= deadline || self.server.is_shutting_down() {
                        if slot.state.compare_exchange(WAITING, RETIRED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                            cached.fetch_sub(1, Ordering::Relaxed);
                            return None;
                        }
                        // Claimed just now: the connection is on its way.
                        continue;
                    }
                    std::thread::park_timeout((deadline - now).min(Duration::from_secs(1)));
                }
                // CLAIMED: the acceptor is filling the slot.
                _ => std::thread::park_timeout(Duration::from_millis(1)),
            }
        }
    }
}

fn write_out(stream: &mut Stream, server: &Server, buf: &mut Vec<u8>) -> io::Result<()> {
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

/// ERR 4031, which MySQL 8.0.24+ sends before closing an idle session.
pub fn encode_inactivity_error(msg: &mut Vec<u8>) {
    let mut seq = 0u8;
    let start = turnstile_wire::packet::begin_packet(msg);
    turnstile_wire::response::encode_err(
        msg,
        4031,
        "HY000",
        "The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior.",
    );
    turnstile_wire::packet::end_packet(msg, start, &mut seq);
}

/// Serve one connection on this thread until it closes.
pub fn serve(server: &Arc<Server>, conn: Accepted) {
    let (peer, host) = conn.peer();
    let admin_port = conn.admin_port;
    let inherited = conn.inherited;
    let mut stream = conn.stream;
    let mut session = Session::new(server.clone(), peer, host, admin_port, stream.as_raw_fd());
    // Set socket timeouts only where the listener's inherited values do not match
    // the current settings (Unix sockets, or after SET GLOBAL).
    let write_timeout = server.globals.hot.net_write_timeout.load(Ordering::Relaxed).max(1) as u64;
    if inherited.map(|i| i.write_timeout) != Some(write_timeout) {
        let _ = stream.set_write_timeout(Duration::from_secs(write_timeout));
    }
    let mut out = Vec::with_capacity(512);
    let mut flow = session.start(&mut out);
    if write_out(&mut stream, server, &mut out).is_err() {
        flow = Flow::Close;
    }
    let mut decoder = PacketDecoder::new(session.max_packet());
    let mut payload = Vec::new();
    let mut current_timeout = inherited.map_or(0, |i| i.read_timeout);
    let mut small = [0u8; SMALL_READ];
    while flow == Flow::Continue {
        match decoder.next(&mut payload) {
            Ok(Some(seq)) => {
                {
                    let mut flush = |buf: &mut Vec<u8>| write_out(&mut stream, server, buf);
                    flow = session.on_packet(seq, &payload, &mut out, &mut flush);
                    // Writes block here, so a paused result just continues.
                    while flow == Flow::Paused {
                        if flush(&mut out).is_err() {
                            flow = Flow::Close;
                            break;
                        }
                        flow = session.resume(&mut out, &mut flush);
                    }
                }
                if write_out(&mut stream, server, &mut out).is_err() {
                    break;
                }
                decoder.set_max_payload(session.max_packet());
                if payload.capacity() > KEEP_BUFFER {
                    payload = Vec::new();
                }
                if out.capacity() > KEEP_BUFFER {
                    out = Vec::new();
                }
                decoder.shrink(KEEP_BUFFER);
                continue;
            }
            Ok(None) => {}
            Err(FrameError::TooLarge) => {
                if session.authenticated {
                    let mut seq_out = Vec::new();
                    let mut seq = 1u8;
                    let e = SqlError::packet_too_large();
                    let start = turnstile_wire::packet::begin_packet(&mut seq_out);
                    turnstile_wire::response::encode_err(&mut seq_out, e.code, e.state, &e.message);
                    turnstile_wire::packet::end_packet(&mut seq_out, start, &mut seq);
                    let _ = write_out(&mut stream, server, &mut seq_out);
                } else {
                    server.stats.aborted_connects.inc();
                }
                break;
            }
            Err(FrameError::OutOfOrder) => break,
        }
        // Need more bytes. The timeout depends on where we are.
        let mid_packet = decoder.buffered() > 0;
        let timeout = if mid_packet {
            server.globals.hot.net_read_timeout.load(Ordering::Relaxed).max(1) as u64
        } else {
            session.idle_timeout()
        };
        if timeout != current_timeout {
            let _ = stream.set_read_timeout(Duration::from_secs(timeout));
            current_timeout = timeout;
        }
        // Small reads land on the stack; only what they carry is copied to the
        // decoder (allocations then stay small). Large packets read straight in.
        let read = if mid_packet {
            let spare = decoder.spare(LARGE_READ);
            let r = stream.read(spare);
            decoder.commit(LARGE_READ, *r.as_ref().unwrap_or(&0));
            r
        } else {
            let r = stream.read(&mut small);
            if let Ok(n) = r {
                decoder.feed(&small[..n]);
            }
            r
        };
        match read {
            Ok(0) => {
                if !session.authenticated {
                    server.stats.aborted_connects.inc();
                }
                break;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::TimedOut => {
                if session.authenticated && !mid_packet {
                    let mut msg = Vec::new();
                    encode_inactivity_error(&mut msg);
                    let _ = write_out(&mut stream, server, &mut msg);
                } else if !session.authenticated {
                    server.stats.aborted_connects.inc();
                }
                break;
            }
            Err(_) => break,
        }
    }
    session.finish();
    drop(stream);
}
