//! One connection's work, written once and with no I/O: the connection driver.
//!
//! Both schedulers serve a connection the same way; only how they wait
//! differs (a blocking thread, or epoll and a pool of workers). So everything
//! between the socket and the session lives here: framing packets
//! (`PacketDecoder`), which read deadline applies (login, inside a packet,
//! between commands), what a too-large or out-of-order packet earns, what an
//! idle timeout sends (ERR 4031), aborted-connect counting, and buffer sizes.
//! The scheduler's I/O loop moves bytes and the time in and does what `poll`
//! asks (the contract of quinn-proto's `handle_*`/`poll_*` and rustls's
//! `read_tls`/`process_new_packets`/`write_tls`; MariaDB's
//! threadpool_common.cc is the same idea):
//!
//! ```text
//! loop {
//!     match driver.poll(budget, flush) {
//!         want @ Want::Write => write driver.out() (and drain what was written);
//!                               driver.deadline_passed() after driver.wait_ms(want, clock),
//!         want @ Want::Read { .. } => driver.receive(..) with the bytes read;
//!                                     driver.eof() at end of input,
//!                                     driver.deadline_passed() after driver.wait_ms(want, clock),
//!         Want::Backend { fd } => wait until fd is readable (None: until the
//!                                 session's wake is called), then driver.backend_ready(),
//!         Want::Yield => let other connections run, then come back,
//!         want @ Want::Sleep => wait driver.wait_ms(want, clock) (the pool: its
//!                               timer), then driver.deadline_passed(),
//!         Want::StartTls => tls::upgrade (the socket becomes TLS, with the
//!                           bytes the driver holds after the SSLRequest),
//!         Want::Close => write what is in out() if the peer takes it; driver.finish(),
//!     }
//! }
//! ```
//!
//! A result set too big for the output buffer is written while the command
//! runs: `flush` is the I/O loop's (blocking: write it all; non-blocking:
//! write what the socket takes, and the session pauses the result when the
//! buffer passes `session::PAUSE_AT`; `poll` resumes it once `out` drained).
//!
//! Time: the driver reads no clock. `new` takes the accept time and
//! `wait_ms` asks for the time only before login (connect_timeout runs from
//! accept); a logged-in session's waits are relative, so a command costs no
//! clock read, the blocking loop sets the same whole-second socket timeout
//! each time, and tests inject time.

use crate::server::Server;
use crate::session::{Flow, Flush, Session, MAX_HANDSHAKE_PACKET};
use std::io;
use turnstile_engine::SqlError;
use turnstile_wire::packet::{FrameError, PacketDecoder};

/// Bytes read per call while a large packet is arriving (straight into the decoder).
pub const LARGE_READ: usize = 64 * 1024;
/// Buffers above this are released after the command that grew them.
pub const KEEP_BUFFER: usize = 64 * 1024;

/// What the driver wants from its I/O loop next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Write `out()`; if the peer takes none of it within `wait_ms`, call
    /// `deadline_passed`.
    Write,
    /// Read and `receive` the bytes; `deadline_passed` after `wait_ms`.
    /// `awaiting_reply`: a response just went out and nothing is buffered, so
    /// the client cannot have answered yet (a non-blocking loop waits for
    /// readiness instead of trying a read that would return EAGAIN).
    Read { awaiting_reply: bool },
    /// The session waits for the backend (the upstream engine, when the loop
    /// does not block): until `fd` is readable (its connection's answer), or
    /// with None until the upstream pool calls the session's wake (a free
    /// connection); then `backend_ready` and poll again. No deadline: a
    /// statement may run as long as it likes, the checkout wait has its own
    /// (a client that goes away meanwhile: `eof`).
    Backend { fd: Option<std::os::fd::RawFd> },
    /// `budget` packets ran and complete ones are still buffered: give other
    /// connections a turn, then poll again.
    Yield,
    /// Write `out()` if the peer takes it, then `finish`.
    Close,
    /// The client's SSLRequest was accepted: start TLS on the socket
    /// (`tls::upgrade`, which takes `take_input`), then poll again.
    StartTls,
    /// A login's answer is held back (connection_control, guard.rs): wait
    /// `wait_ms`, then `deadline_passed` releases it. A hang-up meanwhile
    /// (`eof`) drops it.
    Sleep,
}

