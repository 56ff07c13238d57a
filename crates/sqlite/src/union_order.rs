//! The rows of a UNION (DISTINCT) in the order MariaDB returns them: each
//! row where it was first seen, members left to right.
//!
//! Why: SQLite removes duplicates through an index and hands the rows back
//! in that index's order, sorted: `SELECT 1 UNION SELECT 0` gave 0, 1 where
//! MariaDB gives 1, 0 (go-sql-driver's TestStmtMultiRows), and the common
//! `SELECT 0, 'All' UNION SELECT id, name FROM t` lost its first row's place.
//! SQL leaves the order open without ORDER BY, but applications count on it.
//!
//! How: a top-level chain of plain UNIONs without ORDER BY is run as its
//! UNION ALL, numbered in the order it is read, grouped by every column
//! (grouping compares as UNION compares: NULLs equal, the left member's
//! collations) and ordered by each group's first number; a LIMIT stays at
//! the end. The caller compiles both and keeps this one only when its result
//! columns are described as the plain UNION's are (names, declared types,
//! origins) and it has as many parameters (the first member is read twice,
//! so one with a `?` stays as it was), so nothing a client sees changes.

use turnstile_sqltext::lex::{self, Token};

/// Names the rewriting uses; a client's query cannot name `ts_` objects
/// (rewrite refuses them), so they cannot collide.
const CTE: &str = "\"_ts_union\"";
const ORDER: &str = "\"_ts_seen\"";

/// `sql` (SQLite's text of a SELECT) written to return its rows in the order
/// they are first seen, or None when it is not a chain of plain UNIONs
/// (UNION ALL, INTERSECT or EXCEPT among them, a WITH, a top-level ORDER BY).
/// `names`: the result columns' names as the plain query has them.
pub fn first_seen(sql: &str, names: &[String]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let mut end = toks.len();
    while end > 0 && toks[end - 1].is_op(";") {
        end -= 1;
    }
    let toks = &toks[..end];
    if !toks.first()?.is_kw("SELECT") {
        return None;
    }
    let (unions, limit) = top_level(toks)?;
    if unions.is_empty() {
        return None;
    }
    let body_end = limit.map_or(toks[end - 1].end, |l| toks[l].start);
    let mut body = String::with_capacity(sql.len() + 16);
    let mut at = 0;
    for &(u, distinct) in &unions {
        body.push_str(&sql[at..toks[u].start]);
        body.push_str("UNION ALL");
        at = if distinct { toks[u + 1].end } else { toks[u].end };
    }
    body.push_str(sql[at..body_end].trim_end());
    // SQLite describes a compound's columns by its last member when it is
    // read as a table (declared type, origin) and by its first one when it
    // is the query: a last member that is the first one again, reading no
    // row, keeps the description the client would have had.
    let first = sql[..toks[unions[0].0].start].trim_end();
    body.push_str(&format!(" UNION ALL SELECT * FROM ({}) WHERE 0", first));
    let tail = limit.map_or(String::new(), |l| format!(" {}", &sql[toks[l].start..toks[end - 1].end]));
    let cols: Vec<String> = (1..=names.len()).map(|i| format!("\"_ts_c{}\"", i)).collect();
    let outer: Vec<String> = cols.iter().zip(names).map(|(c, n)| format!("{} AS \"{}\"", c, n.replace('"', "\"\""))).collect();
    Some(format!(
        "WITH {cte}({cols}) AS ({body}) SELECT {outer} FROM (SELECT *, row_number() OVER () AS {order} FROM {cte}) GROUP BY {cols} ORDER BY min({order}){tail}",
        cte = CTE,
        cols = cols.join(", "),
        body = body,
        outer = outer.join(", "),
        order = ORDER,
        tail = tail,
    ))
}

/// The top-level UNIONs (token index, followed by DISTINCT) and where a
/// top-level LIMIT starts; None for anything this does not rewrite.
#[allow(clippy::type_complexity)]
fn top_level(toks: &[Token]) -> Option<(Vec<(usize, bool)>, Option<usize>)> {
    let mut depth = 0usize;
    let mut unions = Vec::new();
    let mut limit = None;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth > 0 {
            continue;
        } else if t.is_kw("UNION") {
            let next = toks.get(i + 1)?;
            if next.is_kw("ALL") || limit.is_some() {
                return None;
            }
            unions.push((i, next.is_kw("DISTINCT")));
        } else if t.is_kw("INTERSECT") || t.is_kw("EXCEPT") || t.is_kw("ORDER") || t.is_kw("WINDOW") {
            return None;
        } else if t.is_kw("LIMIT") && limit.is_none() {
            limit = Some(i);
        }
    }
    Some((unions, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plain_unions_are_rewritten() {
        let got = first_seen("SELECT 1 UNION SELECT 0", &names(&["1"])).unwrap();
        assert_eq!(got, "WITH \"_ts_union\"(\"_ts_c1\") AS (SELECT 1 UNION ALL SELECT 0 UNION ALL SELECT * FROM (SELECT 1) WHERE 0) SELECT \"_ts_c1\" AS \"1\" FROM (SELECT *, row_number() OVER () AS \"_ts_seen\" FROM \"_ts_union\") GROUP BY \"_ts_c1\" ORDER BY min(\"_ts_seen\")");
        let got = first_seen("SELECT a, b FROM t UNION DISTINCT SELECT c, d FROM u LIMIT 2;", &names(&["a", "x\"y"])).unwrap();
        assert!(got.contains("(SELECT a, b FROM t UNION ALL SELECT c, d FROM u UNION ALL SELECT * FROM (SELECT a, b FROM t) WHERE 0)"), "{}", got);
        assert!(got.contains("\"_ts_c2\" AS \"x\"\"y\""), "{}", got);
        assert!(got.ends_with("ORDER BY min(\"_ts_seen\") LIMIT 2"), "{}", got);
        // A member's own parentheses, ORDER BY and LIMIT stay inside it.
        let got = first_seen("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 1) UNION SELECT b FROM u", &names(&["a"])).unwrap();
        assert!(got.contains("(SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL SELECT b FROM u UNION ALL"), "{}", got);
    }

    #[test]
    fn other_queries_are_left_alone() {
        for sql in [
            "SELECT 1",
            "SELECT 1 UNION ALL SELECT 2",
            "SELECT 1 UNION SELECT 2 UNION ALL SELECT 3",
            "SELECT 1 UNION SELECT 2 ORDER BY 1",
            "SELECT 1 INTERSECT SELECT 1",
            "SELECT 1 EXCEPT SELECT 2",
            "WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2",
            "VALUES (1) UNION SELECT 2",
            "SELECT (SELECT 1 UNION SELECT 2)",
        ] {
            assert_eq!(first_seen(sql, &names(&["a"])), None, "{}", sql);
        }
    }
}
