//! The calls the exact-number pass (`decimal.rs`) computes exactly, with
//! MySQL's result types (MariaDB 10.11's `fix_length_and_dec` rules):
//! ROUND and TRUNCATE (`ts_dround`), CEIL/CEILING and FLOOR (integers, or
//! DECIMAL past 18 digits), ABS, SIGN, MOD, CAST/CONVERT(x AS DECIMAL(p,s))
//! (`ts_dcast`, which clips and warns as MariaDB does), CAST(x AS
//! UNSIGNED/SIGNED) (`ts_ucast/ts_scast`, over BIGINT UNSIGNED's range), GREATEST and LEAST
//! (`ts_dgreatest/ts_dleast`, compared exactly), COALESCE, IFNULL, IF and
//! CASE (the type of their results together: the most integer digits and
//! the largest scale), SUM and AVG of DECIMAL (`ts_dsum/ts_davg`, also with
//! OVER), and MIN and MAX of a DECIMAL expression (compared by `ts_dec`).
//!
//! Each call becomes a `LeafKind::Pieces` node: the client's tokens it keeps
//! (a condition, a window clause) and the runs it computes exactly. A call
//! whose arguments are not all runs of known types, or whose result is not
//! exact, is left to SQLite as before.

use super::decimal::{over_end, LeafKind, Node, Pass, Piece, Ty, Want};
use turnstile_engine::SqlError;
use turnstile_sqltext::decimal::{DecType, MAX_PRECISION, MAX_SCALE};
use turnstile_sqltext::lex::Tok;

/// MariaDB's largest scale of a DECIMAL (DECIMAL_MAX_SCALE in 10.11).
const CAST_MAX_SCALE: u32 = 38;

