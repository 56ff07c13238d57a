//! Views (CREATE/ALTER/DROP VIEW) and CREATE TABLE ... SELECT: both start
//! from a query's result columns, worked out by compiling the query as the
//! session's own SELECT (so it is translated by the same rewrite and checked
//! for the same privileges as any query).
//!
//! Views are SQLite views underneath, not MySQL text expanded into each
//! query: SQLite then resolves a view in joins, subqueries and CTEs as any
//! table, its authorizer reports the tables a view reads to authorize.rs
//! (every reader needs SELECT on them, as on the view), and origin metadata
//! (`sqlite3_column_table_name`) leads through the view to the table column,
//! so a view's result columns carry MySQL types. The price, documented in
//! docs/compatibility.md: a SQLite view in a database file may name only that
//! file's tables, so a view reads only tables and views of its own database
//! (made with that database current: `create_view_elsewhere`), and the view's body is translated once, when it is
//! created. Its MySQL text, options and result columns are kept in
//! `turnstile_meta` as a `TableDef` with `view` set, so SHOW, DESCRIBE and
//! information_schema list it beside tables.
//!
//! A view whose query reads information_schema (attached per connection,
//! so no view of a database file may name it) is the exception: it is kept
//! as its MySQL text (`ViewDef::expand`) beside a placeholder SQLite view of
//! its columns, and each statement reading it reads the text as a derived
//! table (view_expand.rs).
//!
//! Limits (no setting: MariaDB's own constants): a view nests at most
//! `MAX_VIEW_DEPTH` views (64, MariaDB's limit on nested SELECTs, ERR 1473)
//! and expands to at most `MAX_VIEW_TABLES` table references (1116), so
//! neither SQLite's recursion nor its compile time grows without bound.

use super::SqliteSession;
use crate::authorize;
use crate::conn::Conn;
use crate::ddl::{Ctas, Ddl, Name};
use crate::rewrite::Kind;
use crate::schema::{quote_ident, sq_ident, ColumnDef, TableDef, ViewDef};
use rusqlite::ffi;
use turnstile_engine::{privs, Column, DiscardRows, Done, EngineSession, ExecContext, Outcome, SqlError};
use turnstile_sqltext::lex::{self, Tok};
use turnstile_sqltext::types::Base;
use turnstile_wire::consts::{colflag, coltype};

/// Views nested in a view, at most (MariaDB's 64 nested SELECTs).
pub const MAX_VIEW_DEPTH: usize = 64;
/// Table references a view expands to, at most.
pub const MAX_VIEW_TABLES: usize = 1024;
/// Distinct stored functions a view's query calls, at most.
const MAX_VIEW_FUNCTIONS: usize = 64;

/// A query's result, as CREATE VIEW and CREATE TABLE ... SELECT need it.
pub(super) struct Shape {
    pub columns: Vec<ColumnDef>,
    /// Tables and views named, (database, name), as the rewriter found them.
    pub tables: Vec<(Option<String>, String)>,
    /// Other databases named, information_schema read.
    pub other_dbs: bool,
    /// information_schema read (alone or with other databases).
    pub info_schema: bool,
    /// The query as compiled, when select-list aliases named in its
    /// subqueries were written as their values (rewrite/select_alias.rs).
    pub written: Option<String>,
}

