//! turnstile-sqlite: the embedded SQL engine, SQLite underneath, MySQL's
//! dialect on top.
//!
//! A crate of its own so that only what opens it (the server) links SQLite
//! (rusqlite, bundled): it implements turnstile-engine's `Engine` and
//! `EngineSession`, and reads SQL text with turnstile-sqltext, as the SQL
//! front does.
//!
//! Layout on disk: one SQLite file per database, `datadir/databases/<db>/
//! data.sqlite` (WAL mode), beside the catalog directory MySQL-style tools
//! expect. Each file also holds `turnstile_meta`, the MySQL definition of every
//! table (schema.rs), written in the same transaction as the DDL.
//!
//! How a statement runs (exec.rs): the session's pooled connection (conn.rs)
//! looks the client's text up in its statement cache; on a miss the text is
//! translated once (rewrite.rs for DML, ddl.rs for DDL) and compiled. A cached
//! prepared point select is: hash lookup, bind, step, convert, reset — no
//! parsing. Writers are serialized per database by `sync::WriterLock` (SQLite
//! has one writer per file); commits are made durable by group commit
//! (`sync::GroupCommit`). Result metadata comes from the MySQL definitions, so
//! drivers see MySQL's types and flags (exec.rs `column_meta`).
//!
//! Module map: `authorize` (what a statement touches, checked against the
//! session's privileges; SQLite internals refused), `cte` (the depth limit of
//! recursive CTEs), `cte_scope` (the CTEs a name in a WITH clause may see), `cte_mutual`
//! (mutually recursive CTEs as one), `windows` (window functions and clauses checked as
//! MariaDB checks them), `schema` (MySQL types and table definitions), `ddl` (DDL parser
//! and SQLite DDL generator), `rewrite` (DML translation), `functions` (MySQL
//! functions and the ts_ci collation), `conn` (connection, raw statements,
//! cache), `exec` (the EngineSession: transactions, locks, results, DDL
//! execution), `show` (SHOW, DESCRIBE, information_schema), `explain` (EXPLAIN of
//! a statement: SQLite's query plan as MariaDB's table), `errors` (error
//! mapping), `sync` (writer lock, group commit), `backup` (BACKUP DATA: every
//! database copied at one point), `union_order` (a UNION's rows in the
//! order first seen, as MariaDB returns them), `vfs` (SQLite's file layer
//! with a lock-free shared-memory barrier). The token cursor the parsers walk, the lexer,
//! LIKE and the date-text and civil-date rules are turnstile-sqltext's.

mod authorize;
mod backup;
mod conn;
mod cte;
pub mod cte_anchor;
pub mod cte_mutual;
pub mod cte_scope;
pub mod ddl;
mod errors;
mod exec;
mod explain;
pub mod functions;
mod info_tables;
mod mysql_user;
mod perf_tables;
pub mod rewrite;
pub mod schema;
mod show;
mod sync;
mod union_order;
mod vfs;
mod view_expand;
pub mod windows;

use conn::Conn;
use schema::{Schema, TableDef, META_TABLE};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;
use turnstile_engine::catalog::Catalog;
use turnstile_engine::{Engine, EngineSession, SqlError};

