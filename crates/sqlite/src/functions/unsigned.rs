//! BIGINT UNSIGNED in SQLite, whose integers are signed 64-bit: a value up
//! to 2^63-1 is stored as an INTEGER, one above as its decimal text (the
//! column is declared ANY with the `ts_dec` collation, ddl/generate.rs), so
//! the whole range 0..18446744073709551615 is kept exactly. Every INTEGER
//! sorts before every TEXT in SQLite, and the texts sort numerically by
//! `ts_dec`: comparisons, ORDER BY, MIN/MAX and indexes follow the numbers.
//!
//! - `ts_u64(value, rowid, column, qualified column, row)`: a value stored
//!   into a BIGINT UNSIGNED column, in that form; MariaDB's strict-mode
//!   errors (1264 out of range, 1366 no number, 1265 a number followed by
//!   other text) and its Note 1265 for trailing spaces. A column that is the
//!   table's rowid (an AUTO_INCREMENT column is one) holds only INTEGERs: a
//!   value above 2^63-1 there is refused with 1235.
//! - `ts_u64v(value)`: a value compared with such a column, in the same
//!   form (an integer text as its number, a number above 2^63-1 as its
//!   text), so `u = '5'`, `u = ?` and `u < 18446744073709551615` compare as
//!   numbers (rewrite/decimal.rs writes it).
//! - `ts_ucast(x)`, `ts_scast(x)`: CAST(x AS UNSIGNED / SIGNED), with
//!   MariaDB's wrapping (-1 AS UNSIGNED is 18446744073709551615); SQLite's
//!   CAST AS INTEGER stops at 2^63-1.
//! - `ts_scast_str(x)`, `ts_ucast_str(x)`: the same of a string (a string
//!   literal or column, rewrite/exact_calls.rs), read as MariaDB reads one
//!   (turnstile-sqltext's `int_text`: its leading digits, Warning 1292 for
//!   what it cuts, Note 1105 for a complement).
//! - `ts_uop(a, b, op, text)`: `a + b`, `a - b`, `a * b` with a BIGINT
//!   UNSIGNED operand: exact, and MariaDB's 1690 "BIGINT UNSIGNED value is
//!   out of range in 'text'" when the result leaves 0..2^64-1.

use super::{user_err, Counters};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::Level;
use turnstile_sqltext::decimal::Decimal;

/// The largest BIGINT UNSIGNED.
fn max_u64() -> Decimal {
    Decimal::from_u64(u64::MAX)
}

/// A number in 0..2^64 in its stored form: INTEGER up to 2^63-1, else text.
fn stored(v: u64) -> SV {
    match i64::try_from(v) {
        Ok(i) => SV::Integer(i),
        Err(_) => SV::Text(v.to_string()),
    }
}

fn arg_text(ctx: &Context<'_>, i: usize) -> String {
    String::from_utf8_lossy(ctx.get_raw(i).as_bytes().unwrap_or(&b"?"[..])).into_owned()
}

/// Whether a value out of BIGINT UNSIGNED's range is an error. (MariaDB's
/// non-strict mode clips it to the range with a warning instead; that
/// belongs with the SQL modes, and is to be decided here.)
fn out_of_range(column: &str) -> rusqlite::Error {
    user_err(format!("ts:1264:{}", column))
}

/// `ts_u64(value, rowid, column, qualified column, row)`.
fn store(ctx: &Context<'_>, counters: Option<&Counters>) -> rusqlite::Result<SV> {
    let rowid = matches!(ctx.get_raw(1), ValueRef::Integer(1));
    let col = || arg_text(ctx, 2);
    let (d, trailing_space) = match ctx.get_raw(0) {
        ValueRef::Null => return Ok(SV::Null),
        ValueRef::Integer(i) if i >= 0 => return Ok(SV::Integer(i)),
        ValueRef::Integer(_) => return Err(out_of_range(&col())),
        ValueRef::Real(f) => (Decimal::from_f64(f).ok_or_else(|| out_of_range(&col()))?, false),
        ValueRef::Text(t) | ValueRef::Blob(t) => match Decimal::parse(t) {
            Some(d) => (d, t.last().is_some_and(u8::is_ascii_whitespace)),
            None => return Err(bad_text(ctx, t)),
        },
    };
    // MariaDB refuses any negative value, even one that rounds to 0 (-0.4).
    let rounded = d.round(0);
    if d.is_negative() || rounded > max_u64() {
        return Err(out_of_range(&col()));
    }
    let v = rounded.to_u64_exact().ok_or_else(|| out_of_range(&col()))?;
    if rowid && v > i64::MAX as u64 {
        return Err(user_err(format!("ts:1235:This version of MariaDB doesn't yet support 'BIGINT UNSIGNED values above 9223372036854775807 in an AUTO_INCREMENT column (`{}`)'", col())));
    }
    if let Some(counters) = counters.filter(|_| trailing_space) {
        let row = match ctx.get_raw(4) {
            ValueRef::Integer(r) if r > 0 => Some(r as u64),
            _ => None,
        };
        super::decimal::note_row(counters, &col(), row, true);
    }
    Ok(stored(v))
}

