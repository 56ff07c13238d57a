//! A view's SELECT taken apart for writes through it (view_dml.rs): its
//! table references, where each of its columns comes from (a base column,
//! writable, or an expression, read only), its WHERE, and the column
//! references of a text mapped through it. None when the view is not
//! updatable in MariaDB's sense (view_dml.rs says which SELECTs are).

use turnstile_sqltext::clause::NOT_TABLE_ALIAS;
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

/// Where a view column comes from.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Source {
    /// Column `column` of the FROM's `table`-th reference: writable.
    Column { table: usize, column: String },
    /// An expression (its text, when it could be cut from its alias): read only.
    Expr(Option<String>),
}

/// A table reference of the view's FROM.
#[derive(Debug, PartialEq)]
pub(super) struct BaseRef {
    pub(super) table: String,
    pub(super) alias: Option<String>,
    /// Its tokens, [start, end), alias included.
    pub(super) span: (usize, usize),
    /// `db.` written before the name.
    pub(super) db: Option<String>,
}

impl BaseRef {
    pub(super) fn qual(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }
}

/// An updatable view's SELECT, taken apart.
#[derive(Debug)]
pub(super) struct Body {
    pub(super) tables: Vec<BaseRef>,
    /// The FROM clause's text (a join view's UPDATE runs over it).
    pub(super) from: String,
    /// The WHERE condition's text.
    pub(super) cond: Option<String>,
    /// The view's columns, by name.
    pub(super) cols: Vec<(String, Source)>,
    /// The first base table's columns and their defaults as SQL text (for
    /// the CHECK OPTION test of an INSERT's rows).
    pub(super) defaults: Vec<(String, String)>,
    /// A `*` of the view now gives other columns than when it was made (a
    /// base table changed): MariaDB's 1356.
    pub(super) stale: bool,
}

impl Body {
    pub(super) fn col(&self, name: &str) -> Option<&Source> {
        self.cols.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, s)| s)
    }
}

pub(super) const CLAUSE_END: [&str; 13] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "WINDOW", "FOR", "LOCK", "INTO", "PROCEDURE"];
pub(super) const AGGREGATES: [&str; 18] = [
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
pub(super) const JOIN_WORDS: [&str; 8] = ["INNER", "CROSS", "LEFT", "RIGHT", "OUTER", "NATURAL", "JOIN", "STRAIGHT_JOIN"];

pub(super) fn text<'s>(sql: &'s str, toks: &[Token]) -> &'s str {
    match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => &sql[a.start..b.end],
        _ => "",
    }
}

pub(super) fn is_join_word(toks: &[Token], i: usize) -> bool {
    JOIN_WORDS.iter().any(|k| toks[i].is_kw(k)) && !toks.get(i + 1).is_some_and(|t| t.is_op("("))
}

