//! MariaDB 10.11's typing rules, one function per kind of node: literals,
//! columns, arithmetic (display lengths), the common type of hybrid
//! functions (COALESCE, IF, CASE, MIN/MAX, LEAD), and fixed, string and
//! temporal functions.

use super::parser::T;
use super::{decimal, ColType, ExprType, HUGE_CHARS};
use crate::types::Base;

/// A numeric literal's type.
pub(super) fn number(n: &str) -> T {
    if let Some(bytes) = crate::lex::hybrid_bytes(n) {
        return Some(ExprType::Hybrid { bytes: bytes.len() as u32 });
    }
    if n.contains(['e', 'E']) {
        return Some(ExprType::Double { null_arith: false });
    }
    if n.contains('.') {
        let d = crate::decimal::DecType::of_literal(n);
        return Some(decimal(d.precision, d.scale));
    }
    let digits = n.trim_start_matches('0').len().max(1) as u32;
    if digits <= 18 {
        return Some(ExprType::Int { len: digits, digits, unsigned: false, col: None });
    }
    // MariaDB: up to 9223372036854775807 a BIGINT, up to 18446744073709551615
    // an unsigned BIGINT (`1 MOD 9223372036854775808` is BIGINT), past that a DECIMAL.
    match n.trim_start_matches('0').parse::<u64>() {
        Ok(v) => Some(ExprType::Int { len: digits, digits, unsigned: v > i64::MAX as u64, col: None }),
        Err(_) => Some(decimal(digits, 0)),
    }
}

/// A column's type as an operand.
pub(super) fn of_column(c: ColType) -> T {
    let b = c.base;
    Some(match b {
        Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Int | Base::BigInt => {
            let len = b.display_width(c.unsigned) as u32;
            ExprType::Int { len, digits: len - u32::from(!c.unsigned), unsigned: c.unsigned, col: Some(b) }
        }
        Base::Year => ExprType::Int { len: 4, digits: 4, unsigned: true, col: Some(Base::Year) },
        Base::Decimal => decimal(c.length.unwrap_or(10) as u32, c.scale.unwrap_or(0) as u32),
        Base::Float => ExprType::Float,
        Base::Double => ExprType::Double { null_arith: false },
        Base::Date | Base::DateTime | Base::Timestamp | Base::Time => ExprType::Temporal { base: b, fsp: c.length.unwrap_or(0).min(6) as u8 },
        Base::Char | Base::Binary => ExprType::Str { chars: c.length.unwrap_or(1), fixed: true, binary: b == Base::Binary, group: false, members: false },
        Base::VarChar => ExprType::string(c.length.unwrap_or(1)),
        Base::Enum | Base::Set => ExprType::Str { chars: c.length.unwrap_or(1), fixed: false, binary: false, group: false, members: true },
        Base::VarBinary => ExprType::Str { chars: c.length.unwrap_or(1), fixed: false, binary: true, group: false, members: false },
        // MariaDB counts a TEXT column's characters as its byte limit
        // (TEXT: 65,535 characters, shown as 262,140 bytes in utf8mb4).
        Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::Json => ExprType::string(b.max_len(None).unwrap_or(4_294_967_295)),
        Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob => ExprType::Str { chars: b.max_len(None).unwrap_or(4_294_967_295), fixed: false, binary: true, group: false, members: false },
        // BIT(n) in arithmetic: an unsigned integer of n digits (`bit8_col + 0`
        // is INT(9)); anything else of it stays unknown (`is_bit`).
        Base::Bit => {
            let n = c.length.unwrap_or(1).clamp(1, 64) as u32;
            ExprType::Int { len: n, digits: n, unsigned: true, col: Some(Base::Bit) }
        }
    })
}

/// Is `t` a BIT column as it is (MariaDB keeps BIT through COALESCE, MIN...)?
pub(super) fn is_bit(t: &T) -> bool {
    matches!(t, Some(ExprType::Int { col: Some(Base::Bit), .. }))
}

