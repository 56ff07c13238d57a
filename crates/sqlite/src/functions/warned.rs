//! Functions that answer with MariaDB's warnings, not only its value:
//! a result past max_allowed_packet is NULL with Warning 1301 (REPEAT,
//! SPACE, LPAD, RPAD), text that is no base64 is NULL with Warning 1958
//! (FROM_BASE64, at the position MariaDB's decoder stopped), and an integer
//! literal beyond BIGINT's range given where an integer is read
//! (`ts_int_arg`, written by rewrite/int_args.rs) is clipped with Warning
//! 1916, once for each time MariaDB reads it; BENCHMARK with a negative
//! count is NULL with Warning 1411 (and LOAD_FILE, which reads nothing, NULL);
//! LN, LOG, LOG2 and LOG10 of no positive number (or LOG to base 1 or
//! less than 0) are NULL with Warning 1365 "Division by 0", as MariaDB's.
//! `ts_strnum(s, what)` (written by the rewriter around a string literal
//! that is no clean number in arithmetic, literals.rs) gives `s` unchanged
//! with Warning 1292 "Truncated incorrect DOUBLE value" (a Note when only
//! blanks follow the number) each time a row reads it, as MariaDB's.
//!
//! Why here and not in bytes.rs: these need the connection's `Counters` to
//! raise their warnings, bytes.rs's functions see only their arguments.
//! Each checks the size of its result before it builds it (`fits`), so no
//! call allocates more than the limit.

use super::bytes::{barg, units, Out};
use super::{int, Counters};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::os::raw::c_int;
use std::sync::Arc;
use turnstile_engine::limits::{fits, max_result_bytes};
use turnstile_engine::Level;

type FW = fn(&Context<'_>, &Counters) -> rusqlite::Result<Out>;

fn reg_warned(db: &Connection, name: &str, n: c_int, counters: &Arc<Counters>, f: FW) -> rusqlite::Result<()> {
    let c = counters.clone();
    db.create_scalar_function(name, n, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| f(ctx, &c))
}

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    reg_warned(db, "repeat", 2, counters, repeat)?;
    reg_warned(db, "space", 1, counters, space)?;
    for n in [2, 3] {
        reg_warned(db, "lpad", n, counters, |ctx, c| pad(ctx, c, true))?;
        reg_warned(db, "rpad", n, counters, |ctx, c| pad(ctx, c, false))?;
    }
    reg_warned(db, "from_base64", 1, counters, from_base64)?;
    // Not deterministic: SQLite would read a constant call once per
    // statement; MariaDB warns once for each row.
    let c = counters.clone();
    db.create_scalar_function("ts_strnum", 2, FunctionFlags::SQLITE_UTF8, move |ctx| string_as_number(ctx, &c))?;
    reg_warned(db, "ln", 1, counters, |ctx, c| logarithm(ctx, c, None))?;
    reg_warned(db, "log", 1, counters, |ctx, c| logarithm(ctx, c, None))?;
    reg_warned(db, "log", 2, counters, |ctx, c| logarithm(ctx, c, Some(0)))?;
    reg_warned(db, "log2", 1, counters, |ctx, c| logarithm(ctx, c, Some(2)))?;
    reg_warned(db, "log10", 1, counters, |ctx, c| logarithm(ctx, c, Some(10)))?;
    reg_warned(db, "ts_int_arg", 2, counters, int_arg)?;
    // Not deterministic: BENCHMARK is called for its time, LOAD_FILE reads.
    let c = counters.clone();
    db.create_scalar_function("benchmark", 2, FunctionFlags::SQLITE_UTF8, move |ctx| benchmark(ctx, &c))?;
    // LOAD_FILE(name): the server reads no files for a client (no FILE
    // privilege here, and no secure_file_priv directory): NULL, as MariaDB
    // answers for a file it may not or cannot read.
    db.create_scalar_function("load_file", 1, FunctionFlags::SQLITE_UTF8, |_| Ok(SV::Null))
}