/// The error for text stored into a BIGINT UNSIGNED column that is no
/// number: 1265 when a number starts it (MariaDB's strict mode), else 1366
/// naming the column `db`.`t`.`c`.
fn bad_text(ctx: &Context<'_>, t: &[u8]) -> rusqlite::Error {
    let starts_numeric = t.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'));
    if starts_numeric {
        return user_err(format!("ts:1265:{}", arg_text(ctx, 2)));
    }
    let shown: String = String::from_utf8_lossy(t).chars().take(64).collect();
    let row = match ctx.get_raw(4) {
        ValueRef::Integer(r) if r > 0 => r,
        _ => 1,
    };
    user_err(format!("ts:1366:Incorrect integer value: '{}' for column {} at row {}", shown, arg_text(ctx, 3), row))
}

/// `ts_u64v(value)`: a value compared with a BIGINT UNSIGNED column, in its
/// stored form where it is an integer of the column's range; any other
/// number as itself, except that a number above 2^63-1 is its decimal text
/// (TEXT compares with the column's large values by `ts_dec`, and above
/// every INTEGER, as those values are). Text that is no number compares as
/// its numeric prefix (0 for none), as MySQL compares a string with a number.
fn compared(ctx: &Context<'_>) -> SV {
    let d = match ctx.get_raw(0) {
        ValueRef::Null => return SV::Null,
        ValueRef::Integer(i) => return SV::Integer(i),
        ValueRef::Real(f) if f.abs() < 9.0e18 => return SV::Real(f),
        ValueRef::Real(f) => Decimal::from_f64(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => Decimal::parse(t).or_else(|| turnstile_wire::value::parse_number_prefix(t).and_then(Decimal::from_f64)),
    };
    let Some(d) = d else { return SV::Integer(0) };
    if d > Decimal::from_i64(i64::MAX) {
        return SV::Text(d.to_string());
    }
    match d.to_i64_exact() {
        Some(i) => SV::Integer(i),
        None => SV::Real(d.to_f64()),
    }
}

/// An operand of BIGINT UNSIGNED arithmetic: `None` for NULL.
fn operand(v: ValueRef<'_>) -> Option<Decimal> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Decimal::from_i64(i)),
        ValueRef::Real(f) => Some(Decimal::from_f64(f).unwrap_or_else(Decimal::zero)),
        // Text that is no number: its leading digits, as MariaDB reads a string.
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(Decimal::parse(t).unwrap_or_else(|| leading_integer(t))),
    }
}

/// The integer a string's leading digits make (`'12abc'`: 12).
fn leading_integer(t: &[u8]) -> Decimal {
    let r = turnstile_sqltext::int_text::read(t);
    if r.negative {
        Decimal::from_i64(r.bits as i64)
    } else {
        Decimal::from_u64(r.bits)
    }
}

/// `ts_uop(a, b, op, text)`.
fn arithmetic(ctx: &Context<'_>) -> rusqlite::Result<SV> {
    let (Some(a), Some(b)) = (operand(ctx.get_raw(0)), operand(ctx.get_raw(1))) else {
        return Ok(SV::Null);
    };
    let r = match ctx.get_raw(2).as_bytes().unwrap_or(b"+") {
        b"-" => a.sub(&b),
        b"*" => a.mul(&b),
        _ => a.add(&b),
    };
    // Operands that are integers give an integer; a fraction (a REAL or
    // decimal text operand) is rounded as MySQL converts one.
    match r.round(0).to_u64_exact() {
        Some(v) if !r.is_negative() || r.round(0).is_zero() => Ok(stored(v)),
        _ => Err(user_err(format!("ts:1690:BIGINT UNSIGNED value is out of range in '{}'", arg_text(ctx, 3)))),
    }
}

