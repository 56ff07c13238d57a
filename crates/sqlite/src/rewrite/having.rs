//! HAVING without GROUP BY, which MySQL accepts and SQLite refuses: the
//! statement is rewritten in MySQL's dialect with the condition moved into
//! WHERE, then translated as usual.
//!
//! Connector/J's DatabaseMetaData.getTables sends `... HAVING TABLE_TYPE IN
//! (...)` where TABLE_TYPE is both a column and an alias, so this is no
//! curiosity: drivers depend on it.

use super::select::is_value_end;
use turnstile_sqltext::lex::{Tok, Token};

pub(super) const AGGREGATES: [&str; 18] = [
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

/// Query blocks rewritten in one statement at most; past it the rest are
/// left to SQLite (ERR 1105-class refusal, never a loop).
const MAX_BLOCKS: usize = 64;

/// How much longer than the statement its rewritten text may grow (a fuzz
/// input of 78 bytes, aliases of subqueries with HAVINGs of their own,
/// doubled with every move and took seconds), and the length allowed
/// whatever the statement's.
const MAX_GROWTH: usize = 8;
const MIN_TEXT_BYTES: usize = 64 * 1024;

/// Words between SELECT and its first item.
const MODIFIERS: [&str; 11] =
    ["ALL", "SQL_CACHE", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_NO_CACHE", "SQL_CALC_FOUND_ROWS"];

/// MySQL accepts HAVING without GROUP BY in a query without aggregates: it
/// filters the rows like WHERE but sees the select list's aliases first
/// (Connector/J's DatabaseMetaData.getTables sends `... HAVING TABLE_TYPE IN
/// (...)` where TABLE_TYPE is both a column and an alias). SQLite refuses
/// HAVING on a non-aggregate query, so in every query block (the outermost
/// SELECT, a subquery, a member of a UNION) such a condition moves into
/// WHERE with each alias replaced by its expression. Returns the MySQL text
/// to translate instead, or None when the statement has no such HAVING.
pub(super) fn having_without_group_by(sql: &str, toks: &[Token]) -> Option<String> {
    if !toks.iter().any(|t| t.is_kw("HAVING")) {
        return None;
    }
    // Each alias in a condition becomes a copy of its expression, which may
    // hold a HAVING of its own, moved in turn: the text can double per move.
    let max_len = sql.len().saturating_mul(MAX_GROWTH).max(MIN_TEXT_BYTES);
    let mut text = move_one(sql, toks)?;
    for _ in 1..MAX_BLOCKS {
        if text.len() > max_len {
            // Left to SQLite, which refuses the HAVING it cannot read.
            return None;
        }
        let Ok(again) = turnstile_sqltext::lex::tokenize(&text) else { break };
        match move_one(&text, &again) {
            Some(next) => text = next,
            None => break,
        }
    }
    (text.len() <= max_len).then_some(text)
}

/// The first query block whose HAVING can move into WHERE, moved; None
/// when there is none.
fn move_one(sql: &str, toks: &[Token]) -> Option<String> {
    (0..toks.len()).filter(|&s| toks[s].is_kw("SELECT")).find_map(|s| move_block(sql, toks, s))
}

/// The block starting at SELECT token `s` with its HAVING moved, if it has
/// one that MySQL reads as a filter (no GROUP BY, no aggregate, no WINDOW).
fn move_block(sql: &str, toks: &[Token], s: usize) -> Option<String> {
    let Clauses { from, where_at, having, having_end } = block_clauses(toks, s)?;
    let h = having?;
    // Clauses out of MySQL's order (WHERE or FROM after HAVING): left to
    // SQLite, which calls it a syntax error.
    if h + 1 >= having_end || from.is_some_and(|f| f > h) || where_at.is_some_and(|w| w > h) {
        return None;
    }
    let list_end = from.or(where_at).unwrap_or(h);
    let aliases = select_aliases(sql, toks, s, list_end);
    let cond = condition_without_aliases(sql, toks, h, having_end, &aliases)?;
    let rest = toks.get(having_end).map_or("", |t| &sql[t.start..]);
    Some(match where_at {
        Some(w) => format!("{} ({}) AND ({}) {}", &sql[..toks[w].end], &sql[toks[w + 1].start..toks[h].start].trim_end(), cond, rest),
        None => format!("{}WHERE {} {}", &sql[..toks[h].start], cond, rest),
    })
}

/// Clause positions of one query block, at its own parenthesis depth.
struct Clauses {
    from: Option<usize>,
    where_at: Option<usize>,
    having: Option<usize>,
    /// The token after the HAVING condition (the block's end if none).
    having_end: usize,
}

/// The clauses of the block starting at SELECT token `s`, which ends at the
/// parenthesis closing around it, at a UNION / EXCEPT / INTERSECT of its
/// depth, or at the statement's end. None when it aggregates (a call of
/// its own, not of a subquery's), groups or names a window: HAVING is then
/// SQLite's to read as it is.
fn block_clauses(toks: &[Token], s: usize) -> Option<Clauses> {
    let (mut from, mut where_at, mut having, mut having_end) = (None, None, None, toks.len());
    // One entry per open parenthesis: does it hold a subquery?
    let mut parens: Vec<bool> = Vec::new();
    for i in s + 1..toks.len() {
        let t = &toks[i];
        if t.is_op("(") {
            parens.push(toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH")));
            continue;
        }
        if t.is_op(")") {
            if parens.pop().is_none() {
                having_end = having_end.min(i);
                break;
            }
            continue;
        }
        let Tok::Word(w) = &t.tok else { continue };
        if !parens.contains(&true) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) && AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a)) {
            return None;
        }
        if !parens.is_empty() {
            continue;
        }
        let up = w.to_ascii_uppercase();
        match up.as_str() {
            "FROM" if from.is_none() => from = Some(i),
            "WHERE" if where_at.is_none() => where_at = Some(i),
            "HAVING" if having.is_none() => having = Some(i),
            "GROUP" | "WINDOW" => return None,
            "UNION" | "EXCEPT" | "INTERSECT" => {
                having_end = having_end.min(i);
                break;
            }
            "ORDER" | "LIMIT" | "FOR" | "LOCK" | "INTO" if having.is_some() => having_end = having_end.min(i),
            _ => {}
        }
    }
    Some(Clauses { from, where_at, having, having_end })
}

