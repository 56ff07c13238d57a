//! turnstile-engine: the storage boundary.
//!
//! The connection layer and the SQL front talk to storage only through the
//! `Engine` and `EngineSession` traits defined here, so the same server runs on
//! the embedded SQL engine, the blackhole engine (measures the connection layer
//! alone) and, later, a pass-through to a real MySQL server. The trait is shaped
//! for all three:
//! - results stream through a `RowSink`, so an engine never materializes a large
//!   result and a pass-through can forward rows as they arrive;
//! - blocking waits (lock waits, fsync, upstream I/O) are announced through
//!   `WaitHook`, so the pool-of-threads scheduler can replace a blocked worker;
//! - transactions and the current database are per session.
//!
//! Also here: `SqlError` (MySQL error code + SQLSTATE + message), privileges
//! (`access`), the on-disk database catalog, the blackhole engine, the coarse
//! clock, the stack guard, the string-type rules of expressions (`strtype`)
//! and the server-wide result size limit (`limits`). The SQLite engine is its
//! own crate (turnstile-sqlite) that implements these traits, so nothing that
//! only needs the boundary (the SQL front) links SQLite; SQL text handling
//! (lexer, LIKE, dates) is turnstile-sqltext, below both.

pub mod access;
pub mod blackhole;
pub mod catalog;
pub mod clock;
pub mod error;
pub mod limits;
pub mod routine;
pub mod stack;
pub mod strtype;
pub mod warnings;

pub use access::{privs, Access, AccountRow, AttrsRow, DigestRow, ProcessRow, TableGrant, Unrestricted};
pub use error::SqlError;
pub use routine::{RoutineKind, RoutineRow};
pub use turnstile_sqltext::sql_mode::SqlMode;
pub use turnstile_wire::response::Column;
pub use turnstile_wire::value::Value;
pub use warnings::{Level, Warning, Warnings};

/// Receives a result set. Engines call `columns` once, then `row` per row.
/// The server's sink encodes straight into the connection's output buffer.
///
/// Backpressure: under the pool-of-threads scheduler a slow client must not
/// hold a worker. When the connection's output buffer is full and the socket
/// takes no more, `wants_pause` turns true. An engine that can keep its cursor
/// open then stops producing and returns `Outcome::Paused`; the server calls
/// `EngineSession::resume` with a fresh sink once the client has read. An engine
/// that cannot pause simply keeps producing (the buffer grows past its target).
pub trait RowSink {
    fn columns(&mut self, columns: &[Column]) -> Result<(), SqlError>;
    /// The same columns with their definitions already encoded (a cached
    /// statement's); a sink that writes the wire protocol copies them.
    fn columns_encoded(&mut self, columns: &[Column], _encoded: &turnstile_wire::response::EncodedColumns) -> Result<(), SqlError> {
        self.columns(columns)
    }
    fn row(&mut self, row: &[Value]) -> Result<(), SqlError>;
    /// True when the producer should stop after the current row and return `Outcome::Paused`.
    fn wants_pause(&self) -> bool {
        false
    }
    /// The result set streamed so far is complete and more follow (a stored
    /// procedure's SELECTs: each ends with SERVER_MORE_RESULTS_EXISTS, then
    /// the CALL's own OK). The next `columns` starts a new result set.
    /// Default: nothing to end (a sink that keeps no wire format).
    fn end_result(&mut self) -> Result<(), SqlError> {
        Ok(())
    }
}

/// A sink that keeps nothing (a statement run only for its errors).
pub struct DiscardRows;

impl RowSink for DiscardRows {
    fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, _: &[Value]) -> Result<(), SqlError> {
        Ok(())
    }
}

/// A sink that keeps a result's columns and rows (a statement the server
/// runs for itself, whose rows it then works on).
#[derive(Default)]
pub struct CollectRows {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

impl RowSink for CollectRows {
    fn columns(&mut self, c: &[Column]) -> Result<(), SqlError> {
        self.columns = c.to_vec();
        Ok(())
    }
    fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
        self.rows.push(r.to_vec());
        Ok(())
    }
}

