//! SHOW TABLES / COLUMNS / CREATE TABLE / INDEX / TABLE STATUS, DESCRIBE, and
//! information_schema.
//!
//! SHOW statements are answered from the MySQL definitions (schema.rs) in the
//! shapes MariaDB 10.11 uses, without running SQL. information_schema is a
//! real SQL schema so that ORMs and GUI tools can join and filter it freely:
//! an in-memory database attached to the connection as `information_schema`,
//! its tables made in MariaDB's shapes with the rows that never change
//! (info_tables.rs); SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
//! TABLE_CONSTRAINTS, CHECK_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, VIEWS,
//! ROUTINES and TRIGGERS are refilled here from the definitions the session
//! may see, and the tables only the front knows (PROCESSLIST, mysql.user,
//! privileges, variables, status) by info_tables.rs, before each statement
//! that reads them (statements that do not name it never pay). FILES and
//! PARTITIONS are always empty: no tablespaces, no partitioned tables.

use super::conn::Conn;
use super::exec::SqliteSession;
use super::info_tables;
use super::schema::{quote_ident, sq_ident, Base, TableDef};
use super::Inner;
use std::collections::HashMap;
use std::sync::Arc;
use turnstile_engine::catalog::Catalog;
use turnstile_engine::{Access, Column, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex::{self, Tok};
use turnstile_wire::consts::{colflag, coltype};

fn num(name: &str) -> Column {
    Column::computed(name, coltype::LONGLONG)
}
fn txt(name: &str) -> Column {
    Column::varchar(name)
}
fn s(v: &str) -> Value {
    Value::str(v)
}
fn opt(v: Option<String>) -> Value {
    v.map_or(Value::Null, |x| Value::str(&x))
}

fn like(name: &str, pat: &str) -> bool {
    turnstile_sqltext::like::like(name, pat, true)
}

enum Filter {
    All,
    Like(String),
    Eq(String),
}

impl Filter {
    fn parse(c: &mut TokenCursor<'_>) -> Result<Filter, SqlError> {
        if c.eat_kw("LIKE") {
            return Ok(Filter::Like(c.string()?));
        }
        if c.eat_kw("WHERE") {
            c.ident()?;
            if c.eat_op("=") {
                return Ok(Filter::Eq(c.string()?));
            }
            c.expect_kw("LIKE")?;
            return Ok(Filter::Like(c.string()?));
        }
        Ok(Filter::All)
    }
    fn ok(&self, name: &str) -> bool {
        match self {
            Filter::All => true,
            Filter::Like(p) => like(name, p),
            Filter::Eq(v) => v == name,
        }
    }
}

fn end(c: &mut TokenCursor<'_>) -> Result<(), SqlError> {
    c.eat_op(";");
    if c.at_end() {
        Ok(())
    } else {
        Err(c.error().into())
    }
}

/// `FROM db` / `IN db` after SHOW TABLES etc.
fn from_db(c: &mut TokenCursor<'_>) -> Result<Option<String>, SqlError> {
    if c.eat_kw("FROM") || c.eat_kw("IN") {
        return Ok(Some(c.ident()?));
    }
    Ok(None)
}

/// Definitions of one database as this session sees them (temporary tables too).
fn tables_of(sess: &mut SqliteSession, db: &str) -> Result<Vec<Arc<TableDef>>, SqlError> {
    if db.eq_ignore_ascii_case("information_schema") {
        return Ok(Vec::new());
    }
    if Catalog::is_system(db) {
        return Ok(Vec::new());
    }
    let d = sess.inner().db(db)?;
    let mut v: Vec<Arc<TableDef>> = d.schema().tables.values().cloned().collect();
    if sess.current_db() == Some(db) {
        let conn = sess.conn_for_show()?;
        v.extend(conn.temp.tables.values().cloned());
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(v)
}

/// What a statement that describes one table asks of the session.
#[derive(Clone, Copy)]
enum Describe {
    /// SHOW COLUMNS, DESCRIBE, SHOW INDEX: SELECT (MariaDB 10.11 refuses
    /// them to an account holding only INSERT, say).
    Columns,
    /// SHOW CREATE TABLE: any privilege on the table ("SHOW command denied").
    Create,
}

/// The definition of table `name` (in `db`, or the current database), if the
/// session may describe it.
fn table(sess: &mut SqliteSession, access: &dyn Access, what: Describe, db: Option<String>, name: &str) -> Result<(String, Arc<TableDef>), SqlError> {
    let db = match db.or_else(|| sess.shown_db().map(str::to_string)) {
        Some(d) => d,
        None => return Err(SqlError::no_database()),
    };
    match what {
        // MariaDB: SELECT from a global or database grant; any privilege
        // from a table- or column-level one.
        Describe::Columns if access.table_privileges(&db, name) | access.any_column_privileges(&db, name) != 0 => {}
        Describe::Columns => access.check_table(&db, name, turnstile_engine::privs::SELECT)?,
        Describe::Create => access.check_table_any(&db, name, "SHOW")?,
    }
    if sess.current_db() == Some(db.as_str()) {
        let conn = sess.conn_for_show()?;
        if let Some(t) = conn.temp.table(name) {
            return Ok((db, t.clone()));
        }
    }
    if Catalog::is_system(&db) {
        return Err(super::errors::no_such_table(&db, name));
    }
    let d = sess.inner().db(&db)?;
    let t = d.schema().table(name).cloned().ok_or_else(|| super::errors::no_such_table(&db, name))?;
    Ok((db, t))
}

/// Is `t` (found by `table` in database `db`) the session's temporary table?
fn is_temporary(sess: &mut SqliteSession, db: &str, t: &Arc<TableDef>) -> bool {
    sess.current_db() == Some(db) && sess.conn_for_show().is_ok_and(|conn| conn.temp.table(&t.name).is_some_and(|tt| Arc::ptr_eq(tt, t)))
}

/// MySQL 8.0's log tables, `mysql.general_log` and `mysql.slow_log`, as
/// SHOW CREATE TABLE prints them. Turnstile keeps no log in tables; they are
/// described (not listed, not readable) because mariadb-dump --all-databases
/// asks for them whenever it dumps `mysql`, and its dump creates them IF NOT
/// EXISTS (`is_log_table`).
pub fn log_table(db: &str, name: &str) -> Option<&'static str> {
    if !db.eq_ignore_ascii_case("mysql") {
        return None;
    }
    const GENERAL: &str = "CREATE TABLE `general_log` (\n  `event_time` timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),\n  `user_host` mediumtext NOT NULL,\n  `thread_id` bigint unsigned NOT NULL,\n  `server_id` int unsigned NOT NULL,\n  `command_type` varchar(64) NOT NULL,\n  `argument` mediumblob NOT NULL\n) ENGINE=CSV DEFAULT CHARSET=utf8mb3 COMMENT='General log'";
    const SLOW: &str = "CREATE TABLE `slow_log` (\n  `start_time` timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),\n  `user_host` mediumtext NOT NULL,\n  `query_time` time(6) NOT NULL,\n  `lock_time` time(6) NOT NULL,\n  `rows_sent` int NOT NULL,\n  `rows_examined` int NOT NULL,\n  `db` varchar(512) NOT NULL,\n  `last_insert_id` int NOT NULL,\n  `insert_id` int NOT NULL,\n  `server_id` int unsigned NOT NULL,\n  `sql_text` mediumblob NOT NULL,\n  `thread_id` bigint unsigned NOT NULL\n) ENGINE=CSV DEFAULT CHARSET=utf8mb3 COMMENT='Slow log'";
    match name.to_ascii_lowercase().as_str() {
        "general_log" => Some(GENERAL),
        "slow_log" => Some(SLOW),
        _ => None,
    }
}

/// SHOW COLUMNS' header: Type and Default are TEXT (BLOB on the wire), as
/// MariaDB sends them; the others VARCHAR.
fn columns_header(full: bool) -> Vec<Column> {
    let names: &[&str] = if full { &["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"] } else { &["Field", "Type", "Null", "Key", "Default", "Extra"] };
    names.iter().map(|n| if matches!(*n, "Type" | "Default") { long_txt(n) } else { txt(n) }).collect()
}

/// A TEXT result column (MYSQL_TYPE_BLOB with a text character set).
fn long_txt(name: &str) -> Column {
    let mut c = Column::computed(name, coltype::BLOB);
    c.charset = turnstile_wire::consts::charset::UTF8MB4_GENERAL_CI;
    c.flags = colflag::BLOB;
    c
}

/// SHOW INDEX's Seq_in_index: an INT UNSIGNED NOT NULL of length 2 in
/// MariaDB 10.11 (the other numbers are BIGINTs).
fn seq_in_index() -> Column {
    let mut c = Column::computed("Seq_in_index", coltype::LONG);
    c.length = 2;
    c.flags |= colflag::UNSIGNED | colflag::NOT_NULL;
    c
}

/// SHOW TABLE STATUS' Create_time, Update_time, Check_time: DATETIMEs
/// (MariaDB flags them BINARY and NUM).
fn datetime(name: &str) -> Column {
    let mut c = Column::computed(name, coltype::DATETIME);
    c.flags |= colflag::NUM;
    c
}

fn index_header() -> Vec<Column> {
    vec![
        txt("Table"),
        num("Non_unique"),
        txt("Key_name"),
        seq_in_index(),
        txt("Column_name"),
        txt("Collation"),
        num("Cardinality"),
        num("Sub_part"),
        txt("Packed"),
        txt("Null"),
        txt("Index_type"),
        txt("Comment"),
        txt("Index_comment"),
        txt("Ignored"),
    ]
}

fn status_header() -> Vec<Column> {
    vec![
        txt("Name"),
        txt("Engine"),
        num("Version"),
        txt("Row_format"),
        num("Rows"),
        num("Avg_row_length"),
        num("Data_length"),
        num("Max_data_length"),
        num("Index_length"),
        num("Data_free"),
        num("Auto_increment"),
        datetime("Create_time"),
        datetime("Update_time"),
        datetime("Check_time"),
        txt("Collation"),
        num("Checksum"),
        txt("Create_options"),
        txt("Comment"),
        num("Max_index_length"),
        txt("Temporary"),
    ]
}

/// Result columns of a SHOW/DESCRIBE statement (for COM_STMT_PREPARE).
pub fn describe_columns(sess: &mut SqliteSession, sql: &str) -> Result<Vec<Column>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let has = |k: &str| toks.iter().any(|t| t.is_kw(k));
    let first = toks.first().is_some_and(|t| t.is_kw("SHOW"));
    if !first {
        return Ok(columns_header(false));
    }
    let full = has("FULL");
    Ok(if has("TABLES") {
        let db = sess.current_db().unwrap_or("").to_string();
        let mut v = vec![txt(&format!("Tables_in_{}", db))];
        if full {
            v.push(txt("Table_type"));
        }
        v
    } else if has("STATUS") {
        status_header()
    } else if has("CREATE") {
        if has("DATABASE") || has("SCHEMA") {
            vec![txt("Database"), txt("Create Database")]
        } else {
            vec![txt("Table"), txt("Create Table")]
        }
    } else if has("INDEX") || has("INDEXES") || has("KEYS") {
        index_header()
    } else if has("COLUMNS") || has("FIELDS") {
        columns_header(full)
    } else {
        Vec::new()
    })
}