impl Pass<'_> {
    /// A call `name(...)` at token `i` whose `(` closes at `close` (not
    /// past `to`), when this pass computes it: the node and the token after it.
    pub(super) fn call(&self, i: usize, close: usize, to: usize) -> Option<(Node, usize)> {
        let name = self.toks[i].ident()?.to_ascii_uppercase();
        let args = || self.arg_ranges(i + 1, close);
        match name.as_str() {
            "SUM" | "AVG" => self.sum_avg(i, close, to, name == "AVG"),
            "MIN" | "MAX" => self.min_max(i, close, to),
            "ROUND" | "TRUNCATE" => self.round(i, close, &args(), name == "TRUNCATE"),
            "CEIL" | "CEILING" | "FLOOR" => self.ceil_floor(i, close, &args(), name == "FLOOR"),
            "ABS" | "SIGN" => self.abs_sign(i, close, &args(), name == "SIGN"),
            "MOD" => {
                let a = args();
                let [(s1, e1), (s2, e2)] = a[..] else { return None };
                let (l, r) = (self.whole_run(s1, e1)?, self.whole_run(s2, e2)?);
                let ty = super::decimal::combine("%", l.ty(), r.ty());
                Some((Node::Bin { op: "%", l: Box::new(l), r: Box::new(r), ty }, close + 1))
            }
            "CAST" | "CONVERT" => self.cast(i, close),
            "GREATEST" | "LEAST" => self.greatest_least(i, close, &args(), name == "GREATEST"),
            "COALESCE" | "IFNULL" => self.hybrid(i, close, &args(), 0),
            "IF" => self.hybrid(i, close, &args(), 1),
            _ => None,
        }
    }

    /// The token ranges of the arguments between `(` at `open` and `)` at `close`.
    fn arg_ranges(&self, open: usize, close: usize) -> Vec<(usize, usize)> {
        let toks = self.toks;
        let mut out = Vec::new();
        let mut start = open + 1;
        loop {
            let end = super::store::top_level_end(toks, start, |e| toks[e].is_op(",")).min(close);
            out.push((start, end));
            if end >= close {
                return out;
            }
            start = end + 1;
        }
    }

    /// A leaf of pieces over tokens [s, e).
    fn pieces(s: usize, e: usize, ty: Ty, pieces: Vec<Piece>, int_length: Option<(u32, bool)>) -> Option<(Node, usize)> {
        Some((Node::Leaf { s, e, ty, kind: LeafKind::Pieces { pieces, int_length } }, e))
    }

    /// SUM(x) / AVG(x) [OVER ...]: of a DECIMAL, exact (`ts_dsum/ts_davg`);
    /// of integers, SQLite's own, typed DECIMAL as MySQL types it.
    fn sum_avg(&self, i: usize, close: usize, to: usize, avg: bool) -> Option<(Node, usize)> {
        let arg = self.whole_run(i + 2, close)?;
        let end = over_end(self.toks, close + 1, to).unwrap_or(close + 1);
        let exact = match arg.ty() {
            Ty::Dec(t) => Some(t),
            Ty::UBig => Some(DecType::integer(20)),
            _ => None,
        };
        if let Some(t) = exact {
            let ty = Ty::Dec(if avg { t.avg() } else { t.sum() });
            let f = if avg { "ts_davg(" } else { "ts_dsum(" };
            return Self::pieces(i, end, ty, vec![Piece::Raw(f.into()), Piece::Run(arg, Want::Exact), Piece::Raw(")".into()), Piece::Text(close + 1, end)], None);
        }
        match arg.ty() {
            Ty::Int(d) => {
                let t = DecType::integer(d);
                Some((Node::Leaf { s: i, e: end, ty: Ty::Dec(if avg { t.avg() } else { t.sum() }), kind: LeafKind::IntAggregate }, end))
            }
            _ => None,
        }
    }

    /// MIN(x) / MAX(x) [OVER ...] of a DECIMAL expression (not a plain
    /// column, which SQLite compares by its collation already): its exact
    /// text compared by `ts_dec`.
    fn min_max(&self, i: usize, close: usize, to: usize) -> Option<(Node, usize)> {
        let arg = self.whole_run(i + 2, close)?;
        let Ty::Dec(t) = arg.ty() else { return None };
        let end = over_end(self.toks, close + 1, to).unwrap_or(close + 1);
        if !matches!(arg, Node::Bin { .. } | Node::Neg { .. } | Node::Leaf { kind: LeafKind::Pieces { .. } | LeafKind::Paren(_) | LeafKind::DecLiteral, .. }) {
            // A column: SQLite's own, typed as the column (here for a window function).
            return (end > close + 1).then_some((Node::Leaf { s: i, e: end, ty: Ty::Dec(t), kind: LeafKind::IntAggregate }, end));
        }
        let name = self.text(i, i + 1);
        Self::pieces(i, end, Ty::Dec(t), vec![Piece::Raw(format!("{}(", name)), Piece::Run(arg, Want::Exact), Piece::Raw(" COLLATE ts_dec)".into()), Piece::Text(close + 1, end)], None)
    }

    /// ROUND(x[, n]) / TRUNCATE(x, n) of an exact x (MariaDB's
    /// Item_func_round::fix_arg_decimal and fix_arg_int).
    fn round(&self, i: usize, close: usize, args: &[(usize, usize)], truncate: bool) -> Option<(Node, usize)> {
        let (&(xs, xe), n) = args.split_first()?;
        if n.len() > 1 || truncate && n.is_empty() {
            return None;
        }
        let x = self.whole_run(xs, xe)?;
        let constant = match n.first() {
            None => Some(0),
            Some(&(ns, ne)) => self.integer_literal(ns, ne),
        };
        let n_text = n.first().map_or("0".to_string(), |&(ns, ne)| self.text(ns, ne));
        let mode = if truncate { "t" } else { "r" };
        let (ty, cap, int_length) = match (x.ty(), constant) {
            (Ty::Dec(t), Some(k)) => {
                let to = k.clamp(0, MAX_SCALE as i64) as u32;
                let delta = t.scale as i64 - to as i64;
                let increase = (delta > 0 && !truncate) as i64;
                let precision = (t.precision as i64 + increase - delta).clamp(1, MAX_PRECISION as i64) as u32;
                (Ty::Dec(DecType { precision: precision.max(to), scale: to }), to, None)
            }
            (Ty::Dec(t), None) => (Ty::Dec(t), t.scale, None),
            // An integer keeps its type (INT stays INT), or grows one digit.
            (Ty::Int(d), Some(k)) if k >= 0 || truncate => (Ty::Int(d), 0, Some((d + 1, d > 10))),
            (Ty::Int(d), _) => (Ty::Int(d + 1), 0, Some((d + 2, d + 2 > 9))),
            (Ty::UBig, Some(k)) if k >= 0 || truncate => (Ty::UBig, 0, Some((20, true))),
            (Ty::UBig, _) => (Ty::Dec(DecType::integer(21)), 0, None),
            _ => return None,
        };
        let pieces = vec![Piece::Raw("ts_dround(".into()), Piece::Run(x, Want::Exact), Piece::Raw(format!(", {}, {}, '{}')", n_text, cap, mode))];
        Self::pieces(i, close + 1, ty, pieces, int_length)
    }

    /// An integer literal (with an optional sign) filling tokens [s, e).
    fn integer_literal(&self, s: usize, e: usize) -> Option<i64> {
        let toks = self.toks;
        let (neg, at) = if toks[s].is_op("-") { (true, s + 1) } else { (false, s) };
        match toks.get(at).map(|t| &t.tok) {
            Some(Tok::Number(n)) if at + 1 == e && n.bytes().all(|b| b.is_ascii_digit()) => {
                let v = n.parse::<i64>().unwrap_or(i64::MAX);
                Some(if neg { -v } else { v })
            }
            _ => None,
        }
    }

    /// CEIL/CEILING/FLOOR(x) of a DECIMAL: an integer of MySQL's length
    /// (Item_func_int_val::fix_length_and_dec_int_or_decimal), or a DECIMAL
    /// past 18 digits.
    fn ceil_floor(&self, i: usize, close: usize, args: &[(usize, usize)], floor: bool) -> Option<(Node, usize)> {
        let [(xs, xe)] = args[..] else { return None };
        let x = self.whole_run(xs, xe)?;
        let Ty::Dec(t) = x.ty() else { return None };
        let precision = (t.precision - t.scale + (t.scale > 0) as u32).max(1);
        let (ty, int_length) = if precision > 18 { (Ty::Dec(DecType::integer(precision)), None) } else { (Ty::Int(precision), Some((precision + 1, precision > 9))) };
        let pieces = vec![Piece::Raw("ts_dround(".into()), Piece::Run(x, Want::Exact), Piece::Raw(format!(", 0, 0, '{}')", if floor { "f" } else { "c" }))];
        Self::pieces(i, close + 1, ty, pieces, int_length)
    }

    /// ABS(x) of a DECIMAL (its own type) and SIGN(x) (an INT of length 2).
    fn abs_sign(&self, i: usize, close: usize, args: &[(usize, usize)], sign: bool) -> Option<(Node, usize)> {
        let [(xs, xe)] = args[..] else { return None };
        let x = self.whole_run(xs, xe)?;
        let Ty::Dec(t) = x.ty() else { return None };
        let (f, ty, int_length) = if sign { ("ts_dsign(", Ty::Int(1), Some((2, false))) } else { ("ts_dabs(", Ty::Dec(t), None) };
        Self::pieces(i, close + 1, ty, vec![Piece::Raw(f.into()), Piece::Run(x, Want::Exact), Piece::Raw(")".into())], int_length)
    }

    /// CAST(x AS DECIMAL[(p[, s])]) / CONVERT(x, DECIMAL...): `ts_dcast`,
    /// typed DECIMAL(p, s). MariaDB's errors for a type it cannot make
    /// (1426, 1425, 1427) are kept in `self.error`.
    fn cast(&self, i: usize, close: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let convert = toks[i].is_kw("CONVERT");
        let sep = super::store::top_level_end(toks, i + 2, |j| if convert { toks[j].is_op(",") } else { toks[j].is_kw("AS") });
        if sep >= close || sep == i + 2 {
            return None;
        }
        if toks[sep + 1].is_kw("UNSIGNED") || toks[sep + 1].is_kw("SIGNED") {
            return self.cast_integer(i, sep, close);
        }
        if !(toks[sep + 1].is_kw("DECIMAL") || toks[sep + 1].is_kw("DEC")) || sep + 1 >= close {
            return None;
        }
        let numbers: Vec<u64> = toks[sep + 2..close].iter().filter_map(|t| if let Tok::Number(n) = &t.tok { Some(n.parse::<u64>().unwrap_or(u64::MAX)) } else { None }).collect();
        let shape_ok = match numbers.len() {
            0 => sep + 2 == close,
            1 => sep + 5 == close,
            _ => sep + 7 == close,
        };
        if !shape_ok || numbers.len() > 2 {
            return None;
        }
        let precision = match numbers.first() {
            Some(0) | None => 10,
            Some(&p) => p,
        };
        let scale = numbers.get(1).copied().unwrap_or(0);
        let arg_text = &self.sql[toks[i + 2].start..toks[sep - 1].end];
        if let Some(e) = cast_type_error(precision, scale, arg_text) {
            self.error.borrow_mut().get_or_insert(e);
            return None;
        }
        let ty = DecType { precision: precision as u32, scale: scale as u32 };
        let arg = match self.whole_run(i + 2, sep) {
            Some(x) => Piece::Run(x, Want::Exact),
            None => Piece::Text(i + 2, sep),
        };
        let name = &self.sql[toks[i].start..toks[close].end];
        let tail = format!(", {}, {}, {})", precision, scale, super::str_literal(name.as_bytes()));
        Self::pieces(i, close + 1, Ty::Dec(ty), vec![Piece::Raw("ts_dcast(".into()), arg, Piece::Raw(tail)], None)
    }

    /// CAST(x AS UNSIGNED|SIGNED [INTEGER]) (`sep`: the AS or comma):
    /// `ts_ucast/ts_scast`, MariaDB's 64-bit wrapping over BIGINT UNSIGNED's
    /// whole range (SQLite's CAST AS INTEGER stops at 2^63-1).
    fn cast_integer(&self, i: usize, sep: usize, close: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let unsigned = toks[sep + 1].is_kw("UNSIGNED");
        let tail = sep + 2 + (toks[sep + 2].is_kw("INTEGER") || toks[sep + 2].is_kw("INT")) as usize;
        if tail != close {
            return None;
        }
        if self.string_operand(i + 2, sep) {
            // A string is read by its leading digits, with MariaDB's warnings.
            let f = if unsigned { "ts_ucast_str(" } else { "ts_scast_str(" };
            let (ty, int_length) = if unsigned { (Ty::UBig, Some((20, true))) } else { (Ty::Int(19), None) };
            return Self::pieces(i, close + 1, ty, vec![Piece::Raw(f.into()), Piece::Text(i + 2, sep), Piece::Raw(")".into())], int_length);
        }
        let run = self.whole_run(i + 2, sep);
        // As long as its argument when that is longer (BIGINT UNSIGNED `u - 1`: 21).
        let length = match &run {
            Some(Node::Bin { op: "+" | "-" | "*", ty: Ty::UBig, .. }) => 21,
            _ => 20,
        };
        let arg = match run {
            Some(x) => Piece::Run(x, Want::Exact),
            None => Piece::Text(i + 2, sep),
        };
        let (f, ty, int_length) = if unsigned { ("ts_ucast(", Ty::UBig, Some((length, true))) } else { ("ts_scast(", Ty::Int(19), None) };
        Self::pieces(i, close + 1, ty, vec![Piece::Raw(f.into()), arg, Piece::Raw(")".into())], int_length)
    }

    /// GREATEST/LEAST of exact numbers with a DECIMAL among them, compared
    /// exactly; with a double among them, compared as doubles.
    fn greatest_least(&self, i: usize, close: usize, args: &[(usize, usize)], greatest: bool) -> Option<(Node, usize)> {
        let runs: Vec<Node> = args.iter().map(|&(s, e)| self.whole_run(s, e)).collect::<Option<_>>()?;
        let ty = hybrid_type(runs.iter().map(Node::ty))?;
        let (f, want) = match ty {
            Ty::Dec(_) => (if greatest { "ts_dgreatest(" } else { "ts_dleast(" }, Want::Exact),
            Ty::Double if runs.iter().any(|r| matches!(r.ty(), Ty::Dec(_) | Ty::UBig)) => (if greatest { "max(" } else { "min(" }, Want::Double),
            _ => return None,
        };
        let mut pieces = vec![Piece::Raw(f.into())];
        for (k, r) in runs.into_iter().enumerate() {
            if k > 0 {
                pieces.push(Piece::Raw(", ".into()));
            }
            pieces.push(Piece::Run(r, want));
        }
        pieces.push(Piece::Raw(")".into()));
        Self::pieces(i, close + 1, ty, pieces, None)
    }

    /// COALESCE/IFNULL(a, b, ...) (`skip` 0) and IF(cond, a, b) (`skip` 1:
    /// the condition is kept as it is): typed by their results together.
    fn hybrid(&self, i: usize, close: usize, args: &[(usize, usize)], skip: usize) -> Option<(Node, usize)> {
        if args.len() <= skip {
            return None;
        }
        let runs: Vec<Node> = args[skip..].iter().map(|&(s, e)| self.whole_run(s, e)).collect::<Option<_>>()?;
        let ty = hybrid_type(runs.iter().map(Node::ty))?;
        let want = match ty {
            Ty::Dec(_) => Want::Exact,
            Ty::Double if runs.iter().any(|r| matches!(r.ty(), Ty::Dec(_) | Ty::UBig)) => Want::Double,
            _ => return None,
        };
        let mut pieces = vec![Piece::Raw(format!("{}(", self.text(i, i + 1)))];
        if skip == 1 {
            pieces.push(Piece::Text(args[0].0, args[0].1));
        }
        for (k, r) in runs.into_iter().enumerate() {
            if k > 0 || skip == 1 {
                pieces.push(Piece::Raw(", ".into()));
            }
            pieces.push(Piece::Run(r, want));
        }
        pieces.push(Piece::Raw(")".into()));
        Self::pieces(i, close + 1, ty, pieces, None)
    }

    /// `CASE [v] WHEN c THEN r ... [ELSE r] END` at token `i`, typed by its
    /// results together; the operand and conditions are kept as they are.
    pub(super) fn case_expression(&self, i: usize, to: usize) -> Option<(Node, usize)> {
        let toks = self.toks;
        let (marks, end) = case_marks(toks, i, to)?;
        // Results: from each THEN or ELSE to the next mark.
        let mut results = Vec::new();
        for (k, &m) in marks.iter().enumerate() {
            if toks[m].is_kw("THEN") || toks[m].is_kw("ELSE") {
                let next = marks.get(k + 1).copied().unwrap_or(end);
                results.push((m, self.whole_run(m + 1, next)?, next));
            }
        }
        let ty = hybrid_type(results.iter().map(|(_, r, _)| r.ty()))?;
        let want = match ty {
            Ty::Dec(_) => Want::Exact,
            Ty::Double if results.iter().any(|(_, r, _)| matches!(r.ty(), Ty::Dec(_) | Ty::UBig)) => Want::Double,
            _ => return None,
        };
        let mut pieces = Vec::new();
        let mut at = i;
        for (m, r, next) in results {
            pieces.push(Piece::Text(at, m + 1));
            pieces.push(Piece::Run(r, want));
            at = next;
        }
        pieces.push(Piece::Text(at, end + 1));
        Self::pieces(i, end + 1, ty, pieces, None)
    }
}

