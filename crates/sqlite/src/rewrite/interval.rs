//! INTERVAL, in the two forms SQLite can be given: an argument of
//! DATE_ADD/DATE_SUB/ADDDATE/SUBDATE (`DATE_ADD(d, INTERVAL n unit)` →
//! `date_add(d, n, 'UNIT')`), and date arithmetic (`x + INTERVAL n unit` →
//! `date_add(x, (n), 'UNIT')`, which rewrites output already written: x
//! comes before the INTERVAL). `INTERVAL n unit + x` is turned around in the
//! statement's text first (`interval_first`). The function INTERVAL(n, n1,
//! ...) is `ts_interval` (functions/ext.rs). Any other INTERVAL is refused.
//! `ts_time_add(t, INTERVAL n unit)` / `ts_time_sub` (a TIME moved,
//! temporal_numbers.rs) read their INTERVAL as DATE_ADD does.

use super::translator::{Translator, WordAt, WordStep};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{Tok, Token};

pub(super) const INTERVAL_UNITS: &[&str] = &[
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
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];

impl Translator<'_> {
    /// INTERVAL at the word.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    pub(super) fn interval_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        if word.upper != "INTERVAL" {
            return Ok(WordStep::NotMine);
        }
        let (from, i, to) = (word.from, word.at, word.to);
        let toks = self.toks;
        // The function INTERVAL(n, n1, n2, ...): a list, no unit after it.
        if word.call {
            if let Some((close, inner)) = self.paren_span(i + 1, to) {
                let list = inner.iter().any(|&j| toks[j].is_op(","));
                if list && !toks.get(close + 1).is_some_and(|n| INTERVAL_UNITS.iter().any(|u| n.is_kw(u))) {
                    self.push(&toks[i], "ts_interval");
                    return Ok(WordStep::Written);
                }
            }
        }
        // DATE_ADD(d, INTERVAL n unit) → date_add(d, n, 'unit')
        let inside = self.parens.last().is_some_and(|f| matches!(f.as_str(), "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" | "TS_TIME_ADD" | "TS_TIME_SUB"));
        if !inside && i > from && (toks[i - 1].is_op("+") || toks[i - 1].is_op("-")) {
            return Ok(WordStep::ResumeAt(self.interval_arithmetic(from, i, to)?));
        }
        if !inside {
            return Err(Self::unsupported("INTERVAL arithmetic other than date + INTERVAL n unit and date - INTERVAL n unit"));
        }
        Ok(WordStep::ResumeAt(self.interval_argument(i, to)?))
    }

    /// `INTERVAL n unit` at token `i`, an argument of DATE_ADD and the like:
    /// `n, 'UNIT'`. Returns the index after the unit.
    // Inlined: on the recursion path of `emit` (see `Translator::emit`).
    #[inline(always)]
    fn interval_argument(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = &toks[i];
        let mut j = i + 1;
        let mut depth = 0;
        while j < to {
            if toks[j].is_op("(") {
                depth += 1;
            } else if toks[j].is_op(")") {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 && INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
                break;
            }
            j += 1;
        }
        if j >= to || !INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
            return Err(SqlError::syntax(&self.sql[t.start..]));
        }
        self.last_end = Some(t.end);
        self.emit(i + 1, j)?;
        let unit = toks[j].ident().unwrap_or("").to_ascii_uppercase();
        self.raw(&format!(", '{}'", unit));
        self.last_end = Some(toks[j].end);
        Ok(j + 1)
    }

    /// `x + INTERVAL n unit` / `x - INTERVAL n unit` with INTERVAL at token
    /// `i`, x and the operator already written: rewrite the output to
    /// date_add(x, [-](n), 'UNIT'). x is the primary before the operator (a
    /// literal, a column, a function call, a parenthesized expression, or
    /// the previous such rewrite). Returns the index after the unit.
    fn interval_arithmetic(&mut self, from: usize, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let op = i - 1;
        if op <= from {
            return Err(syntax());
        }
        let k = self.interval_operand_start(from, op).ok_or_else(syntax)?;
        let (start, op_at) = (self.out_at[k], self.out_at[op]);
        if start == usize::MAX || op_at == usize::MAX || start > op_at {
            return Err(syntax());
        }
        // Drop the operator, wrap the operand. An operand that wrote nothing
        // (`BINARY + INTERVAL 1 DAY`: the word before `+` is dropped) is a
        // syntax error, as in MySQL.
        self.out.truncate(op_at);
        let start = start + self.out[start..].len() - self.out[start..].trim_start().len();
        if start >= self.out.len() {
            return Err(syntax());
        }
        self.out.insert_str(start, "date_add(");
        for p in self.out_at.iter_mut() {
            if *p != usize::MAX && *p >= start {
                *p += "date_add(".len();
            }
        }
        let mut j = i + 1;
        while j < to && !INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
            j += 1;
        }
        if j >= to || j == i + 1 {
            return Err(syntax());
        }
        self.raw(if toks[op].is_op("-") { ", -(" } else { ", (" });
        self.emit(i + 1, j)?;
        let unit = toks[j].ident().unwrap_or("").to_ascii_uppercase();
        self.raw(&format!("), '{}')", unit));
        self.last_end = Some(toks[j].end);
        self.last_interval = Some((j, k));
        Ok(j + 1)
    }

    /// The first token of the operand before the `+`/`-` at token `op`: the
    /// previous interval rewrite it continues, a parenthesized expression
    /// (with the function it calls), or a possibly qualified name. None when
    /// the parentheses open before `from`.
    fn interval_operand_start(&self, from: usize, op: usize) -> Option<usize> {
        let toks = self.toks;
        let mut k = op - 1;
        if let Some((_, start)) = self.last_interval.filter(|(unit, _)| *unit == k) {
            k = start;
        } else if toks[k].is_op(")") {
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
                if k == from {
                    return None;
                }
                k -= 1;
            }
            if k > from && toks[k - 1].ident().is_some() {
                k -= 1;
            }
        } else {
            while k >= from + 2 && toks[k - 1].is_op(".") && toks[k - 2].ident().is_some() {
                k -= 2;
            }
        }
        Some(k)
    }
}

