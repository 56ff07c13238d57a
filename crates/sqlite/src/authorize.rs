//! What a client's statement touches, learned from SQLite itself while it
//! compiles, and what it may never touch.
//!
//! Why SQLite's authorizer and not our own reading of the text: SQLite calls
//! it for every table (and column) the compiled program will read or write,
//! after it has resolved every name: `db.table` under any quoting, subqueries,
//! JOINs, CTEs, `INSERT ... SELECT`, `count(*)` (a read with no column). A
//! parse of our own would have to get all of that right to be safe; this way
//! a table cannot be touched without SQLite telling us.
//!
//! At compile time (`compile`) each table reference becomes a `Need`: the
//! MySQL database and table, and the privilege bits the statement needs on it
//! (SELECT for a read, INSERT/UPDATE/DELETE for a write). The needs are kept
//! with the cached statement and checked against the session's `Access` on
//! every execution (`check`), so a statement compiled for one session and run
//! by another, or run after a REVOKE, is checked for the session running it.
//!
//! Refused outright, whoever asks: SQLite's own tables (`sqlite_master`,
//! `sqlite_sequence`, ...), Turnstile's `turnstile_meta`, table-valued
//! functions (`pragma_table_info`, `json_each`), anything that is not a table
//! of a MySQL database or information_schema, `sqlite_*` functions and
//! `load_extension`, PRAGMA, ATTACH and DDL. A client sees MySQL's "doesn't
//! exist" errors for them, never SQLite's.
//!
//! Temporary tables are the session's own: once created they need no
//! privilege (MySQL checks none either).
//!
//! Two more sources close what the authorizer alone leaves open:
//! - SQLite does not report the columns of a NATURAL or USING join, so a
//!   table used only through them would go unseen. After compiling, the
//!   statement's own program is read (`sqlite3_stmt_explain`): every table it
//!   opens for reading (OpenRead, by root page) needs SELECT, every table it
//!   opens for writing must be one the statement writes, and a virtual table
//!   (VOpen: `pragma_*`, `json_each`) is refused. Root pages are read against
//!   the schema as it is now, so the program must be compiled against the
//!   same: SQLite compiles against its in-memory copy and checks the copy
//!   only when a statement steps, so `Conn::refresh_schemas` brings the copy
//!   up to date before a compile when any DDL ran since, and a compile during
//!   which DDL ran is compiled again (1412). Without both, sessions creating
//!   and filling tables at once had their INSERTs refused (sysbench prepare).
//! - SQLite recompiles a cached statement by itself when the schema changed,
//!   and names may then resolve elsewhere (a table dropped from the current
//!   database, another attached database with a table of that name). The
//!   authorizer stays installed for the connection's life: while a client's
//!   statement steps (`Conn::step_user`) after any DDL since it was compiled
//!   (the engine's epoch moved; DDL moves it before and after it changes
//!   anything) it refuses every table, so such a recompile fails and the
//!   engine compiles the statement again through `compile` (ERR 1412,
//!   retried once). A recompile with no DDL in between (SQLite redoes a plan
//!   when a parameter that shaped it is bound anew) resolves every name as
//!   before and is let through. Between calls (the engine's own statements)
//!   it allows everything.

use super::conn::{CallCtx, Conn, Stmt};
use super::errors;
use rusqlite::ffi;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use turnstile_engine::access::{privs, Access};
use turnstile_engine::SqlError;

/// One table a compiled statement touches and what it does to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The MySQL database (empty for information_schema and temporary tables,
    /// which need no privilege).
    pub db: Box<str>,
    pub table: Box<str>,
    pub bits: u32,
    /// The columns read (SELECT) and written (UPDATE), as SQLite reported
    /// them: what column-level grants may cover.
    pub columns: Vec<(Box<str>, u32)>,
    /// The bits needed on the table as a whole (INSERT, DELETE, a read with
    /// no column: `count(*)`, a table opened with no column reported): only
    /// global, database or table grants cover them.
    pub whole: u32,
}

