//! UPDATE and DELETE of one table, with MySQL's ORDER BY/LIMIT and its
//! affected-rows rule.
//!
//! SQLite (as built) has no ORDER BY/LIMIT on UPDATE and DELETE: the rows
//! are chosen by `rowid IN (SELECT rowid FROM t ... ORDER BY ... LIMIT n)`.
//! An UPDATE writes only the rows whose values change, through the change
//! test `ts_chg` (see `Translator::update`). Multi-table forms are
//! multi_table.rs's.

use super::store::{affinity_code, calls_not_repeatable, expr_end, param_ordinals, quiet_store, store_table_name};
use super::translator::Translator;
use crate::schema::{sq_ident, TableDef};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex::{Tok, Token};

/// The one table an UPDATE or DELETE names: `[db.]table` at tokens
/// [start, end), then an alias up to `alias_end`.
struct SingleTable {
    db: Option<String>,
    table: String,
    start: usize,
    end: usize,
    alias: bool,
    alias_end: usize,
}

/// The top-level WHERE, ORDER BY and LIMIT after the table (in that order).
#[derive(Clone, Copy)]
struct TailClauses {
    where_at: Option<usize>,
    order_at: Option<usize>,
    limit_at: Option<usize>,
}

impl Translator<'_> {
    pub(super) fn update_delete(&mut self, update: bool) -> Result<(), SqlError> {
        let toks = self.toks;
        let mut cursor = TokenCursor::new(self.sql, toks);
        let ignore = update_delete_verb(&mut cursor, update)?;
        if super::multi_table::is_multi(toks, cursor.pos, update) {
            return self.multi_table(cursor.pos, update, ignore);
        }
        if !update && !cursor.eat_kw("FROM") {
            return Err(cursor.error().into());
        }
        if update {
            self.set_write_mode(ignore);
            self.nulls_to_default = self.lenient;
        }
        let target = self.single_table(&mut cursor, update)?;
        let clauses = self.tail_clauses(cursor.pos)?;
        if update {
            return self.update(cursor, ignore, target, clauses.where_at, clauses.order_at.or(clauses.limit_at));
        }
        self.delete(&target, &clauses)
    }

    /// The table after UPDATE or DELETE FROM, with its alias; noted among
    /// the statement's tables (a multi-table statement never comes here:
    /// `is_multi`).
    fn single_table(&mut self, cursor: &mut TokenCursor<'_>, update: bool) -> Result<SingleTable, SqlError> {
        let multi_table = || Self::unsupported(if update { "multi-table UPDATE" } else { "multi-table DELETE" });
        let start = cursor.pos;
        let (db, table) = cursor.qualified()?;
        let end = cursor.pos;
        self.tables.push((db.clone(), table.clone()));
        if cursor.is_op(",") || ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL"].iter().any(|k| cursor.is_kw(k)) || (!update && cursor.is_kw("USING")) {
            return Err(multi_table());
        }
        let mut alias = false;
        if cursor.eat_kw("AS") {
            cursor.ident()?;
            alias = true;
        } else if let Some(Tok::Word(w)) = cursor.peek().map(|t| &t.tok) {
            if !["SET", "WHERE", "ORDER", "LIMIT", "USING"].iter().any(|k| w.eq_ignore_ascii_case(k)) {
                cursor.next();
                alias = true;
            }
        }
        let alias_end = cursor.pos;
        if cursor.is_op(",") || ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL", "USING"].iter().any(|k| cursor.is_kw(k)) {
            return Err(multi_table());
        }
        Ok(SingleTable { db, table, start, end, alias, alias_end })
    }

    /// The top-level WHERE, ORDER BY and LIMIT from token `from` on. WHERE,
    /// then ORDER BY, then LIMIT: anything else is MySQL's 1064 (and the
    /// translation relies on that order).
    fn tail_clauses(&self, from: usize) -> Result<TailClauses, SqlError> {
        let toks = self.toks;
        // find top-level ORDER BY / LIMIT
        let mut depth = 0;
        let mut order_at = None;
        let mut limit_at = None;
        let mut where_at = None;
        for (k, t) in toks.iter().enumerate().skip(from) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
            } else if depth == 0 {
                if t.is_kw("ORDER") && self.word_at(k + 1, "BY") && order_at.is_none() {
                    order_at = Some(k);
                } else if t.is_kw("LIMIT") && limit_at.is_none() {
                    limit_at = Some(k);
                } else if t.is_kw("WHERE") && where_at.is_none() {
                    where_at = Some(k);
                }
            }
        }
        // WHERE, then ORDER BY, then LIMIT: anything else is MySQL's 1064
        // (and the translation below relies on that order).
        let out_of_place = match (where_at, order_at.or(limit_at), order_at, limit_at) {
            (Some(w), Some(t), _, _) if w > t => Some(w),
            (_, _, Some(o), Some(l)) if o > l => Some(o),
            _ => None,
        };
        if let Some(at) = out_of_place {
            return Err(SqlError::syntax(&self.sql[toks[at].start..]));
        }
        Ok(TailClauses { where_at, order_at, limit_at })
    }

    /// DELETE FROM the table; with ORDER BY/LIMIT, `DELETE FROM t WHERE rowid
    /// IN (SELECT rowid FROM t [WHERE ...] [ORDER BY] [LIMIT])`.
    fn delete(&mut self, target: &SingleTable, clauses: &TailClauses) -> Result<(), SqlError> {
        let toks = self.toks;
        let (tstart, tend) = (target.start, target.end);
        let TailClauses { where_at, order_at, limit_at } = *clauses;
        self.raw("DELETE FROM ");
        let body_start = tend;
        if order_at.is_none() && limit_at.is_none() {
            self.emit(tstart, toks.len())?;
            return Ok(());
        }
        if target.alias {
            return Err(Self::unsupported("ORDER BY/LIMIT in UPDATE or DELETE with a table alias"));
        }
        let tail = order_at.or(limit_at).unwrap_or(toks.len());
        let cut = where_at.unwrap_or(tail);
        // DELETE FROM t WHERE rowid IN (SELECT rowid FROM t [WHERE ...] [ORDER BY] [LIMIT])
        self.emit(tstart, tend)?;
        self.emit(body_start, cut)?;
        self.raw(" WHERE rowid IN (SELECT rowid FROM ");
        self.last_end = None;
        self.emit(tstart, tend)?;
        self.emit(cut, toks.len())?;
        self.raw(")");
        Ok(())
    }

    /// UPDATE, with MySQL's affected-rows rule: a matched row whose new values
    /// equal the stored ones is not written and not counted as changed.
    ///
    /// `UPDATE t SET a = X, b = Y WHERE cond` becomes
    /// `UPDATE t SET a = X, b = Y WHERE (cond) AND ts_chg('<affinities>', a, X, b, Y, <cond's columns>)`.
    /// `ts_chg` (functions.rs) runs once per row that satisfies `cond` (it is
    /// the last WHERE term; the trailing column references keep SQLite from
    /// testing it before cond's terms when an index covers it): it counts the
    /// row as matched and is true when some new value, after the column's
    /// affinity, differs from the stored one (NULL-safe, byte-exact). So
    /// SQLite's change count is MySQL's "changed" and the function's count its
    /// "matched". With ORDER BY/LIMIT (or a subquery in the WHERE) the rows are
    /// chosen first, `WHERE rowid IN (SELECT rowid FROM t WHERE cond ORDER BY
    /// .. LIMIT n) AND ts_chg(..)`, so LIMIT still counts matched rows.
    /// Parameters are numbered (`?N`) because X and Y appear twice. A SET value
    /// that is not repeatable (RAND(), UUID(), ...) is not compared: every
    /// matched row is written and counts as changed.
    fn update(&mut self, mut cursor: TokenCursor<'_>, ignore: bool, target: SingleTable, where_at: Option<usize>, tail: Option<usize>) -> Result<(), SqlError> {
        let toks = self.toks;
        let SingleTable { db, table, start: tstart, end: tend, alias: _, alias_end } = target;
        self.param_ord = Some(param_ordinals(toks));
        let def = self.resolver.table(db.as_deref(), &table);
        self.store_table = store_table_name(db.as_deref().or(self.resolver.home()), &table);
        let set_end = [where_at, tail].into_iter().flatten().min().unwrap_or(toks.len());
        let mut assigns = set_assignments(&mut cursor, set_end)?;
        let kept = self.drop_generated_sets(&mut assigns, def.as_deref())?;
        self.raw(if ignore { "UPDATE OR IGNORE " } else { "UPDATE " });
        let repeatable = !assigns.iter().any(|&(_, s, e)| calls_not_repeatable(toks, s, e));
        // A value's conditions (a lenient value's warnings, a division by
        // zero) come from the change test's copy, which runs once per
        // matched row (MariaDB evaluates each, changed or not); the SET's
        // copy, run for changed rows only, raises none.
        let raising = repeatable && (self.lenient || self.div_zero > 0);
        let div_zero = self.div_zero;
        if raising {
            self.fit_quiet = true;
            self.div_zero = 0;
        }
        let (at, mut values) = match kept {
            None => self.emit_set(tstart, &assigns, def.as_deref())?,
            Some(apart) => self.emit_set_apart(tstart, apart, &assigns, def.as_deref())?,
        };
        self.fit_quiet = false;
        self.div_zero = div_zero;
        if raising && !assigns.is_empty() {
            values = self.raising_values(&assigns, def.as_deref())?;
        }
        // Columns of the table the WHERE refers to (see above).
        let refs = where_columns(toks, where_at, tail, def.as_deref());
        let subquery = where_at.is_some_and(|w| toks[w..].iter().any(|t| t.is_kw("SELECT")));
        let direct = tail.is_none() && !subquery;
        let ts_chg_call = change_test(&values, repeatable, if direct { &refs } else { &[] }, def.as_deref());
        if direct {
            let cut = where_at.unwrap_or(toks.len());
            self.emit(at, cut)?;
            match where_at {
                Some(w) => {
                    self.raw(" WHERE (");
                    self.emit(w + 1, toks.len())?;
                    self.raw(") AND ");
                }
                None => self.raw(" WHERE "),
            }
            self.raw(&ts_chg_call);
            return Ok(());
        }
        // UPDATE t SET ... WHERE rowid IN (SELECT rowid FROM t [alias] [WHERE ...] [ORDER BY] [LIMIT]) AND ts_chg(..)
        let cut = where_at.or(tail).unwrap_or(toks.len());
        self.emit(at, cut)?;
        self.raw(" WHERE rowid IN (SELECT rowid FROM ");
        self.last_end = None;
        self.emit(tstart, tend)?;
        self.emit(tend, alias_end)?;
        self.emit(cut, toks.len())?;
        self.raw(") AND ");
        self.raw(&ts_chg_call);
        Ok(())
    }

    /// The statement from the table (token `tstart`) through the SET list,
    /// each value through `emit_store`. Returns the token after the last
    /// value and each (column, SQLite text of its new value).
    fn emit_set(&mut self, tstart: usize, assigns: &[(String, usize, usize)], def: Option<&TableDef>) -> Result<(usize, Vec<(String, String)>), SqlError> {
        let mut at = tstart;
        let mut values: Vec<(String, String)> = Vec::new();
        for (col, s, e) in assigns {
            self.emit(at, *s)?;
            let from = self.out.len();
            self.emit_set_value(*s, *e, def.and_then(|d| d.column(col)))?;
            values.push((col.clone(), self.out[from..].trim().to_string()));
            at = *e;
        }
        Ok((at, values))
    }

    /// SET of a generated column: `= DEFAULT` leaves the list, any other
    /// value is MariaDB's 1906 (in a lenient write it leaves the list too:
    /// MariaDB's warning is not raised). Some(the SET keyword's token, the
    /// values that left) when one left, for `emit_set_apart`.
    fn drop_generated_sets(&mut self, assigns: &mut Vec<(String, usize, usize)>, def: Option<&TableDef>) -> Result<Option<SetsApart>, SqlError> {
        let Some(def) = def.filter(|d| d.columns.iter().any(|c| c.generated.is_some())) else { return Ok(None) };
        let Some(first) = assigns.first().map(|a| a.1) else { return Ok(None) };
        let set_kw = (0..first).rev().find(|&k| self.toks[k].is_kw("SET")).unwrap_or(0);
        let before = assigns.len();
        for (col, s, e) in assigns.iter() {
            if def.column(col).is_some_and(|c| c.generated.is_some()) && !(*e == s + 1 && self.toks[*s].is_kw("DEFAULT")) && !self.lenient {
                return Err(SqlError::new(1906, "HY000", format!("The value specified for generated column '{}' in table '{}' has been ignored", col, def.name)));
            }
        }
        let dropped: Vec<(usize, usize)> =
            assigns.iter().filter(|(col, s, e)| def.column(col).is_some_and(|c| c.generated.is_some()) && !(*e == s + 1 && self.toks[*s].is_kw("DEFAULT"))).map(|a| (a.1, a.2)).collect();
        let list_end = assigns.last().map_or(first, |a| a.2);
        assigns.retain(|(col, _, _)| def.column(col).is_none_or(|c| c.generated.is_none()));
        Ok((assigns.len() != before).then_some(SetsApart { set_kw, dropped, list_end }))
    }

    /// `emit_set` when assignments left the list: the table through SET,
    /// then each kept `col = value` from its column; none kept: the first
    /// stored column set to itself (the row matches and is not changed, as
    /// in MariaDB). The values that left stay in the statement, unused
    /// (`rowid = iif(value IS NULL, rowid, rowid)`): their literals may be
    /// parameters the statement is executed with.
    fn emit_set_apart(
        &mut self,
        tstart: usize,
        SetsApart { set_kw, dropped, list_end }: SetsApart,
        assigns: &[(String, usize, usize)],
        def: Option<&TableDef>,
    ) -> Result<(usize, Vec<(String, String)>), SqlError> {
        self.emit(tstart, set_kw + 1)?;
        let mut values = Vec::new();
        for (k, (col, s, e)) in assigns.iter().enumerate() {
            let mut col_start = s.saturating_sub(2);
            while col_start >= 2 && self.toks[col_start - 1].is_op(".") {
                col_start -= 2;
            }
            if k > 0 {
                self.raw(",");
            }
            self.last_end = None;
            self.raw(" ");
            self.emit(col_start, *s)?;
            let from = self.out.len();
            self.emit_set_value(*s, *e, def.and_then(|d| d.column(col)))?;
            values.push((col.clone(), self.out[from..].trim().to_string()));
        }
        if assigns.is_empty() {
            let Some(c) = def.and_then(|d| d.columns.iter().find(|c| c.generated.is_none())) else { return Err(SqlError::syntax("")) };
            let q = crate::schema::sq_ident(&c.name);
            self.raw(&format!(" {} = {}", q, q));
            values.push((c.name.clone(), q));
        }
        for (s, e) in dropped {
            self.raw(", rowid = iif((");
            self.last_end = None;
            self.emit(s, e)?;
            self.raw(") IS NULL, rowid, rowid)");
        }
        Ok((list_end, values))
    }

    /// One SET value, tokens [s, e), for column `cd`: `DEFAULT` as the column's default, `IGNORE`
    /// as its value unchanged, anything else through `emit_store`.
    pub(super) fn emit_set_value(&mut self, s: usize, e: usize, cd: Option<&crate::schema::ColumnDef>) -> Result<(), SqlError> {
        match cd {
            Some(cd) if e == s + 1 && self.toks[s].is_kw("DEFAULT") => {
                if cd.default.is_none() && !cd.nullable && !cd.auto_increment && !self.lenient {
                    // MariaDB's strict answer; a lenient write takes the type's zero.
                    return Err(SqlError::new(1364, "HY000", format!("Field '{}' doesn't have a default value", cd.name)));
                }
                self.raw(" ");
                let default = match (&self.set_target, &cd.default) {
                    (Some((table, columns)), Some(crate::schema::Default_::Expr(e))) => format!("({})", super::expression(&qualified(e, table, columns))?),
                    _ => crate::ddl::implicit_default(cd),
                };
                self.raw(&default);
                Ok(())
            }
            // MariaDB's `SET c = IGNORE`: the column keeps its value.
            Some(cd) if e == s + 1 && self.toks[s].is_kw("IGNORE") => {
                self.raw(" ");
                if let Some((table, _)) = &self.set_target {
                    let table = crate::schema::sq_ident(table);
                    self.raw(&table);
                    self.raw(".");
                }
                self.raw(&crate::schema::sq_ident(&cd.name));
                Ok(())
            }
            Some(cd) if e > s => self.emit_store(s, e, Some(cd)),
            _ => self.emit(s, e),
        }
    }

    /// The SET values translated once more, raising what they raise (the
    /// change test's copies: see `update`); nothing is left in the output.
    fn raising_values(&mut self, assigns: &[(String, usize, usize)], def: Option<&TableDef>) -> Result<Vec<(String, String)>, SqlError> {
        let last_end = self.last_end;
        let mut values = Vec::with_capacity(assigns.len());
        for (col, s, e) in assigns {
            let from = self.out.len();
            self.last_end = None;
            self.emit_set_value(*s, *e, def.and_then(|d| d.column(col)))?;
            values.push((col.clone(), self.out[from..].trim().to_string()));
            self.out.truncate(from);
        }
        self.last_end = last_end;
        Ok(values)
    }
}