/// A value as CAST(x AS UNSIGNED) (`unsigned`) or CAST(x AS SIGNED) makes
/// it, as MariaDB: rounded half away from zero; a negative integer AS
/// UNSIGNED is its two's complement (-1 is 18446744073709551615), a value
/// AS SIGNED above 2^63-1 its signed bits; beyond the 64 bits, the type's
/// end. Text counts as its numeric prefix (0 for none).
fn cast(ctx: &Context<'_>, unsigned: bool) -> SV {
    let Some(d) = operand(ctx.get_raw(0)) else { return SV::Null };
    let r = d.round(0);
    let two64 = max_u64().add(&Decimal::from_i64(1));
    // AS UNSIGNED wraps only a negative integer; a negative fraction is 0.
    let wraps = !unsigned || d == r;
    let bits = if r.is_negative() && r >= Decimal::from_i64(i64::MIN) && wraps {
        // An integer in BIGINT's range: its 64 bits.
        r.to_i64_exact().map(|i| i as u64)
    } else if r.is_negative() {
        Some(if unsigned { 0 } else { i64::MIN as u64 })
    } else if r > max_u64() {
        Some(u64::MAX)
    } else {
        r.to_u64_exact()
    };
    let bits = bits.unwrap_or_else(|| if r >= two64 { u64::MAX } else { 0 });
    if unsigned {
        stored(bits)
    } else if r > Decimal::from_i64(i64::MAX) && r > max_u64() {
        SV::Integer(i64::MAX)
    } else {
        SV::Integer(bits as i64)
    }
}

/// `ts_scast_str(x)` / `ts_ucast_str(x)`: CAST of a string AS SIGNED or
/// UNSIGNED; a number (a value of another type) as `cast` reads it.
fn cast_str(ctx: &Context<'_>, unsigned: bool, counters: &Counters) -> SV {
    let text = match ctx.get_raw(0) {
        ValueRef::Text(t) | ValueRef::Blob(t) => t,
        _ => return cast(ctx, unsigned),
    };
    let r = turnstile_sqltext::int_text::read(text);
    if let Some(warning) = r.truncation_is_warning() {
        let level = if warning { Level::Warning } else { Level::Note };
        counters.raise(level, 1292, turnstile_sqltext::int_text::truncated_message(text));
    }
    let complement = if unsigned { r.unsigned_complement() } else { r.signed_complement() };
    if complement {
        counters.raise(Level::Note, 1105, turnstile_sqltext::int_text::complement_message(!unsigned).to_string());
    }
    if unsigned {
        stored(r.bits)
    } else {
        SV::Integer(r.bits as i64)
    }
}

