//! The expressions a table definition keeps (CHECK constraints, expression
//! defaults, generated columns): what MariaDB refuses in each clause
//! (subqueries, stored functions, non-deterministic functions, user
//! variables: 1901, 1970) and the text it shows them in (SHOW CREATE TABLE,
//! information_schema.CHECK_CONSTRAINTS): identifiers in backticks, keywords
//! and function names in lower case, binary operators spaced.
//!
//! The text kept is translated to SQLite by `rewrite::expression` when the
//! table's SQLite definition is generated (generate.rs); it is translated
//! once here as well, so a form the translator refuses is refused by
//! CREATE TABLE and not by a later rebuild.

use crate::schema::{quote_ident, quote_str};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{self, Tok, Token};

/// The clause an expression is kept for, as MariaDB's messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clause {
    Check,
    Default,
    Generated,
}

impl Clause {
    fn name(self) -> &'static str {
        match self {
            Clause::Check => "CHECK",
            Clause::Default => "DEFAULT",
            Clause::Generated => "GENERATED ALWAYS AS",
        }
    }
}

/// Aggregate and window functions, refused in a DEFAULT, CHECK or
/// generated column (1901).
const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bit_and",
    "bit_or",
    "bit_xor",
    "json_arrayagg",
    "json_objectagg",
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// Functions whose value is not fixed by their arguments: refused in CHECK
/// (MariaDB's VCOL_NON_DETERMINISTIC / VCOL_TIME_FUNC).
const NON_DETERMINISTIC: &[&str] = &[
    "rand",
    "now",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "sysdate",
    "curdate",
    "current_date",
    "curtime",
    "current_time",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "unix_timestamp",
    "uuid",
    "uuid_short",
    "sys_guid",
    "connection_id",
    "user",
    "current_user",
    "session_user",
    "system_user",
    "current_role",
    "database",
    "schema",
    "last_insert_id",
    "found_rows",
    "row_count",
    "sleep",
    "benchmark",
    "get_lock",
    "release_lock",
    "is_free_lock",
    "is_used_lock",
    "master_pos_wait",
    "master_gtid_wait",
    "load_file",
    "nextval",
    "lastval",
    "setval",
    "version",
];

/// Words printed in lower case and never taken for a column.
const KEYWORDS: &[&str] = &[
    "and",
    "or",
    "not",
    "xor",
    "is",
    "null",
    "true",
    "false",
    "unknown",
    "in",
    "between",
    "like",
    "escape",
    "regexp",
    "rlike",
    "div",
    "mod",
    "case",
    "when",
    "then",
    "else",
    "end",
    "interval",
    "as",
    "binary",
    "collate",
    "sounds",
    "distinct",
    "exists",
    "using",
    "from",
    "for",
    "both",
    "leading",
    "trailing",
    "day",
    "hour",
    "minute",
    "second",
    "microsecond",
    "week",
    "month",
    "quarter",
    "year",
    "day_hour",
    "day_minute",
    "day_second",
    "hour_minute",
    "hour_second",
    "minute_second",
    "year_month",
    "signed",
    "unsigned",
    "integer",
    "char",
    "date",
    "datetime",
    "time",
    "decimal",
    "double",
    "float",
    "json",
    "current_timestamp",
    "current_date",
    "current_time",
    "localtime",
    "localtimestamp",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "current_user",
];

fn is_keyword(w: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) || w.starts_with('_')
}