/// The WHEN/THEN/ELSE tokens of the CASE at token `i` (not those of a CASE
/// nested in it) and its END.
fn case_marks(toks: &[turnstile_sqltext::lex::Token], i: usize, to: usize) -> Option<(Vec<usize>, usize)> {
    let mut marks = Vec::new();
    let (mut parens, mut cases) = (0usize, 0usize);
    for (k, t) in toks.iter().enumerate().take(to).skip(i + 1) {
        if t.is_op("(") {
            parens += 1;
        } else if t.is_op(")") {
            parens = parens.checked_sub(1)?;
        } else if parens > 0 {
            continue;
        } else if t.is_kw("CASE") {
            cases += 1;
        } else if t.is_kw("END") {
            if cases == 0 {
                return Some((marks, k));
            }
            cases -= 1;
        } else if cases == 0 && (t.is_kw("WHEN") || t.is_kw("THEN") || t.is_kw("ELSE")) {
            marks.push(k);
        }
    }
    None
}

/// The type of results taken together (COALESCE, IF, CASE, GREATEST):
/// NULLs take the others' type; a double makes a double; exact numbers
/// give the most integer digits and the largest scale. None when one is
/// not a number this pass knows.
fn hybrid_type(types: impl Iterator<Item = Ty>) -> Option<Ty> {
    let mut out: Option<Ty> = None;
    for t in types {
        out = Some(match (out, t) {
            (_, Ty::Other) => return None,
            (None, t) | (Some(Ty::Null), t) => t,
            (Some(o), Ty::Null) => o,
            (Some(Ty::Double), _) | (Some(_), Ty::Double) => Ty::Double,
            (Some(Ty::Int(a)), Ty::Int(b)) => Ty::Int(a.max(b)),
            (Some(Ty::UBig), Ty::UBig) => Ty::UBig,
            (Some(o), t) => {
                let (a, b) = (o.dec()?, t.dec()?);
                let scale = a.scale.max(b.scale);
                let int = (a.precision - a.scale).max(b.precision - b.scale);
                Ty::Dec(DecType::new(int + scale, scale))
            }
        });
    }
    out.filter(|t| *t != Ty::Null)
}

/// MariaDB's error for CAST to a DECIMAL type it cannot make, if any.
fn cast_type_error(precision: u64, scale: u64, arg: &str) -> Option<SqlError> {
    if precision > MAX_PRECISION as u64 {
        return Some(SqlError::new(1426, "42000", format!("Too big precision specified for '{}'. Maximum is {}", arg, MAX_PRECISION)));
    }
    if scale > CAST_MAX_SCALE as u64 {
        return Some(SqlError::new(1425, "42000", format!("Too big scale specified for '{}'. Maximum is {}", arg, CAST_MAX_SCALE)));
    }
    if scale > precision {
        return Some(SqlError::new(1427, "42000", "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')".to_string()));
    }
    None
}
