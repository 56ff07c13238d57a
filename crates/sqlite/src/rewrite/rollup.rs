//! `GROUP BY g1, ..., gn WITH ROLLUP`, which SQLite lacks: the query's rows
//! grouped n + 1 times over, by every prefix of the list down to none, the
//! columns left out of a prefix NULL in its rows, each super-aggregate row
//! after the rows it sums up (MariaDB's order).
//!
//! How: the FROM clause is joined with n + 1 levels (`ts_rl.l` = 0 groups by
//! all n, n by none), the rows grouped by the level and by each term where
//! the level keeps it (`CASE WHEN ts_rl.l > n - i THEN NULL ELSE gi END`),
//! and every use of a term outside an aggregate in the select list and
//! HAVING becomes that same CASE, so a rolled-up column reads NULL while
//! COUNT(*) and SUM(x) count each row once per level. Unless the query is a
//! member of a UNION, an ORDER BY puts each term's super-aggregate rows
//! after its groups, in the direction the term was written (`GROUP BY a
//! DESC`). ORDER BY beside ROLLUP is MariaDB's 1221.
//!
//! One ROLLUP per pass (the rewriter runs the passes again on the result),
//! at most `MAX_ROLLUPS` per statement; a form this does not read (no FROM,
//! a `*` in the list, a term position out of range) is left as it is, for
//! the translation to refuse (1064).

use super::having::AGGREGATES;
use super::splice;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{Tok, Token};

/// ROLLUPs one statement may hold.
const MAX_ROLLUPS: usize = 16;
/// Terms one ROLLUP may list (MariaDB's limit on GROUP BY is far larger;
/// each term is one more level the rows are joined with).
const MAX_TERMS: usize = 32;

