//! A small SQL lexer in MySQL's dialect.
//!
//! The hot path never builds a full syntax tree: the SQL front classifies a
//! statement by its first tokens and evaluates the small expressions that
//! session statements use (SET, SELECT @@var). This lexer is shared by the SQL
//! front, the server and the engines. It understands quoting (' " `), escapes,
//! comments (--, #, /* */, by the rules in scan.rs) and MySQL's executable
//! comments `/*! ... */` (up to our version), whose content is lexed as
//! ordinary SQL. Hex and bit literals
//! (`0x41`, `0b1`, `b'1'`) are `Number` tokens (`hybrid_bytes`: binary strings
//! that are numbers in numeric context); `X'41'` is a `Str` like any string
//! (`is_binary_string` tells it and `_binary '..'` apart from text).
//!
//! NO_BACKSLASH_ESCAPES: with that sql_mode a backslash in a string is an
//! ordinary character (`'a\'` is the two characters `a\`). Which rule
//! applies is a per-thread setting (`lexing_mode`), not a parameter: every
//! reader of a statement's text (statement splitting, `?` counting, the
//! front's classifiers and byte scans, the engine's translator, the DDL
//! parser) must agree on where a string ends, since a reader that ends it
//! elsewhere than the others lets text in a string run as SQL. The session
//! sets it around each statement from its sql_mode; everything that reads
//! the text on that thread then reads it the same way, where a parameter
//! threaded through every call site could be missed at one.

use crate::scan::{self, Comment};
use std::cell::Cell;

thread_local! {
    /// NO_BACKSLASH_ESCAPES for the statement this thread is reading.
    static NO_BACKSLASH_ESCAPES: Cell<bool> = const { Cell::new(false) };
}

/// Does a backslash escape in strings this thread lexes now? (No under
/// NO_BACKSLASH_ESCAPES.)
pub fn backslash_escapes() -> bool {
    !NO_BACKSLASH_ESCAPES.with(Cell::get)
}

/// Lex with NO_BACKSLASH_ESCAPES `on` or off on this thread until the guard
/// drops (which restores the previous setting).
#[must_use = "the mode holds only while the guard lives"]
pub fn lexing_mode(no_backslash_escapes: bool) -> LexingMode {
    LexingMode { previous: NO_BACKSLASH_ESCAPES.with(|c| c.replace(no_backslash_escapes)) }
}

/// Restores the thread's previous lexing rule when dropped (`lexing_mode`).
pub struct LexingMode {
    previous: bool,
}

impl LexingMode {
    /// Change the rule for the rest of this guard's life (a statement
    /// changed sql_mode; the next one of a multi-statement text reads by it).
    pub fn set(&self, no_backslash_escapes: bool) {
        NO_BACKSLASH_ESCAPES.with(|c| c.set(no_backslash_escapes));
    }
}

impl Drop for LexingMode {
    fn drop(&mut self) {
        NO_BACKSLASH_ESCAPES.with(|c| c.set(self.previous));
    }
}

