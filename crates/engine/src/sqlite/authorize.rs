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

use super::conn::{Conn, Stmt};
use super::errors;
use crate::access::{privs, Access};
use crate::SqlError;
use rusqlite::ffi;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// One table a compiled statement touches and what it does to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The MySQL database (empty for information_schema and temporary tables,
    /// which need no privilege).
    pub db: Box<str>,
    pub table: Box<str>,
    pub bits: u32,
}

/// Check every need of a statement against the session's privileges. Writes
/// are checked before reads, so `INSERT INTO t SELECT ...` by an account that
/// may not write t names t, as MySQL does.
pub fn check(needs: &[Need], access: &dyn Access) -> Result<(), SqlError> {
    // The common case, every need held, in one pass.
    if needs.iter().all(|n| n.db.is_empty() || access.privileges(&n.db) & n.bits == n.bits) {
        return Ok(());
    }
    for pass in [privs::INSERT | privs::UPDATE | privs::DELETE, privs::SELECT] {
        for n in needs.iter().filter(|n| n.bits & pass != 0 && !n.db.is_empty()) {
            access.check_table(&n.db, &n.table, n.bits & pass)?;
        }
    }
    Ok(())
}

/// Compile a client statement's SQLite text, returning it with what it touches.
/// `ctes`: the names the statement defines with WITH, which SQLite reports
/// as tables when a query reads none of their columns (`SELECT COUNT(*)
/// FROM cte`).
pub fn compile(conn: &Conn, sqlite_sql: &str, original: &str, ctes: &[String]) -> Result<(Stmt, Box<[Need]>), SqlError> {
    let mut seen = Seen { conn, ctes, needs: Vec::new(), refused: None };
    // SAFETY: the callback's argument points at `seen`, which outlives the
    // prepare call; the authorizer is removed again before `seen` is used.
    unsafe {
        ffi::sqlite3_set_authorizer(conn.handle(), Some(authorizer), &mut seen as *mut Seen as *mut c_void);
    }
    let r = conn.prepare(sqlite_sql, original);
    // SAFETY: as above; no callback is registered after this.
    unsafe {
        ffi::sqlite3_set_authorizer(conn.handle(), None, std::ptr::null_mut());
    }
    match (r, seen.refused) {
        (Ok(stmt), None) => Ok((stmt, seen.needs.into_boxed_slice())),
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(e),
    }
}

/// What the authorizer has seen so far during one compile.
struct Seen<'a> {
    conn: &'a Conn,
    ctes: &'a [String],
    needs: Vec<Need>,
    /// Why the statement is refused (the first reason).
    refused: Option<SqlError>,
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
    fn table(&mut self, schema: Option<&str>, table: &str, bits: u32) -> c_int {
        if schema.is_none() && self.ctes.iter().any(|c| c.eq_ignore_ascii_case(table)) {
            return ffi::SQLITE_OK;
        }
        match self.owner(schema, table) {
            Ok(db) => {
                match self.needs.iter_mut().find(|n| *n.db == *db && n.table.eq_ignore_ascii_case(table)) {
                    Some(n) => n.bits |= bits,
                    None => self.needs.push(Need { db: db.into(), table: table.into(), bits }),
                }
                ffi::SQLITE_OK
            }
            Err(e) => self.refuse(e),
        }
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
        if schema.eq_ignore_ascii_case("information_schema") && c.info_attached {
            return Ok(String::new());
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
        if lower.starts_with("sqlite_") || lower == "load_extension" {
            let db = self.conn.home.as_ref().map_or("", |h| h.name.as_str());
            return self.refuse(SqlError::new(1305, "42000", format!("FUNCTION {}.{} does not exist", db, name)));
        }
        ffi::SQLITE_OK
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

/// SQLite's authorizer callback (see `compile`).
unsafe extern "C" fn authorizer(arg: *mut c_void, action: c_int, a3: *const c_char, a4: *const c_char, schema: *const c_char, _accessor: *const c_char) -> c_int {
    // SAFETY: `arg` is the `Seen` of the compile in progress on this thread.
    let seen = &mut *(arg as *mut Seen<'_>);
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
    match a3 {
        Some(table) => seen.table(schema, table, bits),
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
        Need { db: db.into(), table: table.into(), bits }
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
