//! turnstile-upstream: Turnstile in front of an existing MySQL or MariaDB.
//!
//! Client sessions log in to Turnstile with the accounts the backend has
//! (`accounts`, read from `mysql.user` by the monitor account) and their
//! statements run on the backend as those users, over a few backend
//! connections (`pool`) that sessions borrow per statement, or per
//! transaction and while they hold state that lives on the connection
//! (`classify`'s pins). What a session sets (system variables, schema,
//! character set) is learned from the backend's session-state tracker
//! (`ok_packet`) and kept by the session (`proxy`), which brings a borrowed
//! connection to that state with one batched SET, and COM_INIT_DB only
//! where it differs. Results pass through as the backend's bytes (`forward`).
//!
//! Waiting: under the pool-of-threads scheduler (`proxy::Io::pausable` and
//! `Io::wake`) a statement's answer is read without waiting (`Step::Waiting`:
//! the scheduler arms the backend socket in its epoll set and resumes the
//! session), and a statement that finds no free connection is queued in the
//! pool and woken when it is handed one. Otherwise (thread-per-connection,
//! and Turnstile's own round trips: the login's database check, preparing a
//! statement on a connection before its execute, the batched SET) reads
//! block, and waits past 1 ms are announced through turnstile-engine's
//! `WaitHook`.

pub mod accounts;
pub mod backend;
pub mod classify;
pub mod engine;
pub mod forward;
pub mod local;
pub mod ok_packet;
pub mod pool;
pub mod proofs;
pub mod proxy;

use backend::{Address, Backend, BackendError, Login};
use std::net::ToSocketAddrs;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The upstream engine's settings (each an `upstream_*` row of the settings table).
#[derive(Debug, Clone)]
pub struct Options {
    /// `HOST:PORT[,HOST:PORT...]` (or a Unix socket's path); the first is the writer (the only one used for now).
    pub servers: String,
    pub user: String,
    pub password: String,
    /// Backend connections per server, the monitor's included on the writer (≥ 2).
    pub max_connections: usize,
    pub connect_timeout_ms: u64,
    /// How long a statement waits for a free backend connection.
    pub checkout_timeout_ms: u64,
    /// After a failed connect, how long new connections are not tried.
    pub retry_interval_ms: u64,
    pub health_interval_ms: u64,
    pub accounts_refresh_s: u64,
    /// Bytes of a result buffered before it streams.
    pub result_buffer_bytes: usize,
    /// Prepared statements kept per backend connection.
    pub max_prepared_per_connection: usize,
}

/// How often sessions queued for a backend connection are checked for
/// `upstream_checkout_timeout_ms` (the health thread's tick).
pub const WAITER_TICK_MS: u64 = 20;

/// The least time between two reads of the backend's accounts.
const MIN_ACCOUNT_READ_GAP: Duration = Duration::from_millis(100);

/// The tracking every backend connection runs with, set again after every
/// login, COM_CHANGE_USER and COM_RESET_CONNECTION (they reset it).
const TRACK_SQL: &str = "SET SESSION session_track_system_variables='*', session_track_schema=ON, session_track_state_change=ON, session_track_transaction_info=CHARACTERISTICS";

/// Switch on session-state tracking on a fresh or reset connection.
pub fn track_session(b: &mut Backend) -> Result<(), BackendError> {
    b.simple_command(turnstile_wire::consts::com::QUERY, TRACK_SQL.as_bytes())
}

/// Counters for SHOW STATUS, beside the pools' own.
#[derive(Default)]
pub struct Counters {
    /// Statements and commands run on the backend for clients.
    pub statements: AtomicU64,
    /// Of those, run on a connection lent for that statement alone.
    pub multiplexed: AtomicU64,
    /// Batched SETs sent to bring a connection to a session's variables.
    pub sync_sets: AtomicU64,
    pub sync_init_db: AtomicU64,
    /// Statements run again on a fresh connection after the first died.
    pub retries: AtomicU64,
    /// Sessions told their connection was lost (2013).
    pub lost: AtomicU64,
    /// Sessions pinned now, by reason (`classify::pin::NAMES` order).
    pub pinned_now: [AtomicI64; 11],
    /// Times a session became pinned, by reason.
    pub pinned_total: [AtomicU64; 11],
}

