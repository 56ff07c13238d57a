//! What the names of a select item mean where the statement reads derived
//! tables, CTEs and scalar subqueries, for `expr_type::infer_in`: the type
//! of a derived table's (or a CTE's) column is the type of the item that
//! makes it (`WITH t AS (SELECT 1 AS a) SELECT a FROM t` is MariaDB's INT(1),
//! where SQLite's value alone says BIGINT), and a scalar subquery's names
//! are its own FROM items' columns before the outer query's.
//!
//! A name is looked up in the FROM items of its own SELECT, then in the
//! enclosing ones. A CTE is typed by its members (a recursive one by the
//! members that do not read it: MariaDB's anchor); a UNION's column by
//! `expr_type::union_of`. Where the text leaves a doubt (a parenthesised
//! join, an item it cannot split, a name two FROM items could hold with
//! different types) the column is not known and the caller keeps its older
//! rules. Bounded: `MAX_DEPTH` levels of nested queries, and each level reads
//! its own tokens once.

use crate::schema::{Base, ColumnDef};
use std::rc::Rc;
use turnstile_sqltext::expr_type::{self, ColType, ExprType, Names};
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

/// Deepest nesting of queries typed (deeper: not known).
const MAX_DEPTH: u32 = 24;

/// A column of a FROM item (or of a query's result): its name and type.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Col {
    pub name: String,
    pub ty: Option<ExprType>,
}

/// A FROM item: the name the query calls it by, and its columns (None: not
/// known, so no name may be looked past it).
#[derive(Debug, Clone)]
struct Source {
    alias: String,
    cols: Option<Rc<Vec<Col>>>,
}

/// A CTE visible to a query: its name and columns (None: not typed).
#[derive(Debug, Clone)]
struct Cte {
    name: String,
    cols: Option<Rc<Vec<Col>>>,
}

/// The FROM items of one SELECT, inside the scopes that enclose it.
pub(super) struct Scope<'a> {
    tables: &'a Tables<'a>,
    text: &'a str,
    sources: Vec<Source>,
    /// Every FROM item was read: a name none of them has is an outer query's.
    complete: bool,
    /// A NATURAL join or USING merges columns: `*` is not their list.
    merged: bool,
    /// The outermost SELECT's tokens (from SELECT on) in its scope; empty in others.
    body: &'a [Token],
    ctes: Rc<Vec<Cte>>,
    parent: Option<&'a Scope<'a>>,
    depth: u32,
}

/// The scope of the outermost SELECT of `sql` (None: not a statement read
/// here: the caller keeps its older lookup).
pub(super) fn outer_scope<'a>(tables: &'a Tables<'a>, sql: &'a str, toks: &'a [Token]) -> Option<Scope<'a>> {
    let empty = Scope { tables, text: sql, sources: Vec::new(), complete: true, merged: false, body: &[], ctes: Rc::new(Vec::new()), parent: None, depth: 0 };
    let (ctes, body) = empty.with_list(toks)?;
    let mut body = strip_parens(body);
    // Of a UNION, the first member's FROM items (its later members' names are not typed here).
    let end = parens::find_top_level(body, 0, |_, t| is_set_op(t)).unwrap_or(body.len());
    body = strip_parens(&body[..end]);
    if !body.first()?.is_kw("SELECT") {
        return None;
    }
    let scope = Scope { ctes, ..empty };
    let (_, from) = select_list(body)?;
    let (sources, complete) = match from {
        Some(f) => scope.read_from(&body[f + 1..])?,
        None => (Vec::new(), true),
    };
    let merged = from.is_some_and(|f| merges(&body[f + 1..]));
    Some(Scope { sources, complete, merged, body, ..scope })
}

/// Does a FROM clause join by NATURAL or USING (which merge columns)?
fn merges(from: &[Token]) -> bool {
    from.iter().any(|t| t.is_kw("NATURAL") || t.is_kw("USING"))
}

fn is_set_op(t: &Token) -> bool {
    t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT")
}

