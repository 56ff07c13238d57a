//! MySQL DDL: parsing CREATE/ALTER/DROP/RENAME/TRUNCATE and generating SQLite.
//!
//! MySQL's CREATE TABLE carries far more than SQLite's (display widths,
//! UNSIGNED, character sets, key names, comments, table options), so DDL is the
//! one place Turnstile parses a statement fully. The parser produces a
//! `TableDef` (schema.rs), which is stored as JSON beside the table, and the
//! generator turns it into a SQLite STRICT table whose CHECK constraints carry
//! MySQL's strict-mode rules (lengths, integer ranges, ENUM members, date
//! formats) so that every write path — INSERT, UPDATE, upserts, INSERT ...
//! SELECT — is checked by SQLite itself, named so that the error mapper can
//! answer with MySQL's code (1406, 1264, 1265, 1292, 3140).
//!
//! ALTER TABLE changes the definition in Rust and rebuilds the table (create,
//! copy, drop, rename), as MySQL's COPY algorithm does: one code path for every
//! column change SQLite's own ALTER cannot do.

use super::cursor::Cur;
use super::schema::{sq_ident, sq_str, Base, ColumnDef, Default_, ForeignKey, IndexDef, TableDef};
use crate::lex::{self, Tok};
use crate::SqlError;

pub const DEFAULT_COLLATION: &str = "utf8mb4_general_ci";

pub type Name = (Option<String>, String);

#[derive(Debug, Clone)]
pub enum Ddl {
    CreateTable { temporary: bool, if_not_exists: bool, table: Name, def: Box<TableDef>, auto_increment: Option<u64>, like: Option<Name> },
    DropTable { temporary: bool, if_exists: bool, tables: Vec<Name> },
    CreateIndex { table: Name, index: IndexDef },
    DropIndex { table: Name, name: String },
    Alter { table: Name, ops: Vec<AlterOp> },
    Rename { pairs: Vec<(Name, Name)> },
    Truncate { table: Name },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    Last,
    First,
    After(String),
}

#[derive(Debug, Clone)]
pub enum AlterOp {
    AddColumn {
        col: ColumnDef,
        position: Position,
        primary: bool,
        unique: bool,
    },
    DropColumn(String),
    /// MODIFY (old == new name) or CHANGE.
    ChangeColumn {
        old: String,
        col: ColumnDef,
        position: Position,
        primary: bool,
        unique: bool,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    SetDefault {
        col: String,
        default: Option<Default_>,
    },
    AddIndex(IndexDef),
    AddPrimary(Vec<String>),
    DropIndex(String),
    DropPrimary,
    RenameIndex {
        old: String,
        new: String,
    },
    RenameTable(Name),
    AddForeignKey(ForeignKey),
    DropForeignKey(String),
    Options {
        engine: Option<String>,
        collation: Option<String>,
        comment: Option<String>,
        auto_increment: Option<u64>,
    },
}

/// Parse a DDL statement. `Ok(None)`: not a table DDL statement Turnstile handles here.
pub fn parse(sql: &str) -> Result<Option<Ddl>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut c = Cur::new(sql, &toks);
    let out = if c.eat_kw("CREATE") {
        let temporary = c.eat_kw("TEMPORARY");
        if c.eat_kw("TABLE") {
            Some(create_table(&mut c, temporary)?)
        } else {
            let unique = c.eat_kw("UNIQUE");
            if c.is_kw("FULLTEXT") || c.is_kw("SPATIAL") {
                return Err(SqlError::unsupported("FULLTEXT and SPATIAL indexes"));
            }
            if !c.eat_kw("INDEX") {
                return Ok(None);
            }
            let name = c.ident()?;
            skip_index_type(&mut c)?;
            c.expect_kw("ON")?;
            let table = c.qualified()?;
            let (columns, prefix) = key_parts(&mut c)?;
            let comment = index_options(&mut c)?;
            Some(Ddl::CreateIndex { table, index: IndexDef { name, sqlite_name: String::new(), unique, columns, prefix, comment } })
        }
    } else if c.eat_kw("DROP") {
        let temporary = c.eat_kw("TEMPORARY");
        if c.eat_kw("TABLE") || c.eat_kw("TABLES") {
            let if_exists = c.eat_kws(&["IF", "EXISTS"]);
            let mut tables = vec![c.qualified()?];
            while c.eat_op(",") {
                tables.push(c.qualified()?);
            }
            c.eat_kw("RESTRICT");
            c.eat_kw("CASCADE");
            Some(Ddl::DropTable { temporary, if_exists, tables })
        } else if c.eat_kw("INDEX") {
            let name = c.ident()?;
            c.expect_kw("ON")?;
            let table = c.qualified()?;
            Some(Ddl::DropIndex { table, name })
        } else {
            return Ok(None);
        }
    } else if c.eat_kw("ALTER") {
        c.eat_kw("ONLINE");
        c.eat_kw("IGNORE");
        if !c.eat_kw("TABLE") {
            return Ok(None);
        }
        let table = c.qualified()?;
        let mut ops = Vec::new();
        loop {
            if c.at_end() {
                break;
            }
            alter_op(&mut c, &mut ops)?;
            if !c.eat_op(",") {
                break;
            }
        }
        Some(Ddl::Alter { table, ops })
    } else if c.eat_kw("RENAME") {
        if !(c.eat_kw("TABLE") || c.eat_kw("TABLES")) {
            return Ok(None);
        }
        let mut pairs = Vec::new();
        loop {
            let from = c.qualified()?;
            c.expect_kw("TO")?;
            let to = c.qualified()?;
            pairs.push((from, to));
            if !c.eat_op(",") {
                break;
            }
        }
        Some(Ddl::Rename { pairs })
    } else if c.eat_kw("TRUNCATE") {
        c.eat_kw("TABLE");
        Some(Ddl::Truncate { table: c.qualified()? })
    } else {
        return Ok(None);
    };
    c.eat_op(";");
    if !c.at_end() {
        return Err(c.error());
    }
    Ok(out)
}

fn skip_index_type(c: &mut Cur<'_>) -> Result<(), SqlError> {
    if c.eat_kw("USING") {
        c.ident()?;
    }
    Ok(())
}

/// `(col [(len)] [ASC|DESC], ...)`
fn key_parts(c: &mut Cur<'_>) -> Result<(Vec<String>, Vec<Option<u64>>), SqlError> {
    c.expect_op("(")?;
    let mut cols = Vec::new();
    let mut prefix = Vec::new();
    loop {
        if c.is_op("(") {
            return Err(SqlError::unsupported("functional key parts"));
        }
        cols.push(c.ident()?);
        if c.eat_op("(") {
            prefix.push(Some(c.number()?));
            c.expect_op(")")?;
        } else {
            prefix.push(None);
        }
        let _ = c.eat_kw("ASC") || c.eat_kw("DESC");
        if !c.eat_op(",") {
            break;
        }
    }
    c.expect_op(")")?;
    Ok((cols, prefix))
}

