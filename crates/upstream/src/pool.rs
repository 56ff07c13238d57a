//! The backend connections of one server: an idle list (most recently used
//! last, so the connections that just ran keep running and the rest age
//! out), a count against `upstream_max_connections`, and a wait with a
//! deadline when all are lent.
//!
//! Lending prefers an idle connection logged in as the same user and with
//! the same CLIENT_FOUND_ROWS flag; one of another user is switched with
//! COM_CHANGE_USER (only then); a new one is opened while under the cap.
//!
//! Lock: `Pool::state` (one mutex per backend server) is held only to push
//! or pop the idle list and adjust counts, never across I/O.

use crate::backend::{Address, Backend, BackendError, Login};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use turnstile_engine::{WaitHook, WaitKind};

#[derive(Default)]
struct State {
    idle: Vec<Backend>,
    /// Connections open: idle, lent, and being opened.
    open: usize,
    /// Sessions waiting for a connection on a blocked thread (`freed` is
    /// signalled only then: a notify costs a system call even with nobody waiting).
    waiting: usize,
    /// Sessions waiting for a connection without a thread (`lend_or_queue`),
    /// first come first served; they are served before blocked threads.
    queue: VecDeque<Arc<Waiter>>,
}

/// Called to resume a session whose wait ended (the pool-of-threads
/// scheduler queues the session's connection as if an event came).
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// A session queued for a connection (`lend_or_queue`). What it is handed
/// is written under the pool's lock, then `wake` is called.
pub struct Waiter {
    handed: Mutex<Handed>,
    wake: Wake,
    deadline: Instant,
}

/// What a queued session was handed.
#[allow(clippy::large_enum_variant)] // one per queued session; boxing would allocate per hand-off
pub enum Handed {
    Nothing,
    /// A connection given back (not yet checked or switched to its user: `prepare_lent`).
    Conn(Backend),
    /// A connection closed, so one may be opened: try `lend_or_queue` again.
    Room,
    /// `upstream_checkout_timeout_ms` passed (ERR 1040).
    TimedOut,
}

impl Waiter {
    /// What was handed so far (`Nothing` until `wake` is called).
    pub fn take(&self) -> Handed {
        std::mem::replace(&mut *self.handed.lock().unwrap_or_else(|e| e.into_inner()), Handed::Nothing)
    }

    fn hand(&self, h: Handed) {
        *self.handed.lock().unwrap_or_else(|e| e.into_inner()) = h;
    }
}

/// What `lend_or_queue` did.
#[allow(clippy::large_enum_variant)] // returned by value, `Now` nearly always: boxing would allocate per statement
pub enum Lent {
    Now(Backend),
    /// No connection is free: `wake` is called once the waiter was handed something.
    Queued(Arc<Waiter>),
}

/// Counters for SHOW STATUS (`Upstream_*`).
#[derive(Default)]
pub struct PoolCounters {
    pub created: AtomicU64,
    pub closed: AtomicU64,
    pub change_user: AtomicU64,
    pub resets: AtomicU64,
    pub connect_errors: AtomicU64,
    pub waits: AtomicU64,
    pub wait_timeouts: AtomicU64,
}

pub struct Pool {
    pub addr: Address,
    pub name: String,
    pub index: usize,
    max: usize,
    connect_timeout: Duration,
    state: Mutex<State>,
    freed: Condvar,
    pub counters: PoolCounters,
    /// Until when (ms since `epoch`) new connections are not tried: the
    /// server refused the last attempt. 0: try.
    down_until_ms: AtomicU64,
    retry_ms: u64,
    epoch: Instant,
}

/// Why no connection could be lent.
#[derive(Debug)]
pub enum LendError {
    /// Opening one failed (the backend is down, or refused the login).
    Connect(BackendError),
    /// The server was found down less than `upstream_retry_interval_ms` ago.
    Down,
    /// All `upstream_max_connections` stayed lent for the whole wait.
    Timeout,
}

