//! An ENUM or SET column where MariaDB reads it as a number: an ENUM is its
//! member's 1-based index (0 for the '' error value), a SET the bitmask of
//! its members. The column stores its members' text, so where SQLite would
//! read that text (`e + 0` is 0, `e = 3` compares '3' with the text) the
//! statement says what MariaDB means (functions/enum_set.rs):
//!
//! - an operand of arithmetic (`e + 0`, `-e`), of a numeric CAST, of SUM,
//!   AVG and the numeric functions (`NUMERIC_CALLS`), an ORDER BY item,
//!   and a comparison with a numeric expression: `ts_enum_num(e, member...)`
//!   (`ts_set_num`), its number; a GROUP BY item is grouped by its number
//!   and then itself (the same groups, in MariaDB's order);
//! - a number or parameter compared for equality with the column (`e = 3`,
//!   `e IN (1, ?)`, `CASE e WHEN 3`): `ts_enum_lit(3, member...)`, the text
//!   of the member it indexes, so the comparison stays a plain one (the
//!   column's index still serves; a string literal is left as it is, and
//!   a parameter that is a string passes through unchanged);
//! - an ordering comparison with a parameter (`e < ?`), whose kind is known
//!   only when it runs: one call, `ts_enum_cmp(e, ?, '<', flags, member...)`.
//!
//! A column is one when it is a bare (qualified) name that every table the
//! statement names with that column calls an ENUM (or SET) of the same
//! members. Only wraps are inserted (temporal_numbers.rs splices them), and
//! the result columns keep the names of the client's text.

use super::decimal::named_tables;
use super::temporal_numbers::{apply_wraps, argument_ranges, arith, is_binary, is_comparison, left_operand, literal_list, numeric_cast, Wrap};
use super::Resolver;
use crate::schema::{sq_str, Base, ColumnDef};
use turnstile_sqltext::expr_type::{infer, ColType, ExprType};
use turnstile_sqltext::lex::{Tok, Token};

/// Operators, calls and clauses one statement may have for this pass to look at them.
const MAX_CANDIDATES: usize = 1_000;

/// Calls whose (first) argument MariaDB reads as a number.
const NUMERIC_CALLS: [&str; 16] = ["SUM", "AVG", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "ABS", "FLOOR", "CEIL", "CEILING", "ROUND", "TRUNCATE", "SIGN"];