/// Index options after the key parts; returns the COMMENT.
fn index_options(c: &mut Cur<'_>) -> Result<String, SqlError> {
    let mut comment = String::new();
    loop {
        if c.eat_kw("USING") {
            c.ident()?;
        } else if c.eat_kw("COMMENT") {
            comment = c.string()?;
        } else if c.eat_kw("KEY_BLOCK_SIZE") {
            c.eat_op("=");
            c.number()?;
        } else if c.eat_kw("VISIBLE") || c.eat_kw("INVISIBLE") {
        } else if c.eat_kw("ALGORITHM") || c.eat_kw("LOCK") {
            c.eat_op("=");
            c.ident()?;
        } else {
            return Ok(comment);
        }
    }
}

fn create_table(c: &mut Cur<'_>, temporary: bool) -> Result<Ddl, SqlError> {
    let if_not_exists = c.eat_kws(&["IF", "NOT", "EXISTS"]);
    let table = c.qualified()?;
    if c.eat_kw("LIKE") {
        let like = c.qualified()?;
        return Ok(Ddl::CreateTable { temporary, if_not_exists, def: Box::new(empty_def(&table.1)), table, auto_increment: None, like: Some(like) });
    }
    if c.is_op("(") && c.peek_at(1).is_some_and(|t| t.is_kw("LIKE")) {
        c.next();
        c.next();
        let like = c.qualified()?;
        c.expect_op(")")?;
        return Ok(Ddl::CreateTable { temporary, if_not_exists, def: Box::new(empty_def(&table.1)), table, auto_increment: None, like: Some(like) });
    }
    if !c.is_op("(") {
        return Err(SqlError::unsupported("CREATE TABLE ... SELECT"));
    }
    c.expect_op("(")?;
    let mut def = empty_def(&table.1);
    let mut inline_pk: Vec<String> = Vec::new();
    let mut inline_unique: Vec<String> = Vec::new();
    loop {
        table_element(c, &mut def, &mut inline_pk, &mut inline_unique)?;
        if !c.eat_op(",") {
            break;
        }
    }
    c.expect_op(")")?;
    let opts = table_options(c)?;
    if c.is_kw("PARTITION") {
        return Err(SqlError::unsupported("partitioned tables"));
    }
    if c.is_kw("AS") || c.is_kw("SELECT") || c.is_kw("IGNORE") || c.is_kw("REPLACE") {
        return Err(SqlError::unsupported("CREATE TABLE ... SELECT"));
    }
    if let Some(e) = opts.engine {
        def.engine = e;
    }
    if let Some(coll) = opts.collation {
        def.collation = coll;
    }
    if let Some(cm) = opts.comment {
        def.comment = cm;
    }
    let coll = def.collation.clone();
    for col in def.columns.iter_mut() {
        if col.base.is_text() && col.collation.is_none() {
            col.collation = Some(coll.clone());
        }
    }
    if !inline_pk.is_empty() {
        if !def.primary.is_empty() || inline_pk.len() > 1 {
            return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
        }
        def.primary = inline_pk;
    }
    for u in inline_unique {
        let name = unique_index_name(&def, &u);
        def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![u], prefix: vec![None], comment: String::new() });
    }
    finish_def(&mut def)?;
    Ok(Ddl::CreateTable { temporary, if_not_exists, table, def: Box::new(def), auto_increment: opts.auto_increment, like: None })
}

fn unique_index_name(def: &TableDef, col: &str) -> String {
    let mut name = col.to_string();
    let mut n = 2;
    while def.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name)) {
        name = format!("{}_{}", col, n);
        n += 1;
    }
    name
}

pub fn empty_def(name: &str) -> TableDef {
    TableDef {
        name: name.to_string(),
        columns: Vec::new(),
        primary: Vec::new(),
        indexes: Vec::new(),
        foreign_keys: Vec::new(),
        engine: "InnoDB".into(),
        collation: DEFAULT_COLLATION.into(),
        comment: String::new(),
        created: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    }
}

/// Validate a finished definition: names unique, keys name real columns,
/// AUTO_INCREMENT rules, PRIMARY KEY columns NOT NULL.
pub fn finish_def(def: &mut TableDef) -> Result<(), SqlError> {
    if def.columns.is_empty() {
        return Err(SqlError::new(1113, "42000", "A table must have at least 1 column"));
    }
    for (i, col) in def.columns.iter().enumerate() {
        if def.columns[..i].iter().any(|c| c.name.eq_ignore_ascii_case(&col.name)) {
            return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
        }
        if col.name.len() > 64 {
            return Err(SqlError::new(1059, "42000", format!("Identifier name '{}' is too long", col.name)));
        }
    }
    for k in def.primary.iter().chain(def.indexes.iter().flat_map(|i| i.columns.iter())) {
        if def.column(k).is_none() {
            return Err(SqlError::new(1072, "42000", format!("Key column '{}' doesn't exist in table", k)));
        }
    }
    for (i, ix) in def.indexes.iter().enumerate() {
        if ix.name.eq_ignore_ascii_case("PRIMARY") || def.indexes[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&ix.name)) {
            return Err(SqlError::new(1061, "42000", format!("Duplicate key name '{}'", ix.name)));
        }
    }
    let pk = def.primary.clone();
    for col in def.columns.iter_mut() {
        if pk.iter().any(|p| p.eq_ignore_ascii_case(&col.name)) {
            col.nullable = false;
        }
        if !col.nullable && matches!(col.default, Some(Default_::Null)) {
            return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
        }
    }
    let ai: Vec<&ColumnDef> = def.columns.iter().filter(|c| c.auto_increment).collect();
    if ai.len() > 1 {
        return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
    }
    if let Some(a) = ai.first() {
        if !a.base.is_integer() || a.base == Base::Bit || a.base == Base::Year {
            return Err(SqlError::new(1063, "42000", format!("Incorrect column specifier for column '{}'", a.name)));
        }
        let is_pk = def.primary.len() == 1 && def.primary[0].eq_ignore_ascii_case(&a.name);
        if !is_pk {
            let keyed = def.indexes.iter().any(|i| i.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(&a.name)));
            if !keyed {
                return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
            }
            return Err(SqlError::unsupported("AUTO_INCREMENT on a column that is not the whole PRIMARY KEY"));
        }
    }
    Ok(())
}

