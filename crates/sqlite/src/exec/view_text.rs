//! The text SHOW CREATE VIEW and information_schema.VIEWS show for a view's
//! query, as MariaDB prints it from its parse tree: every column qualified
//! by its table (`` `t1`.`a` ``), `*` expanded, each select item named
//! `` AS `column` `` by the view's column, keywords and function names in
//! lower case, binary operators spaced, tables of a FROM clause joined
//! (`` from (`t1` join `t2` on(...)) ``), CTEs (`with t as (...)select`),
//! derived tables (`` (select ...) `d` ``), UNIONs, subqueries and
//! window specifications in MariaDB's spacing (view_expr.rs prints the
//! expressions).
//!
//! Only for the queries whose printed form is known here: over the current
//! database's tables and views, of the operators, functions and clauses
//! below. For any other `canonical` says None and the client's own text is
//! shown, as before. The view is made from the client's text either way
//! (view_dml.rs reads it); this is only what is shown.
//!
//! Each query level's tokens are scanned once per level; nested queries
//! (subqueries, derived tables, CTEs, UNION members in parentheses) recurse
//! at most `MAX_DEPTH` deep, so the work is bounded by that times the
//! query's length.

use super::view_expr::{close_of, expr_text, opens_query, split_alias, split_commas, unwrapped, window_spec, Rel, Scope, KEYWORDS, REFUSED_CALLS};
use crate::schema::quote_ident;
use turnstile_sqltext::lex::{self, Tok, Token};

/// Tables in a FROM clause at most (more: the client's text is shown).
const MAX_TABLES: usize = 8;
/// Tokens at most (a longer query is shown as written).
const MAX_TOKENS: usize = 20_000;
/// Nested queries at most (deeper: the client's text is shown).
const MAX_DEPTH: usize = 16;
/// CTEs in one WITH clause at most.
const MAX_CTES: usize = 16;

/// Words that end the select list or a clause, at depth 0.
const CLAUSES: [&str; 9] = ["FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT", "FOR", "LOCK"];

/// Words that make the query one this module does not print.
const REFUSED: &[&str] = &[
    "INTERSECT",
    "EXCEPT",
    "STRAIGHT_JOIN",
    "NATURAL",
    "RIGHT",
    "USING",
    "INTO",
    "PROCEDURE",
    "RECURSIVE",
    "ROLLUP",
    "MOD",
    "BINARY",
    "OFFSET",
    "NOWAIT",
    "WAIT",
    "SQL_CALC_FOUND_ROWS",
    "HIGH_PRIORITY",
    "SOME",
    "LATERAL",
    "EXCLUDE",
    "GROUPS",
];

/// What the query prints and knows once, passed down the levels.
pub(super) struct Cx<'a> {
    pub columns_of: &'a dyn Fn(&str) -> Option<Vec<String>>,
    pub src: &'a str,
}

/// How a select's items are named.
#[derive(Clone, Copy)]
pub(super) enum Names<'a> {
    /// `AS` the view's (or the CTE's listed) columns.
    View(&'a [String]),
    /// `AS` their own names (a derived table's, a CTE's).
    Own,
    /// Their own names, `Name_exp_<n>` for an empty one (a UNION's later members).
    Member,
    /// No names (a subquery in an expression).
    Bare,
}

