//! Functions MariaDB has and applications (and MariaDB's own test files)
//! call: the spacing of the JSON documents SQLite's functions build
//! (`ts_json_fmt`, `doc_out`), CHR, EXPORT_SET,
//! CRC32C (and CRC32's two-argument form), RANDOM_BYTES, ENCODE/DECODE,
//! AES_ENCRYPT/AES_DECRYPT (aes-128-ecb, MariaDB's default mode);
//! and CHAR and SOUNDEX as MariaDB's (SQLite's own differ: CHAR of code
//! points, SOUNDEX cut to 4 characters). (JSON_EXTRACT, JSON_VALUE,
//! JSON_QUERY, JSON_EXISTS and JSON_CONTAINS_PATH, which read MariaDB's
//! paths, are json_path.rs; the JSON functions over serde_json values,
//! JSON_SEARCH, JSON_MERGE and the like, json_doc.rs.)
//!
//! Each answers as MariaDB 10.11 does for NULL and bad arguments (read from
//! it: tests/test_sql_mariadb_functions.py). JSON documents go through
//! serde_json, whose parser stops at 128 levels of nesting (an error, never
//! a deep recursion), so the recursive writer here is bounded by it. A
//! document these functions build is written as MariaDB writes one
//! (`[1, 2]`, `{"a": 1}`); its numbers as serde_json reads them (`1.50` is
//! `1.5`). Results that would exceed the packet limit are NULL, as MySQL's
//! string functions answer.

use super::bytes::{barg, bytes_or_null, need, reg_bytes, Out};
use super::{int, user_err};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use serde_json::Value as J;
use std::io::Read;
use turnstile_engine::limits::fits;

/// RANDOM_BYTES' largest length (MariaDB's: more is NULL).
const RANDOM_BYTES_MAX: i64 = 1024;
/// EXPORT_SET's bits: MySQL's 64 (a larger count is 64).
const EXPORT_SET_BITS: i64 = 64;

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    json_spacing(db)?;
    strings(db)
}

/// SQLite's subtype of a JSON text (its json functions' results).
pub(super) const JSON_SUBTYPE: u32 = 74;

/// `ts_json_fmt(x)`, which the rewriter wraps around SQLite's own JSON
/// functions MariaDB writes spaced (JSON_OBJECT, JSON_ARRAY, JSON_SET,
/// JSON_INSERT, JSON_REPLACE, JSON_REMOVE): a JSON text as MariaDB writes
/// one (`{"a": 1, "b": [1, 2]}`, SQLite's is minified), a plain string as
/// the JSON string it is (`"x"`), a number and NULL as they are. The result keeps the
/// JSON subtype, so an enclosing JSON function nests it as JSON.
fn json_spacing(db: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_SUBTYPE | FunctionFlags::SQLITE_RESULT_SUBTYPE;
    db.create_scalar_function("ts_json_fmt", 1, flags, |ctx| Ok(json_fmt(ctx)))?;
    // JSON_SET and the like, whose path arguments MariaDB may refuse: then
    // the call is NULL (json_edit_path.rs); not deterministic, as they.
    db.create_scalar_function("ts_json_edit_fmt", 1, flags & !FunctionFlags::SQLITE_DETERMINISTIC, |ctx| {
        if super::json_edit_path::take_bad_path() {
            return Ok((SV::Null, None));
        }
        Ok(json_fmt(ctx))
    })
}

/// `ts_json_fmt`'s answer for its argument.
fn json_fmt(ctx: &rusqlite::functions::Context<'_>) -> (SV, rusqlite::functions::SubType) {
    use rusqlite::types::ValueRef;
    let json = ctx.get_subtype(0) == JSON_SUBTYPE;
    match ctx.get_raw(0) {
        ValueRef::Null => (SV::Null, None),
        ValueRef::Integer(i) => (SV::Integer(i), None),
        ValueRef::Real(f) => (SV::Real(f), None),
        ValueRef::Text(t) if json => (SV::Text(spaced(&String::from_utf8_lossy(t))), Some(JSON_SUBTYPE)),
        ValueRef::Text(t) => (SV::Text(J::String(String::from_utf8_lossy(t).into_owned()).to_string()), Some(JSON_SUBTYPE)),
        ValueRef::Blob(b) => (SV::Blob(b.to_vec()), None),
    }
}