fn table_element(c: &mut Cur<'_>, def: &mut TableDef, inline_pk: &mut Vec<String>, inline_unique: &mut Vec<String>) -> Result<(), SqlError> {
    let mut constraint_name: Option<String> = None;
    if c.eat_kw("CONSTRAINT") && !(c.is_kw("PRIMARY") || c.is_kw("UNIQUE") || c.is_kw("FOREIGN") || c.is_kw("CHECK")) {
        constraint_name = Some(c.ident()?);
    }
    if c.eat_kw("PRIMARY") {
        c.expect_kw("KEY")?;
        skip_index_type(c)?;
        let (cols, _) = key_parts(c)?;
        index_options(c)?;
        if !def.primary.is_empty() {
            return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
        }
        def.primary = cols;
        return Ok(());
    }
    if c.is_kw("UNIQUE") || c.is_kw("KEY") || c.is_kw("INDEX") {
        let unique = c.eat_kw("UNIQUE");
        let _ = c.eat_kw("KEY") || c.eat_kw("INDEX");
        let name = if c.is_op("(") || c.is_kw("USING") { None } else { Some(c.ident()?) };
        skip_index_type(c)?;
        let (cols, prefix) = key_parts(c)?;
        let comment = index_options(c)?;
        let name = name.or(constraint_name).unwrap_or_else(|| unique_index_name(def, &cols[0]));
        def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique, columns: cols, prefix, comment });
        return Ok(());
    }
    if c.is_kw("FULLTEXT") || c.is_kw("SPATIAL") {
        return Err(SqlError::unsupported("FULLTEXT and SPATIAL indexes"));
    }
    if c.eat_kw("FOREIGN") {
        c.expect_kw("KEY")?;
        let idx_name = if c.is_op("(") { None } else { Some(c.ident()?) };
        let fk = foreign_key(c, constraint_name.or(idx_name), def)?;
        def.foreign_keys.push(fk);
        return Ok(());
    }
    if c.eat_kw("CHECK") {
        return Err(SqlError::unsupported("CHECK constraints"));
    }
    let (col, pk, uq) = column_def(c)?;
    if pk {
        inline_pk.push(col.name.clone());
    }
    if uq {
        inline_unique.push(col.name.clone());
    }
    def.columns.push(col);
    Ok(())
}

fn foreign_key(c: &mut Cur<'_>, name: Option<String>, def: &TableDef) -> Result<ForeignKey, SqlError> {
    let (cols, _) = key_parts(c)?;
    c.expect_kw("REFERENCES")?;
    let (ref_db, ref_table) = c.qualified()?;
    let (ref_cols, _) = key_parts(c)?;
    let mut fk = ForeignKey {
        name: name.unwrap_or_else(|| format!("{}_ibfk_{}", def.name, def.foreign_keys.len() + 1)),
        columns: cols,
        ref_db,
        ref_table,
        ref_columns: ref_cols,
        on_delete: String::new(),
        on_update: String::new(),
    };
    loop {
        if c.eat_kw("MATCH") {
            c.ident()?;
        } else if c.eat_kw("ON") {
            let del = if c.eat_kw("DELETE") {
                true
            } else {
                c.expect_kw("UPDATE")?;
                false
            };
            let action = if c.eat_kw("CASCADE") {
                "CASCADE"
            } else if c.eat_kw("RESTRICT") {
                "RESTRICT"
            } else if c.eat_kws(&["SET", "NULL"]) {
                "SET NULL"
            } else if c.eat_kws(&["SET", "DEFAULT"]) {
                "SET DEFAULT"
            } else if c.eat_kws(&["NO", "ACTION"]) {
                "NO ACTION"
            } else {
                return Err(c.error());
            };
            if del {
                fk.on_delete = action.into();
            } else {
                fk.on_update = action.into();
            }
        } else {
            return Ok(fk);
        }
    }
}

/// `name type [attributes]`; returns the column and whether it was declared
/// PRIMARY KEY / UNIQUE inline.
pub fn column_def(c: &mut Cur<'_>) -> Result<(ColumnDef, bool, bool), SqlError> {
    let name = c.ident()?;
    let type_tok = c.ident()?;
    let mut tname = type_tok.to_ascii_uppercase();
    if tname == "DOUBLE" {
        c.eat_kw("PRECISION");
    }
    if tname == "CHARACTER" && c.eat_kw("VARYING") {
        tname = "VARCHAR".into();
    }
    if tname == "NATIONAL" {
        tname = c.ident()?.to_ascii_uppercase();
        if tname == "CHARACTER" && c.eat_kw("VARYING") {
            tname = "VARCHAR".into();
        }
    }
    if tname == "LONG" && (c.is_kw("VARCHAR") || c.is_kw("VARBINARY")) {
        tname = if c.eat_kw("VARBINARY") {
            "MEDIUMBLOB".into()
        } else {
            c.next();
            "MEDIUMTEXT".into()
        };
    }
    let base = Base::from_name(&tname).ok_or_else(|| {
        if matches!(tname.as_str(), "GEOMETRY" | "POINT" | "LINESTRING" | "POLYGON" | "MULTIPOINT" | "MULTIPOLYGON" | "GEOMETRYCOLLECTION") {
            SqlError::unsupported("spatial types")
        } else {
            SqlError::syntax(&c.sql[c.toks[c.pos - 1].start..])
        }
    })?;
    let mut col = ColumnDef::new(name, base);
    if matches!(tname.as_str(), "BOOL" | "BOOLEAN") {
        col.length = Some(1);
    }
    if tname == "SERIAL" {
        col.unsigned = true;
        col.nullable = false;
        col.auto_increment = true;
    }
    if matches!(base, Base::Enum | Base::Set) {
        c.expect_op("(")?;
        loop {
            col.members.push(c.string()?);
            if !c.eat_op(",") {
                break;
            }
        }
        c.expect_op(")")?;
    } else if c.eat_op("(") {
        col.length = Some(c.number()?);
        if c.eat_op(",") {
            col.scale = Some(c.number()?);
        }
        c.expect_op(")")?;
    }
    match base {
        Base::Decimal => {
            let p = col.length.unwrap_or(10);
            let s = col.scale.unwrap_or(0);
            if p > 65 {
                return Err(SqlError::new(1426, "42000", format!("Too-big precision {} specified for '{}'. Maximum is 65.", p, col.name)));
            }
            if s > 30 || s > p {
                return Err(SqlError::new(1425, "42000", format!("Too big scale {} specified for column '{}'. Maximum is 30.", s, col.name)));
            }
            col.length = Some(p);
            col.scale = Some(s);
        }
        Base::Float if col.scale.is_none() => {
            if let Some(p) = col.length {
                // FLOAT(p): precision in bits; above 24 it is a DOUBLE.
                col.length = None;
                if p > 24 {
                    col.base = Base::Double;
                }
            }
        }
        Base::Char | Base::Binary => {
            let n = col.length.unwrap_or(1);
            if n > 255 {
                return Err(SqlError::new(1074, "42000", format!("Column length too big for column '{}' (max = 255); use BLOB or TEXT instead", col.name)));
            }
            col.length = Some(n);
        }
        Base::VarChar | Base::VarBinary => {
            let n = col.length.ok_or_else(|| c.error())?;
            if n > 65535 {
                return Err(SqlError::new(1074, "42000", format!("Column length too big for column '{}' (max = 16383); use BLOB or TEXT instead", col.name)));
            }
        }
        Base::Bit => {
            let n = col.length.unwrap_or(1);
            if n == 0 || n > 64 {
                return Err(SqlError::new(1439, "42000", format!("Display width out of range for column '{}' (max = 64)", col.name)));
            }
            col.length = Some(n);
        }
        Base::DateTime | Base::Timestamp | Base::Time if col.length.is_some_and(|l| l > 6) => {
            return Err(SqlError::new(1426, "42000", format!("Too-big precision {} specified for '{}'. Maximum is 6.", col.length.unwrap_or(0), col.name)));
        }
        _ => {}
    }
    if base.is_text() || base == Base::Json {
        // charset/collation may come right after the type or among the attributes.
    }
    let mut primary = false;
    let mut unique = false;
    loop {
        if c.eat_kw("UNSIGNED") {
            col.unsigned = true;
        } else if c.eat_kw("SIGNED") {
        } else if c.eat_kw("ZEROFILL") {
            col.zerofill = true;
            col.unsigned = true;
        } else if c.eat_kws(&["NOT", "NULL"]) {
            col.nullable = false;
        } else if c.eat_kw("NULL") {
            col.nullable = true;
        } else if c.eat_kw("DEFAULT") {
            col.default = Some(default_value(c)?);
        } else if c.eat_kw("AUTO_INCREMENT") {
            col.auto_increment = true;
        } else if c.eat_kw("PRIMARY") {
            c.expect_kw("KEY")?;
            primary = true;
        } else if c.eat_kw("UNIQUE") {
            c.eat_kw("KEY");
            unique = true;
        } else if c.eat_kw("KEY") {
            primary = true;
        } else if c.eat_kw("COMMENT") {
            col.comment = c.string()?;
        } else if c.eat_kw("COLLATE") {
            c.eat_op("=");
            col.collation = Some(c.ident()?.to_ascii_lowercase());
        } else if c.eat_kws(&["CHARACTER", "SET"]) || c.eat_kw("CHARSET") {
            c.eat_op("=");
            let cs = c.ident()?.to_ascii_lowercase();
            if col.collation.is_none() || !col.collation.as_deref().unwrap_or("").starts_with(&cs) {
                col.collation = Some(default_collation_for(&cs));
            }
        } else if c.eat_kw("ON") {
            c.expect_kw("UPDATE")?;
            let kw = c.ident()?.to_ascii_uppercase();
            if !matches!(kw.as_str(), "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP") {
                return Err(c.error());
            }
            if c.eat_op("(") {
                let _ = c.number();
                c.expect_op(")")?;
            }
            col.on_update_now = true;
        } else if c.eat_kw("COLUMN_FORMAT") || c.eat_kw("STORAGE") {
            c.ident()?;
        } else if c.eat_kw("VISIBLE") || c.eat_kw("INVISIBLE") {
        } else if c.eat_kw("SRID") {
            c.number()?;
        } else if c.is_kw("GENERATED") || c.is_kw("AS") {
            return Err(SqlError::unsupported("generated columns"));
        } else if c.is_kw("CHECK") || (c.is_kw("CONSTRAINT") && c.peek_at(2).is_some_and(|t| t.is_kw("CHECK"))) {
            return Err(SqlError::unsupported("CHECK constraints"));
        } else if c.is_kw("REFERENCES") {
            return Err(SqlError::unsupported("inline REFERENCES on a column (use FOREIGN KEY)"));
        } else {
            break;
        }
    }
    if col.base.is_text() && col.collation.as_deref() == Some("binary") {
        // CHAR(n) CHARACTER SET binary is BINARY(n).
        col.base = match col.base {
            Base::Char => Base::Binary,
            Base::VarChar => Base::VarBinary,
            Base::Text => Base::Blob,
            other => other,
        };
        col.collation = None;
    }
    if !(col.base.is_text()) {
        col.collation = None;
    }
    if col.auto_increment && col.default.is_some() {
        return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
    }
    if let Some(Default_::CurrentTimestamp) = col.default {
        if !matches!(col.base, Base::DateTime | Base::Timestamp) {
            return Err(SqlError::new(1067, "42000", format!("Invalid default value for '{}'", col.name)));
        }
    }
    if col.on_update_now && !matches!(col.base, Base::DateTime | Base::Timestamp) {
        return Err(SqlError::new(1294, "HY000", format!("Invalid ON UPDATE clause for '{}' column", col.name)));
    }
    if primary {
        col.nullable = false;
    }
    Ok((col, primary, unique))
}

