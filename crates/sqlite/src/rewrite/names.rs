//! Names: identifiers as SQLite reads them, `db.table` qualifiers as the
//! schema SQLite knows the database by, and the tables and CTEs a statement
//! names (for ATTACH, result metadata and privilege checks).
//!
//! The current database is SQLite's `main` (or `temp` for the session's
//! temporary table of that name), another database is ATTACHed under its own
//! name, and information_schema is a per-connection in-memory database.

use super::translator::Translator;
use crate::schema::sq_ident;
use turnstile_sqltext::clause::NOT_TABLE_ALIAS;
use turnstile_sqltext::lex::Tok;

impl Translator<'_> {
    /// The SQLite schema for `name.table`.
    pub(super) fn qualifier(&mut self, name: &str, table: &str) -> Option<String> {
        if crate::perf_tables::is_system_view_schema(name) {
            self.info_schema = true;
            return Some(name.to_ascii_lowercase());
        }
        if Some(name) == self.resolver.home() {
            // `db.t` names the session's temporary table t when there is one, as in MySQL.
            return Some(if self.resolver.is_temp(table) { "temp" } else { "main" }.into());
        }
        if self.resolver.is_database(name) {
            if !self.dbs.iter().any(|d| d == name) {
                self.dbs.push(name.to_string());
            }
            return Some(sq_ident(name));
        }
        None
    }

    /// `db.table(.column)` with the word `w` at token `i` naming a database:
    /// writes its SQLite schema and returns the index after it; None when `w`
    /// is no database qualifier.
    pub(super) fn schema_qualifier(&mut self, from: usize, i: usize, to: usize, w: &str) -> Option<usize> {
        let toks = self.toks;
        if !(self.op_at(i + 1, ".") && i + 2 < to && (toks[i + 2].ident().is_some() || toks[i + 2].is_op("*")) && !(i > from && toks[i - 1].is_op("."))) {
            return None;
        }
        let three = self.op_at(i + 3, ".") && i + 4 < to && toks[i + 4].ident().is_some();
        let next = toks[i + 2].ident().unwrap_or("");
        let is_db = crate::perf_tables::is_system_view_schema(w)
            || three && (self.resolver.is_database(w) || Some(w) == self.resolver.home())
            || (!three && (Some(w) == self.resolver.home() || self.resolver.is_database(w)) && self.resolver.table(Some(w), next).is_some());
        if !is_db {
            return None;
        }
        let q = self.qualifier(w, next)?;
        if !three {
            self.tables.push((Some(w.to_string()), next.to_string()));
        }
        if q == "main" && !self.resolver.qualify_home() {
            // A view's body: the name alone (its gap kept, the dot dropped).
            self.push(&toks[i], "");
            self.last_end = Some(toks[i + 1].end);
            return Some(i + 2);
        }
        self.push(&toks[i], &q);
        Some(i + 1)
    }

    /// A `quoted` identifier at token `i`: written as SQLite quotes it.
    pub(super) fn quoted_name(&mut self, i: usize, w: &str) {
        let toks = self.toks;
        if self.sequence_table(i, w) {
            return;
        }
        self.push(&toks[i], &sq_ident(w));
        self.note_table(i);
    }

    /// MariaDB's Sequence engine: `seq_<from>_to_<to>[_step_<n>]` read in a
    /// FROM clause, when no table or CTE has that name, is the table of one
    /// BIGINT UNSIGNED column `seq` from `from` to `to` (down when `from` is
    /// the larger) by `n`: written as a recursive CTE in a subquery.
    fn sequence_table(&mut self, i: usize, w: &str) -> bool {
        let toks = self.toks;
        let prev = &toks[i.saturating_sub(1)];
        let reads = i > 0 && (prev.is_kw("FROM") || prev.is_kw("JOIN") || (prev.is_op(",") && self.in_from && self.parens.is_empty()));
        if !reads || self.op_at(i + 1, ".") || self.op_at(i + 1, "(") {
            return false;
        }
        let Some((from, to, step)) = sequence_bounds(w) else { return false };
        // Without a current database it is 1046, as there.
        if self.resolver.home().is_none() || self.ctes.iter().any(|c| c.eq_ignore_ascii_case(w)) || self.resolver.table(None, w).is_some() {
            return false;
        }
        let (op, cmp) = if from <= to { ("+", "<=") } else { ("-", ">=") };
        let body = format!("(WITH RECURSIVE ts_seq(seq) AS (SELECT {from} UNION ALL SELECT seq {op} {step} FROM ts_seq WHERE seq {op} {step} {cmp} {to}) SELECT seq FROM ts_seq)");
        self.push(&toks[i], &body);
        // The authorizer lets the statement read its own CTEs only.
        if !self.ctes.iter().any(|c| c == "ts_seq") {
            self.ctes.push("ts_seq".into());
        }
        let aliased = toks.get(i + 1).is_some_and(|n| n.is_kw("AS") || matches!(n.tok, Tok::Quoted(_)) || (matches!(n.tok, Tok::Word(_)) && !NOT_TABLE_ALIAS.iter().any(|k| n.is_kw(k))));
        if !aliased {
            self.raw(&format!(" AS {}", sq_ident(w)));
        }
        true
    }

    /// A bare word at token `i` no translation takes: a name, or a keyword
    /// both dialects spell alike.
    pub(super) fn plain_name(&mut self, i: usize, w: &str) {
        let toks = self.toks;
        let t = &toks[i];
        let qualified = (i > 0 && toks[i - 1].is_op(".")) || self.op_at(i + 1, ".");
        if !self.row_refs.is_empty() && !qualified {
            // A column named in a VALUES row: the value the row gives it (insert.rs).
            if let Some((_, value)) = self.row_refs.iter().find(|(n, _)| n.eq_ignore_ascii_case(w)) {
                let text = format!("({})", value);
                self.push(t, &text);
                return;
            }
        }
        if self.sequence_table(i, w) {
            return;
        }
        if w.starts_with(|c: char| c.is_ascii_digit()) {
            // A name that starts with a digit (MySQL allows `1abc`, and `0x`
            // is one): SQLite reads it only quoted.
            self.push(t, &sq_ident(w));
        } else {
            self.push(t, w);
        }
        self.note_table(i);
    }

    /// Note the name at token `i` when it is a table the statement reads or
    /// writes (after FROM, JOIN, INTO, UPDATE, or a comma in a FROM list) or
    /// a name WITH defines.
    pub(super) fn note_table(&mut self, i: usize) {
        let toks = self.toks;
        if i == 0 {
            return;
        }
        let t = &toks[i];
        if t.is_kw("FROM") {
            self.in_from = true;
        } else if ["WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "ON", "USING", "SET", "UNION", "WINDOW", "SELECT", "VALUES"].iter().any(|k| t.is_kw(k)) {
            self.in_from = false;
        }
        let prev = &toks[i - 1];
        // A WITH name: `name AS (` or `name (columns) AS (`, first in the
        // WITH list or after a comma at the top level.
        let starts_cte = prev.is_kw("WITH") || prev.is_kw("RECURSIVE") || (prev.is_op(",") && self.parens.is_empty());
        if let (Some(n), true) = (t.ident(), starts_cte) {
            let after_columns = if self.op_at(i + 1, "(") { self.paren_span(i + 1, toks.len()).map(|(close, _)| close + 1) } else { Some(i + 1) };
            if after_columns.is_some_and(|j| self.word_at(j, "AS") && self.op_at(j + 1, "(")) {
                self.ctes.push(n.to_string());
            }
        }
        let after_comma = prev.is_op(",") && self.in_from && self.parens.is_empty();
        if (prev.is_kw("FROM") || prev.is_kw("JOIN") || prev.is_kw("INTO") || prev.is_kw("UPDATE") || after_comma) && !self.op_at(i + 1, ".") && !self.op_at(i + 1, "(") {
            if let Some(n) = toks[i].ident() {
                self.tables.push((None, n.to_string()));
            }
        }
    }
}

