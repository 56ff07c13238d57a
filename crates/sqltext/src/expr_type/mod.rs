//! The type MariaDB 10.11 gives a select item, worked out from its text and
//! the types of the columns it names: the result metadata clients see
//! (`mysql --column-type-info`), for items whose value alone does not say it.
//!
//! Why: SQLite's value of `tinyint_col + 1` is an integer, of `sum(a)/count(*)`
//! a double, of `SEC_TO_TIME(x)` text and of `1 + NULL` nothing at all, where
//! MariaDB describes INT, DECIMAL(.,4), TIME and DOUBLE (the differential
//! runner, tests/outside/mtr_diff.py, counted 1,875 statements that disagreed
//! on a column's type). Both the SQLite engine (exec/results.rs) and the SQL
//! front (a SELECT without a table) describe items by `infer`, so the two
//! agree.
//!
//! How: a small precedence parser over the item's tokens, typing each node
//! by MariaDB's rules (checked against MariaDB, not from its source):
//! integer arithmetic carries a display length (`tinyint + 1` is INT(4),
//! `int + 1` BIGINT(12); INT while the length is at most 9); `/` and AVG of
//! exact numbers are DECIMAL with 4 more decimals; an operand NULL makes
//! arithmetic DOUBLE; COALESCE, IF, CASE, GREATEST, MIN, LEAD and the like
//! keep their arguments' common type (CHAR stays CHAR, TIME stays TIME);
//! a string of 65,532 bytes or more is a BLOB sized by its bytes.
//!
//! Split by job: here the types and `infer`'s entry, `column` (the wire
//! column of a type); `parser` the precedence parser over an item's tokens;
//! `rules` the type of each literal, operator and function; `union` the
//! type of a UNION's column from its members' columns; `nullable` which
//! items are never NULL.
//! Conservative: an operand it does not know (a function not listed here, a
//! variable, a parameter, a subquery) makes the item unknown (`None`), and
//! the caller keeps its older rules; only comparisons are known whatever
//! their operands are.

use crate::types::Base;
use turnstile_wire::response::Column;

/// A column the item names, as its table defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColType {
    pub base: Base,
    pub unsigned: bool,
    /// Declared length (characters, digits, fractional seconds).
    pub length: Option<u64>,
    pub scale: Option<u64>,
}

/// An item's type as MariaDB reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprType {
    /// An integer of `digits` digits shown in `len` characters; `col`: the
    /// integer type of a column it passes on unchanged (`IF(a, tinyint_col,
    /// smallint_col)` is SMALLINT), else INT or BIGINT by `len`.
    Int {
        len: u32,
        digits: u32,
        unsigned: bool,
        col: Option<Base>,
    },
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// DOUBLE; `null_arith`: arithmetic with a NULL operand (length 17, no decimals).
    Double {
        null_arith: bool,
    },
    Float,
    /// A string of at most `chars` characters; `fixed`: CHAR; `group`:
    /// GROUP_CONCAT (a BLOB); `members`: an ENUM or SET column, whose
    /// number in arithmetic is its index or bitmask (an integer of `chars`
    /// digits, as MariaDB types `enum_col + 0`).
    Str {
        chars: u64,
        fixed: bool,
        binary: bool,
        group: bool,
        members: bool,
    },
    Temporal {
        base: Base,
        fsp: u8,
    },
    /// DATE_ADD of a value that is no DATE, DATETIME or TIME (a string, a
    /// number, NULL): a CHAR of a DATETIME's length with `fsp` decimals;
    /// `exact`: each value shows exactly `fsp` fraction digits (ADDTIME of
    /// a number), else as many as the engine wrote.
    DateStr {
        fsp: u8,
        exact: bool,
    },
    /// A hex or bit literal (`0x31`, `b'1'`) of `bytes` bytes: a binary
    /// string as a value, an unsigned integer in arithmetic.
    Hybrid {
        bytes: u32,
    },
    Null,
}

/// Most characters a string function of a non-constant length may return
/// (MariaDB's max_allowed_packet default, 16 MiB).
const HUGE_CHARS: u64 = 16_777_216;
/// Deepest nesting the parser follows before giving up (unknown).
const MAX_DEPTH: u32 = 64;