impl Need {
    /// A need on the table as a whole.
    pub fn new(db: &str, table: &str, bits: u32) -> Need {
        Need { db: db.into(), table: table.into(), bits, columns: Vec::new(), whole: bits }
    }
}

/// Check every need of a statement against the session's privileges. Writes
/// are checked before reads, so `INSERT INTO t SELECT ...` by an account that
/// may not write t names t, as MySQL does.
pub fn check(needs: &[Need], access: &dyn Access) -> Result<(), SqlError> {
    // The common case, every need held on the database, in one pass.
    if needs.iter().all(|n| n.db.is_empty() || access.privileges(&n.db) & n.bits == n.bits) {
        return Ok(());
    }
    for pass in [privs::INSERT | privs::UPDATE | privs::DELETE, privs::SELECT] {
        for n in needs.iter().filter(|n| n.bits & pass != 0 && !n.db.is_empty()) {
            check_need(n, n.bits & pass, access)?;
        }
    }
    Ok(())
}

/// `need` of `n`'s bits on its table, with what the table's grants leave
/// met column by column where SQLite reported the columns.
fn check_need(n: &Need, need: u32, access: &dyn Access) -> Result<(), SqlError> {
    let held = access.held_on_table(&n.db, &n.table);
    let missing = need & !held;
    if missing == 0 {
        return Ok(());
    }
    if missing & (n.whole | !(privs::SELECT | privs::UPDATE)) != 0 || access.any_column_privileges(&n.db, &n.table) & missing == 0 {
        return access.check_table(&n.db, &n.table, need);
    }
    for (column, bits) in &n.columns {
        let want = bits & missing;
        let held = if column.is_empty() { access.any_column_privileges(&n.db, &n.table) } else { access.column_privileges(&n.db, &n.table, column) };
        let lacking = want & !held;
        if lacking != 0 {
            let (user, host) = access.who();
            return Err(SqlError::column_access_denied(privs::first_missing(lacking, 0), user, host, column, &n.table));
        }
    }
    Ok(())
}

/// What a statement may touch besides the tables it names.
pub struct Rules<'a> {
    /// The names the statement defines with WITH, which SQLite reports as
    /// tables when a query reads none of their columns (`SELECT COUNT(*)
    /// FROM cte`).
    pub ctes: &'a [String],
    /// The statement reads information_schema, which is refilled for it with
    /// what the session may see: any other statement must not read it (it
    /// holds what the last statement that filled it could see).
    pub info_schema: bool,
}

/// Make the connection's authorizer the one of this module, for good.
pub fn install(conn: &Conn) {
    // SAFETY: the CallCtx is boxed and lives as long as the connection,
    // which is when the callback can run.
    unsafe {
        ffi::sqlite3_set_authorizer(conn.handle(), Some(authorizer), &*conn.call as *const CallCtx as *mut c_void);
    }
}

/// Compile a client statement's SQLite text, returning it with what it touches.
pub fn compile(conn: &Conn, sqlite_sql: &str, original: &str, rules: &Rules<'_>) -> Result<(Stmt, Box<[Need]>), SqlError> {
    let (stmt, needs, _) = compile_reading(conn, sqlite_sql, original, rules)?;
    Ok((stmt, needs))
}

/// (database, table) of each table a named column of which is read.
pub type ColumnReads = Vec<(String, String)>;

