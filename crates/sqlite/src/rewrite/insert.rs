//! INSERT and REPLACE: every MySQL form as one SQLite INSERT.
//!
//! IGNORE → INSERT OR IGNORE; INSERT ... SET → a column list and one row;
//! VALUES rows with DEFAULT filled in from the definition and values
//! through `emit_store`; AUTO_INCREMENT values through `ts_ai` (MySQL's 0 and
//! NULL take the next id); INSERT ... SELECT through a CTE when its values
//! need that too. ON DUPLICATE KEY UPDATE is upsert.rs. What the statement
//! writes is described in `InsertInfo` (for the OK packet, ERR 1062 and
//! LAST_INSERT_ID).

use super::store::{binary_pad, bit_literal, expr_end, implicit_zero, param_ordinals, store_table_name};
use super::translator::Translator;
use super::InsertInfo;
use crate::schema::{self, sq_ident, Base, ColumnDef, TableDef};
use std::sync::Arc;
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex::Tok;

/// Where an INSERT's rows come from.
enum InsertSource {
    /// Rows of a VALUES list (or the one row of INSERT ... SET): the token
    /// range [from, to) of each value.
    Values(Vec<Vec<(usize, usize)>>),
    /// INSERT ... SELECT: the token range of the query.
    Select(usize, usize),
}

/// The table an INSERT writes.
struct InsertTarget {
    table: String,
    def: Option<Arc<TableDef>>,
    /// The SQLite schema named in the statement (`db.t`), if any.
    schema: Option<String>,
}

