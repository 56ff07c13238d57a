//! A date or a time where a number is wanted, as MariaDB reads it: the
//! operand of arithmetic (`SEC_TO_TIME(9001) + 0` is 23001, `LAST_DAY(d) +
//! 0` 19971231, `MAX(time_col) + 1` hhmmss + 1) and the value of CAST(x AS
//! SIGNED / UNSIGNED / DECIMAL / DOUBLE) is the value's digits, where SQLite
//! would read the number at the start of its text (1997, 2).
//!
//! How: before the translation, each such operand whose MariaDB type is
//! DATE, DATETIME, TIMESTAMP or TIME (`expr_type::infer`, with the columns of
//! the tables the statement names) is wrapped in `ts_tnum(...)`, which turns
//! the value's canonical text into its number (functions/dates.rs). Only
//! wraps are inserted, so nested operands nest. Result columns keep the
//! names of the client's text (`rewrite` translates with them).
//!
//! Comparisons too: a date or time compared with a string or a number
//! compares as a date or time, not as text (a TIME column `= '10:20:31.000'`
//! matches 10:20:31, a DATE column `IN ('01-01-01')` matches 2001-01-01).
//! A literal compared with a temporal operand becomes `ts_tcanon(lit,
//! 'base', fsp)`, the canonical text the stored values have (so an index on
//! the column still serves); a temporal operand compared with a temporal
//! of another kind (a TIME with a DATETIME, a DATE with a DATETIME) or a
//! TIME with a TIME (whose text does not sort: '100:00:00' < '24:00:00') or
//! with a string expression: both become `ts_tcmp(x, 'time' | 'datetime',
//! is_time)`, a number that orders as the values do.
//!
//! A YEAR compared with a literal compares with the year the literal names
//! as a YEAR column stores it (`y = 99` is `y = 1999`, `y = '0'` is 2000,
//! `y = 1998.9` is 1999): the literal becomes `ts_ycanon(lit)`
//! (functions/temporal.rs).
//!
//! A TIME cast to a DATE or DATETIME (and given to UNIX_TIMESTAMP) is that
//! time on the current day, as MariaDB converts one (`CAST(TIME'800:20:30'
//! AS DATE)` is 33 days on): the operand becomes `ts_time_dt(x)`.
//!
//! And a TIME moved by an INTERVAL stays a TIME (`TIME'26:03:04' + INTERVAL 2
//! DAY` is 74:03:04, where DATE_ADD would read '26:03:04' as the date
//! 2026-03-04): `t + INTERVAL n unit` and `DATE_ADD(t, INTERVAL n unit)` of
//! a TIME operand become `ts_time_add(t, INTERVAL n unit)` (`ts_time_sub`),
//! whose INTERVAL the translation reads as DATE_ADD's.

use super::decimal::named_tables;
use super::Resolver;
use crate::schema::Base;
use turnstile_sqltext::expr_type::{infer, ColType, ExprType};
use turnstile_sqltext::lex::{Tok, Token};

/// Operators and CASTs one statement may have for this pass to look at them.
const MAX_CANDIDATES: usize = 1_000;