/// `compile`, also returning the tables of which the statement reads a named
/// column (a multi-table UPDATE's target needs SELECT only then:
/// rewrite/multi_table.rs), as MySQL databases and tables.
pub fn compile_reading(conn: &Conn, sqlite_sql: &str, original: &str, rules: &Rules<'_>) -> Result<(Stmt, Box<[Need]>, ColumnReads), SqlError> {
    let mut seen = Seen { conn, rules, needs: Vec::new(), refused: None, column_reads: Vec::new() };
    conn.call.auth_seen.set(&mut seen as *mut Seen as *mut c_void);
    let r = conn.prepare(sqlite_sql, original);
    conn.call.auth_seen.set(std::ptr::null_mut());
    let stmt = match (r, seen.refused.take()) {
        (Ok(stmt), None) => stmt,
        (_, Some(e)) => return Err(e),
        (Err(e), None) => return Err(e),
    };
    seen.program(&stmt)?;
    if mentions_word(sqlite_sql, "natural") || mentions_word(sqlite_sql, "using") {
        // SQLite does not report the columns a NATURAL or USING join
        // compares: column-level grants cannot vouch for such a statement.
        for n in &mut seen.needs {
            n.whole |= n.bits & privs::SELECT;
        }
    }
    Ok((stmt, seen.needs.into_boxed_slice(), seen.column_reads))
}

/// Does `sql` hold `word` (lower case) as a word anywhere, literals
/// included (a false match only makes the check stricter)?
fn mentions_word(sql: &str, word: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    let b = lower.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    lower.match_indices(word).any(|(i, _)| (i == 0 || !is_word(b[i - 1])) && b.get(i + word.len()).is_none_or(|&c| !is_word(c)))
}

/// What the authorizer has seen so far during one compile.
struct Seen<'a> {
    conn: &'a Conn,
    rules: &'a Rules<'a>,
    needs: Vec<Need>,
    /// Why the statement is refused (the first reason).
    refused: Option<SqlError>,
    /// (database, table) of each table a named column of which is read.
    column_reads: Vec<(String, String)>,
}

impl Seen<'_> {
    fn refuse(&mut self, e: SqlError) -> c_int {
        if self.refused.is_none() {
            self.refused = Some(e);
        }
        ffi::SQLITE_DENY
    }

    /// A read or write of `table` in SQLite schema `schema` (None: the name
    /// was not qualified; SQLite looked in temp, then main).
    /// `column`: the column read or written, when SQLite names one.
    fn table(&mut self, schema: Option<&str>, table: &str, column: Option<&str>, bits: u32) -> c_int {
        match self.need(schema, table, column, bits) {
            Ok(()) => ffi::SQLITE_OK,
            Err(e) => self.refuse(e),
        }
    }

    fn need(&mut self, schema: Option<&str>, table: &str, column: Option<&str>, bits: u32) -> Result<(), SqlError> {
        if schema.is_none() && self.rules.ctes.iter().any(|c| c.eq_ignore_ascii_case(table)) {
            return Ok(());
        }
        let db = self.owner(schema, table)?;
        let n = match self.needs.iter().position(|n| *n.db == *db && n.table.eq_ignore_ascii_case(table)) {
            Some(i) => &mut self.needs[i],
            None => {
                self.needs.push(Need { db: db.into(), table: table.into(), bits: 0, columns: Vec::new(), whole: 0 });
                self.needs.last_mut().expect("just pushed")
            }
        };
        n.bits |= bits;
        // A read of no column (`count(*)`) is recorded as the column "":
        // any column-level SELECT covers it, as in MariaDB.
        match column.filter(|_| bits & !(privs::SELECT | privs::UPDATE) == 0) {
            Some(c) => match n.columns.iter_mut().find(|(name, _)| name.eq_ignore_ascii_case(c)) {
                Some((_, b)) => *b |= bits,
                None => n.columns.push((c.into(), bits)),
            },
            None => n.whole |= bits,
        }
        Ok(())
    }

    /// The MySQL database whose privileges cover `table` ("" when none are
    /// needed), or the error for a table no client may touch.
    fn owner(&self, schema: Option<&str>, table: &str) -> Result<String, SqlError> {
        let c = self.conn;
        let home = c.home.as_ref().map(|h| h.name.as_str());
        // Unqualified: where SQLite looks, in its order (temp, main, attached).
        let schema = match schema {
            Some(s) => s,
            None if c.temp.table(table).is_some() => "temp",
            None => match c.attached.iter().find(|a| a.schema().table(table).is_some()) {
                Some(a) if c.home.as_ref().is_none_or(|h| h.schema().table(table).is_none()) => a.name.as_str(),
                _ => "main",
            },
        };
        let missing = |db: &str| errors::no_such_table(db, table);
        if schema.eq_ignore_ascii_case("temp") {
            return match c.temp.table(table) {
                Some(_) => Ok(String::new()),
                None => Err(missing(home.unwrap_or(""))),
            };
        }
        if schema.eq_ignore_ascii_case("information_schema") && c.info_attached && self.rules.info_schema {
            // `mysql.user` (mysql_user.rs): SELECT on `mysql`, checked for every session.
            return Ok(if table.eq_ignore_ascii_case("user") { "mysql".to_string() } else { String::new() });
        }
        if schema.eq_ignore_ascii_case(crate::perf_tables::SCHEMA) && c.info_attached && self.rules.info_schema {
            // SELECT on performance_schema, as in MariaDB.
            return Ok(crate::perf_tables::SCHEMA.to_string());
        }
        if schema.eq_ignore_ascii_case("main") {
            let Some(h) = c.home.as_ref() else {
                return Err(SqlError::no_database());
            };
            return match h.schema().table(table) {
                Some(_) => Ok(h.name.clone()),
                None => Err(missing(&h.name)),
            };
        }
        match c.attached.iter().find(|a| a.name.eq_ignore_ascii_case(schema)) {
            Some(a) if a.schema().table(table).is_some() => Ok(a.name.clone()),
            Some(a) => Err(missing(&a.name)),
            None => Err(missing(schema)),
        }
    }

    fn function(&mut self, name: &str) -> c_int {
        let lower = name.to_ascii_lowercase();
        // SQLite's own: its version and build, extensions, and counters of
        // the pooled connection (other sessions' writes show in them).
        if lower.starts_with("sqlite_") || ["load_extension", "changes", "total_changes", "last_insert_rowid"].contains(&lower.as_str()) {
            let db = self.conn.home.as_ref().map_or("", |h| h.name.as_str());
            return self.refuse(SqlError::new(1305, "42000", format!("FUNCTION {}.{} does not exist", db, name)));
        }
        ffi::SQLITE_OK
    }
}