/// Check `text` (the inside of the clause's parentheses) for what MariaDB
/// refuses in `clause` of column or constraint `owner`, translate it once
/// (its own errors: 1064, 1436 for a nesting too deep) and return it as
/// MariaDB shows it.
pub fn accept(text: &str, clause: Clause, owner: &str) -> Result<String, SqlError> {
    let toks = lex::tokenize(text).map_err(|e| SqlError::syntax(&text[e.at..]))?;
    if toks.is_empty() {
        return Err(SqlError::syntax(text));
    }
    let closes = closing_parens(&toks);
    let refused = |what: &str| SqlError::new(1901, "HY000", format!("Function or expression '{}' cannot be used in the {} clause of {}", what, clause.name(), quote_ident(owner)));
    for (k, t) in toks.iter().enumerate() {
        match &t.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case("SELECT") => {
                return Err(if clause == Clause::Check { SqlError::new(1970, "42000", "CHECK does not support subqueries or stored functions") } else { refused("select ...") });
            }
            // An aggregate or window function: no row set to run over (MariaDB's 1901 in every clause).
            Tok::Word(w) if toks.get(k + 1).is_some_and(|n| n.is_op("(")) && AGGREGATES.iter().any(|f| f.eq_ignore_ascii_case(w)) && !last_value_call(&toks, &closes, k) => {
                return Err(refused(&format!("{}()", w.to_ascii_lowercase())));
            }
            Tok::Word(w) if clause != Clause::Default && NON_DETERMINISTIC.iter().any(|f| f.eq_ignore_ascii_case(w)) && (toks.get(k + 1).is_some_and(|n| n.is_op("(")) || is_keyword(w)) => {
                let name = match w.to_ascii_lowercase().as_str() {
                    "now" | "localtime" | "localtimestamp" => "current_timestamp".to_string(),
                    other => other.to_string(),
                };
                return Err(refused(&format!("{}()", name)));
            }
            Tok::UserVar(v) if clause != Clause::Default => return Err(refused(&format!("@{}", v))),
            Tok::SysVar(_, v) if clause != Clause::Default => return Err(refused(&format!("@@{}", v))),
            // `db.t.c` / `t.c`: another table's column (MariaDB's 1901, naming it).
            Tok::Op(".") if k > 0 && toks[k - 1].ident().is_some() => {
                let mut end = k + 1;
                while toks.get(end + 1).is_some_and(|n| n.is_op(".")) {
                    end += 2;
                }
                let from = if k >= 3 && toks[k - 2].is_op(".") { k - 3 } else { k - 1 };
                let last = toks.get(end).map_or(text.len(), |x| x.end);
                return Err(refused(&text[toks[from].start..last]));
            }
            Tok::Param => return Err(SqlError::syntax(&text[t.start..])),
            Tok::Op(";") => return Err(SqlError::syntax(&text[t.start..])),
            _ => {}
        }
    }
    if is_row(&toks) {
        return Err(SqlError::new(1241, "21000", "Operand should contain 1 column(s)"));
    }
    // DEFAULT(col) in a default is checked against the other columns when
    // the definition is finished (definition.rs), not translated here.
    let default_call = clause == Clause::Default && toks.windows(2).any(|w| w[0].is_kw("DEFAULT") && w[1].is_op("("));
    if !default_call {
        crate::rewrite::expression(text)?;
    }
    // MariaDB's own forms (`DIV`, `curdate()`, `round(a,0)`), kept only
    // when the translator takes them as it took the text written.
    let shown = normalize(&toks, true);
    if default_call || crate::rewrite::expression(&shown).is_ok() {
        return Ok(shown);
    }
    Ok(normalize(&toks, false))
}

/// Is the call at `k` MariaDB's LAST_VALUE(expr, ...) function (no OVER
/// after it), which returns its last argument, rather than the window one?
/// `closes`: each `(`'s matching `)` (`closing_parens`).
fn last_value_call(toks: &[Token], closes: &[usize], k: usize) -> bool {
    toks[k].is_kw("last_value") && closes.get(k + 1).is_some_and(|&j| j != usize::MAX && !toks.get(j + 1).is_some_and(|n| n.is_kw("OVER")))
}

/// For each token, the index of the `)` closing it if it is a `(` (else
/// `usize::MAX`): one pass with a stack.
fn closing_parens(toks: &[Token]) -> Vec<usize> {
    let mut closes = vec![usize::MAX; toks.len()];
    let mut open = Vec::new();
    for (j, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(j);
        } else if t.is_op(")") {
            if let Some(o) = open.pop() {
                closes[o] = j;
            }
        }
    }
    closes
}

