//! turnstile-server: the connection layer.
//!
//! A connection's path, file by file: `listener` binds and accepts; a
//! `transport` (TCP, Unix socket) carries its bytes; the `scheduler` chosen
//! at start-up (`pool`: pool-of-threads, or `per_thread`:
//! thread-per-connection with its thread cache) runs an I/O loop around the
//! connection's `driver`, which frames packets, keeps the deadlines and feeds
//! the protocol `session`; the session registers in the sharded `registry`,
//! counts in `stats`, checks `accounts` (their hashes: `credentials`;
//! caching_sha2_password's RSA key pair: `rsa_keys`; failed logins: `guard`).
//! TLS is `tls`. Also: settings (`config`), the data directory (`datadir`),
//! BACKUP DATA's copy of it (`backup`),
//! the panic hook (`panics`). `start` brings a server up; the binary adds
//! the command line and signal handling.

pub mod accounts;
pub mod backup;
pub use turnstile_settings as config;
pub mod conn;
pub mod credentials;
pub mod datadir;
pub mod digests;
pub mod driver;
pub mod guard;
pub mod listener;
pub mod metrics;
pub mod panics;
pub mod per_thread;
pub mod pool;
pub mod query_log;
pub mod registry;
pub mod rsa_keys;
pub mod scheduler;
pub mod server;
pub mod session;
pub mod stats;
pub mod tls;
pub mod transport;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use config::Config;
pub use server::Server;

/// A started server: listening, not yet accepting until `run` is called.
pub struct Running {
    pub server: Arc<Server>,
    listeners: listener::Listeners,
    _lock: std::fs::File,
    pub port: u16,
    pub admin_port: u16,
    pub socket: Option<String>,
    /// The open-file limit (soft, after raising it to the hard limit).
    pub fd_limit: u64,
    /// Client connections that limit allows (`connections_by_fds`).
    pub max_connections_by_fds: u64,
}

/// Triggers graceful shutdown from another thread (signal handler).
#[derive(Clone)]
pub struct ShutdownTrigger {
    server: Arc<Server>,
    waker: listener::Waker,
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        self.server.shutting_down.store(true, Ordering::SeqCst);
        self.waker.wake();
    }
}

/// Raise the soft open-file limit to the hard limit; returns the new limit.
/// default_authentication_plugin as the wire names it (the settings table
/// admits only these two).
pub(crate) fn server_default_plugin(config: &Config) -> &'static str {
    use turnstile_wire::auth;
    debug_assert!([auth::NATIVE, auth::CACHING_SHA2].contains(&config.default_authentication_plugin.as_str()));
    if config.default_authentication_plugin == auth::NATIVE {
        auth::NATIVE
    } else {
        auth::CACHING_SHA2
    }
}

fn raise_fd_limit() -> u64 {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain getrlimit/setrlimit on a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return 1024;
        }
        if r.rlim_cur < r.rlim_max {
            let want = libc::rlimit { rlim_cur: r.rlim_max, rlim_max: r.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                r = want;
            }
        }
    }
    r.rlim_cur
}

/// Descriptors kept for everything but connections: listeners, epoll sets,
/// database files, the reserve for refusing with 1040.
pub const FDS_RESERVED: u64 = 64;

/// Client connections an open-file limit of `fd_limit` allows: one descriptor
/// each, after `FDS_RESERVED`, the admin port's connections and the threads
/// waiting in accept (thread_cache_size plus one per listener: the kernel
/// gives a blocked accept(2) its descriptor before it waits). At least 1.
pub fn connections_by_fds(fd_limit: u64, config: &Config) -> u64 {
    let waiters = config.thread_cache_size as u64 + 3;
    fd_limit.saturating_sub(FDS_RESERVED + config.admin_max_connections as u64 + waiters).max(1)
}

