//! Server settings: one struct, read from a TOML file and from command-line
//! flags with MySQL-familiar names. Each field is a documented limit or choice
//! with a default; `turnstile --help` prints them all.

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Clone, Args, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// TCP port for client connections (0 picks a free port).
    #[arg(long, default_value_t = 3306)]
    pub port: u16,
    /// Address the client TCP listener binds to ("0.0.0.0" for all IPv4 interfaces).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind_address: String,
    /// Unix socket path ("" disables the socket listener); created 0777 so any local user may connect.
    #[arg(long, default_value = "/tmp/turnstile.sock")]
    pub socket: String,
    /// Administrative TCP port: admin accounts only, reachable when max_connections is reached (0 picks a free port).
    #[arg(long, default_value_t = 33062)]
    pub admin_port: u16,
    /// Address the admin listener binds to.
    #[arg(long, default_value = "127.0.0.1")]
    pub admin_address: String,
    /// Connections the admin port accepts at once; past it a newcomer takes the slot of the oldest one not yet logged in.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=100000))]
    pub admin_max_connections: u32,
    /// Data directory: accounts, databases, lock file; kept 0700 (files 0600), tightened at start-up.
    #[arg(long, default_value = "./turnstile-data")]
    pub datadir: PathBuf,
    /// Storage engine: "sqlite" (the embedded SQL engine) or "blackhole" (stores nothing; measures the connection layer).
    #[arg(long, value_enum, default_value_t = EngineKind::Sqlite)]
    pub engine: EngineKind,
    /// sqlite engine: when an acknowledged COMMIT is on disk. "full": the write-ahead log is fsynced
    /// (group commit) before COMMIT returns, like innodb_flush_log_at_trx_commit=1. "periodic": COMMIT
    /// returns once the log is written to the OS (survives a server crash) and a background thread
    /// fsyncs every sqlite_sync_interval_ms (an OS crash or power loss loses at most that window).
    #[arg(long, value_enum, default_value_t = Durability::Full)]
    pub sqlite_durability: Durability,
    /// sqlite engine: milliseconds between background fsyncs in the "periodic" durability mode.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=3600000))]
    pub sqlite_sync_interval_ms: u64,
    /// sqlite engine: idle SQLite connections kept per database for later sessions (a warm pool makes
    /// connect-per-query clients cheap).
    #[arg(long, default_value_t = 256)]
    pub sqlite_pool_size: usize,
    /// sqlite engine: compiled statements cached per connection (keyed by statement text).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1000000).map(|v| v as usize))]
    pub sqlite_statement_cache: usize,
    /// sqlite engine: page cache per SQLite connection, KiB.
    #[arg(long, default_value_t = 2048)]
    pub sqlite_cache_kib: u64,
    /// sqlite engine: bytes of each database file read through a shared memory map.
    #[arg(long, default_value_t = 256 * 1024 * 1024)]
    pub sqlite_mmap_size: u64,
    /// sqlite engine: write-ahead-log pages after which a checkpoint runs.
    #[arg(long, default_value_t = 1000)]
    pub sqlite_wal_autocheckpoint: u32,
    /// sqlite engine: milliseconds without commits after which a database's write-ahead log is copied into its file in the background, so reads skip the log (0: only at sqlite_wal_autocheckpoint and shutdown).
    #[arg(long, default_value_t = 200)]
    pub sqlite_idle_checkpoint_ms: u64,
    /// Default innodb_lock_wait_timeout (seconds a writer waits for the database's write lock; ERR 1205).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1073741824))]
    pub innodb_lock_wait_timeout: u64,
    /// Global transaction_isolation sessions start with: REPEATABLE-READ, READ-COMMITTED, READ-UNCOMMITTED (run as READ-COMMITTED) or SERIALIZABLE (run as REPEATABLE-READ).
    #[arg(long, default_value = "REPEATABLE-READ")]
    pub transaction_isolation: String,
    /// Client connections allowed at once; one more is kept for an administrator. Past it a newcomer
    /// takes the slot of the oldest connection not yet logged in. Lowered to what the open-file limit allows.
    #[arg(long, default_value_t = 151, value_parser = clap::value_parser!(u32).range(1..=100000))]
    pub max_connections: u32,
    /// Listen backlog of each listener (the kernel caps it at net.core.somaxconn).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=65535))]
    pub back_log: u32,
    /// Scheduler: "pool-of-threads" (epoll thread groups; the default) or "one-thread-per-connection" (a thread per connection, with a thread cache).
    #[arg(long, value_enum, default_value_t = ThreadHandling::PoolOfThreads)]
    pub thread_handling: ThreadHandling,
    /// Pool-of-threads: thread groups, each with its own epoll set (0: one per CPU).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=128).map(|v| v as usize))]
    pub thread_pool_size: usize,
    /// Pool-of-threads: workers allowed to run at once per group beyond the first.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(0..=1000).map(|v| v as usize))]
    pub thread_pool_oversubscribe: usize,
    /// Pool-of-threads: cap on worker threads in all groups.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=65536).map(|v| v as usize))]
    pub thread_pool_max_threads: usize,
    /// Pool-of-threads: seconds an idle worker waits before it retires.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub thread_pool_idle_timeout: u64,
    /// Pool-of-threads: milliseconds without progress before a group counts as stalled and gets another worker.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(10..=4294967295))]
    pub thread_pool_stall_limit: u64,
    /// Pool-of-threads: milliseconds before queued normal-priority work is taken ahead of high-priority work.
    #[arg(long, default_value_t = 1000)]
    pub thread_pool_prio_kickup_timer: u64,
    /// Pool-of-threads: nice value of the pool's workers (-20..19). Each worker
    /// serves many connections, so on CPUs shared with client processes it
    /// should not get the same share as one client thread. Raising priority
    /// needs CAP_SYS_NICE (or RLIMIT_NICE); without it the workers keep the
    /// process's priority and the log says so.
    #[arg(long, default_value_t = -10, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-20..=19))]
    pub thread_pool_nice: i32,
    /// Idle threads kept for reuse by later connections.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(0..=16384))]
    pub thread_cache_size: u32,
    /// Seconds a cached thread waits for a connection before it exits.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub thread_idle_timeout: u64,
    /// Stack size of connection threads and pool workers, in bytes (MySQL 8.0's default, 1 MiB). How deep a statement may nest depends on it: deeper ones get ERR 1436
    #[arg(long, default_value_t = 1024 * 1024, value_parser = clap::value_parser!(u64).range(131072..=1073741824).map(|v| v as usize))]
    pub thread_stack: usize,
    /// Seconds from accept to the end of authentication (the whole handshake, not each read).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(2..=31536000))]
    pub connect_timeout: u64,
    /// Seconds an idle non-interactive session may wait between commands.
    #[arg(long, default_value_t = 28800, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub wait_timeout: u64,
    /// Seconds an idle interactive session (CLIENT_INTERACTIVE) may wait.
    #[arg(long, default_value_t = 28800, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub interactive_timeout: u64,
    /// Seconds to wait for the rest of a packet once it has started arriving.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub net_read_timeout: u64,
    /// Seconds a write to a client may block.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=31536000))]
    pub net_write_timeout: u64,
    /// Largest packet (logical payload) accepted from a client, in bytes; also the most long data
    /// (COM_STMT_SEND_LONG_DATA) one prepared statement may hold.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_parser = clap::value_parser!(u64).range(1024..=1073741824))]
    pub max_allowed_packet: u64,
    /// Prepared statements one session may hold.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(0..=4194304))]
    pub max_prepared_stmt_count: u32,
    /// Seconds graceful shutdown waits for sessions to finish their statements.
    #[arg(long, default_value_t = 30)]
    pub shutdown_timeout: u64,
    /// Password for `root`@`%`, used only when the data directory is first initialised.
    #[arg(long, env = "TURNSTILE_ROOT_PASSWORD", hide_env_values = true)]
    pub root_password: Option<String>,
    /// On first start, create `root`@`localhost` with an empty password (socket and loopback only).
    #[arg(long, default_value_t = false)]
    pub allow_empty_root_password: bool,
    /// After a client's COM_QUIT, close its TCP socket with an RST (SO_LINGER 0)
    /// instead of a FIN: the client, which has already closed its end, keeps no
    /// TIME_WAIT socket, and the server skips the FIN/ACK exchange.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub reset_after_quit: bool,
    /// Shards of the connection registry (0: four per CPU).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=4096).map(|v| v as usize))]
    pub registry_shards: usize,
    /// Count statements and connections in SHOW STATUS (off saves a few atomic adds).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub statistics: bool,
    /// Log level: error, warn, info, debug, trace.
    #[arg(long, default_value = "info")]
    pub log_level: String,
}

impl Default for Config {
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            c: Config,
        }
        Wrapper::parse_from(["turnstile"]).c
    }
}

/// How connections are scheduled (`thread_handling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreadHandling {
    /// A thread per connection, from a cache of threads waiting in accept.
    OneThreadPerConnection,
    /// Epoll thread groups: a worker per running statement, not per connection.
    PoolOfThreads,
}

/// The storage engine (`engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    Sqlite,
    Blackhole,
}

/// When the sqlite engine's acknowledged COMMIT is on disk (`sqlite_durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    Full,
    Periodic,
}

/// The name a setting's value has on the command line, in the TOML file and
/// in SHOW VARIABLES.
pub fn value_name(v: impl ValueEnum) -> String {
    v.to_possible_value().map(|p| p.get_name().to_string()).unwrap_or_default()
}

macro_rules! display_as_value_name {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&value_name(*self))
            }
        }
    )*};
}
display_as_value_name!(ThreadHandling, EngineKind, Durability);
