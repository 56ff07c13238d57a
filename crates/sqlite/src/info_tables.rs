//! information_schema's own tables: their definitions in MariaDB 10.11's
//! shapes (its column names, order and types), the rows that never change
//! (ENGINES, PLUGINS, CHARACTER_SETS, COLLATIONS and
//! COLLATION_CHARACTER_SET_APPLICABILITY), the rows that describe these
//! tables themselves in information_schema.TABLES (as MariaDB lists them:
//! TABLE_TYPE `SYSTEM VIEW`), and the wire type a result column of one of
//! them has.
//!
//! Each column is declared with MariaDB's own type text (`VARCHAR(64)`,
//! `UNSIGNED BIGINT(21)`, `LONGTEXT`, `DATETIME`); SQLite keeps that text as
//! the column's declared type, and `wire_column` reads it back so that a
//! SELECT from these tables carries MariaDB's column types (LONGTEXT as a
//! text BLOB, CREATED as DATETIME, SEQ_IN_INDEX as INT). show.rs fills the
//! tables whose rows change.

use super::schema::Base;
use crate::conn::Conv;
use turnstile_engine::access::privs;
use turnstile_engine::{Access, SqlError};
use turnstile_sqltext::lex;
use turnstile_wire::consts::{charset, colflag, coltype};
use turnstile_wire::response::Column;