impl SqliteSession {
    /// Compile `select` as the session's SELECT (privileges checked) and
    /// describe its result columns. `typed_by_row`: step it once so that an
    /// expression is typed by its first value (CREATE TABLE ... SELECT).
    pub(super) fn query_shape(&mut self, ctx: &ExecContext<'_>, select: &str, typed_by_row: bool, wide: bool) -> Result<Shape, SqlError> {
        self.ensure_conn()?;
        match self.compile(select, Kind::Select, ctx.access) {
            Err(e) if e.code == 1412 => self.compile(select, Kind::Select, ctx.access)?,
            r => r?,
        }
        let conn = self.conn.as_ref().expect("conn");
        let entry = conn.cache.get(select).expect("compiled");
        authorize::check(&entry.needs, ctx.access)?;
        if entry.stmt.param_count() > 0 {
            return Err(SqlError::new(1351, "HY000", "View's SELECT contains a variable or parameter"));
        }
        // Stepped only while no DDL ran since it was compiled (SQLite would
        // recompile it without the checks: authorize.rs), and interruptible
        // (KILL, max_statement_time) like any statement.
        let have_row = typed_by_row && entry.epoch == self.inner.epoch() && {
            conn.begin_call(ctx, self.lock_wait);
            let rc = entry.stmt.step();
            conn.end_call();
            match rc {
                ffi::SQLITE_ROW => true,
                ffi::SQLITE_DONE => false,
                rc => {
                    entry.stmt.reset();
                    return Err(crate::errors::from_conn(conn, rc, select));
                }
            }
        };
        let (meta, _) = super::results::column_meta(conn, entry, select, have_row);
        let st = &entry.stmt;
        // A UNION's column is its members' joined type (results.rs
        // join_members), the first member's table column only where they
        // all have its type (not an ENUM or SET: a VARCHAR); either is NULL
        // as its members may be, and a NOT NULL one has its type's zero as
        // default, as MariaDB makes it.
        let union = entry.members.is_some();
        let mut columns = Vec::with_capacity(meta.cols.len());
        for (i, wire) in meta.cols.iter().enumerate() {
            let origin = match &entry.members {
                Some(members) => super::results::union_origin(members, i),
                None => st.origin(i),
            };
            let from_table = origin.and_then(|(d, t, c)| conn.table_def(&d, &t).and_then(|def| def.column(&c).cloned())).filter(|cd| !union || !matches!(cd.base, Base::Enum | Base::Set));
            let mut cd = match from_table {
                Some(mut cd) => {
                    cd.auto_increment = false;
                    cd
                }
                None => column_of_wire(wire, wide),
            };
            if union {
                cd.nullable = wire.flags & colflag::NOT_NULL == 0;
                cd.on_update_now = false;
                cd.default = if cd.nullable { None } else { zero_default(&cd) };
            }
            cd.name = wire.name.clone();
            columns.push(cd);
        }
        entry.stmt.reset();
        let rw = entry.rw.clone();
        let written = entry.written.as_deref().map(str::to_string);
        Ok(Shape { columns, tables: rw.tables.clone(), other_dbs: !rw.dbs.is_empty() || rw.info_schema, info_schema: rw.info_schema && rw.dbs.is_empty(), written })
    }

