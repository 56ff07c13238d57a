//! The arguments of a prepared statement's execution that are not simply
//! bound to its `?` placeholders by the engine.
//!
//! - DEFAULT and IGNORE (MariaDB's `EXECUTE ... USING DEFAULT, IGNORE`): a
//!   `?` that is a whole value of INSERT's VALUES or the whole right side of an
//!   assignment of UPDATE, INSERT ... SET or ON DUPLICATE KEY UPDATE becomes
//!   that keyword in the text (the column's default, or for IGNORE in an
//!   assignment, the column left as it is); a `?` that is a whole item of a
//!   plain SELECT's list is sent as NULL, as MariaDB does; used anywhere else
//!   (in an expression, WHERE, LIMIT, a UNION, DDL, an IN argument of CALL)
//!   the execution fails with 4032, as there.
//! - Statements whose `?` no engine binds (CREATE/ALTER of a table, CALL,
//!   SHOW): each `?` is written into the text as its argument, so
//!   `CREATE TABLE t1 (a INT DEFAULT ?)` gets the value as its default and
//!   `CREATE TABLE t1 AS SELECT ? AS c` a column typed by the value (an
//!   argument written as a literal keeps its text, `10.123` a DECIMAL, a user
//!   variable its name, so `CALL p(?) USING @x` sets `@x` from an OUT
//!   parameter); an unaliased select item keeps `?` as its name.

use std::borrow::Cow;
use turnstile_engine::{SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::scan;

/// One argument of an execution.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A value; `text` is how it is written into a statement that cannot
    /// bind it, when its source says better than the value does (a literal,
    /// a user variable).
    Value {
        value: Value,
        text: Option<String>,
    },
    Default,
    Ignore,
}

/// A statement and the values left to bind to its `?`.
pub type Bound<'a> = (Cow<'a, str>, Vec<Value>);

fn invalid_default() -> SqlError {
    SqlError::new(4032, "HY000", "Default/ignore value is not supported for such parameter usage")
}

/// Statements whose `?` are written into the text (see the module comment):
/// CREATE/ALTER other than of a view (a view refuses `?` with 1351), CALL, SHOW.
pub fn writes_params_into_text(kw: &str, sql: &str) -> bool {
    match kw {
        "CALL" | "SHOW" => true,
        "CREATE" | "ALTER" => !names_view(sql),
        _ => false,
    }
}

/// CREATE/ALTER ... VIEW (the word VIEW before AS, TABLE or `(`).
fn names_view(sql: &str) -> bool {
    let Ok(toks) = lex::tokenize(sql) else { return false };
    let head = toks.iter().take_while(|t| !t.is_kw("AS") && !t.is_kw("TABLE") && !t.is_op("("));
    head.take(32).any(|t| t.is_kw("VIEW"))
}

/// `sql` ready to run with `args`: DEFAULT and IGNORE placed or refused,
/// and for the statements `writes_params_into_text` names, every `?`
/// written out. Nothing to change: the text borrowed, the values in order.
pub fn bind<'a>(sql: &'a str, args: &[Arg]) -> Result<Bound<'a>, SqlError> {
    let kw = scan::first_keyword(sql);
    let special = args.iter().any(|a| !matches!(a, Arg::Value { .. }));
    let into_text = writes_params_into_text(&kw, sql);
    if !special && !into_text {
        return Ok((Cow::Borrowed(sql), args.iter().map(value_of).collect()));
    }
    // CALL takes the keyword into its text: an OUT parameter refuses it as
    // not a variable (1414), an IN one as 4032 (routine/mod.rs), as MariaDB.
    if into_text && special && kw != "CALL" {
        return Err(invalid_default());
    }
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let params: Vec<usize> = toks.iter().enumerate().filter(|(_, t)| matches!(t.tok, Tok::Param)).map(|(i, _)| i).collect();
    if into_text {
        let texts: Vec<String> = args.iter().map(arg_text).collect();
        return Ok((Cow::Owned(write_into(sql, &toks, &params, &texts)), Vec::new()));
    }
    place_defaults(sql, &kw, &toks, &params, args)
}

/// The values alone (binary protocol): `bind` for arguments that are all values.
pub fn bind_values<'a>(sql: &'a str, values: &[Value]) -> Result<Bound<'a>, SqlError> {
    let kw = scan::first_keyword(sql);
    if !writes_params_into_text(&kw, sql) {
        return Ok((Cow::Borrowed(sql), values.to_vec()));
    }
    let args: Vec<Arg> = values.iter().map(|v| Arg::Value { value: v.clone(), text: None }).collect();
    bind(sql, &args)
}