/// `toks` without the parentheses that wrap all of it (at most `MAX_DEPTH`
/// pairs: each look for the closing one reads the whole list).
fn strip_parens(mut toks: &[Token]) -> &[Token] {
    for _ in 0..MAX_DEPTH {
        if !(toks.first().is_some_and(|t| t.is_op("(")) && parens::closing(toks, 0) == Some(toks.len() - 1)) {
            break;
        }
        toks = &toks[1..toks.len() - 1];
    }
    toks
}

fn ident(t: &Token) -> Option<&str> {
    match &t.tok {
        Tok::Word(w) | Tok::Quoted(w) => Some(w.as_str()),
        _ => None,
    }
}

/// Words that end a select list.
const LIST_END: [&str; 12] = ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "FOR", "INTO", "LOCK", "UNION", "EXCEPT"];

/// Token indexes [start, end).
type Range = (usize, usize);

/// A SELECT's (`body` from its SELECT keyword) items as token ranges, and
/// the index of its top-level FROM if it has one.
fn select_list(body: &[Token]) -> Option<(Vec<Range>, Option<usize>)> {
    let mut i = 1;
    while body.get(i).is_some_and(|t| {
        ["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_BUFFER_RESULT", "SQL_SMALL_RESULT", "SQL_BIG_RESULT"]
            .iter()
            .any(|k| t.is_kw(k))
    }) {
        i += 1;
    }
    let mut items = Vec::new();
    let mut start = i;
    while i < body.len() {
        let t = &body[i];
        if t.is_op("(") {
            i = parens::closing(body, i)? + 1;
            continue;
        }
        let end = t.is_op(";") || LIST_END.iter().any(|k| t.is_kw(k)) || t.is_kw("INTERSECT");
        if t.is_op(",") || end {
            items.push((start, i));
            if end {
                return Some((items, t.is_kw("FROM").then_some(i)));
            }
            start = i + 1;
        }
        i += 1;
    }
    items.push((start, i));
    Some((items, None))
}

/// Words that end a table reference's name (so are not its alias): sqltext's
/// reserved list, and FULL.
fn not_alias(t: &Token) -> bool {
    turnstile_sqltext::clause::NOT_TABLE_ALIAS.iter().any(|k| t.is_kw(k)) || t.is_kw("FULL")
}

/// Words that end a FROM clause.
const FROM_END: [&str; 13] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FOR", "LOCK", "INTO", "PROCEDURE"];

const JOIN_WORDS: [&str; 7] = ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "STRAIGHT_JOIN"];

impl<'a> Scope<'a> {
    /// A scope for a query nested in this one (its FROM items still to read).
    fn child(&'a self, ctes: Rc<Vec<Cte>>) -> Scope<'a> {
        Scope { tables: self.tables, text: self.text, sources: Vec::new(), complete: true, merged: false, body: &[], ctes, parent: Some(self), depth: self.depth + 1 }
    }

    /// Read a leading `WITH [RECURSIVE] name [(cols)] AS (query), ...`:
    /// the CTEs visible after it (this scope's and its own, each typed in
    /// order) and the tokens after it.
    fn with_list<'t>(&self, toks: &'t [Token]) -> Option<(Rc<Vec<Cte>>, &'t [Token])> {
        if !toks.first()?.is_kw("WITH") {
            return Some((self.ctes.clone(), toks));
        }
        let mut ctes = Rc::new((*self.ctes).clone());
        let mut i = 1;
        let recursive = toks.get(i)?.is_kw("RECURSIVE");
        i += usize::from(recursive);
        loop {
            let name = ident(toks.get(i)?)?.to_string();
            i += 1;
            let mut names = None;
            if toks.get(i)?.is_op("(") {
                let close = parens::closing(toks, i)?;
                names = Some(name_list(&toks[i + 1..close])?);
                i = close + 1;
            }
            if !toks.get(i)?.is_kw("AS") || !toks.get(i + 1)?.is_op("(") {
                return None;
            }
            let close = parens::closing(toks, i + 1)?;
            let body = &toks[i + 2..close];
            let scope = Scope { tables: self.tables, text: self.text, sources: Vec::new(), complete: true, merged: false, body: &[], ctes: ctes.clone(), parent: self.parent, depth: self.depth + 1 };
            let cols = scope.query_cols(body, recursive.then_some(name.as_str())).map(|cols| rename(cols, names.as_deref()));
            Rc::make_mut(&mut ctes).push(Cte { name, cols: cols.flatten().map(Rc::new) });
            i = close + 1;
            if !toks.get(i)?.is_op(",") {
                break;
            }
            i += 1;
        }
        Some((ctes, &toks[i..]))
    }

