//! The typed view of the start-up settings that the server reads: one field
//! per start-up row of the table (table.rs), named as the row and typed for
//! its use. Defaults, ranges and help live in the table only; a test checks
//! that every field has a start-up row and every start-up row a field.

use crate::kind::bool_of;
use crate::table::{DURABILITY, ENGINES, THREAD_HANDLING};
use std::path::PathBuf;

/// A Rust type a setting's canonical text (already checked against its
/// kind) converts to and from.
pub trait SettingType: Sized {
    /// `None` when the setting was not given and has no default.
    fn from_text(text: Option<&str>) -> Option<Self>;
    fn to_text(&self) -> Option<String>;
}

macro_rules! numeric_setting_types {
    ($($t:ty),*) => {$(
        impl SettingType for $t {
            fn from_text(text: Option<&str>) -> Option<Self> {
                text?.parse().ok()
            }
            fn to_text(&self) -> Option<String> {
                Some(self.to_string())
            }
        }
    )*};
}
numeric_setting_types!(u16, u32, u64, usize, i32, f64);

impl SettingType for bool {
    fn from_text(text: Option<&str>) -> Option<Self> {
        bool_of(text?)
    }
    fn to_text(&self) -> Option<String> {
        Some(if *self { "ON" } else { "OFF" }.to_string())
    }
}

impl SettingType for String {
    fn from_text(text: Option<&str>) -> Option<Self> {
        text.map(str::to_string)
    }
    fn to_text(&self) -> Option<String> {
        Some(self.clone())
    }
}

impl SettingType for PathBuf {
    fn from_text(text: Option<&str>) -> Option<Self> {
        text.map(PathBuf::from)
    }
    fn to_text(&self) -> Option<String> {
        Some(self.display().to_string())
    }
}

/// A setting with no default (root_password): given or not.
impl SettingType for Option<String> {
    fn from_text(text: Option<&str>) -> Option<Self> {
        Some(text.map(str::to_string))
    }
    fn to_text(&self) -> Option<String> {
        self.clone()
    }
}

