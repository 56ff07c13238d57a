//! Aggregates that MariaDB computes in another query than the one they are
//! written in (its `Item_sum::check_sum_func`): an aggregate whose arguments
//! name only an outer query's columns belongs to that query, and where a
//! query may not aggregate (WHERE, ON, GROUP BY; anywhere in an UPDATE or
//! DELETE) the aggregate moves to the nearest query that may. SQLite finds
//! the query an aggregate's columns belong to as well, but two cases it
//! refuses ("misuse of aggregate", 1111) where MariaDB answers:
//!
//! - an aggregate of an outer query's columns in a subquery's WHERE, ON or
//!   GROUP BY (`HAVING a IN (SELECT c FROM t2 WHERE MAX(t1.b) > 20)`):
//!   SQLite checks the subquery's own clause first. Written as a scalar
//!   subquery of its own, `(SELECT MAX(t1.b))`, the call stands in a select
//!   list, and SQLite still gives it to the query of `t1`;
//! - an aggregate of the outer query's columns in a subquery (of a SELECT's
//!   WHERE, ON or GROUP BY, or of an UPDATE or DELETE), where the outer query
//!   may not aggregate (`UPDATE t1 SET i = i + 1 WHERE i = (SELECT MAX(i))`):
//!   MariaDB aggregates it in the subquery itself. Its argument is made to
//!   name the subquery's own row, `MAX(CASE WHEN ts_lvl.k THEN i END)` with a
//!   one-row `(SELECT 1 AS k) AS ts_lvl` joined to the subquery's FROM.
//!   Not under sql_mode ANSI, where MariaDB refuses it (1111) as SQLite does.
//!   A column is the outer query's when its qualifier is none of the
//!   subquery's FROM names, or, unqualified, when the subquery has no FROM or
//!   none of its tables (all known to the schema) has the column.
//!
//! One pass over the tokens with a stack of open parentheses: linear in the
//! statement's length, no recursion. Aggregates whose arguments name no
//! column (`COUNT(*)`), or hold a subquery, are left alone.

use super::{Resolver, TableDef};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use turnstile_sqltext::lex::{Tok, Token};
use turnstile_sqltext::sql_mode::SqlMode;

/// MariaDB's aggregate functions.
const AGGREGATES: [&str; 19] = [
    "AVG",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "COUNT",
    "GROUP_CONCAT",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
    "MAX",
    "MIN",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "SUM",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "MEDIAN",
];

/// Words in an aggregate's arguments that name no column.
const NOT_COLUMNS: [&str; 40] = [
    "DISTINCT",
    "ALL",
    "NULL",
    "TRUE",
    "FALSE",
    "AS",
    "ORDER",
    "BY",
    "ASC",
    "DESC",
    "SEPARATOR",
    "AND",
    "OR",
    "NOT",
    "XOR",
    "IS",
    "IN",
    "LIKE",
    "BETWEEN",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "INTERVAL",
    "DIV",
    "MOD",
    "BINARY",
    "COLLATE",
    "UNKNOWN",
    "ESCAPE",
    "REGEXP",
    "RLIKE",
    "SOUNDS",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "SIGNED",
    "UNSIGNED",
    "CHAR",
];

/// Words that start a clause of a SELECT (at its own depth).
const CLAUSE_ENDS: [&str; 12] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "INTO"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Clause {
    /// Before a SELECT's first clause, or what is not a SELECT's.
    Other,
    Select,
    From,
    On,
    Where,
    GroupBy,
    Having,
    Order,
    /// Anywhere in an UPDATE or DELETE.
    Write,
}

impl Clause {
    /// MariaDB refuses an aggregate of this clause's own query here.
    fn refuses(self) -> bool {
        matches!(self, Clause::On | Clause::Where | Clause::GroupBy | Clause::Write)
    }
}

/// An open parenthesis (or the statement itself).
struct Frame {
    /// Opens a SELECT (the statement's frame counts as one).
    select: bool,
    clause: Clause,
    /// SELECTs around this one, the statement's counted (0 for it).
    level: usize,
    /// Its `(` (the statement's: none).
    open: Option<usize>,
    /// The clause of the enclosing SELECT where this parenthesis opens.
    parent_clause: Clause,
}

