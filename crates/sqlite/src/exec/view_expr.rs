//! Expressions of a view's query as MariaDB prints them (view_text.rs
//! prints the query around them): columns qualified by the table of the
//! scope that has them (the innermost, then outward for a correlated
//! subquery), keywords and function names in lower case, binary operators
//! spaced, subqueries printed by view_text.rs, window specifications in
//! MariaDB's own spacing. None for any form not known here.
//!
//! One pass over an expression's tokens; a subquery is handed to
//! view_text.rs with the nesting depth, which bounds the recursion.

use super::view_text::{self, Names};
use crate::ddl::expr_spaced;
use crate::schema::{quote_ident, quote_str};
use turnstile_sqltext::lex::{Tok, Token};

/// Functions MariaDB prints in another form than the call (CAST(x AS
/// CHAR) with its charset, DATE(x) as a cast, SUBSTRING's FROM ...).
pub(super) const REFUSED_CALLS: &[&str] = &[
    "DATE",
    "TIME",
    "CAST",
    "CONVERT",
    "SUBSTRING",
    "SUBSTR",
    "MID",
    "POSITION",
    "TRIM",
    "EXTRACT",
    "DATE_ADD",
    "DATE_SUB",
    "ADDDATE",
    "SUBDATE",
    "MATCH",
    "CHAR",
    "TIMESTAMPDIFF",
    "TIMESTAMPADD",
    "WEIGHT_STRING",
    "ROW",
    "EXISTS",
    "VALUES",
];

/// Words printed in lower case where they are no column.
pub(super) const KEYWORDS: &[&str] = &[
    "AND",
    "OR",
    "XOR",
    "NOT",
    "IS",
    "NULL",
    "UNKNOWN",
    "IN",
    "BETWEEN",
    "LIKE",
    "REGEXP",
    "RLIKE",
    "ESCAPE",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "DIV",
    "INTERVAL",
    "DISTINCT",
    "SEPARATOR",
    "DESC",
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "SECOND_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
    "HOUR_SECOND",
    "DAY_MINUTE",
    "DAY_SECOND",
    "COLLATE",
    "SOUNDS",
];

/// Clock and session words callable without parentheses, as MariaDB prints them.
fn bare_call(upper: &str) -> Option<&'static str> {
    Some(match upper {
        "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => "current_timestamp()",
        "CURRENT_DATE" => "curdate()",
        "CURRENT_TIME" => "curtime()",
        "CURRENT_USER" => "current_user()",
        "UTC_DATE" => "utc_date()",
        "UTC_TIME" => "utc_time()",
        "UTC_TIMESTAMP" => "utc_timestamp()",
        _ => return None,
    })
}

/// A call's name as MariaDB prints it.
fn call_name(upper: &str) -> String {
    match upper {
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => "current_timestamp".into(),
        "CURRENT_DATE" => "curdate".into(),
        "CURRENT_TIME" => "curtime".into(),
        "SCHEMA" => "database".into(),
        "LENGTH" => "octet_length".into(),
        "CHARACTER_LENGTH" => "char_length".into(),
        other => other.to_ascii_lowercase().to_string(),
    }
}

/// One table, view, CTE or derived table of a FROM clause.
pub(super) struct Rel {
    /// Its name as written (a derived table's alias) and its alias.
    pub table: String,
    pub alias: Option<String>,
    pub columns: Vec<String>,
}

impl Rel {
    /// The qualifier its columns are printed with.
    pub fn qual(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }
}

