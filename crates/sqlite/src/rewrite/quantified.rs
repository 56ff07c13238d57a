//! Quantified comparisons: `x op ANY|SOME|ALL (subquery)`, which SQLite
//! lacks, with MySQL's NULL semantics.
//!
//! `= ANY` (and `= SOME`) is IN and `<> ALL` is NOT IN, in MySQL as in
//! SQLite, NULLs included: the operator becomes IN / NOT IN and the
//! subquery stays where it is (a row on the left too: `(a, b) = ANY
//! (SELECT x, y ...)`). Every other form compares one value with each row:
//!
//! ```text
//! x > ALL (SELECT ...)  →  (WITH ts_q(ts_qv) AS MATERIALIZED (SELECT ...) SELECT ts_all(x > ts_qv) FROM ts_q)
//! ```
//!
//! where `ts_any` / `ts_all` (functions/ext.rs) fold the comparisons as
//! MySQL does: ANY is TRUE when one is, else NULL when one is NULL, else
//! FALSE (an empty set: FALSE, whatever x); ALL is FALSE when one is, else
//! NULL when one is NULL, else TRUE (an empty set: TRUE). The translated x
//! is already written when the operator is reached: it is moved from the
//! output into the subquery (its columns become correlated references).
//! MATERIALIZED keeps SQLite from flattening the subquery into that now
//! correlated one: an uncorrelated set is computed once per statement, not
//! once per row of x's query (nested, that was exponential: 4 levels over 30
//! rows took 3.7 s; materialized, 62 levels take no time).
//! x is the comparison's left operand by MySQL's precedence: back to an
//! AND/OR/XOR/NOT, a comma, an unmatched `(` or a clause keyword. An x
//! that calls an aggregate (`HAVING SUM(a) > ALL (...)`) is moved as
//! `(SELECT x)`: SQLite takes an outer aggregate there, not directly inside
//! the fold's argument.
//!
//! As MariaDB: a row with any other operator is 1241, and a LIMIT in the
//! subquery 1235.

use super::clauses::is_dropped_modifier;
use super::translator::Translator;
use turnstile_engine::SqlError;

/// The words of a quantified comparison.
const QUANTIFIERS: [&str; 3] = ["ANY", "SOME", "ALL"];

/// Words that end the left operand of a comparison (scanning back).
const OPERAND_BOUNDARIES: [&str; 19] = ["AND", "OR", "XOR", "NOT", "WHERE", "HAVING", "ON", "SELECT", "WHEN", "THEN", "ELSE", "CASE", "SET", "BY", "RETURN", "DISTINCT", "ALL", "VALUES", "VALUE"];