/// Is the expression a row (`1, 2`, `(1, 2)`, `ROW(1, 2)`): a comma at its
/// top level or directly inside parentheses that are not a call's.
fn is_row(toks: &[Token]) -> bool {
    // For each open parenthesis: is it a call's (a word before it)?
    let mut calls: Vec<bool> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            let call = k > 0 && matches!(toks[k - 1].tok, Tok::Word(ref w) if !w.eq_ignore_ascii_case("ROW"));
            calls.push(call);
        } else if t.is_op(")") {
            calls.pop();
        } else if t.is_op(",") && !calls.last().copied().unwrap_or(false) {
            return true;
        }
    }
    false
}

/// The columns a kept clause names (its quoted identifiers: `accept`
/// quotes every one), for the definition's check that each exists.
pub fn named_columns(shown: &str) -> Vec<String> {
    lex::tokenize(shown).map(|toks| toks.into_iter().filter_map(|t| if let Tok::Quoted(q) = t.tok { Some(q.to_string()) } else { None }).collect()).unwrap_or_default()
}

/// Words that are operators: a `(` after one is an operand, spaced.
const OPERATOR_WORDS: &[&str] = &["and", "or", "not", "xor", "in", "is", "exists", "between", "like", "regexp", "rlike", "div", "mod", "when", "then", "else", "case", "interval", "as"];

/// Calls MariaDB prints under another name (its Item's func_name()).
const RENAMED_CALLS: &[(&str, &str)] = &[
    ("upper", "ucase"),
    ("lower", "lcase"),
    ("ceil", "ceiling"),
    ("day", "dayofmonth"),
    ("now", "current_timestamp"),
    ("localtime", "current_timestamp"),
    ("localtimestamp", "current_timestamp"),
    ("current_date", "curdate"),
    ("current_time", "curtime"),
];

/// Niladic functions written without parentheses, which MariaDB prints
/// as calls (`current_date` is `curdate()`).
const BARE_CALLS: &[(&str, &str)] = &[
    ("current_date", "curdate()"),
    ("current_time", "curtime()"),
    ("current_timestamp", "current_timestamp()"),
    ("localtime", "current_timestamp()"),
    ("localtimestamp", "current_timestamp()"),
    ("utc_date", "utc_date()"),
    ("utc_time", "utc_time()"),
    ("utc_timestamp", "utc_timestamp()"),
    ("current_user", "current_user()"),
];

/// Calls whose optional second argument MariaDB prints (`round(a)` is
/// `round(a,0)`).
const SECOND_ARG_ZERO: &[&str] = &["round", "yearweek"];

/// What a pass over the tokens learns for `normalize`, each in one
/// linear pass: for each `(`, whether a comma is directly inside it and
/// which `(` a `)` closes; for each unary sign, whether only signs lie
/// between it and a number, and whether the signs from it on negate.
struct Shape {
    comma_inside: Vec<bool>,
    /// For a `)` the `(` it closes, for a `,` the `(` it is directly in.
    opened_by: Vec<usize>,
    signs_to_number: Vec<bool>,
    negates: Vec<bool>,
}

fn shape(toks: &[Token]) -> Shape {
    let n = toks.len();
    let mut comma_inside = vec![false; n];
    let mut opened_by = vec![usize::MAX; n];
    let mut open = Vec::new();
    for (j, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(j);
        } else if t.is_op(")") {
            if let Some(o) = open.pop() {
                opened_by[j] = o;
            }
        } else if t.is_op(",") {
            if let Some(&o) = open.last() {
                comma_inside[o] = true;
                opened_by[j] = o;
            }
        }
    }
    let mut signs_to_number = vec![false; n];
    let mut negates = vec![false; n];
    for k in (0..n).rev() {
        if !(toks[k].is_op("-") || toks[k].is_op("+")) || !unary_at(toks, k) {
            continue;
        }
        let next_number = matches!(toks.get(k + 1).map(|t| &t.tok), Some(Tok::Number(d)) if d.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
        if next_number || signs_to_number.get(k + 1).copied().unwrap_or(false) {
            signs_to_number[k] = true;
            negates[k] = toks[k].is_op("-") ^ negates.get(k + 1).copied().unwrap_or(false);
        }
    }
    Shape { comma_inside, opened_by, signs_to_number, negates }
}

