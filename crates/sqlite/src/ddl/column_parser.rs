//! Parsing one column definition (`name type [attributes]`, in CREATE TABLE
//! and ALTER TABLE): MySQL's type names and synonyms, lengths and precisions
//! checked as MySQL checks them, DEFAULT values, and the collation a
//! character set implies.

use super::expr_text::{self, Clause};
use super::DEFAULT_COLLATION;
use crate::schema::{Base, ColumnDef, Default_};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::{SyntaxError, TokenCursor};
use turnstile_sqltext::lex::{Tok, Token};

/// `name type [attributes]`; returns the column and whether it was declared
/// PRIMARY KEY / UNIQUE inline.
pub fn column_def(c: &mut TokenCursor<'_>) -> Result<(ColumnDef, bool, bool), SqlError> {
    let name = c.ident()?;
    let type_tok = c.ident()?;
    let mut tname = type_tok.to_ascii_uppercase();
    if tname == "DOUBLE" {
        c.eat_kw("PRECISION");
    }
    if tname == "CHARACTER" && c.eat_kw("VARYING") {
        tname = "VARCHAR".into();
    }
    if tname == "NATIONAL" {
        tname = c.ident()?.to_ascii_uppercase();
        if tname == "CHARACTER" && c.eat_kw("VARYING") {
            tname = "VARCHAR".into();
        }
    }
    // MariaDB's LONG synonyms: LONG VARBINARY and LONG BYTE are MEDIUMBLOB,
    // LONG VARCHAR and a bare LONG MEDIUMTEXT.
    if tname == "LONG" {
        tname = if c.eat_kw("VARBINARY") || c.eat_kw("BYTE") {
            "MEDIUMBLOB".into()
        } else {
            c.eat_kw("VARCHAR");
            "MEDIUMTEXT".into()
        };
    }
    let base = Base::from_name(&tname).ok_or_else(|| {
        if matches!(tname.as_str(), "GEOMETRY" | "POINT" | "LINESTRING" | "POLYGON" | "MULTIPOINT" | "MULTIPOLYGON" | "GEOMETRYCOLLECTION") {
            SqlError::unsupported("spatial types")
        } else {
            SqlError::syntax(&c.sql[c.toks[c.pos - 1].start..])
        }
    })?;
    let mut col = ColumnDef::new(name, base);
    if matches!(tname.as_str(), "BOOL" | "BOOLEAN") {
        col.length = Some(1);
    }
    if tname == "SERIAL" {
        col.unsigned = true;
        col.nullable = false;
        col.auto_increment = true;
    }
    if matches!(base, Base::Enum | Base::Set) {
        c.expect_op("(")?;
        loop {
            col.members.push(member(c)?);
            if !c.eat_op(",") {
                break;
            }
        }
        c.expect_op(")")?;
    } else if c.eat_op("(") {
        col.length = Some(length_number(c)?);
        if c.eat_op(",") {
            // `(M,D)`: MariaDB's grammar reads both as 32-bit numbers.
            let at = c.pos - 2;
            col.scale = Some(length_number(c)?);
            if col.length.into_iter().chain(col.scale).any(|n| n > i32::MAX as u64) {
                return Err(SqlError::syntax(&c.sql[c.toks[at].start..]));
            }
        }
        c.expect_op(")")?;
    }
    check_type_bounds(&mut col)?;
    match base {
        Base::Float if col.scale.is_none() => {
            if let Some(p) = col.length {
                // FLOAT(p): precision in bits; above 24 it is a DOUBLE.
                col.length = None;
                if p > 24 {
                    col.base = Base::Double;
                }
            }
        }
        Base::Char | Base::Binary => {
            let n = col.length.unwrap_or(1);
            if n > 255 {
                return Err(SqlError::new(1074, "42000", format!("Column length too big for column '{}' (max = 255); use BLOB or TEXT instead", col.name)));
            }
            col.length = Some(n);
        }
        Base::VarChar | Base::VarBinary => {
            let n = col.length.ok_or_else(|| c.error())?;
            if n > 65535 {
                return Err(SqlError::new(1074, "42000", format!("Column length too big for column '{}' (max = 16383); use BLOB or TEXT instead", col.name)));
            }
        }
        Base::Bit => {
            let n = col.length.unwrap_or(1);
            if n > 64 {
                return Err(display_width(&col.name, 64));
            }
            col.length = Some(n.max(1));
        }
        Base::DateTime | Base::Timestamp | Base::Time if col.length.is_some_and(|l| l > 6) => {
            return Err(too_big_precision(&col.name, 6));
        }
        // YEAR(2) stays (shown as two digits); any other width is YEAR(4).
        Base::Year => {
            col.year_width = col.length.filter(|l| *l != 4).map(|l| l.min(u32::MAX as u64));
            col.length = col.length.filter(|l| *l == 2);
        }
        _ => {}
    }
    if base.is_text() || base == Base::Json {
        // charset/collation may come right after the type or among the attributes.
    }
    let mut primary = false;
    let mut unique = false;
    let mut now_fsp: Option<String> = None;
    let mut binary_collation = false;
    // An attribute MariaDB's grammar takes only before `AS (expr)` (type
    // options) or only without it (NULL, DEFAULT, AUTO_INCREMENT, ...).
    let mut attributes = false;
    loop {
        let generated_now = c.is_kw("GENERATED") || c.is_kw("AS");
        let plain_only = ["NOT", "NULL", "DEFAULT", "AUTO_INCREMENT", "PRIMARY", "ON"].iter().any(|k| c.is_kw(k));
        if (generated_now && (attributes || col.generated.is_some())) || (plain_only && col.generated.is_some()) {
            return Err(c.error().into());
        }
        attributes |= plain_only || ["KEY", "UNIQUE", "COMMENT", "CHECK", "INVISIBLE", "VISIBLE"].iter().any(|k| c.is_kw(k));
        if col.base.is_text() && c.eat_kw("BINARY") {
            // `VARCHAR(n) BINARY`: the column's character set with its binary collation.
            binary_collation = true;
        } else if c.eat_kw("UNSIGNED") {
            col.unsigned = true;
        } else if c.eat_kw("SIGNED") {
        } else if c.eat_kw("ZEROFILL") {
            col.zerofill = true;
            col.unsigned = true;
        } else if c.eat_kws(&["NOT", "NULL"]) {
            col.nullable = false;
        } else if c.eat_kw("NULL") {
            col.nullable = true;
        } else if c.eat_kw("DEFAULT") {
            // `DEFAULT (((1)))`: a literal in parentheses is that literal (MariaDB).
            let at = c.pos + literal_parens(c);
            col.default = Some(default_value(c, &col.name)?);
            if matches!(c.toks.get(at).map(|t| &t.tok), Some(Tok::Number(_))) {
                hybrid_default(&mut col);
            }
            // `CURRENT_TIMESTAMP(6)`: its precision, for a number column's expression.
            now_fsp = match (c.toks.get(at + 1), c.toks.get(at + 2)) {
                (Some(p), Some(Token { tok: Tok::Number(n), .. })) if p.is_op("(") => Some(n.to_string()),
                _ => None,
            };
        } else if c.eat_kw("AUTO_INCREMENT") {
            col.auto_increment = true;
        } else if c.eat_kw("PRIMARY") {
            c.expect_kw("KEY")?;
            primary = true;
        } else if c.eat_kw("UNIQUE") {
            c.eat_kw("KEY");
            unique = true;
        } else if c.eat_kw("KEY") {
            primary = true;
        } else if c.eat_kw("COMMENT") {
            col.comment = c.string()?;
        } else if c.eat_kw("COLLATE") {
            c.eat_op("=");
            col.collation = Some(canonical_collation(&c.ident()?));
        } else if c.eat_kws(&["CHARACTER", "SET"]) || c.eat_kw("CHARSET") {
            c.eat_op("=");
            let cs = c.ident()?.to_ascii_lowercase();
            if col.collation.is_none() || !col.collation.as_deref().unwrap_or("").starts_with(&cs) {
                col.collation = Some(default_collation_for(&cs));
            }
        } else if c.eat_kw("ON") {
            c.expect_kw("UPDATE")?;
            let kw = c.ident()?.to_ascii_uppercase();
            if !matches!(kw.as_str(), "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP") {
                return Err(c.error().into());
            }
            if c.eat_op("(") {
                let _ = c.number();
                c.expect_op(")")?;
            }
            col.on_update_now = true;
        } else if c.eat_kw("COLUMN_FORMAT") || c.eat_kw("STORAGE") {
            c.ident()?;
        } else if c.eat_kw("VISIBLE") || c.eat_kw("INVISIBLE") {
        } else if c.eat_kw("SRID") {
            c.number()?;
        } else if c.is_kw("GENERATED") || c.is_kw("AS") {
            col.generated = Some(generated(c, &col.name)?);
        } else if c.is_kw("CHECK") && json_valid_check(c, &col.name) {
            // MariaDB's JSON: `longtext ... CHECK (json_valid(`c`))`.
            if !col.base.is_text() {
                col.check = Some(format!("json_valid({})", crate::schema::quote_ident(&col.name)));
            } else {
                col.json_check = true;
            }
        } else if c.is_kw("CHECK") && col.check.is_none() {
            // A column's own CHECK, named as the column (one at most, and
            // unnamed: MariaDB's grammar).
            c.next();
            let text = c.skip_group()?;
            col.check = Some(expr_text::accept(text, Clause::Check, &col.name)?);
        } else if c.is_kw("REFERENCES") {
            return Err(SqlError::unsupported("inline REFERENCES on a column (use FOREIGN KEY)"));
        } else {
            break;
        }
    }
    if binary_collation && !col.collation.as_deref().is_some_and(|k| k.ends_with("_bin") || k == "binary") {
        let charset = col.collation.as_deref().and_then(|k| k.split('_').next()).unwrap_or("utf8mb4").to_string();
        col.collation = Some(format!("{}_bin", charset));
    }
    if col.base.is_text() && col.collation.as_deref() == Some("binary") {
        // CHAR(n) CHARACTER SET binary is BINARY(n).
        col.base = match col.base {
            Base::Char => Base::Binary,
            Base::VarChar => Base::VarBinary,
            Base::Text => Base::Blob,
            other => other,
        };
        col.collation = None;
    }
    if !(col.base.is_text()) {
        col.collation = None;
    }
    // DEFAULT NULL beside AUTO_INCREMENT is dropped (MariaDB keeps no
    // default for the column, NOT NULL or not); any other default is 1067.
    if col.auto_increment && matches!(col.default, Some(Default_::Null)) {
        col.default = None;
    }
    if col.auto_increment && col.default.is_some() {
        return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
    }
    if matches!(col.base, Base::Enum | Base::Set) && col.charset_name() != Some("binary") {
        // MariaDB drops the members' trailing blanks ('b ' is 'b'), and a
        // default's, but for CHARACTER SET BINARY.
        for m in col.members.iter_mut() {
            m.truncate(m.trim_end_matches(' ').len());
        }
        if let Some(Default_::Literal(v)) = &mut col.default {
            v.truncate(v.trim_end_matches(' ').len());
        }
    }
    if let Some(Default_::Literal(v)) = &col.default {
        if !literal_fits(&col, v) {
            return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
        }
        if let Some(stored) = temporal_default(&col, v)? {
            col.default = Some(Default_::Literal(stored));
        } else if let Some(stored) = numeric_default(&col, v) {
            col.default = Some(Default_::Literal(stored));
        }
    }
    if let Some(Default_::CurrentTimestamp) = &col.default {
        // A number column takes the time as a number: an expression default (MariaDB).
        if col.base.is_numeric() {
            col.default = Some(Default_::Expr(match now_fsp {
                Some(n) => format!("current_timestamp({})", n),
                None => "current_timestamp()".into(),
            }));
        } else if !matches!(col.base, Base::DateTime | Base::Timestamp) {
            return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
        }
    }
    if col.on_update_now && !matches!(col.base, Base::DateTime | Base::Timestamp) {
        return Err(SqlError::new(1294, "HY000", format!("Invalid ON UPDATE clause for '{}' column", col.name)));
    }
    if primary {
        col.nullable = false;
    }
    Ok((col, primary, unique))
}

