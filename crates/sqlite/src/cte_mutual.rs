//! Mutually recursive CTEs, which MariaDB runs and SQLite refuses
//! ("circular reference"): written as one recursive CTE SQLite runs.
//!
//! ```text
//! WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT y + 1 FROM b WHERE y < 5),
//!                b(y) AS (SELECT x FROM a) SELECT * FROM a
//! WITH RECURSIVE `ts:mutual`(`ts:tag`, x, y) AS (
//!     SELECT 0, 1, NULL UNION SELECT 0, y + 1, NULL FROM `ts:mutual` AS `b` WHERE (y < 5) AND `b`.`ts:tag` = 1
//!     UNION SELECT 1, NULL, x FROM `ts:mutual` AS `a` WHERE `a`.`ts:tag` = 0),
//!   a(x) AS (SELECT x FROM `ts:mutual` WHERE `ts:tag` = 0),
//!   b(y) AS (SELECT y FROM `ts:mutual` WHERE `ts:tag` = 1) SELECT * FROM a
//! ```
//!
//! Each CTE of the group has its own columns in the combined one (named as
//! its columns, so a member's column references keep reading them) and a
//! tag; a member that names a CTE of the group reads the combined CTE's rows
//! of that tag. MySQL text to MySQL text, before cte_anchor.rs and cte.rs
//! (which then limit its depth). Covered: one group per WITH clause, of at
//! most MAX_GROUP CTEs whose column names differ; every member a plain
//! SELECT (all joined by UNION, or all by UNION ALL) naming at most one CTE
//! of the group, in its own FROM (not in a subquery), and with no `*` that
//! could read the combined CTE's other columns. Any other shape is left to
//! SQLite as it is.

use crate::cte::{anchor_names, close_of, select_list_end, splice_edits};
use crate::cte_anchor::members;
use turnstile_sqltext::lex::{self, Tok, Token};

/// CTEs of one WITH clause looked at (and so in one group) at most.
const MAX_GROUP: usize = 16;
/// The combined CTE and its tag column.
const COMBINED: &str = "`ts:mutual`";
const TAG: &str = "`ts:tag`";

/// One CTE of the WITH clause.
struct Cte {
    name: String,
    name_tok: usize,
    columns: Option<Vec<String>>,
    open: usize,
    close: usize,
}