/// The expression as MariaDB prints it; `mariadb_forms` adds the forms
/// MariaDB's printer gives constructs (`a DIV b`, `a MOD b` for `a % b`,
/// `regexp` for `rlike`, `is null` for `is unknown`, `<>` for `!=`, 1 and
/// 0 for TRUE and FALSE, `curdate()` for `current_date`, `-1` for
/// `- - -1`, `round(a,0)` for `round(a)`, no unary plus).
fn normalize(toks: &[Token], mariadb_forms: bool) -> String {
    let shape = if mariadb_forms { Some(shape(toks)) } else { None };
    let mut out = String::new();
    let mut dropped_space: Option<bool> = None;
    for k in 0..toks.len() {
        let call = toks.get(k + 1).is_some_and(|n| n.is_op("("));
        let piece = match shape.as_ref().and_then(|s| mariadb_form(toks, s, k, call)) {
            Some(p) => p,
            None => plain_piece(toks, k, call),
        };
        // INTERVAL(N, N1, ...) is a call: its parenthesis is not spaced.
        let interval_call = k > 0 && toks[k - 1].is_kw("interval") && shape.as_ref().is_some_and(|s| s.comma_inside[k]);
        let space = k > 0 && spaced(toks, k) && !typed_literal(toks, k - 1) && !interval_call;
        if piece.is_empty() {
            // A dropped token: the next one is spaced as it was.
            dropped_space.get_or_insert(space);
            continue;
        }
        let closing = matches!(toks[k].tok, Tok::Op(")") | Tok::Op(",") | Tok::Op("."));
        if dropped_space.take().filter(|_| !closing).unwrap_or(space) {
            out.push(' ');
        }
        out.push_str(&piece);
    }
    out
}

/// Token `k` as written, with identifiers quoted and keywords in lower case.
fn plain_piece(toks: &[Token], k: usize, call: bool) -> String {
    match &toks[k].tok {
        // MariaDB prints LENGTH() as the byte count it is.
        Tok::Word(w) if call && w.eq_ignore_ascii_case("length") => "octet_length".to_string(),
        // `DATE'2001-01-01'`: MariaDB prints a typed literal's type in capitals, against its string.
        Tok::Word(w) if typed_literal(toks, k) => w.to_ascii_uppercase().to_string(),
        // `CONVERT(a USING utf8)`: a character set, not a column.
        Tok::Word(w) if w.eq_ignore_ascii_case("charset") || (w.eq_ignore_ascii_case("character") && toks.get(k + 1).is_some_and(|n| n.is_kw("set"))) => w.to_ascii_lowercase().to_string(),
        Tok::Word(w) if w.eq_ignore_ascii_case("set") && k > 0 && toks[k - 1].is_kw("character") => "set".to_string(),
        Tok::Word(w) if k > 0 && (toks[k - 1].is_kw("USING") || toks[k - 1].is_kw("charset") || (toks[k - 1].is_kw("set") && k > 1 && toks[k - 2].is_kw("character"))) => {
            match w.to_ascii_lowercase().as_str() {
                "utf8" => "utf8mb3".to_string(),
                other => other.to_string(),
            }
        }
        Tok::Word(w) if call || is_keyword(w) => w.to_ascii_lowercase().to_string(),
        Tok::Word(w) | Tok::Quoted(w) => quote_ident(w),
        Tok::Number(n) => n.to_string(),
        Tok::Str(s) => quote_str(&String::from_utf8_lossy(s)),
        Tok::UserVar(v) => format!("@{}", quote_ident(v)),
        Tok::SysVar(Some(scope), v) => format!("@@{}.{}", scope, v),
        Tok::SysVar(None, v) => format!("@@{}", v),
        Tok::Param => "?".into(),
        Tok::Op(o) => o.to_string(),
    }
}

