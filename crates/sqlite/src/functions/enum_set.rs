//! ENUM and SET values where MariaDB reads them as numbers.
//!
//! An ENUM column stores its member's text, a SET column its members'
//! texts joined by commas (in the column's order). In numeric context
//! MariaDB reads an ENUM as its member's 1-based index (0 for the ''
//! error value) and a SET as the bitmask of its members; the rewriter
//! (rewrite/enum_numbers.rs) writes these calls where that happens:
//!
//! - `ts_enum_num(v, member...)`, `ts_set_num(v, member...)`: the number of
//!   a stored value (arithmetic, CAST, SUM, ORDER BY, a comparison with a
//!   numeric expression);
//! - `ts_enum_lit(x, member...)`, `ts_set_lit(x, member...)`: what a
//!   literal compared for equality with the column (`=`, IN, CASE ...
//!   WHEN) names: a number becomes the stored text of the member (or
//!   members) it indexes, so the comparison stays a plain one the column's
//!   index serves; a string stays as it is (it compares as text). A number
//!   that names none becomes a BLOB no stored TEXT equals.
//! - `ts_enum_cmp(a, b, op, flags, member...)`: an ordering comparison
//!   `a op b` (`<`, `<=`, `>`, `>=`) of a stored value with a literal or
//!   parameter whose kind is known only when it runs: a number compares
//!   with the value's number, a string with its text (the column's
//!   collation: byte order for a binary one, else utf8mb4_general_ci's).
//!   `flags`: 1 a SET, 2 a binary collation, 4 the value is `b`.
//! - `ts_set(v, column, row, member...)`: a strict write's SET value, its
//!   members in the column's order (a number is a bitmask), ERR 1265 for a
//!   member the column does not have.

use super::bytes::{need, Out};
use super::user_err;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::cmp::Ordering;
use turnstile_sqltext::collate::ci_compare;

/// What a number that names no member compares as: a BLOB, which no TEXT
/// equals (SQLite orders every TEXT before every BLOB).
fn no_member() -> SV {
    SV::Blob(vec![0xFF, 0xFE])
}

/// The members, from argument `from` on.
fn members<'c>(ctx: &'c Context<'_>, from: usize) -> Vec<&'c [u8]> {
    (from..ctx.len())
        .map(|i| match ctx.get_raw(i) {
            ValueRef::Text(t) | ValueRef::Blob(t) => t,
            _ => &[][..],
        })
        .collect()
}

/// The 1-based position of the member `t` spells (the stored spelling,
/// else any case, trailing blanks ignored); 0 for none (the '' error value).
fn enum_index(members: &[&[u8]], t: &[u8]) -> i64 {
    if let Some(k) = members.iter().position(|m| *m == t) {
        return k as i64 + 1;
    }
    members.iter().position(|m| ci_compare(m, t).is_eq()).map_or(0, |k| k as i64 + 1)
}

/// The bitmask of the members a SET text names (parts that name none count nothing).
fn set_mask(members: &[&[u8]], t: &[u8]) -> i64 {
    let mut mask = 0u64;
    for part in t.split(|&c| c == b',').filter(|p| !p.is_empty()) {
        if let Some(k) = members.iter().position(|m| *m == part).or_else(|| members.iter().position(|m| ci_compare(m, part).is_eq())) {
            if k < 64 {
                mask |= 1 << k;
            }
        }
    }
    mask as i64
}

/// The number of stored value `v` (argument 0): its index or bitmask.
fn number(ctx: &Context<'_>, set: bool) -> Out {
    match ctx.get_raw(0) {
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let m = members(ctx, 1);
            Out::Val(SV::Integer(if set { set_mask(&m, t) } else { enum_index(&m, t) }))
        }
        // NULL, or a number already.
        _ => Out::Arg(0),
    }
}

/// An integral number of a literal: None for a string or NULL, Some(None)
/// for a number that is not an integer.
fn integral(v: ValueRef<'_>) -> Option<Option<i64>> {
    match v {
        ValueRef::Integer(i) => Some(Some(i)),
        ValueRef::Real(r) => Some((r.fract() == 0.0 && r.abs() < 9.2e18).then_some(r as i64)),
        _ => None,
    }
}

/// The stored text a literal compared with an ENUM (or SET) names.
fn literal(ctx: &Context<'_>, set: bool) -> Out {
    let Some(n) = integral(ctx.get_raw(0)) else { return Out::Arg(0) };
    let m = members(ctx, 1);
    let Some(n) = n else { return Out::Val(no_member()) };
    if !set {
        return match n {
            0 => Out::Val(SV::Text(String::new())),
            k if k >= 1 && (k as u64) <= m.len() as u64 => Out::Bytes(m[k as usize - 1].to_vec()),
            _ => Out::Val(no_member()),
        };
    }
    let bits = n as u64;
    if n < 0 || (m.len() < 64 && bits >> m.len() != 0) {
        return Out::Val(no_member());
    }
    let chosen: Vec<&[u8]> = m.iter().enumerate().filter(|(k, _)| *k < 64 && bits >> k & 1 == 1).map(|(_, m)| *m).collect();
    Out::Bytes(chosen.join(&b","[..]))
}