/// The view's SELECT taken apart, None when the view is not updatable.
/// `names`: the view's column names, in order; `columns_of`: a base table's
/// column names.
pub(super) fn parse_body(select: &str, names: &[String], columns_of: &dyn Fn(&str) -> Option<Vec<String>>) -> Option<Body> {
    let toks = lex::tokenize(select).ok()?;
    if !toks.first()?.is_kw("SELECT") {
        return None;
    }
    let mut i = 1;
    while toks.get(i).is_some_and(|t| t.is_kw("ALL") || t.is_kw("STRAIGHT_JOIN") || t.is_kw("HIGH_PRIORITY") || matches!(&t.tok, Tok::Word(w) if w.len() > 4 && w[..4].eq_ignore_ascii_case("SQL_"))) {
        i += 1;
    }
    if toks.get(i)?.is_kw("DISTINCT") || toks.get(i)?.is_kw("DISTINCTROW") {
        return None;
    }
    let from = parens::find_top_level(&toks, i, |_, t| t.is_kw("FROM"))?;
    let clause_end = |at: usize| parens::find_top_level(&toks, at, |_, t| CLAUSE_END.iter().any(|k| t.is_kw(k)) || t.is_op(";")).unwrap_or(toks.len());
    let from_end = clause_end(from + 1);
    let mut k = from_end;
    let mut cond = None;
    if toks.get(k).is_some_and(|t| t.is_kw("WHERE")) {
        let e = clause_end(k + 1);
        cond = Some(text(select, &toks[k + 1..e]).to_string());
        k = e;
    }
    if toks.get(k).is_some_and(|t| t.is_kw("ORDER")) {
        k = clause_end(k + 1);
    }
    if toks.get(k).is_some_and(|t| !t.is_op(";")) {
        return None;
    }
    let list = &toks[i..from];
    if list.windows(2).any(|w| w[1].is_op("(") && AGGREGATES.iter().any(|a| w[0].is_kw(a))) {
        return None;
    }
    let tables = parse_from(&toks[from + 1..from_end])?;
    // A subquery of the WHERE reading a table the view writes: MariaDB
    // refuses the write (the rows would change under the test).
    if let Some(w) = toks[from_end..].first().filter(|t| t.is_kw("WHERE")).map(|_| from_end) {
        let reads_base = toks[w..].windows(2).any(|p| (p[0].is_kw("FROM") || p[0].is_kw("JOIN")) && p[1].ident().is_some_and(|n| tables.iter().any(|t| t.table.eq_ignore_ascii_case(n))));
        if reads_base {
            return None;
        }
    }
    let mut sources = Vec::new();
    let mut stars = Vec::new();
    for item in parens::split_top_level(list, ",") {
        let before = sources.len();
        item_sources(select, item, &tables, columns_of, &mut sources)?;
        let star = item.last().is_some_and(|t| t.is_op("*"));
        stars.resize(stars.len() + sources.len() - before, star);
    }
    let stale = sources.len() != names.len() || sources.iter().zip(names).zip(&stars).any(|((s, n), star)| *star && matches!(s, Source::Column { column, .. } if !column.eq_ignore_ascii_case(n)));
    if sources.len() != names.len() && !stars.iter().any(|s| *s) {
        return None;
    }
    let cols = names.iter().cloned().zip(sources).collect();
    Some(Body { tables, from: text(select, &toks[from + 1..from_end]).to_string(), cond, cols, defaults: Vec::new(), stale })
}

/// The table references of a FROM clause: tables or views, by name, joined
/// by commas or JOIN; None for anything else (a derived table, an index hint).
pub(super) fn parse_from(toks: &[Token]) -> Option<Vec<BaseRef>> {
    let mut refs = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        let mut db = None;
        let mut table = toks.get(i)?.ident()?.to_string();
        i += 1;
        if toks.get(i).is_some_and(|t| t.is_op(".")) {
            db = Some(table);
            table = toks.get(i + 1)?.ident()?.to_string();
            i += 2;
        }
        let mut alias = None;
        if toks.get(i).is_some_and(|t| t.is_kw("AS")) {
            alias = Some(toks.get(i + 1)?.ident()?.to_string());
            i += 2;
        } else if let Some(t) = toks.get(i).filter(|t| matches!(t.tok, Tok::Quoted(_)) || (matches!(t.tok, Tok::Word(_)) && !NOT_TABLE_ALIAS.iter().any(|k| t.is_kw(k)))) {
            alias = t.ident().map(str::to_string);
            i += 1;
        }
        refs.push(BaseRef { table, alias, span: (start, i), db });
        loop {
            let t = match toks.get(i) {
                None => return Some(refs),
                Some(t) => t,
            };
            if t.is_op(",") {
                i += 1;
                break;
            } else if t.is_kw("ON") {
                i = parens::find_top_level(toks, i + 1, |k, t| t.is_op(",") || is_join_word(toks, k)).unwrap_or(toks.len());
            } else if t.is_kw("USING") && toks.get(i + 1).is_some_and(|t| t.is_op("(")) {
                i = parens::closing(toks, i + 1)? + 1;
            } else if is_join_word(toks, i) {
                while toks.get(i).is_some_and(|_| is_join_word(toks, i)) {
                    i += 1;
                }
                if !(toks[i - 1].is_kw("JOIN") || toks[i - 1].is_kw("STRAIGHT_JOIN")) {
                    return None;
                }
                break;
            } else {
                return None;
            }
        }
    }
}