/// An operand of arithmetic: strings and temporals count as DOUBLE, NULL stays NULL.
pub(super) fn numeric(t: ExprType) -> ExprType {
    match t {
        // An ENUM or SET column: its index or bitmask.
        ExprType::Str { members: true, chars, .. } => {
            let digits = chars.clamp(1, 18) as u32;
            ExprType::Int { len: digits, digits, unsigned: false, col: None }
        }
        ExprType::Str { .. } | ExprType::DateStr { .. } | ExprType::Float => ExprType::Double { null_arith: false },
        // A temporal is its number (TIME HHHMMSS, DATE YYYYMMDD, DATETIME
        // YYYYMMDDHHMMSS): an integer of 7, 8 or 14 digits, a DECIMAL with
        // its fraction digits (`time_col + 0.0` is DECIMAL(9,1)).
        ExprType::Temporal { base, fsp } => {
            let digits = match base {
                Base::Time => 7,
                Base::Date => 8,
                _ => 14,
            };
            if fsp == 0 {
                ExprType::int_digits(digits, false)
            } else {
                decimal(digits + u32::from(fsp), u32::from(fsp))
            }
        }
        // 0x31, b'1': an unsigned integer of its bytes.
        ExprType::Hybrid { bytes } => match bytes {
            0 | 1 => ExprType::int_digits(3, true),
            2 => ExprType::int_digits(5, true),
            3 => ExprType::int_digits(8, true),
            4 => ExprType::int_digits(10, true),
            _ => ExprType::int_digits(20, true),
        },
        // A column's own integer type is not the result's.
        ExprType::Int { len, digits, unsigned, .. } => ExprType::Int { len, digits, unsigned, col: None },
        t => t,
    }
}

/// `a + b`, `a - b`.
pub(super) fn additive(a: T, b: T) -> T {
    let (a, b) = (numeric(a?), numeric(b?));
    Some(match (a, b) {
        (ExprType::Null, _) | (_, ExprType::Null) => ExprType::Double { null_arith: true },
        (ExprType::Double { .. }, _) | (_, ExprType::Double { .. }) => ExprType::Double { null_arith: false },
        (ExprType::Int { digits: d1, unsigned: u1, .. }, ExprType::Int { digits: d2, unsigned: u2, .. }) => {
            let unsigned = u1 || u2;
            if d1.max(d2) + 1 > 19 {
                return Some(ExprType::Int { len: 21, digits: 20, unsigned, col: None });
            }
            ExprType::int_digits(d1.max(d2) + 1, unsigned)
        }
        _ => {
            let ((p1, s1), (p2, s2)) = (a.dec()?, b.dec()?);
            let scale = s1.max(s2);
            decimal((p1 - s1).max(p2 - s2) + 1 + scale, scale)
        }
    })
}

/// `a * b`, `a / b`, `a % b`, `a DIV b`.
pub(super) fn multiplicative(op: &str, a: T, b: T) -> T {
    let (a, b) = (numeric(a?), numeric(b?));
    if matches!(a, ExprType::Null) || matches!(b, ExprType::Null) {
        if op == "DIV" {
            // MariaDB: 1 DIV NULL and NULL DIV 1 are INT(1): the dividend's digits, 1 for NULL.
            let len = if matches!(a, ExprType::Null) { 1 } else { a.dec().map_or(21, |(p, s)| (p - s).max(1)) };
            return Some(ExprType::Int { len, digits: len, unsigned: false, col: None });
        }
        return Some(ExprType::Double { null_arith: true });
    }
    if matches!(a, ExprType::Double { .. }) || matches!(b, ExprType::Double { .. }) {
        return match op {
            // 1 DIV '1' and 123 DIV 1.5e0 are INT too: the dividend's integer digits.
            "DIV" => a.dec().map(|(p, s)| {
                let len = (p - s).max(1);
                ExprType::Int { len, digits: len, unsigned: false, col: None }
            }),
            _ => Some(ExprType::Double { null_arith: false }),
        };
    }
    let ((p1, s1), (p2, s2)) = (a.dec()?, b.dec()?);
    let (u1, u2) = (matches!(a, ExprType::Int { unsigned: true, .. }), matches!(b, ExprType::Int { unsigned: true, .. }));
    let ints = s1 == 0 && s2 == 0 && matches!(a, ExprType::Int { .. }) && matches!(b, ExprType::Int { .. });
    Some(match op {
        "*" if ints => {
            let digits = p1 + p2;
            if digits > 19 {
                ExprType::Int { len: 21, digits: 20, unsigned: u1 || u2, col: None }
            } else {
                ExprType::int_digits(digits, u1 || u2)
            }
        }
        "*" => decimal(p1 + p2, s1 + s2),
        "/" => {
            let scale = s1 + 4;
            decimal(p1 - s1 + s2 + scale, scale)
        }
        "%" if ints => ExprType::int_digits(p1.max(p2), u1),
        // 1 DIV 3 is INT(1), int_col DIV 2 BIGINT(10): the dividend's digits.
        "DIV" => ExprType::Int { len: (p1 - s1).max(1), digits: (p1 - s1).max(1), unsigned: u1, col: None },
        "%" => {
            let scale = s1.max(s2);
            decimal((p1 - s1).max(p2 - s2) + scale, scale)
        }
        _ => return None,
    })
}

