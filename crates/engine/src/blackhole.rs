//! The blackhole engine: accepts DDL and writes, stores nothing, returns empty
//! results. It exists to measure the connection layer alone (as MySQL's
//! BLACKHOLE engine does in the classic experiments). Databases are still real
//! (catalog directories), so USE and unknown-database errors behave as usual.
//!
//! Privileges: with no tables to resolve, a statement needs its verb's
//! privilege on the current database (when it names a table without a
//! database) and on every existing database it names as `db.`; conservative,
//! so `INSERT INTO d1.t SELECT ... FROM d2.u` needs INSERT on both. EXPLAIN
//! of a statement needs what the statement needs and returns MariaDB's
//! EXPLAIN columns with no rows.

use crate::catalog::Catalog;
use crate::{privs, Access, Column, Done, Engine, EngineSession, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};
use std::path::Path;
use std::sync::Arc;
use turnstile_sqltext::lex::{self, Tok};
use turnstile_sqltext::scan::first_keyword;

pub struct Blackhole {
    catalog: Arc<Catalog>,
}

impl Blackhole {
    pub fn open(datadir: &Path) -> std::io::Result<Blackhole> {
        Ok(Blackhole { catalog: Arc::new(Catalog::open(datadir)?) })
    }
}

impl Engine for Blackhole {
    fn name(&self) -> &'static str {
        "blackhole"
    }
    fn list_databases(&self) -> Vec<String> {
        self.catalog.list()
    }
    fn database_exists(&self, name: &str) -> bool {
        self.catalog.exists(name)
    }
    fn create_database(&self, name: &str, if_not_exists: bool) -> Result<bool, SqlError> {
        self.catalog.create(name, if_not_exists)
    }
    fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<u64>, SqlError> {
        // The blackhole engine keeps no tables.
        Ok(Catalog::drop(&self.catalog, name, if_exists)?.then_some(0))
    }
    fn open_session(&self) -> Result<Box<dyn EngineSession>, SqlError> {
        Ok(Box::new(BlackholeSession { db: None, in_trans: false, catalog: self.catalog.clone() }))
    }
}

struct BlackholeSession {
    db: Option<String>,
    in_trans: bool,
    catalog: Arc<Catalog>,
}

/// The privilege a statement's verb needs on each database it touches.
fn verb_privilege(kw: &str) -> u32 {
    match kw {
        "SELECT" | "WITH" | "TABLE" | "VALUES" | "SHOW" | "DESCRIBE" | "DESC" | "EXPLAIN" | "LOCK" | "CHECK" => privs::SELECT,
        "INSERT" | "REPLACE" => privs::INSERT,
        "UPDATE" => privs::UPDATE,
        "DELETE" => privs::DELETE,
        "CREATE" => privs::CREATE,
        "ALTER" => privs::ALTER,
        "DROP" | "TRUNCATE" => privs::DROP,
        "RENAME" => privs::CREATE | privs::DROP,
        "ANALYZE" | "OPTIMIZE" | "REPAIR" => privs::SELECT | privs::INSERT,
        _ => 0,
    }
}

/// The statement an `EXPLAIN|DESCRIBE|DESC [EXTENDED|PARTITIONS|FORMAT=x]`
/// describes, or None (a table's columns, or not EXPLAIN at all).
fn explained(sql: &str) -> Option<&str> {
    let toks = lex::tokenize(sql).ok()?;
    if !toks.first().is_some_and(|t| t.is_kw("EXPLAIN") || t.is_kw("DESCRIBE") || t.is_kw("DESC")) {
        return None;
    }
    let mut i = 1;
    if toks.get(1).is_some_and(|t| t.is_kw("EXTENDED") || t.is_kw("PARTITIONS")) {
        i = 2;
    } else if toks.get(1).is_some_and(|t| t.is_kw("FORMAT")) && toks.get(2).is_some_and(|t| t.is_op("=")) {
        i = 4;
    }
    let t = toks.get(i)?;
    let statement = ["SELECT", "WITH", "TABLE", "VALUES", "INSERT", "REPLACE", "UPDATE", "DELETE"].iter().any(|w| t.is_kw(w));
    statement.then(|| &sql[t.start..])
}

