//! One SQLite connection with its compiled-statement cache.
//!
//! A `Conn` belongs to one database (SQLite's `main`; other databases are
//! ATTACHed under their own names when a statement names them) and is pooled
//! by the engine between client sessions, so a short-lived client finds a warm
//! connection: open file, parsed schema and compiled statements. Statements
//! are raw `sqlite3_stmt` handles (bound, stepped and reset in place, no
//! per-execution allocation) cached by the client's statement text, bounded by
//! the `statement_cache` setting.
//!
//! Each connection has a busy handler and a progress handler whose context
//! (`CallCtx`) is pointed at the running call's `ExecContext` and wait hook,
//! so a long statement stops on KILL, at max_execution_time and when its
//! client has gone (sqlite3 progress callback → SQLITE_INTERRUPT, the reason
//! kept in `CallCtx::stopped`) and an unexpected SQLite-level lock wait is
//! reported to the scheduler.

use super::errors;
use super::functions::{self, Counters};
use super::rewrite::Rewritten;
use super::schema::Schema;
use super::{Db, Options};
use rusqlite::ffi;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::{c_int, c_void};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};
use turnstile_engine::{Column, ExecContext, Interruption, SqlError, WaitHook, WaitKind};

/// A compiled statement. Finalized on drop.
pub struct Stmt {
    ptr: NonNull<ffi::sqlite3_stmt>,
}

// SAFETY: a statement is only used by the thread that currently owns its
// connection (connections are opened with SQLITE_OPEN_NO_MUTEX and never shared).
unsafe impl Send for Stmt {}

impl Drop for Stmt {
    fn drop(&mut self) {
        // SAFETY: ptr came from sqlite3_prepare_v3 and is finalized once.
        unsafe {
            ffi::sqlite3_finalize(self.ptr.as_ptr());
        }
    }
}

impl Stmt {
    pub fn raw(&self) -> *mut ffi::sqlite3_stmt {
        self.ptr.as_ptr()
    }
    pub fn param_count(&self) -> usize {
        // SAFETY: valid statement.
        unsafe { ffi::sqlite3_bind_parameter_count(self.raw()) as usize }
    }
    pub fn column_count(&self) -> usize {
        // SAFETY: valid statement.
        unsafe { ffi::sqlite3_column_count(self.raw()) as usize }
    }
    pub fn readonly(&self) -> bool {
        // SAFETY: valid statement.
        unsafe { ffi::sqlite3_stmt_readonly(self.raw()) != 0 }
    }
    pub fn step(&self) -> c_int {
        // SAFETY: valid statement.
        unsafe { ffi::sqlite3_step(self.raw()) }
    }
    pub fn reset(&self) {
        // SAFETY: valid statement.
        unsafe {
            ffi::sqlite3_reset(self.raw());
        }
    }
    pub fn column_type(&self, i: usize) -> c_int {
        // SAFETY: valid statement and index < column_count.
        unsafe { ffi::sqlite3_column_type(self.raw(), i as c_int) }
    }
    pub fn int64(&self, i: usize) -> i64 {
        // SAFETY: as above.
        unsafe { ffi::sqlite3_column_int64(self.raw(), i as c_int) }
    }
    pub fn double(&self, i: usize) -> f64 {
        // SAFETY: as above.
        unsafe { ffi::sqlite3_column_double(self.raw(), i as c_int) }
    }
    /// Text or blob bytes of column `i` (valid until the next step/reset).
    pub fn bytes(&self, i: usize) -> &[u8] {
        // SAFETY: sqlite3_column_text then _bytes, per SQLite's documented order;
        // the buffer lives until the statement is stepped or reset.
        unsafe {
            let p = ffi::sqlite3_column_text(self.raw(), i as c_int);
            let n = ffi::sqlite3_column_bytes(self.raw(), i as c_int);
            if p.is_null() || n <= 0 {
                &[]
            } else {
                std::slice::from_raw_parts(p, n as usize)
            }
        }
    }
    fn cstr(p: *const std::os::raw::c_char) -> Option<String> {
        if p.is_null() {
            None
        } else {
            // SAFETY: SQLite returns NUL-terminated UTF-8.
            Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        }
    }
    pub fn column_name(&self, i: usize) -> String {
        // SAFETY: valid statement and index.
        Self::cstr(unsafe { ffi::sqlite3_column_name(self.raw(), i as c_int) }).unwrap_or_default()
    }
    /// (database, table, column) a result column comes from, if it is a plain column.
    pub fn origin(&self, i: usize) -> Option<(String, String, String)> {
        // SAFETY: valid statement and index; compiled with SQLITE_ENABLE_COLUMN_METADATA.
        unsafe {
            let d = Self::cstr(ffi::sqlite3_column_database_name(self.raw(), i as c_int))?;
            let t = Self::cstr(ffi::sqlite3_column_table_name(self.raw(), i as c_int))?;
            let c = Self::cstr(ffi::sqlite3_column_origin_name(self.raw(), i as c_int))?;
            Some((d, t, c))
        }
    }
    pub fn decltype(&self, i: usize) -> Option<String> {
        // SAFETY: valid statement and index.
        Self::cstr(unsafe { ffi::sqlite3_column_decltype(self.raw(), i as c_int) })
    }

