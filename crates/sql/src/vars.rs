//! System variables: the table of names clients ask for, their scopes and
//! defaults, and the global store.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Bool,
    Str,
    /// A number with a fraction (seconds, as MariaDB's max_statement_time).
    Float,
}

#[derive(Debug, Clone, Copy)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    pub read_only: bool,
}

const fn v(name: &'static str, scope: Scope, kind: Kind, read_only: bool) -> VarDef {
    VarDef { name, scope, kind, read_only }
}

use Kind::*;
use Scope::*;

/// Every variable Turnstile knows, sorted by name (SHOW VARIABLES order).
pub static VARS: &[VarDef] = &[
    v("admin_address", Global, Str, true),
    v("admin_port", Global, Int, true),
    v("auto_increment_increment", Both, Int, false),
    v("auto_increment_offset", Both, Int, false),
    v("autocommit", Both, Bool, false),
    v("back_log", Global, Int, true),
    v("bind_address", Global, Str, true),
    v("character_set_client", Both, Str, false),
    v("character_set_connection", Both, Str, false),
    v("character_set_database", Both, Str, false),
    v("character_set_filesystem", Both, Str, false),
    v("character_set_results", Both, Str, false),
    v("character_set_server", Both, Str, false),
    v("character_set_system", Global, Str, true),
    v("collation_connection", Both, Str, false),
    v("collation_database", Both, Str, false),
    v("collation_server", Both, Str, false),
    v("connect_timeout", Global, Int, false),
    v("cte_max_recursion_depth", Both, Int, false),
    v("datadir", Global, Str, true),
    v("default_authentication_plugin", Global, Str, true),
    v("default_storage_engine", Both, Str, false),
    v("foreign_key_checks", Both, Bool, false),
    v("have_ssl", Global, Str, true),
    v("hostname", Global, Str, true),
    v("init_connect", Global, Str, false),
    v("innodb_lock_wait_timeout", Both, Int, false),
    v("interactive_timeout", Both, Int, false),
    v("license", Global, Str, true),
    v("lower_case_table_names", Global, Int, true),
    v("max_allowed_packet", Both, Int, false),
    v("max_connections", Global, Int, false),
    v("max_execution_time", Both, Int, false),
    v("max_statement_time", Both, Float, false),
    v("net_buffer_length", Both, Int, false),
    v("net_read_timeout", Both, Int, false),
    v("net_write_timeout", Both, Int, false),
    v("performance_schema", Global, Bool, true),
    v("pid_file", Global, Str, true),
    v("port", Global, Int, true),
    v("protocol_version", Global, Int, true),
    v("query_cache_size", Global, Int, false),
    v("query_cache_type", Both, Str, false),
    v("session_track_schema", Both, Bool, false),
    v("session_track_state_change", Both, Bool, false),
    v("session_track_system_variables", Both, Str, false),
    v("session_track_transaction_info", Both, Str, false),
    v("skip_name_resolve", Global, Bool, true),
    v("socket", Global, Str, true),
    v("sql_auto_is_null", Both, Bool, false),
    v("sql_mode", Both, Str, false),
    v("sql_notes", Both, Bool, false),
    v("sql_quote_show_create", Both, Bool, false),
    v("sql_safe_updates", Both, Bool, false),
    v("sql_select_limit", Both, Int, false),
    v("sql_warnings", Both, Bool, false),
    v("storage_engine", Both, Str, false),
    v("system_time_zone", Global, Str, true),
    v("thread_cache_size", Global, Int, false),
    v("thread_handling", Global, Str, true),
    v("thread_stack", Global, Int, true),
    v("time_zone", Both, Str, false),
    v("timestamp", Session, Int, false),
    v("transaction_isolation", Both, Str, false),
    v("transaction_read_only", Both, Bool, false),
    v("tx_isolation", Both, Str, false),
    v("tx_read_only", Both, Bool, false),
    v("unique_checks", Both, Bool, false),
    v("version", Global, Str, true),
    v("version_comment", Global, Str, true),
    v("version_compile_machine", Global, Str, true),
    v("version_compile_os", Global, Str, true),
    v("wait_timeout", Both, Int, false),
];

pub fn lookup(name: &str) -> Option<&'static VarDef> {
    VARS.binary_search_by(|d| d.name.cmp(name)).ok().map(|i| &VARS[i])
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
}

/// A transaction isolation level as MySQL spells it in the variable
/// ("READ COMMITTED" or "read-committed" become "READ-COMMITTED"), or None.
pub fn isolation_level(v: &Value) -> Option<&'static str> {
    let t = v.to_text()?;
    let level = String::from_utf8_lossy(&t).trim().to_ascii_uppercase().replace(' ', "-");
    ["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"].into_iter().find(|l| *l == level)
}