fn value_of(a: &Arg) -> Value {
    match a {
        Arg::Value { value, .. } => value.clone(),
        Arg::Default | Arg::Ignore => Value::Null,
    }
}

/// DEFAULT / IGNORE where MariaDB takes them (module comment): the keyword
/// written in place of the `?`, or NULL bound; elsewhere 4032.
fn place_defaults<'a>(sql: &'a str, kw: &str, toks: &[Token], params: &[usize], args: &[Arg]) -> Result<Bound<'a>, SqlError> {
    let mut out = String::with_capacity(sql.len());
    let mut values = Vec::with_capacity(args.len());
    let mut last = 0;
    for (&at, arg) in params.iter().zip(args) {
        let word = match arg {
            Arg::Value { value, .. } => {
                values.push(value.clone());
                continue;
            }
            Arg::Default => "DEFAULT",
            Arg::Ignore => "IGNORE",
        };
        match default_use(kw, toks, at) {
            Use::Keyword => {
                // Its own parentheses go too: `((?))` is the keyword alone.
                let (lo, hi) = unwrap_parens(toks, at);
                out.push_str(&sql[last..toks[lo].start]);
                out.push_str(word);
                last = toks[hi].end;
            }
            Use::Null => values.push(Value::Null),
            Use::Invalid => return Err(invalid_default()),
        }
    }
    out.push_str(&sql[last..]);
    Ok((Cow::Owned(out), values))
}

/// What a DEFAULT or IGNORE argument does at the `?` at `at`.
#[derive(Debug, PartialEq)]
enum Use {
    /// The keyword in the text (a column's value in INSERT or UPDATE).
    Keyword,
    /// Sent as NULL (a whole select-list item of a plain SELECT).
    Null,
    /// Error 4032.
    Invalid,
}

/// Keywords that start a clause, at the level of the statement.
const CLAUSES: [&str; 16] = ["SELECT", "SET", "UPDATE", "VALUES", "VALUE", "WHERE", "FROM", "ORDER", "GROUP", "HAVING", "LIMIT", "ON", "USING", "RETURNING", "INTO", "WINDOW"];

fn default_use(kw: &str, toks: &[Token], at: usize) -> Use {
    let (lo, hi) = unwrap_parens(toks, at);
    let depth = depth_at(toks, lo);
    let clause = toks[..lo].iter().enumerate().rev().find(|(i, t)| depth_at(toks, *i) == 0 && CLAUSES.iter().any(|c| t.is_kw(c))).map(|(_, t)| t);
    let prev = lo.checked_sub(1).map(|i| &toks[i]);
    let next = toks.get(hi + 1);
    let is_clause = |k: &str| clause.is_some_and(|c| c.is_kw(k));
    let ends_value = |t: Option<&Token>| t.is_none_or(|t| t.is_op(",") || t.is_op(")") || t.is_op(";") || ["WHERE", "ORDER", "LIMIT", "RETURNING", "ON"].iter().any(|k| t.is_kw(k)));
    if matches!(kw, "INSERT" | "REPLACE" | "UPDATE") {
        let row_item = (is_clause("VALUES") || is_clause("VALUE")) && depth == 1 && prev.is_some_and(|p| p.is_op("(") || p.is_op(",")) && next.is_some_and(|n| n.is_op(",") || n.is_op(")"));
        let column_before = lo >= 2 && toks[lo - 2].ident().is_some();
        let assigned = (is_clause("SET") || is_clause("UPDATE")) && depth == 0 && prev.is_some_and(|p| p.is_op("=")) && column_before && ends_value(next);
        return if row_item || assigned { Use::Keyword } else { Use::Invalid };
    }
    let plain_select = kw == "SELECT" || ((kw == "EXPLAIN" || kw == "DESCRIBE" || kw == "DESC") && toks.iter().any(|t| t.is_kw("SELECT")));
    let set_operation = toks.iter().any(|t| t.is_kw("UNION") || t.is_kw("INTERSECT") || t.is_kw("EXCEPT"));
    if plain_select && !set_operation && depth == 0 && is_clause("SELECT") {
        let starts = prev.is_some_and(|p| p.is_op(",") || p.is_kw("SELECT") || p.is_kw("DISTINCT") || p.is_kw("ALL"));
        let ends = next.is_none_or(|n| n.is_op(",") || n.is_op(";") || n.ident().is_some());
        if starts && ends {
            return Use::Null;
        }
    }
    Use::Invalid
}