    /// The result columns of a query expression (`WITH ... SELECT ... UNION
    /// ...`, `VALUES ...`); `itself`: the name of the recursive CTE it
    /// defines, whose members that read it do not type it.
    fn query_cols(&self, toks: &[Token], itself: Option<&str>) -> Option<Vec<Col>> {
        if self.depth > MAX_DEPTH {
            return None;
        }
        let toks = strip_parens(toks);
        let (ctes, body) = self.with_list(toks)?;
        let scope = Scope { tables: self.tables, text: self.text, sources: Vec::new(), complete: true, merged: false, body: &[], ctes, parent: self.parent, depth: self.depth + 1 };
        let mut members: Vec<Vec<Col>> = Vec::new();
        let mut from = 0;
        loop {
            let at = parens::find_top_level(body, from, |_, t| is_set_op(t));
            let part = &body[from..at.unwrap_or(body.len())];
            let reads_itself = itself.is_some_and(|n| part.iter().any(|t| ident(t).is_some_and(|w| w.eq_ignore_ascii_case(n))));
            // A recursive CTE whose first member reads it: MariaDB's types
            // are not its anchor's (not known here).
            if reads_itself && from == 0 {
                return None;
            }
            if !reads_itself {
                members.push(scope.member_cols(part)?);
            }
            let Some(at) = at else { break };
            from = at + 1;
            if body.get(from).is_some_and(|t| t.is_kw("ALL") || t.is_kw("DISTINCT")) {
                from += 1;
            }
        }
        let mut first = members.first()?.clone();
        if members.len() > 1 {
            if members.iter().any(|m| m.len() != first.len()) {
                return None;
            }
            for (k, c) in first.iter_mut().enumerate() {
                let types: Option<Vec<ExprType>> = members.iter().map(|m| m[k].ty).collect();
                c.ty = types.and_then(|t| expr_type::union_of(&t));
            }
        }
        Some(first)
    }

    /// One member of a query expression: `SELECT ...`, `VALUES (...), ...`,
    /// or a parenthesised query (with its ORDER BY / LIMIT after it).
    fn member_cols(&self, part: &[Token]) -> Option<Vec<Col>> {
        let first = part.first()?;
        if first.is_op("(") {
            let close = parens::closing(part, 0)?;
            return self.query_cols(&part[1..close], None);
        }
        if first.is_kw("VALUES") {
            return self.values_cols(&part[1..]);
        }
        if !first.is_kw("SELECT") {
            return None;
        }
        let (items, from) = select_list(part)?;
        let mut scope = self.child(self.ctes.clone());
        if let Some(f) = from {
            let (sources, complete) = self.read_from(&part[f + 1..])?;
            scope.sources = sources;
            scope.complete = complete;
            scope.merged = merges(&part[f + 1..]);
        }
        scope.list_cols(part, &items)
    }

    /// The columns of a select list (`items`, ranges of `part`) read in
    /// this scope (its FROM items).
    fn list_cols(&self, part: &[Token], items: &[Range]) -> Option<Vec<Col>> {
        let scope = self;
        let mut cols = Vec::with_capacity(items.len());
        for &(s, e) in items {
            let item = part.get(s..e).filter(|p| !p.is_empty())?;
            if let Some(star) = scope.star(item) {
                cols.extend(star?);
                continue;
            }
            let (expr_end, alias) = crate::rewrite::split_alias(item);
            if expr_end == 0 {
                return None;
            }
            let expr = &self.text[item[0].start..item[expr_end - 1].end];
            let name = match alias {
                Some(a) => alias_name(&item[a], self.text),
                None if expr_end == 1 || expr_end == 3 && item[1].is_op(".") => ident(&item[expr_end - 1]).map_or_else(|| expr.to_string(), str::to_string),
                None => expr.to_string(),
            };
            let ty = match column_ref(&item[..expr_end]) {
                // A column as it is: its own type, not the operand's.
                Some((q, n)) => scope.raw_column(q, n),
                None => expr_type::infer_in(expr, scope),
            };
            cols.push(Col { name, ty });
        }
        Some(cols)
    }

