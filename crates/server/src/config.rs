//! Server settings: one struct, read from a TOML file and from command-line
//! flags with MySQL-familiar names. Each field is a documented limit or choice
//! with a default; `turnstile --help` prints them all.

use clap::Args;
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
    /// Unix socket path ("" disables the socket listener).
    #[arg(long, default_value = "/tmp/turnstile.sock")]
    pub socket: String,
    /// Administrative TCP port: admin accounts only, reachable when max_connections is reached (0 picks a free port).
    #[arg(long, default_value_t = 33062)]
    pub admin_port: u16,
    /// Address the admin listener binds to.
    #[arg(long, default_value = "127.0.0.1")]
    pub admin_address: String,
    /// Connections the admin port accepts at once.
    #[arg(long, default_value_t = 16)]
    pub admin_max_connections: u32,
    /// Data directory: accounts, databases, lock file.
    #[arg(long, default_value = "./turnstile-data")]
    pub datadir: PathBuf,
    /// Storage engine: "blackhole" (stores nothing; measures the connection layer).
    #[arg(long, default_value = "blackhole")]
    pub engine: String,
    /// Client connections allowed at once; one more is kept for an administrator.
    #[arg(long, default_value_t = 151)]
    pub max_connections: u32,
    /// Listen backlog of each listener (the kernel caps it at net.core.somaxconn).
    #[arg(long, default_value_t = 4096)]
    pub back_log: u32,
    /// Scheduler: "one-thread-per-connection" or "pool-of-threads".
    #[arg(long, default_value = "one-thread-per-connection")]
    pub thread_handling: String,
    /// Pool-of-threads: thread groups, each with its own epoll set (0: one per CPU).
    #[arg(long, default_value_t = 0)]
    pub thread_pool_size: usize,
    /// Pool-of-threads: workers allowed to run at once per group beyond the first.
    #[arg(long, default_value_t = 3)]
    pub thread_pool_oversubscribe: usize,
    /// Pool-of-threads: cap on worker threads in all groups.
    #[arg(long, default_value_t = 1000)]
    pub thread_pool_max_threads: usize,
    /// Pool-of-threads: seconds an idle worker waits before it retires.
    #[arg(long, default_value_t = 60)]
    pub thread_pool_idle_timeout: u64,
    /// Pool-of-threads: milliseconds without progress before a group counts as stalled and gets another worker.
    #[arg(long, default_value_t = 200)]
    pub thread_pool_stall_limit: u64,
    /// Pool-of-threads: milliseconds before queued normal-priority work is taken ahead of high-priority work.
    #[arg(long, default_value_t = 1000)]
    pub thread_pool_prio_kickup_timer: u64,
    /// Idle threads kept for reuse by later connections.
    #[arg(long, default_value_t = 128)]
    pub thread_cache_size: u32,
    /// Seconds a cached thread waits for a connection before it exits.
    #[arg(long, default_value_t = 60)]
    pub thread_idle_timeout: u64,
    /// Stack size of connection threads, in bytes.
    #[arg(long, default_value_t = 256 * 1024)]
    pub thread_stack: usize,
    /// Seconds a client has to complete the handshake.
    #[arg(long, default_value_t = 10)]
    pub connect_timeout: u64,
    /// Seconds an idle non-interactive session may wait between commands.
    #[arg(long, default_value_t = 28800)]
    pub wait_timeout: u64,
    /// Seconds an idle interactive session (CLIENT_INTERACTIVE) may wait.
    #[arg(long, default_value_t = 28800)]
    pub interactive_timeout: u64,
    /// Seconds to wait for the rest of a packet once it has started arriving.
    #[arg(long, default_value_t = 30)]
    pub net_read_timeout: u64,
    /// Seconds a write to a client may block.
    #[arg(long, default_value_t = 60)]
    pub net_write_timeout: u64,
    /// Largest packet (logical payload) accepted from a client, in bytes.
    #[arg(long, default_value_t = 64 * 1024 * 1024)]
    pub max_allowed_packet: u64,
    /// Prepared statements one session may hold.
    #[arg(long, default_value_t = 1024)]
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
    /// Shards of the connection registry (0: four per CPU).
    #[arg(long, default_value_t = 0)]
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
