//! SELECT as a whole statement: `TABLE t`, the count query of
//! SQL_CALC_FOUND_ROWS, and the outermost select list.
//!
//! The token translation (translator.rs) does not know where the outermost
//! query's clauses are; what needs the statement's shape is here. The select
//! list is read from the MySQL text (not the translation) because result
//! metadata names columns as the client wrote them.

use super::translator::Translator;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{Tok, Token};

impl Translator<'_> {
    /// Translate a SELECT (or `TABLE t`, its short form). Returns the query
    /// counting its rows without the LIMIT when it asks SQL_CALC_FOUND_ROWS.
    pub(super) fn select(&mut self) -> Result<Option<String>, SqlError> {
        let toks = self.toks;
        let mut count_sql = None;
        if toks.first().is_some_and(|t| t.is_kw("TABLE")) {
            // TABLE t  →  SELECT * FROM t
            self.out.push_str("SELECT * FROM ");
            self.emit(1, toks.len())?;
        } else {
            self.emit(0, toks.len())?;
            if toks.iter().take(8).any(|t| t.is_kw("SQL_CALC_FOUND_ROWS")) {
                count_sql = Some(match top_level_limit(toks).map(|l| self.out_at[l]).filter(|at| *at != usize::MAX) {
                    Some(at) => format!("SELECT COUNT(*) FROM ({})", &self.out[..at]),
                    None => format!("SELECT COUNT(*) FROM ({})", self.out),
                });
            }
        }
        Ok(count_sql)
    }
}

/// The LIMIT clause of the outermost query, if any.
fn top_level_limit(toks: &[Token]) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("LIMIT") {
            found = Some(i);
        }
    }
    found
}

/// Top-level select items of the outermost SELECT: Some(text) when unaliased.
pub(super) fn select_items(sql: &str, toks: &[Token]) -> Vec<(String, bool)> {
    // After a WITH list, its main query's.
    let mut i = match after_with(toks) {
        Some(at) => at,
        None => return Vec::new(),
    };
    while i < toks.len() && (toks[i].is_op("(") || !toks[i].is_kw("SELECT")) {
        if toks[i].is_kw("WITH") {
            return Vec::new();
        }
        i += 1;
    }
    if i >= toks.len() {
        return Vec::new();
    }
    i += 1;
    while i < toks.len() && super::column_names::MODIFIERS.iter().any(|k| toks[i].is_kw(k)) {
        i += 1;
    }
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = i;
    let mut j = i;
    while j < toks.len() {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if depth == 0 && (t.is_op(",") || ["FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTO", "FOR", "LOCK", "WINDOW"].iter().any(|k| t.is_kw(k))) {
            if add_select_item(sql, toks, start, j, &mut items) {
                return Vec::new();
            }
            if !t.is_op(",") {
                return items;
            }
            start = j + 1;
        }
        j += 1;
    }
    if add_select_item(sql, toks, start, j, &mut items) {
        return Vec::new();
    }
    items
}

/// Where the query after a leading `WITH [RECURSIVE] name [(cols)] AS
/// (...), ...` starts (0 without one; None when the list is not read).
fn after_with(toks: &[Token]) -> Option<usize> {
    use turnstile_sqltext::parens::closing;
    if !toks.first().is_some_and(|t| t.is_kw("WITH")) {
        return Some(0);
    }
    let mut i = 1 + usize::from(toks.get(1)?.is_kw("RECURSIVE"));
    loop {
        toks.get(i)?.ident()?;
        i += 1;
        if toks.get(i)?.is_op("(") {
            i = closing(toks, i)? + 1;
        }
        if !toks.get(i)?.is_kw("AS") || !toks.get(i + 1)?.is_op("(") {
            return None;
        }
        i = closing(toks, i + 1)? + 1;
        if !toks.get(i)?.is_op(",") {
            return Some(i);
        }
        i += 1;
    }
}

/// Add the select item of tokens [s, e) to `items`: its expression's text
/// and whether it has an alias. True when the item is a `*` (or `t.*`): the
/// caller then has no list to report.
fn add_select_item(sql: &str, toks: &[Token], s: usize, e: usize, items: &mut Vec<(String, bool)>) -> bool {
    if s >= e {
        return false;
    }
    let part = &toks[s..e];
    if part.iter().any(|t| t.is_op("*")) && (part.len() == 1 || (part.len() == 3 && part[1].is_op("."))) {
        return true;
    }
    let (expr_end, alias) = split_alias(part);
    if expr_end == 0 {
        return false;
    }
    items.push((sql[part[0].start..part[expr_end - 1].end].to_string(), alias.is_some()));
    false
}

/// A select item's tokens: how many of them are its expression, and the
/// index of its alias (`x AS a`, `x a`) if it has one.
pub(crate) fn split_alias(part: &[Token]) -> (usize, Option<usize>) {
    let n = part.len();
    let with_as = n >= 2 && part[n - 2].is_kw("AS");
    // `CASE ... END`: END is no alias.
    // `d + INTERVAL 1 DAY`: DAY is the interval's unit, no alias.
    let unit = part.iter().any(|t| t.is_kw("INTERVAL")) && super::interval::INTERVAL_UNITS.iter().any(|u| part[n - 1].is_kw(u));
    // `'a' 'b'` is one string, not a value and its alias.
    let strings = n >= 2 && matches!(part[n - 1].tok, Tok::Str(_)) && matches!(part[n - 2].tok, Tok::Str(_));
    let bare = n >= 2
        && !unit
        && !strings
        && matches!(part[n - 1].tok, Tok::Word(_) | Tok::Quoted(_) | Tok::Str(_))
        && !part[n - 1].is_kw("END")
        && !part[n - 2].is_op(".")
        && is_value_end(&part[n - 2])
        && !super::typed_literals::is_typed_literal(&part[n - 2], &part[n - 1]);
    if with_as {
        (n - 2, Some(n - 1))
    } else if bare {
        (n - 1, Some(n - 1))
    } else {
        (n, None)
    }
}

/// Can this token end a value (so a following word is an alias)?
pub(super) fn is_value_end(t: &Token) -> bool {
    match &t.tok {
        Tok::Op(o) => *o == ")",
        Tok::Word(w) => {
            // Operators spelled as words take an operand: `x DIV i` has no alias.
            ![
                "SELECT", "DISTINCT", "AND", "OR", "NOT", "IS", "NULL", "CASE", "WHEN", "THEN", "ELSE", "BY", "ON", "AS", "DIV", "MOD", "XOR", "LIKE", "RLIKE", "REGEXP", "BETWEEN", "INTERVAL",
                "COLLATE", "BINARY", "ESCAPE",
            ]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
                || w.eq_ignore_ascii_case("END")
                || w.eq_ignore_ascii_case("NULL")
        }
        _ => true,
    }
}