/// Aliases of the select list of the SELECT at token `s` (up to token
/// `end`: its FROM, WHERE or HAVING): name → expression text; the text is
/// empty when the expression has a `?`.
fn select_aliases<'s>(sql: &'s str, toks: &[Token], s: usize, end: usize) -> Vec<(String, &'s str)> {
    let mut aliases: Vec<(String, &str)> = Vec::new();
    let mut first = s + 1;
    while toks.get(first).is_some_and(|t| MODIFIERS.iter().any(|m| t.is_kw(m))) {
        first += 1;
    }
    let (mut start, mut depth) = (first, 0usize);
    for j in first..=end {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (j == end || t.is_op(",")) {
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

    #[test]
    fn aliases_of_subqueries_with_havings_do_not_multiply() {
        // Found by fuzz/fuzz_targets/rewrite.rs: each alias `a` in a HAVING
        // became a copy of its subquery, whose own HAVINGs moved in turn,
        // doubling the text per move (78 bytes took 0.5 s, 639 bytes over
        // 5 s). Now the text is bounded and the rewrite ends at once.
        let nested = |k: usize| {
            let mut s = String::from("SELECT c a FROM sbtest1 HAVING a = 1 AND a = 2 AND a = 3");
            for _ in 0..k {
                s = format!("SELECT ({s}) a FROM sbtest1 HAVING a = 1 AND a = 2 AND a = 3");
            }
            s
        };
        for k in [1, 5, 20, 60] {
            let sql = nested(k);
            let t = std::time::Instant::now();
            if let Ok(rw) = rewrite(&sql, Kind::Select, &resolver()) {
                assert!(rw.sql.len() <= (sql.len() * 8).max(64 * 1024) * 2, "{} levels: {} bytes", k, rw.sql.len());
            }
            assert!(t.elapsed().as_secs_f64() < 1.0, "{} levels took {:?}", k, t.elapsed());
        }
        // One level still moves (MariaDB reads it as a filter).
        let rw = rewrite(&nested(1), Kind::Select, &resolver()).unwrap();
        assert!(!rw.sql.to_uppercase().contains("HAVING"), "{}", rw.sql);
    }
}
