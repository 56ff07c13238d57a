//! `ts_cs(value, 'latin1'|'ascii', column, row)`: a string written to a
//! column of a single-byte character set must be made of that set's
//! characters, as in MariaDB (strict mode: 1366 "Incorrect string value:
//! '\xE4\xB8\xAD...' for column `db`.`t`.`c` at row 1"; `column` is that
//! quoted name). Values stay UTF-8 text (the engine keeps every
//! string as UTF-8, and sends it as utf8mb4); this only refuses what the
//! column could not hold. MariaDB's latin1 is Windows-1252 (0x80 is €), so
//! those characters are accepted too. Bytes that are not UTF-8 (a binary
//! string) are left alone: they were not characters of the connection's set.

use super::bytes::{reg_bytes, Out};
use super::user_err;
use rusqlite::functions::Context;
use rusqlite::types::ValueRef;

pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    reg_bytes(db, "ts_cs", 4, ts_cs)
}

/// Windows-1252's characters at 0x80-0x9F (MariaDB's latin1), and the five
/// C1 controls it maps to themselves.
const CP1252_HIGH: [char; 32] =
    ['€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ'];

fn in_charset(c: char, cs: &[u8]) -> bool {
    match cs {
        b"ascii" => c.is_ascii(),
        _ => c.is_ascii() || ('\u{a0}'..='\u{ff}').contains(&c) || CP1252_HIGH.contains(&c),
    }
}

/// The value itself (the argument as it came, UTF-8 or not), or 1366.
fn ts_cs(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    let (ValueRef::Text(b), ValueRef::Text(cs)) = (ctx.get_raw(0), ctx.get_raw(1)) else {
        return Ok(Out::Arg(0));
    };
    match first_bad(b, cs) {
        None => Ok(Out::Arg(0)),
        Some(at) => {
            let col = match ctx.get_raw(2) {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => String::new(),
            };
            let row = match ctx.get_raw(3) {
                ValueRef::Integer(n) => n,
                _ => 1,
            };
            Err(user_err(format!("ts:1366:Incorrect string value: '{}' for column {} at row {}", shown(&b[at..]), col, row)))
        }
    }
}

/// Byte offset of the first character of `b` not in `cs` (invalid UTF-8 skipped).
fn first_bad(b: &[u8], cs: &[u8]) -> Option<usize> {
    let mut at = 0;
    for chunk in b.utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            if !in_charset(c, cs) {
                return Some(at + i);
            }
        }
        at += chunk.valid().len() + chunk.invalid().len();
    }
    None
}

/// MySQL's form of the refused bytes: at most 6, printable ASCII as is,
/// others as \xHH.
pub(crate) fn shown(b: &[u8]) -> String {
    b.iter().take(6).map(|&x| if x.is_ascii_graphic() || x == b' ' { (x as char).to_string() } else { format!("\\x{:02X}", x) }).collect()
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    #[test]
    fn latin1_and_ascii_columns_refuse_other_characters() {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        let q = |expr: &str| db.query_row(&format!("SELECT hex({})", expr), [], |r| r.get::<_, String>(0));
        for (ok, hex) in [
            ("ts_cs('é€x', 'latin1', '`c`', 1)", "C3A9E282AC78"),
            ("ts_cs('abc', 'ascii', '`c`', 1)", "616263"),
            ("ts_cs(5, 'ascii', '`c`', 1)", "35"),
            ("ts_cs(NULL, 'latin1', '`c`', 1)", ""),
            ("ts_cs(CAST(X'E9' AS TEXT), 'latin1', '`c`', 1)", "E9"),
        ] {
            assert_eq!(q(ok).unwrap(), hex, "{}", ok);
        }
        let err = |expr: &str| q(expr).unwrap_err().to_string();
        assert!(err("ts_cs('中文', 'latin1', '`d`.`t`.`a`', 3)").contains("ts:1366:Incorrect string value: '\\xE4\\xB8\\xAD\\xE6\\x96\\x87' for column `d`.`t`.`a` at row 3"));
        assert!(err("ts_cs('aé中', 'latin1', '`c`', 1)").contains("'\\xE4\\xB8\\xAD'"));
        assert!(err("ts_cs('xé', 'ascii', '`b`', 1)").contains("'\\xC3\\xA9' for column `b`"));
    }
}
