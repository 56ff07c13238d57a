//! Window functions and WINDOW clauses checked as MariaDB checks them, on
//! the client's text before anything else reads it.
//!
//! SQLite runs window functions too, but accepts what MariaDB refuses
//! (`rank() OVER ()` with no order, a frame for `row_number`, `EXCLUDE`)
//! and refuses with its own words what MariaDB names with its own codes (an
//! unknown window name, `min(DISTINCT x) OVER ()`). What is checked, with
//! MariaDB's code:
//! - 4009 a window name no WINDOW clause of the query defines, 4010 a name
//!   defined twice, 4011/4012/4013 a window built on another that repeats
//!   its PARTITION BY or ORDER BY, or on one with a frame;
//! - 4014 frame bounds in the wrong order (`UNBOUNDED FOLLOWING` first,
//!   `CURRENT ROW AND 1 PRECEDING`), 4019 a RANGE frame with an offset and
//!   not exactly one ORDER BY key, 4020 a ROWS offset that is not an
//!   integer, 4021 a RANGE offset that is a string, 4022 EXCLUDE (other than
//!   EXCLUDE NO OTHERS);
//! - 4015 a window function in WHERE, GROUP BY or HAVING, 4016 one in a
//!   window's PARTITION BY or ORDER BY (itself, or a select-list alias of
//!   it), 4074 one in the argument of an aggregate or window function;
//! - 4017 a frame with `row_number`, `rank`, `dense_rank`, `percent_rank`,
//!   `cume_dist`, `ntile`; 4018 no ORDER BY for `rank`, `dense_rank`,
//!   `percent_rank`, `cume_dist`, `lead`, `lag`;
//! - 1235 `COUNT|SUM|AVG(DISTINCT ...) OVER` and `GROUP_CONCAT() OVER`;
//!   1064 a window-only function (`row_number()`) with no OVER.
//!
//! (`MIN|MAX(DISTINCT x) OVER (...)`, which MariaDB runs, is translated
//! without its DISTINCT, which changes neither: rewrite/function_calls.rs.) Every pass is linear in the tokens (matching parentheses once, a stack
//! for nesting, no recursion).

use std::collections::HashMap;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{self, Tok, Token};

/// Windows built on windows followed at most (a loop's limit).
const MAX_BASES: usize = 64;
/// Functions that exist only as window functions (MariaDB's grammar).
const WINDOW_ONLY: [&str; 11] = ["ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE", "LEAD", "LAG"];
/// Window functions a frame is not allowed with (4017).
const NO_FRAME: [&str; 6] = ["ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE"];
/// Window functions that need an ORDER BY (4018).
const NEEDS_ORDER: [&str; 6] = ["RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "LEAD", "LAG"];
/// Aggregates: a window function in their argument is 4074.
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
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
];

/// The clause of its query a token is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clause {
    Select,
    From,
    Where,
    Group,
    Having,
    Other,
}

/// Where a frame bound is, in the order bounds must come.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Bound {
    UnboundedPreceding,
    Preceding,
    Current,
    Following,
    UnboundedFollowing,
}

/// A frame: ROWS or RANGE, its bounds, and the offsets' tokens.
struct Frame {
    rows: bool,
    start: Bound,
    end: Bound,
    offsets: Vec<(usize, usize)>,
    exclude: bool,
}

/// One window specification: `(...)` after OVER, or a WINDOW clause's.
struct Spec {
    block: usize,
    base: Option<(String, usize)>,
    partition: bool,
    order_keys: usize,
    frame: Option<Frame>,
}

/// A window function call: name token, its `(`, and its window.
struct Call {
    name: String,
    at: usize,
    open: usize,
    block: usize,
    /// The inline spec's index, or the name after OVER.
    window: Result<usize, String>,
}