/// The query as MariaDB shows it, or None when it is not one printed here.
/// `names`: the view's column names; `columns_of`: a table's (or view's)
/// column names in the view's database.
pub(super) fn canonical(select: &str, names: &[String], columns_of: &dyn Fn(&str) -> Option<Vec<String>>) -> Option<String> {
    let toks = lex::tokenize(select).ok()?;
    if toks.len() > MAX_TOKENS || !(toks.first()?.is_kw("SELECT") || toks.first()?.is_kw("WITH") || toks.first()?.is_op("(")) {
        return None;
    }
    // Anything refused anywhere.
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        match &t.tok {
            Tok::Op("(") => depth += 1,
            Tok::Op(")") => depth = depth.checked_sub(1)?,
            Tok::Op(";") | Tok::Op("||") | Tok::Op(":=") | Tok::Op(":") | Tok::Param | Tok::UserVar(_) | Tok::SysVar(..) => return None,
            Tok::Word(w) if REFUSED.iter().any(|r| r.eq_ignore_ascii_case(w)) => return None,
            Tok::Word(w) if k > 0 && w.starts_with('_') => return None,
            Tok::Word(w) if toks.get(k + 1).is_some_and(|n| n.is_op("(")) && REFUSED_CALLS.iter().any(|r| r.eq_ignore_ascii_case(w)) => return None,
            // A string with an introducer or a prefix (`_latin1'x'`, `X'41'`, N'x'`): shown as written.
            Tok::Str(_) if !matches!(select.as_bytes().get(t.start), Some(b'\'') | Some(b'"')) => return None,
            Tok::Str(s) if s.iter().any(|&b| b == b'\\' || b == b'\'' || b < 0x20) || std::str::from_utf8(s).is_err() => return None,
            // Strings side by side (concatenated).
            Tok::Str(_) if toks.get(k + 1).is_some_and(|n| matches!(n.tok, Tok::Str(_))) => return None,
            // NOT as an operator of its own (MariaDB prints `!`/`not()` forms): only IS NOT, NOT IN/LIKE/BETWEEN/REGEXP,
            // and not NOT IN (SELECT ...) (printed `!(... in (...))`).
            Tok::Word(w) if w.eq_ignore_ascii_case("NOT") => {
                let after_is = k > 0 && toks[k - 1].is_kw("IS");
                let operator = toks.get(k + 1).is_some_and(|n| ["IN", "LIKE", "BETWEEN", "REGEXP", "RLIKE"].iter().any(|o| n.is_kw(o)));
                let in_query = toks.get(k + 1).is_some_and(|n| n.is_kw("IN")) && opens_query(&toks, k + 2);
                if !(after_is || operator) || in_query {
                    return None;
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    let cx = Cx { columns_of, src: select };
    query(&cx, &toks, Names::View(names), None, 0).map(|(text, _)| text)
}

/// A query (WITH ..., a UNION, one SELECT, or one in parentheses) and the
/// names of its columns.
pub(super) fn query(cx: &Cx<'_>, toks: &[Token], names: Names<'_>, parent: Option<&Scope<'_>>, depth: usize) -> Option<(String, Vec<String>)> {
    if depth > MAX_DEPTH || toks.is_empty() {
        return None;
    }
    if toks[0].is_kw("WITH") {
        return with(cx, toks, names, parent, depth);
    }
    // The UNION members at depth 0.
    let mut members: Vec<(usize, usize)> = Vec::new();
    let mut words: Vec<&'static str> = Vec::new();
    let (mut d, mut start) = (0usize, 0usize);
    let mut k = 0;
    while k < toks.len() {
        let t = &toks[k];
        if t.is_op("(") {
            d += 1;
        } else if t.is_op(")") {
            d = d.checked_sub(1)?;
        } else if d == 0 && t.is_kw("UNION") {
            members.push((start, k));
            match toks.get(k + 1) {
                Some(n) if n.is_kw("ALL") => {
                    words.push(" union all ");
                    k += 1;
                }
                Some(n) if n.is_kw("DISTINCT") => {
                    words.push(" union ");
                    k += 1;
                }
                _ => words.push(" union "),
            }
            start = k + 1;
        }
        k += 1;
    }
    members.push((start, toks.len()));
    if members.len() == 1 {
        if toks[0].is_op("(") {
            let close = close_of(toks, 0)?;
            if close + 1 != toks.len() {
                return None;
            }
            let (text, cols) = query(cx, &toks[1..close], names, parent, depth + 1)?;
            return Some((format!("({})", text), cols));
        }
        return select(cx, toks, names, parent, depth);
    }
    // The last member's trailing ORDER BY / LIMIT are the UNION's.
    let (ls, le) = *members.last()?;
    let tail_at = if toks[ls].is_op("(") {
        close_of(toks, ls)? + 1
    } else {
        let mut d = 0usize;
        let mut at = le;
        for (i, t) in toks.iter().enumerate().take(le).skip(ls) {
            if t.is_op("(") {
                d += 1;
            } else if t.is_op(")") {
                d = d.saturating_sub(1);
            } else if d == 0 && (t.is_kw("ORDER") || t.is_kw("LIMIT")) {
                at = i;
                break;
            }
        }
        at
    };
    members.last_mut()?.1 = tail_at;
    let mut out = String::new();
    let mut first_cols = Vec::new();
    for (i, &(s, e)) in members.iter().enumerate() {
        let member_names = match (i, names) {
            (0, n) => n,
            (_, Names::Bare) => Names::Bare,
            _ => Names::Member,
        };
        let m = &toks[s..e];
        let (text, cols) = if m.first()?.is_op("(") {
            if close_of(m, 0)? + 1 != m.len() {
                return None;
            }
            let (t, c) = query(cx, &m[1..m.len() - 1], member_names, parent, depth + 1)?;
            (format!("({})", t), c)
        } else {
            select(cx, m, member_names, parent, depth)?
        };
        if i > 0 {
            out.push_str(words[i - 1]);
        } else {
            first_cols = cols;
        }
        out.push_str(&text);
    }
    // ORDER BY the result's columns (by number or name), LIMIT n.
    let mut rest = &toks[tail_at..];
    if rest.first().is_some_and(|t| t.is_kw("ORDER")) {
        if !rest.get(1).is_some_and(|t| t.is_kw("BY")) {
            return None;
        }
        let end = rest.iter().position(|t| t.is_kw("LIMIT")).unwrap_or(rest.len());
        let mut parts = Vec::new();
        for p in split_commas(&rest[2..end]) {
            let (term, desc) = match p {
                [t] => (t, false),
                [t, a] if a.is_kw("ASC") => (t, false),
                [t, dsc] if dsc.is_kw("DESC") => (t, true),
                _ => return None,
            };
            let mut text = match &term.tok {
                Tok::Number(n) => n.to_string(),
                Tok::Word(w) | Tok::Quoted(w) => quote_ident(first_cols.iter().find(|c| c.eq_ignore_ascii_case(w))?),
                _ => return None,
            };
            if desc {
                text.push_str(" desc");
            }
            parts.push(text);
        }
        out.push_str(&format!(" order by {}", parts.join(",")));
        rest = &rest[end..];
    }
    match rest {
        [] => {}
        [l, n] if l.is_kw("LIMIT") && matches!(n.tok, Tok::Number(_)) => out.push_str(&format!(" limit {}", &cx.src[n.start..n.end])),
        _ => return None,
    }
    Some((out, first_cols))
}

/// `WITH name [(cols)] AS (query), ... query`: `with name as (...), ...` and the query, no space between.
fn with(cx: &Cx<'_>, toks: &[Token], names: Names<'_>, parent: Option<&Scope<'_>>, depth: usize) -> Option<(String, Vec<String>)> {
    let mut ctes: Vec<(String, Vec<String>)> = Vec::new();
    let mut parts = Vec::new();
    let mut k = 1;
    loop {
        if ctes.len() >= MAX_CTES {
            return None;
        }
        let name = match &toks.get(k)?.tok {
            Tok::Word(w) if w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => w.to_string(),
            _ => return None,
        };
        k += 1;
        let mut cols = Vec::new();
        if toks.get(k)?.is_op("(") {
            let close = close_of(toks, k)?;
            for c in split_commas(&toks[k + 1..close]) {
                match c {
                    [c] => cols.push(c.ident()?.to_string()),
                    _ => return None,
                }
            }
            k = close + 1;
        }
        if !toks.get(k)?.is_kw("AS") || !opens_query(toks, k + 1) {
            return None;
        }
        let close = close_of(toks, k + 1)?;
        let mut sc = Scope::new(parent);
        sc.ctes = ctes.clone();
        let body_names = if cols.is_empty() { Names::Own } else { Names::View(&cols) };
        let (text, out_cols) = query(cx, &toks[k + 2..close], body_names, Some(&sc), depth + 1)?;
        let listed = if cols.is_empty() { String::new() } else { format!("({})", cols.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(",")) };
        parts.push(format!("{}{} as ({})", name, listed, text));
        ctes.push((name, if cols.is_empty() { out_cols } else { cols }));
        k = close + 1;
        if toks.get(k).is_some_and(|t| t.is_op(",")) {
            k += 1;
            continue;
        }
        break;
    }
    let mut sc = Scope::new(parent);
    sc.ctes = ctes;
    let rest = toks.get(k..)?;
    if rest.first().is_some_and(|t| t.is_kw("WITH")) {
        return None;
    }
    let (text, cols) = query(cx, rest, names, Some(&sc), depth + 1)?;
    Some((format!("with {}{}", parts.join(", "), text), cols))
}

/// One SELECT (no UNION at its depth 0) and the names of its columns.
fn select(cx: &Cx<'_>, toks: &[Token], names: Names<'_>, parent: Option<&Scope<'_>>, depth: usize) -> Option<(String, Vec<String>)> {
    if !toks.first()?.is_kw("SELECT") {
        return None;
    }
    // The clause boundaries at depth 0.
    let mut d = 0usize;
    let mut bounds: Vec<(usize, String)> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match &t.tok {
            Tok::Op("(") => d += 1,
            Tok::Op(")") => d = d.checked_sub(1)?,
            Tok::Word(w) if d == 0 && CLAUSES.iter().any(|c| c.eq_ignore_ascii_case(w)) => bounds.push((k, w.to_ascii_uppercase().to_string())),
            _ => {}
        }
    }
    let end_of = |k: usize| bounds.iter().find(|(b, _)| *b > k).map_or(toks.len(), |(b, _)| *b);
    let clause = |name: &str| bounds.iter().find(|(_, n)| n == name).map(|(b, _)| *b);
    // Clauses in MariaDB's order only.
    let order: Vec<&str> = bounds.iter().map(|(_, n)| n.as_str()).collect();
    let rank = |n: &str| CLAUSES.iter().position(|c| *c == n).unwrap_or(usize::MAX);
    if order.windows(2).any(|w| rank(w[0]) >= rank(w[1])) {
        return None;
    }
    // FROM.
    let list_end = clause("FROM").unwrap_or_else(|| end_of(0));
    let mut scope = Scope::new(parent);
    let mut from_text = None;
    if let Some(f) = clause("FROM") {
        let ft = &toks[f + 1..end_of(f)];
        let dual = ft.len() == 1 && ft[0].is_kw("DUAL");
        if dual && order.len() > 1 {
            return None;
        }
        if !dual {
            let (text, rels) = from_clause(cx, ft, parent, depth)?;
            scope.rels = rels;
            from_text = Some(text);
        }
    }
    // Named windows (printed where they are used).
    if let Some(w) = clause("WINDOW") {
        let mut windows = Vec::new();
        for def in split_commas(&toks[w + 1..end_of(w)]) {
            match def {
                [n, as_, open, .., close] if as_.is_kw("AS") && open.is_op("(") && close.is_op(")") && close_of(def, 2)? + 1 == def.len() => {
                    windows.push((n.ident()?.to_string(), window_spec(cx, &def[3..def.len() - 1], &scope, depth)?));
                }
                _ => return None,
            }
        }
        scope.windows = windows;
    }
    // The select list.
    let mut k = 1;
    let mut out = String::from("select ");
    if toks.get(k).is_some_and(|t| t.is_kw("DISTINCT")) {
        out.push_str("distinct ");
        k += 1;
    }
    if let Some(c) = toks.get(k).filter(|t| t.is_kw("SQL_CACHE") || t.is_kw("SQL_NO_CACHE")) {
        out.push_str(&format!("{} ", c.ident()?.to_ascii_lowercase()));
        k += 1;
    }
    if toks.get(k).is_some_and(|t| t.is_kw("DISTINCT") || t.is_kw("SQL_CACHE") || t.is_kw("SQL_NO_CACHE")) {
        return None;
    }
    let items = split_commas(toks.get(k..list_end)?);
    let mut printed: Vec<String> = Vec::new();
    let mut own: Vec<String> = Vec::new();
    let mut aliases: Vec<String> = Vec::new();
    for item in &items {
        match item {
            [star] if star.is_op("*") => {
                for r in &scope.rels {
                    printed.extend(r.columns.iter().map(|c| format!("{}.{}", quote_ident(r.qual()), quote_ident(c))));
                    own.extend(r.columns.iter().cloned());
                }
            }
            [q, dot, star] if dot.is_op(".") && star.is_op("*") => {
                let r = scope.rels.iter().find(|r| q.ident().is_some_and(|n| n.eq_ignore_ascii_case(r.qual())))?;
                printed.extend(r.columns.iter().map(|c| format!("{}.{}", quote_ident(r.qual()), quote_ident(c))));
                own.extend(r.columns.iter().cloned());
            }
            _ => {
                let (expr, alias) = split_alias(item)?;
                if let Some(a) = alias {
                    aliases.push(a.to_string());
                }
                own.push(match (alias, expr) {
                    (Some(a), _) => a.to_string(),
                    (None, [c]) if c.ident().is_some() => c.ident()?.to_string(),
                    (None, [_, dot, c]) if dot.is_op(".") && c.ident().is_some() => c.ident()?.to_string(),
                    (None, [Token { tok: Tok::Str(v), .. }]) => String::from_utf8_lossy(v).into_owned(),
                    (None, _) => cx.src.get(expr.first()?.start..expr.last()?.end)?.to_string(),
                });
                let expr = unwrapped(expr);
                printed.push(expr_text(cx, expr, &scope, &[], depth)?);
                if let Some(a) = alias {
                    scope.items.push(a.to_string());
                }
            }
        }
    }
    if printed.is_empty() {
        return None;
    }
    let list: Vec<String> = match names {
        Names::View(ns) => {
            if printed.len() != ns.len() {
                return None;
            }
            own = ns.to_vec();
            printed.iter().zip(ns).map(|(e, n)| format!("{} AS {}", e, quote_ident(n))).collect()
        }
        Names::Own | Names::Member => {
            for (i, n) in own.iter_mut().enumerate() {
                if n.is_empty() {
                    if matches!(names, Names::Own) {
                        return None;
                    }
                    *n = format!("Name_exp_{}", i + 1);
                }
            }
            printed.iter().zip(&own).map(|(e, n)| format!("{} AS {}", e, quote_ident(n))).collect()
        }
        Names::Bare => printed,
    };
    out.push_str(&list.join(","));
    if let Some(f) = from_text {
        out.push_str(" from ");
        out.push_str(&f);
    }
    for (b, name) in &bounds {
        let body = &toks[b + 1..end_of(*b)];
        match name.as_str() {
            "FROM" | "WINDOW" => {}
            "WHERE" | "HAVING" => {
                // A bare operand is printed compared with 0 by MariaDB: not here.
                if body.len() <= 1 {
                    return None;
                }
                let allowed: &[String] = if name == "HAVING" { &aliases } else { &[] };
                out.push_str(&format!(" {} {}", name.to_ascii_lowercase(), expr_text(cx, body, &scope, allowed, depth)?));
            }
            "GROUP" | "ORDER" => {
                let (by, rest) = body.split_first()?;
                if !by.is_kw("BY") || rest.is_empty() {
                    return None;
                }
                let mut parts = Vec::new();
                for p in split_commas(rest) {
                    let p: Vec<Token> = p.iter().filter(|t| !t.is_kw("ASC")).cloned().collect();
                    parts.push(expr_text(cx, &p, &scope, &[], depth)?);
                }
                out.push_str(&format!(" {} by {}", name.to_ascii_lowercase(), parts.join(",")));
            }
            "LIMIT" => match body {
                [n] if matches!(n.tok, Tok::Number(_)) => out.push_str(&format!(" limit {}", &cx.src[n.start..n.end])),
                _ => return None,
            },
            "FOR" => match body {
                [u] if u.is_kw("UPDATE") => out.push_str(" for update"),
                [u, s, l] if u.is_kw("UPDATE") && s.is_kw("SKIP") && l.is_kw("LOCKED") => out.push_str(" for update skip locked"),
                _ => return None,
            },
            "LOCK" => match body {
                [i, s, m] if i.is_kw("IN") && s.is_kw("SHARE") && m.is_kw("MODE") => out.push_str(" lock in share mode"),
                [i, s, m, sk, l] if i.is_kw("IN") && s.is_kw("SHARE") && m.is_kw("MODE") && sk.is_kw("SKIP") && l.is_kw("LOCKED") => out.push_str(" lock in share mode skip locked"),
                _ => return None,
            },
            _ => return None,
        }
    }
    Some((out, own))
}

/// Words that end a table's reference (no alias).
fn ends_reference(t: &Token) -> bool {
    matches!(&t.tok, Tok::Op(_)) || ["ON", "JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "NATURAL", "STRAIGHT_JOIN", "USE", "FORCE", "IGNORE", "PARTITION", "USING", "DUAL"].iter().any(|w| t.is_kw(w))
}

/// How two references are joined.
#[derive(PartialEq)]
enum Join {
    Comma,
    Inner,
    Left,
}

/// A reference of a FROM clause: its text, its join, its ON's token range.
type Part = (String, Join, Option<(usize, usize)>);

/// A FROM clause: the tables joined as MariaDB prints them (left-deep,
/// each join in parentheses, `on(...)`), and its tables.
fn from_clause(cx: &Cx<'_>, toks: &[Token], parent: Option<&Scope<'_>>, depth: usize) -> Option<(String, Vec<Rel>)> {
    if depth > MAX_DEPTH {
        return None;
    }
    // Each reference's text, how it is joined, its ON condition's tokens.
    let mut parts: Vec<Part> = Vec::new();
    let mut rels: Vec<Rel> = Vec::new();
    let mut k = 0;
    let is_join_op = |toks: &[Token], i: usize| toks[i].is_op(",") || toks[i].is_kw("JOIN") || ((toks[i].is_kw("INNER") || toks[i].is_kw("CROSS") || toks[i].is_kw("LEFT")) && i + 1 < toks.len());
    while k < toks.len() || parts.is_empty() {
        let join = if parts.is_empty() {
            Join::Inner
        } else if toks[k].is_op(",") {
            k += 1;
            Join::Comma
        } else if toks[k].is_kw("JOIN") {
            k += 1;
            Join::Inner
        } else if (toks[k].is_kw("INNER") || toks[k].is_kw("CROSS")) && toks.get(k + 1).is_some_and(|t| t.is_kw("JOIN")) {
            k += 2;
            Join::Inner
        } else if toks[k].is_kw("LEFT") {
            k += 1;
            if toks.get(k).is_some_and(|t| t.is_kw("OUTER")) {
                k += 1;
            }
            if !toks.get(k)?.is_kw("JOIN") {
                return None;
            }
            k += 1;
            Join::Left
        } else {
            return None;
        };
        let (text, mut got, next) = reference(cx, toks, k, parent, depth)?;
        k = next;
        let on = if toks.get(k).is_some_and(|t| t.is_kw("ON")) {
            if join == Join::Comma || parts.is_empty() {
                return None;
            }
            let mut d = 0usize;
            let mut end = toks.len();
            for (i, t) in toks.iter().enumerate().skip(k + 1) {
                if t.is_op("(") {
                    d += 1;
                } else if t.is_op(")") {
                    d = d.checked_sub(1)?;
                } else if d == 0 && is_join_op(toks, i) {
                    end = i;
                    break;
                }
            }
            let r = (k + 1, end);
            k = end;
            Some(r)
        } else {
            if join == Join::Left {
                return None;
            }
            None
        };
        parts.push((text, join, on));
        rels.append(&mut got);
        if rels.len() > MAX_TABLES {
            return None;
        }
    }
    // A comma list mixed with JOIN binds otherwise: not printed here.
    if parts.iter().skip(1).any(|p| p.1 == Join::Comma) && parts.iter().skip(1).any(|p| p.1 != Join::Comma) {
        return None;
    }
    for (i, r) in rels.iter().enumerate() {
        if rels[..i].iter().any(|p| p.qual().eq_ignore_ascii_case(r.qual())) {
            return None;
        }
    }
    let mut scope = Scope::new(parent);
    scope.rels = rels;
    let mut joined = String::new();
    for (i, (text, join, on)) in parts.iter().enumerate() {
        if i == 0 {
            joined = text.clone();
            continue;
        }
        let on = match on {
            Some((s, e)) => format!(" on({})", expr_text(cx, unwrapped(toks.get(*s..*e)?), &scope, &[], depth)?),
            None => String::new(),
        };
        joined = format!("({} {} {}{})", joined, if *join == Join::Left { "left join" } else { "join" }, text, on);
    }
    Some((joined, scope.rels))
}

/// One table reference at `k`: a table, view or CTE with its alias and
/// index hints, a derived table, or joins in parentheses. Its text, its
/// tables and where it ends.
fn reference(cx: &Cx<'_>, toks: &[Token], mut k: usize, parent: Option<&Scope<'_>>, depth: usize) -> Option<(String, Vec<Rel>, usize)> {
    let first = toks.get(k)?;
    if first.is_op("(") {
        let close = close_of(toks, k)?;
        if !opens_query(toks, k) {
            // Joins in parentheses.
            let (text, rels) = from_clause(cx, &toks[k + 1..close], parent, depth + 1)?;
            return Some((text, rels, close + 1));
        }
        let (text, cols) = query(cx, &toks[k + 1..close], Names::Own, parent, depth + 1)?;
        k = close + 1;
        if toks.get(k).is_some_and(|t| t.is_kw("AS")) {
            k += 1;
        }
        let alias = toks.get(k).filter(|t| !ends_reference(t))?.ident()?.to_string();
        let text = format!("({}) {}", text, quote_ident(&alias));
        return Some((text, vec![Rel { table: alias, alias: None, columns: cols }], k + 1));
    }
    let name = first.ident()?.to_string();
    if matches!(first.tok, Tok::Word(_)) && (ends_reference(first) || KEYWORDS.iter().any(|w| first.is_kw(w))) {
        return None;
    }
    k += 1;
    if toks.get(k).is_some_and(|t| t.is_op(".")) {
        return None;
    }
    let alias = if toks.get(k).is_some_and(|t| t.is_kw("AS")) {
        k += 2;
        Some(toks.get(k - 1)?.ident()?.to_string())
    } else if toks.get(k).is_some_and(|t| !ends_reference(t)) {
        k += 1;
        Some(toks[k - 1].ident()?.to_string())
    } else {
        None
    };
    let columns = match parent.and_then(|p| p.cte(&name)) {
        Some(c) => c.to_vec(),
        None => (cx.columns_of)(&name)?,
    };
    let mut text = match &alias {
        Some(a) => format!("{} {}", quote_ident(&name), quote_ident(a)),
        None => quote_ident(&name),
    };
    // Index hints: one `X INDEX (name)` per index named.
    while toks.get(k).is_some_and(|t| t.is_kw("USE") || t.is_kw("FORCE") || t.is_kw("IGNORE")) {
        let hint = toks[k].ident()?.to_ascii_uppercase();
        if !toks.get(k + 1).is_some_and(|t| t.is_kw("INDEX") || t.is_kw("KEY")) || !toks.get(k + 2).is_some_and(|t| t.is_op("(")) {
            return None;
        }
        let close = close_of(toks, k + 2)?;
        let inner = &toks[k + 3..close];
        if inner.is_empty() {
            text.push_str(&format!(" {} INDEX ()", hint));
        }
        for i in split_commas(inner).into_iter().filter(|i| !inner.is_empty() || !i.is_empty()) {
            match i {
                [p] if p.is_kw("PRIMARY") => text.push_str(&format!(" {} INDEX (PRIMARY)", hint)),
                [n] => text.push_str(&format!(" {} INDEX ({})", hint, quote_ident(n.ident()?))),
                _ => return None,
            }
        }
        k = close + 1;
    }
    Some((text, vec![Rel { table: name, alias, columns }], k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(t: &str) -> Option<Vec<String>> {
        match t.to_ascii_lowercase().as_str() {
            "t1" => Some(vec!["a".into(), "b".into()]),
            "t2" => Some(vec!["c".into(), "DOB".into()]),
            _ => None,
        }
    }

    fn shown(sql: &str, names: &[&str]) -> Option<String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        canonical(sql, &names, &cols)
    }

    #[test]
    fn printed_as_mariadb_prints_it() {
        assert_eq!(shown("select b+1 from t1", &["c"]).unwrap(), "select `t1`.`b` + 1 AS `c` from `t1`");
        assert_eq!(shown("SELECT * FROM t1", &["a", "b"]).unwrap(), "select `t1`.`a` AS `a`,`t1`.`b` AS `b` from `t1`");
        assert_eq!(shown("select 1", &["1"]).unwrap(), "select 1 AS `1`");
        assert_eq!(shown("SELECT !0 * 5 AS x FROM DUAL", &["x"]).unwrap(), "select !0 * 5 AS `x`");
        assert_eq!(
            shown("select a, dob from t1, t2 where a < now() order by 1", &["a", "dob"]).unwrap(),
            "select `t1`.`a` AS `a`,`t2`.`DOB` AS `dob` from (`t1` join `t2`) where `t1`.`a` < current_timestamp() order by 1"
        );
        assert_eq!(shown("SELECT COUNT(*), x.a FROM t1 x GROUP BY x.a", &["COUNT(*)", "a"]).unwrap(), "select count(0) AS `COUNT(*)`,`x`.`a` AS `a` from `t1` `x` group by `x`.`a`");
        assert_eq!(shown("SELECT (a+b) AS s FROM t1 HAVING s < 75", &["s"]).unwrap(), "select `t1`.`a` + `t1`.`b` AS `s` from `t1` having `s` < 75");
        assert_eq!(shown("SELECT a FROM t1 FOR UPDATE", &["a"]).unwrap(), "select `t1`.`a` AS `a` from `t1` for update");
        assert_eq!(shown("SELECT a FROM t1 WHERE a = CURRENT_USER", &["a"]).unwrap(), "select `t1`.`a` AS `a` from `t1` where `t1`.`a` = current_user()");
        assert_eq!(
            shown("SELECT a IS NOT TRUE, b NOT IN (1,2) FROM t1 WHERE a IS NOT NULL", &["x", "y"]).unwrap(),
            "select `t1`.`a` is not true AS `x`,`t1`.`b` not in (1,2) AS `y` from `t1` where `t1`.`a` is not null"
        );
        assert_eq!(shown("SELECT ((a)+(b)) FROM t1", &["x"]).unwrap(), "select (`t1`.`a`) + (`t1`.`b`) AS `x` from `t1`");
    }

    #[test]
    fn nested_queries_printed_as_mariadb_prints_them() {
        // Each expected text is MariaDB 10.11's SHOW CREATE VIEW for the query.
        let cases: [(&str, &[&str], &str); 13] = [
            ("select a from t1 where a in (select c from t2)", &["a"], "select `t1`.`a` AS `a` from `t1` where `t1`.`a` in (select `t2`.`c` from `t2`)"),
            ("select a, (select max(c) from t2 where t2.c = t1.b) as m from t1", &["a", "m"], "select `t1`.`a` AS `a`,(select max(`t2`.`c`) from `t2` where `t2`.`c` = `t1`.`b`) AS `m` from `t1`"),
            (
                "select t1.a from t1 join t2 on t1.a = t2.c left join t2 x on (x.c = t1.b)",
                &["a"],
                "select `t1`.`a` AS `a` from ((`t1` join `t2` on(`t1`.`a` = `t2`.`c`)) left join `t2` `x` on(`x`.`c` = `t1`.`b`))",
            ),
            ("select * from (select a, b+1 from t1) d where d.a > 1", &["a", "b+1"], "select `d`.`a` AS `a`,`d`.`b+1` AS `b+1` from (select `t1`.`a` AS `a`,`t1`.`b` + 1 AS `b+1` from `t1`) `d` where `d`.`a` > 1"),
            (
                "with q as (select a from t1), r (x) as (select c from t2) select * from q, r where q.a = r.x",
                &["a", "x"],
                "with q as (select `t1`.`a` AS `a` from `t1`), r(`x`) as (select `t2`.`c` AS `x` from `t2`)select `q`.`a` AS `a`,`r`.`x` AS `x` from (`q` join `r`) where `q`.`a` = `r`.`x`",
            ),
            ("select a from t1 union all select c from t2 order by a desc limit 2", &["a"], "select `t1`.`a` AS `a` from `t1` union all select `t2`.`c` AS `c` from `t2` order by `a` desc limit 2"),
            (
                "(select a from t1) union (select c from t2 order by c limit 1) union distinct select 5",
                &["a"],
                "(select `t1`.`a` AS `a` from `t1`) union (select `t2`.`c` AS `c` from `t2` order by `t2`.`c` limit 1) union select 5 AS `5`",
            ),
            (
                "select a, count(*) over (partition by b order by a rows between 1 preceding and 2 following) as n from t1",
                &["a", "n"],
                "select `t1`.`a` AS `a`,count(0) over ( partition by `t1`.`b` order by `t1`.`a` rows between 1 preceding  and 2 following ) AS `n` from `t1`",
            ),
            (
                "select a, sum(b) over w, rank() over (order by a desc) from t1 window w as (partition by a rows unbounded preceding)",
                &["a", "sum(b) over w", "rank() over (order by a desc)"],
                "select `t1`.`a` AS `a`,sum(`t1`.`b`) over ( partition by `t1`.`a` rows between  unbounded  preceding  and  current row ) AS `sum(b) over w`,rank() over ( order by `t1`.`a` desc) AS `rank() over (order by a desc)` from `t1`",
            ),
            ("select a as x, (select x) as y from t1", &["x", "y"], "select `t1`.`a` AS `x`,(select `x`) AS `y` from `t1`"),
            ("select '' from t1 union select a from t1", &["Name_exp_1"], "select '' AS `Name_exp_1` from `t1` union select `t1`.`a` AS `a` from `t1`"),
            (
                "select distinct sql_no_cache a from t1 force key (PRIMARY, b) where b < all (select c from t2)",
                &["a"],
                "select distinct sql_no_cache `t1`.`a` AS `a` from `t1` FORCE INDEX (PRIMARY) FORCE INDEX (`b`) where `t1`.`b` < all (select `t2`.`c` from `t2`)",
            ),
            (
                "select a from t1 join (t2 join t2 z on t2.c = z.c) on t1.a = t2.c",
                &["a"],
                "select `t1`.`a` AS `a` from (`t1` join (`t2` join `t2` `z` on(`t2`.`c` = `z`.`c`)) on(`t1`.`a` = `t2`.`c`))",
            ),
        ];
        for (sql, names, want) in cases {
            assert_eq!(shown(sql, names).as_deref(), Some(want), "{}", sql);
        }
    }

    #[test]
    fn others_are_shown_as_written() {
        for sql in [
            "select a from t1 union select c from t2 order by b",
            "select a from t1 right join t2 on a = c",
            "select a from t1, t2 join t2 x on c = x.c",
            "select a from t1 where exists (select 1 from t2)",
            "select a from t1 where a not in (select c from t2)",
            "select a from t1 where a = any (select c from t2)",
            "with recursive q as (select 1) select * from q",
            "select * from (select '' from t1) d",
            "select count(*) over (w order by a) from t1 window w as (partition by b)",
            "select a from t9",
            "select z from t1",
            "select cast(a as char) from t1",
            "select a from t1 where a",
            "select _latin1 'x'",
            "select @x",
            "select a from t1 limit 1, 2",
            "select a from t1 group by a with rollup",
            "select not a from t1",
            "select 'it''s' from t1",
        ] {
            assert_eq!(shown(sql, &["a"]), None, "{}", sql);
        }
        // A column count that is not the view's.
        assert_eq!(shown("select * from t1", &["a"]), None);
        // Deep parentheses: one pass, no recursion.
        let deep = format!("select {}1{} from t1", "(".repeat(5000), ")".repeat(5000));
        assert!(shown(&deep, &["x"]).is_some());
        // Nested queries past MAX_DEPTH: shown as written, no deeper recursion.
        let nested = format!("select {}1{} from t1", "(select ".repeat(5000), ")".repeat(5000));
        assert_eq!(shown(&nested, &["x"]), None);
        let unions = format!("select a from t1{}", " union select a from t1".repeat(3000));
        assert!(shown(&unions, &["a"]).is_some());
    }
}
