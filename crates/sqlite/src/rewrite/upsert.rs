//! INSERT ... ON DUPLICATE KEY UPDATE as SQLite's upsert, `ON CONFLICT DO
//! UPDATE SET ... WHERE ts_chg(...)`, with `VALUES(c)` as `excluded.c`.
//!
//! MySQL leaves a duplicate whose new values equal the stored ones alone
//! (affected rows 0 for it, or 1 with CLIENT_FOUND_ROWS): the change test
//! `ts_chg` counts every duplicate and lets only real changes through
//! (`ts_upd`, in the SET, then counts those), as for UPDATE
//! (update_delete.rs). The values are written twice, so parameters are
//! numbered (`?N`, set up by insert.rs).

use super::store::{affinity_code, calls_not_repeatable, expr_end, quiet_fit, quiet_store};
use super::translator::{Translator, WordAt, WordStep};
use super::InsertInfo;
use crate::schema::{sq_ident, TableDef};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;

impl Translator<'_> {
    /// VALUES(col) (or its synonym VALUE(col)) inside ON DUPLICATE KEY
    /// UPDATE → excluded.col; VALUE(col) elsewhere is NULL, as in MariaDB
    /// (the column still resolved: `ts_value_null(col)`).
    pub(super) fn upsert_word(&mut self, word: &WordAt<'_>) -> Result<WordStep, SqlError> {
        let toks = self.toks;
        let i = word.at;
        let t = &toks[i];
        if word.upper == "VALUE" && word.call && !self.odku && self.value_function_at(i) {
            self.push(t, "ts_value_null");
            return Ok(WordStep::Written);
        }
        let values = word.upper == "VALUES" || (word.upper == "VALUE" && self.value_function_at(i));
        if !(values && word.call && self.odku) {
            return Ok(WordStep::NotMine);
        }
        // VALUES(col) → excluded.col
        let col = toks.get(i + 2).and_then(|c| c.ident()).ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_string();
        if !self.op_at(i + 3, ")") {
            return Err(SqlError::syntax(&self.sql[t.start..]));
        }
        self.push(t, &format!("excluded.{}", sq_ident(&col)));
        self.last_end = Some(toks[i + 3].end);
        Ok(WordStep::ResumeAt(i + 4))
    }

    /// Whether the VALUE at token `i`, before `(`, is the function
    /// VALUE(col) rather than INSERT's `VALUE (row)`: an operator other than
    /// `)` or an expression keyword before it, and a column name (perhaps
    /// qualified) alone in its parentheses.
    fn value_function_at(&self, i: usize) -> bool {
        const BEFORE: &[&str] =
            &["SELECT", "WHERE", "HAVING", "AND", "OR", "XOR", "NOT", "ON", "BY", "WHEN", "THEN", "ELSE", "DISTINCT", "ALL", "IS", "IN", "LIKE", "BETWEEN", "RETURN", "UPDATE", "SET"];
        let toks = self.toks;
        let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else { return false };
        let after_operator = matches!(prev.tok, turnstile_sqltext::lex::Tok::Op(_)) && !prev.is_op(")");
        if !(after_operator || BEFORE.iter().any(|k| prev.is_kw(k))) {
            return false;
        }
        let name = |k: usize| toks.get(k).is_some_and(|c| c.ident().is_some());
        name(i + 2) && (self.op_at(i + 3, ")") || (self.op_at(i + 3, ".") && name(i + 4) && self.op_at(i + 5, ")")))
    }

    /// Has the statement an ON DUPLICATE KEY UPDATE at the top level after
    /// token `from`?
    pub(super) fn has_odku(&self, from: usize) -> bool {
        let mut depth = 0;
        for (k, t) in self.toks.iter().enumerate().skip(from) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
            } else if depth == 0 && t.is_kw("ON") && self.word_at(k + 1, "DUPLICATE") {
                return true;
            }
        }
        false
    }

    /// The rest of `ON DUPLICATE KEY UPDATE col = value, ...` after the ON
    /// the cursor is past, for the table `def`; notes it in `info`.
    pub(super) fn on_duplicate_key_update(&mut self, cursor: &mut TokenCursor<'_>, def: Option<&TableDef>, info: &mut InsertInfo) -> Result<(), SqlError> {
        cursor.expect_kw("DUPLICATE")?;
        cursor.expect_kw("KEY")?;
        cursor.expect_kw("UPDATE")?;
        if info.replace {
            return Err(cursor.error().into());
        }
        info.odku = true;
        self.raw(" ON CONFLICT DO UPDATE SET ");
        self.odku = true;
        let (mut values, repeatable) = self.upsert_assignments(cursor, def)?;
        self.odku = false;
        // MySQL leaves a duplicate whose new values equal the stored ones
        // alone (affected rows 0 for it, or 1 with CLIENT_FOUND_ROWS):
        // ts_chg counts every duplicate and lets only real changes through
        // (ts_upd, in the SET, then counts those). See `update`.
        if !repeatable {
            values.clear();
        }
        let affinities: String = values.iter().map(|(col, _)| affinity_code(def, col)).collect();
        self.raw(&format!(" WHERE ts_chg('{}'", affinities));
        for (col, v) in &values {
            // The SET raises a lenient value's warnings (once per changed duplicate).
            let v = quiet_store(v);
            self.raw(&format!(", {}, ({})", sq_ident(col), quiet_fit(&v).unwrap_or_else(|| v.into_owned())));
        }
        self.raw(")");
        Ok(())
    }

    /// The SET list of the upsert, the first value wrapped in `ts_upd`.
    /// Returns each (column, SQLite text of its new value), for the change
    /// test, and whether every value is repeatable.
    fn upsert_assignments(&mut self, cursor: &mut TokenCursor<'_>, def: Option<&TableDef>) -> Result<(Vec<(String, String)>, bool), SqlError> {
        let toks = self.toks;
        let mut first = true;
        // (column, SQLite text of its new value), for the change test below
        let mut values: Vec<(String, String)> = Vec::new();
        let mut repeatable = true;
        loop {
            let col = cursor.ident()?;
            let col = if cursor.eat_op(".") { cursor.ident()? } else { col };
            // SQLite does not look at the SET of an upsert on a table
            // without a unique key (it can never run); MySQL checks it.
            if def.is_some_and(|d| d.column(&col).is_none()) {
                return Err(SqlError::unknown_column(&col, "UPDATE"));
            }
            if !(cursor.eat_op("=") || cursor.eat_op(":=")) {
                return Err(cursor.error().into());
            }
            let s = cursor.pos;
            let e = expr_end(toks, s);
            if s == e {
                return Err(cursor.error().into());
            }
            if !first {
                self.raw(", ");
            }
            self.raw(&format!("{} = ", sq_ident(&col)));
            if first {
                self.raw("ts_upd(");
            }
            let from = self.out.len();
            self.emit_store(s, e, def.and_then(|d| d.column(&col)))?;
            values.push((col.clone(), self.out[from..].trim().to_string()));
            if calls_not_repeatable(toks, s, e) {
                repeatable = false;
            }
            if first {
                self.raw(")");
            }
            first = false;
            cursor.pos = e;
            if !cursor.eat_op(",") {
                break;
            }
        }
        Ok((values, repeatable))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn upserts() {
        let rw = rewrite("INSERT INTO sbtest1 (id,k) VALUES (1,2),(3,4) ON DUPLICATE KEY UPDATE k=VALUES(k)+1", Kind::Insert, &resolver()).unwrap();
        assert_eq!(
            rw.sql,
            "INSERT INTO \"sbtest1\" (\"id\", \"k\") VALUES (ts_ai(1), 2), (ts_ai(3), 4) ON CONFLICT DO UPDATE SET \"k\" = ts_upd(ts_int2(excluded.\"k\"+1, -2147483648, 2147483647)) WHERE ts_chg('I', \"k\", (ts_int2(excluded.\"k\"+1, -2147483648, 2147483647)))"
        );
        // ODKU values appear twice: parameters are numbered
        let rw = rewrite("INSERT INTO sbtest1 (id,c) VALUES (?,?) ON DUPLICATE KEY UPDATE c=?, k=k+1", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"c\") VALUES (ts_ai(?1), ?2) ON CONFLICT DO UPDATE SET \"c\" = ts_upd(?3), \"k\" = k+1 WHERE ts_chg('TI', \"c\", (?3), \"k\", (k+1))");
        // a value that differs between two evaluations is not compared
        let rw = rewrite("INSERT INTO sbtest1 (id) VALUES (1) ON DUPLICATE KEY UPDATE k=RAND()", Kind::Insert, &resolver()).unwrap();
        assert!(rw.sql.ends_with("SET \"k\" = ts_upd(ts_int2(ts_rand(), -2147483648, 2147483647)) WHERE ts_chg('')"), "{}", rw.sql);
    }
}