impl Seen<'_> {
    /// Read the compiled program (see the module header): what it opens.
    fn program(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        let writes: Vec<(String, String)> = self.needs.iter().filter(|n| n.bits & (privs::INSERT | privs::UPDATE | privs::DELETE) != 0).map(|n| (n.db.to_string(), n.table.to_lowercase())).collect();
        for open in opens(self.conn, stmt)? {
            let Some((schema, table)) = open.table else {
                // A virtual table: a table-valued function.
                return Err(SqlError::new(1146, "42S02", "Table-valued functions do not exist here"));
            };
            if open.write {
                // Only what the statement writes (its indexes included), and
                // AUTO_INCREMENT's counter.
                if table == "sqlite_sequence" {
                    continue;
                }
                let db = self.owner(Some(&schema), &table)?;
                if !db.is_empty() && !writes.iter().any(|(d, t)| *d == db && *t == table.to_lowercase()) {
                    return Err(SqlError::internal("the statement writes a table it does not name"));
                }
                continue;
            }
            if table == "sqlite_sequence" && !writes.is_empty() {
                continue;
            }
            // A write reads its own target to find its rows (the columns it
            // reads for that were reported above), and the tables that check
            // or carry out a foreign key.
            if self.owner(Some(&schema), &table).is_ok_and(|db| writes.iter().any(|(d, t)| *d == db && *t == table.to_lowercase())) || self.checks_foreign_key(&writes, &schema, &table) {
                continue;
            }
            // A table opened for reading whose reads SQLite reported is
            // covered by those; one it did not (a NATURAL or USING join's
            // columns) needs SELECT on the table as a whole.
            let reported = self.owner(Some(&schema), &table).is_ok_and(|db| self.needs.iter().any(|n| *n.db == *db && n.table.eq_ignore_ascii_case(&table) && n.bits & privs::SELECT != 0));
            if !reported {
                self.need(Some(&schema), &table, None, privs::SELECT)?;
            }
        }
        Ok(())
    }

    /// A write that reads `table` only to check or enforce a foreign key of
    /// a table it writes (a parent of it or a child of it): MySQL asks for no
    /// privilege on that table.
    fn checks_foreign_key(&self, writes: &[(String, String)], schema: &str, table: &str) -> bool {
        let Ok(db) = self.owner(Some(schema), table) else { return false };
        let related = |w: &str, other: &str| -> bool {
            let Some(wd) = self.conn.table_def(schema, w) else { return false };
            let parent = wd.foreign_keys.iter().any(|fk| fk.ref_table.eq_ignore_ascii_case(other));
            let child = self.conn.table_def(schema, other).is_some_and(|od| od.foreign_keys.iter().any(|fk| fk.ref_table.eq_ignore_ascii_case(w)));
            parent || child
        };
        writes.iter().any(|(d, w)| *d == db && related(w, table))
    }
}