/// max_connections as the open-file limit allows it: a server that announces
/// slots it has no descriptors for leaves clients hanging in the accept queue
/// (MySQL and MariaDB lower it the same way at start-up). Logged once.
fn limit_connections(config: &mut Config, by_fds: u64, fd_limit: u64) {
    if config.max_connections as u64 > by_fds {
        tracing::warn!(requested = config.max_connections, fd_limit, "max_connections lowered to {}: the open-file limit allows about {} connections (raise `ulimit -n` for more)", by_fds, by_fds);
        config.max_connections = by_fds as u32;
    }
}

/// The upstream engine's backend side: its settings checked, the monitor
/// logged in, its privileges checked.
fn start_upstream(config: &Config) -> Result<Arc<turnstile_upstream::Upstream>, String> {
    let options = turnstile_upstream::Options {
        servers: config.upstream_servers.clone().unwrap_or_default(),
        user: config.upstream_user.clone().unwrap_or_default(),
        password: config.upstream_password.clone().unwrap_or_default(),
        max_connections: config.upstream_max_connections,
        connect_timeout_ms: config.upstream_connect_timeout_ms,
        checkout_timeout_ms: config.upstream_checkout_timeout_ms,
        retry_interval_ms: config.upstream_retry_interval_ms,
        health_interval_ms: config.upstream_health_interval_ms,
        accounts_refresh_s: config.upstream_accounts_refresh_s,
        result_buffer_bytes: config.upstream_result_buffer_bytes,
        max_prepared_per_connection: config.upstream_max_prepared_per_connection,
    };
    if options.user.is_empty() {
        return Err("--engine upstream needs --upstream-user (a monitor account on the backend) and --upstream-password".into());
    }
    let up = turnstile_upstream::Upstream::start(options)?;
    let w = up.writer();
    tracing::info!(server = %w.name, addr = %w.addr, max_connections = up.options.max_connections, "upstream engine: backend reachable, monitor account checked");
    Ok(up)
}

