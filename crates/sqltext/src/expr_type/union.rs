//! The type of a UNION's result column, from the types of its members'
//! columns (MariaDB's Item_type_holder, checked against MariaDB 10.11 case
//! by case): `SELECT 12 UNION SELECT 'aa'` is a VARCHAR(2), `12 UNION 12.2`
//! a DECIMAL(3,1), `tinyint_col UNION int_col` an INT(11), a DATE beside a
//! TIME a DATETIME, a temporal beside a number or a string a VARCHAR as long
//! as the longest, NULL members nothing but nullability.
//!
//! Why: SQLite types a compound query's result by its first member, and
//! a client decoding `'aa'` as the INT the first member promised fails
//! (PyMySQL). The members' columns are described one by one
//! (exec/results.rs) and joined here; a member whose column is not known
//! (BIT, GEOMETRY, a value typed by its first row) makes the result
//! unknown (None), and the caller keeps its older description.

use super::{rules, ExprType};
use crate::types::Base;
use turnstile_wire::consts::{charset, colflag, coltype};
use turnstile_wire::response::Column;

/// The type a result column `c` describes (None: one not joined here).
pub fn of_wire(c: &Column) -> Option<ExprType> {
    let unsigned = c.flags & colflag::UNSIGNED != 0;
    // TINYINT..MEDIUMINT are a column's own type; INT and BIGINT are a
    // column's when they have its display width (`1 + 1` is an INT(3)).
    let int = |base: Base, own: bool| {
        let len = c.length.max(1);
        let own = own || u64::from(len) == base.display_width(unsigned);
        Some(ExprType::Int { len, digits: len - u32::from(!unsigned && len > 1), unsigned, col: own.then_some(base) })
    };
    let per_char = match c.charset {
        charset::BINARY => 1,
        8 | 11 | 47 | 48 | 65 => 1,
        33 | 83 | 192..=223 => 3,
        _ => 4,
    };
    let binary = c.charset == charset::BINARY;
    let chars = u64::from(c.length) / per_char;
    match c.coltype {
        coltype::NULL => Some(ExprType::Null),
        coltype::TINY => int(Base::TinyInt, true),
        coltype::SHORT => int(Base::SmallInt, true),
        coltype::INT24 => int(Base::MediumInt, true),
        coltype::LONG => int(Base::Int, false),
        coltype::LONGLONG => int(Base::BigInt, false),
        coltype::YEAR => Some(ExprType::Int { len: 4, digits: 4, unsigned: true, col: Some(Base::Year) }),
        coltype::NEWDECIMAL | coltype::DECIMAL => {
            let scale = u32::from(c.decimals).min(38);
            let precision = c.length.saturating_sub(u32::from(scale > 0) + u32::from(!unsigned));
            Some(super::decimal(precision, scale))
        }
        coltype::FLOAT => Some(ExprType::Float),
        coltype::DOUBLE => Some(ExprType::Double { null_arith: false }),
        coltype::DATE | coltype::NEWDATE => Some(ExprType::Temporal { base: Base::Date, fsp: 0 }),
        coltype::TIME => Some(ExprType::Temporal { base: Base::Time, fsp: c.decimals.min(6) }),
        coltype::DATETIME => Some(ExprType::Temporal { base: Base::DateTime, fsp: c.decimals.min(6) }),
        coltype::TIMESTAMP => Some(ExprType::Temporal { base: Base::Timestamp, fsp: c.decimals.min(6) }),
        // ENUM and SET are strings of their longest member.
        coltype::VAR_STRING | coltype::VARCHAR | coltype::STRING => {
            let fixed = c.coltype == coltype::STRING && c.flags & (colflag::ENUM | colflag::SET) == 0;
            Some(ExprType::Str { chars, fixed, binary, group: false, members: false })
        }
        // TEXT and BLOB stay BLOB types whatever joins them (`group`).
        coltype::TINY_BLOB | coltype::BLOB | coltype::MEDIUM_BLOB | coltype::LONG_BLOB => Some(ExprType::Str { chars, fixed: false, binary, group: true, members: false }),
        _ => None,
    }
}