/// Text of a word, quoted identifier or number: up to 24 bytes live inline, so
/// lexing a statement of short words allocates only the token vector.
pub type TokText = compact_str::CompactString;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// Bare identifier or keyword (compare case-insensitively with `is_kw`).
    Word(TokText),
    /// `quoted identifier` (backticks, or double quotes outside ANSI_QUOTES as strings).
    Quoted(TokText),
    Number(TokText),
    Str(Vec<u8>),
    /// @@name, @@session.name, @@global.name: (scope, name), both lowercased.
    SysVar(Option<String>, String),
    /// @name
    UserVar(String),
    /// `?` placeholder
    Param,
    /// Punctuation and operators: ( ) , ; . = < > <= >= <> != + - * / % := || && !
    /// (and `:`, which ends a stored routine's label: `l1: LOOP`)
    Op(&'static str),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    /// Byte offsets in the statement text.
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn is_kw(&self, kw: &str) -> bool {
        matches!(&self.tok, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }
    pub fn is_op(&self, op: &str) -> bool {
        matches!(&self.tok, Tok::Op(o) if *o == op)
    }
    /// The identifier this token names, quoted or not.
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Word(w) | Tok::Quoted(w) => Some(w),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    /// Byte offset where lexing failed (used for 1064's "near '...'").
    pub at: usize,
}

const OPS: [&str; 28] = ["<=>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "(", ")", ",", ";", ".", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", ":"];

/// Lex a whole statement (or several, separated by `;` tokens).
pub fn tokenize(sql: &str) -> Result<Vec<Token>, LexError> {
    // About one token per five bytes of typical SQL: one allocation, not a
    // doubling series, for the statements the hot path lexes.
    let mut out = Vec::with_capacity(sql.len() / 5 + 4);
    lex_into(sql, &mut out, false)?;
    Ok(out)
}

/// Lex `sql` into `out`; with `stop_at_semicolon`, stop after the first
/// top-level `;`. Returns where lexing stopped.
fn lex_into(sql: &str, out: &mut Vec<Token>, stop_at_semicolon: bool) -> Result<usize, LexError> {
    let b = sql.as_bytes();
    let escapes = backslash_escapes();
    let mut i = 0;
    // Inside an executable comment (they do not nest): its `*/` is skipped;
    // anywhere else `*/` is two operators, a syntax error as in MySQL.
    let mut in_executable = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Comments (scan.rs has the rules).
        if matches!(c, b'#' | b'-' | b'/') {
            match scan::comment_at(b, i) {
                // An executable comment's content is lexed; its closing */
                // is skipped when we reach it.
                Some(Comment::Skip(next)) => {
                    i = next;
                    continue;
                }
                Some(Comment::Executable(next)) => {
                    in_executable = true;
                    i = next;
                    continue;
                }
                Some(Comment::Unterminated) => return Err(LexError { at: i }),
                None => {}
            }
        }
        if in_executable && scan::is_close(b, i) {
            in_executable = false;
            i += 2;
            continue;
        }
        let start = i;
        if c == b'\'' || c == b'"' {
            let (s, end) = lex_string(b, i, c, escapes).ok_or(LexError { at: i })?;
            let start = drop_introducer(out).unwrap_or(start);
            out.push(Token { tok: Tok::Str(s), start, end });
            i = end;
            continue;
        }
        if c == b'`' {
            let mut s = Vec::new();
            let mut j = i + 1;
            loop {
                match b.get(j) {
                    None => return Err(LexError { at: i }),
                    Some(b'`') if b.get(j + 1) == Some(&b'`') => {
                        s.push(b'`');
                        j += 2;
                    }
                    Some(b'`') => break,
                    Some(&x) => {
                        s.push(x);
                        j += 1;
                    }
                }
            }
            out.push(Token { tok: Tok::Quoted(TokText::from(String::from_utf8_lossy(&s))), start, end: j + 1 });
            i = j + 1;
            continue;
        }
        if c == b'@' {
            if b.get(i + 1) == Some(&b'@') {
                let mut j = i + 2;
                let name_start = j;
                while j < b.len() && (is_ident(b[j]) || b[j] == b'.') {
                    j += 1;
                }
                let full = sql[name_start..j].to_ascii_lowercase();
                let (scope, name) = match full.split_once('.') {
                    Some((s, n)) if matches!(s, "session" | "global" | "local") => (Some(if s == "local" { "session".to_string() } else { s.to_string() }), n.to_string()),
                    _ => (None, full),
                };
                if name.is_empty() {
                    return Err(LexError { at: i });
                }
                out.push(Token { tok: Tok::SysVar(scope, name), start, end: j });
                i = j;
                continue;
            }
            let mut j = i + 1;
            let name = if matches!(b.get(j), Some(b'\'' | b'"' | b'`')) {
                let q = b[j];
                let (s, end) = if q == b'`' {
                    let e = scan::find(b, j + 1, b"`").ok_or(LexError { at: i })?;
                    (b[j + 1..e].to_vec(), e + 1)
                } else {
                    lex_string(b, j, q, escapes).ok_or(LexError { at: i })?
                };
                j = end;
                String::from_utf8_lossy(&s).into_owned()
            } else {
                while j < b.len() && (is_ident(b[j]) || b[j] == b'.' || b[j] == b'$') {
                    j += 1;
                }
                sql[i + 1..j].to_string()
            };
            out.push(Token { tok: Tok::UserVar(name.to_ascii_lowercase()), start, end: j });
            i = j;
            continue;
        }
        if let Some(j) = hybrid_literal_end(b, i) {
            // 0x41 / 0b101: a binary string that is a number in numeric
            // context (`hybrid_bytes`). MySQL spells the prefix in lower case
            // only, and digits followed by a letter make a name (0x41g).
            // After a charset introducer (`_utf8 0x41`) it is a string.
            let text = &sql[i..j];
            match (drop_introducer(out), hybrid_bytes(text)) {
                (Some(start), Some(bytes)) => out.push(Token { tok: Tok::Str(bytes), start, end: j }),
                _ => out.push(Token { tok: Tok::Number(TokText::from(text)), start, end: j }),
            }
            i = j;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|x| x.is_ascii_digit())) {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                let mut k = j + 1;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    k += 1;
                }
                if k < b.len() && b[k].is_ascii_digit() {
                    j = k;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
            }
            // A number immediately followed by letters is an identifier (e.g. 1abc).
            if j < b.len() && is_ident(b[j]) {
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                out.push(Token { tok: Tok::Word(TokText::from(&sql[i..j])), start, end: j });
            } else {
                out.push(Token { tok: Tok::Number(TokText::from(&sql[i..j])), start, end: j });
            }
            i = j;
            continue;
        }
        if is_ident(c) || c >= 0x80 || c == b'$' {
            let mut j = i;
            while j < b.len() && (is_ident(b[j]) || b[j] >= 0x80 || b[j] == b'$') {
                j += 1;
            }
            // X'4142': a binary string given in hex (an even number of digits).
            if j == i + 1 && (b[i] == b'X' || b[i] == b'x') && j < b.len() && b[j] == b'\'' {
                let close = b[j + 1..].iter().position(|&c| c == b'\'').map(|p| j + 1 + p).ok_or(LexError { at: j })?;
                let digits = &b[j + 1..close];
                if !digits.len().is_multiple_of(2) || !digits.iter().all(u8::is_ascii_hexdigit) {
                    return Err(LexError { at: i });
                }
                let bytes = digits.chunks(2).map(|d| (hex_val(d[0]) << 4) | hex_val(d[1])).collect();
                let start = drop_introducer(out).unwrap_or(start);
                out.push(Token { tok: Tok::Str(bytes), start, end: close + 1 });
                i = close + 1;
                continue;
            }
            // b'0101': a bit literal, lexed as the number 0b0101 (b'' as 0b).
            if j == i + 1 && (b[i] == b'B' || b[i] == b'b') && j < b.len() && b[j] == b'\'' {
                let close = b[j + 1..].iter().position(|&c| c == b'\'').map(|p| j + 1 + p).ok_or(LexError { at: j })?;
                let digits = &sql[j + 1..close];
                if !digits.bytes().all(|d| d == b'0' || d == b'1') {
                    return Err(LexError { at: i });
                }
                out.push(Token { tok: Tok::Number(TokText::from(format!("0b{}", digits))), start, end: close + 1 });
                i = close + 1;
                continue;
            }
            // _utf8mb4'text' and N'text' introducers: keep just the string.
            if j < b.len() && b[j] == b'\'' && (b[i] == b'_' || (j == i + 1 && (b[i] == b'N' || b[i] == b'n'))) {
                let (s, end) = lex_string(b, j, b'\'', escapes).ok_or(LexError { at: j })?;
                out.push(Token { tok: Tok::Str(s), start, end });
                i = end;
                continue;
            }
            out.push(Token { tok: Tok::Word(TokText::from(&sql[i..j])), start, end: j });
            i = j;
            continue;
        }
        if c == b'?' {
            out.push(Token { tok: Tok::Param, start, end: i + 1 });
            i += 1;
            continue;
        }
        if c == b'!' && b.get(i + 1) != Some(&b'=') {
            out.push(Token { tok: Tok::Op("!"), start, end: i + 1 });
            i += 1;
            continue;
        }
        match OPS.iter().find(|op| b[i..].starts_with(op.as_bytes())) {
            Some(op) => {
                out.push(Token { tok: Tok::Op(op), start, end: i + op.len() });
                i += op.len();
                if stop_at_semicolon && *op == ";" {
                    return Ok(i);
                }
            }
            None => return Err(LexError { at: i }),
        }
    }
    Ok(i)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Lex a quoted string starting at `i` (the quote). Returns the unescaped bytes
