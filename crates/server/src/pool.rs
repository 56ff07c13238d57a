//! Pool-of-threads scheduler: epoll thread groups, stall detection, and slow
//! clients that never hold a worker.
//!
//! Design (after MariaDB's threadpool_generic.cc, written anew):
//! - `thread_pool_size` groups, each with its own epoll set and work queues.
//! - No acceptor thread: the client listeners are in every group's epoll set
//!   (EPOLLEXCLUSIVE, so one waiting worker is woken per connection burst).
//!   The woken worker accepts a batch, keeps the connections while its group
//!   holds no more than `BALANCE_SLACK` above the least loaded group (else it
//!   queues them there), and builds the first session itself. The greeting
//!   goes out from the thread that accepted: no hand-off, no wake-up.
//! - A connection socket is registered once, edge-triggered, and a
//!   per-connection state word (IDLE/BUSY/PENDING/TIMEDOUT) is claimed by
//!   compare-and-swap, so a connection is never on two
//!   workers at once: an event for a BUSY connection only marks it PENDING, and
//!   the owner looks again before it lets go. This gives EPOLLONESHOT's
//!   guarantee without its re-arm: one epoll_ctl per connection instead of one
//!   per command (measured: see docs/architecture.md).
//! - A worker takes queued work; when the queues are empty one worker waits in
//!   epoll (the "listener"). When it wakes with events and nobody else is
//!   active, it handles the first event itself instead of waking another thread.
//! - `thread_pool_oversubscribe` bounds active workers per group; extra workers
//!   park. Idle workers retire after `thread_pool_idle_timeout` (one stays).
//!   `thread_pool_max_threads` caps the total.
//! - Sessions are non-blocking: a worker reads what the socket has (half a
//!   packet waits without a worker), writes what the socket takes, and on
//!   EAGAIN re-arms the socket for EPOLLOUT and lets go. Result sets pause when
//!   the output buffer passes `session::PAUSE_AT` (see `RowSink::wants_pause`).
//! - Upstream engine: a session waiting for its backend connection's answer
//!   lets go of its worker; the backend socket is armed in the group's epoll
//!   set for one event (EPOLLONESHOT) under the connection's key with
//!   `BACKEND_KEY` set, re-armed with the current session's key each time,
//!   since backend connections pass between sessions. A session queued for a
//!   free backend connection is woken by the upstream pool (`waker`: its
//!   connection is queued as if an event came).
//! - A timer thread detects stalled groups (queued work, no progress within
//!   `thread_pool_stall_limit`) and wakes or creates a worker. Blocking waits in
//!   the engine call `wait_begin`/`wait_end` (`PoolWait`), which replace the
//!   blocked worker at once.
//! - Statements of sessions inside a transaction go to a high-priority queue;
//!   normal work older than `thread_pool_prio_kickup_timer` is taken first.
//! - The same timer enforces connect/wait/net timeouts by scanning deadlines
//!   once a second: no thread and no timer per connection.
//! - One connection's I/O loop, and how it is parked in epoll or closed:
//!   `pool/connection.rs`.
//! - Admin-port connections never enter the pool (thread-per-connection), so
//!   an administrator gets in even when every worker is blocked.

use crate::conn::{Accepted, Stream};
use crate::driver::{Driver, Want};
use crate::listener::Inherited;
use crate::server::Server;
use crate::session::Session;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use turnstile_engine::clock::coarse_ms;
use turnstile_engine::{WaitHook, WaitKind};

mod connection;

/// Connection states (see module docs).
const IDLE: u8 = 0;
const BUSY: u8 = 1;
const TIMEDOUT: u8 = 2;
/// BUSY, and an event arrived meanwhile: the owner must look again.
const PENDING: u8 = 3;

/// Registration of every connection socket (EPOLLOUT is added on a full socket).
const EPOLL_BASE: u32 = (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLET) as u32;