/// The type of a UNION's column whose members' columns are `members`
/// (in order); None when one of them is of a type not joined here.
pub fn union_of(members: &[ExprType]) -> Option<ExprType> {
    let known: Vec<ExprType> = members.iter().copied().filter(|t| !matches!(t, ExprType::Null)).collect();
    if known.is_empty() {
        return Some(ExprType::Null);
    }
    if known.iter().all(|t| matches!(t, ExprType::Int { col: Some(Base::Year), .. })) {
        return Some(known[0]);
    }
    let temporal = |t: &ExprType| matches!(t, ExprType::Temporal { .. });
    if known.iter().all(temporal) {
        let fsp = known.iter().map(|t| if let ExprType::Temporal { fsp, .. } = t { *fsp } else { 0 }).max().unwrap_or(0);
        let first = if let ExprType::Temporal { base, .. } = known[0] { base } else { Base::DateTime };
        // One type stays; any two (a DATE beside a TIME too) are a DATETIME.
        let base = if known.iter().all(|t| matches!(t, ExprType::Temporal { base, .. } if *base == first)) { first } else { Base::DateTime };
        return Some(ExprType::Temporal { base, fsp: if base == Base::Date { 0 } else { fsp } });
    }
    if known.iter().any(|t| temporal(t) || matches!(t, ExprType::Str { .. } | ExprType::DateStr { .. } | ExprType::Hybrid { .. })) {
        // Strings, or a temporal beside anything else: a string of the
        // longest value; a CHAR when a CHAR is among them and no VARCHAR.
        let chars = known.iter().map(|t| t.chars()).max().unwrap_or(0);
        let group = known.iter().any(|t| matches!(t, ExprType::Str { group: true, .. }));
        let fixed = known.iter().any(|t| matches!(t, ExprType::Str { fixed: true, .. } | ExprType::DateStr { .. }))
            && !known.iter().any(|t| matches!(t, ExprType::Str { fixed: false, .. } | ExprType::Hybrid { .. }));
        return Some(ExprType::Str { chars, fixed: fixed && !group, binary: known.iter().any(|t| t.binary()), group, members: false });
    }
    if let Some(t) = integers(&known) {
        return Some(t);
    }
    // FLOAT beside integers of at most 24 bits stays a FLOAT.
    let small = |t: &ExprType| matches!(t, ExprType::Int { col: Some(Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Year), .. });
    if known.iter().any(|t| matches!(t, ExprType::Float)) && known.iter().all(|t| matches!(t, ExprType::Float) || small(t)) {
        return Some(ExprType::Float);
    }
    let args: Vec<Option<ExprType>> = known.into_iter().map(Some).collect();
    rules::hybrid(&args)
}