impl Translator<'_> {
    /// The call around a value stored into an AUTO_INCREMENT column, open
    /// parenthesis included: `ts_ai` takes the next value for NULL or 0,
    /// `ts_ai_null` for NULL only (sql_mode NO_AUTO_VALUE_ON_ZERO).
    fn auto_increment_call(&self) -> &'static str {
        match (self.ai_largest.is_some(), self.sql_mode.no_auto_value_on_zero()) {
            (false, true) => "ts_ai_null(",
            (false, false) => "ts_ai(",
            (true, true) => "ts_ai_key_null(",
            (true, false) => "ts_ai_key(",
        }
    }

    /// What closes `auto_increment_call`: `)`, or for `ts_ai_key` its
    /// second argument too.
    fn auto_increment_close(&self) -> String {
        match &self.ai_largest {
            Some(largest) => format!(", {})", largest),
            None => ")".into(),
        }
    }

    pub(super) fn insert(&mut self) -> Result<InsertInfo, SqlError> {
        let toks = self.toks;
        let mut cursor = TokenCursor::new(self.sql, toks);
        let (replace, ignore) = insert_verb(&mut cursor)?;
        let InsertTarget { table, def, schema } = self.insert_target(&mut cursor)?;
        let qualified_name = match &schema {
            Some(q) => format!("{}.{}", q, sq_ident(&table)),
            None => sq_ident(&table),
        };
        let db = self.tables.last().and_then(|(d, _)| d.clone()).or_else(|| self.resolver.home().map(str::to_string));
        let owner = (db.as_deref(), table.as_str());
        let (mut cols, explicit_cols) = column_list(&mut cursor, owner)?;
        let ai_col = def.as_ref().and_then(|d| d.auto_increment_column().map(|a| a.name.clone()));
        let schema = schema.unwrap_or_else(|| if self.resolver.is_temp(&table) { "temp" } else { "main" }.to_string());
        let target = format!("{}.{}", schema, sq_ident(&table));
        let ai_keyed = def.as_deref().and_then(|d| d.auto_increment_column().map(|a| !crate::ddl::is_rowid_column(d, a))).unwrap_or(false);
        if let (true, Some(a)) = (ai_keyed, &ai_col) {
            self.ai_largest = Some(format!("(SELECT max({}) FROM {})", sq_ident(a), target));
        }
        let mut info = InsertInfo { has_ai: ai_col.is_some(), ai_keyed, ignore, replace, target, schema, table: table.clone(), ..Default::default() };
        let odku = self.has_odku(cursor.pos);
        if odku {
            // ON DUPLICATE KEY UPDATE values are written twice (see below).
            self.param_ord = Some(param_ordinals(toks));
        }
        self.set_write_mode(ignore);
        // A lenient INSERT IGNORE skips a duplicate with MariaDB's warning
        // (`ignore_duplicates`); without a table definition, SQLite skips it.
        let dup_clause = match (&def, ignore && !odku && !replace) {
            (Some(d), true) if self.lenient => Some(ignore_duplicates(d)),
            _ => None,
        };
        let verb = if replace {
            "REPLACE"
        } else if ignore && !odku && dup_clause.is_none() {
            "INSERT OR IGNORE"
        } else {
            "INSERT"
        };
        self.upsert_follows = odku || dup_clause.as_ref().is_some_and(|c| !c.is_empty());
        let ignore_fks = ignore && !replace && self.lenient && self.resolver.foreign_key_checks();
        let mut source = insert_source(&mut cursor, explicit_cols, &mut cols, owner)?;
        if let Some(twice) = cols.iter().enumerate().find(|(k, c)| cols[..*k].iter().any(|p| p.eq_ignore_ascii_case(c))).map(|(_, c)| c) {
            return Err(SqlError::new(1110, "42000", format!("Column '{}' specified twice", twice)));
        }
        // `VALUES (), ()`: rows of defaults only, as an empty column list would give them.
        let explicit_cols = explicit_cols || (cols.is_empty() && matches!(&source, InsertSource::Values(rows) if rows.iter().all(|r| r.is_empty())));
        // NULL into NOT NULL: MariaDB's warning and the column's zero, but
        // for a single-row INSERT without IGNORE (its error 1048).
        self.nulls_to_default = self.lenient && (ignore || !matches!(&source, InsertSource::Values(rows) if rows.len() == 1));
        if cursor.is_kw("AS") {
            return Err(Self::unsupported("row aliases in INSERT (INSERT ... AS alias)"));
        }
        // target columns
        if cols.is_empty() && !explicit_cols {
            if let Some(d) = &def {
                cols = d.columns.iter().map(|c| c.name.clone()).collect();
            }
        }
        info.skipped = match def.as_deref() {
            Some(d) => self.drop_generated(d, &mut cols, &mut source, &mut info)?,
            None => Vec::new(),
        };
        let skipped = info.skipped.clone();
        if let Some(d) = def.as_deref().filter(|_| skipped.is_empty()) {
            drop_row_default_keywords(self.toks, d, &mut cols, &mut source);
        }
        let ai_pos = ai_col.as_ref().and_then(|a| cols.iter().position(|c| c.eq_ignore_ascii_case(a)));
        info.ai_named = ai_pos.is_some();
        info.cols = cols.clone();
        let filled = match &def {
            Some(d) if explicit_cols || !cols.is_empty() => self.missing_values(d, &cols, &mut info)?,
            _ => Vec::new(),
        };
        if let (Some(d), InsertSource::Values(rows)) = (def.as_deref(), &source) {
            self.default_without_default(d, &cols, rows, &mut info);
        }
        if let Some(d) = def.as_deref().filter(|_| ignore_fks) {
            let all: Vec<&str> = cols.iter().chain(filled.iter().map(|(c, _)| c)).map(String::as_str).collect();
            self.row_filter = parent_tests(d, &all, &info.schema, &self.store_table);
        }
        self.raw(&format!("{} INTO {}", verb, qualified_name));
        let all_cols: Vec<&String> = cols.iter().enumerate().filter(|(k, _)| !skipped.contains(k)).map(|(_, c)| c).chain(filled.iter().map(|(c, _)| c)).collect();
        if !all_cols.is_empty() {
            self.raw(&format!(" ({})", all_cols.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")));
        }
        match source {
            InsertSource::Values(rows) if self.lenient && def.is_some() && self.emit_values_source(&rows, &cols, &filled, def.as_deref().expect("checked"), ai_pos, &mut info)? => {}
            InsertSource::Values(rows) => self.emit_value_rows(&rows, &cols, &filled, def.as_deref(), ai_pos, &mut info)?,
            InsertSource::Select(s, e) => {
                info.rows = 0;
                self.emit_select_source(s, e, &cols, &filled, def.as_deref(), ai_pos)?;
            }
        }
        if let Some(clause) = dup_clause {
            if !self.out.ends_with(" DEFAULT VALUES") {
                self.raw(&clause);
            }
        }
        if cursor.eat_kw("ON") {
            self.on_duplicate_key_update(&mut cursor, def.as_deref(), &mut info)?;
        }
        if cursor.is_kw("RETURNING") {
            // MariaDB's INSERT ... RETURNING: SQLite's clause, in the same place.
            self.raw(" ");
            self.emit(cursor.pos, toks.len())?;
            cursor.pos = toks.len();
        }
        if !cursor.at_end() {
            return Err(cursor.error().into());
        }
        Ok(info)
    }

    /// The table after INSERT [INTO]: noted among the statement's tables,
    /// its schema resolved (1146 for a database that does not exist).
    fn insert_target(&mut self, cursor: &mut TokenCursor<'_>) -> Result<InsertTarget, SqlError> {
        let (db, table) = cursor.qualified()?;
        if cursor.is_kw("PARTITION") {
            return Err(Self::unsupported("PARTITION in INSERT"));
        }
        let def = self.resolver.table(db.as_deref(), &table);
        self.store_table = store_table_name(db.as_deref().or(self.resolver.home()), &table);
        self.tables.push((db.clone(), table.clone()));
        let schema = match &db {
            Some(d) => match self.qualifier(d, &table) {
                Some(q) => Some(q),
                None => return Err(SqlError::new(1146, "42S02", format!("Table '{}.{}' doesn't exist", d, table))),
            },
            None => None,
        };
        Ok(InsertTarget { table, def, schema })
    }

    /// The rows of a VALUES list (or INSERT ... SET) after the column list:
    /// DEFAULT as the column's default, the AUTO_INCREMENT column's value
    /// (column `ai_pos`) through `ts_ai`, the others through `emit_store`.
    /// Notes the row count and the first row's values in `info`.
    fn emit_value_rows(
        &mut self,
        rows: &[Vec<(usize, usize)>],
        cols: &[String],
        filled: &[(String, String)],
        def: Option<&TableDef>,
        ai_pos: Option<usize>,
        info: &mut InsertInfo,
    ) -> Result<(), SqlError> {
        info.rows = rows.len();
        if rows.len() == 1 && rows[0].is_empty() && cols.is_empty() && filled.is_empty() {
            self.raw(" DEFAULT VALUES");
            return Ok(());
        }
        if let (Some(first), true) = (def.and_then(|d| d.columns.iter().find(|c| c.generated.is_none())), rows.iter().all(|r| r.is_empty()) && cols.is_empty() && filled.is_empty()) {
            // `VALUES (), ()`: SQLite's DEFAULT VALUES is one row; name one column with its default.
            let value = if first.auto_increment { "NULL".to_string() } else { crate::ddl::implicit_default(first) };
            let row = format!("({})", value);
            self.raw(&format!(" ({}) VALUES {}", sq_ident(&first.name), vec![row; rows.len()].join(", ")));
            return Ok(());
        }
        // Defaults naming the row's columns read them from the VALUES rows.
        let wrap = filled.iter().any(|(_, v)| v.contains(ROW_COLUMN));
        let filled_in_rows: &[(String, String)] = if wrap { &[] } else { filled };
        if wrap {
            let mut list: Vec<String> = (1..=cols.len()).map(|k| format!("column{}", k)).collect();
            list.extend(filled.iter().map(|(_, v)| row_columns_named(v, |k| format!("column{}", k + 1))));
            self.raw(&format!(" SELECT {} FROM (", list.join(", ")));
        }
        let filled = filled_in_rows;
        self.raw(" VALUES ");
        for (row_index, row) in rows.iter().enumerate() {
            if !cols.is_empty() && row.len() != cols.len() {
                return Err(SqlError::new(1136, "21S01", format!("Column count doesn't match value count at row {}", row_index + 1)));
            }
            if row_index > 0 {
                self.raw(", ");
            }
            self.raw("(");
            self.store_row = row_index + 1;
            let names_columns = def.filter(|d| self.row_names_columns(row, d));
            let mut given: Vec<String> = Vec::new();
            for (value_index, &(s, e)) in row.iter().enumerate() {
                if value_index > 0 {
                    self.raw(", ");
                }
                if let Some(d) = names_columns {
                    self.row_refs = row_references(d, cols, &given);
                }
                let cd = cols.get(value_index).and_then(|n| def.and_then(|d| d.column(n)));
                let at = self.out.len();
                let first = self.emit_row_value(s, e, cd, Some(value_index) == ai_pos, row_index == 0)?;
                self.row_refs.clear();
                if names_columns.is_some() {
                    given.push(self.out[at..].trim().to_string());
                }
                if let Some(text) = first {
                    info.first_row.push(text);
                }
            }
            for (k, (_, value)) in filled.iter().enumerate() {
                if k > 0 || !row.is_empty() {
                    self.raw(", ");
                }
                self.raw(value);
            }
            if row.is_empty() && filled.is_empty() {
                // `VALUES ()` under the SELECT of row defaults: one column.
                self.raw("NULL");
            }
            self.raw(")");
        }
        if wrap {
            self.raw(&format!("){}", self.source_end()));
        }
        self.store_row = 0;
        Ok(())
    }

    /// One value of a VALUES row, tokens [s, e), for column `cd` (`ai`: the
    /// AUTO_INCREMENT column). Returns the SQLite text written when asked
    /// (`first_row`).
    fn emit_row_value(&mut self, s: usize, e: usize, cd: Option<&ColumnDef>, ai: bool, first_row: bool) -> Result<Option<String>, SqlError> {
        let toks = self.toks;
        let is_default = default_keyword(toks, s, e);
        if is_default {
            if cd.is_some_and(|c| c.row_default().is_some()) {
                return Err(Self::unsupported("DEFAULT in VALUES for a column whose default names other columns"));
            }
            let d = match cd {
                Some(cd) if cd.auto_increment && self.ai_largest.is_some() => format!("{}NULL{}", self.auto_increment_call(), self.auto_increment_close()),
                Some(cd) if cd.auto_increment => "NULL".to_string(),
                Some(cd) => crate::ddl::implicit_default(cd),
                None => "NULL".into(),
            };
            self.raw(&d);
            return Ok(first_row.then_some(d));
        }
        let at = self.out.len();
        if ai {
            self.raw(self.auto_increment_call());
            self.emit_store(s, e, cd)?;
            self.raw(&self.auto_increment_close());
        } else {
            self.emit_store(s, e, cd)?;
        }
        Ok(first_row.then(|| self.out[at..].trim().to_string()))
    }

    /// INSERT ... SELECT, the query at tokens [s, e). When a value needs
    /// `ts_ai`, `ts_bin`, `ts_dec` or (a lenient write) `ts_fit`, or the
    /// statement is an upsert (SQLite's parser needs a WHERE between a
    /// SELECT and ON CONFLICT), the query becomes the CTE `ts_src` the
    /// values are selected from.
    fn emit_select_source(&mut self, s: usize, e: usize, cols: &[String], filled: &[(String, String)], def: Option<&TableDef>, ai_pos: Option<usize>) -> Result<(), SqlError> {
        let odku = self.has_odku(e);
        let list = self.source_select_list(cols, filled, def, ai_pos);
        let plain = list.iter().enumerate().all(|(k, v)| *v == format!("c{}", k));
        if ai_pos.is_some() || odku || !plain || !filled.is_empty() || self.row_filter.is_some() {
            self.open_source(cols.len());
            self.emit(s, e)?;
            self.close_source(&list);
        } else {
            self.raw(" ");
            self.emit(s, e)?;
        }
        Ok(())
    }

    /// A lenient write's VALUES rows: the CTE `ts_src` of the values as
    /// written, and one select list that fits them (`source_select_list`),
    /// so `ts_fit` and the column's forms are written once per column, not
    /// once per value: a dump's multi-row INSERT of 1,000 rows compiles
    /// about as fast as a strict one (rows are then counted per column,
    /// which is the VALUES row). False (nothing written) for rows without
    /// values.
    fn emit_values_source(
        &mut self,
        rows: &[Vec<(usize, usize)>],
        cols: &[String],
        filled: &[(String, String)],
        def: &TableDef,
        ai_pos: Option<usize>,
        info: &mut InsertInfo,
    ) -> Result<bool, SqlError> {
        if cols.is_empty() || rows.iter().any(|r| r.len() != cols.len()) {
            return Ok(false);
        }
        info.rows = rows.len();
        self.open_source(cols.len());
        self.raw("VALUES ");
        for (row_index, row) in rows.iter().enumerate() {
            self.raw(if row_index == 0 { "(" } else { ", (" });
            for (value_index, &(s, e)) in row.iter().enumerate() {
                if value_index > 0 {
                    self.raw(", ");
                }
                let at = self.out.len();
                self.emit_source_value(s, e, def.column(&cols[value_index]), Some(value_index) == ai_pos)?;
                if row_index == 0 {
                    info.first_row.push(self.out[at..].trim().to_string());
                }
            }
            self.raw(")");
        }
        let mut list = self.source_select_list(cols, filled, Some(def), ai_pos);
        for &k in &info.skipped {
            // Positions in decreasing order (drop_generated).
            list.remove(k);
        }
        self.close_source(&list);
        Ok(true)
    }

    /// The end of the CTE `ts_src` and the SELECT of `list` from it. With a
    /// row filter (INSERT IGNORE's parent tests), the fitted rows are
    /// materialized first (`ts_row`), so each value is fitted, and raises
    /// its warnings, once: the filter reads them by name.
    fn close_source(&mut self, list: &[String]) {
        match self.row_filter.take() {
            Some(filter) => {
                let names: Vec<String> = (0..list.len()).map(|k| format!("r{}", k)).collect();
                let end = self.source_end();
                self.raw(&format!("), ts_row({}) AS MATERIALIZED (SELECT {} FROM ts_src) SELECT * FROM ts_row WHERE {}{}", names.join(", "), list.join(", "), filter, end));
            }
            None => self.raw(&format!(") SELECT {} FROM ts_src{}", list.join(", "), self.source_end())),
        }
    }

    /// What ends the SELECT from `ts_src`: before an upsert's ON CONFLICT,
    /// SQLite's parser needs the FROM clause closed (it would read ON as a
    /// join's), which `LIMIT -1` does (no limit). `WHERE true` would too,
    /// but SQLite copies a WHERE into each row of a VALUES source (a dump's
    /// 1,000-row INSERT spent a fifth of its time there).
    fn source_end(&self) -> &'static str {
        if self.upsert_follows {
            " LIMIT -1"
        } else {
            ""
        }
    }

    /// ` WITH ts_src(c0, ..., cn-1) AS (`
    fn open_source(&mut self, n: usize) {
        let names: Vec<String> = (0..n).map(|k| format!("c{}", k)).collect();
        self.raw(&format!(" WITH ts_src({}) AS (", names.join(", ")));
    }

    /// One value of a VALUES row in `ts_src`, as written: the select list
    /// puts it in the column's form. What only the literal tells is kept:
    /// DEFAULT, a hybrid literal into a number, a decimal literal's digits,
    /// a BIT literal's bytes.
    fn emit_source_value(&mut self, s: usize, e: usize, cd: Option<&ColumnDef>, ai: bool) -> Result<(), SqlError> {
        let toks = self.toks;
        match cd {
            Some(cd) if default_keyword(toks, s, e) && cd.row_default().is_some() => Err(Self::unsupported("DEFAULT in VALUES for a column whose default names other columns")),
            Some(cd) if default_keyword(toks, s, e) => {
                let d = if cd.auto_increment { "NULL".to_string() } else { crate::ddl::implicit_default(cd) };
                self.raw(&d);
                Ok(())
            }
            // A TIME into a DATE, DATETIME or TIMESTAMP: that time on the current day (store.rs).
            Some(cd) if matches!(cd.base, Base::Date | Base::DateTime | Base::Timestamp) && self.time_typed(s, e) => {
                self.gap(&toks[s]);
                self.raw("ts_time_dt(");
                self.emit(s, e)?;
                self.raw(")");
                Ok(())
            }
            Some(cd) if cd.base == Base::Bit => match bit_literal(toks, s, e) {
                Some(lit) => {
                    self.push(&toks[s], &lit);
                    Ok(())
                }
                None => self.emit(s, e),
            },
            Some(cd) if !ai && (cd.base.is_numeric() || cd.base == Base::Year) => self.emit_number_literal(s, e, cd),
            Some(cd) => match self.double_into_text(s, e, cd) {
                Some(text) => {
                    self.push(&toks[s], &crate::schema::sq_str(&text));
                    self.last_end = Some(toks[e - 1].end);
                    Ok(())
                }
                None => self.emit(s, e),
            },
            _ => self.emit(s, e),
        }
    }

    /// The select list writing `ts_src`'s columns into `cols` (then the
    /// `filled` ones): each value fitted (a lenient write), then in its
    /// column's form (`ts_ai`, `ts_bin`, `ts_dec`, `ts_bit`, `ts_cs`).
    fn source_select_list(&mut self, cols: &[String], filled: &[(String, String)], def: Option<&TableDef>, ai_pos: Option<usize>) -> Vec<String> {
        let mut list = Vec::with_capacity(cols.len() + filled.len());
        for (k, name) in cols.iter().enumerate() {
            let src = format!("c{}", k);
            let Some(cd) = def.and_then(|d| d.column(name)) else {
                list.push(src);
                continue;
            };
            let fit = if self.lenient { self.fit_args(cd) } else { None };
            let value = match &fit {
                Some(args) => format!("ts_fit({}{}", src, args),
                None => src,
            };
            let value = match cd.base {
                _ if Some(k) == ai_pos => format!("{}{}{}", self.auto_increment_call(), value, self.auto_increment_close()),
                b if b.is_binary() => format!("ts_bin({}, {})", value, binary_pad(cd)),
                Base::Decimal => format!("ts_dec({}{}", value, self.decimal_store_args(cd)),
                _ if super::is_wide_unsigned(cd) => format!("ts_u64({}{}", value, self.unsigned_store_args(cd)),
                // NULL into a TIMESTAMP NOT NULL: the current time (store.rs).
                Base::Timestamp if !cd.nullable => format!("coalesce({}, ts_now({}))", value, cd.length.unwrap_or(0).min(6)),
                // A strict write: a fraction rounds (functions/fit.rs `ts_int2`).
                _ if fit.is_none() => match super::store::strict_int_call(cd) {
                    Some(call) => format!("ts_int2({}{}", value, call),
                    None => value,
                },
                Base::Bit if fit.is_some() => format!("ts_bit({}, {}, {})", value, cd.length.unwrap_or(1), schema::sq_str(&cd.name)),
                _ if fit.is_some() => match cd.charset_name().filter(|_| cd.base.is_text()) {
                    Some(cs @ ("latin1" | "ascii")) => format!("ts_cs({}, '{}', {}, NULL)", value, cs, schema::sq_str(&format!("{}.{}", self.store_table, schema::quote_ident(&cd.name)))),
                    _ => value,
                },
                _ => value,
            };
            list.push(value);
        }
        list.extend(filled.iter().map(|(_, v)| row_columns_named(v, |k| format!("c{}", k))));
        list
    }
}