/// One table or index the program opens.
struct Open {
    /// (SQLite schema, table) owning the opened b-tree; None for a virtual table.
    table: Option<(String, String)>,
    write: bool,
}

/// The b-trees and virtual tables a compiled statement opens, from its
/// EXPLAIN listing (opcode, P2 = root page, P3 = database index).
fn opens(conn: &Conn, stmt: &Stmt) -> Result<Vec<Open>, SqlError> {
    let st = stmt.raw();
    let mut roots: Vec<(i32, i64, bool)> = Vec::new();
    let mut virtual_table = false;
    // SAFETY: a valid, reset statement; EXPLAIN mode is switched off again
    // (and the statement reset) before it is used for anything else.
    unsafe {
        if ffi::sqlite3_stmt_explain(st, 1) != ffi::SQLITE_OK {
            return Err(SqlError::internal("cannot read the compiled statement"));
        }
        while ffi::sqlite3_step(st) == ffi::SQLITE_ROW {
            let op = ffi::sqlite3_column_text(st, 1);
            let op = if op.is_null() { "" } else { CStr::from_ptr(op as *const c_char).to_str().unwrap_or("") };
            match op {
                "OpenRead" | "OpenWrite" | "ReopenIdx" => roots.push((ffi::sqlite3_column_int(st, 4), ffi::sqlite3_column_int64(st, 3), op == "OpenWrite")),
                "VOpen" => virtual_table = true,
                _ => {}
            }
        }
        ffi::sqlite3_reset(st);
        ffi::sqlite3_stmt_explain(st, 0);
    }
    let mut out = Vec::with_capacity(roots.len() + 1);
    if virtual_table {
        out.push(Open { table: None, write: false });
    }
    roots.sort_unstable();
    roots.dedup();
    for (db_index, root, write) in roots {
        // SAFETY: valid handle; the name is copied before any other call.
        let schema = unsafe {
            let p = ffi::sqlite3_db_name(conn.handle(), db_index);
            if p.is_null() {
                return Err(SqlError::internal("a database the statement opens has no name"));
            }
            CStr::from_ptr(p).to_string_lossy().into_owned()
        };
        let table = if root == 1 { "sqlite_master".to_string() } else { table_of_root(conn, &schema, root)? };
        out.push(Open { table: Some((schema, table)), write });
    }
    Ok(out)
}

/// The table whose b-tree (the table's own or one of its indexes) starts at `root`.
fn table_of_root(conn: &Conn, schema: &str, root: i64) -> Result<String, SqlError> {
    let sql = format!("SELECT tbl_name FROM {}.sqlite_schema WHERE rootpage = ?1", super::schema::sq_ident(schema));
    let mut st = conn.db.prepare_cached(&sql).map_err(|e| SqlError::internal(format!("reading the schema: {}", e)))?;
    match st.query_row([root], |r| r.get::<_, String>(0)) {
        Ok(t) => Ok(t),
        // Another session changed the schema since the statement was
        // compiled: compile it again (the engine retries 1412 once).
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(super::errors::table_definition_changed()),
        Err(e) => Err(SqlError::internal(format!("reading the schema: {}", e))),
    }
}