    /// A view's query described by `query_shape`, its stored function
    /// calls (which only the front runs) standing as NULLs of their
    /// functions' types (view_calls.rs); with whether it calls any.
    fn view_shape(&mut self, ctx: &ExecContext<'_>, select: &str) -> Result<(Shape, bool), SqlError> {
        // Views it reads that are kept as text written out first (their
        // calls are typed here too).
        let mut typed: Option<String> = turnstile_engine::EngineSession::expand_views(self, select)?.map(|(t, _)| t);
        // Each function standing as a NULL, and each column that is a whole
        // call: (name, the function's declared type).
        let mut seen: Vec<String> = Vec::new();
        let mut items: Vec<(String, String)> = Vec::new();
        loop {
            let text = typed.as_deref().unwrap_or(select);
            let e = match self.query_shape(ctx, text, false, false) {
                Err(e) if e.code == 1305 && seen.len() < MAX_VIEW_FUNCTIONS => e,
                Ok(mut shape) => {
                    // A call that is a whole select item: its function's type.
                    for c in shape.columns.iter_mut() {
                        if let Some((_, returns)) = items.iter().find(|(n, _)| n.eq_ignore_ascii_case(&c.name)) {
                            if let Some(mut cd) = column_of_type(returns) {
                                cd.name = std::mem::take(&mut c.name);
                                *c = cd;
                            }
                        }
                    }
                    return Ok((shape, !seen.is_empty()));
                }
                Err(e) => return Err(e),
            };
            let Some(name) = super::view_calls::missing_function(&e.message).map(str::to_string) else { return Err(e) };
            let home = self.db.clone().ok_or_else(SqlError::no_database)?;
            if seen.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
                return Err(e);
            }
            let row = match self.load_routine(&home, turnstile_engine::RoutineKind::Function, &name)? {
                Some(row) if row.kind == turnstile_engine::RoutineKind::Function => row,
                _ => return Err(e),
            };
            let Some((next, whole)) = super::view_calls::stand_in(text, &name, &row.returns) else { return Err(e) };
            items.extend(whole.into_iter().map(|n| (n, row.returns.clone())));
            seen.push(name);
            typed = Some(next);
        }
    }

    /// CREATE VIEW / ALTER VIEW, checked and translated before the DDL
    /// transaction (compiling may ATTACH, which a transaction forbids):
    /// returns the view's definition and its SQLite CREATE VIEW.
    pub(super) fn prepare_view(&mut self, ctx: &ExecContext<'_>, view: &Name, def: &ViewDef, exists: bool) -> Result<(TableDef, String), SqlError> {
        let home = self.db.clone().ok_or_else(SqlError::no_database)?;
        let db = view.0.clone().unwrap_or_else(|| home.clone());
        ctx.access.check_table(&db, &view.1, privs::CREATE | if exists { privs::DROP } else { 0 })?;
        if db != home {
            return Err(SqlError::unsupported("a view in a database other than the current one"));
        }
        refuse_variables(&def.select)?;
        let (shape, calls) = self.view_shape(ctx, &def.select)?;
        // Reading information_schema (and no other database) or calling
        // stored functions: kept as text and expanded where it is read
        // (view_expand.rs, view_calls.rs).
        let expanded = shape.info_schema || calls;
        if calls && shape.columns.iter().any(|c| c.name.contains("CAST(NULL AS ")) {
            return Err(SqlError::unsupported("a view column computed from a stored function's value without a name (give it an alias)"));
        }
        if shape.other_dbs && !expanded {
            return Err(SqlError::unsupported("views that read another database or information_schema"));
        }
        // Made for a session of another database: an unqualified table is
        // that database's (MariaDB's rule), which the view's file cannot name.
        if let Some(caller) = &self.view_caller_db {
            if shape.tables.iter().any(|(d, _)| d.is_none()) {
                return match caller {
                    None => Err(SqlError::no_database()),
                    Some(_) => Err(SqlError::unsupported("views that read another database or information_schema")),
                };
            }
        }
        let conn = self.conn.as_ref().expect("conn");
        if let Some((_, t)) = shape.tables.iter().find(|(d, t)| d.as_deref().is_none_or(|d| d == home) && conn.temp.table(t).is_some()) {
            return Err(SqlError::new(1352, "HY000", format!("View's SELECT refers to a temporary table '{}'", t)));
        }
        let mut columns = shape.columns;
        let body_names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
        // Names MariaDB makes for repeated generated names (view_dml.rs).
        let mut renamed = false;
        if !def.column_list.is_empty() {
            if def.column_list.len() != columns.len() {
                return Err(SqlError::new(1353, "HY000", "View's SELECT and view's field list have different column counts"));
            }
            for (c, n) in columns.iter_mut().zip(&def.column_list) {
                c.name = n.clone();
            }
        }
        if def.column_list.is_empty() {
            if let Some(explicit) = super::view_dml::explicit_names(&def.select).filter(|e| e.len() == columns.len()) {
                let mut names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                // A generated name no column may have (empty, past 64
                // characters, ending in a space): MariaDB's Name_exp_<n>.
                for (i, n) in names.iter_mut().enumerate() {
                    if !explicit[i] && (n.is_empty() || n.chars().count() > 64 || n.ends_with(' ')) {
                        *n = format!("Name_exp_{}", i + 1);
                    }
                }
                super::view_dml::unique_names(&mut names, &explicit);
                renamed = names.iter().zip(&columns).any(|(n, c)| *n != c.name);
                for (c, n) in columns.iter_mut().zip(names) {
                    c.name = n;
                }
            }
        }
        for (i, c) in columns.iter().enumerate() {
            if columns[..i].iter().any(|p| p.name.eq_ignore_ascii_case(&c.name)) {
                return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", c.name)));
            }
        }
        // Every reference, repeats included: each is expanded again (of an
        // expanded view, those of its own database).
        let names: Vec<String> = shape.tables.iter().filter(|(d, _)| !expanded || d.as_deref().is_none_or(|d| d == home)).map(|(_, t)| t.clone()).collect();
        if shape.tables.iter().any(|(_, t)| t.eq_ignore_ascii_case(&view.1)) {
            return Err(SqlError::new(1146, "42S02", format!("Table '{}.{}' doesn't exist", db, view.1)));
        }
        check_expansion(conn, &names, Some(&view.1))?;
        if def.check_option != "NONE" {
            let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
            let columns_of = |t: &str| conn.table_def("main", t).map(|d| d.columns.iter().map(|c| c.name.clone()).collect());
            if expanded || !super::view_dml::updatable(&def.select, &names, &columns_of) {
                return Err(SqlError::new(1368, "HY000", format!("CHECK OPTION on non-updatable view {}.{}", quote_ident(&db), quote_ident(&view.1))));
            }
        }
        let body = match expanded {
            true => placeholder(&columns),
            false => self.translate_view_body(shape.written.as_deref().unwrap_or(&def.select))?,
        };
        let mut vd = def.clone();
        if expanded {
            let col_names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
            let select = &def.select;
            let qualified = crate::view_expand::qualify(select, &db, &|t| super::compile::defines_cte(select, t))?;
            vd.expand = Some(expansion_text(&qualified, &body_names, &col_names)?);
        }
        if vd.algorithm.is_empty() || vd.security.is_empty() {
            let old = self.conn.as_ref().expect("conn").table_def("main", &view.1).and_then(|t| t.view.clone());
            if vd.algorithm.is_empty() {
                vd.algorithm = old.as_ref().map_or_else(|| "UNDEFINED".to_string(), |o| o.algorithm.clone());
            }
            if vd.security.is_empty() {
                vd.security = old.as_ref().map_or_else(|| "DEFINER".to_string(), |o| o.security.clone());
            }
        }
        vd.names = names;
        let col_names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
        let conn = self.conn.as_ref().expect("conn");
        let columns_of = |t: &str| conn.table_def("main", t).map(|d| d.columns.iter().map(|c| c.name.clone()).collect());
        vd.shown = super::view_text::canonical(&def.select, &col_names, &columns_of);
        vd.client_charset = Some(ctx.access.client_charset()).filter(|c| c.0 != "utf8mb4" || c.1 != "utf8mb4_general_ci");
        if vd.definer.is_empty() {
            let (u, h) = ctx.access.who();
            vd.definer = format!("{}@{}", quote_ident(u), quote_ident(h));
        }
        let mut t = crate::ddl::empty_def(&view.1);
        t.engine = String::new();
        t.columns = columns;
        t.view = Some(Box::new(vd));
        // Column names only when the statement gives them: a `*` then
        // follows its table's columns (MySQL fixes them when the view is made).
        let cols = match def.column_list.is_empty() && !renamed && !expanded {
            true => String::new(),
            false => format!("({})", t.columns.iter().map(|c| sq_ident(&c.name)).collect::<Vec<_>>().join(",")),
        };
        let create = format!("CREATE VIEW main.{}{} AS {}", sq_ident(&view.1), cols, body);
        Ok((t, create))
    }

    /// CREATE VIEW db.v where db is not the current database: made with db
    /// current (a SQLite view names only its own file's tables, so it may
    /// read db's tables, qualified), then the session's database is current
    /// again. Not while the session holds state on its connection
    /// (TEMPORARY tables, a writer connection, a paused result).
    pub(super) fn create_view_elsewhere(&mut self, ctx: &ExecContext<'_>, stmt: Ddl) -> Result<Outcome, SqlError> {
        let Ddl::CreateView { view: (Some(vdb), name), .. } = &stmt else {
            unreachable!("create_view_elsewhere takes CREATE VIEW db.v");
        };
        // Privileges first, as for any view (no database is looked at before).
        ctx.access.check_table(vdb, name, privs::CREATE)?;
        let vdb = vdb.clone();
        if self.txn.is_some() {
            self.commit(ctx)?;
        }
        let holds = self.lent.is_some() || self.paused.is_some() || self.conn.as_ref().is_some_and(|c| !c.temp.tables.is_empty() || !c.autocommit());
        if holds {
            return Err(SqlError::unsupported("a view in a database other than the current one"));
        }
        if turnstile_engine::catalog::Catalog::is_system(&vdb) {
            return Err(SqlError::unsupported("a view in a database other than the current one"));
        }
        let caller = self.shown_db().map(str::to_string);
        self.set_database(Some(&vdb))?;
        self.view_caller_db = Some(caller.clone());
        let r = self.run_ddl(ctx, stmt);
        self.view_caller_db = None;
        let back = self.set_database(caller.as_deref());
        r.and_then(|out| back.map(|_| out))
    }

    /// CREATE TABLE ... SELECT: the table made from the query's columns
    /// (after those the statement defines), then filled by INSERT ... SELECT;
    /// dropped again if the INSERT fails, as MySQL leaves no table behind.
    pub(super) fn create_table_select(&mut self, ctx: &ExecContext<'_>, stmt: Ddl, ctas: &Ctas) -> Result<Outcome, SqlError> {
        let Ddl::CreateTable { temporary, if_not_exists, table, def, auto_increment, .. } = stmt else {
            unreachable!("create_table_select takes CREATE TABLE");
        };
        let db = table.0.clone().or_else(|| self.db.clone()).ok_or_else(SqlError::no_database)?;
        ctx.access.check_table(&db, &table.1, if temporary { privs::CREATE_TMP_TABLE } else { privs::CREATE } | privs::INSERT)?;
        self.ensure_conn()?;
        let exists = {
            let (schema, _, _) = self.target(&table, temporary)?;
            self.def_of(&schema, &table.1).is_some()
        };
        if exists {
            let e = format!("Table '{}' already exists", table.1);
            if if_not_exists {
                ctx.note(1050, e);
                return Ok(Outcome::Done(Done::default()));
            }
            return Err(SqlError::new(1050, "42S01", e));
        }
        // Computed string columns sized by their length as MariaDB's are
        // (VARCHAR(n), ...) where a value too long would be an error (a
        // strict write): should a length fall short of a value (1406), the
        // table is made again with them LONGTEXT. A lenient write, which
        // would cut the value, gets LONGTEXT at once.
        let strict = ctx.sql_mode.strict() && ctas.on_duplicate.is_none();
        let mut wide = !strict;
        loop {
            let shape = self.query_shape(ctx, &ctas.select, true, wide)?;
            let from_select: Vec<String> = shape.columns.iter().map(|c| c.name.clone()).collect();
            let mut def = def.clone();
            def.columns = ctas_columns(std::mem::take(&mut def.columns), shape.columns, &def.collation)?;
            crate::ddl::finish_def(&mut def)?;
            let create = Ddl::CreateTable { temporary, if_not_exists: false, table: table.clone(), def, auto_increment, like: None, select: None };
            self.run_ddl(ctx, create)?;
            let cols: Vec<String> = from_select.iter().map(|n| quote_ident(n)).collect();
            let verb = match ctas.on_duplicate {
                Some(true) => "REPLACE",
                Some(false) => "INSERT IGNORE",
                None => "INSERT",
            };
            let target = format!("{}.{}", quote_ident(&db), quote_ident(&table.1));
            let target = if temporary { quote_ident(&table.1) } else { target };
            let insert = format!("{} INTO {} ({}) {}", verb, target, cols.join(","), ctas.select);
            match self.dml(ctx, &insert, &[], &mut DiscardRows, Kind::Insert) {
                Ok(out) => return Ok(out),
                Err(e) => {
                    let drop = Ddl::DropTable { temporary, if_exists: true, tables: vec![table.clone()] };
                    let _ = self.run_ddl(ctx, drop);
                    if e.code != 1406 || wide {
                        return Err(e);
                    }
                    wide = true;
                }
            }
        }
    }
}

