//! System variables: the global store, and SET's check of a value. Which
//! variables exist, their scopes, defaults and ranges come from the one
//! settings table (turnstile-settings' table.rs), which the command line
//! reads too, so SET GLOBAL clamps to exactly the range start-up enforces.
//!
//! Globals that the connection layer reads on every connect or command
//! (max_connections, timeouts, max_allowed_packet) live in atomics, so reading
//! them takes no lock. The rest sit behind a RwLock that only SET GLOBAL writes.
//! A session stores only the variables it has set; everything else reads the
//! global value, so opening a session copies nothing. (Unlike MySQL, a SET GLOBAL
//! is therefore seen by existing sessions that have not set the variable
//! themselves; documented in docs/compatibility.md.)

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::RwLock;
use turnstile_engine::{SqlError, Value};
use turnstile_sqltext::sql_mode::SqlMode;

pub use turnstile_settings::{Kind, Scope, Setting as VarDef};

/// Every system variable, in name order (SHOW VARIABLES): the rows of the
/// settings table that are variables.
pub fn all() -> impl Iterator<Item = &'static VarDef> {
    turnstile_settings::SETTINGS.iter().filter(|d| d.is_variable())
}

pub fn lookup(name: &str) -> Option<&'static VarDef> {
    turnstile_settings::find(name).filter(|d| d.is_variable())
}

/// Hot globals read by the connection layer, in atomics.
#[derive(Debug, Default)]
pub struct HotGlobals {
    pub max_connections: AtomicI64,
    pub connect_timeout: AtomicI64,
    pub wait_timeout: AtomicI64,
    pub interactive_timeout: AtomicI64,
    pub net_read_timeout: AtomicI64,
    pub net_write_timeout: AtomicI64,
    pub max_allowed_packet: AtomicI64,
    pub thread_cache_size: AtomicI64,
    /// Read by every SELECT (its time limit) and recursive CTE.
    pub max_execution_time: AtomicI64,
    pub cte_max_recursion_depth: AtomicI64,
    /// max_statement_time (a Float, seconds) in milliseconds.
    pub max_statement_time_ms: AtomicI64,
    /// Read by every PREPARE and COM_STMT_PREPARE (prepared_slots.rs).
    pub max_prepared_stmt_count: AtomicI64,
    /// long_query_time (a Float, seconds) in microseconds: read as each
    /// statement ends (Slow_queries).
    pub long_query_time_us: AtomicI64,
    /// local_infile (0/1): read by every upstream-engine command (whether
    /// the client may be asked for a file) and every LOAD DATA LOCAL.
    pub local_infile: AtomicI64,
    /// require_secure_transport (0/1): read at every login.
    pub require_secure_transport: AtomicI64,
    /// connection_control_* and max_connect_errors: read by a login when
    /// its failure tables hold anything (guard.rs).
    pub connection_control_failed_connections_threshold: AtomicI64,
    pub connection_control_min_connection_delay: AtomicI64,
    pub connection_control_max_connection_delay: AtomicI64,
    pub max_connect_errors: AtomicI64,
    /// max_handshakes: read by every connect on the client listeners.
    pub max_handshakes: AtomicI64,
    /// slow_query_log and general_log (0/1): read by every statement and command.
    pub slow_query_log: AtomicI64,
    pub general_log: AtomicI64,
}

impl HotGlobals {
    fn slot(&self, name: &str) -> Option<&AtomicI64> {
        Some(match name {
            "max_connections" => &self.max_connections,
            "connect_timeout" => &self.connect_timeout,
            "wait_timeout" => &self.wait_timeout,
            "interactive_timeout" => &self.interactive_timeout,
            "net_read_timeout" => &self.net_read_timeout,
            "net_write_timeout" => &self.net_write_timeout,
            "max_allowed_packet" => &self.max_allowed_packet,
            "thread_cache_size" => &self.thread_cache_size,
            "max_execution_time" => &self.max_execution_time,
            "cte_max_recursion_depth" => &self.cte_max_recursion_depth,
            "max_prepared_stmt_count" => &self.max_prepared_stmt_count,
            "local_infile" => &self.local_infile,
            "require_secure_transport" => &self.require_secure_transport,
            "connection_control_failed_connections_threshold" => &self.connection_control_failed_connections_threshold,
            "connection_control_min_connection_delay" => &self.connection_control_min_connection_delay,
            "connection_control_max_connection_delay" => &self.connection_control_max_connection_delay,
            "max_connect_errors" => &self.max_connect_errors,
            "max_handshakes" => &self.max_handshakes,
            "slow_query_log" => &self.slow_query_log,
            "general_log" => &self.general_log,
            _ => return None,
        })
    }
}

