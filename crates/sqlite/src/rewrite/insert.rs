//! INSERT and REPLACE: every MySQL form as one SQLite INSERT.
//!
//! IGNORE → INSERT OR IGNORE; INSERT ... SET → a column list and one row;
//! VALUES rows with DEFAULT filled in from the definition and values
//! through `emit_store`; AUTO_INCREMENT values through `ts_ai` (MySQL's 0 and
//! NULL take the next id); INSERT ... SELECT through a CTE when its values
//! need that too. ON DUPLICATE KEY UPDATE is upsert.rs. What the statement
//! writes is described in `InsertInfo` (for the OK packet, ERR 1062 and
//! LAST_INSERT_ID).

use super::store::{binary_pad, expr_end, param_ordinals, store_table_name};
use super::translator::Translator;
use super::InsertInfo;
use crate::schema::{sq_ident, Base, ColumnDef, TableDef};
use std::sync::Arc;
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;

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
    pub(super) fn insert(&mut self) -> Result<InsertInfo, SqlError> {
        let toks = self.toks;
        let mut cursor = TokenCursor::new(self.sql, toks);
        let (replace, ignore) = insert_verb(&mut cursor)?;
        let InsertTarget { table, def, schema } = self.insert_target(&mut cursor)?;
        let qualified_name = match &schema {
            Some(q) => format!("{}.{}", q, sq_ident(&table)),
            None => sq_ident(&table),
        };
        let (mut cols, explicit_cols) = column_list(&mut cursor)?;
        let ai_col = def.as_ref().and_then(|d| d.auto_increment_column().map(|a| a.name.clone()));
        let schema = schema.unwrap_or_else(|| if self.resolver.is_temp(&table) { "temp" } else { "main" }.to_string());
        let target = format!("{}.{}", schema, sq_ident(&table));
        let mut info = InsertInfo { has_ai: ai_col.is_some(), ignore, replace, target, schema, table: table.clone(), ..Default::default() };
        if self.has_odku(cursor.pos) {
            // ON DUPLICATE KEY UPDATE values are written twice (see below).
            self.param_ord = Some(param_ordinals(toks));
        }
        let verb = if replace {
            "REPLACE"
        } else if ignore && !self.has_odku(cursor.pos) {
            "INSERT OR IGNORE"
        } else {
            "INSERT"
        };
        let source = insert_source(&mut cursor, explicit_cols, &mut cols)?;
        if cursor.is_kw("AS") {
            return Err(Self::unsupported("row aliases in INSERT (INSERT ... AS alias)"));
        }
        // target columns
        if cols.is_empty() && !explicit_cols {
            if let Some(d) = &def {
                cols = d.columns.iter().map(|c| c.name.clone()).collect();
            }
        }
        let ai_pos = ai_col.as_ref().and_then(|a| cols.iter().position(|c| c.eq_ignore_ascii_case(a)));
        info.ai_named = ai_pos.is_some();
        info.cols = cols.clone();
        self.raw(&format!("{} INTO {}", verb, qualified_name));
        if !cols.is_empty() {
            self.raw(&format!(" ({})", cols.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")));
        }
        match source {
            InsertSource::Values(rows) => self.emit_value_rows(&rows, &cols, def.as_deref(), ai_pos, &mut info)?,
            InsertSource::Select(s, e) => {
                info.rows = 0;
                self.emit_select_source(s, e, &cols, def.as_deref(), ai_pos)?;
            }
        }
        if cursor.eat_kw("ON") {
            self.on_duplicate_key_update(&mut cursor, def.as_deref(), &mut info)?;
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
    fn emit_value_rows(&mut self, rows: &[Vec<(usize, usize)>], cols: &[String], def: Option<&TableDef>, ai_pos: Option<usize>, info: &mut InsertInfo) -> Result<(), SqlError> {
        info.rows = rows.len();
        if rows.len() == 1 && rows[0].is_empty() && cols.is_empty() {
            self.raw(" DEFAULT VALUES");
            return Ok(());
        }
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
            for (value_index, &(s, e)) in row.iter().enumerate() {
                if value_index > 0 {
                    self.raw(", ");
                }
                let cd = cols.get(value_index).and_then(|n| def.and_then(|d| d.column(n)));
                if let Some(text) = self.emit_row_value(s, e, cd, Some(value_index) == ai_pos, row_index == 0)? {
                    info.first_row.push(text);
                }
            }
            self.raw(")");
        }
        self.store_row = 0;
        Ok(())
    }

    /// One value of a VALUES row, tokens [s, e), for column `cd` (`ai`: the
    /// AUTO_INCREMENT column). Returns the SQLite text written when asked
    /// (`first_row`).
    fn emit_row_value(&mut self, s: usize, e: usize, cd: Option<&ColumnDef>, ai: bool, first_row: bool) -> Result<Option<String>, SqlError> {
        let toks = self.toks;
        let is_default = e == s + 1 && toks[s].is_kw("DEFAULT");
        if is_default {
            let d = match cd {
                Some(cd) if cd.auto_increment => "NULL".to_string(),
                Some(cd) => crate::ddl::implicit_default(cd),
                None => "NULL".into(),
            };
            self.raw(&d);
            return Ok(first_row.then_some(d));
        }
        let at = self.out.len();
        if ai {
            self.raw("ts_ai(");
            self.emit_store(s, e, cd)?;
            self.raw(")");
        } else {
            self.emit_store(s, e, cd)?;
        }
        Ok(first_row.then(|| self.out[at..].trim().to_string()))
    }

    /// INSERT ... SELECT, the query at tokens [s, e). When a value needs
    /// `ts_ai` or `ts_bin`, or the statement is an upsert (SQLite's parser
    /// needs a WHERE between a SELECT and ON CONFLICT), the query becomes
    /// the CTE `ts_src` the values are selected from.
    fn emit_select_source(&mut self, s: usize, e: usize, cols: &[String], def: Option<&TableDef>, ai_pos: Option<usize>) -> Result<(), SqlError> {
        let odku = self.has_odku(e);
        let binary: Vec<Option<u64>> = cols.iter().map(|n| def.and_then(|d| d.column(n)).filter(|cd| cd.base.is_binary()).map(binary_pad)).collect();
        let decimal: Vec<Option<String>> = cols.iter().map(|n| def.and_then(|d| d.column(n)).filter(|cd| cd.base == Base::Decimal).map(|cd| self.decimal_store_args(cd))).collect();
        if ai_pos.is_some() || odku || binary.iter().any(Option::is_some) || decimal.iter().any(Option::is_some) {
            let n = cols.len();
            let names: Vec<String> = (0..n).map(|k| format!("c{}", k)).collect();
            self.raw(&format!(" WITH ts_src({}) AS (", names.join(", ")));
            self.emit(s, e)?;
            let selected: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(k, name)| match (binary[k], &decimal[k]) {
                    _ if Some(k) == ai_pos => format!("ts_ai({})", name),
                    (Some(pad), _) => format!("ts_bin({}, {})", name, pad),
                    (_, Some(args)) => format!("ts_dec({}{}", name, args),
                    _ => name.clone(),
                })
                .collect();
            self.raw(&format!(") SELECT {} FROM ts_src WHERE true", selected.join(", ")));
        } else {
            self.raw(" ");
            self.emit(s, e)?;
        }
        Ok(())
    }
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
fn column_list(cursor: &mut TokenCursor<'_>) -> Result<(Vec<String>, bool), SqlError> {
    let mut cols: Vec<String> = Vec::new();
    let mut explicit_cols = false;
    if cursor.is_op("(") && !cursor.peek_at(1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH")) {
        cursor.next();
        explicit_cols = true;
        if !cursor.is_op(")") {
            loop {
                cols.push(cursor.ident()?);
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
fn insert_source(cursor: &mut TokenCursor<'_>, explicit_cols: bool, cols: &mut Vec<String>) -> Result<InsertSource, SqlError> {
    if cursor.eat_kw("SET") {
        if explicit_cols {
            return Err(cursor.error().into());
        }
        Ok(InsertSource::Values(vec![set_row(cursor, cols)?]))
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
fn set_row(cursor: &mut TokenCursor<'_>, cols: &mut Vec<String>) -> Result<Vec<(usize, usize)>, SqlError> {
    let toks = cursor.toks;
    let mut row = Vec::new();
    loop {
        cols.push(cursor.ident()?);
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

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn inserts() {
        let rw = rewrite("INSERT INTO sbtest1 (id, k, c) VALUES (?, ?, ?)", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (ts_ai(?), ?, ?)");
        assert!(rw.insert.as_ref().unwrap().ai_named);
        let rw = rewrite("INSERT IGNORE INTO sbtest1 SET k=1, c='x'", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT OR IGNORE INTO \"sbtest1\" (\"k\", \"c\") VALUES (1, 'x')");
        assert_eq!(rewrite("INSERT INTO sbtest1 (k) VALUES (1,2)", Kind::Insert, &resolver()).unwrap_err().code, 1136);
        let rw = rewrite("INSERT INTO sbtest1 VALUES (DEFAULT, 1, 'a')", Kind::Insert, &resolver()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (NULL, 1, 'a')");
    }
}