pub fn default_collation_for(cs: &str) -> String {
    match cs {
        "binary" => "binary".into(),
        "latin1" => "latin1_swedish_ci".into(),
        "ascii" => "ascii_general_ci".into(),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci".into(),
        _ => DEFAULT_COLLATION.into(),
    }
}

fn default_value(c: &mut Cur<'_>) -> Result<Default_, SqlError> {
    let t = c.next().ok_or_else(|| c.error())?;
    Ok(match &t.tok {
        Tok::Word(w) if w.eq_ignore_ascii_case("NULL") => Default_::Null,
        Tok::Word(w) if w.eq_ignore_ascii_case("TRUE") => Default_::Literal("1".into()),
        Tok::Word(w) if w.eq_ignore_ascii_case("FALSE") => Default_::Literal("0".into()),
        Tok::Word(w) if ["CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP"].iter().any(|k| w.eq_ignore_ascii_case(k)) => {
            if c.eat_op("(") {
                let _ = c.number();
                c.expect_op(")")?;
            }
            Default_::CurrentTimestamp
        }
        Tok::Str(s) => {
            let mut s = String::from_utf8_lossy(s).into_owned();
            while let Some(Tok::Str(more)) = c.peek().map(|t| &t.tok) {
                s.push_str(&String::from_utf8_lossy(more));
                c.next();
            }
            Default_::Literal(s)
        }
        Tok::Number(n) => Default_::Literal(n.to_string()),
        Tok::Op("-") | Tok::Op("+") => {
            let sign = if t.is_op("-") { "-" } else { "" };
            match c.next().map(|t| &t.tok) {
                Some(Tok::Number(n)) => Default_::Literal(format!("{}{}", sign, n)),
                _ => return Err(c.error()),
            }
        }
        Tok::Op("(") => {
            c.pos -= 1;
            let inner = c.skip_group()?;
            Default_::Expr(inner.trim().to_string())
        }
        _ => {
            c.pos -= 1;
            return Err(c.error());
        }
    })
}

struct TableOpts {
    engine: Option<String>,
    collation: Option<String>,
    comment: Option<String>,
    auto_increment: Option<u64>,
}

fn table_options(c: &mut Cur<'_>) -> Result<TableOpts, SqlError> {
    let mut o = TableOpts { engine: None, collation: None, comment: None, auto_increment: None };
    loop {
        c.eat_op(",");
        if c.eat_kw("ENGINE") || c.eat_kw("TYPE") {
            c.eat_op("=");
            let e = c.ident()?;
            o.engine = Some(match e.to_ascii_lowercase().as_str() {
                "innodb" => "InnoDB".into(),
                "myisam" => "MyISAM".into(),
                "memory" | "heap" => "MEMORY".into(),
                _ => e,
            });
        } else if c.is_kw("DEFAULT") && (c.peek_at(1).is_some_and(|t| t.is_kw("CHARSET") || t.is_kw("CHARACTER") || t.is_kw("COLLATE"))) {
            c.next();
        } else if c.eat_kws(&["CHARACTER", "SET"]) || c.eat_kw("CHARSET") {
            c.eat_op("=");
            let cs = c.ident()?.to_ascii_lowercase();
            if o.collation.as_deref().is_none_or(|x| !x.starts_with(&cs)) {
                o.collation = Some(default_collation_for(&cs));
            }
        } else if c.eat_kw("COLLATE") {
            c.eat_op("=");
            o.collation = Some(c.ident()?.to_ascii_lowercase());
        } else if c.eat_kw("COMMENT") {
            c.eat_op("=");
            o.comment = Some(c.string()?);
        } else if c.eat_kw("AUTO_INCREMENT") {
            c.eat_op("=");
            o.auto_increment = Some(c.number()?);
        } else if c.peek().is_some_and(|t| matches!(&t.tok, Tok::Word(w) if is_ignored_table_option(w))) {
            c.next();
            c.eat_op("=");
            match c.next().map(|t| &t.tok) {
                Some(Tok::Word(_)) | Some(Tok::Number(_)) | Some(Tok::Str(_)) | Some(Tok::Quoted(_)) => {}
                _ => return Err(c.error()),
            }
        } else {
            return Ok(o);
        }
    }
}

