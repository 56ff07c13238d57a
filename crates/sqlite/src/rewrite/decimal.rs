//! Exact numbers: MySQL's DECIMAL and BIGINT UNSIGNED arithmetic, written
//! as calls of the engine's exact functions before the statement is
//! translated.
//!
//! SQLite computes `+ - * /` in 64-bit integers or doubles, so `amt * 3`
//! with amt 0.10 would be 0.30000000000000004, `x % 3` cuts x to an integer
//! and a BIGINT UNSIGNED above 2^63-1 (stored as text, ddl/generate.rs)
//! would become a double. This pass finds the runs of arithmetic whose
//! MySQL type is exact (an operand is a DECIMAL or BIGINT UNSIGNED column,
//! a decimal literal such as `0.10`, an integer literal above 2^63-1, SUM/AVG
//! of DECIMAL, or a `/` of exact numbers) and writes them as
//! `ts_dadd/ts_dsub/ts_dmul/ts_ddiv/ts_dmod/ts_ddivi(a, b)` (DECIMAL) and
//! `ts_uop(a, b, op, text)` (BIGINT UNSIGNED, MySQL's 1690 on overflow);
//! SUM and AVG of a DECIMAL as `ts_dsum/ts_davg` (also as window
//! functions), and the functions of an exact argument MySQL keeps exact
//! (ROUND, TRUNCATE, CEIL, FLOOR, ABS, SIGN, CAST AS DECIMAL, GREATEST,
//! LEAST, COALESCE, IFNULL, IF, CASE, MIN, MAX: `exact_calls.rs`) with
//! MySQL's result types. The result is MySQL text again, which the
//! translator then translates as usual.
//!
//! Where the value is what the client sees (an item of a top-level select
//! list) a DECIMAL is rounded to the scale MySQL gives the expression
//! (`DecType`, `ts_dval(x, scale)`) and stays text, with the `ts_dec`
//! collation so ORDER BY its alias sorts numerically; its type goes to the
//! result metadata (`Rewritten::item_types`, `ItemType`). Where it is stored
//! (UPDATE SET, VALUES, INSERT ... SELECT) it stays exact text. Anywhere
//! else (WHERE, ORDER BY, function arguments) a DECIMAL becomes a double,
//! computed exactly and rounded once, so SQLite compares it as a number. A
//! decimal literal with more digits than a double keeps is written as its
//! text, so that compared with a DECIMAL column (TEXT, `ts_dec`) it
//! compares exactly; a value compared with a BIGINT UNSIGNED column goes
//! through `ts_u64v`, which gives it the column's stored form.
//!
//! Conservative by design: a run with an operand whose type is not known
//! (a parameter, a string, an unknown function or column) is left to
//! SQLite as before, and so is a run an operator outside it binds to.

use super::decimal_gen::needs_gen;
use super::Resolver;
use crate::schema::{Base, TableDef};
use std::sync::Arc;
use turnstile_engine::SqlError;
use turnstile_sqltext::decimal::DecType;
use turnstile_sqltext::lex::{self, Tok, Token};

/// An operand's or a run's MySQL type, as far as this pass needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Ty {
    /// An exact integer of this many digits, in BIGINT's range.
    Int(u32),
    /// A BIGINT UNSIGNED (0 to 2^64-1): its arithmetic is checked.
    UBig,
    Dec(DecType),
    Double,
    /// The NULL literal: in COALESCE, IF and CASE it takes the others' type.
    Null,
    /// Anything else, or not known: the run is left alone.
    Other,
}