/// epoll data value of the group's wake-up eventfd.
const WAKE_KEY: u64 = u64::MAX;
/// epoll data value of client listener i is `LISTEN_KEY - i`.
const LISTEN_KEY: u64 = u64::MAX - 1;
/// Connection keys stay below this (listener keys are above).
const MAX_CONN_KEY: u64 = u64::MAX - 16;
/// Set in the epoll data of a session's backend connection (upstream
/// engine): the event is for connection `key & !BACKEND_KEY`, from its backend.
const BACKEND_KEY: u64 = 1 << 62;
/// `PConn::client_event` bits: the client's socket had an event; one of
/// them said the peer closed (EPOLLRDHUP, EPOLLHUP or EPOLLERR).
const CLIENT_EVENT: u8 = 1;
const CLIENT_HANGUP: u8 = 2;
/// Backend sockets are armed for one event at a time: a backend connection
/// serves another session (with another key) after this statement.
const EPOLL_BACKEND: u32 = (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLONESHOT) as u32;
/// What `drive` returns to wait for the session's backend connection.
const WAIT_BACKEND: u32 = u32::MAX - 1;
/// Connections one worker accepts per listener event.
const ACCEPT_BATCH: usize = 16;
/// A group keeps what it accepts while it holds at most this many connections
/// more than the least loaded group.
const BALANCE_SLACK: usize = 2;
/// Packets one worker handles for one connection before giving others a turn.
const PACKET_BUDGET: usize = 32;
/// Bytes read per call.
const READ_CHUNK: usize = 16 * 1024;
/// Events taken from epoll per wake-up.
const MAX_EVENTS: usize = 64;

/// Pool settings, from `Config`.
#[derive(Debug, Clone)]
pub struct PoolSettings {
    pub size: usize,
    pub oversubscribe: usize,
    pub max_threads: usize,
    pub idle_timeout: Duration,
    pub stall_limit: Duration,
    pub kickup: Duration,
    pub stack: usize,
    /// Nice value of every worker (0: leave as is).
    pub nice: i32,
}

/// Counters for SHOW STATUS (Threadpool_*).
#[derive(Default)]
pub struct PoolCounters {
    pub threads: AtomicI64,
    pub idle_threads: AtomicI64,
    pub queue_length: AtomicI64,
    pub stalls: AtomicI64,
    pub throttles: AtomicI64,
    pub groups: AtomicI64,
}

struct PConn {
    key: u64,
    fd: RawFd,
    state: AtomicU8,
    /// The socket is in the group's epoll set (added after the greeting).
    registered: AtomicBool,
    /// EPOLLOUT has been added to the registration (a write once hit EAGAIN).
    out_armed: AtomicBool,
    /// Events from the client's socket (not its backend's) since the owner
    /// last looked (`CLIENT_EVENT`, and `CLIENT_HANGUP` when one said the
    /// peer closed): the client may have sent bytes or gone away.
    client_event: AtomicU8,
    /// Milliseconds since pool start when the current wait expires (0: none).
    deadline_ms: AtomicU64,
    inner: Mutex<ConnInner>,
}

struct ConnInner {
    stream: Stream,
    driver: Driver,
    closed: bool,
}

enum Work {
    New(Accepted),
    Event(Arc<PConn>),
    /// A connection of the group given (its home) whose session was handed a
    /// backend connection while queued (upstream engine), queued on the group
    /// of the worker that gave the backend connection back: that worker is
    /// active, so nobody is woken to run it (`Pool::waker`).
    Handed(Arc<Group>, Arc<PConn>),
}

#[derive(Default)]
struct GroupState {
    high: VecDeque<Work>,
    /// Normal-priority work and when it was queued (`coarse_ms`).
    low: VecDeque<(u64, Work)>,
    threads: usize,
    /// Workers handling a connection (not counting those blocked in a wait).
    active: usize,
    /// Workers blocked in an engine wait (wait_begin .. wait_end).
    waiting: usize,
    /// Workers parked on the condition variable.
    idle: usize,
    /// A worker is in epoll_wait.
    listener: bool,
    /// Work items taken from the queues so far (progress, for stall detection).
    dequeued: u64,
    dequeued_at_last_check: u64,
    /// Set by the stall detector: allows one worker past the oversubscribe limit.
    stalled: bool,
}

type ConnMap = HashMap<u64, Arc<PConn>, rustc_hash::FxBuildHasher>;

/// Shards of a group's connection map (see `Group::conns`).
const CONN_SHARDS: usize = 16;