    /// `VALUES (a, b), (c, d)`: named by the first row's texts, typed by all rows.
    fn values_cols(&self, toks: &[Token]) -> Option<Vec<Col>> {
        let mut rows: Vec<Vec<Col>> = Vec::new();
        let mut i = 0;
        while toks.get(i).is_some_and(|t| t.is_op("(") || t.is_kw("ROW")) {
            if toks[i].is_kw("ROW") {
                i += 1;
            }
            let close = parens::closing(toks, i)?;
            let inner = &toks[i + 1..close];
            let scope = self.child(self.ctes.clone());
            let row = parens::split_top_level(inner, ",")
                .into_iter()
                .map(|v| {
                    let (first, last) = (v.first()?, v.last()?);
                    let text = &self.text[first.start..last.end];
                    Some(Col { name: text.to_string(), ty: expr_type::infer_in(text, &scope) })
                })
                .collect::<Option<Vec<Col>>>()?;
            rows.push(row);
            i = close + 1;
            if !toks.get(i).is_some_and(|t| t.is_op(",")) {
                break;
            }
            i += 1;
        }
        let mut first = rows.first()?.clone();
        for (k, c) in first.iter_mut().enumerate() {
            let types: Option<Vec<ExprType>> = rows.iter().map(|r| r.get(k).and_then(|c| c.ty)).collect();
            c.ty = types.and_then(|t| expr_type::union_of(&t));
        }
        Some(first)
    }

    /// `*` or `t.*`: the columns it stands for (Some(None): not known);
    /// None when the item is not a star.
    fn star(&self, item: &[Token]) -> Option<Option<Vec<Col>>> {
        match item {
            [s] if s.is_op("*") => {
                Some(if self.complete && !self.merged { self.sources.iter().map(|s| s.cols.as_deref().cloned()).collect::<Option<Vec<Vec<Col>>>>().map(|v| v.concat()) } else { None })
            }
            [q, dot, s] if dot.is_op(".") && s.is_op("*") => {
                let q = ident(q)?;
                Some(self.sources.iter().find(|s| s.alias.eq_ignore_ascii_case(q)).and_then(|s| s.cols.as_deref().cloned()))
            }
            _ => None,
        }
    }

    /// The FROM items of `toks` (what follows FROM): each one's columns, and
    /// whether all were read (a parenthesised join is not).
    fn read_from(&self, toks: &[Token]) -> Option<(Vec<Source>, bool)> {
        let mut sources = Vec::new();
        let mut i = 0;
        loop {
            let t = toks.get(i)?;
            let mut source = if t.is_op("(") {
                let close = parens::closing(toks, i)?;
                let inner = toks.get(i + 1)?;
                if !(inner.is_kw("SELECT") || inner.is_kw("WITH") || inner.is_kw("VALUES") || inner.is_op("(")) {
                    // A parenthesised join: its tables are not read here.
                    return Some((sources, false));
                }
                let cols = self.child(self.ctes.clone()).query_cols(&toks[i + 1..close], None);
                i = close + 1;
                Source { alias: String::new(), cols: cols.map(Rc::new) }
            } else {
                if t.is_kw("LATERAL") || t.is_kw("JSON_TABLE") {
                    return Some((sources, false));
                }
                let mut name = ident(t)?.to_string();
                let mut db = None;
                i += 1;
                if toks.get(i).is_some_and(|t| t.is_op(".")) {
                    db = Some(name);
                    name = ident(toks.get(i + 1)?)?.to_string();
                    i += 2;
                }
                let cols = match self.ctes.iter().rev().find(|c| db.is_none() && c.name.eq_ignore_ascii_case(&name)) {
                    Some(cte) => cte.cols.clone(),
                    None => (self.tables)(db.as_deref(), &name).map(Rc::new),
                };
                Source { alias: name, cols }
            };
            if toks.get(i).is_some_and(|t| t.is_kw("AS")) {
                i += 1;
            }
            if let Some(a) = toks.get(i).and_then(|t| ident(t).filter(|_| !not_alias(t))) {
                source.alias = a.to_string();
                i += 1;
            }
            // A derived table's column names: `(SELECT ...) AS t (a, b)`.
            if toks.get(i).is_some_and(|t| t.is_op("(")) && source.cols.is_some() && !toks[i - 1].is_kw("USE") {
                let close = parens::closing(toks, i)?;
                let names = name_list(&toks[i + 1..close])?;
                source.cols = source.cols.and_then(|c| rename((*c).clone(), Some(&names))).map(Rc::new);
                i = close + 1;
            }
            if source.alias.is_empty() {
                return None;
            }
            sources.push(source);
            i = after_join_condition(toks, i)?;
            match toks.get(i) {
                None => return Some((sources, true)),
                Some(t) if t.is_op(";") || t.is_op(")") || FROM_END.iter().any(|k| t.is_kw(k)) => return Some((sources, true)),
                Some(t) if t.is_op(",") => i += 1,
                Some(_) => i = join_keywords(toks, i)?,
            }
        }
    }
}