/// `sql` with its temporal operands of arithmetic and numeric CASTs wrapped
/// in `ts_tnum`; None when it has none.
pub(super) fn rewrite(sql: &str, toks: &[Token], resolver: &dyn Resolver) -> Option<String> {
    let candidates = toks
        .iter()
        .filter(|t| {
            arith(t)
                || t.is_kw("CAST")
                || t.is_kw("ADDTIME")
                || t.is_kw("SUBTIME")
                || HYBRIDS.iter().any(|f| t.is_kw(f))
                || t.is_kw("CASE")
                || is_comparison(t)
                || t.is_kw("IN")
                || t.is_kw("BETWEEN")
                || t.is_kw("INTERVAL")
                || t.is_kw("UNIX_TIMESTAMP")
        })
        .count();
    // Each candidate types its operand (a scan of it): past MAX_CANDIDATES
    // the statement is left as it is rather than take quadratic time
    // (100,000 nested CASTs took minutes; SQLite refuses such depth anyway).
    if candidates == 0 || candidates > MAX_CANDIDATES {
        return None;
    }
    let tables = named_tables(toks, resolver);
    let lookup = |qual: Option<&str>, name: &str| -> Option<ColType> {
        let mut found: Option<ColType> = None;
        for n in tables.iter().filter(|n| qual.is_none_or(|q| n.def.name.eq_ignore_ascii_case(q))) {
            let Some(cd) = n.def.column(name) else { continue };
            if matches!(cd.base, Base::LongText | Base::LongBlob) {
                return None;
            }
            let ct = ColType { base: cd.base, unsigned: cd.unsigned, length: cd.length, scale: cd.scale };
            if found.is_some_and(|f| f != ct) {
                return None;
            }
            found = Some(ct);
        }
        found
    };
    let typed = |s: usize, e: usize| -> Option<ExprType> { (s < e).then(|| infer(&sql[toks[s].start..toks[e - 1].end], &lookup)).flatten() };
    let temporal = |s: usize, e: usize| -> bool { matches!(typed(s, e), Some(ExprType::Temporal { .. })) };
    let mut wraps: Vec<Wrap> = Vec::new();
    // Tokens written otherwise: (index, text).
    let mut respelled: Vec<(usize, &'static str)> = Vec::new();
    let mut add = |w: Wrap| {
        if !wraps.iter().any(|o| o.s == w.s && o.e == w.e) {
            wraps.push(w);
        }
    };
    // `=` after SET (UPDATE, ON DUPLICATE KEY UPDATE) until a WHERE is an assignment.
    let mut assigning = false;
    for (i, t) in toks.iter().enumerate() {
        assigning = assigning_after(toks, i, assigning);
        let mut operands = Vec::new();
        if (t.is_op("+") || t.is_op("-")) && toks.get(i + 1).is_some_and(|n| n.is_kw("INTERVAL")) && is_binary(toks, i) {
            // TIME ± INTERVAL: ts_time_add(t, INTERVAL n unit).
            let (Some(s), Some(unit)) = (left_operand(toks, i), interval_unit(toks, i + 1)) else { continue };
            if matches!(typed(s, i), Some(ExprType::Temporal { base: Base::Time, .. })) {
                add(Wrap { s, e: unit + 1, open: if t.is_op("+") { "ts_time_add(" } else { "ts_time_sub(" }.into(), close: ")".into() });
                respelled.push((i, ","));
            }
            continue;
        }
        if ["DATE_ADD", "ADDDATE", "DATE_SUB", "SUBDATE"].iter().any(|f| t.is_kw(f)) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            // DATE_ADD(t, INTERVAL n unit) of a TIME: ts_time_add.
            if let Some(comma) = first_argument_end(toks, i + 1) {
                if toks.get(comma + 1).is_some_and(|n| n.is_kw("INTERVAL")) && matches!(typed(i + 2, comma), Some(ExprType::Temporal { base: Base::Time, .. })) {
                    respelled.push((i, if t.is_kw("DATE_ADD") || t.is_kw("ADDDATE") { "ts_time_add" } else { "ts_time_sub" }));
                }
            }
        }
        if (t.is_kw("ADDTIME") || t.is_kw("SUBTIME")) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            // ADDTIME(t, x) of a DATE, DATETIME or TIME: its fraction digits
            // as a third argument, which the function's value keeps.
            if let Some((comma, close)) = two_arguments(toks, i + 1) {
                if let Some(ExprType::Temporal { fsp, .. }) = typed(i + 2, comma) {
                    add(Wrap { s: comma + 1, e: close, open: String::new(), close: format!(", {}", fsp) });
                }
            }
        }
        if HYBRIDS.iter().any(|f| t.is_kw(f)) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            let mut args = argument_ranges(toks, i + 1);
            if t.is_kw("IF") && !args.is_empty() {
                args.remove(0);
            }
            time_beside_date(&args, &typed, &mut add);
        } else if t.is_kw("CASE") {
            time_beside_date(&case_values(toks, i), &typed, &mut add);
        }
        if arith(t) && is_binary(toks, i) {
            if let Some(s) = left_operand(toks, i) {
                operands.push((s, i));
            }
            let e = super::operators::operand_end(toks, i + 1, toks.len());
            if e > i + 1 && !toks[i + 1].is_op("-") && !toks[i + 1].is_op("+") {
                operands.push((i + 1, e));
            }
        } else if t.is_kw("CAST") && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            if let Some(as_at) = numeric_cast(toks, i + 1) {
                operands.push((i + 2, as_at));
            } else if let Some(as_at) = cast_as(toks, i + 1, &["DATE", "DATETIME", "TIMESTAMP"]) {
                if matches!(typed(i + 2, as_at), Some(ExprType::Temporal { base: Base::Time, .. })) {
                    add(Wrap { s: i + 2, e: as_at, open: "ts_time_dt(".into(), close: ")".into() });
                }
            }
        } else if t.is_kw("UNIX_TIMESTAMP") && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            if let Some(close) = sole_argument_end(toks, i + 1) {
                if matches!(typed(i + 2, close), Some(ExprType::Temporal { base: Base::Time, .. })) {
                    add(Wrap { s: i + 2, e: close, open: "ts_time_dt(".into(), close: ")".into() });
                }
            }
        } else if is_comparison(t) && is_binary(toks, i) && !(assigning && t.is_op("=")) {
            comparison(toks, i, &typed, &mut add);
        } else if t.is_kw("IN") || t.is_kw("BETWEEN") {
            let before = if i > 0 && toks[i - 1].is_kw("NOT") { i - 1 } else { i };
            let Some(ls) = left_operand(toks, before) else { continue };
            match typed(ls, before) {
                Some(ExprType::Temporal { base, fsp }) => literal_list(toks, i).into_iter().for_each(|(s, e)| add(canon(s, e, base, fsp))),
                Some(ExprType::Int { col: Some(Base::Year), .. }) => literal_list(toks, i).into_iter().for_each(|(s, e)| add(ycanon(s, e))),
                _ => {}
            }
        }
        for (s, e) in operands {
            if temporal(s, e) {
                add(Wrap { s, e, open: "ts_tnum(".into(), close: ")".into() });
            }
        }
    }
    if wraps.is_empty() && respelled.is_empty() {
        return None;
    }
    Some(apply_wraps(sql, toks, &wraps, &respelled))
}