/// and the offset after the closing quote. Without `escapes`
/// (NO_BACKSLASH_ESCAPES) a backslash is an ordinary character.
fn lex_string(b: &[u8], i: usize, q: u8, escapes: bool) -> Option<(Vec<u8>, usize)> {
    let mut s = Vec::new();
    let mut j = i + 1;
    loop {
        let c = *b.get(j)?;
        if c == q {
            if b.get(j + 1) == Some(&q) {
                s.push(q);
                j += 2;
                continue;
            }
            return Some((s, j + 1));
        }
        if c == b'\\' && escapes {
            let e = *b.get(j + 1)?;
            // \% and \_ keep the backslash (LIKE patterns).
            if e == b'%' || e == b'_' {
                s.push(b'\\');
            }
            s.push(match e {
                b'0' => 0,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'b' => 8,
                b'Z' => 26,
                other => other,
            });
            j += 2;
            continue;
        }
        s.push(c);
        j += 1;
    }
}

/// Split a multi-statement text at top-level `;`, returning statement slices
/// (trimmed, empty ones dropped). Falls back to the whole text if it cannot be lexed.
pub fn split_statements(sql: &str) -> Vec<&str> {
    let Ok(tokens) = tokenize(sql) else { return vec![sql] };
    let mut out = Vec::new();
    let mut start = 0;
    for t in &tokens {
        if t.is_op(";") {
            let s = sql[start..t.start].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = t.end;
        }
    }
    let s = sql[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    if out.is_empty() {
        out.push(sql.trim());
    }
    out
}

/// The first statement of a multi-statement text and the text after its
/// `;` (empty statements skipped; None when only blanks and `;` are left).
/// Each call lexes by the thread's current rule, so a statement that changes
/// sql_mode changes how the ones after it are read, as in MariaDB. Text
/// that cannot be lexed is one statement (its error is reported when it runs).
pub fn next_statement(text: &str) -> Option<(&str, &str)> {
    let mut rest = text;
    loop {
        let mut toks = Vec::new();
        let first = lex_into(rest, &mut toks, true);
        // A routine's body holds `;` of its own (compound.rs).
        if first.is_ok() && crate::compound::defines_body(&toks) {
            if let Ok(all) = tokenize(rest) {
                let (stmt, after) = match crate::compound::statement_end(&all) {
                    Some(i) => (&rest[..all[i].start], &rest[all[i].end..]),
                    None => (rest, ""),
                };
                return Some((stmt.trim(), after));
            }
        }
        let (stmt, after) = match first {
            Ok(end) if toks.last().is_some_and(|t| t.is_op(";")) => (&rest[..end - 1], &rest[end..]),
            _ => (rest, ""),
        };
        let stmt = stmt.trim();
        if !stmt.is_empty() {
            return Some((stmt, after));
        }
        if after.is_empty() {
            return None;
        }
        rest = after;
    }
}

/// Count `?` placeholders outside strings, identifiers and comments.
pub fn count_params(sql: &str) -> Result<usize, LexError> {
    Ok(tokenize(sql)?.iter().filter(|t| t.tok == Tok::Param).count())
}

/// The `?` markers of a statement to prepare, counted as MariaDB's lexer
/// reads them: a `?` followed at once by a character of a name (`?FROM`,
/// `?1`) is no marker, and two markers in a row (`??`) are no SQL; both are
/// a syntax error at that `?` (LexError::at).
pub fn count_markers(sql: &str) -> Result<usize, LexError> {
    let toks = tokenize(sql)?;
    let mut n = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.tok != Tok::Param {
            continue;
        }
        let name_follows = sql.as_bytes().get(t.end).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80);
        if name_follows || (i > 0 && toks[i - 1].tok == Tok::Param) {
            return Err(LexError { at: t.start });
        }
        n += 1;
    }
    Ok(n)
}