/// One account as the backend has it.
#[derive(Debug, Clone)]
pub struct LearnedAccount {
    pub user: String,
    pub host: String,
    /// SHA1(SHA1(password)); None: empty password.
    pub hash2: Option<[u8; 20]>,
    /// Has SUPER (or all privileges) on the backend: an administrator here.
    pub admin: bool,
}

pub type AccountsCallback = Box<dyn Fn(Vec<LearnedAccount>) + Send + Sync>;

pub struct Upstream {
    pub options: Options,
    pub pools: Vec<pool::Pool>,
    pub counters: Counters,
    monitor: Login,
    /// The monitor's own connection (account reads, KILL QUERY), opened on demand.
    monitor_conn: Mutex<Option<Backend>>,
    accounts_loaded: Mutex<Option<Instant>>,
    /// Held while the accounts are read (`refresh_accounts`).
    refreshing: Mutex<()>,
    /// Databases the backend let each user into since the accounts were
    /// last read: a login naming one needs no round trip.
    pub proofs: proofs::Proofs,
    on_accounts: Mutex<Option<AccountsCallback>>,
    stopping: AtomicBool,
    /// The writer's version as its greeting gives it (MariaDB's starts
    /// `5.5.5-`): Turnstile greets clients with it, since drivers choose
    /// protocol features by it (mysql2 sends JSON parameters as MySQL 8's
    /// JSON type to an 8.0 version, which MariaDB refuses with 1210).
    pub server_version: String,
    /// The backend's global sql_mode (read at start) has NO_BACKSLASH_ESCAPES
    /// or ANSI_QUOTES: sessions that did not set their own are classified
    /// both ways (`classify::classify_for`).
    pub literal_backslashes: bool,
}