/// Words before a select list's first item.
const SELECT_OPTIONS: [&str; 11] =
    ["DISTINCT", "ALL", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE", "SQL_NO_CACHE", "SQL_CALC_FOUND_ROWS"];

/// Words that end a query block's last clause.
const BLOCK_END: [&str; 9] = ["LIMIT", "UNION", "INTERSECT", "EXCEPT", "FOR", "LOCK", "INTO", "ORDER", "PROCEDURE"];

/// The statement with its first ROLLUP written out; None without one (or
/// past `MAX_ROLLUPS`, or in a form this does not read).
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Result<Option<String>, SqlError> {
    let rollups: Vec<usize> = (0..toks.len().saturating_sub(1)).filter(|&i| toks[i].is_kw("WITH") && toks[i + 1].is_kw("ROLLUP")).collect();
    let Some(&w) = rollups.first() else { return Ok(None) };
    if rollups.len() > MAX_ROLLUPS {
        return Ok(None);
    }
    let depth = depths(toks);
    let Some(block) = Block::find(toks, &depth, w) else { return Ok(None) };
    block.write(sql, toks, &depth)
}

/// Each token's depth of parentheses.
fn depths(toks: &[Token]) -> Vec<u32> {
    let mut d = 0u32;
    toks.iter()
        .map(|t| {
            if t.is_op(")") {
                d = d.saturating_sub(1);
            }
            let here = d;
            if t.is_op("(") {
                d += 1;
            }
            here
        })
        .collect()
}

/// The query block of one ROLLUP, by token positions.
struct Block {
    /// The select items (expression, alias).
    items: Vec<Item>,
    /// WHERE or GROUP: where the FROM clause ends.
    from_end: usize,
    /// GROUP and WITH.
    group: usize,
    with: usize,
    /// The terms: tokens, descending.
    terms: Vec<((usize, usize), bool)>,
    having: Option<usize>,
    /// Where the block's last clause ends.
    end: usize,
    order_by: Option<usize>,
    in_union: bool,
}

#[derive(Clone, Copy)]
struct Item {
    /// The expression's tokens (the alias left out).
    expr: (usize, usize),
    alias: Option<usize>,
}

impl Block {
    fn find(toks: &[Token], depth: &[u32], w: usize) -> Option<Block> {
        let d = depth[w];
        let at_d = |j: usize| depth[j] == d;
        let group = (0..w).rev().find(|&j| at_d(j) && toks[j].is_kw("GROUP") && toks.get(j + 1).is_some_and(|t| t.is_kw("BY")))?;
        let select = (0..group).rev().find(|&j| at_d(j) && toks[j].is_kw("SELECT"))?;
        let from = (select + 1..group).find(|&j| at_d(j) && toks[j].is_kw("FROM"))?;
        let from_end = (from + 1..group).find(|&j| at_d(j) && toks[j].is_kw("WHERE")).unwrap_or(group);
        let mut first = select + 1;
        while first < from && SELECT_OPTIONS.iter().any(|k| toks[first].is_kw(k)) {
            first += 1;
        }
        let items = split(toks, depth, d, first, from).into_iter().map(|r| item(toks, depth, d, r)).collect::<Option<Vec<_>>>()?;
        let mut terms = Vec::new();
        for (s, e) in split(toks, depth, d, group + 2, w) {
            let desc = e > s + 1 && toks[e - 1].is_kw("DESC");
            let e = if e > s + 1 && (toks[e - 1].is_kw("DESC") || toks[e - 1].is_kw("ASC")) { e - 1 } else { e };
            terms.push(((s, e), desc));
        }
        if terms.is_empty() || terms.len() > MAX_TERMS {
            return None;
        }
        let end = (w + 2..toks.len()).find(|&j| depth[j] < d || (at_d(j) && (toks[j].is_op(";") || BLOCK_END.iter().any(|k| toks[j].is_kw(k))))).unwrap_or(toks.len());
        let having = (w + 2..end).find(|&j| at_d(j) && toks[j].is_kw("HAVING"));
        let order_by = (end < toks.len() && toks[end].is_kw("ORDER")).then_some(end);
        // A set operation beside it: within the parentheses the block is in.
        let set_op = |j: usize| at_d(j) && (toks[j].is_kw("UNION") || toks[j].is_kw("INTERSECT") || toks[j].is_kw("EXCEPT"));
        let in_union = (0..select).rev().take_while(|&j| depth[j] >= d).any(set_op) || (w..toks.len()).take_while(|&j| depth[j] >= d).any(set_op);
        Some(Block { items, from_end, group, with: w, terms, having, end, order_by, in_union })
    }

    fn write(&self, sql: &str, toks: &[Token], depth: &[u32]) -> Result<Option<String>, SqlError> {
        if self.order_by.is_some() && !self.in_union {
            return Err(SqlError::new(1221, "HY000", "Incorrect usage of CUBE/ROLLUP and ORDER BY"));
        }
        // Each term as the tokens it stands for (a position or an alias: the item's).
        let mut terms = Vec::with_capacity(self.terms.len());
        for &((s, e), desc) in &self.terms {
            let Some(t) = self.resolve(toks, s, e) else { return Ok(None) };
            terms.push((t, desc));
        }
        let n = terms.len();
        let rolled = |i: usize, text: &str| format!("(CASE WHEN ts_rl.l > {} THEN NULL ELSE {} END)", n - 1 - i, text);
        let mut edits = Vec::new();
        for it in &self.items {
            uses(sql, toks, depth, it.expr, &terms, &rolled, &mut edits);
        }
        let levels: Vec<String> = (0..=n).map(|l| format!("SELECT {} AS l", l)).collect();
        edits.push((toks[self.from_end].start, toks[self.from_end].start, format!("CROSS JOIN ({}) AS ts_rl ", levels.join(" UNION ALL "))));
        let keys: Vec<String> = terms.iter().enumerate().map(|(i, ((s, e), _))| rolled(i, &sql[toks[*s].start..toks[e - 1].end])).collect();
        edits.push((toks[self.group + 2].start, toks[self.with + 1].end, format!("ts_rl.l, {}", keys.join(", "))));
        if let Some(h) = self.having {
            uses(sql, toks, depth, (h + 1, self.end), &terms, &rolled, &mut edits);
        }
        if !self.in_union {
            let order: Vec<String> =
                terms.iter().enumerate().map(|(i, ((s, e), desc))| format!("ts_rl.l > {}, {}{}", n - 1 - i, &sql[toks[*s].start..toks[e - 1].end], if *desc { " DESC" } else { "" })).collect();
            let at = toks.get(self.end).map_or(sql.len(), |t| t.start);
            let text = format!(" ORDER BY {} ", order.join(", "));
            edits.push((at, at, text));
        }
        edits.sort_by_key(|e| (e.0, e.1));
        if edits.windows(2).any(|w| w[1].0 < w[0].1) {
            return Ok(None);
        }
        Ok(splice(sql, edits))
    }

    /// The tokens term `s..e` stands for: the item at a position, the
    /// item an alias names, else itself; None for a position out of range.
    fn resolve(&self, toks: &[Token], s: usize, e: usize) -> Option<(usize, usize)> {
        if e == s + 1 {
            if let Tok::Number(k) = &toks[s].tok {
                let it = k.parse::<usize>().ok().and_then(|k| k.checked_sub(1)).and_then(|k| self.items.get(k))?;
                return Some(it.expr);
            }
            if let Tok::Word(w) | Tok::Quoted(w) = &toks[s].tok {
                let named = self.items.iter().find(|it| it.alias.is_some_and(|a| matches!(&toks[a].tok, Tok::Word(x) | Tok::Quoted(x) if x.eq_ignore_ascii_case(w))));
                if let Some(it) = named {
                    return Some(it.expr);
                }
            }
        }
        Some((s, e))
    }
}

/// The top-level (depth `d`) comma-separated parts of tokens `s..e`.
fn split(toks: &[Token], depth: &[u32], d: u32, s: usize, e: usize) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut start = s;
    for j in s..e {
        if depth[j] == d && toks[j].is_op(",") {
            parts.push((start, j));
            start = j + 1;
        }
    }
    if start < e {
        parts.push((start, e));
    }
    parts
}

