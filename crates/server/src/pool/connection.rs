//! One connection under the pool: claiming it (its state word), the
//! non-blocking I/O loop around its `Driver` (read what the socket has,
//! write what it takes, run the packets), and letting go of it: registering
//! or re-arming its socket in the group's epoll set, arming its session's
//! backend socket (upstream engine), requeueing it, or closing it. The
//! scheduling around it (groups, workers, queues, the timer) is `pool.rs`.

use super::*;

impl Pool {
    pub(super) fn handle_event(self: &Arc<Self>, g: &Arc<Group>, c: Arc<PConn>) {
        let mut current = c.state.load(Ordering::Acquire);
        let timed_out = loop {
            let (next, claimed) = match current {
                IDLE => (BUSY, Some(false)),
                TIMEDOUT => (BUSY, Some(true)),
                // Another worker owns it: tell it to look again.
                BUSY => (PENDING, None),
                _ => return,
            };
            match c.state.compare_exchange(current, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => match claimed {
                    Some(t) => break t,
                    None => return,
                },
                Err(now) => current = now,
            }
        };
        let inner = c.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.closed {
            return;
        }
        if timed_out {
            self.expire(g, &c, inner);
            return;
        }
        self.run_connection(g, &c, inner, false);
    }

    /// Drive a connection this worker owns (BUSY) until it must wait, then let
    /// go of it; if an event arrived meanwhile (PENDING), go round again.
    /// `first`: the greeting just went out, so there is nothing to read yet.
    pub(super) fn run_connection<'c>(self: &Arc<Self>, g: &Arc<Group>, c: &'c Arc<PConn>, mut inner: MutexGuard<'c, ConnInner>, first: bool) {
        let mut hangup = false;
        if !first {
            hangup = Self::take_events(c, &mut inner.driver);
        }
        loop {
            Scratch::lend(&mut inner);
            let (want, deadline) = self.drive(&mut inner, hangup);
            if !self.park(g, c, inner, want, deadline) {
                return;
            }
            // PENDING: new bytes (or a hang-up) arrived while we held it.
            inner = c.inner.lock().unwrap_or_else(|e| e.into_inner());
            if inner.closed {
                return;
            }
            hangup = Self::take_events(c, &mut inner.driver);
        }
    }

    /// Tell the driver what the events since it last ran may mean: the
    /// client's socket may have bytes (or a hang-up) when an event came from
    /// it; the backend's (if the session waited for it) is looked at again
    /// whatever woke us. True when an event of the client's socket said the
    /// peer closed (the epoll loop keeps the flags: no system call asks).
    fn take_events(c: &PConn, driver: &mut Driver) -> bool {
        driver.backend_ready();
        let events = c.client_event.swap(0, Ordering::AcqRel);
        if events & CLIENT_EVENT != 0 {
            driver.readable();
        }
        events & CLIENT_HANGUP != 0
    }

    /// The connection's deadline passed while it was waiting: it closes,
    /// unless the wait was a held login answer, which now goes on.
    fn expire(self: &Arc<Self>, g: &Arc<Group>, c: &Arc<PConn>, mut inner: MutexGuard<'_, ConnInner>) {
        let ConnInner { stream, driver, .. } = &mut *inner;
        driver.deadline_passed();
        if !driver.is_closing() {
            self.run_connection(g, c, inner, true);
            return;
        }
        let _ = write_nonblocking(stream, &self.server, driver.out());
        drop(inner);
        self.close(g, c);
    }

    /// The non-blocking I/O loop around the connection's `Driver`: run it
    /// until it must wait. Returns the epoll events to wait for (0 = close,
    /// u32::MAX = requeue, WAIT_BACKEND = the session's backend socket) and
    /// when the wait expires (`coarse_ms`; 0: none). `hangup`: an event of the
    /// client's socket said the peer closed (a client that hung up while the session waits
    /// for its backend ends the session; the backend statement is killed).
    fn drive(self: &Arc<Self>, inner: &mut ConnInner, hangup: bool) -> (u32, u64) {
        let server = &self.server;
        let ConnInner { stream, driver, .. } = inner;
        let mut budget = PACKET_BUDGET;
        loop {
            let mut flush = |buf: &mut Vec<u8>| write_nonblocking(stream, server, buf);
            match driver.poll(&mut budget, &mut flush) {
                want @ Want::Write => {
                    if write_nonblocking(stream, server, driver.out()).is_err() {
                        return (0, 0);
                    }
                    if !driver.out().is_empty() {
                        return (libc::EPOLLOUT as u32, self.deadline_ms(driver, want));
                    }
                }
                // After a response the client cannot have answered yet: arm
                // for EPOLLIN instead of a read that would return EAGAIN
                // (pipelined bytes already there make the event fire at once).
                // (A TLS transport may hold input already taken off the socket.)
                want @ Want::Read { awaiting_reply: true } if !stream.pending_input() => return (readable(stream), self.deadline_ms(driver, want)),
                want @ Want::Read { .. } => {
                    // Read onto the worker's buffer; the decoder keeps only what arrived.
                    let read = READ_BUF.with_borrow_mut(|chunk| driver.receive(chunk, |buf| stream.read(buf)));
                    match read {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return (readable(stream), self.deadline_ms(driver, want)),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => return (0, 0),
                    }
                }
                // The probe only confirms (a read side the server shut itself
                // in a graceful shutdown is no hang-up): one poll per hang-up,
                // none per statement.
                Want::Backend { .. } if hangup && driver.session().client_gone() => driver.eof(),
                Want::Backend { .. } => return (WAIT_BACKEND, 0),
                // Budget used up with a complete packet buffered: requeue.
                Want::Yield => return (u32::MAX, 0),
                Want::StartTls => {
                    if crate::tls::upgrade(stream, driver).is_err() {
                        return (0, 0);
                    }
                }
                // A held login answer: the timer's scan ends the wait (`expire`);
                // EPOLLIN still reports a hang-up meanwhile.
                want @ Want::Sleep => return (libc::EPOLLIN as u32, self.deadline_ms(driver, want).max(1)),
                Want::Close => {
                    let _ = write_nonblocking(stream, server, driver.out());
                    return (0, 0);
                }
            }
        }
    }

    /// When the wait `want` expires (`coarse_ms`), for the timeout scan.
    fn deadline_ms(&self, driver: &Driver, want: Want) -> u64 {
        let now_ms = self.now_ms();
        now_ms + driver.wait_ms(want, || now_ms)
    }

    /// Release the connection: shrink its buffers, register it in epoll the
    /// first time (or add EPOLLOUT when the socket was full), let go. Returns
    /// true if an event arrived while we owned it: the connection is BUSY
    /// again and still ours.
    fn park(self: &Arc<Self>, g: &Arc<Group>, c: &Arc<PConn>, mut inner: MutexGuard<'_, ConnInner>, want: u32, deadline_ms: u64) -> bool {
        if want == 0 {
            Scratch::reclaim(&mut inner);
            drop(inner);
            self.close(g, c);
            return false;
        }
        if inner.driver.out().is_empty() && !inner.driver.holds_input() {
            // Idle: the buffers go back to the worker.
            Scratch::reclaim(&mut inner);
        }
        let in_tx = inner.driver.session().in_transaction();
        let backend_wait = inner.driver.session().backend_wait();
        drop(inner);
        if want == WAIT_BACKEND {
            return match backend_wait {
                Some(Some(fd)) => self.park_for_backend(g, c, fd),
                // Queued for a backend connection: the upstream pool wakes us.
                Some(None) => {
                    c.deadline_ms.store(0, Ordering::Relaxed);
                    self.let_go(c)
                }
                None => {
                    debug_assert!(false, "Want::Backend while the session waits for nothing");
                    self.close(g, c);
                    false
                }
            };
        }
        if want == u32::MAX {
            // Budget used up with a complete packet buffered: requeue.
            c.state.store(IDLE, Ordering::Release);
            self.enqueue(g, Work::Event(c.clone()), in_tx);
            return false;
        }
        c.deadline_ms.store(deadline_ms, Ordering::Relaxed);
        let registered = if !c.registered.swap(true, Ordering::Relaxed) {
            // Bytes that arrived before this are reported at once (epoll checks readiness on add).
            let out = if want & libc::EPOLLOUT as u32 != 0 && !c.out_armed.swap(true, Ordering::Relaxed) { libc::EPOLLOUT as u32 } else { 0 };
            epoll_ctl(g.epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, c.fd, EPOLL_BASE | out, c.key)
        } else if want & libc::EPOLLOUT as u32 != 0 && !c.out_armed.swap(true, Ordering::Relaxed) {
            // The socket is full: also wake us when it drains (fires at once if it already has).
            epoll_ctl(g.epfd.as_raw_fd(), libc::EPOLL_CTL_MOD, c.fd, EPOLL_BASE | libc::EPOLLOUT as u32, c.key)
        } else {
            Ok(())
        };
        if let Err(e) = registered {
            tracing::warn!(error = %e, "epoll_ctl failed; closing connection");
            self.close(g, c);
            return false;
        }
        self.let_go(c)
    }

    /// Arm the session's backend socket in the group's epoll set for one
    /// event under the connection's key (added the first time this group
    /// sees that socket; a socket closes out of every set it is in), then
    /// let go of the connection as `park` does. No deadline: statements may
    /// run long, and a client's hang-up is an event of its own socket.
    fn park_for_backend(self: &Arc<Self>, g: &Arc<Group>, c: &Arc<PConn>, fd: RawFd) -> bool {
        c.deadline_ms.store(0, Ordering::Relaxed);
        let epfd = g.epfd.as_raw_fd();
        let key = c.key | BACKEND_KEY;
        let armed = match epoll_ctl(epfd, libc::EPOLL_CTL_MOD, fd, EPOLL_BACKEND, key) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => epoll_ctl(epfd, libc::EPOLL_CTL_ADD, fd, EPOLL_BACKEND, key),
            r => r,
        };
        if let Err(e) = armed {
            tracing::warn!(error = %e, "epoll_ctl failed for a backend socket; closing connection");
            self.close(g, c);
            return false;
        }
        self.let_go(c)
    }

    /// BUSY → IDLE; true (and BUSY again) if an event came meanwhile.
    fn let_go(&self, c: &PConn) -> bool {
        match c.state.compare_exchange(BUSY, IDLE, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => false,
            Err(now) => {
                // Only the owner lets go, and an event for an owned connection only marks it PENDING.
                debug_assert_eq!(now, PENDING, "a connection this worker owns changed state under it");
                // PENDING: only we can clear it (nobody else claims a non-IDLE connection).
                c.state.store(BUSY, Ordering::Release);
                true
            }
        }
    }

    pub(super) fn close(self: &Arc<Self>, g: &Arc<Group>, c: &Arc<PConn>) {
        let mut inner = c.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.closed {
            return;
        }
        inner.closed = true;
        // No EPOLL_CTL_DEL: closing the only descriptor of the socket removes
        // it from the epoll set. Events already taken from epoll find the
        // connection closed (or not IDLE) and do nothing.
        g.conns(c.key).remove(&c.key);
        g.load.fetch_sub(1, Ordering::Relaxed);
        if inner.driver.finish() {
            inner.stream.reset_on_close();
        }
        // Close the socket now, even if a stale queue entry still holds the connection.
        inner.stream.close();
    }
}

/// The events a connection waiting for input waits for: EPOLLIN, and
/// EPOLLOUT while its transport has records of its own to write (TLS).
fn readable(stream: &Stream) -> u32 {
    libc::EPOLLIN as u32 | if stream.wants_write() { libc::EPOLLOUT as u32 } else { 0 }
}

/// Write what the socket takes now; keep the rest at the front of `buf`.
fn write_nonblocking(stream: &mut Stream, server: &Server, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut written = 0;
    while written < buf.len() {
        match stream.write(&buf[written..]) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "peer closed")),
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if server.config.statistics {
        server.stats.bytes_sent.add(written as i64);
    }
    buf.drain(..written);
    Ok(())
}