/// `X'..'` of `bytes`.
fn hex_literal(bytes: &[u8]) -> String {
    format!("X'{}'", bytes.iter().map(|b| format!("{:02X}", b)).collect::<String>())
}

/// A `0x41` / `0b101` default (a number token, not a string) as MariaDB reads it for the column: a number
/// for a numeric column, its bytes as a string for the others (BIT reads
/// it itself: `ColumnDef::bit_default`).
fn hybrid_default(col: &mut ColumnDef) {
    let Some(Default_::Literal(v)) = &col.default else { return };
    if col.base == Base::Bit {
        return;
    }
    let Some(bytes) = turnstile_sqltext::lex::hybrid_bytes(v) else { return };
    let value = if col.base.is_numeric() {
        if bytes.iter().skip_while(|&&x| x == 0).count() > 8 {
            return;
        }
        turnstile_sqltext::lex::hybrid_u64(&bytes).to_string()
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => text,
            // Bytes a string cannot hold: written as an expression, which keeps them.
            Err(_) => {
                col.default = Some(Default_::Expr(v.clone()));
                return;
            }
        }
    };
    col.default = Some(Default_::Literal(value));
}

/// `[GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED | PERSISTENT]`, the
/// expression refused as MariaDB refuses it (expr_text.rs).
fn generated(c: &mut TokenCursor<'_>, column: &str) -> Result<crate::schema::Generated, SqlError> {
    if c.eat_kw("GENERATED") {
        c.expect_kw("ALWAYS")?;
    }
    c.expect_kw("AS")?;
    if !c.is_op("(") {
        return Err(c.error().into());
    }
    let text = c.skip_group()?;
    let expr = expr_text::accept(text.trim(), Clause::Generated, column)?;
    let stored = c.eat_kw("STORED") || c.eat_kw("PERSISTENT");
    if !stored {
        c.eat_kw("VIRTUAL");
    }
    Ok(crate::schema::Generated { expr, stored })
}