/// Register the functions on a new connection.
pub(super) fn register(db: &Connection, counters: Arc<Counters>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // Not deterministic: it raises notes, once per row.
    let c = counters.clone();
    db.create_scalar_function("ts_u64", 5, FunctionFlags::SQLITE_UTF8, move |ctx| store(ctx, Some(&c)))?;
    // The same value again, for the change test of UPDATE and upsert: no note.
    db.create_scalar_function("ts_u64_q", 5, flags, |ctx| store(ctx, None))?;
    db.create_scalar_function("ts_u64v", 1, flags, |ctx| Ok(compared(ctx)))?;
    db.create_scalar_function("ts_ucast", 1, flags, |ctx| Ok(cast(ctx, true)))?;
    db.create_scalar_function("ts_scast", 1, flags, |ctx| Ok(cast(ctx, false)))?;
    // Not deterministic: they raise warnings, once per row.
    let c = counters.clone();
    db.create_scalar_function("ts_scast_str", 1, FunctionFlags::SQLITE_UTF8, move |ctx| Ok(cast_str(ctx, false, &c)))?;
    let c = counters.clone();
    db.create_scalar_function("ts_ucast_str", 1, FunctionFlags::SQLITE_UTF8, move |ctx| Ok(cast_str(ctx, true, &c)))?;
    db.create_scalar_function("ts_uop", 4, flags, arithmetic)
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    fn one(db: &Connection, sql: &str) -> String {
        db.query_row(sql, [], |r| {
            r.get::<_, rusqlite::types::Value>(0).map(|v| match v {
                rusqlite::types::Value::Null => "NULL".to_string(),
                rusqlite::types::Value::Integer(i) => format!("i{}", i),
                rusqlite::types::Value::Text(t) => format!("t{}", t),
                other => format!("{:?}", other),
            })
        })
        .unwrap_or_else(|e| format!("ERR {}", e))
    }

    #[test]
    fn full_range_stored_compared_and_computed() {
        let db = Connection::open_in_memory().unwrap();
        let counters = std::sync::Arc::new(super::Counters::default());
        super::super::decimal::register(&db, counters.clone()).unwrap();
        super::register(&db, counters).unwrap();
        db.execute_batch("CREATE TABLE t (u ANY COLLATE ts_dec) STRICT; CREATE INDEX tu ON t (u);").unwrap();
        for v in ["'18446744073709551615'", "0", "5", "9223372036854775807", "'9223372036854775808'", "'10000000000000000000'", "5.5"] {
            db.execute(&format!("INSERT INTO t VALUES (ts_u64({}, 0, 'u', '`d`.`t`.`u`', 1))", v), []).unwrap();
        }
        assert_eq!(one(&db, "SELECT group_concat(u, ' ') FROM (SELECT u FROM t ORDER BY u)"), "t0 5 6 9223372036854775807 9223372036854775808 10000000000000000000 18446744073709551615");
        assert_eq!(one(&db, "SELECT count(*) FROM t WHERE u > ts_u64v('9223372036854775807')"), "i3");
        assert_eq!(one(&db, "SELECT count(*) FROM t WHERE u < ts_u64v('18446744073709551615')"), "i6");
        assert_eq!(one(&db, "SELECT count(*) FROM t WHERE u = ts_u64v('5')"), "i1");
        assert_eq!(one(&db, "SELECT max(u) FROM t"), "t18446744073709551615");
        assert_eq!(one(&db, "SELECT ts_dsum(u) FROM t"), "t46893488147419103241");
        assert_eq!(one(&db, "SELECT ts_uop('18446744073709551614', 1, '+', 'u + 1')"), "t18446744073709551615");
        assert!(one(&db, "SELECT ts_uop('18446744073709551615', 1, '+', 'u + 1')").contains("ts:1690:BIGINT UNSIGNED value is out of range in 'u + 1'"));
        assert!(one(&db, "SELECT ts_uop(5, 6, '-', 'u - 6')").contains("ts:1690"));
        assert_eq!(one(&db, "SELECT ts_uop(5, -3, '+', '')"), "i2");
        for bad in ["-1", "-0.4", "'18446744073709551616'", "1e20"] {
            assert!(one(&db, &format!("SELECT ts_u64({}, 0, 'u', '', 1)", bad)).contains("ts:1264:u"), "{}", bad);
        }
        assert!(one(&db, "SELECT ts_u64('abc', 0, 'u', '`d`.`t`.`u`', 2)").contains("ts:1366:Incorrect integer value: 'abc' for column `d`.`t`.`u` at row 2"));
        assert!(one(&db, "SELECT ts_u64('9223372036854775808', 1, 'id', '', 1)").contains("ts:1235:"));
        assert_eq!(one(&db, "SELECT ts_u64('-0', 0, 'u', '', 1)"), "i0");
        for (v, u, i) in [
            ("-1", "t18446744073709551615", "i-1"),
            ("1.5", "i2", "i2"),
            ("-1.5", "i0", "i-2"),
            ("'18446744073709551616'", "t18446744073709551615", "i9223372036854775807"),
            ("'18446744073709551615'", "t18446744073709551615", "i-1"),
            ("'abc'", "i0", "i0"),
        ] {
            assert_eq!(one(&db, &format!("SELECT ts_ucast({})", v)), u, "{}", v);
            assert_eq!(one(&db, &format!("SELECT ts_scast({})", v)), i, "{}", v);
        }
    }
}
