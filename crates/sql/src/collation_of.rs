//! COLLATION(x), CHARSET(x) and COERCIBILITY(x) worked out from the text of
//! `x`, as MariaDB 10.11 derives them: a string literal has the
//! connection's collation (or its introducer's: `_latin2'a'`) and
//! coercibility 4, `x COLLATE c` has c and 0, NULL is binary and 6, a
//! number or a number's expression binary and 5, USER(), DATABASE() and
//! VERSION() utf8mb3_general_ci and 3, CAST(x AS CHAR) and CONVERT(x USING
//! cs) 2; a string function (CONCAT, LPAD, TRIM, ...) takes the collation
//! of its string arguments with the lowest coercibility; BIN, HEX, FORMAT
//! and the like the connection's, 4; CHAR, ENCODE, UNHEX binary, 4.
//!
//! Why in the front: the engine sees only values (SQLite has no
//! collations of MariaDB's), and the derivation needs the session's
//! collation_connection and user variables. `dialect::substitute` writes the
//! answer as a literal in place of the call; what is not known here (a
//! column, a function not listed) is left to the engine's functions, which
//! answer from the value.
//!
//! Bounds: the walk over the argument's tokens is recursive, at most
//! `MAX_DEPTH` levels (deeper is "not known"), and visits each token a
//! bounded number of times per level.

use turnstile_engine::Value;
use turnstile_sqltext::lex::{Tok, Token};

/// Deeper nesting than this is left to the engine.
const MAX_DEPTH: usize = 32;

/// A value's collation and coercibility (0 explicit .. 6 ignorable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    pub collation: String,
    pub coercibility: u8,
}

impl Derived {
    fn new(collation: &str, coercibility: u8) -> Derived {
        Derived { collation: collation.to_string(), coercibility }
    }
    fn numeric() -> Derived {
        Derived::new("binary", 5)
    }
    /// The character set of the collation (`latin2_general_ci` → `latin2`).
    pub fn charset(&self) -> &str {
        self.collation.split('_').next().unwrap_or("binary")
    }
}

/// What the derivation reads besides the tokens.
pub struct Env<'a> {
    pub sql: &'a str,
    /// collation_connection.
    pub connection: &'a str,
    pub user_var: &'a dyn Fn(&str) -> Option<Value>,
}

/// The default collation of a character set MariaDB knows.
fn default_collation(charset: &str) -> Option<String> {
    let cs = charset.to_ascii_lowercase();
    let name = match cs.as_str() {
        "binary" => return Some("binary".into()),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci",
        "latin1" => "latin1_swedish_ci",
        "latin5" => "latin5_turkish_ci",
        "sjis" | "ujis" | "cp932" | "eucjpms" => return Some(format!("{}_japanese_ci", cs)),
        "gbk" | "gb2312" | "big5" => return Some(format!("{}_chinese_ci", cs)),
        "euckr" => "euckr_korean_ci",
        "tis620" => "tis620_thai_ci",
        "utf8mb4" | "latin2" | "latin7" | "ascii" | "cp1250" | "cp1251" | "cp1256" | "cp1257" | "cp850" | "cp852" | "cp866" | "koi8r" | "koi8u" | "greek" | "hebrew" | "ucs2" | "utf16" | "utf16le"
        | "utf32" | "dec8" | "hp8" | "swe7" | "keybcs2" | "macce" | "macroman" | "armscii8" | "geostd8" => {
            return Some(format!("{}_general_ci", cs));
        }
        _ => return None,
    };
    Some(name.into())
}

/// Functions whose result is a number or a date (binary, 5).
const NUMERIC: &[&str] = &[
    "LENGTH",
    "OCTET_LENGTH",
    "LENGTHB",
    "CHAR_LENGTH",
    "CHARACTER_LENGTH",
    "BIT_LENGTH",
    "ASCII",
    "ORD",
    "LOCATE",
    "INSTR",
    "POSITION",
    "FIELD",
    "FIND_IN_SET",
    "CRC32",
    "ABS",
    "ROUND",
    "TRUNCATE",
    "FLOOR",
    "CEIL",
    "CEILING",
    "PI",
    "SIGN",
    "SQRT",
    "POW",
    "POWER",
    "EXP",
    "LN",
    "LOG",
    "LOG2",
    "LOG10",
    "MOD",
    "RAND",
    "NOW",
    "CURDATE",
    "CURTIME",
    "SYSDATE",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "UNIX_TIMESTAMP",
    "YEAR",
    "MONTH",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "STRCMP",
    "COERCIBILITY",
    "CONNECTION_ID",
    "ISNULL",
    "LAST_INSERT_ID",
    "ROW_COUNT",
    "FOUND_ROWS",
    "BENCHMARK",
    "SLEEP",
    "UUID_SHORT",
    "GREATEST_INT",
];
/// Functions whose result is text in the connection's collation, 4.
const CONNECTION_TEXT: &[&str] =
    &["BIN", "OCT", "CONV", "HEX", "FORMAT", "MD5", "SHA", "SHA1", "SHA2", "PASSWORD", "UUID", "INET_NTOA", "TO_BASE64", "SPACE", "MONTHNAME", "DAYNAME", "DATE_FORMAT", "TIME_FORMAT"];