    /// Bind one parameter (1-based index) from a wire value.
    pub fn bind(&self, idx: usize, v: &turnstile_engine::Value) -> c_int {
        use turnstile_engine::Value as V;
        let s = self.raw();
        let i = idx as c_int;
        // SAFETY: valid statement; text/blob are copied by SQLite (SQLITE_TRANSIENT).
        unsafe {
            match v {
                V::Null => ffi::sqlite3_bind_null(s, i),
                V::Int(n) => ffi::sqlite3_bind_int64(s, i, *n),
                V::UInt(n) if *n <= i64::MAX as u64 => ffi::sqlite3_bind_int64(s, i, *n as i64),
                // Above 2^63-1: its digits (a BIGINT UNSIGNED column stores them as text).
                V::UInt(n) => {
                    let t = n.to_string();
                    ffi::sqlite3_bind_text(s, i, t.as_ptr() as *const _, t.len() as c_int, ffi::SQLITE_TRANSIENT())
                }
                V::Float(f) => ffi::sqlite3_bind_double(s, i, *f as f64),
                V::Double(f) => ffi::sqlite3_bind_double(s, i, *f),
                V::Bytes(b) => ffi::sqlite3_bind_text(s, i, b.as_ptr() as *const _, b.len() as c_int, ffi::SQLITE_TRANSIENT()),
                other => {
                    let t = other.to_text().map(|c| c.into_owned()).unwrap_or_default();
                    ffi::sqlite3_bind_text(s, i, t.as_ptr() as *const _, t.len() as c_int, ffi::SQLITE_TRANSIENT())
                }
            }
        }
    }
}

/// How a result column's SQLite value becomes a wire value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Conv {
    Int,
    UInt,
    Double,
    Float,
    Decimal(u8),
    Text,
    /// CHAR: trailing spaces removed on retrieval, as MySQL does.
    CharTrim,
    /// A time or datetime text shown with exactly this many fraction digits.
    Frac(u8),
    Temporal(super::schema::Base),
    /// BIT(n): the stored integer (a u64 kept as i64) as its last `bytes`
    /// big-endian bytes, as MySQL sends a BIT value.
    Bit(u8),
    /// By the value's storage class.
    Any,
}

#[derive(Debug, Clone)]
pub struct ColMeta {
    pub cols: Vec<Column>,
    /// `cols` encoded for the wire once, sent by copy on every execution.
    pub encoded: turnstile_wire::response::EncodedColumns,
    pub convs: Vec<Conv>,
}

/// One member of a UNION / INTERSECT / EXCEPT, described on its own: each
/// result column's type (None: not known without a row) and whether it can
/// be NULL. The whole query's columns are joined from them (exec/results.rs).
#[derive(Debug, Clone)]
pub struct MemberCols {
    pub types: Vec<Option<turnstile_sqltext::expr_type::ExprType>>,
    pub not_null: Vec<bool>,
    /// The table column (database, table, column) a column is, if it is one.
    pub origin: Vec<Option<(String, String, String)>>,
}