/// The names an expression sees: its SELECT's tables, then the enclosing
/// queries' (a correlated subquery), the CTEs of the WITH clauses around it
/// and the SELECT's named windows (already printed).
pub(super) struct Scope<'p> {
    pub rels: Vec<Rel>,
    pub ctes: Vec<(String, Vec<String>)>,
    pub windows: Vec<(String, String)>,
    /// The aliases of the select items before the one being printed (a
    /// subquery there may name them).
    pub items: Vec<String>,
    pub parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    pub fn new(parent: Option<&'p Scope<'p>>) -> Scope<'p> {
        Scope { rels: Vec::new(), ctes: Vec::new(), windows: Vec::new(), items: Vec::new(), parent }
    }

    /// The columns of the CTE `name` visible here.
    pub fn cte(&self, name: &str) -> Option<&[String]> {
        let mut s = Some(self);
        while let Some(sc) = s {
            if let Some((_, c)) = sc.ctes.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
                return Some(c);
            }
            s = sc.parent;
        }
        None
    }

    /// An earlier select item's alias of an enclosing query, named in a subquery of its select list.
    fn outer_item(&self, w: &str) -> Option<&str> {
        let mut s = self.parent;
        while let Some(sc) = s {
            if let Some(a) = sc.items.iter().find(|a| a.eq_ignore_ascii_case(w)) {
                return Some(a);
            }
            s = sc.parent;
        }
        None
    }

    /// `q.c`: the innermost scope with a table qualified `q`; its printed form.
    fn qualified(&self, q: &str, col: &str) -> Option<String> {
        let mut s = Some(self);
        while let Some(sc) = s {
            if let Some(r) = sc.rels.iter().find(|r| r.qual().eq_ignore_ascii_case(q)) {
                let c = r.columns.iter().find(|c| c.eq_ignore_ascii_case(col))?;
                return Some(format!("{}.{}", quote_ident(r.qual()), quote_ident(c)));
            }
            s = sc.parent;
        }
        None
    }

    /// A bare column: the innermost scope that has it (Err when two of its
    /// tables do: ambiguous), Ok(None) when none has it.
    fn column(&self, w: &str) -> Result<Option<String>, ()> {
        let mut s = Some(self);
        while let Some(sc) = s {
            let mut hits = sc.rels.iter().filter_map(|r| r.columns.iter().find(|c| c.eq_ignore_ascii_case(w)).map(|c| (r, c)));
            match (hits.next(), hits.next()) {
                (Some((r, c)), None) => return Ok(Some(format!("{}.{}", quote_ident(r.qual()), quote_ident(c)))),
                (Some(_), Some(_)) => return Err(()),
                (None, _) => {}
            }
            s = sc.parent;
        }
        Ok(None)
    }
}

/// The index of the `)` closing the `(` at `open`.
pub(super) use turnstile_sqltext::parens::closing as close_of;