thread_local! {
    /// The connection this thread's last statement ran on, kept for its next
    /// statement (see `Inner::park_conn`), with the engine it belongs to
    /// (`Inner::id`: tests run several engines in one process).
    static PARKED: std::cell::RefCell<Option<(u64, Box<Conn>)>> = const { std::cell::RefCell::new(None) };
    /// This thread ends its parked connection's held read transaction before
    /// it sleeps (a pool worker: `Inner::thread_idle`), so one may be kept.
    static HOLDS_READS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// May an autocommit read on this thread leave its read transaction open
/// for the next one (see `Conn::held_read`)?
pub(crate) fn thread_may_hold_reads() -> bool {
    HOLDS_READS.get() && vfs::log_generation_tracked()
}

/// VERSION() inside SQL evaluated by SQLite (kept equal to the server's).
pub const SERVER_VERSION: &str = "8.0.36-turnstile";

/// File name of a database's SQLite file inside its catalog directory.
pub const DATA_FILE: &str = "data.sqlite";

/// SQLite's "unix-excl" VFS for every connection. The server owns its data
/// directory: the first connection to a database file takes an exclusive
/// POSIX lock for the whole process, and the WAL index then lives in heap
/// memory shared by this process's connections instead of a mapped `-shm` file
/// locked with fcntl(2). The default VFS made two fcntl calls per read
/// transaction, ~11% of the server's CPU on a prepared point select. The WAL
/// file itself, and so durability and crash recovery, is unchanged. Another
/// process (a second server, the sqlite3 shell) cannot open a database while
/// the server runs; it gets "database is locked". Connections open it through
/// the "turnstile" wrapper (vfs.rs), which only replaces its memory barrier.
pub const VFS: &str = "unix-excl";

/// When an acknowledged COMMIT is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync of the WAL (group commit) before COMMIT is acknowledged.
    Full,
    /// COMMIT is acknowledged once written to the OS; a background thread
    /// fsyncs every `sync_interval`. Survives a crash of the server process;
    /// an OS crash or power loss can lose the last interval's commits.
    Periodic,
}

/// Engine settings (turnstile --help lists them with their defaults).
#[derive(Debug, Clone)]
pub struct Options {
    pub durability: Durability,
    pub sync_interval: Duration,
    /// Idle SQLite connections kept per database for later sessions.
    pub pool_size: usize,
    /// Compiled statements cached per connection.
    pub statement_cache: usize,
    /// SQLite page cache per connection, KiB.
    pub cache_kib: u64,
    /// Bytes of each database file read through mmap.
    pub mmap_bytes: u64,
    /// Bytes of rows a multi-table UPDATE or DELETE keeps between its join
    /// and its writes (exec/run_multi.rs; ERR 1114 past it).
    pub multi_write_bytes: u64,
    /// Default innodb_lock_wait_timeout, seconds.
    pub lock_wait_timeout: u64,
    /// WAL pages before an automatic checkpoint.
    pub wal_autocheckpoint: u32,
    /// A database whose commits stopped for this long is checkpointed in the
    /// background (zero: never; see `Db::checkpoint_when_idle`).
    pub idle_checkpoint: Duration,
    /// SQLite's expression depth limit (SQLITE_LIMIT_EXPR_DEPTH), set from
    /// the threads' stack size by `expr_depth_for_stack`.
    pub expr_depth: u32,
    /// The longest value a statement may make (max_allowed_packet): SQLite's
    /// SQLITE_LIMIT_LENGTH and our functions' results.
    pub max_value_bytes: usize,
}

/// Stack SQLite needs per level of expression nesting while it compiles,
/// measured: nested ABS() (the worst of parentheses, +, unary minus, OR,
/// CASE, subqueries) overflowed a bare 256 KiB thread at 403 levels, 128 KiB
/// at 193 (about 650 bytes a level); with margin.
const SQLITE_STACK_PER_LEVEL: usize = 768;

/// Stack already in use when a connection thread or pool worker asks SQLite
/// to compile, and what the deepest compile needs beside the nesting.
const SQLITE_STACK_BASE: usize = 96 * 1024;

/// The expression depth SQLite may reach on a thread with `stack_bytes` of
/// stack without overflowing it: deeper statements get ERR 1436 instead of
/// killing the process. SQLite's own default (1000) is the cap.
pub fn expr_depth_for_stack(stack_bytes: usize) -> u32 {
    (stack_bytes.saturating_sub(SQLITE_STACK_BASE) / SQLITE_STACK_PER_LEVEL).clamp(16, 1000) as u32
}

impl Default for Options {
    fn default() -> Self {
        Options {
            durability: Durability::Full,
            sync_interval: Duration::from_millis(1000),
            pool_size: 256,
            statement_cache: 256,
            cache_kib: 2048,
            mmap_bytes: 256 << 20,
            multi_write_bytes: 64 << 20,
            lock_wait_timeout: 50,
            wal_autocheckpoint: 1000,
            idle_checkpoint: Duration::from_millis(200),
            expr_depth: 1000,
            max_value_bytes: 64 << 20,
        }
    }
}