pub struct Cached {
    pub stmt: Stmt,
    pub rw: Arc<Rewritten>,
    /// A top-level UNION's members, each described alone (compile.rs); None
    /// for any other statement, or when a member did not compile alone.
    pub members: Option<Arc<[MemberCols]>>,
    /// The tables it touches and the privileges that takes (checked on every
    /// execution: see `authorize`).
    pub needs: Box<[super::authorize::Need]>,
    /// Statement writes (not sqlite3_stmt_readonly, or SELECT ... FOR UPDATE).
    pub writes: bool,
    pub meta: Option<Arc<ColMeta>>,
    /// The client's text as rewrite/select_alias.rs wrote it (its aliases
    /// named in subqueries as their items' values), when it did.
    pub written: Option<Arc<str>>,
    pub stamp: u64,
    /// The engine's DDL epoch when it was compiled.
    pub epoch: u64,
    pub last_use: u64,
}

/// The engine's DDL epoch and its value when a statement was compiled (see
/// `Conn::step_user`).
pub struct StatementEpoch<'a> {
    pub now: &'a AtomicU64,
    pub compiled: u64,
}

/// Context of the call running on this connection, read by the C callbacks.
pub struct CallCtx {
    /// The running call's context (KILL flag, deadline, client probe).
    exec: Cell<*const ExecContext<'static>>,
    /// Why the progress or busy handler stopped the call, for the error.
    pub stopped: Cell<Option<Interruption>>,
    /// The authorizer's collector while a client's statement compiles
    /// (`authorize::compile`), else null.
    pub auth_seen: Cell<*mut c_void>,
    /// A client's statement is stepping (`step_user`): the authorizer refuses
    /// tables, so SQLite cannot recompile it on its own.
    pub stepping: Cell<bool>,
    /// ... and it tried to: the statement must be compiled again by the engine.
    pub recompile_refused: Cell<bool>,
    /// While stepping: the engine's DDL epoch, and its value when the
    /// statement was compiled (`schema_changed`).
    epoch_now: Cell<*const AtomicU64>,
    epoch_compiled: Cell<u64>,
    waits: Cell<Option<*const (dyn WaitHook + 'static)>>,
    waiting: Cell<bool>,
    /// Set on the first busy callback of a call: now + lock_wait.
    deadline: Cell<Option<Instant>>,
    lock_wait: Cell<Duration>,
}

// SAFETY: the pointers are set only for the duration of a call on the owning
// thread and cleared before the call returns.
unsafe impl Send for CallCtx {}

impl CallCtx {
    /// Has any DDL run since the stepping statement was compiled?
    pub fn schema_changed(&self) -> bool {
        let now = self.epoch_now.get();
        // SAFETY: set by `step_user` from the engine, which outlives the call.
        now.is_null() || unsafe { (*now).load(std::sync::atomic::Ordering::Acquire) } != self.epoch_compiled.get()
    }
}

/// Should the running call stop (KILL, max_execution_time, client gone)?
/// Records why, for the error the statement ends with.
///
/// # Safety
/// `c.exec` is null or points at the context of the call in progress.
unsafe fn must_stop(c: &CallCtx) -> bool {
    let e = c.exec.get();
    if e.is_null() {
        return false;
    }
    match (*e).interruption() {
        Some(why) => {
            c.stopped.set(Some(why));
            true
        }
        None => false,
    }
}

unsafe extern "C" fn progress_cb(arg: *mut c_void) -> c_int {
    // SAFETY: arg is the connection's boxed CallCtx, alive as long as the
    // connection; its context pointer is set for the call in progress.
    let c = &*(arg as *const CallCtx);
    must_stop(c) as c_int
}

unsafe extern "C" fn busy_cb(arg: *mut c_void, count: c_int) -> c_int {
    // SAFETY: as progress_cb.
    let c = &*(arg as *const CallCtx);
    if count == 0 {
        c.deadline.set(Some(Instant::now() + c.lock_wait.get()));
        if let Some(w) = c.waits.get() {
            (*w).wait_begin(WaitKind::TableLock);
            c.waiting.set(true);
        }
    }
    if must_stop(c) {
        return 0;
    }
    if let Some(d) = c.deadline.get() {
        if Instant::now() >= d {
            return 0;
        }
    }
    let us = (50u64 << (count.min(5) as u32)).min(2000);
    std::thread::sleep(Duration::from_micros(us));
    1
}

/// SLEEP(seconds) in a statement the engine runs (the front answers it in
/// table-less SELECTs): sleeps in slices of at most `SLEEP_SLICE_MS`,
/// checking KILL and the statement's time limit between them; returns 0, or
/// 1 when interrupted (MySQL's value), and then interrupts the statement so
/// it ends with the interruption's error (3024, 1969, 1317) at once rather
/// than at the progress handler's next look, which a short statement never
/// reaches. Not DETERMINISTIC: SQLite must call it once per row.
fn register_sleep(db: &rusqlite::Connection, call: &CallCtx) -> rusqlite::Result<()> {
    const SLEEP_SLICE_MS: u64 = 10;
    let ctx_addr = call as *const CallCtx as usize;
    // SAFETY: only the address is kept, for sqlite3_interrupt while the handle is open.
    let db_addr = unsafe { db.handle() } as usize;
    db.create_scalar_function("sleep", 1, rusqlite::functions::FunctionFlags::SQLITE_UTF8, move |f| {
        let secs = match f.get_raw(0) {
            rusqlite::types::ValueRef::Integer(i) => i as f64,
            rusqlite::types::ValueRef::Real(r) => r,
            rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(|t| t.trim().parse::<f64>().ok()).unwrap_or(0.0),
            _ => return Ok(None),
        };
        // A year at most: the statement's time limit or KILL ends it sooner.
        let total_ms = (secs.clamp(0.0, 31_536_000.0) * 1000.0) as u64;
        let end = Instant::now() + Duration::from_millis(total_ms);
        loop {
            // SAFETY: the boxed CallCtx outlives the connection's functions
            // (both dropped with the Conn); `exec` is set for the call in progress.
            if unsafe { must_stop(&*(ctx_addr as *const CallCtx)) } {
                // SAFETY: the handle is open while its functions run.
                unsafe { ffi::sqlite3_interrupt(db_addr as *mut ffi::sqlite3) };
                return Ok(Some(1i64));
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Some(0i64));
            }
            std::thread::sleep(left.min(Duration::from_millis(SLEEP_SLICE_MS)));
        }
    })
}

