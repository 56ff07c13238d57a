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

use crate::backend::{Backend, BackendError, Login};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};
use turnstile_engine::{WaitHook, WaitKind};

#[derive(Default)]
struct State {
    idle: Vec<Backend>,
    /// Connections open: idle, lent, and being opened.
    open: usize,
    /// Sessions waiting for a connection (`freed` is signalled only then:
    /// a notify costs a system call even with nobody waiting).
    waiting: usize,
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
    pub addr: SocketAddr,
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
    pub fn new(addr: SocketAddr, name: String, index: usize, max: usize, connect_timeout: Duration, retry_ms: u64) -> Pool {
        assert!(max >= 1, "upstream_max_connections is at least 1 (checked at load)");
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
            let same = st.idle.iter().rposition(|b| b.found_rows == found_rows && b.held.user == login.user);
            let any = || st.idle.iter().rposition(|b| b.found_rows == found_rows);
            if let Some(i) = same.or_else(any) {
                let b = st.idle.remove(i);
                drop(st);
                return self.prepare_lent(b, login, found_rows, waits);
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
                return self.open(login, found_rows, waits);
            }
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

    /// An idle connection taken for `login`: checked alive, switched to its
    /// user if it has another one. A dead one is replaced by a new one.
    fn prepare_lent(&self, mut b: Backend, login: &Login, found_rows: bool, waits: &dyn WaitHook) -> Result<Backend, LendError> {
        if b.looks_closed() {
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
        if b.dirty {
            self.counters.resets.fetch_add(1, Ordering::Relaxed);
            if b.reset().and_then(|()| crate::track_session(&mut b)).is_err() {
                return self.give_up(b);
            }
        }
        let mut st = self.lock();
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
