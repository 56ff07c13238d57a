//! `ts_dkey(e1, e2, ...)`: one value standing for a row of values, so that
//! MariaDB's `COUNT(DISTINCT e1, e2, ...)` runs as SQLite's one-argument
//! `count(DISTINCT ts_dkey(e1, e2, ...))` (rewrite/function_calls.rs).
//!
//! Why: SQLite's count() takes one argument; MariaDB counts the distinct
//! rows of several expressions, leaving out every row where one of them is
//! NULL (checked against MariaDB 10.11: 1582 before).
//!
//! How: NULL when any argument is NULL; else a BLOB that joins the values,
//! each tagged with its kind and prefixed with its length, so two rows give
//! the same key exactly when their values are equal one by one. Text is
//! compared as utf8mb4_general_ci compares it (`collate::ci_compare`: case
//! and trailing spaces ignored), the collation of every text column that
//! names none; binary values (BLOBs) byte for byte. (A text column with a
//! `_bin` collation is counted case-insensitively too: a known difference.)

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use turnstile_sqltext::collate::fold;

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    db.create_scalar_function("ts_dkey", -1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, |ctx| {
        let mut key = Vec::new();
        for i in 0..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => return Ok(SV::Null),
                ValueRef::Integer(n) => part(&mut key, b'i', &n.to_le_bytes()),
                // An integral double counts as the integer it is (1 and 1.0 are one value).
                ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => part(&mut key, b'i', &(f as i64).to_le_bytes()),
                ValueRef::Real(f) => part(&mut key, b'r', &f.to_le_bytes()),
                ValueRef::Text(t) => part(&mut key, b't', folded(t).as_bytes()),
                ValueRef::Blob(b) => part(&mut key, b'b', b),
            }
        }
        Ok(SV::Blob(key))
    })
}

/// Append one value: its kind, its length, its bytes.
fn part(key: &mut Vec<u8>, kind: u8, bytes: &[u8]) {
    key.push(kind);
    key.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    key.extend_from_slice(bytes);
}

/// Text as utf8mb4_general_ci sees it: trailing spaces dropped, each
/// character folded.
fn folded(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(t);
    s.trim_end_matches(' ').chars().map(fold).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(sql: &str) -> i64 {
        let db = Connection::open_in_memory().unwrap();
        register(&db).unwrap();
        db.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn counts_distinct_rows_without_nulls() {
        let rows = "(VALUES (1, 'a'), (1, 'A '), (1, 'b'), (2, 'a'), (NULL, 'a'), (1, NULL), (1.0, 'a'))";
        assert_eq!(count(&format!("SELECT count(DISTINCT ts_dkey(column1, column2)) FROM {}", rows)), 3);
        // Lengths keep ('ab', 'c') apart from ('a', 'bc').
        assert_eq!(count("SELECT count(DISTINCT ts_dkey(column1, column2)) FROM (VALUES ('ab', 'c'), ('a', 'bc'))"), 2);
        assert_eq!(count("SELECT count(DISTINCT ts_dkey(column1, column2)) FROM (VALUES (x'41', 1), (x'61', 1))"), 2);
    }
}