/// A length or precision in a type's parentheses, saturating: MariaDB
/// checks a huge one against the type's bound (1439, 1426, 1074), not as a
/// syntax error.
fn length_number(c: &mut TokenCursor<'_>) -> Result<u64, SqlError> {
    match c.peek().map(|t| &t.tok) {
        Some(Tok::Number(n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            let v = n.parse::<u64>().unwrap_or(u64::MAX);
            c.pos += 1;
            Ok(v)
        }
        _ => Err(c.error().into()),
    }
}

fn display_width(col: &str, max: u64) -> SqlError {
    SqlError::new(1439, "42000", format!("Display width out of range for '{}' (max = {})", col, max))
}

fn too_big_precision(col: &str, max: u64) -> SqlError {
    SqlError::new(1426, "42000", format!("Too big precision specified for '{}'. Maximum is {}", col, max))
}

/// MariaDB's bounds on a numeric type's `(M)` / `(M,D)` and a blob's `(n)`,
/// checked in its order: M < D (1427), then the scale (1425), then M
/// (1439 for a display width, 1426 for DECIMAL's precision). DECIMAL gets
/// its default precision and scale here.
fn check_type_bounds(col: &mut ColumnDef) -> Result<(), SqlError> {
    let name = col.name.clone();
    let m_less_than_d = || SqlError::new(1427, "42000", format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{}')", name));
    let too_big_scale = |max: u64| SqlError::new(1425, "42000", format!("Too big scale specified for '{}'. Maximum is {}", name, max));
    match col.base {
        Base::Decimal => {
            let p = col.length.unwrap_or(10);
            let s = col.scale.unwrap_or(0);
            if s > p && col.length.is_some() {
                return Err(m_less_than_d());
            }
            if s > 38 {
                return Err(too_big_scale(38));
            }
            if p > 65 {
                return Err(too_big_precision(&name, 65));
            }
            col.length = Some(p);
            col.scale = Some(s);
        }
        Base::Float | Base::Double => match (col.length, col.scale) {
            (Some(m), Some(d)) => {
                if d > m {
                    return Err(m_less_than_d());
                }
                if d > 30 {
                    return Err(too_big_scale(30));
                }
                if m > 255 {
                    return Err(display_width(&name, 255));
                }
            }
            (Some(p), None) if col.base == Base::Float && p > 53 => {
                return Err(SqlError::new(1063, "42000", format!("Incorrect column specifier for column '{}'", name)));
            }
            (Some(m), None) if m > 255 => return Err(display_width(&name, 255)),
            _ => {}
        },
        b if b.is_integer() && b != Base::Bit && b != Base::Year && col.length.is_some_and(|m| m > 255) => {
            return Err(display_width(&name, 255));
        }
        Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob | Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::VarChar | Base::VarBinary
            if col.length.is_some_and(|n| n > u32::MAX as u64) =>
        {
            return Err(display_width(&name, u32::MAX as u64));
        }
        _ => {}
    }
    Ok(())
}

/// At `CHECK`: is it `CHECK (json_valid(<this column>))`, the one CHECK
/// constraint Turnstile keeps? It is how MariaDB declares (and mariadb-dump
/// writes) a JSON column. Eaten when it is; the cursor stays put otherwise.
fn json_valid_check(c: &mut TokenCursor<'_>, column: &str) -> bool {
    let at = |n: usize| c.peek_at(n);
    let shape = at(1).is_some_and(|t| t.is_op("("))
        && at(2).is_some_and(|t| t.is_kw("json_valid"))
        && at(3).is_some_and(|t| t.is_op("("))
        && at(4).and_then(|t| t.ident()).is_some_and(|n| n.eq_ignore_ascii_case(column))
        && at(5).is_some_and(|t| t.is_op(")"))
        && at(6).is_some_and(|t| t.is_op(")"));
    if shape {
        (0..7).for_each(|_| {
            c.next();
        });
    }
    shape
}

/// A collation's name as MariaDB 10.11 keeps it: lower case, `utf8_bin`
/// as `utf8mb3_bin` (utf8 is utf8mb3).
pub fn canonical_collation(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    match name.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{}", rest),
        None => name,
    }
}

pub fn default_collation_for(cs: &str) -> String {
    match cs {
        "binary" => "binary".into(),
        "latin1" => "latin1_swedish_ci".into(),
        "ascii" => "ascii_general_ci".into(),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci".into(),
        _ => DEFAULT_COLLATION.into(),
    }
}

/// An expression default (`DEFAULT (expr)`, `DEFAULT f(...)`): refused
/// as MariaDB refuses it (expr_text.rs). One that names columns of the row
/// is computed by the INSERT that leaves its column out (rewrite/insert.rs).
fn expression_default(text: &str, column: &str) -> Result<Default_, SqlError> {
    let shown = expr_text::accept(text, Clause::Default, column)?;
    // `(--1)` is the number -(-1): MariaDB keeps a literal.
    let digits = shown.strip_prefix('-').unwrap_or(&shown);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(Default_::Literal(shown));
    }
    Ok(Default_::Expr(shown))
}