/// A column default's expression (MySQL text) with the bare names of
/// `columns` in it qualified by `table` (a multi-table UPDATE's target, whose
/// join has other tables with columns of those names).
fn qualified(expr: &str, table: &str, columns: &[String]) -> String {
    let Ok(toks) = turnstile_sqltext::lex::tokenize(expr) else { return expr.to_string() };
    let quote = |n: &str| format!("`{}`", n.replace('`', "``"));
    let mut out = String::with_capacity(expr.len() + 16);
    let mut last = 0;
    for (i, t) in toks.iter().enumerate() {
        let dotted = (i > 0 && toks[i - 1].is_op(".")) || toks.get(i + 1).is_some_and(|n| n.is_op(".") || n.is_op("("));
        let Some(name) = t.ident().filter(|_| !dotted) else { continue };
        if columns.iter().any(|c| c.eq_ignore_ascii_case(name)) {
            out.push_str(&expr[last..t.start]);
            out.push_str(&format!("{}.{}", quote(table), quote(name)));
            last = t.end;
        }
    }
    out.push_str(&expr[last..]);
    out
}

/// An UPDATE's SET list after generated columns left it
/// (`drop_generated_sets`): the SET keyword's token, the values that left
/// (tokens [s, e)), the token after the list.
struct SetsApart {
    set_kw: usize,
    dropped: Vec<(usize, usize)>,
    list_end: usize,
}