/// BENCHMARK(n, expr): 0 (the expression was evaluated when SQLite read its
/// argument); NULL for a NULL count, NULL with Warning 1411 for a negative one.
fn benchmark(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let Some(n) = int(&ctx.get_raw(0)) else { return Ok(Out::Val(SV::Null)) };
    if n < 0 {
        counters.raise(Level::Warning, 1411, format!("Incorrect count value: '{}' for function benchmark", n));
        return Ok(Out::Val(SV::Null));
    }
    Ok(Out::Val(SV::Integer(0)))
}

/// NULL with MariaDB's Warning 1301 for a result of `func` past the limit.
fn too_large(counters: &Counters, func: &str) -> Out {
    counters.raise(Level::Warning, 1301, format!("Result of {}() was larger than max_allowed_packet ({}) - truncated", func, max_result_bytes()));
    Out::Val(SV::Null)
}

/// REPEAT(s, n): s n times; n < 1 is the empty string.
fn repeat(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let (Some(s), Some(n)) = (barg(ctx, 0), int(&ctx.get_raw(1))) else {
        return Ok(Out::Val(SV::Null));
    };
    if n < 1 || s.is_empty() {
        return Ok(Out::Bytes(Vec::new()));
    }
    match usize::try_from(n).ok().and_then(|n| s.len().checked_mul(n).filter(|&len| fits(len)).map(|_| n)) {
        Some(n) => Ok(Out::Bytes(s.repeat(n))),
        None => Ok(too_large(counters, "repeat")),
    }
}

/// SPACE(n): n spaces; n < 1 is the empty string.
fn space(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let Some(n) = int(&ctx.get_raw(0)) else {
        return Ok(Out::Val(SV::Null));
    };
    match usize::try_from(n.max(0)).ok().filter(|&n| fits(n)) {
        Some(n) => Ok(Out::Bytes(vec![b' '; n])),
        None => Ok(too_large(counters, "space")),
    }
}

/// LPAD/RPAD(s, n [, pad]): s cut or padded (with spaces when no pad is
/// given) to n characters; NULL for a negative n, and for an empty pad
/// that would have to fill.
fn pad(ctx: &Context<'_>, counters: &Counters, left: bool) -> rusqlite::Result<Out> {
    let fill = if ctx.len() > 2 { barg(ctx, 2) } else { Some(std::borrow::Cow::Borrowed(&b" "[..])) };
    let (Some(s), Some(n), Some(fill)) = (barg(ctx, 0), int(&ctx.get_raw(1)), fill) else {
        return Ok(Out::Val(SV::Null));
    };
    let Ok(n) = usize::try_from(n) else {
        return Ok(Out::Val(SV::Null));
    };
    let cur = units(&s);
    if cur.len() >= n {
        return Ok(Out::Bytes(cur[..n].concat()));
    }
    let fill_units = units(&fill);
    if fill_units.is_empty() {
        return Ok(Out::Val(SV::Null));
    }
    // The result's bytes, counted before anything is built.
    let missing = n - cur.len();
    let (whole, part) = (missing / fill_units.len(), missing % fill_units.len());
    let part_bytes: usize = fill_units[..part].iter().map(|u| u.len()).sum();
    let total = whole.checked_mul(fill.len()).and_then(|b| b.checked_add(part_bytes)).and_then(|b| b.checked_add(s.len()));
    if !total.is_some_and(fits) {
        return Ok(too_large(counters, if left { "lpad" } else { "rpad" }));
    }
    let filled: Vec<u8> = fill_units.iter().cycle().take(missing).flat_map(|u| u.iter().copied()).collect();
    Ok(Out::Bytes(if left { [&filled[..], &s[..]].concat() } else { [&s[..], &filled[..]].concat() }))
}

/// A byte's value in base64 (-2: a space, skipped; -1: not base64), as
/// MariaDB's decoder reads it.
fn base64_value(b: u8) -> i32 {
    match b {
        b'A'..=b'Z' => i32::from(b - b'A'),
        b'a'..=b'z' => i32::from(b - b'a') + 26,
        b'0'..=b'9' => i32::from(b - b'0') + 52,
        b'+' => 62,
        b'/' => 63,
        b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => -2,
        _ => -1,
    }
}