/// What a statement produced when it did not send a result set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Done {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub warnings: u16,
    pub info: String,
    /// The first AUTO_INCREMENT value this statement generated, if any: what
    /// LAST_INSERT_ID() returns from now on. (`last_insert_id` is what the OK
    /// packet carries, which for an explicit id is that id, as in MySQL.)
    pub generated_id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No result set: send OK with these counts.
    Done(Done),
    /// A result set was streamed through the sink.
    Rows,
    /// Part of a result set was streamed and the sink asked to pause
    /// (`RowSink::wants_pause`); the engine keeps its cursor until `resume`.
    Paused,
}

/// Description of a prepared statement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prepared {
    pub params: usize,
    /// Result columns if known at prepare time (empty for statements without a result).
    pub columns: Vec<Column>,
}

/// A column as COM_FIELD_LIST describes it: its definition and its default
/// value (None: NULL), as MariaDB sends it: a NOT NULL column without a
/// default has its type's zero value (`0`, `''`, `0000-00-00`, an ENUM's
/// first member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldListColumn {
    pub column: Column,
    pub default: Option<String>,
}

/// Kinds of blocking waits reported to the scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKind {
    RowLock,
    TableLock,
    DiskSync,
    Network,
    Sleep,
}

/// Called around every blocking wait inside an engine. The thread-per-connection
/// scheduler ignores it; the pool-of-threads scheduler wakes another worker.
pub trait WaitHook {
    fn wait_begin(&self, kind: WaitKind);
    fn wait_end(&self);
    /// Does announcing a wait do anything? (A caller may then skip the
    /// work of deciding whether a wait is long enough to announce.)
    fn announces(&self) -> bool {
        true
    }
}

/// A hook that does nothing (thread-per-connection).
pub struct NoWait;

impl WaitHook for NoWait {
    fn wait_begin(&self, _: WaitKind) {}
    fn wait_end(&self) {}
    fn announces(&self) -> bool {
        false
    }
}

/// Asks whether the client of a running statement is still connected.
pub trait ClientProbe {
    fn gone(&self) -> bool;
}

/// No client to ask about (engine-internal work, tests).
pub struct NoClient;

impl ClientProbe for NoClient {
    fn gone(&self) -> bool {
        false
    }
}

/// Why a running statement must stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interruption {
    /// KILL QUERY or KILL CONNECTION.
    Killed,
    /// max_execution_time (or its hint) passed.
    #[default]
    TimedOut,
    /// max_statement_time (MariaDB's, for every statement) passed.
    StatementTimedOut,
    /// The client disconnected: nobody will read the result.
    ClientGone,
}

impl Interruption {
    /// The error the statement ends with.
    pub fn error(self) -> SqlError {
        match self {
            Interruption::TimedOut => SqlError::new(3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded"),
            Interruption::StatementTimedOut => SqlError::new(1969, "70100", "Query execution was interrupted (max_statement_time exceeded)"),
            Interruption::Killed | Interruption::ClientGone => SqlError::query_interrupted(),
        }
    }
}

/// MySQL's default cte_max_recursion_depth.
pub const DEFAULT_CTE_DEPTH: u64 = 1000;

/// How often a running statement asks whether its client is still there.
pub const CLIENT_PROBE_MS: u64 = 500;

/// Per-call context handed to the engine.
pub struct ExecContext<'a> {
    pub waits: &'a dyn WaitHook,
    /// Set by KILL QUERY / KILL CONNECTION; long-running engine work polls it
    /// (through `interruption`).
    pub killed: &'a std::sync::atomic::AtomicBool,
    /// The session's privileges: the engine checks every table a statement
    /// names against them (see `access`). `&NoAccess` until the SQL front
    /// supplies the session's own.
    pub access: &'a dyn Access,
    /// When the statement must end, on the coarse clock (`clock::coarse_ms`);
    /// 0: no limit. Set by the front from max_execution_time or
    /// max_statement_time, and which of them it is.
    pub deadline_ms: u64,
    pub deadline_kind: Interruption,
    /// The statement's client, asked at most every `CLIENT_PROBE_MS`.
    pub client: &'a dyn ClientProbe,
    /// How deep a recursive CTE may go (the session's cte_max_recursion_depth).
    pub cte_max_recursion_depth: u64,
    /// The session's sql_mode (set by the front; MariaDB's default until then):
    /// what a write does with a value that does not fit (STRICT_*), whether a
    /// division by zero is an error (ERROR_FOR_DIVISION_BY_ZERO).
    pub sql_mode: SqlMode,
    /// The session's sql_quote_show_create: SHOW CREATE TABLE quotes every
    /// identifier (ON, the default) or only those that need it.
    pub quote_show_create: bool,
    /// Notes and warnings the statement raises (SHOW WARNINGS); None for
    /// the engine's own work, whose warnings nobody reads.
    warnings: Option<&'a Warnings>,
    /// When the client is asked next (0: not yet started).
    next_probe_ms: std::cell::Cell<u64>,
}