/// Does the `(` at `k` open a query (`(SELECT`, `(WITH`)?
pub(super) fn opens_query(toks: &[Token], k: usize) -> bool {
    toks[k].is_op("(") && toks.get(k + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH"))
}

/// An expression as MariaDB prints it, columns qualified by `scope`'s
/// tables; `aliases`: select-list names it may name (HAVING).
pub(super) fn expr_text(cx: &view_text::Cx<'_>, toks: &[Token], scope: &Scope<'_>, aliases: &[String], depth: usize) -> Option<String> {
    if toks.is_empty() {
        return None;
    }
    let mut out = String::new();
    let mut k = 0;
    while k < toks.len() {
        let t = &toks[k];
        let call = toks.get(k + 1).is_some_and(|n| n.is_op("("));
        let after_collate = k > 0 && toks[k - 1].is_kw("COLLATE");
        let mut next = k + 1;
        let mut space = k > 0 && expr_spaced(toks, k);
        let piece = match &t.tok {
            // A subquery.
            Tok::Op("(") if opens_query(toks, k) => {
                let close = close_of(toks, k)?;
                next = close + 1;
                format!("({})", view_text::query(cx, &toks[k + 1..close], Names::Bare, Some(scope), depth + 1)?.0)
            }
            // `> ANY (SELECT ...)`, `< ALL (SELECT ...)` (`= ANY` is printed as IN, `<> ALL` as NOT IN).
            Tok::Word(w) if (w.eq_ignore_ascii_case("ANY") || w.eq_ignore_ascii_case("ALL")) && opens_query(toks, k + 1) => {
                if !(k > 0 && ["<", ">", "<=", ">="].iter().any(|o| toks[k - 1].is_op(o))) {
                    return None;
                }
                let close = close_of(toks, k + 1)?;
                next = close + 1;
                format!("{} ({})", w.to_ascii_lowercase(), view_text::query(cx, &toks[k + 2..close], Names::Bare, Some(scope), depth + 1)?.0)
            }
            // A window function's OVER (spec) or OVER name.
            Tok::Word(w) if w.eq_ignore_ascii_case("OVER") && k > 0 && toks[k - 1].is_op(")") => {
                space = true;
                match toks.get(k + 1) {
                    Some(o) if o.is_op("(") => {
                        let close = close_of(toks, k + 1)?;
                        next = close + 1;
                        format!("over {}", window_spec(cx, &toks[k + 2..close], scope, depth)?)
                    }
                    Some(n) => {
                        let name = n.ident()?;
                        next = k + 2;
                        let (_, spec) = scope.windows.iter().find(|(w, _)| w.eq_ignore_ascii_case(name))?;
                        format!("over {}", spec)
                    }
                    None => return None,
                }
            }
            Tok::Word(w) | Tok::Quoted(w) if toks.get(k + 1).is_some_and(|n| n.is_op(".")) => {
                // `q.c`: a column of a table in scope.
                let col = toks.get(k + 2)?.ident()?;
                if toks.get(k + 3).is_some_and(|n| n.is_op(".")) {
                    return None;
                }
                next = k + 3;
                scope.qualified(w, col)?
            }
            Tok::Word(w) if call => {
                let upper = w.to_ascii_uppercase();
                // COUNT(*): MariaDB's count(0).
                if upper == "COUNT" && toks.get(k + 2).is_some_and(|s| s.is_op("*")) && toks.get(k + 3).is_some_and(|c| c.is_op(")")) {
                    next = k + 4;
                    "count(0)".to_string()
                } else {
                    call_name(&upper)
                }
            }
            Tok::Word(w) if after_collate => w.to_ascii_lowercase().to_string(),
            Tok::Word(w) | Tok::Quoted(w) => {
                let quoted = matches!(t.tok, Tok::Quoted(_));
                match scope.column(w).ok()? {
                    Some(c) => c,
                    None => {
                        let upper = w.to_ascii_uppercase();
                        if let Some(a) = aliases.iter().find(|a| a.eq_ignore_ascii_case(w)) {
                            quote_ident(a)
                        } else if let Some(a) = scope.outer_item(w) {
                            quote_ident(a)
                        } else if quoted {
                            return None;
                        } else if let Some(b) = bare_call(&upper) {
                            b.to_string()
                        } else if (upper == "TRUE" || upper == "FALSE") && k > 0 && (toks[k - 1].is_kw("IS") || toks[k - 1].is_kw("NOT")) {
                            upper.to_ascii_lowercase().to_string()
                        } else if upper == "TRUE" || upper == "FALSE" {
                            (if upper == "TRUE" { "1" } else { "0" }).to_string()
                        } else if KEYWORDS.contains(&upper.as_str()) {
                            if upper == "DISTINCT" && !(k > 0 && toks[k - 1].is_op("(")) {
                                return None;
                            }
                            upper.to_ascii_lowercase().to_string()
                        } else {
                            return None;
                        }
                    }
                }
            }
            Tok::Number(n) => n.to_string(),
            Tok::Str(s) => quote_str(std::str::from_utf8(s).ok()?),
            Tok::Op("!=") => "<>".to_string(),
            Tok::Op("&&") => "and".to_string(),
            Tok::Op(o) => o.to_string(),
            _ => return None,
        };
        if space {
            out.push(' ');
        }
        out.push_str(&piece);
        k = next;
    }
    Some(out)
}

/// A window specification (the tokens inside OVER's parentheses or a
/// WINDOW clause's), as MariaDB prints it: `( partition by ... order by
/// ... rows between 1 preceding  and  current row )`.
pub(super) fn window_spec(cx: &view_text::Cx<'_>, toks: &[Token], scope: &Scope<'_>, depth: usize) -> Option<String> {
    let mut out = String::from("(");
    let mut k = 0;
    // The clauses' starts at depth 0.
    let mut d = 0usize;
    let (mut order_at, mut frame_at) = (None, None);
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            d += 1;
        } else if t.is_op(")") {
            d = d.checked_sub(1)?;
        } else if d == 0 && t.is_kw("ORDER") && toks.get(i + 1).is_some_and(|n| n.is_kw("BY")) && order_at.is_none() {
            order_at = Some(i);
        } else if d == 0 && (t.is_kw("ROWS") || t.is_kw("RANGE")) && frame_at.is_none() {
            frame_at = Some(i);
        }
    }
    let frame = frame_at.unwrap_or(toks.len());
    let order = order_at.unwrap_or(frame);
    if order > frame {
        return None;
    }
    let list = |part: &[Token]| -> Option<String> {
        let mut items = Vec::new();
        for p in split_commas(part) {
            let p: Vec<Token> = p.iter().filter(|t| !t.is_kw("ASC")).cloned().collect();
            items.push(expr_text(cx, &p, scope, &[], depth)?);
        }
        Some(items.join(","))
    };
    if order > 0 {
        // PARTITION BY, or a named window this one builds on (not printed here).
        if !(toks[0].is_kw("PARTITION") && toks.get(1).is_some_and(|t| t.is_kw("BY")) && order > 2) {
            return None;
        }
        out.push_str(&format!(" partition by {}", list(&toks[2..order])?));
        k = order;
    }
    if order < frame {
        if frame - order <= 2 {
            return None;
        }
        out.push_str(&format!(" order by {}", list(&toks[order + 2..frame])?));
        k = frame;
    }
    if k < toks.len() {
        let unit = toks[k].ident()?.to_ascii_lowercase();
        let rest = &toks[k + 1..];
        let (start, end) = if rest.first().is_some_and(|t| t.is_kw("BETWEEN")) {
            let and = rest.iter().position(|t| t.is_kw("AND"))?;
            (frame_bound(&rest[1..and])?, frame_bound(&rest[and + 1..])?)
        } else {
            (frame_bound(rest)?, " current row ".to_string())
        };
        out.push_str(&format!(" {} between {} and {}", unit, start, end));
    }
    out.push(')');
    Some(out)
}

