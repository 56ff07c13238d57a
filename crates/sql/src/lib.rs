//! turnstile-sql: the SQL front between the connection layer and the engine.
//!
//! It answers session statements itself (SET, SELECT of variables and
//! functions without a table, SHOW VARIABLES/STATUS/PROCESSLIST/DATABASES/GRANTS,
//! USE, KILL, account statements, transaction control) and passes everything
//! else to the engine untouched. Classification looks at the first keyword and,
//! where needed, the token stream from the shared lexer (turnstile-sqltext):
//! no full SQL parse on the hot path.
//!
//! It talks to storage only through turnstile-engine's traits and reads SQL
//! text only with turnstile-sqltext; it depends on no engine implementation
//! (the SQLite engine is a crate of its own that only the server opens), so
//! it links no SQLite.
//!
//! Server-wide facts (status counters, the process list, accounts) come from the
//! server through the `ServerOps` trait, so this crate does no I/O and holds no
//! global state of its own.

pub mod account_sql;
pub mod binary_text;
pub mod bind;
pub mod collation_of;
pub mod dialect;
pub mod expr;
pub mod front;
pub mod prepared_db;
pub mod prepared_slots;
pub mod routine;
pub mod vars;

use std::collections::HashMap;
use turnstile_engine::{Engine, SqlError, Value};
pub use turnstile_sqltext::sql_mode::SqlMode;

pub use account_sql::{AccountStmt, UserName};
pub use front::execute;

/// What clients see in the greeting and VERSION(). An 8.0 version makes
/// drivers use their modern code paths; the suffix says what we are.
pub const SERVER_VERSION: &str = "8.0.36-turnstile";

pub use turnstile_engine::privs;

pub use turnstile_engine::ProcessRow;

/// Per-session state the SQL front reads and writes. Owned by the session; no lock.
#[derive(Debug, Default)]
pub struct SessionState {
    pub connection_id: u32,
    /// The name the client logged in with, and its host.
    pub user: String,
    pub host: String,
    /// The account that matched (CURRENT_USER()).
    pub account_user: String,
    pub account_host: String,
    pub db: Option<String>,
    /// Session values of system variables the session has set.
    pub vars: HashMap<&'static str, Value>,
    pub user_vars: HashMap<String, Value>,
    /// User variables a query set to a DECIMAL, with the text they were set
    /// to: `SELECT @v` describes one as DECIMAL while it still holds that
    /// value (a DECIMAL is text in a `Value`, like a string).
    pub decimal_vars: HashMap<String, Value>,
    pub last_insert_id: u64,
    /// ROW_COUNT(): the affected rows of the previous statement, -1 after a
    /// result set or an error (MySQL's rule).
    pub row_count: i64,
    pub autocommit: bool,
    /// CLIENT_INTERACTIVE: wait_timeout comes from interactive_timeout.
    pub interactive: bool,
    /// Cached privileges: (account generation, db, bits).
    pub priv_cache: Option<(u64, Option<String>, u32)>,
    /// Set when KILL CONNECTION targeted this very session.
    pub kill_self: bool,
    /// When the current statement must end (coarse-clock ms; 0: no limit):
    /// its max_execution_time, kept for the rest of a paused result.
    pub deadline_ms: u64,
    pub deadline_kind: turnstile_engine::Interruption,
    /// SQL-text prepared statements: name -> (text, parameter count, its
    /// place in the server's count, the current database at PREPARE: its
    /// names are resolved there whatever the database at EXECUTE).
    pub sql_prepared: HashMap<String, (String, usize, prepared_slots::Slot, Option<String>)>,
    /// The diagnostics area (SHOW WARNINGS): the conditions kept, and how
    /// many were raised (@@warning_count), from front/diagnostics.rs.
    pub diagnostics: Vec<turnstile_engine::Warning>,
    pub diagnostics_count: u64,
    /// Conditions the last statement raised (its OK or EOF packet's count).
    pub statement_warnings: u16,
    /// The sql_mode the session set (None: it reads the global one); kept
    /// as bits so a statement reads it without parsing (`sql_mode`).
    pub sql_mode: Option<SqlMode>,
    /// The collation the client named in its handshake (or its last
    /// COM_CHANGE_USER) and its character set, if MariaDB knows its id:
    /// the session's character_set_client/connection/results and
    /// collation_connection at login and after every reset, as MariaDB's
    /// `thd_init_client_charset` (`apply_login_defaults`).
    pub handshake_collation: Option<(&'static str, &'static str)>,
    /// The stored routines running, outermost first (`db.name`): their
    /// recursion is bounded by max_sp_recursion_depth (routine/interp.rs).
    pub routine_stack: Vec<String>,
    /// Tables (`db.table`, lower case) whose statements are firing
    /// triggers, outermost first: a trigger may not write one (ERR 1442),
    /// and their number is bounded by trigger_max_nesting (routine/fire.rs).
    pub trigger_tables: Vec<String>,
    /// `SET TRANSACTION ...` without a scope: the next transaction's access
    /// mode and isolation level, told to the engine but not to the session's
    /// variables, until a COMMIT or ROLLBACK ends that transaction
    /// (front/transaction.rs puts the session's back).
    pub next_read_only: Option<bool>,
    pub next_isolation: Option<&'static str>,
    /// The access mode of the transaction BEGIN or START TRANSACTION opened
    /// (what COMMIT AND CHAIN opens again); None once it ends.
    pub txn_read_only: Option<bool>,
    /// The connection's TLS protocol version and cipher suite (Ssl_version,
    /// Ssl_cipher), set at login over TLS; None otherwise.
    pub tls: Option<(&'static str, &'static str)>,
}