/// `sql` with its aggregates placed as MariaDB places them, or None when
/// none needs it.
pub(super) fn rewrite(sql: &str, toks: &[Token], resolver: &dyn Resolver) -> Option<String> {
    let ansi = resolver.sql_mode().has(SqlMode::ANSI);
    let close = closings(toks)?;
    let first = toks.first()?;
    let write = first.is_kw("UPDATE") || first.is_kw("DELETE");
    let mut frames = vec![Frame { select: true, clause: if write { Clause::Write } else { Clause::Other }, level: 0, open: None, parent_clause: Clause::Other }];
    // Innermost SELECT frame's index in `frames`, per frame.
    let mut selects: Vec<usize> = vec![0];
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // Frames (by their `(`) given a ts_lvl row already.
    let mut given_row: HashSet<usize> = HashSet::new();
    // Each subquery's sources, read once (by its `(`).
    let mut sources: HashMap<usize, Option<Sources>> = HashMap::new();
    // The arguments of an aggregate already looked at are not looked at
    // again for aggregates of their own: every token is read by at most one
    // aggregate's scan (linear however deep aggregates nest).
    let mut skip_until = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            let sel_frame = &frames[*selects.last()?];
            let opens_select = toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT"));
            let (level, parent_clause) = (sel_frame.level + usize::from(opens_select), sel_frame.clause);
            frames.push(Frame { select: opens_select, clause: if opens_select { Clause::Other } else { parent_clause }, level, open: Some(i), parent_clause });
            if opens_select {
                selects.push(frames.len() - 1);
            }
            continue;
        }
        if t.is_op(")") {
            if frames.len() > 1 {
                let f = frames.pop()?;
                if f.select {
                    selects.pop();
                }
            }
            continue;
        }
        let top = frames.last_mut()?;
        if top.select && top.clause != Clause::Write {
            if let Some(c) = clause_at(toks, i) {
                top.clause = c;
                continue;
            }
        }
        if i < skip_until {
            continue;
        }
        let Some(open) = aggregate_call(toks, i) else { continue };
        let end = close[open];
        skip_until = end + 1;
        if toks.get(end + 1).is_some_and(|n| n.is_kw("OVER") || n.is_kw("FILTER")) {
            continue;
        }
        let args = &toks[open + 1..end];
        if !names_a_column(args) || args.iter().any(|a| a.is_kw("SELECT")) {
            continue;
        }
        let sel = &frames[*selects.last()?];
        if sel.level >= 1 && sel.clause.refuses() && sel.clause != Clause::Write {
            // The first case: its own scalar subquery.
            edits.push((t.start, t.start, "(SELECT ".to_string()));
            edits.push((toks[end].end, toks[end].end, ")".to_string()));
            continue;
        }
        // The second: a subquery of the statement's query, in a clause of it
        // that may not aggregate, the aggregate in the subquery's select
        // list, HAVING or ORDER BY, naming only outer columns.
        if ansi || sel.level != 1 || !sel.parent_clause.refuses() || !matches!(sel.clause, Clause::Select | Clause::Having | Clause::Order) {
            continue;
        }
        let Some(sub_open) = sel.open else { continue };
        let sub_close = close[sub_open];
        let Some(own) = sources.entry(sub_open).or_insert_with(|| own_sources(toks, sub_open + 1, sub_close, resolver)).as_ref() else { continue };
        if !only_outer(args, own) {
            continue;
        }
        let Some(from) = expression_start(args) else { continue };
        let from_tok = open + 1 + from;
        edits.push((toks[from_tok].start, toks[from_tok].start, "CASE WHEN ts_lvl.k THEN ".to_string()));
        edits.push((toks[end].start, toks[end].start, " END".to_string()));
        if given_row.insert(sub_open) {
            let at = toks[own.end - 1].end;
            let text = if own.has_from { ", (SELECT 1 AS k) AS ts_lvl" } else { " FROM (SELECT 1 AS k) AS ts_lvl" };
            edits.push((at, at, text.to_string()));
        }
    }
    edits.sort_by_key(|e| (e.0, e.1));
    super::splice(sql, edits)
}