/// The token range of the `?` at `at` with its own parentheses around it
/// (`((?))`), not those of a call or a VALUES row.
fn unwrap_parens(toks: &[Token], at: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (at, at);
    while lo >= 2 && toks[lo - 1].is_op("(") && toks.get(hi + 1).is_some_and(|t| t.is_op(")")) {
        let before = &toks[lo - 2];
        let grouping = matches!(before.tok, Tok::Op(o) if o != ")") || ["SELECT", "DISTINCT", "ALL"].iter().any(|k| before.is_kw(k));
        if !grouping {
            break;
        }
        lo -= 1;
        hi += 1;
    }
    (lo, hi)
}

/// How many parentheses are open before token `at`.
fn depth_at(toks: &[Token], at: usize) -> usize {
    toks[..at].iter().fold(0usize, |d, t| {
        if t.is_op("(") {
            d + 1
        } else if t.is_op(")") {
            d.saturating_sub(1)
        } else {
            d
        }
    })
}

/// How an argument is written into a statement's text.
fn arg_text(a: &Arg) -> String {
    match a {
        Arg::Value { text: Some(t), .. } => t.clone(),
        Arg::Value { value, text: None } => typed_literal(value),
        Arg::Default => "DEFAULT".into(),
        Arg::Ignore => "IGNORE".into(),
    }
}

/// A value as a literal of its own type: a number as a number (a double
/// with an exponent), a date or time as a DATE/TIME/TIMESTAMP literal, text
/// as a string.
pub fn typed_literal(v: &Value) -> String {
    match v {
        Value::Double(d) if d.is_finite() => format!("{:e}", d),
        Value::Float(f) if f.is_finite() => format!("{:e}", f),
        Value::Double(_) | Value::Float(_) => "NULL".into(),
        Value::Date { .. } => format!("DATE{}", crate::dialect::literal(v)),
        Value::DateTime { .. } => format!("TIMESTAMP{}", crate::dialect::literal(v)),
        Value::Time { .. } => format!("TIME{}", crate::dialect::literal(v)),
        _ => crate::dialect::literal(v),
    }
}

/// `sql` with the `?` at token indexes `params` replaced by `texts` in
/// order; an unaliased select item that had one is named by its own text.
fn write_into(sql: &str, toks: &[Token], params: &[usize], texts: &[String]) -> String {
    let items = crate::dialect::unaliased_select_items(toks);
    let mut out = String::with_capacity(sql.len() + 16);
    let mut last = 0;
    let mut item = 0;
    let mut item_changed = false;
    for (&at, text) in params.iter().zip(texts) {
        while items.get(item).is_some_and(|&(_, end)| end <= at) {
            if std::mem::take(&mut item_changed) {
                let (start, end) = items[item];
                crate::dialect::alias_item(&mut out, &mut last, sql, &toks[start..end]);
            }
            item += 1;
        }
        out.push_str(&sql[last..toks[at].start]);
        // Spaced, so `-?` with -1 is `- -1`, not a comment.
        out.push(' ');
        out.push_str(text);
        out.push(' ');
        last = toks[at].end;
        item_changed |= items.get(item).is_some_and(|&(start, _)| start <= at);
    }
    if item_changed {
        let (start, end) = items[item];
        crate::dialect::alias_item(&mut out, &mut last, sql, &toks[start..end]);
    }
    out.push_str(&sql[last..]);
    out
}