/// Functions whose result is a binary string, 4.
const BINARY_TEXT: &[&str] = &["ENCODE", "DECODE", "AES_ENCRYPT", "AES_DECRYPT", "COMPRESS", "UNCOMPRESS", "UNHEX", "FROM_BASE64", "RANDOM_BYTES", "DES_ENCRYPT", "DES_DECRYPT"];
/// Functions naming the session or server: utf8mb3_general_ci, 3.
const SYSTEM_TEXT: &[&str] = &["USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "VERSION", "CURRENT_ROLE", "COLLATION", "CHARSET"];
/// String functions: the collation of their string arguments.
const STRING_FUNCS: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "LCASE",
    "LOWER",
    "UCASE",
    "UPPER",
    "LEFT",
    "RIGHT",
    "SUBSTRING",
    "SUBSTR",
    "MID",
    "LPAD",
    "RPAD",
    "MAKE_SET",
    "EXPORT_SET",
    "TRIM",
    "LTRIM",
    "RTRIM",
    "REPEAT",
    "REVERSE",
    "QUOTE",
    "SOUNDEX",
    "INSERT",
    "REPLACE",
    "SUBSTRING_INDEX",
    "ELT",
    "IFNULL",
    "COALESCE",
];

/// The derivation of the whole token range, or None when not known here.
pub fn derive(toks: &[Token], env: &Env<'_>) -> Option<Derived> {
    expr(toks, env, 0)
}

/// Split a token range at its top-level commas.
fn split_args(toks: &[Token]) -> Vec<&[Token]> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_op(",") {
            parts.push(&toks[from..i]);
            from = i + 1;
        }
    }
    parts.push(&toks[from..]);
    parts
}

