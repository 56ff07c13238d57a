//! Exact DECIMAL in SQLite: the `ts_dec` collation stored DECIMAL columns
//! sort and compare by, `ts_dec` (a value stored into a DECIMAL column),
//! the arithmetic functions the rewriter writes for MySQL's DECIMAL
//! expressions (rewrite/decimal.rs), and the SUM and AVG of DECIMAL.
//!
//! A DECIMAL column is stored as TEXT in canonical form with exactly the
//! column's scale (`12.50`), so a value is kept exactly up to MySQL's 65
//! digits; the collation orders those texts as numbers (turnstile-sqltext's
//! `decimal::cmp_text`), so comparisons with numbers (which SQLite converts
//! to text by the column's TEXT affinity), ORDER BY, GROUP BY, MIN/MAX and
//! indexes are numeric. The arithmetic is turnstile-sqltext's `Decimal`:
//! each function returns its exact result as text (a quotient with the
//! digits MariaDB keeps), and `ts_dval(x, scale)` rounds a value the client
//! sees to the scale MySQL's rules give the expression (decided by the
//! rewriter from the operand types).

use super::{user_err, Counters};
use rusqlite::functions::{Aggregate, Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::{ffi, Connection, Error};
use std::cmp::Ordering;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;
use turnstile_sqltext::decimal::{cmp_text, Decimal, MAX_SCALE};

/// The `ts_dec` collation's callback: `cmp_text`.
unsafe extern "C" fn dec_cmp(_: *mut c_void, l1: c_int, p1: *const c_void, l2: c_int, p2: *const c_void) -> c_int {
    // SAFETY: SQLite passes two valid buffers with their lengths.
    let a = if l1 > 0 { std::slice::from_raw_parts(p1 as *const u8, l1 as usize) } else { &[] };
    let b = if l2 > 0 { std::slice::from_raw_parts(p2 as *const u8, l2 as usize) } else { &[] };
    match cmp_text(a, b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// An operand of a DECIMAL expression: `None` for NULL. Text that is no
/// number counts as its numeric prefix, as MySQL reads a string in numeric context.
fn operand(v: ValueRef<'_>) -> Option<Decimal> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Decimal::from_i64(i)),
        ValueRef::Real(f) => Some(Decimal::from_f64(f).unwrap_or_else(Decimal::zero)),
        ValueRef::Text(t) | ValueRef::Blob(t) => Decimal::parse(t).or_else(|| turnstile_wire::value::parse_number_prefix(t).and_then(Decimal::from_f64)).or_else(|| Some(Decimal::zero())),
    }
}

/// The scale argument `i` (a small literal the rewriter wrote), bounded.
fn scale_arg(ctx: &Context<'_>, i: usize) -> u32 {
    match ctx.get_raw(i) {
        ValueRef::Integer(s) => s.clamp(0, MAX_SCALE as i64) as u32,
        _ => 0,
    }
}

fn text_of(d: &Decimal) -> SV {
    SV::Text(d.to_string())
}

/// `ts_dec(value, precision, scale, unsigned, column, qualified column,
/// row)`: the value as a DECIMAL(precision, scale) column stores it, rounded
/// half away from zero, with MariaDB's Note 1265 when that dropped digits
/// (or trailing spaces) at `row` (0: counted per column); MySQL's
/// strict-mode errors when it does not fit (1264) or is no number (1366, or
/// 1265 for a number followed by other text).
fn store(ctx: &Context<'_>, counters: Option<&Counters>) -> rusqlite::Result<SV> {
    let v = ctx.get_raw(0);
    let precision = match ctx.get_raw(1) {
        ValueRef::Integer(p) => p.clamp(1, 65) as u32,
        _ => 10,
    };
    let scale = scale_arg(ctx, 2).min(precision);
    let unsigned = matches!(ctx.get_raw(3), ValueRef::Integer(1));
    let col = || String::from_utf8_lossy(ctx.get_raw(4).as_bytes().unwrap_or(&b"?"[..])).into_owned();
    let (d, trailing_space) = match v {
        ValueRef::Null => return Ok(SV::Null),
        ValueRef::Integer(i) => (Decimal::from_i64(i), false),
        ValueRef::Real(f) => (Decimal::from_f64(f).ok_or_else(|| user_err(format!("ts:1264:{}", col())))?, false),
        ValueRef::Text(t) | ValueRef::Blob(t) => match Decimal::parse(t) {
            Some(d) => (d, t.last().is_some_and(u8::is_ascii_whitespace)),
            None => return Err(bad_text(ctx, t)),
        },
    };
    let rounded = d.round(scale);
    if rounded.int_digits() > precision - scale || unsigned && rounded.is_negative() {
        return Err(user_err(format!("ts:1264:{}", col())));
    }
    let row = match ctx.get_raw(6) {
        ValueRef::Integer(r) if r > 0 => Some(r as u64),
        _ => None,
    };
    if let Some(counters) = counters {
        note_row(counters, &col(), row, trailing_space || rounded.cmp(&d) != Ordering::Equal);
    }
    Ok(text_of(&rounded))
}

/// Count a value stored into `col` and, when it was `truncated`, raise
/// MariaDB's Note 1265 naming its row (`row`, or the column's count).
fn note_row(counters: &Counters, col: &str, row: Option<u64>, truncated: bool) {
    if row.is_some() && !truncated {
        return;
    }
    counters.noted.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut notes = counters.notes.lock().unwrap_or_else(|e| e.into_inner());
    let row = match row {
        Some(r) => r,
        None => {
            let seen = notes.rows.entry(col.to_string()).or_insert(0);
            *seen += 1;
            *seen
        }
    };
    if truncated {
        notes.raise(turnstile_engine::Level::Note, 1265, format!("Data truncated for column '{}' at row {}", col, row));
    }
}

/// The error for text stored into a DECIMAL column that is no number:
/// 1265 when a number starts it (MySQL's strict mode), else 1366.
fn bad_text(ctx: &Context<'_>, t: &[u8]) -> Error {
    let starts_numeric = t.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'));
    if starts_numeric {
        let col = String::from_utf8_lossy(ctx.get_raw(4).as_bytes().unwrap_or(&b"?"[..])).into_owned();
        return user_err(format!("ts:1265:{}", col));
    }
    let qualified = String::from_utf8_lossy(ctx.get_raw(5).as_bytes().unwrap_or(&b"?"[..])).into_owned();
    let shown: String = String::from_utf8_lossy(t).chars().take(64).collect();
    user_err(format!("ts:1366:Incorrect decimal value: '{}' for column {} at row 1", shown, qualified))
}

/// A binary DECIMAL operation `(a, b)`: NULL if either is NULL, else
/// `op`'s exact result (`op` gives None for a division by zero: NULL). The
/// result keeps all its digits (a quotient MariaDB's); `ts_dval` rounds
/// what the client sees to the expression's scale.
fn binary(ctx: &Context<'_>, op: fn(&Decimal, &Decimal) -> Option<Decimal>) -> rusqlite::Result<SV> {
    let (Some(a), Some(b)) = (operand(ctx.get_raw(0)), operand(ctx.get_raw(1))) else {
        return Ok(SV::Null);
    };
    Ok(match op(&a, &b) {
        Some(r) => text_of(&r),
        None => SV::Null,
    })
}

/// SUM (`ts_dsum(x)`) and AVG (`ts_davg(x)`) of DECIMAL values, exact (the
/// average as MariaDB divides).
struct DecAggregate {
    avg: bool,
}

impl Aggregate<(Decimal, u64), SV> for DecAggregate {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(Decimal, u64)> {
        Ok((Decimal::zero(), 0))
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut (Decimal, u64)) -> rusqlite::Result<()> {
        if let Some(v) = operand(ctx.get_raw(0)) {
            acc.0 = acc.0.add(&v);
            acc.1 += 1;
        }
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<(Decimal, u64)>) -> rusqlite::Result<SV> {
        let Some((sum, n)) = acc.filter(|a| a.1 > 0) else {
            return Ok(SV::Null);
        };
        if self.avg {
            Ok(sum.div_internal(&Decimal::from_u64(n)).map_or(SV::Null, |d| text_of(&d)))
        } else {
            Ok(text_of(&sum))
        }
    }
}

/// Register the collation and the functions on a new connection.
pub(super) fn register(db: &Connection, counters: Arc<Counters>) -> rusqlite::Result<()> {
    // SAFETY: registering a plain C comparison function without user data.
    unsafe {
        let rc = ffi::sqlite3_create_collation_v2(db.handle(), c"ts_dec".as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), Some(dec_cmp), None);
        if rc != ffi::SQLITE_OK {
            return Err(Error::SqliteFailure(ffi::Error::new(rc), Some("cannot register collation ts_dec".into())));
        }
    }
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // Not deterministic: it counts rows and raises notes, once per row.
    db.create_scalar_function("ts_dec", 7, FunctionFlags::SQLITE_UTF8, move |ctx| store(ctx, Some(&counters)))?;
    // The same value again, for the change test of UPDATE and upsert: no note, no row counted.
    db.create_scalar_function("ts_dec_q", 7, flags, |ctx| store(ctx, None))?;
    db.create_scalar_function("ts_dadd", 2, flags, |ctx| binary(ctx, |a, b| Some(a.add(b))))?;
    db.create_scalar_function("ts_dsub", 2, flags, |ctx| binary(ctx, |a, b| Some(a.sub(b))))?;
    db.create_scalar_function("ts_dmul", 2, flags, |ctx| binary(ctx, |a, b| Some(a.mul(b))))?;
    db.create_scalar_function("ts_ddiv", 2, flags, |ctx| binary(ctx, Decimal::div_internal))?;
    db.create_scalar_function("ts_dval", 2, flags, |ctx| match operand(ctx.get_raw(0)) {
        Some(d) => Ok(text_of(&d.round(scale_arg(ctx, 1)))),
        None => Ok(SV::Null),
    })?;
    db.create_aggregate_function("ts_dsum", 1, flags, DecAggregate { avg: false })?;
    db.create_aggregate_function("ts_davg", 1, flags, DecAggregate { avg: true })
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    fn one(db: &Connection, sql: &str) -> String {
        db.query_row(sql, [], |r| {
            r.get::<_, rusqlite::types::Value>(0).map(|v| match v {
                rusqlite::types::Value::Null => None,
                rusqlite::types::Value::Integer(i) => Some(i.to_string()),
                rusqlite::types::Value::Text(t) => Some(t),
                other => Some(format!("{:?}", other)),
            })
        })
        .unwrap_or_else(|e| Some(format!("ERR {}", e)))
        .unwrap_or_else(|| "NULL".into())
    }

    #[test]
    fn stored_sorted_and_computed_exactly() {
        let db = Connection::open_in_memory().unwrap();
        let counters = std::sync::Arc::new(super::Counters::default());
        super::register(&db, counters.clone()).unwrap();
        db.execute_batch("CREATE TABLE t (a TEXT COLLATE ts_dec) STRICT; CREATE INDEX ta ON t (a);").unwrap();
        for v in ["0.10", "-2.5", "10", "9.99", "100.01"] {
            db.execute(&format!("INSERT INTO t VALUES (ts_dec('{}', 10, 2, 0, 'a', '`a`', 0))", v), []).unwrap();
        }
        assert!(counters.take_notes().0.is_empty());
        assert_eq!(one(&db, "SELECT group_concat(a, ' ') FROM (SELECT a FROM t ORDER BY a)"), "-2.50 0.10 9.99 10.00 100.01");
        assert_eq!(one(&db, "SELECT count(*) FROM t WHERE a > 9.999"), "2");
        assert_eq!(one(&db, "SELECT a FROM t WHERE a = 0.1"), "0.10");
        assert_eq!(one(&db, "SELECT a FROM t WHERE a = 10"), "10.00");
        assert_eq!(one(&db, "SELECT max(a) FROM t"), "100.01");
        assert_eq!(one(&db, "SELECT ts_dsum(a) FROM t"), "117.60");
        assert_eq!(one(&db, "SELECT ts_dval(ts_davg(a), 6) FROM t"), "23.520000");
        assert_eq!(one(&db, "SELECT ts_dmul('0.10', 3)"), "0.30");
        assert_eq!(one(&db, "SELECT ts_ddiv('0.10', 3)"), "0.033333333");
        assert_eq!(one(&db, "SELECT ts_ddiv(1, 0)"), "NULL");
        assert_eq!(one(&db, "SELECT ts_dec('1.005', 5, 2, 0, 'a', '', 3)"), "1.01");
        assert_eq!(one(&db, "SELECT ts_dec('2.5 ', 5, 2, 0, 'a', '', 0)"), "2.50");
        let notes: Vec<(u16, String)> = counters.take_notes().0.into_iter().map(|w| (w.code, w.message)).collect();
        assert_eq!(notes, vec![(1265, "Data truncated for column 'a' at row 3".to_string()), (1265, "Data truncated for column 'a' at row 1".to_string())]);
        assert!(one(&db, "SELECT ts_dec('abc', 5, 2, 0, 'a', '`d`.`t`.`a`', 1)").contains("ts:1366:Incorrect decimal value: 'abc' for column `d`.`t`.`a`"));
        assert!(one(&db, "SELECT ts_dec(1000, 5, 2, 0, 'a', '', 1)").contains("ts:1264:a"));
        assert!(one(&db, "SELECT ts_dec(-1, 5, 2, 1, 'a', '', 1)").contains("ts:1264:a"));
        // hostile arguments: no panic
        for args in ["NULL, NULL, NULL, NULL, NULL, NULL, NULL", "x'ff', -5, 99, 7, x'00', 1, -3", "'1e999999999', 65, 30, 0, 'a', '', 1"] {
            let _ = one(&db, &format!("SELECT ts_dec({})", args));
        }
    }
}
