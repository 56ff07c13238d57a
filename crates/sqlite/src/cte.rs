//! cte_max_recursion_depth for recursive CTEs, which SQLite lets run forever.
//!
//! MySQL stops a recursive CTE whose recursion goes deeper than
//! `cte_max_recursion_depth` (default 1000) with ERR 3636. SQLite has no such
//! limit and no way to ask how deep a row is, so the statement is rewritten
//! (MySQL text to MySQL text, before the dialect rewriter) to carry the depth
//! in a hidden column:
//!
//! ```text
//! WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE ...) SELECT ... FROM r
//! WITH RECURSIVE `ts:r`(n, `ts:depth`) AS (SELECT 1, 0 UNION ALL
//!     SELECT n + 1, ts_cte_depth(r.`ts:depth` + 1) FROM `ts:r` AS r WHERE ...),
//!   r(n) AS (SELECT n FROM `ts:r`) SELECT ... FROM r
//! ```
//!
//! `ts_cte_depth` (functions.rs) fails with 3636 once a row would be
//! `cte_max_recursion_depth` levels below the anchor, MySQL's point: with the
//! default, `n < 1000` works and `n < 1001` does not. The wrapper CTE keeps
//! the hidden column out of every result.
//!
//! Covered: `UNION ALL` between the anchor and recursive parts (the form that
//! can run away: with UNION DISTINCT a cycle ends by itself), a column list
//! or anchor columns that have names, one reference to the CTE in each
//! recursive part. Any other shape is left as it is; max_execution_time,
//! KILL and a vanished client still stop it.

use turnstile_sqltext::lex::{self, Tok, Token};

/// The hidden depth column and the prefix of the renamed CTE.
const DEPTH: &str = "`ts:depth`";

/// The statement with depth limits added to its recursive CTEs, or None
/// when it has none this can limit.
pub fn limit_depth(sql: &str) -> Option<String> {
    if !sql.as_bytes().windows(9).any(|w| w.eq_ignore_ascii_case(b"RECURSIVE")) {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_kw("WITH") && toks.get(i + 1).is_some_and(|n| n.is_kw("RECURSIVE")) {
            cte_list(&toks, i + 2, &mut edits);
        }
    }
    splice_edits(sql, edits)
}