/// `sql` with `wraps` inserted around their tokens and each token of
/// `respelled` written as its text (enum_numbers.rs writes its own too).
pub(super) fn apply_wraps(sql: &str, toks: &[Token], wraps: &[Wrap], respelled: &[(usize, &'static str)]) -> String {
    // At one offset: closes (the narrowest first), then opens (the widest
    // first), then a respelled token, whose own text is dropped.
    let mut events: Vec<(usize, u8, i64, usize, String)> = Vec::new();
    for w in wraps {
        let (a, b) = (toks[w.s].start, toks[w.e - 1].end);
        events.push((a, 1, -((b - a) as i64), a, w.open.clone()));
        events.push((b, 0, (b - a) as i64, b, w.close.clone()));
    }
    for &(k, text) in respelled {
        events.push((toks[k].start, 2, 0, toks[k].end, text.to_string()));
    }
    events.sort_by_key(|e| (e.0, e.1, e.2));
    let mut out = String::with_capacity(sql.len() + events.len() * 12);
    let mut at = 0;
    for (pos, _, _, resume, text) in events {
        out.push_str(&sql[at..pos.max(at)]);
        out.push_str(&text);
        at = resume.max(at);
    }
    out.push_str(&sql[at..]);
    out
}

/// Text around tokens `s..e`.
pub(super) struct Wrap {
    pub(super) s: usize,
    pub(super) e: usize,
    pub(super) open: String,
    pub(super) close: String,
}

pub(super) fn is_comparison(t: &Token) -> bool {
    matches!(&t.tok, Tok::Op(o) if matches!(&**o, "=" | "<>" | "!=" | "<" | "<=" | ">" | ">=" | "<=>"))
}

/// A literal a comparison converts: a string, a number, or a parameter
/// (exec/normalize.rs makes a statement's literals parameters).
fn is_literal(toks: &[Token], s: usize, e: usize) -> bool {
    e == s + 1 && matches!(toks[s].tok, Tok::Str(_) | Tok::Number(_) | Tok::Param)
}

/// The comparison at token `op`: its operands' types decide what, if
/// anything, is wrapped (see the module's comment).
fn comparison(toks: &[Token], op: usize, typed: &dyn Fn(usize, usize) -> Option<ExprType>, add: &mut dyn FnMut(Wrap)) {
    let Some(ls) = left_operand(toks, op) else { return };
    let re = super::operators::operand_end(toks, op + 1, toks.len());
    if re <= op + 1 {
        return;
    }
    // An operand that is part of a larger one (`b + a = x`): left alone.
    let bound = |k: Option<&Token>| k.is_some_and(|t| arith(t) || t.is_op("||") || t.is_op("^") || t.is_op("&") || t.is_op("|"));
    if bound(ls.checked_sub(1).map(|p| &toks[p])) || bound(toks.get(re)) {
        return;
    }
    let (lt, rt) = (typed(ls, op), typed(op + 1, re));
    let base = |t: &Option<ExprType>| match t {
        Some(ExprType::Temporal { base, fsp }) => Some((*base, *fsp)),
        _ => None,
    };
    let is_time = |b: Base| b == Base::Time;
    let year = |t: &Option<ExprType>| matches!(t, Some(ExprType::Int { col: Some(Base::Year), .. }));
    if year(&lt) && is_literal(toks, op + 1, re) {
        return add(ycanon(op + 1, re));
    }
    if year(&rt) && is_literal(toks, ls, op) {
        return add(ycanon(ls, op));
    }
    match (base(&lt), base(&rt)) {
        (Some((b, fsp)), None) if is_literal(toks, op + 1, re) => add(canon(op + 1, re, b, fsp)),
        (None, Some((b, fsp))) if is_literal(toks, ls, op) => add(canon(ls, op, b, fsp)),
        (Some((a, _)), Some((b, _))) if a != b || is_time(a) => {
            let mode = if is_time(a) && is_time(b) { "time" } else { "datetime" };
            add(cmp(ls, op, mode, is_time(a)));
            add(cmp(op + 1, re, mode, is_time(b)));
        }
        (Some((a, _)), None) if matches!(rt, Some(ExprType::Str { .. })) => {
            let mode = if is_time(a) { "time" } else { "datetime" };
            add(cmp(ls, op, mode, is_time(a)));
            add(cmp(op + 1, re, mode, false));
        }
        (None, Some((b, _))) if matches!(lt, Some(ExprType::Str { .. })) => {
            let mode = if is_time(b) { "time" } else { "datetime" };
            add(cmp(ls, op, mode, false));
            add(cmp(op + 1, re, mode, is_time(b)));
        }
        _ => {}
    }
}

/// The literals an IN list (`IN ('a', 'b')`) or a BETWEEN (`BETWEEN 'a' AND
/// 'b'`) at token `at` compares with: each as (start, end) tokens.
pub(super) fn literal_list(toks: &[Token], at: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if toks[at].is_kw("BETWEEN") {
        if toks.get(at + 2).is_some_and(|t| t.is_kw("AND")) {
            out.push((at + 1, at + 2));
            out.push((at + 3, at + 4));
        }
    } else if toks.get(at + 1).is_some_and(|t| t.is_op("(")) {
        let mut k = at + 2;
        while k + 1 < toks.len() && (toks[k + 1].is_op(",") || toks[k + 1].is_op(")")) {
            out.push((k, k + 1));
            if toks[k + 1].is_op(")") {
                return out.into_iter().filter(|&(s, e)| is_literal(toks, s, e)).collect();
            }
            k += 2;
        }
        return Vec::new();
    }
    out.into_iter().filter(|&(s, e)| e <= toks.len() && is_literal(toks, s, e)).collect()
}

fn base_name(b: Base) -> &'static str {
    match b {
        Base::Date => "date",
        Base::Time => "time",
        _ => "datetime",
    }
}

fn canon(s: usize, e: usize, b: Base, fsp: u8) -> Wrap {
    Wrap { s, e, open: "ts_tcanon(".into(), close: format!(", '{}', {})", base_name(b), fsp) }
}

fn ycanon(s: usize, e: usize) -> Wrap {
    Wrap { s, e, open: "ts_ycanon(".into(), close: ")".into() }
}

fn cmp(s: usize, e: usize, mode: &str, is_time: bool) -> Wrap {
    Wrap { s, e, open: "ts_tcmp(".into(), close: format!(", '{}', {})", mode, u8::from(is_time)) }
}

/// The unit token of the INTERVAL at `at` (`INTERVAL n unit`).
fn interval_unit(toks: &[Token], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(at + 1) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && k > at + 1 && super::interval::INTERVAL_UNITS.iter().any(|u| t.is_kw(u)) {
            return Some(k);
        } else if depth == 0 && t.is_op(",") {
            return None;
        }
    }
    None
}

