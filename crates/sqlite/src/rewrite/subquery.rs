//! Scalar subqueries: more than one row is MySQL's error 1242, not SQLite's
//! first row.
//!
//! SQLite answers a scalar subquery that returns several rows with the
//! first one; MySQL and MariaDB refuse the statement ("Subquery returns more
//! than 1 row", 1242/21000), and an application that relies on the error
//! (or a query written wrong) must not get an arbitrary row instead. So a
//! `(SELECT ...)` in a scalar position becomes
//!
//! ```text
//! (WITH ts_sq(v) AS (SELECT ...) SELECT ts_one(v) FROM ts_sq)
//! ```
//!
//! where `ts_one` (functions/ext.rs) is an aggregate that returns its only
//! value, NULL for none, and fails on the second row (so a subquery of a
//! million rows stops at its second). SQLite flattens the CTE: the plan is
//! the subquery's own, correlated or not.
//!
//! Left as they are: subqueries that return at most one row by their shape
//! (no FROM; a single aggregate without GROUP BY; LIMIT 0 or 1), row
//! subqueries (`(a, b) = (SELECT x, y ...)`, a `*` list), and every
//! non-scalar position: IN/EXISTS/ANY/SOME/ALL, FROM and JOIN (derived
//! tables), UNION operands, WITH bodies, INSERT ... SELECT.

use super::translator::Translator;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Tok;

/// Keywords after which a `(` holds a value (an operand).
const VALUE_KEYWORDS: [&str; 21] =
    ["SELECT", "WHERE", "AND", "OR", "XOR", "NOT", "ON", "HAVING", "WHEN", "THEN", "ELSE", "CASE", "BY", "LIKE", "BETWEEN", "IS", "DIV", "MOD", "DISTINCT", "RETURN", "SET"];

/// Operators after which a `(` holds a value.
const VALUE_OPERATORS: [&str; 19] = ["=", "<", ">", "<=", ">=", "<>", "!=", "<=>", "+", "-", "*", "/", "%", "||", "&&", "|", "&", "<<", ">>"];

/// Calls whose parentheses hold a subquery or a list, not a value.
const NOT_VALUE_CALLS: [&str; 7] = ["IN", "EXISTS", "ANY", "SOME", "ALL", "FROM", "JOIN"];

/// Aggregates that return one row without GROUP BY.
const ONE_ROW_AGGREGATES: [&str; 8] = ["COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_OR", "BIT_AND"];