/// `d + INTERVAL n unit`, DATE_ADD and the like; `lit_fsp`: the fraction
/// digits of `d` when it is a string literal. A DATE stays a DATE for units
/// of days or more, a TIME stays a TIME for DAY and smaller units; anything
/// not temporal gives a CHAR (`DateStr`).
pub(super) fn date_add(d: T, unit: String, lit_fsp: Option<u8>) -> T {
    let micro = unit.contains("MICROSECOND");
    let (base, fsp) = match d? {
        ExprType::Temporal { base, fsp } => (base, fsp),
        ExprType::Null | ExprType::Int { .. } => return Some(ExprType::DateStr { fsp: if micro { 6 } else { 0 }, exact: false }),
        ExprType::Decimal { scale, .. } => return Some(ExprType::DateStr { fsp: if micro { 6 } else { scale.min(6) as u8 }, exact: false }),
        ExprType::Str { binary: false, .. } | ExprType::DateStr { .. } | ExprType::Double { .. } | ExprType::Float => {
            return Some(ExprType::DateStr { fsp: if micro { 6 } else { lit_fsp.unwrap_or(6) }, exact: false })
        }
        _ => return None,
    };
    let time_unit = unit.contains("HOUR") || unit.contains("MINUTE") || unit.contains("SECOND");
    let fsp = if micro { 6 } else { fsp };
    Some(match base {
        Base::Date if !time_unit => ExprType::Temporal { base: Base::Date, fsp: 0 },
        // MariaDB: a TIME plus DAY or a smaller unit (not YEAR_MONTH) is a TIME.
        Base::Time if time_unit || unit.contains("DAY") => ExprType::Temporal { base: Base::Time, fsp },
        _ => ExprType::Temporal { base: Base::DateTime, fsp },
    })
}

/// The common type of COALESCE, IF, CASE, GREATEST...'s values.
pub(super) fn hybrid(args: &[T]) -> T {
    if args.iter().any(is_bit) {
        return None;
    }
    // Hex and bit literals alone (beside NULLs) stay one: COALESCE(0x31) is
    // a binary string as a value, an unsigned integer in arithmetic.
    let hybrids = args.iter().filter(|a| !matches!(a, Some(ExprType::Null)));
    if hybrids.clone().all(|a| matches!(a, Some(ExprType::Hybrid { .. }))) {
        if let Some(bytes) = hybrids.map(|a| if let Some(ExprType::Hybrid { bytes }) = a { *bytes } else { 0 }).max() {
            return Some(ExprType::Hybrid { bytes });
        }
    }
    let mut known = Vec::with_capacity(args.len());
    for a in args {
        match (*a)? {
            ExprType::Null => {}
            ExprType::Hybrid { bytes } => known.push(ExprType::Str { chars: u64::from(bytes), fixed: false, binary: true, group: false, members: false }),
            t @ ExprType::DateStr { .. } => known.push(ExprType::Str { chars: t.chars(), fixed: true, binary: false, group: false, members: false }),
            t => known.push(t),
        }
    }
    let Some(&first) = known.first() else { return Some(ExprType::Null) };
    if known.iter().all(|t| matches!(t, ExprType::Str { .. })) {
        let chars = known.iter().map(|t| t.chars()).max().unwrap_or(0);
        let fixed = known.iter().all(|t| matches!(t, ExprType::Str { fixed: true, .. }));
        let binary = known.iter().any(|t| t.binary());
        let group = known.iter().any(|t| matches!(t, ExprType::Str { group: true, .. }));
        return Some(ExprType::Str { chars, fixed, binary, group, members: false });
    }
    if known.iter().all(|t| matches!(t, ExprType::Temporal { .. })) {
        let fsp = known.iter().map(|t| if let ExprType::Temporal { fsp, .. } = t { *fsp } else { 0 }).max().unwrap_or(0);
        let bases: Vec<Base> = known.iter().map(|t| if let ExprType::Temporal { base, .. } = t { *base } else { Base::Date }).collect();
        // Mixed: DATETIME (a TIME beside a date is that time on the current
        // day, rewrite/temporal_numbers.rs).
        let base = if bases.iter().all(|b| *b == bases[0]) { bases[0] } else { Base::DateTime };
        return Some(ExprType::Temporal { base, fsp });
    }
    if known.iter().any(|t| matches!(t, ExprType::Str { .. } | ExprType::Temporal { .. })) {
        if known.iter().any(|t| matches!(t, ExprType::Temporal { .. })) {
            return None;
        }
        let chars = known.iter().map(|t| t.chars()).max().unwrap_or(0);
        return Some(ExprType::Str { chars, fixed: false, binary: known.iter().any(|t| t.binary()), group: false, members: false });
    }
    if known.iter().all(|t| matches!(t, ExprType::Float)) {
        return Some(ExprType::Float);
    }
    if known.iter().any(|t| matches!(t, ExprType::Double { .. } | ExprType::Float)) {
        return Some(ExprType::Double { null_arith: false });
    }
    if known.iter().all(|t| matches!(t, ExprType::Int { .. })) {
        let unsigned = matches!(first, ExprType::Int { unsigned: true, .. });
        let same_sign = known.iter().all(|t| matches!(t, ExprType::Int { unsigned: u, .. } if *u == unsigned));
        let digits = known.iter().map(|t| if let ExprType::Int { digits, .. } = t { *digits } else { 0 }).max().unwrap_or(1);
        if !same_sign {
            return Some(decimal(digits, 0));
        }
        let cols: Vec<Option<Base>> = known.iter().map(|t| if let ExprType::Int { col, .. } = t { *col } else { None }).collect();
        let col = if cols.iter().all(Option::is_some) { cols.iter().flatten().copied().max_by_key(|b| int_rank(*b)) } else { None };
        let len = match col {
            Some(b) if b != Base::Year => b.display_width(unsigned) as u32,
            _ => digits + u32::from(!unsigned),
        };
        return Some(ExprType::Int { len, digits, unsigned, col: col.filter(|b| *b != Base::Year) });
    }
    // Integers and decimals: the larger integer part and scale.
    let mut int_part = 0;
    let mut scale = 0;
    for t in &known {
        let (p, s) = t.dec()?;
        int_part = int_part.max(p - s);
        scale = scale.max(s);
    }
    Some(decimal(int_part + scale, scale))
}

