//! `ts_bit(value, n, 'col')`: a value written to a BIT(n) column, as MySQL
//! stores it. A number is its own bits; a binary string (b'101', 0x05, a
//! dump's '\x01', a bound byte parameter) is the integer whose big-endian
//! bytes it is. The result is kept as SQLite's INTEGER: a u64 above 2^63-1
//! as its i64 bits, which the result side (exec/results.rs, `Conv::Bit`)
//! sends back as the column's bytes. A value wider than n bits is MySQL's
//! 1406 "Data too long" (1264 for a hex literal over 64 bits).

use super::user_err;
use rusqlite::functions::Context;
use rusqlite::types::{Value as SV, ValueRef};

pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    super::reg(db, "ts_bit", 3, true, ts_bit)
}

fn ts_bit(ctx: &Context<'_>) -> rusqlite::Result<SV> {
    let n = match ctx.get_raw(1) {
        ValueRef::Integer(n) => n.clamp(1, 64) as u32,
        _ => 64,
    };
    let value = ctx.get_raw(0);
    let bits = match value {
        ValueRef::Null => return Ok(SV::Null),
        ValueRef::Integer(i) => Some(i as u64).filter(|_| i >= 0 || n == 64),
        ValueRef::Real(f) => Some(f.round()).filter(|r| (0.0..18_446_744_073_709_551_616.0).contains(r)).map(|r| r as u64),
        ValueRef::Text(b) | ValueRef::Blob(b) => from_bytes(b),
    };
    match bits.filter(|&u| fits(u, n)) {
        Some(u) => Ok(SV::Integer(u as i64)),
        None => {
            let col = match ctx.get_raw(2) {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => String::new(),
            };
            // MariaDB: a hex literal wider than 64 bits is out of range
            // (1264), anything else wider than the column too long (1406).
            let code = if matches!(value, ValueRef::Blob(_)) && bits.is_none() { 1264 } else { 1406 };
            Err(user_err(format!("ts:{}:{}", code, col)))
        }
    }
}

/// The big-endian integer of `b` (leading zero bytes ignored); None above 64 bits.
fn from_bytes(b: &[u8]) -> Option<u64> {
    let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    let b = &b[start..];
    (b.len() <= 8).then(|| b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
}

fn fits(u: u64, n: u32) -> bool {
    n >= 64 || u >> n == 0
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    #[test]
    fn bit_values_as_mysql_stores_them() {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        let q = |sql: &str| db.query_row(sql, [], |r| r.get::<_, Option<i64>>(0));
        assert_eq!(q("SELECT ts_bit(X'05', 3, 'c')").unwrap(), Some(5));
        assert_eq!(q("SELECT ts_bit(CAST(X'0001' AS TEXT), 1, 'c')").unwrap(), Some(1));
        assert_eq!(q("SELECT ts_bit(X'FFFFFFFFFFFFFFFE', 64, 'c')").unwrap(), Some(-2));
        assert_eq!(q("SELECT ts_bit(9.223372036854775808e18, 64, 'c')").unwrap(), Some(i64::MIN));
        assert_eq!(q("SELECT ts_bit(-1, 64, 'c')").unwrap(), Some(-1));
        assert_eq!(q("SELECT ts_bit(NULL, 8, 'c')").unwrap(), None);
        for bad in ["ts_bit(2, 1, 'c')", "ts_bit('1', 1, 'c')", "ts_bit(-1, 8, 'c')", "ts_bit(256, 8, 'c')"] {
            let e = q(&format!("SELECT {}", bad)).unwrap_err().to_string();
            assert!(e.contains("ts:1406:c"), "{}: {}", bad, e);
        }
        assert!(q("SELECT ts_bit(X'010203040506070809', 64, 'c')").unwrap_err().to_string().contains("ts:1264:c"));
    }
}