impl Ty {
    pub(super) fn dec(self) -> Option<DecType> {
        match self {
            Ty::Int(d) => Some(DecType::integer(d)),
            Ty::UBig => Some(DecType::integer(20)),
            Ty::Dec(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn exact(self) -> bool {
        self.dec().is_some()
    }
}

/// The type of a select item this pass computed, for the result metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemType {
    /// NEWDECIMAL with this precision and scale.
    Decimal(DecType),
    /// An integer of at most `length` characters: a BIGINT (LONGLONG) when
    /// `wide`, else an INT (LONG).
    Int { length: u32, unsigned: bool, wide: bool },
}

/// A parsed run of arithmetic: token ranges and what they compute.
#[derive(Debug)]
pub(super) enum Node {
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
pub(super) enum LeafKind {
    /// A decimal literal (or an integer one beyond BIGINT): written as its
    /// text (a string), so no digit is lost.
    DecLiteral,
    Plain,
    /// A BIGINT UNSIGNED column (its table's database and its name, for messages).
    Unsigned(String),
    /// `( run )`: the inner run, written without the parentheses.
    Paren(Box<Node>),
    /// SUM or AVG of integers, MIN or MAX of a DECIMAL column over a window:
    /// SQLite's own (exact for SUM; AVG is rounded to its scale on the way
    /// out), typed DECIMAL as MySQL types it.
    IntAggregate,
    /// Text put together from the client's tokens and generated runs (a
    /// call computed exactly, CASE, ...); `int_length`: the display length
    /// MySQL gives an integer result and whether it is a BIGINT (else INT)
    /// MySQL gives an integer result.
    Pieces {
        pieces: Vec<Piece>,
        int_length: Option<(u32, bool)>,
    },
}

/// A part of a `LeafKind::Pieces` text.
#[derive(Debug)]
pub(super) enum Piece {
    /// The client's tokens [s, e), as they are.
    Text(usize, usize),
    Raw(String),
    /// A run, exact (a DECIMAL's text) or as a double.
    Run(Node, Want),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Want {
    Exact,
    Double,
}

impl Node {
    pub(super) fn ty(&self) -> Ty {
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

/// The result of the pass: the new MySQL text and the result column name and
/// type of each item of the first top-level select list (None: not one this
/// pass computed).
pub(super) struct DecimalRewrite {
    pub sql: String,
    pub item_types: Vec<Option<(String, ItemType)>>,
}

/// A table the statement names, with the database it is in (for messages).
pub(super) struct Named {
    pub def: Arc<TableDef>,
    pub db: String,
}

pub(super) struct Pass<'a> {
    pub(super) sql: &'a str,
    pub(super) toks: &'a [Token],
    pub(super) tables: Vec<Named>,
    /// (first token, end token, replacement text), in order, not overlapping.
    pub(super) edits: Vec<(usize, usize, String)>,
    item_types: Vec<Option<(String, ItemType)>>,
    changed: bool,
    /// The first error found (a CAST to an impossible DECIMAL).
    pub(super) error: std::cell::RefCell<Option<SqlError>>,
}

/// Does the statement have anything this pass could rewrite: a decimal
/// literal or one beyond BIGINT, a `/`, `%`, DIV or MOD, a CAST to DECIMAL,
/// UNSIGNED or SIGNED, or a DECIMAL or BIGINT UNSIGNED column of a table it
/// names?
fn worth_a_look(toks: &[Token], tables: &[Named]) -> bool {
    let token = |t: &Token| match &t.tok {
        Tok::Number(n) => is_decimal_literal(n) || is_big_integer(n),
        Tok::Op(o) => matches!(&**o, "/" | "%"),
        Tok::Word(w) => ["DIV", "MOD", "DECIMAL", "DEC", "UNSIGNED", "SIGNED"].iter().any(|k| w.eq_ignore_ascii_case(k)),
        _ => false,
    };
    toks.iter().any(token) || tables.iter().any(|n| n.def.columns.iter().any(|c| c.base == Base::Decimal || is_wide_unsigned(c)))
}

/// A BIGINT UNSIGNED column, whose values above 2^63-1 are stored as text.
pub fn is_wide_unsigned(c: &crate::schema::ColumnDef) -> bool {
    c.base == Base::BigInt && c.unsigned
}

fn is_decimal_literal(n: &str) -> bool {
    n.contains('.') && !n.contains(['e', 'E']) && lex::hybrid_bytes(n).is_none()
}

/// An integer literal beyond BIGINT's range (a BIGINT UNSIGNED or a DECIMAL in MySQL).
fn is_big_integer(n: &str) -> bool {
    n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<i64>().is_err()
}

/// The tables a statement names (any word that names one; `db.t` too).
pub(super) fn named_tables(toks: &[Token], resolver: &dyn Resolver) -> Vec<Named> {
    let mut out: Vec<Named> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Some(w) = t.ident() else { continue };
        if i > 0 && toks[i - 1].is_op(".") {
            continue;
        }
        let qualified = toks.get(i + 1).is_some_and(|n| n.is_op("."));
        let (db, def) = if qualified { (Some(w), toks.get(i + 2).and_then(|n| n.ident()).and_then(|n| resolver.table(Some(w), n))) } else { (None, resolver.table(None, w)) };
        if let Some(d) = def {
            if !out.iter().any(|o| Arc::ptr_eq(&o.def, &d)) {
                let db = db.or(resolver.home()).unwrap_or("").to_string();
                out.push(Named { def: d, db });
            }
        }
    }
    out
}

/// Rewrite the exact arithmetic of `sql` (tokens `toks`, one statement).
/// `None` when there is none (the statement is translated as it is).
pub(super) fn rewrite_decimal(sql: &str, toks: &[Token], kind: super::Kind, resolver: &dyn Resolver) -> Result<Option<DecimalRewrite>, SqlError> {
    let tables = named_tables(toks, resolver);
    if !worth_a_look(toks, &tables) {
        return Ok(None);
    }
    let mut pass = Pass { sql, toks, tables, edits: Vec::new(), item_types: Vec::new(), changed: false, error: Default::default() };
    pass.statement(kind);
    if let Some(e) = pass.error.take() {
        return Err(e);
    }
    if !pass.changed && pass.item_types.iter().all(Option::is_none) {
        return Ok(None);
    }
    Ok(Some(DecimalRewrite { sql: pass.splice(), item_types: pass.item_types }))
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
        Tok::Word(w) if w.eq_ignore_ascii_case("MOD") => Some(("%", 2)),
        _ => None,
    }
}

/// Operators that bind an operand next to a run more tightly than the run's
/// own or as tightly: a run next to one is not rewritten alone.
fn binds_neighbour(t: &Token) -> bool {
    arith_op(t).is_some() || ["^", "|", "&", "<<", ">>", "~", "!", "."].iter().any(|o| t.is_op(o)) || t.is_kw("COLLATE") || t.is_kw("INTERVAL")
}

/// Most operators in one chain of a run (SQLite's largest expression depth,
/// `expr_depth_for_stack`).
const MAX_CHAIN: usize = 1000;

/// Comparison operators: a BIGINT UNSIGNED column's other operand goes
/// through `ts_u64v`.
const COMPARISONS: &[&str] = &["=", "<>", "!=", "<", ">", "<=", ">=", "<=>"];

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
        while i < toks.len() && self.error.borrow().is_none() {
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
            } else if self.compared_unsigned(i) {
                i += 1;
                continue;
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
                let name = super::column_names::result_name(self.sql, toks, start, end).unwrap_or_default();
                self.item_types.push(ty.map(|t| (name, t)));
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
    /// is a run this pass computes (optionally with an alias), else its
    /// inner runs for `Place::Other`. Returns its type.
    fn item(&mut self, s: usize, e: usize, place: Place) -> Option<ItemType> {
        let toks = self.toks;
        if s < e {
            if let Some((node, end)) = self.run(s, e) {
                let alias_follows = end == e || toks[end].is_kw("AS") || end + 1 == e && toks[end].ident().is_some();
                if alias_follows && !self.neighbour_binds(s, end) {
                    if let Some(t) = self.whole_item(&node, s, end, place) {
                        return Some(t);
                    }
                }
            }
        }
        self.inner_runs(s, e);
        None
    }

    /// A select item that is the run `node` (tokens [s, end)), rewritten
    /// for `place`; its type, or None when it is not one this pass types.
    fn whole_item(&mut self, node: &Node, s: usize, end: usize, place: Place) -> Option<ItemType> {
        if let (Node::Leaf { kind: LeafKind::IntAggregate, ty: Ty::Dec(t), .. }, _) = (node, place) {
            return Some(ItemType::Decimal(*t));
        }
        if !worth(node, true) {
            return None;
        }
        match node.ty() {
            Ty::Dec(t) => {
                let text = self.gen(node);
                let text = match place {
                    Place::SelectItem => format!("ts_dval({}, {}) COLLATE ts_dec", text, t.scale),
                    Place::Store => text,
                    Place::Other => format!("CAST({} AS DOUBLE)", text),
                };
                self.edit(s, end, text);
                Some(ItemType::Decimal(t))
            }
            Ty::Int(_) | Ty::UBig | Ty::Double => {
                if needs_gen(node) {
                    let text = self.gen(node);
                    self.edit(s, end, text);
                }
                int_item_type(node)
            }
            _ => None,
        }
    }

    /// Rewrite the runs inside tokens [s, e) for `Place::Other`.
    fn inner_runs(&mut self, s: usize, e: usize) {
        let mut i = s;
        while i < e && self.error.borrow().is_none() {
            if self.compared_unsigned(i) {
                i += 1;
                continue;
            }
            match self.try_run(i, Place::Other) {
                Some(end) => i = end,
                None => i += 1,
            }
        }
    }

    /// A run starting at token `i` rewritten for `place`, or else a decimal
    /// literal with more digits than a double keeps written as its text
    /// (compared with a DECIMAL column, it then compares exactly); returns
    /// the token after it, or None when there is nothing to rewrite.
    fn try_run(&mut self, i: usize, place: Place) -> Option<usize> {
        if let Some(end) = self.int_arg_overflow(i) {
            return Some(end);
        }
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
        let text = self.gen(&node);
        let text = match (node.ty(), place) {
            (Ty::Dec(_), Place::Other) => format!("CAST({} AS DOUBLE)", text),
            (Ty::Dec(_), _) => text,
            (Ty::Int(_) | Ty::UBig | Ty::Double, _) if needs_gen(&node) => text,
            // Not exact as a whole: its parenthesized parts and calls may be.
            _ => return None,
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

    pub(super) fn edit(&mut self, s: usize, e: usize, text: String) {
        // A range that cuts through one rewritten earlier is left as it is
        // (its text would not hold the earlier rewrite whole).
        if self.edits.iter().any(|(a, b, _)| *a < e && s < *b && !(*a >= s && *b <= e) && !(s >= *a && e <= *b)) {
            return;
        }
        // Inside one rewritten earlier: that text has it already.
        if self.edits.iter().any(|(a, b, _)| s >= *a && e <= *b) {
            return;
        }
        // A run inside this one is part of its text already.
        self.edits.retain(|(a, b, _)| !(*a >= s && *b <= e));
        self.edits.push((s, e, text));
        self.changed = true;
    }

    /// A run of arithmetic at token `i` (not past `to`): the parsed tree and
    /// the token after it. Precedence: unary minus, then `* / % DIV MOD`, then `+ -`.
    pub(super) fn run(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        // Every recursion of the parse passes through here (parentheses,
        // calls, CASE, unary signs via `unary`): nested past what the
        // thread's stack holds, the statement ends with ERR 1436. Once it
        // has, nothing more is parsed (a call whose arguments failed reads
        // as a plain leaf, and every level above would go on).
        if self.failed() || !self.stack_left() {
            return None;
        }
        self.binary(i, to, 1)
    }

    /// Has the statement failed (`self.error`)? Then the pass's output is
    /// dropped: nothing more is parsed or generated (generating the levels
    /// above a failure copied each one's text into the next, quadratic in
    /// the nesting: 100,000 nested CASTs took minutes).
    pub(super) fn failed(&self) -> bool {
        self.error.borrow().is_some()
    }

    /// Is there stack left for another level? If not, ERR 1436 is kept in
    /// `self.error` for the statement.
    pub(super) fn stack_left(&self) -> bool {
        match turnstile_engine::stack::check() {
            Ok(()) => true,
            Err(e) => {
                self.error.borrow_mut().get_or_insert(e);
                false
            }
        }
    }

    /// A run that covers exactly tokens [s, e).
    pub(super) fn whole_run(&self, s: usize, e: usize) -> Option<Node> {
        match self.run(s, e) {
            Some((node, end)) if end == e && s < e => Some(node),
            _ => None,
        }
    }

    fn binary(&self, i: usize, to: usize, level: u8) -> Option<(Node, usize)> {
        let (mut left, mut at) = if level == 2 { self.unary(i, to)? } else { self.binary(i, to, 2)? };
        let mut chain = 0usize;
        while at < to {
            // A chain (`x+x+x...`) is as deep a tree as it is long, and the
            // tree is walked (and dropped) recursively: past SQLite's own
            // expression depth limit it is refused as SQLite would refuse it.
            chain += 1;
            if chain > MAX_CHAIN {
                let e = SqlError::new(1436, "HY000", "Thread stack overrun: the statement nests expressions too deeply for the thread stack. Consider increasing the thread_stack system variable.");
                self.error.borrow_mut().get_or_insert(e);
                return None;
            }
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
        if !self.stack_left() {
            return None;
        }
        if t.is_op("-") {
            let (x, end) = self.unary(i + 1, to)?;
            if let Node::Leaf { ty: Ty::UBig, kind: LeafKind::DecLiteral, s, .. } = x {
                // -9223372036854775808 is a BIGINT; a larger literal a DECIMAL.
                let digits = &self.sql[self.toks[s].start..self.toks[s].end];
                let ty = if digits == "9223372036854775808" { Ty::Int(19) } else { Ty::Dec(DecType::of_literal(digits)) };
                let kind = if ty == Ty::Int(19) { LeafKind::Plain } else { LeafKind::DecLiteral };
                return Some((Node::Neg { x: Box::new(Node::Leaf { s, e: end, ty, kind }), ty }, end));
            }
            let ty = match (x.ty(), &x) {
                // `-0.5` is a literal of its own
                (ty, Node::Leaf { kind: LeafKind::DecLiteral, .. }) => ty,
                (Ty::Dec(d), _) => Ty::Dec(DecType::new(d.precision + 1, d.scale)),
                // -u of a BIGINT UNSIGNED is a signed BIGINT (MySQL's 1690 past its range)
                (Ty::UBig, _) => Ty::Other,
                (other, _) => other,
            };
            return Some((Node::Neg { x: Box::new(x), ty }, end));
        }
        if t.is_op("+") {
            return self.unary(i + 1, to);
        }
        self.primary(i, to)
    }

    /// An operand: a literal, a column (`c`, `t.c`, `db.t.c`), a call, `( run )`, CASE.
    fn primary(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let t = &toks[i];
        let leaf = |e: usize, ty: Ty, kind: LeafKind| Some((Node::Leaf { s: i, e, ty, kind }, e));
        match &t.tok {
            Tok::Number(n) if lex::hybrid_bytes(n).is_some() => leaf(i + 1, Ty::Other, LeafKind::Plain),
            Tok::Number(n) if n.contains(['e', 'E']) => leaf(i + 1, Ty::Double, LeafKind::Plain),
            Tok::Number(n) if n.contains('.') => leaf(i + 1, Ty::Dec(DecType::of_literal(n)), LeafKind::DecLiteral),
            Tok::Number(n) if n.parse::<u64>().is_ok_and(|v| v > i64::MAX as u64) => leaf(i + 1, Ty::UBig, LeafKind::DecLiteral),
            Tok::Number(n) if is_big_integer(n) => leaf(i + 1, Ty::Dec(DecType::of_literal(n)), LeafKind::DecLiteral),
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
            Tok::Word(w) if w.eq_ignore_ascii_case("NULL") => leaf(i + 1, Ty::Null, LeafKind::Plain),
            Tok::Word(w) if w.eq_ignore_ascii_case("CASE") => self.case_expression(i, to),
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
            return match self.call(i, close, to) {
                Some(found) => Some(found),
                None => leaf(over_end(toks, close + 1, to).unwrap_or(close + 1), Ty::Other, LeafKind::Plain),
            };
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
        let kind = match ty {
            Ty::UBig => LeafKind::Unsigned(self.qualified_column(name)),
            _ => LeafKind::Plain,
        };
        leaf(end, ty, kind)
    }

    /// `db`.`t`.`c` for the column `name` of the statement's tables, as
    /// MariaDB names a column in a message.
    fn qualified_column(&self, name: &str) -> String {
        let q = |s: &str| format!("`{}`", s.replace('`', "``"));
        match self.tables.iter().find_map(|n| n.def.column(name).map(|c| (n, c))) {
            Some((n, c)) => format!("{}.{}.{}", q(&n.db), q(&n.def.name), q(&c.name)),
            None => q(name),
        }
    }

    /// The type of a column of the statement's tables named `name`; None
    /// when no table has one (a keyword, an alias).
    pub(super) fn column_type(&self, name: &str) -> Option<Ty> {
        let mut found: Option<Ty> = None;
        for n in &self.tables {
            let Some(c) = n.def.column(name) else { continue };
            let ty = match c.base {
                Base::Decimal => Ty::Dec(DecType::new(c.length.unwrap_or(10) as u32, c.scale.unwrap_or(0) as u32)),
                Base::TinyInt => Ty::Int(3),
                Base::SmallInt => Ty::Int(5),
                Base::MediumInt => Ty::Int(8),
                Base::Int => Ty::Int(10),
                Base::BigInt if c.unsigned => Ty::UBig,
                Base::BigInt => Ty::Int(19),
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

    /// Do the tokens `s..e` name a string: a string literal, or a column
    /// (`c`, `t.c`, `db.t.c`) of a character or binary string type in every
    /// table of the statement that has one (ENUM and SET read as numbers)?
    pub(super) fn string_operand(&self, s: usize, e: usize) -> bool {
        let toks = &self.toks[s..e];
        if let [t] = toks {
            if matches!(t.tok, Tok::Str(_)) {
                return true;
            }
        }
        let dotted = matches!(toks.len(), 1 | 3 | 5) && toks.iter().enumerate().all(|(k, t)| if k % 2 == 1 { t.is_op(".") } else { t.ident().is_some() });
        let Some(name) = toks.last().and_then(|c| c.ident()).filter(|_| dotted) else { return false };
        let mut bases = self.tables.iter().filter_map(|n| n.def.column(name)).map(|c| c.base).peekable();
        bases.peek().is_some() && bases.all(|b| (b.is_text() && !matches!(b, Base::Enum | Base::Set)) || b.is_binary())
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

    /// A comparison at token `i` with a BIGINT UNSIGNED column on one side
    /// and a literal or parameter on the other (`u = v`, `v < u`, `u [NOT]
    /// IN (v, ...)`, `u [NOT] BETWEEN v AND v`): each value written through
    /// `ts_u64v`, which gives it the column's stored form (an integer, or
    /// the text of one above 2^63-1), so that `u = '5'`, `u = ?` bound as
    /// text and `u < 18446744073709551615` compare as numbers. Returns
    /// whether token `i` was such a comparison.
    fn compared_unsigned(&mut self, i: usize) -> bool {
        let toks = self.toks;
        let Some(prev) = i.checked_sub(1) else { return false };
        // `u NOT IN`, `u NOT BETWEEN`: the column is before the NOT.
        let col_before = if toks[prev].is_kw("NOT") { prev.checked_sub(1) } else { Some(prev) };
        if toks[i].is_kw("IN") && toks.get(i + 1).is_some_and(|t| t.is_op("(")) && col_before.is_some_and(|k| self.wide_unsigned_at(k)) {
            let Some(close) = matching_paren(toks, i + 1) else { return false };
            let mut k = i + 2;
            while k < close {
                if self.is_value(k) && (toks[k + 1].is_op(",") || k + 1 == close) {
                    self.wrap_value(k);
                }
                k = super::store::top_level_end(toks, k, |e| toks[e].is_op(",")).min(close) + 1;
            }
            return true;
        }
        if toks[i].is_kw("BETWEEN") && col_before.is_some_and(|k| self.wide_unsigned_at(k)) {
            for k in [i + 1, i + 3] {
                if self.is_value(k) && !toks.get(k + 1).is_some_and(binds_neighbour) {
                    self.wrap_value(k);
                }
            }
            return true;
        }
        if !COMPARISONS.iter().any(|o| toks[i].is_op(o)) || i + 1 >= toks.len() {
            return false;
        }
        // `u <op> v` (u possibly `t.u`) or `v <op> u`.
        if self.wide_unsigned_at(prev) && self.is_value(i + 1) && !toks.get(i + 2).is_some_and(binds_neighbour) {
            self.wrap_value(i + 1);
        } else if self.is_value(prev) && toks[i + 1].ident().is_some() && self.wide_unsigned_at(self.column_ends_at(i + 1)) && !(prev > 0 && binds_neighbour(&toks[prev - 1])) {
            self.wrap_value(prev);
        } else {
            return false;
        }
        true
    }

    /// A literal or parameter at token `k`.
    fn is_value(&self, k: usize) -> bool {
        matches!(self.toks.get(k).map(|t| &t.tok), Some(Tok::Number(_) | Tok::Str(_) | Tok::Param))
    }

    /// Does token `k` name a BIGINT UNSIGNED column stored as ANY? (An
    /// AUTO_INCREMENT one is SQLite's INTEGER: it converts '5' itself.)
    fn wide_unsigned_at(&self, k: usize) -> bool {
        self.toks[k].ident().is_some_and(|w| self.column_type(w) == Some(Ty::UBig) && self.tables.iter().any(|n| n.def.column(w).is_some_and(|c| crate::ddl::storage_affinity(c) == "ANY")))
    }

    /// The value at token `k` as `ts_u64v(value)` (a number as its text, so
    /// SQLite does not read one above 2^63-1 as a double first).
    fn wrap_value(&mut self, k: usize) {
        if self.edits.iter().any(|(a, b, _)| *a <= k && k < *b) {
            return;
        }
        let v = match &self.toks[k].tok {
            Tok::Number(n) if lex::hybrid_bytes(n).is_none() => format!("'{}'", n),
            _ => self.text(k, k + 1),
        };
        self.edit(k, k + 1, format!("ts_u64v({})", v));
    }

    /// The last token of a column reference starting at `k` (`c`, `t.c`, `db.t.c`).
    fn column_ends_at(&self, k: usize) -> usize {
        let toks = self.toks;
        let mut end = k;
        while toks.get(end + 1).is_some_and(|t| t.is_op(".")) && toks.get(end + 2).and_then(|t| t.ident()).is_some() {
            end += 2;
        }
        end
    }
}

/// The result type of a select item whose run is an integer of MySQL's:
/// DIV, CEIL/FLOOR/SIGN/ROUND/TRUNCATE of an exact number, and BIGINT
/// UNSIGNED arithmetic; None for other integers (typed by their values).
fn int_item_type(node: &Node) -> Option<ItemType> {
    match node {
        Node::Leaf { kind: LeafKind::Pieces { int_length: Some((length, wide)), .. }, ty, .. } => Some(ItemType::Int { length: *length, unsigned: *ty == Ty::UBig, wide: *wide }),
        Node::Bin { op: "DIV", l, r, .. } => {
            let length = match l.ty() {
                Ty::Double | Ty::Other | Ty::Null => 21,
                t => t.dec().map_or(21, |d| (d.precision - d.scale).clamp(1, 21)),
            };
            Some(ItemType::Int { length, unsigned: l.ty() == Ty::UBig || r.ty() == Ty::UBig, wide: length > 9 })
        }
        Node::Bin { op: "%", ty: Ty::UBig, .. } => Some(ItemType::Int { length: 20, unsigned: true, wide: true }),
        Node::Bin { ty: Ty::UBig, .. } => Some(ItemType::Int { length: 21, unsigned: true, wide: true }),
        Node::Leaf { kind: LeafKind::Paren(inner), .. } => int_item_type(inner),
        Node::Leaf { ty: Ty::UBig, kind: LeafKind::DecLiteral, .. } => Some(ItemType::Int { length: 20, unsigned: true, wide: true }),
        _ => None,
    }
}

/// Is `node` worth rewriting: arithmetic, a call computed exactly, a
/// parenthesized run, and (`literal`) a lone decimal literal; not a plain
/// column, whose type the result metadata has already.
fn worth(node: &Node, literal: bool) -> bool {
    match node {
        Node::Bin { .. } | Node::Neg { .. } => true,
        Node::Leaf { kind: LeafKind::Pieces { .. } | LeafKind::Paren(_), .. } => true,
        Node::Leaf { kind: LeafKind::DecLiteral, .. } => literal,
        Node::Leaf { kind: LeafKind::Plain | LeafKind::IntAggregate | LeafKind::Unsigned(_), .. } => false,
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
pub(super) fn combine(op: &str, l: Ty, r: Ty) -> Ty {
    match (l, r) {
        (Ty::Other | Ty::Null, _) | (_, Ty::Other | Ty::Null) => Ty::Other,
        _ if op == "DIV" => Ty::Int(21),
        (Ty::Double, _) | (_, Ty::Double) => Ty::Double,
        (Ty::Int(a), Ty::Int(b)) if op != "/" => Ty::Int(if op == "*" { a + b } else { a.max(b) + 1 }.min(20)),
        (Ty::UBig, Ty::Int(_) | Ty::UBig) if op == "%" => Ty::UBig,
        (Ty::Int(_), Ty::UBig) if op == "%" => Ty::Int(20),
        (Ty::UBig, Ty::Int(_) | Ty::UBig) | (Ty::Int(_), Ty::UBig) if op != "/" => Ty::UBig,
        _ => {
            let (a, b) = (l.dec().expect("exact"), r.dec().expect("exact"));
            Ty::Dec(match op {
                "+" | "-" => a.added(b),
                "*" => a.multiplied(b),
                "%" => DecType::new(a.precision.max(b.precision), a.scale.max(b.scale)),
                _ => a.divided(b),
            })
        }
    }
}

/// The `)` closing the `(` at token `i`.
pub(super) fn matching_paren(toks: &[Token], i: usize) -> Option<usize> {
    turnstile_sqltext::parens::closing(toks, i)
}

/// The end (exclusive) of `OVER (...)` or `OVER name` at token `k`, when
/// one is there (not past `to`).
pub(super) fn over_end(toks: &[Token], k: usize, to: usize) -> Option<usize> {
    if !toks.get(k).is_some_and(|t| t.is_kw("OVER")) {
        return None;
    }
    let end = if toks.get(k + 1).is_some_and(|t| t.is_op("(")) { matching_paren(toks, k + 1)? + 1 } else { toks.get(k + 1)?.ident().map(|_| k + 2)? };
    (end <= to).then_some(end)
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
        (
            r.sql,
            r.item_types
                .iter()
                .map(|t| match t {
                    Some((_, super::ItemType::Decimal(t))) => Some((t.precision, t.scale)),
                    Some((_, super::ItemType::Int { length, .. })) => Some((*length, 0)),
                    None => None,
                })
                .collect(),
        )
    }

    #[test]
    fn decimal_runs_become_exact_calls() {
        let (sql, types) = rw("SELECT amt*3, amt + 1 AS x, amt/3, -amt, id, f*amt, SUM(amt), AVG(amt), 0.10, id/2, MIN(amt), SUM(q) FROM m", Kind::Select);
        assert_eq!(
            sql,
            "SELECT ts_dval(ts_dmul(amt, 3), 2) COLLATE ts_dec AS \"amt*3\", ts_dval(ts_dadd(amt, 1), 2) COLLATE ts_dec AS x, ts_dval(ts_ddiv(amt, 3), 6) COLLATE ts_dec AS \"amt/3\", ts_dval(ts_dsub(0, amt), 2) COLLATE ts_dec AS \"-amt\", id, f*amt, ts_dval(ts_dsum(amt), 2) COLLATE ts_dec AS \"SUM(amt)\", ts_dval(ts_davg(amt), 6) COLLATE ts_dec AS \"AVG(amt)\", ts_dval('0.10', 2) COLLATE ts_dec AS \"0.10\", ts_dval(ts_ddiv(id, 2), 4) COLLATE ts_dec AS \"id/2\", MIN(amt), SUM(q) FROM m"
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
        assert_eq!(
            sql,
            "SELECT name + amt * 2, amt * 2 & 1, ts_dval(ts_dmul(q, ts_dadd(amt, 1)), 2) COLLATE ts_dec AS \"q * (amt + 1)\", octet_length(name) - amt * 2 AS \"LENGTH(name) - amt * 2\" FROM m"
        );
        // window functions: exact too
        assert_eq!(rw("SELECT SUM(amt) OVER (), id FROM m", Kind::Select).0, "SELECT ts_dval(ts_dsum(amt) OVER (), 2) COLLATE ts_dec AS \"SUM(amt) OVER ()\", id FROM m");
        // no DECIMAL anywhere: untouched
        assert_eq!(rw("SELECT id + 1, q * 2 FROM m WHERE id = ?", Kind::Select).0, "SELECT id + 1, q * 2 FROM m WHERE id = ?");
    }

    #[test]
    fn exact_calls_unsigned_arithmetic_and_comparisons() {
        let r = TestResolver(vec![Arc::new(table_def("CREATE TABLE w (id INT, amt DECIMAL(10,2), u BIGINT UNSIGNED, q INT)"))]);
        let rw = |sql: &str| rewrite(sql, Kind::Select, &r).unwrap().sql;
        assert_eq!(rw("SELECT amt % 3 FROM w"), "SELECT ts_dval(ts_dmod(amt, 3), 2) COLLATE ts_dec AS \"amt % 3\" FROM w");
        assert_eq!(rw("SELECT amt DIV q FROM w"), "SELECT ts_ddivi(amt, ts_nz(q, 1), 0) AS \"amt DIV q\" FROM w");
        assert_eq!(rw("SELECT ROUND(amt, -1) FROM w"), "SELECT ts_dval(ts_dround(amt, -1, 0, 'r'), 0) COLLATE ts_dec AS \"ROUND(amt, -1)\" FROM w");
        assert_eq!(rw("SELECT COALESCE(amt, 0) FROM w"), "SELECT ts_dval(COALESCE(amt, 0), 2) COLLATE ts_dec AS \"COALESCE(amt, 0)\" FROM w");
        // exact where it is compared too, as a double
        assert_eq!(rw("SELECT id FROM w WHERE amt % 3 > 1"), "SELECT id FROM w WHERE CAST(ts_dmod(amt, 3) AS REAL) > 1");
        // BIGINT UNSIGNED: checked arithmetic, values compared in the column's stored form
        assert_eq!(rw("SELECT u + 1 FROM w"), "SELECT ts_uop(u, 1, '+', '`sbtest`.`w`.`u` + 1') AS \"u + 1\" FROM w");
        assert_eq!(
            rw("SELECT id FROM w WHERE u = '5' OR 18446744073709551615 > u OR u IN (1, ?) OR u BETWEEN 2 AND '3'"),
            "SELECT id FROM w WHERE u = ts_u64v('5') OR ts_u64v('18446744073709551615') > u OR u IN (ts_u64v('1'), ts_u64v(?)) OR u BETWEEN ts_u64v('2') AND ts_u64v('3')"
        );
        // a CAST to an impossible DECIMAL is MariaDB's error
        assert_eq!(rewrite("SELECT CAST(amt AS DECIMAL(66,2)) FROM w", Kind::Select, &r).unwrap_err().code, 1426);
    }
}
