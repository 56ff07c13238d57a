//! The connection registry: every live session, for PROCESSLIST, KILL and
//! shutdown.
//!
//! Locks on the connect/disconnect path (there is no global one):
//! - one shard mutex here, held only to insert or remove one map entry. The
//!   shard is chosen by connection id, and ids are consecutive, so concurrent
//!   connects and disconnects spread over all shards (four per CPU by default);
//!   all connections never contend on one lock.
//! - the session's own `info` and `fd` mutexes, taken by the session itself and
//!   by PROCESSLIST/KILL/shutdown only, never by other sessions.
//! - read guards of two RwLocks (`accounts::Accounts::list` at login,
//!   `engine::catalog::Catalog::names` for CONNECT_WITH_DB): readers never wait
//!   for each other; only account statements and CREATE/DROP DATABASE write.
//! - the thread cache hand-off is a lock-free queue plus park/unpark (`per_thread.rs`); the
//!   pool's hand-off takes one thread group's queue lock (`pool.rs`), and
//!   there is one group per CPU.
//!
//! Connection ids, the connected count and the counters are atomics.
//! PROCESSLIST and KILL read one shard at a time, so they never stop connects.
//!
//! Connections that have not logged in yet hold their slot only until the
//! server is full, or until max_handshakes of them are logging in: a
//! newcomer past either limit takes the slot of the oldest one
//! (`evict_oldest_login`), which is told 1040 and closed. So silent or slow
//! handshakes cannot keep an administrator out nor pile up (see
//! docs/architecture.md, Limits and TLS); the scan that finds the oldest runs
//! only past a limit and only when a login is pending.

use crossbeam_utils::CachePadded;
use std::collections::HashMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What PROCESSLIST shows about a session, updated by the session itself.
#[derive(Debug, Clone)]
pub struct Info {
    /// Empty until the session has logged in ("unauthenticated user").
    pub user: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub state: &'static str,
    /// The running statement's text (PROCESSLIST's Info) while `query_active`;
    /// the buffer is kept between statements so setting it does not allocate.
    pub query: String,
    pub query_active: bool,
    pub since: Instant,
    /// The connection attributes the client sent, as sent (whole
    /// attributes, at most performance_schema_session_connect_attrs_size
    /// bytes); empty while performance_schema is OFF.
    pub attrs: Box<[u8]>,
}

/// Login states of a connection (`Handle::login`). Only the owner moves a
/// connection out of STARTING and PENDING, except that another connection may
/// move it from PENDING to EVICTED (taking over its slot).
pub mod login {
    /// Registered, not yet counted against a limit: never evicted.
    pub const STARTING: u8 = 0;
    /// Counted and greeted, not logged in: may be evicted.
    pub const PENDING: u8 = 1;
    /// Logged in.
    pub const DONE: u8 = 2;
    /// Its slot was given to a newer connection; it must answer 1040 and close
    /// without releasing the slot.
    pub const EVICTED: u8 = 3;
    /// Closed before logging in.
    pub const GONE: u8 = 4;
    /// As EVICTED, but its slot went to a newer connection because
    /// max_handshakes logins were in progress, not because the server was full.
    pub const SHED: u8 = 5;

    /// EVICTED or SHED: answer 1040 and close without releasing the slot.
    pub fn evicted(state: u8) -> bool {
        state == EVICTED || state == SHED
    }
}

/// One live session as others see it.
pub struct Handle {
    pub id: u32,
    /// The TCP peer, or `None` for the Unix socket ("localhost"). Formatted
    /// only when PROCESSLIST asks (`host()`), not on every connect.
    pub peer: Option<std::net::SocketAddr>,
    pub admin_port: bool,
    pub info: Mutex<Info>,
    /// KILL QUERY / KILL CONNECTION: interrupt the running statement.
    pub killed: AtomicBool,
    /// KILL CONNECTION: close after the current statement.
    pub kill_connection: AtomicBool,
    /// Upstream engine: the backend thread running this session's statement
    /// (0: none), which a KILL passes KILL QUERY to.
    pub upstream_thread: std::sync::atomic::AtomicU32,
    /// Where the login stands (`login::*`).
    pub login: AtomicU8,
    /// The server shut the socket down itself (graceful shutdown, KILL): a
    /// closed read side is then not a client that went away (`PeerProbe`).
    pub closed_by_server: AtomicBool,
    /// The socket, so KILL and shutdown can wake a session blocked in read.
    /// Cleared (under the lock) before the session closes its socket.
    fd: Mutex<Option<RawFd>>,
}