/// The sources of one select-list item (a `*` gives several).
pub(super) fn item_sources(sql: &str, item: &[Token], tables: &[BaseRef], columns_of: &dyn Fn(&str) -> Option<Vec<String>>, out: &mut Vec<Source>) -> Option<()> {
    let star_of = |k: usize| -> Option<Vec<Source>> { Some(columns_of(&tables[k].table)?.into_iter().map(|c| Source::Column { table: k, column: c }).collect()) };
    if item.len() == 1 && item[0].is_op("*") {
        for k in 0..tables.len() {
            out.extend(star_of(k)?);
        }
        return Some(());
    }
    if item.len() == 3 && item[1].is_op(".") && item[2].is_op("*") {
        let q = item[0].ident()?;
        let k = tables.iter().position(|t| t.qual().eq_ignore_ascii_case(q))?;
        out.extend(star_of(k)?);
        return Some(());
    }
    // The item without its alias.
    let n = item.len();
    let expr = if n >= 3 && item[n - 2].is_kw("AS") && item[n - 1].ident().is_some() {
        &item[..n - 2]
    } else if n >= 2 && item[n - 1].ident().is_some() && !item[n - 1].is_kw("END") && (!matches!(item[n - 2].tok, Tok::Op(_)) || item[n - 2].is_op(")")) {
        &item[..n - 1]
    } else {
        item
    };
    let parts = chain(expr, 0);
    if parts.len() == expr.len().div_ceil(2) && (1..=3).contains(&parts.len()) && expr.len() == 2 * parts.len() - 1 {
        let column = parts[parts.len() - 1].to_string();
        let table = match parts.len() {
            1 => tables.iter().position(|t| columns_of(&t.table).is_some_and(|cs| cs.iter().any(|c| c.eq_ignore_ascii_case(&column)))),
            _ => tables.iter().position(|t| t.qual().eq_ignore_ascii_case(parts[parts.len() - 2])),
        };
        out.push(match table {
            Some(table) => Source::Column { table, column },
            None => Source::Expr(None),
        });
        return Some(());
    }
    let plain = std::ptr::eq(expr, item) || n - expr.len() == 2;
    out.push(Source::Expr(plain.then(|| text(sql, expr).to_string())));
    Some(())
}

/// The identifiers of `a.b.c` starting at `at` (a function name gives none).
pub(super) fn chain(toks: &[Token], at: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut i = at;
    while let Some(id) = toks.get(i).and_then(|t| t.ident()) {
        parts.push(id);
        if !toks.get(i + 1).is_some_and(|t| t.is_op(".")) {
            if toks.get(i + 1).is_some_and(|t| t.is_op("(")) {
                return Vec::new();
            }
            break;
        }
        i += 2;
    }
    parts
}

/// `toks[range]`'s text with every column reference (`c`, `q.c`, `db.q.c`,
/// not a function name) that `pick` maps replaced: `pick(parts, in_subquery)`.
pub(super) fn map_refs(sql: &str, toks: &[Token], range: std::ops::Range<usize>, pick: &dyn Fn(&[&str], bool) -> Option<String>) -> String {
    let mut out = String::new();
    let Some(first) = toks.get(range.start) else {
        return out;
    };
    let mut last = first.start;
    let mut subs: Vec<bool> = Vec::new();
    let mut i = range.start;
    while i < range.end {
        let t = &toks[i];
        if t.is_op("(") {
            subs.push(toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH")));
        } else if t.is_op(")") {
            subs.pop();
        } else if t.ident().is_some() && !(i > 0 && toks[i - 1].is_op(".")) {
            let parts = chain(&toks[..range.end], i);
            if !parts.is_empty() {
                let end = i + 2 * parts.len() - 1;
                if let Some(r) = pick(&parts, subs.iter().any(|s| *s)) {
                    out.push_str(&sql[last..t.start]);
                    out.push_str(&r);
                    last = toks[end - 1].end;
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    let stop = toks.get(range.end.saturating_sub(1)).map_or(last, |t| t.end).max(last);
    out.push_str(&sql[last..stop]);
    out
}