/// One ENUM or SET member: a string, or a hex or bit literal (`0x0000`,
/// `b'1'`) whose bytes are the member, read as Latin-1 when they are not
/// UTF-8 (`ENUM(0xE4)` is 'ä' in a latin1 column).
fn member<'a>(c: &mut TokenCursor<'a>) -> Result<String, SyntaxError<'a>> {
    if let Some(Tok::Number(n)) = c.peek().map(|t| &t.tok) {
        if let Some(bytes) = turnstile_sqltext::lex::hybrid_bytes(n) {
            c.next();
            return Ok(match String::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
            });
        }
    }
    c.string()
}

/// A literal default MariaDB stores for the column (else 1067, checked as a
/// strict write): a number, in range, for an integer column (trailing
/// spaces allowed, `'1x'` is not), a number for a FLOAT, DOUBLE or DECIMAL,
/// no more characters than a CHAR or VARCHAR holds, a member of an ENUM
/// (members of a SET). Hex and bit literals
/// and the other types are left to the write.
fn literal_fits(col: &ColumnDef, v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if ["0x", "0b", "x'", "b'"].iter().any(|p| lower.starts_with(p)) || col.base == Base::Bit {
        return true;
    }
    let number = v.trim_end_matches(' ');
    if let Some((lo, hi)) = col.base.int_range(col.unsigned) {
        let value = number.parse::<i128>().ok().or_else(|| number.parse::<f64>().ok().filter(|f| f.is_finite()).map(|f| f.round() as i128));
        return value.is_some_and(|n| (lo..=hi).contains(&n));
    }
    match col.base {
        Base::Float | Base::Double | Base::Decimal => number.parse::<f64>().is_ok(),
        // CHAR drops trailing spaces; VARCHAR keeps them (MariaDB).
        Base::Char => col.length.is_none_or(|n| number.chars().count() as u64 <= n),
        Base::VarChar | Base::Binary | Base::VarBinary => col.length.is_none_or(|n| v.chars().count() as u64 <= n),
        // Members and the default compare without trailing spaces (MariaDB strips them).
        Base::Enum => col.members.iter().any(|m| m.trim_end_matches(' ').eq_ignore_ascii_case(number)),
        Base::Set => v.is_empty() || v.split(',').all(|p| col.members.iter().any(|m| m.trim_end_matches(' ').eq_ignore_ascii_case(p.trim_end_matches(' ')))),
        _ => true,
    }
}