/// One database (schema) and everything sessions share about it.
pub struct Db {
    pub name: String,
    pub file: PathBuf,
    schema: RwLock<Arc<Schema>>,
    pub writer: sync::WriterLock,
    pub sync: sync::GroupCommit,
    /// Boxed: a connection moves between the pool, sessions and threads' parked slots by pointer.
    #[allow(clippy::vec_box)]
    pool: Mutex<Vec<Box<Conn>>>,
    /// The connection the last writer used, handed to the next writer (see
    /// `Inner::take_writer_conn`). Only the holder of `writer` takes it.
    writer_conn: Mutex<Option<Box<Conn>>>,
    /// Keeps the WAL file alive (and its fsync target stable) while the server runs.
    anchor: Mutex<Option<rusqlite::Connection>>,
    dropped: AtomicBool,
    /// `sync.commits()` when the log was last wholly copied into the database
    /// file, and at the checkpointer's previous look.
    checkpointed: AtomicU64,
    seen: AtomicU64,
}

impl Db {
    pub fn schema(&self) -> Arc<Schema> {
        self.schema.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    pub fn set_schema(&self, s: Schema) {
        *self.schema.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(s);
    }
    pub fn dropped(&self) -> bool {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Copy the write-ahead log into the database file once commits have
    /// stopped for a checkpointer interval. Why: a page that is in the log is
    /// found through the log's hash index and read with pread into each SQLite
    /// connection's private page cache; once the log is wholly copied back,
    /// new read transactions skip the log and read pages straight from the
    /// shared memory map (`sqlite_mmap_size`). Without this a database written
    /// less than `wal_autocheckpoint` pages (a freshly loaded table) is read
    /// from the log until the server stops. PASSIVE: it never waits for or
    /// blocks readers and writers; what it cannot finish is retried next time.
    fn checkpoint_when_idle(&self) {
        let commits = self.sync.commits();
        if commits == self.checkpointed.load(Ordering::Relaxed) {
            return;
        }
        if self.seen.swap(commits, Ordering::Relaxed) != commits {
            return; // still being written
        }
        if self.checkpoint("PASSIVE") {
            self.checkpointed.store(commits, Ordering::Relaxed);
        }
    }

    /// Run `PRAGMA wal_checkpoint(mode)` on the anchor connection; true when
    /// every frame of the log is now in the database file.
    fn checkpoint(&self, mode: &str) -> bool {
        let anchor = self.anchor.lock().unwrap_or_else(|e| e.into_inner());
        let Some(a) = anchor.as_ref() else { return false };
        let r = a.query_row(&format!("PRAGMA wal_checkpoint({})", mode), [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)));
        match r {
            Ok((busy, log, done)) => busy == 0 && log == done,
            Err(e) => {
                tracing::warn!(database = %self.name, error = %e, "checkpoint failed");
                false
            }
        }
    }
}

/// Read every MySQL definition stored in a database (or attached schema).
pub fn load_schema(db: &rusqlite::Connection, sqlite_schema: &str) -> Result<Schema, SqlError> {
    let sql = format!("SELECT def FROM {}.{}", schema::sq_ident(sqlite_schema), META_TABLE);
    let mut st = db.prepare(&sql).map_err(|e| SqlError::internal(format!("reading table definitions: {}", e)))?;
    let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(|e| SqlError::internal(e.to_string()))?;
    let mut s = Schema::default();
    for r in rows {
        let text = r.map_err(|e| SqlError::internal(e.to_string()))?;
        let def: TableDef = serde_json::from_str(&text).map_err(|e| SqlError::internal(format!("bad table definition: {}", e)))?;
        s.tables.insert(def.name.to_ascii_lowercase(), Arc::new(def));
    }
    Ok(s)
}

pub(crate) struct Inner {
    catalog: Catalog,
    opts: Options,
    dbs: RwLock<HashMap<String, Arc<Db>>>,
    #[allow(clippy::vec_box)]
    nodb_pool: Mutex<Vec<Box<Conn>>>,
    /// Bumped by every DDL: cached statements re-translate, metadata is rebuilt.
    epoch: AtomicU64,
    /// DDL statements changing a schema right now (`SchemaChange`).
    schema_changes: AtomicU64,
    next_session: AtomicU64,
    /// Unique in the process (never reused, unlike an address): tells a
    /// parked connection's engine apart (`PARKED`).
    id: u64,
}

/// A schema change under way (`Inner::begin_schema_change`).
pub struct SchemaChange<'a> {
    inner: &'a Inner,
}