/// A read transaction is kept open for the next read only once the log has
/// been quiet this long. Why: under steady writes a kept snapshot is soon out
/// of date, and snapshots kept a little longer than single statements made
/// checkpoints finish less often (oltp_update_index beside point selects:
/// about a tenth fewer updates per second).
const HOLD_AFTER_QUIET_MS: u64 = 20;

/// SQLite's default lookaside (SQLITE_DEFAULT_LOOKASIDE): slots of this many
/// bytes, this many of them (48 KB per connection; SQLite splits it into
/// large and small slots itself).
const LOOKASIDE_SLOT: i32 = 1200;
const LOOKASIDE_SLOTS: i32 = 40;

/// Configure the connection's lookaside allocator (0 slots: off). SQLite
/// refuses (SQLITE_BUSY) while lookaside memory is in use; then the old
/// setting stays, which only costs speed.
/// SQLite's SQLITE_LIMIT_LENGTH for a max_allowed_packet of `max_value_bytes`.
/// It bounds every string and blob SQLite's own functions make (its default
/// allowed 1 GB each) and also a row's whole record, so it is twice the
/// packet limit and 1 MiB more: a row holds two values of max_allowed_packet
/// bytes beside its other columns, as MariaDB stores them (go-sql-driver's
/// TestLongData). Our functions stop at max_allowed_packet itself.
fn record_limit_bytes(max_value_bytes: usize) -> c_int {
    max_value_bytes.saturating_mul(2).saturating_add(1 << 20).min(i32::MAX as usize) as c_int
}

