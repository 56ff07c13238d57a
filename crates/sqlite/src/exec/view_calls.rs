//! Stored functions called in a view's query (`CREATE VIEW v AS SELECT
//! f1() FROM t`). The engine never runs a stored function: the front writes
//! a statement's calls out of its text before running it
//! (crates/sql/src/routine/function.rs). So such a view is kept as MySQL
//! text and expanded where it is read (view_expand.rs), where the front
//! finds the calls in the expanded statement (`EngineSession::expand_views`).
//! At CREATE VIEW its result columns are worked out with each call of the
//! function replaced by a NULL of the function's declared type (its
//! RETURNS), named as the call when it is a select item of its own.

use turnstile_sqltext::lex::{self, Token};
use turnstile_sqltext::parens;

/// The function the error `e` says does not exist (unqualified: the current
/// database's), from "FUNCTION db.name does not exist".
pub(super) fn missing_function(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("FUNCTION ")?.strip_suffix(" does not exist")?;
    let name = rest.split_once('.').map_or(rest, |(_, n)| n);
    (!name.is_empty()).then_some(name)
}

/// The CAST type standing for a value of the declared type `returns`
/// (`int(11)`, `varchar(20) CHARSET latin1`, `decimal(10,2)`, ...).
fn cast_type(returns: &str) -> String {
    let lower = returns.trim().to_ascii_lowercase();
    let base: String = lower.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let args = lower.find('(').and_then(|o| lower[o..].find(')').map(|c| &lower[o..=o + c]));
    match base.as_str() {
        "tinyint" | "smallint" | "mediumint" | "int" | "integer" | "bigint" | "year" | "bool" | "boolean" | "bit" => {
            if lower.contains("unsigned") {
                "UNSIGNED".into()
            } else {
                "SIGNED".into()
            }
        }
        "decimal" | "numeric" | "dec" | "fixed" => format!("DECIMAL{}", args.unwrap_or("")),
        "float" | "double" | "real" => "DOUBLE".into(),
        "date" => "DATE".into(),
        "datetime" | "timestamp" => format!("DATETIME{}", args.unwrap_or("")),
        "time" => format!("TIME{}", args.unwrap_or("")),
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" => "BINARY".into(),
        "char" | "varchar" => format!("CHAR{}", args.unwrap_or("")),
        _ => "CHAR".into(),
    }
}

/// `select` with each unqualified call of `name` replaced by `CAST(NULL AS
/// <type of returns>)`; a call that is a whole select item without an
/// alias keeps its text as the column's name. With the names of the
/// columns that are such whole calls (aliased or not). None when there is
/// no such call.
pub(super) fn stand_in(select: &str, name: &str, returns: &str) -> Option<(String, Vec<String>)> {
    let ends_item = |t: Option<&Token>| t.is_none_or(|n: &Token| n.is_op(",") || n.is_op(")") || n.is_kw("FROM") || n.is_op(";"));
    let mut items: Vec<String> = Vec::new();
    let toks = lex::tokenize(select).ok()?;
    let cast = format!("CAST(NULL AS {})", cast_type(returns));
    let mut out = String::with_capacity(select.len() + 32);
    let mut at = 0;
    // Whether each open level (the query's own first) is a select list
    // (after SELECT, before its FROM); bounded by the tokens.
    let mut select_list: Vec<bool> = vec![false];
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_op("(") {
            select_list.push(false);
        } else if t.is_op(")") && select_list.len() > 1 {
            select_list.pop();
        } else if t.is_kw("SELECT") || t.is_kw("FROM") {
            *select_list.last_mut().expect("a level") = t.is_kw("SELECT");
        }
        let is_call = t.ident().is_some_and(|n| n.eq_ignore_ascii_case(name)) && toks.get(i + 1).is_some_and(|p| p.is_op("(")) && !(i > 0 && toks[i - 1].is_op("."));
        let Some(close) = is_call.then(|| parens::closing(&toks, i + 1)).flatten() else {
            i += 1;
            continue;
        };
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        let next = toks.get(close + 1);
        let in_list = *select_list.last().unwrap_or(&false);
        let starts_item = in_list && prev.is_some_and(|p| p.is_kw("SELECT") || p.is_kw("DISTINCT") || p.is_kw("ALL") || p.is_op(","));
        let text = &select[t.start..toks[close].end];
        // Its alias: `AS a` or a bare name ending the item.
        let alias = match next {
            Some(n) if n.is_kw("AS") => toks.get(close + 2).and_then(|a| a.ident()),
            Some(n) if !n.is_kw("FROM") && ends_item(toks.get(close + 2)) => n.ident(),
            _ => None,
        };
        out.push_str(&select[at..t.start]);
        out.push_str(&cast);
        if starts_item && ends_item(next) {
            out.push_str(" AS ");
            out.push_str(&crate::schema::quote_ident(text));
            items.push(text.to_string());
        } else if let Some(a) = alias.filter(|_| starts_item) {
            items.push(a.to_string());
        }
        at = toks[close].end;
        i = close + 1;
    }
    (at > 0).then(|| {
        out.push_str(&select[at..]);
        (out, items)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_become_typed_nulls_named_as_written() {
        let s = |sql: &str, returns: &str| stand_in(sql, "f1", returns).unwrap();
        assert_eq!(s("SELECT f1() FROM t3", "int(11)"), ("SELECT CAST(NULL AS SIGNED) AS `f1()` FROM t3".to_string(), vec!["f1()".to_string()]));
        let (text, items) = s("select a, F1( 2 ) as x, f1(a) + 1, f1() y from t", "decimal(10,2)");
        assert_eq!(text, "select a, CAST(NULL AS DECIMAL(10,2)) as x, CAST(NULL AS DECIMAL(10,2)) + 1, CAST(NULL AS DECIMAL(10,2)) y from t");
        assert_eq!(items, ["x", "y"]);
        assert_eq!(s("select x from t where a in (1, f1(), 2)", "varchar(5) CHARSET latin1").0, "select x from t where a in (1, CAST(NULL AS CHAR(5)), 2)");
        assert_eq!(s("select * from (select f1()) AS v", "int").0, "select * from (select CAST(NULL AS SIGNED) AS `f1()`) AS v");
        assert_eq!(stand_in("select d.f1() from t", "f1", "int"), None);
        assert_eq!(stand_in("select f2() from t", "f1", "int"), None);
    }

    #[test]
    fn the_missing_function_is_read_from_the_message() {
        assert_eq!(missing_function("FUNCTION test.f1 does not exist"), Some("f1"));
        assert_eq!(missing_function("Table 't' doesn't exist"), None);
    }
}