pub struct Driver {
    session: Session,
    decoder: PacketDecoder,
    payload: Vec<u8>,
    out: Vec<u8>,
    /// A response went out after the last bytes received.
    awaiting_reply: bool,
    /// A packet decoded into `payload` and not run yet (the budget ran out):
    /// its sequence id.
    held: Option<u8>,
    /// The connection ends once `out` is written (or cannot be).
    closing: bool,
    /// The session's backend connection had nothing to read: `Want::Backend`
    /// until `backend_ready`.
    backend_wait: Option<Option<std::os::fd::RawFd>>,
    /// When the connection was accepted: the login must be over
    /// connect_timeout later, however the handshake's bytes are spread out.
    accepted_ms: u64,
    /// The session accepted an SSLRequest: `Want::StartTls` next.
    start_tls: bool,
    /// A held login answer goes out at this coarse-clock time (0: none):
    /// the answer, and whether the connection closes after it.
    sleep_until_ms: u64,
    held_answer: Option<(Vec<u8>, bool)>,
}

impl Driver {
    /// A driver for a session just accepted at `now_ms`; `start` sends the greeting.
    ///
    /// One struct literal that reads nothing from `session` (and
    /// `Session::new` always inlined): fat LTO then builds the session where
    /// the pool stores the driver. It used to copy the 536-byte session four
    /// times per connection on the way. connect_timeout is read when a login
    /// wait is computed (`wait_ms`), counted from `now_ms`.
    pub fn new(session: Session, now_ms: u64) -> Driver {
        Driver {
            session,
            // A new session is not logged in: `Session::max_packet` before login.
            decoder: PacketDecoder::new(MAX_HANDSHAKE_PACKET),
            payload: Vec::new(),
            out: Vec::new(),
            awaiting_reply: false,
            held: None,
            closing: false,
            backend_wait: None,
            accepted_ms: now_ms,
            start_tls: false,
            sleep_until_ms: 0,
            held_answer: None,
        }
    }

