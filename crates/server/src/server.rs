//! The shared server state every session sees, and its answers to the SQL
//! front (`ServerOps`): status counters, the process list, KILL, accounts.

use crate::accounts::Accounts;
use crate::config::Config;
use crate::registry::Registry;
use crate::stats::{Stats, Striped};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Instant;
use turnstile_engine::{Engine, SqlError, Value};
use turnstile_sql::vars::Globals;
use turnstile_sql::{privs, AccountStmt, ProcessRow, ServerOps, SessionState};

pub struct Server {
    pub config: Config,
    pub globals: Globals,
    pub engine: Box<dyn Engine>,
    pub accounts: Accounts,
    pub registry: Registry,
    pub stats: Stats,
    pub started: Instant,
    pub shutting_down: AtomicBool,
    /// Idle threads in the thread cache (Threads_cached).
    pub threads_cached: AtomicI64,
    /// Pool-of-threads counters (all zero under thread-per-connection).
    pub pool: crate::pool::PoolCounters,
    /// Client connections the open-file limit allows (`connections_by_fds`):
    /// max_connections, also after SET GLOBAL, never goes above it.
    pub max_connections_by_fds: u64,
    /// default_authentication_plugin as the wire names it, read once here
    /// (every greeting names it).
    default_plugin: &'static str,
    /// The upstream engine's backend side (`--engine upstream`).
    pub upstream: Option<std::sync::Arc<turnstile_upstream::Upstream>>,
    /// TLS for clients (None: `ssl` is OFF, no CLIENT_SSL in the greeting).
    pub tls: Option<std::sync::Arc<crate::tls::Tls>>,
    /// caching_sha2_password's RSA key pair (None: none configured or generated).
    pub rsa: Option<crate::rsa_keys::RsaKeys>,
    /// Failed logins and broken-off connections, per client (guard.rs).
    pub guard: crate::guard::Guard,
    /// Statement digests (None: `performance_schema` is OFF).
    pub digests: Option<crate::digests::Digests>,
    /// The slow and general query logs.
    pub logs: crate::query_log::QueryLogs,
}

impl Server {
    pub fn new(config: Config, engine: Box<dyn Engine>, accounts: Accounts, socket: Option<String>, port: u16, admin_port: u16) -> Server {
        let shards = if config.registry_shards == 0 { 4 * std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2) } else { config.registry_shards };
        // Every start-up setting that is also a variable shows as given; the
        // rest come from the settings table's defaults. Only what binding
        // decided is filled in here.
        let logs = crate::query_log::QueryLogs::new(&config.datadir, turnstile_sql::SERVER_VERSION, port, socket.as_deref().unwrap_or(""));
        // The query logs' files as they will be opened (a relative path is under the data directory).
        let log_file = |kind, given: &Option<String>| Value::str(&logs.path_of(kind, given.as_deref().unwrap_or("")).display().to_string());
        let globals = Globals::new(
            &config.texts(),
            &[
                ("port", Value::Int(port as i64)),
                ("admin_port", Value::Int(admin_port as i64)),
                ("socket", Value::str(socket.as_deref().unwrap_or(""))),
                ("datadir", Value::str(&format!("{}/", config.datadir.display()))),
                ("slow_query_log_file", log_file(crate::query_log::Kind::Slow, &config.slow_query_log_file)),
                ("general_log_file", log_file(crate::query_log::Kind::General, &config.general_log_file)),
            ],
        );
        Server {
            globals,
            engine,
            accounts,
            registry: Registry::new(shards),
            stats: Stats::default(),
            started: Instant::now(),
            shutting_down: AtomicBool::new(false),
            threads_cached: AtomicI64::new(0),
            pool: Default::default(),
            max_connections_by_fds: u64::MAX,
            default_plugin: crate::server_default_plugin(&config),
            upstream: None,
            tls: None,
            rsa: None,
            guard: Default::default(),
            digests: config.performance_schema.then(|| crate::digests::Digests::new(config.performance_schema_digests_size, config.performance_schema_max_digest_length)),
            logs,
            config,
        }
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Its range (1..=100,000) is checked at start-up and by SET GLOBAL.
    pub fn max_connections(&self) -> u64 {
        let n = self.globals.hot.max_connections.load(Ordering::Relaxed);
        debug_assert!((1..=100_000).contains(&n), "max_connections {} passed the range checks", n);
        (n as u64).min(self.max_connections_by_fds)
    }