/// SHOW ... / DESCRIBE / EXPLAIN.
pub fn run(sess: &mut SqliteSession, access: &dyn Access, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut c = TokenCursor::new(sql, &toks);
    if c.eat_kw("DESCRIBE") || c.eat_kw("DESC") || c.eat_kw("EXPLAIN") {
        // EXPLAIN of a statement is exec/explain.rs's; what reaches here names a table.
        let (db, name) = c.qualified()?;
        let col_filter = match c.peek().map(|t| &t.tok) {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                let w = w.to_string();
                c.next();
                Filter::Like(w)
            }
            Some(Tok::Str(_)) => Filter::Like(c.string()?),
            _ => Filter::All,
        };
        end(&mut c)?;
        return show_columns(sess, access, db, &name, false, col_filter, sink);
    }
    c.expect_kw("SHOW")?;
    let full = c.eat_kw("FULL");
    if c.eat_kw("TABLES") {
        let db = from_db(&mut c)?.or_else(|| sess.shown_db().map(str::to_string)).ok_or_else(SqlError::no_database)?;
        let f = Filter::parse(&mut c)?;
        end(&mut c)?;
        // MariaDB: `Tables_in_db (pattern)` under LIKE.
        let header = match &f {
            Filter::Like(p) => format!("Tables_in_{} ({})", db, p),
            _ => format!("Tables_in_{}", db),
        };
        let mut cols = vec![txt(&header)];
        if full {
            cols.push(txt("Table_type"));
        }
        access.check_db(&db)?;
        if !Catalog::is_system(&db) && !sess.inner().catalog.exists(&db) {
            return Err(SqlError::unknown_database(&db));
        }
        // information_schema's are its own tables (MariaDB's SYSTEM VIEW).
        let tables: Vec<(String, &str)> = if db.eq_ignore_ascii_case("information_schema") {
            let mut v: Vec<(String, &str)> = info_tables::own_tables().map(|(n, _)| (n.to_string(), "SYSTEM VIEW")).collect();
            v.sort();
            v
        } else if db.eq_ignore_ascii_case(crate::perf_tables::SCHEMA) {
            let mut v: Vec<(String, &str)> = crate::perf_tables::own_tables().map(|n| (n.to_string(), "BASE TABLE")).collect();
            v.sort();
            v
        } else {
            tables_of(sess, &db)?.iter().map(|t| (t.name.clone(), if t.view.is_some() { "VIEW" } else { "BASE TABLE" })).collect()
        };
        sink.columns(&cols)?;
        for (name, kind) in tables {
            if f.ok(&name) && access.sees_table(&db, &name) {
                let mut row = vec![s(&name)];
                if full {
                    row.push(s(kind));
                }
                sink.row(&row)?;
            }
        }
        return Ok(Outcome::Rows);
    }
    if c.eat_kw("COLUMNS") || c.eat_kw("FIELDS") {
        if !(c.eat_kw("FROM") || c.eat_kw("IN")) {
            return Err(c.error().into());
        }
        let (mut db, name) = c.qualified()?;
        if let Some(d) = from_db(&mut c)? {
            db = Some(d);
        }
        let f = Filter::parse(&mut c)?;
        end(&mut c)?;
        return show_columns(sess, access, db, &name, full, f, sink);
    }
    if c.eat_kw("INDEX") || c.eat_kw("INDEXES") || c.eat_kw("KEYS") {
        if !(c.eat_kw("FROM") || c.eat_kw("IN")) {
            return Err(c.error().into());
        }
        let (mut db, name) = c.qualified()?;
        if let Some(d) = from_db(&mut c)? {
            db = Some(d);
        }
        if c.eat_kw("WHERE") {
            return Err(SqlError::unsupported("SHOW INDEX ... WHERE"));
        }
        end(&mut c)?;
        let (_, t) = table(sess, access, Describe::Columns, db, &name)?;
        sink.columns(&index_header())?;
        // (name, unique, columns, prefix lengths, comment)
        #[allow(clippy::type_complexity)]
        let mut keys: Vec<(String, bool, Vec<String>, Vec<Option<u64>>, String)> = Vec::new();
        if !t.primary.is_empty() {
            keys.push(("PRIMARY".into(), true, t.primary.clone(), vec![None; t.primary.len()], String::new()));
        }
        for ix in &t.indexes {
            keys.push((ix.name.clone(), ix.unique, ix.columns.clone(), ix.prefix.clone(), ix.comment.clone()));
        }
        for (kname, unique, cols, prefix, comment) in keys {
            for (i, col) in cols.iter().enumerate() {
                let nullable = t.column(col).is_some_and(|c| c.nullable);
                sink.row(&[
                    s(&t.name),
                    Value::Int(!unique as i64),
                    s(&kname),
                    Value::Int(i as i64 + 1),
                    s(col),
                    s("A"),
                    Value::Int(0),
                    prefix.get(i).copied().flatten().map_or(Value::Null, |p| Value::Int(p as i64)),
                    Value::Null,
                    s(if nullable { "YES" } else { "" }),
                    s(index_type(&t, &kname)),
                    s(""),
                    s(&comment),
                    s("NO"),
                ])?;
            }
        }
        return Ok(Outcome::Rows);
    }
    if c.eat_kw("CREATE") {
        if c.eat_kw("DATABASE") || c.eat_kw("SCHEMA") {
            let if_not_exists = c.eat_kws(&["IF", "NOT", "EXISTS"]);
            let db = c.ident()?;
            end(&mut c)?;
            access.check_db(&db)?;
            if !sess.inner().catalog.exists(&db) {
                return Err(SqlError::unknown_database(&db));
            }
            sink.columns(&[txt("Database"), txt("Create Database")])?;
            // MySQL and MariaDB echo IF NOT EXISTS (mysqldump and
            // mariadb-dump ask for it: the dump then restores over an
            // existing database).
            let ine = if if_not_exists { "/*!32312 IF NOT EXISTS*/ " } else { "" };
            let cs = schema_charset(&db);
            sink.row(&[s(&db), s(&format!("CREATE DATABASE {ine}`{}` /*!40100 DEFAULT CHARACTER SET {cs} COLLATE {cs}_general_ci */", db.replace('`', "``")))])?;
            return Ok(Outcome::Rows);
        }
        let want_view = c.eat_kw("VIEW");
        if !want_view && !c.eat_kw("TABLE") {
            if c.is_kw("PROCEDURE") || c.is_kw("FUNCTION") || c.is_kw("TRIGGER") || c.is_kw("EVENT") {
                return Err(SqlError::unsupported("views, stored routines, triggers and events"));
            }
            return Err(c.error().into());
        }
        let (db, name) = c.qualified()?;
        end(&mut c)?;
        if let Some(create) = db.as_deref().or(sess.shown_db()).and_then(|d| log_table(d, &name)) {
            sink.columns(&[txt("Table"), txt("Create Table")])?;
            sink.row(&[s(&name), s(create)])?;
            return Ok(Outcome::Rows);
        }
        let (dbn, t) = table(sess, access, Describe::Create, db, &name)?;
        if let Some(v) = t.view.as_ref() {
            // Its query is shown to who may read it (MariaDB: SELECT and SHOW VIEW).
            access.check_table(&dbn, &t.name, turnstile_engine::privs::SELECT)?;
            sink.columns(&[txt("View"), txt("Create View"), txt("character_set_client"), txt("collation_connection")])?;
            let (cs, coll) = v.charset();
            sink.row(&[s(&t.name), s(&show_create_view(&t.name, v)), s(cs), s(coll)])?;
            return Ok(Outcome::Rows);
        }
        if want_view {
            return Err(SqlError::new(1347, "HY000", format!("'{}.{}' is not of type 'VIEW'", dbn, t.name)));
        }
        let ai = auto_increment_of(sess, &dbn, &t);
        let quote = if sess.quote_show_create() { crate::schema::quote_ident } else { crate::schema::quote_if_needed };
        let mut create = t.show_create_quoted(ai, quote);
        if is_temporary(sess, &dbn, &t) {
            // MariaDB shows a temporary table as one (mariadb-dump relies on it too).
            create.replace_range(.."CREATE TABLE".len(), "CREATE TEMPORARY TABLE");
        }
        sink.columns(&[txt("Table"), txt("Create Table")])?;
        sink.row(&[s(&t.name), s(&create)])?;
        return Ok(Outcome::Rows);
    }
    if c.eat_kw("TABLE") {
        c.expect_kw("STATUS")?;
        let db = from_db(&mut c)?.or_else(|| sess.shown_db().map(str::to_string)).ok_or_else(SqlError::no_database)?;
        let f = Filter::parse(&mut c)?;
        end(&mut c)?;
        access.check_db(&db)?;
        let tables = tables_of(sess, &db)?;
        sink.columns(&status_header())?;
        for t in tables {
            if !f.ok(&t.name) || !access.sees_table(&db, &t.name) {
                continue;
            }
            if t.view.is_some() {
                let mut row = vec![Value::Null; status_header().len()];
                row[0] = s(&t.name);
                row[17] = s("VIEW");
                sink.row(&row)?;
                continue;
            }
            let ai = auto_increment_of(sess, &db, &t);
            let rows = exact_rows(sess, &db, &t).unwrap_or(0);
            sink.row(&[
                s(&t.name),
                s(&t.engine),
                Value::Int(10),
                s(t.row_format()),
                Value::Int(rows),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                ai.map_or(Value::Null, Value::Int),
                datetime_value(t.created),
                Value::Null,
                Value::Null,
                s(&t.collation),
                Value::Null,
                s(""),
                s(&t.comment),
                Value::Int(0),
                s("N"),
            ])?;
        }
        return Ok(Outcome::Rows);
    }
    if c.eat_kw("EVENTS") {
        // No events: MariaDB's columns, no rows.
        let names = [
            "Db",
            "Name",
            "Definer",
            "Time zone",
            "Type",
            "Execute at",
            "Interval value",
            "Interval field",
            "Starts",
            "Ends",
            "Status",
            "Originator",
            "character_set_client",
            "collation_connection",
            "Database Collation",
        ];
        let cols: Vec<Column> = names
            .iter()
            .map(|n| match *n {
                "Execute at" | "Starts" | "Ends" => datetime(n),
                "Originator" => num(n),
                _ => txt(n),
            })
            .collect();
        sink.columns(&cols)?;
        return Ok(Outcome::Rows);
    }
    if c.eat_kw("TRIGGERS")
        || (c.is_kw("PROCEDURE") || c.is_kw("FUNCTION")) && {
            c.next();
            c.eat_kw("STATUS")
        }
    {
        sink.columns(&[txt("Db"), txt("Name"), txt("Type")])?;
        return Ok(Outcome::Rows);
    }
    Err(SqlError::unsupported(&sql.split_whitespace().take(3).collect::<Vec<_>>().join(" ")))
}