impl Drop for SchemaChange<'_> {
    fn drop(&mut self) {
        // The epoch moves before the change stops counting as running: a
        // compile that sees no change running sees the epoch after it.
        self.inner.bump_epoch();
        let before = self.inner.schema_changes.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(before > 0, "a schema change ended twice");
    }
}

/// Source of `Inner::id`.
static NEXT_ENGINE_ID: AtomicU64 = AtomicU64::new(1);

impl Inner {
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }
    fn bump_epoch(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// DDL is about to change a schema: the epoch moves now and again when
    /// the returned guard drops (also on an early return), and meanwhile the
    /// change counts as running (`schema_change_running`).
    pub fn begin_schema_change(&self) -> SchemaChange<'_> {
        self.schema_changes.fetch_add(1, Ordering::AcqRel);
        self.bump_epoch();
        SchemaChange { inner: self }
    }

    /// Whether some DDL is changing a schema now. A statement compiled
    /// meanwhile may have been compiled against the schema before or after
    /// the change, whatever the epoch says, so SQLite may not recompile it on
    /// its own (authorize.rs; `exec/compile.rs`).
    pub fn schema_change_running(&self) -> bool {
        self.schema_changes.load(Ordering::Acquire) != 0
    }
    /// The epoch itself, for statements stepping against it (`Conn::step_user`).
    pub fn epoch_cell(&self) -> &AtomicU64 {
        &self.epoch
    }

    /// The shared state of a database, opening its file on first use.
    pub fn db(&self, name: &str) -> Result<Arc<Db>, SqlError> {
        if let Some(d) = self.dbs.read().unwrap_or_else(|e| e.into_inner()).get(name) {
            return Ok(d.clone());
        }
        if Catalog::is_system(name) || !self.catalog.exists(name) {
            return Err(SqlError::unknown_database(name));
        }
        let mut map = self.dbs.write().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = map.get(name) {
            return Ok(d.clone());
        }
        let file = self.catalog.path_of(name).join(DATA_FILE);
        let anchor = rusqlite::Connection::open_with_flags_and_vfs(&file, rusqlite::OpenFlags::default(), vfs::name())
            .map_err(|e| SqlError::new(1030, "HY000", format!("cannot open {}: {}", file.display(), e)))?;
        // The functions every connection has, before the schema is read: a
        // generated column's expression is resolved then, and a call to a
        // built-in name with an argument count only the engine's own
        // function of that name takes (ATAN(y, x)) would fail it.
        functions::register(&anchor, Arc::new(functions::Counters::default()), Some(name.to_string()))
            .map_err(|e| SqlError::new(1030, "HY000", format!("cannot initialise {}: {}", file.display(), e)))?;
        anchor
            .execute_batch(&format!("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE IF NOT EXISTS {} (name TEXT PRIMARY KEY, def TEXT NOT NULL);", META_TABLE))
            .map_err(|e| SqlError::new(1030, "HY000", format!("cannot initialise {}: {}", file.display(), e)))?;
        let schema = load_schema(&anchor, "main")?;
        let mut wal = file.clone().into_os_string();
        wal.push("-wal");
        let db = Arc::new(Db {
            name: name.to_string(),
            file,
            schema: RwLock::new(Arc::new(schema)),
            writer: sync::WriterLock::default(),
            sync: sync::GroupCommit::new(PathBuf::from(wal)),
            pool: Mutex::new(Vec::new()),
            writer_conn: Mutex::new(None),
            anchor: Mutex::new(Some(anchor)),
            dropped: AtomicBool::new(false),
            // Unknown: a log left by the last run is checkpointed at the first look.
            checkpointed: AtomicU64::new(u64::MAX),
            seen: AtomicU64::new(0),
        });
        map.insert(name.to_string(), db.clone());
        Ok(db)
    }

    /// A connection for a session whose current database is `db`.
    /// A connection on `db` with no transaction open.
    pub fn take_conn(&self, db: Option<&str>) -> Result<Box<Conn>, SqlError> {
        let mut c = self.take_conn_for_read(db)?;
        c.end_held_read();
        Ok(c)
    }

    /// A connection on `db`, possibly with a held read transaction (for an
    /// autocommit read, which reuses or ends it).
    pub fn take_conn_for_read(&self, db: Option<&str>) -> Result<Box<Conn>, SqlError> {
        match db {
            Some(name) => {
                // The thread's parked connection, if it is on this database (no
                // lookup in the database map: this runs for most statements).
                let parked = PARKED.with_borrow_mut(|p| {
                    let mine = p.as_ref().is_some_and(|(engine, c)| *engine == self.id && c.home.as_ref().is_some_and(|h| h.name == name && !h.dropped()));
                    if mine {
                        p.take().map(|(_, c)| c)
                    } else {
                        None
                    }
                });
                if let Some(c) = parked {
                    return Ok(c);
                }
                let d = self.db(name)?;
                let pooled = d.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
                match pooled {
                    Some(c) => Ok(c),
                    None => Conn::open(Some(d), &self.opts),
                }
            }
            None => {
                let pooled = self.nodb_pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
                match pooled {
                    Some(c) => Ok(c),
                    None => Conn::open(None, &self.opts),
                }
            }
        }
    }

    /// The connection for a writer of `d` (the caller holds `d.writer`): the
    /// one the previous writer used. Why: SQLite empties a connection's page
    /// cache, and remaps its memory map, whenever another connection has
    /// committed since its last transaction. Writers are serialized anyway, so
    /// when they all run on one connection nobody else has committed when it
    /// begins: its cache and map stay warm, and the transaction that holds the
    /// writer lock (which every other writer waits for) does not spend its time
    /// re-reading pages.
    pub fn take_writer_conn(&self, d: &Arc<Db>) -> Result<Box<Conn>, SqlError> {
        let hot = d.writer_conn.lock().unwrap_or_else(|e| e.into_inner()).take();
        match hot {
            Some(c) => Ok(c),
            None => self.take_conn(Some(&d.name)),
        }
    }

    /// Give the writer connection back to `d` (the caller still holds `d.writer`).
    pub fn return_writer_conn(&self, d: &Arc<Db>, mut conn: Box<Conn>) {
        conn.held_read = None;
        if !conn.autocommit() {
            let _ = conn.exec("ROLLBACK");
        }
        if !conn.temp.tables.is_empty() || conn.attached.iter().any(|a| a.dropped()) || d.dropped() {
            return;
        }
        conn.counters.last_insert_id.store(0, Ordering::Relaxed);
        let spare = d.writer_conn.lock().unwrap_or_else(|e| e.into_inner()).replace(conn);
        if let Some(c) = spare {
            self.return_conn(c);
        }
    }

    /// A session lets go of its connection between statements: the thread
    /// keeps it for the next statement it runs on that database (no lock, and
    /// the connection stays on the core that just used it); the one it kept
    /// before goes back to the pool. A thread therefore holds at most one.
    pub fn park_conn(&self, conn: Box<Conn>) {
        if conn.home.is_none() {
            return self.return_conn(conn);
        }
        if let Some((_, previous)) = PARKED.with_borrow_mut(|p| p.replace((self.id, conn))) {
            self.return_conn(previous);
        }
    }

    /// At the end of a session: the thread's parked connection goes back to
    /// the pool too, so a thread between sessions (a cached per-connection
    /// thread) holds no SQLite connection. A pool worker keeps it, with its
    /// read snapshot, for the next session it serves (connect-per-query
    /// clients); it lets go of the snapshot before it sleeps (`thread_idle`).
    pub fn unpark_conn(&self) {
        if HOLDS_READS.get() {
            return;
        }
        if let Some((_, c)) = PARKED.with_borrow_mut(Option::take) {
            self.return_conn(c);
        }
    }

    /// The calling thread will end held reads before sleeping (pool workers).
    pub fn thread_holds_reads(&self) {
        HOLDS_READS.set(true);
    }

    /// The calling thread is about to sleep: its parked connection's held
    /// read transaction ends if something has committed since it began (a
    /// snapshot older than the log's end keeps checkpoints from finishing),
    /// or whatever its age when the thread may sleep long (`for_long`). A
    /// current snapshot held over a short sleep (at most a second: the pool's
    /// epoll wait) blocks nothing and saves the next read beginning one.
    pub fn thread_idle(&self, for_long: bool) {
        PARKED.with_borrow_mut(|p| {
            if let Some((_, c)) = p.as_mut() {
                if for_long || c.held_read.is_some_and(|g| g != vfs::log_generation()) {
                    c.end_held_read();
                }
            }
        });
    }

    /// Give a connection back (it must not be inside a transaction).
    pub fn return_conn(&self, mut conn: Box<Conn>) {
        conn.held_read = None;
        if !conn.autocommit() {
            let _ = conn.exec("ROLLBACK");
        }
        if !conn.temp.tables.is_empty() || conn.attached.iter().any(|a| a.dropped()) {
            return; // session-private state: close it
        }
        conn.counters.last_insert_id.store(0, Ordering::Relaxed);
        match conn.home.clone() {
            Some(d) if !d.dropped() => {
                let mut p = d.pool.lock().unwrap_or_else(|e| e.into_inner());
                if p.len() < self.opts.pool_size {
                    p.push(conn);
                }
            }
            Some(_) => {}
            None => {
                let mut p = self.nodb_pool.lock().unwrap_or_else(|e| e.into_inner());
                if p.len() < self.opts.pool_size {
                    p.push(conn);
                }
            }
        }
    }

    fn open_dbs(&self) -> Vec<Arc<Db>> {
        self.dbs.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    pub fn database_names(&self) -> Vec<String> {
        self.catalog.list()
    }
}