/// MariaDB's base64 decoding (mysys/base64.c): groups of four characters,
/// spaces anywhere, `=` padding only in a group's last two places and
/// ending the text. Err: the position where decoding stopped.
pub(super) fn decode_base64(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut at = 0;
    let skip = |at: &mut usize| {
        while *at < src.len() && base64_value(src[*at]) == -2 {
            *at += 1;
        }
    };
    loop {
        let (mut c, mut pads) = (0u32, 0usize);
        for state in 0..4 {
            skip(&mut at);
            if at == src.len() {
                // The end of the text: fine between groups only.
                return if state == 0 { Ok(out) } else { Err(at) };
            }
            let v = base64_value(src[at]);
            match v {
                0.. if pads == 0 => c = (c << 6) | v as u32,
                _ if src[at] == b'=' && state >= 2 => {
                    pads += 1;
                    c <<= 6;
                }
                _ => return Err(at),
            }
            at += 1;
        }
        let group = [(c >> 16) as u8, (c >> 8) as u8, c as u8];
        out.extend_from_slice(&group[..3 - pads]);
        if pads > 0 {
            // Padding ends the text: only spaces may follow.
            skip(&mut at);
            return if at == src.len() { Ok(out) } else { Err(at) };
        }
    }
}

/// FROM_BASE64(s): NULL with Warning 1958 for text that is no base64.
fn from_base64(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let Some(s) = barg(ctx, 0) else {
        return Ok(Out::Val(SV::Null));
    };
    match decode_base64(&s) {
        Ok(b) => Ok(Out::Bytes(b)),
        Err(at) => {
            counters.raise(Level::Warning, 1958, format!("Bad base64 data as position {}", at));
            Ok(Out::Val(SV::Null))
        }
    }
}

/// Most warnings one `ts_int_arg` raises (the rewriter writes 1 or 2).
const INT_ARG_MAX_READS: i64 = 2;

/// `ts_int_arg(text, reads)`: the integer literal `text`, beyond BIGINT's
/// range, where a function reads an integer: BIGINT's nearest end, with
/// Warning 1916 `reads` times (as often as MariaDB reads the argument).
fn int_arg(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let Some(text) = barg(ctx, 0) else {
        return Ok(Out::Val(SV::Null));
    };
    let shown = String::from_utf8_lossy(&text);
    let reads = match ctx.get_raw(1) {
        ValueRef::Integer(n) => n.clamp(0, INT_ARG_MAX_READS),
        _ => 1,
    };
    for _ in 0..reads {
        counters.raise(Level::Warning, 1916, format!("Got overflow when converting '{}' to INT. Value truncated", shown));
    }
    Ok(Out::Val(SV::Integer(if shown.starts_with('-') { i64::MIN } else { i64::MAX })))
}

/// LN(x) and LOG(x) (`base` None), LOG2 and LOG10 (2, 10), LOG(b, x) (0:
/// the base is the first argument). No logarithm (x <= 0, b <= 0, b = 1):
/// NULL with MariaDB's Warning 1365.
fn logarithm(ctx: &Context<'_>, counters: &Counters, base: Option<u8>) -> rusqlite::Result<Out> {
    let arg = |i: usize| super::num(&ctx.get_raw(i));
    let (b, x) = match base {
        Some(0) => match (arg(0), arg(1)) {
            (Some(b), Some(x)) => (Some(b), x),
            _ => return Ok(Out::Val(SV::Null)),
        },
        _ => match arg(0) {
            Some(x) => (base.map(f64::from), x),
            None => return Ok(Out::Val(SV::Null)),
        },
    };
    let r = match (base, b) {
        (Some(2), _) => x.log2(),
        (Some(10), _) => x.log10(),
        (_, Some(b)) => x.ln() / b.ln(),
        (_, None) => x.ln(),
    };
    if x <= 0.0 || b.is_some_and(|b| b <= 0.0 || b == 1.0) || !r.is_finite() {
        counters.raise(Level::Warning, 1365, "Division by 0".to_string());
        return Ok(Out::Val(SV::Null));
    }
    Ok(Out::Val(SV::Real(r)))
}

