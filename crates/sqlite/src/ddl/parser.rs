//! The DDL parser: a statement's text into a `Ddl`. CREATE TABLE with its
//! elements (columns, keys, foreign keys) and table options, CREATE/DROP
//! INDEX, DROP TABLE, RENAME, TRUNCATE, and ALTER TABLE's clauses into
//! `AlterOp`s. One column's definition is parsed by column_parser.rs.

use super::column_parser::{canonical_collation, column_def, default_collation_for, default_value};
use super::definition::{empty_def, finish_def, unique_index_name};
use super::view_parser::{drop_view, view_statement};
use super::{AlterOp, Ctas, Ddl, Name, Position};
use crate::schema::{CheckDef, ForeignKey, IndexDef, TableDef};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex::{self, Tok};

/// Parse a DDL statement. `Ok(None)`: not a table DDL statement Turnstile handles here.
pub fn parse(sql: &str) -> Result<Option<Ddl>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut c = TokenCursor::new(sql, &toks);
    let out = if c.eat_kw("CREATE") {
        let or_replace = c.eat_kws(&["OR", "REPLACE"]);
        if let Some(v) = view_statement(&mut c, or_replace, false)? {
            return finish(c, v);
        }
        if or_replace {
            return Ok(None);
        }
        let temporary = c.eat_kw("TEMPORARY");
        if c.eat_kw("TABLE") {
            Some(create_table(&mut c, temporary)?)
        } else {
            let unique = c.eat_kw("UNIQUE");
            if c.is_kw("SPATIAL") {
                return Err(SqlError::unsupported("SPATIAL indexes"));
            }
            let fulltext = !unique && c.eat_kw("FULLTEXT");
            if !c.eat_kw("INDEX") {
                return Ok(None);
            }
            let if_not_exists = c.eat_kws(&["IF", "NOT", "EXISTS"]);
            let name = c.ident()?;
            let using = index_type(&mut c)?;
            c.expect_kw("ON")?;
            let table = c.qualified()?;
            let (columns, prefix) = key_parts(&mut c)?;
            let (comment, using_after) = index_options(&mut c)?;
            let using = using_after.or(using);
            Some(Ddl::CreateIndex { table, index: IndexDef { name, sqlite_name: String::new(), unique, columns, prefix, comment, fulltext, using }, if_not_exists })
        }
    } else if c.eat_kw("DROP") {
        let temporary = c.eat_kw("TEMPORARY");
        if !temporary && c.eat_kw("VIEW") {
            Some(drop_view(&mut c)?)
        } else if c.eat_kw("TABLE") || c.eat_kw("TABLES") {
            let if_exists = c.eat_kws(&["IF", "EXISTS"]);
            let mut tables = vec![c.qualified()?];
            while c.eat_op(",") {
                tables.push(c.qualified()?);
            }
            c.eat_kw("RESTRICT");
            c.eat_kw("CASCADE");
            Some(Ddl::DropTable { temporary, if_exists, tables })
        } else if c.eat_kw("INDEX") {
            let if_exists = c.eat_kws(&["IF", "EXISTS"]);
            let name = c.ident()?;
            c.expect_kw("ON")?;
            let table = c.qualified()?;
            Some(Ddl::DropIndex { table, name, if_exists })
        } else {
            return Ok(None);
        }
    } else if c.eat_kw("ALTER") {
        if let Some(v) = view_statement(&mut c, false, true)? {
            return finish(c, v);
        }
        c.eat_kw("ONLINE");
        c.eat_kw("IGNORE");
        if !c.eat_kw("TABLE") {
            return Ok(None);
        }
        let if_exists = c.eat_kws(&["IF", "EXISTS"]);
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
        Some(Ddl::Alter { if_exists, table, ops })
    } else if c.eat_kw("RENAME") {
        if !(c.eat_kw("TABLE") || c.eat_kw("TABLES")) {
            return Ok(None);
        }
        let if_exists = c.eat_kws(&["IF", "EXISTS"]);
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
        Some(Ddl::Rename { if_exists, pairs })
    } else if c.eat_kw("TRUNCATE") {
        c.eat_kw("TABLE");
        Some(Ddl::Truncate { table: c.qualified()? })
    } else {
        return Ok(None);
    };
    match out {
        Some(d) => finish(c, d),
        None => Ok(None),
    }
}