fn is_ignored_table_option(w: &str) -> bool {
    [
        "ROW_FORMAT",
        "KEY_BLOCK_SIZE",
        "AVG_ROW_LENGTH",
        "MAX_ROWS",
        "MIN_ROWS",
        "PACK_KEYS",
        "CHECKSUM",
        "DELAY_KEY_WRITE",
        "STATS_PERSISTENT",
        "STATS_AUTO_RECALC",
        "STATS_SAMPLE_PAGES",
        "COMPRESSION",
        "ENCRYPTION",
        "INSERT_METHOD",
        "TABLESPACE",
        "DATA",
        "INDEX",
        "PAGE_CHECKSUM",
        "TRANSACTIONAL",
        "SECONDARY_ENGINE",
    ]
    .iter()
    .any(|k| k.eq_ignore_ascii_case(w))
}

fn position(c: &mut Cur<'_>) -> Result<Position, SqlError> {
    if c.eat_kw("FIRST") {
        Ok(Position::First)
    } else if c.eat_kw("AFTER") {
        Ok(Position::After(c.ident()?))
    } else {
        Ok(Position::Last)
    }
}

fn alter_op(c: &mut Cur<'_>, ops: &mut Vec<AlterOp>) -> Result<(), SqlError> {
    if c.eat_kw("ADD") {
        let mut constraint_name = None;
        if c.eat_kw("CONSTRAINT") && !(c.is_kw("PRIMARY") || c.is_kw("UNIQUE") || c.is_kw("FOREIGN")) {
            constraint_name = Some(c.ident()?);
        }
        if c.eat_kw("PRIMARY") {
            c.expect_kw("KEY")?;
            skip_index_type(c)?;
            let (cols, _) = key_parts(c)?;
            index_options(c)?;
            ops.push(AlterOp::AddPrimary(cols));
            return Ok(());
        }
        if c.is_kw("UNIQUE") || c.is_kw("INDEX") || c.is_kw("KEY") {
            let unique = c.eat_kw("UNIQUE");
            let _ = c.eat_kw("INDEX") || c.eat_kw("KEY");
            let name = if c.is_op("(") || c.is_kw("USING") { None } else { Some(c.ident()?) };
            skip_index_type(c)?;
            let (cols, prefix) = key_parts(c)?;
            let comment = index_options(c)?;
            let name = name.or(constraint_name).unwrap_or_default();
            ops.push(AlterOp::AddIndex(IndexDef { name, sqlite_name: String::new(), unique, columns: cols, prefix, comment }));
            return Ok(());
        }
        if c.is_kw("FULLTEXT") || c.is_kw("SPATIAL") {
            return Err(SqlError::unsupported("FULLTEXT and SPATIAL indexes"));
        }
        if c.eat_kw("FOREIGN") {
            c.expect_kw("KEY")?;
            let idx = if c.is_op("(") { None } else { Some(c.ident()?) };
            let tmp = empty_def("");
            let mut fk = foreign_key(c, constraint_name.or(idx), &tmp)?;
            if fk.name.starts_with("_ibfk_") {
                fk.name.clear();
            }
            ops.push(AlterOp::AddForeignKey(fk));
            return Ok(());
        }
        c.eat_kw("COLUMN");
        if c.is_op("(") {
            c.next();
            loop {
                let (col, primary, unique) = column_def(c)?;
                ops.push(AlterOp::AddColumn { col, position: Position::Last, primary, unique });
                if !c.eat_op(",") {
                    break;
                }
            }
            c.expect_op(")")?;
            return Ok(());
        }
        let (col, primary, unique) = column_def(c)?;
        let position = position(c)?;
        ops.push(AlterOp::AddColumn { col, position, primary, unique });
        return Ok(());
    }
    if c.eat_kw("DROP") {
        if c.eat_kw("PRIMARY") {
            c.expect_kw("KEY")?;
            ops.push(AlterOp::DropPrimary);
        } else if c.eat_kw("INDEX") || c.eat_kw("KEY") {
            ops.push(AlterOp::DropIndex(c.ident()?));
        } else if c.eat_kw("FOREIGN") {
            c.expect_kw("KEY")?;
            ops.push(AlterOp::DropForeignKey(c.ident()?));
        } else if c.eat_kw("CHECK") || c.eat_kw("CONSTRAINT") {
            return Err(SqlError::unsupported("CHECK constraints"));
        } else {
            c.eat_kw("COLUMN");
            ops.push(AlterOp::DropColumn(c.ident()?));
        }
        return Ok(());
    }
    if c.eat_kw("MODIFY") {
        c.eat_kw("COLUMN");
        let (col, primary, unique) = column_def(c)?;
        let position = position(c)?;
        ops.push(AlterOp::ChangeColumn { old: col.name.clone(), col, position, primary, unique });
        return Ok(());
    }
    if c.eat_kw("CHANGE") {
        c.eat_kw("COLUMN");
        let old = c.ident()?;
        let (col, primary, unique) = column_def(c)?;
        let position = position(c)?;
        ops.push(AlterOp::ChangeColumn { old, col, position, primary, unique });
        return Ok(());
    }
    if c.eat_kw("ALTER") {
        if c.eat_kw("INDEX") {
            c.ident()?;
            let _ = c.eat_kw("VISIBLE") || c.eat_kw("INVISIBLE");
            return Ok(());
        }
        c.eat_kw("COLUMN");
        let col = c.ident()?;
        if c.eat_kw("SET") {
            c.expect_kw("DEFAULT")?;
            let d = default_value(c)?;
            ops.push(AlterOp::SetDefault { col, default: Some(d) });
        } else {
            c.expect_kw("DROP")?;
            c.expect_kw("DEFAULT")?;
            ops.push(AlterOp::SetDefault { col, default: None });
        }
        return Ok(());
    }
    if c.eat_kw("RENAME") {
        if c.eat_kw("COLUMN") {
            let old = c.ident()?;
            c.expect_kw("TO")?;
            let new = c.ident()?;
            ops.push(AlterOp::RenameColumn { old, new });
        } else if c.eat_kw("INDEX") || c.eat_kw("KEY") {
            let old = c.ident()?;
            c.expect_kw("TO")?;
            let new = c.ident()?;
            ops.push(AlterOp::RenameIndex { old, new });
        } else {
            let _ = c.eat_kw("TO") || c.eat_kw("AS");
            ops.push(AlterOp::RenameTable(c.qualified()?));
        }
        return Ok(());
    }
    if c.eat_kw("CONVERT") {
        c.expect_kw("TO")?;
        let _ = c.eat_kws(&["CHARACTER", "SET"]) || c.eat_kw("CHARSET");
        let cs = c.ident()?.to_ascii_lowercase();
        let mut coll = default_collation_for(&cs);
        if c.eat_kw("COLLATE") {
            coll = c.ident()?.to_ascii_lowercase();
        }
        ops.push(AlterOp::Options { engine: None, collation: Some(coll), comment: None, auto_increment: None });
        return Ok(());
    }
    if c.eat_kw("ALGORITHM") || c.eat_kw("LOCK") {
        c.eat_op("=");
        c.ident()?;
        return Ok(());
    }
    if c.eat_kw("FORCE") || c.eat_kw("ENABLE") && c.eat_kw("KEYS") || c.eat_kw("DISABLE") && c.eat_kw("KEYS") {
        return Ok(());
    }
    if c.eat_kw("ORDER") {
        return Err(SqlError::unsupported("ALTER TABLE ... ORDER BY"));
    }
    if c.is_kw("PARTITION") || c.is_kw("ADD") {
        return Err(SqlError::unsupported("partitioned tables"));
    }
    let before = c.pos;
    let o = table_options(c)?;
    if c.pos == before {
        return Err(c.error());
    }
    ops.push(AlterOp::Options { engine: o.engine, collation: o.collation, comment: o.comment, auto_increment: o.auto_increment });
    Ok(())
}