/// An enum over a Choice setting's names, in the names' order.
macro_rules! choice_enum {
    ($(#[$m:meta])* $name:ident, $names:expr, [$($variant:ident),+]) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name it has on the command line, in the TOML file and in SHOW VARIABLES.
            pub fn name(self) -> &'static str {
                $names[Self::ALL.iter().position(|v| *v == self).expect("every variant is in ALL")]
            }
        }

        impl SettingType for $name {
            fn from_text(text: Option<&str>) -> Option<Self> {
                let text = text?;
                $names.iter().position(|n| n.eq_ignore_ascii_case(text)).map(|i| Self::ALL[i])
            }
            fn to_text(&self) -> Option<String> {
                Some(self.name().to_string())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

choice_enum!(
    /// How connections are scheduled (`thread_handling`): a thread per
    /// connection from a cache, or epoll thread groups with a worker per
    /// running statement.
    ThreadHandling,
    THREAD_HANDLING,
    [OneThreadPerConnection, PoolOfThreads]
);
choice_enum!(
    /// The storage engine (`engine`).
    EngineKind,
    ENGINES,
    [Sqlite, Blackhole, Upstream]
);
choice_enum!(
    /// When the sqlite engine's acknowledged COMMIT is on disk (`sqlite_durability`).
    Durability,
    DURABILITY,
    [Full, Periodic]
);

/// Defines `Config` from a list of fields; each field's name is its row's name.
macro_rules! config {
    ($($field:ident: $ty:ty,)*) => {
        /// The start-up settings, typed (see the table for each one's meaning).
        #[derive(Debug, Clone)]
        pub struct Config {
            $(pub $field: $ty,)*
        }

        impl Config {
            /// The names of the fields (a test checks them against the table).
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Build from checked canonical texts (`text(name)`), failing with
            /// the name of a setting whose text does not fit its field.
            pub fn from_texts<'a>(text: impl Fn(&str) -> Option<&'a str>) -> Result<Config, String> {
                Ok(Config {
                    $($field: SettingType::from_text(text(stringify!($field)))
                        .ok_or_else(|| format!("{}: {:?} does not fit the setting", stringify!($field), text(stringify!($field))))?,)*
                })
            }

            /// Every field as (name, canonical text); a setting that was not
            /// given and has no default is left out.
            pub fn texts(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::with_capacity(Self::FIELDS.len());
                $(if let Some(t) = self.$field.to_text() { out.push((stringify!($field), t)); })*
                out
            }
        }
    };
}

config! {
    port: u16,
    bind_address: String,
    socket: String,
    admin_port: u16,
    admin_address: String,
    admin_max_connections: u32,
    datadir: PathBuf,
    engine: EngineKind,
    sqlite_durability: Durability,
    upstream_servers: Option<String>,
    upstream_user: Option<String>,
    upstream_password: Option<String>,
    upstream_max_connections: usize,
    upstream_connect_timeout_ms: u64,
    upstream_checkout_timeout_ms: u64,
    upstream_retry_interval_ms: u64,
    upstream_health_interval_ms: u64,
    upstream_accounts_refresh_s: u64,
    upstream_result_buffer_bytes: usize,
    upstream_max_prepared_per_connection: usize,
    upstream_max_nesting: u32,
    sqlite_sync_interval_ms: u64,
    sqlite_pool_size: usize,
    sqlite_statement_cache: usize,
    sqlite_cache_kib: u64,
    sqlite_mmap_size: u64,
    sqlite_multi_write_bytes: u64,
    sqlite_wal_autocheckpoint: u32,
    sqlite_idle_checkpoint_ms: u64,
    innodb_lock_wait_timeout: u64,
    transaction_isolation: String,
    max_connections: u32,
    back_log: u32,
    thread_handling: ThreadHandling,
    thread_pool_size: usize,
    thread_pool_oversubscribe: usize,
    thread_pool_max_threads: usize,
    thread_pool_idle_timeout: u64,
    thread_pool_stall_limit: u64,
    thread_pool_prio_kickup_timer: u64,
    thread_pool_nice: i32,
    thread_cache_size: u32,
    thread_idle_timeout: u64,
    thread_stack: usize,
    connect_timeout: u64,
    wait_timeout: u64,
    interactive_timeout: u64,
    net_read_timeout: u64,
    net_write_timeout: u64,
    max_allowed_packet: u64,
    max_cursor_bytes: u64,
    max_prepared_stmt_count: u32,
    max_sp_recursion_depth: u32,
    routine_max_body_bytes: u64,
    routine_max_nesting: u32,
    trigger_max_nesting: u32,
    stored_function_max_nesting: u32,
    trigger_max_rows: u64,
    load_data_max_bytes: u64,
    local_infile: bool,
    connection_control_failed_connections_threshold: u64,
    connection_control_max_connection_delay: u64,
    connection_control_max_tracked: usize,
    connection_control_min_connection_delay: u64,
    max_connect_errors: u64,
    max_handshakes: u32,
    default_authentication_plugin: String,
    caching_sha2_password_auto_generate_rsa_keys: bool,
    caching_sha2_password_digest_rounds: u32,
    caching_sha2_password_private_key_path: String,
    caching_sha2_password_public_key_path: String,
    ssl: bool,
    ssl_ca: Option<String>,
    ssl_cert: Option<String>,
    ssl_cipher: Option<String>,
    ssl_key: Option<String>,
    ssl_session_cache_mode: bool,
    ssl_session_cache_size: usize,
    ssl_session_cache_timeout: u64,
    tls_ciphersuites: Option<String>,
    tls_version: String,
    require_secure_transport: bool,
    secure_file_priv: Option<String>,
    shutdown_timeout: u64,
    root_password: Option<String>,
    allow_empty_root_password: bool,
    reset_after_quit: bool,
    registry_shards: usize,
    statistics: bool,
    log_level: String,
    metrics_port: u16,
    performance_schema: bool,
    performance_schema_digests_size: usize,
    performance_schema_max_digest_length: usize,
    performance_schema_session_connect_attrs_size: usize,
    slow_query_log: bool,
    long_query_time: f64,
    slow_query_log_file: Option<String>,
    general_log: bool,
    general_log_file: Option<String>,
}

impl Default for Config {
    /// Every setting at its table default.
    fn default() -> Config {
        Config::from_texts(|name| crate::find(name).map(|s| s.default).filter(|d| !d.is_empty())).expect("the table's defaults fit Config (tested)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::SETTINGS;

    #[test]
    fn fields_and_startup_rows_match() {
        for f in Config::FIELDS {
            assert!(crate::find(f).is_some_and(|s| s.startup), "field {} has no start-up row", f);
        }
        for s in SETTINGS.iter().filter(|s| s.startup) {
            assert!(Config::FIELDS.contains(&s.name), "start-up row {} has no field", s.name);
        }
    }

    #[test]
    fn defaults_fit_and_round_trip() {
        let c = Config::default();
        assert_eq!(c.max_connections, 151);
        assert_eq!(c.thread_handling, ThreadHandling::PoolOfThreads);
        assert_eq!(c.root_password, None);
        for (name, text) in c.texts() {
            assert_eq!(text, crate::find(name).unwrap().default, "{} does not round-trip", name);
        }
    }

    #[test]
    fn every_int_range_fits_its_field() {
        // A range wider than the field's type would pass the check and then
        // fail to convert: try both ends of every integer range.
        for s in SETTINGS.iter().filter(|s| s.startup) {
            if let crate::Kind::Int { min, max } = s.kind {
                for edge in [min, max] {
                    let edge = edge.to_string();
                    let c = Config::from_texts(|n| if n == s.name { Some(edge.as_str()) } else { crate::find(n).map(|r| r.default).filter(|d| !d.is_empty()) });
                    assert!(c.is_ok(), "{} = {} does not fit its field: {:?}", s.name, edge, c.err());
                }
            }
        }
    }
}