/// The columns of the base table (or view) `db.name`, as its definition
/// types them (None: no such table).
pub(super) type Tables<'a> = dyn Fn(Option<&str>, &str) -> Option<Vec<Col>> + 'a;

/// `Tables` of a connection's schemas.
pub(super) fn table_cols(conn: &crate::conn::Conn, db: Option<&str>, name: &str) -> Option<Vec<Col>> {
    let def = match db {
        None => conn.table_def("temp", name).or_else(|| conn.table_def("main", name)),
        Some(d) if conn.home.as_ref().is_some_and(|h| h.name.eq_ignore_ascii_case(d)) => conn.table_def("main", name),
        Some(d) => conn.table_def(d, name),
    }?;
    let view = def.view.is_some();
    Some(def.columns.iter().map(|c| Col { name: c.name.clone(), ty: column_type(c, view).and_then(expr_type::of_column) }).collect())
}

/// A column's type for `expr_type`, of a view when `view` (None: a view's
/// column typed only by its values, LONGTEXT: not known; a table's LONGTEXT
/// is one, as its SHOW CREATE TABLE says).
pub(super) fn column_type(cd: &ColumnDef, view: bool) -> Option<ColType> {
    if view && matches!(cd.base, Base::LongText | Base::LongBlob) {
        return None;
    }
    let length = match cd.base {
        Base::Enum => Some(cd.members.iter().map(|m| m.chars().count() as u64).max().unwrap_or(1)),
        // Every member, with the commas between them.
        Base::Set => Some(cd.members.iter().map(|m| m.chars().count() as u64 + 1).sum::<u64>().saturating_sub(1).max(1)),
        _ => cd.length,
    };
    Some(ColType { base: cd.base, unsigned: cd.unsigned, length, scale: cd.scale })
}

/// An alias token's name (a string literal alias is its value).
fn alias_name(t: &Token, text: &str) -> String {
    match &t.tok {
        Tok::Str(b) => String::from_utf8_lossy(b).into_owned(),
        _ => ident(t).map_or_else(|| text[t.start..t.end].to_string(), str::to_string),
    }
}

/// `a, b, c`: the names of a column list.
fn name_list(toks: &[Token]) -> Option<Vec<String>> {
    parens::split_top_level(toks, ",").into_iter().map(|p| if let [t] = p { ident(t).map(str::to_string) } else { None }).collect()
}

/// Columns named by a column list (None: its length differs).
fn rename(mut cols: Vec<Col>, names: Option<&[String]>) -> Option<Vec<Col>> {
    if let Some(names) = names {
        if names.len() != cols.len() {
            return None;
        }
        for (c, n) in cols.iter_mut().zip(names) {
            c.name.clone_from(n);
        }
    }
    Some(cols)
}