impl SessionState {
    pub fn new(connection_id: u32) -> SessionState {
        SessionState { connection_id, autocommit: true, row_count: -1, ..Default::default() }
    }

    /// Forget everything the session set (COM_RESET_CONNECTION, COM_CHANGE_USER).
    pub fn reset(&mut self) {
        self.vars.clear();
        self.user_vars.clear();
        self.decimal_vars.clear();
        self.last_insert_id = 0;
        self.row_count = -1;
        self.autocommit = true;
        self.priv_cache = None;
        self.sql_prepared.clear();
        self.diagnostics.clear();
        self.diagnostics_count = 0;
        self.sql_mode = None;
        self.next_read_only = None;
        self.next_isolation = None;
        self.txn_read_only = None;
    }

    /// The sql_mode this session's statements run under.
    pub fn sql_mode(&self, globals: &vars::Globals) -> SqlMode {
        self.sql_mode.unwrap_or_else(|| globals.sql_mode())
    }

    /// A variable's value as this session sees it.
    pub fn var(&self, globals: &vars::Globals, def: &'static vars::VarDef) -> Value {
        match self.vars.get(def.name) {
            Some(v) => v.clone(),
            None => globals.get(def),
        }
    }

    /// The client's character set (character_set_client) when its text
    /// would need converting to UTF-8: anything but utf8mb4, utf8mb3 (utf8)
    /// and binary. Turnstile converts nothing, so such a client may send
    /// only ASCII text (session/mod.rs refuses the rest).
    pub fn unconverted_client_charset(&self, globals: &vars::Globals) -> Option<String> {
        let def = vars::lookup("character_set_client")?;
        let v = self.var(globals, def);
        let cs = String::from_utf8_lossy(&v.to_text()?).to_ascii_lowercase();
        (!matches!(cs.as_str(), "utf8mb4" | "utf8mb3" | "utf8" | "binary")).then_some(cs)
    }

    /// An integer variable (timeouts), falling back to the global.
    pub fn int_var(&self, globals: &vars::Globals, name: &str) -> i64 {
        vars::lookup(name).and_then(|d| self.var(globals, d).as_i64()).unwrap_or(0)
    }