/// The statement ends here (a final `;` allowed).
fn finish(mut c: TokenCursor<'_>, d: Ddl) -> Result<Option<Ddl>, SqlError> {
    c.eat_op(";");
    if !c.at_end() {
        return Err(c.error().into());
    }
    check_names(&d)?;
    Ok(Some(d))
}

/// MariaDB's check of the names a statement creates or names: no table
/// name empty or ending in a space (1103), no such column name (1166).
fn check_names(d: &Ddl) -> Result<(), SqlError> {
    let bad = |n: &str| n.is_empty() || n.ends_with(' ');
    let table = |n: &Name| if bad(&n.1) { Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", n.1))) } else { Ok(()) };
    let column = |n: &str| if bad(n) { Err(SqlError::new(1166, "42000", format!("Incorrect column name '{}'", n))) } else { Ok(()) };
    match d {
        Ddl::CreateTable { table: t, def, .. } => {
            table(t)?;
            def.columns.iter().try_for_each(|c| column(&c.name))
        }
        Ddl::DropTable { tables, .. } => tables.iter().try_for_each(table),
        Ddl::Rename { pairs, .. } => pairs.iter().try_for_each(|(_, to)| table(to)),
        Ddl::Alter { ops, .. } => ops.iter().try_for_each(|op| match op {
            AlterOp::RenameTable(to) => table(to),
            AlterOp::AddColumn { col, .. } | AlterOp::ChangeColumn { col, .. } => column(&col.name),
            AlterOp::RenameColumn { new, .. } => column(new),
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
}

/// `USING BTREE` / `USING HASH` before or after a key's parts: the
/// algorithm, in capitals as SHOW CREATE TABLE shows it.
fn index_type(c: &mut TokenCursor<'_>) -> Result<Option<String>, SqlError> {
    if c.eat_kw("USING") {
        return Ok(Some(c.ident()?.to_ascii_uppercase()));
    }
    Ok(None)
}

/// `(col [(len)] [ASC|DESC], ...)`
fn key_parts(c: &mut TokenCursor<'_>) -> Result<(Vec<String>, Vec<Option<u64>>), SqlError> {
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

/// Index options after the key parts; returns the COMMENT and the
/// algorithm (`USING HASH`) if one is named.
fn index_options(c: &mut TokenCursor<'_>) -> Result<(String, Option<String>), SqlError> {
    let mut comment = String::new();
    let mut using = None;
    loop {
        if c.is_kw("USING") {
            using = index_type(c)?;
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
            return Ok((comment, using));
        }
    }
}

fn create_table(c: &mut TokenCursor<'_>, temporary: bool) -> Result<Ddl, SqlError> {
    let if_not_exists = c.eat_kws(&["IF", "NOT", "EXISTS"]);
    let table = c.qualified()?;
    if c.eat_kw("LIKE") {
        let like = c.qualified()?;
        return Ok(Ddl::CreateTable { temporary, if_not_exists, def: Box::new(empty_def(&table.1)), table, auto_increment: None, like: Some(like), select: None });
    }
    if c.is_op("(") && c.peek_at(1).is_some_and(|t| t.is_kw("LIKE")) {
        c.next();
        c.next();
        let like = c.qualified()?;
        c.expect_op(")")?;
        return Ok(Ddl::CreateTable { temporary, if_not_exists, def: Box::new(empty_def(&table.1)), table, auto_increment: None, like: Some(like), select: None });
    }
    let mut def = empty_def(&table.1);
    let mut inline_pk: Vec<String> = Vec::new();
    let mut inline_unique: Vec<String> = Vec::new();
    // `(SELECT ...)` is a query in parentheses, not column definitions.
    let elements = c.is_op("(") && !c.peek_at(1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_op("("));
    if elements {
        c.expect_op("(")?;
        loop {
            table_element(c, &mut def, &mut inline_pk, &mut inline_unique)?;
            if !c.eat_op(",") {
                break;
            }
        }
        c.expect_op(")")?;
    }
    let opts = table_options(c)?;
    if c.is_kw("PARTITION") {
        return Err(SqlError::unsupported("partitioned tables"));
    }
    let select = ctas_select(c)?;
    if select.is_none() && !elements {
        return Err(c.error().into());
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
        def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique: true, columns: vec![u], prefix: vec![None], comment: String::new(), fulltext: false, using: None });
    }
    drop_covered_fk_indexes(&mut def);
    if matches!(def.engine.to_ascii_lowercase().as_str(), "myisam" | "aria" | "memory" | "heap" | "csv" | "archive" | "blackhole") {
        // Engines without foreign keys: MariaDB parses the clause and
        // keeps only its index.
        def.foreign_keys.clear();
    }
    if select.is_none() {
        finish_def(&mut def)?;
    }
    Ok(Ddl::CreateTable { temporary, if_not_exists, table, def: Box::new(def), auto_increment: opts.auto_increment, like: None, select })
}

/// `[IGNORE | REPLACE] [AS] select` at the end of CREATE TABLE: the rest of
/// the statement (less a final `;`) is the query.
fn ctas_select(c: &mut TokenCursor<'_>) -> Result<Option<Box<Ctas>>, SqlError> {
    let on_duplicate = if c.eat_kw("IGNORE") {
        Some(false)
    } else if c.eat_kw("REPLACE") {
        Some(true)
    } else {
        None
    };
    let as_ = c.eat_kw("AS");
    if c.at_end() {
        return if on_duplicate.is_some() || as_ { Err(c.error().into()) } else { Ok(None) };
    }
    if !(c.is_kw("SELECT") || c.is_kw("WITH") || c.is_kw("TABLE") || c.is_kw("VALUES") || c.is_op("(")) {
        return if on_duplicate.is_some() || as_ { Err(c.error().into()) } else { Ok(None) };
    }
    let start = c.pos;
    let mut end = c.toks.len();
    if c.toks[end - 1].is_op(";") {
        end -= 1;
    }
    super::view_parser::refuse_second_statement(c, start, end)?;
    let (start, end) = super::view_parser::unwrap_parens(c, start, end);
    let select = c.sql[c.toks[start].start..c.toks[end - 1].end].to_string();
    c.pos = c.toks.len();
    Ok(Some(Box::new(Ctas { select, on_duplicate })))
}

fn table_element(c: &mut TokenCursor<'_>, def: &mut TableDef, inline_pk: &mut Vec<String>, inline_unique: &mut Vec<String>) -> Result<(), SqlError> {
    let mut constraint_name: Option<String> = None;
    if c.eat_kw("CONSTRAINT") && !(c.is_kw("PRIMARY") || c.is_kw("UNIQUE") || c.is_kw("FOREIGN") || c.is_kw("CHECK")) {
        constraint_name = Some(c.ident()?);
    }
    if c.eat_kw("PRIMARY") {
        c.expect_kw("KEY")?;
        let using = index_type(c)?;
        let (cols, prefix) = key_parts(c)?;
        let (_, using_after) = index_options(c)?;
        if !def.primary.is_empty() {
            return Err(SqlError::new(1068, "42000", "Multiple primary key defined"));
        }
        super::definition::check_key_prefixes(def, &cols, &prefix, true)?;
        def.primary = cols;
        def.primary_using = using_after.or(using);
        return Ok(());
    }
    if c.is_kw("UNIQUE") || c.is_kw("KEY") || c.is_kw("INDEX") || c.is_kw("FULLTEXT") {
        let unique = c.eat_kw("UNIQUE");
        let fulltext = !unique && c.eat_kw("FULLTEXT");
        let _ = c.eat_kw("KEY") || c.eat_kw("INDEX");
        let name = if c.is_op("(") || c.is_kw("USING") { None } else { Some(c.ident()?) };
        if name.as_deref() == Some("") {
            return Err(SqlError::new(1280, "42000", "Incorrect index name ''"));
        }
        let using = index_type(c)?;
        let (cols, prefix) = key_parts(c)?;
        let (comment, using_after) = index_options(c)?;
        let using = using_after.or(using);
        let name = name.or(constraint_name).unwrap_or_else(|| unique_index_name(def, &cols[0]));
        def.indexes.push(IndexDef { name, sqlite_name: String::new(), unique, columns: cols, prefix, comment, fulltext, using });
        return Ok(());
    }
    if c.is_kw("SPATIAL") {
        return Err(SqlError::unsupported("SPATIAL indexes"));
    }
    if c.eat_kw("FOREIGN") {
        c.expect_kw("KEY")?;
        let idx_name = if c.is_op("(") { None } else { Some(c.ident()?) };
        let given = constraint_name.clone().or(idx_name.clone());
        let fk = foreign_key(c, constraint_name.or(idx_name), def)?;
        foreign_key_index(def, &fk.columns, given);
        def.foreign_keys.push(fk);
        return Ok(());
    }
    if c.eat_kw("CHECK") {
        def.checks.push(check_constraint(c, constraint_name, def)?);
        return Ok(());
    }
    // `t1.a INT`, `db.t1.a INT`: a column named with its table (MariaDB's
    // grammar), which must be the table created.
    let mut qualifiers = Vec::new();
    while qualifiers.len() < 2 && c.peek_at(1).is_some_and(|t| t.is_op(".")) {
        qualifiers.push(c.ident()?);
        c.next();
    }
    if let Some(t) = qualifiers.last().filter(|t| **t != def.name) {
        return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", t)));
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

/// `CHECK (expr)` after `[CONSTRAINT [name]]`: unnamed, MariaDB's
/// `CONSTRAINT_<n>` (n counts the table's unnamed ones).
fn check_constraint(c: &mut TokenCursor<'_>, name: Option<String>, def: &TableDef) -> Result<CheckDef, SqlError> {
    let name = name.unwrap_or_else(|| super::definition::unnamed_check(def));
    let text = c.skip_group()?;
    let clause = super::expr_text::accept(text, super::expr_text::Clause::Check, &name)?;
    Ok(CheckDef { name, clause })
}

/// MariaDB gives a foreign key's columns an index when no key starts with
/// them (checked again once all keys are read: `drop_covered_fk_indexes`),
/// named as the constraint or else as its first column.
fn foreign_key_index(def: &mut TableDef, cols: &[String], name: Option<String>) {
    let Some(first) = cols.first() else { return };
    let name = name.unwrap_or_else(|| unique_index_name(def, first));
    def.indexes.push(IndexDef {
        name: format!("\0fk:{}", name),
        sqlite_name: String::new(),
        unique: false,
        columns: cols.to_vec(),
        prefix: vec![None; cols.len()],
        comment: String::new(),
        fulltext: false,
        using: None,
    });
}

/// The foreign keys' own indexes (named `\0fk:` by `foreign_key_index`)
/// are kept only where no other key (the primary key included) starts with
/// the same columns, then named as MariaDB names them.
fn drop_covered_fk_indexes(def: &mut TableDef) {
    let starts_with = |key: &[String], cols: &[String]| key.len() >= cols.len() && key.iter().zip(cols).all(|(k, c)| k.eq_ignore_ascii_case(c));
    let keys: Vec<Vec<String>> = std::iter::once(def.primary.clone()).chain(def.indexes.iter().filter(|i| !i.name.starts_with("\0fk:")).map(|i| i.columns.clone())).collect();
    let mut kept: Vec<Vec<String>> = Vec::new();
    def.indexes.retain(|i| {
        if !i.name.starts_with("\0fk:") {
            return true;
        }
        let covered = keys.iter().chain(kept.iter()).any(|k| starts_with(k, &i.columns));
        if !covered {
            kept.push(i.columns.clone());
        }
        !covered
    });
    for i in def.indexes.iter_mut() {
        if let Some(n) = i.name.strip_prefix("\0fk:") {
            i.name = n.to_string();
        }
    }
}

fn foreign_key(c: &mut TokenCursor<'_>, name: Option<String>, def: &TableDef) -> Result<ForeignKey, SqlError> {
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
                return Err(c.error().into());
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

struct TableOptions {
    engine: Option<String>,
    collation: Option<String>,
    comment: Option<String>,
    auto_increment: Option<u64>,
}

fn table_options(c: &mut TokenCursor<'_>) -> Result<TableOptions, SqlError> {
    let mut o = TableOptions { engine: None, collation: None, comment: None, auto_increment: None };
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
            o.collation = Some(canonical_collation(&c.ident()?));
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
                _ => return Err(c.error().into()),
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

fn position(c: &mut TokenCursor<'_>) -> Result<Position, SqlError> {
    if c.eat_kw("FIRST") {
        Ok(Position::First)
    } else if c.eat_kw("AFTER") {
        Ok(Position::After(c.ident()?))
    } else {
        Ok(Position::Last)
    }
}

/// One ALTER TABLE operation; under MariaDB's `IF [NOT] EXISTS` the
/// operations it parsed to are wrapped in `AlterOp::Guarded`.
fn alter_op(c: &mut TokenCursor<'_>, ops: &mut Vec<AlterOp>) -> Result<(), SqlError> {
    let start = ops.len();
    let mut guarded = false;
    alter_op_unguarded(c, ops, &mut guarded)?;
    if guarded {
        let parsed: Vec<AlterOp> = ops.drain(start..).collect();
        ops.extend(parsed.into_iter().map(|op| AlterOp::Guarded(Box::new(op))));
    }
    Ok(())
}

/// `IF NOT EXISTS` (an ADD) or `IF EXISTS` (the others) here: eaten, and
/// `guarded` set.
fn eat_guard(c: &mut TokenCursor<'_>, adding: bool, guarded: &mut bool) {
    let seen = if adding { c.eat_kws(&["IF", "NOT", "EXISTS"]) } else { c.eat_kws(&["IF", "EXISTS"]) };
    *guarded |= seen;
}

fn alter_op_unguarded(c: &mut TokenCursor<'_>, ops: &mut Vec<AlterOp>, guarded: &mut bool) -> Result<(), SqlError> {
    if c.eat_kw("ADD") {
        let mut constraint_name = None;
        if c.eat_kw("CONSTRAINT") && !(c.is_kw("PRIMARY") || c.is_kw("UNIQUE") || c.is_kw("FOREIGN") || c.is_kw("CHECK")) {
            eat_guard(c, true, guarded);
            constraint_name = Some(c.ident()?);
        }
        if c.eat_kw("CHECK") {
            let text = c.skip_group()?;
            let clause = super::expr_text::accept(text, super::expr_text::Clause::Check, constraint_name.as_deref().unwrap_or("CONSTRAINT"))?;
            ops.push(AlterOp::AddCheck { name: constraint_name, clause });
            return Ok(());
        }
        if c.eat_kw("PRIMARY") {
            c.expect_kw("KEY")?;
            eat_guard(c, true, guarded);
            index_type(c)?;
            let (cols, prefix) = key_parts(c)?;
            index_options(c)?;
            ops.push(AlterOp::AddPrimary(cols, prefix));
            return Ok(());
        }
        if c.is_kw("UNIQUE") || c.is_kw("INDEX") || c.is_kw("KEY") || c.is_kw("FULLTEXT") {
            let unique = c.eat_kw("UNIQUE");
            let fulltext = !unique && c.eat_kw("FULLTEXT");
            let _ = c.eat_kw("INDEX") || c.eat_kw("KEY");
            eat_guard(c, true, guarded);
            let name = if c.is_op("(") || c.is_kw("USING") { None } else { Some(c.ident()?) };
            if name.as_deref() == Some("") {
                return Err(SqlError::new(1280, "42000", "Incorrect index name ''"));
            }
            if name.as_deref() == Some("") {
                return Err(SqlError::new(1280, "42000", "Incorrect index name ''"));
            }
            let using = index_type(c)?;
            let (cols, prefix) = key_parts(c)?;
            let (comment, using_after) = index_options(c)?;
            let using = using_after.or(using);
            let name = name.or(constraint_name).unwrap_or_default();
            ops.push(AlterOp::AddIndex(IndexDef { name, sqlite_name: String::new(), unique, columns: cols, prefix, comment, fulltext, using }));
            return Ok(());
        }
        if c.is_kw("SPATIAL") {
            return Err(SqlError::unsupported("SPATIAL indexes"));
        }
        if c.eat_kw("FOREIGN") {
            c.expect_kw("KEY")?;
            eat_guard(c, true, guarded);
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
        eat_guard(c, true, guarded);
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
            eat_guard(c, false, guarded);
            ops.push(AlterOp::DropIndex(c.ident()?));
        } else if c.eat_kw("FOREIGN") {
            c.expect_kw("KEY")?;
            eat_guard(c, false, guarded);
            ops.push(AlterOp::DropForeignKey(c.ident()?));
        } else if c.eat_kw("CHECK") || c.eat_kw("CONSTRAINT") {
            eat_guard(c, false, guarded);
            ops.push(AlterOp::DropCheck(c.ident()?));
        } else {
            c.eat_kw("COLUMN");
            eat_guard(c, false, guarded);
            ops.push(AlterOp::DropColumn(c.ident()?));
        }
        return Ok(());
    }
    if c.eat_kw("MODIFY") {
        c.eat_kw("COLUMN");
        eat_guard(c, false, guarded);
        let (col, primary, unique) = column_def(c)?;
        let position = position(c)?;
        ops.push(AlterOp::ChangeColumn { old: col.name.clone(), col, position, primary, unique });
        return Ok(());
    }
    if c.eat_kw("CHANGE") {
        c.eat_kw("COLUMN");
        eat_guard(c, false, guarded);
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
            let d = default_value(c, &col)?;
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
            eat_guard(c, false, guarded);
            let old = c.ident()?;
            c.expect_kw("TO")?;
            let new = c.ident()?;
            ops.push(AlterOp::RenameColumn { old, new });
        } else if c.eat_kw("INDEX") || c.eat_kw("KEY") {
            eat_guard(c, false, guarded);
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
            coll = canonical_collation(&c.ident()?);
        }
        ops.push(AlterOp::ConvertTo(coll));
        return Ok(());
    }
    if c.eat_kw("ALGORITHM") {
        c.eat_op("=");
        if c.ident()?.eq_ignore_ascii_case("COPY") {
            ops.push(AlterOp::CopyAlgorithm);
        }
        return Ok(());
    }
    if c.eat_kw("LOCK") {
        c.eat_op("=");
        c.ident()?;
        return Ok(());
    }
    if c.eat_kw("FORCE") {
        ops.push(AlterOp::Force);
        return Ok(());
    }
    if c.eat_kw("ENABLE") && c.eat_kw("KEYS") || c.eat_kw("DISABLE") && c.eat_kw("KEYS") {
        ops.push(AlterOp::Keys);
        return Ok(());
    }
    if c.eat_kw("ORDER") {
        c.expect_kw("BY")?;
        let mut cols = Vec::new();
        loop {
            let mut name = c.ident()?;
            // `t1.id` (and `db.t1.id`): the table's own column.
            while c.eat_op(".") {
                name = c.ident()?;
            }
            let desc = c.eat_kw("DESC");
            if !desc {
                c.eat_kw("ASC");
            }
            cols.push((name, desc));
            // A comma then a new operation (MariaDB takes ORDER BY last).
            let op_next = c.peek_at(1).is_some_and(|t| ["ADD", "DROP", "MODIFY", "CHANGE", "ALTER", "RENAME", "ALGORITHM", "LOCK", "FORCE", "ENGINE"].iter().any(|k| t.is_kw(k)));
            if !c.is_op(",") || op_next {
                break;
            }
            c.next();
        }
        ops.push(AlterOp::OrderBy(cols));
        return Ok(());
    }
    if c.is_kw("PARTITION") || c.is_kw("ADD") {
        return Err(SqlError::unsupported("partitioned tables"));
    }
    let before = c.pos;
    let o = table_options(c)?;
    if c.pos == before {
        return Err(c.error().into());
    }
    ops.push(AlterOp::Options { engine: o.engine, collation: o.collation, comment: o.comment, auto_increment: o.auto_increment });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddl::generate::sqlite_triggers;
    use crate::ddl::parse_create_table;

    #[test]
    fn many_types_and_keys() {
        let d = parse_create_table(
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
        assert_eq!(parse("CREATE TABLE t (a INT, SPATIAL KEY (a))").unwrap_err().code, 1235);
        assert_eq!(parse("CREATE TABLE t (a INT, FULLTEXT KEY (a))").unwrap_err().code, 1283);
        assert!(matches!(parse("CREATE TABLE t AS SELECT 1").unwrap(), Some(Ddl::CreateTable { select: Some(_), .. })));
        assert_eq!(parse("CREATE TABLE t AS SELECT 1; DROP TABLE x").unwrap_err().code, 1064);
        assert_eq!(parse("CREATE TABLE t (a INT NOT NULL DEFAULT 1 AUTO_INCREMENT KEY)").unwrap_err().code, 1067);
    }

    #[test]
    fn key_prefixes_names_and_order() {
        for sql in
            ["CREATE TABLE t (a INT, KEY (a(20)))", "CREATE TABLE t (a CHAR(1), PRIMARY KEY (a(255)))", "CREATE TABLE t (a TIMESTAMP, UNIQUE (a(1)))", "CREATE TABLE t (a VARCHAR(5), KEY (a(6)))"]
        {
            assert_eq!(parse(sql).unwrap_err().code, 1089, "{}", sql);
        }
        assert_eq!(parse("CREATE TABLE t (a TEXT NOT NULL, PRIMARY KEY (a(1000)))").unwrap_err().code, 1071);
        let d = parse_create_table("CREATE TABLE t (`primary` INT, b VARCHAR(5), c INT, d INT NOT NULL, KEY (`primary`), KEY (b(5)), UNIQUE (c), UNIQUE (d))");
        let names: Vec<&str> = d.indexes.iter().map(|i| i.name.as_str()).collect();
        // UNIQUE first (NOT NULL before nullable), then the others as declared.
        assert_eq!(names, ["d", "c", "primary_2", "b"]);
        // A prefix as long as the column is the column.
        assert_eq!(d.indexes[3].prefix, [None]);
    }

    #[test]
    fn names_checked() {
        assert!(parse("CREATE TABLE t1 (t1.a INT, test.t1.b INT)").is_ok());
        assert_eq!(parse("CREATE TABLE t1 (t2.a INT)").unwrap_err().code, 1103);
        for sql in ["CREATE TABLE `t1 ` (a INT)", "DROP TABLE IF EXISTS ``", "ALTER TABLE t1 RENAME TO ``", "RENAME TABLE t1 TO `t2 `"] {
            assert_eq!(parse(sql).unwrap_err().code, 1103, "{}", sql);
        }
        for sql in ["CREATE TABLE t1 (`a ` INT)", "CREATE TABLE t1 (`` INT)", "ALTER TABLE t1 ADD `b ` INT", "ALTER TABLE t1 RENAME COLUMN a TO ``"] {
            assert_eq!(parse(sql).unwrap_err().code, 1166, "{}", sql);
        }
        assert_eq!(parse("CREATE TABLE t1 (i INT, INDEX `` (i))").unwrap_err().code, 1280);
    }

    #[test]
    fn auto_increment_drops_default_null() {
        // MariaDB keeps no default for it, NOT NULL or not.
        for sql in ["CREATE TABLE t (a INT NOT NULL DEFAULT NULL AUTO_INCREMENT PRIMARY KEY)", "CREATE TABLE t (a INT AUTO_INCREMENT DEFAULT NULL KEY)"] {
            let d = parse_create_table(sql);
            assert!(d.column("a").unwrap().default.is_none(), "{}", sql);
        }
    }
}