impl Translator<'_> {
    /// At the `(` at token `open`: when it opens a scalar subquery that may
    /// return several rows, write it wrapped (module header) and return the
    /// index after its `)`; None leaves the `(` to the token loop.
    pub(super) fn scalar_subquery(&mut self, open: usize, to: usize) -> Result<Option<usize>, SqlError> {
        if !self.word_at(open + 1, "SELECT") || !self.value_position(open) {
            return Ok(None);
        }
        let Some((close, direct)) = self.paren_span(open, to) else { return Ok(None) };
        if self.is_row_subquery(open, &direct) || self.at_most_one_row(open, &direct) {
            return Ok(None);
        }
        let toks = self.toks;
        self.push(&toks[open], "(WITH ts_sq(v) AS (");
        self.parens.push(String::new());
        self.emit(open + 1, close)?;
        self.push(&toks[close], ")");
        self.parens.pop();
        self.raw(" SELECT ts_one(v) FROM ts_sq)");
        Ok(Some(close + 1))
    }

    /// Is the `(` at token `open` an operand: after a comparison or
    /// arithmetic operator, a keyword that takes a value, a function's
    /// argument list, a VALUES row, or a comma in a select list?
    fn value_position(&self, open: usize) -> bool {
        let Some(prev) = open.checked_sub(1).map(|p| &self.toks[p]) else { return false };
        match &prev.tok {
            Tok::Op(o) if &**o == "(" => self.holds_values(open - 1),
            Tok::Op(o) if &**o == "," => self.comma_in_values(open - 1),
            Tok::Op(o) => VALUE_OPERATORS.contains(&&**o),
            Tok::Word(_) => VALUE_KEYWORDS.iter().any(|k| prev.is_kw(k)),
            _ => false,
        }
    }

    /// Do the parentheses opened at `open` hold values: a call's arguments
    /// (not IN/EXISTS/...), a VALUES row, or a grouping in a value position?
    fn holds_values(&self, open: usize) -> bool {
        let Some(prev) = open.checked_sub(1).map(|p| &self.toks[p]) else { return false };
        if prev.is_kw("VALUES") || prev.is_kw("VALUE") {
            return true;
        }
        if matches!(prev.tok, Tok::Word(_)) && prev.end == self.toks[open].start {
            return !NOT_VALUE_CALLS.iter().any(|k| prev.is_kw(k));
        }
        self.value_position(open)
    }

    /// The comma at token `comma`: between values (in a call, a VALUES row
    /// or a select list) rather than between tables or subqueries?
    fn comma_in_values(&self, comma: usize) -> bool {
        let mut depth = 0usize;
        for j in (0..comma).rev() {
            let t = &self.toks[j];
            if t.is_op(")") {
                depth += 1;
            } else if t.is_op("(") {
                if depth == 0 {
                    return self.holds_values(j);
                }
                depth -= 1;
            } else if depth == 0 && matches!(t.tok, Tok::Word(_)) {
                if ["SELECT", "BY", "SET"].iter().any(|k| t.is_kw(k)) {
                    return true;
                }
                if ["FROM", "JOIN", "INTO", "UPDATE", "WITH", "VALUES", "IN"].iter().any(|k| t.is_kw(k)) {
                    return false;
                }
            }
        }
        false
    }

    /// Several columns (a comma or `*` in the first select list): a row
    /// subquery, whose column count the engine checks (1241).
    fn is_row_subquery(&self, open: usize, direct: &[usize]) -> bool {
        let list_end = direct.iter().position(|&j| self.toks[j].is_kw("FROM")).unwrap_or(direct.len());
        let list = &direct[..list_end];
        list.iter().any(|&j| self.toks[j].is_op(",") || (self.toks[j].is_op("*") && (j == open + 2 || self.op_at(j - 1, ".") || self.word_at(j - 1, "DISTINCT"))))
    }

    /// At most one row by its shape: no FROM, LIMIT 0 or 1, or one
    /// aggregate without GROUP BY or a window (and no UNION in any case).
    fn at_most_one_row(&self, open: usize, direct: &[usize]) -> bool {
        let toks = self.toks;
        let has = |kw: &str| direct.iter().any(|&j| toks[j].is_kw(kw));
        if has("UNION") || has("INTERSECT") || has("EXCEPT") {
            return false;
        }
        if !has("FROM") {
            return true;
        }
        let limit_one = direct
            .iter()
            .position(|&j| toks[j].is_kw("LIMIT"))
            .and_then(|p| direct.get(p + 1))
            .is_some_and(|&j| matches!(&toks[j].tok, Tok::Number(n) if n == "0" || n == "1") && !self.op_at(j + 1, ","));
        if limit_one {
            return true;
        }
        let first = open + 2;
        let aggregate = ONE_ROW_AGGREGATES.iter().any(|a| self.word_at(first, a)) && self.op_at(first + 1, "(");
        // paren_span only from a `(` (found by fuzz/rewrite: from another token its depth underflowed).
        let after_call = || self.paren_span(first + 1, toks.len()).map(|(c, _)| c + 1);
        aggregate && after_call().is_some_and(|j| self.word_at(j, "FROM")) && !has("GROUP")
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    fn rw(sql: &str) -> String {
        let kind = match sql.split_whitespace().next() {
            Some("INSERT") => Kind::Insert,
            Some("UPDATE") => Kind::Update,
            _ => Kind::Select,
        };
        rewrite(sql, kind, &resolver()).unwrap().sql
    }

    #[test]
    fn scalar_positions_are_wrapped() {
        for sql in [
            "SELECT (SELECT k FROM sbtest1)",
            "SELECT 1, (SELECT k FROM sbtest1) FROM sbtest1 u",
            "SELECT * FROM sbtest1 u WHERE x = (SELECT k FROM sbtest1)",
            "SELECT COALESCE((SELECT k FROM sbtest1), 0)",
            "INSERT INTO sbtest1 (k) VALUES ((SELECT k FROM sbtest1))",
            "UPDATE sbtest1 SET k = (SELECT k FROM sbtest1)",
            "SELECT (SELECT 1 UNION SELECT 2)",
        ] {
            let out = rw(sql);
            assert!(out.contains("WITH ts_sq(v) AS (") && out.contains("SELECT ts_one(v) FROM ts_sq)"), "{sql} -> {out}");
        }
    }

    #[test]
    fn other_positions_and_one_row_shapes_are_left() {
        for sql in [
            "SELECT * FROM sbtest1 u WHERE x IN (SELECT k FROM sbtest1)",
            "SELECT * FROM sbtest1 u WHERE EXISTS (SELECT k FROM sbtest1)",
            "SELECT * FROM sbtest1 u WHERE x = ANY (SELECT k FROM sbtest1)",
            "SELECT * FROM (SELECT k FROM sbtest1) d",
            "SELECT * FROM sbtest1 u, (SELECT k FROM sbtest1) d",
            "SELECT * FROM sbtest1 u JOIN (SELECT k FROM sbtest1) d ON 1",
            "(SELECT k FROM sbtest1) UNION (SELECT k FROM sbtest1)",
            "SELECT (SELECT MAX(k) FROM sbtest1)",
            "SELECT (SELECT COUNT(*) FROM sbtest1 WHERE k > 1)",
            "SELECT (SELECT k FROM sbtest1 LIMIT 1)",
            "SELECT (SELECT 5)",
            "SELECT * FROM sbtest1 u WHERE (x, y) = (SELECT k, c FROM sbtest1)",
            "SELECT (SELECT * FROM sbtest1)",
            "INSERT INTO sbtest1 (k) SELECT k FROM sbtest1",
        ] {
            let out = rw(sql);
            assert!(!out.contains("ts_one"), "{sql} -> {out}");
        }
    }
}