fn set_lookaside(db: &rusqlite::Connection, slot: i32, slots: i32) {
    // SAFETY: a valid open handle; a NULL buffer lets SQLite allocate it.
    let rc = unsafe { ffi::sqlite3_db_config(db.handle(), ffi::SQLITE_DBCONFIG_LOOKASIDE, std::ptr::null_mut::<c_void>(), slot as c_int, slots as c_int) };
    if rc != ffi::SQLITE_OK {
        tracing::debug!(rc, slot, slots, "SQLite lookaside not reconfigured");
    }
}

pub struct Conn {
    /// Compiled statements, keyed by the client's statement text. Dropped
    /// (finalized) before the connection closes.
    /// Keyed with FxHash: looked up on every execution, and SipHash's flooding
    /// resistance buys nothing for a bounded per-connection cache.
    pub cache: HashMap<String, Cached, rustc_hash::FxBuildHasher>,
    pub call: Box<CallCtx>,
    pub counters: Arc<Counters>,
    pub home: Option<Arc<Db>>,
    pub attached: Vec<Arc<Db>>,
    pub info_attached: bool,
    /// MySQL definitions of this session's TEMPORARY tables.
    pub temp: Schema,
    pub temp_version: u64,
    pub cache_limit: usize,
    tick: u64,
    /// A read transaction left open after an autocommit read, and the log
    /// generation (`vfs::log_generation`) read before it began: while the
    /// generation is unchanged nothing has committed since, so the next
    /// autocommit read may run in it instead of beginning and ending a
    /// transaction of its own. Only a pool worker's parked connection keeps
    /// one between statements; the worker ends it before it sleeps
    /// (`Inner::thread_idle`), and taking the connection for anything else
    /// ends it first (`Inner::take_conn`, `SqliteSession::ensure_conn`).
    pub held_read: Option<u64>,
    /// The log generation at this connection's last autocommit read: a read
    /// transaction is kept open only when no commit came between two reads.
    pub last_read_generation: u64,
    /// The engine's schema epoch when SQLite's own copy of every schema this
    /// connection has open was last brought up to date (`refresh_schemas`).
    pub schema_epoch: u64,
    pub db: rusqlite::Connection,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.cache.clear();
    }
}

impl Conn {
    /// Open a connection whose `main` is `home`'s file (or an empty in-memory
    /// database for sessions without a current database).
    pub fn open(home: Option<Arc<Db>>, opts: &Options) -> Result<Box<Conn>, SqlError> {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
        let db = match &home {
            Some(d) => rusqlite::Connection::open_with_flags_and_vfs(&d.file, flags, super::vfs::name()),
            None => rusqlite::Connection::open_with_flags_and_vfs(":memory:", flags, super::vfs::name()),
        }
        .map_err(|e| SqlError::internal(format!("cannot open database: {}", e)))?;
        let counters = Arc::new(Counters { cte_limit: turnstile_engine::DEFAULT_CTE_DEPTH.into(), ..Counters::default() });
        // Lookaside off while the functions and pragmas are set up: their
        // allocations live as long as the connection and would otherwise
        // keep SQLite's per-connection lookaside slots (its fast allocator)
        // full for good, sending every statement's cursors and values to
        // malloc. Turned back on below, empty, for statements.
        set_lookaside(&db, 0, 0);
        functions::register(&db, counters.clone(), home.as_ref().map(|d| d.name.clone())).map_err(|e| SqlError::internal(format!("cannot register functions: {}", e)))?;
        let pragmas = format!(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA recursive_triggers=ON; PRAGMA cache_size=-{}; PRAGMA mmap_size={}; PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint={};",
            opts.cache_kib, opts.mmap_bytes, opts.wal_autocheckpoint
        );
        db.execute_batch(&pragmas).map_err(|e| SqlError::internal(format!("cannot configure database: {}", e)))?;
        set_lookaside(&db, LOOKASIDE_SLOT, LOOKASIDE_SLOTS);
        // SAFETY: a valid open handle.
        unsafe {
            ffi::sqlite3_limit(db.handle(), ffi::SQLITE_LIMIT_EXPR_DEPTH, opts.expr_depth as c_int);
            ffi::sqlite3_limit(db.handle(), ffi::SQLITE_LIMIT_LENGTH, record_limit_bytes(opts.max_value_bytes));
        }
        let call = Box::new(CallCtx {
            exec: Cell::new(std::ptr::null()),
            stopped: Cell::new(None),
            auth_seen: Cell::new(std::ptr::null_mut()),
            stepping: Cell::new(false),
            recompile_refused: Cell::new(false),
            epoch_now: Cell::new(std::ptr::null()),
            epoch_compiled: Cell::new(0),
            waits: Cell::new(None),
            waiting: Cell::new(false),
            deadline: Cell::new(None),
            lock_wait: Cell::new(Duration::from_secs(opts.lock_wait_timeout)),
        });
        // SAFETY: the boxed CallCtx outlives the handlers (both dropped with the Conn).
        unsafe {
            let arg = &*call as *const CallCtx as *mut c_void;
            ffi::sqlite3_progress_handler(db.handle(), 1000, Some(progress_cb), arg);
            ffi::sqlite3_busy_handler(db.handle(), Some(busy_cb), arg);
        }
        register_sleep(&db, &call).map_err(|e| SqlError::internal(format!("cannot register functions: {}", e)))?;
        let conn = Box::new(Conn {
            cache: HashMap::with_hasher(rustc_hash::FxBuildHasher),
            call,
            counters,
            home,
            attached: Vec::new(),
            info_attached: false,
            temp: Schema::default(),
            temp_version: 0,
            cache_limit: opts.statement_cache,
            tick: 0,
            held_read: None,
            last_read_generation: u64::MAX,
            schema_epoch: u64::MAX,
            db,
        });
        super::authorize::install(&conn);
        Ok(conn)
    }

