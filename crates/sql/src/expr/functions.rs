//! The pure built-in functions of table-less expressions (string, numeric,
//! comparison, CAST, date and time, HEX/UNHEX) and LIKE. Pure: they see only
//! their evaluated arguments (and the clock); session functions (USER(), SLEEP(), ...) are
//! answered by the `Env` before these are asked.

use super::clock::{now_value, unix_now};
use super::eval::{bool_val, compare, text};
use turnstile_engine::limits::fits;
use turnstile_engine::{SqlError, Value};

/// SQL LIKE, case-insensitively (general_ci): turnstile-sqltext's matcher,
/// the one the SQLite engine's SHOW ... LIKE uses too.
fn like(subject: &str, pat: &str) -> bool {
    turnstile_sqltext::like::like(subject, pat, true)
}

/// Public for SHOW ... LIKE.
pub fn like_match(subject: &str, pat: &str) -> bool {
    like(subject, pat)
}

fn arg_count(name: &str, vals: &[Value], min: usize, max: usize) -> Result<(), SqlError> {
    if vals.len() < min || vals.len() > max {
        return Err(SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{}'", name.to_lowercase())));
    }
    Ok(())
}

/// Pure built-in functions.
pub(super) fn builtin(name: &str, args: &[Value]) -> Result<Value, SqlError> {
    let arg_text = |i: usize| text(&args[i]);
    Ok(match name {
        "CONCAT" => {
            arg_count(name, args, 1, usize::MAX)?;
            let mut parts = Vec::with_capacity(args.len());
            for x in args {
                match x.to_text() {
                    None => return Ok(Value::Null),
                    Some(t) => parts.push(t),
                }
            }
            // Past max_allowed_packet MySQL answers NULL; checked before building it.
            if !fits(parts.iter().map(|p| p.len()).sum()) {
                return Ok(Value::Null);
            }
            Value::Bytes(parts.concat())
        }
        "CONCAT_WS" => {
            arg_count(name, args, 2, usize::MAX)?;
            let Some(sep) = args[0].to_text() else { return Ok(Value::Null) };
            let parts: Vec<Vec<u8>> = args[1..].iter().filter_map(|x| x.to_text().map(|t| t.into_owned())).collect();
            if !fits(parts.iter().map(|p| p.len() + sep.len()).sum()) {
                return Ok(Value::Null);
            }
            Value::Bytes(parts.join(&sep[..]))
        }
        "NULLIF" => {
            arg_count(name, args, 2, 2)?;
            if compare(&args[0], &args[1]) == Some(std::cmp::Ordering::Equal) {
                Value::Null
            } else {
                args[0].clone()
            }
        }
        "LOWER" | "LCASE" => {
            arg_count(name, args, 1, 1)?;
            arg_text(0).map_or(Value::Null, |t| Value::str(&t.to_lowercase()))
        }
        "UPPER" | "UCASE" => {
            arg_count(name, args, 1, 1)?;
            arg_text(0).map_or(Value::Null, |t| Value::str(&t.to_uppercase()))
        }
        "LENGTH" | "OCTET_LENGTH" | "LENGTHB" => {
            arg_count(name, args, 1, 1)?;
            args[0].to_text().map_or(Value::Null, |t| Value::Int(t.len() as i64))
        }
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
            arg_count(name, args, 1, 1)?;
            arg_text(0).map_or(Value::Null, |t| Value::Int(t.chars().count() as i64))
        }
        "SUBSTRING" | "SUBSTR" | "MID" => {
            arg_count(name, args, 2, 3)?;
            substring(args)
        }
        "REPLACE" => {
            arg_count(name, args, 3, 3)?;
            match (arg_text(0), arg_text(1), arg_text(2)) {
                (Some(a), Some(b), _) if !b.is_empty() && text_len(&arg_text(2)) > b.len() && !fits(a.len() + a.matches(b.as_str()).count().saturating_mul(text_len(&arg_text(2)) - b.len())) => {
                    Value::Null
                }
                (Some(a), Some(b), Some(c)) => Value::str(&if b.is_empty() { a } else { a.replace(&b, &c) }),
                _ => Value::Null,
            }
        }
        "ABS" => {
            arg_count(name, args, 1, 1)?;
            match &args[0] {
                Value::Int(i64::MIN) => return Err(SqlError::new(1690, "22003", "BIGINT value is out of range in 'abs(-9223372036854775808)'")),
                Value::Int(i) => Value::Int(i.abs()),
                Value::UInt(u) => Value::UInt(*u),
                Value::Null => Value::Null,
                x => Value::Double(x.as_f64().unwrap_or(0.0).abs()),
            }
        }
        "ROUND" | "FLOOR" | "CEIL" | "CEILING" | "TRUNCATE" => {
            arg_count(name, args, 1, 2)?;
            round_to_decimals(name, args)
        }
        "LIKE" => bool_val(match (arg_count(name, args, 2, 2).map(|_| arg_text(0))?, arg_text(1)) {
            (Some(a), Some(b)) => Some(like(&a, &b)),
            _ => None,
        }),
        "IN" => {
            arg_count(name, args, 2, usize::MAX)?;
            if args[0].is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for x in &args[1..] {
                match compare(&args[0], x) {
                    Some(std::cmp::Ordering::Equal) => return Ok(Value::Int(1)),
                    None => saw_null = true,
                    _ => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Int(0)
            }
        }
        "BETWEEN" => bool_val(match (arg_count(name, args, 3, 3).map(|_| compare(&args[0], &args[1]))?, compare(&args[0], &args[2])) {
            (Some(a), Some(b)) => Some(a != std::cmp::Ordering::Less && b != std::cmp::Ordering::Greater),
            _ => None,
        }),
        "CAST" => {
            arg_count(name, args, 2, 3)?;
            cast(args)
        }
        // BINARY x / BINARY(x): the value; comparisons see the operator (eval.rs).
        "BINARY" => {
            arg_count(name, args, 1, 1)?;
            args[0].clone()
        }
        "GREATEST" | "LEAST" => {
            arg_count(name, args, 2, usize::MAX)?;
            let mut best = args[0].clone();
            for x in &args[1..] {
                match compare(x, &best) {
                    None => return Ok(Value::Null),
                    Some(o) => {
                        if (name == "GREATEST" && o == std::cmp::Ordering::Greater) || (name == "LEAST" && o == std::cmp::Ordering::Less) {
                            best = x.clone();
                        }
                    }
                }
            }
            best
        }
        "NOW" | "CURRENT_TIMESTAMP" | "SYSDATE" | "LOCALTIME" | "LOCALTIMESTAMP" => now_value(false),
        "CURDATE" | "CURRENT_DATE" => now_value(true),
        "UTC_TIMESTAMP" => super::clock::utc_now_value(false),
        "UTC_DATE" => super::clock::utc_now_value(true),
        "UNIX_TIMESTAMP" => {
            if args.is_empty() {
                Value::Int(unix_now() as i64)
            } else {
                arg_count(name, args, 0, 1)?;
                unix_timestamp_of(&args[0])
            }
        }
        "FOUND_ROWS" | "ROW_COUNT" => Value::Int(0),
        "COUNT" => Value::Int(args.iter().filter(|x| !x.is_null()).count() as i64),
        "MAX" | "MIN" | "SUM" | "AVG" => {
            arg_count(name, args, 1, 1)?;
            args[0].clone()
        }
        "UNHEX" => {
            arg_count(name, args, 1, 1)?;
            args[0].to_text().map_or(Value::Null, |t| turnstile_sqltext::hex::unhex(&t).map_or(Value::Null, Value::Bytes))
        }
        "HEX" => {
            arg_count(name, args, 1, 1)?;
            match &args[0] {
                Value::Bytes(b) if !fits(b.len().saturating_mul(2)) => Value::Null,
                Value::Int(i) => Value::str(&format!("{:X}", i)),
                Value::UInt(u) => Value::str(&format!("{:X}", u)),
                x => x.to_text().map_or(Value::Null, |t| Value::str(&t.iter().map(|b| format!("{:02X}", b)).collect::<String>())),
            }
        }
        _ => return Err(SqlError::unknown_function(name)),
    })
}

/// SUBSTRING(str, pos[, len]) in characters; pos counts from 1, or from the end if negative.
fn substring(args: &[Value]) -> Value {
    let Some(t) = text(&args[0]) else { return Value::Null };
    let chars: Vec<char> = t.chars().collect();
    let pos = args[1].as_i64().unwrap_or(0);
    // A position counted from the end that is before the start: empty (MySQL).
    let back = pos.unsigned_abs();
    let start = if pos > 0 {
        (pos - 1) as usize
    } else if pos < 0 && back <= chars.len() as u64 {
        chars.len() - back as usize
    } else {
        chars.len()
    };
    let len = if args.len() == 3 { args[2].as_i64().unwrap_or(0).max(0) as usize } else { usize::MAX };
    Value::str(&chars.iter().skip(start).take(len).collect::<String>())
}

/// ROUND, FLOOR, CEIL(ING) and TRUNCATE of x[, d]: an integer with no (or
/// negative) decimals, else the text with d decimals.
/// An integer rounded to `places` tens (ROUND half away from zero), exactly.
fn round_integer(name: &str, v: i64, places: i64) -> i64 {
    if places == 0 {
        return v;
    }
    if places > 18 {
        // Every BIGINT is below 10^19: ROUND's half is out of reach too.
        return 0;
    }
    let step = 10i128.pow(places as u32);
    let v = i128::from(v);
    let down = v.div_euclid(step) * step;
    let r = match name {
        "ROUND" if v >= 0 => (v + step / 2).div_euclid(step) * step,
        "ROUND" => -((-v + step / 2).div_euclid(step) * step),
        "FLOOR" => down,
        "TRUNCATE" => v / step * step,
        _ if down == v => v,
        _ => down + step,
    };
    r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn round_to_decimals(name: &str, args: &[Value]) -> Value {
    if args[0].is_null() {
        return Value::Null;
    }
    if matches!(args[0], Value::Int(_) | Value::UInt(_)) && args.len() == 1 {
        return args[0].clone();
    }
    if let (Value::Double(x), Some(places)) = (&args[0], args.get(1).map_or(Some(0), Value::as_i64)) {
        // A DOUBLE stays a DOUBLE (MariaDB's my_double_round). To 1..=30
        // decimals MariaDB prints it with that many digits: the text path below.
        if !(1..=30).contains(&places) {
            return Value::Double(double_round(name, *x, places));
        }
    }
    let x = args[0].as_f64().unwrap_or(0.0);
    // MySQL keeps at most 30 decimals; far to the left everything rounds to 0.
    let decimals = if args.len() == 2 { args[1].as_i64().unwrap_or(0).clamp(-64, 30) } else { 0 };
    if decimals <= 0 {
        if let Some(v) = args[0].as_i64().filter(|_| matches!(args[0], Value::Int(_))) {
            return Value::Int(round_integer(name, v, -decimals));
        }
    }
    // To tens or more: divided by the power of ten (1e-9 is no exact double:
    // 999999999 * 1e-9 / 1e-9 falls short of 1e9).
    let (step, left) = (10f64.powi(decimals.unsigned_abs() as i32), decimals < 0);
    let apply = |f: fn(f64) -> f64| if left { f(x / step) * step } else { f(x * step) / step };
    // Past 15 decimals a double has nothing left to round.
    let rounded = if decimals > 15 {
        x
    } else {
        match name {
            "ROUND" => apply(f64::round),
            "FLOOR" => apply(f64::floor),
            "TRUNCATE" => apply(f64::trunc),
            _ => apply(f64::ceil),
        }
    };
    if decimals <= 0 {
        Value::Int(rounded as i64)
    } else {
        Value::str(&format!("{:.*}", decimals as usize, rounded))
    }
}

/// A DOUBLE rounded to `places` decimals (tens when negative) as MariaDB's
/// my_double_round: ROUND half to even (rint), places past a double's range
/// leave it as it is (to the right) or make it 0 (to the left).
fn double_round(name: &str, x: f64, places: i64) -> f64 {
    let step = 10f64.powi(places.unsigned_abs().min(400) as i32);
    let f: fn(f64) -> f64 = match name {
        "ROUND" => f64::round_ties_even,
        "FLOOR" => f64::floor,
        "TRUNCATE" => f64::trunc,
        _ => f64::ceil,
    };
    let r = if places < 0 {
        if step.is_infinite() {
            0.0
        } else {
            f(x / step) * step
        }
    } else if (x * step).is_infinite() {
        x
    } else {
        f(x * step) / step
    };
    if r == 0.0 {
        0.0 // no -0
    } else {
        r
    }
}

/// CAST(x, type, len) as the parser built it (CONVERT too): `type` the
/// target's name in upper case, `len` its length or NULL.
fn cast(args: &[Value]) -> Value {
    let ty = text(&args[1]).unwrap_or_default();
    match ty.as_str() {
        // A string by its leading digits, as MariaDB reads one (the engine
        // raises its warnings; the front answers only without an engine
        // that evaluates SQL, select.rs).
        "SIGNED" | "INTEGER" | "INT" | "UNSIGNED" if matches!(args[0], Value::Bytes(_)) => {
            let Value::Bytes(b) = &args[0] else { return Value::Null };
            let bits = turnstile_sqltext::int_text::read(b).bits;
            if ty == "UNSIGNED" {
                Value::UInt(bits)
            } else {
                Value::Int(bits as i64)
            }
        }
        "SIGNED" | "INTEGER" | "INT" => args[0].as_i64().map_or(Value::Null, Value::Int),
        "UNSIGNED" => match args[0] {
            Value::UInt(u) => Value::UInt(u),
            _ => args[0].as_i64().map_or(Value::Null, |i| Value::UInt(i as u64)),
        },
        "DECIMAL" | "DOUBLE" | "FLOAT" | "REAL" => args[0].as_f64().map_or(Value::Null, Value::Double),
        // Typed temporal values, so drivers get DATE/DATETIME/TIME columns;
        // MySQL's conversion rules (turnstile-sqltext's `temporal_cast`).
        "DATE" | "DATETIME" | "TIME" => {
            use turnstile_sqltext::temporal_cast::{cast_temporal, CastFrom};
            use turnstile_sqltext::types::Base;
            let base = match ty.as_str() {
                "DATE" => Base::Date,
                "DATETIME" => Base::DateTime,
                _ => Base::Time,
            };
            let fsp = args.get(2).and_then(Value::as_i64).unwrap_or(0).clamp(0, 6) as u8;
            let text;
            let from = match &args[0] {
                Value::Null => return Value::Null,
                Value::Int(i) => CastFrom::Int(*i),
                Value::UInt(u) => CastFrom::Int(i64::try_from(*u).unwrap_or(i64::MAX)),
                Value::Double(f) => CastFrom::Real(*f),
                Value::Float(f) => CastFrom::Real(f64::from(*f)),
                other => {
                    text = other.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
                    CastFrom::Text(&text)
                }
            };
            cast_temporal(from, base, fsp).unwrap_or(Value::Null)
        }
        _ => {
            let Some(t) = args[0].to_text() else { return Value::Null };
            let mut t = t.into_owned();
            match (ty.as_str(), args.get(2).and_then(Value::as_i64)) {
                // BINARY(n): exactly n bytes, padded with 0x00 as MySQL does.
                ("BINARY", Some(n)) => t.resize(n.clamp(0, MAX_CAST_LEN) as usize, 0),
                // CHAR(n): the first n characters (a byte that is no UTF-8 counts as one).
                ("CHAR" | "NCHAR", Some(n)) => t.truncate(char_prefix_len(&t, n.max(0) as usize)),
                _ => {}
            }
            Value::Bytes(t)
        }
    }
}

/// The length in bytes of an optional text (0 for NULL).
fn text_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

/// Bytes of the first `n` characters of `t` (UTF-8 characters; each byte
/// that is not part of one counts as one).
fn char_prefix_len(t: &[u8], n: usize) -> usize {
    let mut at = 0;
    let mut left = n;
    for chunk in t.utf8_chunks() {
        for c in chunk.valid().chars() {
            if left == 0 {
                return at;
            }
            at += c.len_utf8();
            left -= 1;
        }
        for _ in chunk.invalid() {
            if left == 0 {
                return at;
            }
            at += 1;
            left -= 1;
        }
    }
    at
}

/// Longest CAST(x AS BINARY(n)) the front builds (MySQL's limit is max_allowed_packet).
const MAX_CAST_LEN: i64 = 64 << 20;

/// UNIX_TIMESTAMP(date): seconds since the epoch of a date or datetime read
/// in the session's time zone, with its fraction when it has one; NULL
/// for what is not a date and outside TIMESTAMP's range (before the epoch,
/// past 2038-01-19 03:14:07), as MariaDB.
fn unix_timestamp_of(v: &Value) -> Value {
    let Some(t) = text(v) else { return Value::Null };
    let t = t.trim().to_string();
    let canon = turnstile_sqltext::temporal::normalize_temporal(&t, "datetime").unwrap_or(t);
    let (date, time) = canon.split_once(' ').unwrap_or((&canon, "00:00:00"));
    let num = |s: &str| s.parse::<i64>().ok();
    let d: Vec<Option<i64>> = date.split('-').map(num).collect();
    let (whole, frac) = time.split_once('.').unwrap_or((time, ""));
    let hms: Vec<Option<i64>> = whole.split(':').map(num).collect();
    let (&[Some(y), Some(mo), Some(day)], &[Some(h), Some(mi), Some(sec)]) = (d.as_slice(), hms.as_slice()) else { return Value::Null };
    if !(1..=12).contains(&mo) || day < 1 || day > turnstile_sqltext::civil::days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Value::Null;
    }
    let secs = turnstile_sqltext::civil::days_from_civil(y, mo, day) * 86_400 + h * 3600 + mi * 60 + sec - turnstile_engine::clock::zone_offset_micros() / 1_000_000;
    if !(0..=i64::from(i32::MAX)).contains(&secs) {
        return Value::Null;
    }
    match frac.trim_end_matches('0') {
        "" if frac.is_empty() => Value::Int(secs),
        _ => Value::Bytes(format!("{}.{}", secs, frac).into_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::test_env::{eval_text, TestEnv};
    use crate::expr::{eval, Parser};
    use turnstile_engine::Value;

    #[test]
    fn functions() {
        assert_eq!(eval_text("CONCAT('a', 1, @@sql_mode)"), Value::str("a1<sql_mode>"));
        assert_eq!(eval_text("IF(1, 'y', 'n')"), Value::str("y"));
        assert_eq!(eval_text("IFNULL(NULL, 3)"), Value::Int(3));
        assert_eq!(eval_text("COALESCE(NULL, NULL, 'x')"), Value::str("x"));
        assert_eq!(eval_text("(SELECT CONCAT(@@sql_mode, ',X'))"), Value::str("<sql_mode>,X"));
        assert_eq!(eval_text("UPPER('abc')"), Value::str("ABC"));
        assert_eq!(eval_text("SUBSTRING('hello', 2, 3)"), Value::str("ell"));
        assert_eq!(eval_text("CASE WHEN 1 THEN 'a' ELSE 'b' END"), Value::str("a"));
        assert_eq!(eval_text("ROUND(2.567, 2)"), Value::str("2.57"));
        // To tens or more, exactly (1e-9 is no exact double).
        assert_eq!(eval_text("ROUND(999999999, -9)"), Value::Int(1_000_000_000));
        assert_eq!(eval_text("ROUND(-15, -1)"), Value::Int(-20));
        assert_eq!(eval_text("TRUNCATE(-19, -1)"), Value::Int(-10));
        assert_eq!(eval_text("FLOOR(-19)"), Value::Int(-19));
        assert_eq!(eval_text("ROUND(999999999.0, -9)"), Value::Int(1_000_000_000));
        assert_eq!(eval_text("CAST('12' AS SIGNED)"), Value::Int(12));
    }

    #[test]
    fn hostile_arguments_are_errors_not_panics() {
        // Found by fuzz/fuzz_targets/sql_expr.rs.
        for bad in ["IN()", "BETWEEN(1)", "LIKE(1)", "FORMAT_FLOAT()"] {
            let toks = turnstile_sqltext::lex::tokenize(bad).unwrap();
            if let Ok(e) = Parser::new(bad, &toks).expr() {
                assert!(eval(&e, &mut TestEnv).is_err(), "{}", bad);
            }
        }
        assert_eq!(eval_text("-(-9223372036854775807 - 1)"), Value::UInt(1 << 63));
        assert_eq!(eval_text("SUBSTRING('abc', -9223372036854775807 - 1)"), Value::str(""));
        assert_eq!(eval_text("SUBSTRING('abc', -2)"), Value::str("bc"));
        // A DOUBLE stays one: ROUND half to even, huge places keep or zero it (MariaDB 10.11).
        assert_eq!(eval_text("ROUND(1e1, 308)"), Value::Double(10.0));
        assert_eq!(eval_text("TRUNCATE(1e1, 4294967296)"), Value::Double(10.0));
        assert_eq!(eval_text("ROUND(1e0, -309)"), Value::Double(0.0));
        assert_eq!(eval_text("ROUND(2.5e0)"), Value::Double(2.0));
        assert_eq!(eval_text("ROUND(15e0, -1)"), Value::Double(20.0));
        assert_eq!(eval_text("TRUNCATE(1.5e0, 0)"), Value::Double(1.0));
        assert_eq!(eval_text("ROUND(1.5, 100000)"), Value::str(&format!("1.5{}", "0".repeat(29))));
        let toks = turnstile_sqltext::lex::tokenize("ABS(-9223372036854775807 - 1)").unwrap();
        let e = Parser::new("", &toks).expr().unwrap();
        assert_eq!(eval(&e, &mut TestEnv).unwrap_err().code, 1690);
    }
}