impl<'a> ExecContext<'a> {
    /// A context for a session's statement: its kill flag, wait hook and
    /// client; no privileges until the front adds them.
    pub fn new(waits: &'a dyn WaitHook, killed: &'a std::sync::atomic::AtomicBool, client: &'a dyn ClientProbe, warnings: &'a Warnings) -> ExecContext<'a> {
        ExecContext {
            waits,
            killed,
            access: &access::NoAccess,
            deadline_ms: 0,
            deadline_kind: Interruption::TimedOut,
            client,
            cte_max_recursion_depth: DEFAULT_CTE_DEPTH,
            sql_mode: SqlMode::DEFAULT,
            quote_show_create: true,
            warnings: Some(warnings),
            next_probe_ms: std::cell::Cell::new(0),
        }
    }

    /// A context for work the engine does on its own behalf (no client).
    pub fn internal(killed: &'a std::sync::atomic::AtomicBool) -> ExecContext<'a> {
        ExecContext {
            waits: &NoWait,
            killed,
            access: &access::Unrestricted,
            deadline_ms: 0,
            deadline_kind: Interruption::TimedOut,
            client: &NoClient,
            cte_max_recursion_depth: DEFAULT_CTE_DEPTH,
            sql_mode: SqlMode::DEFAULT,
            quote_show_create: true,
            warnings: None,
            next_probe_ms: std::cell::Cell::new(0),
        }
    }

    /// The same context with the session's privileges.
    pub fn with_access<'b>(&self, access: &'b dyn Access) -> ExecContext<'b>
    where
        'a: 'b,
    {
        ExecContext {
            waits: self.waits,
            killed: self.killed,
            access,
            deadline_ms: self.deadline_ms,
            deadline_kind: self.deadline_kind,
            client: self.client,
            cte_max_recursion_depth: self.cte_max_recursion_depth,
            sql_mode: self.sql_mode,
            quote_show_create: self.quote_show_create,
            warnings: self.warnings,
            next_probe_ms: std::cell::Cell::new(self.next_probe_ms.get()),
        }
    }

    /// Raise a note (SHOW WARNINGS level Note), e.g. 1051 for DROP TABLE IF
    /// EXISTS of a missing table.
    pub fn note(&self, code: u16, message: impl Into<String>) {
        if let Some(w) = self.warnings {
            w.note(code, message);
        }
    }

    /// Raise a warning (level Warning), e.g. 1264 for a value clipped to its column.
    pub fn warn(&self, code: u16, message: impl Into<String>) {
        if let Some(w) = self.warnings {
            w.warn(code, message);
        }
    }

    /// Conditions raised so far by this statement.
    pub fn warning_count(&self) -> u64 {
        self.warnings.map_or(0, Warnings::count)
    }

    /// The statement's collector, if it has one.
    pub fn warnings(&self) -> Option<&'a Warnings> {
        self.warnings
    }

    /// The same context with a deadline (coarse-clock milliseconds, 0: none)
    /// and what passing it is (`TimedOut` or `StatementTimedOut`).
    pub fn with_deadline(&self, deadline_ms: u64, deadline_kind: Interruption) -> ExecContext<'a> {
        ExecContext { deadline_ms, deadline_kind, next_probe_ms: std::cell::Cell::new(self.next_probe_ms.get()), ..*self }
    }

    /// Must the statement stop now, and why? Cheap enough for SQLite's
    /// progress handler: a flag, the coarse clock, and the client probe at
    /// most every `CLIENT_PROBE_MS` (the first call only starts that timer, so
    /// a short statement never probes).
    pub fn interruption(&self) -> Option<Interruption> {
        if self.killed.load(std::sync::atomic::Ordering::Relaxed) {
            return Some(Interruption::Killed);
        }
        let now = clock::coarse_ms();
        if self.deadline_ms != 0 && now >= self.deadline_ms {
            return Some(self.deadline_kind);
        }
        match self.next_probe_ms.get() {
            0 => self.next_probe_ms.set(now + CLIENT_PROBE_MS),
            next if now >= next => {
                self.next_probe_ms.set(now + CLIENT_PROBE_MS);
                if self.client.gone() {
                    return Some(Interruption::ClientGone);
                }
            }
            _ => {}
        }
        None
    }
}