/// The `,` ending the first argument of the call whose `(` is at `open`.
fn first_argument_end(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return None;
            }
        } else if depth == 1 && t.is_op(",") {
            return (k > open + 1).then_some(k);
        }
    }
    None
}

/// An arithmetic operator (`+ - * / %`, DIV, MOD).
pub(super) fn arith(t: &Token) -> bool {
    match &t.tok {
        Tok::Op(o) => matches!(&**o, "+" | "-" | "*" | "/" | "%"),
        _ => t.is_kw("DIV") || t.is_kw("MOD"),
    }
}

/// Whether the operator at `i` has a left operand (`a - b`, not `-b`).
pub(super) fn is_binary(toks: &[Token], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else { return false };
    match &prev.tok {
        Tok::Op(o) => &**o == ")",
        Tok::Number(_) | Tok::Str(_) | Tok::Param | Tok::UserVar(_) | Tok::SysVar(..) => true,
        _ => {
            prev.ident().is_some()
                && !matches!(
                    prev.ident().map(|w| w.to_ascii_uppercase()).as_deref(),
                    Some(
                        "SELECT"
                            | "WHERE"
                            | "AND"
                            | "OR"
                            | "NOT"
                            | "ON"
                            | "BY"
                            | "WHEN"
                            | "THEN"
                            | "ELSE"
                            | "SET"
                            | "HAVING"
                            | "RETURN"
                            | "AS"
                            | "IN"
                            | "IS"
                            | "LIKE"
                            | "BETWEEN"
                            | "DISTINCT"
                            | "ALL"
                            | "INTERVAL"
                    )
                )
        }
    }
}