/// GREATEST and LEAST: compared as temporals when any argument is one, so
/// numbers beside a TIME give a TIME (with a DECIMAL's digits); otherwise
/// the common type (`hybrid`). Strings beside a temporal: unknown.
pub(super) fn greatest(args: &[T]) -> T {
    let mut temporal: Option<(Base, u8)> = None;
    let mut fsp = 0;
    for a in args {
        match (*a)? {
            ExprType::Temporal { base, fsp: f } => {
                fsp = fsp.max(f);
                temporal = Some(match temporal {
                    // A TIME beside a date: that time on the current day.
                    Some((b, _)) if b != base => (Base::DateTime, 0),
                    _ => (base, 0),
                });
            }
            ExprType::Int { .. } | ExprType::Null => {}
            ExprType::Decimal { scale, .. } => fsp = fsp.max(scale.min(6) as u8),
            _ if args.iter().any(|a| matches!(a, Some(ExprType::Temporal { .. }))) => return None,
            _ => {}
        }
    }
    match temporal {
        Some((base, _)) => Some(ExprType::Temporal { base, fsp }),
        None => hybrid(args),
    }
}

pub(super) fn int_rank(b: Base) -> u8 {
    match b {
        Base::TinyInt => 1,
        Base::SmallInt => 2,
        Base::MediumInt => 3,
        Base::Int => 4,
        _ => 5,
    }
}

/// Functions whose type does not depend on their arguments.
pub(super) fn fixed_function(name: &str) -> T {
    Some(match name {
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE" | "TO_SECONDS" | "BIT_OR" | "BIT_AND" | "BIT_XOR" | "BIT_COUNT" => match name {
            "TO_SECONDS" => ExprType::int(12, false),
            "BIT_OR" | "BIT_AND" | "BIT_XOR" => ExprType::int(21, true),
            "BIT_COUNT" => ExprType::int(2, false),
            _ => ExprType::int(21, false),
        },
        "TO_DAYS" | "PERIOD_ADD" | "PERIOD_DIFF" | "YEARWEEK" | "MICROSECOND" => ExprType::int(6, false),
        "DATEDIFF" => ExprType::int(8, false),
        // INT(10) UNSIGNED, as MariaDB types it (a view's column: the front
        // writes the value into a statement's own text).
        "CONNECTION_ID" => ExprType::int(10, true),
        "RAND" | "SQRT" | "EXP" | "LN" | "LOG" | "LOG2" | "LOG10" | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "COT" | "POW" | "POWER" | "DEGREES" | "RADIANS" | "STD" | "STDDEV"
        | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP" | "PERCENT_RANK" | "CUME_DIST" => ExprType::Double { null_arith: false },
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "FROM_DAYS" | "MAKEDATE" => ExprType::Temporal { base: Base::Date, fsp: 0 },
        "DAYNAME" | "MONTHNAME" => ExprType::string(9),
        "MD5" => ExprType::string(32),
        "SHA1" | "SHA" => ExprType::string(40),
        "PASSWORD" => ExprType::string(41),
        "SHA2" => ExprType::string(128),
        "UUID" => ExprType::Str { chars: 36, fixed: true, binary: false, group: false, members: false },
        "DATABASE" | "SCHEMA" | "USER" | "CURRENT_USER" | "SESSION_USER" | "SYSTEM_USER" | "VERSION" => ExprType::string(64),
        _ => return None,
    })
}