/// The `)` closing each `(` (by index; other entries unused), or None when
/// the parentheses do not pair.
fn closings(toks: &[Token]) -> Option<Vec<usize>> {
    let mut close = vec![0usize; toks.len()];
    let mut open = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(i);
        } else if t.is_op(")") {
            close[open.pop()?] = i;
        }
    }
    open.is_empty().then_some(close)
}

/// The clause the word at `i` starts, when it starts one.
fn clause_at(toks: &[Token], i: usize) -> Option<Clause> {
    let t = &toks[i];
    let by_follows = toks.get(i + 1).is_some_and(|n| n.is_kw("BY"));
    Some(match &t.tok {
        Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
            "SELECT" => Clause::Select,
            "FROM" | "JOIN" | "STRAIGHT_JOIN" | "USING" => Clause::From,
            "ON" => Clause::On,
            "WHERE" => Clause::Where,
            "GROUP" if by_follows => Clause::GroupBy,
            "HAVING" => Clause::Having,
            "ORDER" if by_follows => Clause::Order,
            "LIMIT" | "WINDOW" | "UNION" | "EXCEPT" | "INTERSECT" => Clause::Other,
            _ => return None,
        },
        _ => return None,
    })
}

/// The `(` of an aggregate call whose name is at `i`.
fn aggregate_call(toks: &[Token], i: usize) -> Option<usize> {
    let Tok::Word(w) = &toks[i].tok else { return None };
    let call = toks.get(i + 1).is_some_and(|n| n.is_op("(")) && !i.checked_sub(1).is_some_and(|p| toks[p].is_op("."));
    (call && AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a))).then_some(i + 1)
}

/// Do the arguments name a column (a word that is no keyword, function or
/// type, or a quoted name)?
fn names_a_column(args: &[Token]) -> bool {
    args.iter().enumerate().any(|(k, a)| is_column_word(args, k, a))
}

fn is_column_word(args: &[Token], k: usize, a: &Token) -> bool {
    let after_name = k.checked_sub(1).is_some_and(|p| args[p].is_kw("AS") || args[p].is_kw("COLLATE"));
    match &a.tok {
        Tok::Quoted(_) => !after_name,
        Tok::Word(w) => {
            let call = args.get(k + 1).is_some_and(|n| n.is_op("("));
            let introducer = w.starts_with('_') && args.get(k + 1).is_some_and(|n| matches!(n.tok, Tok::Str(_)));
            !call && !after_name && !introducer && !NOT_COLUMNS.iter().any(|n| w.eq_ignore_ascii_case(n))
        }
        _ => false,
    }
}

/// A subquery's own tables: the names its FROM gives (every word there, at
/// its depth: more than the names, never fewer), whether it has a FROM, and
/// the token after its FROM clause (or after its select list, without one).
struct Sources {
    names: Vec<String>,
    /// Its tables' definitions (every source is a table the schema knows).
    tables: Vec<Arc<TableDef>>,
    has_from: bool,
    end: usize,
}

/// The sources of the SELECT in `toks[start..end]` (`start` at its SELECT,
/// `end` at its `)`); None when it has a `*` item, a UNION, or a FROM other
/// than plain names.
fn own_sources(toks: &[Token], start: usize, end: usize, resolver: &dyn Resolver) -> Option<Sources> {
    let mut depth = 0usize;
    let mut from_at = None;
    let mut clause_end = end;
    for k in start + 1..end {
        let t = &toks[k];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 {
            let star_item = from_at.is_none() && t.is_op("*") && (toks[k - 1].is_kw("SELECT") || toks[k - 1].is_op(","));
            if star_item || t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT") {
                return None;
            }
            if from_at.is_none() && t.is_kw("FROM") {
                from_at = Some(k);
            } else if CLAUSE_ENDS.iter().any(|c| t.is_kw(c)) {
                clause_end = k;
                break;
            }
        }
    }
    let Some(from) = from_at else {
        return Some(Sources { names: Vec::new(), tables: Vec::new(), has_from: false, end: clause_end });
    };
    let region = &toks[from + 1..clause_end];
    let mut names = Vec::new();
    let mut tables = Vec::new();
    let mut known = true;
    for (k, t) in region.iter().enumerate() {
        if t.is_op("(") {
            // A derived table or a join in parentheses: its names are not
            // all at this depth.
            return None;
        }
        if let Some(n) = t.ident() {
            names.push(n.to_ascii_lowercase());
        }
        // A source starts the region and follows each `,` and JOIN.
        let starts = k == 0 || region[k - 1].is_op(",") || region[k - 1].is_kw("JOIN") || region[k - 1].is_kw("STRAIGHT_JOIN");
        if starts && known {
            let (db, name) = match (t.ident(), region.get(k + 1), region.get(k + 2).and_then(|n| n.ident())) {
                (Some(db), Some(dot), Some(name)) if dot.is_op(".") => (Some(db), name),
                (Some(name), _, _) => (None, name),
                _ => (None, ""),
            };
            match resolver.table(db, name) {
                Some(def) if !name.is_empty() => tables.push(def),
                _ => known = false,
            }
        }
    }
    if !known {
        tables.clear();
    }
    (!region.is_empty()).then_some(Sources { names, tables, has_from: true, end: clause_end })
}