#[allow(clippy::too_many_arguments)]
fn show_columns(sess: &mut SqliteSession, access: &dyn Access, db: Option<String>, name: &str, full: bool, f: Filter, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let (dbn, t) = table(sess, access, Describe::Columns, db, name)?;
    sink.columns(&columns_header(full))?;
    // Every column for a table-level privilege that applies to columns,
    // else those the session holds a column-level grant on (MariaDB).
    let all = access.held_on_table(&dbn, &t.name) & turnstile_engine::privs::COLUMN_ALL != 0 || sess.current_db() == Some(dbn.as_str()) && sess.conn_for_show()?.temp.table(&t.name).is_some();
    for col in &t.columns {
        if !f.ok(&col.name) || !(all || access.column_privileges(&dbn, &t.name, &col.name) != 0) {
            continue;
        }
        let null = s(if col.nullable { "YES" } else { "NO" });
        let key = s(t.column_key(&col.name));
        let default = opt(col.default_text());
        let extra = s(&col.extra());
        let row = if full {
            vec![s(&col.name), s(&col.column_type()), opt(col.collation.clone()), null, key, default, extra, s("select,insert,update,references"), s(&col.comment)]
        } else {
            vec![s(&col.name), s(&col.column_type()), null, key, default, extra]
        };
        sink.row(&row)?;
    }
    Ok(Outcome::Rows)
}

