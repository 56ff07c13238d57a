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
use rusqlite::functions::{Aggregate, Context, FunctionFlags, WindowAggregate};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::{ffi, Connection, Error};
use std::cmp::Ordering;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;
use turnstile_engine::Level;
use turnstile_sqltext::decimal::{cmp_text, Decimal, RoundMode, MAX_PRECISION, MAX_SCALE};

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
            // `1e-999999999999` parses as 0: digits were dropped, as rounding drops them.
            Some(d) => (d.clone(), t.last().is_some_and(u8::is_ascii_whitespace) || d.is_zero() && mantissa_has_digit(t)),
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

/// Does a number's text have a non-zero digit before its exponent?
fn mantissa_has_digit(t: &[u8]) -> bool {
    t.iter().take_while(|b| !matches!(b, b'e' | b'E')).any(|b| (b'1'..=b'9').contains(b))
}

/// Count a value stored into `col` and, when it was `truncated`, raise
/// MariaDB's Note 1265 naming its row (`row`, or the column's count).
pub(super) fn note_row(counters: &Counters, col: &str, row: Option<u64>, truncated: bool) {
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

/// Integer digits past which an exact result is out of range: MariaDB's
/// decimals hold nine 9-digit words (strings/decimal.c), and a value beyond
/// them is its error 1690. This also bounds the numbers a statement can
/// build by nesting products.
const MAX_INT_DIGITS: u32 = 81;

/// Most digits after the point an intermediate result keeps (cut beyond,
/// as MariaDB cuts a result's fraction to the words it has left): products
/// nested a thousand deep stay small numbers.
const MAX_FRACTION_DIGITS: i64 = 70;

/// An exact result as SQLite text, or MariaDB's 1690 when it has more
/// integer digits than MariaDB can hold (`what`: the operation, shown in the
/// message with its operands' values where MariaDB shows their text).
fn checked(r: Decimal, what: impl FnOnce() -> String) -> rusqlite::Result<SV> {
    if r.int_digits() > MAX_INT_DIGITS {
        return Err(user_err(format!("ts:1690:DECIMAL value is out of range in '{}'", what())));
    }
    if r.scale() as i64 > MAX_FRACTION_DIGITS {
        return Ok(text_of(&r.round_to(MAX_FRACTION_DIGITS, RoundMode::Truncate)));
    }
    Ok(text_of(&r))
}

/// The value of a division, DIV or MOD by zero: NULL. (MySQL's 1365, a
/// warning or a strict write's error, is raised by `ts_nz` around the
/// divisor, which the translator writes into ts_ddiv, ts_dmod, ts_ddivi and
/// ts_fmod calls too: rewrite/operators.rs.)
fn division_by_zero() -> SV {
    SV::Null
}

/// A binary DECIMAL operation `(a, b)`: NULL if either is NULL, else
/// `op`'s exact result (`op` gives None for a division by zero: NULL). The
/// result keeps all its digits (a quotient MariaDB's); `ts_dval` rounds
/// what the client sees to the expression's scale.
fn binary(ctx: &Context<'_>, sign: &str, op: fn(&Decimal, &Decimal) -> Option<Decimal>) -> rusqlite::Result<SV> {
    let (Some(a), Some(b)) = (operand(ctx.get_raw(0)), operand(ctx.get_raw(1))) else {
        return Ok(SV::Null);
    };
    match op(&a, &b) {
        Some(r) => checked(r, || format!("{} {} {}", a, sign, b)),
        None => Ok(division_by_zero()),
    }
}

/// An integer result as SQLite stores one: INTEGER in i64's range, else its
/// text (a BIGINT UNSIGNED above 2^63-1 is kept as text; rewrite/unsigned.rs).
fn integer_of(d: &Decimal) -> SV {
    match d.to_i64_exact() {
        Some(i) => SV::Integer(i),
        None => text_of(d),
    }
}

/// `ts_ddivi(a, b, unsigned)`: `a DIV b`, the quotient truncated toward
/// zero as an integer; MariaDB's 1690 when it leaves BIGINT's range (BIGINT
/// UNSIGNED's when `unsigned`).
fn int_div(ctx: &Context<'_>) -> rusqlite::Result<SV> {
    let (Some(a), Some(b)) = (operand(ctx.get_raw(0)), operand(ctx.get_raw(1))) else {
        return Ok(SV::Null);
    };
    let unsigned = matches!(ctx.get_raw(2), ValueRef::Integer(1));
    let Some(q) = a.div_trunc(&b) else { return Ok(division_by_zero()) };
    let fits = if unsigned { q.to_u64_exact().is_some() } else { q.to_i64_exact().is_some() };
    if !fits {
        let kind = if unsigned { "BIGINT UNSIGNED" } else { "BIGINT" };
        return Err(user_err(format!("ts:1690:{} value is out of range in '{} DIV {}'", kind, a, b)));
    }
    Ok(integer_of(&q))
}

/// `ts_dround(x, n, max_scale, mode)`: ROUND (mode 'r') or TRUNCATE ('t')
/// of x to n digits after the point (tens, hundreds... for a negative n),
/// at most `max_scale` (the result's scale, which MySQL takes from a
/// constant n, else from x); CEILING ('c') and FLOOR ('f') to an integer.
/// NULL when x or n is NULL.
fn round(ctx: &Context<'_>) -> rusqlite::Result<SV> {
    let Some(x) = operand(ctx.get_raw(0)) else { return Ok(SV::Null) };
    let n = match ctx.get_raw(1) {
        ValueRef::Null => return Ok(SV::Null),
        ValueRef::Integer(n) => n,
        ValueRef::Real(f) => f.round() as i64,
        v => operand(v).and_then(|d| d.round(0).to_i64_exact()).unwrap_or(0),
    };
    let cap = scale_arg(ctx, 2) as i64;
    let mode = match ctx.get_raw(3).as_bytes().ok().and_then(|b| b.first().copied()) {
        Some(b't') => RoundMode::Truncate,
        Some(b'c') => RoundMode::Ceiling,
        Some(b'f') => RoundMode::Floor,
        _ => RoundMode::HalfUp,
    };
    let r = match mode {
        RoundMode::Ceiling | RoundMode::Floor => return Ok(integer_of(&x.round_to(0, mode))),
        _ => x.round_to(n.min(cap), mode),
    };
    checked(r, || format!("ROUND({}, {})", x, n))
}

/// `ts_dcast(x, precision, scale, name)`: CAST(x AS DECIMAL(p,s)), rounded
/// half away from zero to s; a value that does not fit is the type's
/// largest with MariaDB's Warning 1264 (Out of range value for column
/// 'name' at row N), text that is no number its numeric prefix (0 for
/// none) with Warning 1292 (Truncated incorrect DECIMAL value).
fn cast(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    let v = ctx.get_raw(0);
    let precision = match ctx.get_raw(1) {
        ValueRef::Integer(p) => p.clamp(1, MAX_PRECISION as i64) as u32,
        _ => 10,
    };
    let scale = scale_arg(ctx, 2).min(precision);
    let name = || String::from_utf8_lossy(ctx.get_raw(3).as_bytes().unwrap_or(&b"?"[..])).into_owned();
    let d = match v {
        ValueRef::Null => return Ok(SV::Null),
        ValueRef::Text(t) | ValueRef::Blob(t) => match Decimal::parse(t) {
            Some(d) => d,
            None => {
                let shown: String = String::from_utf8_lossy(t).chars().take(64).collect();
                counters.raise(Level::Warning, 1292, format!("Truncated incorrect DECIMAL value: '{}'", shown));
                turnstile_wire::value::parse_number_prefix(t).and_then(Decimal::from_f64).unwrap_or_else(Decimal::zero)
            }
        },
        other => operand(other).unwrap_or_else(Decimal::zero),
    };
    let (r, clipped) = d.fit(precision, scale);
    if clipped {
        let name = name();
        let row = next_row(counters, &name);
        counters.raise(Level::Warning, 1264, format!("Out of range value for column '{}' at row {}", name, row));
    }
    Ok(text_of(&r))
}

/// The next row number for messages about `name` (MySQL's "at row N").
fn next_row(counters: &Counters, name: &str) -> u64 {
    let mut notes = counters.notes.lock().unwrap_or_else(|e| e.into_inner());
    let seen = notes.rows.entry(name.to_string()).or_insert(0);
    *seen += 1;
    *seen
}

/// `ts_dgreatest(a, b, ...)` / `ts_dleast`: GREATEST and LEAST of exact
/// numbers compared exactly; NULL when any is NULL, as in MySQL.
fn extreme(ctx: &Context<'_>, want: Ordering) -> rusqlite::Result<SV> {
    let mut best: Option<Decimal> = None;
    for i in 0..ctx.len() {
        let Some(v) = operand(ctx.get_raw(i)) else { return Ok(SV::Null) };
        if best.as_ref().is_none_or(|b| v.cmp(b) == want) {
            best = Some(v);
        }
    }
    Ok(best.map_or(SV::Null, |b| text_of(&b)))
}

/// SUM (`ts_dsum(x)`) and AVG (`ts_davg(x)`) of DECIMAL values, exact (the
/// average as MariaDB divides).
struct DecAggregate {
    avg: bool,
}

impl DecAggregate {
    /// The SUM or AVG of what the window or group holds so far.
    fn current(&self, acc: Option<&(Decimal, u64)>) -> rusqlite::Result<SV> {
        let Some((sum, n)) = acc.filter(|a| a.1 > 0) else {
            return Ok(SV::Null);
        };
        if self.avg {
            Ok(sum.div_internal(&Decimal::from_u64(*n)).map_or(SV::Null, |d| text_of(&d)))
        } else {
            checked(sum.clone(), || "SUM".to_string())
        }
    }
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
        self.current(acc.as_ref())
    }
}

