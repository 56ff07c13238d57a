//! String functions that keep every byte: MySQL strings are bytes.
//!
//! A MySQL string may be a binary string (a BLOB, `0x..`, `UNHEX(..)`) or
//! client text stored as it was sent; SQLite stores both as TEXT, whatever
//! the bytes. rusqlite's owned `Value::Text` must be UTF-8, and converting a
//! `ValueRef` that is not with `Value::from` panics: that was the crash on
//! `INSERT ... VALUES ('\xff', ...)` into an AUTO_INCREMENT key (`ts_ai`), and
//! a lossy conversion instead would silently change the bytes. So these
//! functions take their string arguments as bytes (`barg`) and answer `Out`:
//! a value, TEXT of any bytes, or an argument passed through unchanged. Text
//! functions count characters in `units`: a UTF-8 character, or one byte
//! that is not part of one, so they neither split a character nor alter a
//! byte of binary data. Hashes and encodings read the bytes as stored.

use super::{int, text, user_err};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{ToSql, ToSqlOutput, Value as SV, ValueRef};
use rusqlite::Connection;
use std::borrow::Cow;
use std::os::raw::c_int;
use turnstile_engine::limits::fits;
use turnstile_sqltext::hex::unhex;

/// A function's result.
pub enum Out {
    Val(SV),
    /// TEXT holding these bytes, UTF-8 or not.
    Bytes(Vec<u8>),
    /// The argument at this index, exactly as it came (sqlite3_result_value).
    Arg(usize),
}

impl ToSql for Out {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Out::Val(v) => ToSqlOutput::Borrowed(ValueRef::from(v)),
            Out::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Text(b)),
            Out::Arg(i) => ToSqlOutput::Arg(*i),
        })
    }
}

impl From<SV> for Out {
    fn from(v: SV) -> Out {
        Out::Val(v)
    }
}

pub type FB = fn(&Context<'_>) -> rusqlite::Result<Out>;

pub fn reg_bytes(db: &Connection, name: &str, n: c_int, f: FB) -> rusqlite::Result<()> {
    db.create_scalar_function(name, n, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, f)
}

/// Argument `i` as a string's bytes (a number as its text); None for NULL or
/// a missing argument.
pub fn barg<'c>(ctx: &'c Context<'_>, i: usize) -> Option<Cow<'c, [u8]>> {
    if i >= ctx.len() {
        return None;
    }
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(Cow::Borrowed(t)),
        v => text(&v).map(|s| Cow::Owned(s.into_owned().into_bytes())),
    }
}

/// ERR 1582 unless the call has at least `min` arguments (variadic functions
/// are registered for any count; reading a missing argument panics).
pub fn need(ctx: &Context<'_>, min: usize, name: &str) -> rusqlite::Result<()> {
    if ctx.len() < min {
        return Err(user_err(format!("ts:1582:Incorrect parameter count in the call to native function '{}'", name)));
    }
    Ok(())
}

/// The characters of `b`: each UTF-8 character, and each byte that is not
/// part of one, as a unit of its own.
pub fn units(b: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        let valid = chunk.valid();
        let mut at = 0;
        for c in valid.chars() {
            out.push(&valid.as_bytes()[at..at + c.len_utf8()]);
            at += c.len_utf8();
        }
        out.extend(chunk.invalid().chunks(1));
    }
    out
}

/// A value as an error message shows it: its text, with each byte that is
/// not UTF-8, and each control character, written `\xFF` (as MySQL writes
/// them in "Incorrect ... value"; a NUL would also end SQLite's message).
pub fn shown(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_ascii_control() {
                out.push_str(&format!("\\x{:02X}", c as u32));
            } else {
                out.push(c);
            }
        }
        for x in chunk.invalid() {
            out.push_str(&format!("\\x{:02X}", x));
        }
    }
    out
}