/// SHOW INDEX's Index_type (information_schema.STATISTICS.INDEX_TYPE).
fn index_type(t: &TableDef, index: &str) -> &'static str {
    if t.indexes.iter().any(|i| i.fulltext && i.name == index) {
        "FULLTEXT"
    } else {
        "BTREE"
    }
}

fn auto_increment_of(sess: &mut SqliteSession, db: &str, t: &TableDef) -> Option<i64> {
    let ai = t.auto_increment_column()?;
    let conn = sess.conn_for_show().ok()?;
    let schema = schema_on(conn, db)?;
    if !crate::ddl::is_rowid_column(t, ai) {
        // Not the rowid (`ts_ai_key`): one past the largest value.
        let sql = format!("SELECT max({}) FROM {}.{}", sq_ident(&ai.name), sq_ident(schema), sq_ident(&t.name));
        let largest: i64 = conn.db.query_row(&sql, [], |r| r.get::<_, Option<i64>>(0)).ok().flatten().unwrap_or(0);
        return Some(largest + 1);
    }
    let sql = format!("SELECT seq FROM {}.sqlite_sequence WHERE name = ?1", sq_ident(schema));
    let seq: i64 = conn.db.query_row(&sql, [&t.name], |r| r.get(0)).unwrap_or(0);
    Some(seq + 1)
}