/// A date or time column's literal default in the form the column stores
/// it (`'1962-03-03 23:33:34'` for a DATE is `1962-03-03`, for a DATETIME
/// `'1962-03-03'` is `1962-03-03 00:00:00`), as SHOW CREATE TABLE shows it
/// and a row without the column takes it; no value of the column is
/// MariaDB's 1067 (`'1962-03-32'`, `'916:00:00 a'`). None: not a temporal
/// column, or a number (the write reads it).
fn temporal_default(col: &ColumnDef, v: &str) -> Result<Option<String>, SqlError> {
    let Some(kind) = crate::schema::temporal_kind_fsp(col.base, col.length.unwrap_or(0)) else { return Ok(None) };
    if v.trim().parse::<f64>().is_ok() && !v.contains([':', '-']) {
        return Ok(None);
    }
    let stored = turnstile_sqltext::temporal::normalize_temporal(v, kind).unwrap_or_else(|| v.to_string());
    let name = kind.split('(').next().unwrap_or(kind);
    // A day past its month's end (`2008-02-31`) is kept: ALLOW_INVALID_DATES
    // takes it, and the session's sql_mode is not known here.
    let checked = match (stored.get(..8), stored.get(8..10).and_then(|d| d.parse::<u8>().ok())) {
        (Some(ym), Some(29..=31)) if stored.as_bytes().get(4) == Some(&b'-') => format!("{}28{}", ym, &stored[10..]),
        _ => stored.clone(),
    };
    if !crate::functions::temporal_ok(&checked, name) {
        return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
    }
    Ok(Some(stored))
}