/// Aggregate functions (an operand calling one is evaluated apart: `quantified`).
const AGGREGATES: [&str; 16] = ["COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_OR", "BIT_AND", "BIT_XOR", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP"];

impl Translator<'_> {
    /// Is token `i` (after a comparison operator) ANY, SOME or ALL before a `(`?
    pub(super) fn quantifier_at(&self, i: usize) -> bool {
        QUANTIFIERS.iter().any(|q| self.word_at(i, q)) && self.op_at(i + 1, "(")
    }

    /// The comparison `op` at token `at`, followed by ANY/SOME/ALL and a
    /// subquery (module header), in the range [from, to) being copied.
    /// Returns the index after the subquery's `)`.
    pub(super) fn quantified(&mut self, from: usize, at: usize, to: usize, op: &str) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[at + 1].start..]);
        let open = at + 2;
        if !(self.word_at(open + 1, "SELECT") || self.word_at(open + 1, "WITH") || self.op_at(open + 1, "(")) {
            return Err(syntax());
        }
        let (close, direct) = self.paren_span(open, to).ok_or_else(syntax)?;
        if direct.iter().any(|&j| toks[j].is_kw("LIMIT")) {
            return Err(Self::unsupported("LIMIT & IN/ALL/ANY/SOME subquery"));
        }
        let all = self.word_at(at + 1, "ALL");
        let start = self.left_operand_start(from, at).ok_or_else(syntax)?;
        let as_in = match op {
            "=" => !all,
            "<>" | "!=" => all,
            _ => false,
        };
        if as_in {
            self.push(&toks[at], if all { "NOT IN" } else { "IN" });
            self.last_end = Some(toks[at + 1].end);
            self.emit(open, close + 1)?;
            return Ok(close + 1);
        }
        if self.is_row_operand(start, at) {
            return Err(SqlError::new(1241, "21000", "Operand should contain 1 column(s)"));
        }
        let mut left = self.take_written(start, at).ok_or_else(syntax)?;
        if self.has_aggregate(start, at) {
            // SQLite refuses an outer aggregate inside the fold's argument, but not in a subquery there.
            left = format!("(SELECT {})", left);
        }
        self.raw("(WITH ts_q(ts_qv) AS MATERIALIZED ");
        self.last_end = None;
        self.emit(open, close + 1)?;
        let fold = if all { "ts_all" } else { "ts_any" };
        self.raw(&format!(" SELECT {}({} {} ts_qv) FROM ts_q)", fold, left, op));
        Ok(close + 1)
    }

    /// The first token of the left operand of the comparison at token `op`
    /// (module header); None when there is none.
    fn left_operand_start(&self, from: usize, op: usize) -> Option<usize> {
        let toks = self.toks;
        let (mut depth, mut cases) = (0usize, 0usize);
        let mut j = op;
        while j > from {
            let t = &toks[j - 1];
            if t.is_op(")") {
                depth += 1;
            } else if t.is_op("(") {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 {
                if t.is_kw("END") {
                    cases += 1;
                } else if t.is_kw("CASE") && cases > 0 {
                    cases -= 1;
                } else if cases == 0 && self.ends_operand(j - 1) {
                    break;
                }
            }
            j -= 1;
        }
        (j < op && depth == 0).then_some(j)
    }

    /// Does token `j` end (scanning back) a comparison's left operand?
    fn ends_operand(&self, j: usize) -> bool {
        let t = &self.toks[j];
        if [",", ";", "&&", "||", ":="].iter().any(|o| t.is_op(o)) {
            return true;
        }
        let Some(word) = t.ident().filter(|_| !matches!(t.tok, turnstile_sqltext::lex::Tok::Quoted(_))) else { return false };
        let upper = word.to_ascii_uppercase();
        // IS NOT NULL belongs to the operand.
        if upper == "NOT" && j > 0 && self.word_at(j - 1, "IS") {
            return false;
        }
        OPERAND_BOUNDARIES.contains(&upper.as_str()) || is_dropped_modifier(&upper)
    }

    /// Does the operand [start, op) call an aggregate (`SUM(x) > ALL (...)` in HAVING)?
    fn has_aggregate(&self, start: usize, op: usize) -> bool {
        (start..op).any(|j| self.op_at(j + 1, "(") && self.toks[j].ident().is_some_and(|w| AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a))))
    }

    /// Is the operand [start, op) a row: `(a, b)` or `ROW(a, b)`?
    fn is_row_operand(&self, start: usize, op: usize) -> bool {
        let open = if self.word_at(start, "ROW") { start + 1 } else { start };
        if !self.op_at(open, "(") || self.word_at(open + 1, "SELECT") {
            return false;
        }
        match self.paren_span(open, op) {
            Some((close, direct)) => close + 1 == op && direct.iter().any(|&j| self.toks[j].is_op(",")),
            None => false,
        }
    }

    /// The translation of tokens [start, op), already written: removed from
    /// the output and returned (None when it wrote nothing).
    fn take_written(&mut self, start: usize, op: usize) -> Option<String> {
        let at = self.out_at[start];
        if at == usize::MAX || at > self.out.len() || self.out_at[op] == usize::MAX {
            return None;
        }
        let text = self.out[at..].trim().to_string();
        if text.is_empty() {
            return None;
        }
        let keep = at + self.out[at..].len() - self.out[at..].trim_start().len();
        self.out.truncate(keep);
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    fn rw(sql: &str) -> Result<String, u16> {
        rewrite(sql, Kind::Select, &resolver()).map(|r| r.sql).map_err(|e| e.code)
    }

    #[test]
    fn equal_any_is_in_and_not_equal_all_not_in() {
        let out = rw("SELECT * FROM sbtest1 WHERE k = ANY (SELECT k FROM sbtest1)").unwrap();
        assert!(out.contains("k IN (SELECT"), "{out}");
        let out = rw("SELECT * FROM sbtest1 WHERE k <> ALL (SELECT k FROM sbtest1)").unwrap();
        assert!(out.contains("k NOT IN (SELECT"), "{out}");
        let out = rw("SELECT * FROM sbtest1 WHERE (k, c) = SOME (SELECT k, c FROM sbtest1)").unwrap();
        assert!(out.contains("(k, c) IN (SELECT"), "{out}");
    }

    #[test]
    fn other_operators_fold_over_the_rows() {
        let out = rw("SELECT * FROM sbtest1 WHERE id = 1 AND k + 1 > ALL (SELECT k FROM sbtest1)").unwrap();
        assert!(out.contains("AND (WITH ts_q(ts_qv) AS MATERIALIZED (SELECT k FROM sbtest1) SELECT ts_all(k + 1 > ts_qv) FROM ts_q)"), "{out}");
        let out = rw("SELECT 2 < SOME (SELECT k FROM sbtest1), 3").unwrap();
        assert!(out.contains("SELECT (WITH ts_q(ts_qv) AS MATERIALIZED (SELECT k FROM sbtest1) SELECT ts_any(2 < ts_qv) FROM ts_q)"), "{out}");
        let out = rw("SELECT * FROM sbtest1 WHERE NOT k <= ANY (SELECT k FROM sbtest1 WHERE k > ALL (SELECT 1))").unwrap();
        assert!(out.contains("NOT (WITH ts_q(ts_qv) AS MATERIALIZED (SELECT k FROM sbtest1 WHERE (WITH ts_q(ts_qv) AS MATERIALIZED (SELECT 1) SELECT ts_all(k > ts_qv) FROM ts_q) ) SELECT ts_any(k <= ts_qv) FROM ts_q)"), "{out}");
        let out = rw("SELECT CASE WHEN k > 1 THEN 1 END >= ANY (SELECT k FROM sbtest1) FROM sbtest1").unwrap();
        assert!(out.contains("ts_any(CASE WHEN k > 1 THEN 1 END >= ts_qv)"), "{out}");
    }

    #[test]
    fn rows_limits_and_bad_forms_are_mariadbs_errors() {
        assert_eq!(rw("SELECT (1, 2) > ANY (SELECT k, c FROM sbtest1)"), Err(1241));
        assert_eq!(rw("SELECT (1, 2) = ALL (SELECT k, c FROM sbtest1)"), Err(1241));
        assert_eq!(rw("SELECT 1 > ANY (SELECT k FROM sbtest1 LIMIT 1)"), Err(1235));
        assert_eq!(rw("SELECT 1 = ANY (SELECT k FROM sbtest1 LIMIT 1)"), Err(1235));
        assert_eq!(rw("SELECT 1 > ANY (1)"), Err(1064));
        assert_eq!(rw("SELECT 1 > ANY (SELECT k FROM sbtest1"), Err(1064));
        assert_eq!(rw("SELECT > ANY (SELECT k FROM sbtest1)"), Err(1064));
    }
}