/// SHOW TABLE STATUS's Rows for a table whose MariaDB engine keeps an exact
/// count (MyISAM, Aria, MEMORY...: there it is the number of rows); InnoDB's
/// is an estimate MariaDB reads from its statistics, and a count would cost a
/// walk of the table, so it stays 0 (None) here.
fn exact_rows(sess: &mut SqliteSession, db: &str, t: &TableDef) -> Option<i64> {
    if t.view.is_some() || t.engine.eq_ignore_ascii_case("InnoDB") {
        return None;
    }
    let conn = sess.conn_for_show().ok()?;
    let schema = schema_on(conn, db)?;
    let sql = format!("SELECT count(*) FROM {}.{}", sq_ident(schema), sq_ident(&t.name));
    conn.db.query_row(&sql, [], |r| r.get::<_, i64>(0)).ok()
}

/// The SQLite schema under which database `db` is open on `conn`: `main` for
/// its home database, the database's name where it is attached, else none.
fn schema_on<'a>(conn: &Conn, db: &'a str) -> Option<&'a str> {
    if conn.home.as_ref().is_some_and(|h| h.name == db) {
        Some("main")
    } else if conn.attached.iter().any(|a| a.name == db) {
        Some(db)
    } else {
        None
    }
}

/// The next AUTO_INCREMENT value (SQLite's sqlite_sequence + 1, as SHOW TABLE
/// STATUS gives it) of every table of database `name` that has generated
/// one, read on `conn` where the database is its main or attached, and
/// otherwise on a pooled connection to that database.
fn next_auto_increments(conn: &Conn, inner: &Inner, name: &str) -> HashMap<String, i64> {
    fn read(c: &Conn, schema: &str) -> HashMap<String, i64> {
        let sql = format!("SELECT name, seq FROM {}.sqlite_sequence", sq_ident(schema));
        // No sqlite_sequence yet: no table of the database has generated an id.
        let Ok(mut st) = c.db.prepare(&sql) else { return HashMap::new() };
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? + 1)));
        rows.map(|rows| rows.flatten().collect()).unwrap_or_default()
    }
    if let Some(schema) = schema_on(conn, name) {
        return read(conn, schema);
    }
    match inner.take_conn(Some(name)) {
        Ok(other) => {
            let next = read(&other, "main");
            inner.return_conn(other);
            next
        }
        Err(_) => HashMap::new(),
    }
}

fn datetime_of(secs: u64) -> String {
    datetime_value(secs).to_text().map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

/// Seconds since the epoch as a DATETIME value (SHOW TABLE STATUS' Create_time).
fn datetime_value(secs: u64) -> Value {
    let days = (secs / 86400) as i64;
    let (y, m, d) = turnstile_sqltext::civil::civil_from_days(days);
    let r = secs % 86400;
    Value::DateTime { year: y.clamp(0, 9999) as u16, month: m as u8, day: d as u8, hour: (r / 3600) as u8, minute: (r / 60 % 60) as u8, second: (r % 60) as u8, micro: 0 }
}

/// information_schema.TRIGGERS' row for a trigger's record (engine/routine.rs
/// says which fields hold its table, timing, event and order).
fn trigger_row(r: &turnstile_engine::RoutineRow) -> Vec<rusqlite::types::Value> {
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let (timing, event) = r.returns.split_once(' ').unwrap_or(("", ""));
    let order = r.data_access.parse::<i64>().unwrap_or(1);
    vec![
        t("def"),
        t(&r.db),
        t(&r.name),
        t(event),
        t("def"),
        t(&r.db),
        t(&r.params),
        V::Integer(order),
        V::Null,
        t(&r.body),
        t("ROW"),
        t(timing),
        V::Null,
        V::Null,
        t("OLD"),
        t("NEW"),
        t(&r.created),
        t(&r.sql_mode),
        t(&r.definer),
        t("utf8mb4"),
        t("utf8mb4_general_ci"),
        t("utf8mb4_general_ci"),
    ]
}

/// Attach information_schema to the connection, with its tables. ATTACH is
/// not transactional but CREATE TABLE is: tables made inside a transaction
/// that then rolls back (`mariadb-dump --single-transaction` reads
/// information_schema inside one and never commits) are gone while the
/// database stays attached, and every later statement on the pooled
/// connection found no information_schema tables (1146). So an attached one
/// is checked for its tables (one read of an in-memory schema, only for
/// statements that name information_schema) and they are made again.
pub fn attach_info_schema(conn: &mut Conn) -> Result<(), SqlError> {
    if !conn.info_attached {
        conn.exec("ATTACH DATABASE ':memory:' AS information_schema")?;
        conn.exec("ATTACH DATABASE ':memory:' AS performance_schema")?;
        conn.info_attached = true;
    } else if info_tables_present(conn) {
        return Ok(());
    }
    conn.exec(crate::perf_tables::PERF_TABLES)?;
    conn.exec(info_tables::INFO_TABLES)?;
    conn.exec(crate::mysql_user::CREATE)?;
    conn.exec(&info_tables::static_rows())?;
    info_tables::fill_own_rows(&conn.db)
}

/// Does the attached information_schema still hold its tables?
fn info_tables_present(conn: &Conn) -> bool {
    // INFO_TABLES and mysql_user::CREATE.
    let want = info_tables::INFO_TABLES.matches("CREATE TABLE").count() as i64 + 1;
    // (SHOW ... WHERE's scratch tables are not counted: exec/show_where.rs.)
    let have = conn
        .db
        .prepare_cached("SELECT count(*) FROM information_schema.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'ts\\_show\\_%' ESCAPE '\\'")
        .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)));
    let perf = conn.db.prepare_cached("SELECT count(*) FROM performance_schema.sqlite_schema WHERE type = 'table'").and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)));
    have.is_ok_and(|n| n == want) && perf.is_ok_and(|n| n == crate::perf_tables::own_tables().count() as i64)
}