impl ExprType {
    fn int(len: u32, unsigned: bool) -> ExprType {
        ExprType::Int { len, digits: len - u32::from(!unsigned && len > 1), unsigned, col: None }
    }

    /// An integer computed from `digits` digits: a sign unless unsigned.
    fn int_digits(digits: u32, unsigned: bool) -> ExprType {
        ExprType::Int { len: digits + u32::from(!unsigned), digits, unsigned, col: None }
    }

    fn string(chars: u64) -> ExprType {
        ExprType::Str { chars, fixed: false, binary: false, group: false, members: false }
    }

    /// Is this a BIGINT (LONGLONG) rather than an INT (LONG)?
    pub fn wide(&self) -> bool {
        matches!(self, ExprType::Int { len, .. } if *len > 9)
    }

    /// As a DECIMAL operand: precision and scale (integers count their digits).
    fn dec(&self) -> Option<(u32, u32)> {
        match *self {
            ExprType::Int { digits, .. } => Some((digits, 0)),
            ExprType::Decimal { precision, scale } => Some((precision, scale)),
            _ => None,
        }
    }

    /// Characters the value takes as a string (CONCAT's operand).
    fn chars(&self) -> u64 {
        match *self {
            ExprType::Int { len, .. } => u64::from(len),
            ExprType::Decimal { precision, scale } => u64::from(precision + u32::from(scale > 0) + 1),
            ExprType::Double { .. } | ExprType::Float => 12,
            ExprType::Str { chars, .. } => chars,
            ExprType::Temporal { base, fsp } => temporal_len(base, fsp),
            ExprType::Hybrid { bytes } => u64::from(bytes),
            ExprType::DateStr { fsp, .. } => temporal_len(Base::DateTime, fsp),
            ExprType::Null => 0,
        }
    }

    fn binary(&self) -> bool {
        matches!(self, ExprType::Str { binary: true, .. } | ExprType::Hybrid { .. })
    }
}

/// A DATE/DATETIME/TIME's display length with `fsp` fractional digits.
pub fn temporal_len(base: Base, fsp: u8) -> u64 {
    let frac = if fsp > 0 { u64::from(fsp) + 1 } else { 0 };
    match base {
        Base::Date => 10,
        Base::Time => 10 + frac,
        _ => 19 + frac,
    }
}

fn decimal(precision: u32, scale: u32) -> ExprType {
    let scale = scale.min(38);
    ExprType::Decimal { precision: precision.clamp(scale.max(1), 65), scale }
}

/// The type of select item `text` (None: not known here). `col` finds a
/// column by its qualifier and name.
pub fn infer(text: &str, col: &dyn Fn(Option<&str>, &str) -> Option<ColType>) -> Option<ExprType> {
    parser::item(text, &TableColumns(col, &|_| None))
}

/// `infer` where `var` says what each user variable holds.
pub fn infer_with_vars(text: &str, col: &dyn Fn(Option<&str>, &str) -> Option<ColType>, var: &dyn Fn(&str) -> Option<VarValue>) -> Option<ExprType> {
    parser::item(text, &TableColumns(col, var))
}

/// The type of select item `text`, its names resolved by `names` (which
/// knows the columns of derived tables and CTEs, and the scope of a
/// subquery).
pub fn infer_in(text: &str, names: &dyn Names) -> Option<ExprType> {
    parser::item(text, names)
}

/// What an item's names mean, for `infer_in`.
pub trait Names {
    /// The type of the column `qual.name` (or `name`); None: not known.
    fn column(&self, qual: Option<&str>, name: &str) -> Option<ExprType>;
    /// The type of scalar subquery `sql` (its text inside the parentheses)
    /// when the caller types it in its own scope: Some(None) is "not known";
    /// None leaves it to `infer`'s own reading (its names looked up by
    /// `column`).
    fn subquery(&self, _sql: &str) -> Option<Option<ExprType>> {
        None
    }
    /// The type of user variable `@name` (lowercase) as an operand, by the
    /// value it holds (`user_var`); None: not known.
    fn user_var(&self, _name: &str) -> Option<ExprType> {
        None
    }
}

/// What a user variable holds, for `user_var`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarValue {
    Int,
    Real,
    Decimal,
    Str,
    Bytes,
}