impl Translator<'_> {
    /// Generated columns among the target columns: a value for one is
    /// MariaDB's 1906 "The value specified for generated column ... has
    /// been ignored", the statement's error in a strict write (the column
    /// and its DEFAULTs then leave the statement), a warning per value in a
    /// lenient one (`InsertInfo::generated`), where the values stay in the
    /// `ts_src` rows (their literals may be parameters) and the column's
    /// position is returned, for the select list to leave out. DEFAULT is
    /// no value. INSERT ... SELECT into one is the error either way.
    fn drop_generated(&mut self, def: &TableDef, cols: &mut Vec<String>, source: &mut InsertSource, info: &mut InsertInfo) -> Result<Vec<usize>, SqlError> {
        let mut skipped = Vec::new();
        // (row, column, message): MariaDB warns row by row.
        let mut warnings: Vec<(usize, usize, String)> = Vec::new();
        for k in (0..cols.len()).rev() {
            if def.column(&cols[k]).is_none_or(|c| c.generated.is_none()) {
                continue;
            }
            let message = format!("The value specified for generated column '{}' in table '{}' has been ignored", cols[k], def.name);
            let InsertSource::Values(rows) = source else { return Err(SqlError::new(1906, "HY000", message)) };
            for (r, row) in rows.iter_mut().enumerate().filter(|(_, r)| r.len() == cols.len()) {
                let (s, e) = row[k];
                if !default_keyword(self.toks, s, e) {
                    if !self.lenient {
                        return Err(SqlError::new(1906, "HY000", message));
                    }
                    warnings.push((r, k, message.clone()));
                }
                if !self.lenient {
                    row.remove(k);
                }
            }
            if self.lenient {
                skipped.push(k);
            } else {
                cols.remove(k);
            }
        }
        warnings.sort();
        info.generated = warnings.into_iter().map(|w| w.2).collect();
        Ok(skipped)
    }

    /// `DEFAULT` given to a NOT NULL column without a default (not
    /// AUTO_INCREMENT, not an ENUM, which takes its first member): the
    /// column's zero is written, and MariaDB's "Field 'a' doesn't have a
    /// default value" once per such value, row by row (ERR 1364 in a strict
    /// write, as for a column left out).
    fn default_without_default(&self, def: &TableDef, cols: &[String], rows: &[Vec<(usize, usize)>], info: &mut InsertInfo) {
        let bare: Vec<Option<&ColumnDef>> = cols
            .iter()
            .map(|n| def.column(n).filter(|cd| !cd.nullable && cd.default.is_none() && !cd.auto_increment && cd.generated.is_none() && cd.row_default().is_none() && cd.base != Base::Enum))
            .collect();
        if bare.iter().all(Option::is_none) {
            return;
        }
        for row in rows.iter().filter(|r| r.len() == cols.len()) {
            for (&(s, e), cd) in row.iter().zip(&bare) {
                if let Some(cd) = cd.filter(|_| default_keyword(self.toks, s, e)) {
                    info.no_default.push(format!("Field '{}' doesn't have a default value", cd.name));
                    info.no_default_fails = !self.lenient;
                }
            }
        }
    }

    /// The NOT NULL columns without a default that an INSERT with a column
    /// list leaves out, each with the value it gets: the column's zero, and
    /// MariaDB's "Field 'a' doesn't have a default value" when the statement
    /// runs (`InsertInfo::no_default`: ERR 1364 in a strict write, after the
    /// privilege checks as in MariaDB; once per column as a warning in a
    /// lenient one).
    /// An ENUM takes its first member, as MariaDB does, without a word.
    fn missing_values(&mut self, def: &TableDef, cols: &[String], info: &mut InsertInfo) -> Result<Vec<(String, String)>, SqlError> {
        let mut filled = Vec::new();
        for cd in &def.columns {
            if cd.row_default().is_some() && !cols.iter().any(|c| c.eq_ignore_ascii_case(&cd.name)) {
                filled.push((cd.name.clone(), row_default_value(def, cd, cols)?));
                continue;
            }
            let named = cols.iter().any(|c| c.eq_ignore_ascii_case(&cd.name));
            if cd.auto_increment && self.ai_largest.is_some() && !named {
                // Not the rowid: SQLite generates nothing for it.
                filled.push((cd.name.clone(), format!("{}NULL{}", self.auto_increment_call(), self.auto_increment_close())));
                continue;
            }
            if cd.nullable || cd.default.is_some() || cd.auto_increment || named {
                continue;
            }
            if cd.base == Base::Enum {
                filled.push((cd.name.clone(), cd.members.first().map(|m| schema::sq_str(m)).unwrap_or_else(|| "''".into())));
                continue;
            }
            info.no_default.push(format!("Field '{}' doesn't have a default value", cd.name));
            info.no_default_fails = !self.lenient;
            filled.push((cd.name.clone(), implicit_zero(cd)));
        }
        Ok(filled)
    }
}