/// Refill information_schema from the definitions of every database the
/// session may see (MySQL shows an account only what it holds privileges on).
/// SHOW CREATE VIEW's text, in MariaDB's layout (the SELECT as written).
fn show_create_view(name: &str, v: &crate::schema::ViewDef) -> String {
    // The shown form names each column itself.
    let cols = if v.column_list.is_empty() || v.shown.is_some() { String::new() } else { format!(" ({})", v.column_list.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(",")) };
    let check = if v.check_option == "NONE" { String::new() } else { format!(" WITH {} CHECK OPTION", v.check_option) };
    format!("CREATE ALGORITHM={} DEFINER={} SQL SECURITY {} VIEW {}{} AS {}{}", v.algorithm, v.definer, v.security, quote_ident(name), cols, v.shown_select(), check)
}

/// `named`: the tables the statement names (the server's variables and
/// status are written only for a statement that names their tables).
pub fn refresh_info_schema(conn: &mut Conn, inner: &Inner, access: &dyn Access, named: &[(Option<String>, String)]) -> Result<(), SqlError> {
    attach_info_schema(conn)?;
    if named.iter().any(|(d, _)| d.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(crate::perf_tables::SCHEMA))) {
        crate::perf_tables::fill(&conn.db, access)?;
    }
    let names: Vec<String> = inner.database_names().into_iter().filter(|n| access.sees(n)).collect();
    let mut all: Vec<(String, Vec<Arc<TableDef>>)> = Vec::new();
    for n in &names {
        let d = inner.db(n)?;
        let mut v: Vec<Arc<TableDef>> = d.schema().tables.values().cloned().collect();
        // Only the tables the session holds something on, when that is not
        // the whole database (table- and column-level grants).
        if access.privileges(n) & turnstile_engine::privs::ALL == 0 {
            v.retain(|t| access.sees_table(n, &t.name));
        }
        if conn.home.as_ref().is_some_and(|h| &h.name == n) {
            v.extend(conn.temp.tables.values().cloned());
        }
        v.sort_by(|a, b| a.name.cmp(&b.name));
        all.push((n.clone(), v));
    }
    let db = &conn.db;
    let run = |sql: &str, rows: Vec<Vec<rusqlite::types::Value>>| -> Result<(), SqlError> {
        let mut st = db.prepare_cached(sql).map_err(|e| SqlError::internal(e.to_string()))?;
        for r in rows {
            st.execute(rusqlite::params_from_iter(r)).map_err(|e| SqlError::internal(e.to_string()))?;
        }
        Ok(())
    };
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let o = |x: Option<String>| x.map_or(V::Null, V::Text);
    let i = |x: i64| V::Integer(x);
    db.execute_batch(
        "DELETE FROM information_schema.SCHEMATA; DELETE FROM information_schema.TABLES WHERE TABLE_SCHEMA <> 'information_schema'; \
         DELETE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA <> 'information_schema'; \
         DELETE FROM information_schema.STATISTICS; DELETE FROM information_schema.KEY_COLUMN_USAGE; DELETE FROM information_schema.TABLE_CONSTRAINTS; DELETE FROM information_schema.CHECK_CONSTRAINTS; \
         DELETE FROM information_schema.REFERENTIAL_CONSTRAINTS; \
         DELETE FROM information_schema.VIEWS; DELETE FROM information_schema.ROUTINES; DELETE FROM information_schema.TRIGGERS;",
    )
    .map_err(|e| SqlError::internal(e.to_string()))?;
    let mut schemata = Vec::new();
    let mut sys: Vec<String> = turnstile_engine::catalog::SYSTEM_SCHEMAS.iter().filter(|x| access.sees(x)).map(|x| x.to_string()).collect();
    sys.extend(names.iter().cloned());
    sys.sort();
    for n in &sys {
        let cs = schema_charset(n);
        schemata.push(vec![t("def"), t(n), t(cs), t(&format!("{cs}_general_ci")), V::Null, t("")]);
    }
    run("INSERT INTO information_schema.SCHEMATA VALUES (?1,?2,?3,?4,?5,?6)", schemata)?;
    let (mut tables, mut columns, mut stats, mut kcu, mut tc, mut rc) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut checks = Vec::new();
    let mut views = Vec::new();
    for (dbn, defs) in &all {
        let seqs = if defs.iter().any(|d| d.auto_increment_column().is_some()) { next_auto_increments(conn, inner, dbn) } else { HashMap::new() };
        for d in defs {
            // TEMPORARY tables' counters live in `temp`, not in their database.
            let temp = |d: &Arc<TableDef>| conn.temp.tables.values().any(|x| Arc::ptr_eq(x, d));
            let auto_increment = match d.auto_increment_column() {
                Some(_) if !temp(d) => i(seqs.get(&d.name).copied().unwrap_or(1)),
                _ => V::Null,
            };
            if let Some(v) = d.view.as_ref() {
                let mut row = vec![V::Null; 23];
                (row[0], row[1], row[2], row[3], row[20]) = (t("def"), t(dbn), t(&d.name), t("VIEW"), t("VIEW"));
                tables.push(row);
                // The query only for an account that may read the view
                // (MariaDB: SHOW VIEW, or the definer); empty otherwise.
                let readable = access.held_on_table(dbn, &d.name) & turnstile_engine::privs::SELECT != 0;
                let definition = if readable { v.shown_select() } else { "" };
                views.push(vec![
                    t("def"),
                    t(dbn),
                    t(&d.name),
                    t(definition),
                    t(&v.check_option),
                    t(if is_updatable(d, v, defs) { "YES" } else { "NO" }),
                    t(&v.definer.replace('`', "")),
                    t(&v.security),
                    t(v.charset().0),
                    t(v.charset().1),
                    t(&v.algorithm),
                ]);
            }
            if d.view.is_none() {
                tables.push(vec![
                    t("def"),
                    t(dbn),
                    t(&d.name),
                    t("BASE TABLE"),
                    t(&d.engine),
                    i(10),
                    t(d.row_format()),
                    i(0),
                    i(0),
                    i(0),
                    i(0),
                    i(0),
                    i(0),
                    auto_increment,
                    t(&datetime_of(d.created)),
                    V::Null,
                    V::Null,
                    t(&d.collation),
                    V::Null,
                    t(""),
                    t(&d.comment),
                    i(0),
                    t(if temp(d) { "Y" } else { "N" }),
                ]);
            }
            // Columns only for an account with a privilege that applies to
            // columns (MariaDB hides them from, say, DROP alone).
            let column_privs = turnstile_engine::privs::SELECT | turnstile_engine::privs::INSERT | turnstile_engine::privs::UPDATE | turnstile_engine::privs::REFERENCES;
            let columns_visible = temp(d) || access.held_on_table(dbn, &d.name) & column_privs != 0;
            let column_visible = |c: &str| columns_visible || access.column_privileges(dbn, &d.name, c) & column_privs != 0;
            for (pos, c) in d.columns.iter().enumerate().filter(|(_, c)| column_visible(&c.name)) {
                let data_type = c.base.sql_name().to_string();
                // Octets: characters times the character set's widest (utf8mb3 3, latin1 1).
                let width = c.charset_name().and_then(|cs| turnstile_sqltext::charsets::CHARACTER_SETS.iter().find(|x| x.name == cs || (cs == "utf8" && x.name == "utf8mb3"))).map_or(4, |x| x.max_len);
                let (clen, olen) = match c.base.max_len(c.length) {
                    Some(n) if c.base.is_text() => (Some(n as i64), Some(n as i64 * width)),
                    Some(n) => (Some(n as i64), Some(n as i64)),
                    None if matches!(c.base, Base::Enum | Base::Set) => {
                        let m = c.members.iter().map(|m| m.chars().count()).max().unwrap_or(0) as i64;
                        (Some(m), Some(m * width))
                    }
                    None if matches!(c.base, Base::LongText | Base::LongBlob | Base::Json) => (Some(4294967295), Some(4294967295)),
                    None => (None, None),
                };
                let (prec, scale) = match c.base {
                    Base::TinyInt => (Some(3), Some(0)),
                    Base::SmallInt => (Some(5), Some(0)),
                    Base::MediumInt => (Some(7), Some(0)),
                    Base::Int => (Some(10), Some(0)),
                    Base::BigInt => (Some(if c.unsigned { 20 } else { 19 }), Some(0)),
                    Base::Decimal => (c.length.map(|x| x as i64), c.scale.map(|x| x as i64)),
                    Base::Float => (Some(12), None),
                    Base::Double => (Some(22), None),
                    Base::Bit => (c.length.map(|x| x as i64), None),
                    _ => (None, None),
                };
                let dtp = if matches!(c.base, Base::DateTime | Base::Timestamp | Base::Time) { Some(c.length.unwrap_or(0) as i64) } else { None };
                columns.push(vec![
                    t("def"),
                    t(dbn),
                    t(&d.name),
                    t(&c.name),
                    i(pos as i64 + 1),
                    o(c.default_text()),
                    t(if c.nullable { "YES" } else { "NO" }),
                    t(&data_type),
                    clen.map_or(V::Null, V::Integer),
                    olen.map_or(V::Null, V::Integer),
                    prec.map_or(V::Null, V::Integer),
                    scale.map_or(V::Null, V::Integer),
                    dtp.map_or(V::Null, V::Integer),
                    o(c.charset_name().map(str::to_string)),
                    o(c.collation.clone()),
                    t(&c.column_type()),
                    t(d.column_key(&c.name)),
                    t(&c.extra()),
                    t("select,insert,update,references"),
                    t(&c.comment),
                    t(if c.generated.is_some() { "ALWAYS" } else { "NEVER" }),
                    o(c.generated.as_ref().map(|g| g.expr.clone())),
                ]);
            }
            // (name, unique, columns, prefix lengths)
            #[allow(clippy::type_complexity)]
            let mut keys: Vec<(String, bool, Vec<String>, Vec<Option<u64>>)> = Vec::new();
            if !d.primary.is_empty() {
                keys.push(("PRIMARY".into(), true, d.primary.clone(), vec![None; d.primary.len()]));
            }
            for ix in &d.indexes {
                keys.push((ix.name.clone(), ix.unique, ix.columns.clone(), ix.prefix.clone()));
            }
            for (kname, unique, cols, prefix) in &keys {
                for (k, col) in cols.iter().enumerate() {
                    stats.push(vec![
                        t("def"),
                        t(dbn),
                        t(&d.name),
                        i(!unique as i64),
                        t(dbn),
                        t(kname),
                        i(k as i64 + 1),
                        t(col),
                        t("A"),
                        i(0),
                        prefix.get(k).copied().flatten().map_or(V::Null, |p| V::Integer(p as i64)),
                        V::Null,
                        t(if d.column(col).is_some_and(|c| c.nullable) { "YES" } else { "" }),
                        t(index_type(d, kname)),
                        t(""),
                        t(""),
                        t("NO"),
                    ]);
                    if *unique {
                        kcu.push(vec![t("def"), t(dbn), t(kname), t("def"), t(dbn), t(&d.name), t(col), i(k as i64 + 1), V::Null, V::Null, V::Null, V::Null]);
                    }
                }
                if *unique {
                    tc.push(vec![t("def"), t(dbn), t(kname), t(dbn), t(&d.name), t(if kname == "PRIMARY" { "PRIMARY KEY" } else { "UNIQUE" })]);
                }
            }
            for fk in &d.foreign_keys {
                for (k, col) in fk.columns.iter().enumerate() {
                    kcu.push(vec![t("def"), t(dbn), t(&fk.name), t("def"), t(dbn), t(&d.name), t(col), i(k as i64 + 1), i(k as i64 + 1), t(dbn), t(&fk.ref_table), o(fk.ref_columns.get(k).cloned())]);
                }
                tc.push(vec![t("def"), t(dbn), t(&fk.name), t(dbn), t(&d.name), t("FOREIGN KEY")]);
                let rule = |r: &str| t(if r.is_empty() { "RESTRICT" } else { r });
                rc.push(vec![t("def"), t(dbn), t(&fk.name), t("def"), t(dbn), t("PRIMARY"), t("NONE"), rule(&fk.on_update), rule(&fk.on_delete), t(&d.name), t(&fk.ref_table)]);
            }
            // CHECK constraints: the columns' own (named as the column), then the table's.
            let column_checks = d.columns.iter().filter_map(|c| c.check.as_ref().map(|k| (c.name.as_str(), "Column", k.as_str())));
            for (name, level, clause) in column_checks.chain(d.checks.iter().map(|k| (k.name.as_str(), "Table", k.clause.as_str()))) {
                tc.push(vec![t("def"), t(dbn), t(name), t(dbn), t(&d.name), t("CHECK")]);
                checks.push(vec![t("def"), t(dbn), t(&d.name), t(name), t(level), t(clause)]);
            }
        }
    }
    // mysql.user (a view in MariaDB) for whoever may see the mysql schema.
    // (information_schema's own tables' rows stay: info_tables::fill_own_rows.)
    if access.sees("mysql") {
        let mut row = vec![V::Null; 23];
        (row[0], row[1], row[2], row[3], row[20]) = (t("def"), t("mysql"), t("user"), t("VIEW"), t("VIEW"));
        tables.push(row);
    }
    run(&format!("INSERT INTO information_schema.TABLES VALUES ({})", marks(23)), tables)?;
    run("INSERT INTO information_schema.COLUMNS VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)", columns)?;
    run(&format!("INSERT INTO information_schema.STATISTICS VALUES ({})", marks(17)), stats)?;
    run("INSERT INTO information_schema.KEY_COLUMN_USAGE VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)", kcu)?;
    run("INSERT INTO information_schema.TABLE_CONSTRAINTS VALUES (?1,?2,?3,?4,?5,?6)", tc)?;
    run("INSERT INTO information_schema.CHECK_CONSTRAINTS VALUES (?1,?2,?3,?4,?5,?6)", checks)?;
    run("INSERT INTO information_schema.REFERENTIAL_CONSTRAINTS VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", rc)?;
    run("INSERT INTO information_schema.VIEWS VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", views)?;
    let mut routines = Vec::new();
    let mut triggers = Vec::new();
    for r in crate::exec::routines::list(inner, |d| access.sees(d))? {
        if r.kind == turnstile_engine::RoutineKind::Trigger {
            // MariaDB lists a trigger to an account with TRIGGER on its database.
            if access.privileges(&r.db) & turnstile_engine::privs::TRIGGER != 0 {
                triggers.push(trigger_row(&r));
            }
            continue;
        }
        let base = r.returns.split(['(', ' ']).next().unwrap_or("").to_ascii_lowercase();
        let (data_type, dtd) = if r.returns.is_empty() { (t(""), V::Null) } else { (t(&base), t(&r.returns.to_ascii_lowercase())) };
        let mut row = vec![V::Null; 31];
        (row[0], row[1], row[2], row[3], row[4], row[5], row[13]) = (t(&r.name), t("def"), t(&r.db), t(&r.name), t(r.kind.keyword()), data_type, dtd);
        (row[14], row[15], row[18], row[19], row[20]) = (t("SQL"), t(&r.body), t("SQL"), t(if r.deterministic { "YES" } else { "NO" }), t(&r.data_access));
        (row[22], row[23], row[24], row[25], row[26], row[27]) = (t(if r.invoker { "INVOKER" } else { "DEFINER" }), t(&r.created), t(&r.modified), t(&r.sql_mode), t(&r.comment), t(&r.definer));
        (row[28], row[29], row[30]) = (t("utf8mb4"), t("utf8mb4_general_ci"), t("utf8mb4_general_ci"));
        routines.push(row);
    }
    run(&format!("INSERT INTO information_schema.ROUTINES VALUES ({})", marks(31)), routines)?;
    // MariaDB's order: by table, event, timing (BEFORE first), ACTION_ORDER.
    let text_at = |r: &Vec<rusqlite::types::Value>, k: usize| match &r[k] {
        rusqlite::types::Value::Text(s) => s.clone(),
        _ => String::new(),
    };
    let event_rank = |e: &str| ["INSERT", "UPDATE", "DELETE"].iter().position(|x| *x == e).unwrap_or(3);
    let order = |r: &Vec<rusqlite::types::Value>| if let rusqlite::types::Value::Integer(n) = r[7] { n } else { 0 };
    triggers.sort_by_key(|r| (text_at(r, 1), text_at(r, 6), event_rank(&text_at(r, 3)), text_at(r, 11) != "BEFORE", order(r)));
    run(&format!("INSERT INTO information_schema.TRIGGERS VALUES ({})", marks(22)), triggers)?;
    info_tables::fill_server_tables(db, access, named)
}