/// The index of the `)` closing the `(` at `open`.
fn close_of(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

fn expr(toks: &[Token], env: &Env<'_>, depth: usize) -> Option<Derived> {
    if toks.is_empty() || depth > MAX_DEPTH {
        return None;
    }
    // A top-level operator other than COLLATE: arithmetic, comparison or
    // logic, whose value is a number.
    let mut level = 0usize;
    for (i, t) in toks.iter().enumerate() {
        match &t.tok {
            Tok::Op("(") => level += 1,
            Tok::Op(")") => level = level.saturating_sub(1),
            Tok::Op(o) if level == 0 && i > 0 && ["+", "-", "*", "/", "%", "=", "<", ">", "<=", ">=", "<>", "!=", "&", "|", "^", "<<", ">>", "&&", "||", "<=>"].contains(o) => {
                return Some(Derived::numeric());
            }
            Tok::Word(w) if level == 0 && i > 0 && ["AND", "OR", "XOR", "DIV", "MOD", "IS", "LIKE", "IN", "BETWEEN", "REGEXP", "RLIKE"].iter().any(|k| w.eq_ignore_ascii_case(k)) => {
                return Some(Derived::numeric());
            }
            _ => {}
        }
    }
    // `x COLLATE c`.
    let n = toks.len();
    if n >= 3 && toks[n - 2].is_kw("COLLATE") {
        let name = toks[n - 1].ident()?.to_ascii_lowercase();
        let inner = expr(&toks[..n - 2], env, depth + 1)?;
        if inner.coercibility == 5 && inner.collation == "binary" {
            return None;
        }
        return Some(Derived::new(&name, 0));
    }
    primary(toks, env, depth)
}

fn primary(toks: &[Token], env: &Env<'_>, depth: usize) -> Option<Derived> {
    let first = &toks[0];
    if toks.len() == 1 {
        return single(first, env);
    }
    // `_latin2 'a'`: an introducer the lexer keeps apart from its string.
    if toks.len() == 2 {
        if let (Tok::Word(w), Tok::Str(_)) = (&first.tok, &toks[1].tok) {
            if let Some(cs) = w.strip_prefix('_') {
                return Some(Derived { collation: default_collation(cs)?, coercibility: 4 });
            }
        }
    }
    // `- number`.
    if first.is_op("-") || first.is_op("+") {
        return matches!(toks[1].tok, Tok::Number(_)).then(Derived::numeric);
    }
    if first.is_op("(") {
        let close = close_of(toks, 0)?;
        return (close == toks.len() - 1).then(|| expr(&toks[1..close], env, depth + 1)).flatten();
    }
    let Tok::Word(name) = &first.tok else { return None };
    if !toks[1].is_op("(") || close_of(toks, 1)? != toks.len() - 1 {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    let inner = &toks[2..toks.len() - 1];
    call(&upper, inner, env, depth)
}

/// A single token: a literal, NULL, a user variable, or a name (unknown).
fn single(t: &Token, env: &Env<'_>) -> Option<Derived> {
    match &t.tok {
        // 0x41 and b'1' are binary strings; other numbers numbers.
        Tok::Number(n) if n.len() > 1 && n.as_bytes()[0] == b'0' && matches!(n.as_bytes()[1], b'x' | b'X' | b'b' | b'B') => Some(Derived::new("binary", 4)),
        Tok::Number(_) => Some(Derived::numeric()),
        Tok::Str(_) => {
            let written = env.sql.get(t.start..t.end).unwrap_or("");
            let b = written.as_bytes();
            if b.first() == Some(&b'_') {
                let cs = &written[1..written.find(['\'', '"', ' ', '\t', '\n', '\r']).unwrap_or(written.len())];
                return Some(Derived { collation: default_collation(cs)?, coercibility: 4 });
            }
            if matches!(b.first(), Some(b'x' | b'X')) && b.get(1) == Some(&b'\'') {
                return Some(Derived::new("binary", 4));
            }
            if matches!(b.first(), Some(b'n' | b'N')) && b.get(1) == Some(&b'\'') {
                return Some(Derived::new("utf8mb3_general_ci", 4));
            }
            Some(Derived::new(env.connection, 4))
        }
        Tok::Word(w) if w.eq_ignore_ascii_case("NULL") => Some(Derived::new("binary", 6)),
        Tok::Word(w) if w.eq_ignore_ascii_case("TRUE") || w.eq_ignore_ascii_case("FALSE") => Some(Derived::numeric()),
        Tok::Word(w) if w.eq_ignore_ascii_case("CURRENT_USER") || w.eq_ignore_ascii_case("CURRENT_ROLE") => Some(Derived::new("utf8mb3_general_ci", 3)),
        // A string variable: implicit, in the collation it was set in (the
        // connection's, as Turnstile keeps no other); others are left alone.
        Tok::UserVar(name) => match (env.user_var)(name)? {
            Value::Bytes(_) => Some(Derived::new(env.connection, 2)),
            _ => None,
        },
        _ => None,
    }
}

/// A call of `name` (in capitals) with the tokens between its parentheses.
fn call(name: &str, inner: &[Token], env: &Env<'_>, depth: usize) -> Option<Derived> {
    if SYSTEM_TEXT.contains(&name) {
        return Some(Derived::new("utf8mb3_general_ci", 3));
    }
    if NUMERIC.contains(&name) {
        return Some(Derived::numeric());
    }
    if CONNECTION_TEXT.contains(&name) {
        return Some(Derived::new(env.connection, 4));
    }
    if BINARY_TEXT.contains(&name) {
        return Some(Derived::new("binary", 4));
    }
    if name == "CHAR" {
        // CHAR(n, ... USING cs): that set's collation; without USING binary.
        let using = inner.iter().position(|t| t.is_kw("USING"));
        return match using {
            Some(u) => Some(Derived { collation: default_collation(inner.get(u + 1)?.ident()?)?, coercibility: 4 }),
            None => Some(Derived::new("binary", 4)),
        };
    }
    if name == "CAST" || name == "CONVERT" {
        return cast(name, inner, env);
    }
    if !STRING_FUNCS.contains(&name) {
        return None;
    }
    // TRIM(LEADING x FROM y), SUBSTRING(x FROM n FOR m): the words separate.
    let args: Vec<&[Token]> = split_args(inner)
        .into_iter()
        .flat_map(|a| {
            let a = match a.first() {
                Some(t) if name == "TRIM" && (t.is_kw("LEADING") || t.is_kw("TRAILING") || t.is_kw("BOTH")) => &a[1..],
                _ => a,
            };
            a.split(|t| t.is_kw("FROM") || t.is_kw("FOR")).collect::<Vec<_>>()
        })
        .filter(|a| !a.is_empty())
        .collect();
    let mut best: Option<Derived> = None;
    for a in args {
        let d = expr(a, env, depth + 1)?;
        if d.coercibility >= 5 {
            continue;
        }
        best = match best {
            None => Some(d),
            Some(b) if d.coercibility < b.coercibility => Some(d),
            Some(b) if d.coercibility == b.coercibility && d.collation != b.collation => return None,
            keep => keep,
        };
    }
    Some(best.unwrap_or_else(|| Derived::new(env.connection, 4)))
}

/// CAST(x AS CHAR ...) and CONVERT(x, CHAR): the connection's collation, 2;
/// CONVERT(x USING cs): the set's; other target types are numbers or dates.
fn cast(name: &str, inner: &[Token], env: &Env<'_>) -> Option<Derived> {
    let sep = if name == "CAST" { inner.iter().rposition(|t| t.is_kw("AS")) } else { inner.iter().rposition(|t| t.is_op(",") || t.is_kw("USING")) };
    let at = sep?;
    if inner[at].is_kw("USING") {
        return Some(Derived { collation: default_collation(inner.get(at + 1)?.ident()?)?, coercibility: 2 });
    }
    let target = inner.get(at + 1)?;
    if target.is_kw("CHAR") || target.is_kw("VARCHAR") || target.is_kw("NCHAR") {
        let rest = &inner[at + 2..];
        if let Some(k) = rest.iter().position(|t| t.is_kw("CHARSET") || t.is_kw("SET")) {
            return Some(Derived { collation: default_collation(rest.get(k + 1)?.ident()?)?, coercibility: 2 });
        }
        return Some(Derived::new(env.connection, 2));
    }
    if target.is_kw("BINARY") {
        return Some(Derived::new("binary", 2));
    }
    Some(Derived::numeric())
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_sqltext::lex::tokenize;

    fn of(sql: &str) -> Option<(String, u8)> {
        let toks = tokenize(sql).unwrap();
        let vars = |n: &str| (n == "s").then(|| Value::str("x"));
        let env = Env { sql, connection: "latin1_swedish_ci", user_var: &vars };
        derive(&toks, &env).map(|d| (d.collation, d.coercibility))
    }

    #[test]
    fn as_mariadb_derives() {
        assert_eq!(of("'a'"), Some(("latin1_swedish_ci".into(), 4)));
        assert_eq!(of("_latin2'a'"), Some(("latin2_general_ci".into(), 4)));
        assert_eq!(of("NULL"), Some(("binary".into(), 6)));
        assert_eq!(of("1+1"), Some(("binary".into(), 5)));
        assert_eq!(of("bin(130)"), Some(("latin1_swedish_ci".into(), 4)));
        assert_eq!(of("char(130)"), Some(("binary".into(), 4)));
        assert_eq!(of("lpad(_latin2'a',4,_latin2'b')"), Some(("latin2_general_ci".into(), 4)));
        assert_eq!(of("trim(LEADING _latin2' ' FROM _latin2'a')"), Some(("latin2_general_ci".into(), 4)));
        assert_eq!(of("concat('a' collate latin1_bin, 'b')"), Some(("latin1_bin".into(), 0)));
        assert_eq!(of("user()"), Some(("utf8mb3_general_ci".into(), 3)));
        assert_eq!(of("@s"), Some(("latin1_swedish_ci".into(), 2)));
        assert_eq!(of("cast(1 as char)"), Some(("latin1_swedish_ci".into(), 2)));
        assert_eq!(of("encode('abcd','ab')"), Some(("binary".into(), 4)));
        assert_eq!(of("0xFF80"), Some(("binary".into(), 4)));
        assert_eq!(of("monthname('1970-01-01')"), Some(("latin1_swedish_ci".into(), 4)));
        assert_eq!(of("b'1'"), Some(("binary".into(), 4)));
        assert_eq!(of("-1"), Some(("binary".into(), 5)));
        assert_eq!(of("convert('a' using latin2)"), Some(("latin2_general_ci".into(), 2)));
        // A column, an unknown function, a conflict: left to the engine.
        assert_eq!(of("a"), None);
        assert_eq!(of("concat(a, 'b')"), None);
        assert_eq!(of("concat(_latin1'a', _latin2'b')"), None);
        assert_eq!(of("_nosuchset'a'"), None);
    }

    #[test]
    fn deep_nesting_is_not_known() {
        let sql = format!("{}'a'{}", "concat(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(of(&sql), None);
    }
}