/// The statement checked: MariaDB's error for the first thing it refuses.
pub fn check(sql: &str) -> Result<(), SqlError> {
    if !mentions_windows(sql) {
        return Ok(());
    }
    let Ok(toks) = lex::tokenize(sql) else { return Ok(()) };
    let close = matching(&toks);
    let (block_of, clause_of) = blocks(&toks);
    let mut specs: Vec<Spec> = Vec::new();
    let mut spec_at: HashMap<usize, usize> = HashMap::new();
    let mut named: HashMap<(usize, String), usize> = HashMap::new();
    let mut calls: Vec<Call> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let after_dot = i > 0 && toks[i - 1].is_op(".");
        // A WINDOW clause: WINDOW name AS (spec) [, name AS (spec)]...
        if t.is_kw("WINDOW") && toks.get(i + 1).is_some_and(|n| n.ident().is_some()) && toks.get(i + 2).is_some_and(|n| n.is_kw("AS")) && toks.get(i + 3).is_some_and(|n| n.is_op("(")) {
            let mut j = i + 1;
            while let (Some(name), true, true) = (toks.get(j).and_then(|n| n.ident()), toks.get(j + 1).is_some_and(|n| n.is_kw("AS")), toks.get(j + 2).is_some_and(|n| n.is_op("("))) {
                let Some(c) = close[j + 2] else { break };
                let key = (block_of[i], name.to_ascii_lowercase());
                if named.contains_key(&key) {
                    return Err(SqlError::new(4010, "HY000", format!("Multiple window specifications with the same name '{}'", name)));
                }
                let s = spec(&toks, &close, block_of[i], j + 2, c);
                named.insert(key, specs.len());
                spec_at.insert(j + 2, specs.len());
                specs.push(s);
                if !toks.get(c + 1).is_some_and(|n| n.is_op(",")) {
                    break;
                }
                j = c + 2;
            }
            i += 1;
            continue;
        }
        let call_close = (!after_dot && matches!(t.tok, Tok::Word(_) | Tok::Quoted(_)) && toks.get(i + 1).is_some_and(|n| n.is_op("("))).then(|| close[i + 1]).flatten();
        if let (Some(c), Some(name)) = (call_close, t.ident()) {
            let upper = name.to_ascii_uppercase();
            let over = toks.get(c + 1).is_some_and(|n| n.is_kw("OVER"));
            if !over && matches!(t.tok, Tok::Word(_)) && WINDOW_ONLY.contains(&upper.as_str()) {
                return Err(SqlError::syntax(&sql[toks.get(c + 1).map_or(sql.len(), |n| n.start)..]));
            }
            if over {
                let window = match toks.get(c + 2) {
                    Some(o) if o.is_op("(") => match close[c + 2] {
                        Some(oc) => {
                            spec_at.insert(c + 2, specs.len());
                            specs.push(spec(&toks, &close, block_of[i], c + 2, oc));
                            Ok(specs.len() - 1)
                        }
                        None => return Ok(()),
                    },
                    Some(n) if n.ident().is_some() => Err(n.ident().unwrap_or_default().to_string()),
                    _ => return Ok(()),
                };
                calls.push(Call { name: upper, at: i, open: i + 1, block: block_of[i], window });
            }
        }
        i += 1;
    }
    if calls.is_empty() && specs.is_empty() {
        return Ok(());
    }
    // Windows built on others: the name must be defined, and what the
    // base has the new one may not repeat.
    let lookup = |block: usize, name: &str| named.get(&(block, name.to_ascii_lowercase())).copied();
    for s in &specs {
        if let Some((base, _)) = &s.base {
            let Some(b) = lookup(s.block, base) else { return Err(not_defined(base)) };
            let b = &specs[b];
            if s.partition {
                return Err(SqlError::new(4011, "HY000", format!("Window specification referencing another one '{}' cannot contain partition list", base)));
            }
            if s.order_keys > 0 && b.order_keys > 0 {
                return Err(SqlError::new(4012, "HY000", format!("Referenced window specification '{}' already contains order list", base)));
            }
            if b.frame.is_some() {
                return Err(SqlError::new(4013, "HY000", format!("Referenced window specification '{}' cannot contain window frame", base)));
            }
        }
    }
    for c in &calls {
        if let Err(name) = &c.window {
            if lookup(c.block, name).is_none() {
                return Err(not_defined(name));
            }
        }
    }
    // The ORDER BY keys a spec has, its own or its base's (a chain of bases
    // is followed MAX_BASES steps at most).
    let order_keys = |mut k: usize| -> usize {
        for _ in 0..specs.len().min(MAX_BASES) {
            let s = &specs[k];
            match (&s.base, s.order_keys) {
                (_, n) if n > 0 => return n,
                (Some((b, _)), _) => match lookup(s.block, b) {
                    Some(next) => k = next,
                    None => return 0,
                },
                (None, _) => return 0,
            }
        }
        0
    };
    for (k, s) in specs.iter().enumerate() {
        let Some(f) = &s.frame else { continue };
        if f.start == Bound::UnboundedFollowing || f.end == Bound::UnboundedPreceding || f.start > f.end {
            return Err(SqlError::new(4014, "HY000", "Unacceptable combination of window frame bound specifications"));
        }
        for &(from, to) in &f.offsets {
            let one = (to == from + 1).then(|| &toks[from].tok);
            if f.rows {
                let integer = matches!(one, Some(Tok::Number(n)) if n.bytes().all(|b| b.is_ascii_digit()));
                let not_integer = matches!(one, Some(Tok::Number(_) | Tok::Str(_)));
                if not_integer && !integer {
                    return Err(SqlError::new(4020, "HY000", "Integer is required for ROWS-type frame"));
                }
            } else {
                if order_keys(k) != 1 {
                    return Err(SqlError::new(4019, "HY000", "RANGE-type frame requires ORDER BY clause with single sort key"));
                }
                if matches!(one, Some(Tok::Str(_))) {
                    return Err(SqlError::new(4021, "HY000", "Numeric datatype is required for RANGE-type frame"));
                }
            }
        }
        if f.exclude {
            return Err(SqlError::new(4022, "HY000", "Frame exclusion is not supported yet"));
        }
    }
    // Where each window function is.
    let (in_aggregate, in_spec) = contexts(&toks, &close, &spec_at);
    let aliases = window_aliases(&toks, &close, &calls, &clause_of);
    let base_names: std::collections::HashSet<usize> = specs.iter().filter_map(|s| s.base.as_ref().map(|b| b.1)).collect();
    if !aliases.is_empty() {
        for (j, t) in toks.iter().enumerate().filter(|(j, _)| in_spec[*j] && !base_names.contains(j)) {
            let bare = matches!(t.tok, Tok::Word(_) | Tok::Quoted(_)) && !toks[j - 1].is_op(".") && !toks.get(j + 1).is_some_and(|n| n.is_op("(") || n.is_op("."));
            if bare && t.ident().is_some_and(|n| aliases.contains(&(block_of[j], n.to_ascii_lowercase()))) {
                return Err(not_in_spec());
            }
        }
    }
    for c in &calls {
        if matches!(clause_of[c.at], Clause::Where | Clause::Group | Clause::Having) {
            return Err(SqlError::new(4015, "HY000", "Window function is allowed only in SELECT list and ORDER BY clause"));
        }
        if in_spec[c.at] {
            return Err(not_in_spec());
        }
        if in_aggregate[c.at] {
            return Err(SqlError::new(4074, "HY000", "Window functions can not be used as arguments to group functions."));
        }
        let window = match &c.window {
            Ok(k) => Some(*k),
            Err(name) => lookup(c.block, name),
        };
        let (framed, keys) = window.map_or((false, 0), |k| (specs[k].frame.is_some(), order_keys(k)));
        let lower = c.name.to_ascii_lowercase();
        if framed && NO_FRAME.contains(&c.name.as_str()) {
            return Err(SqlError::new(4017, "HY000", format!("Window frame is not allowed with '{}'", lower)));
        }
        if keys == 0 && NEEDS_ORDER.contains(&c.name.as_str()) {
            return Err(SqlError::new(4018, "HY000", format!("No order list in window specification for '{}'", lower)));
        }
        let distinct = toks.get(c.open + 1).is_some_and(|t| t.is_kw("DISTINCT"));
        match c.name.as_str() {
            "GROUP_CONCAT" => return Err(SqlError::unsupported("GROUP_CONCAT() aggregate as window function")),
            "MIN" | "MAX" => {}
            name if distinct => return Err(SqlError::unsupported(&format!("{}(DISTINCT) aggregate as window function", name))),
            _ => {}
        }
    }
    Ok(())
}