    /// The greeting (or ERR 1040 past the connection limits, then close).
    pub fn start(&mut self) {
        if self.session.start(&mut self.out) == Flow::Close {
            self.close_session();
        }
        self.awaiting_reply = true;
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Bytes waiting to be written. The I/O loop drains what it wrote.
    pub fn out(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// Part of a packet has arrived and the rest has not.
    pub fn mid_packet(&self) -> bool {
        self.decoder.buffered() > 0
    }

    /// Input is buffered (part of a packet, or a whole one not run yet): the
    /// buffers must stay with the connection.
    pub fn holds_input(&self) -> bool {
        self.mid_packet() || self.held.is_some()
    }

    pub fn is_closing(&self) -> bool {
        self.closing
    }

    /// Run the complete packets received (at most `budget`) and say what is
    /// wanted next.
    ///
    /// Called about three times per command (read, write, read), so it stays
    /// small: running a packet, resuming a result and framing errors are
    /// out-of-line calls. Inlined here (fat LTO inlines the session) they gave
    /// `poll` a 900-byte frame and a prologue of ~40 instructions that every
    /// call paid, ~100 instructions a command.
    pub fn poll(&mut self, budget: &mut usize, flush: &mut Flush<'_>) -> Want {
        loop {
            if self.closing {
                return Want::Close;
            }
            if self.sleep_until_ms != 0 {
                return Want::Sleep;
            }
            if !self.out.is_empty() {
                return Want::Write;
            }
            if self.out.capacity() > KEEP_BUFFER {
                self.out = Vec::new();
            }
            if let Some(fd) = self.backend_wait {
                return Want::Backend { fd };
            }
            if self.start_tls {
                self.start_tls = false;
                return Want::StartTls;
            }
            if self.session.is_paused() {
                self.resume(flush);
                continue;
            }
            let seq = match self.held.take() {
                Some(seq) => seq,
                None => match self.decoder.next(&mut self.payload) {
                    Ok(Some(seq)) => seq,
                    Ok(None) => return Want::Read { awaiting_reply: self.awaiting_reply && !self.mid_packet() },
                    Err(e) => {
                        self.frame_error(e);
                        continue;
                    }
                },
            };
            if *budget == 0 {
                // Kept for the next poll: decoding took it from the buffer.
                self.held = Some(seq);
                return Want::Yield;
            }
            *budget -= 1;
            self.run_packet(seq, flush);
        }
    }

    #[inline(never)]
    fn run_packet(&mut self, seq: u8, flush: &mut Flush<'_>) {
        debug_assert!(self.out.is_empty(), "a command starts with its output written");
        match self.session.on_packet(seq, &self.payload, &mut self.out, flush) {
            Flow::Close => self.close_session(),
            Flow::Paused => self.backend_wait = self.session.backend_wait(),
            Flow::StartTls => self.start_tls = true,
            Flow::Continue => {}
        }
        if let Some(until_ms) = self.session.take_login_delay() {
            self.hold_answer(until_ms);
        }
        // A LOAD DATA LOCAL file's packets get no reply: the next ones may be there already.
        self.awaiting_reply = !self.out.is_empty() || !self.session.in_infile();
        self.decoder.set_max_payload(self.session.max_packet());
        if self.payload.capacity() > KEEP_BUFFER {
            self.payload = Vec::new();
        }
        if self.decoder.capacity() > KEEP_BUFFER {
            self.decoder.shrink(KEEP_BUFFER);
        }
    }

    /// Go on with a paused result set (its output was written).
    #[inline(never)]
    fn resume(&mut self, flush: &mut Flush<'_>) {
        match self.session.resume(&mut self.out, flush) {
            Flow::Close => self.close_session(),
            Flow::Paused => self.backend_wait = self.session.backend_wait(),
            Flow::StartTls => self.start_tls = true,
            Flow::Continue => {}
        }
    }

    /// Keep the login's answer (and its close) until `until_ms`.
    #[cold]
    #[inline(never)]
    fn hold_answer(&mut self, until_ms: u64) {
        debug_assert!(until_ms != 0 && self.held_answer.is_none(), "one login answer held at a time");
        self.held_answer = Some((std::mem::take(&mut self.out), std::mem::take(&mut self.closing)));
        self.sleep_until_ms = until_ms;
    }

    #[cold]
    #[inline(never)]
    fn frame_error(&mut self, e: FrameError) {
        match e {
            FrameError::TooLarge => self.packet_too_large(),
            FrameError::OutOfOrder => {
                self.session.packets_out_of_order(&mut self.out);
                self.closing = true;
            }
        }
    }

    /// A packet longer than max_allowed_packet: ERR 1153 for a logged-in
    /// client (as MySQL, with the next sequence id), an aborted connect before.
    fn packet_too_large(&mut self) {
        if self.session.authenticated {
            let mut seq = 1u8;
            let e = SqlError::packet_too_large();
            let start = turnstile_wire::packet::begin_packet(&mut self.out);
            turnstile_wire::response::encode_err(&mut self.out, e.code, e.state, &e.message);
            turnstile_wire::packet::end_packet(&mut self.out, start, &mut seq);
        } else {
            self.server().stats.aborted_connects.inc();
        }
        self.closing = true;
    }

    /// Read into the decoder through `read`: straight into its buffer while a
    /// large packet arrives, else into `small` (the thread's buffer) and only
    /// what arrived is copied, so an idle connection's buffer stays small.
    /// Ok(0) is the end of input (`eof` is called).
    pub fn receive(&mut self, small: &mut [u8], read: impl FnOnce(&mut [u8]) -> io::Result<usize>) -> io::Result<usize> {
        let r = if self.mid_packet() {
            let spare = self.decoder.spare(LARGE_READ);
            let r = read(spare);
            self.decoder.commit(LARGE_READ, *r.as_ref().unwrap_or(&0));
            r
        } else {
            let r = read(small);
            if let Ok(n) = r {
                self.decoder.feed(&small[..n]);
            }
            r
        };
        match r {
            Ok(0) => self.eof(),
            Ok(_) => self.awaiting_reply = false,
            Err(_) => {}
        }
        r
    }

    /// Bytes that arrived, given as a slice (tests, and transports that
    /// decrypt into a buffer of their own).
    pub fn received(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return self.eof();
        }
        self.decoder.feed(bytes);
        self.awaiting_reply = false;
    }

    /// The bytes received and not decoded yet, taken out (the TLS handshake's
    /// first bytes, which came with the SSLRequest).
    pub fn take_input(&mut self) -> Vec<u8> {
        self.decoder.take_buffered()
    }

    /// The transport says bytes (or a hang-up) may be waiting: the next
    /// `Want::Read` is not `awaiting_reply` (an edge-triggered loop must read).
    pub fn readable(&mut self) {
        self.awaiting_reply = false;
    }

    /// The backend connection the session waits for is readable (or
    /// closed): the next `poll` reads it.
    pub fn backend_ready(&mut self) {
        self.backend_wait = None;
    }

    /// The peer closed its side.
    pub fn eof(&mut self) {
        if !self.session.authenticated {
            self.server().stats.aborted_connects.inc();
            // Woken because a newer connection took our slot: say so.
            self.session.evicted_notice(&mut self.out);
        }
        self.closing = true;
    }

    /// The deadline of the last `Want` passed: between commands a logged-in
    /// client gets ERR 4031 (MySQL 8.0.24+), a login is an aborted connect.
    pub fn deadline_passed(&mut self) {
        if self.sleep_until_ms != 0 {
            // The held login answer goes out now.
            self.sleep_until_ms = 0;
            if let Some((out, closing)) = self.held_answer.take() {
                self.out = out;
                self.closing = closing;
            }
            return;
        }
        if self.session.authenticated && !self.mid_packet() && self.out.is_empty() && !self.session.is_paused() && !self.session.in_infile() {
            encode_inactivity_error(&mut self.out);
        } else if !self.session.authenticated {
            self.server().stats.aborted_connects.inc();
        }
        self.closing = true;
    }

    /// The session decided to close: its slots are free from now on (before
    /// its last packet is written: `Session::release_slots`).
    fn close_session(&mut self) {
        self.closing = true;
        self.session.release_slots();
    }

    /// Tear the session down; true if the socket should close with an RST
    /// (COM_QUIT with `reset_after_quit`).
    pub fn finish(&mut self) -> bool {
        self.closing = true;
        self.session.cancel_paused();
        self.session.finish();
        self.session.close_with_reset()
    }

    /// How long the wait `want` (from the last `poll`) may last, from now,
    /// in milliseconds (0: it is over): net_write_timeout for a write;
    /// net_read_timeout inside a packet; the idle timeout between commands;
    /// before login, what is left of connect_timeout since accept. The clock
    /// is read only for the login (a logged-in session's waits are relative).
    pub fn wait_ms(&self, want: Want, now_ms: impl FnOnce() -> u64) -> u64 {
        let hot = &self.server().globals.hot;
        let net_read_ms = || crate::server::seconds(&hot.net_read_timeout) * 1000;
        match want {
            Want::Write => crate::server::seconds(&hot.net_write_timeout) * 1000,
            Want::Read { .. } if !self.session.authenticated => {
                let login_deadline_ms = self.accepted_ms + crate::server::seconds(&hot.connect_timeout) * 1000;
                let left_ms = login_deadline_ms.saturating_sub(now_ms());
                if self.mid_packet() {
                    left_ms.min(net_read_ms())
                } else {
                    left_ms
                }
            }
            // Inside a packet, or between the packets of a LOAD DATA LOCAL file.
            Want::Read { .. } if self.mid_packet() || self.session.in_infile() => net_read_ms(),
            Want::Read { .. } => self.session.idle_timeout() * 1000,
            Want::Sleep => self.sleep_until_ms.saturating_sub(now_ms()),
            Want::Backend { .. } | Want::Yield | Want::Close | Want::StartTls => 0,
        }
    }

    fn server(&self) -> &Server {
        self.session.server()
    }

    /// The connection's buffers, for a pool worker that lends its own to the
    /// connection it runs and takes them back when it goes idle.
    pub fn buffers(&mut self) -> (&mut PacketDecoder, &mut Vec<u8>, &mut Vec<u8>) {
        (&mut self.decoder, &mut self.payload, &mut self.out)
    }
}

/// ERR 4031, which MySQL 8.0.24+ sends before closing an idle session.
fn encode_inactivity_error(msg: &mut Vec<u8>) {
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

/// A wait in whole seconds (rounded up), for a blocking socket's timeout;
/// None when it is over.
pub fn timeout_s(wait_ms: u64) -> Option<u64> {
    (wait_ms > 0).then(|| wait_ms.div_ceil(1000))
}