/// A call's type from its arguments' (`lits`: integer literal arguments).
pub(super) fn function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    if let Some(t) = fixed_function(name) {
        return Some(t);
    }
    if let Some((len, unsigned)) = crate::item_type::long_function(name) {
        // INT whatever its length (LENGTH is INT(10)).
        return Some(ExprType::Int { len, digits: len - u32::from(!unsigned && len > 1), unsigned, col: Some(Base::Int) });
    }
    // FORMAT knows a BIT's digits; other functions of one: unknown.
    if name == "FORMAT" {
        return string_function(name, args, lits);
    }
    if args.iter().any(is_bit) {
        return None;
    }
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    match name {
        "IF" => hybrid(args.get(1..)?),
        "IFNULL" | "NVL" | "COALESCE" => hybrid(args),
        "NVL2" => hybrid(args.get(1..)?),
        "NAME_CONST" => arg(1),
        "GREATEST" | "LEAST" => greatest(args),
        "NULLIF" => arg(0),
        "MIN" | "MAX" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" | "LEAD" | "LAG" | "ANY_VALUE" => match arg(0)? {
            ExprType::Null => Some(ExprType::Null),
            t => Some(t),
        },
        "SUM" => match numeric(arg(0)?) {
            ExprType::Double { .. } | ExprType::Null => Some(ExprType::Double { null_arith: true }),
            t => t.dec().map(|(p, s)| decimal(p + 22, s)),
        },
        "AVG" => match numeric(arg(0)?) {
            ExprType::Double { .. } | ExprType::Null => Some(ExprType::Double { null_arith: true }),
            t => t.dec().map(|(p, s)| decimal(p + 4, s + 4)),
        },
        "ABS" if matches!(arg(0)?, ExprType::Temporal { .. }) => None,
        "ABS" => match numeric(arg(0)?) {
            ExprType::Null => Some(ExprType::Double { null_arith: true }),
            ExprType::Int { len, digits, unsigned, .. } => Some(ExprType::Int { len, digits, unsigned, col: None }),
            t => Some(t),
        },
        // ROUND(int, -n) may carry a digit (ROUND(99,-1) is 100): one more
        // character, INT or BIGINT by length, a DECIMAL from a BIGINT.
        "ROUND" if args.len() == 2 && lits.get(1).copied().flatten().is_some_and(|d| d < 0) => match arg(0)? {
            t @ ExprType::Int { len, unsigned, col, .. } if col.map_or(t.wide(), |b| b == Base::BigInt) => Some(decimal(len + u32::from(unsigned), 0)),
            ExprType::Int { len, digits, unsigned, .. } => Some(ExprType::Int { len: len + 1, digits: digits + 1, unsigned, col: None }),
            t @ ExprType::Hybrid { .. } => Some(numeric(t)),
            ExprType::Double { .. } | ExprType::Float => Some(ExprType::Double { null_arith: false }),
            _ => None,
        },
        "ROUND" | "TRUNCATE" | "FLOOR" | "CEIL" | "CEILING" => match arg(0)? {
            t @ ExprType::Int { .. } => Some(t),
            // ROUND(0x2A, 2): the literal's unsigned integer.
            t @ ExprType::Hybrid { .. } => Some(numeric(t)),
            ExprType::Double { .. } | ExprType::Float if name == "ROUND" || name == "TRUNCATE" => Some(ExprType::Double { null_arith: false }),
            _ => None,
        },
        "MOD" => multiplicative("%", arg(0), arg(1)),
        _ => string_function(name, args, lits).or_else(|| temporal_function(name, args, lits)),
    }
}