/// READ COMMITTED and READ UNCOMMITTED (which the engine runs as READ COMMITTED).
pub fn is_weak_isolation(level: &str) -> bool {
    level == "READ-COMMITTED" || level == "READ-UNCOMMITTED"
}

impl Globals {
    /// Build with built-in defaults, then `overrides` (from configuration).
    pub fn new(overrides: &[(&str, Value)]) -> Globals {
        let g = Globals::default();
        for (name, value) in defaults().into_iter().chain(overrides.iter().cloned()) {
            if let Some(def) = lookup(name) {
                g.store(def, value);
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

    pub fn get(&self, def: &VarDef) -> Value {
        match self.hot.slot(def.name) {
            Some(slot) => Value::Int(slot.load(Ordering::Relaxed)),
            None => self.other.read().unwrap_or_else(|e| e.into_inner()).get(def.name).cloned().unwrap_or(Value::Null),
        }
    }

    /// SET GLOBAL (privilege already checked by the caller).
    pub fn set(&self, def: &'static VarDef, value: Value) -> Result<(), SqlError> {
        if def.read_only {
            return Err(SqlError::read_only_var(def.name));
        }
        if def.scope == Session {
            return Err(SqlError::new(1228, "HY000", format!("Variable '{}' is a SESSION variable and can't be used with SET GLOBAL", def.name)));
        }
        let value = coerce(def, value)?;
        let value = if def.name == "transaction_isolation" || def.name == "tx_isolation" {
            Value::str(isolation_level(&value).ok_or_else(|| SqlError::wrong_value_for_var(def.name, &String::from_utf8_lossy(&value.to_text().unwrap_or_default())))?)
        } else {
            value
        };
        self.store(def, value);
        Ok(())
    }
}

/// Validate and normalize a value for a variable (ON/OFF for booleans, numbers for ints).
pub fn coerce(def: &VarDef, value: Value) -> Result<Value, SqlError> {
    let text = || value.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_else(|| "NULL".into());
    match def.kind {
        Bool => match &value {
            Value::Int(0) | Value::UInt(0) => Ok(Value::Int(0)),
            Value::Int(1) | Value::UInt(1) => Ok(Value::Int(1)),
            Value::Bytes(b) => match String::from_utf8_lossy(b).to_ascii_uppercase().as_str() {
                "ON" | "TRUE" | "1" => Ok(Value::Int(1)),
                "OFF" | "FALSE" | "0" => Ok(Value::Int(0)),
                _ => Err(SqlError::wrong_value_for_var(def.name, &text())),
            },
            _ => Err(SqlError::wrong_value_for_var(def.name, &text())),
        },
        Int => {
            let n = match &value {
                Value::Int(n) => *n as i128,
                Value::UInt(n) => *n as i128,
                Value::Double(f) => *f as i128,
                _ => return Err(SqlError::wrong_type_for_var(def.name)),
            };
            // MySQL's ranges: out-of-range values are clamped.
            Ok(match int_range(def.name) {
                Some((lo, hi)) => Value::Int(n.clamp(lo as i128, hi as i128) as i64),
                None => Value::Int(n.clamp(i64::MIN as i128, i64::MAX as i128) as i64),
            })
        }
        Float => match value.as_f64() {
            Some(f) if f.is_finite() => Ok(Value::Double(f.clamp(0.0, 31_536_000.0))),
            _ => Err(SqlError::wrong_type_for_var(def.name)),
        },
        Str => match &value {
            Value::Null if def.name == "character_set_results" => Ok(Value::Null),
            Value::Null => Err(SqlError::wrong_value_for_var(def.name, "NULL")),
            _ => Ok(value),
        },
    }
}

/// The range MySQL allows an integer variable, where it matters here.
fn int_range(name: &str) -> Option<(i64, i64)> {
    match name {
        "max_execution_time" | "cte_max_recursion_depth" => Some((0, u32::MAX as i64)),
        // The same ranges as the command line's (turnstile-server's config.rs).
        "connect_timeout" => Some((2, 31_536_000)),
        "wait_timeout" | "interactive_timeout" | "net_read_timeout" | "net_write_timeout" => Some((1, 31_536_000)),
        "max_connections" => Some((1, 100_000)),
        "max_allowed_packet" => Some((1024, 1 << 30)),
        "thread_cache_size" => Some((0, 16_384)),
        "innodb_lock_wait_timeout" => Some((1, 1 << 30)),
        _ => None,
    }
}

fn s(x: &str) -> Value {
    Value::str(x)
}

fn defaults() -> Vec<(&'static str, Value)> {
    vec![
        ("auto_increment_increment", Value::Int(1)),
        ("auto_increment_offset", Value::Int(1)),
        ("autocommit", Value::Int(1)),
        ("back_log", Value::Int(4096)),
        ("character_set_client", s("utf8mb4")),
        ("character_set_connection", s("utf8mb4")),
        ("character_set_database", s("utf8mb4")),
        ("character_set_filesystem", s("binary")),
        ("character_set_results", s("utf8mb4")),
        ("character_set_server", s("utf8mb4")),
        ("character_set_system", s("utf8mb3")),
        ("collation_connection", s("utf8mb4_general_ci")),
        ("collation_database", s("utf8mb4_general_ci")),
        ("collation_server", s("utf8mb4_general_ci")),
        ("connect_timeout", Value::Int(10)),
        ("cte_max_recursion_depth", Value::Int(1000)),
        ("default_authentication_plugin", s("caching_sha2_password")),
        ("default_storage_engine", s("InnoDB")),
        ("foreign_key_checks", Value::Int(1)),
        ("have_ssl", s("DISABLED")),
        ("init_connect", s("")),
        ("innodb_lock_wait_timeout", Value::Int(50)),
        ("interactive_timeout", Value::Int(28800)),
        ("license", s("Apache-2.0")),
        ("lower_case_table_names", Value::Int(0)),
        ("max_allowed_packet", Value::Int(64 << 20)),
        ("max_connections", Value::Int(151)),
        ("max_execution_time", Value::Int(0)),
        ("max_statement_time", Value::Double(0.0)),
        ("net_buffer_length", Value::Int(16384)),
        ("net_read_timeout", Value::Int(30)),
        ("net_write_timeout", Value::Int(60)),
        ("performance_schema", Value::Int(0)),
        ("protocol_version", Value::Int(10)),
        ("query_cache_size", Value::Int(0)),
        ("query_cache_type", s("OFF")),
        ("session_track_schema", Value::Int(0)),
        ("session_track_state_change", Value::Int(0)),
        ("session_track_system_variables", s("")),
        ("session_track_transaction_info", s("OFF")),
        ("skip_name_resolve", Value::Int(1)),
        ("sql_auto_is_null", Value::Int(0)),
        ("sql_mode", s("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION")),
        ("sql_notes", Value::Int(1)),
        ("sql_quote_show_create", Value::Int(1)),
        ("sql_safe_updates", Value::Int(0)),
        ("sql_select_limit", Value::UInt(u64::MAX)),
        ("sql_warnings", Value::Int(0)),
        ("storage_engine", s("InnoDB")),
        ("system_time_zone", s("UTC")),
        ("thread_cache_size", Value::Int(128)),
        ("thread_handling", s("pool-of-threads")),
        ("thread_stack", Value::Int(256 << 10)),
        ("time_zone", s("SYSTEM")),
        ("transaction_isolation", s("REPEATABLE-READ")),
        ("transaction_read_only", Value::Int(0)),
        ("tx_isolation", s("REPEATABLE-READ")),
        ("tx_read_only", Value::Int(0)),
        ("unique_checks", Value::Int(1)),
        ("version", s(crate::SERVER_VERSION)),
        ("version_comment", s("Turnstile")),
        ("version_compile_machine", s(std::env::consts::ARCH)),
        ("version_compile_os", s("Linux")),
        ("wait_timeout", Value::Int(28800)),
    ]
}

/// Render a variable's value for SHOW VARIABLES (booleans as ON/OFF).
pub fn show_value(def: &VarDef, v: &Value) -> Value {
    match (def.kind, v) {
        (Bool, Value::Int(0)) => s("OFF"),
        (Bool, Value::Int(_)) => s("ON"),
        (_, Value::Null) => s(""),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in VARS.windows(2) {
            assert!(w[0].name < w[1].name, "{} !< {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn hot_and_cold_globals() {
        let g = Globals::new(&[("max_connections", Value::Int(7)), ("socket", Value::str("/tmp/x"))]);
        assert_eq!(g.get(lookup("max_connections").unwrap()), Value::Int(7));
        assert_eq!(g.get(lookup("socket").unwrap()), Value::str("/tmp/x"));
        assert!(g.set(lookup("version").unwrap(), Value::str("x")).is_err());
        g.set(lookup("max_connections").unwrap(), Value::Int(9)).unwrap();
        assert_eq!(g.hot.max_connections.load(Ordering::Relaxed), 9);
        assert!(coerce(lookup("autocommit").unwrap(), Value::str("off")).unwrap() == Value::Int(0));
        assert!(coerce(lookup("autocommit").unwrap(), Value::str("maybe")).is_err());
    }
}