/// `b` with its UTF-8 characters mapped by `f`; other bytes unchanged.
fn map_chars(b: &[u8], f: fn(&str) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.extend_from_slice(f(chunk.valid()).as_bytes());
        out.extend_from_slice(chunk.invalid());
    }
    out
}

/// A count argument as a usize (negative: 0).
fn count(ctx: &Context<'_>, i: usize) -> Option<usize> {
    int(&ctx.get_raw(i)).map(|n| usize::try_from(n.max(0)).unwrap_or(usize::MAX))
}

pub fn bytes_or_null(b: Option<Vec<u8>>) -> Out {
    match b {
        Some(b) if fits(b.len()) => Out::Bytes(b),
        _ => Out::Val(SV::Null),
    }
}

pub fn register(db: &Connection) -> rusqlite::Result<()> {
    concat(db)?;
    slices(db)?;
    digests(db)?;
    passthrough(db)
}

fn concat(db: &Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "concat", -1, |ctx| {
        let mut parts = Vec::with_capacity(ctx.len());
        for i in 0..ctx.len() {
            let Some(b) = barg(ctx, i) else {
                return Ok(Out::Val(SV::Null));
            };
            parts.push(b);
        }
        if !fits(parts.iter().map(|p| p.len()).sum()) {
            return Ok(Out::Val(SV::Null));
        }
        Ok(Out::Bytes(parts.concat()))
    })?;
    reg_bytes(db, "concat_ws", -1, |ctx| {
        let Some(sep) = barg(ctx, 0) else {
            return Ok(Out::Val(SV::Null));
        };
        let parts: Vec<Cow<'_, [u8]>> = (1..ctx.len()).filter_map(|i| barg(ctx, i)).collect();
        if !fits(parts.iter().map(|p| p.len() + sep.len()).sum()) {
            return Ok(Out::Val(SV::Null));
        }
        Ok(Out::Bytes(parts.join(&sep[..])))
    })?;
    Ok(())
}

fn slices(db: &Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "lower", 1, |ctx| Ok(bytes_or_null(barg(ctx, 0).map(|s| map_chars(&s, str::to_lowercase)))))?;
    reg_bytes(db, "upper", 1, |ctx| Ok(bytes_or_null(barg(ctx, 0).map(|s| map_chars(&s, str::to_uppercase)))))?;
    reg_bytes(db, "reverse", 1, |ctx| Ok(bytes_or_null(barg(ctx, 0).map(|s| units(&s).into_iter().rev().collect::<Vec<_>>().concat()))))?;
    reg_bytes(db, "ts_left", 2, |ctx| {
        let (Some(s), Some(n)) = (barg(ctx, 0), count(ctx, 1)) else {
            return Ok(Out::Val(SV::Null));
        };
        Ok(Out::Bytes(units(&s).into_iter().take(n).collect::<Vec<_>>().concat()))
    })?;
    reg_bytes(db, "ts_right", 2, |ctx| {
        let (Some(s), Some(n)) = (barg(ctx, 0), count(ctx, 1)) else {
            return Ok(Out::Val(SV::Null));
        };
        let u = units(&s);
        Ok(Out::Bytes(u[u.len().saturating_sub(n)..].concat()))
    })?;
    // INSERT(s, pos, len, new): characters pos..pos+len of s replaced by new.
    reg_bytes(db, "ts_insert", 4, |ctx| {
        let (Some(s), Some(pos), Some(len), Some(new)) = (barg(ctx, 0), int(&ctx.get_raw(1)), int(&ctx.get_raw(2)), barg(ctx, 3)) else {
            return Ok(Out::Val(SV::Null));
        };
        let u = units(&s);
        if pos < 1 || pos as u64 > u.len() as u64 {
            return Ok(Out::Arg(0));
        }
        let from = pos as usize - 1;
        let to = if len < 0 { u.len() } else { from.saturating_add(len as usize).min(u.len()) };
        Ok(bytes_or_null(Some([u[..from].concat(), new.into_owned(), u[to..].concat()].concat())))
    })?;
    // TRIM([BOTH|LEADING|TRAILING] [remstr] FROM s) (rewrite.rs): whole remstr repeats, not a set of characters.
    reg_bytes(db, "ts_trim", 3, |ctx| {
        let (Some(s), Some(r), Some(mode)) = (barg(ctx, 0), barg(ctx, 1), barg(ctx, 2)) else {
            return Ok(Out::Val(SV::Null));
        };
        let (mut a, mut b) = (0, s.len());
        if !r.is_empty() {
            while &*mode != b"TRAILING" && s[a..b].starts_with(&r) {
                a += r.len();
            }
            while &*mode != b"LEADING" && s[a..b].ends_with(&r) {
                b -= r.len();
            }
        }
        Ok(Out::Bytes(s[a..b].to_vec()))
    })?;
    // QUOTE(s): s in quotes with \\, ', NUL and ^Z escaped by a backslash (MariaDB's);
    // NULL is the word NULL. SQLite's own doubles quotes instead.
    reg_bytes(db, "quote", 1, |ctx| {
        let Some(s) = barg(ctx, 0) else { return Ok(Out::Bytes(b"NULL".to_vec())) };
        if !fits(s.len().saturating_mul(2).saturating_add(2)) {
            return Ok(Out::Val(SV::Null));
        }
        Ok(Out::Bytes(quote(&s)))
    })?;
    reg_bytes(db, "substring_index", 3, |ctx| {
        let (Some(s), Some(d), Some(n)) = (barg(ctx, 0), barg(ctx, 1), int(&ctx.get_raw(2))) else {
            return Ok(Out::Val(SV::Null));
        };
        Ok(Out::Bytes(substring_index(&s, &d, n).to_vec()))
    })
}