fn not_defined(name: &str) -> SqlError {
    SqlError::new(4009, "HY000", format!("Window specification with name '{}' is not defined", name))
}

fn not_in_spec() -> SqlError {
    SqlError::new(4016, "HY000", "Window function is not allowed in window specification")
}

/// Whether the text may have a window function or clause at all (a cheap
/// look before tokenizing).
fn mentions_windows(sql: &str) -> bool {
    let b = sql.as_bytes();
    let has = |w: &[u8]| b.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w));
    has(b"over") || has(b"window") || WINDOW_ONLY.iter().any(|n| has(n.as_bytes()))
}

/// For each `(`, the index of its `)`.
fn matching(toks: &[Token]) -> Vec<Option<usize>> {
    let mut close = vec![None; toks.len()];
    let mut stack = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            stack.push(i);
        } else if t.is_op(")") {
            if let Some(o) = stack.pop() {
                close[o] = Some(i);
            }
        }
    }
    close
}

/// For each token, the query (SELECT) it belongs to and the clause of that
/// query it is in. A SELECT starts a new query at its parenthesis level; a
/// parenthesis inherits its level's query and clause.
fn blocks(toks: &[Token]) -> (Vec<usize>, Vec<Clause>) {
    let mut block_of = Vec::with_capacity(toks.len());
    let mut clause_of = Vec::with_capacity(toks.len());
    let mut levels: Vec<(usize, Clause)> = vec![(0, Clause::Select)];
    let mut next = 1;
    for (i, t) in toks.iter().enumerate() {
        let by = toks.get(i + 1).is_some_and(|n| n.is_kw("BY"));
        let top = levels.len() - 1;
        if t.is_kw("SELECT") {
            levels[top] = (next, Clause::Select);
            next += 1;
        } else if t.is_kw("FROM") {
            levels[top].1 = Clause::From;
        } else if t.is_kw("WHERE") {
            levels[top].1 = Clause::Where;
        } else if t.is_kw("GROUP") && by {
            levels[top].1 = Clause::Group;
        } else if t.is_kw("HAVING") {
            levels[top].1 = Clause::Having;
        } else if (t.is_kw("ORDER") && by) || t.is_kw("LIMIT") || t.is_kw("WINDOW") || t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT") {
            levels[top].1 = Clause::Other;
        }
        block_of.push(levels[levels.len() - 1].0);
        clause_of.push(levels[levels.len() - 1].1);
        if t.is_op("(") {
            levels.push(levels[levels.len() - 1]);
        } else if t.is_op(")") && levels.len() > 1 {
            levels.pop();
        }
    }
    (block_of, clause_of)
}