/// A select item: its expression and alias (`AS x`, or a name after the
/// expression); None for `*` or an empty item.
fn item(toks: &[Token], depth: &[u32], d: u32, (s, e): (usize, usize)) -> Option<Item> {
    if e <= s || toks[s..e].iter().any(|t| t.is_op("*")) && e - s <= 3 && toks[e - 1].is_op("*") {
        return None;
    }
    if e - s >= 3 && depth[e - 2] == d && toks[e - 2].is_kw("AS") {
        return Some(Item { expr: (s, e - 2), alias: Some(e - 1) });
    }
    let named = e - s >= 2
        && matches!(toks[e - 1].tok, Tok::Word(_) | Tok::Quoted(_))
        && !["END", "NULL", "TRUE", "FALSE", "UNKNOWN"].iter().any(|k| toks[e - 1].is_kw(k))
        && (toks[e - 2].is_op(")") || matches!(toks[e - 2].tok, Tok::Number(_) | Tok::Str(_) | Tok::Quoted(_)) || matches!(&toks[e - 2].tok, Tok::Word(w) if !is_operator_word(w)));
    if named && !toks[e - 2].is_op(".") {
        return Some(Item { expr: (s, e - 1), alias: Some(e - 1) });
    }
    Some(Item { expr: (s, e), alias: None })
}

/// Words that join two operands (a name after one is no alias).
fn is_operator_word(w: &str) -> bool {
    ["AND", "OR", "XOR", "NOT", "IS", "LIKE", "REGEXP", "RLIKE", "IN", "BETWEEN", "DIV", "MOD", "CASE", "WHEN", "THEN", "ELSE", "BINARY", "INTERVAL", "DISTINCT", "ESCAPE", "SOUNDS"]
        .iter()
        .any(|k| w.eq_ignore_ascii_case(k))
}