/// MariaDB's QUOTE of the bytes `s`.
pub fn quote(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &b in s {
        match b {
            b'\\' | b'\'' => out.extend_from_slice(&[b'\\', b]),
            0 => out.extend_from_slice(b"\\0"),
            0x1a => out.extend_from_slice(b"\\Z"),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
    out
}

/// SUBSTRING_INDEX(s, d, n): s before the n-th d (n < 0: after the n-th from the end).
pub fn substring_index<'a>(s: &'a [u8], d: &[u8], n: i64) -> &'a [u8] {
    if d.is_empty() || n == 0 {
        return &[];
    }
    let hits: Vec<usize> = (0..s.len().saturating_sub(d.len() - 1)).filter(|&i| s[i..].starts_with(d)).collect();
    // MySQL counts non-overlapping occurrences from the left.
    let mut starts: Vec<usize> = Vec::with_capacity(hits.len());
    for h in hits {
        if starts.last().is_none_or(|&p| h >= p + d.len()) {
            starts.push(h);
        }
    }
    let k = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
    if k > starts.len() {
        return s;
    }
    if n > 0 {
        &s[..starts[k - 1]]
    } else {
        &s[starts[starts.len() - k] + d.len()..]
    }
}

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

fn digests(db: &Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "md5", 1, |ctx| {
        use md5::Digest;
        Ok(Out::Val(barg(ctx, 0).map_or(SV::Null, |b| SV::Text(hex_lower(&md5::Md5::digest(&b))))))
    })?;
    for name in ["sha1", "sha"] {
        reg_bytes(db, name, 1, |ctx| {
            use sha1::Digest;
            Ok(Out::Val(barg(ctx, 0).map_or(SV::Null, |b| SV::Text(hex_lower(&sha1::Sha1::digest(&b))))))
        })?;
    }
    // MariaDB's PASSWORD(): the mysql_native_password hash, '*' and the
    // upper-case hex of SHA1(SHA1(str)); '' for '' and for NULL.
    reg_bytes(db, "password", 1, |ctx| {
        use sha1::Digest;
        Ok(Out::Val(SV::Text(match barg(ctx, 0) {
            Some(b) if !b.is_empty() => format!("*{}", hex_lower(&sha1::Sha1::digest(sha1::Sha1::digest(&b).as_slice())).to_ascii_uppercase()),
            _ => String::new(),
        })))
    })?;
    reg_bytes(db, "sha2", 2, |ctx| {
        use sha2::Digest;
        let Some(b) = barg(ctx, 0) else {
            return Ok(Out::Val(SV::Null));
        };
        Ok(Out::Val(match int(&ctx.get_raw(1)).unwrap_or(256) {
            0 | 256 => SV::Text(hex_lower(&sha2::Sha256::digest(&b))),
            224 => SV::Text(hex_lower(&sha2::Sha224::digest(&b))),
            384 => SV::Text(hex_lower(&sha2::Sha384::digest(&b))),
            512 => SV::Text(hex_lower(&sha2::Sha512::digest(&b))),
            _ => SV::Null,
        }))
    })?;
    reg_bytes(db, "crc32", 1, |ctx| Ok(Out::Val(barg(ctx, 0).map_or(SV::Null, |b| SV::Integer(i64::from(crc32fast::hash(&b)))))))?;
    reg_bytes(db, "to_base64", 1, |ctx| {
        use base64::Engine;
        Ok(Out::Val(barg(ctx, 0).filter(|b| fits(b.len() / 3 * 4 + 4)).map_or(SV::Null, |b| SV::Text(base64::engine::general_purpose::STANDARD.encode(&b)))))
    })?;
    // UNHEX: TEXT of the bytes, so it compares equal to (and is stored as) a binary column's value.
    reg_bytes(db, "unhex", 1, |ctx| Ok(bytes_or_null(barg(ctx, 0).and_then(|s| unhex(&s)))))?;
    reg_bytes(db, "hex", 1, |ctx| {
        Ok(Out::Val(match ctx.get_raw(0) {
            ValueRef::Null => SV::Null,
            ValueRef::Integer(i) => SV::Text(format!("{:X}", i)),
            ValueRef::Real(f) => SV::Text(format!("{:X}", f.round() as i64)),
            ValueRef::Text(t) | ValueRef::Blob(t) if !fits(t.len().saturating_mul(2)) => SV::Null,
            ValueRef::Text(t) | ValueRef::Blob(t) => SV::Text(t.iter().map(|b| format!("{:02X}", b)).collect()),
        }))
    })
}