/// Integers of one signedness: the widest type among them (a column's own,
/// else INT or BIGINT by its length), as long as the most digits and a sign
/// (`1 UNION 22` is an INT(3), `tinyint_col UNION tinyint_col` a TINYINT(4)).
fn integers(known: &[ExprType]) -> Option<ExprType> {
    let mut widest = Base::TinyInt;
    let mut digits = 1;
    let unsigned = matches!(known.first()?, ExprType::Int { unsigned: true, .. });
    for t in known {
        let ExprType::Int { digits: d, unsigned: u, col, .. } = *t else { return None };
        if u != unsigned {
            return None;
        }
        let own = match col {
            Some(Base::Year) => Base::SmallInt,
            Some(b) => b,
            None if t.wide() => Base::BigInt,
            None => Base::Int,
        };
        if rules::int_rank(own) > rules::int_rank(widest) {
            widest = own;
        }
        digits = digits.max(d);
    }
    Some(ExprType::Int { len: digits + u32::from(!unsigned), digits, unsigned, col: Some(widest) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integer literal of `digits` digits.
    fn int(digits: u32) -> ExprType {
        ExprType::Int { len: digits, digits, unsigned: false, col: None }
    }

    fn wire(ty: u8, length: u32, flags: u16, decimals: u8, cs: u16) -> Column {
        let mut c = Column::computed("c", ty);
        c.length = length;
        c.flags = flags;
        c.decimals = decimals;
        c.charset = cs;
        c
    }

    #[test]
    fn members_join_as_mariadb() {
        // 12 UNION 'aa': VARCHAR(2); 12 UNION 12.2: DECIMAL(3,1).
        assert_eq!(union_of(&[int(2), ExprType::string(2)]), Some(ExprType::string(2)));
        assert_eq!(union_of(&[int(2), super::super::decimal(3, 1)]), Some(ExprType::Decimal { precision: 3, scale: 1 }));
        // 1 UNION NULL UNION 333: INT(4).
        let long = |len: u32| ExprType::Int { len, digits: len - 1, unsigned: false, col: Some(Base::Int) };
        assert_eq!(union_of(&[int(1), ExprType::Null, int(3)]), Some(long(4)));
        assert_eq!(union_of(&[int(1), int(2)]), Some(long(3)));
        // A CHAR beside a number stays a CHAR; beside a VARCHAR it is one.
        let char2 = ExprType::Str { chars: 2, fixed: true, binary: false, group: false, members: false };
        assert_eq!(union_of(&[char2, int(3)]), Some(ExprType::Str { chars: 3, fixed: true, binary: false, group: false, members: false }));
        assert_eq!(union_of(&[char2, ExprType::string(1)]), Some(ExprType::string(2)));
        assert_eq!(union_of(&[ExprType::Null, ExprType::Null]), Some(ExprType::Null));
        let date = ExprType::Temporal { base: Base::Date, fsp: 0 };
        let time2 = ExprType::Temporal { base: Base::Time, fsp: 2 };
        assert_eq!(union_of(&[date, time2]), Some(ExprType::Temporal { base: Base::DateTime, fsp: 2 }));
        // 1 UNION CURRENT_DATE: VARCHAR(10).
        assert_eq!(union_of(&[int(1), date]), Some(ExprType::string(10)));
        let year = ExprType::Int { len: 4, digits: 4, unsigned: true, col: Some(Base::Year) };
        assert_eq!(union_of(&[year, year]), Some(year));
        assert_eq!(union_of(&[year, int(1)]), Some(ExprType::Decimal { precision: 4, scale: 0 }));
        assert_eq!(union_of(&[ExprType::Float, int(1)]), Some(ExprType::Double { null_arith: false }));
        let tiny = ExprType::Int { len: 4, digits: 3, unsigned: false, col: Some(Base::TinyInt) };
        assert_eq!(union_of(&[ExprType::Float, tiny]), Some(ExprType::Float));
        assert_eq!(union_of(&[tiny, tiny]), Some(tiny));
    }

    #[test]
    fn wire_columns_read_back() {
        assert_eq!(of_wire(&wire(coltype::LONG, 11, 0, 0, 63)), Some(ExprType::Int { len: 11, digits: 10, unsigned: false, col: Some(Base::Int) }));
        assert_eq!(of_wire(&wire(coltype::LONG, 3, 0, 0, 63)), Some(ExprType::int(3, false)));
        assert_eq!(of_wire(&wire(coltype::NEWDECIMAL, 7, 0, 2, 63)), Some(ExprType::Decimal { precision: 5, scale: 2 }));
        assert_eq!(of_wire(&wire(coltype::VAR_STRING, 12, 0, 0, 45)), Some(ExprType::string(3)));
        assert_eq!(of_wire(&wire(coltype::STRING, 12, colflag::ENUM, 0, 45)), Some(ExprType::string(3)));
        assert_eq!(of_wire(&wire(coltype::BIT, 3, 0, 0, 63)), None);
        // TINYINT beside INT: INT(11); beside a literal: INT(4).
        let ti = of_wire(&wire(coltype::TINY, 4, 0, 0, 63)).unwrap();
        let i = of_wire(&wire(coltype::LONG, 11, 0, 0, 63)).unwrap();
        assert_eq!(union_of(&[ti, i]), Some(i));
        assert_eq!(union_of(&[ti, int(1)]), Some(ExprType::Int { len: 4, digits: 3, unsigned: false, col: Some(Base::Int) }));
    }
}