    /// default_authentication_plugin (one of two names, checked at start-up).
    pub fn default_plugin(&self) -> &'static str {
        self.default_plugin
    }

    /// Its range (1..=100,000) is checked at start-up and by SET GLOBAL.
    pub fn max_handshakes(&self) -> u64 {
        let n = self.globals.hot.max_handshakes.load(Ordering::Relaxed);
        debug_assert!((1..=100_000).contains(&n), "max_handshakes {} passed the range checks", n);
        n as u64
    }

    /// Its range (1 KiB..=1 GiB) is checked at start-up and by SET GLOBAL.
    pub fn max_allowed_packet(&self) -> usize {
        let n = self.globals.hot.max_allowed_packet.load(Ordering::Relaxed);
        debug_assert!((1024..=1 << 30).contains(&n), "max_allowed_packet {} passed the range checks", n);
        n as usize
    }

    /// The guard's settings as they are now (dynamic globals).
    pub fn guard_limits(&self) -> crate::guard::Limits {
        let hot = &self.globals.hot;
        let load = |v: &AtomicI64| v.load(Ordering::Relaxed).max(0) as u64;
        crate::guard::Limits {
            threshold: load(&hot.connection_control_failed_connections_threshold),
            min_delay_ms: load(&hot.connection_control_min_connection_delay),
            max_delay_ms: load(&hot.connection_control_max_connection_delay),
            max_connect_errors: load(&hot.max_connect_errors),
            max_tracked: self.config.connection_control_max_tracked,
        }
    }

    pub fn uptime(&self) -> u64 {
        self.started.elapsed().as_secs()
    }
}

/// A timeout global, in seconds. Its range (at least 1) is checked where it
/// is set: at start-up and by SET GLOBAL, both from the settings table.
pub fn seconds(v: &AtomicI64) -> u64 {
    let s = v.load(Ordering::Relaxed);
    debug_assert!(s >= 1, "a timeout of {} s passed the range checks", s);
    s as u64
}

impl ServerOps for Server {
    fn globals(&self) -> &Globals {
        &self.globals
    }

    fn engine(&self) -> &dyn Engine {
        &*self.engine
    }

    fn privileges(&self, s: &SessionState, db: Option<&str>) -> u32 {
        self.accounts.privileges(&s.account_user, &s.account_host, db)
    }

    fn privilege_generation(&self) -> u64 {
        self.accounts.generation()
    }

    fn table_grants(&self, s: &SessionState) -> Vec<turnstile_engine::TableGrant> {
        self.accounts.table_grants(&s.account_user, &s.account_host)
    }

    fn status(&self, s: &SessionState, global: bool) -> Vec<(&'static str, Value)> {
        let st = &self.stats;
        let i = |v: i64| Value::Int(v.max(0));
        let connected = self.registry.connected.load(Ordering::Relaxed) + self.registry.admin_connected.load(Ordering::Relaxed);
        let mut rows = vec![
            ("Aborted_clients", i(st.aborted_clients.get())),
            ("Aborted_connects", i(st.aborted_connects.get())),
            ("Access_denied_errors", i(self.guard.denied.get())),
            ("Bytes_received", i(st.bytes_received.get())),
            ("Bytes_sent", i(st.bytes_sent.get())),
            ("Com_stmt_execute", i(st.com_stmt_execute.get())),
            ("Com_stmt_prepare", i(st.com_stmt_prepare.get())),
            ("Connection_control_delay_generated", i(self.guard.delays.get())),
            ("Connection_errors_max_connections", i(st.connection_errors_max_connections.get())),
            ("Connections", i(st.accepted.iter().map(Striped::get).sum())),
            ("Handshakes_evicted", i(st.handshakes_evicted.get())),
            ("Handshakes_in_progress", Value::UInt(self.registry.pending(false) + self.registry.pending(true))),
            ("Max_used_connections", Value::UInt(st.max_used_connections.load(Ordering::Relaxed))),
            ("Prepared_stmt_count", Value::UInt(turnstile_sql::prepared_slots::held())),
            ("Questions", i(st.questions.get())),
            ("Slow_queries", i(st.slow_queries.get())),
            ("Threadpool_groups", i(self.pool.groups.load(Ordering::Relaxed))),
            ("Threadpool_idle_threads", i(self.pool.idle_threads.load(Ordering::Relaxed))),
            ("Threadpool_queue_length", i(self.pool.queue_length.load(Ordering::Relaxed))),
            ("Threadpool_stalls", i(self.pool.stalls.load(Ordering::Relaxed))),
            ("Threadpool_threads", i(self.pool.threads.load(Ordering::Relaxed))),
            ("Threadpool_throttles", i(self.pool.throttles.load(Ordering::Relaxed))),
            ("Threads_cached", i(self.threads_cached.load(Ordering::Relaxed))),
            ("Threads_connected", Value::UInt(connected)),
            ("Threads_created", i(st.threads_created.get())),
            ("Threads_running", i(st.threads_running.get())),
            ("Uptime", Value::UInt(self.uptime())),
        ];
        if let Some(rsa) = &self.rsa {
            rows.push(("Caching_sha2_password_rsa_public_key", Value::str(&rsa.public_pem)));
        }
        if let Some(tls) = &self.tls {
            rows.extend(tls.status());
        }
        let (version, cipher) = s.tls.filter(|_| !global).unwrap_or(("", ""));
        rows.extend([("Ssl_cipher", Value::str(cipher)), ("Ssl_version", Value::str(version))]);
        rows.sort_unstable_by_key(|(name, _)| *name);
        rows
    }