    /// Step a client's statement. Meanwhile the authorizer refuses tables, so
    /// SQLite cannot recompile it on its own after a schema change (names
    /// might resolve elsewhere than when it was checked); `errors::from_conn`
    /// then answers 1412 and the engine compiles it again (authorize.rs).
    pub fn step_user(&self, st: &Stmt, epoch: &StatementEpoch<'_>) -> c_int {
        self.call.stepping.set(true);
        self.call.recompile_refused.set(false);
        self.call.epoch_now.set(epoch.now as *const AtomicU64);
        self.call.epoch_compiled.set(epoch.compiled);
        let rc = st.step();
        self.call.stepping.set(false);
        self.call.epoch_now.set(std::ptr::null());
        rc
    }

    pub fn handle(&self) -> *mut ffi::sqlite3 {
        // SAFETY: the handle stays owned by self.db.
        unsafe { self.db.handle() }
    }

    /// Point the callbacks at the current call (cleared by `end_call`).
    pub fn begin_call(&self, ctx: &ExecContext<'_>, lock_wait: Duration) {
        // SAFETY: erase the lifetime; cleared in end_call, before the context can go away.
        let e: *const ExecContext<'static> = unsafe { std::mem::transmute(ctx as *const ExecContext<'_>) };
        self.call.exec.set(e);
        self.call.stopped.set(None);
        // SAFETY: erase the lifetime; the pointer is cleared in end_call before
        // the borrowed hook can go away.
        let w: *const (dyn WaitHook + '_) = ctx.waits;
        let w: *const (dyn WaitHook + 'static) = unsafe { std::mem::transmute(w) };
        self.call.waits.set(Some(w));
        self.call.lock_wait.set(lock_wait);
    }

    pub fn end_call(&self) {
        if self.call.waiting.replace(false) {
            if let Some(w) = self.call.waits.get() {
                // SAFETY: still within the call that set it.
                unsafe { (*w).wait_end() };
            }
        }
        self.call.exec.set(std::ptr::null());
        self.call.waits.set(None);
        self.call.deadline.set(None);
    }

    pub fn autocommit(&self) -> bool {
        // SAFETY: valid handle.
        unsafe { ffi::sqlite3_get_autocommit(self.handle()) != 0 }
    }
    pub fn changes(&self) -> u64 {
        // SAFETY: valid handle.
        unsafe { ffi::sqlite3_changes64(self.handle()) as u64 }
    }
    pub fn total_changes(&self) -> u64 {
        // SAFETY: valid handle.
        unsafe { ffi::sqlite3_total_changes64(self.handle()) as u64 }
    }
    pub fn last_rowid(&self) -> i64 {
        // SAFETY: valid handle.
        unsafe { ffi::sqlite3_last_insert_rowid(self.handle()) }
    }

    /// Compile SQLite text.
    pub fn prepare(&self, sqlite_sql: &str, original: &str) -> Result<Stmt, SqlError> {
        let c = CString::new(sqlite_sql).map_err(|_| SqlError::syntax(original))?;
        let mut p: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
        let mut tail: *const std::os::raw::c_char = std::ptr::null();
        // SAFETY: valid handle and NUL-terminated input.
        let rc = unsafe { ffi::sqlite3_prepare_v3(self.handle(), c.as_ptr(), c.as_bytes().len() as c_int + 1, ffi::SQLITE_PREPARE_PERSISTENT, &mut p, &mut tail) };
        if rc != ffi::SQLITE_OK {
            return Err(errors::from_conn(self, rc, original));
        }
        match NonNull::new(p) {
            Some(ptr) => Ok(Stmt { ptr }),
            None => Err(SqlError::empty_query()),
        }
    }

    /// Before an autocommit read (the caller checked that nothing else is
    /// open here): reuse the held read transaction if nothing has committed
    /// since it began, end it if something has, and begin one when two reads
    /// in a row saw the same generation and nothing has committed for
    /// `HOLD_AFTER_QUIET_MS`.
    pub fn prepare_autocommit_read(&mut self) {
        let generation = super::vfs::log_generation();
        match self.held_read {
            Some(g) if g == generation && !self.autocommit() => {}
            Some(_) => {
                self.end_held_read();
                self.last_read_generation = generation;
            }
            None if self.last_read_generation == generation && self.autocommit() && super::vfs::log_quiet_ms() >= HOLD_AFTER_QUIET_MS => {
                if self.run_cached("BEGIN").is_ok() {
                    self.held_read = Some(generation);
                }
            }
            None => self.last_read_generation = generation,
        }
    }

    /// End the held read transaction, if any.
    pub fn end_held_read(&mut self) {
        if self.held_read.take().is_some() && !self.autocommit() && self.run_cached("COMMIT").is_err() && !self.autocommit() {
            let _ = self.exec("ROLLBACK");
        }
    }

    /// Run a statement without results through rusqlite's statement cache.
    fn run_cached(&self, sql: &str) -> rusqlite::Result<usize> {
        self.db.prepare_cached(sql)?.execute([])
    }

    /// Run SQLite text with no result (DDL, transaction control).
    /// Bring SQLite's in-memory copy of each open schema up to date when any
    /// DDL ran since it last was (`epoch` moved). SQLite compiles against the
    /// copy it holds and checks it against the file only when the statement
    /// steps; a program compiled against an old copy names b-trees by root
    /// pages that may belong to other tables now, and the authorizer reads
    /// those (authorize.rs). A read of each schema table makes SQLite load the
    /// new copy.
    pub fn refresh_schemas(&mut self, epoch: u64) -> Result<(), SqlError> {
        if self.schema_epoch == epoch {
            return Ok(());
        }
        let names: Vec<String> = std::iter::once("main".to_string()).chain(self.attached.iter().map(|a| a.name.clone())).collect();
        for name in names {
            let sql = format!("SELECT 1 FROM {}.sqlite_schema LIMIT 1", super::schema::sq_ident(&name));
            let mut st = self.db.prepare_cached(&sql).map_err(|e| errors::from_rusqlite(self, &e, &sql))?;
            let mut rows = st.query([]).map_err(|e| errors::from_rusqlite(self, &e, &sql))?;
            rows.next().map_err(|e| errors::from_rusqlite(self, &e, &sql))?;
        }
        self.schema_epoch = epoch;
        Ok(())
    }

    /// ALTER TABLE ... RENAME TO in SQLite's legacy mode: the modern mode
    /// parses every view of the schema and fails when one names a table
    /// that is gone for now (a rebuild drops the old table before it renames
    /// the copy) or for good (MySQL keeps a view whose table was dropped).
    /// Views keep naming the old name, as MySQL's do.
    pub fn rename_legacy(&self, schema: &str, from: &str, to: &str) -> Result<(), SqlError> {
        use super::schema::sq_ident;
        // Read the schema again first: after a table rebuilt by ALTER TABLE
        // (itself renamed here) was dropped, SQLite's schema in memory
        // still held its name, and renaming another table to it failed
        // ("there is already another table or index with this name").
        self.exec("PRAGMA writable_schema=RESET")?;
        self.exec("PRAGMA legacy_alter_table=ON")?;
        let r = self.exec(&format!("ALTER TABLE {}.{} RENAME TO {}", sq_ident(schema), sq_ident(from), sq_ident(to)));
        let off = self.exec("PRAGMA legacy_alter_table=OFF");
        r.and(off)
    }

    pub fn exec(&self, sql: &str) -> Result<(), SqlError> {
        self.db.execute_batch(sql).map_err(|e| errors::from_rusqlite(self, &e, sql))
    }

    pub fn cache_get(&mut self, sql: &str) -> Option<&mut Cached> {
        self.tick += 1;
        let t = self.tick;
        let c = self.cache.get_mut(sql)?;
        c.last_use = t;
        Some(c)
    }

    pub fn cache_put(&mut self, sql: &str, mut c: Cached) {
        if self.cache.len() >= self.cache_limit {
            // Evict the least recently used eighth.
            let mut uses: Vec<u64> = self.cache.values().map(|c| c.last_use).collect();
            uses.sort_unstable();
            let cut = uses[(uses.len() / 8).min(uses.len() - 1)];
            self.cache.retain(|_, c| c.last_use > cut);
        }
        self.tick += 1;
        c.last_use = self.tick;
        self.cache.insert(sql.to_string(), c);
    }

    /// Make `db` reachable under its own name.
    pub fn attach(&mut self, db: &Arc<Db>) -> Result<(), SqlError> {
        if self.home.as_ref().is_some_and(|h| Arc::ptr_eq(h, db)) || self.attached.iter().any(|a| Arc::ptr_eq(a, db)) {
            return Ok(());
        }
        // A database dropped (and perhaps created again) since it was
        // attached still holds its name here.
        if let Some(i) = self.attached.iter().position(|a| a.name == db.name) {
            self.db.execute("DETACH DATABASE ?1", [&db.name]).map_err(|e| SqlError::new(1105, "HY000", format!("cannot close database '{}': {}", db.name, e)))?;
            self.attached.remove(i);
        }
        let path = db.file.to_string_lossy().into_owned();
        self.db.execute("ATTACH DATABASE ?1 AS ?2", rusqlite::params![path, db.name]).map_err(|e| SqlError::new(1105, "HY000", format!("cannot open database '{}': {}", db.name, e)))?;
        let q = super::schema::sq_ident(&db.name);
        let _ = self.db.execute_batch(&format!("PRAGMA {q}.synchronous=NORMAL; PRAGMA {q}.journal_mode=WAL;"));
        self.attached.push(db.clone());
        Ok(())
    }

    /// MySQL database name of a SQLite schema name on this connection.
    pub fn mysql_db_name(&self, schema: &str) -> String {
        match schema {
            "main" | "temp" => self.home.as_ref().map(|h| h.name.clone()).unwrap_or_default(),
            other => other.to_string(),
        }
    }

    /// The table definition a SQLite (schema, table) names.
    pub fn table_def(&self, schema: &str, table: &str) -> Option<Arc<super::schema::TableDef>> {
        match schema {
            "temp" => self.temp.table(table).cloned(),
            "main" => self.home.as_ref().and_then(|h| h.schema().table(table).cloned()),
            other => self.attached.iter().find(|a| a.name == other).and_then(|a| a.schema().table(table).cloned()),
        }
    }
}
