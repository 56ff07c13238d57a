//! A recursive CTE's non-recursive members first, as SQLite requires.
//!
//! MariaDB reads `WITH RECURSIVE r AS (SELECT ... FROM r ... UNION SELECT
//! 1)` with its anchor anywhere among the UNION's members; SQLite takes the
//! members before the first one that names the CTE as its anchor and calls
//! a reference to the CTE there "circular" (and a member that does not name
//! it after one that does, too). So, MySQL text to MySQL text
//! before anything else reads it, the members of such a body are put in
//! order: those that do not name the CTE, then those that do, each keeping
//! its text. Only bodies whose members are joined by one kind of UNION (all
//! ALL or all DISTINCT) move: the result is then the same set or bag in
//! any order. The CTE's column names are the first member's as the client
//! wrote it: when the CTE has no column list, one naming them is added (the
//! first member's aliases or plain column names; with `*` among them no
//! list can be written, and the new first member names the columns).

use crate::cte::{anchor_names, close_of, select_list_end, splice_edits};
use turnstile_sqltext::lex::{self, Token};

/// CTE bodies reordered in one statement at most (a limit like every loop
/// here; past it the rest are left to SQLite).
const MAX_CTES: usize = 64;

/// The statement with the anchors of its recursive CTEs first, or None when
/// none needs it.
pub fn anchors_first(sql: &str) -> Option<String> {
    if !sql.as_bytes().windows(9).any(|w| w.eq_ignore_ascii_case(b"RECURSIVE")) {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_kw("WITH") && toks.get(i + 1).is_some_and(|n| n.is_kw("RECURSIVE")) {
            cte_list(sql, &toks, i + 2, &mut edits);
        }
        if edits.len() >= MAX_CTES {
            break;
        }
    }
    splice_edits(sql, edits)
}

/// The CTEs of one WITH RECURSIVE list starting at token `i`.
fn cte_list(sql: &str, toks: &[Token], mut i: usize, edits: &mut Vec<(usize, usize, String)>) {
    for _ in 0..MAX_CTES {
        let Some(name) = toks.get(i).and_then(|t| t.ident()) else { return };
        let mut j = i + 1;
        let has_columns = toks.get(j).is_some_and(|t| t.is_op("("));
        if has_columns {
            let Some(close) = close_of(toks, j) else { return };
            j = close + 1;
        }
        if !toks.get(j).is_some_and(|t| t.is_kw("AS")) || !toks.get(j + 1).is_some_and(|t| t.is_op("(")) {
            return;
        }
        let open = j + 1;
        let Some(close) = close_of(toks, open) else { return };
        if let Some(body) = reordered(sql, toks, name, open, close) {
            edits.push((toks[open + 1].start, toks[close - 1].end, body.text));
            if let (false, Some(cols)) = (has_columns, body.columns) {
                let at = toks[i].end;
                edits.push((at, at, format!("({})", cols.join(", "))));
            }
        }
        if !toks.get(close + 1).is_some_and(|t| t.is_op(",")) {
            return;
        }
        i = close + 2;
    }
}

/// A CTE body with its members in SQLite's order, and the column list the
/// original first member gives when one can be written.
struct Body {
    text: String,
    columns: Option<Vec<String>>,
}