/// A number literal default as the column stores it, as SHOW CREATE TABLE
/// shows it: an integer column's rounded (`1.5` is 2, `1e0` is 1), a FLOAT's
/// or DOUBLE's in its shortest form (`1.50` is 1.5), a DECIMAL's exponent
/// written out (`1e0` is 1, scaled when shown). None: kept as written.
fn numeric_default(col: &ColumnDef, v: &str) -> Option<String> {
    let lower = v.to_ascii_lowercase();
    if ["0x", "0b", "x'", "b'"].iter().any(|p| lower.starts_with(p)) || col.base == Base::Bit || !col.base.is_numeric() {
        return None;
    }
    let number = v.trim_matches(' ');
    // A two-digit year is 2001..2069 or 1970..1999; 0 stays 0 (shown 0000).
    if col.base == Base::Year {
        let n = number.parse::<f64>().ok().filter(|f| f.is_finite())?.round() as i64;
        return Some(
            match n {
                1..=69 => n + 2000,
                70..=99 => n + 1900,
                _ => n,
            }
            .to_string(),
        );
    }
    if col.base.int_range(col.unsigned).is_some() {
        if let Ok(n) = number.parse::<i128>() {
            return Some(n.to_string());
        }
        let f = number.parse::<f64>().ok().filter(|f| f.is_finite())?;
        return Some((f.round() as i128).to_string());
    }
    let f = number.parse::<f64>().ok().filter(|f| f.is_finite())?;
    // Past these MariaDB writes an exponent, which the text kept already is.
    let plain = f == 0.0 || (1e-4..1e15).contains(&f.abs());
    match col.base {
        Base::Float if plain => Some(format!("{}", f as f32)),
        Base::Double if plain => Some(format!("{}", f)),
        Base::Decimal if lower.contains('e') && plain => {
            let scale = col.scale.unwrap_or(0) as usize;
            Some(format!("{:.*}", scale, f))
        }
        _ => None,
    }
}

/// How many `(` open a parenthesized literal (`(((1)))`, `((_latin1'x'))`,
/// `(DATE'2001-01-01')`) at the cursor; 0 if it is not one: a literal in
/// parentheses is a literal default, not an expression (MariaDB). Linear: one
/// pass over the parentheses.
fn literal_parens(c: &TokenCursor<'_>) -> usize {
    let mut n = 0;
    while c.peek_at(n).is_some_and(|t| t.is_op("(")) {
        n += 1;
    }
    if n == 0 {
        return 0;
    }
    let len = literal_len(c, n);
    if len == 0 || !(0..n).all(|k| c.peek_at(n + len + k).is_some_and(|t| t.is_op(")"))) {
        return 0;
    }
    n
}

