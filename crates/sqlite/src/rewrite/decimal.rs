//! DECIMAL expressions: MySQL's exact arithmetic, written as calls of the
//! engine's decimal functions before the statement is translated.
//!
//! SQLite computes `+ - * /` in 64-bit integers or doubles, so `amt * 3`
//! with amt 0.10 would be 0.30000000000000004. This pass finds the runs of
//! arithmetic whose MySQL type is DECIMAL (an operand is a DECIMAL column, a
//! decimal literal such as `0.10`, SUM/AVG of DECIMAL, or a `/` of exact
//! numbers) and writes them as `ts_dadd/ts_dsub/ts_dmul/ts_ddiv(a, b)`, SUM
//! and AVG of a DECIMAL as `ts_dsum/ts_davg` (functions/decimal.rs); each
//! computes exactly (a quotient with the digits MariaDB keeps). The result
//! is MySQL text again, which the translator then translates as usual.
//!
//! Where the value is what the client sees (an item of a top-level select
//! list) it is rounded to the scale MySQL gives the expression (`DecType`,
//! `ts_dval(x, scale)`) and stays text, with the `ts_dec` collation so ORDER
//! BY its alias sorts numerically; its type goes to the result metadata
//! (`Rewritten::item_types`). Where it is stored (UPDATE SET, VALUES, INSERT
//! ... SELECT) it stays exact text for `ts_dec`. Anywhere else (WHERE, ORDER
//! BY, function arguments) it becomes a double, computed exactly and rounded
//! once, so SQLite compares it as a number. A decimal literal with more
//! digits than a double keeps is written as its text, so that compared with
//! a DECIMAL column (TEXT, `ts_dec`) it compares exactly.
//!
//! Conservative by design: a run with an operand whose type is not known
//! (a parameter, a string, an unknown function or column, `%`, DIV) is left
//! to SQLite as before, and so is a run an operator outside it binds to.

use super::Resolver;
use crate::schema::{Base, TableDef};
use std::sync::Arc;
use turnstile_sqltext::decimal::DecType;
use turnstile_sqltext::lex::{self, Tok, Token};

/// An operand's or a run's MySQL type, as far as this pass needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    /// An exact integer of this many digits.
    Int(u32),
    Dec(DecType),
    Double,
    /// Anything else, or not known: the run is left alone.
    Other,
}

impl Ty {
    fn dec(self) -> Option<DecType> {
        match self {
            Ty::Int(d) => Some(DecType::integer(d)),
            Ty::Dec(t) => Some(t),
            _ => None,
        }
    }
}

/// A parsed run of arithmetic: token ranges and what they compute.
#[derive(Debug)]
enum Node {
    /// An operand that is one token range [s, e): literal, column, call, `(run)`.
    Leaf {
        s: usize,
        e: usize,
        ty: Ty,
        kind: LeafKind,
    },
    Bin {
        op: &'static str,
        l: Box<Node>,
        r: Box<Node>,
        ty: Ty,
    },
    Neg {
        x: Box<Node>,
        ty: Ty,
    },
}

#[derive(Debug)]
enum LeafKind {
    /// A decimal literal: written as its text (a string), so no digit is lost.
    DecLiteral,
    Plain,
    /// `( run )`: the inner run, written without the parentheses.
    Paren(Box<Node>),
    /// SUM or AVG of a DECIMAL (`avg`), over the run at tokens [s, e).
    DecAggregate {
        avg: bool,
        arg: Box<Node>,
    },
    /// SUM or AVG of integers: SQLite's own (exact for SUM; AVG is rounded
    /// to its scale on the way out), typed DECIMAL as MySQL types it.
    IntAggregate,
}

impl Node {
    fn ty(&self) -> Ty {
        match self {
            Node::Leaf { ty, .. } | Node::Bin { ty, .. } | Node::Neg { ty, .. } => *ty,
        }
    }
}

/// Where a run is: what its exact text becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    /// An item of a top-level select list: exact text, collated by `ts_dec`.
    SelectItem,
    /// A value stored into a column: exact text (the store function reads it).
    Store,
    /// Anywhere else: a double (SQLite compares it as a number).
    Other,
}

/// The result of the pass: the new MySQL text and the DECIMAL type of each
/// item of the first top-level select list (None: not a DECIMAL expression).
pub(super) struct DecimalRewrite {
    pub sql: String,
    pub item_types: Vec<Option<DecType>>,
}