    fn processlist(&self) -> Vec<ProcessRow> {
        self.registry
            .snapshot()
            .into_iter()
            .map(|h| {
                let i = h.info.lock().unwrap_or_else(|e| e.into_inner()).clone();
                ProcessRow {
                    id: h.id as u64,
                    user: if i.user.is_empty() { "unauthenticated user".to_string() } else { i.user },
                    host: h.host(),
                    db: i.db,
                    command: i.command,
                    time: i.since.elapsed().as_secs(),
                    state: i.state,
                    info: i.query_active.then_some(i.query),
                }
            })
            .collect()
    }

    fn accounts(&self) -> Vec<turnstile_engine::AccountRow> {
        self.accounts.rows()
    }

    fn kill(&self, by: &SessionState, id: u64, query_only: bool) -> Result<(), SqlError> {
        let h = u32::try_from(id).ok().and_then(|id| self.registry.get(id)).ok_or_else(|| SqlError::unknown_thread(id))?;
        if id != by.connection_id as u64 {
            let owner = h.info.lock().unwrap_or_else(|e| e.into_inner()).user.clone();
            let admin = self.privileges(by, None) & privs::ADMIN != 0;
            if owner != by.user && !admin {
                return Err(SqlError::not_owner_of_thread(id));
            }
        }
        h.killed.store(true, Ordering::SeqCst);
        if let Some(up) = &self.upstream {
            let thread = h.upstream_thread.load(Ordering::Relaxed);
            if thread != 0 {
                up.kill_backend_query(thread);
            }
        }
        if !query_only {
            h.kill_connection.store(true, Ordering::SeqCst);
            if id != by.connection_id as u64 {
                // Wake it if it is blocked reading; a running statement sees `killed`.
                h.shutdown_socket(std::net::Shutdown::Both);
            }
        }
        Ok(())
    }

    fn account(&self, by: &SessionState, stmt: AccountStmt) -> Result<Vec<String>, SqlError> {
        self.accounts.apply(&by.account_user, &by.account_host, stmt)
    }

    fn flush_hosts(&self) {
        self.guard.flush_hosts();
    }

    fn flush_logs(&self) {
        self.logs.reopen();
    }

    fn reset_digests(&self) {
        if let Some(d) = &self.digests {
            d.clear();
        }
    }

    fn connect_attrs(&self) -> Vec<turnstile_engine::AttrsRow> {
        self.registry
            .snapshot()
            .into_iter()
            .filter_map(|h| {
                let i = h.info.lock().unwrap_or_else(|e| e.into_inner());
                let attrs = turnstile_wire::handshake::decode_attributes(&i.attrs);
                (!attrs.is_empty()).then(|| turnstile_engine::AttrsRow { id: h.id as u64, user: i.user.clone(), attrs })
            })
            .collect()
    }

    fn digests(&self) -> Vec<turnstile_engine::DigestRow> {
        self.digests.as_ref().map(|d| d.rows()).unwrap_or_default()
    }

    fn reload_tls(&self) -> Result<(), SqlError> {
        let Some(tls) = &self.tls else { return Err(SqlError::new(3888, "HY000", "Failed to set up SSL because of the following SSL library error: TLS is off (ssl=OFF)")) };
        tls.reload(&self.config).map_err(|e| SqlError::new(3888, "HY000", format!("Failed to set up SSL because of the following SSL library error: {e}")))?;
        tracing::info!("TLS certificate and settings reloaded");
        Ok(())
    }

    fn backup(&self, target: &str, ctx: &turnstile_engine::ExecContext<'_>) -> Result<(String, turnstile_engine::BackupCopied), SqlError> {
        crate::backup::run(self, target, ctx).map(|r| (r.dir.display().to_string(), r.copied))
    }
}