/// A user variable's type as an operand, as MariaDB types it: an integer a
/// BIGINT(20), a string of 16,777,215 characters (`JSON_VALUE(@j, ...)`
/// is a MEDIUMTEXT, `JSON_EXTRACT(@j, ...)` a LONGTEXT).
pub fn user_var(v: VarValue) -> ExprType {
    match v {
        VarValue::Int => ExprType::int(20, false),
        VarValue::Real => ExprType::Double { null_arith: false },
        VarValue::Decimal => decimal(65, 38),
        VarValue::Str => ExprType::string(USER_VAR_CHARS),
        VarValue::Bytes => ExprType::Str { chars: USER_VAR_CHARS, fixed: false, binary: true, group: false, members: false },
    }
}

/// Name of the call the front wraps a string user variable's value in
/// inside a query's select list (dialect.rs `substitute`): `SELECT
/// JSON_EXTRACT(@j, '$')` reaches the engine as `SELECT
/// JSON_EXTRACT(ts_uvs('{...}'), '$') AS ...`. MariaDB types a string
/// variable as a LONGTEXT of 16,777,215 characters whatever it holds, so an
/// item's result column depends on its being a variable, not a literal of
/// its value's length: `infer` types the call so; the engine drops it
/// before translating (an identity: the literal is what runs).
pub const USER_VAR_MARK: &str = "ts_uvs";

/// Characters MariaDB counts a string user variable as having.
pub(super) const USER_VAR_CHARS: u64 = 16_777_215;

/// `Names` of a statement's table columns alone (`infer`), and of the
/// session's user variables (`infer_with_vars`).
struct TableColumns<'a>(&'a dyn Fn(Option<&str>, &str) -> Option<ColType>, &'a dyn Fn(&str) -> Option<VarValue>);

impl Names for TableColumns<'_> {
    fn column(&self, qual: Option<&str>, name: &str) -> Option<ExprType> {
        (self.0)(qual, name).and_then(rules::of_column)
    }
    fn user_var(&self, name: &str) -> Option<ExprType> {
        (self.1)(name).map(user_var)
    }
}

/// The type of a table column `c` as an operand or a select item.
pub fn of_column(c: ColType) -> Option<ExprType> {
    rules::of_column(c)
}

mod nullable;
mod parser;
mod rules;
mod union;
pub use nullable::never_null;
pub use union::{of_wire, union_of};

/// Bytes from which MariaDB sends a string as a BLOB (REPEAT('a', 16382) is
/// a VARCHAR of 65528 bytes, REPEAT('a', 16383) a BLOB).
const VARCHAR_BYTES: u64 = 65_532;