/// A column of the declared type `returns` (a stored function's), NULL
/// allowed; None when it is no type CREATE TABLE takes.
fn column_of_type(returns: &str) -> Option<ColumnDef> {
    match crate::ddl::parse(&format!("CREATE TABLE ts_t (c {})", returns)).ok()?? {
        Ddl::CreateTable { def, .. } => def.columns.into_iter().next().map(|mut c| {
            c.nullable = true;
            c.default = None;
            c
        }),
        _ => None,
    }
}

/// The SQLite view standing for an expanded view: its columns, no rows
/// (nothing reads it: view_expand.rs writes every reference out).
fn placeholder(columns: &[ColumnDef]) -> String {
    let items: Vec<&str> = columns.iter().map(|_| "NULL").collect();
    format!("SELECT {} WHERE 0", items.join(","))
}

/// The MySQL query an expanded view reads as: its SELECT, or, when the view
/// names its columns otherwise than the SELECT does (a column list,
/// generated names), the SELECT's columns renamed around it (by their
/// names, which must then be distinct).
fn expansion_text(select: &str, body: &[String], names: &[String]) -> Result<String, SqlError> {
    if body == names {
        return Ok(select.to_string());
    }
    for (i, n) in body.iter().enumerate() {
        if body[..i].iter().any(|p| p.eq_ignore_ascii_case(n)) {
            return Err(SqlError::unsupported("a view over information_schema renaming repeated column names"));
        }
    }
    let items: Vec<String> = body.iter().zip(names).map(|(b, n)| format!("`ts_view`.{} AS {}", quote_ident(b), quote_ident(n))).collect();
    Ok(format!("SELECT {} FROM ({}) AS `ts_view`", items.join(","), select))
}