/// Where the first `?` marker of `sql` is (outside strings, names and
/// comments), if it has one: a statement sent as text has no markers, so
/// there it is a syntax error (MariaDB). No `?` byte: no tokenizing.
pub fn first_marker(sql: &str) -> Option<usize> {
    if !sql.as_bytes().contains(&b'?') {
        return None;
    }
    tokenize(sql).ok()?.iter().find(|t| t.tok == Tok::Param).map(|t| t.start)
}

/// A charset introducer separated from its string by blanks (`_binary X'00'`,
/// `_utf8mb4 'x'`): the string is what counts, so the introducer token is
/// dropped; its start is returned, and the string's token starts there, so
/// `is_binary_string` still sees `_binary`.
fn drop_introducer(out: &mut Vec<Token>) -> Option<usize> {
    if let Some(Token { tok: Tok::Word(w), start, .. }) = out.last() {
        if w.strip_prefix('_').is_some_and(is_charset_name) {
            let start = *start;
            out.pop();
            return Some(start);
        }
    }
    None
}

/// A string literal written as hex or bits (`X'41'`, `_utf8 0x41`): MySQL
/// names its column as written, not by its value.
pub fn written_in_hex(text: &str) -> bool {
    let literal = match text.strip_prefix('_') {
        Some(rest) => rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric()).trim_start(),
        None => text,
    };
    let b = literal.as_bytes();
    matches!(b, [b'x' | b'X', b'\'', ..] | [b'0', b'x' | b'b', ..])
}