struct Pass<'a> {
    sql: &'a str,
    toks: &'a [Token],
    tables: Vec<Arc<TableDef>>,
    /// (first token, end token, replacement text), in order, not overlapping.
    edits: Vec<(usize, usize, String)>,
    item_types: Vec<Option<DecType>>,
    changed: bool,
}

/// Does the statement have anything this pass could rewrite: a decimal
/// literal, a `/`, or a DECIMAL column of a table it names?
fn worth_a_look(toks: &[Token], tables: &[Arc<TableDef>]) -> bool {
    toks.iter().any(|t| t.is_op("/") || matches!(&t.tok, Tok::Number(n) if is_decimal_literal(n))) || tables.iter().any(|d| d.columns.iter().any(|c| c.base == Base::Decimal))
}

fn is_decimal_literal(n: &str) -> bool {
    n.contains('.') && !n.contains(['e', 'E']) && lex::hybrid_bytes(n).is_none()
}

/// The tables a statement names (any word that names one; `db.t` too).
fn named_tables(toks: &[Token], resolver: &dyn Resolver) -> Vec<Arc<TableDef>> {
    let mut out: Vec<Arc<TableDef>> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Some(w) = t.ident() else { continue };
        if i > 0 && toks[i - 1].is_op(".") {
            continue;
        }
        let def = if toks.get(i + 1).is_some_and(|n| n.is_op(".")) { toks.get(i + 2).and_then(|n| n.ident()).and_then(|n| resolver.table(Some(w), n)) } else { resolver.table(None, w) };
        if let Some(d) = def {
            if !out.iter().any(|o| Arc::ptr_eq(o, &d)) {
                out.push(d);
            }
        }
    }
    out
}

/// Rewrite the DECIMAL arithmetic of `sql` (tokens `toks`, one statement).
/// `None` when there is none (the statement is translated as it is).
pub(super) fn rewrite_decimal(sql: &str, toks: &[Token], kind: super::Kind, resolver: &dyn Resolver) -> Option<DecimalRewrite> {
    let tables = named_tables(toks, resolver);
    if !worth_a_look(toks, &tables) {
        return None;
    }
    let mut pass = Pass { sql, toks, tables, edits: Vec::new(), item_types: Vec::new(), changed: false };
    pass.statement(kind);
    if !pass.changed {
        return None;
    }
    Some(DecimalRewrite { sql: pass.splice(), item_types: pass.item_types })
}

/// Binary arithmetic operators of a run, by binding: (op, precedence).
fn arith_op(t: &Token) -> Option<(&'static str, u8)> {
    match &t.tok {
        Tok::Op(o) => match &**o {
            "+" => Some(("+", 1)),
            "-" => Some(("-", 1)),
            "*" => Some(("*", 2)),
            "/" => Some(("/", 2)),
            "%" => Some(("%", 2)),
            _ => None,
        },
        Tok::Word(w) if w.eq_ignore_ascii_case("DIV") => Some(("DIV", 2)),
        Tok::Word(w) if w.eq_ignore_ascii_case("MOD") => Some(("MOD", 2)),
        _ => None,
    }
}

/// Operators that bind an operand next to a run more tightly than the run's
/// own or as tightly: a run next to one is not rewritten alone.
fn binds_neighbour(t: &Token) -> bool {
    arith_op(t).is_some() || ["^", "|", "&", "<<", ">>", "~", "!", "."].iter().any(|o| t.is_op(o)) || t.is_kw("COLLATE") || t.is_kw("INTERVAL")
}