/// INSERT IGNORE's test of a row's parents: for each foreign key of `def`
/// whose columns the statement writes (`cols`, in order: `ts_row`'s r0..),
/// the row passes when a column is NULL or the parent row exists, and is
/// skipped otherwise with MariaDB's Warning 1452 (`ts_fk`), as MariaDB's
/// IGNORE does. `schema`: the SQLite schema of the table (its parents are
/// in it); `table`: the table as messages name it. None without such keys.
impl Translator<'_> {
    /// Does a VALUES row name a column of `def` as a value (a word that is
    /// one of its columns, no subquery, which would have its own)?
    fn row_names_columns(&self, row: &[(usize, usize)], def: &TableDef) -> bool {
        let toks = self.toks;
        let words = || row.iter().flat_map(|&(s, e)| toks[s..e].iter());
        !words().any(|t| t.is_kw("SELECT")) && words().any(|t| matches!(&t.tok, Tok::Word(w) if def.column(w).is_some()))
    }
}

/// The columns a VALUES row's value may read: the ones written before it
/// (`cols[k]` given `given[k]`) as that value, the others as their
/// default. A value past ROW_REFERENCE_MAX bytes is not offered (its name
/// stays an unknown column): values naming each other grow no further. Nor
/// is one with a parameter (a text whose literals the engine made
/// parameters, exec/normalize.rs, is then compiled with its literals).
fn row_references(def: &TableDef, cols: &[String], given: &[String]) -> Vec<(String, String)> {
    const ROW_REFERENCE_MAX: usize = 4096;
    def.columns
        .iter()
        .filter(|c| c.generated.is_none())
        .filter_map(|c| {
            let value = match cols.iter().position(|n| n.eq_ignore_ascii_case(&c.name)).filter(|&k| k < given.len()) {
                Some(k) => given[k].clone(),
                None if c.auto_increment || c.row_default().is_some() => return None,
                None => crate::ddl::implicit_default(c),
            };
            (value.len() <= ROW_REFERENCE_MAX && !value.contains('?')).then(|| (c.name.clone(), value))
        })
        .collect()
}