/// Apply ALTER operations to a definition. Returns whether the table must be
/// rebuilt (a column change) rather than only re-indexed.
pub fn apply_alter(def: &mut TableDef, ops: &[AlterOp]) -> Result<(bool, Vec<(String, String)>), SqlError> {
    let mut rebuild = false;
    // Old-name -> new-name for columns kept through the change.
    let mut renames: Vec<(String, String)> = def.columns.iter().map(|c| (c.name.clone(), c.name.clone())).collect();
    let no_col = |name: &str, table: &str| SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, table));
    for op in ops {
        match op {
            AlterOp::AddColumn { col, position, primary, unique } => {
                if def.column(&col.name).is_some() {
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
                }
                let mut col = col.clone();
                if col.base.is_text() && col.collation.is_none() {
                    col.collation = Some(def.collation.clone());
                }
                insert_at(def, col.clone(), position)?;
                if *primary {
                    if !def.primary.is_empty() {
                        return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
                    }
                    def.primary = vec![col.name.clone()];
                }
                if *unique {
                    let name = unique_index_name(def, &col.name);
                    def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![col.name.clone()], prefix: vec![None], comment: String::new() });
                }
                rebuild = true;
            }
            AlterOp::DropColumn(name) => {
                let i = def.column_index(name).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)))?;
                let real = def.columns[i].name.clone();
                def.columns.remove(i);
                if def.columns.is_empty() {
                    return Err(SqlError::new(1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"));
                }
                def.primary.retain(|c| !c.eq_ignore_ascii_case(&real));
                for ix in def.indexes.iter_mut() {
                    let keep: Vec<bool> = ix.columns.iter().map(|c| !c.eq_ignore_ascii_case(&real)).collect();
                    let mut k = keep.iter();
                    ix.columns.retain(|_| *k.next().unwrap_or(&true));
                    let mut k = keep.iter();
                    ix.prefix.retain(|_| *k.next().unwrap_or(&true));
                }
                def.indexes.retain(|ix| !ix.columns.is_empty());
                renames.retain(|(_, new)| !new.eq_ignore_ascii_case(&real));
                rebuild = true;
            }
            AlterOp::ChangeColumn { old, col, position, primary, unique } => {
                let i = def.column_index(old).ok_or_else(|| no_col(old, &def.name))?;
                let real_old = def.columns[i].name.clone();
                if !col.name.eq_ignore_ascii_case(&real_old) && def.column(&col.name).is_some() {
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col.name)));
                }
                let mut col = col.clone();
                if col.base.is_text() && col.collation.is_none() {
                    col.collation = Some(def.collation.clone());
                }
                let was_pk = def.primary.iter().any(|p| p.eq_ignore_ascii_case(&real_old));
                if was_pk {
                    col.nullable = false;
                }
                def.columns.remove(i);
                if *position == Position::Last {
                    def.columns.insert(i, col.clone());
                } else {
                    insert_at(def, col.clone(), position)?;
                }
                for p in def.primary.iter_mut() {
                    if p.eq_ignore_ascii_case(&real_old) {
                        *p = col.name.clone();
                    }
                }
                for ix in def.indexes.iter_mut() {
                    for c in ix.columns.iter_mut() {
                        if c.eq_ignore_ascii_case(&real_old) {
                            *c = col.name.clone();
                        }
                    }
                }
                for r in renames.iter_mut() {
                    if r.1.eq_ignore_ascii_case(&real_old) {
                        r.1 = col.name.clone();
                    }
                }
                if *primary {
                    def.primary = vec![col.name.clone()];
                }
                if *unique {
                    let name = unique_index_name(def, &col.name);
                    def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![col.name.clone()], prefix: vec![None], comment: String::new() });
                }
                rebuild = true;
            }
            AlterOp::RenameColumn { old, new } => {
                let i = def.column_index(old).ok_or_else(|| no_col(old, &def.name))?;
                if def.column(new).is_some() {
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", new)));
                }
                let real_old = def.columns[i].name.clone();
                def.columns[i].name = new.clone();
                for p in def.primary.iter_mut().chain(def.indexes.iter_mut().flat_map(|ix| ix.columns.iter_mut())) {
                    if p.eq_ignore_ascii_case(&real_old) {
                        *p = new.clone();
                    }
                }
                for r in renames.iter_mut() {
                    if r.1.eq_ignore_ascii_case(&real_old) {
                        r.1 = new.clone();
                    }
                }
                rebuild = true;
            }
            AlterOp::SetDefault { col, default } => {
                let i = def.column_index(col).ok_or_else(|| no_col(col, &def.name))?;
                def.columns[i].default = default.clone();
                rebuild = true;
            }
            AlterOp::AddIndex(ix) => {
                let mut ix = ix.clone();
                if ix.name.is_empty() {
                    ix.name = unique_index_name(def, &ix.columns[0]);
                }
                def.indexes.push(ix);
            }
            AlterOp::AddPrimary(cols) => {
                if !def.primary.is_empty() {
                    return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
                }
                def.primary = cols.clone();
                rebuild = true;
            }
            AlterOp::DropIndex(name) => {
                if name.eq_ignore_ascii_case("PRIMARY") {
                    def.primary.clear();
                    rebuild = true;
                    continue;
                }
                let i =
                    def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(name)).ok_or_else(|| SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)))?;
                def.indexes.remove(i);
            }
            AlterOp::DropPrimary => {
                if def.primary.is_empty() {
                    return Err(SqlError::new(1091, "42000", "Can't DROP 'PRIMARY'; check that column/key exists"));
                }
                def.primary.clear();
                for c in def.columns.iter_mut() {
                    if c.auto_increment {
                        return Err(SqlError::new(1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
                    }
                }
                rebuild = true;
            }
            AlterOp::RenameIndex { old, new } => {
                let i =
                    def.indexes.iter().position(|ix| ix.name.eq_ignore_ascii_case(old)).ok_or_else(|| SqlError::new(1176, "42000", format!("Key '{}' doesn't exist in table '{}'", old, def.name)))?;
                def.indexes[i].name = new.clone();
            }
            AlterOp::RenameTable(_) => {}
            AlterOp::AddForeignKey(fk) => {
                let mut fk = fk.clone();
                if fk.name.is_empty() {
                    fk.name = format!("{}_ibfk_{}", def.name, def.foreign_keys.len() + 1);
                }
                def.foreign_keys.push(fk);
                rebuild = true;
            }
            AlterOp::DropForeignKey(name) => {
                let before = def.foreign_keys.len();
                def.foreign_keys.retain(|f| !f.name.eq_ignore_ascii_case(name));
                if def.foreign_keys.len() == before {
                    return Err(SqlError::new(1091, "42000", format!("Can't DROP '{}'; check that column/key exists", name)));
                }
                rebuild = true;
            }
            AlterOp::Options { engine, collation, comment, .. } => {
                if let Some(e) = engine {
                    def.engine = e.clone();
                }
                if let Some(c) = collation {
                    def.collation = c.clone();
                }
                if let Some(c) = comment {
                    def.comment = c.clone();
                }
            }
        }
    }
    finish_def(def)?;
    Ok((rebuild, renames))
}