/// `ts_strnum(s, what)`: `s` as it is (SQLite reads it as a number where
/// it is used), with MariaDB's Warning (or Note) 1292 for a string whose
/// number does not take all of it; `what` names the type it was read as.
fn string_as_number(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    super::bytes::need(ctx, 2, "ts_strnum")?;
    if let ValueRef::Text(t) | ValueRef::Blob(t) = ctx.get_raw(0) {
        let level = match turnstile_sqltext::num_text::rest(t) {
            turnstile_sqltext::int_text::Rest::Nothing => None,
            turnstile_sqltext::int_text::Rest::Blanks => Some(Level::Note),
            turnstile_sqltext::int_text::Rest::Garbage => Some(Level::Warning),
        };
        if let Some(level) = level {
            let what = match ctx.get_raw(1) {
                ValueRef::Text(w) => String::from_utf8_lossy(w).into_owned(),
                _ => "DOUBLE".to_string(),
            };
            counters.raise(level, 1292, turnstile_sqltext::num_text::truncated_message(&what, t));
        }
    }
    Ok(Out::Arg(0))
}

#[cfg(test)]
mod tests {
    use super::{decode_base64, register, Counters};
    use rusqlite::types::ValueRef;
    use rusqlite::Connection;
    use std::sync::Arc;

    #[test]
    fn sized_results_and_their_warnings() {
        let db = Connection::open_in_memory().unwrap();
        let counters = Arc::new(Counters::default());
        register(&db, &counters).unwrap();
        let q = |sql: &str| -> Option<Vec<u8>> {
            db.query_row(sql, [], |r| {
                Ok(match r.get_ref(0)? {
                    ValueRef::Text(t) | ValueRef::Blob(t) => Some(t.to_vec()),
                    ValueRef::Integer(i) => Some(i.to_string().into_bytes()),
                    _ => None,
                })
            })
            .unwrap()
        };
        let codes = || counters.take_notes().0.into_iter().map(|w| w.code).collect::<Vec<_>>();
        assert_eq!(q("SELECT lpad(CAST(X'FF' AS TEXT), 3, CAST(X'00' AS TEXT))").as_deref(), Some(&b"\x00\x00\xff"[..]));
        assert_eq!(q("SELECT rpad('a', 3)").as_deref(), Some(&b"a  "[..]));
        assert_eq!(q("SELECT rpad('a', -1, 'x')"), None);
        assert_eq!(codes(), Vec::<u16>::new());
        assert_eq!(q("SELECT repeat('ab', 4611686018427387904)"), None);
        assert_eq!(q("SELECT lpad('a', 9223372036854775807, 'xyz')"), None);
        assert_eq!(q("SELECT space(9223372036854775807)"), None);
        assert_eq!(codes(), vec![1301, 1301, 1301]);
        assert_eq!(q("SELECT ts_int_arg('-99999999999999999999', 2)").as_deref(), Some(i64::MIN.to_string().as_bytes()));
        assert_eq!(q("SELECT ts_int_arg('99999999999999999999', 99)").as_deref(), Some(i64::MAX.to_string().as_bytes()));
        assert_eq!(codes(), vec![1916, 1916, 1916, 1916]);
    }

    #[test]
    fn base64_as_mariadb_decodes() {
        // Positions read from MariaDB 10.11's Warning 1958.
        for (text, at) in [("A#", 1), ("AB#", 2), ("ABC#", 3), ("ABCD#", 4), ("=", 0), ("A=", 1), ("ABCD=", 4), ("ABCDE=", 5), ("A", 1), ("QQ=", 3), ("AAA=x", 4), ("AA==x", 4), ("Q===", 1)] {
            assert_eq!(decode_base64(text.as_bytes()), Err(at), "{}", text);
        }
        assert_eq!(decode_base64(b"QQ=="), Ok(b"A".to_vec()));
        assert_eq!(decode_base64(b" Q Q = = "), Ok(b"A".to_vec()));
        assert_eq!(decode_base64(b"QUJD\nQUI="), Ok(b"ABCAB".to_vec()));
        assert_eq!(decode_base64(b""), Ok(Vec::new()));
    }
}
