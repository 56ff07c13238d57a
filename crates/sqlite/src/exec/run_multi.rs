//! Running a multi-table UPDATE or DELETE (rewrite/multi_table.rs): its
//! join stepped once, each target row kept once (the first join row that
//! matches it: MySQL updates a row once however many rows it joins), then
//! one write per kept row, by rowid, inside a savepoint: on an error the
//! statement leaves nothing behind, as on InnoDB.
//!
//! The rows kept between the join and the writes (each target's rowid and
//! new values) are bounded by `sqlite_multi_write_bytes`; a statement that
//! would keep more fails with ERR 1114, as MariaDB's own temporary table
//! of them fails when full.

use crate::conn::{Conn, StatementEpoch, Stmt};
use crate::errors;
use crate::rewrite::MultiInfo;
use rusqlite::ffi;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use turnstile_engine::SqlError;

/// A value copied out of the join's row (`sqlite3_value_dup`), type and
/// bytes exact, bound again as it was read.
struct Kept(*mut ffi::sqlite3_value);

impl Drop for Kept {
    fn drop(&mut self) {
        // SAFETY: from sqlite3_value_dup, freed once.
        unsafe { ffi::sqlite3_value_free(self.0) }
    }
}

/// One target's rows: (rowid, new values).
type Rows = Vec<(i64, Vec<Kept>)>;

/// What the statement did: rows matched (UPDATE's change test counts
/// them) and rows changed or deleted.
pub(super) struct MultiDone {
    pub matched: u64,
    pub changed: u64,
}

/// Run the multi-table statement whose join is the compiled `join` (its
/// parameters bound), with `m`'s writes.
pub(super) fn run(conn: &Conn, join: &Stmt, epoch: &StatementEpoch<'_>, m: &MultiInfo, original: &str, limit_bytes: u64) -> Result<MultiDone, SqlError> {
    conn.exec("SAVEPOINT ts_multi")?;
    let r = collect(conn, join, epoch, m, original, limit_bytes).and_then(|rows| apply(conn, m, &rows, original));
    join.reset();
    match r {
        Ok(done) => {
            conn.exec("RELEASE ts_multi")?;
            Ok(done)
        }
        Err(e) => {
            // SQLite may have rolled back already (then there is no savepoint).
            if !conn.autocommit() {
                let _ = conn.exec("ROLLBACK TO ts_multi");
                let _ = conn.exec("RELEASE ts_multi");
            }
            Err(e)
        }
    }
}

/// Step the join: each target's rows, the first join row for each rowid.
fn collect(conn: &Conn, join: &Stmt, epoch: &StatementEpoch<'_>, m: &MultiInfo, original: &str, limit_bytes: u64) -> Result<Vec<Rows>, SqlError> {
    let n = m.targets.len();
    let mut rows: Vec<Rows> = (0..n).map(|_| Vec::new()).collect();
    let mut seen: Vec<HashSet<i64>> = (0..n).map(|_| HashSet::new()).collect();
    let mut bytes: u64 = 0;
    let mut rc = conn.step_user(join, epoch);
    while rc == ffi::SQLITE_ROW {
        let mut col = n;
        for (k, t) in m.targets.iter().enumerate() {
            let first = col;
            col += t.values;
            // A LEFT JOIN's missing side: no row of this target.
            if join.column_type(k) == ffi::SQLITE_NULL || !seen[k].insert(join.int64(k)) {
                continue;
            }
            let mut values = Vec::with_capacity(t.values);
            for c in first..col {
                // SAFETY: a row is current and c < column_count; the copy is owned by Kept.
                let v = unsafe { ffi::sqlite3_value_dup(ffi::sqlite3_column_value(join.raw(), c as i32)) };
                if v.is_null() {
                    return Err(SqlError::new(1041, "HY000", "Out of memory; restart server and try again (needed 0 bytes)"));
                }
                // SAFETY: a valid protected value.
                bytes += 16 + unsafe { ffi::sqlite3_value_bytes(v) }.max(0) as u64;
                values.push(Kept(v));
            }
            bytes += 24;
            if bytes > limit_bytes {
                return Err(SqlError::new(1114, "HY000", format!("The table '{}' is full", t.table)));
            }
            rows[k].push((join.int64(k), values));
        }
        rc = join.step();
    }
    if rc != ffi::SQLITE_DONE {
        return Err(errors::from_conn(conn, rc, original));
    }
    Ok(rows)
}

/// The writes, target by target, each row by its rowid.
fn apply(conn: &Conn, m: &MultiInfo, rows: &[Rows], original: &str) -> Result<MultiDone, SqlError> {
    let counters = conn.counters.clone();
    let mut changed = 0;
    for (t, rows) in m.targets.iter().zip(rows) {
        if rows.is_empty() {
            continue;
        }
        let st = conn.prepare(&t.sql, original)?;
        for (rowid, values) in rows {
            for (i, v) in values.iter().enumerate() {
                // SAFETY: valid statement and value; SQLite copies it.
                unsafe { ffi::sqlite3_bind_value(st.raw(), i as i32 + 1, v.0) };
            }
            // SAFETY: valid statement.
            unsafe { ffi::sqlite3_bind_int64(st.raw(), values.len() as i32 + 1, *rowid) };
            let rc = st.step();
            if rc != ffi::SQLITE_DONE {
                return Err(errors::from_conn(conn, rc, original));
            }
            changed += conn.changes();
            st.reset();
        }
    }
    let matched = if m.update { counters.matched.load(Ordering::Relaxed) } else { changed };
    Ok(MultiDone { matched, changed })
}