/// Tokens of the literal at `c.pos + at` (0: not a literal): a string
/// (adjacent strings too), a number, signed or not, NULL, TRUE, FALSE,
/// `DATE'..'`, `TIME'..'`, `TIMESTAMP'..'`, `PI()`.
fn literal_len(c: &TokenCursor<'_>, at: usize) -> usize {
    let Some(t) = c.peek_at(at) else { return 0 };
    let next_str = |k: usize| matches!(c.peek_at(at + k).map(|t| &t.tok), Some(Tok::Str(_)));
    match &t.tok {
        Tok::Str(_) => {
            let mut k = 1;
            while next_str(k) {
                k += 1;
            }
            k
        }
        Tok::Number(_) => 1,
        Tok::Op("-") | Tok::Op("+") if matches!(c.peek_at(at + 1).map(|t| &t.tok), Some(Tok::Number(_))) => 2,
        Tok::Word(w) if ["NULL", "TRUE", "FALSE"].iter().any(|k| w.eq_ignore_ascii_case(k)) => 1,
        Tok::Word(w) if TYPED_LITERALS.iter().any(|k| w.eq_ignore_ascii_case(k)) && next_str(1) => 2,
        Tok::Word(w) if w.eq_ignore_ascii_case("PI") && c.peek_at(at + 1).is_some_and(|t| t.is_op("(")) && c.peek_at(at + 2).is_some_and(|t| t.is_op(")")) => 3,
        _ => 0,
    }
}

/// `DATE'2001-01-01'`, `TIME'10:20:30'`, `TIMESTAMP'2001-01-01 10:20:30'`.
const TYPED_LITERALS: [&str; 3] = ["DATE", "TIME", "TIMESTAMP"];

/// Words after DEFAULT that are not a column's name.
const NOT_A_NAME: [&str; 21] = [
    "NULL",
    "TRUE",
    "FALSE",
    "CURRENT_TIMESTAMP",
    "NOW",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "NOT",
    "PRIMARY",
    "KEY",
    "UNIQUE",
    "COMMENT",
    "AUTO_INCREMENT",
    "ON",
    "CHECK",
    "REFERENCES",
    "COLLATE",
    "CHARACTER",
    "CHARSET",
    "GENERATED",
    "AS",
];

pub(super) fn default_value(c: &mut TokenCursor<'_>, column: &str) -> Result<Default_, SqlError> {
    let parens = literal_parens(c);
    c.pos += parens;
    let value = literal_or_expression(c, column)?;
    for _ in 0..parens {
        c.expect_op(")")?;
    }
    Ok(value)
}