fn parent_tests(def: &TableDef, cols: &[&str], schema: &str, table: &str) -> Option<String> {
    let mut tests = Vec::new();
    for fk in &def.foreign_keys {
        let at: Option<Vec<usize>> = fk.columns.iter().map(|c| cols.iter().position(|x| x.eq_ignore_ascii_case(c))).collect();
        let Some(at) = at.filter(|a| !a.is_empty() && a.len() == fk.ref_columns.len()) else { continue };
        let nulls: Vec<String> = at.iter().map(|k| format!("r{} IS NULL", k)).collect();
        let same: Vec<String> = at.iter().zip(&fk.ref_columns).map(|(k, rc)| format!("{} = r{}", sq_ident(rc), k)).collect();
        let message = format!("Cannot add or update a child row: a foreign key constraint fails ({}, {})", table, fk.clause(schema::quote_ident));
        tests.push(format!("({} OR EXISTS (SELECT 1 FROM {}.{} WHERE {}) OR ts_fk({}))", nulls.join(" OR "), schema, sq_ident(&fk.ref_table), same.join(" AND "), schema::sq_str(&message)));
    }
    (!tests.is_empty()).then(|| tests.join(" AND "))
}

/// The upsert clause of a lenient INSERT IGNORE into `def`: a row that
/// meets a unique key is skipped (the WHERE is false) with MariaDB's
/// Warning 1062 "Duplicate entry 'v' for key 'k'" (`ts_dup`), naming the
/// first key (PRIMARY, then the unique keys in order) whose columns hold
/// the new row's values. Empty for a table without unique keys.
fn ignore_duplicates(def: &TableDef) -> String {
    let mut keys: Vec<(&str, &[String])> = Vec::new();
    if !def.primary.is_empty() {
        keys.push(("PRIMARY", &def.primary));
    }
    keys.extend(def.indexes.iter().filter(|ix| ix.unique && ix.name != "PRIMARY").map(|ix| (ix.name.as_str(), ix.columns.as_slice())));
    let Some(first_col) = def.columns.first() else { return String::new() };
    if keys.is_empty() {
        return String::new();
    }
    let mut names = String::from("CASE");
    let mut values = String::from("CASE");
    for (name, cols) in keys {
        let same: Vec<String> = cols.iter().map(|c| format!("{c} IS excluded.{c}", c = sq_ident(c))).collect();
        let value: Vec<String> = cols.iter().map(|c| format!("excluded.{}", sq_ident(c))).collect();
        names.push_str(&format!(" WHEN {} THEN {}", same.join(" AND "), schema::sq_str(name)));
        values.push_str(&format!(" WHEN {} THEN {}", same.join(" AND "), value.join(" || '-' || ")));
    }
    format!(" ON CONFLICT DO UPDATE SET {c} = {c} WHERE ts_dup({} END, {} END)", names, values, c = sq_ident(&first_col.name))
}