/// A JSON text with `, ` and `: ` between its parts (outside strings) and
/// no other space, as MariaDB writes a document it built.
fn spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let (mut in_string, mut escaped) = (false, false);
    for ch in text.chars() {
        if in_string {
            out.push(ch);
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => {
                in_string = true;
                out.push(ch);
            }
            ',' => out.push_str(", "),
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------- JSON

/// A document as MariaDB writes one it built: `[1, 2]`, `{"a": 1}`.
fn mariadb_text(v: &J, out: &mut String) {
    match v {
        J::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                mariadb_text(x, out);
            }
            out.push(']');
        }
        J::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&J::String(k.clone()).to_string());
                out.push_str(": ");
                mariadb_text(x, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

pub(super) fn doc_out(v: &J) -> SV {
    let mut s = String::new();
    mariadb_text(v, &mut s);
    if fits(s.len()) {
        SV::Text(s)
    } else {
        SV::Null
    }
}

// ---------------------------------------------------------------- strings

/// CRC-32C (Castagnoli, reflected 0x82F63B78), continuing from `crc`.
fn crc32c(crc: u32, data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    !data.iter().fold(!crc, |c, &b| TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8))
}

/// CRC32(par, s) / CRC32C(par, s): `par` as the checksum so far (MariaDB
/// 10.8); its low 32 bits, as an unsigned number.
fn crc_start(ctx: &rusqlite::functions::Context<'_>) -> Option<u32> {
    int(&ctx.get_raw(0)).map(|n| n as u32)
}

fn strings(db: &Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "crc32c", 1, |ctx| Ok(Out::Val(barg(ctx, 0).map_or(SV::Null, |b| SV::Integer(i64::from(crc32c(0, &b)))))))?;
    reg_bytes(db, "crc32c", 2, |ctx| {
        let (Some(par), Some(b)) = (crc_start(ctx), barg(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
        Ok(Out::Val(SV::Integer(i64::from(crc32c(par, &b)))))
    })?;
    reg_bytes(db, "crc32", 2, |ctx| {
        let (Some(par), Some(b)) = (crc_start(ctx), barg(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
        let mut h = crc32fast::Hasher::new_with_initial(par);
        h.update(&b);
        Ok(Out::Val(SV::Integer(i64::from(h.finalize()))))
    })?;
    // VALUE(col) outside ON DUPLICATE KEY UPDATE (rewrite/upsert.rs): NULL,
    // as MariaDB, once the column is resolved.
    reg_bytes(db, "ts_value_null", 1, |_| Ok(Out::Val(SV::Null)))?;
    // NVL2(e, a, b): a when e is not NULL, else b (Oracle's, in MariaDB).
    reg_bytes(db, "nvl2", 3, |ctx| Ok(Out::Arg(if matches!(ctx.get_raw(0), ValueRef::Null) { 2 } else { 1 })))?;
    // NAME_CONST(name, value): the value (a stored routine's variable, named).
    reg_bytes(db, "name_const", 2, |_| Ok(Out::Arg(1)))?;
    // CHR(n): the bytes of n's low 32 bits, leading zero bytes dropped (one byte at least).
    reg_bytes(db, "chr", 1, |ctx| {
        let Some(n) = int(&ctx.get_raw(0)) else { return Ok(Out::Val(SV::Null)) };
        let be = (n as u32).to_be_bytes();
        let skip = be.iter().take(3).take_while(|b| **b == 0).count();
        Ok(Out::Bytes(be[skip..].to_vec()))
    })?;
    // CHAR(n, ...): each n's low 32 bits as bytes, leading zero bytes dropped; NULLs skipped.
    reg_bytes(db, "char", -1, |ctx| {
        let mut out = Vec::with_capacity(ctx.len());
        for n in (0..ctx.len()).filter_map(|i| int(&ctx.get_raw(i))) {
            let be = (n as u32).to_be_bytes();
            out.extend_from_slice(&be[be.iter().take(3).take_while(|b| **b == 0).count()..]);
        }
        Ok(Out::Bytes(out))
    })?;
    reg_bytes(db, "aes_encrypt", 2, |ctx| {
        let (Some(data), Some(key)) = (barg(ctx, 0), barg(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
        Ok(bytes_or_null(aes_ecb(&data, &key, true)))
    })?;
    reg_bytes(db, "aes_decrypt", 2, |ctx| {
        let (Some(data), Some(key)) = (barg(ctx, 0), barg(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
        Ok(bytes_or_null(aes_ecb(&data, &key, false)))
    })?;
    reg_bytes(db, "soundex", 1, |ctx| Ok(Out::Val(barg(ctx, 0).map_or(SV::Null, |b| SV::Text(soundex(&b))))))?;
    reg_bytes(db, "export_set", -1, export_set)?;
    reg_bytes(db, "encode", 2, |ctx| sql_crypt(ctx, true))?;
    reg_bytes(db, "decode", 2, |ctx| sql_crypt(ctx, false))?;
    // Cryptographically random bytes (the kernel's); a length past 1024 is NULL.
    reg_bytes(db, "random_bytes", 1, |ctx| {
        let Some(n) = int(&ctx.get_raw(0)) else { return Ok(Out::Val(SV::Null)) };
        if !(0..=RANDOM_BYTES_MAX).contains(&n) {
            return Ok(Out::Val(SV::Null));
        }
        let mut buf = vec![0u8; n as usize];
        std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)).map_err(|e| user_err(format!("ts:1105:random_bytes: {}", e)))?;
        Ok(bytes_or_null(Some(buf)))
    })?;
    Ok(())
}

/// AES_ENCRYPT / AES_DECRYPT as MariaDB's default block_encryption_mode
/// (aes-128-ecb): the key folded into 16 bytes by XOR (MySQL's key
/// derivation), PKCS#7 padding. None: text that is no such ciphertext (a
/// length that is no multiple of 16, or bad padding), NULL in MariaDB.
fn aes_ecb(data: &[u8], key: &[u8], encrypt: bool) -> Option<Vec<u8>> {
    use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
    let mut folded = [0u8; 16];
    for (i, b) in key.iter().enumerate() {
        folded[i % 16] ^= b;
    }
    let cipher = aes::Aes128::new(GenericArray::from_slice(&folded));
    if encrypt {
        let pad = 16 - data.len() % 16;
        if !fits(data.len() + pad) {
            return None;
        }
        let mut out = Vec::with_capacity(data.len() + pad);
        out.extend_from_slice(data);
        out.resize(data.len() + pad, pad as u8);
        for block in out.chunks_exact_mut(16) {
            cipher.encrypt_block(GenericArray::from_mut_slice(block));
        }
        return Some(out);
    }
    if data.is_empty() || !data.len().is_multiple_of(16) {
        return None;
    }
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(16) {
        cipher.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = usize::from(*out.last()?);
    if pad == 0 || pad > 16 || !out[out.len() - pad..].iter().all(|&b| usize::from(b) == pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}

/// A letter's SOUNDEX code ('0': a vowel, or not an English letter).
fn soundex_code(c: char) -> char {
    const MAP: &[u8; 26] = b"01230120022455012623010202";
    match c.to_ascii_uppercase() {
        u @ 'A'..='Z' => char::from(MAP[(u as u8 - b'A') as usize]),
        _ => '0',
    }
}

/// MariaDB's SOUNDEX: the first letter (capitalised when English), then the
/// codes of the letters after it, a code not repeated while the letters
/// between give none, padded with `0` to 4 characters; unlimited in length.
/// Letters: English ones and every character from U+00C0; others are
/// skipped; a byte that is no UTF-8 ends the text; no letter at all is the
/// empty string.
fn soundex(b: &[u8]) -> String {
    let chars = super::bytes::units(b).into_iter().map_while(|u| std::str::from_utf8(u).ok().and_then(|s| s.chars().next()));
    let letters = chars.filter(|&c| c.is_ascii_alphabetic() || u32::from(c) >= 0xC0);
    let mut out = String::new();
    let mut last = '0';
    for c in letters {
        let code = soundex_code(c);
        if out.is_empty() {
            out.push(c.to_ascii_uppercase());
            last = code;
        } else if code != '0' && code != last {
            out.push(code);
            last = code;
        }
    }
    if !out.is_empty() {
        while out.chars().count() < 4 {
            out.push('0');
        }
    }
    out
}

/// MySQL's old password hash (`hash_password`), the seeds of ENCODE's generator.
fn old_password_hash(key: &[u8]) -> (u64, u64) {
    let (mut nr, mut add, mut nr2) = (1_345_345_333u64, 7u64, 0x1234_5671u64);
    for &b in key.iter().filter(|b| **b != b' ' && **b != b'\t') {
        let tmp = u64::from(b);
        nr ^= ((nr & 63).wrapping_add(add)).wrapping_mul(tmp).wrapping_add(nr << 8);
        nr2 = nr2.wrapping_add((nr2 << 8) ^ nr);
        add = add.wrapping_add(tmp);
    }
    (nr & ((1 << 31) - 1), nr2 & ((1 << 31) - 1))
}

/// MySQL's `my_rnd` generator.
struct OldRnd {
    seed1: u64,
    seed2: u64,
}

impl OldRnd {
    const MAX: u64 = 0x3FFF_FFFF;
    fn new(seeds: (u64, u64)) -> OldRnd {
        OldRnd { seed1: seeds.0 % Self::MAX, seed2: seeds.1 % Self::MAX }
    }
    /// The next value times 255, truncated (as `SQL_CRYPT` uses it).
    fn next_255(&mut self) -> u32 {
        self.seed1 = (self.seed1 * 3 + self.seed2) % Self::MAX;
        self.seed2 = (self.seed1 + self.seed2 + 33) % Self::MAX;
        (self.seed1 as f64 / Self::MAX as f64 * 255.0) as u32
    }
}

/// ENCODE(s, key) / DECODE(s, key): MariaDB's `SQL_CRYPT`, byte for byte
/// (a substitution table shuffled by the key's generator, then a running
/// XOR). A binary string; NULL when either argument is.
fn sql_crypt(ctx: &rusqlite::functions::Context<'_>, encode: bool) -> rusqlite::Result<Out> {
    let (Some(s), Some(key)) = (barg(ctx, 0), barg(ctx, 1)) else { return Ok(Out::Val(SV::Null)) };
    let mut rnd = OldRnd::new(old_password_hash(&key));
    let mut decode_buf: [u8; 256] = std::array::from_fn(|i| i as u8);
    for i in 0..256 {
        let idx = rnd.next_255() as usize;
        decode_buf.swap(idx, i);
    }
    let mut encode_buf = [0u8; 256];
    for (i, d) in decode_buf.iter().enumerate() {
        encode_buf[*d as usize] = i as u8;
    }
    let mut shift = 0u32;
    let out = s
        .iter()
        .map(|&b| {
            shift ^= rnd.next_255();
            if encode {
                let c = encode_buf[b as usize] ^ shift as u8;
                shift ^= u32::from(b);
                c
            } else {
                let c = decode_buf[((u32::from(b) ^ shift) & 0xff) as usize];
                shift ^= u32::from(c);
                c
            }
        })
        .collect();
    Ok(Out::Bytes(out))
}

/// EXPORT_SET(bits, on, off[, separator[, number_of_bits]]).
fn export_set(ctx: &rusqlite::functions::Context<'_>) -> rusqlite::Result<Out> {
    need(ctx, 3, "export_set")?;
    if ctx.len() > 5 {
        return Err(user_err("ts:1582:Incorrect parameter count in the call to native function 'export_set'".into()));
    }
    let null = Ok(Out::Val(SV::Null));
    let Some(bits) = int(&ctx.get_raw(0)) else { return null };
    let (Some(on), Some(off)) = (barg(ctx, 1), barg(ctx, 2)) else { return null };
    let sep = if ctx.len() > 3 {
        match barg(ctx, 3) {
            Some(s) => s.into_owned(),
            None => return null,
        }
    } else {
        b",".to_vec()
    };
    let count = if ctx.len() > 4 {
        match int(&ctx.get_raw(4)) {
            Some(n) if (0..=EXPORT_SET_BITS).contains(&n) => n,
            Some(_) => EXPORT_SET_BITS,
            None => return null,
        }
    } else {
        EXPORT_SET_BITS
    };
    let longest = on.len().max(off.len()) + sep.len();
    if !fits(longest.saturating_mul(count as usize)) {
        return null;
    }
    let mut out = Vec::new();
    for k in 0..count {
        if k > 0 {
            out.extend_from_slice(&sep);
        }
        out.extend_from_slice(if (bits as u64 >> k) & 1 == 1 { &on } else { &off });
    }
    Ok(Out::Bytes(out))
}

#[cfg(test)]
mod tests {
    #[test]
    fn spaced_as_mariadb_writes() {
        assert_eq!(super::spaced(r#"{"a":1,"b":[1,"x,y:z",{"c":"q\\""}]}"#), r#"{"a": 1, "b": [1, "x,y:z", {"c": "q\\""}]}"#);
    }

    use super::crc32c;

    #[test]
    fn crc32c_is_castagnolis() {
        // MariaDB 10.11: CRC32C('MariaDB') = 809606978; the standard check value of '123456789'.
        assert_eq!(crc32c(0, b"MariaDB"), 809_606_978);
        assert_eq!(crc32c(0, b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(crc32c(0, b"Maria"), b"DB"), 809_606_978);
    }
}