/// MariaDB's character set names (SHOW CHARACTER SET): `_<name>` before a
/// string is its introducer.
fn is_charset_name(name: &str) -> bool {
    const CHARSETS: &[&str] = &[
        "armscii8", "ascii", "big5", "binary", "cp1250", "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866", "cp932", "dec8", "eucjpms", "euckr", "gb2312", "gbk", "geostd8", "greek", "hebrew",
        "hp8", "keybcs2", "koi8r", "koi8u", "latin1", "latin2", "latin5", "latin7", "macce", "macroman", "sjis", "swe7", "tis620", "ucs2", "ujis", "utf16", "utf16le", "utf32", "utf8", "utf8mb3",
        "utf8mb4",
    ];
    CHARSETS.iter().any(|c| name.eq_ignore_ascii_case(c))
}

fn hex_val(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        b'A'..=b'F' => d - b'A' + 10,
        _ => 0,
    }
}

/// End of a `0x<hex digits>` or `0b<binary digits>` literal starting at `i`,
/// or None when there is none there (`0x` alone, `0X41`, `0x41g` are names).
fn hybrid_literal_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'0') {
        return None;
    }
    let digit: fn(&u8) -> bool = match b.get(i + 1) {
        Some(b'x') => u8::is_ascii_hexdigit,
        Some(b'b') => |d| *d == b'0' || *d == b'1',
        _ => return None,
    };
    let n = b[i + 2..].iter().take_while(|d| digit(d)).count();
    let end = i + 2 + n;
    if n == 0 || b.get(end).is_some_and(|&c| is_ident(c) || c >= 0x80 || c == b'$') {
        return None;
    }
    Some(end)
}