/// INSERT or REPLACE with its modifiers, up to the table name: (replace,
/// ignore).
fn insert_verb(cursor: &mut TokenCursor<'_>) -> Result<(bool, bool), SqlError> {
    let replace = cursor.eat_kw("REPLACE");
    if !replace {
        cursor.expect_kw("INSERT")?;
    }
    let mut ignore = false;
    loop {
        if cursor.eat_kw("LOW_PRIORITY") || cursor.eat_kw("DELAYED") || cursor.eat_kw("HIGH_PRIORITY") {
            continue;
        }
        if cursor.eat_kw("IGNORE") {
            ignore = true;
            continue;
        }
        break;
    }
    cursor.eat_kw("INTO");
    Ok((replace, ignore))
}

/// The column list after the table name, if there is one (a parenthesis
/// opening a query is none): (columns, whether a list was given).
fn column_list(cursor: &mut TokenCursor<'_>, owner: (Option<&str>, &str)) -> Result<(Vec<String>, bool), SqlError> {
    let mut cols: Vec<String> = Vec::new();
    let mut explicit_cols = false;
    if cursor.is_op("(") && !cursor.peek_at(1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH")) {
        cursor.next();
        explicit_cols = true;
        if !cursor.is_op(")") {
            loop {
                cols.push(target_column(cursor, owner)?);
                if !cursor.eat_op(",") {
                    break;
                }
            }
        }
        cursor.expect_op(")")?;
    }
    Ok((cols, explicit_cols))
}