/// One bound of a window frame, in MariaDB's spacing.
fn frame_bound(toks: &[Token]) -> Option<String> {
    match toks {
        [c, r] if c.is_kw("CURRENT") && r.is_kw("ROW") => Some(" current row ".into()),
        [u, d] if u.is_kw("UNBOUNDED") && (d.is_kw("PRECEDING") || d.is_kw("FOLLOWING")) => Some(format!(" unbounded  {} ", d.ident()?.to_ascii_lowercase())),
        [n, d] if matches!(n.tok, Tok::Number(_)) && (d.is_kw("PRECEDING") || d.is_kw("FOLLOWING")) => {
            let Tok::Number(v) = &n.tok else { return None };
            Some(format!("{} {} ", v, d.ident()?.to_ascii_lowercase()))
        }
        _ => None,
    }
}

/// The expression without parentheses around all of it (MariaDB prints
/// only those its operators' precedence needs). One pass: each `(` is
/// matched with its `)`, then layers are taken off while the outermost
/// pair spans the rest. A subquery's parentheses stay.
pub(super) fn unwrapped(toks: &[Token]) -> &[Token] {
    let mut closes = vec![usize::MAX; toks.len()];
    let mut open: Vec<usize> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(k);
        } else if t.is_op(")") {
            if let Some(o) = open.pop() {
                closes[o] = k;
            }
        }
    }
    let (mut from, mut to) = (0, toks.len());
    while to >= from + 2 && closes[from] == to - 1 && !opens_query(toks, from) {
        from += 1;
        to -= 1;
    }
    &toks[from..to]
}

/// `toks` split at its commas of depth 0.
pub(super) fn split_commas(toks: &[Token]) -> Vec<&[Token]> {
    turnstile_sqltext::parens::split_top_level(toks, ",")
}

/// A select item's expression and its alias (`AS a`, or a name after the
/// expression), None when neither is clear.
pub(super) fn split_alias(item: &[Token]) -> Option<(&[Token], Option<&str>)> {
    let n = item.len();
    if n == 0 {
        return None;
    }
    if n >= 3 && item[n - 2].is_kw("AS") {
        let a = match &item[n - 1].tok {
            Tok::Word(w) | Tok::Quoted(w) => w.as_ref(),
            _ => return None,
        };
        return Some((&item[..n - 2], Some(a)));
    }
    if n >= 2 && !item[n - 2].is_op(".") {
        let last_is_name = match &item[n - 1].tok {
            Tok::Quoted(_) => true,
            Tok::Word(w) => !["NULL", "TRUE", "FALSE", "UNKNOWN", "END"].iter().any(|k| k.eq_ignore_ascii_case(w)) && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)),
            _ => false,
        };
        let before_is_operand = match &item[n - 2].tok {
            Tok::Op(")") | Tok::Number(_) | Tok::Str(_) | Tok::Quoted(_) => true,
            Tok::Word(w) => !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) && !w.eq_ignore_ascii_case("OVER"),
            _ => false,
        };
        // `f() OVER w`: a named window, no alias.
        if item[n - 2].is_kw("OVER") {
            return Some((item, None));
        }
        if last_is_name && before_is_operand {
            return Some((&item[..n - 1], item[n - 1].ident()));
        }
        if last_is_name {
            return None;
        }
    }
    Some((item, None))
}