/// `ts_enum_cmp(a, b, op, flags, member...)` (see the module's comment).
fn compare(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    need(ctx, 4, "ts_enum_cmp")?;
    let flags = match ctx.get_raw(3) {
        ValueRef::Integer(f) => f,
        _ => 0,
    };
    let swapped = flags & 4 != 0;
    let (v, x) = if swapped { (ctx.get_raw(1), ctx.get_raw(0)) } else { (ctx.get_raw(0), ctx.get_raw(1)) };
    let order = match (v, x) {
        (ValueRef::Null, _) | (_, ValueRef::Null) => return Ok(Out::Val(SV::Null)),
        (ValueRef::Text(t) | ValueRef::Blob(t), ValueRef::Integer(_) | ValueRef::Real(_)) => {
            let m = members(ctx, 4);
            let set = flags & 1 != 0;
            let n = if set { set_mask(&m, t) } else { enum_index(&m, t) } as f64;
            let y = match x {
                ValueRef::Integer(i) => i as f64,
                ValueRef::Real(r) => r,
                _ => 0.0,
            };
            n.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
        (ValueRef::Text(a) | ValueRef::Blob(a), ValueRef::Text(b) | ValueRef::Blob(b)) => {
            if flags & 2 != 0 {
                let trim = |s: &[u8]| s.len() - s.iter().rev().take_while(|&&c| c == b' ').count();
                a[..trim(a)].cmp(&b[..trim(b)])
            } else {
                ci_compare(a, b)
            }
        }
        // A number stored (not an ENUM's value): as numbers.
        (a, b) => {
            let f = |v: ValueRef<'_>| match v {
                ValueRef::Integer(i) => i as f64,
                ValueRef::Real(r) => r,
                _ => 0.0,
            };
            f(a).partial_cmp(&f(b)).unwrap_or(Ordering::Equal)
        }
    };
    let op = match ctx.get_raw(2) {
        ValueRef::Text(t) => t,
        _ => &b"="[..],
    };
    // `x op v` is `v op' x`.
    let order = if swapped { order.reverse() } else { order };
    let yes = match op {
        b"<" => order.is_lt(),
        b"<=" => order.is_le(),
        b">" => order.is_gt(),
        b">=" => order.is_ge(),
        _ => order.is_eq(),
    };
    Ok(Out::Val(SV::Integer(yes as i64)))
}