    /// The idle timeout this session gets, in seconds (its wait_timeout).
    /// Read before every wait for a command, so the common case (the session
    /// set no variable) is one length check and one atomic load, no hashing.
    pub fn idle_timeout(&self, globals: &vars::Globals) -> i64 {
        let set = if self.vars.is_empty() { None } else { self.vars.get("wait_timeout") };
        match set {
            Some(v) => v.as_i64().unwrap_or(0),
            None => globals.hot.wait_timeout.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Session defaults applied at login and after a reset: the character sets
    /// of the collation the handshake named, and, as MySQL does, an
    /// interactive client's wait_timeout starts as the global interactive_timeout.
    pub fn apply_login_defaults(&mut self, globals: &vars::Globals) {
        if let Some((collation, charset)) = self.handshake_collation {
            // Only what differs from the globals is stored: a session that set
            // no variable keeps its empty map (`idle_timeout`'s fast path).
            for (name, value) in [("character_set_client", charset), ("character_set_connection", charset), ("character_set_results", charset), ("collation_connection", collation)] {
                let Some(def) = vars::lookup(name) else { continue };
                if globals.get(def).to_text().is_none_or(|g| !g.eq_ignore_ascii_case(value.as_bytes())) {
                    self.vars.insert(def.name, Value::str(value));
                }
            }
        }
        if self.interactive {
            let v = globals.hot.interactive_timeout.load(std::sync::atomic::Ordering::Relaxed);
            self.vars.insert("wait_timeout", Value::Int(v));
        }
    }
}

/// What the SQL front needs from the server.
pub trait ServerOps {
    fn globals(&self) -> &vars::Globals;
    fn engine(&self) -> &dyn Engine;
    /// Privilege bits of the session's account on `db` (None: global only).
    fn privileges(&self, session: &SessionState, db: Option<&str>) -> u32;
    /// Changes whenever accounts or grants change (invalidates cached privileges).
    fn privilege_generation(&self) -> u64;
    /// The table- and column-level grants of the session's account.
    fn table_grants(&self, _session: &SessionState) -> Vec<turnstile_engine::TableGrant> {
        Vec::new()
    }
    /// SHOW STATUS rows, name order.
    fn status(&self, session: &SessionState, global: bool) -> Vec<(&'static str, Value)>;
    fn processlist(&self) -> Vec<ProcessRow>;
    /// Every account, for `mysql.user` (the caller decides who may see them).
    fn accounts(&self) -> Vec<turnstile_engine::AccountRow> {
        Vec::new()
    }
    /// KILL: close the session `id` (or interrupt its statement).
    fn kill(&self, by: &SessionState, id: u64, query_only: bool) -> Result<(), SqlError>;
    /// Apply an account statement. SHOW GRANTS returns its lines.
    fn account(&self, by: &SessionState, stmt: AccountStmt) -> Result<Vec<String>, SqlError>;
    /// FLUSH HOSTS: forget the hosts' broken-off connections (max_connect_errors).
    fn flush_hosts(&self) {}
    /// FLUSH [SLOW | GENERAL] LOGS: the query logs' files are opened again.
    fn flush_logs(&self) {}
    /// TRUNCATE performance_schema.events_statements_summary_by_digest.
    fn reset_digests(&self) {}
    /// The statement digests (performance_schema), added up.
    fn digests(&self) -> Vec<turnstile_engine::DigestRow> {
        Vec::new()
    }
    /// Every session's connection attributes (performance_schema).
    fn connect_attrs(&self) -> Vec<turnstile_engine::AttrsRow> {
        Vec::new()
    }
    /// ALTER INSTANCE RELOAD TLS / FLUSH SSL: read the certificate files
    /// again (privilege already checked).
    fn reload_tls(&self) -> Result<(), SqlError> {
        Err(SqlError::unsupported("TLS (this server has none)"))
    }
    /// BACKUP DATA TO 'target' (privilege already checked): the directory
    /// written and what was copied.
    fn backup(&self, _target: &str, _ctx: &turnstile_engine::ExecContext<'_>) -> Result<(String, turnstile_engine::BackupCopied), SqlError> {
        Err(SqlError::unsupported("BACKUP DATA"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn executable_comments_run_up_to_the_server_version() {
        let version: Vec<u32> = crate::SERVER_VERSION.split('-').next().unwrap().split('.').map(|p| p.parse().unwrap()).collect();
        assert_eq!(version[0] * 10000 + version[1] * 100 + version[2], turnstile_sqltext::scan::VERSION_ID);
    }
}