/// A sql_mode under which a backslash in a quoted text may be itself.
/// (Asked for every statement of a session that set sql_mode: no allocation.)
pub fn literal_backslashes(sql_mode: &str) -> bool {
    sql_mode.split(',').map(str::trim).any(|m| ["NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "ANSI"].iter().any(|w| m.eq_ignore_ascii_case(w)))
}

/// `HOST[:PORT]` (port 3306 by default), or the path of a Unix socket (it starts with `/`).
fn resolve(s: &str) -> Result<Address, String> {
    let s = s.trim();
    if s.starts_with('/') {
        return Ok(Address::Unix(s.into()));
    }
    let with_port = if s.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) { s.to_string() } else { format!("{}:3306", s) };
    with_port.to_socket_addrs().map_err(|e| format!("upstream server {:?}: {}", s, e))?.next().map(Address::Tcp).ok_or_else(|| format!("upstream server {:?}: no address", s))
}

impl Upstream {
    /// Resolve the servers, log in with the monitor account, check what it
    /// may do, and read the accounts. Every failure says what to fix.
    pub fn start(options: Options) -> Result<Arc<Upstream>, String> {
        if options.servers.trim().is_empty() {
            return Err("--engine upstream needs --upstream-servers HOST:PORT".into());
        }
        let timeout = Duration::from_millis(options.connect_timeout_ms);
        let mut pools = Vec::new();
        for (i, s) in options.servers.split(',').enumerate() {
            let addr = resolve(s)?;
            // The writer's cap counts the monitor's connection too: what the
            // backend sees of Turnstile stays within upstream_max_connections.
            let max = if i == 0 { options.max_connections - 1 } else { options.max_connections };
            pools.push(pool::Pool::new(addr, s.trim().to_string(), i, max, timeout, options.retry_interval_ms));
        }
        if pools.len() > 1 {
            tracing::warn!(servers = %options.servers, "only the first upstream server (the writer) is used; replicas are not read from yet");
        }
        let monitor = Login::with_password(&options.user, &options.password);
        let up = Upstream {
            pools,
            counters: Counters::default(),
            monitor,
            monitor_conn: Mutex::new(None),
            accounts_loaded: Mutex::new(None),
            refreshing: Mutex::new(()),
            proofs: proofs::Proofs::default(),
            on_accounts: Mutex::new(None),
            stopping: AtomicBool::new(false),
            options,
            server_version: String::new(),
            literal_backslashes: false,
        };
        let writer = &up.pools[0];
        let mut conn = writer.connect_unpooled(&up.monitor).map_err(|e| match e {
            BackendError::Io(e) => format!("upstream server {} ({}) is unreachable: {}", writer.name, writer.addr, e),
            BackendError::Err { code, message, .. } => format!("upstream server {}: the monitor account {:?} cannot log in: ERROR {}: {}", writer.name, up.options.user, code, message),
            e => format!("upstream server {}: {}", writer.name, e),
        })?;
        check_monitor_privileges(&mut conn, &up.options.user)?;
        let mode = conn.query_rows("SELECT @@GLOBAL.sql_mode").map_err(|e| format!("upstream server {}: reading sql_mode: {}", writer.name, e))?;
        let mut up = up;
        up.server_version = conn.server_version.clone();
        up.literal_backslashes = mode.1.first().and_then(|r| r.first().cloned().flatten()).is_some_and(|m| literal_backslashes(&m));
        *up.monitor_conn.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn);
        Ok(Arc::new(up))
    }

    pub fn writer(&self) -> &pool::Pool {
        &self.pools[0]
    }

    /// Run `f` on the monitor's connection, reopening it once if it died.
    fn with_monitor<T>(&self, f: impl Fn(&mut Backend) -> Result<T, BackendError>) -> Result<T, BackendError> {
        let mut slot = self.monitor_conn.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_mut() {
            if !c.looks_closed() {
                match f(c) {
                    Err(BackendError::Io(_)) => {}
                    other => return other,
                }
            }
        }
        *slot = None;
        let mut c = self.writer().connect_unpooled(&self.monitor)?;
        let r = f(&mut c);
        *slot = Some(c);
        r
    }

    /// Rows of a statement the monitor runs (SHOW DATABASES for the engine).
    pub fn monitor_rows(&self, sql: &str) -> Result<Vec<Vec<Option<String>>>, BackendError> {
        self.with_monitor(|c| c.query_rows(sql)).map(|(_, rows)| rows)
    }

    /// Read the accounts from the backend.
    pub fn load_accounts(&self) -> Result<Vec<LearnedAccount>, BackendError> {
        let list = self.with_monitor(|c| c.query_rows("SELECT * FROM mysql.user"))?;
        *self.accounts_loaded.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.proofs.forget_all();
        Ok(accounts::from_rows(&list.0, &list.1))
    }

    /// Where new account lists go (the server's account table).
    pub fn set_accounts_callback(&self, f: AccountsCallback) {
        *self.on_accounts.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
    }

    /// Read the accounts again (an unknown user logging in, an account
    /// statement run through Turnstile): true when the list was read after
    /// this call began. Reads are serialized and at least
    /// `MIN_ACCOUNT_READ_GAP` apart; callers that arrive together share one
    /// read, so a flood of unknown users costs the backend ten small
    /// queries a second at most.
    pub fn refresh_accounts(&self) -> bool {
        let asked = Instant::now();
        let _one_at_a_time = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
        let last = *self.accounts_loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = last {
            if t >= asked {
                return true;
            }
            let since = t.elapsed();
            if since < MIN_ACCOUNT_READ_GAP {
                std::thread::sleep(MIN_ACCOUNT_READ_GAP - since);
            }
        }
        match self.load_accounts() {
            Ok(list) => {
                if let Some(f) = &*self.on_accounts.lock().unwrap_or_else(|e| e.into_inner()) {
                    f(list);
                }
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "reading the backend's accounts failed");
                false
            }
        }
    }

    /// KILL QUERY a backend thread (a client's KILL reaching its statement).
    pub fn kill_backend_query(&self, thread_id: u32) {
        let sql = format!("KILL QUERY {}", thread_id);
        if let Err(e) = self.with_monitor(|c| c.query_rows(&sql)) {
            tracing::warn!(thread_id, error = %e, "KILL QUERY on the backend failed");
        }
    }

    /// Start the health check: every `health_interval_ms`, a server found
    /// down is tried again, idle connections the backend closed are
    /// dropped, and every `accounts_refresh_s` the accounts are read again;
    /// every `WAITER_TICK_MS`, queued sessions whose checkout wait passed get
    /// their error.
    pub fn start_health_check(self: &Arc<Self>) {
        let up = Arc::downgrade(self);
        let interval = Duration::from_millis(self.options.health_interval_ms);
        let refresh = Duration::from_secs(self.options.accounts_refresh_s);
        let spawned = std::thread::Builder::new().name("upstream-health".into()).spawn(move || {
            let mut last_refresh = Instant::now();
            let mut last_check = Instant::now();
            loop {
                std::thread::sleep(interval.min(Duration::from_millis(WAITER_TICK_MS)));
                let Some(up) = up.upgrade() else { return };
                if up.stopping.load(Ordering::Relaxed) {
                    return;
                }
                for p in &up.pools {
                    p.expire_waiters();
                }
                if last_check.elapsed() < interval {
                    continue;
                }
                last_check = Instant::now();
                for p in &up.pools {
                    if p.is_down() && p.connect_unpooled(&up.monitor).is_ok() {
                        p.mark_up();
                    }
                    p.prune_idle();
                }
                if last_refresh.elapsed() >= refresh {
                    last_refresh = Instant::now();
                    up.refresh_accounts();
                }
            }
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "could not start the upstream health check");
        }
    }

    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// SHOW STATUS rows (`Upstream_*`).
    pub fn status(&self) -> Vec<(String, String)> {
        let c = &self.counters;
        let w = self.writer();
        let (open, idle) = w.sizes();
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed).to_string();
        let mut rows = vec![
            ("Upstream_connections_created".to_string(), get(&w.counters.created)),
            ("Upstream_connections_closed".to_string(), get(&w.counters.closed)),
            ("Upstream_connections_open".to_string(), open.to_string()),
            ("Upstream_connections_idle".to_string(), idle.to_string()),
            ("Upstream_connections_in_use".to_string(), open.saturating_sub(idle).to_string()),
            ("Upstream_connect_errors".to_string(), get(&w.counters.connect_errors)),
            ("Upstream_change_user".to_string(), get(&w.counters.change_user)),
            ("Upstream_resets".to_string(), get(&w.counters.resets)),
            ("Upstream_waits".to_string(), get(&w.counters.waits)),
            ("Upstream_wait_timeouts".to_string(), get(&w.counters.wait_timeouts)),
            ("Upstream_server_down".to_string(), if w.is_down() { "ON" } else { "OFF" }.to_string()),
            ("Upstream_statements".to_string(), get(&c.statements)),
            ("Upstream_statements_multiplexed".to_string(), get(&c.multiplexed)),
            ("Upstream_sync_sets".to_string(), get(&c.sync_sets)),
            ("Upstream_sync_init_db".to_string(), get(&c.sync_init_db)),
            ("Upstream_retries".to_string(), get(&c.retries)),
            ("Upstream_lost_connections".to_string(), get(&c.lost)),
        ];
        for (i, (_, name)) in classify::pin::NAMES.iter().enumerate() {
            rows.push((format!("Upstream_pinned_{}", name), c.pinned_now[i].load(Ordering::Relaxed).max(0).to_string()));
        }
        for (i, (_, name)) in classify::pin::NAMES.iter().enumerate() {
            rows.push((format!("Upstream_pins_total_{}", name), get(&c.pinned_total[i])));
        }
        rows
    }
}