/// The first token of the primary ending just before the operator at `op`:
/// a call `f(...)`, a parenthesised expression, or a (qualified) name.
pub(super) fn left_operand(toks: &[Token], op: usize) -> Option<usize> {
    let mut k = op.checked_sub(1)?;
    if toks[k].is_op(")") {
        let mut depth = 0usize;
        loop {
            if toks[k].is_op(")") {
                depth += 1;
            } else if toks[k].is_op("(") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            k = k.checked_sub(1)?;
        }
        if k > 0 && toks[k - 1].ident().is_some() && !toks[k - 1].is_kw("IN") {
            k -= 1;
        }
        return Some(k);
    }
    toks[k].ident()?;
    while k >= 2 && toks[k - 1].is_op(".") && toks[k - 2].ident().is_some() {
        k -= 2;
    }
    Some(k)
}

/// Functions whose value is one of their arguments, in their common type.
const HYBRIDS: [&str; 6] = ["COALESCE", "IFNULL", "NVL", "IF", "GREATEST", "LEAST"];

/// The values (token ranges) of a call of `HYBRIDS` or a CASE: when they
/// are a TIME beside a DATE or a DATETIME the result is a DATETIME, as
/// MariaDB makes it: the TIME that time on the current day
/// (`ts_time_dt`), each value a datetime text with the values' most
/// fraction digits (`ts_tcanon`), so the value, CONCAT of it and a
/// comparison of two are MariaDB's.
fn time_beside_date(args: &[(usize, usize)], typed: &dyn Fn(usize, usize) -> Option<ExprType>, add: &mut dyn FnMut(Wrap)) {
    let mut kinds = Vec::with_capacity(args.len());
    let (mut time, mut date, mut fsp) = (false, false, 0);
    for &(s, e) in args {
        match typed(s, e) {
            Some(ExprType::Temporal { base, fsp: f }) => {
                fsp = fsp.max(f);
                time |= base == Base::Time;
                date |= base != Base::Time;
                kinds.push(Some(base == Base::Time));
            }
            Some(ExprType::Null) => kinds.push(None),
            _ => return,
        }
    }
    if !(time && date) {
        return;
    }
    for (&(s, e), kind) in args.iter().zip(kinds) {
        match kind {
            Some(true) => add(Wrap { s, e, open: "ts_tcanon(ts_time_dt(".into(), close: format!("), 'datetime', {})", fsp) }),
            Some(false) => add(Wrap { s, e, open: "ts_tcanon(".into(), close: format!(", 'datetime', {})", fsp) }),
            None => {}
        }
    }
}