/// UPDATE or DELETE with its modifiers: whether IGNORE is among them.
fn update_delete_verb(cursor: &mut TokenCursor<'_>, update: bool) -> Result<bool, SqlError> {
    let mut ignore = false;
    if update {
        cursor.expect_kw("UPDATE")?;
    } else {
        cursor.expect_kw("DELETE")?;
    }
    loop {
        if cursor.eat_kw("LOW_PRIORITY") || cursor.eat_kw("QUICK") {
            continue;
        }
        if cursor.eat_kw("IGNORE") {
            ignore = true;
            continue;
        }
        break;
    }
    Ok(ignore)
}

/// SET col = value, ... before token `set_end`: (column, value token range).
fn set_assignments(cursor: &mut TokenCursor<'_>, set_end: usize) -> Result<Vec<(String, usize, usize)>, SqlError> {
    let toks = cursor.toks;
    let mut assigns: Vec<(String, usize, usize)> = Vec::new();
    if cursor.eat_kw("SET") {
        while cursor.pos < set_end {
            let mut col = cursor.ident()?;
            while cursor.eat_op(".") {
                col = cursor.ident()?;
            }
            if !(cursor.eat_op("=") || cursor.eat_op(":=")) {
                return Err(cursor.error().into());
            }
            let s = cursor.pos;
            let e = expr_end(toks, s).min(set_end);
            assigns.push((col, s, e));
            cursor.pos = e;
            if !cursor.eat_op(",") {
                break;
            }
        }
    }
    Ok(assigns)
}