/// Open the data directory, accounts, engine and listeners.
pub fn start(mut config: Config) -> Result<Running, String> {
    let lock = datadir::prepare(&config.datadir)?;
    for (name, given) in [("slow_query_log_file", &config.slow_query_log_file), ("general_log_file", &config.general_log_file)] {
        if given.as_deref().is_some_and(|p| !turnstile_sql::vars::log_file_allowed(&config.datadir, p)) {
            return Err(format!("{name}: {:?} cannot be a log file (its directory must exist; in the data directory only a .log file; no .cnf or .ini)", given.as_deref().unwrap_or("")));
        }
    }
    let fd_limit = raise_fd_limit();
    let max_connections_by_fds = connections_by_fds(fd_limit, &config);
    limit_connections(&mut config, max_connections_by_fds, fd_limit);
    listener::take_reserve_fd();
    let upstream = match config.engine {
        config::EngineKind::Upstream => Some(start_upstream(&config)?),
        _ => None,
    };
    let accounts = match &upstream {
        Some(up) => accounts::Accounts::learned(up.load_accounts().map_err(|e| format!("reading the backend's accounts: {}", e))?),
        None => {
            accounts::Accounts::open(&config.datadir, config.root_password.as_deref(), config.allow_empty_root_password, config.caching_sha2_password_digest_rounds, server_default_plugin(&config))
                .map_err(|e| e.to_string())?
        }
    };
    let engine: Box<dyn turnstile_engine::Engine> = match config.engine {
        config::EngineKind::Upstream => Box::new(turnstile_upstream::engine::UpstreamEngine(upstream.clone().expect("started above"))),
        config::EngineKind::Blackhole => Box::new(turnstile_engine::blackhole::Blackhole::open(&config.datadir).map_err(|e| format!("blackhole engine: {}", e))?),
        config::EngineKind::Sqlite => {
            use turnstile_sqlite::{Durability, Options, SqliteEngine};
            let durability = match config.sqlite_durability {
                config::Durability::Full => Durability::Full,
                config::Durability::Periodic => Durability::Periodic,
            };
            let opts = Options {
                durability,
                sync_interval: Duration::from_millis(config.sqlite_sync_interval_ms),
                pool_size: config.sqlite_pool_size,
                statement_cache: config.sqlite_statement_cache,
                cache_kib: config.sqlite_cache_kib,
                mmap_bytes: config.sqlite_mmap_size,
                multi_write_bytes: config.sqlite_multi_write_bytes,
                lock_wait_timeout: config.innodb_lock_wait_timeout,
                wal_autocheckpoint: config.sqlite_wal_autocheckpoint,
                idle_checkpoint: Duration::from_millis(config.sqlite_idle_checkpoint_ms),
                expr_depth: turnstile_sqlite::expr_depth_for_stack(config.thread_stack),
                max_value_bytes: usize::try_from(config.max_allowed_packet).unwrap_or(usize::MAX),
            };
            Box::new(SqliteEngine::open(&config.datadir, opts).map_err(|e| format!("sqlite engine: {}", e))?)
        }
    };
    let tls = tls::Tls::load(&config)?;
    // The upstream engine's accounts are the backend's mysql_native_password ones.
    let rsa = if upstream.is_none() { rsa_keys::RsaKeys::load(&config)? } else { None };
    let listeners = listener::Listeners::bind(&config).map_err(|e| e.to_string())?;
    let (port, admin_port) = (listeners.tcp_port(), listeners.admin_port());
    let socket = listeners.unix.as_ref().map(|(_, p)| p.display().to_string());
    let mut server = Server::new(config, engine, accounts, socket.clone(), port, admin_port);
    server.max_connections_by_fds = max_connections_by_fds;
    server.upstream = upstream.clone();
    let have_ssl = if tls.is_some() { "YES" } else { "DISABLED" };
    for name in ["have_ssl", "have_openssl"] {
        server.globals.set_computed(name, turnstile_engine::Value::str(have_ssl));
    }
    for (name, path) in tls.iter().flat_map(|t| t.variables()) {
        server.globals.set_computed(name, turnstile_engine::Value::str(&path));
    }
    server.tls = tls;
    server.rsa = rsa;
    let server = Arc::new(server);
    if server.config.metrics_port != 0 {
        let addr = metrics::start(&server)?;
        tracing::info!(%addr, "Prometheus metrics at http://{}/metrics", addr);
    }
    if let Some(up) = upstream {
        let weak = Arc::downgrade(&server);
        up.set_accounts_callback(Box::new(move |list| {
            if let Some(s) = weak.upgrade() {
                s.accounts.replace_learned(list);
            }
        }));
        up.start_health_check();
    }
    Ok(Running { server, listeners, _lock: lock, port, admin_port, socket, fd_limit, max_connections_by_fds })
}

impl Running {
    pub fn shutdown_trigger(&self) -> ShutdownTrigger {
        ShutdownTrigger { server: self.server.clone(), waker: self.listeners.waker() }
    }

    /// Accept connections until shutdown is triggered, then shut down gracefully:
    /// stop accepting, let running statements finish, close every session.
    pub fn run(self) {
        let server = self.server.clone();
        let scheduler = scheduler::Scheduler::start(&server, &self.listeners);
        // Accepting threads and pool workers take connections; this thread waits.
        let socket_file = self.listeners.socket_file();
        self.listeners.wait_for_stop(&server.shutting_down);
        scheduler.stop_accepting();
        drop(self.listeners);
        if let Some(path) = socket_file {
            let _ = std::fs::remove_file(path);
        }
        tracing::info!("shutting down: no longer accepting; waiting for sessions");
        let deadline = Instant::now() + Duration::from_secs(server.config.shutdown_timeout);
        // Half-close every session's read side: an idle session wakes and ends,
        // a busy one finishes its statement, sends the result, then ends.
        while !server.registry.is_empty() && Instant::now() < deadline {
            for h in server.registry.snapshot() {
                h.shutdown_socket(std::net::Shutdown::Read);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = server.registry.len();
        if left > 0 {
            tracing::warn!(sessions = left, "shutdown timeout reached; closing remaining sessions");
            for h in server.registry.snapshot() {
                h.killed.store(true, Ordering::SeqCst);
                h.shutdown_socket(std::net::Shutdown::Both);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        scheduler.stop();
        server.engine.shutdown();
        tracing::info!("shutdown complete");
    }
}