/// `ts_set(v, column, row, member...)`: a strict write's SET value.
fn strict_set(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    need(ctx, 3, "ts_set")?;
    let m = members(ctx, 3);
    let refuse = || {
        let col = String::from_utf8_lossy(match ctx.get_raw(1) {
            ValueRef::Text(t) => t,
            _ => &[][..],
        })
        .into_owned();
        let row = match ctx.get_raw(2) {
            ValueRef::Integer(i) => i,
            _ => 1,
        };
        user_err(format!("ts:1265:Data truncated for column '{}' at row {}", col, row))
    };
    let chosen: Vec<bool> = match ctx.get_raw(0) {
        ValueRef::Null => return Ok(Out::Arg(0)),
        v @ (ValueRef::Integer(_) | ValueRef::Real(_)) => {
            let Some(Some(n)) = integral(v) else { return Err(refuse()) };
            let bits = n as u64;
            if n < 0 || (m.len() < 64 && bits >> m.len() != 0) {
                return Err(refuse());
            }
            (0..m.len()).map(|k| k < 64 && bits >> k & 1 == 1).collect()
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let mut chosen = vec![false; m.len()];
            for part in t.split(|&c| c == b',').filter(|p| !p.is_empty()) {
                let trimmed = &part[..part.len() - part.iter().rev().take_while(|&&c| c == b' ').count()];
                match m.iter().position(|x| *x == part).or_else(|| m.iter().position(|x| ci_compare(x, trimmed).is_eq())) {
                    Some(k) => chosen[k] = true,
                    None => return Err(refuse()),
                }
            }
            chosen
        }
    };
    let out: Vec<&[u8]> = m.iter().zip(&chosen).filter(|(_, c)| **c).map(|(x, _)| *x).collect();
    Ok(Out::Bytes(out.join(&b","[..])))
}

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    db.create_scalar_function("ts_enum_num", -1, flags, |ctx| {
        need(ctx, 1, "ts_enum_num")?;
        Ok(number(ctx, false))
    })?;
    db.create_scalar_function("ts_set_num", -1, flags, |ctx| {
        need(ctx, 1, "ts_set_num")?;
        Ok(number(ctx, true))
    })?;
    db.create_scalar_function("ts_enum_lit", -1, flags, |ctx| {
        need(ctx, 1, "ts_enum_lit")?;
        Ok(literal(ctx, false))
    })?;
    db.create_scalar_function("ts_set_lit", -1, flags, |ctx| {
        need(ctx, 1, "ts_set_lit")?;
        Ok(literal(ctx, true))
    })?;
    db.create_scalar_function("ts_enum_cmp", -1, flags, compare)?;
    db.create_scalar_function("ts_set", -1, flags, strict_set)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    fn db() -> Connection {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        db
    }

    fn q(db: &Connection, sql: &str) -> String {
        db.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0)).map(|v| format!("{:?}", v)).unwrap_or_else(|e| format!("ERR {}", e))
    }

    #[test]
    fn numbers_of_values() {
        let db = db();
        assert_eq!(q(&db, "SELECT ts_enum_num('b', 'a', 'B', 'c')"), "Integer(2)");
        assert_eq!(q(&db, "SELECT ts_enum_num('', 'a', 'b')"), "Integer(0)");
        assert_eq!(q(&db, "SELECT ts_enum_num(NULL, 'a')"), "Null");
        assert_eq!(q(&db, "SELECT ts_set_num('a,c', 'a', 'b', 'c')"), "Integer(5)");
        assert_eq!(q(&db, "SELECT ts_set_num('', 'a')"), "Integer(0)");
    }

    #[test]
    fn literals_name_members() {
        let db = db();
        assert_eq!(q(&db, "SELECT ts_enum_lit(2, 'a', 'b')"), "Text(\"b\")");
        assert_eq!(q(&db, "SELECT ts_enum_lit(2.0, 'a', 'b')"), "Text(\"b\")");
        assert_eq!(q(&db, "SELECT ts_enum_lit('2', 'a', 'b')"), "Text(\"2\")");
        assert_eq!(q(&db, "SELECT ts_enum_lit(0, 'a')"), "Text(\"\")");
        assert_eq!(q(&db, "SELECT 'a' = ts_enum_lit(3, 'a', 'b')"), "Integer(0)");
        assert_eq!(q(&db, "SELECT 'a' <> ts_enum_lit(1.5, 'a', 'b')"), "Integer(1)");
        assert_eq!(q(&db, "SELECT ts_set_lit(5, 'a', 'b', 'c')"), "Text(\"a,c\")");
        assert_eq!(q(&db, "SELECT 'a' = ts_set_lit(8, 'a', 'b', 'c')"), "Integer(0)");
        assert_eq!(q(&db, "SELECT ts_set_lit(-1, 'a')"), "Blob([255, 254])");
    }

    #[test]
    fn ordering_by_kind_of_operand() {
        let db = db();
        assert_eq!(q(&db, "SELECT ts_enum_cmp('c', 3, '<=', 0, 'x', 'c', 'a')"), "Integer(1)");
        assert_eq!(q(&db, "SELECT ts_enum_cmp('c', 'b', '<=', 0, 'x', 'c', 'a')"), "Integer(0)");
        assert_eq!(q(&db, "SELECT ts_enum_cmp('B', 'b', '>=', 0, 'B')"), "Integer(1)");
        assert_eq!(q(&db, "SELECT ts_enum_cmp('B', 'b', '>=', 2, 'B')"), "Integer(0)");
        assert_eq!(q(&db, "SELECT ts_enum_cmp('a,b', 3, '>', 1, 'a', 'b')"), "Integer(0)");
        // 3 > 'c' (index 2): the value second.
        assert_eq!(q(&db, "SELECT ts_enum_cmp(3, 'c', '>', 4, 'x', 'c')"), "Integer(1)");
        assert_eq!(q(&db, "SELECT ts_enum_cmp(NULL, 3, '>', 1, 'a')"), "Null");
        assert!(q(&db, "SELECT ts_enum_cmp(1)").starts_with("ERR"));
    }

    #[test]
    fn strict_set_values() {
        let db = db();
        assert_eq!(q(&db, "SELECT ts_set('c,A', 's', 1, 'a', 'b', 'c')"), "Text(\"a,c\")");
        assert_eq!(q(&db, "SELECT ts_set(6, 's', 1, 'a', 'b', 'c')"), "Text(\"b,c\")");
        assert_eq!(q(&db, "SELECT ts_set('', 's', 1, 'a')"), "Text(\"\")");
        assert!(q(&db, "SELECT ts_set('a,z', 's', 2, 'a')").contains("1265"));
        assert!(q(&db, "SELECT ts_set(8, 's', 2, 'a', 'b')").contains("1265"));
    }
}
