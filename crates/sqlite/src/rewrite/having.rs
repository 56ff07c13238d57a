//! HAVING without GROUP BY, which MySQL accepts and SQLite refuses: the
//! statement is rewritten in MySQL's dialect with the condition moved into
//! WHERE, then translated as usual.
//!
//! Connector/J's DatabaseMetaData.getTables sends `... HAVING TABLE_TYPE IN
//! (...)` where TABLE_TYPE is both a column and an alias, so this is no
//! curiosity: drivers depend on it.

use super::select::is_value_end;
use turnstile_sqltext::lex::{Tok, Token};

const AGGREGATES: [&str; 18] = [
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VAR_POP",
    "VAR_SAMP",
    "VARIANCE",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
];

/// MySQL accepts HAVING without GROUP BY in a query without aggregates: it
/// filters the rows like WHERE but sees the select list's aliases first
/// (Connector/J's DatabaseMetaData.getTables sends `... HAVING TABLE_TYPE IN
/// (...)` where TABLE_TYPE is both a column and an alias). SQLite refuses
/// HAVING on a non-aggregate query, so the outermost SELECT's condition moves
/// into WHERE with each alias replaced by its expression. Returns the MySQL
/// text to translate instead, or None when the statement has no such HAVING.
pub(super) fn having_without_group_by(sql: &str, toks: &[Token]) -> Option<String> {
    if !toks.first().is_some_and(|t| t.is_kw("SELECT")) {
        return None;
    }
    let OuterClauses { from, where_at, having, having_end } = outer_clauses(toks)?;
    let (from, h) = (from?, having?);
    // Clauses out of MySQL's order (WHERE or FROM after HAVING): left to
    // SQLite, which calls it a syntax error.
    if h + 1 >= having_end || from > h || where_at.is_some_and(|w| w > h) {
        return None;
    }
    let aliases = select_aliases(sql, toks, from);
    let cond = condition_without_aliases(sql, toks, h, having_end, &aliases)?;
    let rest = toks.get(having_end).map_or("", |t| &sql[t.start..]);
    Some(match where_at {
        Some(w) => format!("{} ({}) AND ({}) {}", &sql[..toks[w].end], &sql[toks[w + 1].start..toks[h].start].trim_end(), cond, rest),
        None => format!("{}WHERE {} {}", &sql[..toks[h].start], cond, rest),
    })
}

/// Depth-0 clause positions of the outermost SELECT.
struct OuterClauses {
    from: Option<usize>,
    where_at: Option<usize>,
    having: Option<usize>,
    /// The token after the HAVING condition (the statement's end if none).
    having_end: usize,
}

/// The outermost query's clauses; None when it aggregates, groups or is a
/// compound query (HAVING is then SQLite's to read as it is), or its
/// parentheses do not balance.
fn outer_clauses(toks: &[Token]) -> Option<OuterClauses> {
    let (mut from, mut where_at, mut having, mut having_end) = (None, None, None, toks.len());
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if let Tok::Word(w) = &t.tok {
            if toks.get(i + 1).is_some_and(|n| n.is_op("(")) && AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a)) {
                return None;
            }
            if depth > 0 {
                continue;
            }
            let up = w.to_ascii_uppercase();
            match up.as_str() {
                "FROM" if from.is_none() => from = Some(i),
                "WHERE" if where_at.is_none() => where_at = Some(i),
                "HAVING" if having.is_none() => having = Some(i),
                "GROUP" | "UNION" | "EXCEPT" | "INTERSECT" | "WINDOW" => return None,
                "ORDER" | "LIMIT" | "FOR" | "LOCK" | "INTO" if having.is_some() && having_end == toks.len() => having_end = i,
                _ => {}
            }
        }
    }
    Some(OuterClauses { from, where_at, having, having_end })
}

/// Aliases of the select list (before FROM at token `from`): name →
/// expression text; the text is empty when the expression has a `?`.
fn select_aliases<'s>(sql: &'s str, toks: &[Token], from: usize) -> Vec<(String, &'s str)> {
    let mut aliases: Vec<(String, &str)> = Vec::new();
    let (mut start, mut depth) = (1usize, 0usize);
    for j in 1..=from {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (j == from || t.is_op(",")) {
            let part = &toks[start..j];
            let n = part.len();
            let alias = match part {
                [.., a, name] if n >= 3 && a.is_kw("AS") => name.ident().map(|x| (x.to_string(), n - 2)),
                [.., prev, name] if matches!(name.tok, Tok::Word(_) | Tok::Quoted(_)) && !prev.is_op(".") && is_value_end(prev) => name.ident().map(|x| (x.to_string(), n - 1)),
                _ => None,
            };
            if let Some((name, e)) = alias {
                // an expression with `?` cannot be repeated (parameters are positional)
                let params = part[..e].iter().any(|t| matches!(t.tok, Tok::Param));
                aliases.push((name, if params { "" } else { &sql[part[0].start..part[e - 1].end] }));
            }
            start = j + 1;
        }
    }
    aliases
}

/// The HAVING condition (tokens after `h` up to `having_end`) with each alias
/// replaced by its parenthesized expression; None when an alias it uses
/// cannot be repeated.
fn condition_without_aliases(sql: &str, toks: &[Token], h: usize, having_end: usize, aliases: &[(String, &str)]) -> Option<String> {
    let mut cond = String::new();
    let mut last = toks[h + 1].start;
    for k in h + 1..having_end {
        let t = &toks[k];
        cond.push_str(&sql[last..t.start]);
        let dotted = toks[k - 1].is_op(".") || toks.get(k + 1).is_some_and(|n| n.is_op(".") || n.is_op("("));
        match (t.ident(), dotted) {
            (Some(id), false) if matches!(t.tok, Tok::Word(_) | Tok::Quoted(_)) => match aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(id)) {
                Some((_, "")) => return None,
                Some((_, e)) => {
                    cond.push('(');
                    cond.push_str(e);
                    cond.push(')');
                }
                None => cond.push_str(&sql[t.start..t.end]),
            },
            _ => cond.push_str(&sql[t.start..t.end]),
        }
        last = t.end;
    }
    Some(cond)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn clauses_out_of_order_are_left_to_sqlite() {
        // Found by fuzz/fuzz_targets/rewrite.rs (a slice panic before).
        assert_eq!(rewrite("SELECT c FROM sbtest1 HAVING c > 1 WHERE id > 0", Kind::Select, &resolver()).map(|_| ()).unwrap_or(()), ());
    }
}