/// A storage engine, shared by all sessions.
pub trait Engine: Send + Sync {
    fn name(&self) -> &'static str;
    /// Databases (schemas) that exist, sorted, excluding the virtual system schemas.
    fn list_databases(&self) -> Vec<String>;
    fn database_exists(&self, name: &str) -> bool;
    /// Create a database. `Ok(false)` if it existed and `if_not_exists` was given.
    fn create_database(&self, name: &str, if_not_exists: bool) -> Result<bool, SqlError>;
    /// Drop a database: `Ok(Some(n))` with the tables and views it held (the
    /// statement's affected rows, as MariaDB counts them), `Ok(None)` if it
    /// did not exist and `if_exists` was given.
    fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<u64>, SqlError>;
    /// A session's private handle (connections, caches, transaction state).
    fn open_session(&self) -> Result<Box<dyn EngineSession>, SqlError>;
    /// Called once at graceful shutdown, after every session has ended.
    fn shutdown(&self) {}
    /// The calling thread (a pool worker) promises to call `thread_idle`
    /// before it sleeps, so the engine may keep per-thread state (an open
    /// read snapshot) from one statement to the next.
    fn thread_holds_reads(&self) {}
    /// The calling thread is about to sleep: let go of what it kept that
    /// is out of date (`for_long`: of everything; otherwise it wakes within
    /// a second).
    fn thread_idle(&self, _for_long: bool) {}
    /// Does the calling thread keep anything `thread_idle` would let go of?
    fn thread_keeps_state(&self) -> bool {
        false
    }
    /// Can `backup` copy this engine's databases (BACKUP DATA)?
    fn can_back_up(&self) -> bool {
        false
    }
    /// BACKUP DATA: write a copy of every database, all taken at one point
    /// in time, into `databases_dir` (the `databases` directory of a data
    /// directory being built; it exists and is empty), laid out as the
    /// engine keeps its own so a server starts on it.
    fn backup(&self, _databases_dir: &std::path::Path, _ctx: &ExecContext<'_>) -> Result<BackupCopied, SqlError> {
        Err(SqlError::unsupported(&format!("BACKUP DATA with the {} engine", self.name())))
    }
}

/// What `Engine::backup` copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackupCopied {
    pub databases: u64,
    pub bytes: u64,
}

/// A statement with the views an engine keeps as text written out, and
/// those views as (database, name): `EngineSession::expand_views`.
pub type ExpandedViews = (String, Vec<(String, String)>);

