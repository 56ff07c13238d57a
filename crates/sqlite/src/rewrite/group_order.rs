//! `GROUP BY a DESC, b ASC`: MariaDB's (and MySQL 5's) GROUP BY with a
//! direction per item, which sorts the groups that way. SQLite takes no
//! direction there, so the text is rewritten before the translation: the
//! directions leave the GROUP BY and, when the same SELECT has no ORDER BY of
//! its own, an `ORDER BY a DESC, b ASC` is added after its HAVING (an ORDER
//! BY of the statement's decides the order, as in MariaDB). A GROUP BY
//! without a direction is left as it is.

use turnstile_sqltext::lex::Token;
use turnstile_sqltext::parens;

/// Words that end a GROUP BY list or a HAVING clause (at the same depth).
const GROUP_END: [&str; 10] = ["HAVING", "ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "INTO"];
const HAVING_END: [&str; 9] = ["ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "INTO"];

/// `sql` with each GROUP BY's directions moved to an ORDER BY, or None when
/// no GROUP BY has one.
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    let mut edits = Vec::new();
    let mut i = 0;
    while i + 1 < toks.len() {
        if toks[i].is_kw("GROUP") && toks[i + 1].is_kw("BY") {
            if let Some(more) = one_group_by(sql, toks, i + 2) {
                edits.extend(more);
            }
        }
        i += 1;
    }
    // In text order (a GROUP BY in a HAVING's subquery comes after the ORDER
    // BY written for the outer one). Edits that overlap (a list the scan read
    // past, in text no parser would take) leave the statement as it is, for
    // the translation to refuse.
    edits.sort_by_key(|e| (e.0, e.1));
    if edits.windows(2).any(|w| w[1].0 < w[0].1) {
        return None;
    }
    super::splice(sql, edits)
}

/// The edits for the GROUP BY list starting at token `start`.
fn one_group_by(sql: &str, toks: &[Token], start: usize) -> Option<Vec<(usize, usize, String)>> {
    // The list's items as token ranges, split at top-level commas.
    let mut items = Vec::new();
    let mut item_start = start;
    let mut i = start;
    let end = loop {
        let Some(t) = toks.get(i) else { break i };
        if t.is_op("(") {
            i = parens::closing(toks, i)? + 1;
            continue;
        }
        if t.is_op(")") || t.is_op(";") || GROUP_END.iter().any(|k| t.is_kw(k)) || (t.is_kw("WITH") && toks.get(i + 1).is_some_and(|n| n.is_kw("ROLLUP"))) {
            break i;
        }
        if t.is_op(",") {
            items.push((item_start, i));
            item_start = i + 1;
        }
        i += 1;
    };
    items.push((item_start, end));
    let mut edits = Vec::new();
    let mut keys = Vec::new();
    for (s, e) in items {
        // An empty item, or a direction alone, is SQLite's syntax error to report.
        if e <= s + usize::from(toks[e - 1].is_kw("ASC") || toks[e - 1].is_kw("DESC")) {
            return None;
        }
        let last = &toks[e - 1];
        match [("ASC", last.is_kw("ASC")), ("DESC", last.is_kw("DESC"))].into_iter().find(|d| d.1) {
            Some((dir, _)) => {
                keys.push(format!("{} {}", &sql[toks[s].start..toks[e - 2].end], dir));
                edits.push((toks[e - 2].end, last.end, String::new()));
            }
            None => keys.push(sql[toks[s].start..last.end].to_string()),
        }
    }
    if edits.is_empty() {
        return None;
    }
    // The statement's own ORDER BY (after a HAVING) decides; else the groups' order.
    let mut at = end;
    if toks.get(at).is_some_and(|t| t.is_kw("HAVING")) {
        at += 1;
        while let Some(t) = toks.get(at) {
            if t.is_op("(") {
                at = parens::closing(toks, at)? + 1;
                continue;
            }
            if t.is_op(")") || t.is_op(";") || HAVING_END.iter().any(|k| t.is_kw(k)) {
                break;
            }
            at += 1;
        }
    }
    if !toks.get(at).is_some_and(|t| t.is_kw("ORDER")) {
        let pos = toks[at - 1].end;
        edits.push((pos, pos, format!(" ORDER BY {}", keys.join(", "))));
    }
    Some(edits)
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use turnstile_sqltext::lex::tokenize;

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &tokenize(sql).unwrap())
    }

    #[test]
    fn directions_become_an_order_by() {
        assert_eq!(run("SELECT a, COUNT(*) FROM t GROUP BY a DESC").as_deref(), Some("SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY a DESC"));
        assert_eq!(run("SELECT a FROM t GROUP BY a DESC, b HAVING COUNT(*) > 1 LIMIT 2").as_deref(), Some("SELECT a FROM t GROUP BY a, b HAVING COUNT(*) > 1 ORDER BY a DESC, b LIMIT 2"));
        assert_eq!(run("SELECT a FROM t GROUP BY a ASC ORDER BY a").as_deref(), Some("SELECT a FROM t GROUP BY a ORDER BY a"));
        assert_eq!(run("SELECT f(a, b) FROM t GROUP BY f(a, b) DESC").as_deref(), Some("SELECT f(a, b) FROM t GROUP BY f(a, b) ORDER BY f(a, b) DESC"));
        assert_eq!(run("SELECT a FROM t GROUP BY a"), None);
        assert_eq!(run("SELECT a FROM t GROUP BY DESC"), None);
        assert_eq!(run("SELECT a FROM t GROUP BY"), None);
        // A HAVING's subquery with its own GROUP BY ... DESC: the edits in text order.
        assert_eq!(
            run("SELECT a FROM t GROUP BY a DESC HAVING a > (SELECT b FROM u GROUP BY b DESC LIMIT 1)").as_deref(),
            Some("SELECT a FROM t GROUP BY a HAVING a > (SELECT b FROM u GROUP BY b ORDER BY b DESC LIMIT 1) ORDER BY a DESC")
        );
        // Found by the rewrite fuzz target (its input is a seed): GROUP BY lists the scan reads across.
        let crash = String::from_utf8_lossy(include_bytes!("../../../../fuzz/corpus/rewrite/seed-group-by-overlap")).into_owned();
        let _ = rewrite(&crash, &tokenize(&crash).unwrap());
    }
}