/// `sql` with its ENUM and SET columns in numeric context as numbers; None
/// when it has none.
pub(super) fn rewrite(sql: &str, toks: &[Token], resolver: &dyn Resolver) -> Option<String> {
    let tables = named_tables(toks, resolver);
    if !tables.iter().any(|n| n.def.columns.iter().any(|c| matches!(c.base, Base::Enum | Base::Set))) {
        return None;
    }
    let candidates =
        toks.iter().filter(|t| arith(t) || is_comparison(t) || t.is_kw("CAST") || t.is_kw("IN") || t.is_kw("CASE") || t.is_kw("ORDER") || NUMERIC_CALLS.iter().any(|f| t.is_kw(f))).count();
    // Each candidate scans an operand: past MAX_CANDIDATES the statement is
    // left as it is rather than take quadratic time.
    if candidates == 0 || candidates > MAX_CANDIDATES {
        return None;
    }
    // The ENUM or SET column tokens [s, e) name, if they are one.
    let column = |s: usize, e: usize| -> Option<&ColumnDef> {
        let (qual, name) = match e.checked_sub(s)? {
            1 => (None, toks[s].ident()?),
            3 if toks[s + 1].is_op(".") => (Some(toks[s].ident()?), toks[s + 2].ident()?),
            5 if toks[s + 1].is_op(".") && toks[s + 3].is_op(".") => (Some(toks[s + 2].ident()?), toks[s + 4].ident()?),
            _ => return None,
        };
        if toks.get(e).is_some_and(|t| t.is_op("(") || t.is_op(".")) || (s > 0 && toks[s - 1].is_op(".")) {
            return None;
        }
        // A qualifier that names a table picks it; an alias: any table.
        let by_name = qual.filter(|q| tables.iter().any(|n| n.def.name.eq_ignore_ascii_case(q)));
        let mut found: Option<&ColumnDef> = None;
        for n in tables.iter().filter(|n| by_name.is_none_or(|q| n.def.name.eq_ignore_ascii_case(q))) {
            let Some(cd) = n.def.column(name) else { continue };
            if !matches!(cd.base, Base::Enum | Base::Set) || found.is_some_and(|f| f.base != cd.base || f.members != cd.members) {
                return None;
            }
            found = Some(cd);
        }
        found
    };
    let lookup = |qual: Option<&str>, name: &str| -> Option<ColType> {
        let mut out: Option<ColType> = None;
        for n in tables.iter().filter(|n| qual.is_none_or(|q| n.def.name.eq_ignore_ascii_case(q))) {
            let Some(cd) = n.def.column(name) else { continue };
            let ct = ColType { base: cd.base, unsigned: cd.unsigned, length: cd.length, scale: cd.scale };
            if out.is_some_and(|f| f != ct) {
                return None;
            }
            out = Some(ct);
        }
        out
    };
    let numeric = |s: usize, e: usize| -> bool {
        s < e && matches!(infer(&sql[toks[s].start..toks[e - 1].end], &lookup), Some(ExprType::Int { .. } | ExprType::Decimal { .. } | ExprType::Double { .. } | ExprType::Float))
    };
    let mut wraps: Vec<Wrap> = Vec::new();
    let mut respelled: Vec<(usize, &'static str)> = Vec::new();
    let mut add = |w: Wrap| {
        if !wraps.iter().any(|o| o.s == w.s && o.e == w.e) {
            wraps.push(w);
        }
    };
    let has_union = toks.iter().any(|t| t.is_kw("UNION") || t.is_kw("INTERSECT") || t.is_kw("EXCEPT"));
    // Names given with AS (select-list aliases): ORDER BY such a name names
    // that, not the column. Gathered once (ORDER BY may list many items).
    let aliases: std::collections::HashSet<String> = toks.windows(2).filter(|w| w[0].is_kw("AS")).filter_map(|w| w[1].ident()).map(|n| n.to_ascii_lowercase()).collect();
    let mut assigning = false;
    for (i, t) in toks.iter().enumerate() {
        assigning = super::temporal_numbers::assigning_after(toks, i, assigning);
        if arith(t) {
            if is_binary(toks, i) {
                if let Some(s) = left_operand(toks, i) {
                    if let Some(cd) = column(s, i) {
                        add(number(s, i, cd));
                    }
                }
            }
            let e = super::operators::operand_end(toks, i + 1, toks.len());
            if let Some(cd) = column(i + 1, e) {
                add(number(i + 1, e, cd));
            }
        } else if t.is_kw("CAST") && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            if let Some(as_at) = numeric_cast(toks, i + 1) {
                if let Some(cd) = column(i + 2, as_at) {
                    add(number(i + 2, as_at, cd));
                }
            }
        } else if NUMERIC_CALLS.iter().any(|f| t.is_kw(f)) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) {
            if let Some(&(s, e)) = argument_ranges(toks, i + 1).first() {
                let s = if toks[s].is_kw("DISTINCT") || toks[s].is_kw("ALL") { s + 1 } else { s };
                if let Some(cd) = column(s, e) {
                    add(number(s, e, cd));
                }
            }
        } else if is_comparison(t) && is_binary(toks, i) && !(assigning && t.is_op("=")) {
            comparison(toks, i, &column, &numeric, &mut add, &mut respelled);
        } else if t.is_kw("IN") {
            let before = if i > 0 && toks[i - 1].is_kw("NOT") { i - 1 } else { i };
            let Some(ls) = left_operand(toks, before) else { continue };
            if let Some(cd) = column(ls, before) {
                literal_list(toks, i).into_iter().filter(|&(s, _)| matches!(toks[s].tok, Tok::Number(_) | Tok::Param)).for_each(|(s, e)| add(literal(s, e, cd)));
            }
        } else if t.is_kw("CASE") {
            case_whens(toks, i, &column, &mut add);
        } else if (t.is_kw("ORDER") || t.is_kw("GROUP")) && toks.get(i + 1).is_some_and(|n| n.is_kw("BY")) && !has_union {
            for (s, e) in order_items(toks, i + 2) {
                if let Some(cd) = column(s, e).filter(|_| toks[e - 1].ident().is_none_or(|n| !aliases.contains(&n.to_ascii_lowercase()))) {
                    match t.is_kw("GROUP") {
                        // MariaDB's groups come in the order of their key:
                        // grouped by the number, then the value (the same groups).
                        true => add(Wrap { s, e, open: number(s, e, cd).open, close: format!("{}), {}", members(cd), &sql[toks[s].start..toks[e - 1].end]) }),
                        false => add(number(s, e, cd)),
                    }
                }
            }
        }
    }
    if wraps.is_empty() {
        return None;
    }
    Some(apply_wraps(sql, toks, &wraps, &respelled))
}

/// The members of `cd` as SQL arguments: `, 'a', 'b'`.
fn members(cd: &ColumnDef) -> String {
    cd.members.iter().map(|m| format!(", {}", sq_str(m))).collect()
}

fn is_set(cd: &ColumnDef) -> bool {
    cd.base == Base::Set
}

/// Tokens [s, e), the column `cd`, as its number.
fn number(s: usize, e: usize, cd: &ColumnDef) -> Wrap {
    Wrap { s, e, open: if is_set(cd) { "ts_set_num(" } else { "ts_enum_num(" }.into(), close: format!("{})", members(cd)) }
}

