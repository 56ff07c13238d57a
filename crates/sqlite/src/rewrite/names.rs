//! Names: identifiers as SQLite reads them, `db.table` qualifiers as the
//! schema SQLite knows the database by, and the tables and CTEs a statement
//! names (for ATTACH, result metadata and privilege checks).
//!
//! The current database is SQLite's `main` (or `temp` for the session's
//! temporary table of that name), another database is ATTACHed under its own
//! name, and information_schema is a per-connection in-memory database.

use super::translator::Translator;
use crate::schema::sq_ident;

impl Translator<'_> {
    /// The SQLite schema for `name.table`.
    pub(super) fn qualifier(&mut self, name: &str, table: &str) -> Option<String> {
        if name.eq_ignore_ascii_case("information_schema") {
            self.info_schema = true;
            return Some("information_schema".into());
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
        let is_db = w.eq_ignore_ascii_case("information_schema")
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
        self.push(&toks[i], &sq_ident(w));
        self.note_table(i);
    }

    /// A bare word at token `i` no translation takes: a name, or a keyword
    /// both dialects spell alike.
    pub(super) fn plain_name(&mut self, i: usize, w: &str) {
        let toks = self.toks;
        let t = &toks[i];
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