/// Skip index hints, `ON expr` and `USING (...)` after a table reference.
fn after_join_condition(toks: &[Token], mut i: usize) -> Option<usize> {
    while toks.get(i).is_some_and(|t| t.is_kw("USE") || t.is_kw("FORCE") || t.is_kw("IGNORE")) {
        while toks.get(i).is_some_and(|t| !t.is_op("(")) {
            i += 1;
        }
        i = parens::closing(toks, i)? + 1;
    }
    if toks.get(i).is_some_and(|t| t.is_kw("USING")) {
        return Some(parens::closing(toks, i + 1)? + 1);
    }
    if toks.get(i).is_some_and(|t| t.is_kw("ON")) {
        i += 1;
        while let Some(t) = toks.get(i) {
            if t.is_op("(") {
                i = parens::closing(toks, i)? + 1;
                continue;
            }
            if t.is_op(",") || t.is_op(";") || t.is_op(")") || FROM_END.iter().any(|k| t.is_kw(k)) || JOIN_WORDS.iter().any(|k| t.is_kw(k)) {
                break;
            }
            i += 1;
        }
    }
    Some(i)
}

/// Past `[NATURAL] [LEFT|RIGHT [OUTER] | INNER | CROSS] JOIN` or `STRAIGHT_JOIN`.
fn join_keywords(toks: &[Token], mut i: usize) -> Option<usize> {
    let start = i;
    while toks.get(i).is_some_and(|t| ["NATURAL", "LEFT", "RIGHT", "OUTER", "INNER", "CROSS"].iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    let t = toks.get(i)?;
    (t.is_kw("JOIN") || (t.is_kw("STRAIGHT_JOIN") && i == start)).then_some(i + 1)
}

/// `c`, `t.c`, `db.t.c`: (qualifier, name).
pub(super) fn column_ref(toks: &[Token]) -> Option<(Option<&str>, &str)> {
    match toks {
        [c] => Some((None, ident(c)?)),
        [q, d, c] if d.is_op(".") => Some((Some(ident(q)?), ident(c)?)),
        [_, d1, q, d2, c] if d1.is_op(".") && d2.is_op(".") => Some((Some(ident(q)?), ident(c)?)),
        _ => None,
    }
}

/// A derived table's (or CTE's) integer column of INT size as an operand:
/// MariaDB reads it as an INT(11) column (`WITH t AS (SELECT 1 AS a)
/// SELECT a + 1 FROM t` is BIGINT(12), `SELECT a` INT(1)); so is the value
/// of a scalar subquery that is a UNION.
fn as_field(t: Option<ExprType>) -> Option<ExprType> {
    match t {
        Some(t @ ExprType::Int { unsigned, col: None | Some(Base::Int), .. }) if !t.wide() => {
            let len = Base::Int.display_width(unsigned) as u32;
            Some(ExprType::Int { len, digits: len - u32::from(!unsigned), unsigned, col: Some(Base::Int) })
        }
        t => t,
    }
}

impl Scope<'_> {
    /// The outermost SELECT's result columns, its `*` expanded (None: not
    /// known; not the outermost scope).
    pub(super) fn outer_columns(&self) -> Option<Vec<Col>> {
        if self.body.is_empty() {
            return None;
        }
        let (items, _) = select_list(self.body)?;
        self.list_cols(self.body, &items)
    }

    /// The type of column `qual.name` as the FROM item that has it
    /// describes it (None: not known).
    pub(super) fn raw_column(&self, qual: Option<&str>, name: &str) -> Option<ExprType> {
        let mut scope = Some(self);
        while let Some(s) = scope {
            match s.find(qual, name) {
                Found::Here(t) => return t,
                Found::Unknown => return None,
                Found::NotHere => scope = s.parent,
            }
        }
        None
    }
}