/// The rows after the column list: SET (its columns added to `cols`),
/// VALUES/VALUE, or a query.
fn insert_source(cursor: &mut TokenCursor<'_>, explicit_cols: bool, cols: &mut Vec<String>, owner: (Option<&str>, &str)) -> Result<InsertSource, SqlError> {
    if cursor.eat_kw("SET") {
        if explicit_cols {
            return Err(cursor.error().into());
        }
        Ok(InsertSource::Values(vec![set_row(cursor, cols, owner)?]))
    } else if cursor.eat_kw("VALUES") || cursor.eat_kw("VALUE") {
        Ok(InsertSource::Values(values_rows(cursor)?))
    } else if cursor.is_kw("SELECT") || cursor.is_kw("WITH") || cursor.is_op("(") || cursor.is_kw("TABLE") {
        let toks = cursor.toks;
        let s = cursor.pos;
        let mut e = s;
        let mut depth = 0;
        while e < toks.len() {
            if toks[e].is_op("(") {
                depth += 1;
            } else if toks[e].is_op(")") {
                depth -= 1;
            } else if depth == 0 && toks[e].is_kw("ON") && toks.get(e + 1).is_some_and(|t| t.is_kw("DUPLICATE")) {
                break;
            }
            e += 1;
        }
        cursor.pos = e;
        Ok(InsertSource::Select(s, e))
    } else {
        Err(cursor.error().into())
    }
}

/// INSERT ... SET col = value, ...: the columns, added to `cols`, and the
/// row of values.
fn set_row(cursor: &mut TokenCursor<'_>, cols: &mut Vec<String>, owner: (Option<&str>, &str)) -> Result<Vec<(usize, usize)>, SqlError> {
    let toks = cursor.toks;
    let mut row = Vec::new();
    loop {
        cols.push(target_column(cursor, owner)?);
        if !(cursor.eat_op("=") || cursor.eat_op(":=")) {
            return Err(cursor.error().into());
        }
        let s = cursor.pos;
        let e = expr_end(toks, s);
        if s == e {
            return Err(cursor.error().into());
        }
        row.push((s, e));
        cursor.pos = e;
        if !cursor.eat_op(",") {
            break;
        }
    }
    Ok(row)
}

/// A column the INSERT writes, in its column list or SET: `c`, `t.c` or
/// `db.t.c` of the target table `owner` (database, table); a column
/// qualified by another table is 1054, as in MariaDB.
fn target_column(cursor: &mut TokenCursor<'_>, owner: (Option<&str>, &str)) -> Result<String, SqlError> {
    let mut parts = vec![cursor.ident()?];
    while parts.len() < 3 && cursor.eat_op(".") {
        parts.push(cursor.ident()?);
    }
    if cursor.is_op(".") {
        return Err(cursor.error().into());
    }
    let column = parts.pop().unwrap_or_default();
    let (db, table) = owner;
    let ours = match parts.as_slice() {
        [] => true,
        [t] => t == table,
        [d, t] => t == table && db.is_some_and(|db| db == d),
        _ => false,
    };
    if !ours {
        parts.push(column);
        return Err(SqlError::unknown_column(&parts.join("."), "field list"));
    }
    Ok(column)
}

/// The rows of a VALUES list: `[ROW](v, ...), ...`.
fn values_rows(cursor: &mut TokenCursor<'_>) -> Result<Vec<Vec<(usize, usize)>>, SqlError> {
    let toks = cursor.toks;
    let mut rows = Vec::new();
    loop {
        cursor.eat_kw("ROW");
        cursor.expect_op("(")?;
        let mut row = Vec::new();
        if !cursor.is_op(")") {
            loop {
                let s = cursor.pos;
                let e = expr_end(toks, s);
                if s == e {
                    return Err(cursor.error().into());
                }
                row.push((s, e));
                cursor.pos = e;
                if !cursor.eat_op(",") {
                    break;
                }
            }
        }
        cursor.expect_op(")")?;
        rows.push(row);
        if !cursor.eat_op(",") {
            break;
        }
    }
    Ok(rows)
}

/// Is the value at tokens [s, e) `DEFAULT`, or MariaDB's `IGNORE`, which in
/// a VALUES row is the column's default too?
fn default_keyword(toks: &[turnstile_sqltext::lex::Token], s: usize, e: usize) -> bool {
    e == s + 1 && (toks[s].is_kw("DEFAULT") || toks[s].is_kw("IGNORE"))
}

/// The name standing for a column of the row in a row default's SQLite text
/// (`row_default_value`), followed by the column's position among the
/// statement's columns; replaced by `row_columns_named`.
const ROW_COLUMN: &str = "\"ts_rowcol_";

/// A column whose default names the row's columns, given DEFAULT in every
/// VALUES row, leaves the statement: it is then computed as for a column
/// left out (`missing_values`).
fn drop_row_default_keywords(toks: &[turnstile_sqltext::lex::Token], def: &TableDef, cols: &mut Vec<String>, source: &mut InsertSource) {
    let InsertSource::Values(rows) = source else { return };
    for k in (0..cols.len()).rev() {
        let all_default = rows.iter().all(|r| r.len() == cols.len() && default_keyword(toks, r[k].0, r[k].1));
        if all_default && def.column(&cols[k]).is_some_and(|c| c.row_default().is_some()) {
            rows.iter_mut().for_each(|r| {
                r.remove(k);
            });
            cols.remove(k);
        }
    }
}