/// The statement with its first group of mutually recursive CTEs combined,
/// or None when it has none this covers.
pub fn combine(sql: &str) -> Option<String> {
    if !sql.as_bytes().windows(9).any(|w| w.eq_ignore_ascii_case(b"RECURSIVE")) {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let at = toks.iter().enumerate().position(|(i, t)| t.is_kw("WITH") && toks.get(i + 1).is_some_and(|n| n.is_kw("RECURSIVE")))?;
    let ctes = cte_list(&toks, at + 2)?;
    let n = ctes.len();
    // deps[i][j]: a member of CTE i names CTE j.
    let mut deps = vec![vec![false; n]; n];
    for (i, c) in ctes.iter().enumerate() {
        for t in &toks[c.open + 1..c.close] {
            if let Some(j) = t.ident().and_then(|w| ctes.iter().position(|d| d.name.eq_ignore_ascii_case(w))) {
                deps[i][j] = true;
            }
        }
    }
    // Transitive closure (n is at most MAX_GROUP).
    for k in 0..n {
        let via = deps[k].clone();
        for row in deps.iter_mut().filter(|row| row[k]) {
            for (to, &reached) in row.iter_mut().zip(&via) {
                *to |= reached;
            }
        }
    }
    let first = (0..n).find(|&i| (0..n).any(|j| j != i && deps[i][j] && deps[j][i]))?;
    let group: Vec<usize> = (0..n).filter(|&j| j == first || (deps[first][j] && deps[j][first])).collect();
    rewrite(sql, &toks, &ctes, &group)
}

/// The CTEs of the WITH RECURSIVE list starting at token `i`.
fn cte_list(toks: &[Token], mut i: usize) -> Option<Vec<Cte>> {
    let mut out = Vec::new();
    loop {
        let name = toks.get(i)?.ident()?.to_string();
        let name_tok = i;
        let mut j = i + 1;
        let mut columns = None;
        if toks.get(j)?.is_op("(") {
            let close = close_of(toks, j)?;
            columns = Some(toks[j + 1..close].iter().filter(|t| !t.is_op(",")).map(|t| t.ident().map(str::to_string)).collect::<Option<Vec<_>>>()?);
            j = close + 1;
        }
        if !toks.get(j)?.is_kw("AS") || !toks.get(j + 1)?.is_op("(") {
            return None;
        }
        let close = close_of(toks, j + 1)?;
        out.push(Cte { name, name_tok, columns, open: j + 1, close });
        if out.len() > MAX_GROUP {
            return None;
        }
        if !toks.get(close + 1).is_some_and(|t| t.is_op(",")) {
            return Some(out);
        }
        i = close + 2;
    }
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Words that follow a table reference without being its alias.
fn is_clause_word(t: &Token) -> bool {
    ["WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "ON", "USING", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "WINDOW", "STRAIGHT_JOIN"].iter().any(|k| t.is_kw(k))
}

/// The edits combining the CTEs `group` (indexes into `ctes`).
fn rewrite(sql: &str, toks: &[Token], ctes: &[Cte], group: &[usize]) -> Option<String> {
    // Each CTE's columns, and where they sit in the combined CTE.
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut bodies = Vec::new();
    let mut union_all: Option<bool> = None;
    for &g in group {
        let c = &ctes[g];
        let (ms, all) = members(toks, c.open, c.close)?;
        if ms.len() > 1 && *union_all.get_or_insert(all) != all {
            return None;
        }
        let cols = match &c.columns {
            Some(cols) => cols.clone(),
            None => anchor_names(toks, ms[0].0, select_list_end(toks, ms[0].0, ms[0].1))?,
        };
        columns.push(cols);
        bodies.push(ms);
    }
    let mut all_names: Vec<String> = columns.iter().flatten().map(|c| c.to_ascii_lowercase()).collect();
    all_names.sort();
    if all_names.windows(2).any(|w| w[0] == w[1]) || all_names.iter().any(|c| c == "ts:tag") {
        return None;
    }
    let width: usize = columns.iter().map(Vec::len).sum();
    let names: Vec<&str> = group.iter().map(|&g| ctes[g].name.as_str()).collect();
    let mut anchors = Vec::new();
    let mut recursive = Vec::new();
    let mut before = 0;
    for (k, ms) in bodies.iter().enumerate() {
        let after = width - before - columns[k].len();
        for &(s, e) in ms {
            let text = member(sql, toks, s, e, k, before, after, &names)?;
            if text.1 {
                recursive.push(text.0);
            } else {
                anchors.push(text.0);
            }
        }
        before += columns[k].len();
    }
    if anchors.is_empty() {
        return None;
    }
    let joiner = if union_all.unwrap_or(false) { " UNION ALL " } else { " UNION " };
    let slots: Vec<String> = columns.iter().flatten().map(|c| quote(c)).collect();
    let combined = format!("{}({}, {}) AS ({})", COMBINED, TAG, slots.join(", "), anchors.into_iter().chain(recursive).collect::<Vec<_>>().join(joiner));
    let mut edits = Vec::new();
    for (k, &g) in group.iter().enumerate() {
        let c = &ctes[g];
        let cols: Vec<String> = columns[k].iter().map(|x| quote(x)).collect();
        let wrapper = format!("{}({}) AS (SELECT {} FROM {} WHERE {} = {})", quote(&c.name), cols.join(", "), cols.join(", "), COMBINED, TAG, k);
        let text = if k == 0 { format!("{}, {}", combined, wrapper) } else { wrapper };
        edits.push((toks[c.name_tok].start, toks[c.close].end, text));
    }
    splice_edits(sql, edits)
}

/// One member (tokens `s..e`) of the group's CTE number `tag`, written for
/// the combined CTE: its tag and NULL for the other CTEs' columns around
/// its select list, and the reference to a CTE of the group (at most one)
/// read from the combined CTE's rows of that CTE. Returns the text and
/// whether it is recursive; None when the member is not of a covered shape.
#[allow(clippy::too_many_arguments)]
fn member(sql: &str, toks: &[Token], s: usize, e: usize, tag: usize, before: usize, after: usize, names: &[&str]) -> Option<(String, bool)> {
    let mut first = s + 1;
    while toks.get(first).is_some_and(|t| t.is_kw("DISTINCT") || t.is_kw("ALL")) {
        first += 1;
    }
    let list_end = select_list_end(toks, s, e);
    if first >= list_end {
        return None;
    }
    // The references to CTEs of the group: one at most, in this member's own FROM.
    let mut depth = 0usize;
    let mut reference: Option<(usize, usize)> = None;
    let mut where_at = None;
    let mut where_end = e;
    for j in s..e {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && t.is_kw("WHERE") {
            where_at = Some(j);
        } else if depth == 0 && where_end == e && j > list_end && ["GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW"].iter().any(|k| t.is_kw(k)) {
            where_end = j;
        }
        let Some(w) = t.ident().filter(|_| matches!(t.tok, Tok::Word(_) | Tok::Quoted(_))) else { continue };
        let Some(g) = names.iter().position(|n| n.eq_ignore_ascii_case(w)) else { continue };
        if toks.get(j + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")) || (j > 0 && toks[j - 1].is_op(".")) {
            continue;
        }
        if depth > 0 || reference.is_some() || j < list_end {
            return None;
        }
        reference = Some((j, g));
    }
    let alias = reference.and_then(|(r, _)| match (toks.get(r + 1), toks.get(r + 2)) {
        (Some(a), Some(b)) if r + 2 < e && a.is_kw("AS") && b.ident().is_some() => b.ident().map(str::to_string),
        (Some(a), _) if r + 1 < e && matches!(a.tok, Tok::Word(_) | Tok::Quoted(_)) && !is_clause_word(a) => a.ident().map(str::to_string),
        _ => None,
    });
    // A `*` (or `name.*` of the reference) could read the combined CTE's other columns.
    if let Some((_, g)) = reference {
        let by = alias.as_deref().unwrap_or(names[g]);
        let star = (first..list_end)
            .any(|j| toks[j].is_op("*") && (j == first || toks[j - 1].is_op(",") || (toks[j - 1].is_op(".") && j >= 2 && toks[j - 2].ident().is_some_and(|x| x.eq_ignore_ascii_case(by)))));
        if star {
            return None;
        }
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let nulls = |n: usize| ", NULL".repeat(n);
    edits.push((toks[first].start, toks[first].start, format!("{}{}, ", tag, nulls(before))));
    let last = toks[list_end - 1].end;
    edits.push((last, last, nulls(after)));
    let Some((r, g)) = reference else { return Some((spliced(sql, toks, s, e, edits)?, false)) };
    let by = match &alias {
        Some(a) => {
            edits.push((toks[r].start, toks[r].end, COMBINED.to_string()));
            quote(a)
        }
        None => {
            edits.push((toks[r].start, toks[r].end, format!("{} AS {}", COMBINED, quote(names[g]))));
            quote(names[g])
        }
    };
    let test = format!("{}.{} = {}", by, TAG, g);
    match where_at {
        Some(w) => {
            if w + 1 >= where_end {
                return None;
            }
            edits.push((toks[w + 1].start, toks[w + 1].start, "(".to_string()));
            let end = toks[where_end - 1].end;
            edits.push((end, end, format!(") AND {}", test)));
        }
        None => {
            let end = toks[where_end - 1].end;
            edits.push((end, end, format!(" WHERE {}", test)));
        }
    }
    Some((spliced(sql, toks, s, e, edits)?, true))
}

/// The text of tokens `s..e` with `edits` (offsets in `sql`) made.
fn spliced(sql: &str, toks: &[Token], s: usize, e: usize, edits: Vec<(usize, usize, String)>) -> Option<String> {
    let base = toks[s].start;
    let text = &sql[base..toks[e - 1].end];
    splice_edits(text, edits.into_iter().map(|(a, b, t)| (a - base, b - base, t)).collect())
}

#[cfg(test)]
mod tests {
    use super::combine;

    #[test]
    fn two_ctes_become_one() {
        let s = combine("WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT y + 1 FROM b WHERE y < 5), b(y) AS (SELECT x FROM a) SELECT * FROM a").unwrap();
        assert_eq!(
            s,
            "WITH RECURSIVE `ts:mutual`(`ts:tag`, `x`, `y`) AS (SELECT 0, 1, NULL UNION SELECT 0, y + 1, NULL FROM `ts:mutual` AS `b` WHERE (y < 5) AND `b`.`ts:tag` = 1 UNION SELECT 1, NULL, x FROM `ts:mutual` AS `a` WHERE `a`.`ts:tag` = 0), `a`(`x`) AS (SELECT `x` FROM `ts:mutual` WHERE `ts:tag` = 0), `b`(`y`) AS (SELECT `y` FROM `ts:mutual` WHERE `ts:tag` = 1) SELECT * FROM a"
        );
    }

    #[test]
    fn other_shapes_are_left_alone() {
        // Self-recursion only.
        assert_eq!(combine("WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT x + 1 FROM a WHERE x < 5) SELECT * FROM a"), None);
        // The same column name in both.
        assert_eq!(combine("WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT x + 1 FROM b WHERE x < 5), b(x) AS (SELECT x FROM a) SELECT * FROM a"), None);
        // A reference in a subquery.
        assert_eq!(combine("WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT 2 FROM t WHERE 1 IN (SELECT y FROM b)), b(y) AS (SELECT x FROM a) SELECT * FROM a"), None);
        // `*` next to the combined CTE.
        assert_eq!(combine("WITH RECURSIVE a(x) AS (SELECT 1 UNION SELECT * FROM b), b(y) AS (SELECT x FROM a) SELECT * FROM a"), None);
    }
}