/// Global variable values.
#[derive(Debug, Default)]
pub struct Globals {
    pub hot: HotGlobals,
    other: RwLock<HashMap<&'static str, Value>>,
    /// The global transaction_isolation is READ-COMMITTED or READ-UNCOMMITTED:
    /// a login copies it into the session (read without the lock on the
    /// connect path; the default, REPEATABLE-READ, needs no copy).
    pub weak_isolation: std::sync::atomic::AtomicBool,
    /// The global transaction_read_only is ON: a login copies it into the
    /// session (one load on the connect path).
    pub read_only_default: std::sync::atomic::AtomicBool,
    /// The global sql_mode's bits (`SqlMode`), read by every statement of a
    /// session that did not set its own.
    sql_mode_bits: std::sync::atomic::AtomicU64,
}

/// A transaction isolation level as the variable stores it (coerce has
/// already matched the name without case), or None.
pub fn isolation_level(v: &Value) -> Option<&'static str> {
    let t = v.to_text()?;
    let level = String::from_utf8_lossy(&t);
    turnstile_settings::ISOLATION_LEVELS.iter().copied().find(|l| l.eq_ignore_ascii_case(level.trim()))
}

/// READ COMMITTED and READ UNCOMMITTED (which the engine runs as READ COMMITTED).
pub fn is_weak_isolation(level: &str) -> bool {
    level == "READ-COMMITTED" || level == "READ-UNCOMMITTED"
}

impl Globals {
    /// Every variable at its table default, then `settings` (the start-up
    /// settings as given: name and canonical text), then `computed` (values
    /// only the running server knows, as the port it bound).
    pub fn new(settings: &[(&str, String)], computed: &[(&str, Value)]) -> Globals {
        let g = Globals::default();
        for def in all() {
            g.store(def, default_value(def));
        }
        for (name, text) in settings {
            if let Some(def) = lookup(name) {
                g.store(def, value_of_text(def, text));
            }
        }
        let own = [("version", Value::str(crate::SERVER_VERSION))];
        for (name, value) in own.iter().chain(computed) {
            if let Some(def) = lookup(name) {
                g.store(def, value.clone());
            }
        }
        g
    }

    fn store(&self, def: &'static VarDef, value: Value) {
        if def.name == "transaction_isolation" || def.name == "tx_isolation" {
            // One setting under two names.
            let weak = isolation_level(&value).is_some_and(is_weak_isolation);
            self.weak_isolation.store(weak, Ordering::Relaxed);
            let mut other = self.other.write().unwrap_or_else(|e| e.into_inner());
            other.insert("transaction_isolation", value.clone());
            other.insert("tx_isolation", value);
            return;
        }
        if def.name == "transaction_read_only" || def.name == "tx_read_only" {
            self.read_only_default.store(value.as_i64().unwrap_or(0) != 0, Ordering::Relaxed);
            let mut other = self.other.write().unwrap_or_else(|e| e.into_inner());
            other.insert("transaction_read_only", value.clone());
            other.insert("tx_read_only", value);
            return;
        }
        if def.name == "sql_mode" {
            let text = value.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
            self.sql_mode_bits.store(SqlMode::parse(&text).unwrap_or_default().0, Ordering::Relaxed);
        }
        if def.name == "long_query_time" {
            let us = (value.as_f64().unwrap_or(0.0) * 1_000_000.0).round() as i64;
            self.hot.long_query_time_us.store(us, Ordering::Relaxed);
        }
        if def.name == "max_statement_time" {
            // Read by every statement: its milliseconds in an atomic too.
            let ms = (value.as_f64().unwrap_or(0.0) * 1000.0).round() as i64;
            self.hot.max_statement_time_ms.store(ms, Ordering::Relaxed);
        }
        match self.hot.slot(def.name) {
            Some(slot) => slot.store(value.as_i64().unwrap_or(0), Ordering::Relaxed),
            None => {
                self.other.write().unwrap_or_else(|e| e.into_inner()).insert(def.name, value);
            }
        }
    }

