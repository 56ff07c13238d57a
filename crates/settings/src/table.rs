//! Every setting and system variable Turnstile has, defined once: its name,
//! what values it takes, its default, whether it can be given at start-up
//! (command line and TOML file), whether it is a system variable (SHOW
//! VARIABLES, @@name) and in which scope, whether SET may change it, and its
//! help. The command line, the TOML file, `turnstile --help`, SHOW VARIABLES,
//! SET GLOBAL and docs/configuration.md's reference table all read this table.

use crate::kind::Kind;

/// Where a setting is visible as a system variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    /// A global value that each session may override.
    Both,
    /// A start-up setting only (not in SHOW VARIABLES).
    NoVariable,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    pub name: &'static str,
    pub kind: Kind,
    /// Canonical text; "" for a variable with no value of its own (computed
    /// where it is read, or filled in by the server at start, as `port`).
    pub default: &'static str,
    /// Given on the command line or in the TOML file.
    pub startup: bool,
    pub scope: Scope,
    /// SET may change it while the server runs.
    pub dynamic: bool,
    pub help: &'static str,
}

impl Setting {
    pub fn is_variable(&self) -> bool {
        self.scope != Scope::NoVariable
    }

    /// `--max-connections` for `max_connections`.
    pub fn flag(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// Made changeable by SET.
    const fn dynamic(mut self) -> Setting {
        self.dynamic = true;
        self
    }

    /// Visible to sessions too (each may set its own value).
    const fn per_session(mut self) -> Setting {
        self.scope = Scope::Both;
        self
    }

    /// Not a system variable.
    const fn startup_only(mut self) -> Setting {
        self.scope = Scope::NoVariable;
        self
    }

    /// Read-only, as a variable.
    const fn fixed(mut self) -> Setting {
        self.dynamic = false;
        self
    }
}

/// A start-up setting, shown as a read-only global variable.
const fn setting(name: &'static str, kind: Kind, default: &'static str, help: &'static str) -> Setting {
    Setting { name, kind, default, startup: true, scope: Scope::Global, dynamic: false, help }
}

/// A system variable that cannot be given at start-up, changeable by SET.
const fn variable(name: &'static str, scope: Scope, kind: Kind, default: &'static str, help: &'static str) -> Setting {
    Setting { name, kind, default, startup: false, scope, dynamic: true, help }
}

const fn int(min: i128, max: i128) -> Kind {
    Kind::Int { min, max }
}

const ANY_INT: Kind = int(i64::MIN as i128, i64::MAX as i128);
const SECONDS: Kind = int(1, 31_536_000);
const PORT: Kind = int(0, 65_535);
const U32: Kind = int(0, u32::MAX as i128);
const TEXT: Kind = Kind::Str;
const BOOL: Kind = Kind::Bool;

/// Variables whose value MariaDB rounds down to a multiple of a block, in
/// bytes (SET answers Warning 1292 when it rounds, as MariaDB). Every other
/// integer variable takes any value in its range.
const BLOCK_BYTES: &[(&str, i128)] = &[
    ("binlog_cache_size", 4096),
    ("join_buffer_size", 128),
    ("key_buffer_size", 4096),
    ("max_allowed_packet", 1024),
    ("max_binlog_cache_size", 4096),
    ("max_heap_table_size", 1024),
    ("net_buffer_length", 1024),
    ("query_alloc_block_size", 1024),
    ("query_cache_size", 1024),
    ("query_prealloc_size", 1024),
    ("range_alloc_block_size", 1024),
    ("read_buffer_size", 4096),
    ("tmp_memory_table_size", 16384),
    ("tmp_table_size", 16384),
    ("transaction_alloc_block_size", 1024),
    ("transaction_prealloc_size", 1024),
];

/// The block an integer variable's value is rounded down to (1: none).
pub fn block_bytes(name: &str) -> i128 {
    BLOCK_BYTES.iter().find(|(n, _)| *n == name).map_or(1, |(_, b)| *b)
}

/// default_authentication_plugin's choices.
pub const AUTH_PLUGINS: &[&str] = &["caching_sha2_password", "mysql_native_password"];
/// `thread_handling`'s names, in `ThreadHandling`'s order.
pub const THREAD_HANDLING: &[&str] = &["one-thread-per-connection", "pool-of-threads"];
/// `engine`'s names, in `EngineKind`'s order.
pub const ENGINES: &[&str] = &["sqlite", "blackhole", "upstream"];
/// `sqlite_durability`'s names, in `Durability`'s order.
pub const DURABILITY: &[&str] = &["full", "periodic"];
/// Transaction isolation levels as MySQL spells them.
pub const ISOLATION_LEVELS: &[&str] = &["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"];

/// MariaDB 10.11's optimizer_switch (accepted and reported: the sqlite engine has its own planner).
const OPTIMIZER_SWITCH: &str = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,index_merge_sort_intersection=off,engine_condition_pushdown=off,index_condition_pushdown=on,derived_merge=on,derived_with_keys=on,firstmatch=on,loosescan=on,materialization=on,in_to_exists=on,semijoin=on,partial_match_rowid_merge=on,partial_match_table_scan=on,subquery_cache=on,mrr=off,mrr_cost_based=off,mrr_sort_keys=off,outer_join_with_cache=on,semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on,join_cache_bka=on,optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,exists_to_in=on,orderby_uses_equalities=on,condition_pushdown_for_derived=on,split_materialized=on,condition_pushdown_for_subquery=on,rowid_filter=on,condition_pushdown_from_having=on,not_null_range_scan=off,hash_join_cardinality=off,cset_narrowing=off";
/// `histogram_type`'s names (MariaDB's).
pub const HISTOGRAM_TYPES: &[&str] = &["SINGLE_PREC_HB", "DOUBLE_PREC_HB", "JSON_HB"];
/// `use_stat_tables`'s names (MariaDB's).
pub const USE_STAT_TABLES: &[&str] = &["NEVER", "COMPLEMENTARY", "PREFERABLY", "COMPLEMENTARY_FOR_QUERIES", "PREFERABLY_FOR_QUERIES"];

/// MariaDB 10.11's default sql_mode (turnstile-sqltext's `SqlMode::DEFAULT`).
const SQL_MODE: &str = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

use Scope::*;

/// The table, sorted by name (SHOW VARIABLES order; a test checks it).
pub static SETTINGS: &[Setting] = &[
    setting("admin_address", TEXT, "127.0.0.1", "Address the admin listener binds to."),
    setting("admin_max_connections", int(1, 100_000), "16", "Connections the admin port accepts at once; past it a newcomer takes the slot of the oldest one not yet logged in."),
    setting("admin_port", PORT, "33062", "Administrative TCP port: admin accounts only, reachable when max_connections is reached (0 picks a free port)."),
    setting("allow_empty_root_password", BOOL, "OFF", "On first start, create root@localhost with an empty password (socket and loopback only).").startup_only(),
    variable("auto_increment_increment", Both, ANY_INT, "1", "Step between AUTO_INCREMENT values."),
    variable("auto_increment_offset", Both, ANY_INT, "1", "First AUTO_INCREMENT value."),
    variable("autocommit", Both, BOOL, "ON", "Each statement commits on its own unless a transaction is open."),
    setting("back_log", int(1, 65_535), "4096", "Listen backlog of each listener (the kernel caps it at net.core.somaxconn)."),
    variable("big_tables", Both, BOOL, "OFF", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("bind_address", TEXT, "127.0.0.1", "Address the client TCP listener binds to (\"0.0.0.0\" for all IPv4 interfaces)."),
    variable("bulk_insert_buffer_size", Both, int(0, u64::MAX as i128), "8388608", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("caching_sha2_password_auto_generate_rsa_keys", BOOL, "ON", "Generate caching_sha2_password's RSA key pair (2048 bits, 0600) at start-up when neither key file exists."),
    setting("caching_sha2_password_digest_rounds", int(5_000, 4_095_000), "5000", "SHA-256 crypt rounds of a caching_sha2_password hash written from now on (rounded down to a thousand, as stored: $A$005$...). More rounds cost every full authentication and every guess at a stolen hash that much more CPU."),
    setting("caching_sha2_password_private_key_path", TEXT, "private_key.pem", "caching_sha2_password's RSA private key (PKCS#8 or PKCS#1 PEM), relative to the data directory; a client on plain TCP encrypts its password to the public key for a full authentication."),
    setting("caching_sha2_password_public_key_path", TEXT, "public_key.pem", "caching_sha2_password's RSA public key (PEM), relative to the data directory; sent to a client that asks for it and shown as Caching_sha2_password_rsa_public_key."),
    variable("character_set_client", Both, TEXT, "utf8mb4", "Character set of statements the client sends."),
    variable("character_set_connection", Both, TEXT, "utf8mb4", "Character set of literals."),
    variable("character_set_database", Both, TEXT, "utf8mb4", "Character set of the default database."),
    variable("character_set_filesystem", Both, TEXT, "binary", "Character set of file names."),
    variable("character_set_results", Both, TEXT, "utf8mb4", "Character set of results (NULL: as stored)."),
    variable("character_set_server", Both, TEXT, "utf8mb4", "The server's default character set."),
    variable("character_set_system", Global, TEXT, "utf8mb3", "Character set of identifiers.").fixed(),
    variable("collation_connection", Both, TEXT, "utf8mb4_general_ci", "Collation of literals."),
    variable("collation_database", Both, TEXT, "utf8mb4_general_ci", "Collation of the default database."),
    variable("collation_server", Both, TEXT, "utf8mb4_general_ci", "The server's default collation."),
    variable("completion_type", Both, Kind::Choice(&["NO_CHAIN", "CHAIN", "RELEASE"]), "NO_CHAIN", "Accepted and reported; COMMIT and ROLLBACK always end the transaction alone (NO_CHAIN), whatever its value."),
    setting("connect_timeout", int(2, 31_536_000), "10", "Seconds from accept to the end of authentication (the whole handshake, not each read).").dynamic(),
    setting("connection_control_failed_connections_threshold", int(0, 2_147_483_647), "3", "Failed logins of one user from one host in a row before each further attempt waits (MySQL's connection_control); 0: never.").dynamic(),
    setting("connection_control_max_connection_delay", int(1000, 2_147_483_647), "2147483647", "Longest wait, in ms, of a login past the failed-login threshold.").dynamic(),
    setting("connection_control_max_tracked", int(1, 10_000_000), "100000", "User-and-host pairs (and hosts, for max_connect_errors) remembered with failures; when full, those that delay no one are dropped, and a newcomer waits as one at the threshold.").startup_only(),
    setting("connection_control_min_connection_delay", int(1000, 2_147_483_647), "1000", "Shortest wait, in ms, of a login past the failed-login threshold (the wait grows 1,000 ms per failure; under the pool it ends at the timer's once-a-second scan, up to 1 s later).").dynamic(),
    variable("cte_max_recursion_depth", Both, U32, "1000", "Rows a recursive common table expression may produce in depth."),
    setting("datadir", TEXT, "./turnstile-data", "Data directory: accounts, databases, lock file; kept 0700 (files 0600), tightened at start-up."),
    setting("default_authentication_plugin", Kind::Choice(AUTH_PLUGINS), "caching_sha2_password", "Authentication plugin of new accounts (and of root at the first start), and the one the greeting names, which a client answers first: caching_sha2_password (MySQL 8's) or mysql_native_password (MariaDB's: then MariaDB Connector/C 3.4 and Connector/J 3.4+ trust the server's self-signed certificate through the proof in the login's OK, and logins of caching_sha2_password accounts take one more round trip)."),
    variable("default_storage_engine", Both, TEXT, "InnoDB", "Engine name CREATE TABLE reports."),
    variable("default_week_format", Both, int(0, 7), "0", "Accepted and reported; WEEK() without a mode uses mode 0 whatever its value."),
    variable("disconnect_on_expired_password", Global, BOOL, "OFF", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("div_precision_increment", Both, int(0, 38), "4", "Accepted and reported; results of / keep the digits they have today whatever its value."),
    setting("engine", Kind::Choice(ENGINES), "sqlite", "Storage engine: sqlite (the embedded SQL engine), blackhole (stores nothing; measures the connection layer) or upstream (every statement runs on the MySQL or MariaDB server named by upstream_servers, over few backend connections)."),
    variable("eq_range_index_dive_limit", Both, U32, "200", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("expensive_subquery_limit", Both, int(0, u64::MAX as i128), "100", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("explicit_defaults_for_timestamp", Both, BOOL, "ON", "Accepted and reported; TIMESTAMP columns always behave as with ON (MariaDB 10.11's default)."),
    variable("foreign_key_checks", Both, BOOL, "ON", "Check foreign keys."),
    setting("general_log", BOOL, "OFF", "Write every command each session receives (connect, query, quit) to general_log_file, in MariaDB's format: for debugging, it costs a write per command.").dynamic(),
    setting("general_log_file", TEXT, "", "The general query log's file; a relative path is under the data directory; \"\": <hostname>.log there. Reopened by FLUSH LOGS and SIGHUP (logrotate).").dynamic(),
    variable("group_concat_max_len", Both, int(4, 1_073_741_824), "1048576", "Accepted and reported; GROUP_CONCAT results are bounded by max_allowed_packet only."),
    variable("have_openssl", Global, TEXT, "", "YES when TLS is offered (`ssl`), else DISABLED, as have_ssl.").fixed(),
    variable("have_ssl", Global, TEXT, "", "YES when TLS is offered (`ssl`), else DISABLED.").fixed(),
    variable("histogram_size", Both, int(0, 255), "254", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("histogram_type", Both, Kind::Choice(HISTOGRAM_TYPES), "DOUBLE_PREC_HB", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("hostname", Global, TEXT, "", "The machine's name.").fixed(),
    variable("in_predicate_conversion_threshold", Both, U32, "1000", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("init_connect", Global, TEXT, "", "Statements run at each login (accepted, not run)."),
    setting("innodb_lock_wait_timeout", int(1, 1 << 30), "50", "Seconds a writer waits for the database's write lock (ERR 1205).").dynamic().per_session(),
    setting("interactive_timeout", SECONDS, "28800", "Seconds an idle interactive session (CLIENT_INTERACTIVE) may wait.").dynamic().per_session(),
    variable("join_buffer_size", Both, int(128, u64::MAX as i128), "262144", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("join_buffer_space_limit", Both, int(2048, u64::MAX as i128), "2097152", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("join_cache_level", Both, int(0, 8), "2", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("license", Global, TEXT, "Apache-2.0", "The server's license.").fixed(),
    setting("load_data_max_bytes", int(0, 1 << 40), "67108864", "Largest file LOAD DATA reads, in bytes (a LOCAL file as the client sends it, or a server file); the rest of a larger LOCAL file is read and dropped, and the statement fails with ERR 1105.").dynamic(),
    setting("local_infile", BOOL, "ON", "LOAD DATA LOCAL INFILE is allowed (as MariaDB's default; MySQL 8's is OFF); a client must also ask for it (CLIENT_LOCAL_FILES). Off: ERR 4166.").dynamic(),
    variable("lock_wait_timeout", Both, int(0, 31_536_000), "86400", "Accepted and reported: MariaDB's wait for a metadata lock, which the sqlite engine does not take (its write lock waits innodb_lock_wait_timeout). Prometheus's mysqld_exporter sets it at every connect."),
    variable("log_bin_trust_function_creators", Global, BOOL, "OFF", "Accepted and reported (MariaDB's); Turnstile does not read it. (there is no binary log)."),
    setting("log_level", TEXT, "info", "Log level: error, warn, info, debug, trace (or a tracing filter)."),
    variable("log_output", Global, Kind::Choice(&["FILE"]), "FILE", "Where the slow and general query logs go: files only (MariaDB's TABLE is not offered)."),
    variable("log_queries_not_using_indexes", Both, BOOL, "OFF", "Accepted and reported (MariaDB's); Turnstile does not read it: the slow query log has no index usage to go by."),
    setting("long_query_time", Kind::Float { min: 0.0, max: 31_536_000.0 }, "10", "Seconds past which a statement counts in Slow_queries and is written to the slow query log (when slow_query_log is ON).").dynamic().per_session(),
    variable("lower_case_table_names", Global, int(0, 2), "0", "Table names are case-sensitive (0).").fixed(),
    setting("max_allowed_packet", int(1024, 1 << 30), "67108864", "Largest packet (logical payload) accepted from a client, in bytes; also the most long data one prepared statement may hold.").dynamic().per_session(),
    setting("max_connect_errors", int(1, u32::MAX as i128), "100", "Connections from one host broken off before a login (bad handshake, timeout, failed TLS handshake; not a wrong password) in a row before the host is refused with 1129 until FLUSH HOSTS; loopback and the Unix socket are never blocked.").dynamic(),
    setting("max_connections", int(1, 100_000), "151", "Client connections allowed at once; one more is kept for an administrator. Lowered to what the open-file limit allows.").dynamic(),
    setting("max_cursor_bytes", int(0, 1 << 40), "16777216", "Bytes of rows one session's open cursors (COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY) may hold together; a cursor that would pass it fails with ERR 1114."),
    variable("max_execution_time", Both, U32, "0", "Milliseconds a SELECT may run (0: no limit)."),
    setting("max_handshakes", int(1, 100_000), "10000", "Client connections logging in at once (greeted; TLS handshake and authentication not finished; about 14 KiB each in a TLS handshake); past it a newcomer takes the slot of the oldest one, which is told 1040 and closed (Handshakes_evicted) and counts against its host's max_connect_errors. Bounds the memory slow or silent handshakes hold when max_connections is high; the admin port has admin_max_connections instead.").dynamic(),
    variable("max_heap_table_size", Both, int(16384, u64::MAX as i128), "16777216", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("max_length_for_sort_data", Both, int(4, 8_388_608), "1024", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("max_prepared_stmt_count", int(0, u32::MAX as i128), "16382", "Prepared statements the server holds, all sessions together (SQL PREPARE and COM_STMT_PREPARE; SHOW STATUS's Prepared_stmt_count), as MariaDB's: ERR 1461 past it.").dynamic(),
    variable("max_recursive_iterations", Both, U32, "1000", "Accepted and reported; recursive CTEs are bounded by cte_max_recursion_depth."),
    variable("max_seeks_for_key", Both, int(1, u32::MAX as i128), "4294967295", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("max_session_mem_used", Both, int(8192, u64::MAX as i128), "9223372036854775807", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("max_sort_length", Both, int(64, 8_388_608), "1024", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("max_sp_recursion_depth", int(0, 255), "0", "How many times a stored procedure may call itself, directly or through others (0: not at all; ERR 1456 past it), as MariaDB's.").dynamic().per_session(),
    variable("max_statement_time", Both, Kind::Float { min: 0.0, max: 31_536_000.0 }, "0", "Seconds a statement may run (0: no limit)."),
    setting("metrics_port", PORT, "0", "TCP port of the Prometheus metrics endpoint (GET /metrics, text exposition format) on admin_address; 0: no endpoint."),
    variable("myisam_data_pointer_size", Global, int(2, 7), "6", "Accepted and reported (MariaDB's); Turnstile does not read it. (there is no MyISAM)."),
    variable("myisam_recover_options", Global, TEXT, "BACKUP,QUICK", "MariaDB's default, reported (there is no MyISAM).").fixed(),
    variable("myisam_stats_method", Both, Kind::Choice(&["NULLS_UNEQUAL", "NULLS_EQUAL", "NULLS_IGNORED"]), "NULLS_UNEQUAL", "Accepted and reported (MariaDB's); Turnstile does not read it. (there is no MyISAM)."),
    variable("mysql56_temporal_format", Global, BOOL, "ON", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("net_buffer_length", Both, int(1024, 1_048_576), "16384", "Initial size of a connection's buffers (reported only)."),
    setting("net_read_timeout", SECONDS, "30", "Seconds to wait for the rest of a packet once it has started arriving.").dynamic().per_session(),
    setting("net_write_timeout", SECONDS, "60", "Seconds a write to a client may block.").dynamic().per_session(),
    variable("note_verbosity", Both, TEXT, "basic,explain", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("old_alter_table", Both, Kind::Choice(&["DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT"]), "DEFAULT", "Accepted and reported; ALTER TABLE copies the table when columns change, whatever its value."),
    variable("old_mode", Both, TEXT, "UTF8_IS_UTF8MB3", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("optimizer_adjust_secondary_key_costs", Both, TEXT, "fix_reuse_range_for_ref,fix_card_multiplier", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_join_limit_pref_ratio", Both, U32, "0", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_max_sel_arg_weight", Both, int(0, u64::MAX as i128), "32000", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_prune_level", Both, int(0, 2), "2", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_search_depth", Both, int(0, 62), "62", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_selectivity_sampling_limit", Both, int(10, u32::MAX as i128), "100", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_switch", Both, TEXT, OPTIMIZER_SWITCH, "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("optimizer_trace", Both, TEXT, "enabled=off", "Accepted and reported; there is no optimizer trace."),
    variable("optimizer_use_condition_selectivity", Both, int(1, 5), "4", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("performance_schema", BOOL, "ON", "Keep statement digests (performance_schema.events_statements_summary_by_digest); OFF: none are kept and that table is empty. performance_schema.threads and information_schema.PROCESSLIST are there either way."),
    setting("performance_schema_digests_size", int(1, 1_000_000), "5000", "Digests performance_schema keeps per shard (16 shards, a thread writes to one); past it a new digest is counted in the row whose DIGEST is NULL, as in MySQL."),
    setting("performance_schema_max_digest_length", int(16, 1_048_576), "1024", "Bytes of a statement's normalized text kept as DIGEST_TEXT (and hashed into DIGEST); a longer one is cut and ends in '...'."),
    setting("performance_schema_session_connect_attrs_size", int(0, 65_536), "512", "Bytes of a session's connection attributes kept for performance_schema.session_connect_attrs (whole attributes, the first that fit; 0: none). Kept only while performance_schema is ON."),
    variable("pid_file", Global, TEXT, "", "No pid file is written.").fixed(),
    setting("port", PORT, "3306", "TCP port for client connections (0 picks a free port)."),
    variable("protocol_version", Global, int(10, 10), "10", "Client/server protocol version.").fixed(),
    variable("query_alloc_block_size", Both, int(1024, u32::MAX as i128), "32768", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("query_cache_size", Global, ANY_INT, "0", "There is no query cache."),
    variable("query_cache_type", Both, TEXT, "OFF", "There is no query cache."),
    variable("query_prealloc_size", Both, int(1024, u32::MAX as i128), "32768", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("range_alloc_block_size", Both, int(4096, u32::MAX as i128), "4096", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("read_buffer_size", Both, int(8192, 2_147_483_647), "131072", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("read_rnd_buffer_size", Both, int(1, 2_147_483_647), "262144", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("registry_shards", int(0, 4096), "0", "Shards of the connection registry (0: four per CPU)."),
    setting("require_secure_transport", BOOL, "OFF", "Refuse logins over plain TCP with ERR 3159: only TLS and the Unix socket are allowed.").dynamic(),
    setting("reset_after_quit", BOOL, "ON", "After a client's COM_QUIT, close its TCP socket with an RST (SO_LINGER 0) instead of a FIN: the client keeps no TIME_WAIT socket. Not over TLS, whose clients close with close_notify and fail on a reset."),
    setting("root_password", Kind::Secret, "", "Password for root@%, used only when the data directory is first initialised (also TURNSTILE_ROOT_PASSWORD).").startup_only(),
    setting("routine_max_body_bytes", int(64, 16_777_216), "1048576", "Longest CREATE PROCEDURE / FUNCTION statement, in bytes (ERR 1105 past it).").dynamic(),
    setting("routine_max_nesting", int(1, 10_000), "500", "How deep blocks and control statements (BEGIN, IF, WHILE, ...) may nest in a stored routine (ERR 1436 past it).").dynamic(),
    setting("secure_file_priv", TEXT, "", "The directory LOAD DATA INFILE may read server files from (with FILE privilege: an administrator's ALL ON *.*); \"\" refuses every server file (ERR 1290)."),
    variable("session_track_schema", Both, BOOL, "OFF", "Report changes of the default database in OK packets."),
    variable("session_track_state_change", Both, BOOL, "OFF", "Report session state changes in OK packets."),
    variable("session_track_system_variables", Both, TEXT, "", "Variables whose changes OK packets report."),
    variable("session_track_transaction_info", Both, TEXT, "OFF", "Report transaction state in OK packets."),
    setting("shutdown_timeout", int(0, 31_536_000), "30", "Seconds graceful shutdown waits for sessions to finish their statements."),
    variable("skip_name_resolve", Global, BOOL, "ON", "Client addresses are never resolved to names.").fixed(),
    setting("slow_query_log", BOOL, "OFF", "Write each statement that runs longer than long_query_time to slow_query_log_file, in MariaDB's format (pt-query-digest reads it).").dynamic(),
    setting("slow_query_log_file", TEXT, "", "The slow query log's file; a relative path is under the data directory; \"\": <hostname>-slow.log there. Reopened by FLUSH LOGS and SIGHUP (logrotate).").dynamic(),
    setting("socket", TEXT, "/tmp/turnstile.sock", "Unix socket path (\"\" disables the socket listener); created 0777 so any local user may connect."),
    variable("sort_buffer_size", Both, int(1024, u64::MAX as i128), "2097152", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("sql_auto_is_null", Both, BOOL, "OFF", "WHERE id IS NULL finds the last inserted row."),
    variable("sql_buffer_result", Both, BOOL, "OFF", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("sql_mode", Both, TEXT, SQL_MODE, "SQL modes by MariaDB's names and bits; STRICT_TRANS_TABLES/STRICT_ALL_TABLES, ERROR_FOR_DIVISION_BY_ZERO and NO_BACKSLASH_ESCAPES are acted on."),
    variable("sql_notes", Both, BOOL, "ON", "Note-level warnings are recorded."),
    variable("sql_quote_show_create", Both, BOOL, "ON", "SHOW CREATE quotes identifiers."),
    variable("sql_safe_updates", Both, BOOL, "OFF", "UPDATE and DELETE need a key in WHERE or a LIMIT."),
    variable("sql_select_limit", Both, int(0, u64::MAX as i128), "18446744073709551615", "Most rows a SELECT returns."),
    variable("sql_warnings", Both, BOOL, "OFF", "Single-row INSERTs report warnings."),
    setting("sqlite_cache_kib", int(0, 1 << 30), "2048", "sqlite engine: page cache per SQLite connection, KiB."),
    setting("sqlite_durability", Kind::Choice(DURABILITY), "full", "sqlite engine: when an acknowledged COMMIT is on disk. full: the write-ahead log is fsynced (group commit) before COMMIT returns. periodic: COMMIT returns once the log is written to the OS and a background thread fsyncs every sqlite_sync_interval_ms."),
    setting("sqlite_idle_checkpoint_ms", int(0, 3_600_000), "200", "sqlite engine: milliseconds without commits after which a database's write-ahead log is copied into its file in the background (0: only at sqlite_wal_autocheckpoint and shutdown)."),
    setting("sqlite_mmap_size", int(0, 1 << 40), "268435456", "sqlite engine: bytes of each database file read through a shared memory map."),
    setting("sqlite_multi_write_bytes", int(0, 1 << 40), "67108864", "sqlite engine: bytes of rows a multi-table UPDATE or DELETE keeps between its join and its writes (each target row's rowid and new values); a statement that would keep more fails with ERR 1114."),
    setting("sqlite_pool_size", int(0, 65_536), "256", "sqlite engine: idle SQLite connections kept per database for later sessions."),
    setting("sqlite_statement_cache", int(1, 1_000_000), "256", "sqlite engine: compiled statements cached per connection (keyed by statement text)."),
    setting("sqlite_sync_interval_ms", int(1, 3_600_000), "1000", "sqlite engine: milliseconds between background fsyncs in the periodic durability mode."),
    setting("sqlite_wal_autocheckpoint", U32, "1000", "sqlite engine: write-ahead-log pages after which a checkpoint runs (0: never)."),
    setting("ssl", BOOL, "ON", "Offer TLS (CLIENT_SSL) on TCP and the Unix socket: a client's SSLRequest starts a TLS 1.2/1.3 handshake (rustls). OFF: no TLS, and a client that asks gets ERR 1043.").startup_only(),
    setting("ssl_ca", TEXT, "", "PEM file of the CA that signed ssl_cert (shown to clients only as a variable); \"\": the data directory's ca.pem when the certificate there was generated."),
    setting("ssl_cert", TEXT, "", "PEM file of the server's certificate chain; \"\": the data directory's server-cert.pem, generated at first start (a CA and an ECDSA P-256 certificate for localhost, 127.0.0.1, ::1 and the host name). Reloaded by ALTER INSTANCE RELOAD TLS."),
    setting("ssl_cipher", TEXT, "", "TLS 1.2 cipher suites allowed, by their OpenSSL names separated by ':' (ECDHE-ECDSA-AES128-GCM-SHA256, ECDHE-RSA-CHACHA20-POLY1305, ...); \"\": every suite rustls has (all ECDHE with AEAD)."),
    setting("ssl_key", TEXT, "", "PEM file of ssl_cert's private key; \"\": the data directory's server-key.pem."),
    setting("ssl_session_cache_mode", BOOL, "ON", "TLS session resumption: stateless tickets (TLS 1.2 and 1.3, their key rotated every ssl_session_cache_timeout) and a server session cache of ssl_session_cache_size sessions. OFF: every connection makes a full handshake."),
    setting("ssl_session_cache_size", int(0, 1_000_000), "4096", "Sessions the server-side TLS session cache holds (for clients that resume by session id)."),
    setting("ssl_session_cache_timeout", int(1, 86_400), "300", "Seconds a resumed TLS session stays valid (a ticket's lifetime)."),
    variable("standard_compliant_cte", Both, BOOL, "ON", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("statistics", BOOL, "ON", "Count statements and connections in SHOW STATUS (OFF saves a few atomic adds)."),
    variable("storage_engine", Both, TEXT, "InnoDB", "Alias of default_storage_engine."),
    setting("stored_function_max_nesting", int(1, 1_000), "64", "How deep stored function calls may nest in one statement (calls in arguments, in function bodies, inlined bodies; ERR 1436 past it).").dynamic(),
    variable("system_time_zone", Global, TEXT, "UTC", "The system's time zone.").fixed(),
    variable("table_definition_cache", Global, int(400, 2_097_152), "400", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("table_open_cache", Global, int(10, 1_048_576), "2000", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    setting("thread_cache_size", int(0, 16_384), "128", "Idle threads kept for reuse by later connections.").dynamic(),
    setting("thread_handling", Kind::Choice(THREAD_HANDLING), "pool-of-threads", "Scheduler: pool-of-threads (epoll thread groups) or one-thread-per-connection (a thread per connection, with a thread cache)."),
    setting("thread_idle_timeout", SECONDS, "60", "Seconds a cached thread waits for a connection before it exits."),
    setting("thread_pool_idle_timeout", SECONDS, "60", "Pool-of-threads: seconds an idle worker waits before it retires."),
    setting("thread_pool_max_threads", int(1, 65_536), "1000", "Pool-of-threads: cap on worker threads in all groups."),
    setting("thread_pool_nice", int(-20, 19), "-10", "Pool-of-threads: nice value of the pool's workers. Raising priority needs CAP_SYS_NICE; without it the workers keep the process's priority and the log says so."),
    setting("thread_pool_oversubscribe", int(0, 1000), "3", "Pool-of-threads: workers allowed to run at once per group beyond the first."),
    setting("thread_pool_prio_kickup_timer", U32, "1000", "Pool-of-threads: milliseconds before queued normal-priority work is taken ahead of high-priority work."),
    setting("thread_pool_size", int(0, 128), "0", "Pool-of-threads: thread groups, each with its own epoll set (0: one per CPU)."),
    setting("thread_pool_stall_limit", int(10, u32::MAX as i128), "200", "Pool-of-threads: milliseconds without progress before a group counts as stalled and gets another worker."),
    setting("thread_stack", int(131_072, 1 << 30), "1048576", "Stack size of connection threads and pool workers, in bytes. How deep a statement may nest depends on it: deeper ones get ERR 1436."),
    variable("time_zone", Both, TEXT, "SYSTEM", "The session's time zone."),
    variable("timestamp", Session, Kind::Float { min: -9.0e18, max: 9.0e18 }, "", "The session's clock in seconds since the epoch, with a fraction; NOW(), UNIX_TIMESTAMP() and DEFAULT CURRENT_TIMESTAMP read it (0, DEFAULT or out of TIMESTAMP's range: the system clock)."),
    setting("tls_ciphersuites", TEXT, "", "TLS 1.3 cipher suites allowed, by their names separated by ':' (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256); \"\": all three."),
    setting("tls_version", TEXT, "TLSv1.2,TLSv1.3", "TLS protocol versions offered, separated by ','; TLSv1.2 and TLSv1.3 only (older versions are refused at start-up)."),
    variable("tmp_memory_table_size", Both, int(0, u64::MAX as i128), "16777216", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("tmp_table_size", Both, int(0, u64::MAX as i128), "16777216", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    setting("transaction_isolation", Kind::Choice(ISOLATION_LEVELS), "REPEATABLE-READ", "Isolation level sessions start with: READ-UNCOMMITTED (run as READ-COMMITTED), READ-COMMITTED, REPEATABLE-READ or SERIALIZABLE (run as REPEATABLE-READ).").dynamic().per_session(),
    variable("transaction_read_only", Both, BOOL, "OFF", "Transactions start read-only."),
    setting("trigger_max_nesting", int(1, 1_000), "32", "How many statements firing triggers may nest (a trigger's statement firing another table's triggers, ...; ERR 1436 past it).").dynamic(),
    setting("trigger_max_rows", int(1, 100_000_000), "1000000", "Rows a statement on a table with triggers may read before writing them one by one (ERR 1114 past it).").dynamic(),
    variable("tx_isolation", Both, Kind::Choice(ISOLATION_LEVELS), "REPEATABLE-READ", "Alias of transaction_isolation."),
    variable("tx_read_only", Both, BOOL, "OFF", "Alias of transaction_read_only."),
    variable("unique_checks", Both, BOOL, "ON", "Check unique keys."),
    variable("updatable_views_with_limit", Both, Kind::Choice(&["NO", "YES"]), "YES", "Accepted and reported; UPDATE and DELETE through a view with LIMIT behave as with YES."),
    setting("upstream_accounts_refresh_s", int(1, 86_400), "10", "upstream engine: seconds between reads of the backend's accounts (mysql.user); an unknown user logging in, or an account statement run through Turnstile, reads them at once (at most once a second)."),
    setting("upstream_checkout_timeout_ms", int(1, 3_600_000), "10000", "upstream engine: milliseconds a statement waits for a free backend connection when all upstream_max_connections are in use (then ERR 1040)."),
    setting("upstream_connect_timeout_ms", int(1, 3_600_000), "2000", "upstream engine: milliseconds to connect to and log in to a backend server."),
    setting("upstream_health_interval_ms", int(10, 3_600_000), "1000", "upstream engine: milliseconds between health checks (a server found down is tried again; idle connections the backend closed are dropped)."),
    setting("upstream_max_connections", int(2, 100_000), "32", "upstream engine: backend connections per backend server, all client sessions together and, on the writer, the monitor's one (so sessions share 31 by default)."),
    setting("upstream_max_nesting", int(1, 100_000), "1000", "upstream engine: how deep parentheses may nest in a statement; deeper ones are refused with ERR 1436 before they reach the backend (MariaDB 10.11 crashes on some statements nested a few thousand deep, e.g. window functions in window functions)."),
    setting("upstream_max_prepared_per_connection", int(1, 1_000_000), "256", "upstream engine: prepared statements kept on each backend connection (client statements are prepared there when first run on it; past the cap one is closed)."),
    setting("upstream_password", Kind::Secret, "", "upstream engine: password of the monitor account (also TURNSTILE_UPSTREAM_PASSWORD).").startup_only(),
    setting("upstream_result_buffer_bytes", int(1024, 1 << 30), "4194304", "upstream engine: bytes of a result kept for a slow client so its backend connection is free at once; a larger result streams and keeps the connection until the client has read it."),
    setting("upstream_retry_interval_ms", int(1, 3_600_000), "1000", "upstream engine: after a backend server refused a connection, milliseconds during which statements needing a new connection fail at once (ERR 2003) instead of waiting."),
    setting("upstream_servers", TEXT, "", "upstream engine: HOST:PORT[,HOST:PORT...] of the backend servers (a path starting with / is a Unix socket on this host); the first is the writer (the only one used for now)."),
    setting("upstream_user", TEXT, "", "upstream engine: the monitor account Turnstile reads mysql.user with and passes KILL QUERY through (needs SELECT on mysql.user and CONNECTION ADMIN or SUPER)."),
    variable("use_stat_tables", Both, Kind::Choice(USE_STAT_TABLES), "PREFERABLY_FOR_QUERIES", "Accepted and reported; the sqlite engine plans and sizes its work itself and does not read it."),
    variable("userstat", Global, BOOL, "OFF", "Accepted and reported (MariaDB's); Turnstile does not read it."),
    variable("version", Global, TEXT, "", "The server's version.").fixed(),
    variable("version_comment", Global, TEXT, "Turnstile", "The server's name.").fixed(),
    variable("version_compile_machine", Global, TEXT, std::env::consts::ARCH, "The CPU the server was built for.").fixed(),
    variable("version_compile_os", Global, TEXT, "Linux", "The system the server was built for.").fixed(),
    setting("wait_timeout", SECONDS, "28800", "Seconds an idle non-interactive session may wait between commands.").dynamic().per_session(),
];

/// The row named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Setting> {
    SETTINGS.binary_search_by(|s| s.name.cmp(name)).ok().map(|i| &SETTINGS[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_unique() {
        for w in SETTINGS.windows(2) {
            assert!(w[0].name < w[1].name, "{} !< {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn every_default_passes_its_own_check() {
        for s in SETTINGS {
            if s.default.is_empty() {
                assert!(!s.startup || matches!(s.kind, Kind::Str | Kind::Secret), "{} has no default", s.name);
                continue;
            }
            assert_eq!(s.kind.check(s.default).as_deref(), Ok(s.default), "{}'s default is not canonical", s.name);
        }
    }

    #[test]
    fn secrets_are_never_variables() {
        for s in SETTINGS.iter().filter(|s| s.kind == Kind::Secret) {
            assert!(!s.is_variable(), "{} would show in SHOW VARIABLES", s.name);
        }
    }
}
