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

use super::decimal::named_tables;
use super::Resolver;
use crate::schema::Base;
use turnstile_sqltext::expr_type::{infer, ColType, ExprType};
use turnstile_sqltext::lex::{Tok, Token};

/// `sql` with its temporal operands of arithmetic and numeric CASTs wrapped
/// in `ts_tnum`; None when it has none.
pub(super) fn rewrite(sql: &str, toks: &[Token], resolver: &dyn Resolver) -> Option<String> {
    if !toks.iter().any(|t| arith(toks, t) || t.is_kw("CAST")) {
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
    let temporal = |s: usize, e: usize| -> bool { s < e && matches!(infer(&sql[toks[s].start..toks[e - 1].end], &lookup), Some(ExprType::Temporal { .. })) };
    let mut wraps: Vec<(usize, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let mut operands = Vec::new();
        if arith(&toks[..], t) && is_binary(toks, i) {
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
            }
        }
        for (s, e) in operands {
            if !wraps.contains(&(s, e)) && temporal(s, e) {
                wraps.push((s, e));
            }
        }
    }
    if wraps.is_empty() {
        return None;
    }
    let mut inserts: Vec<(usize, bool)> = wraps.iter().flat_map(|&(s, e)| [(toks[s].start, true), (toks[e - 1].end, false)]).collect();
    // At one offset, a wrap's end goes before another's start.
    inserts.sort_by_key(|&(at, open)| (at, open));
    let mut out = String::with_capacity(sql.len() + inserts.len() * 8);
    let mut at = 0;
    for (pos, open) in inserts {
        out.push_str(&sql[at..pos]);
        out.push_str(if open { "ts_tnum(" } else { ")" });
        at = pos;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// An arithmetic operator (`+ - * / %`, DIV, MOD).
fn arith(_: &[Token], t: &Token) -> bool {
    match &t.tok {
        Tok::Op(o) => matches!(&**o, "+" | "-" | "*" | "/" | "%"),
        _ => t.is_kw("DIV") || t.is_kw("MOD"),
    }
}

/// Whether the operator at `i` has a left operand (`a - b`, not `-b`).
fn is_binary(toks: &[Token], i: usize) -> bool {
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
fn left_operand(toks: &[Token], op: usize) -> Option<usize> {
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

/// For `CAST(` at `open`: the index of its top-level AS when the target is
/// a number (SIGNED, UNSIGNED, INTEGER, DECIMAL, DOUBLE, FLOAT, REAL).
fn numeric_cast(toks: &[Token], open: usize) -> Option<usize> {
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
            let numeric = ["SIGNED", "UNSIGNED", "INTEGER", "INT", "DECIMAL", "DEC", "DOUBLE", "FLOAT", "REAL"].iter().any(|w| target.is_kw(w));
            return (numeric && k > open + 1).then_some(k);
        }
    }
    None
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
    }
}