    /// The global sql_mode.
    pub fn sql_mode(&self) -> SqlMode {
        SqlMode(self.sql_mode_bits.load(Ordering::Relaxed))
    }

    pub fn get(&self, def: &VarDef) -> Value {
        match self.hot.slot(def.name) {
            Some(slot) => Value::Int(slot.load(Ordering::Relaxed)),
            None => self.other.read().unwrap_or_else(|e| e.into_inner()).get(def.name).cloned().unwrap_or(Value::Null),
        }
    }

    /// A global's value as text ("" for NULL): for values read rarely, as a
    /// log file's path when an entry is written.
    pub fn text(&self, name: &str) -> String {
        let value = lookup(name).map(|def| self.get(def));
        value.and_then(|v| v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned())).unwrap_or_default()
    }

    /// A value the running server computed after `new` (have_ssl, the
    /// certificate files in use): not a SET, so read-only variables too.
    pub fn set_computed(&self, name: &str, value: Value) {
        if let Some(def) = lookup(name) {
            self.store(def, value);
        }
    }

    /// SET GLOBAL (privilege already checked by the caller).
    pub fn set(&self, def: &'static VarDef, value: Value) -> Result<(), SqlError> {
        if !def.dynamic {
            return Err(SqlError::read_only_var(def.name));
        }
        if def.scope == Scope::Session {
            return Err(SqlError::new(1228, "HY000", format!("Variable '{}' is a SESSION variable and can't be used with SET GLOBAL", def.name)));
        }
        let value = coerce(def, value)?;
        self.store(def, value);
        Ok(())
    }
}

/// May a query log be written at `path` (slow_query_log_file,
/// general_log_file; "" is the default name)? Its directory must exist and
/// the path must not be a directory or a symbolic link; a relative path is
/// under the data directory, and a file in the data directory (however the
/// path reaches it: the directories are resolved) must end in `.log`, so
/// that no log is appended to the accounts, a key or a database; `.cnf` and
/// `.ini` files are refused anywhere, as MariaDB refuses them (a log line
/// must not become a setting).
pub fn log_file_allowed(datadir: &std::path::Path, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    if path.contains('\0') || path.split('/').any(|part| part == "..") {
        return false;
    }
    let full = datadir.join(path);
    let (Some(parent), Some(name)) = (full.parent(), full.file_name()) else { return false };
    let ext = std::path::Path::new(name).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext == "cnf" || ext == "ini" {
        return false;
    }
    let (Ok(parent), Ok(datadir)) = (std::fs::canonicalize(parent), std::fs::canonicalize(datadir)) else { return false };
    if parent.starts_with(&datadir) && ext != "log" {
        return false;
    }
    let resolved = parent.join(name);
    // The file may not exist yet; if it does, it is a plain file, not a link.
    std::fs::symlink_metadata(&resolved).map_or(true, |m| m.file_type().is_file())
}

/// A variable's default from the table, as a value (NULL where it has none).
/// Variables MariaDB 10.11 calls deprecated when SET (Warning 1287), with
/// the one to use instead where there is one.
const DEPRECATED: &[(&str, Option<&str>)] = &[("big_tables", None), ("old_alter_table", Some("alter_algorithm")), ("storage_engine", Some("default_storage_engine"))];

/// MariaDB's Warning 1287 text for SET of a deprecated variable.
pub fn deprecation(name: &str) -> Option<String> {
    let (_, instead) = DEPRECATED.iter().find(|(n, _)| *n == name)?;
    Some(match instead {
        Some(other) => format!("'@@{}' is deprecated and will be removed in a future release. Please use '@@{}' instead", name, other),
        None => format!("'@@{}' is deprecated and will be removed in a future release", name),
    })
}

