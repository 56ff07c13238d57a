//! CAST to DATE, DATETIME and TIME and the TIME() and DATE() functions, as
//! SQL functions: `ts_cast_temporal(x, 'date'|'datetime'|'time', fsp)` (the
//! rewriter's form of `CAST(x AS TIME(fsp))`), and `time(x)`, `date(x)`, which
//! replace SQLite's own (SQLite's give NULL for `'25:00:00'` or `20240102`
//! and do not read MySQL's forms). The rules are turnstile-sqltext's
//! `temporal_cast`, shared with the SQL front; the result is the value's
//! text with exactly the target's fractional digits, which the result
//! column's type (exec/results.rs) turns into a typed wire value.

use super::reg;
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use turnstile_sqltext::temporal_cast::{cast_temporal, fraction_digits, CastFrom};
use turnstile_sqltext::types::Base;

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "ts_cast_temporal", 3, true, |ctx| {
        let base = match ctx.get_raw(1) {
            ValueRef::Text(b"date") => Base::Date,
            ValueRef::Text(b"datetime") => Base::DateTime,
            _ => Base::Time,
        };
        let fsp = match ctx.get_raw(2) {
            ValueRef::Integer(n) => n.clamp(0, 6) as u8,
            _ => 0,
        };
        Ok(cast(ctx.get_raw(0), base, Some(fsp)))
    })?;
    reg(db, "time", 1, true, |ctx| Ok(cast(ctx.get_raw(0), Base::Time, None)))?;
    reg(db, "date", 1, true, |ctx| Ok(cast(ctx.get_raw(0), Base::Date, None)))?;
    Ok(())
}

/// A number written to a date or time column (`ts_tnorm`'s `kind`:
/// `date`, `datetime(n)`, `timestamp(n)`, `time(n)`) as MariaDB reads it:
/// 20240115 is 2024-01-15, 123 is 00:01:23, 0 the zero value. None for
/// anything else (a text, NULL) or a number that is no date.
pub(super) fn number_as_temporal(v: ValueRef<'_>, kind: &str) -> Option<String> {
    let from = match v {
        ValueRef::Integer(i) => CastFrom::Int(i),
        ValueRef::Real(f) => CastFrom::Real(f),
        _ => return None,
    };
    let (name, fsp) = match kind.split_once('(') {
        Some((n, f)) => (n, f.trim_end_matches(')').parse::<u8>().unwrap_or(0).min(6)),
        None => (kind, 0),
    };
    let base = match name {
        "date" => Base::Date,
        "time" => Base::Time,
        _ => Base::DateTime,
    };
    if matches!(from, CastFrom::Int(0)) || matches!(from, CastFrom::Real(f) if f == 0.0) {
        return Some(
            match base {
                Base::Date => "0000-00-00",
                Base::Time => "00:00:00",
                _ => "0000-00-00 00:00:00",
            }
            .to_string(),
        );
    }
    let t = cast_temporal(from, base, fsp)?.to_text_fsp(Some(fsp))?.into_owned();
    String::from_utf8(t).ok()
}

/// `v` as `base` with `fsp` digits (None: as many as a text shows).
fn cast(v: ValueRef<'_>, base: Base, fsp: Option<u8>) -> SV {
    let lossy;
    let from = match v {
        ValueRef::Null => return SV::Null,
        ValueRef::Integer(i) => CastFrom::Int(i),
        ValueRef::Real(f) => CastFrom::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            lossy = String::from_utf8_lossy(t);
            CastFrom::Text(&lossy)
        }
    };
    let fsp = fsp.unwrap_or(match from {
        CastFrom::Text(s) => fraction_digits(s),
        _ => 0,
    });
    match cast_temporal(from, base, fsp).and_then(|v| v.to_text_fsp(Some(fsp)).map(|t| t.into_owned())) {
        Some(t) => SV::Text(String::from_utf8(t).unwrap_or_default()),
        None => SV::Null,
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    #[test]
    fn casts_and_time_date_replace_sqlites() {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        let q = |sql: &str| db.query_row(sql, [], |r| r.get::<_, Option<String>>(0)).unwrap();
        assert_eq!(q("SELECT ts_cast_temporal('2024-01-02 03:04:05', 'time', 0)").as_deref(), Some("03:04:05"));
        assert_eq!(q("SELECT ts_cast_temporal('2024-01-02 03:04:05', 'time', 3)").as_deref(), Some("03:04:05.000"));
        assert_eq!(q("SELECT ts_cast_temporal(20240102, 'date', 0)").as_deref(), Some("2024-01-02"));
        assert_eq!(q("SELECT ts_cast_temporal('x', 'datetime', 0)"), None);
        assert_eq!(q("SELECT time('25:00:00')").as_deref(), Some("25:00:00"));
        assert_eq!(q("SELECT time('12:30:45.5')").as_deref(), Some("12:30:45.5"));
        assert_eq!(q("SELECT date('20240102')").as_deref(), Some("2024-01-02"));
        assert_eq!(q("SELECT time(NULL)"), None);
    }
}