/// The token ranges of the values (THEN and ELSE) of the CASE at `at`
/// (none when it does not end).
fn case_values(toks: &[Token], at: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut parens, mut cases) = (0usize, 0usize);
    let mut start: Option<usize> = None;
    for (k, t) in toks.iter().enumerate().skip(at + 1) {
        if t.is_op("(") {
            parens += 1;
        } else if t.is_op(")") {
            if parens == 0 {
                return Vec::new();
            }
            parens -= 1;
        } else if parens > 0 {
        } else if t.is_kw("CASE") {
            cases += 1;
        } else if t.is_kw("END") && cases > 0 {
            cases -= 1;
        } else if cases == 0 && (t.is_kw("WHEN") || t.is_kw("ELSE") || t.is_kw("END")) {
            if let Some(s) = start.take() {
                if k > s {
                    out.push((s, k));
                }
            }
            if t.is_kw("END") {
                return out;
            }
            if t.is_kw("ELSE") {
                start = Some(k + 1);
            }
        } else if cases == 0 && t.is_kw("THEN") {
            start = Some(k + 1);
        }
    }
    Vec::new()
}

/// The token ranges of the arguments of the call whose `(` is at `open`
/// (none when it does not close).
pub(super) fn argument_ranges(toks: &[Token], open: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                if k > start {
                    out.push((start, k));
                }
                return out;
            }
        } else if depth == 1 && t.is_op(",") {
            out.push((start, k));
            start = k + 1;
        }
    }
    Vec::new()
}

/// For a call's `(` at `open` with exactly two arguments: the index of the
/// comma between them and of its `)`.
fn two_arguments(toks: &[Token], open: usize) -> Option<(usize, usize)> {
    let comma = first_argument_end(toks, open)?;
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(comma + 1) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                return (k > comma + 1).then_some((comma, k));
            }
            depth -= 1;
        } else if depth == 0 && t.is_op(",") {
            return None;
        }
    }
    None
}

/// For `CAST(` at `open`: the index of its top-level AS when the target is
/// a number (SIGNED, UNSIGNED, INTEGER, DECIMAL, DOUBLE, FLOAT, REAL).
pub(super) fn numeric_cast(toks: &[Token], open: usize) -> Option<usize> {
    cast_as(toks, open, &["SIGNED", "UNSIGNED", "INTEGER", "INT", "DECIMAL", "DEC", "DOUBLE", "FLOAT", "REAL"])
}

/// The `)` closing the call whose `(` is at `open` when it has one argument.
fn sole_argument_end(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return (k > open + 1).then_some(k);
            }
        } else if depth == 1 && t.is_op(",") {
            return None;
        }
    }
    None
}

/// For `CAST(` at `open`: the index of its top-level AS when the target is
/// one of `targets`.
fn cast_as(toks: &[Token], open: usize, targets: &[&str]) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return None;
            }
        } else if depth == 1 && t.is_kw("AS") {
            let target = toks.get(k + 1)?;
            return (targets.iter().any(|w| target.is_kw(w)) && k > open + 1).then_some(k);
        }
    }
    None
}