/// The engine handle the server holds.
pub struct SqliteEngine {
    inner: Arc<Inner>,
}

impl SqliteEngine {
    pub fn open(datadir: &Path, opts: Options) -> std::io::Result<SqliteEngine> {
        // No global memory statistics: they put a process-wide mutex on every
        // SQLite allocation. Only possible before SQLite initialises; harmless
        // (SQLITE_MISUSE, ignored) if it already has.
        // SAFETY: sqlite3_config with an int argument, before any connection exists.
        unsafe {
            rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS, 0 as std::os::raw::c_int);
        }
        turnstile_engine::limits::set_max_result_bytes(opts.max_value_bytes);
        let inner = Arc::new(Inner {
            catalog: Catalog::open(datadir)?,
            opts,
            dbs: RwLock::new(HashMap::new()),
            nodb_pool: Mutex::new(Vec::new()),
            epoch: AtomicU64::new(1),
            schema_changes: AtomicU64::new(0),
            next_session: AtomicU64::new(1),
            id: NEXT_ENGINE_ID.fetch_add(1, Ordering::Relaxed),
        });
        if inner.opts.durability == Durability::Periodic {
            let weak: Weak<Inner> = Arc::downgrade(&inner);
            let every = inner.opts.sync_interval.max(Duration::from_millis(1));
            std::thread::Builder::new().name("sqlite-sync".into()).spawn(move || loop {
                std::thread::sleep(every);
                let Some(inner) = weak.upgrade() else { return };
                for d in inner.open_dbs() {
                    d.sync.sync_pending();
                }
            })?;
        }
        if !inner.opts.idle_checkpoint.is_zero() {
            let weak: Weak<Inner> = Arc::downgrade(&inner);
            let every = inner.opts.idle_checkpoint;
            std::thread::Builder::new().name("sqlite-checkpoint".into()).spawn(move || loop {
                std::thread::sleep(every);
                let Some(inner) = weak.upgrade() else { return };
                for d in inner.open_dbs() {
                    d.checkpoint_when_idle();
                }
            })?;
        }
        Ok(SqliteEngine { inner })
    }
}