impl Pass<'_> {
    /// Walk the statement: select lists, SET lists and VALUES rows are
    /// places of their own; every run found is rewritten for its place.
    fn statement(&mut self, kind: super::Kind) {
        let toks = self.toks;
        let mut i = 0;
        let mut depth = 0usize;
        let mut first_select = true;
        // (depth, in SET list) of the UPDATE ... SET being read
        let mut set_depth: Option<usize> = None;
        let mut values_depth: Option<usize> = None;
        while i < toks.len() {
            let t = &toks[i];
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth = depth.saturating_sub(1);
            } else if depth == 0 && t.is_kw("ON") {
                values_depth = None;
            } else if t.is_kw("SELECT") {
                let store = kind == super::Kind::Insert;
                let top = depth == 0 || store && depth <= 1;
                let place = match (top, store) {
                    (true, true) => Place::Store,
                    (true, false) => Place::SelectItem,
                    _ => Place::Other,
                };
                i = self.select_list(i + 1, place, first_select && top && !store);
                if top {
                    first_select = false;
                }
                continue;
            } else if t.is_kw("SET") && depth == 0 || t.is_kw("UPDATE") && i > 0 && toks[i - 1].is_kw("KEY") {
                set_depth = Some(depth);
            } else if set_depth == Some(depth) && (t.is_kw("WHERE") || t.is_kw("ORDER") || t.is_kw("LIMIT")) {
                set_depth = None;
            } else if t.is_kw("VALUES") || t.is_kw("VALUE") {
                values_depth = Some(depth + 1);
            } else if let Some(end) = self.try_run(i, self.place_at(i, depth, set_depth, values_depth)) {
                i = end;
                continue;
            }
            i += 1;
        }
    }

    /// The place of a run starting at token `i`: a whole value of a SET
    /// assignment or a VALUES row is stored.
    fn place_at(&self, i: usize, depth: usize, set_depth: Option<usize>, values_depth: Option<usize>) -> Place {
        let prev = i.checked_sub(1).map(|k| &self.toks[k]);
        let in_set = set_depth == Some(depth) && prev.is_some_and(|p| p.is_op("="));
        let in_values = values_depth == Some(depth) && prev.is_some_and(|p| p.is_op("(") || p.is_op(","));
        if in_set || in_values {
            Place::Store
        } else {
            Place::Other
        }
    }

    /// A select list from token `i` to its FROM (or the end of its
    /// parentheses): each item that is a whole run is rewritten for
    /// `place`; `record`: note each item's type in `item_types`.
    fn select_list(&mut self, mut i: usize, place: Place, record: bool) -> usize {
        let toks = self.toks;
        while i < toks.len() && ["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "STRAIGHT_JOIN", "HIGH_PRIORITY"].iter().any(|k| toks[i].is_kw(k)) {
            i += 1;
        }
        loop {
            let start = i;
            let end = item_end(toks, start);
            let ty = self.item(start, end, place);
            if record {
                self.item_types.push(ty);
            }
            i = end;
            if i < toks.len() && toks[i].is_op(",") {
                i += 1;
                continue;
            }
            return i;
        }
    }

    /// One select item, tokens [s, e): rewritten whole for `place` when it
    /// is a DECIMAL run (optionally with an alias), else its inner runs
    /// for `Place::Other`. Returns its DECIMAL type.
    fn item(&mut self, s: usize, e: usize, place: Place) -> Option<DecType> {
        let toks = self.toks;
        if s < e {
            if let Some((Node::Leaf { kind: LeafKind::IntAggregate, ty: Ty::Dec(t), e: end, .. }, _)) = self.run(s, e) {
                let alias_follows = end == e || toks[end].is_kw("AS") || end + 1 == e && toks[end].ident().is_some();
                if alias_follows && !self.neighbour_binds(s, end) {
                    return Some(t);
                }
            }
            if let Some((node, end)) = self.run(s, e).filter(|(node, _)| worth(node, true)) {
                let alias_follows = end == e || toks[end].is_kw("AS") || end + 1 == e && toks[end].ident().is_some();
                if alias_follows && !self.neighbour_binds(s, end) {
                    if let Ty::Dec(t) = node.ty() {
                        let text = self.gen(&node);
                        let text = match place {
                            Place::SelectItem => format!("ts_dval({}, {}) COLLATE ts_dec", text, t.scale),
                            Place::Store => text,
                            Place::Other => format!("CAST({} AS DOUBLE)", text),
                        };
                        self.edit(s, end, text);
                        return Some(t);
                    }
                }
            }
        }
        self.inner_runs(s, e);
        None
    }

    /// Rewrite the runs inside tokens [s, e) for `Place::Other`.
    fn inner_runs(&mut self, s: usize, e: usize) {
        let mut i = s;
        while i < e {
            match self.try_run(i, Place::Other) {
                Some(end) => i = end,
                None => i += 1,
            }
        }
    }

    /// A DECIMAL run starting at token `i` rewritten for `place`, or else a
    /// decimal literal with more digits than a double keeps written as its
    /// text (compared with a DECIMAL column, it then compares exactly);
    /// returns the token after it, or None when there is nothing to rewrite.
    fn try_run(&mut self, i: usize, place: Place) -> Option<usize> {
        if let Some(end) = self.try_arithmetic(i, place) {
            return Some(end);
        }
        match &self.toks[i].tok {
            Tok::Number(n) if is_decimal_literal(n) && n.bytes().filter(u8::is_ascii_digit).count() > 15 => {
                self.edit(i, i + 1, format!("'{}'", n));
                Some(i + 1)
            }
            _ => None,
        }
    }

    fn try_arithmetic(&mut self, i: usize, place: Place) -> Option<usize> {
        let toks = self.toks;
        if i > 0 && (binds_neighbour(&toks[i - 1]) || toks[i - 1].ident().is_some_and(|w| self.column_type(w).is_some())) {
            return None;
        }
        // A unary sign, or a parenthesis that may open a call's arguments,
        // only after what cannot end an operand or name a function.
        if (toks[i].is_op("-") || toks[i].is_op("+") || toks[i].is_op("(")) && !unary_may_follow(i.checked_sub(1).map(|k| &toks[k])) {
            return None;
        }
        let (node, end) = self.run(i, toks.len())?;
        if !worth(&node, false) || self.neighbour_binds(i, end) {
            return None;
        }
        let Ty::Dec(_) = node.ty() else {
            // Not DECIMAL as a whole: its parenthesized parts and calls may be.
            return None;
        };
        let text = self.gen(&node);
        let text = match place {
            Place::Store | Place::SelectItem => text,
            Place::Other => format!("CAST({} AS DOUBLE)", text),
        };
        self.edit(i, end, text);
        Some(end)
    }

    /// Is an operator right before token `s` or at token `end` one that
    /// would take an operand of the run [s, end) away from it?
    fn neighbour_binds(&self, s: usize, end: usize) -> bool {
        let toks = self.toks;
        s > 0 && binds_neighbour(&toks[s - 1]) || toks.get(end).is_some_and(binds_neighbour)
    }

    fn edit(&mut self, s: usize, e: usize, text: String) {
        // A run inside one rewritten earlier is part of that text already.
        self.edits.retain(|(a, b, _)| !(*a >= s && *b <= e));
        self.edits.push((s, e, text));
        self.changed = true;
    }

    /// A run of arithmetic at token `i` (not past `to`): the parsed tree and
    /// the token after it. Precedence: unary minus, then `* / % DIV MOD`, then `+ -`.
    fn run(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        self.binary(i, to, 1)
    }

    fn binary(&self, i: usize, to: usize, level: u8) -> Option<(Node, usize)> {
        let (mut left, mut at) = if level == 2 { self.unary(i, to)? } else { self.binary(i, to, 2)? };
        while at < to {
            let Some((op, prec)) = arith_op(&self.toks[at]) else { break };
            if prec != level {
                break;
            }
            let Some((right, next)) = (if level == 2 { self.unary(at + 1, to) } else { self.binary(at + 1, to, 2) }) else { break };
            let ty = combine(op, left.ty(), right.ty());
            left = Node::Bin { op, l: Box::new(left), r: Box::new(right), ty };
            at = next;
        }
        Some((left, at))
    }

    fn unary(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        let t = self.toks.get(i).filter(|_| i < to)?;
        if t.is_op("-") {
            let (x, end) = self.unary(i + 1, to)?;
            let ty = match (x.ty(), &x) {
                // `-0.5` is a literal of its own
                (ty, Node::Leaf { kind: LeafKind::DecLiteral, .. }) => ty,
                (Ty::Dec(d), _) => Ty::Dec(DecType::new(d.precision + 1, d.scale)),
                (other, _) => other,
            };
            return Some((Node::Neg { x: Box::new(x), ty }, end));
        }
        if t.is_op("+") {
            return self.unary(i + 1, to);
        }
        self.primary(i, to)
    }

    /// An operand: a literal, a column (`c`, `t.c`, `db.t.c`), a call, `( run )`.
    fn primary(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let t = &toks[i];
        let leaf = |e: usize, ty: Ty, kind: LeafKind| Some((Node::Leaf { s: i, e, ty, kind }, e));
        match &t.tok {
            Tok::Number(n) if lex::hybrid_bytes(n).is_some() => leaf(i + 1, Ty::Other, LeafKind::Plain),
            Tok::Number(n) if n.contains(['e', 'E']) => leaf(i + 1, Ty::Double, LeafKind::Plain),
            Tok::Number(n) if n.contains('.') => leaf(i + 1, Ty::Dec(DecType::of_literal(n)), LeafKind::DecLiteral),
            Tok::Number(n) => leaf(i + 1, Ty::Int(n.trim_start_matches('0').len().max(1) as u32), LeafKind::Plain),
            Tok::Param | Tok::Str(_) | Tok::UserVar(_) | Tok::SysVar(..) => leaf(i + 1, Ty::Other, LeafKind::Plain),
            Tok::Op(o) if &**o == "(" => {
                let close = matching_paren(toks, i)?;
                if close >= to {
                    return None;
                }
                match self.run(i + 1, close) {
                    Some((inner, end)) if end == close => {
                        let ty = inner.ty();
                        leaf(close + 1, ty, LeafKind::Paren(Box::new(inner)))
                    }
                    _ => leaf(close + 1, Ty::Other, LeafKind::Plain),
                }
            }
            Tok::Word(_) | Tok::Quoted(_) => self.word_operand(i, to),
            _ => None,
        }
    }

    /// A call or a column at token `i`.
    fn word_operand(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let w = toks[i].ident()?;
        let leaf = |e: usize, ty: Ty, kind: LeafKind| Some((Node::Leaf { s: i, e, ty, kind }, e));
        if matches!(toks[i].tok, Tok::Word(_)) && toks.get(i + 1).is_some_and(|n| n.is_op("(") && n.start == toks[i].end) {
            let close = matching_paren(toks, i + 1)?;
            if close >= to {
                return None;
            }
            // A window function (`SUM(x) OVER (...)`) is SQLite's own, and no operand to wrap.
            if toks.get(close + 1).is_some_and(|n| n.is_kw("OVER")) {
                return None;
            }
            let agg = w.eq_ignore_ascii_case("SUM") || w.eq_ignore_ascii_case("AVG");
            if agg {
                if let Some((arg, end)) = self.run(i + 2, close).filter(|(_, end)| *end == close) {
                    let avg = w.eq_ignore_ascii_case("AVG");
                    return match arg.ty() {
                        Ty::Dec(t) => leaf(close + 1, Ty::Dec(if avg { t.avg() } else { t.sum() }), LeafKind::DecAggregate { avg, arg: Box::new(arg) }),
                        Ty::Int(d) if avg => leaf(end + 1, Ty::Dec(DecType::integer(d).avg()), LeafKind::IntAggregate),
                        Ty::Int(d) => leaf(end + 1, Ty::Dec(DecType::integer(d).sum()), LeafKind::IntAggregate),
                        _ => leaf(close + 1, Ty::Other, LeafKind::Plain),
                    };
                }
            }
            return leaf(close + 1, Ty::Other, LeafKind::Plain);
        }
        // `c`, `t.c`, `db.t.c`: the last part names the column.
        let mut end = i + 1;
        let mut name = w;
        while end + 1 < to && toks[end].is_op(".") {
            match toks[end + 1].ident() {
                Some(n) => {
                    name = n;
                    end += 2;
                }
                None => break,
            }
        }
        let ty = self.column_type(name)?;
        leaf(end, ty, LeafKind::Plain)
    }

    /// The type of a column of the statement's tables named `name`; None
    /// when no table has one (a keyword, an alias).
    fn column_type(&self, name: &str) -> Option<Ty> {
        let mut found: Option<Ty> = None;
        for d in &self.tables {
            let Some(c) = d.column(name) else { continue };
            let ty = match c.base {
                Base::Decimal => Ty::Dec(DecType::new(c.length.unwrap_or(10) as u32, c.scale.unwrap_or(0) as u32)),
                Base::TinyInt => Ty::Int(3),
                Base::SmallInt => Ty::Int(5),
                Base::MediumInt => Ty::Int(8),
                Base::Int => Ty::Int(10),
                Base::BigInt => Ty::Int(if c.unsigned { 20 } else { 19 }),
                Base::Float | Base::Double => Ty::Double,
                _ => Ty::Other,
            };
            if found.is_some_and(|f| f != ty) {
                return Some(Ty::Other);
            }
            found = Some(ty);
        }
        found
    }

    /// The MySQL text computing `node` exactly.
    fn gen(&self, node: &Node) -> String {
        match node {
            Node::Leaf { s, e, kind, .. } => match kind {
                LeafKind::DecLiteral => format!("'{}'", &self.sql[self.toks[*s].start..self.toks[*e - 1].end]),
                LeafKind::Plain | LeafKind::IntAggregate => self.text(*s, *e),
                LeafKind::Paren(inner) => match inner.ty() {
                    Ty::Dec(_) => self.gen(inner),
                    _ => self.text(*s, *e),
                },
                LeafKind::DecAggregate { avg, arg } => format!("{}({})", if *avg { "ts_davg" } else { "ts_dsum" }, self.gen(arg)),
            },
            Node::Neg { x, ty } => match (x.as_ref(), ty) {
                (Node::Leaf { s, e, kind: LeafKind::DecLiteral, .. }, _) => format!("'-{}'", &self.sql[self.toks[*s].start..self.toks[*e - 1].end]),
                (_, Ty::Dec(_)) => format!("ts_dsub(0, {})", self.gen(x)),
                _ => format!("-{}", self.gen(x)),
            },
            Node::Bin { op, l, r, ty } => match ty {
                Ty::Dec(_) => {
                    let f = match *op {
                        "+" => "ts_dadd",
                        "-" => "ts_dsub",
                        "*" => "ts_dmul",
                        _ => "ts_ddiv",
                    };
                    format!("{}({}, {})", f, self.gen(l), self.gen(r))
                }
                _ => format!("({} {} {})", self.gen(l), op, self.gen(r)),
            },
        }
    }

    /// The text of tokens [s, e), with the edits made inside it so far.
    fn text(&self, s: usize, e: usize) -> String {
        let mut out = String::new();
        let mut at = self.toks[s].start;
        for (a, b, rep) in self.edits.iter().filter(|(a, b, _)| *a >= s && *b <= e) {
            out.push_str(&self.sql[at..self.toks[*a].start]);
            out.push_str(rep);
            at = self.toks[*b - 1].end;
        }
        out.push_str(&self.sql[at..self.toks[e - 1].end]);
        out
    }

    /// The statement with every edit made.
    fn splice(&mut self) -> String {
        self.edits.sort_by_key(|(a, _, _)| *a);
        let mut out = String::with_capacity(self.sql.len() + 64);
        let mut at = 0;
        for (a, b, rep) in &self.edits {
            out.push_str(&self.sql[at..self.toks[*a].start]);
            out.push_str(rep);
            at = self.toks[*b - 1].end;
        }
        out.push_str(&self.sql[at..]);
        out
    }
}

