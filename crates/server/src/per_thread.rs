//! Thread-per-connection scheduler with a thread cache.
//!
//! Each connection runs on one thread from greeting to close; the session is
//! built and torn down on that thread. When a connection ends, its thread parks
//! in the cache (up to `thread_cache_size`, for `thread_idle_timeout`) and is
//! handed the next connection, so creating a thread is the exception.
//!
//! Hand-off without a lock: `Server::threads_cached` counts idle threads that
//! nobody has claimed. The acceptor claims one by decrementing it (only if > 0)
//! and sends the socket on a lock-free channel; an idle thread that times out
//! may only retire by the same decrement, so every claimed hand-off is matched
//! by a thread still waiting for it. If no idle thread can be claimed, the
//! acceptor starts a new thread.

use crate::conn::{Accepted, Stream};
use crate::server::Server;
use crate::session::{Flow, Session};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use turnstile_engine::SqlError;
use turnstile_wire::packet::{FrameError, PacketDecoder};

/// Bytes read per idle read (a command packet usually fits).
const SMALL_READ: usize = 4096;
/// Bytes read per call while a large packet is arriving.
const LARGE_READ: usize = 64 * 1024;
/// Buffers above this are released after the command that grew them.
const KEEP_BUFFER: usize = 64 * 1024;

pub struct ThreadCache {
    server: Arc<Server>,
    tx: Sender<Accepted>,
    rx: Receiver<Accepted>,
}

fn try_dec(counter: &std::sync::atomic::AtomicI64) -> bool {
    counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| if n > 0 { Some(n - 1) } else { None }).is_ok()
}

impl ThreadCache {
    pub fn new(server: Arc<Server>) -> Arc<ThreadCache> {
        let (tx, rx) = crossbeam_channel::unbounded();
        Arc::new(ThreadCache { server, tx, rx })
    }

    /// Called by the acceptor: give the socket to a cached thread or a new one.
    pub fn dispatch(self: &Arc<Self>, conn: Accepted) {
        if try_dec(&self.server.threads_cached) {
            if let Err(e) = self.tx.send(conn) {
                drop(e.into_inner());
            }
            return;
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
        let timeout = Duration::from_secs(self.server.config.thread_idle_timeout.max(1));
        loop {
            match self.rx.recv_timeout(timeout) {
                Ok(c) => return Some(c),
                Err(RecvTimeoutError::Timeout) => {
                    if try_dec(cached) {
                        return None;
                    }
                    // Someone claimed us just now: the connection is on its way.
                }
                Err(RecvTimeoutError::Disconnected) => return None,
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
    let mut stream = conn.stream;
    let mut session = Session::new(server.clone(), peer, host, admin_port, stream.as_raw_fd());
    let _ = stream.set_write_timeout(Duration::from_secs(server.globals.hot.net_write_timeout.load(Ordering::Relaxed).max(1) as u64));
    let mut out = Vec::with_capacity(512);
    let mut flow = session.start(&mut out);
    if write_out(&mut stream, server, &mut out).is_err() {
        flow = Flow::Close;
    }
    let mut decoder = PacketDecoder::new(session.max_packet());
    let mut payload = Vec::new();
    let mut current_timeout = 0u64;
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