/// Whether `=` at token `i` and after is an assignment: from SET (UPDATE,
/// ON DUPLICATE KEY UPDATE) until WHERE, SELECT, ON, HAVING or WHEN;
/// `before` is the answer for the token before.
pub(super) fn assigning_after(toks: &[Token], i: usize, before: bool) -> bool {
    let t = &toks[i];
    if t.is_kw("SET") || (t.is_kw("UPDATE") && i >= 2 && toks[i - 1].is_kw("KEY")) {
        true
    } else if ["WHERE", "SELECT", "ON", "HAVING", "WHEN"].iter().any(|k| t.is_kw(k)) {
        false
    } else {
        before
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::rewrite;
    use turnstile_sqltext::lex::tokenize;

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &tokenize(sql).unwrap(), &resolver())
    }

    #[test]
    fn temporal_operands_become_numbers() {
        assert_eq!(run("SELECT sec_to_time(9001)+0").as_deref(), Some("SELECT ts_tnum(sec_to_time(9001))+0"));
        assert_eq!(run("SELECT 1 + last_day('1997-12-1') * 2").as_deref(), Some("SELECT 1 + ts_tnum(last_day('1997-12-1')) * 2"));
        assert_eq!(run("SELECT CAST(DATE('2001-01-01') AS SIGNED)").as_deref(), Some("SELECT CAST(ts_tnum(DATE('2001-01-01')) AS SIGNED)"));
        assert_eq!(run("SELECT sec_to_time(9001) + sec_to_time(1)").as_deref(), Some("SELECT ts_tnum(sec_to_time(9001)) + ts_tnum(sec_to_time(1))"));
        assert_eq!(run("SELECT CAST(DATE('2001-01-01') AS CHAR)"), None);
        assert_eq!(run("SELECT a + 1, 'x' + 0, -sec_to_time(1) FROM t"), None);
        assert_eq!(run("SELECT date_format(now(), '%Y') + 0"), None);
        assert_eq!(run("SELECT CAST('10:20:30' AS TIME) = '10:20:30.000'").as_deref(), Some("SELECT CAST('10:20:30' AS TIME) = ts_tcanon('10:20:30.000', 'time', 0)"));
        assert_eq!(
            run("SELECT CAST('100:55:50' AS TIME) < CAST('24:00:00' AS TIME)").as_deref(),
            Some("SELECT ts_tcmp(CAST('100:55:50' AS TIME), 'time', 1) < ts_tcmp(CAST('24:00:00' AS TIME), 'time', 1)")
        );
        assert_eq!(
            run("SELECT DATE('2001-01-01') = CAST('2001-01-01 00:00:00' AS DATETIME)").as_deref(),
            Some("SELECT ts_tcmp(DATE('2001-01-01'), 'datetime', 0) = ts_tcmp(CAST('2001-01-01 00:00:00' AS DATETIME), 'datetime', 0)")
        );
        assert_eq!(run("SELECT 1 = 1, 'a' = 'b'"), None);
        assert_eq!(run("SELECT TIME('1 02:03:04') + interval 9 microsecond").as_deref(), Some("SELECT ts_time_add(TIME('1 02:03:04') , interval 9 microsecond)"));
        assert_eq!(run("SELECT DATE_SUB(TIME('10:00'), INTERVAL '1:1' MINUTE_SECOND)").as_deref(), Some("SELECT ts_time_sub(TIME('10:00'), INTERVAL '1:1' MINUTE_SECOND)"));
        assert_eq!(run("SELECT DATE('2001-01-01') + INTERVAL 1 DAY"), None);
        assert_eq!(run("UPDATE t SET x = CAST('10:00' AS TIME) = '10:00'").as_deref(), None);
        assert_eq!(
            run("SELECT DATE('2001-01-01') IN ('01-01-01', 2) AND DATE(x) NOT BETWEEN '1' AND '2'").as_deref(),
            Some("SELECT DATE('2001-01-01') IN (ts_tcanon('01-01-01', 'date', 0), ts_tcanon(2, 'date', 0)) AND DATE(x) NOT BETWEEN ts_tcanon('1', 'date', 0) AND ts_tcanon('2', 'date', 0)")
        );
    }

    #[test]
    fn a_time_beside_a_date_is_a_datetime() {
        assert_eq!(
            run("SELECT COALESCE(TIME'10:20:30', DATE'2001-01-01')").as_deref(),
            Some("SELECT COALESCE(ts_tcanon(ts_time_dt(TIME'10:20:30'), 'datetime', 0), ts_tcanon(DATE'2001-01-01', 'datetime', 0))")
        );
        assert_eq!(
            run("SELECT IF(1, TIME('10:00:00.5'), NULL), CASE WHEN 1 THEN DATE('2001-01-01') ELSE TIME('10:00:00') END").as_deref(),
            Some("SELECT IF(1, TIME('10:00:00.5'), NULL), CASE WHEN 1 THEN ts_tcanon(DATE('2001-01-01'), 'datetime', 0) ELSE ts_tcanon(ts_time_dt(TIME('10:00:00')), 'datetime', 0) END")
        );
        assert_eq!(run("SELECT COALESCE(TIME'10:20:30', TIME'11:00:00'), IFNULL(DATE'2001-01-01', 'x')"), None);
        // A call that does not close is left alone.
        assert_eq!(run("SELECT COALESCE(TIME'10:20:30', DATE'2001-01-01'"), None);
    }

    #[test]
    fn addtime_of_a_temporal_says_its_digits() {
        assert_eq!(run("SELECT ADDTIME(TIME'10:00:00.5', '1:00:00')").as_deref(), Some("SELECT ADDTIME(TIME'10:00:00.5', '1:00:00', 1)"));
        assert_eq!(run("SELECT ADDTIME('10:00:00', '1:00:00'), SUBTIME(1, 2, 3)"), None);
    }
}