/// Columns of `def` the WHERE (from `where_at` up to `tail`) refers to,
/// each once.
fn where_columns(toks: &[Token], where_at: Option<usize>, tail: Option<usize>, def: Option<&TableDef>) -> Vec<String> {
    let mut refs: Vec<String> = Vec::new();
    if let (Some(w), Some(d)) = (where_at, def) {
        for t in &toks[w..tail.unwrap_or(toks.len())] {
            if let Some(name) = t.ident() {
                if let Some(col) = d.column(name) {
                    if !refs.iter().any(|r| r.eq_ignore_ascii_case(&col.name)) {
                        refs.push(col.name.clone());
                    }
                }
            }
        }
    }
    refs
}

/// `ts_chg('<affinities>', col, (value), ..., <refs>)`: the new values are
/// compared only when `repeatable`; `refs` are the WHERE's columns.
fn change_test(values: &[(String, String)], repeatable: bool, refs: &[String], def: Option<&TableDef>) -> String {
    let mut ts_chg_call = String::from("ts_chg('");
    if repeatable {
        for (col, _) in values {
            ts_chg_call.push(affinity_code(def, col));
        }
    }
    ts_chg_call.push('\'');
    if repeatable {
        for (col, v) in values {
            ts_chg_call.push_str(&format!(", {}, ({})", sq_ident(col), quiet_store(v)));
        }
    }
    for r in refs {
        ts_chg_call.push_str(&format!(", {}", sq_ident(r)));
    }
    ts_chg_call.push(')');
    ts_chg_call
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn clauses_out_of_order_are_syntax_errors() {
        for sql in ["UPDATE sbtest1 SET k = 1 ORDER BY id WHERE 1", "UPDATE sbtest1 SET k = 1 LIMIT 1 ORDER BY id", "DELETE FROM sbtest1 ORDER BY id WHERE 1", "DELETE FROM sbtest1 LIMIT 1 WHERE 1"] {
            let kind = if sql.starts_with("UPDATE") { Kind::Update } else { Kind::Delete };
            assert_eq!(rewrite(sql, kind, &resolver()).unwrap_err().code, 1064, "{}", sql);
        }
    }

    #[test]
    fn a_verb_alone_is_a_syntax_error_not_a_panic() {
        // Found by the rewrite fuzz target: `DELETE # fz1) = 'a'` is DELETE and a comment.
        for (sql, kind) in [("DELETE # fz1) = 'a'", Kind::Delete), ("DELETE", Kind::Delete), ("DELETE LOW_PRIORITY IGNORE", Kind::Delete), ("UPDATE", Kind::Update), ("UPDATE IGNORE", Kind::Update)] {
            assert_eq!(rewrite(sql, kind, &resolver()).unwrap_err().code, 1064, "{}", sql);
        }
    }

    #[test]
    fn update_delete_limit() {
        let rw = rewrite("UPDATE sbtest1 SET k=k+1 WHERE id=? ORDER BY id LIMIT 1", Kind::Update, &resolver()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k=k+1 WHERE rowid IN (SELECT rowid FROM sbtest1 WHERE id=?1 ORDER BY id LIMIT 1) AND ts_chg('I', \"k\", (k+1))");
        let rw = rewrite("UPDATE sbtest1 AS s SET s.k = 0 ORDER BY s.id DESC LIMIT ?", Kind::Update, &resolver()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 AS s SET s.k = 0 WHERE rowid IN (SELECT rowid FROM sbtest1 AS s ORDER BY s.id DESC LIMIT CAST(ROUND(?1) AS INTEGER)) AND ts_chg('I', \"k\", (0))");
        // sysbench's updates: the row is written (and counted as changed) only when a value differs
        let rw = rewrite("UPDATE sbtest1 SET c=? WHERE id=?", Kind::Update, &resolver()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET c=?1 WHERE (id=?2) AND ts_chg('T', \"c\", (?1), \"id\")");
        // IGNORE: lenient values, quiet in the SET, raising their warnings in the change test (once per matched row)
        let rw = rewrite("UPDATE IGNORE sbtest1 SET k=k+1, c = CONCAT(c, 'x') WHERE k > 5 OR `c` IS NULL", Kind::Update, &resolver()).unwrap();
        assert_eq!(
            rw.sql,
            "UPDATE OR IGNORE sbtest1 SET k=ts_fit_q(k+1, 0) , c = ts_fit_q(CONCAT(c, 'x'), 1) WHERE (k > 5 OR \"c\" IS NULL) AND ts_chg('IT', \"k\", (ts_fit(k+1, 0)), \"c\", (ts_fit(CONCAT(c, 'x'), 1)), \"k\", \"c\")"
        );
        let rw = rewrite("UPDATE sbtest1 SET k = FLOOR(RAND() * 2)", Kind::Update, &resolver()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k = ts_int2(FLOOR(ts_rand() * 2), -2147483648, 2147483647) WHERE ts_chg('')");
        // a subquery in the WHERE: rows are chosen first
        let rw = rewrite("UPDATE sbtest1 SET k = 1 WHERE id IN (SELECT id FROM sbtest1 WHERE c = 'a')", Kind::Update, &resolver()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k = 1 WHERE rowid IN (SELECT rowid FROM sbtest1 WHERE id IN (SELECT id FROM sbtest1 WHERE c = 'a')) AND ts_chg('I', \"k\", (1))");
        let rw = rewrite("DELETE FROM sbtest1 WHERE id=?", Kind::Delete, &resolver()).unwrap();
        assert_eq!(rw.sql, "DELETE FROM sbtest1 WHERE id=?");
        // multi-table: a join (rewrite/multi_table.rs)
        assert!(rewrite("DELETE a FROM sbtest1 a JOIN sbtest1 b", Kind::Delete, &resolver()).unwrap().multi.is_some());
    }
}