impl Handle {
    pub fn new(id: u32, peer: Option<std::net::SocketAddr>, admin_port: bool, fd: RawFd) -> Handle {
        Handle {
            id,
            peer,
            admin_port,
            info: Mutex::new(Info { user: String::new(), db: None, command: "Connect", state: "login", query: String::new(), query_active: false, since: Instant::now(), attrs: Box::default() }),
            killed: AtomicBool::new(false),
            kill_connection: AtomicBool::new(false),
            upstream_thread: std::sync::atomic::AtomicU32::new(0),
            login: AtomicU8::new(login::STARTING),
            closed_by_server: AtomicBool::new(false),
            fd: Mutex::new(Some(fd)),
        }
    }

    /// "ip:port" or "localhost", as PROCESSLIST shows it.
    pub fn host(&self) -> String {
        match self.peer {
            Some(a) => format!("{}:{}", a.ip(), a.port()),
            None => "localhost".to_string(),
        }
    }

    pub fn set_info(&self, f: impl FnOnce(&mut Info)) {
        let mut i = self.info.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut i);
    }

    /// Wake the session's thread if it is blocked reading (shutdown(2) of the
    /// read side, or both sides for KILL).
    pub fn shutdown_socket(&self, how: std::net::Shutdown) {
        let fd = self.fd.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fd) = *fd {
            self.closed_by_server.store(true, std::sync::atomic::Ordering::SeqCst);
            let how = match how {
                std::net::Shutdown::Read => libc::SHUT_RD,
                std::net::Shutdown::Write => libc::SHUT_WR,
                std::net::Shutdown::Both => libc::SHUT_RDWR,
            };
            // SAFETY: the fd stays open while it is stored here (see `detach_socket`).
            unsafe { libc::shutdown(fd, how) };
        }
    }

    /// Called by the session before it closes its socket.
    pub fn detach_socket(&self) {
        *self.fd.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// One shard: the sessions whose id falls in it.
type Shard = CachePadded<Mutex<HashMap<u32, Arc<Handle>>>>;

pub struct Registry {
    shards: Vec<Shard>,
    next_id: AtomicU32,
    /// Client connections (main port and socket) currently registered.
    pub connected: AtomicU64,
    /// Admin-port connections currently registered.
    pub admin_connected: AtomicU64,
    /// Client connections logged in (the administrator's extra slot past
    /// max_connections is checked against this at login).
    pub logged_in: AtomicU64,
    /// Connections in state PENDING: [client listeners, admin port].
    pending: [AtomicU64; 2],
}

impl Registry {
    pub fn new(shards: usize) -> Registry {
        let n = shards.max(1);
        Registry {
            shards: (0..n).map(|_| CachePadded::new(Mutex::new(HashMap::new()))).collect(),
            next_id: AtomicU32::new(1),
            connected: AtomicU64::new(0),
            admin_connected: AtomicU64::new(0),
            logged_in: AtomicU64::new(0),
            pending: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    pub fn next_id(&self) -> u32 {
        loop {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            if id != 0 {
                return id;
            }
        }
    }

    fn shard(&self, id: u32) -> &Mutex<HashMap<u32, Arc<Handle>>> {
        &self.shards[id as usize % self.shards.len()]
    }

    pub fn insert(&self, h: Arc<Handle>) {
        self.shard(h.id).lock().unwrap_or_else(|e| e.into_inner()).insert(h.id, h);
    }

    pub fn remove(&self, id: u32) -> Option<Arc<Handle>> {
        self.shard(id).lock().unwrap_or_else(|e| e.into_inner()).remove(&id)
    }

    pub fn get(&self, id: u32) -> Option<Arc<Handle>> {
        self.shard(id).lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned()
    }

    /// A snapshot, one shard at a time.
    pub fn snapshot(&self) -> Vec<Arc<Handle>> {
        let mut v = Vec::new();
        for s in &self.shards {
            v.extend(s.lock().unwrap_or_else(|e| e.into_inner()).values().cloned());
        }
        v
    }

    /// `h` has been counted against its limit and greeted: from now on it may
    /// be evicted until it logs in.
    pub fn login_pending(&self, h: &Handle) {
        self.pending[h.admin_port as usize].fetch_add(1, Ordering::AcqRel);
        let was = h.login.swap(login::PENDING, Ordering::AcqRel);
        debug_assert_eq!(was, login::STARTING);
    }

    /// The owner leaves PENDING (`to`: DONE or GONE). Returns the state it was
    /// in: PENDING (left it), EVICTED, or STARTING/DONE (never pending).
    pub fn login_leave(&self, h: &Handle, to: u8) -> u8 {
        debug_assert!(to == login::DONE || to == login::GONE);
        match h.login.compare_exchange(login::PENDING, to, Ordering::AcqRel, Ordering::Acquire) {
            Ok(was) => {
                self.pending[h.admin_port as usize].fetch_sub(1, Ordering::AcqRel);
                was
            }
            Err(now) => now,
        }
    }

    /// Connections of one kind (admin port or not) logging in now.
    pub fn pending(&self, admin_port: bool) -> u64 {
        self.pending[admin_port as usize].load(Ordering::Acquire)
    }

    /// Evict the oldest connection of the same kind (admin port or not) that
    /// has not logged in, other than `except`: it goes to `to` (EVICTED or
    /// SHED), its read side
    /// is shut down to wake its thread, and the caller owns its slot. Returns
    /// false when there is none. The scan covers every shard, so it runs only
    /// when a login is pending and the limit is reached. Ids grow with time,
    /// so the smallest id is the oldest (until ids wrap after 4 billion
    /// connections; then it is merely some pending login).
    pub fn evict_oldest_login(&self, admin_port: bool, except: u32, to: u8) -> bool {
        debug_assert!(login::evicted(to));
        for _ in 0..4 {
            if self.pending[admin_port as usize].load(Ordering::Acquire) == 0 {
                return false;
            }
            let Some(h) = self.oldest_pending(admin_port, except) else { return false };
            if h.login.compare_exchange(login::PENDING, to, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                self.pending[admin_port as usize].fetch_sub(1, Ordering::AcqRel);
                h.shutdown_socket(std::net::Shutdown::Read);
                return true;
            }
            // It logged in or closed meanwhile: look again.
        }
        false
    }

    /// Out of file descriptors with none in reserve: close the oldest
    /// connection that has not logged in (either kind), so its descriptor
    /// comes free for a waiting client. It releases its slot as usual.
    /// Returns false when there is none.
    pub fn drop_oldest_login(&self) -> bool {
        let oldest = [false, true].into_iter().filter_map(|admin| self.oldest_pending(admin, 0)).min_by_key(|h| h.id);
        match oldest {
            Some(h) => {
                h.shutdown_socket(std::net::Shutdown::Both);
                true
            }
            None => false,
        }
    }

    /// The PENDING connection with the smallest id (admin port or not), other than `except`.
    fn oldest_pending(&self, admin_port: bool, except: u32) -> Option<Arc<Handle>> {
        let mut oldest: Option<Arc<Handle>> = None;
        for s in &self.shards {
            let m = s.lock().unwrap_or_else(|e| e.into_inner());
            for h in m.values() {
                let candidate = h.admin_port == admin_port && h.id != except && h.login.load(Ordering::Acquire) == login::PENDING;
                if candidate && oldest.as_ref().is_none_or(|o| h.id < o.id) {
                    oldest = Some(h.clone());
                }
            }
        }
        oldest
    }

    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