/// A column MariaDB lets be NULL says `NULL` (no constraint for SQLite: it
/// is what information_schema.COLUMNS shows as IS_NULLABLE).
/// Columns holding keywords (IS_NULLABLE, DATA_TYPE, TABLE_TYPE, ...) compare
/// case-insensitively as in MySQL, where they come out in the connection's
/// collation (MariaDB Connector/J's getColumns tests `IS_NULLABLE = 'yes'`).
pub const INFO_TABLES: &str = "
CREATE TABLE IF NOT EXISTS information_schema.SCHEMATA (CATALOG_NAME VARCHAR(512), SCHEMA_NAME VARCHAR(64), DEFAULT_CHARACTER_SET_NAME VARCHAR(32) COLLATE ts_ci, DEFAULT_COLLATION_NAME VARCHAR(64) COLLATE ts_ci, SQL_PATH VARCHAR(512) NULL, SCHEMA_COMMENT VARCHAR(1024));
CREATE TABLE IF NOT EXISTS information_schema.TABLES (TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), TABLE_TYPE VARCHAR(64) COLLATE ts_ci, ENGINE VARCHAR(64) NULL COLLATE ts_ci, VERSION UNSIGNED BIGINT(21) NULL, ROW_FORMAT VARCHAR(10) NULL COLLATE ts_ci, TABLE_ROWS UNSIGNED BIGINT(21) NULL, AVG_ROW_LENGTH UNSIGNED BIGINT(21) NULL, DATA_LENGTH UNSIGNED BIGINT(21) NULL, MAX_DATA_LENGTH UNSIGNED BIGINT(21) NULL, INDEX_LENGTH UNSIGNED BIGINT(21) NULL, DATA_FREE UNSIGNED BIGINT(21) NULL, AUTO_INCREMENT UNSIGNED BIGINT(21) NULL, CREATE_TIME DATETIME NULL, UPDATE_TIME DATETIME NULL, CHECK_TIME DATETIME NULL, TABLE_COLLATION VARCHAR(64) NULL COLLATE ts_ci, CHECKSUM UNSIGNED BIGINT(21) NULL, CREATE_OPTIONS VARCHAR(2048) NULL, TABLE_COMMENT VARCHAR(2048), MAX_INDEX_LENGTH UNSIGNED BIGINT(21) NULL, TEMPORARY VARCHAR(1) NULL);
CREATE TABLE IF NOT EXISTS information_schema.COLUMNS (TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), COLUMN_NAME VARCHAR(64), ORDINAL_POSITION UNSIGNED BIGINT(21), COLUMN_DEFAULT LONGTEXT NULL, IS_NULLABLE VARCHAR(3) COLLATE ts_ci, DATA_TYPE VARCHAR(64) COLLATE ts_ci, CHARACTER_MAXIMUM_LENGTH UNSIGNED BIGINT(21) NULL, CHARACTER_OCTET_LENGTH UNSIGNED BIGINT(21) NULL, NUMERIC_PRECISION UNSIGNED BIGINT(21) NULL, NUMERIC_SCALE UNSIGNED BIGINT(21) NULL, DATETIME_PRECISION UNSIGNED BIGINT(21) NULL, CHARACTER_SET_NAME VARCHAR(32) NULL COLLATE ts_ci, COLLATION_NAME VARCHAR(64) NULL COLLATE ts_ci, COLUMN_TYPE LONGTEXT COLLATE ts_ci, COLUMN_KEY VARCHAR(3) COLLATE ts_ci, EXTRA VARCHAR(80) COLLATE ts_ci, PRIVILEGES VARCHAR(80), COLUMN_COMMENT VARCHAR(1024), IS_GENERATED VARCHAR(6) COLLATE ts_ci, GENERATION_EXPRESSION LONGTEXT NULL);
CREATE TABLE IF NOT EXISTS information_schema.STATISTICS (TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), NON_UNIQUE BIGINT(1), INDEX_SCHEMA VARCHAR(64), INDEX_NAME VARCHAR(64), SEQ_IN_INDEX UNSIGNED INT(2), COLUMN_NAME VARCHAR(64), COLLATION VARCHAR(1) NULL, CARDINALITY BIGINT(21) NULL, SUB_PART BIGINT(3) NULL, PACKED VARCHAR(10) NULL, NULLABLE VARCHAR(3) COLLATE ts_ci, INDEX_TYPE VARCHAR(16) COLLATE ts_ci, COMMENT VARCHAR(16) NULL, INDEX_COMMENT VARCHAR(1024), IGNORED VARCHAR(3));
CREATE TABLE IF NOT EXISTS information_schema.KEY_COLUMN_USAGE (CONSTRAINT_CATALOG VARCHAR(512), CONSTRAINT_SCHEMA VARCHAR(64), CONSTRAINT_NAME VARCHAR(64), TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), COLUMN_NAME VARCHAR(64), ORDINAL_POSITION BIGINT(10), POSITION_IN_UNIQUE_CONSTRAINT BIGINT(10) NULL, REFERENCED_TABLE_SCHEMA VARCHAR(64) NULL, REFERENCED_TABLE_NAME VARCHAR(64) NULL, REFERENCED_COLUMN_NAME VARCHAR(64) NULL);
CREATE TABLE IF NOT EXISTS information_schema.TABLE_CONSTRAINTS (CONSTRAINT_CATALOG VARCHAR(512), CONSTRAINT_SCHEMA VARCHAR(64), CONSTRAINT_NAME VARCHAR(64), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), CONSTRAINT_TYPE VARCHAR(64) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.CHECK_CONSTRAINTS (CONSTRAINT_CATALOG VARCHAR(512), CONSTRAINT_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), CONSTRAINT_NAME VARCHAR(64), LEVEL VARCHAR(6) COLLATE ts_ci, CHECK_CLAUSE LONGTEXT);
CREATE TABLE IF NOT EXISTS information_schema.VIEWS (TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), VIEW_DEFINITION LONGTEXT, CHECK_OPTION VARCHAR(8), IS_UPDATABLE VARCHAR(3) COLLATE ts_ci, DEFINER VARCHAR(384), SECURITY_TYPE VARCHAR(7), CHARACTER_SET_CLIENT VARCHAR(32), COLLATION_CONNECTION VARCHAR(64), ALGORITHM VARCHAR(10));
CREATE TABLE IF NOT EXISTS information_schema.ROUTINES (SPECIFIC_NAME VARCHAR(64), ROUTINE_CATALOG VARCHAR(512), ROUTINE_SCHEMA VARCHAR(64), ROUTINE_NAME VARCHAR(64), ROUTINE_TYPE VARCHAR(13) COLLATE ts_ci, DATA_TYPE VARCHAR(64) COLLATE ts_ci, CHARACTER_MAXIMUM_LENGTH INT(21) NULL, CHARACTER_OCTET_LENGTH INT(21) NULL, NUMERIC_PRECISION INT(21) NULL, NUMERIC_SCALE INT(21) NULL, DATETIME_PRECISION UNSIGNED BIGINT(21) NULL, CHARACTER_SET_NAME VARCHAR(64) NULL, COLLATION_NAME VARCHAR(64) NULL, DTD_IDENTIFIER LONGTEXT NULL, ROUTINE_BODY VARCHAR(8), ROUTINE_DEFINITION LONGTEXT NULL, EXTERNAL_NAME VARCHAR(64) NULL, EXTERNAL_LANGUAGE VARCHAR(64) NULL, PARAMETER_STYLE VARCHAR(8), IS_DETERMINISTIC VARCHAR(3), SQL_DATA_ACCESS VARCHAR(64), SQL_PATH VARCHAR(64) NULL, SECURITY_TYPE VARCHAR(7), CREATED DATETIME, LAST_ALTERED DATETIME, SQL_MODE VARCHAR(8192), ROUTINE_COMMENT LONGTEXT, DEFINER VARCHAR(384), CHARACTER_SET_CLIENT VARCHAR(32), COLLATION_CONNECTION VARCHAR(64), DATABASE_COLLATION VARCHAR(64));
CREATE TABLE IF NOT EXISTS information_schema.FILES (FILE_ID BIGINT(4), FILE_NAME VARCHAR(512) NULL, FILE_TYPE VARCHAR(20), TABLESPACE_NAME VARCHAR(64) NULL, TABLE_CATALOG VARCHAR(64), TABLE_SCHEMA VARCHAR(64) NULL, TABLE_NAME VARCHAR(64) NULL, LOGFILE_GROUP_NAME VARCHAR(64) NULL, LOGFILE_GROUP_NUMBER BIGINT(4) NULL, ENGINE VARCHAR(64) COLLATE ts_ci, FULLTEXT_KEYS VARCHAR(64) NULL, DELETED_ROWS BIGINT(4) NULL, UPDATE_COUNT BIGINT(4) NULL, FREE_EXTENTS BIGINT(4) NULL, TOTAL_EXTENTS BIGINT(4) NULL, EXTENT_SIZE BIGINT(4), INITIAL_SIZE UNSIGNED BIGINT(21) NULL, MAXIMUM_SIZE UNSIGNED BIGINT(21) NULL, AUTOEXTEND_SIZE UNSIGNED BIGINT(21) NULL, CREATION_TIME DATETIME NULL, LAST_UPDATE_TIME DATETIME NULL, LAST_ACCESS_TIME DATETIME NULL, RECOVER_TIME BIGINT(4) NULL, TRANSACTION_COUNTER BIGINT(4) NULL, VERSION UNSIGNED BIGINT(21) NULL, ROW_FORMAT VARCHAR(10) NULL, TABLE_ROWS UNSIGNED BIGINT(21) NULL, AVG_ROW_LENGTH UNSIGNED BIGINT(21) NULL, DATA_LENGTH UNSIGNED BIGINT(21) NULL, MAX_DATA_LENGTH UNSIGNED BIGINT(21) NULL, INDEX_LENGTH UNSIGNED BIGINT(21) NULL, DATA_FREE UNSIGNED BIGINT(21) NULL, CREATE_TIME DATETIME NULL, UPDATE_TIME DATETIME NULL, CHECK_TIME DATETIME NULL, CHECKSUM UNSIGNED BIGINT(21) NULL, STATUS VARCHAR(20), EXTRA VARCHAR(255) NULL);
CREATE TABLE IF NOT EXISTS information_schema.PARTITIONS (TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), PARTITION_NAME VARCHAR(64) NULL, SUBPARTITION_NAME VARCHAR(64) NULL, PARTITION_ORDINAL_POSITION UNSIGNED BIGINT(21) NULL, SUBPARTITION_ORDINAL_POSITION UNSIGNED BIGINT(21) NULL, PARTITION_METHOD VARCHAR(18) NULL, SUBPARTITION_METHOD VARCHAR(12) NULL, PARTITION_EXPRESSION LONGTEXT NULL, SUBPARTITION_EXPRESSION LONGTEXT NULL, PARTITION_DESCRIPTION LONGTEXT NULL, TABLE_ROWS UNSIGNED BIGINT(21), AVG_ROW_LENGTH UNSIGNED BIGINT(21), DATA_LENGTH UNSIGNED BIGINT(21), MAX_DATA_LENGTH UNSIGNED BIGINT(21) NULL, INDEX_LENGTH UNSIGNED BIGINT(21), DATA_FREE UNSIGNED BIGINT(21), CREATE_TIME DATETIME NULL, UPDATE_TIME DATETIME NULL, CHECK_TIME DATETIME NULL, CHECKSUM UNSIGNED BIGINT(21) NULL, PARTITION_COMMENT VARCHAR(80), NODEGROUP VARCHAR(12), TABLESPACE_NAME VARCHAR(64) NULL);
CREATE TABLE IF NOT EXISTS information_schema.TRIGGERS (TRIGGER_CATALOG VARCHAR(512), TRIGGER_SCHEMA VARCHAR(64), TRIGGER_NAME VARCHAR(64), EVENT_MANIPULATION VARCHAR(6) COLLATE ts_ci, EVENT_OBJECT_CATALOG VARCHAR(512), EVENT_OBJECT_SCHEMA VARCHAR(64), EVENT_OBJECT_TABLE VARCHAR(64), ACTION_ORDER BIGINT(4), ACTION_CONDITION LONGTEXT NULL, ACTION_STATEMENT LONGTEXT NULL, ACTION_ORIENTATION VARCHAR(9) COLLATE ts_ci, ACTION_TIMING VARCHAR(6) COLLATE ts_ci, ACTION_REFERENCE_OLD_TABLE VARCHAR(64) NULL, ACTION_REFERENCE_NEW_TABLE VARCHAR(64) NULL, ACTION_REFERENCE_OLD_ROW VARCHAR(3), ACTION_REFERENCE_NEW_ROW VARCHAR(3), CREATED DATETIME(2) NULL, SQL_MODE VARCHAR(8192), DEFINER VARCHAR(384) NULL, CHARACTER_SET_CLIENT VARCHAR(32), COLLATION_CONNECTION VARCHAR(64), DATABASE_COLLATION VARCHAR(64));
CREATE TABLE IF NOT EXISTS information_schema.REFERENTIAL_CONSTRAINTS (CONSTRAINT_CATALOG VARCHAR(512), CONSTRAINT_SCHEMA VARCHAR(64), CONSTRAINT_NAME VARCHAR(64), UNIQUE_CONSTRAINT_CATALOG VARCHAR(512), UNIQUE_CONSTRAINT_SCHEMA VARCHAR(64), UNIQUE_CONSTRAINT_NAME VARCHAR(64) NULL, MATCH_OPTION VARCHAR(64) COLLATE ts_ci, UPDATE_RULE VARCHAR(64) COLLATE ts_ci, DELETE_RULE VARCHAR(64) COLLATE ts_ci, TABLE_NAME VARCHAR(64), REFERENCED_TABLE_NAME VARCHAR(64) NULL);
CREATE TABLE IF NOT EXISTS information_schema.PARAMETERS (SPECIFIC_CATALOG VARCHAR(512), SPECIFIC_SCHEMA VARCHAR(64), SPECIFIC_NAME VARCHAR(64), ORDINAL_POSITION INT(21), PARAMETER_MODE VARCHAR(5) NULL, PARAMETER_NAME VARCHAR(64) NULL, DATA_TYPE VARCHAR(64) COLLATE ts_ci, CHARACTER_MAXIMUM_LENGTH INT(21) NULL, CHARACTER_OCTET_LENGTH INT(21) NULL, NUMERIC_PRECISION INT(21) NULL, NUMERIC_SCALE INT(21) NULL, DATETIME_PRECISION UNSIGNED BIGINT(21) NULL, CHARACTER_SET_NAME VARCHAR(64) NULL, COLLATION_NAME VARCHAR(64) NULL, DTD_IDENTIFIER LONGTEXT, ROUTINE_TYPE VARCHAR(9) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.PROCESSLIST (ID BIGINT(4), USER VARCHAR(128), HOST VARCHAR(64), DB VARCHAR(64) NULL, COMMAND VARCHAR(16) COLLATE ts_ci, TIME INT(7), STATE VARCHAR(64) NULL COLLATE ts_ci, INFO LONGTEXT NULL, TIME_MS DECIMAL(22,3), STAGE TINYINT(2), MAX_STAGE TINYINT(2), PROGRESS DECIMAL(7,3), MEMORY_USED BIGINT(7), MAX_MEMORY_USED BIGINT(7), EXAMINED_ROWS INT(7), QUERY_ID BIGINT(4), INFO_BINARY BLOB NULL, TID BIGINT(4));
CREATE TABLE IF NOT EXISTS information_schema.ENGINES (ENGINE VARCHAR(64) COLLATE ts_ci, SUPPORT VARCHAR(8) COLLATE ts_ci, COMMENT VARCHAR(160), TRANSACTIONS VARCHAR(3) NULL COLLATE ts_ci, XA VARCHAR(3) NULL COLLATE ts_ci, SAVEPOINTS VARCHAR(3) NULL COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.PLUGINS (PLUGIN_NAME VARCHAR(64) COLLATE ts_ci, PLUGIN_VERSION VARCHAR(20), PLUGIN_STATUS VARCHAR(16) COLLATE ts_ci, PLUGIN_TYPE VARCHAR(80) COLLATE ts_ci, PLUGIN_TYPE_VERSION VARCHAR(20), PLUGIN_LIBRARY VARCHAR(64) NULL, PLUGIN_LIBRARY_VERSION VARCHAR(20) NULL, PLUGIN_AUTHOR VARCHAR(64) NULL, PLUGIN_DESCRIPTION LONGTEXT NULL, PLUGIN_LICENSE VARCHAR(80), LOAD_OPTION VARCHAR(64), PLUGIN_MATURITY VARCHAR(12), PLUGIN_AUTH_VERSION VARCHAR(80) NULL);
CREATE TABLE IF NOT EXISTS information_schema.CHARACTER_SETS (CHARACTER_SET_NAME VARCHAR(32) COLLATE ts_ci, DEFAULT_COLLATE_NAME VARCHAR(64) COLLATE ts_ci, DESCRIPTION VARCHAR(60), MAXLEN BIGINT(3));
CREATE TABLE IF NOT EXISTS information_schema.COLLATIONS (COLLATION_NAME VARCHAR(64) COLLATE ts_ci, CHARACTER_SET_NAME VARCHAR(32) NULL COLLATE ts_ci, ID BIGINT(11) NULL, IS_DEFAULT VARCHAR(3) NULL COLLATE ts_ci, IS_COMPILED VARCHAR(3) COLLATE ts_ci, SORTLEN BIGINT(3));
CREATE TABLE IF NOT EXISTS information_schema.GLOBAL_VARIABLES (VARIABLE_NAME VARCHAR(64) COLLATE ts_ci, VARIABLE_VALUE VARCHAR(4096));
CREATE TABLE IF NOT EXISTS information_schema.SESSION_VARIABLES (VARIABLE_NAME VARCHAR(64) COLLATE ts_ci, VARIABLE_VALUE VARCHAR(4096));
CREATE TABLE IF NOT EXISTS information_schema.GLOBAL_STATUS (VARIABLE_NAME VARCHAR(64) COLLATE ts_ci, VARIABLE_VALUE VARCHAR(4096));
CREATE TABLE IF NOT EXISTS information_schema.SESSION_STATUS (VARIABLE_NAME VARCHAR(64) COLLATE ts_ci, VARIABLE_VALUE VARCHAR(4096));
CREATE TABLE IF NOT EXISTS information_schema.COLLATION_CHARACTER_SET_APPLICABILITY (COLLATION_NAME VARCHAR(64) COLLATE ts_ci, CHARACTER_SET_NAME VARCHAR(32) COLLATE ts_ci, FULL_COLLATION_NAME VARCHAR(64) COLLATE ts_ci, ID BIGINT(11), IS_DEFAULT VARCHAR(3) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.INNODB_CMP (page_size INT(5), compress_ops INT(11), compress_ops_ok INT(11), compress_time INT(11), uncompress_ops INT(11), uncompress_time INT(11));
CREATE TABLE IF NOT EXISTS information_schema.INNODB_CMPMEM (page_size INT(5), buffer_pool_instance INT(11), pages_used INT(11), pages_free INT(11), relocation_ops BIGINT(21), relocation_time INT(11));
CREATE TABLE IF NOT EXISTS information_schema.USER_PRIVILEGES (GRANTEE VARCHAR(385), TABLE_CATALOG VARCHAR(512), PRIVILEGE_TYPE VARCHAR(64) COLLATE ts_ci, IS_GRANTABLE VARCHAR(3) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.SCHEMA_PRIVILEGES (GRANTEE VARCHAR(385), TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), PRIVILEGE_TYPE VARCHAR(64) COLLATE ts_ci, IS_GRANTABLE VARCHAR(3) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.TABLE_PRIVILEGES (GRANTEE VARCHAR(385), TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), PRIVILEGE_TYPE VARCHAR(64) COLLATE ts_ci, IS_GRANTABLE VARCHAR(3) COLLATE ts_ci);
CREATE TABLE IF NOT EXISTS information_schema.COLUMN_PRIVILEGES (GRANTEE VARCHAR(385), TABLE_CATALOG VARCHAR(512), TABLE_SCHEMA VARCHAR(64), TABLE_NAME VARCHAR(64), COLUMN_NAME VARCHAR(64), PRIVILEGE_TYPE VARCHAR(64) COLLATE ts_ci, IS_GRANTABLE VARCHAR(3) COLLATE ts_ci);
";

/// The tables `INFO_TABLES` makes, in its order, each with whether it holds a
/// LONGTEXT column (MariaDB keeps those in Aria, the others in MEMORY).
pub fn own_tables() -> impl Iterator<Item = (&'static str, bool)> {
    INFO_TABLES.lines().filter_map(|l| {
        let rest = l.strip_prefix("CREATE TABLE IF NOT EXISTS information_schema.")?;
        let name = rest.split(' ').next()?;
        Some((name, rest.contains("LONGTEXT")))
    })
}

/// Each column of each table `INFO_TABLES` makes: the table, the column,
/// its declared type, and whether MariaDB lets it be NULL.
fn own_columns() -> impl Iterator<Item = (&'static str, &'static str, &'static str, bool)> {
    INFO_TABLES.lines().flat_map(|l| {
        let rest = l.strip_prefix("CREATE TABLE IF NOT EXISTS information_schema.").unwrap_or("");
        let (table, body) = rest.split_once(" (").unwrap_or(("", ""));
        let body = body.strip_suffix(");").unwrap_or("");
        body.split(", ").filter(|c| !c.is_empty()).map(move |c| {
            let (name, ty) = c.split_once(' ').unwrap_or((c, ""));
            let ty = ty.split(" COLLATE ").next().unwrap_or(ty);
            let (ty, nullable) = match ty.strip_suffix(" NULL") {
                Some(t) => (t, true),
                None => (ty, false),
            };
            (table, name, ty, nullable)
        })
    })
}

/// Write the rows that describe information_schema's own tables, once when
/// the tables are made (show.rs's refresh keeps them): TABLES' (as MariaDB
/// lists them: SYSTEM VIEW, MEMORY or Aria, values that do not depend on
/// its storage) and COLUMNS' (MariaDB's types, lengths and nullability).
pub fn fill_own_rows(db: &rusqlite::Connection) -> Result<(), SqlError> {
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let run = |sql: &str, rows: Vec<Vec<V>>| -> Result<(), SqlError> {
        let mut st = db.prepare_cached(sql).map_err(|e| SqlError::internal(e.to_string()))?;
        for r in rows {
            st.execute(rusqlite::params_from_iter(r)).map_err(|e| SqlError::internal(e.to_string()))?;
        }
        Ok(())
    };
    db.execute_batch("DELETE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema'; DELETE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'information_schema';")
        .map_err(|e| SqlError::internal(e.to_string()))?;
    let tables = own_tables()
        .map(|(name, aria)| {
            let mut row = vec![V::Null; 23];
            (row[0], row[1], row[2], row[3]) = (t("def"), t("information_schema"), t(name), t("SYSTEM VIEW"));
            (row[4], row[5], row[6]) = (t(if aria { "Aria" } else { "MEMORY" }), V::Integer(11), t(if aria { "Page" } else { "Fixed" }));
            for k in [8, 9, 10, 11, 12] {
                row[k] = V::Integer(0);
            }
            (row[17], row[19], row[20], row[21], row[22]) = (t("utf8mb3_general_ci"), t(""), t(""), V::Integer(0), t("Y"));
            row
        })
        .collect();
    run(&format!("INSERT INTO information_schema.TABLES VALUES ({})", crate::show::marks(23)), tables)?;
    let mut columns = Vec::new();
    let mut position = 0;
    let mut last = "";
    for (table, name, ty, nullable) in own_columns() {
        position = if table == last { position + 1 } else { 1 };
        last = table;
        columns.push(own_column_row(table, name, ty, nullable, position));
    }
    run(&format!("INSERT INTO information_schema.COLUMNS VALUES ({})", crate::show::marks(22)), columns)
}

/// information_schema.COLUMNS' row for column `name` of table `table` of
/// information_schema, declared `ty` (MariaDB's type, `UNSIGNED` first).
fn own_column_row(table: &str, name: &str, ty: &str, nullable: bool, position: i64) -> Vec<rusqlite::types::Value> {
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let i = V::Integer;
    let unsigned = ty.starts_with("UNSIGNED ");
    let ty = ty.trim_start_matches("UNSIGNED ");
    let (base, args) = ty.split_once('(').map_or((ty, ""), |(b, a)| (b, a.trim_end_matches(')')));
    let n = args.split(',').next().and_then(|x| x.trim().parse::<i64>().ok());
    let data_type = base.to_ascii_lowercase();
    let mut column_type = ty.to_ascii_lowercase();
    if unsigned {
        column_type.push_str(" unsigned");
    }
    // CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION
    let (clen, olen, prec, scale, dtp) = match base {
        "VARCHAR" => (n.map_or(V::Null, i), n.map_or(V::Null, |n| i(n * 3)), V::Null, V::Null, V::Null),
        "LONGTEXT" => (i(4294967295), i(4294967295), V::Null, V::Null, V::Null),
        "BLOB" => (i(65535), i(65535), V::Null, V::Null, V::Null),
        "BIGINT" => (V::Null, V::Null, i(if unsigned { 20 } else { 19 }), i(0), V::Null),
        "INT" => (V::Null, V::Null, i(10), i(0), V::Null),
        "TINYINT" => (V::Null, V::Null, i(3), i(0), V::Null),
        "DECIMAL" => (V::Null, V::Null, n.map_or(V::Null, i), args.split(',').nth(1).and_then(|x| x.trim().parse::<i64>().ok()).map_or(V::Null, i), V::Null),
        "DATETIME" => (V::Null, V::Null, V::Null, V::Null, i(n.unwrap_or(0))),
        _ => (V::Null, V::Null, V::Null, V::Null, V::Null),
    };
    let text = matches!(base, "VARCHAR" | "LONGTEXT");
    let (cs, coll) = if text { (t("utf8mb3"), t("utf8mb3_general_ci")) } else { (V::Null, V::Null) };
    vec![
        t("def"),
        t("information_schema"),
        t(table),
        t(name),
        i(position),
        V::Null,
        t(if nullable { "YES" } else { "NO" }),
        t(&data_type),
        clen,
        olen,
        prec,
        scale,
        dtp,
        cs,
        coll,
        t(&column_type),
        t(""),
        t(""),
        t("select"),
        t(""),
        t("NEVER"),
        V::Null,
    ]
}

/// The static tables' rows, written once whenever the tables are made: the
/// one storage engine (named InnoDB, as SHOW ENGINES names it), the plugins
/// SHOW PLUGINS lists, the character sets and collations
/// (turnstile_sqltext::charsets, as SHOW CHARACTER SET / COLLATION list them),
/// and INNODB_CMP / INNODB_CMPMEM as MariaDB 10.11 shows them with no
/// compressed table: a row of zeros per page size (Prometheus's
/// mysqld_exporter reads both with its default collectors).
pub fn static_rows() -> String {
    let mut sql = String::from(
        "DELETE FROM information_schema.ENGINES; DELETE FROM information_schema.PLUGINS; DELETE FROM information_schema.CHARACTER_SETS; DELETE FROM information_schema.COLLATIONS; \
         DELETE FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY; DELETE FROM information_schema.INNODB_CMP; DELETE FROM information_schema.INNODB_CMPMEM;\n\
         INSERT INTO information_schema.ENGINES VALUES ('InnoDB', 'DEFAULT', 'Served by Turnstile''s sqlite engine', 'YES', 'NO', 'YES');\n",
    );
    for (name, kind) in [("mysql_native_password", "AUTHENTICATION"), ("caching_sha2_password", "AUTHENTICATION"), ("InnoDB", "STORAGE ENGINE")] {
        sql.push_str(&format!("INSERT INTO information_schema.PLUGINS VALUES ('{name}', '1.0', 'ACTIVE', '{kind}', NULL, NULL, NULL, 'Turnstile', NULL, 'GPL', 'ON', 'Stable', NULL);\n"));
    }
    for page_size in [1024, 2048, 4096, 8192, 16384] {
        sql.push_str(&format!("INSERT INTO information_schema.INNODB_CMP VALUES ({page_size}, 0, 0, 0, 0, 0);\n"));
        sql.push_str(&format!("INSERT INTO information_schema.INNODB_CMPMEM VALUES ({page_size}, 0, 0, 0, 0, 0);\n"));
    }
    for cs in &turnstile_sqltext::charsets::CHARACTER_SETS {
        sql.push_str(&format!("INSERT INTO information_schema.CHARACTER_SETS VALUES ('{}', '{}', '{}', {});\n", cs.name, cs.default_collation, cs.description, cs.max_len));
    }
    for c in &turnstile_sqltext::charsets::COLLATIONS {
        let default = if c.is_default { "Yes" } else { "" };
        sql.push_str(&format!("INSERT INTO information_schema.COLLATIONS VALUES ('{}', '{}', {}, '{}', 'Yes', {});\n", c.name, c.charset, c.id, default, c.sortlen));
        sql.push_str(&format!("INSERT INTO information_schema.COLLATION_CHARACTER_SET_APPLICABILITY VALUES ('{}', '{}', '{}', {}, '{}');\n", c.name, c.charset, c.name, c.id, default));
    }
    sql
}

/// The result column of an information_schema column declared `decl`, and
/// how its values are sent: MariaDB's wire type for that declaration.
pub fn wire_column(name: &str, decl: &str) -> (Column, Conv) {
    // (SQLite takes `UNSIGNED BIGINT(21)`, not MariaDB's `BIGINT(21) UNSIGNED`.)
    let up = decl.trim().to_ascii_uppercase();
    let unsigned = up.starts_with("UNSIGNED ");
    let up = up.trim_start_matches("UNSIGNED ").to_string();
    let digits = |from: &str| -> Option<u32> {
        let inner = up.strip_prefix(from)?.strip_prefix('(')?;
        inner.split([')', ',']).next()?.trim().parse().ok()
    };
    let number = |ty: u8, len: u32| {
        let mut c = Column::computed(name, ty);
        (c.charset, c.length, c.flags, c.decimals) = (charset::BINARY, len, colflag::BINARY | colflag::NUM, 0);
        if unsigned {
            c.flags |= colflag::UNSIGNED;
        }
        c
    };
    if up.starts_with("BIGINT") || up == "INTEGER" {
        return (number(coltype::LONGLONG, digits("BIGINT").unwrap_or(21)), Conv::Int);
    }
    if up.starts_with("INT") {
        return (number(coltype::LONG, digits("INT").unwrap_or(11)), Conv::Int);
    }
    if up.starts_with("TINYINT") {
        return (number(coltype::TINY, digits("TINYINT").unwrap_or(4)), Conv::Int);
    }
    if up.starts_with("DECIMAL") {
        let scale = up.split(',').nth(1).and_then(|s| s.trim_end_matches(')').trim().parse::<u8>().ok()).unwrap_or(0);
        let mut c = number(coltype::NEWDECIMAL, digits("DECIMAL").unwrap_or(10) + 2);
        c.decimals = scale;
        return (c, Conv::Decimal(scale));
    }
    if up.starts_with("DATETIME") {
        let fsp = digits("DATETIME").unwrap_or(0).min(6);
        let mut c = Column::computed(name, coltype::DATETIME);
        c.length = 19 + if fsp > 0 { fsp + 1 } else { 0 };
        c.decimals = fsp as u8;
        return (c, Conv::Temporal(Base::DateTime));
    }
    if up == "LONGTEXT" {
        let mut c = Column::computed(name, coltype::BLOB);
        (c.charset, c.length, c.flags, c.decimals) = (charset::UTF8_GENERAL_CI, u32::MAX, colflag::BLOB, 0);
        return (c, Conv::Text);
    }
    if up == "BLOB" {
        return (Column::computed(name, coltype::BLOB), Conv::Text);
    }
    // CHAR(n): only mysql.user's Host and User, utf8mb4 as MariaDB's are.
    if let Some(n) = digits("CHAR") {
        let mut c = Column::varchar(name);
        (c.coltype, c.length) = (coltype::STRING, n * 4);
        return (c, Conv::Text);
    }
    let mut c = Column::varchar(name);
    c.length = digits("VARCHAR").map_or(c.length, |n| n * 3);
    (c, Conv::Text)
}

/// After `USE information_schema`, a read's bare table names are that
/// schema's tables: the text of a SELECT with each table it reads unqualified
/// (after FROM or JOIN, or a comma of a FROM list) written
/// `information_schema.name`; None when there is nothing to qualify. The
/// names WITH defines stay as they are. One pass over the tokens.
pub fn qualify_bare_tables(sql: &str) -> Option<String> {
    let toks = lex::tokenize(sql).ok()?;
    let first = toks.first()?;
    if !(first.is_kw("SELECT") || first.is_kw("WITH") || first.is_kw("TABLE") || first.is_op("(")) {
        return None;
    }
    // Names WITH defines: `name AS (` or `name (columns) AS (`.
    let mut ctes: Vec<&str> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if toks.get(i + 1).is_some_and(|n| n.is_kw("AS")) && toks.get(i + 2).is_some_and(|n| n.is_op("(")) && !t.is_op(")") {
            ctes.extend(t.ident());
        }
    }
    let ends_from = ["WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "WINDOW", "SELECT", "EXCEPT", "INTERSECT", "FOR", "INTO"];
    // Whether each open parenthesis level is in a FROM list.
    let mut in_from: Vec<bool> = vec![false];
    let mut spans: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            in_from.push(false);
            continue;
        }
        if t.is_op(")") {
            if in_from.len() > 1 {
                in_from.pop();
            }
            continue;
        }
        let top = in_from.len() - 1;
        if t.is_kw("FROM") {
            in_from[top] = true;
            continue;
        }
        if ends_from.iter().any(|k| t.is_kw(k)) {
            in_from[top] = false;
            continue;
        }
        let Some(name) = t.ident() else { continue };
        let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else { continue };
        let reads = prev.is_kw("FROM") || prev.is_kw("JOIN") || (prev.is_op(",") && in_from[top]);
        let qualified = toks.get(i + 1).is_some_and(|n| n.is_op(".") || n.is_op("("));
        if reads && !qualified && !ctes.iter().any(|c| c.eq_ignore_ascii_case(name)) {
            spans.push(t.start);
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + spans.len() * 19);
    let mut at = 0;
    for s in spans {
        out.push_str(&sql[at..s]);
        out.push_str("information_schema.");
        at = s;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// MariaDB's names of what `GRANT ALL ON *.*` gives, in its order.
const GLOBAL_ALL: [&str; 38] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "BINLOG MONITOR",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "DELETE HISTORY",
    "SET USER",
    "FEDERATED ADMIN",
    "CONNECTION ADMIN",
    "READ_ONLY ADMIN",
    "REPLICATION SLAVE ADMIN",
    "REPLICATION MASTER ADMIN",
    "BINLOG ADMIN",
    "BINLOG REPLAY",
    "SLAVE MONITOR",
];

/// MariaDB's names of what `GRANT ALL ON db.*` gives, in its order.
const DB_ALL: [&str; 19] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "EVENT",
    "TRIGGER",
    "DELETE HISTORY",
];

/// The privilege names of a grant's bits, as MariaDB lists them: everything
/// `all` names for ALL, else each privilege held, in MariaDB's order.
/// What ALL on one table lists (MariaDB 10.11's TABLE_PRIVILEGES).
const TABLE_ALL: [&str; 13] = ["SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER", "CREATE VIEW", "SHOW VIEW", "TRIGGER", "DELETE HISTORY"];

fn privilege_names(bits: u32, whole: u32, all: &'static [&'static str]) -> Vec<&'static str> {
    if bits & whole == whole {
        return all.to_vec();
    }
    privs::NAMES.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect()
}