pub fn default_value(def: &VarDef) -> Value {
    if def.default.is_empty() && !matches!(def.kind, Kind::Str) {
        return Value::Null;
    }
    value_of_text(def, def.default)
}

/// A checked canonical text (a default or a start-up setting) as a value.
fn value_of_text(def: &VarDef, text: &str) -> Value {
    match def.kind {
        Kind::Int { .. } => int_value(text.parse::<i128>().unwrap_or(0)),
        Kind::Bool => Value::Int(turnstile_settings::kind::bool_of(text).unwrap_or(false) as i64),
        Kind::Float { .. } => Value::Double(text.parse().unwrap_or(0.0)),
        Kind::Str | Kind::Choice(_) | Kind::Secret => Value::str(text),
    }
}

/// Int when it fits, else UInt (sql_select_limit's 2^64 - 1).
fn int_value(n: i128) -> Value {
    match i64::try_from(n) {
        Ok(n) => Value::Int(n),
        Err(_) => Value::UInt(n.clamp(0, u64::MAX as i128) as u64),
    }
}

/// Validate and normalize a value for a variable, with the table's kind:
/// ON/OFF for booleans, numbers clamped to the range (as MySQL clamps; the
/// command line refuses them instead), a choice by name or by number.
pub fn coerce(def: &VarDef, value: Value) -> Result<Value, SqlError> {
    let text = || value.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_else(|| "NULL".into());
    match def.kind {
        Kind::Bool => match &value {
            Value::Int(0) | Value::UInt(0) => Ok(Value::Int(0)),
            Value::Int(1) | Value::UInt(1) => Ok(Value::Int(1)),
            Value::Bytes(b) => match String::from_utf8_lossy(b).to_ascii_uppercase().as_str() {
                "ON" | "TRUE" | "1" => Ok(Value::Int(1)),
                "OFF" | "FALSE" | "0" => Ok(Value::Int(0)),
                _ => Err(SqlError::wrong_value_for_var(def.name, &text())),
            },
            _ => Err(SqlError::wrong_value_for_var(def.name, &text())),
        },
        Kind::Int { min, max } => {
            let n = match &value {
                Value::Int(n) => *n as i128,
                Value::UInt(n) => *n as i128,
                Value::Double(f) => *f as i128,
                _ => return Err(SqlError::wrong_type_for_var(def.name)),
            };
            let block = turnstile_settings::block_bytes(def.name);
            Ok(int_value(n.clamp(min, max) / block * block))
        }
        Kind::Float { min, max } => match value.as_f64() {
            Some(f) if f.is_finite() => Ok(Value::Double(f.clamp(min, max))),
            _ => Err(SqlError::wrong_type_for_var(def.name)),
        },
        Kind::Choice(names) => {
            let chosen = match &value {
                // As MariaDB: an enum variable also takes its number.
                Value::Int(i) => usize::try_from(*i).ok().and_then(|i| names.get(i)),
                Value::UInt(i) => usize::try_from(*i).ok().and_then(|i| names.get(i)),
                Value::Bytes(_) => def.kind.check(&text()).ok().and_then(|c| names.iter().find(|n| **n == c)),
                _ => None,
            };
            chosen.map(|n| Value::str(n)).ok_or_else(|| SqlError::wrong_value_for_var(def.name, &text()))
        }
        Kind::Str | Kind::Secret => match &value {
            Value::Null if def.name == "character_set_results" => Ok(Value::Null),
            Value::Null => Err(SqlError::wrong_value_for_var(def.name, "NULL")),
            _ => Ok(value),
        },
    }
}

/// A value for sql_mode as MariaDB reads it: names (`SqlMode::parse`) or a
/// number whose bits are modes; ERR 1231 naming what is no mode (or the
/// number, or NULL), 1232 for any other type.
pub fn sql_mode_of(value: &Value) -> Result<SqlMode, SqlError> {
    let bad = |shown: &str| SqlError::wrong_value_for_var("sql_mode", shown);
    match value {
        Value::Int(n) => u64::try_from(*n).ok().and_then(SqlMode::from_bits).ok_or_else(|| bad(&n.to_string())),
        Value::UInt(n) => SqlMode::from_bits(*n).ok_or_else(|| bad(&n.to_string())),
        Value::Bytes(b) => SqlMode::parse(&String::from_utf8_lossy(b)).map_err(|part| bad(&part)),
        Value::Null => Err(bad("NULL")),
        _ => Err(SqlError::wrong_type_for_var("sql_mode")),
    }
}