/// The spec between `open` and its `close`.
fn spec(toks: &[Token], close: &[Option<usize>], block: usize, open: usize, end: usize) -> Spec {
    let mut s = Spec { block, base: None, partition: false, order_keys: 0, frame: None };
    let first = open + 1;
    if first < end && !["PARTITION", "ORDER", "ROWS", "RANGE", "GROUPS"].iter().any(|k| toks[first].is_kw(k)) {
        if let Some(n) = toks[first].ident() {
            s.base = Some((n.to_string(), first));
        }
    }
    let mut j = first;
    let mut in_order = false;
    while j < end {
        let t = &toks[j];
        if t.is_op("(") {
            j = close[j].unwrap_or(end) + 1;
            continue;
        }
        if t.is_kw("PARTITION") && toks.get(j + 1).is_some_and(|n| n.is_kw("BY")) {
            s.partition = true;
            in_order = false;
        } else if t.is_kw("ORDER") && toks.get(j + 1).is_some_and(|n| n.is_kw("BY")) {
            s.order_keys = 1;
            in_order = true;
            j += 2;
            continue;
        } else if in_order && t.is_op(",") {
            s.order_keys += 1;
        } else if t.is_kw("ROWS") || t.is_kw("RANGE") {
            s.frame = frame(toks, close, j, end);
            return s;
        }
        j += 1;
    }
    s
}