/// A string function's type from its arguments'.
pub(super) fn string_function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    let lit = |k: usize| lits.get(k).copied().flatten();
    let str_of = |chars: u64, binary: bool| Some(ExprType::Str { chars, fixed: false, binary, group: false, members: false });
    let any_binary = || args.iter().any(|a| a.is_some_and(|t| t.binary()));
    match name {
        "CONCAT" => {
            let mut chars = 0u64;
            for a in args {
                chars += (*a)?.chars();
            }
            str_of(chars, any_binary())
        }
        "CONCAT_WS" => {
            let sep = arg(0)?.chars();
            let mut chars = 0u64;
            for a in args.get(1..)? {
                chars += (*a)?.chars() + sep;
            }
            str_of(chars.saturating_sub(sep), any_binary())
        }
        "UPPER" | "LOWER" | "UCASE" | "LCASE" | "LTRIM" | "RTRIM" | "REVERSE" | "LEFT" | "RIGHT" | "MID" | "SUBSTRING_INDEX" | "REGEXP_SUBSTR" => {
            let t = arg(0)?;
            let chars = match (name, lit(1)) {
                ("LEFT" | "RIGHT", Some(n)) => t.chars().min(n.max(0) as u64),
                _ => t.chars(),
            };
            str_of(chars, t.binary())
        }
        "REPEAT" => {
            let t = arg(0)?;
            str_of(lit(1).map_or(HUGE_CHARS, |n| t.chars().saturating_mul(n.max(0) as u64).min(HUGE_CHARS)), t.binary())
        }
        "SPACE" => str_of(lit(0).map_or(HUGE_CHARS, |n| (n.max(0) as u64).min(HUGE_CHARS)), false),
        "LPAD" | "RPAD" => str_of(lit(1).map_or(HUGE_CHARS, |n| (n.max(0) as u64).min(HUGE_CHARS)), arg(0)?.binary()),
        "REPLACE" => {
            let (s, to) = (arg(0)?, arg(2)?);
            str_of(s.chars().saturating_mul(to.chars().max(1)).min(HUGE_CHARS), s.binary())
        }
        "REGEXP_REPLACE" => str_of(HUGE_CHARS, arg(0)?.binary()),
        "INSERT" => str_of(arg(0)?.chars() + arg(3)?.chars(), arg(0)?.binary()),
        "HEX" => str_of(arg(0)?.chars() * 2, false),
        // What they find or keep is at most their document (a number found
        // too: a string); JSON_EXTRACT's many paths may double it; a
        // document of more than 4,096 characters may have any number of
        // paths to a value (JSON_SEARCH). Sizes as MariaDB 10.11 gives them.
        "JSON_VALUE" | "JSON_QUERY" | "JSON_KEYS" | "JSON_REMOVE" | "JSON_COMPACT" => str_of(arg(0)?.chars().min(HUGE_CHARS), false),
        "JSON_EXTRACT" | "JSON_LOOSE" => str_of(arg(0)?.chars().saturating_mul(2).min(HUGE_CHARS), false),
        "JSON_SEARCH" => {
            let c = arg(0)?.chars();
            str_of(if c > 4_096 { HUGE_CHARS } else { c * c }, false)
        }
        // A document built of its arguments: at most all of them, quoted.
        "JSON_ARRAY_APPEND" | "JSON_ARRAY_INSERT" | "JSON_SET" | "JSON_INSERT" | "JSON_REPLACE" | "JSON_ARRAY" | "JSON_OBJECT" | "JSON_MERGE" | "JSON_MERGE_PATCH" | "JSON_MERGE_PRESERVE" => {
            let mut chars = 0u64;
            for a in args {
                chars = chars.saturating_add((*a)?.chars().saturating_mul(2));
            }
            str_of(chars.min(HUGE_CHARS), false)
        }
        "JSON_TYPE" => str_of(12, false),
        // Its argument's length in bytes as characters (a TEXT's 65,535
        // characters make 262,140: a MEDIUMTEXT); a string variable's
        // length is counted in bytes already (a MEDIUMTEXT).
        "JSON_UNQUOTE" => {
            let c = arg(0)?.chars();
            str_of(if c == super::USER_VAR_CHARS { c - 3 } else { c.saturating_mul(4) }.min(u64::from(u32::MAX)), false)
        }
        // Each character may become 12 characters (a surrogate pair such as `\ud83d\ude00`), in quotes.
        "JSON_QUOTE" => str_of(arg(0)?.chars().saturating_mul(12).saturating_add(2).min(u64::from(u32::MAX)), false),
        "JSON_NORMALIZE" => str_of(arg(0)?.chars().saturating_mul(20).min(u64::from(u32::MAX)), false),
        "FORMAT" => str_of(format_chars(arg(0)?, lit(1)), false),
        // MariaDB sizes a laid-out document as a LONGTEXT whatever its input.
        "JSON_DETAILED" | "JSON_PRETTY" => str_of(HUGE_CHARS, false),
        "QUOTE" => str_of(arg(0)?.chars() * 2 + 2, false),
        _ => None,
    }
}

/// Most decimals FORMAT writes (MariaDB's FORMAT_MAX_DECIMALS).
const FORMAT_MAX_DECIMALS: u64 = 38;