/// CREATE TABLE ... SELECT's columns, as MariaDB orders them: the defined
/// columns the query does not return, then the query's columns, each as
/// defined when the statement defines it.
fn ctas_columns(defined: Vec<ColumnDef>, selected: Vec<ColumnDef>, collation: &str) -> Result<Vec<ColumnDef>, SqlError> {
    for (i, c) in selected.iter().enumerate() {
        if selected[..i].iter().any(|p| p.name.eq_ignore_ascii_case(&c.name)) {
            return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", c.name)));
        }
    }
    let named = |c: &ColumnDef| selected.iter().any(|s| s.name.eq_ignore_ascii_case(&c.name));
    let mut out: Vec<ColumnDef> = defined.iter().filter(|c| !named(c)).cloned().collect();
    for mut c in selected {
        match defined.iter().find(|d| d.name.eq_ignore_ascii_case(&c.name)) {
            Some(d) => out.push(d.clone()),
            None => {
                if c.base.is_text() && c.collation.is_none() {
                    c.collation = Some(collation.to_string());
                }
                out.push(c);
            }
        }
    }
    Ok(out)
}

/// `@var` or `?` in a view's SELECT: MySQL's 1351.
fn refuse_variables(select: &str) -> Result<(), SqlError> {
    let toks = lex::tokenize(select).map_err(|e| SqlError::syntax(&select[e.at..]))?;
    if toks.iter().any(|t| matches!(t.tok, Tok::UserVar(_) | Tok::SysVar(..) | Tok::Param)) {
        return Err(SqlError::new(1351, "HY000", "View's SELECT contains a variable or parameter"));
    }
    Ok(())
}