/// One client session's view of the engine. Not shared between threads at once,
/// but may move between threads (the pool scheduler runs a session on any worker).
pub trait EngineSession: Send {
    /// The session's current database changed (USE, COM_INIT_DB, CONNECT_WITH_DB).
    fn set_database(&mut self, db: Option<&str>) -> Result<(), SqlError>;
    /// Run one statement (already split from a multi-statement text).
    fn execute(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError>;
    /// Columns of a table for COM_FIELD_LIST (the mysql CLI's auto-rehash),
    /// if `access` may see the table.
    fn field_list(&mut self, access: &dyn Access, table: &str) -> Result<Vec<FieldListColumn>, SqlError>;
    /// Describe a statement for COM_STMT_PREPARE, refusing what `access`
    /// may not run (as `execute` would).
    fn prepare(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError>;
    fn begin(&mut self, ctx: &ExecContext<'_>, read_only: bool) -> Result<(), SqlError>;
    fn commit(&mut self, ctx: &ExecContext<'_>) -> Result<(), SqlError>;
    fn rollback(&mut self, ctx: &ExecContext<'_>) -> Result<(), SqlError>;
    fn in_transaction(&self) -> bool;
    /// Autocommit changed (SET autocommit=...).
    fn set_autocommit(&mut self, on: bool);
    /// A session variable the engine may care about changed (SET SESSION x = v),
    /// e.g. innodb_lock_wait_timeout or foreign_key_checks. Default: ignored.
    fn set_variable(&mut self, _name: &str, _value: &Value) {}
    /// COM_RESET_CONNECTION / COM_CHANGE_USER: roll back and forget session state.
    fn reset(&mut self);
    /// Continue a result set that returned `Outcome::Paused` (no columns again).
    fn resume(&mut self, _ctx: &ExecContext<'_>, _sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        Err(SqlError::internal("no paused result to resume"))
    }
    /// Drop a paused result (the client went away).
    fn cancel_paused(&mut self) {}
    /// The engine evaluates user variables a statement assigns (`SELECT
    /// @n := @n + 1 FROM t`) row by row: the front hands it their values
    /// before such a statement (`load_user_variables`) and takes the new
    /// ones after it, and after each resumed part of its result
    /// (`take_user_variables`). Default: no (the front refuses nothing
    /// itself; the engine then refuses `:=` in its own way).
    /// SHOW ... WHERE: of the rows a SHOW statement made (`columns`,
    /// `rows`), those for which `condition` holds (MySQL's expression over
    /// the columns, named as the SHOW names them), sent to `sink`. Default:
    /// not supported.
    fn filter_rows(&mut self, _ctx: &ExecContext<'_>, _columns: &[Column], _rows: Vec<Vec<Value>>, _condition: &str, _sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        Err(SqlError::unsupported("SHOW ... WHERE"))
    }
    fn keeps_user_variables(&self) -> bool {
        false
    }
    fn load_user_variables(&mut self, _vars: Vec<(String, Value)>) {}
    fn take_user_variables(&mut self) -> Vec<(String, Value)> {
        Vec::new()
    }
    /// The client's CLIENT_FOUND_ROWS flag, set at login: UPDATE reports rows
    /// matched when on, rows actually changed when off (MySQL's rule).
    /// Default: ignored (the engine reports matched rows).
    fn set_found_rows(&mut self, _on: bool) {}
    /// The engine evaluates any expression MySQL allows in a SELECT without a
    /// table (the SQL front evaluates the common ones itself and hands the
    /// rest here). Default: no (the blackhole engine evaluates nothing).
    fn evaluates_expressions(&self) -> bool {
        false
    }
    /// What FOUND_ROWS() returns: the rows the last SELECT sent, or with
    /// SQL_CALC_FOUND_ROWS the rows it found without its LIMIT. Default 0.
    fn found_rows(&self) -> u64 {
        0
    }
    /// LAST_INSERT_ID() as the engine last left it (a generated id, or
    /// LAST_INSERT_ID(expr) inside a statement); None when the engine does not
    /// keep one. The SQL front reads it after every statement.
    fn last_insert_id(&self) -> Option<u64> {
        None
    }
    /// The SQL front evaluated LAST_INSERT_ID(expr) itself (a SELECT without a
    /// table): statements the engine runs later must see the new value.
    fn set_last_insert_id(&mut self, _id: u64) {}
    /// Store a stored routine in its database (`replace`: CREATE OR
    /// REPLACE). ERR 1304 when it exists and `replace` is false, 1049 when
    /// the database does not. Default: the engine keeps no routines (1235).
    fn routine_save(&mut self, _ctx: &ExecContext<'_>, _row: &RoutineRow, _replace: bool) -> Result<(), SqlError> {
        Err(SqlError::unsupported("stored routines in this engine"))
    }
    /// Remove a stored routine; false if there was none.
    fn routine_drop(&mut self, _ctx: &ExecContext<'_>, _db: &str, _kind: RoutineKind, _name: &str) -> Result<bool, SqlError> {
        Ok(false)
    }
    /// A stored routine of `db` by name (case-insensitive), if there is one.
    fn routine_load(&mut self, _db: &str, _kind: RoutineKind, _name: &str) -> Result<Option<RoutineRow>, SqlError> {
        Ok(None)
    }
    /// Every stored routine of every database, by database and name.
    fn routine_list(&mut self) -> Result<Vec<RoutineRow>, SqlError> {
        Ok(Vec::new())
    }
    /// `sql` with the views the engine keeps as MySQL text (and expands
    /// where they are read) written out as derived tables, and those views
    /// as (database, name), each of which the reader needs SELECT on; None
    /// when it names none. The front writes stored function calls out of
    /// the text it runs, so it asks for a view's calls this way.
    fn expand_views(&mut self, _sql: &str) -> Result<Option<ExpandedViews>, SqlError> {
        Ok(None)
    }
}