/// MariaDB's traditional EXPLAIN columns.
fn explain_columns() -> Vec<Column> {
    let mut v: Vec<Column> = ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"].iter().map(|n| Column::varchar(n)).collect();
    v[0] = Column::computed("id", turnstile_wire::consts::coltype::LONGLONG);
    v
}

impl BlackholeSession {
    /// See the module header: the verb's privilege on every database named.
    fn check_access(&self, access: &dyn Access, sql: &str) -> Result<(), SqlError> {
        let sql = explained(sql).unwrap_or(sql);
        let need = verb_privilege(&first_keyword(sql));
        if need == 0 {
            return Ok(());
        }
        let tokens = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        for w in tokens.windows(3) {
            if let (Some(db), true, Some(table)) = (w[0].ident(), w[1].is_op("."), w[2].ident().or(w[2].is_op("*").then_some("*"))) {
                if w[0].end == w[1].start && self.catalog.exists(db) && !crate::catalog::Catalog::is_system(db) {
                    access.check_table(db, table, need)?;
                }
            }
        }
        match &self.db {
            Some(db) if touches_table(sql)? => access.check_table(db, "*", need),
            _ => Ok(()),
        }
    }
}

/// Result columns a statement would have, from its text alone.
fn result_columns(sql: &str, db: Option<&str>) -> Result<Vec<Column>, SqlError> {
    if explained(sql).is_some() {
        return Ok(explain_columns());
    }
    let kw = first_keyword(sql);
    match kw.as_str() {
        "SELECT" | "WITH" | "VALUES" | "TABLE" => select_columns(sql),
        "SHOW" => {
            let tokens = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
            if tokens.iter().any(|t| t.is_kw("TABLES")) {
                Ok(vec![Column::varchar(&format!("Tables_in_{}", db.unwrap_or("")))])
            } else {
                Ok(["Field", "Type", "Null", "Key", "Default", "Extra"].iter().map(|n| Column::varchar(n)).collect())
            }
        }
        "DESCRIBE" | "DESC" | "EXPLAIN" => Ok(["Field", "Type", "Null", "Key", "Default", "Extra"].iter().map(|n| Column::varchar(n)).collect()),
        _ => Ok(Vec::new()),
    }
}

/// A statement that names a table without a database (`t`, not `db.t`) needs a
/// current database, as in MySQL (ERR 1046).
fn needs_database(sql: &str) -> Result<bool, SqlError> {
    let tokens = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let qualified = tokens.windows(3).any(|w| w[0].ident().is_some() && w[1].is_op(".") && (w[2].ident().is_some() || w[2].is_op("*")));
    Ok(touches_table(sql)? && !qualified)
}

/// Does the statement name a table at all?
fn touches_table(sql: &str) -> Result<bool, SqlError> {
    let kw = first_keyword(sql);
    let tokens = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let touches_table = match kw.as_str() {
        "SELECT" | "WITH" => tokens.iter().any(|t| t.is_kw("FROM")),
        "INSERT" | "REPLACE" | "UPDATE" | "DELETE" | "TRUNCATE" | "DESCRIBE" | "DESC" | "RENAME" | "LOCK" | "ANALYZE" | "OPTIMIZE" | "CHECK" | "REPAIR" => true,
        "CREATE" | "DROP" | "ALTER" => tokens.iter().take(4).any(|t| t.is_kw("TABLE") || t.is_kw("INDEX") || t.is_kw("VIEW")),
        "SHOW" => {
            tokens.iter().any(|t| t.is_kw("TABLES") || t.is_kw("COLUMNS") || t.is_kw("FIELDS") || t.is_kw("INDEX") || t.is_kw("INDEXES") || t.is_kw("KEYS"))
                && !tokens.iter().any(|t| t.is_kw("FROM") || t.is_kw("IN"))
        }
        _ => false,
    };
    Ok(touches_table)
}