/// The SQLite text of `cd`'s row default (`DEFAULT (a + 1)`) for an INSERT
/// writing `cols`: a column the INSERT writes is read from its value
/// (`ROW_COLUMN`), one it leaves out is its own default (MariaDB's rule: the
/// row's value of it), a row default in turn up to a few levels deep.
fn row_default_value(def: &TableDef, cd: &ColumnDef, cols: &[String]) -> Result<String, SqlError> {
    let mysql = row_default_text(def, cd.row_default().unwrap_or("NULL"), cols, 0);
    crate::rewrite::expression(&mysql)
}

/// A row default's MySQL text with each column it names replaced (see
/// `row_default_value`).
fn row_default_text(def: &TableDef, expr: &str, cols: &[String], depth: usize) -> String {
    use turnstile_sqltext::lex::{self, Tok};
    let Ok(toks) = lex::tokenize(expr) else { return "NULL".into() };
    let mut out = String::new();
    let mut at = 0;
    for t in &toks {
        let Tok::Quoted(name) = &t.tok else { continue };
        let Some(col) = def.column(name) else { continue };
        let value = match cols.iter().position(|c| c.eq_ignore_ascii_case(name)) {
            Some(k) => format!("`ts_rowcol_{}`", k),
            None => match &col.default {
                _ if depth >= 8 => "NULL".into(),
                Some(schema::Default_::Literal(v)) if col.base.is_numeric() && v.parse::<f64>().is_ok() => v.clone(),
                Some(schema::Default_::Literal(v)) => schema::quote_str(v),
                Some(schema::Default_::CurrentTimestamp) => "now()".into(),
                Some(schema::Default_::Expr(e)) => format!("({})", row_default_text(def, e, cols, depth + 1)),
                Some(schema::Default_::Null) | None => "NULL".into(),
            },
        };
        out.push_str(&expr[at..t.start]);
        out.push_str(&value);
        at = t.end;
    }
    out.push_str(&expr[at..]);
    out
}

/// A row default's SQLite text with its `ROW_COLUMN` names replaced by
/// `name(position)`.
fn row_columns_named(text: &str, name: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(ROW_COLUMN) {
        out.push_str(&rest[..at]);
        let tail = &rest[at + ROW_COLUMN.len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        match (tail[..digits].parse::<usize>(), tail[digits..].starts_with('"')) {
            (Ok(k), true) => {
                out.push_str(&name(k));
                rest = &tail[digits + 1..];
            }
            _ => {
                out.push_str(ROW_COLUMN);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn inserts() {
        let rw = rewrite("INSERT INTO sbtest1 (id, k, c) VALUES (?, ?, ?)", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (ts_ai(?), ?, ?)");
        assert!(rw.insert.as_ref().unwrap().ai_named);
        // IGNORE: lenient values (ts_fit) and duplicates skipped with a warning (ts_dup)
        let rw = rewrite("INSERT IGNORE INTO sbtest1 SET k=1, c='x'", Kind::Insert, &resolver()).unwrap();
        assert_eq!(
            rw.sql,
            "INSERT INTO \"sbtest1\" (\"k\", \"c\") WITH ts_src(c0, c1) AS (VALUES (1, 'x')) SELECT ts_fit(c0, 0), ts_fit(c1, 1) FROM ts_src LIMIT -1 ON CONFLICT DO UPDATE SET \"id\" = \"id\" WHERE ts_dup(CASE WHEN \"id\" IS excluded.\"id\" THEN 'PRIMARY' END, CASE WHEN \"id\" IS excluded.\"id\" THEN excluded.\"id\" END)"
        );
        assert_eq!(
            rw.fits.iter().map(|f| (f.kind, f.a, f.b, f.col.as_str(), f.null_as.is_some())).collect::<Vec<_>>(),
            [(b'i', i32::MIN as i64, i32::MAX as i64, "k", true), (b'c', 120, 1, "c", false)]
        );
        assert_eq!(rewrite("INSERT INTO sbtest1 (k) VALUES (1,2)", Kind::Insert, &resolver()).unwrap_err().code, 1136);
        assert_eq!(rewrite("INSERT INTO sbtest1 (k, K) VALUES (1, 2)", Kind::Insert, &resolver()).unwrap_err().code, 1110);
        assert_eq!(rewrite("INSERT INTO sbtest1 SET k = 1, c = 'x', k = 2", Kind::Insert, &resolver()).unwrap_err().code, 1110);
        // A column may name its table (and database); another table's is 1054.
        let plain = rewrite("INSERT INTO sbtest1 SET k = 1", Kind::Insert, &resolver()).unwrap().sql;
        assert_eq!(rewrite("INSERT INTO sbtest1 SET sbtest1.k = 1", Kind::Insert, &resolver()).unwrap().sql, plain);
        assert_eq!(
            rewrite("INSERT INTO sbtest1 (sbtest1.k) VALUES (1)", Kind::Insert, &resolver()).unwrap().sql,
            rewrite("INSERT INTO sbtest1 (k) VALUES (1)", Kind::Insert, &resolver()).unwrap().sql
        );
        let e = rewrite("INSERT INTO sbtest1 SET other.k = 1", Kind::Insert, &resolver()).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'other.k' in 'field list'"));
        assert_eq!(rewrite("INSERT INTO sbtest1 (a.b.c.k) VALUES (1)", Kind::Insert, &resolver()).unwrap_err().code, 1064);
        let rw = rewrite("INSERT INTO sbtest1 VALUES (),()", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\") VALUES (NULL), (NULL)");
        let rw = rewrite("INSERT INTO sbtest1 VALUES (DEFAULT, 1, 'a')", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (NULL, 1, 'a')");
    }
}