/// The length of FORMAT(x, d) as MariaDB sizes it: the integer digits x's
/// type may have (one more where rounding to fewer decimals may carry, and
/// at least one), a separator for every three, a sign, the point and `d`
/// decimals (38 when d is no constant or NULL).
fn format_chars(x: ExprType, d_literal: Option<i64>) -> u64 {
    let dec = d_literal.map_or(FORMAT_MAX_DECIMALS, |n| (n.max(0) as u64).min(FORMAT_MAX_DECIMALS));
    let (int_digits, decimals) = format_digits(x);
    // Rounding may carry where x has more decimals than a constant d keeps
    // (any decimals at all when d is no constant).
    let rounds = if d_literal.is_some() { decimals > dec } else { decimals > 0 };
    let extra = u64::from(rounds || int_digits == 0);
    let c = int_digits + extra;
    c + c / 3 + u64::from(dec > 0) + 1 + dec
}

/// (integer digits, decimals) of FORMAT's first argument by its type:
/// an integer type's precision, BIT(n)'s digits of 2^n-1, a DECIMAL's
/// integer part, a double's 309 (a FLOAT's 39) with 31 decimals (strings
/// too), a date's 8, a time's 7, a datetime's 14.
fn format_digits(x: ExprType) -> (u64, u64) {
    match x {
        ExprType::Int { col: Some(Base::Bit), len, .. } => {
            let max = if len >= 64 { u64::MAX } else { (1u64 << len.max(1)) - 1 };
            (max.to_string().len() as u64, 0)
        }
        ExprType::Int { col: Some(b), unsigned, .. } => {
            let digits = match b {
                Base::TinyInt => 3,
                Base::SmallInt => 5,
                Base::MediumInt => 7 + u64::from(unsigned),
                Base::Int => 10,
                Base::Year => 4,
                _ => 19 + u64::from(unsigned),
            };
            (digits, 0)
        }
        // A literal or an expression: INT up to 9 characters, else BIGINT.
        ExprType::Int { len, unsigned, .. } => (if len <= 9 { 10 } else { 19 + u64::from(unsigned) }, 0),
        ExprType::Decimal { precision, scale } => (u64::from(precision.saturating_sub(scale)), u64::from(scale)),
        ExprType::Float => (39, 31),
        ExprType::Null => (309, 0),
        ExprType::Temporal { base: Base::Date, .. } => (8, 0),
        ExprType::Temporal { base: Base::Time, fsp } => (7, u64::from(fsp)),
        ExprType::Temporal { fsp, .. } => (14, u64::from(fsp)),
        _ => (309, 31),
    }
}