/// The body of CTE `name` (tokens between `open` and `close`) reordered, or
/// None when its anchors already come first or it cannot move.
fn reordered(sql: &str, toks: &[Token], name: &str, open: usize, close: usize) -> Option<Body> {
    let (members, union_all) = members(toks, open, close)?;
    if members.len() < 2 {
        return None;
    }
    let refers = |&(s, e): &(usize, usize)| {
        toks[s..e].iter().enumerate().any(|(k, t)| t.ident().is_some_and(|x| x.eq_ignore_ascii_case(name)) && !toks.get(s + k + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")))
    };
    // In order already: the members that do not name the CTE, then those that do.
    let first_ref = members.iter().position(refers)?;
    if members[first_ref..].iter().all(refers) {
        return None;
    }
    let (s0, e0) = members[0];
    let names = || anchor_names(toks, s0, select_list_end(toks, s0, e0)).map(|names| names.iter().map(|n| format!("`{}`", n.replace('`', "``"))).collect());
    // The first member keeps its place unless it names the CTE.
    let columns = if first_ref == 0 { names() } else { None };
    let order = members.iter().filter(|m| !refers(m)).chain(members.iter().filter(|m| refers(m)));
    let joiner = if union_all { " UNION ALL " } else { " UNION " };
    let text = order.map(|&(s, e)| &sql[toks[s].start..toks[e - 1].end]).collect::<Vec<_>>().join(joiner);
    Some(Body { text, columns })
}

/// The body's members (token ranges, each a plain SELECT) and whether they
/// are joined by UNION ALL; None when the joins are mixed, another set
/// operator or a clause of the whole body (ORDER BY, LIMIT) is present.
pub(crate) fn members(toks: &[Token], open: usize, close: usize) -> Option<(Vec<(usize, usize)>, bool)> {
    let mut out = Vec::new();
    let mut kind: Option<bool> = None;
    let mut depth = 0usize;
    let mut from = open + 1;
    let mut j = open + 1;
    while j < close {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && (t.is_kw("EXCEPT") || t.is_kw("INTERSECT") || t.is_kw("ORDER") || t.is_kw("LIMIT")) {
            return None;
        } else if depth == 0 && t.is_kw("UNION") {
            let all = toks.get(j + 1).is_some_and(|n| n.is_kw("ALL"));
            if *kind.get_or_insert(all) != all {
                return None;
            }
            out.push((from, j));
            let skip = usize::from(all || toks.get(j + 1).is_some_and(|n| n.is_kw("DISTINCT")));
            from = j + 1 + skip;
            j = from;
            continue;
        }
        j += 1;
    }
    out.push((from, close));
    if out.iter().any(|&(s, e)| s >= e || !toks[s].is_kw("SELECT")) {
        return None;
    }
    Some((out, kind.unwrap_or(false)))
}

#[cfg(test)]
mod tests {
    use super::anchors_first;

    #[test]
    fn the_anchor_moves_first_and_the_names_stay() {
        let s = anchors_first("WITH RECURSIVE cte AS (SELECT n+1 AS n FROM cte WHERE n < 5 UNION SELECT 1) SELECT * FROM cte").unwrap();
        assert_eq!(s, "WITH RECURSIVE cte(`n`) AS (SELECT 1 UNION SELECT n+1 AS n FROM cte WHERE n < 5) SELECT * FROM cte");
    }

    #[test]
    fn leaves_ordered_mixed_and_limited_bodies_alone() {
        assert_eq!(anchors_first("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 3) SELECT * FROM r"), None);
        assert_eq!(anchors_first("WITH RECURSIVE r(n) AS (SELECT n+1 FROM r UNION ALL SELECT 1 UNION SELECT 2) SELECT * FROM r"), None);
        assert_eq!(anchors_first("WITH RECURSIVE r(n) AS (SELECT n+1 FROM r UNION ALL SELECT 1 LIMIT 3) SELECT * FROM r"), None);
        assert_eq!(anchors_first("WITH RECURSIVE r(n) AS (SELECT n+1 FROM r) SELECT * FROM r"), None);
    }

    #[test]
    fn an_anchor_after_a_recursive_member_moves_up() {
        let s = anchors_first("WITH RECURSIVE a AS (SELECT * FROM f WHERE n = 1 UNION SELECT * FROM a UNION SELECT * FROM p) SELECT * FROM a").unwrap();
        assert_eq!(s, "WITH RECURSIVE a AS (SELECT * FROM f WHERE n = 1 UNION SELECT * FROM p UNION SELECT * FROM a) SELECT * FROM a");
    }

    #[test]
    fn a_column_list_is_kept() {
        let s = anchors_first("with recursive r (z) as (select z + 1 from r where z < 2 union all select 1) select z from r").unwrap();
        assert_eq!(s, "with recursive r (z) as (select 1 UNION ALL select z + 1 from r where z < 2) select z from r");
    }
}