/// The views under `names` (of the connection's current database), walked:
/// too deep (1473) or too wide (1116) is refused; a view that names itself
/// through others is 1462, as MariaDB says on use.
fn check_expansion(conn: &Conn, names: &[String], creating: Option<&str>) -> Result<(), SqlError> {
    let mut tables = 0usize;
    // (name, depth, the views above it), depth first; the view being made
    // is above all of them.
    let top: Vec<String> = creating.map(|c| vec![c.to_string()]).unwrap_or_default();
    let first = 1 + top.len();
    let mut stack: Vec<(String, usize, Vec<String>)> = names.iter().map(|n| (n.clone(), first, top.clone())).collect();
    while let Some((name, depth, path)) = stack.pop() {
        if path.iter().any(|p| p.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(1462, "HY000", format!("`{}` contains view recursion", name)));
        }
        let Some(def) = conn.table_def("main", &name) else {
            tables += 1;
            continue;
        };
        let Some(v) = def.view.as_ref() else {
            tables += 1;
            if tables > MAX_VIEW_TABLES {
                return Err(SqlError::new(1116, "HY000", format!("Too many tables; a view may expand to at most {} table references", MAX_VIEW_TABLES)));
            }
            continue;
        };
        if depth > MAX_VIEW_DEPTH {
            return Err(SqlError::new(1473, "HY000", "Too high level of nesting for select"));
        }
        let mut p = path.clone();
        p.push(name.clone());
        for n in &v.names {
            stack.push((n.clone(), depth + 1, p.clone()));
        }
        if stack.len() > MAX_VIEW_TABLES {
            return Err(SqlError::new(1116, "HY000", format!("Too many tables; a view may expand to at most {} table references", MAX_VIEW_TABLES)));
        }
    }
    Ok(())
}