/// The frame starting at token `at` (ROWS or RANGE), up to `end`; None when
/// it does not read as one (SQLite says what is wrong then).
fn frame(toks: &[Token], close: &[Option<usize>], at: usize, end: usize) -> Option<Frame> {
    let mut f = Frame { rows: toks[at].is_kw("ROWS"), start: Bound::Current, end: Bound::Current, offsets: Vec::new(), exclude: false };
    let mut j = at + 1;
    let between = toks.get(j).is_some_and(|t| t.is_kw("BETWEEN"));
    if between {
        j += 1;
    }
    let (start, next) = bound(toks, close, j, end, &mut f.offsets)?;
    f.start = start;
    j = next;
    if between {
        if !toks.get(j).is_some_and(|t| t.is_kw("AND")) {
            return None;
        }
        let (e, next) = bound(toks, close, j + 1, end, &mut f.offsets)?;
        f.end = e;
        j = next;
    }
    if j < end && toks[j].is_kw("EXCLUDE") {
        f.exclude = !(toks.get(j + 1).is_some_and(|t| t.is_kw("NO")) && toks.get(j + 2).is_some_and(|t| t.is_kw("OTHERS")));
    }
    Some(f)
}

/// One frame bound from token `j`: where it is and the token after it.
fn bound(toks: &[Token], close: &[Option<usize>], j: usize, end: usize, offsets: &mut Vec<(usize, usize)>) -> Option<(Bound, usize)> {
    let t = toks.get(j).filter(|_| j < end)?;
    if t.is_kw("UNBOUNDED") {
        let n = toks.get(j + 1)?;
        return Some((
            if n.is_kw("PRECEDING") {
                Bound::UnboundedPreceding
            } else if n.is_kw("FOLLOWING") {
                Bound::UnboundedFollowing
            } else {
                return None;
            },
            j + 2,
        ));
    }
    if t.is_kw("CURRENT") && toks.get(j + 1).is_some_and(|n| n.is_kw("ROW")) {
        return Some((Bound::Current, j + 2));
    }
    let mut k = j;
    while k < end {
        if toks[k].is_op("(") {
            k = close[k].unwrap_or(end) + 1;
            continue;
        }
        if toks[k].is_kw("PRECEDING") || toks[k].is_kw("FOLLOWING") {
            offsets.push((j, k));
            return Some((if toks[k].is_kw("PRECEDING") { Bound::Preceding } else { Bound::Following }, k + 1));
        }
        if toks[k].is_kw("AND") || toks[k].is_kw("EXCLUDE") {
            return None;
        }
        k += 1;
    }
    None
}