/// Is `node` worth rewriting: arithmetic, SUM/AVG of DECIMAL, a
/// parenthesized run, and (`literal`) a lone decimal literal; not a plain
/// column, whose type the result metadata has already.
fn worth(node: &Node, literal: bool) -> bool {
    match node {
        Node::Bin { .. } | Node::Neg { .. } => true,
        Node::Leaf { kind: LeafKind::DecAggregate { .. } | LeafKind::Paren(_), .. } => true,
        Node::Leaf { kind: LeafKind::DecLiteral, .. } => literal,
        Node::Leaf { kind: LeafKind::Plain | LeafKind::IntAggregate, .. } => false,
    }
}

/// May a unary minus or plus start a run after token `prev`: nothing, an
/// opening parenthesis, a comma, a comparison, or a keyword before an expression.
fn unary_may_follow(prev: Option<&Token>) -> bool {
    const KEYWORDS: &[&str] = &["SELECT", "WHERE", "AND", "OR", "NOT", "THEN", "ELSE", "WHEN", "SET", "BY", "HAVING", "ON", "BETWEEN", "VALUES", "IN", "IS", "LIKE", "DISTINCT", "CASE"];
    match prev {
        None => true,
        Some(p) => ["(", ",", "=", "<", ">", "<=", ">=", "<>", "!=", "<=>"].iter().any(|o| p.is_op(o)) || KEYWORDS.iter().any(|k| p.is_kw(k)),
    }
}