/// The monitor must read mysql.user (to learn the accounts) and kill other
/// users' queries (a client's KILL QUERY reaching the backend).
fn check_monitor_privileges(conn: &mut Backend, user: &str) -> Result<(), String> {
    if let Err(e) = conn.query_rows("SELECT User FROM mysql.user LIMIT 1") {
        return Err(format!("the monitor account {:?} cannot read mysql.user, which Turnstile reads to learn the accounts: {} (GRANT SELECT ON mysql.user TO it)", user, e));
    }
    let grants = conn.query_rows("SHOW GRANTS").map_err(|e| format!("SHOW GRANTS for the monitor account: {}", e))?;
    let text: String = grants.1.iter().flatten().flatten().map(|g| g.to_ascii_uppercase()).collect::<Vec<_>>().join("\n");
    let can_kill = text.lines().any(|g| g.contains(" ON *.*") && (g.contains("ALL PRIVILEGES") || g.contains("SUPER") || g.contains("CONNECTION ADMIN") || g.contains("CONNECTION_ADMIN")));
    if !can_kill {
        return Err(format!(
            "the monitor account {:?} lacks CONNECTION ADMIN (or SUPER) ON *.*, which Turnstile needs to pass a client's KILL QUERY to the backend (GRANT CONNECTION ADMIN ON *.* TO it)",
            user
        ));
    }
    Ok(())
}