#[cfg(test)]
mod column_tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::rewrite;
    use std::sync::Arc;
    use turnstile_sqltext::lex::tokenize;

    #[test]
    fn columns_are_typed() {
        let r = TestResolver(vec![Arc::new(table_def("CREATE TABLE tt (t TIME, d DATE, dt DATETIME(3))"))]);
        let run = |sql: &str| rewrite(sql, &tokenize(sql).unwrap(), &r);
        assert_eq!(run("SELECT t FROM tt WHERE t = '10:20:31.000'").as_deref(), Some("SELECT t FROM tt WHERE t = ts_tcanon('10:20:31.000', 'time', 0)"));
        assert_eq!(
            run("SELECT t FROM tt WHERE d IN (?, ?) AND dt > ?").as_deref(),
            Some("SELECT t FROM tt WHERE d IN (ts_tcanon(?, 'date', 0), ts_tcanon(?, 'date', 0)) AND dt > ts_tcanon(?, 'datetime', 3)")
        );
        assert_eq!(run("SELECT t + 0, d - 1 FROM tt").as_deref(), Some("SELECT ts_tnum(t) + 0, ts_tnum(d) - 1 FROM tt"));
        // A TIME made a date: that time today.
        assert_eq!(run("SELECT CAST(t AS DATETIME), UNIX_TIMESTAMP(t) FROM tt").as_deref(), Some("SELECT CAST(ts_time_dt(t) AS DATETIME), UNIX_TIMESTAMP(ts_time_dt(t)) FROM tt"));
        assert_eq!(run("SELECT CAST(d AS DATETIME), UNIX_TIMESTAMP(d) FROM tt"), None);
    }

    #[test]
    fn year_literals_are_years() {
        let r = TestResolver(vec![Arc::new(table_def("CREATE TABLE ty (y YEAR, n INT)"))]);
        let run = |sql: &str| rewrite(sql, &tokenize(sql).unwrap(), &r);
        assert_eq!(run("SELECT y FROM ty WHERE y = 99 OR y <> '0'").as_deref(), Some("SELECT y FROM ty WHERE y = ts_ycanon(99) OR y <> ts_ycanon('0')"));
        assert_eq!(
            run("SELECT y FROM ty WHERE y IN (1, ?) OR y BETWEEN 70 AND 80").as_deref(),
            Some("SELECT y FROM ty WHERE y IN (ts_ycanon(1), ts_ycanon(?)) OR y BETWEEN ts_ycanon(70) AND ts_ycanon(80)")
        );
        assert_eq!(run("SELECT y FROM ty WHERE n = 99 AND y = n"), None);
    }
}