/// A date and time function's type from its arguments'.
pub(super) fn temporal_function(name: &str, args: &[T], lits: &[Option<i64>]) -> T {
    let arg = |k: usize| -> T { args.get(k).copied().flatten() };
    let lit = |k: usize| lits.get(k).copied().flatten();
    match name {
        "SEC_TO_TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: frac_of(arg(0)?) }),
        // Seconds: a BIGINT(17), a DECIMAL with the argument's fraction
        // digits (a string's or a DOUBLE's 6) when it has any.
        "TIME_TO_SEC" | "UNIX_TIMESTAMP" => {
            let fsp = match args.first() {
                None => 0,
                Some(a) => match (*a)? {
                    ExprType::Int { .. } | ExprType::Null | ExprType::Hybrid { .. } => 0,
                    ExprType::Temporal { fsp, .. } | ExprType::DateStr { fsp, .. } => fsp,
                    ExprType::Decimal { scale, .. } => scale.min(6) as u8,
                    ExprType::Double { .. } | ExprType::Float | ExprType::Str { .. } => 6,
                },
            };
            Some(if fsp == 0 { ExprType::int(17, false) } else { decimal(16 + u32::from(fsp), u32::from(fsp)) })
        }
        "MAKETIME" => Some(ExprType::Temporal { base: Base::Time, fsp: frac_of(arg(2)?) }),
        "TIMEDIFF" => Some(ExprType::Temporal { base: Base::Time, fsp: arg_fsp(arg(0)?)?.max(arg_fsp(arg(1)?)?) }),
        // A TIME stays a TIME, a date becomes a DATETIME; anything else
        // (a string, a number, NULL) gives a CHAR of a DATETIME's length
        // with the arguments' fraction digits (a string's or a DOUBLE's: 6).
        "ADDTIME" | "SUBTIME" => {
            let fsp = arg_fsp(arg(1)?).unwrap_or(6);
            match arg(0)? {
                ExprType::Temporal { base: Base::Time, fsp: f } => Some(ExprType::Temporal { base: Base::Time, fsp: f.max(fsp) }),
                ExprType::Temporal { fsp: f, .. } => Some(ExprType::Temporal { base: Base::DateTime, fsp: f.max(fsp) }),
                // A string's or a DOUBLE's value shows the digits it needs.
                ExprType::DateStr { fsp: f, exact: true } => Some(ExprType::DateStr { fsp: f.max(fsp), exact: true }),
                ExprType::Str { binary: false, .. } | ExprType::DateStr { .. } | ExprType::Double { .. } | ExprType::Float => Some(ExprType::DateStr { fsp: 6, exact: false }),
                t @ (ExprType::Int { .. } | ExprType::Decimal { .. } | ExprType::Null) => Some(ExprType::DateStr { fsp: arg_fsp(t).unwrap_or(6).max(fsp), exact: true }),
                _ => None,
            }
        }
        "DATE" | "LAST_DAY" => Some(ExprType::Temporal { base: Base::Date, fsp: 0 }),
        "TIME" => number_fsp(arg(0)?).map(|fsp| ExprType::Temporal { base: Base::Time, fsp }),
        "TIMESTAMP" if args.len() == 1 => number_fsp(arg(0)?).map(|fsp| ExprType::Temporal { base: Base::DateTime, fsp }),
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE" | "UTC_TIMESTAMP" => Some(ExprType::Temporal { base: Base::DateTime, fsp: lit(0).unwrap_or(0).clamp(0, 6) as u8 }),
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => Some(ExprType::Temporal { base: Base::Time, fsp: lit(0).unwrap_or(0).clamp(0, 6) as u8 }),
        // A DATETIME with the seconds' fraction digits; of a string or a
        // DOUBLE as many as each value needs, which no type here says.
        "FROM_UNIXTIME" if args.len() == 1 => match arg(0)? {
            ExprType::Int { .. } | ExprType::Null => Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }),
            ExprType::Decimal { scale, .. } => Some(ExprType::Temporal { base: Base::DateTime, fsp: scale.min(6) as u8 }),
            _ => None,
        },
        "CONVERT_TZ" => match arg(0)? {
            ExprType::Temporal { base: Base::DateTime | Base::Timestamp, fsp } => Some(ExprType::Temporal { base: Base::DateTime, fsp }),
            _ => None,
        },
        _ => None,
    }
}

/// The fraction digits TIME(x) and TIMESTAMP(x) give operand `t`: a
/// temporal's own, an integer none, a DECIMAL its scale (at most 6), a
/// DOUBLE or a string 6.
fn number_fsp(t: ExprType) -> Option<u8> {
    match t {
        ExprType::Temporal { fsp, .. } => Some(fsp),
        ExprType::Int { .. } => Some(0),
        ExprType::Decimal { scale, .. } => Some(scale.min(6) as u8),
        ExprType::Double { .. } | ExprType::Float | ExprType::Str { .. } => Some(6),
        _ => None,
    }
}

/// STR_TO_DATE with a constant `format`: DATETIME when it reads a date and a
/// time of day, TIME for a time alone, else DATE; with `%f` 6 digits.
pub(super) fn str_to_date(format: &str) -> ExprType {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some('a' | 'b' | 'c' | 'd' | 'D' | 'e' | 'j' | 'm' | 'M' | 'u' | 'U' | 'v' | 'V' | 'w' | 'W' | 'x' | 'X' | 'y' | 'Y') => date = true,
            Some('f') => {
                time = true;
                frac = true;
            }
            Some('H' | 'h' | 'I' | 'i' | 'k' | 'l' | 'p' | 'r' | 's' | 'S' | 'T') => time = true,
            _ => {}
        }
    }
    let fsp = if frac { 6 } else { 0 };
    match (date, time) {
        (true, true) => ExprType::Temporal { base: Base::DateTime, fsp },
        (false, true) => ExprType::Temporal { base: Base::Time, fsp },
        _ => ExprType::Temporal { base: Base::Date, fsp: 0 },
    }
}

/// Fraction digits a temporal function's argument brings: a temporal's, a
/// DECIMAL's scale, none for an integer; unknown for anything else.
pub(super) fn arg_fsp(t: ExprType) -> Option<u8> {
    match t {
        ExprType::Temporal { fsp, .. } => Some(fsp),
        ExprType::Decimal { scale, .. } => Some(scale.min(6) as u8),
        ExprType::Int { .. } | ExprType::Null => Some(0),
        _ => None,
    }
}

/// Fractional seconds a TIME made from a number keeps: its decimals.
pub(super) fn frac_of(t: ExprType) -> u8 {
    match t {
        ExprType::Decimal { scale, .. } => scale.min(6) as u8,
        ExprType::Double { .. } | ExprType::Float | ExprType::Str { .. } => 6,
        _ => 0,
    }
}