/// Tokens [s, e), a literal compared for equality with `cd`, as the text it names.
fn literal(s: usize, e: usize, cd: &ColumnDef) -> Wrap {
    Wrap { s, e, open: if is_set(cd) { "ts_set_lit(" } else { "ts_enum_lit(" }.into(), close: format!("{})", members(cd)) }
}

/// The comparison at token `op` (see the module's comment).
fn comparison<'a>(
    toks: &[Token],
    op: usize,
    column: &dyn Fn(usize, usize) -> Option<&'a ColumnDef>,
    numeric: &dyn Fn(usize, usize) -> bool,
    add: &mut dyn FnMut(Wrap),
    respelled: &mut Vec<(usize, &'static str)>,
) {
    // A literal, or a name, call or parenthesised expression.
    let literal_before = op.checked_sub(1).filter(|&k| matches!(toks[k].tok, Tok::Number(_) | Tok::Str(_) | Tok::Param));
    let Some(ls) = literal_before.or_else(|| left_operand(toks, op)) else { return };
    let re = super::operators::operand_end(toks, op + 1, toks.len());
    if re <= op + 1 {
        return;
    }
    // An operand that is part of a larger one (`b + e = x`): left alone.
    let bound = |k: Option<&Token>| k.is_some_and(|t| arith(t) || t.is_op("||") || t.is_op("^") || t.is_op("&") || t.is_op("|") || t.is_op("."));
    if bound(ls.checked_sub(1).map(|p| &toks[p])) || bound(toks.get(re)) {
        return;
    }
    let (left, right) = (column(ls, op), column(op + 1, re));
    let (cd, col_first, (vs, ve), (xs, xe)) = match (left, right) {
        (Some(cd), None) => (cd, true, (ls, op), (op + 1, re)),
        (None, Some(cd)) => (cd, false, (op + 1, re), (ls, op)),
        _ => return,
    };
    let lit = xe == xs + 1;
    let equality = matches!(&toks[op].tok, Tok::Op(o) if matches!(&**o, "=" | "<>" | "!=" | "<=>"));
    match &toks[xs].tok {
        Tok::Str(_) if lit => {}
        Tok::Number(_) | Tok::Param if lit && equality => add(literal(xs, xe, cd)),
        Tok::Param if lit => {
            let flags = u8::from(is_set(cd)) | u8::from(binary(cd)) << 1 | u8::from(!col_first) << 2;
            let Tok::Op(o) = &toks[op].tok else { return };
            let o: &str = o;
            add(Wrap { s: ls, e: re, open: "ts_enum_cmp(".into(), close: format!(", '{}', {}{})", o, flags, members(cd)) });
            respelled.push((op, ","));
        }
        _ if numeric(xs, xe) => add(number(vs, ve, cd)),
        _ => {}
    }
}

/// Does the column compare by bytes (a binary charset or a `_bin` collation)?
fn binary(cd: &ColumnDef) -> bool {
    cd.charset_name() == Some("binary") || cd.collation.as_deref().is_some_and(|c| c.to_ascii_lowercase().ends_with("_bin"))
}

/// The WHEN values of `CASE e WHEN ...` at `at` when `e` is an ENUM or SET
/// column: a number or parameter among them becomes the text it names.
fn case_whens<'a>(toks: &[Token], at: usize, column: &dyn Fn(usize, usize) -> Option<&'a ColumnDef>, add: &mut dyn FnMut(Wrap)) {
    let Some(when) = (at + 1..toks.len().min(at + 7)).find(|&k| toks[k].is_kw("WHEN")) else { return };
    let Some(cd) = column(at + 1, when) else { return };
    let (mut parens, mut cases) = (0usize, 0usize);
    let mut value: Option<usize> = None;
    for (k, t) in toks.iter().enumerate().skip(when) {
        if t.is_op("(") {
            parens += 1;
        } else if t.is_op(")") {
            let Some(p) = parens.checked_sub(1) else { return };
            parens = p;
        } else if parens > 0 {
        } else if t.is_kw("CASE") {
            cases += 1;
        } else if t.is_kw("END") {
            if cases == 0 {
                return;
            }
            cases -= 1;
        } else if cases == 0 && t.is_kw("WHEN") {
            value = Some(k + 1);
        } else if cases == 0 && t.is_kw("THEN") {
            if let Some(s) = value.take() {
                if k == s + 1 && matches!(toks[s].tok, Tok::Number(_) | Tok::Param) {
                    add(literal(s, k, cd));
                }
            }
        }
    }
}