/// A statement naming views whose expansion is past the limits (a view
/// replaced after views over it were made) is refused before SQLite expands it.
pub(super) fn check_named_views(conn: &Conn, tables: &[(Option<String>, String)]) -> Result<(), SqlError> {
    let home = conn.home.as_ref().map(|h| h.name.as_str());
    let views: Vec<String> = tables
        .iter()
        .filter(|(d, t)| (d.is_none() || d.as_deref() == home) && conn.temp.table(t).is_none() && conn.table_def("main", t).is_some_and(|x| x.view.is_some()))
        .map(|(_, t)| t.clone())
        .collect();
    if views.is_empty() {
        return Ok(());
    }
    check_expansion(conn, &views, None)
}

/// A computed string column's type, as MariaDB's CREATE TABLE ... SELECT
/// makes one from its length: CHAR(n) / BINARY(n) for a fixed one,
/// VARCHAR(n) / VARBINARY(n) up to 512 characters; past that LONGTEXT
/// (LONGBLOB), where MariaDB picks a TEXT type by a length the result
/// metadata here does not always know as MariaDB does.
fn string_of_wire(c: &Column) -> (Base, Option<u64>, Option<u64>) {
    const VARCHAR_MAX_CHARS: u64 = 512;
    let binary = c.charset == 63;
    let per_char: u64 = match c.charset {
        63 | 8 | 47 | 48 | 11 | 65 => 1,
        33 | 83 | 192..=223 => 3,
        _ => 4,
    };
    let chars = u64::from(c.length) / per_char;
    let (fixed, var, long) = if binary { (Base::Binary, Base::VarBinary, Base::LongBlob) } else { (Base::Char, Base::VarChar, Base::LongText) };
    match c.coltype == coltype::STRING {
        true if chars <= 255 => (fixed, Some(chars), None),
        _ if chars <= VARCHAR_MAX_CHARS => (var, Some(chars), None),
        _ => (long, None, None),
    }
}

/// A computed TEXT / BLOB column's type by its length in bytes, as
/// MariaDB picks one (a TINYTEXT column's 1020 bytes make a TEXT).
fn blob_of_wire(c: &Column) -> Base {
    let binary = c.charset == 63;
    match (u64::from(c.length), binary) {
        (0..=255, true) => Base::TinyBlob,
        (0..=255, false) => Base::TinyText,
        (256..=65_535, true) => Base::Blob,
        (256..=65_535, false) => Base::Text,
        (65_536..=16_777_215, true) => Base::MediumBlob,
        (65_536..=16_777_215, false) => Base::MediumText,
        (_, true) => Base::LongBlob,
        (_, false) => Base::LongText,
    }
}