fn text<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        // SAFETY: SQLite passes NUL-terminated strings valid for the call.
        unsafe { CStr::from_ptr(p) }.to_str().ok()
    }
}

/// SQLite's authorizer callback, installed for the connection's life (see
/// the module header): collects during `compile`, refuses tables while a
/// client's statement steps, allows the engine's own statements.
unsafe extern "C" fn authorizer(arg: *mut c_void, action: c_int, a3: *const c_char, a4: *const c_char, schema: *const c_char, _accessor: *const c_char) -> c_int {
    // SAFETY: `arg` is the connection's boxed CallCtx.
    let call = &*(arg as *const CallCtx);
    let seen = call.auth_seen.get();
    if seen.is_null() {
        let table_action = matches!(action, ffi::SQLITE_READ | ffi::SQLITE_INSERT | ffi::SQLITE_UPDATE | ffi::SQLITE_DELETE);
        if call.stepping.get() && table_action && call.schema_changed() {
            // SQLite is recompiling a client's statement on its own after a
            // schema change: its names might now resolve elsewhere.
            call.recompile_refused.set(true);
            return ffi::SQLITE_DENY;
        }
        return ffi::SQLITE_OK;
    }
    // SAFETY: `auth_seen` points at the `Seen` of the compile in progress on
    // this thread (set and cleared around sqlite3_prepare by `compile`).
    let seen = &mut *(seen as *mut Seen<'_>);
    let (a3, a4, schema) = (text(a3), text(a4), text(schema));
    let bits = match action {
        ffi::SQLITE_READ => privs::SELECT,
        ffi::SQLITE_INSERT => privs::INSERT,
        ffi::SQLITE_UPDATE => privs::UPDATE,
        ffi::SQLITE_DELETE => privs::DELETE,
        ffi::SQLITE_SELECT | ffi::SQLITE_RECURSIVE => return ffi::SQLITE_OK,
        ffi::SQLITE_FUNCTION => return seen.function(a4.unwrap_or("")),
        _ => return seen.refuse(SqlError::new(1235, "42000", "This version of Turnstile doesn't yet support 'this statement'")),
    };
    if action == ffi::SQLITE_READ && a4.is_some_and(|c| !c.is_empty()) {
        if let (Some(table), Ok(db)) = (a3, seen.owner(schema, a3.unwrap_or(""))) {
            seen.column_reads.push((db, table.to_string()));
        }
    }
    match a3 {
        Some(table) => seen.table(schema, table, a4, bits),
        None => seen.refuse(SqlError::internal("a table without a name")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Only(&'static str, u32);
    impl Access for Only {
        fn privileges(&self, db: &str) -> u32 {
            if db == self.0 {
                self.1
            } else {
                0
            }
        }
        fn who(&self) -> (&str, &str) {
            ("u", "h")
        }
    }

    fn need(db: &str, table: &str, bits: u32) -> Need {
        Need::new(db, table, bits)
    }

    #[test]
    fn writes_are_checked_before_reads_and_private_tables_need_nothing() {
        let needs = [need("d2", "secret", privs::SELECT), need("d1", "x", privs::INSERT), need("", "tmp", privs::DELETE)];
        let e = check(&needs, &Only("d1", privs::SELECT)).unwrap_err();
        assert!(e.message.starts_with("INSERT command denied") && e.message.ends_with("`d1`.`x`"), "{}", e.message);
        let e = check(&needs, &Only("d1", privs::ALL)).unwrap_err();
        assert!(e.message.starts_with("SELECT command denied") && e.message.ends_with("`d2`.`secret`"), "{}", e.message);
        assert!(check(&needs[2..], &Only("d1", 0)).is_ok());
    }
}