/// The items of the ORDER BY (or GROUP BY) list starting at token `from`,
/// without their ASC / DESC: each as (start, end) tokens.
fn order_items(toks: &[Token], from: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    let mut end: Option<usize> = None;
    for (k, t) in toks.iter().enumerate().skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if depth > 0 {
        } else if t.is_op(",") {
            out.push((start, end.unwrap_or(k)));
            start = k + 1;
            end = None;
        } else if t.is_kw("ASC") || t.is_kw("DESC") {
            end.get_or_insert(k);
        } else if ["LIMIT", "HAVING", "ORDER", "WINDOW", "WITH"].iter().any(|w| t.is_kw(w))
            || t.is_kw("FOR")
            || t.is_kw("LOCK")
            || t.is_kw("INTO")
            || t.is_kw("ROWS")
            || t.is_kw("RANGE")
            || t.is_op(";")
        {
            out.push((start, end.unwrap_or(k)));
            return out;
        }
        if k + 1 == toks.len() {
            out.push((start, end.unwrap_or(k + 1)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::rewrite;
    use std::sync::Arc;
    use turnstile_sqltext::lex::tokenize;

    fn run(sql: &str) -> Option<String> {
        let r = TestResolver(vec![Arc::new(table_def("CREATE TABLE t (e ENUM('x','b','a'), s SET('p','q'), n INT, c VARCHAR(5))"))]);
        rewrite(sql, &tokenize(sql).unwrap(), &r)
    }

    #[test]
    fn numeric_context_reads_the_number() {
        assert_eq!(
            run("SELECT e + 0, -e, CAST(t.e AS SIGNED), SUM(s) FROM t").as_deref(),
            Some("SELECT ts_enum_num(e, 'x', 'b', 'a') + 0, -ts_enum_num(e, 'x', 'b', 'a'), CAST(ts_enum_num(t.e, 'x', 'b', 'a') AS SIGNED), SUM(ts_set_num(s, 'p', 'q')) FROM t")
        );
        assert_eq!(run("SELECT e FROM t ORDER BY e DESC, n").as_deref(), Some("SELECT e FROM t ORDER BY ts_enum_num(e, 'x', 'b', 'a') DESC, n"));
        assert_eq!(run("SELECT e, COUNT(*) FROM t GROUP BY t.e").as_deref(), Some("SELECT e, COUNT(*) FROM t GROUP BY ts_enum_num(t.e, 'x', 'b', 'a'), t.e"));
        assert_eq!(run("SELECT e FROM t WHERE e = n").as_deref(), Some("SELECT e FROM t WHERE ts_enum_num(e, 'x', 'b', 'a') = n"));
    }

    #[test]
    fn numbers_compared_name_members() {
        assert_eq!(run("SELECT e FROM t WHERE e = 3 AND s <> ?").as_deref(), Some("SELECT e FROM t WHERE e = ts_enum_lit(3, 'x', 'b', 'a') AND s <> ts_set_lit(?, 'p', 'q')"));
        assert_eq!(run("SELECT e FROM t WHERE e IN (1, 'b', ?)").as_deref(), Some("SELECT e FROM t WHERE e IN (ts_enum_lit(1, 'x', 'b', 'a'), 'b', ts_enum_lit(?, 'x', 'b', 'a'))"));
        assert_eq!(run("SELECT CASE e WHEN 3 THEN 1 WHEN 'b' THEN 2 END FROM t").as_deref(), Some("SELECT CASE e WHEN ts_enum_lit(3, 'x', 'b', 'a') THEN 1 WHEN 'b' THEN 2 END FROM t"));
        assert_eq!(run("SELECT e FROM t WHERE e <= ? OR 2 < e").as_deref(), Some("SELECT e FROM t WHERE ts_enum_cmp(e , ?, '<=', 0, 'x', 'b', 'a') OR 2 < ts_enum_num(e, 'x', 'b', 'a')"));
        assert_eq!(run("SELECT e FROM t WHERE ? > e").as_deref(), Some("SELECT e FROM t WHERE ts_enum_cmp(? , e, '>', 4, 'x', 'b', 'a')"));
        assert_eq!(run("SELECT 2 >= e, 3 = e FROM t").as_deref(), Some("SELECT 2 >= ts_enum_num(e, 'x', 'b', 'a'), ts_enum_lit(3, 'x', 'b', 'a') = e FROM t"));
    }

    #[test]
    fn text_context_is_left_alone() {
        assert_eq!(run("SELECT e FROM t WHERE e = 'b' AND c = 1 AND n + 1 > 2"), None);
        assert_eq!(run("UPDATE t SET e = 2"), None);
        assert_eq!(run("SELECT n AS e FROM t ORDER BY e"), None);
        assert_eq!(run("SELECT e FROM t UNION SELECT e FROM t ORDER BY e"), None);
        assert_eq!(run("SELECT MAX(e), CONCAT(e, 1) FROM t"), None);
    }
}