impl Names for Scope<'_> {
    fn column(&self, qual: Option<&str>, name: &str) -> Option<ExprType> {
        // A table's column is typed as its own already (`col` set).
        as_field(self.raw_column(qual, name))
    }

    fn user_var(&self, name: &str) -> Option<ExprType> {
        crate::functions::user_var_type(name)
    }

    fn subquery(&self, sql: &str) -> Option<Option<ExprType>> {
        let toks = lex::tokenize(sql).ok()?;
        // Its tokens' offsets are in `sql`: typed in a scope over that text.
        let scope = Scope { tables: self.tables, text: sql, sources: Vec::new(), complete: true, merged: false, body: &[], ctes: self.ctes.clone(), parent: Some(self), depth: self.depth + 1 };
        let cols = scope.query_cols(&toks, None);
        let union = parens::find_top_level(strip_parens(&toks), 0, |_, t| is_set_op(t)).is_some();
        Some(match cols.as_deref() {
            Some([c]) if union => as_field(c.ty),
            Some([c]) => c.ty,
            _ => None,
        })
    }
}

enum Found {
    Here(Option<ExprType>),
    /// It may be here, or not: not known.
    Unknown,
    NotHere,
}

impl Scope<'_> {
    fn find(&self, qual: Option<&str>, name: &str) -> Found {
        let mut found: Option<Option<ExprType>> = None;
        for s in &self.sources {
            if qual.is_some_and(|q| !s.alias.eq_ignore_ascii_case(q)) {
                continue;
            }
            let Some(cols) = &s.cols else { return Found::Unknown };
            // A name that is twice in a derived table's list is its first.
            if let Some(c) = cols.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
                match found {
                    Some(t) if t != c.ty => return Found::Unknown,
                    _ => found = Some(c.ty),
                }
            }
        }
        match found {
            Some(t) => Found::Here(t),
            None if self.complete => Found::NotHere,
            None => Found::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// t1 (i INT, ti TINYINT); t2 (i BIGINT)
    fn tables(_db: Option<&str>, name: &str) -> Option<Vec<Col>> {
        let col = |n: &str, base: Base| Col { name: n.to_string(), ty: expr_type::of_column(ColType { base, unsigned: false, length: None, scale: None }) };
        match name {
            "t1" => Some(vec![col("i", Base::Int), col("ti", Base::TinyInt)]),
            "t2" => Some(vec![col("i", Base::BigInt)]),
            _ => None,
        }
    }

    /// The type of the outer SELECT's item `item` of `sql`.
    fn item_type(sql: &str, item: &str) -> Option<ExprType> {
        let toks = lex::tokenize(sql).expect("lexes");
        let scope = outer_scope(&tables, sql, &toks).expect("read");
        let itoks = lex::tokenize(item).expect("lexes");
        if let Some((q, n)) = column_ref(&itoks) {
            return scope.raw_column(q, n);
        }
        expr_type::infer_in(item, &scope)
    }

    fn int(len: u32, col: Option<Base>) -> Option<ExprType> {
        Some(ExprType::Int { len, digits: len - 1, unsigned: false, col })
    }

    #[test]
    fn derived_and_cte_columns() {
        // A derived column as it is keeps its item's type; as an operand it is an INT(11).
        assert_eq!(item_type("WITH t AS (SELECT 1 AS a) SELECT a FROM t", "a"), Some(ExprType::Int { len: 1, digits: 1, unsigned: false, col: None }));
        assert_eq!(item_type("WITH t AS (SELECT 1 AS a) SELECT a + 1 FROM t", "a + 1"), int(12, None));
        assert_eq!(item_type("SELECT x.b FROM (SELECT ti + 1 AS b FROM t1) x", "x.b"), int(5, None));
        assert_eq!(item_type("SELECT * FROM (SELECT 1 a) x JOIN t2 USING (i)", "i"), int(20, Some(Base::BigInt)));
        // Column lists, nested CTEs, VALUES.
        assert_eq!(item_type("WITH t (c) AS (SELECT ti FROM t1), u AS (SELECT c FROM t) SELECT c FROM u", "c"), int(4, Some(Base::TinyInt)));
        assert_eq!(item_type("SELECT `1` FROM (VALUES (0, 1), (NULL, 2)) v", "`1`"), Some(ExprType::Int { len: 2, digits: 1, unsigned: false, col: Some(Base::Int) }));
        // A UNION: its members' common type.
        assert_eq!(item_type("SELECT a FROM (SELECT 1 a UNION SELECT 2.5) x", "a"), Some(ExprType::Decimal { precision: 2, scale: 1 }));
        // A recursive CTE: its anchor's types; unknown when it reads itself first.
        assert_eq!(
            item_type("WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", "n"),
            Some(ExprType::Int { len: 1, digits: 1, unsigned: false, col: None })
        );
        assert_eq!(item_type("WITH RECURSIVE r (n) AS (SELECT n + 1 FROM r WHERE n < 3 UNION ALL SELECT 1) SELECT n FROM r", "n"), None);
        // A name two FROM items hold with different types: not known.
        assert_eq!(item_type("SELECT i FROM t1, t2", "i"), None);
        assert_eq!(item_type("SELECT i FROM t1, (SELECT 1 j) d", "i"), int(11, Some(Base::Int)));
    }

    #[test]
    fn star_lists() {
        let cols = |sql: &str| {
            let toks = lex::tokenize(sql).expect("lexes");
            let scope = outer_scope(&tables, sql, &toks).expect("read");
            scope.outer_columns().map(|c| c.iter().map(|c| c.ty).collect::<Vec<_>>())
        };
        let one = Some(ExprType::Int { len: 1, digits: 1, unsigned: false, col: None });
        assert_eq!(cols("SELECT * FROM t2 JOIN (SELECT 1 a) a ON 1"), Some(vec![int(20, Some(Base::BigInt)), one]));
        assert_eq!(cols("SELECT *, i = ALL (SELECT i FROM t2) AS m FROM t2"), Some(vec![int(20, Some(Base::BigInt)), Some(ExprType::Int { len: 1, digits: 1, unsigned: false, col: None })]));
        // USING merges columns: its `*` is not known.
        assert_eq!(cols("SELECT * FROM t1 JOIN t1 AS u USING (i)"), None);
    }

    #[test]
    fn scalar_subqueries_in_their_scope() {
        // The subquery's own FROM first, then the outer query's.
        assert_eq!(item_type("SELECT (SELECT i FROM t2) FROM t1", "(SELECT i FROM t2)"), int(20, Some(Base::BigInt)));
        assert_eq!(item_type("SELECT (SELECT ti FROM t2 LIMIT 1) FROM t1", "(SELECT ti FROM t2 LIMIT 1)"), int(4, Some(Base::TinyInt)));
        assert_eq!(item_type("SELECT (SELECT a FROM (SELECT 1 AS a) d) FROM t1", "(SELECT a FROM (SELECT 1 AS a) d)"), Some(ExprType::Int { len: 1, digits: 1, unsigned: false, col: None }));
        // A UNION's integer is an INT(11).
        assert_eq!(item_type("SELECT (SELECT 1 UNION SELECT 22 LIMIT 1)", "(SELECT 1 UNION SELECT 22 LIMIT 1)"), int(11, Some(Base::Int)));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let n = 5000;
        let sql = format!("SELECT a FROM {}SELECT 1 AS a{} x", "(SELECT a FROM ".repeat(n), ") x".repeat(n) + ")");
        let toks = lex::tokenize(&sql).expect("lexes");
        let scope = outer_scope(&tables, &sql, &toks).expect("read");
        assert_eq!(scope.raw_column(None, "a"), None);
        let item = format!("{}1{}", "(SELECT ".repeat(n), ")".repeat(n));
        let sql = format!("SELECT {} FROM t1", item);
        let toks = lex::tokenize(&sql).expect("lexes");
        let scope = outer_scope(&tables, &sql, &toks).expect("read");
        assert_eq!(expr_type::infer_in(&item, &scope), None);
    }

    #[test]
    fn select_lists_and_names() {
        let toks = lex::tokenize("SELECT a, f(b, c) AS x, 1 FROM t WHERE 1").expect("lexes");
        let (items, from) = select_list(&toks).expect("list");
        assert_eq!(items, vec![(1, 2), (3, 11), (12, 13)]);
        assert_eq!(from, Some(13));
        let toks = lex::tokenize("a, `b`").expect("lexes");
        assert_eq!(name_list(&toks), Some(vec!["a".to_string(), "b".to_string()]));
        let toks = lex::tokenize("((SELECT 1))").expect("lexes");
        assert_eq!(strip_parens(&toks).len(), 2);
    }
}