/// The bytes of a hybrid literal's token text (`0x..` or `0b..`, as the
/// lexer makes them): hex digits two per byte and bits eight per byte, both
/// counted from the right, so an odd digit or a short group is a leading
/// byte (0x123 is 01 23, 0b101 is 05). None for any other number.
pub fn hybrid_bytes(n: &str) -> Option<Vec<u8>> {
    let (digits, bits) = if let Some(d) = n.strip_prefix("0x") {
        (d.as_bytes(), 4)
    } else if let Some(d) = n.strip_prefix("0b") {
        (d.as_bytes(), 1)
    } else {
        return None;
    };
    let per_byte = 8 / bits;
    let mut out = Vec::with_capacity(digits.len() / per_byte + 1);
    let lead = digits.len() % per_byte;
    let groups = std::iter::once(&digits[..lead]).filter(|g| !g.is_empty()).chain(digits[lead..].chunks(per_byte));
    for g in groups {
        out.push(g.iter().fold(0u8, |acc, &d| (acc << bits) | hex_val(d)));
    }
    Some(out)
}

/// The value of a hybrid literal in numeric context: its last eight bytes as
/// a big-endian unsigned integer (MySQL's rule; 0x4142434445464748494a + 0 is
/// 0x434445464748494a).
pub fn hybrid_u64(bytes: &[u8]) -> u64 {
    bytes.iter().rev().take(8).rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// True if string token `t` of `sql` is a binary string: `X'..'` or one with
/// the `_binary` introducer. (Non-UTF-8 literals reach the engine as `X'..'`,
/// `binary_text.rs`.)
pub fn is_binary_string(sql: &str, t: &Token) -> bool {
    if !matches!(t.tok, Tok::Str(_)) {
        return false;
    }
    let b = &sql.as_bytes()[t.start.min(sql.len())..];
    matches!(b, [b'x' | b'X', b'\'', ..]) || (b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"_binary"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn basics() {
        assert_eq!(
            toks("SELECT @@session.Autocommit, @x, 'a''b\\n', `c``d`, 1.5e3, ?"),
            vec![
                Tok::Word("SELECT".into()),
                Tok::SysVar(Some("session".into()), "autocommit".into()),
                Tok::Op(","),
                Tok::UserVar("x".into()),
                Tok::Op(","),
                Tok::Str(b"a'b\n".to_vec()),
                Tok::Op(","),
                Tok::Quoted("c`d".into()),
                Tok::Op(","),
                Tok::Number("1.5e3".into()),
                Tok::Op(","),
                Tok::Param,
            ]
        );
    }

    #[test]
    fn dollar_names() {
        // MariaDB takes `$` anywhere in an unquoted name, first too.
        assert_eq!(toks("$b, a$1, c$"), vec![Tok::Word("$b".into()), Tok::Op(","), Tok::Word("a$1".into()), Tok::Op(","), Tok::Word("c$".into())]);
    }

    #[test]
    fn comments_and_executable_comments() {
        assert_eq!(toks("/* x */ SELECT 1 -- y\n# z"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into())]);
        assert_eq!(toks("/*!40101 SET NAMES utf8 */"), vec![Tok::Word("SET".into()), Tok::Word("NAMES".into()), Tok::Word("utf8".into())]);
        assert_eq!(toks("SELECT 1-1"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into()), Tok::Op("-"), Tok::Number("1".into())]);
        // `--` is a comment only before a blank or control character (MySQL).
        assert_eq!(toks("SELECT 1--1"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into()), Tok::Op("-"), Tok::Op("-"), Tok::Number("1".into())]);
        assert_eq!(toks("SELECT 1--\x01 2"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into())]);
        assert_eq!(toks("SELECT 1--"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into())]);
        // `*/` closes an executable comment; anywhere else it is `*` `/`.
        assert_eq!(toks("SELECT 1 /*!+ 1 */"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into()), Tok::Op("+"), Tok::Number("1".into())]);
        assert_eq!(toks("SELECT 1 */"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into()), Tok::Op("*"), Tok::Op("/")]);
        assert_eq!(toks("SELECT /*!1 */ */"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into()), Tok::Op("*"), Tok::Op("/")]);
    }

    #[test]
    fn unterminated_is_error() {
        assert!(tokenize("SELECT 'abc").is_err());
        assert!(tokenize("SELECT `abc").is_err());
        assert!(tokenize("SELECT /* abc").is_err());
    }

    #[test]
    fn split_and_count() {
        assert_eq!(split_statements("SELECT 1; SELECT ';'; "), vec!["SELECT 1", "SELECT ';'"]);
        assert_eq!(count_params("SELECT ?, '?', `?` FROM t WHERE a=?").unwrap(), 2);
        assert_eq!(count_markers("SELECT ?, '?', `?` FROM t WHERE a=?").unwrap(), 2);
        assert_eq!(count_markers("SELECT ? FROM t WHERE a=?;").unwrap(), 2);
        assert_eq!(count_markers("SELECT ?FROM t1").unwrap_err().at, 7);
        assert_eq!(count_markers("select ??").unwrap_err().at, 8);
        assert_eq!(count_markers("update t1 set a=a+?WHERE 1").unwrap_err().at, 18);
        assert_eq!(first_marker("SELECT '?', `?` /* ? */"), None);
        assert_eq!(first_marker("SELECT 1, ?"), Some(10));
    }

    #[test]
    fn no_backslash_escapes() {
        let strs = |sql: &str| -> Vec<Vec<u8>> { tokenize(sql).unwrap().into_iter().filter_map(|t| if let Tok::Str(s) = t.tok { Some(s) } else { None }).collect() };
        let sql = r"SELECT 'a\nb', 'c\', 'd'''";
        {
            let _nbe = lexing_mode(true);
            assert!(!backslash_escapes());
            assert_eq!(strs(sql), [br"a\nb".to_vec(), br"c\".to_vec(), b"d'".to_vec()]);
            assert_eq!(strs(r#"SELECT "x\", _utf8mb4'y\'"#), [br"x\".to_vec(), br"y\".to_vec()]);
            // The string ends at the second quote: what follows is SQL.
            assert_eq!(next_statement(r"SELECT 'a\'; DROP TABLE t; -- '"), Some((r"SELECT 'a\'", r" DROP TABLE t; -- '")));
        }
        assert!(backslash_escapes());
        assert_eq!(strs(r"SELECT 'a\nb', 'c\'', 'd'''"), [b"a\nb".to_vec(), b"c'".to_vec(), b"d'".to_vec()]);
        assert_eq!(next_statement(r"SELECT 'a\'; DROP TABLE t; -- '"), Some((r"SELECT 'a\'; DROP TABLE t; -- '", "")));
    }

    #[test]
    fn statements_one_at_a_time() {
        assert_eq!(next_statement("SELECT 1; SELECT ';' ;; "), Some(("SELECT 1", " SELECT ';' ;; ")));
        assert_eq!(next_statement(" SELECT ';' ;; "), Some(("SELECT ';'", "; ")));
        assert_eq!(next_statement("; "), None);
        assert_eq!(next_statement(" ;; -- done"), Some(("-- done", "")));
        assert_eq!(next_statement("SELECT 'x"), Some(("SELECT 'x", "")));
    }

    #[test]
    fn hex_string_literals() {
        let toks = tokenize("SELECT X'41ff', x'' , X'4'").unwrap_err();
        assert_eq!(toks.at, 22);
        let toks = tokenize("SELECT X'41ff', x''").unwrap();
        assert!(matches!(&toks[1].tok, Tok::Str(b) if b == &vec![0x41, 0xff]));
        assert!(matches!(&toks[3].tok, Tok::Str(b) if b.is_empty()));
        let toks = tokenize("SELECT _binary X'43', _utf8mb4 'x'").unwrap();
        assert_eq!(toks.len(), 4);
        assert!(matches!(&toks[1].tok, Tok::Str(b) if b == b"C"));
        // An introducer makes a 0x/0b literal a string; without one it stays a number.
        let toks = tokenize("SELECT _utf8 0x41, _latin2 0b01000010, 0x43").unwrap();
        assert!(matches!(&toks[1].tok, Tok::Str(b) if b == b"A"));
        assert!(matches!(&toks[3].tok, Tok::Str(b) if b == b"B"));
        assert!(matches!(&toks[5].tok, Tok::Number(n) if n.as_str() == "0x43"));
        assert_eq!(toks[1].start, 7);
    }

    #[test]
    fn versioned_comments() {
        assert_eq!(toks("/*!40101 SET x */"), vec![Tok::Word("SET".into()), Tok::Word("x".into())]);
        assert_eq!(toks("/*!80036 SET x */"), vec![Tok::Word("SET".into()), Tok::Word("x".into())]);
        assert_eq!(toks("/*!80100 SET x */ SELECT"), vec![Tok::Word("SELECT".into())]);
        assert_eq!(toks("/*M!999999\\- enable the sandbox mode */ SELECT 1"), vec![Tok::Word("SELECT".into()), Tok::Number("1".into())]);
        assert_eq!(toks("/*M!100616 SET @OLD_NOTE_VERBOSITY=@@NOTE_VERBOSITY */"), vec![]);
    }

    #[test]
    fn hybrid_literals() {
        let sql = "SELECT 0x41, 0b101, b'1', B'', 0x, 0X41, 0x41g, 0b12, 0x0123456789abcdefAB";
        let t = toks(sql);
        let nums: Vec<&str> = t.iter().filter_map(|t| if let Tok::Number(n) = t { Some(n.as_str()) } else { None }).collect();
        assert_eq!(nums, ["0x41", "0b101", "0b1", "0b", "0x0123456789abcdefAB"]);
        let words: Vec<&str> = t.iter().filter_map(|t| if let Tok::Word(w) = t { Some(w.as_str()) } else { None }).collect();
        assert_eq!(words, ["SELECT", "0x", "0X41", "0x41g", "0b12"]);
        assert!(tokenize("SELECT b'102'").is_err());
        assert_eq!(hybrid_bytes("0x41").unwrap(), b"A");
        assert_eq!(hybrid_bytes("0x123").unwrap(), [1, 0x23]);
        assert_eq!(hybrid_bytes("0b101").unwrap(), [5]);
        assert_eq!(hybrid_bytes("0b000000001").unwrap(), [0, 1]);
        assert_eq!(hybrid_bytes("0b1111111111").unwrap(), [3, 0xff]);
        assert_eq!(hybrid_bytes("0b").unwrap(), b"");
        assert!(hybrid_bytes("65").is_none());
        assert_eq!(hybrid_u64(b"A"), 65);
        assert_eq!(hybrid_u64(b"ABCDEFGHIJ"), 0x434445464748494a);
        assert_eq!(hybrid_u64(&[0xff; 8]), u64::MAX);
    }

    #[test]
    fn binary_strings() {
        let sql = "SELECT X'41', 'a', _binary'b', _binary 'c', _utf8mb4'd', x''";
        let t = tokenize(sql).unwrap();
        let kinds: Vec<bool> = t.iter().filter(|t| matches!(t.tok, Tok::Str(_))).map(|t| is_binary_string(sql, t)).collect();
        assert_eq!(kinds, [true, false, true, true, false, true]);
    }
}