/// The default of a NOT NULL column of a UNION made by CREATE TABLE ...
/// SELECT: its type's zero (`''`, `0`, `0.0`, `'0000-00-00'`); none for
/// TEXT, BLOB and the like.
fn zero_default(cd: &ColumnDef) -> Option<crate::schema::Default_> {
    let zero = match cd.base {
        b if b.is_integer() || matches!(b, Base::Float | Base::Double | Base::Year) => "0".to_string(),
        Base::Decimal => match cd.scale.unwrap_or(0) {
            0 => "0".to_string(),
            s => format!("0.{}", "0".repeat(s as usize)),
        },
        Base::Char | Base::VarChar | Base::Binary | Base::VarBinary => String::new(),
        Base::Date => "0000-00-00".to_string(),
        Base::Time => "00:00:00".to_string(),
        Base::DateTime => "0000-00-00 00:00:00".to_string(),
        _ => return None,
    };
    Some(crate::schema::Default_::Literal(zero))
}

/// A column definition for a computed result column (no table column
/// behind it), from its wire description; `wide`: a string column LONGTEXT
/// (LONGBLOB) whatever its length says.
fn column_of_wire(c: &Column, wide: bool) -> ColumnDef {
    let unsigned = c.flags & colflag::UNSIGNED != 0;
    // An integer keeps its display width (`12` is an INT(2)).
    let width = Some(u64::from(c.length)).filter(|w| (1..=255).contains(w));
    let (base, length, scale) = match c.coltype {
        coltype::TINY => (Base::TinyInt, width, None),
        coltype::SHORT => (Base::SmallInt, width, None),
        coltype::INT24 => (Base::MediumInt, width, None),
        coltype::LONG => (Base::Int, width, None),
        coltype::LONGLONG => (Base::BigInt, width, None),
        coltype::YEAR => (Base::Year, None, None),
        // NULL: MariaDB's BINARY(0).
        coltype::NULL => (Base::Binary, Some(0), None),
        coltype::FLOAT => (Base::Float, None, None),
        coltype::DOUBLE => (Base::Double, None, None),
        coltype::NEWDECIMAL => {
            let s = u64::from(c.decimals).min(u64::from(turnstile_sqltext::decimal::MAX_SCALE));
            let p = (u64::from(c.length).saturating_sub(1 + u64::from(s > 0))).clamp(s.max(1), 65);
            (Base::Decimal, Some(p), Some(s))
        }
        coltype::DATE => (Base::Date, None, None),
        coltype::DATETIME | coltype::TIMESTAMP => (Base::DateTime, Some(u64::from(c.decimals).min(6)).filter(|d| *d > 0), None),
        coltype::TIME => (Base::Time, Some(u64::from(c.decimals).min(6)).filter(|d| *d > 0), None),
        coltype::TINY_BLOB | coltype::BLOB | coltype::MEDIUM_BLOB | coltype::LONG_BLOB if !wide => (blob_of_wire(c), None, None),
        coltype::BLOB if c.charset == 63 => (Base::LongBlob, None, None),
        coltype::VAR_STRING | coltype::STRING if !wide => string_of_wire(c),
        _ if c.charset == 63 && c.coltype != coltype::NULL => (Base::LongBlob, None, None),
        _ => (Base::LongText, None, None),
    };
    let mut cd = ColumnDef::new(String::new(), base);
    cd.length = length;
    cd.scale = scale;
    cd.unsigned = unsigned && base.is_integer();
    cd.nullable = c.flags & colflag::NOT_NULL == 0;
    cd
}

/// The error for a view where a base table is needed (ALTER TABLE, CREATE
/// INDEX): MariaDB's 1347.
pub(super) fn not_base_table(db: &str, name: &str) -> SqlError {
    SqlError::new(1347, "HY000", format!("'{}.{}' is not of type 'BASE TABLE'", db, name))
}

/// DROP TABLE of a view: MariaDB's 1965.
pub(super) fn is_a_view(db: &str, name: &str) -> SqlError {
    SqlError::new(1965, "42S02", format!("'{}.{}' is a view", db, name))
}

/// No such view (DROP VIEW of a table or of nothing): MariaDB's 4092.
pub(super) fn unknown_view(list: &str) -> SqlError {
    SqlError::new(4092, "42S02", format!("Unknown VIEW: '{}'", list))
}