/// `seq_<from>_to_<to>[_step_<n>]`: from, to and a step of at least 1 (0
/// reads as 1, as MariaDB does), all within BIGINT.
fn sequence_bounds(name: &str) -> Option<(i64, i64, i64)> {
    let rest = name.get(..4).filter(|p| p.eq_ignore_ascii_case("seq_")).map(|_| &name[4..])?;
    let (from, rest) = rest.split_once("_to_")?;
    let (to, step) = match rest.split_once("_step_") {
        Some((to, step)) => (to, step),
        None => (rest, "1"),
    };
    let number = |t: &str| t.bytes().all(|b| b.is_ascii_digit()).then(|| t.parse::<i64>().ok()).flatten();
    Some((number(from)?, number(to)?, number(step)?.max(1)))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn sequence_tables() {
        let rw = |sql: &str| rewrite(sql, Kind::Select, &resolver()).unwrap().sql;
        let seq = |from: &str, op: &str, step: &str, cmp: &str, to: &str| {
            format!("(WITH RECURSIVE ts_seq(seq) AS (SELECT {from} UNION ALL SELECT seq {op} {step} FROM ts_seq WHERE seq {op} {step} {cmp} {to}) SELECT seq FROM ts_seq)")
        };
        assert_eq!(rw("select count(*) from seq_1_to_3"), format!("select count(*) from {} AS \"seq_1_to_3\"", seq("1", "+", "1", "<=", "3")));
        assert_eq!(rw("SELECT s.seq FROM sbtest1 JOIN seq_10_to_0_step_5 s"), format!("SELECT s.seq FROM sbtest1 JOIN {} s", seq("10", "-", "5", ">=", "0")));
        assert_eq!(rw("SELECT * FROM sbtest1, `seq_1_to_2` WHERE k = seq"), format!("SELECT * FROM sbtest1, {} AS \"seq_1_to_2\" WHERE k = seq", seq("1", "+", "1", "<=", "2")));
        // Not in FROM, a name that is not a sequence's, or a number past BIGINT: a name as before.
        assert_eq!(rw("SELECT seq_1_to_3 FROM sbtest1"), "SELECT seq_1_to_3 FROM sbtest1");
        assert_eq!(rw("SELECT * FROM seq_1_to_x"), "SELECT * FROM seq_1_to_x");
        assert_eq!(rw("SELECT * FROM seq_1_to_99999999999999999999"), "SELECT * FROM seq_1_to_99999999999999999999");
    }
}