fn literal_or_expression(c: &mut TokenCursor<'_>, column: &str) -> Result<Default_, SqlError> {
    let t = c.next().ok_or_else(|| c.error())?;
    if let Tok::Word(w) = &t.tok {
        // A typed literal is its string (the column's check reads it).
        if TYPED_LITERALS.iter().any(|k| w.eq_ignore_ascii_case(k)) {
            if let Some(Tok::Str(s)) = c.peek().map(|t| &t.tok) {
                c.next();
                return Ok(Default_::Literal(String::from_utf8_lossy(s).into_owned()));
            }
        }
        // PI() is a constant: MariaDB keeps its value.
        if w.eq_ignore_ascii_case("PI") && c.is_op("(") && c.peek_at(1).is_some_and(|t| t.is_op(")")) {
            c.pos += 2;
            return Ok(Default_::Literal("3.141592653589793".into()));
        }
        // `DEFAULT f(...)`: MariaDB's function defaults, without parentheses
        // around them (CURRENT_TIMESTAMP and its synonyms stay below).
        let now = ["CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP"].iter().any(|k| w.eq_ignore_ascii_case(k));
        if !now && c.is_op("(") {
            let start = t.start;
            c.skip_group()?;
            let end = c.toks[c.pos - 1].end;
            return expression_default(&c.sql[start..end], column);
        }
        if w.eq_ignore_ascii_case("CASE") {
            // `DEFAULT CASE ... END`, unparenthesised as MariaDB takes it.
            let mut depth = 1usize;
            while depth > 0 {
                let n = c.next().ok_or_else(|| c.error())?;
                if n.is_kw("CASE") {
                    depth += 1;
                } else if n.is_kw("END") {
                    depth -= 1;
                }
            }
            let end = c.toks[c.pos - 1].end;
            return expression_default(&c.sql[t.start..end], column);
        }
        if ["CURRENT_DATE", "CURRENT_TIME", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "CURRENT_USER"].iter().any(|k| w.eq_ignore_ascii_case(k)) {
            return expression_default(w, column);
        }
    }
    // `DEFAULT b`: another column's value (MariaDB), a quoted name too.
    let bare_name = match &t.tok {
        Tok::Quoted(_) => true,
        Tok::Word(w) => !c.is_op("(") && !NOT_A_NAME.iter().any(|k| w.eq_ignore_ascii_case(k)),
        _ => false,
    };
    if bare_name && !c.is_op(".") {
        return expression_default(&c.sql[t.start..t.end], column);
    }
    Ok(match &t.tok {
        Tok::Word(w) if w.eq_ignore_ascii_case("NULL") => Default_::Null,
        Tok::Word(w) if w.eq_ignore_ascii_case("TRUE") => Default_::Literal("1".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("FALSE") => Default_::Literal("0".into()),
        Tok::Word(w) if ["CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP"].iter().any(|k| w.eq_ignore_ascii_case(k)) => {
            if c.eat_op("(") {
                let _ = c.number();
                c.expect_op(")")?;
            }
            Default_::CurrentTimestamp
        }
        Tok::Str(s) => {
            let mut bytes = s.clone();
            while let Some(Tok::Str(more)) = c.peek().map(|t| &t.tok) {
                bytes.extend_from_slice(more);
                c.next();
            }
            match String::from_utf8(bytes) {
                Ok(s) if !s.contains('\0') => Default_::Literal(s),
                // Bytes a string cannot hold, or a NUL: an expression, which keeps them.
                Ok(s) => Default_::Expr(hex_literal(s.as_bytes())),
                Err(e) => Default_::Expr(hex_literal(e.as_bytes())),
            }
        }
        Tok::Number(n) => Default_::Literal(n.to_string()),
        Tok::Op("-") | Tok::Op("+") => {
            let sign = if t.is_op("-") { "-" } else { "" };
            match c.next().map(|t| &t.tok) {
                Some(Tok::Number(n)) => Default_::Literal(format!("{}{}", sign, n)),
                _ => return Err(c.error().into()),
            }
        }
        Tok::Op("(") => {
            c.pos -= 1;
            let inner = c.skip_group()?;
            return expression_default(inner.trim(), column);
        }
        _ => {
            c.pos -= 1;
            return Err(c.error().into());
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::ddl::parse_create_table;
    use crate::schema::Default_;

    fn default_of(sql: &str) -> Option<String> {
        let d = parse_create_table(sql);
        d.columns[0].default_text()
    }

    #[test]
    fn literal_defaults_as_mariadb_keeps_them() {
        // A literal in parentheses is a literal; a number is the column's.
        assert_eq!(default_of("CREATE TABLE t (a INT DEFAULT (((1.0))))").as_deref(), Some("1"));
        assert_eq!(default_of("CREATE TABLE t (a INT DEFAULT -1.5)").as_deref(), Some("-2"));
        assert_eq!(default_of("CREATE TABLE t (a INT DEFAULT ((0x3939)))").as_deref(), Some("14649"));
        assert_eq!(default_of("CREATE TABLE t (a DOUBLE DEFAULT 1.50)").as_deref(), Some("1.5"));
        assert_eq!(default_of("CREATE TABLE t (a FLOAT DEFAULT 1.5e1)").as_deref(), Some("15"));
        assert_eq!(default_of("CREATE TABLE t (a DECIMAL(10,2) DEFAULT 1e0)").as_deref(), Some("1.00"));
        assert_eq!(default_of("CREATE TABLE t (a DOUBLE DEFAULT (PI()))").as_deref(), Some("3.141592653589793"));
        assert_eq!(default_of("CREATE TABLE t (a VARCHAR(9) DEFAULT ((_latin1'x')))").as_deref(), Some("x"));
        assert_eq!(default_of("CREATE TABLE t (a TIME DEFAULT (((TIME'10:20:30'))))").as_deref(), Some("10:20:30"));
        assert_eq!(default_of("CREATE TABLE t (a DATE DEFAULT DATE'2001-01-01')").as_deref(), Some("2001-01-01"));
        assert_eq!(default_of("CREATE TABLE t (a INT DEFAULT ((NULL)))"), None);
        // Not a lone literal: an expression.
        assert_eq!(default_of("CREATE TABLE t (a INT DEFAULT ((1) + 1))").as_deref(), Some("((1) + 1)"));
        let d = parse_create_table("CREATE TABLE t (a DECIMAL(30,6) DEFAULT CURRENT_TIMESTAMP(6))");
        assert!(matches!(&d.columns[0].default, Some(Default_::Expr(e)) if e == "current_timestamp(6)"));
        assert_eq!(crate::ddl::parser::parse("CREATE TABLE t (a INT DEFAULT ((1))").unwrap_err().code, 1064);
    }
}