/// For each token: whether it is inside the argument of an aggregate or
/// window function of its own query, and whether inside a window spec of
/// its own query (a subquery starts afresh).
fn contexts(toks: &[Token], close: &[Option<usize>], spec_at: &HashMap<usize, usize>) -> (Vec<bool>, Vec<bool>) {
    let mut in_aggregate = Vec::with_capacity(toks.len());
    let mut in_spec = Vec::with_capacity(toks.len());
    let mut stack: Vec<(bool, bool)> = vec![(false, false)];
    for (i, t) in toks.iter().enumerate() {
        let (agg, sp) = stack[stack.len() - 1];
        in_aggregate.push(agg);
        in_spec.push(sp);
        if t.is_op("(") {
            let subquery = toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH"));
            let name = i.checked_sub(1).and_then(|p| toks[p].ident().filter(|_| matches!(toks[p].tok, Tok::Word(_) | Tok::Quoted(_))));
            let windowed = close[i].is_some_and(|c| toks.get(c + 1).is_some_and(|n| n.is_kw("OVER")));
            let aggregate = name.is_some_and(|n| windowed || AGGREGATES.iter().any(|a| a.eq_ignore_ascii_case(n)));
            stack.push(if subquery { (false, false) } else { (agg || aggregate, sp || spec_at.contains_key(&i)) });
        } else if t.is_op(")") && stack.len() > 1 {
            stack.pop();
        }
    }
    (in_aggregate, in_spec)
}