/// `sql` with each byte range of `edits` replaced by its text (sorted here);
/// None when there is none or two overlap (the statement is left alone).
pub(crate) fn splice_edits(sql: &str, mut edits: Vec<(usize, usize, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(sql.len() + 128);
    let mut at = 0;
    for (from, to, text) in edits {
        if from < at {
            return None;
        }
        out.push_str(&sql[at..from]);
        out.push_str(&text);
        at = to;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// Index of the `)` closing the `(` at `open`.
pub(crate) fn close_of(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// The CTEs of one WITH RECURSIVE list starting at token `i`.
fn cte_list(toks: &[Token], mut i: usize, edits: &mut Vec<(usize, usize, String)>) {
    loop {
        let Some(name) = toks.get(i).and_then(|t| t.ident()) else { return };
        let name_tok = i;
        let mut j = i + 1;
        let mut columns: Option<Vec<String>> = None;
        if toks.get(j).is_some_and(|t| t.is_op("(")) {
            let Some(close) = close_of(toks, j) else { return };
            let cols: Option<Vec<String>> = toks[j + 1..close].iter().filter(|t| !t.is_op(",")).map(|t| t.ident().map(str::to_string)).collect();
            columns = cols;
            j = close + 1;
        }
        if !toks.get(j).is_some_and(|t| t.is_kw("AS")) || !toks.get(j + 1).is_some_and(|t| t.is_op("(")) {
            return;
        }
        let open = j + 1;
        let Some(close) = close_of(toks, open) else { return };
        if let Some(e) = one_cte(toks, name, name_tok, columns, open, close) {
            edits.extend(e);
        }
        if !toks.get(close + 1).is_some_and(|t| t.is_op(",")) {
            return;
        }
        i = close + 2;
    }
}

/// Where the select list of the SELECT at token `select` ends (exclusive).
pub(crate) fn select_list_end(toks: &[Token], select: usize, end: usize) -> usize {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().take(end).skip(select + 1) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "INTO", "FOR"].iter().any(|k| t.is_kw(k)) {
            return j;
        }
    }
    end
}

/// Names of the anchor's columns (alias, or a plain column's name).
pub(crate) fn anchor_names(toks: &[Token], select: usize, list_end: usize) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut start = select + 1;
    while toks.get(start).is_some_and(|t| t.is_kw("DISTINCT") || t.is_kw("ALL")) {
        start += 1;
    }
    let mut item: Vec<&Token> = Vec::new();
    for t in toks[start..list_end].iter().chain(std::iter::once(&Token { tok: Tok::Op(","), start: 0, end: 0 })) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        }
        if depth == 0 && t.is_op(",") {
            let n = item.len();
            let name = match item.as_slice() {
                [.., a, alias] if a.is_kw("AS") => alias.ident().map(str::to_string).or_else(|| match &alias.tok {
                    Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
                    _ => None,
                }),
                [only] => only.ident().filter(|_| matches!(only.tok, Tok::Word(_) | Tok::Quoted(_))).map(str::to_string),
                [.., dot, col] if n >= 3 && dot.is_op(".") => col.ident().map(str::to_string),
                // `expr alias`: a name after a value (not after an operator).
                [.., prev, alias] if matches!(alias.tok, Tok::Word(_) | Tok::Quoted(_)) && (!matches!(prev.tok, Tok::Op(_)) || prev.is_op(")")) => alias.ident().map(str::to_string),
                _ => None,
            }?;
            names.push(name);
            item.clear();
        } else {
            item.push(t);
        }
    }
    Some(names)
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The edits for one CTE `name` whose body is tokens (open, close).
fn one_cte(toks: &[Token], name: &str, name_tok: usize, columns: Option<Vec<String>>, open: usize, close: usize) -> Option<Vec<(usize, usize, String)>> {
    // Split the body at top-level UNIONs; all must be UNION ALL.
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0i32;
    let mut from = open + 1;
    for j in open + 1..close {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("UNION") {
            if !toks.get(j + 1).is_some_and(|n| n.is_kw("ALL")) {
                return None;
            }
            parts.push((from, j));
            from = j + 2;
        }
    }
    parts.push((from, close));
    let refers = |(s, e): (usize, usize)| {
        toks[s..e].iter().enumerate().filter(|(k, t)| t.ident().is_some_and(|x| x.eq_ignore_ascii_case(name)) && !toks.get(s + k + 1).is_some_and(|n| n.is_op(".") || n.is_op("("))).count()
    };
    let first_recursive = parts.iter().position(|p| refers(*p) > 0)?;
    if first_recursive == 0 || parts[first_recursive..].iter().any(|p| refers(*p) != 1) || parts.iter().any(|(s, _)| !toks[*s].is_kw("SELECT")) {
        return None;
    }
    let columns = match columns {
        Some(c) => c,
        None => anchor_names(toks, parts[0].0, select_list_end(toks, parts[0].0, parts[0].1))?,
    };
    let hidden = format!("`ts:{}`", name.replace('`', "``"));
    let mut edits = Vec::new();
    // The renamed CTE with its column list and the depth.
    let col_list: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    let body_start = toks[open].start;
    edits.push((toks[name_tok].start, body_start, format!("{}({}, {}) AS ", hidden, col_list.join(", "), DEPTH)));
    for (k, &(s, e)) in parts.iter().enumerate() {
        // Right after the last item of the select list.
        let at = toks[select_list_end(toks, s, e) - 1].end;
        if k < first_recursive {
            edits.push((at, at, ", 0".to_string()));
            continue;
        }
        // The reference to the CTE, and the name its rows go by.
        let (r, _) = toks[s..e].iter().enumerate().find(|(k2, t)| t.ident().is_some_and(|x| x.eq_ignore_ascii_case(name)) && !toks.get(s + k2 + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")))?;
        let r = s + r;
        let alias = match (toks.get(r + 1), toks.get(r + 2)) {
            (Some(a), Some(b)) if a.is_kw("AS") && b.ident().is_some() => b.ident().map(str::to_string),
            (Some(a), _) if matches!(a.tok, Tok::Word(_) | Tok::Quoted(_)) && !is_clause_word(a) => a.ident().map(str::to_string),
            _ => None,
        };
        let (replacement, by) = match &alias {
            Some(a) => (hidden.clone(), a.clone()),
            None => (format!("{} AS {}", hidden, quote(name)), name.to_string()),
        };
        edits.push((at, at, format!(", ts_cte_depth({}.{} + 1)", quote(&by), DEPTH)));
        edits.push((toks[r].start, toks[r].end, replacement));
    }
    // The wrapper under the original name, after the renamed CTE.
    edits.push((toks[close].end, toks[close].end, format!(", {}({}) AS (SELECT {} FROM {})", quote(name), col_list.join(", "), col_list.join(", "), hidden)));
    Some(edits)
}

/// Words that follow a table reference without being its alias.
fn is_clause_word(t: &Token) -> bool {
    ["WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "ON", "USING", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "WINDOW", "STRAIGHT_JOIN"].iter().any(|k| t.is_kw(k))
}

#[cfg(test)]
mod tests {
    use super::limit_depth;

    #[test]
    fn adds_a_hidden_depth_and_a_wrapper() {
        let s = limit_depth("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT COUNT(*) FROM r").unwrap();
        assert_eq!(s, "WITH RECURSIVE `ts:r`(`n`, `ts:depth`) AS (SELECT 1, 0 UNION ALL SELECT n + 1, ts_cte_depth(`r`.`ts:depth` + 1) FROM `ts:r` AS `r` WHERE n < 10), `r`(`n`) AS (SELECT `n` FROM `ts:r`) SELECT COUNT(*) FROM r");
        let s = limit_depth("with recursive t as (select 1 as a, 'x' b union all select a + 1, b from t as p where a < 3) select * from t").unwrap();
        assert!(s.contains("`ts:t`(`a`, `b`, `ts:depth`)"), "{}", s);
        assert!(s.contains("ts_cte_depth(`p`.`ts:depth` + 1) from `ts:t` as p"), "{}", s);
    }

    #[test]
    fn leaves_other_shapes_alone() {
        assert_eq!(limit_depth("SELECT 1"), None);
        // UNION DISTINCT ends on a cycle by itself.
        assert_eq!(limit_depth("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) SELECT * FROM r"), None);
        // Not recursive after all.
        assert_eq!(limit_depth("WITH RECURSIVE r(n) AS (SELECT 1) SELECT * FROM r"), None);
        // An anchor column without a name.
        assert_eq!(limit_depth("WITH RECURSIVE r AS (SELECT 1 + 1 UNION ALL SELECT 2 FROM r) SELECT * FROM r"), None);
    }
}