impl Pool {
    pub fn new(addr: Address, name: String, index: usize, max: usize, connect_timeout: Duration, retry_ms: u64) -> Pool {
        assert!(max >= 1, "upstream_max_connections is at least 2, one of them the monitor's (checked at load)");
        Pool {
            addr,
            name,
            index,
            max,
            connect_timeout,
            state: Mutex::new(State::default()),
            freed: Condvar::new(),
            counters: PoolCounters::default(),
            down_until_ms: AtomicU64::new(0),
            retry_ms,
            epoch: Instant::now(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The most connections sessions may have open at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// (open, idle) connections now.
    pub fn sizes(&self) -> (usize, usize) {
        let st = self.lock();
        (st.open, st.idle.len())
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    pub fn is_down(&self) -> bool {
        let until = self.down_until_ms.load(Ordering::Relaxed);
        until != 0 && self.now_ms() < until
    }

    pub fn mark_up(&self) {
        self.down_until_ms.store(0, Ordering::Relaxed);
    }

    fn mark_down(&self) {
        self.down_until_ms.store(self.now_ms() + self.retry_ms, Ordering::Relaxed);
    }

    /// Open a connection outside the pool's count (the monitor's own).
    pub fn connect_unpooled(&self, login: &Login) -> Result<Backend, BackendError> {
        Backend::connect(&self.addr, self.connect_timeout, login, false, self.index)
    }

    /// Lend a connection for `login` with `found_rows`, waiting at most `wait`.
    /// The waits (for a free connection, for a new one's login) are
    /// announced to `waits`.
    pub fn lend(&self, login: &Login, found_rows: bool, wait: Duration, waits: &dyn WaitHook) -> Result<Backend, LendError> {
        let deadline = Instant::now() + wait;
        let mut waited = false;
        let mut st = self.lock();
        loop {
            st = match self.lend_now(st, login, found_rows, waits) {
                Ok(lent) => return lent,
                Err(st) => st,
            };
            if !waited {
                waited = true;
                self.counters.waits.fetch_add(1, Ordering::Relaxed);
            }
            let now = Instant::now();
            if now >= deadline {
                self.counters.wait_timeouts.fetch_add(1, Ordering::Relaxed);
                return Err(LendError::Timeout);
            }
            waits.wait_begin(WaitKind::Network);
            st.waiting += 1;
            st = self.freed.wait_timeout(st, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
            st.waiting -= 1;
            waits.wait_end();
        }
    }

    /// Lend a connection now if one is idle or may be opened; else give the
    /// lock back.
    fn lend_now<'a>(&'a self, mut st: MutexGuard<'a, State>, login: &Login, found_rows: bool, waits: &dyn WaitHook) -> Result<Result<Backend, LendError>, MutexGuard<'a, State>> {
        let same = st.idle.iter().rposition(|b| b.found_rows == found_rows && b.held.user == login.user);
        let any = || st.idle.iter().rposition(|b| b.found_rows == found_rows);
        if let Some(i) = same.or_else(any) {
            let b = st.idle.remove(i);
            drop(st);
            return Ok(self.prepare_lent(b, login, found_rows, waits));
        }
        if st.open < self.max || !st.idle.is_empty() {
            // Room for one more, or an idle one with the other
            // CLIENT_FOUND_ROWS flag to close in its place.
            let replaced = if st.open >= self.max { Some(st.idle.remove(0)) } else { None };
            if replaced.is_none() {
                st.open += 1;
            }
            drop(st);
            if replaced.is_some() {
                self.counters.closed.fetch_add(1, Ordering::Relaxed);
            }
            return Ok(self.open(login, found_rows, waits));
        }
        Err(st)
    }

    /// `lend`, for a session that must not hold its thread while it waits
    /// (the pool-of-threads scheduler): when no connection is free the
    /// session is queued, and `wake` is called once a connection given back
    /// was handed to it (`Waiter::take`), or room to open one was, or its
    /// `wait` passed. Queued sessions are served first come first served,
    /// before threads blocked in `lend`. `first`: the session was handed
    /// room (`Handed::Room`) and goes before the queue (and back to its head
    /// if another took the room meanwhile).
    pub fn lend_or_queue(&self, login: &Login, found_rows: bool, wait: Duration, waits: &dyn WaitHook, wake: &Wake, first: bool) -> Result<Lent, LendError> {
        let mut st = self.lock();
        if first || st.queue.is_empty() {
            st = match self.lend_now(st, login, found_rows, waits) {
                Ok(lent) => return lent.map(Lent::Now),
                Err(st) => st,
            };
        }
        self.counters.waits.fetch_add(1, Ordering::Relaxed);
        let w = Arc::new(Waiter { handed: Mutex::new(Handed::Nothing), wake: wake.clone(), deadline: Instant::now() + wait });
        if first {
            st.queue.push_front(w.clone());
        } else {
            st.queue.push_back(w.clone());
        }
        Ok(Lent::Queued(w))
    }

    /// A queued session went away (its client left): a connection handed to
    /// it meanwhile goes back, room handed to it goes to the next one.
    pub fn cancel(&self, w: &Arc<Waiter>) {
        let mut st = self.lock();
        if let Some(i) = st.queue.iter().position(|q| Arc::ptr_eq(q, w)) {
            st.queue.remove(i);
            return;
        }
        drop(st);
        match w.take() {
            Handed::Conn(b) => self.give_back(b),
            Handed::Room => self.room_freed(self.lock()),
            Handed::Nothing | Handed::TimedOut => {}
        }
    }

    /// Queued sessions whose wait passed get ERR 1040 (the health thread
    /// calls this every `WAITER_TICK_MS`).
    pub fn expire_waiters(&self) {
        let now = Instant::now();
        let mut st = self.lock();
        if st.queue.front().is_none_or(|w| w.deadline > now) {
            return;
        }
        let mut expired = Vec::new();
        st.queue.retain(|w| {
            let over = w.deadline <= now;
            if over {
                w.hand(Handed::TimedOut);
                expired.push(w.wake.clone());
            }
            !over
        });
        drop(st);
        self.counters.wait_timeouts.fetch_add(expired.len() as u64, Ordering::Relaxed);
        for wake in expired {
            wake();
        }
    }

    /// An idle connection taken for `login`: checked alive, switched to its
    /// user if it has another one. A dead one is replaced by a new one.
    pub fn prepare_lent(&self, mut b: Backend, login: &Login, found_rows: bool, waits: &dyn WaitHook) -> Result<Backend, LendError> {
        // CLIENT_FOUND_ROWS is fixed at login (a connection handed to a
        // queued session may have the other one): a new one takes its place.
        if b.looks_closed() || b.found_rows != found_rows {
            self.counters.closed.fetch_add(1, Ordering::Relaxed);
            return self.open(login, found_rows, waits);
        }
        if b.held.user != login.user {
            self.counters.change_user.fetch_add(1, Ordering::Relaxed);
            waits.wait_begin(WaitKind::Network);
            let switched = b.change_user(login).and_then(|()| crate::track_session(&mut b));
            waits.wait_end();
            if let Err(e) = switched {
                self.give_up(b);
                return Err(LendError::Connect(e));
            }
        }
        Ok(b)
    }

    /// Open a new connection (its slot is already counted in `open`).
    fn open(&self, login: &Login, found_rows: bool, waits: &dyn WaitHook) -> Result<Backend, LendError> {
        if self.is_down() {
            self.release_slot();
            return Err(LendError::Down);
        }
        waits.wait_begin(WaitKind::Network);
        let opened = Backend::connect(&self.addr, self.connect_timeout, login, found_rows, self.index).and_then(|mut b| crate::track_session(&mut b).map(|()| b));
        waits.wait_end();
        match opened {
            Ok(b) => {
                self.counters.created.fetch_add(1, Ordering::Relaxed);
                self.mark_up();
                Ok(b)
            }
            Err(e) => {
                self.counters.connect_errors.fetch_add(1, Ordering::Relaxed);
                if matches!(e, BackendError::Io(_)) {
                    self.mark_down();
                }
                self.release_slot();
                Err(LendError::Connect(e))
            }
        }
    }

    fn release_slot(&self) {
        let mut st = self.lock();
        st.open = st.open.saturating_sub(1);
        self.room_freed(st);
    }

    /// A slot came free (a connection closed, or room handed to a session
    /// that left): the first queued session may open a connection, else a
    /// thread blocked in `lend` is told.
    fn room_freed(&self, mut st: MutexGuard<'_, State>) {
        if let Some(w) = st.queue.pop_front() {
            w.hand(Handed::Room);
            drop(st);
            return (w.wake)();
        }
        let wake = st.waiting > 0;
        drop(st);
        if wake {
            self.freed.notify_one();
        }
    }

    /// Take back a lent connection. A dirty one is reset first (and closed
    /// if that fails).
    pub fn give_back(&self, mut b: Backend) {
        debug_assert_eq!(b.server, self.index, "a connection goes back to its own server's pool");
        if b.discard {
            return self.give_up(b);
        }
        if b.dirty {
            self.counters.resets.fetch_add(1, Ordering::Relaxed);
            if b.reset().and_then(|()| crate::track_session(&mut b)).is_err() {
                return self.give_up(b);
            }
        }
        let mut st = self.lock();
        if let Some(w) = st.queue.pop_front() {
            // Straight to the first queued session (handed under the lock: `cancel`).
            w.hand(Handed::Conn(b));
            drop(st);
            return (w.wake)();
        }
        st.idle.push(b);
        let wake = st.waiting > 0;
        drop(st);
        if wake {
            self.freed.notify_one();
        }
    }

    /// A lent connection is broken or unwanted: close it.
    pub fn give_up(&self, b: Backend) {
        drop(b);
        self.counters.closed.fetch_add(1, Ordering::Relaxed);
        self.release_slot();
    }

    /// Close idle connections that the backend closed meanwhile (the health check).
    pub fn prune_idle(&self) {
        let mut st = self.lock();
        let before = st.idle.len();
        st.idle.retain(|b| !b.looks_closed());
        let gone = before - st.idle.len();
        st.open -= gone;
        let wake = st.waiting > 0;
        drop(st);
        if gone > 0 {
            self.counters.closed.fetch_add(gone as u64, Ordering::Relaxed);
            if wake {
                self.freed.notify_all();
            }
        }
    }
}