/// A database's character set: information_schema's and
/// performance_schema's are utf8mb3, as in MariaDB; every other is utf8mb4.
fn schema_charset(db: &str) -> &'static str {
    if db.eq_ignore_ascii_case("information_schema") || db.eq_ignore_ascii_case("performance_schema") {
        "utf8mb3"
    } else {
        "utf8mb4"
    }
}

/// `?1,?2,...,?n`: the parameters of an INSERT of `n` columns.
pub(crate) fn marks(n: usize) -> String {
    (1..=n).map(|k| format!("?{}", k)).collect::<Vec<_>>().join(",")
}

/// information_schema.VIEWS.IS_UPDATABLE: whether a write through the view
/// goes to its table (exec/view_dml.rs).
fn is_updatable(d: &TableDef, v: &crate::schema::ViewDef, defs: &[Arc<TableDef>]) -> bool {
    let names: Vec<String> = d.columns.iter().map(|c| c.name.clone()).collect();
    let columns_of = |t: &str| defs.iter().find(|x| x.name.eq_ignore_ascii_case(t)).map(|x| x.columns.iter().map(|c| c.name.clone()).collect());
    !v.algorithm.eq_ignore_ascii_case("TEMPTABLE") && v.expand.is_none() && crate::exec::view_dml::updatable(&v.select, &names, &columns_of)
}