/// The result column MariaDB describes for an item of type `t` named `name`.
pub fn column(name: &str, t: &ExprType) -> Column {
    use turnstile_wire::consts::{charset, colflag, coltype};
    let num = |ty: u8, len: u32, unsigned: bool| {
        let mut c = Column::computed(name, ty);
        c.charset = charset::BINARY;
        c.flags = colflag::BINARY | colflag::NUM | if unsigned { colflag::UNSIGNED } else { 0 };
        c.length = len;
        c.decimals = 0;
        c
    };
    match *t {
        ExprType::Int { len, unsigned, col, .. } => {
            let ty = match col {
                Some(Base::TinyInt) => coltype::TINY,
                Some(Base::SmallInt) => coltype::SHORT,
                Some(Base::MediumInt) => coltype::INT24,
                Some(Base::Int) => coltype::LONG,
                Some(_) => coltype::LONGLONG,
                None if t.wide() => coltype::LONGLONG,
                None => coltype::LONG,
            };
            num(ty, len, unsigned)
        }
        ExprType::Decimal { precision, scale } => {
            let mut c = num(coltype::NEWDECIMAL, precision + u32::from(scale > 0) + 1, false);
            c.decimals = scale as u8;
            c
        }
        ExprType::Double { null_arith: true } => num(coltype::DOUBLE, 17, false),
        ExprType::Double { null_arith: false } => {
            let mut c = num(coltype::DOUBLE, 23, false);
            c.decimals = 31;
            c
        }
        ExprType::Float => {
            let mut c = num(coltype::FLOAT, 12, false);
            c.decimals = 31;
            c
        }
        ExprType::Str { chars, fixed, binary, group, .. } => {
            let bytes = chars.saturating_mul(if binary { 1 } else { 4 });
            let ty = match bytes {
                _ if group => coltype::BLOB,
                0..VARCHAR_BYTES => {
                    if fixed {
                        coltype::STRING
                    } else {
                        coltype::VAR_STRING
                    }
                }
                // Past a VARCHAR, the BLOB's size by characters, as MariaDB
                // sizes it (LOWER(text_col), 65,535 characters, is a BLOB).
                _ => match chars {
                    0..=65_535 => coltype::BLOB,
                    65_536..=16_777_215 => coltype::MEDIUM_BLOB,
                    _ => coltype::LONG_BLOB,
                },
            };
            let mut c = Column::computed(name, ty);
            c.length = bytes.min(u64::from(u32::MAX)) as u32;
            c.charset = if binary { charset::BINARY } else { charset::UTF8MB4_GENERAL_CI };
            c.flags = if binary { colflag::BINARY } else { 0 } | if ty == coltype::VAR_STRING || ty == coltype::STRING { 0 } else { colflag::BLOB };
            c.decimals = if binary { 0 } else { 39 };
            c
        }
        ExprType::DateStr { fsp, .. } => {
            let mut c = Column::computed(name, coltype::STRING);
            c.length = (temporal_len(Base::DateTime, fsp) * 4) as u32;
            c.decimals = fsp;
            c
        }
        ExprType::Hybrid { bytes } => {
            let mut c = Column::computed(name, coltype::VAR_STRING);
            c.charset = charset::BINARY;
            c.flags = colflag::BINARY;
            c.length = bytes;
            c.decimals = 0;
            c
        }
        ExprType::Temporal { base, fsp } => {
            let ty = match base {
                Base::Date => coltype::DATE,
                Base::Time => coltype::TIME,
                Base::Timestamp => coltype::TIMESTAMP,
                _ => coltype::DATETIME,
            };
            let mut c = num(ty, temporal_len(base, fsp) as u32, false);
            c.flags &= !colflag::NUM;
            c.decimals = if base == Base::Date { 0 } else { fsp };
            c
        }
        ExprType::Null => Column::computed(name, coltype::NULL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(_q: Option<&str>, name: &str) -> Option<ColType> {
        let (base, unsigned, length, scale) = match name {
            "i" => (Base::Int, false, None, None),
            "ti" => (Base::TinyInt, false, None, None),
            "tu" => (Base::TinyInt, true, None, None),
            "su" => (Base::SmallInt, true, None, None),
            "bi" => (Base::BigInt, false, None, None),
            "d" => (Base::Decimal, false, Some(10), Some(2)),
            "c" => (Base::Char, false, Some(10), None),
            "tx" => (Base::Text, false, None, None),
            "tm" => (Base::Time, false, None, None),
            "da" => (Base::Date, false, None, None),
            "b8" => (Base::Bit, false, Some(8), None),
            "en" => (Base::Enum, false, Some(1), None),
            "st" => (Base::Set, false, Some(5), None),
            _ => return None,
        };
        Some(ColType { base, unsigned, length, scale })
    }

    fn ty(s: &str) -> Option<ExprType> {
        infer(s, &cols)
    }

    fn int_len(s: &str) -> Option<(u32, bool)> {
        match ty(s)? {
            ExprType::Int { len, unsigned, .. } => Some((len, unsigned)),
            _ => None,
        }
    }

    #[test]
    fn enum_and_set_in_arithmetic_are_integers() {
        // MariaDB: ENUM('x','b','a') + 0 is INT(3), -it INT(2); SET('p','q','r') + 0 INT(7).
        assert_eq!(int_len("en+0"), Some((3, false)));
        assert_eq!(int_len("-en"), Some((2, false)));
        assert_eq!(int_len("st+0"), Some((7, false)));
        assert!(matches!(ty("en"), Some(ExprType::Str { members: true, .. })));
        assert!(matches!(ty("concat(en)"), Some(ExprType::Str { members: false, .. })));
    }

    #[test]
    fn integer_arithmetic_as_mariadb() {
        assert_eq!(int_len("i+1"), Some((12, false)));
        assert_eq!(int_len("1+1"), Some((3, false)));
        assert_eq!(int_len("1+1+1"), Some((4, false)));
        assert_eq!(int_len("ti*ti"), Some((7, false)));
        assert_eq!(int_len("tu+1"), Some((4, true)));
        assert_eq!(int_len("-ti"), Some((5, false)));
        assert_eq!(int_len("-1+1"), Some((3, false)));
        assert_eq!(int_len("ti % 10"), Some((4, false)));
        assert_eq!(int_len("count(i) > 0"), Some((1, false)));
        assert_eq!(int_len("abs(tu)"), Some((3, true)));
        assert_eq!(int_len("1 | NULL"), Some((21, true)));
        // ROUND to tens or more may carry a digit: INT(5) of a TINYINT, BIGINT(12) of an INT.
        assert_eq!(int_len("round(ti, -1)"), Some((5, false)));
        assert_eq!(int_len("round(i, -2)"), Some((12, false)));
        assert_eq!(int_len("round(ti, 1)"), Some((4, false)));
        assert_eq!(int_len("truncate(ti, -1)"), Some((4, false)));
        assert_eq!(ty("round(bi, -1)"), Some(ExprType::Decimal { precision: 20, scale: 0 }));
        // MariaDB 10.11: DIV with a NULL is INT(1), CRC32C an unsigned INT(10), huge literals BIGINT.
        assert_eq!(int_len("1 div null"), Some((1, false)));
        assert_eq!(int_len("null div 1"), Some((1, false)));
        assert_eq!(int_len("1 div '1'"), Some((1, false)));
        assert_eq!(int_len("123 div 1.5e0"), Some((3, false)));
        assert_eq!(int_len("12345678901 div c"), Some((11, false)));
        assert_eq!(int_len("crc32c('a')"), Some((10, true)));
        assert_eq!(int_len("1 MOD 9223372036854775808"), Some((20, false)));
        assert_eq!(int_len("9223372036854775808"), Some((19, true)));
        assert_eq!(int_len("9223372036854775807"), Some((19, false)));
        assert_eq!(ty("99999999999999999999"), Some(ExprType::Decimal { precision: 20, scale: 0 }));
    }

    /// The wire type of item `s`, its user variables strings.
    fn wire(s: &str) -> u8 {
        let t = infer_with_vars(s, &cols, &|_| Some(VarValue::Str)).expect("typed");
        column("x", &t).coltype
    }

    #[test]
    fn blobs_sized_by_characters_as_mariadb() {
        use turnstile_wire::consts::coltype;
        // TEXT holds 65,535 characters: LOWER of it is a BLOB, one more a MEDIUMTEXT.
        assert_eq!(wire("lower(tx)"), coltype::BLOB);
        assert_eq!(wire("concat(tx, 'x')"), coltype::MEDIUM_BLOB);
        assert_eq!(wire("json_value(tx, '$')"), coltype::BLOB);
        assert_eq!(wire("json_extract(tx, '$')"), coltype::MEDIUM_BLOB);
        // A string variable: 16,777,215 characters.
        assert_eq!(wire("json_value(@j, '$')"), coltype::MEDIUM_BLOB);
        assert_eq!(wire("json_extract(@j, '$')"), coltype::LONG_BLOB);
        assert_eq!(wire("json_search(@j, 'one', 'x')"), coltype::LONG_BLOB);
        assert_eq!(wire("json_object('a', @j)"), coltype::LONG_BLOB);
        assert_eq!(wire("json_array(1, 2)"), coltype::VAR_STRING);
        // The front's mark of a string variable's value types as the variable.
        let marked = |s: &str| column("x", &infer(s, &cols).expect("typed")).coltype;
        assert_eq!(marked("json_remove(ts_uvs('[1]'), '$[0]')"), coltype::MEDIUM_BLOB);
        assert_eq!(marked("json_search(ts_uvs('[1]'), 'one', '1')"), coltype::LONG_BLOB);
        assert_eq!(marked("json_remove('[1]', '$[0]')"), coltype::VAR_STRING);
        assert_eq!(marked("json_unquote(tx)"), coltype::MEDIUM_BLOB);
        assert_eq!(marked("json_unquote(ts_uvs('1'))"), coltype::MEDIUM_BLOB);
        assert_eq!(marked("json_quote(tx)"), coltype::MEDIUM_BLOB);
        assert_eq!(marked("json_quote('foo')"), coltype::VAR_STRING);
        assert_eq!(marked("json_normalize(ts_uvs('1'))"), coltype::LONG_BLOB);
        // An assignment is its value's type; a variable alone is the caller's.
        assert_eq!(wire("@a := 1"), coltype::LONG);
        assert_eq!(wire("@a := 12345678901"), coltype::LONGLONG);
        assert_eq!(wire("@a := 'x'"), coltype::VAR_STRING);
        assert_eq!(infer_with_vars("@a", &cols, &|_| Some(VarValue::Str)), None);
        assert_eq!(infer_with_vars("@a + 1", &cols, &|_| Some(VarValue::Int)), Some(ExprType::int(21, false)));
    }

    #[test]
    fn others_as_mariadb() {
        assert_eq!(ty("1 + NULL"), Some(ExprType::Double { null_arith: true }));
        assert_eq!(ty("sum(i)/count(*)"), Some(ExprType::Decimal { precision: 36, scale: 4 }));
        assert_eq!(ty("avg(ti)"), Some(ExprType::Decimal { precision: 7, scale: 4 }));
        assert_eq!(ty("d/2"), Some(ExprType::Decimal { precision: 14, scale: 6 }));
        assert_eq!(ty("coalesce(c, c)"), Some(ExprType::Str { chars: 10, fixed: true, binary: false, group: false, members: false }));
        assert_eq!(ty("sec_to_time(sum(time_to_sec(tm)))"), Some(ExprType::Temporal { base: Base::Time, fsp: 0 }));
        assert_eq!(ty("da + interval 1 day"), Some(ExprType::Temporal { base: Base::Date, fsp: 0 }));
        assert_eq!(ty("ifnull(tu, su)"), Some(ExprType::Int { len: 5, digits: 5, unsigned: true, col: Some(Base::SmallInt) }));
        assert!(matches!(ty("repeat('a', i)"), Some(ExprType::Str { chars: HUGE_CHARS, .. })));
        assert_eq!(ty("upper(x)"), None);
        assert_eq!(ty("f(i) = 1"), Some(ExprType::int(1, false)));
        assert_eq!(ty("connection_id()"), Some(ExprType::int(10, true)));
        assert_eq!(ty("@a + 1"), None);
        assert_eq!(ty("(select 1) + 1"), Some(ExprType::int(3, false)));
        assert_eq!(ty("(select ti from t) "), Some(ExprType::Int { len: 4, digits: 3, unsigned: false, col: Some(Base::TinyInt) }));
        assert_eq!(ty("(select 1 union select 22 order by 1 limit 1)"), Some(ExprType::Int { len: 11, digits: 10, unsigned: false, col: Some(Base::Int) }));
        assert_eq!(ty("(select count(*) from t limit 1, 1)"), Some(ExprType::int(21, false)));
        assert_eq!(ty("(select ti into @x from t)"), None);
        assert_eq!(ty("(select a, b from t)"), None);
        assert_eq!(ty("1.1 * exists(select * from t)"), Some(ExprType::Decimal { precision: 3, scale: 1 }));
        // DATE_ADD of no DATE/DATETIME/TIME is a CHAR; a TIME plus days a TIME.
        assert_eq!(ty("date_add('2001-01-01 10:00:00.5', interval 1 day)"), Some(ExprType::DateStr { fsp: 1, exact: false }));
        assert_eq!(ty("'2001-01-01' + interval 1 day"), Some(ExprType::DateStr { fsp: 0, exact: false }));
        assert_eq!(ty("date_sub(c, interval 1 second)"), Some(ExprType::DateStr { fsp: 6, exact: false }));
        assert_eq!(ty("date_add(d, interval 1 day)"), Some(ExprType::DateStr { fsp: 2, exact: false }));
        assert_eq!(ty("date_add(NULL, interval 1 day)"), Some(ExprType::DateStr { fsp: 0, exact: false }));
        assert_eq!(ty("tm + interval 2 day"), Some(ExprType::Temporal { base: Base::Time, fsp: 0 }));
        assert_eq!(ty("tm + interval 1 year"), Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }));
        // BIT(8) in arithmetic: INT UNSIGNED of 9; kept (unknown) elsewhere.
        assert_eq!(ty("b8 + 0"), Some(ExprType::int_digits(9, true)));
        assert_eq!(ty("b8"), None);
        assert_eq!(ty("coalesce(b8, 1)"), None);
        // A temporal in arithmetic is its number.
        assert_eq!(ty("tm + 0"), Some(ExprType::int_digits(8, false)));
        assert_eq!(ty("tm + 0.0"), Some(ExprType::Decimal { precision: 9, scale: 1 }));
        assert_eq!(ty("da / 1"), Some(ExprType::Decimal { precision: 12, scale: 4 }));
        assert_eq!(ty("avg(tm)"), Some(ExprType::Decimal { precision: 11, scale: 4 }));
        // FORMAT's length as MariaDB's CREATE TABLE ... SELECT shows it.
        let format_len = |s: &str| match ty(s) {
            Some(ExprType::Str { chars, .. }) => Some(chars),
            _ => None,
        };
        for (e, chars) in [("format(ti, 0)", 5), ("format(su, 0)", 7), ("format(i, 0)", 14), ("format(d, 0)", 13), ("format(d, 2)", 14), ("format(d, 5)", 17)] {
            assert_eq!(format_len(e), Some(chars), "{}", e);
        }
        for (e, chars) in [("format(b8, 0)", 5), ("format(tm, 0)", 10), ("format(da, 0)", 11), ("format(c, 0)", 414), ("format(c, 3)", 418), ("format(123, 0)", 14)] {
            assert_eq!(format_len(e), Some(chars), "{}", e);
        }
        for (e, chars) in [("format(1.5, 0)", 3), ("format(1.5, 1)", 4), ("format(-12345, 2)", 17), ("format(NULL, 2)", 416), ("format(i, NULL)", 53), ("format(i, 50)", 53), ("format(d, ti)", 52)] {
            assert_eq!(format_len(e), Some(chars), "{}", e);
        }
        assert_eq!(ty("json_extract('{\"a\": 1}', '$.a')"), Some(ExprType::string(16)));
        // CAST AS SIGNED as long as its operand's text; AS DECIMAL(p, s).
        assert_eq!(ty("cast(NULL as signed)"), Some(ExprType::int(2, false)));
        assert_eq!(ty("cast(1.5 as signed)"), Some(ExprType::int(4, false)));
        assert_eq!(ty("cast(12345678901.5 as signed)"), Some(ExprType::Int { len: 14, digits: 13, unsigned: false, col: Some(Base::BigInt) }));
        assert_eq!(ty("cast(d as signed)"), Some(ExprType::Int { len: 12, digits: 11, unsigned: false, col: Some(Base::BigInt) }));
        assert_eq!(ty("cast(NULL as unsigned)"), Some(ExprType::int(1, true)));
        assert_eq!(ty("cast(11.1234 as decimal(3,2))"), Some(ExprType::Decimal { precision: 3, scale: 2 }));
        assert_eq!(ty("cast(1 as decimal)"), Some(ExprType::Decimal { precision: 10, scale: 0 }));
        // ADDTIME of a string or number is a CHAR; EXTRACT's lengths by unit
        // and argument; TIME_TO_SEC a DECIMAL with the argument's digits; a
        // TIME beside a DATE a DATETIME.
        assert_eq!(ty("addtime('10:00:00', '1:00:00')"), Some(ExprType::DateStr { fsp: 6, exact: false }));
        assert_eq!(ty("addtime(100000.55, 1)"), Some(ExprType::DateStr { fsp: 2, exact: true }));
        assert_eq!(ty("addtime(da, '1:00:00')"), Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }));
        assert_eq!(wire("extract(day_hour from '1999-01-02 10:11:12')"), turnstile_wire::consts::coltype::LONG);
        assert_eq!(wire("extract(day_minute from '1999-01-02 10:11:12')"), turnstile_wire::consts::coltype::LONGLONG);
        assert_eq!(wire("extract(day_minute from da)"), turnstile_wire::consts::coltype::LONG);
        assert_eq!(ty("time_to_sec('10:00:00.5')"), Some(ExprType::Decimal { precision: 17, scale: 1 }));
        assert_eq!(ty("time_to_sec(tm)"), Some(ExprType::int(17, false)));
        assert_eq!(ty("coalesce(tm, da)"), Some(ExprType::Temporal { base: Base::DateTime, fsp: 0 }));
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(ty(&deep), None);
    }
}