/// MariaDB's printed form of token `k`, where it differs from the
/// written one (`normalize`); an empty piece drops the token.
fn mariadb_form(toks: &[Token], s: &Shape, k: usize, call: bool) -> Option<String> {
    let t = &toks[k];
    let after_dot = k > 0 && toks[k - 1].is_op(".");
    match &t.tok {
        Tok::Op("-") | Tok::Op("+") if s.signs_to_number[k] => {
            // The first sign of a run carries the run's sign; the rest vanish.
            let first = !(k > 0 && s.signs_to_number[k - 1]);
            Some(if first && s.negates[k] { "-".into() } else { String::new() })
        }
        Tok::Op("+") if unary_at(toks, k) => Some(String::new()),
        // CAST(a AS SIGNED INTEGER): MariaDB prints `signed`.
        Tok::Word(w) if w.eq_ignore_ascii_case("integer") && k > 0 && (toks[k - 1].is_kw("signed") || toks[k - 1].is_kw("unsigned")) => Some(String::new()),
        Tok::Op("%") => Some("MOD".into()),
        // CHARACTER SET is printed CHARSET.
        Tok::Word(w) if w.eq_ignore_ascii_case("character") && toks.get(k + 1).is_some_and(|n| n.is_kw("set")) => Some("charset".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("set") && k > 0 && toks[k - 1].is_kw("character") => Some(String::new()),
        Tok::Op("!=") => Some("<>".into()),
        // CONVERT(a, type) is CAST(a AS type).
        Tok::Op(",") if convert_comma(toks, s, k) => Some(" as ".into()),
        Tok::Op(")") if s.opened_by[k] != usize::MAX && char_type_at(toks, s, s.opened_by[k].wrapping_sub(1)) && !charset_follows(toks, k) => Some(format!(") charset {}", CONNECTION_CHARSET)),
        Tok::Word(w) if w.eq_ignore_ascii_case("char") && char_type_at(toks, s, k) && !call && !charset_follows(toks, k) => Some(format!("char charset {}", CONNECTION_CHARSET)),
        Tok::Word(w) if call && w.eq_ignore_ascii_case("convert") && s.comma_inside[k + 1] => Some("cast".into()),
        Tok::Op(")") => {
            let o = s.opened_by[k];
            let named = o != usize::MAX && o > 0 && !s.comma_inside[o] && o + 1 < k;
            let f = if named { toks[o - 1].ident().filter(|_| matches!(toks[o - 1].tok, Tok::Word(_))) } else { None };
            f.filter(|f| SECOND_ARG_ZERO.iter().any(|z| z.eq_ignore_ascii_case(f))).map(|_| ",0)".to_string())
        }
        Tok::Word(_) if after_dot => None,
        Tok::Word(w) if call => {
            if w.eq_ignore_ascii_case("interval") && s.comma_inside[k + 1] {
                // INTERVAL(N, N1, ...): the function, against its parenthesis.
                return Some("interval".into());
            }
            RENAMED_CALLS.iter().find(|(from, _)| from.eq_ignore_ascii_case(w)).map(|(_, to)| to.to_string())
        }
        Tok::Word(w) if w.eq_ignore_ascii_case("div") => Some("DIV".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("mod") => Some("MOD".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("rlike") => Some("regexp".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("unknown") && after_is(toks, k) => Some("null".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("true") && !after_is(toks, k) => Some("1".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("false") && !after_is(toks, k) => Some("0".into()),
        // TIMESTAMPDIFF(MONTH, ...): the unit in capitals.
        Tok::Word(w) if k >= 2 && toks[k - 1].is_op("(") && (toks[k - 2].is_kw("timestampdiff") || toks[k - 2].is_kw("timestampadd")) => Some(w.to_ascii_uppercase().to_string()),
        Tok::Word(w) => BARE_CALLS.iter().find(|(from, _)| from.eq_ignore_ascii_case(w)).map(|(_, to)| to.to_string()),
        _ => None,
    }
}

/// The character set a CAST to CHAR without one converts to: the
/// connection's, utf8mb4 for Turnstile's clients.
const CONNECTION_CHARSET: &str = "utf8mb4";

/// Is the `,` at `k` the one of CONVERT(expr, type)?
fn convert_comma(toks: &[Token], s: &Shape, k: usize) -> bool {
    let o = s.opened_by[k];
    o != usize::MAX && o > 0 && toks[o - 1].is_kw("convert") && !matches!(toks[o - 1].tok, Tok::Quoted(_))
}

/// Is token `k` the CHAR type of a CAST or CONVERT (after `AS`, or after
/// CONVERT's comma)?
fn char_type_at(toks: &[Token], s: &Shape, k: usize) -> bool {
    k > 0 && k < toks.len() && toks[k].is_kw("char") && (toks[k - 1].is_kw("as") || (toks[k - 1].is_op(",") && convert_comma(toks, s, k - 1)))
}

/// Does a character set (or BINARY, ASCII, UNICODE) follow token `k`?
fn charset_follows(toks: &[Token], k: usize) -> bool {
    toks.get(k + 1).is_some_and(|t| ["charset", "character", "binary", "ascii", "unicode", "byte", "("].iter().any(|w| t.is_kw(w) || t.is_op(w)))
}

/// Does token `k` follow `IS` or `IS NOT`?
fn after_is(toks: &[Token], k: usize) -> bool {
    (k >= 1 && toks[k - 1].is_kw("is")) || (k >= 2 && toks[k - 1].is_kw("not") && toks[k - 2].is_kw("is"))
}

/// Is token `k` the type of a typed literal (`DATE'..'`, `TIME'..'`, `TIMESTAMP'..'`)?
fn typed_literal(toks: &[Token], k: usize) -> bool {
    matches!(&toks[k].tok, Tok::Word(w) if ["date", "time", "timestamp"].iter().any(|t| t.eq_ignore_ascii_case(w))) && matches!(toks.get(k + 1).map(|t| &t.tok), Some(Tok::Str(_)))
}

/// Is there a space between token `k - 1` and token `k`?
pub fn spaced(toks: &[Token], k: usize) -> bool {
    let (prev, t) = (&toks[k - 1], &toks[k]);
    if matches!(&t.tok, Tok::Op(")") | Tok::Op(",") | Tok::Op(".")) || matches!(&prev.tok, Tok::Op("(") | Tok::Op(",") | Tok::Op(".")) {
        return false;
    }
    if matches!(&prev.tok, Tok::Op("-") | Tok::Op("+") | Tok::Op("!") | Tok::Op("~")) && unary_at(toks, k - 1) {
        return false;
    }
    if t.is_op("(") {
        // A call's parenthesis follows its name.
        return !matches!(&prev.tok, Tok::Word(w) if !OPERATOR_WORDS.iter().any(|o| o.eq_ignore_ascii_case(w)));
    }
    true
}

/// Is the `-`/`+`/`!` at `k` a unary operator (nothing, an operator, `(`
/// or an operator word before it)?
fn unary_at(toks: &[Token], k: usize) -> bool {
    k == 0 || matches!(&toks[k - 1].tok, Tok::Op(o) if *o != ")") || matches!(&toks[k - 1].tok, Tok::Word(w) if OPERATOR_WORDS.iter().any(|o| o.eq_ignore_ascii_case(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_as_mariadb_shows_it() {
        assert_eq!(accept("a>0", Clause::Check, "a").unwrap(), "`a` > 0");
        assert_eq!(accept("b < a+10", Clause::Check, "c1").unwrap(), "`b` < `a` + 10");
        assert_eq!(accept("json_valid(`c`)", Clause::Check, "c").unwrap(), "json_valid(`c`)");
        assert_eq!(accept("a IS NOT NULL AND b IN (1,2)", Clause::Check, "c").unwrap(), "`a` is not null and `b` in (1,2)");
        assert_eq!(accept("-a > (b - 1)", Clause::Check, "c").unwrap(), "-`a` > (`b` - 1)");
    }

    #[test]
    fn refused_forms() {
        assert_eq!(accept("a > (SELECT 1)", Clause::Check, "a").unwrap_err().code, 1970);
        assert_eq!(accept("a > rand()", Clause::Check, "a").unwrap_err().message, "Function or expression 'rand()' cannot be used in the CHECK clause of `a`");
        assert_eq!(accept("a > @v", Clause::Check, "a").unwrap_err().code, 1901);
        assert_eq!(accept("a > db.t2.a", Clause::Check, "a").unwrap_err().message, "Function or expression 'db.t2.a' cannot be used in the CHECK clause of `a`");
        assert_eq!(named_columns("`a` > `b` + 'c'"), vec!["a", "b"]);
        assert!(accept("now()", Clause::Default, "a").is_ok());
        assert_eq!(accept("(SELECT 1)", Clause::Default, "a").unwrap_err().message, "Function or expression 'select ...' cannot be used in the DEFAULT clause of `a`");
        // LAST_VALUE(a, b) is MariaDB's function, LAST_VALUE(a) OVER () the window one.
        assert_eq!(accept("last_value(a, b)", Clause::Default, "c").unwrap(), "last_value(`a`,`b`)");
        assert_eq!(accept("last_value(a) over ()", Clause::Default, "c").unwrap_err().code, 1901);
    }

    #[test]
    fn mariadb_printed_forms() {
        let d = |e: &str| accept(e, Clause::Default, "c").unwrap();
        assert_eq!(d("1----1"), "1 - -1");
        assert_eq!(d("--1"), "1");
        assert_eq!(d("1 - +a"), "1 - `a`");
        assert_eq!(d("+a"), "`a`");
        assert_eq!(d("a div b"), "`a` DIV `b`");
        assert_eq!(d("a mod 2"), "`a` MOD 2");
        assert_eq!(d("a % 2"), "`a` MOD 2");
        assert_eq!(d("a != 1"), "`a` <> 1");
        assert_eq!(d("a rlike 'x'"), "`a` regexp 'x'");
        assert_eq!(d("a is not unknown"), "`a` is not null");
        assert_eq!(d("a = true"), "`a` = 1");
        assert_eq!(d("a is true"), "`a` is true");
        assert_eq!(d("upper(a)"), "ucase(`a`)");
        assert_eq!(d("current_date"), "curdate()");
        assert_eq!(d("coalesce(current_timestamp)"), "coalesce(current_timestamp())");
        assert_eq!(d("now()"), "current_timestamp()");
        assert_eq!(d("round(a)"), "round(`a`,0)");
        assert_eq!(d("round(a, 2)"), "round(`a`,2)");
        assert_eq!(d("interval(a, 1, 2)"), "interval(`a`,1,2)");
        assert_eq!(d("a + interval 1 day"), "`a` + interval 1 day");
        assert_eq!(d("timestampdiff(month, a, b)"), "timestampdiff(MONTH,`a`,`b`)");
        assert_eq!(d("cast(a as signed integer)"), "cast(`a` as signed)");
        assert_eq!(d("cast(a as char)"), "cast(`a` as char charset utf8mb4)");
        assert_eq!(d("cast(a as char(10))"), "cast(`a` as char(10) charset utf8mb4)");
        assert_eq!(d("cast(a as char charset latin1)"), "cast(`a` as char charset latin1)");
        assert_eq!(d("cast(a as char character set utf8)"), "cast(`a` as char charset utf8mb3)");
        assert_eq!(d("convert(cast(a as char), char)"), "cast(cast(`a` as char charset utf8mb4) as char charset utf8mb4)");
        assert_eq!(d("convert(a using latin1)"), "convert(`a` using latin1)");
        // A long run of signs stays linear and folds to one.
        let long = format!("{}1", "-".repeat(100_000));
        assert_eq!(d(&long), "1");
    }

    #[test]
    fn literals_and_charsets_shown() {
        assert_eq!(accept("coalesce(time '10:20:30')", Clause::Default, "a").unwrap(), "coalesce(TIME'10:20:30')");
        assert_eq!(accept("CONVERT(a USING utf8)", Clause::Default, "c").unwrap(), "convert(`a` using utf8mb3)");
        assert_eq!(named_columns(&accept("CONVERT(a USING latin1)", Clause::Default, "c").unwrap()), vec!["a"]);
    }
}