struct Group {
    epfd: OwnedFd,
    wake_fd: OwnedFd,
    state: Mutex<GroupState>,
    cond: Condvar,
    /// The group's connections by key, in `CONN_SHARDS` maps (shard = key %
    /// CONN_SHARDS), so the once-a-second timeout scan holds one shard at a
    /// time, never the whole group, while an epoll wake looks its events up.
    /// Keyed by a counter: FxHash, not SipHash (looked up on every event).
    conns: Box<[Mutex<ConnMap>]>,
    /// Connections assigned to this group and not yet closed (for balancing).
    load: AtomicUsize,
}

pub struct Pool {
    server: Arc<Server>,
    settings: PoolSettings,
    groups: Vec<Arc<Group>>,
    next_key: AtomicU64,
    total_threads: AtomicUsize,
    stop: AtomicBool,
    /// Client listeners (fd, options their sockets inherit; None: Unix socket).
    listeners: Vec<(RawFd, Option<Inherited>)>,
    /// Cleared at shutdown: listener events are ignored from then on.
    accepting: AtomicBool,
    /// setpriority was refused once (logged); workers no longer try.
    nice_refused: AtomicBool,
}

thread_local! {
    /// The group and pool of the current worker thread, for the wait hooks.
    static CURRENT: RefCell<Option<(Arc<Pool>, Arc<Group>)>> = const { RefCell::new(None) };
    /// Each worker's read buffer (zeroed once per thread, not per read).
    static READ_BUF: RefCell<Box<[u8]>> = RefCell::new(vec![0u8; READ_CHUNK].into_boxed_slice());
    /// Each worker's reusable connection buffers (see `Scratch`).
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch { decoder: Vec::new(), payload: Vec::new(), out: Vec::new() }) };
}

/// Buffers a worker lends to the connection it drives and takes back when the
/// connection goes idle. An idle connection then holds no buffer memory, and a
/// command costs no allocation for its input, payload or output.
struct Scratch {
    decoder: Vec<u8>,
    payload: Vec<u8>,
    out: Vec<u8>,
}

/// A worker keeps a lent buffer only up to this capacity (larger ones, from a
/// big statement or result, are freed when the connection goes idle).
const SCRATCH_KEEP: usize = 64 * 1024;

impl Scratch {
    /// Lend the worker's buffers to a connection whose own are empty.
    fn lend(inner: &mut ConnInner) {
        let (decoder, payload, out) = inner.driver.buffers();
        SCRATCH.with_borrow_mut(|s| {
            if decoder.capacity() == 0 {
                decoder.swap_idle_buffer(&mut s.decoder);
            }
            if payload.capacity() == 0 {
                std::mem::swap(payload, &mut s.payload);
            }
            if out.capacity() == 0 && out.is_empty() {
                std::mem::swap(out, &mut s.out);
            }
        });
    }

    /// Take back an idle connection's buffers (it keeps none): the larger of
    /// its buffer and the worker's current one stays with the worker, within
    /// `SCRATCH_KEEP`.
    fn reclaim(inner: &mut ConnInner) {
        fn keep(mine: &mut Vec<u8>, mut used: Vec<u8>) {
            if used.capacity() > mine.capacity() && used.capacity() <= SCRATCH_KEEP {
                used.clear();
                *mine = used;
            }
        }
        let (decoder, payload, out) = inner.driver.buffers();
        SCRATCH.with_borrow_mut(|s| {
            let mut idle = Vec::new();
            if decoder.swap_idle_buffer(&mut idle) {
                keep(&mut s.decoder, idle);
            }
            keep(&mut s.payload, std::mem::take(payload));
            keep(&mut s.out, std::mem::take(out));
        });
    }
}

/// The pool's WaitHook: a worker about to block gives its slot to another.
pub struct PoolWait;

pub static POOL_WAIT: PoolWait = PoolWait;

impl WaitHook for PoolWait {
    fn wait_begin(&self, _kind: WaitKind) {
        CURRENT.with(|c| {
            if let Some((pool, group)) = &*c.borrow() {
                let mut st = group.lock();
                st.active = st.active.saturating_sub(1);
                st.waiting += 1;
                // Someone must take queued work and someone must listen.
                if !st.high.is_empty() || !st.low.is_empty() || !st.listener {
                    pool.wake_or_spawn(group, &mut st, true);
                }
            }
        })
    }