/// Render a variable's value for SHOW VARIABLES (booleans as ON/OFF).
pub fn show_value(def: &VarDef, v: &Value) -> Value {
    match (def.kind, v) {
        (Kind::Bool, Value::Int(0)) => Value::str("OFF"),
        (Kind::Bool, Value::Int(_)) => Value::str("ON"),
        (_, Value::Null) => Value::str(""),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_mode_values() {
        assert_eq!(sql_mode_of(&Value::str("strict_all_tables,,")).unwrap().to_string(), "STRICT_ALL_TABLES");
        assert_eq!(sql_mode_of(&Value::Int(1 << 20)).unwrap().to_string(), "NO_BACKSLASH_ESCAPES");
        assert_eq!(sql_mode_of(&Value::Int(-1)).unwrap_err().message, "Variable 'sql_mode' can't be set to the value of '-1'");
        assert_eq!(sql_mode_of(&Value::str("a,b")).unwrap_err().message, "Variable 'sql_mode' can't be set to the value of 'a'");
        assert_eq!(sql_mode_of(&Value::Null).unwrap_err().code, 1231);
        assert_eq!(sql_mode_of(&Value::Double(1.5)).unwrap_err().code, 1232);
        let g = Globals::new(&[], &[]);
        assert_eq!(g.sql_mode(), SqlMode::DEFAULT);
    }

    #[test]
    fn hot_and_cold_globals() {
        let g = Globals::new(&[("max_connections", "7".into()), ("socket", "/tmp/x".into())], &[]);
        assert_eq!(g.get(lookup("max_connections").unwrap()), Value::Int(7));
        assert_eq!(g.get(lookup("socket").unwrap()), Value::str("/tmp/x"));
        assert_eq!(g.get(lookup("wait_timeout").unwrap()), Value::Int(28800));
        assert_eq!(g.get(lookup("sql_select_limit").unwrap()), Value::UInt(u64::MAX));
        assert_eq!(g.get(lookup("version").unwrap()), Value::str(crate::SERVER_VERSION));
        assert!(g.set(lookup("version").unwrap(), Value::str("x")).is_err());
        g.set(lookup("max_connections").unwrap(), Value::Int(9)).unwrap();
        assert_eq!(g.hot.max_connections.load(Ordering::Relaxed), 9);
        assert!(coerce(lookup("autocommit").unwrap(), Value::str("off")).unwrap() == Value::Int(0));
        assert!(coerce(lookup("autocommit").unwrap(), Value::str("maybe")).is_err());
    }

    #[test]
    fn set_global_clamps_to_the_start_up_range() {
        let g = Globals::new(&[], &[]);
        let def = lookup("connect_timeout").unwrap();
        g.set(def, Value::Int(0)).unwrap();
        assert_eq!(g.get(def), Value::Int(2));
        g.set(def, Value::Int(i64::MAX)).unwrap();
        assert_eq!(g.get(def), Value::Int(31_536_000));
    }

    #[test]
    fn choices_take_a_name_in_any_case_or_a_number() {
        let def = lookup("tx_isolation").unwrap();
        assert_eq!(coerce(def, Value::str("read-committed")).unwrap(), Value::str("READ-COMMITTED"));
        assert_eq!(coerce(def, Value::Int(1)).unwrap(), Value::str("READ-COMMITTED"));
        assert!(coerce(def, Value::str("READ COMMITTED")).is_err());
        assert!(coerce(def, Value::Int(4)).is_err());
        assert!(coerce(def, Value::Int(-1)).is_err());
    }

    #[test]
    fn start_up_only_settings_are_not_variables() {
        assert!(lookup("root_password").is_none());
        assert!(lookup("allow_empty_root_password").is_none());
        assert!(lookup("thread_pool_size").is_some_and(|d| !d.dynamic));
    }
}