/// Names of a SELECT's result columns: the alias, or the expression's text.
fn select_columns(sql: &str) -> Result<Vec<Column>, SqlError> {
    let tokens = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut depth = 0i32;
    let mut items: Vec<(usize, usize, Option<String>)> = Vec::new();
    let mut started = false;
    let mut item_start: Option<usize> = None;
    let mut item_end = 0;
    let mut alias: Option<String> = None;
    for (i, t) in tokens.iter().enumerate() {
        if !started {
            if t.is_kw("SELECT") {
                started = true;
            }
            continue;
        }
        if depth == 0 && (t.is_kw("FROM") || t.is_kw("WHERE") || t.is_kw("LIMIT") || t.is_kw("ORDER") || t.is_kw("GROUP") || t.is_op(";") || t.is_kw("INTO") || t.is_kw("FOR")) {
            break;
        }
        if depth == 0 && item_start.is_none() && (t.is_kw("DISTINCT") || t.is_kw("ALL") || t.is_kw("SQL_NO_CACHE") || t.is_kw("SQL_CALC_FOUND_ROWS")) {
            continue;
        }
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        }
        if depth == 0 && t.is_op(",") {
            if let Some(s) = item_start.take() {
                items.push((s, item_end, alias.take()));
            }
            continue;
        }
        if depth == 0 && t.is_kw("AS") {
            if let Some(n) = tokens.get(i + 1) {
                alias = match &n.tok {
                    Tok::Word(w) | Tok::Quoted(w) => Some(w.to_string()),
                    Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
                    _ => None,
                };
            }
            continue;
        }
        if alias.is_some() {
            continue;
        }
        if item_start.is_none() {
            item_start = Some(t.start);
        }
        item_end = t.end;
    }
    if let Some(s) = item_start {
        items.push((s, item_end, alias));
    }
    if items.is_empty() {
        return Err(SqlError::syntax(sql));
    }
    Ok(items.into_iter().map(|(s, e, alias)| Column::varchar(alias.as_deref().unwrap_or(&sql[s..e]))).collect())
}

impl EngineSession for BlackholeSession {
    fn set_database(&mut self, db: Option<&str>) -> Result<(), SqlError> {
        self.db = db.map(str::to_string);
        Ok(())
    }

    fn execute(&mut self, ctx: &ExecContext<'_>, sql: &str, _params: &[Value], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
        if self.db.is_none() && needs_database(explained(sql).unwrap_or(sql))? {
            return Err(SqlError::no_database());
        }
        self.check_access(ctx.access, sql)?;
        let columns = result_columns(sql, self.db.as_deref())?;
        if columns.is_empty() {
            return Ok(Outcome::Done(Done::default()));
        }
        sink.columns(&columns)?;
        Ok(Outcome::Rows)
    }

    fn field_list(&mut self, access: &dyn Access, table: &str) -> Result<Vec<crate::FieldListColumn>, SqlError> {
        if let Some(db) = &self.db {
            access.check_table(db, table, privs::SELECT)?;
        }
        // Blackhole tables have no stored definition, hence no columns to list.
        Ok(Vec::new())
    }

    fn prepare(&mut self, access: &dyn Access, sql: &str) -> Result<Prepared, SqlError> {
        self.check_access(access, sql)?;
        let params = lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        Ok(Prepared { params, columns: result_columns(sql, self.db.as_deref())? })
    }

    fn begin(&mut self, _: &ExecContext<'_>, _read_only: bool) -> Result<(), SqlError> {
        self.in_trans = true;
        Ok(())
    }
    fn commit(&mut self, _: &ExecContext<'_>) -> Result<(), SqlError> {
        self.in_trans = false;
        Ok(())
    }
    fn rollback(&mut self, _: &ExecContext<'_>) -> Result<(), SqlError> {
        self.in_trans = false;
        Ok(())
    }
    fn in_transaction(&self) -> bool {
        self.in_trans
    }
    fn set_autocommit(&mut self, _on: bool) {}
    fn reset(&mut self) {
        self.in_trans = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_column_names() {
        let cols = select_columns("SELECT a, b AS bee, COUNT(*), `c` FROM t WHERE x=1").unwrap();
        let names: Vec<_> = cols.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["a", "bee", "COUNT(*)", "`c`"]);
        let cols = select_columns("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c").unwrap();
        assert_eq!(cols[0].name, "c");
    }
}