/// Do the arguments name only columns outside the subquery of `own`?
fn only_outer(args: &[Token], own: &Sources) -> bool {
    args.iter().enumerate().all(|(k, a)| {
        if !is_column_word(args, k, a) || args.get(k + 1).is_some_and(|n| n.is_op(".")) {
            return true;
        }
        if !own.has_from {
            return true;
        }
        let Some(column) = a.ident() else { return false };
        if k >= 2 && args[k - 1].is_op(".") {
            // `q.c`: q must not be the subquery's.
            return args[k - 2].ident().is_some_and(|q| !own.names.iter().any(|o| o.eq_ignore_ascii_case(q)));
        }
        // Unqualified: no table of the subquery has it.
        !own.tables.is_empty() && !own.tables.iter().any(|t| t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(column)))
    })
}

/// Where the one expression of an aggregate's arguments starts (after
/// DISTINCT or ALL); None for several arguments, an ORDER BY or SEPARATOR.
fn expression_start(args: &[Token]) -> Option<usize> {
    let mut depth = 0usize;
    for a in args {
        if a.is_op("(") {
            depth += 1;
        } else if a.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (a.is_op(",") || a.is_kw("ORDER") || a.is_kw("SEPARATOR")) {
            return None;
        }
    }
    let from = usize::from(args.first().is_some_and(|a| a.is_kw("DISTINCT") || a.is_kw("ALL")));
    (from < args.len()).then_some(from)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::super::Resolver;
    use super::rewrite;
    use std::sync::Arc;
    use turnstile_sqltext::lex::tokenize;
    use turnstile_sqltext::sql_mode::SqlMode;

    fn schema() -> TestResolver {
        let t1 = table_def("CREATE TABLE t1 (a INT, b INT, i INT)");
        let t2 = table_def("CREATE TABLE t2 (c INT, m INT)");
        TestResolver(vec![Arc::new(t1), Arc::new(t2)])
    }

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &tokenize(sql).unwrap(), &schema())
    }

    struct Ansi(TestResolver);
    impl Resolver for Ansi {
        fn home(&self) -> Option<&str> {
            self.0.home()
        }
        fn is_database(&self, n: &str) -> bool {
            self.0.is_database(n)
        }
        fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<crate::schema::TableDef>> {
            self.0.table(db, name)
        }
        fn sql_mode(&self) -> SqlMode {
            SqlMode::parse("ANSI").unwrap()
        }
    }

    #[test]
    fn outer_aggregate_in_a_subquerys_where() {
        assert_eq!(
            run("SELECT a FROM t1 GROUP BY a HAVING a IN (SELECT c FROM t2 WHERE MAX(b)>20)").as_deref(),
            Some("SELECT a FROM t1 GROUP BY a HAVING a IN (SELECT c FROM t2 WHERE (SELECT MAX(b))>20)")
        );
        assert_eq!(
            run("SELECT a, (SELECT t.c FROM t1 AS t WHERE t1.a=t.a AND t.b=MAX(t1.b)) FROM t1 GROUP BY a").as_deref(),
            Some("SELECT a, (SELECT t.c FROM t1 AS t WHERE t1.a=t.a AND t.b=(SELECT MAX(t1.b))) FROM t1 GROUP BY a")
        );
        // Its own query's WHERE, no column, a window, a subquery argument: as they are.
        assert_eq!(run("SELECT a FROM t1 WHERE MAX(b) > 1"), None);
        assert_eq!(run("SELECT (SELECT m FROM t2 WHERE m = COUNT(*)) FROM t1"), None);
        assert_eq!(run("SELECT (SELECT m FROM t2 WHERE m = SUM(b) OVER ()) FROM t1"), None);
        assert_eq!(run("SELECT (SELECT m FROM t2 WHERE m = MAX((SELECT 1))) FROM t1"), None);
        // Allowed where it is: as it is.
        assert_eq!(run("SELECT (SELECT MAX(t1.b) FROM t2) FROM t1"), None);
        assert_eq!(run("SELECT (SELECT m FROM t2 GROUP BY m HAVING MAX(t1.b) > 1) FROM t1"), None);
    }

    #[test]
    fn outer_aggregate_where_the_outer_query_may_not_aggregate() {
        assert_eq!(run("UPDATE t1 SET i=i+1 WHERE i=(SELECT MAX(i))").as_deref(), Some("UPDATE t1 SET i=i+1 WHERE i=(SELECT MAX(CASE WHEN ts_lvl.k THEN i END) FROM (SELECT 1 AS k) AS ts_lvl)"));
        assert_eq!(
            run("SELECT a FROM t1 t0 WHERE (SELECT COUNT(DISTINCT t0.b) FROM t1 t WHERE t.b>20) GROUP BY a").as_deref(),
            Some("SELECT a FROM t1 t0 WHERE (SELECT COUNT(DISTINCT CASE WHEN ts_lvl.k THEN t0.b END) FROM t1 t, (SELECT 1 AS k) AS ts_lvl WHERE t.b>20) GROUP BY a")
        );
        // Unqualified, and none of the subquery's tables has it.
        assert_eq!(
            run("SELECT a FROM t1 WHERE EXISTS(SELECT c FROM t2 GROUP BY c HAVING SUM(a) = c)").as_deref(),
            Some("SELECT a FROM t1 WHERE EXISTS(SELECT c FROM t2, (SELECT 1 AS k) AS ts_lvl GROUP BY c HAVING SUM(CASE WHEN ts_lvl.k THEN a END) = c)")
        );
        // A column of the subquery's own, one it may have, a table the
        // schema does not know: as it is.
        assert_eq!(run("SELECT a FROM t1 WHERE (SELECT COUNT(t.b) FROM t1 t) > 0"), None);
        assert_eq!(run("SELECT a FROM t1 WHERE (SELECT COUNT(m) FROM t2) > 0"), None);
        assert_eq!(run("SELECT a FROM t1 WHERE (SELECT COUNT(b) FROM t2, t9) > 0"), None);
        // ANSI: MariaDB refuses it too.
        let sql = "UPDATE t1 SET i=i+1 WHERE i=(SELECT MAX(i))";
        assert_eq!(rewrite(sql, &tokenize(sql).unwrap(), &Ansi(schema())), None);
        // In the outer select list (where it may aggregate): as it is.
        assert_eq!(run("SELECT a, (SELECT COUNT(b)) FROM t1"), None);
    }

    #[test]
    fn unpaired_and_deep_input() {
        assert_eq!(run("SELECT (MAX(a) FROM t"), None);
        let deep = format!("SELECT {}1{} FROM t", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(run(&deep), None);
        // Nested and many aggregates: linear (each argument list read once).
        let nested = format!("SELECT a FROM t1 WHERE a = (SELECT c FROM t2 WHERE {}t1.b{})", "MAX(".repeat(100_000), ")".repeat(100_000));
        let out = run(&nested).unwrap();
        assert!(out.contains("WHERE (SELECT MAX(MAX("), "{}", &out[..80]);
        let many = format!("UPDATE t1 SET a = 1 WHERE a = (SELECT {}0)", "MAX(i) + ".repeat(50_000));
        let out = run(&many).unwrap();
        assert_eq!(out.matches("ts_lvl.k").count(), 50_000);
        assert_eq!(out.matches("AS ts_lvl").count(), 1);
    }
}