/// Functions that hand a value on unchanged.
fn passthrough(db: &Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "any_value", 1, |_| Ok(Out::Arg(0)))?;
    reg_bytes(db, "elt", -1, |ctx| {
        need(ctx, 2, "elt")?;
        Ok(match int(&ctx.get_raw(0)) {
            Some(n) if n >= 1 && (n as u64) < ctx.len() as u64 => Out::Arg(n as usize),
            _ => Out::Val(SV::Null),
        })
    })?;
    // CAST(x AS BINARY(n)) (rewrite.rs): exactly n bytes, padded with 0x00 or cut.
    reg_bytes(db, "ts_bin_n", 2, |ctx| {
        let (Some(b), Some(n)) = (barg(ctx, 0), count(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
        if !fits(n) {
            return Ok(Out::Val(SV::Null));
        }
        let mut b = b.into_owned();
        b.resize(n, 0);
        Ok(Out::Bytes(b))
    })?;
    // A value written to a BINARY/VARBINARY/BLOB column (rewrite.rs): its
    // bytes as TEXT (a number as its text), padded with 0x00 to n bytes
    // for BINARY(n) as MySQL pads (n = 0: no padding).
    reg_bytes(db, "ts_bin", 2, |ctx| {
        // BINARY(n) holds at most 255 bytes.
        let pad_to = count(ctx, 1).unwrap_or(0).min(255);
        let v = ctx.get_raw(0);
        let Some(b) = barg(ctx, 0) else {
            return Ok(Out::Val(SV::Null));
        };
        if matches!(v, ValueRef::Text(_)) && b.len() >= pad_to {
            return Ok(Out::Arg(0));
        }
        let mut b = b.into_owned();
        if b.len() < pad_to {
            b.resize(pad_to, 0);
        }
        Ok(Out::Bytes(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_keep_every_byte() {
        let b = b"a\xc3\xa9\xff\xc3z";
        let u = units(b);
        assert_eq!(u, [&b"a"[..], b"\xc3\xa9", b"\xff", b"\xc3", b"z"]);
        assert_eq!(u.concat(), b);
        assert_eq!(map_chars(b"Ab\xffC", str::to_lowercase), b"ab\xffc");
        assert_eq!(shown(b"a\xff\xc3\xa9\0\n"), "a\\xFF\u{e9}\\x00\\x0A");
    }

    #[test]
    fn substring_index_counts_from_either_end() {
        assert_eq!(substring_index(b"a.b.c", b".", 2), b"a.b");
        assert_eq!(substring_index(b"a.b.c", b".", -2), b"b.c");
        assert_eq!(substring_index(b"a.b.c", b".", 9), b"a.b.c");
        assert_eq!(substring_index(b"aaa", b"aa", 1), b"");
        assert_eq!(substring_index(b"\xff\x00\xff", b"\x00", -1), b"\xff");
        assert_eq!(substring_index(b"x", b".", i64::MIN), b"x");
    }

    #[test]
    fn byte_functions_in_sqlite() {
        let db = Connection::open_in_memory().unwrap();
        register(&db).unwrap();
        let show = |v: ValueRef<'_>| match v {
            ValueRef::Null => b"NULL".to_vec(),
            ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
            ValueRef::Integer(i) => i.to_string().into_bytes(),
            ValueRef::Real(f) => f.to_string().into_bytes(),
        };
        let q = |sql: &str| -> Vec<u8> { db.query_row(sql, [], |r| r.get_ref(0).map(show)).unwrap() };
        assert_eq!(q("SELECT concat(CAST(X'00FF' AS TEXT), 'a', 1)"), b"\x00\xffa1");
        assert_eq!(q("SELECT concat_ws(CAST(X'FE' AS TEXT), CAST(X'FF' AS TEXT), NULL, 'a')"), b"\xff\xfea");
        assert_eq!(q("SELECT ts_left(CAST(X'FFC3A9FF' AS TEXT), 2)"), b"\xff\xc3\xa9");
        assert_eq!(q("SELECT ts_right(CAST(X'FFC3A9FF' AS TEXT), 1)"), b"\xff");
        assert_eq!(q("SELECT reverse(CAST(X'01C3A902' AS TEXT))"), b"\x02\xc3\xa9\x01");
        assert_eq!(q("SELECT unhex('00ff')"), b"\x00\xff");
        assert_eq!(q("SELECT typeof(unhex('00ff'))"), b"text");
        assert_eq!(q("SELECT ts_bin(CAST(X'41' AS TEXT), 4)"), b"A\x00\x00\x00");
        assert_eq!(q("SELECT ts_bin(X'41', 0)"), b"A");
        assert_eq!(q("SELECT typeof(ts_bin(X'41', 0))"), b"text");
        assert_eq!(q("SELECT ts_bin(65, 0)"), b"65");
        assert_eq!(q("SELECT ts_bin_n('abc', 5)"), b"abc\0\0");
        assert_eq!(q("SELECT ts_bin_n('abc', 2)"), b"ab");
        assert_eq!(q("SELECT md5(CAST(X'FF' AS TEXT))"), b"00594fd4f42ba43fc1ca0427a0576295");
        assert_eq!(q("SELECT any_value(CAST(X'FF' AS TEXT))"), b"\xff");
        assert_eq!(q("SELECT elt(2, 'a', CAST(X'FF' AS TEXT))"), b"\xff");
        assert!(db.query_row("SELECT elt()", [], |_| Ok(())).unwrap_err().to_string().contains("ts:1582:"));
    }
}