/// Select-list aliases of window function calls: (query, lowercased name).
fn window_aliases(toks: &[Token], close: &[Option<usize>], calls: &[Call], clause_of: &[Clause]) -> std::collections::HashSet<(usize, String)> {
    let mut out = std::collections::HashSet::new();
    for c in calls {
        if clause_of[c.at] != Clause::Select {
            continue;
        }
        let Some(args_close) = close[c.open] else { continue };
        let after = match toks.get(args_close + 2) {
            Some(o) if o.is_op("(") => close[args_close + 2].map(|e| e + 1),
            Some(_) => Some(args_close + 3),
            None => None,
        };
        let Some(a) = after else { continue };
        let alias = match (toks.get(a), toks.get(a + 1)) {
            (Some(k), Some(n)) if k.is_kw("AS") => n.ident(),
            (Some(n), next) if matches!(n.tok, Tok::Word(_) | Tok::Quoted(_)) && !n.is_kw("FROM") && next.is_none_or(|x| x.is_op(",") || x.is_kw("FROM")) => n.ident(),
            _ => None,
        };
        if let Some(name) = alias {
            out.insert((c.block, name.to_ascii_lowercase()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::check;

    fn code(sql: &str) -> u16 {
        check(sql).err().map_or(0, |e| e.code)
    }

    #[test]
    fn window_names_and_bases() {
        assert_eq!(code("select count(*) over w from t1 window w1 as (partition by c order by pk rows between 2 preceding and 2 following)"), 4009);
        assert_eq!(code("select count(*) over (w2 rows between 2 preceding and 2 following) from t1 window w1 as (partition by c), w1 as (order by pk)"), 4010);
        assert_eq!(code("select count(*) over (w2) from t1 window w1 as (partition by c), w2 as (w1 partition by c order by pk)"), 4011);
        assert_eq!(code("select count(*) over (w2) from t1 window w1 as (partition by c order by pk), w2 as (w1 order by pk)"), 4012);
        assert_eq!(
            code("select count(*) over w3 from t1 window w1 as (partition by c), w2 as (w1 order by pk rows between 3 preceding and 2 following), w3 as (w2 rows between 2 preceding and 2 following)"),
            4013
        );
        assert_eq!(code("select sum(a) over w1 from t1"), 4009);
        assert_eq!(code("select count(*) over (w1 rows 2 preceding) from t1 window w1 as (partition by c order by pk)"), 0);
    }

    #[test]
    fn frames() {
        assert_eq!(code("select count(*) over (order by pk rows between unbounded following and 2 following) from t1"), 4014);
        assert_eq!(code("select count(*) over (order by pk rows between current row and 2 preceding) from t1"), 4014);
        assert_eq!(code("select count(*) over (order by pk rows between 2 following and 1 following) from t1"), 0);
        assert_eq!(code("select count(*) over (order by a,b range between 1 preceding and current row) from t1"), 4019);
        assert_eq!(code("select count(*) over (order by a,b range between unbounded preceding and current row) from t1"), 0);
        assert_eq!(code("select count(*) over (order by a range between 'abcd' preceding and current row) from t1"), 4021);
        assert_eq!(code("select count(*) over (order by a rows between 0.5 preceding and current row) from t1"), 4020);
        assert_eq!(code("select count(*) over (order by a range between 1 preceding and 1 following exclude ties) from t1"), 4022);
        assert_eq!(code("select count(*) over (order by a rows between 1 preceding and 1 following exclude no others) from t1"), 0);
    }

    #[test]
    fn where_window_functions_may_be() {
        assert_eq!(code("select * from t1 where 1=rank() over (order by a)"), 4015);
        assert_eq!(code("select c from t1 group by c + rank() over w1 window w1 as (order by m)"), 4015);
        assert_eq!(code("select * from t1 where a in (select rank() over (order by a) from t2)"), 0);
        assert_eq!(code("select c, rank() over w1 as r, rank() over (partition by r+1 order by m) from t1 group by c window w1 as (order by m)"), 4016);
        assert_eq!(code("select c, rank() over w1 as r, dense_rank() over w2 from t1 group by c window w1 as (order by m), w2 as (partition by r order by m)"), 4016);
        assert_eq!(code("SELECT NTILE(MAX(a) OVER (PARTITION BY a)) OVER (PARTITION BY a ORDER BY b) FROM t1"), 4074);
        assert_eq!(code("select sum(sum(a) over ()) from t1"), 4074);
        assert_eq!(code("select sum(sum(a)) over () from t1"), 0);
    }

    #[test]
    fn deep_input_stays_linear() {
        let n = 100_000;
        let deep = format!("SELECT {}a{} FROM t", "sum(".repeat(n), ") OVER (ORDER BY a)".repeat(n));
        assert_eq!(code(&deep), 4074);
        let specs = format!(
            "SELECT count(*) OVER w{} FROM t WINDOW {}",
            n - 1,
            (0..n).map(|k| if k == 0 { "w0 AS (ORDER BY a)".to_string() } else { format!("w{} AS (w{})", k, k - 1) }).collect::<Vec<_>>().join(", ")
        );
        assert_eq!(code(&specs), 0);
        let with = format!("{}SELECT 1 FROM t{}", "SELECT * FROM (WITH a AS (SELECT 1) ".repeat(n / 10), ") d".repeat(n / 10));
        assert!(crate::cte_scope::scope(&with, Some("db")).is_ok());
        assert_eq!(crate::cte_mutual::combine(&with), None);
    }

    #[test]
    fn functions_and_their_windows() {
        assert_eq!(code("select row_number() over (partition by c order by pk range between unbounded preceding and current row) from t1"), 4017);
        assert_eq!(code("select rank() over w1 from t1 window w1 as (partition by c order by pk rows between 2 preceding and 2 following)"), 4017);
        assert_eq!(code("select dense_rank() over (partition by c) from t1"), 4018);
        assert_eq!(code("select lag(a) over () from t1"), 4018);
        assert_eq!(code("select rank() over w2 from t1 window w1 as (order by a), w2 as (w1 partition by b)"), 4011);
        assert_eq!(code("select rank() over (w1) from t1 window w1 as (order by a)"), 0);
        assert_eq!(code("select row_number() from t1"), 1064);
        assert_eq!(code("select count(distinct a) over () from t1"), 1235);
        assert_eq!(code("select group_concat(a) over () from t1"), 1235);
        assert_eq!(code("select min(distinct a) over () from t1"), 0);
        assert_eq!(code("select count(distinct a) from t1"), 0);
        assert_eq!(code("select 1 from t1 as window_size"), 0);
    }
}