/// Edits turning each use of a term in tokens `s..e` (outside aggregate
/// calls, DEFAULT(...) and subqueries) into `rolled(i, its text)`.
fn uses(sql: &str, toks: &[Token], depth: &[u32], (s, e): (usize, usize), terms: &[((usize, usize), bool)], rolled: &dyn Fn(usize, &str) -> String, edits: &mut Vec<(usize, usize, String)>) {
    let mut j = s;
    while j < e {
        let t = &toks[j];
        let call = toks.get(j + 1).is_some_and(|n| n.is_op("("));
        let subquery = t.is_op("(") && toks.get(j + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH"));
        // An aggregate's argument, DEFAULT(col) and VALUE(col) name the column itself.
        let kept = |w: &str| AGGREGATES.iter().chain(&["DEFAULT", "VALUE", "VALUES"]).any(|a| w.eq_ignore_ascii_case(a));
        if (call && matches!(&t.tok, Tok::Word(w) if kept(w))) || subquery {
            // Skip to the call's (or subquery's) closing parenthesis.
            let open = if subquery { j } else { j + 1 };
            let d = depth[open];
            j = (open + 1..e).find(|&k| depth[k] == d && toks[k].is_op(")")).map_or(e, |k| k + 1);
            continue;
        }
        if let Some((i, len)) = matching(toks, j, e, terms) {
            let after_as = j > 0 && toks[j - 1].is_kw("AS");
            if !after_as {
                let text = &sql[toks[j].start..toks[j + len - 1].end];
                edits.push((toks[j].start, toks[j + len - 1].end, rolled(i, text)));
                j += len;
                continue;
            }
        }
        j += 1;
    }
}

/// The term (its index) whose tokens start at `j`, and how many tokens
/// match: the same tokens, or the same column named with or without its
/// table (`t1.a` for `a`, `a` for `t1.a`).
fn matching(toks: &[Token], j: usize, e: usize, terms: &[((usize, usize), bool)]) -> Option<(usize, usize)> {
    let name_at = |k: usize| -> Option<&str> {
        match &toks.get(k)?.tok {
            Tok::Word(w) | Tok::Quoted(w) => Some(w),
            _ => None,
        }
    };
    // A column here: `q.a` (3 tokens) or `a` not after a `.` nor before `(` or `.`.
    let here: Option<(Option<&str>, &str, usize)> = if j + 2 < e && toks[j + 1].is_op(".") {
        name_at(j).zip(name_at(j + 2)).filter(|_| !toks.get(j + 3).is_some_and(|t| t.is_op("(") || t.is_op("."))).map(|(q, a)| (Some(q), a, 3))
    } else if !(toks.get(j + 1).is_some_and(|t| t.is_op("(") || t.is_op(".")) || j > 0 && toks[j - 1].is_op(".")) {
        name_at(j).map(|a| (None, a, 1))
    } else {
        None
    };
    for (i, ((s, te), _)) in terms.iter().enumerate() {
        let len = te - s;
        // A column term against a column here.
        let term_col = match len {
            1 => name_at(*s).map(|a| (None, a)),
            3 if toks[s + 1].is_op(".") => name_at(*s).zip(name_at(s + 2)).map(|(q, a)| (Some(q), a)),
            _ => None,
        };
        if let (Some((tq, ta)), Some((hq, ha, hlen))) = (term_col, here) {
            let same_table = match (tq, hq) {
                (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
                _ => true,
            };
            if same_table && ta.eq_ignore_ascii_case(ha) && !is_keyword_value(ha) {
                return Some((i, hlen));
            }
            continue;
        }
        if len > 1 && j + len <= e && (0..len).all(|k| same_token(&toks[s + k], &toks[j + k])) {
            return Some((i, len));
        }
    }
    None
}

fn same_token(a: &Token, b: &Token) -> bool {
    match (&a.tok, &b.tok) {
        (Tok::Word(x), Tok::Word(y)) | (Tok::Quoted(x), Tok::Quoted(y)) | (Tok::Word(x), Tok::Quoted(y)) | (Tok::Quoted(x), Tok::Word(y)) => x.eq_ignore_ascii_case(y),
        (x, y) => x == y,
    }
}

/// Words that are values, never a column (`NULL`, `TRUE`).
fn is_keyword_value(w: &str) -> bool {
    ["NULL", "TRUE", "FALSE", "UNKNOWN"].iter().any(|k| w.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sql: &str) -> Option<String> {
        let toks = turnstile_sqltext::lex::tokenize(sql).unwrap();
        rewrite(sql, &toks).unwrap()
    }

    #[test]
    fn rollup_written_out() {
        assert_eq!(
            run("SELECT b, COUNT(*) FROM t2 GROUP BY b WITH ROLLUP").as_deref(),
            Some("SELECT (CASE WHEN ts_rl.l > 0 THEN NULL ELSE b END), COUNT(*) FROM t2 CROSS JOIN (SELECT 0 AS l UNION ALL SELECT 1 AS l) AS ts_rl GROUP BY ts_rl.l, (CASE WHEN ts_rl.l > 0 THEN NULL ELSE b END) ORDER BY ts_rl.l > 0, b ")
        );
        // Positions and aliases name items; a term inside an aggregate stays.
        let two = run("SELECT a AS x, t.b, SUM(b) FROM t WHERE a > 0 GROUP BY 1, b DESC WITH ROLLUP HAVING x > 1 LIMIT 3").unwrap();
        assert!(two.contains("GROUP BY ts_rl.l, (CASE WHEN ts_rl.l > 1 THEN NULL ELSE a END), (CASE WHEN ts_rl.l > 0 THEN NULL ELSE b END)"), "{}", two);
        assert!(two.contains("(CASE WHEN ts_rl.l > 0 THEN NULL ELSE t.b END), SUM(b)"), "{}", two);
        assert!(two.contains("CROSS JOIN (SELECT 0 AS l UNION ALL SELECT 1 AS l UNION ALL SELECT 2 AS l) AS ts_rl WHERE a > 0"), "{}", two);
        assert!(two.ends_with("ORDER BY ts_rl.l > 1, a, ts_rl.l > 0, b DESC LIMIT 3"), "{}", two);
        // A UNION member gets no ORDER BY of its own.
        let u = run("SELECT a, 1 FROM t1 UNION SELECT b, COUNT(*) FROM t2 GROUP BY b WITH ROLLUP ORDER BY a").unwrap();
        assert!(u.ends_with("GROUP BY ts_rl.l, (CASE WHEN ts_rl.l > 0 THEN NULL ELSE b END) ORDER BY a"), "{}", u);
    }

    #[test]
    fn long_statements_take_linear_time() {
        // Many set operations and many uses of a term: one pass each, no rescans.
        let unions = format!("SELECT a FROM t GROUP BY a WITH ROLLUP{}", " UNION SELECT 1".repeat(50_000));
        let items = format!("SELECT {} FROM t GROUP BY a WITH ROLLUP", vec!["a + a"; 20_000].join(", "));
        for sql in [unions, items] {
            let started = std::time::Instant::now();
            assert!(run(&sql).is_some());
            assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        }
    }

    #[test]
    fn order_by_beside_rollup_is_1221() {
        let sql = "SELECT b FROM t GROUP BY b WITH ROLLUP ORDER BY b";
        let toks = turnstile_sqltext::lex::tokenize(sql).unwrap();
        assert_eq!(rewrite(sql, &toks).unwrap_err().code, 1221);
        assert_eq!(run("SELECT * FROM t GROUP BY b WITH ROLLUP"), None);
        assert_eq!(run("SELECT b FROM t GROUP BY 3 WITH ROLLUP"), None);
        assert_eq!(run("SELECT 1 GROUP BY 1 WITH ROLLUP"), None);
    }
}