/// The text an EXECUTE ... USING item is written as, when its source says
/// more than its value: a literal (`10.123`, `_latin1'x'`, `-1`,
/// `TIME'10:20'`, `CURRENT_TIME(3)`) or one user variable.
pub fn source_text(sql: &str, item: &[Token]) -> Option<String> {
    const TEMPORAL_WORDS: [&str; 3] = ["DATE", "TIME", "TIMESTAMP"];
    const CONSTANT_WORDS: [&str; 14] =
        ["TRUE", "FALSE", "NULL", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "NOW", "CURDATE", "CURTIME", "LOCALTIME", "LOCALTIMESTAMP", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP"];
    let constant = |t: &Token| CONSTANT_WORDS.iter().any(|k| t.is_kw(k));
    let number = |t: &Token| matches!(t.tok, Tok::Number(_));
    let verbatim = match item {
        [one] => matches!(one.tok, Tok::Number(_) | Tok::Str(_) | Tok::UserVar(_)) || constant(one),
        [a, b] => ((a.is_op("-") || a.is_op("+")) && number(b)) || (TEMPORAL_WORDS.iter().any(|k| a.is_kw(k)) && matches!(b.tok, Tok::Str(_))),
        [f, open, n, close] => constant(f) && open.is_op("(") && number(n) && close.is_op(")"),
        [f, open, close] => constant(f) && open.is_op("(") && close.is_op(")"),
        _ => false,
    };
    let (first, last) = (item.first()?, item.last()?);
    verbatim.then(|| sql[first.start..last.end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_at(sql: &str) -> Use {
        let toks = lex::tokenize(sql).unwrap();
        let at = toks.iter().position(|t| matches!(t.tok, Tok::Param)).unwrap();
        default_use(&scan::first_keyword(sql), &toks, at)
    }

    #[test]
    fn where_default_goes() {
        for ok in [
            "INSERT INTO t VALUES (?, 1)",
            "INSERT INTO t VALUES (1, ((?)))",
            "INSERT INTO t VALUES (1,2),(3,?)",
            "UPDATE t SET a=?",
            "UPDATE t SET a=(?), b=1 WHERE c=2",
            "UPDATE t1,t2 SET t1.b = ? WHERE t1.a=t2.a",
            "INSERT INTO t SET a=?",
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE b=?",
            "REPLACE t VALUE (?)",
        ] {
            assert_eq!(default_at(ok), Use::Keyword, "{}", ok);
        }
        for bad in [
            "INSERT INTO t VALUES (?+1)",
            "INSERT INTO t VALUES (CONCAT(?))",
            "UPDATE t SET a=?+1",
            "UPDATE t SET a=1 WHERE b=?",
            "UPDATE t SET a=1 LIMIT ?",
            "DELETE FROM t WHERE a=?",
            "SELECT ?+1",
            "SELECT CAST(? AS SIGNED)",
            "SELECT 1 LIMIT ?",
            "SELECT ? UNION SELECT 1",
            "SELECT * FROM (SELECT ?) d",
            "SET @a=?",
            "DO ?",
        ] {
            assert_eq!(default_at(bad), Use::Invalid, "{}", bad);
        }
        for null in ["SELECT ?", "SELECT (?)", "SELECT ? AS x, a FROM t", "SELECT 1, ?", "EXPLAIN EXTENDED SELECT ?"] {
            assert_eq!(default_at(null), Use::Null, "{}", null);
        }
    }

    #[test]
    fn writes_params_of_ddl() {
        let args = [Arg::Value { value: Value::Int(-1), text: None }, Arg::Value { value: Value::Double(10.5), text: None }];
        let (sql, rest) = bind("CREATE TABLE t (a INT DEFAULT -?, b DOUBLE DEFAULT(?))", &args).unwrap();
        assert_eq!(sql, "CREATE TABLE t (a INT DEFAULT - -1 , b DOUBLE DEFAULT( 1.05e1 ))");
        assert!(rest.is_empty());
        let (sql, _) = bind("CREATE TABLE t AS SELECT ?, ? AS b", &args).unwrap();
        assert_eq!(sql, "CREATE TABLE t AS SELECT  -1  AS `?`,  1.05e1  AS b");
        assert_eq!(bind("CREATE TABLE t (a INT DEFAULT ?)", &[Arg::Default]).unwrap_err().code, 4032);
        // A view keeps its `?` (the engine refuses it with 1351).
        assert_eq!(bind("CREATE VIEW v AS SELECT ?", &args[..1]).unwrap().0, "CREATE VIEW v AS SELECT ?");
    }

    #[test]
    fn literals_by_type() {
        assert_eq!(typed_literal(&Value::Date { year: 2001, month: 1, day: 2 }), "DATE'2001-01-02'");
        assert_eq!(typed_literal(&Value::Double(f64::NAN)), "NULL");
        assert_eq!(typed_literal(&Value::str("it's")), "'it''s'");
        let src = "10.123, @a, CURRENT_TIME(3), a + 1, 'x', -1, 1+1, TIME'10:20'";
        let toks = lex::tokenize(src).unwrap();
        let items = turnstile_sqltext::parens::split_top_level(&toks, ",");
        let texts: Vec<Option<String>> = items.iter().map(|i| source_text(src, i)).collect();
        let want = [Some("10.123"), Some("@a"), Some("CURRENT_TIME(3)"), None, Some("'x'"), Some("-1"), None, Some("TIME'10:20'")];
        assert_eq!(texts, want.map(|w| w.map(str::to_string)));
    }
}