/// SUM and AVG as window functions (`ts_dsum(x) OVER (...)`): a row leaving
/// the frame is subtracted again, exactly.
impl WindowAggregate<(Decimal, u64), SV> for DecAggregate {
    fn value(&self, acc: Option<&mut (Decimal, u64)>) -> rusqlite::Result<SV> {
        self.current(acc.map(|a| &*a))
    }
    fn inverse(&self, ctx: &mut Context<'_>, acc: &mut (Decimal, u64)) -> rusqlite::Result<()> {
        if let Some(v) = operand(ctx.get_raw(0)) {
            acc.0 = acc.0.sub(&v);
            acc.1 = acc.1.saturating_sub(1);
        }
        Ok(())
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
    let store_counters = counters.clone();
    db.create_scalar_function("ts_dec", 7, FunctionFlags::SQLITE_UTF8, move |ctx| store(ctx, Some(&store_counters)))?;
    // The same value again, for the change test of UPDATE and upsert: no note, no row counted.
    db.create_scalar_function("ts_dec_q", 7, flags, |ctx| store(ctx, None))?;
    db.create_scalar_function("ts_dadd", 2, flags, |ctx| binary(ctx, "+", |a, b| Some(a.add(b))))?;
    db.create_scalar_function("ts_dsub", 2, flags, |ctx| binary(ctx, "-", |a, b| Some(a.sub(b))))?;
    db.create_scalar_function("ts_dmul", 2, flags, |ctx| binary(ctx, "*", |a, b| Some(a.mul(b))))?;
    db.create_scalar_function("ts_ddiv", 2, flags, |ctx| binary(ctx, "/", Decimal::div_internal))?;
    db.create_scalar_function("ts_dmod", 2, flags, |ctx| binary(ctx, "MOD", Decimal::rem))?;
    db.create_scalar_function("ts_ddivi", 3, flags, int_div)?;
    // `%` of doubles: C's fmod (the dividend's sign), as MySQL; SQLite's % cuts to integers.
    db.create_scalar_function("ts_fmod", 2, flags, |ctx| {
        let f = |i: usize| match ctx.get_raw(i) {
            ValueRef::Null => None,
            v => Some(operand(v).map_or(0.0, |d| d.to_f64())),
        };
        Ok(match (f(0), f(1)) {
            (Some(_), Some(0.0)) => division_by_zero(),
            (Some(a), Some(b)) => SV::Real(a % b),
            _ => SV::Null,
        })
    })?;
    db.create_scalar_function("ts_dround", 4, flags, round)?;
    db.create_scalar_function("ts_dabs", 1, flags, |ctx| Ok(operand(ctx.get_raw(0)).map_or(SV::Null, |d| text_of(&d.abs()))))?;
    db.create_scalar_function("ts_dsign", 1, flags, |ctx| Ok(operand(ctx.get_raw(0)).map_or(SV::Null, |d| SV::Integer(d.signum()))))?;
    db.create_scalar_function("ts_dgreatest", -1, flags, |ctx| extreme(ctx, Ordering::Greater))?;
    db.create_scalar_function("ts_dleast", -1, flags, |ctx| extreme(ctx, Ordering::Less))?;
    // Not deterministic: it raises warnings, once per row.
    let cast_counters = counters.clone();
    db.create_scalar_function("ts_dcast", 4, FunctionFlags::SQLITE_UTF8, move |ctx| cast(ctx, &cast_counters))?;
    db.create_scalar_function("ts_dval", 2, flags, |ctx| match operand(ctx.get_raw(0)) {
        Some(d) => Ok(text_of(&d.round(scale_arg(ctx, 1)))),
        None => Ok(SV::Null),
    })?;
    db.create_window_function("ts_dsum", 1, flags, DecAggregate { avg: false })?;
    db.create_window_function("ts_davg", 1, flags, DecAggregate { avg: true })
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