/// `INTERVAL n unit + expr` (MySQL allows the interval on either side of `+`):
/// the statement's text with each such sum as `(expr + INTERVAL n unit)`, which
/// the translation reads; None when it has none. Rewritten before the
/// translation, as the text of the client's statement.
pub(super) fn interval_first(sql: &str, toks: &[Token]) -> Option<String> {
    let mut edits = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some((unit, plus, end)) = interval_then_plus(toks, i) else {
            i += 1;
            continue;
        };
        let operand = &sql[toks[plus + 1].start..toks[end - 1].end];
        // A signed INTERVAL (`-INTERVAL n unit + x` is x - INTERVAL n unit).
        let sign = i.checked_sub(1).filter(|&k| unary_sign(toks, k));
        let (start, op) = match sign {
            Some(k) => (toks[k].start, if toks[k].is_op("-") { "-" } else { "+" }),
            None => (toks[i].start, "+"),
        };
        edits.push((start, toks[end - 1].end, format!("({} {} {})", operand, op, &sql[toks[i].start..toks[unit].end])));
        i = end;
    }
    super::splice(sql, edits)
}

/// Is token `k` a `+` or `-` sign of what follows (not a binary operator:
/// first, or after an operator other than `)`, or after a word that ends
/// no operand)?
fn unary_sign(toks: &[Token], k: usize) -> bool {
    if !(toks[k].is_op("+") || toks[k].is_op("-")) {
        return false;
    }
    let Some(prev) = k.checked_sub(1).map(|p| &toks[p]) else { return true };
    match &prev.tok {
        Tok::Op(o) => *o != ")",
        _ => ["SELECT", "WHERE", "AND", "OR", "NOT", "WHEN", "THEN", "ELSE", "ON", "HAVING", "SET", "RETURN"].iter().any(|w| prev.is_kw(w)),
    }
}

/// At token `i`, `INTERVAL e unit + operand`: (the unit's index, the `+`'s, the operand's end).
fn interval_then_plus(toks: &[Token], i: usize) -> Option<(usize, usize, usize)> {
    let binary_before = i > 0 && (toks[i - 1].is_op("+") || toks[i - 1].is_op("-")) && !unary_sign(toks, i - 1);
    if !toks[i].is_kw("INTERVAL") || binary_before || (i > 0 && toks[i - 1].is_op(".")) {
        return None;
    }
    let mut depth = 0usize;
    let mut unit = None;
    for (k, t) in toks.iter().enumerate().skip(i + 1) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && INTERVAL_UNITS.iter().any(|u| t.is_kw(u)) && k > i + 1 {
            unit = Some(k);
            break;
        } else if depth == 0 && (t.is_op(",") || t.is_kw("FROM") || t.is_kw("WHERE")) {
            return None;
        }
    }
    let unit = unit?;
    let plus = unit + 1;
    if !toks.get(plus)?.is_op("+") {
        return None;
    }
    let mut end = super::operators::operand_end(toks, plus + 1, toks.len());
    // A typed literal, TIMESTAMP'...' (DATE'...', TIME'...'): the word and its string.
    let typed = end == plus + 2 && ["DATE", "TIME", "TIMESTAMP"].iter().any(|w| toks[plus + 1].is_kw(w));
    if typed && toks.get(end).is_some_and(|t| matches!(t.tok, Tok::Str(_))) {
        end += 1;
    }
    (end > plus + 1).then_some((unit, plus, end))
}

#[cfg(test)]
mod interval_first_tests {
    use super::interval_first;
    use turnstile_sqltext::lex::tokenize;

    fn run(sql: &str) -> Option<String> {
        interval_first(sql, &tokenize(sql).unwrap())
    }

    #[test]
    fn the_interval_moves_after_the_date() {
        assert_eq!(run("SELECT INTERVAL 1 DAY + d FROM t").as_deref(), Some("SELECT (d + INTERVAL 1 DAY) FROM t"));
        assert_eq!(run("SELECT INTERVAL (1 + 2) HOUR + CAST('2024-01-01' AS DATE)").as_deref(), Some("SELECT (CAST('2024-01-01' AS DATE) + INTERVAL (1 + 2) HOUR)"));
        assert_eq!(run("SELECT d + INTERVAL 1 DAY FROM t"), None);
        assert_eq!(run("SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t"), None);
        assert_eq!(run("SELECT INTERVAL(1, 2, 3)"), None);
        // A typed literal operand, a signed INTERVAL (MariaDB 10.11: 1991-01-01 10:20:30 and 2011-...).
        assert_eq!(run("SELECT INTERVAL '10' YEAR + TIMESTAMP'2001-01-01 10:20:30' AS c").as_deref(), Some("SELECT (TIMESTAMP'2001-01-01 10:20:30' + INTERVAL '10' YEAR) AS c"));
        assert_eq!(run("SELECT -INTERVAL '10' YEAR + d, +INTERVAL 1 DAY + d FROM t").as_deref(), Some("SELECT (d - INTERVAL '10' YEAR), (d + INTERVAL 1 DAY) FROM t"));
        assert_eq!(run("SELECT 1 - INTERVAL 1 DAY + d FROM t"), None);
    }
}