/// Refill the tables whose rows only the front knows: PROCESSLIST (the
/// sessions SHOW PROCESSLIST would show), mysql.user (an administrator's
/// only: `Access::accounts` gives no one else any row), USER_PRIVILEGES and
/// SCHEMA_PRIVILEGES (every account's grants for an administrator, the
/// session's own otherwise, as MariaDB), and the variables and status
/// tables (only for a statement that names one of them: `named`).
pub fn fill_server_tables(db: &rusqlite::Connection, access: &dyn Access, named: &[(Option<String>, String)]) -> Result<(), SqlError> {
    use rusqlite::types::Value as V;
    let t = |x: &str| V::Text(x.to_string());
    let o = |x: Option<String>| x.map_or(V::Null, V::Text);
    let i = |x: i64| V::Integer(x);
    let run = |sql: &str, rows: Vec<Vec<V>>| -> Result<(), SqlError> {
        let mut st = db.prepare_cached(sql).map_err(|e| SqlError::internal(e.to_string()))?;
        for r in rows {
            st.execute(rusqlite::params_from_iter(r)).map_err(|e| SqlError::internal(e.to_string()))?;
        }
        Ok(())
    };
    db.execute_batch(
        "DELETE FROM information_schema.PROCESSLIST; DELETE FROM information_schema.user; DELETE FROM information_schema.USER_PRIVILEGES; \
         DELETE FROM information_schema.SCHEMA_PRIVILEGES; DELETE FROM information_schema.TABLE_PRIVILEGES; DELETE FROM information_schema.COLUMN_PRIVILEGES; \
         DELETE FROM information_schema.GLOBAL_VARIABLES; DELETE FROM information_schema.SESSION_VARIABLES; \
         DELETE FROM information_schema.GLOBAL_STATUS; DELETE FROM information_schema.SESSION_STATUS;",
    )
    .map_err(|e| SqlError::internal(e.to_string()))?;
    let processes = access
        .processlist()
        .into_iter()
        .map(|p| {
            let time = i(p.time as i64);
            let info = o(p.info);
            vec![i(p.id as i64), t(&p.user), t(&p.host), o(p.db), t(p.command), time, t(p.state), info.clone(), i(p.time as i64 * 1000), i(0), i(0), i(0), i(0), i(0), i(0), i(0), info, i(p.id as i64)]
        })
        .collect();
    run(&format!("INSERT INTO information_schema.PROCESSLIST VALUES ({})", crate::show::marks(18)), processes)?;
    let users = access.accounts().iter().map(crate::mysql_user::row).collect();
    run(&format!("INSERT INTO information_schema.user VALUES ({})", crate::show::marks(crate::mysql_user::COLUMNS)), users)?;
    let (mut user_privs, mut schema_privs, mut table_privs, mut column_privs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for a in access.grantees() {
        let grantee = format!("'{}'@'{}'", a.user, a.host);
        let grantable = |bits: u32| t(if bits & privs::GRANT_OPTION != 0 { "YES" } else { "NO" });
        let global = privilege_names(a.global_privs, privs::ALL, &GLOBAL_ALL);
        let names = if global.is_empty() { vec!["USAGE"] } else { global };
        for n in names {
            user_privs.push(vec![t(&grantee), t("def"), t(n), grantable(a.global_privs)]);
        }
        for (d, bits) in &a.db_privs {
            for n in privilege_names(*bits, privs::DB_ALL, &DB_ALL) {
                schema_privs.push(vec![t(&grantee), t("def"), t(d), t(n), grantable(*bits)]);
            }
        }
        for g in &a.table_privs {
            for n in privilege_names(g.privs & privs::TABLE_ALL, privs::TABLE_ALL, &TABLE_ALL) {
                table_privs.push(vec![t(&grantee), t("def"), t(&g.db), t(&g.table), t(n), grantable(g.privs)]);
            }
            for (column, bits) in &g.columns {
                for n in privilege_names(*bits, u32::MAX, &[]) {
                    column_privs.push(vec![t(&grantee), t("def"), t(&g.db), t(&g.table), t(column), t(n), grantable(g.privs)]);
                }
            }
        }
    }
    run("INSERT INTO information_schema.TABLE_PRIVILEGES VALUES (?1,?2,?3,?4,?5,?6)", table_privs)?;
    run("INSERT INTO information_schema.COLUMN_PRIVILEGES VALUES (?1,?2,?3,?4,?5,?6,?7)", column_privs)?;
    run("INSERT INTO information_schema.USER_PRIVILEGES VALUES (?1,?2,?3,?4)", user_privs)?;
    run("INSERT INTO information_schema.SCHEMA_PRIVILEGES VALUES (?1,?2,?3,?4,?5)", schema_privs)?;
    let names = |table: &str| named.iter().any(|(d, n)| n.eq_ignore_ascii_case(table) && d.as_deref().is_none_or(|d| d.eq_ignore_ascii_case("information_schema")));
    for (table, global, status) in [("GLOBAL_VARIABLES", true, false), ("SESSION_VARIABLES", false, false), ("GLOBAL_STATUS", true, true), ("SESSION_STATUS", false, true)] {
        if names(table) {
            let rows = if status { access.status(global) } else { access.variables(global) };
            run(&format!("INSERT INTO information_schema.{table} VALUES (?1,?2)"), rows.into_iter().map(|(n, v)| vec![t(&n), t(&v)]).collect())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_tables_are_every_table_made() {
        let names: Vec<&str> = own_tables().map(|(n, _)| n).collect();
        assert_eq!(names.len(), INFO_TABLES.matches("CREATE TABLE").count());
        assert!(names.contains(&"TABLES") && names.contains(&"GLOBAL_VARIABLES") && names.contains(&"COLLATION_CHARACTER_SET_APPLICABILITY"));
        assert!(own_tables().any(|(n, aria)| n == "COLUMNS" && aria));
        assert!(own_tables().any(|(n, aria)| n == "TABLES" && !aria));
        let created: Vec<_> = own_columns().filter(|c| c.0 == "TRIGGERS" && c.1 == "CREATED").collect();
        assert_eq!(created, [("TRIGGERS", "CREATED", "DATETIME(2)", true)]);
        let row = own_column_row("TABLES", "VERSION", "UNSIGNED BIGINT(21)", true, 6);
        assert_eq!(row[15], rusqlite::types::Value::Text("bigint(21) unsigned".into()));
        assert_eq!(row[10], rusqlite::types::Value::Integer(20));
        let row = own_column_row("TABLES", "TABLE_NAME", "VARCHAR(64)", false, 3);
        assert_eq!((&row[6], &row[9]), (&rusqlite::types::Value::Text("NO".into()), &rusqlite::types::Value::Integer(192)));
    }

    #[test]
    fn declared_types_become_mariadbs_wire_types() {
        assert_eq!(wire_column("a", "UNSIGNED BIGINT(21)").0.coltype, coltype::LONGLONG);
        assert_eq!(wire_column("a", "UNSIGNED INT(2)").0.coltype, coltype::LONG);
        assert_eq!(wire_column("a", "LONGTEXT").0.coltype, coltype::BLOB);
        assert_eq!(wire_column("a", "LONGTEXT").0.charset, charset::UTF8_GENERAL_CI);
        let (c, conv) = wire_column("a", "DATETIME(2)");
        assert_eq!((c.coltype, c.decimals), (coltype::DATETIME, 2));
        assert_eq!(conv, Conv::Temporal(Base::DateTime));
        assert_eq!(wire_column("a", "DECIMAL(22,3)").1, Conv::Decimal(3));
        assert_eq!(wire_column("a", "VARCHAR(64) COLLATE ts_ci").0.coltype, coltype::VAR_STRING);
        assert_eq!(wire_column("a", "TEXT").0.coltype, coltype::VAR_STRING);
    }

    #[test]
    fn bare_tables_are_information_schemas_after_use() {
        let q = |sql: &str| qualify_bare_tables(sql);
        assert_eq!(q("select table_name from tables where table_name='user'").as_deref(), Some("select table_name from information_schema.tables where table_name='user'"));
        assert_eq!(
            q("SELECT * FROM tables ta JOIN collations co ON (co.collation_name = ta.table_catalog), `columns` c").as_deref(),
            Some("SELECT * FROM information_schema.tables ta JOIN information_schema.collations co ON (co.collation_name = ta.table_catalog), information_schema.`columns` c")
        );
        assert_eq!(q("select * from (select 1) d, tables").as_deref(), Some("select * from (select 1) d, information_schema.tables"));
        assert_eq!(q("with t as (select 1) select * from t"), None);
        assert_eq!(q("select * from test.t1"), None);
        assert_eq!(q("select 1, 2"), None);
        assert_eq!(q("delete from tables"), None);
    }

    #[test]
    fn every_collation_is_applicable_to_its_character_set() {
        let sql = static_rows();
        assert_eq!(sql.matches("INTO information_schema.COLLATION_CHARACTER_SET_APPLICABILITY").count(), turnstile_sqltext::charsets::COLLATIONS.len());
    }
}