/// MySQL's type of `l op r`.
fn combine(op: &str, l: Ty, r: Ty) -> Ty {
    match (l, r) {
        (Ty::Other, _) | (_, Ty::Other) => Ty::Other,
        (Ty::Double, _) | (_, Ty::Double) => Ty::Double,
        _ if matches!(op, "%" | "DIV" | "MOD") => Ty::Other,
        (Ty::Int(a), Ty::Int(b)) if op != "/" => Ty::Int(if op == "*" { a + b } else { a.max(b) + 1 }.min(20)),
        _ => {
            let (a, b) = (l.dec().expect("exact"), r.dec().expect("exact"));
            Ty::Dec(match op {
                "+" | "-" => a.added(b),
                "*" => a.multiplied(b),
                _ => a.divided(b),
            })
        }
    }
}

/// The `)` closing the `(` at token `i`.
fn matching_paren(toks: &[Token], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(i) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// End (exclusive) of the select item starting at `s`: a top-level `,`,
/// the clause after the list, or the `)` closing the list.
fn item_end(toks: &[Token], s: usize) -> usize {
    const AFTER: &[&str] = &["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "FOR", "LOCK", "WINDOW", "EXCEPT", "INTERSECT"];
    super::store::top_level_end(toks, s, |e| toks[e].is_op(",") || toks[e].is_op(";") || AFTER.iter().any(|k| toks[e].is_kw(k)))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::super::{rewrite, Kind};
    use std::sync::Arc;

    fn resolver() -> TestResolver {
        TestResolver(vec![Arc::new(table_def("CREATE TABLE m (id INT, amt DECIMAL(10,2), q INT, f DOUBLE, name VARCHAR(10))"))])
    }

    fn rw(sql: &str, kind: Kind) -> (String, Vec<Option<(u32, u32)>>) {
        let r = rewrite(sql, kind, &resolver()).unwrap();
        (r.sql, r.item_types.iter().map(|t| t.map(|t| (t.precision, t.scale))).collect())
    }

    #[test]
    fn decimal_runs_become_exact_calls() {
        let (sql, types) = rw("SELECT amt*3, amt + 1 AS x, amt/3, -amt, id, f*amt, SUM(amt), AVG(amt), 0.10, id/2, MIN(amt), SUM(q) FROM m", Kind::Select);
        assert_eq!(
            sql,
            "SELECT ts_dval(ts_dmul(amt, 3), 2) COLLATE ts_dec, ts_dval(ts_dadd(amt, 1), 2) COLLATE ts_dec AS x, ts_dval(ts_ddiv(amt, 3), 6) COLLATE ts_dec, ts_dval(ts_dsub(0, amt), 2) COLLATE ts_dec, id, f*amt, ts_dval(ts_dsum(amt), 2) COLLATE ts_dec, ts_dval(ts_davg(amt), 6) COLLATE ts_dec, ts_dval('0.10', 2) COLLATE ts_dec, ts_dval(ts_ddiv(id, 2), 4) COLLATE ts_dec, MIN(amt), SUM(q) FROM m"
        );
        assert_eq!(types, vec![Some((11, 2)), Some((11, 2)), Some((14, 6)), Some((11, 2)), None, None, Some((32, 2)), Some((14, 6)), Some((3, 2)), Some((14, 4)), None, Some((32, 0))]);
        // elsewhere: computed exactly, compared as a number
        let (sql, _) = rw("SELECT id FROM m WHERE amt * 3 = 0.3 ORDER BY amt * q", Kind::Select);
        assert_eq!(sql, "SELECT id FROM m WHERE CAST(ts_dmul(amt, 3) AS REAL) = 0.3 ORDER BY CAST(ts_dmul(amt, q) AS REAL)");
        // stored: exact text for ts_dec
        let (sql, _) = rw("UPDATE m SET amt = amt * 1.1 WHERE id = 1", Kind::Update);
        assert!(sql.starts_with("UPDATE m SET amt = ts_dec(ts_dmul(amt, '1.1'), 10, 2, 0, 'amt', "), "{}", sql);
        // precedence: an operator outside the run keeps its operand
        let (sql, _) = rw("SELECT name + amt * 2, amt * 2 & 1, q * (amt + 1), LENGTH(name) - amt * 2 FROM m", Kind::Select);
        assert_eq!(sql, "SELECT name + amt * 2, amt * 2 & 1, ts_dval(ts_dmul(q, ts_dadd(amt, 1)), 2) COLLATE ts_dec, octet_length(name) - amt * 2 FROM m");
        // window functions are SQLite's own
        assert_eq!(rw("SELECT SUM(amt) OVER (), id FROM m", Kind::Select).0, "SELECT SUM(amt) OVER (), id FROM m");
        // no DECIMAL anywhere: untouched
        assert_eq!(rw("SELECT id + 1, q * 2 FROM m WHERE id = ?", Kind::Select).0, "SELECT id + 1, q * 2 FROM m WHERE id = ?");
    }
}