    fn wait_end(&self) {
        CURRENT.with(|c| {
            if let Some((_, group)) = &*c.borrow() {
                let mut st = group.lock();
                st.waiting = st.waiting.saturating_sub(1);
                st.active += 1;
            }
        })
    }
}

fn epoll_ctl(epfd: RawFd, op: libc::c_int, fd: RawFd, events: u32, key: u64) -> io::Result<()> {
    let mut ev = libc::epoll_event { events, u64: key };
    // SAFETY: valid epoll fd and event struct.
    if unsafe { libc::epoll_ctl(epfd, op, fd, &mut ev) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl Group {
    fn new() -> io::Result<Group> {
        // SAFETY: plain syscalls; results checked and wrapped in OwnedFd at once.
        let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if epfd < 0 {
            return Err(io::Error::last_os_error());
        }
        let epfd = unsafe { OwnedFd::from_raw_fd(epfd) };
        let efd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if efd < 0 {
            return Err(io::Error::last_os_error());
        }
        let wake_fd = unsafe { OwnedFd::from_raw_fd(efd) };
        epoll_ctl(epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, wake_fd.as_raw_fd(), libc::EPOLLIN as u32, WAKE_KEY)?;
        Ok(Group {
            epfd,
            wake_fd,
            state: Mutex::new(GroupState::default()),
            cond: Condvar::new(),
            conns: (0..CONN_SHARDS).map(|_| Mutex::new(ConnMap::default())).collect(),
            load: AtomicUsize::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, GroupState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The shard of the connection map holding `key`.
    fn conns(&self, key: u64) -> MutexGuard<'_, ConnMap> {
        self.conns[(key % CONN_SHARDS as u64) as usize].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake_listener(&self) {
        let one: u64 = 1;
        // SAFETY: 8-byte write to our eventfd.
        unsafe { libc::write(self.wake_fd.as_raw_fd(), &one as *const u64 as *const libc::c_void, 8) };
    }

    fn drain_wake(&self) {
        let mut v: u64 = 0;
        // SAFETY: 8-byte read from our non-blocking eventfd.
        unsafe { libc::read(self.wake_fd.as_raw_fd(), &mut v as *mut u64 as *mut libc::c_void, 8) };
    }
}

impl Pool {
    /// Start the groups' first workers. `listeners` (non-blocking, owned by
    /// the caller until after `stop_accepting`) are added to every group's epoll set.
    pub fn start(server: Arc<Server>, settings: PoolSettings, listeners: Vec<(RawFd, Option<Inherited>)>) -> io::Result<Arc<Pool>> {
        let n = settings.size.max(1);
        let groups = (0..n).map(|_| Group::new().map(Arc::new)).collect::<io::Result<Vec<_>>>()?;
        for g in &groups {
            for (i, (fd, _)) in listeners.iter().enumerate() {
                let ev = (libc::EPOLLIN | libc::EPOLLEXCLUSIVE) as u32;
                epoll_ctl(g.epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, *fd, ev, LISTEN_KEY - i as u64)?;
            }
        }
        server.pool.groups.store(n as i64, Ordering::Relaxed);
        let pool = Arc::new(Pool {
            server,
            settings,
            groups,
            next_key: AtomicU64::new(1),
            total_threads: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            listeners,
            accepting: AtomicBool::new(true),
            nice_refused: AtomicBool::new(false),
        });
        for g in &pool.groups {
            let mut st = g.lock();
            pool.spawn_worker(g, &mut st, true);
        }
        let timer = pool.clone();
        std::thread::Builder::new().name("ts-pool-timer".into()).spawn(move || timer.timer_main())?;
        Ok(pool)
    }

    fn now_ms(&self) -> u64 {
        coarse_ms()
    }

    /// Shutdown: take the listeners out of every epoll set (before the caller
    /// closes them) and ignore listener events already taken.
    pub fn stop_accepting(&self) {
        self.accepting.store(false, Ordering::SeqCst);
        for g in &self.groups {
            for (fd, _) in &self.listeners {
                let _ = epoll_ctl(g.epfd.as_raw_fd(), libc::EPOLL_CTL_DEL, *fd, 0, 0);
            }
        }
    }

    /// Accept a batch from client listener `i` on group `g`'s worker. Adds the
    /// connections this group keeps to `keep`; the rest are queued on the
    /// least loaded groups (see `BALANCE_SLACK`).
    fn accept_batch(self: &Arc<Self>, g: &Arc<Group>, i: usize, keep: &mut Vec<Work>) {
        let Some(&(fd, inherited)) = self.listeners.get(i) else { return };
        if !self.accepting.load(Ordering::Acquire) {
            return;
        }
        crate::listener::accept_nonblocking(fd, inherited, ACCEPT_BATCH, &self.server.registry, |conn| {
            let least = self.groups.iter().min_by_key(|o| o.load.load(Ordering::Relaxed)).unwrap_or(g);
            let mine = g.load.load(Ordering::Relaxed);
            if Arc::ptr_eq(least, g) || mine <= least.load.load(Ordering::Relaxed) + BALANCE_SLACK {
                g.load.fetch_add(1, Ordering::Relaxed);
                keep.push(Work::New(conn));
            } else {
                least.load.fetch_add(1, Ordering::Relaxed);
                self.enqueue(least, Work::New(conn), false);
            }
        });
    }

    fn enqueue(self: &Arc<Self>, g: &Arc<Group>, w: Work, high: bool) {
        let mut st = g.lock();
        if high {
            st.high.push_back(w);
        } else {
            st.low.push_back((coarse_ms(), w));
        }
        self.server.pool.queue_length.fetch_add(1, Ordering::Relaxed);
        self.wake_or_spawn(g, &mut st, false);
    }

    /// Make sure someone will pick up queued work: a parked worker, the
    /// listener, or (if neither exists and the limit allows) a new worker.
    /// Unless `replace` (a worker is about to block), nobody is woken while a
    /// worker of the group is active: it takes the queued work when it
    /// finishes its item, so a busy group runs like one event loop per core
    /// instead of handing events between threads (a futex wake and two context
    /// switches each). The stall timer covers an active worker that does not
    /// come back.
    fn wake_or_spawn(self: &Arc<Self>, g: &Arc<Group>, st: &mut GroupState, replace: bool) {
        if !replace && st.active > 0 {
            return;
        }
        if st.idle > 0 {
            g.cond.notify_one();
        } else if st.listener {
            g.wake_listener();
        } else if st.active == 0 {
            // Nobody is running, parked or listening (all blocked in waits, or
            // retired): start one. Otherwise a running worker comes back soon,
            // and the stall timer adds one if it does not.
            self.spawn_worker(g, st, false);
        }
    }

    fn active_limit(&self, st: &GroupState) -> usize {
        1 + self.settings.oversubscribe + st.stalled as usize
    }

    fn spawn_worker(self: &Arc<Self>, g: &Arc<Group>, st: &mut GroupState, first: bool) {
        if !first && self.total_threads.load(Ordering::Relaxed) >= self.settings.max_threads {
            return;
        }
        self.total_threads.fetch_add(1, Ordering::Relaxed);
        st.threads += 1;
        self.server.pool.threads.fetch_add(1, Ordering::Relaxed);
        let (pool, group) = (self.clone(), g.clone());
        let spawned = std::thread::Builder::new().name("ts-pool".into()).stack_size(self.settings.stack).spawn(move || pool.worker_main(group));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a pool worker");
            self.total_threads.fetch_sub(1, Ordering::Relaxed);
            st.threads -= 1;
            self.server.pool.threads.fetch_sub(1, Ordering::Relaxed);
        } else if self.server.config.statistics {
            self.server.stats.threads_created.inc();
        }
    }

    fn worker_main(self: Arc<Self>, g: Arc<Group>) {
        CURRENT.with(|c| *c.borrow_mut() = Some((self.clone(), g.clone())));
        self.set_worker_priority();
        // This worker ends what the engine keeps for it before every sleep.
        self.server.engine.thread_holds_reads();
        let mut finished = false;
        // Reused for every epoll wake-up (no allocation per batch).
        let mut ready = Vec::with_capacity(MAX_EVENTS + ACCEPT_BATCH);
        while let Some(work) = self.get_work(&g, finished, &mut ready) {
            match work {
                Work::New(conn) => self.new_connection(&g, conn),
                Work::Event(c) => self.handle_event(&g, c),
                Work::Handed(home, c) => self.handle_event(&home, c),
            }
            finished = true;
        }
        CURRENT.with(|c| *c.borrow_mut() = None);
        // Nothing this worker kept (a read snapshot) outlives it.
        self.server.engine.thread_idle(true);
        self.total_threads.fetch_sub(1, Ordering::Release);
        self.server.pool.threads.fetch_sub(1, Ordering::Relaxed);
    }

    /// Give this worker `thread_pool_nice`. Why: the kernel shares a CPU
    /// between runnable threads by weight, and a worker carries the work of
    /// many connections; at the same weight as each client thread on the same
    /// CPUs it waits behind them while its queue grows. Measured with
    /// `python3 bench/ab.py --workload point-select --threads 16 --table-size
    /// 100000 --runs 5 --duration 5`: pool 97.7k (nice 0), 102.3k (-5), 111.2k
    /// (-10) queries/s against per-thread 100.3k; connect churn 11.3k → 13.0k
    /// connections/s (see docs/configuration.md).
    fn set_worker_priority(&self) {
        let nice = self.settings.nice;
        if nice == 0 || self.nice_refused.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: plain syscalls on the calling thread.
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice) };
        if rc != 0 && !self.nice_refused.swap(true, Ordering::Relaxed) {
            let e = io::Error::last_os_error();
            tracing::warn!(nice, error = %e, "pool workers keep the process's priority (thread_pool_nice needs CAP_SYS_NICE to go below 0)");
        }
    }

    fn pop(&self, st: &mut GroupState) -> Option<Work> {
        let kick = st.low.front().is_some_and(|(t, _)| coarse_ms().saturating_sub(*t) >= self.settings.kickup.as_millis() as u64);
        let w = if kick { st.low.pop_front().map(|(_, w)| w) } else { st.high.pop_front().or_else(|| st.low.pop_front().map(|(_, w)| w)) };
        if w.is_some() {
            st.dequeued += 1;
            st.active += 1;
            self.server.pool.queue_length.fetch_sub(1, Ordering::Relaxed);
        }
        w
    }

    /// The next piece of work for this worker; `None` to retire. `finished`:
    /// the worker just completed an item (counted out of `active` here, under
    /// the same lock).
    fn get_work(self: &Arc<Self>, g: &Arc<Group>, finished: bool, ready: &mut Vec<Work>) -> Option<Work> {
        let mut st = g.lock();
        if finished {
            st.active = st.active.saturating_sub(1);
        }
        loop {
            if self.stop.load(Ordering::Acquire) && st.high.is_empty() && st.low.is_empty() {
                st.threads -= 1;
                return None;
            }
            let queued = !st.high.is_empty() || !st.low.is_empty();
            if queued {
                if st.active < self.active_limit(&st) {
                    return self.pop(&mut st);
                }
                self.server.pool.throttles.fetch_add(1, Ordering::Relaxed);
            }
            if !st.listener {
                st.listener = true;
                drop(st);
                let mut events = std::mem::MaybeUninit::<[libc::epoll_event; MAX_EVENTS]>::uninit();
                let timeout = self.settings.idle_timeout.as_millis().min(1000) as i32;
                let mut wait = |ms: i32| {
                    // SAFETY: valid epoll fd and event buffer (epoll_wait writes the first n).
                    unsafe { libc::epoll_wait(g.epfd.as_raw_fd(), events.as_mut_ptr().cast::<libc::epoll_event>(), MAX_EVENTS as i32, ms) }
                };
                // Nothing ready: give the CPU to a runnable thread (often the
                // client just answered) before sleeping, and look once more.
                // The client's next command then tends to arrive while this
                // worker is still awake: no sleep, no wake-up (see
                // docs/architecture.md, "Yield before sleeping").
                let mut n = wait(0);
                if n == 0 {
                    // SAFETY: a plain system call.
                    unsafe { libc::sched_yield() };
                    // About to sleep (at most `timeout`, ≤ 1 s): the engine
                    // lets go of this thread's read snapshot if it is out of date.
                    self.server.engine.thread_idle(false);
                    n = wait(timeout);
                }
                ready.clear();
                let mut listeners_ready = 0u32;
                if n > 0 {
                    // SAFETY: epoll_wait initialised the first n entries.
                    let events = unsafe { std::slice::from_raw_parts(events.as_ptr().cast::<libc::epoll_event>(), n as usize) };
                    for ev in events {
                        let key = ev.u64;
                        if key == WAKE_KEY {
                            g.drain_wake();
                        } else if key > MAX_CONN_KEY {
                            listeners_ready |= 1 << (LISTEN_KEY - key).min(31);
                        } else {
                            let conn_key = key & !BACKEND_KEY;
                            if let Some(c) = g.conns(conn_key).get(&conn_key) {
                                if key == conn_key {
                                    let hangup = ev.events & (libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0;
                                    c.client_event.fetch_or(if hangup { CLIENT_EVENT | CLIENT_HANGUP } else { CLIENT_EVENT }, Ordering::AcqRel);
                                }
                                ready.push(Work::Event(c.clone()));
                            }
                        }
                    }
                }
                // Accept outside the group lock (queuing on another group takes its lock).
                for i in 0..self.listeners.len().min(32) {
                    if listeners_ready & (1 << i) != 0 {
                        self.accept_batch(g, i, ready);
                    }
                }
                st = g.lock();
                st.listener = false;
                if ready.is_empty() {
                    continue;
                }
                let mut ready = ready.drain(..);
                // Handle one event ourselves when nothing else is queued.
                let mine = if st.high.is_empty() && st.low.is_empty() && st.active < self.active_limit(&st) { ready.next() } else { None };
                let now = coarse_ms();
                let mut pushed = 0;
                for w in ready {
                    pushed += 1;
                    match w {
                        Work::Event(c) if c.in_transaction() => st.high.push_back(Work::Event(c)),
                        w => st.low.push_back((now, w)),
                    }
                }
                self.server.pool.queue_length.fetch_add(pushed, Ordering::Relaxed);
                if mine.is_some() {
                    st.dequeued += 1;
                    st.active += 1;
                }
                if pushed > 0 {
                    // Someone must take the rest. (No one is woken just to listen:
                    // the next worker to finish comes back to epoll, and the stall
                    // timer covers a worker that does not.)
                    self.wake_or_spawn(g, &mut st, false);
                }
                if mine.is_some() {
                    return mine;
                }
                continue;
            }
            // Park until work arrives, first (outside the group lock) letting
            // go of what the engine keeps for this thread.
            if self.server.engine.thread_keeps_state() {
                drop(st);
                self.server.engine.thread_idle(true);
                st = g.lock();
                continue;
            }
            st.idle += 1;
            self.server.pool.idle_threads.fetch_add(1, Ordering::Relaxed);
            let (guard, res) = g.cond.wait_timeout(st, self.settings.idle_timeout).unwrap_or_else(|e| e.into_inner());
            st = guard;
            st.idle -= 1;
            self.server.pool.idle_threads.fetch_sub(1, Ordering::Relaxed);
            if res.timed_out() && st.high.is_empty() && st.low.is_empty() && st.threads > 1 {
                st.threads -= 1;
                return None;
            }
        }
    }

    fn new_connection(self: &Arc<Self>, g: &Arc<Group>, conn: Accepted) {
        let (peer, host) = conn.peer();
        let (stream, nonblocking) = (conn.stream, conn.nonblocking);
        let fd = stream.as_raw_fd();
        if !nonblocking && stream.set_nonblocking().is_err() {
            g.load.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let now_ms = self.now_ms();
        let key = self.next_key.fetch_add(1, Ordering::Relaxed) % BACKEND_KEY;
        // Built in one expression, in place: a session (536 bytes) moved
        // through locals is copied at each move.
        let c = Arc::new(PConn {
            key,
            fd,
            state: AtomicU8::new(BUSY),
            registered: AtomicBool::new(false),
            out_armed: AtomicBool::new(false),
            client_event: AtomicU8::new(0),
            deadline_ms: AtomicU64::new(0),
            inner: Mutex::new(ConnInner { stream, driver: Driver::new(Session::new(self.server.clone(), peer, host, false, fd), now_ms), closed: false }),
        });
        g.conns(key).insert(key, c.clone());
        let mut inner = c.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.driver.session_mut().set_scheduler_hooks(true, &POOL_WAIT);
        if self.server.upstream.is_some() {
            inner.driver.session_mut().set_upstream_wake(self.waker(g, &c));
        }
        Scratch::lend(&mut inner);
        inner.driver.start();
        self.run_connection(g, &c, inner, true);
    }

    /// What resumes connection `c` from outside epoll (the upstream pool
    /// handed its session a backend connection): queued as if an event came.
    fn waker(self: &Arc<Self>, g: &Arc<Group>, c: &Arc<PConn>) -> turnstile_upstream::pool::Wake {
        let (pool, group, conn) = (Arc::downgrade(self), Arc::downgrade(g), Arc::downgrade(c));
        Arc::new(move || {
            let (Some(pool), Some(home), Some(conn)) = (pool.upgrade(), group.upgrade(), conn.upgrade()) else { return };
            // Called by the session that gave a backend connection back, on a
            // worker of this pool: queue the session there, where a worker is
            // active and takes it next, instead of waking its home group's
            // (with 100 clients over 31 backend connections most statements
            // queue, and that wake-up was one more context switch each).
            let here = CURRENT.with(|cur| cur.borrow().as_ref().filter(|(p, _)| Arc::ptr_eq(p, &pool)).map(|(_, g)| g.clone()));
            match here {
                Some(g) if !Arc::ptr_eq(&g, &home) => pool.enqueue(&g, Work::Handed(home, conn), false),
                _ => pool.enqueue(&home, Work::Event(conn), false),
            }
        })
    }

    /// Stall detection and timeouts.
    fn timer_main(self: Arc<Self>) {
        let mut last_scan = Instant::now();
        while !self.stop.load(Ordering::Acquire) {
            std::thread::sleep(self.settings.stall_limit);
            for g in &self.groups {
                let mut st = g.lock();
                let queued = !st.high.is_empty() || !st.low.is_empty();
                // Work is waiting in the queue, or in epoll with nobody listening
                // while every worker is busy.
                let needs_help = queued || (!st.listener && st.active > 0);
                if needs_help && st.dequeued == st.dequeued_at_last_check {
                    st.stalled = true;
                    self.server.pool.stalls.fetch_add(1, Ordering::Relaxed);
                    if st.idle > 0 {
                        g.cond.notify_one();
                    } else {
                        self.spawn_worker(g, &mut st, false);
                    }
                } else if !needs_help {
                    st.stalled = false;
                }
                st.dequeued_at_last_check = st.dequeued;
            }
            if last_scan.elapsed() >= Duration::from_secs(1) {
                last_scan = Instant::now();
                self.expire_idle();
            }
        }
    }

    /// Fire an event for every waiting connection whose deadline passed. One
    /// shard of a group's map is held at a time, and only while it is read.
    fn expire_idle(self: &Arc<Self>) {
        let now = self.now_ms();
        let mut expired: Vec<Arc<PConn>> = Vec::new();
        for g in &self.groups {
            for shard in g.conns.iter() {
                let conns = shard.lock().unwrap_or_else(|e| e.into_inner());
                expired.extend(
                    conns
                        .values()
                        .filter(|c| {
                            let d = c.deadline_ms.load(Ordering::Relaxed);
                            d != 0 && d <= now
                        })
                        .cloned(),
                );
                drop(conns);
                for c in expired.drain(..) {
                    if c.state.compare_exchange(IDLE, TIMEDOUT, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                        // A worker closes it (after ERR 4031 where that applies).
                        self.enqueue(g, Work::Event(c), false);
                    }
                }
            }
        }
    }

    /// Stop workers after the sessions are gone (graceful shutdown).
    /// Stop the workers and wait (up to 2 s) until they are gone, so that
    /// nothing they kept (read snapshots) is open when the engine shuts down.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        for g in &self.groups {
            let _st = g.lock();
            g.cond.notify_all();
            g.wake_listener();
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while self.total_threads.load(Ordering::Acquire) > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Wake every connection's socket for read shutdown (graceful shutdown).
    pub fn connection_count(&self) -> usize {
        self.groups.iter().flat_map(|g| g.conns.iter()).map(|m| m.lock().unwrap_or_else(|e| e.into_inner()).len()).sum()
    }
}

impl PConn {
    /// Whether the session is inside a transaction (high-priority queue). Only
    /// a hint: read without waiting for the connection's lock.
    fn in_transaction(&self) -> bool {
        match self.inner.try_lock() {
            Ok(i) => i.driver.session().in_transaction(),
            Err(_) => false,
        }
    }
}