fn insert_at(def: &mut TableDef, col: ColumnDef, position: &Position) -> Result<(), SqlError> {
    match position {
        Position::Last => def.columns.push(col),
        Position::First => def.columns.insert(0, col),
        Position::After(name) => {
            let i = def.column_index(name).ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", name, def.name)))?;
            def.columns.insert(i + 1, col);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- generation

/// Name of a CHECK constraint: the error mapper reads code and column back.
fn check_name(code: u16, col: &str) -> String {
    sq_ident(&format!("ts:{}:{}", code, col))
}

fn sqlite_literal_default(col: &ColumnDef) -> Option<String> {
    Some(match col.default.as_ref()? {
        Default_::Null => "NULL".into(),
        Default_::CurrentTimestamp => {
            if col.length.is_some_and(|l| l > 0) {
                format!("(ts_now({}))", col.length.unwrap_or(0))
            } else {
                "CURRENT_TIMESTAMP".into()
            }
        }
        Default_::Literal(v) => {
            if col.base.is_integer() || matches!(col.base, Base::Decimal | Base::Float | Base::Double) {
                match v.parse::<f64>() {
                    Ok(_) if v.parse::<i64>().is_ok() || !col.base.is_integer() => v.clone(),
                    Ok(f) => format!("{}", f as i64),
                    Err(_) => sq_str(v),
                }
            } else {
                sq_str(v)
            }
        }
        Default_::Expr(e) => format!("({})", super::rewrite::expression(e).unwrap_or_else(|_| e.clone())),
    })
}

/// Collation name registered on every connection for a MySQL collation.
pub fn sqlite_collation(col: &ColumnDef) -> &'static str {
    if !col.base.is_text() {
        "BINARY"
    } else if col.is_ci() {
        "ts_ci"
    } else {
        "RTRIM"
    }
}

/// The SQLite type (and so affinity) a column is declared with.
pub fn storage_affinity(col: &ColumnDef) -> &'static str {
    if col.base.is_integer() {
        "INTEGER"
    } else if matches!(col.base, Base::Float | Base::Double) {
        "REAL"
    } else if col.base == Base::Decimal {
        if col.scale.unwrap_or(0) == 0 && col.length.unwrap_or(10) <= 18 {
            "INTEGER"
        } else {
            "REAL"
        }
    } else {
        "TEXT"
    }
}

/// CREATE TABLE for SQLite. `schema` is `main`, `temp` or an attached name.
pub fn sqlite_create_table(def: &TableDef, schema: &str, name: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let rowid_pk = def.primary.len() == 1 && def.column(&def.primary[0]).is_some_and(|c| c.base.is_integer() && c.base != Base::Bit && c.base != Base::Year);
    for col in &def.columns {
        let q = sq_ident(&col.name);
        let storage = storage_affinity(col);
        let mut s = format!("{} {}", q, storage);
        if rowid_pk && def.primary[0].eq_ignore_ascii_case(&col.name) {
            s.push_str(" PRIMARY KEY");
            if col.auto_increment {
                s.push_str(" AUTOINCREMENT");
            }
        }
        if storage == "TEXT" {
            s.push_str(" COLLATE ");
            s.push_str(sqlite_collation(col));
        }
        if !col.nullable {
            s.push_str(" NOT NULL");
        }
        if let Some(d) = sqlite_literal_default(col) {
            s.push_str(" DEFAULT ");
            s.push_str(&d);
        }
        // Strict-mode rules as named CHECK constraints.
        if let Some((lo, hi)) = col.base.int_range(col.unsigned) {
            if col.base == Base::BigInt {
                if col.unsigned {
                    s.push_str(&format!(" CONSTRAINT {} CHECK ({} >= 0)", check_name(1264, &col.name), q));
                }
            } else {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} BETWEEN {} AND {})", check_name(1264, &col.name), q, lo, hi));
            }
        }
        match col.base {
            Base::Decimal => {
                let p = col.length.unwrap_or(10);
                let sc = col.scale.unwrap_or(0);
                let digits = p.saturating_sub(sc);
                let bound = format!("1e{}", digits);
                if col.unsigned {
                    s.push_str(&format!(" CONSTRAINT {} CHECK ({} >= 0 AND {} < {})", check_name(1264, &col.name), q, q, bound));
                } else if digits < 19 {
                    s.push_str(&format!(" CONSTRAINT {} CHECK (abs({}) < {})", check_name(1264, &col.name), q, bound));
                }
            }
            Base::Float | Base::Double if col.unsigned => {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} >= 0)", check_name(1264, &col.name), q));
            }
            Base::Bit => {
                let n = col.length.unwrap_or(1);
                if n < 63 {
                    s.push_str(&format!(" CONSTRAINT {} CHECK ({} BETWEEN 0 AND {})", check_name(1406, &col.name), q, (1u64 << n) - 1));
                }
            }
            Base::Year => {
                s.push_str(&format!(" CONSTRAINT {} CHECK ({} = 0 OR {} BETWEEN 1901 AND 2155)", check_name(1264, &col.name), q, q));
            }
            _ => {}
        }
        if let Some(max) = col.base.max_len(col.length) {
            if col.base.is_binary() {
                s.push_str(&format!(" CONSTRAINT {} CHECK (length(CAST({} AS BLOB)) <= {})", check_name(1406, &col.name), q, max));
            } else {
                s.push_str(&format!(" CONSTRAINT {} CHECK (length({}) <= {})", check_name(1406, &col.name), q, max));
            }
        }
        if col.base == Base::Enum {
            let members: Vec<String> = col.members.iter().map(|m| sq_str(m)).collect();
            s.push_str(&format!(" CONSTRAINT {} CHECK ({} IN ({}))", check_name(1265, &col.name), q, members.join(",")));
        }
        if col.base == Base::Set {
            let members: Vec<String> = col.members.iter().map(|m| sq_str(m)).collect();
            s.push_str(&format!(" CONSTRAINT {} CHECK (ts_set_ok({}, {}))", check_name(1265, &col.name), q, members.join(",")));
        }
        if col.base == Base::Json {
            s.push_str(&format!(" CONSTRAINT {} CHECK (json_valid({}))", check_name(3140, &col.name), q));
        }
        if col.base.is_temporal() {
            let kind = match col.base {
                Base::Date => "date",
                Base::Time => "time",
                Base::Timestamp => "timestamp",
                _ => "datetime",
            };
            s.push_str(&format!(" CONSTRAINT {} CHECK (ts_temporal_ok({}, '{}', {}))", check_name(1292, &col.name), q, kind, sq_str(&col.name)));
        }
        parts.push(s);
    }
    if !def.primary.is_empty() && !rowid_pk {
        parts.push(format!("PRIMARY KEY ({})", def.primary.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")));
    }
    for fk in &def.foreign_keys {
        parts.push(fk.clause(sq_ident));
    }
    format!("CREATE TABLE {}.{} (\n  {}\n) STRICT", sq_ident(schema), sq_ident(name), parts.join(",\n  "))
}

pub fn sqlite_create_index(def: &TableDef, ix: &IndexDef, schema: &str) -> String {
    format!(
        "CREATE {}INDEX {}.{} ON {} ({})",
        if ix.unique { "UNIQUE " } else { "" },
        sq_ident(schema),
        sq_ident(&ix.sqlite_name),
        sq_ident(&def.name),
        ix.columns.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")
    )
}

/// Triggers for ON UPDATE CURRENT_TIMESTAMP: after an update that changed some
/// other column and left this one alone, set it to now (as MySQL does).
pub fn sqlite_triggers(def: &TableDef, schema: &str) -> Vec<String> {
    let mut out = Vec::new();
    for col in def.columns.iter().filter(|c| c.on_update_now) {
        let others: Vec<String> = def.columns.iter().filter(|c| !c.name.eq_ignore_ascii_case(&col.name)).map(|c| format!("NEW.{q} IS NOT OLD.{q}", q = sq_ident(&c.name))).collect();
        if others.is_empty() {
            // No other column can change, so MySQL never updates it (and the
            // trigger's own UPDATE would re-fire it: recursive_triggers is on).
            continue;
        }
        let changed = others.join(" OR ");
        let now = if col.length.is_some_and(|l| l > 0) { format!("ts_now({})", col.length.unwrap_or(0)) } else { "CURRENT_TIMESTAMP".into() };
        out.push(format!(
            "CREATE TRIGGER {}.{} AFTER UPDATE ON {} FOR EACH ROW WHEN NEW.{c} IS OLD.{c} AND ({}) BEGIN UPDATE {} SET {c} = {} WHERE rowid = NEW.rowid; END",
            sq_ident(schema),
            sq_ident(&format!("ts_onupdate:{}:{}", def.name, col.name)),
            sq_ident(&def.name),
            changed,
            sq_ident(&def.name),
            now,
            c = sq_ident(&col.name)
        ));
    }
    out
}

/// The value a NOT NULL column without a default gets when a rebuild adds it.
pub fn implicit_default(col: &ColumnDef) -> String {
    if let Some(d) = sqlite_literal_default(col) {
        return d;
    }
    if col.nullable {
        return "NULL".into();
    }
    match col.base {
        b if b.is_numeric() => "0".into(),
        Base::Date => "'0000-00-00'".into(),
        Base::DateTime | Base::Timestamp => "'0000-00-00 00:00:00'".into(),
        Base::Time => "'00:00:00'".into(),
        Base::Enum => col.members.first().map(|m| sq_str(m)).unwrap_or_else(|| "''".into()),
        Base::Json => "'null'".into(),
        _ => "''".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(sql: &str) -> TableDef {
        match parse(sql).unwrap().unwrap() {
            Ddl::CreateTable { def, .. } => *def,
            other => panic!("{:?}", other),
        }
    }

    #[test]
    fn sysbench_table() {
        let d = create("CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */");
        assert_eq!(d.primary, vec!["id"]);
        assert_eq!(d.columns.len(), 4);
        assert!(d.columns[0].auto_increment);
        let sql = sqlite_create_table(&d, "main", &d.name);
        assert!(sql.contains("\"id\" INTEGER PRIMARY KEY AUTOINCREMENT"), "{}", sql);
        assert!(sql.contains("length(\"c\") <= 120"), "{}", sql);
        assert!(sql.ends_with("STRICT"));
        let show = d.show_create(None);
        assert!(show.contains("`k` int NOT NULL DEFAULT '0'"), "{}", show);
        assert!(show.contains("PRIMARY KEY (`id`)"), "{}", show);
    }

    #[test]
    fn many_types_and_keys() {
        let d = create(
            "CREATE TABLE IF NOT EXISTS `t` (a TINYINT(1) UNSIGNED, b DECIMAL(10,2) NOT NULL DEFAULT 1.5 COMMENT 'money', \
             c VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin UNIQUE, d DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), \
             e ENUM('x','y') DEFAULT 'x', f JSON, g BLOB, h BOOL, KEY idx_ab (a, b), UNIQUE KEY (c(5))) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='tbl'",
        );
        assert_eq!(d.comment, "tbl");
        assert_eq!(d.column("c").unwrap().collation.as_deref(), Some("utf8mb4_bin"));
        assert!(d.column("d").unwrap().on_update_now);
        assert_eq!(d.indexes.len(), 3);
        assert_eq!(d.column("h").unwrap().column_type(), "tinyint(1)");
        assert_eq!(sqlite_triggers(&d, "main").len(), 1);
    }

    #[test]
    fn errors() {
        assert_eq!(parse("CREATE TABLE t (a INT, a INT)").unwrap_err().code, 1060);
        assert_eq!(parse("CREATE TABLE t (a INT, PRIMARY KEY (b))").unwrap_err().code, 1072);
        assert_eq!(parse("CREATE TABLE t (a INT AUTO_INCREMENT)").unwrap_err().code, 1075);
        assert_eq!(parse("CREATE TABLE t (a FOO)").unwrap_err().code, 1064);
        assert_eq!(parse("CREATE TABLE t (a INT, FULLTEXT KEY (a))").unwrap_err().code, 1235);
        assert_eq!(parse("CREATE TABLE t AS SELECT 1").unwrap_err().code, 1235);
    }

    #[test]
    fn alter() {
        let mut d = create("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10))");
        let ops = match parse("ALTER TABLE t ADD COLUMN c INT NOT NULL AFTER id, DROP COLUMN a, CHANGE b bb VARCHAR(20), ADD INDEX ic (c)").unwrap().unwrap() {
            Ddl::Alter { ops, .. } => ops,
            _ => unreachable!(),
        };
        let (rebuild, renames) = apply_alter(&mut d, &ops).unwrap();
        assert!(rebuild);
        let names: Vec<&str> = d.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["id", "c", "bb"]);
        assert!(renames.contains(&("b".to_string(), "bb".to_string())));
        assert!(!renames.iter().any(|r| r.0 == "a"));
    }
}