impl Engine for SqliteEngine {
    fn name(&self) -> &'static str {
        "sqlite"
    }
    /// Copy every log into its database file and empty it, so the next start
    /// reads from the database files and has no log to recover.
    fn shutdown(&self) {
        for d in self.inner.open_dbs() {
            d.checkpoint("TRUNCATE");
        }
    }
    fn thread_holds_reads(&self) {
        self.inner.thread_holds_reads();
    }
    fn thread_idle(&self, for_long: bool) {
        self.inner.thread_idle(for_long);
    }
    fn thread_keeps_state(&self) -> bool {
        PARKED.with_borrow(|p| p.as_ref().is_some_and(|(_, c)| c.held_read.is_some()))
    }
    fn list_databases(&self) -> Vec<String> {
        self.inner.catalog.list()
    }
    fn can_back_up(&self) -> bool {
        true
    }
    fn backup(&self, databases_dir: &Path, ctx: &turnstile_engine::ExecContext<'_>) -> Result<turnstile_engine::BackupCopied, SqlError> {
        backup::backup(&self.inner, databases_dir, ctx)
    }
    fn database_exists(&self, name: &str) -> bool {
        self.inner.catalog.exists(name)
    }
    fn create_database(&self, name: &str, if_not_exists: bool) -> Result<bool, SqlError> {
        // SQLite names attached databases case-insensitively and keeps `main`
        // and `temp` for itself: such a database could not be named in a
        // statement beside the other (MySQL on Linux allows them).
        let clash = name.eq_ignore_ascii_case("main") || name.eq_ignore_ascii_case("temp") || self.inner.catalog.list().iter().any(|n| n != name && n.eq_ignore_ascii_case(name));
        if clash && !self.inner.catalog.exists(name) {
            return Err(SqlError::unsupported("database names that are 'main', 'temp' or another database's name in other letter case"));
        }
        self.inner.catalog.create(name, if_not_exists)
    }
    fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<u64>, SqlError> {
        if Catalog::is_system(name) {
            return Err(SqlError::specific_access_denied("DROP on a system schema"));
        }
        // Statements compiled before the drop may not be recompiled by
        // SQLite on their own afterwards (authorize.rs).
        let change = self.inner.begin_schema_change();
        // Opened if it was not: its tables and views are the affected rows.
        let existing = if self.inner.catalog.exists(name) { Some(self.inner.db(name)?) } else { None };
        let tables = existing.as_ref().map_or(0, |d| d.schema().tables.len() as u64);
        if let Some(d) = existing {
            // Wait for a writer in progress (ERR 1205 after the timeout leaves
            // everything as it was), then retire the database.
            let killed = AtomicBool::new(false);
            let ctx = turnstile_engine::ExecContext::internal(&killed);
            d.writer.acquire(u64::MAX, Duration::from_secs(self.inner.opts.lock_wait_timeout), &ctx)?;
            self.inner.dbs.write().unwrap_or_else(|e| e.into_inner()).remove(name);
            d.dropped.store(true, Ordering::SeqCst);
            d.pool.lock().unwrap_or_else(|e| e.into_inner()).clear();
            *d.writer_conn.lock().unwrap_or_else(|e| e.into_inner()) = None;
            *d.anchor.lock().unwrap_or_else(|e| e.into_inner()) = None;
            d.writer.release(u64::MAX);
        }
        drop(change);
        Ok(self.inner.catalog.drop(name, if_exists)?.then_some(tables))
    }
    fn open_session(&self) -> Result<Box<dyn EngineSession>, SqlError> {
        let id = self.inner.next_session.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(exec::SqliteSession::new(self.inner.clone(), id)))
    }
}
