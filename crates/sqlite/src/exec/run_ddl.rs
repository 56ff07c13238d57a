//! Running DDL: CREATE/DROP TABLE, CREATE/DROP INDEX, ALTER, RENAME and
//! TRUNCATE, parsed by ddl.rs and checked for privileges before anything is
//! resolved.
//!
//! DDL commits the open transaction first (MySQL's implicit commit), then runs
//! in its own SQLite transaction together with the definition in
//! `turnstile_meta`; the shared schema and the engine epoch are then updated,
//! which makes every connection re-translate statements that depend on it.
//!
//! Also here: a table's SQLite objects and its MySQL definition stored in
//! `turnstile_meta` (or the connection's TEMPORARY tables), which ALTER TABLE
//! (alter_table.rs) uses too.

use super::alter_table::altered;
use super::views;
use super::SqliteSession;
use crate::ddl::{self, AlterOp, Ddl, Name};
use crate::schema::{sq_ident, sq_str, IndexDef, TableDef, META_TABLE};
use crate::{errors, Db};
use std::collections::HashMap;
use std::sync::Arc;
use turnstile_engine::catalog::Catalog;
use turnstile_engine::{privs, Access, Done, EngineSession, ExecContext, Level, Outcome, SqlError};

impl SqliteSession {
    /// Resolve a table name to (SQLite schema name, MySQL db, shared Db or None for TEMPORARY).
    pub(super) fn target(&mut self, name: &Name, temporary: bool) -> Result<(String, String, Option<Arc<Db>>), SqlError> {
        let home_or_none = name.0.is_none() || name.0 == self.db;
        if temporary || (home_or_none && self.conn.as_ref().is_some_and(|c| c.temp.table(&name.1).is_some())) {
            let home = self.db.clone().ok_or_else(SqlError::no_database)?;
            return Ok(("temp".into(), home, None));
        }
        let dbname = match &name.0 {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or_else(SqlError::no_database)?,
        };
        if Catalog::is_system(&dbname) {
            return Err(SqlError::db_access_denied("", "", &dbname));
        }
        let d = self.inner.db(&dbname)?;
        let conn = self.conn.as_mut().expect("conn");
        if conn.home.as_ref().is_some_and(|h| Arc::ptr_eq(h, &d)) {
            return Ok(("main".into(), dbname, Some(d)));
        }
        conn.attach(&d)?;
        Ok((dbname.clone(), dbname, Some(d)))
    }

    pub(super) fn def_of(&self, schema: &str, table: &str) -> Option<Arc<TableDef>> {
        self.conn.as_ref().and_then(|c| c.table_def(schema, table))
    }

    pub(super) fn ddl(&mut self, ctx: &ExecContext<'_>, sql: &str) -> Result<Outcome, SqlError> {
        let replacing = super::or_replace::strip(sql);
        let sql = replacing.as_deref().unwrap_or(sql);
        let stmt = match ddl::parse(sql)? {
            Some(s) => s,
            None => {
                let kw = turnstile_sqltext::scan::first_keyword(sql);
                let what = sql.split_whitespace().take(2).collect::<Vec<_>>().join(" ").to_ascii_uppercase();
                return Err(if kw == "CREATE" || kw == "DROP" || kw == "ALTER" { SqlError::unsupported(&what) } else { SqlError::syntax(sql) });
            }
        };
        // A dump of `mysql` (mariadb-dump --all-databases) creates the log
        // tables IF NOT EXISTS: they exist (show::log_table), a note.
        if let Ddl::CreateTable { if_not_exists: true, table, .. } = &stmt {
            if table.0.as_deref().or(self.shown_db()).is_some_and(|d| crate::show::log_table(d, &table.1).is_some()) {
                return Ok(Outcome::Done(Done { warnings: 1, ..Default::default() }));
            }
        }
        if replacing.is_some() {
            self.replace_table(ctx, &stmt)?;
        }
        if let Ddl::CreateTable { select: Some(ctas), .. } = &stmt {
            let ctas = (**ctas).clone();
            if self.txn.is_some() {
                self.commit(ctx)?;
            }
            return self.create_table_select(ctx, stmt, &ctas);
        }
        self.run_ddl(ctx, stmt)
    }

    /// Run a parsed DDL statement (CREATE TABLE ... SELECT runs its CREATE
    /// and its DROP on failure through here too).
    pub(super) fn run_ddl(&mut self, ctx: &ExecContext<'_>, stmt: Ddl) -> Result<Outcome, SqlError> {
        // MySQL commits the open transaction before DDL.
        if self.txn.is_some() {
            self.commit(ctx)?;
        }
        // DDL runs as an autocommit statement: a read-only session may
        // create and drop only temporary tables (as MySQL).
        let temporary = matches!(&stmt, Ddl::CreateTable { temporary: true, .. } | Ddl::DropTable { temporary: true, .. });
        if self.read_only && !temporary {
            return Err(super::txn::read_only_transaction());
        }
        if let Ddl::CreateView { view: (Some(vdb), _), .. } = &stmt {
            if self.db.as_deref() != Some(vdb.as_str()) && self.view_caller_db.is_none() {
                return self.create_view_elsewhere(ctx, stmt);
            }
        }
        self.ensure_conn()?;
        self.check_ddl(&stmt, ctx.access)?;
        // A view's query is compiled (and its databases attached) before the
        // DDL transaction.
        let view = match &stmt {
            Ddl::CreateView { or_replace, alter, view, def } => Some(self.prepare_view(ctx, view, def, *or_replace || *alter)?),
            _ => None,
        };
        // Before the schema changes as well as after (the guard, also on an
        // early return): a statement compiled meanwhile must not be
        // recompiled by SQLite on its own (authorize.rs).
        let inner = self.inner.clone();
        let change = inner.begin_schema_change();
        let first = match &stmt {
            Ddl::CreateTable { table, .. } | Ddl::CreateIndex { table, .. } | Ddl::DropIndex { table, .. } | Ddl::Alter { table, .. } | Ddl::Truncate { table } => table.clone(),
            Ddl::DropTable { tables, .. } => tables[0].clone(),
            Ddl::CreateView { view, .. } => view.clone(),
            Ddl::DropView { views, .. } => views[0].clone(),
            Ddl::Rename { pairs, .. } => pairs[0].0.clone(),
        };
        let (schema, dbname, db) = self.target(&first, temporary)?;
        let locks = match &db {
            Some(d) => self.lock_dbs(std::slice::from_ref(d), &[], ctx)?,
            None => Vec::new(),
        };
        let conn = self.conn.as_ref().expect("conn");
        let fk_off = matches!(&stmt, Ddl::Alter { .. });
        if fk_off {
            let _ = conn.exec("PRAGMA foreign_keys=OFF");
        }
        conn.begin_call(ctx, self.lock_wait);
        // An error MariaDB reports for a statement whose other work stays
        // done (DROP TABLE t1, missing: t1 is dropped, then 1051).
        let mut after_commit: Option<SqlError> = None;
        let begin = conn.exec("BEGIN IMMEDIATE");
        let result = match begin {
            Ok(()) => {
                let r = match (&stmt, view) {
                    (Ddl::CreateView { or_replace, alter, view, .. }, Some((def, create))) => self.create_view(ctx, (*or_replace, *alter), view, &schema, &dbname, def, &create),
                    (Ddl::DropTable { if_exists, tables, temporary }, _) => self.drop_tables(ctx, *if_exists, tables, *temporary).map(|(out, e)| {
                        after_commit = e;
                        out
                    }),
                    // The views that exist are dropped, then 4092 names the others (MariaDB).
                    (Ddl::DropView { if_exists, views }, _) => self.drop_views(ctx, *if_exists, views).map(|(out, e)| {
                        after_commit = e;
                        out
                    }),
                    _ => self.ddl_body(ctx, &stmt, &schema, &dbname, db.as_ref()),
                };
                let conn = self.conn.as_ref().expect("conn");
                match r {
                    Ok(out) => match conn.exec("COMMIT") {
                        Ok(()) => Ok(out),
                        Err(e) => {
                            let _ = conn.exec("ROLLBACK");
                            Err(e)
                        }
                    },
                    Err(e) => {
                        let _ = conn.exec("ROLLBACK");
                        Err(e)
                    }
                }
            }
            Err(e) => Err(e),
        };
        let conn = self.conn.as_mut().expect("conn");
        conn.end_call();
        if fk_off && !self.fk_off {
            // Back on only when the session has them on: ALTER TABLE ...
            // DISABLE KEYS, which every dump sends, must not turn on the
            // checks a dump's SET FOREIGN_KEY_CHECKS=0 turned off.
            let _ = conn.exec("PRAGMA foreign_keys=ON");
        }
        // Refresh the shared definitions (also after a failure: harmless).
        if let Some(d) = &db {
            if let Ok(s) = crate::load_schema(&conn.db, &schema) {
                d.set_schema(s);
            }
        }
        conn.temp_version += 1;
        conn.cache.clear();
        drop(change);
        self.release_locks(&locks);
        if result.is_ok() {
            self.durable(&locks, ctx)?;
        }
        match after_commit {
            Some(e) if result.is_ok() => Err(e),
            _ => result,
        }
    }

    /// DROP TABLE: each table on its own, as MariaDB does. A table missing
    /// is 1051 (a note with IF EXISTS), a parent another table's foreign key
    /// still names is 1451 (unless foreign_key_checks=0), a view is kept;
    /// the others are dropped all the same, and the error (if any) is
    /// returned beside the outcome to be reported after the commit.
    fn drop_tables(&mut self, ctx: &ExecContext<'_>, if_exists: bool, tables: &[Name], temporary: bool) -> Result<(Outcome, Option<SqlError>), SqlError> {
        let mut missing = Vec::new();
        let mut error = None;
        let mut dropped: Vec<(String, String)> = Vec::new();
        for t in tables {
            // DROP TEMPORARY TABLE drops only the session's own temporary
            // tables (an unknown one is 1051), never a real table of the
            // same name.
            let (s, dbn, _) = self.target(t, temporary)?;
            match self.def_of(&s, &t.1) {
                Some(d) if d.view.is_some() => {
                    // Kept; with IF EXISTS a note (a dump's DROP TABLE IF
                    // EXISTS before its placeholder view).
                    let e = views::is_a_view(t.0.as_deref().unwrap_or(&dbn), &d.name);
                    if !if_exists {
                        return Err(e);
                    }
                    ctx.note(e.code, e.message);
                }
                Some(d) if !self.fk_off && self.referenced_by_other(&s, &d.name, &dropped) => {
                    error = Some(SqlError::new(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails"));
                }
                Some(d) => {
                    self.conn().exec(&format!("DROP TABLE {}.{}", sq_ident(&s), sq_ident(&d.name)))?;
                    self.remove_def(&s, s == "temp", &d.name)?;
                    dropped.push((s.clone(), d.name.to_ascii_lowercase()));
                }
                None => missing.push(format!("{}.{}", t.0.as_deref().unwrap_or(&dbn), t.1)),
            }
        }
        if !missing.is_empty() {
            let unknown = format!("Unknown table '{}'", missing.join(","));
            if !if_exists {
                return Ok((Outcome::Done(Done::default()), Some(SqlError::new(1051, "42S02", unknown))));
            }
            ctx.note(1051, unknown);
        }
        Ok((Outcome::Done(Done::default()), error))
    }

    /// Does a foreign key of another table of `schema` (one not dropped
    /// yet: `dropped`, by schema and lowercased name) name `table` as its
    /// parent?
    fn referenced_by_other(&self, schema: &str, table: &str, dropped: &[(String, String)]) -> bool {
        let Some(conn) = self.conn.as_ref() else { return false };
        let defs: Vec<Arc<TableDef>> = match schema {
            "temp" => conn.temp.tables.values().cloned().collect(),
            "main" => conn.home.as_ref().map(|h| h.schema().tables.values().cloned().collect()).unwrap_or_default(),
            other => conn.attached.iter().find(|a| a.name == other).map(|a| a.schema().tables.values().cloned().collect()).unwrap_or_default(),
        };
        let gone = |name: &str| dropped.iter().any(|(s, n)| s == schema && *n == name.to_ascii_lowercase());
        defs.iter().any(|d| !d.name.eq_ignore_ascii_case(table) && !gone(&d.name) && d.foreign_keys.iter().any(|fk| fk.ref_table.eq_ignore_ascii_case(table)))
    }

    /// The privileges a DDL statement needs on each table it names (as
    /// MariaDB 10.11 asks: ALTER TABLE needs ALTER; a rename also DROP on the
    /// old name and CREATE and INSERT on the new; indexes INDEX; foreign keys
    /// REFERENCES on the parent), checked before anything is resolved or
    /// opened, so a database the account may not see is not revealed by
    /// "unknown database". The session's own TEMPORARY tables need none.
    pub(super) fn check_ddl(&self, stmt: &Ddl, access: &dyn Access) -> Result<(), SqlError> {
        let temp = |n: &Name| (n.0.is_none() || n.0 == self.db) && self.conn.as_ref().is_some_and(|c| c.temp.table(&n.1).is_some());
        let check = |n: &Name, bits: u32| -> Result<(), SqlError> {
            let db = n.0.as_deref().or(self.db.as_deref()).ok_or_else(SqlError::no_database)?;
            access.check_table(db, &n.1, bits)
        };
        // A parent table lives in the child's database: another database's
        // is refused (not silently taken for a table of the child's own).
        let parent = |child: &Name, fk: &crate::schema::ForeignKey| -> Result<(), SqlError> {
            let own = child.0.as_deref().or(self.db.as_deref());
            if let Some(other) = fk.ref_db.as_deref().filter(|d| Some(*d) != own) {
                check(&(Some(other.to_string()), fk.ref_table.clone()), privs::REFERENCES)?;
                return Err(SqlError::unsupported("foreign keys to a table of another database"));
            }
            check(&(child.0.clone(), fk.ref_table.clone()), privs::REFERENCES)
        };
        match stmt {
            Ddl::CreateTable { temporary, table, like, def, .. } => {
                check(table, if *temporary { privs::CREATE_TMP_TABLE } else { privs::CREATE })?;
                def.foreign_keys.iter().try_for_each(|fk| parent(table, fk))?;
                match like {
                    Some(src) if !temp(src) => check(src, privs::SELECT),
                    _ => Ok(()),
                }
            }
            Ddl::DropTable { temporary, tables, .. } => {
                // A system schema's table is refused before anything is
                // dropped (MariaDB's 1044; a temporary table dropped first
                // would be dropped in SQLite but kept by the rollback).
                if let Some(d) = tables.iter().filter(|t| !*temporary && !temp(t)).find_map(|t| t.0.as_deref().filter(|d| Catalog::is_system(d))) {
                    let (u, h) = access.who();
                    return Err(SqlError::db_access_denied(u, h, d));
                }
                tables.iter().filter(|t| !*temporary && !temp(t)).try_for_each(|t| check(t, privs::DROP))
            }
            Ddl::Truncate { table } if !temp(table) => check(table, privs::DROP),
            Ddl::CreateIndex { table, .. } | Ddl::DropIndex { table, .. } if !temp(table) => check(table, privs::INDEX),
            Ddl::Alter { table, ops, .. } if !temp(table) => {
                check(table, privs::ALTER)?;
                for op in ops {
                    match op.inner() {
                        AlterOp::RenameTable(to) => {
                            check(table, privs::DROP)?;
                            check(&(to.0.clone().or_else(|| table.0.clone()), to.1.clone()), privs::CREATE | privs::INSERT)?;
                        }
                        AlterOp::AddForeignKey(fk) => parent(table, fk)?,
                        _ => {}
                    }
                }
                Ok(())
            }
            Ddl::Rename { pairs, .. } => pairs.iter().filter(|(from, _)| !temp(from)).try_for_each(|(from, to)| {
                check(from, privs::ALTER | privs::DROP)?;
                check(to, privs::CREATE | privs::INSERT)
            }),
            Ddl::Truncate { .. } | Ddl::DropIndex { .. } | Ddl::CreateIndex { .. } | Ddl::Alter { .. } => Ok(()),
            // prepare_view checks CREATE (and DROP) and the query's SELECTs.
            Ddl::CreateView { .. } => Ok(()),
            Ddl::DropView { views, .. } => views.iter().try_for_each(|v| check(v, privs::DROP)),
        }
    }

    fn ddl_body(&mut self, ctx: &ExecContext<'_>, stmt: &Ddl, schema: &str, dbname: &str, db: Option<&Arc<Db>>) -> Result<Outcome, SqlError> {
        let temp = db.is_none();
        let ok = |warnings: u16| Ok(Outcome::Done(Done { warnings, ..Default::default() }));
        match stmt {
            Ddl::CreateTable { if_not_exists, table, def, auto_increment, like, .. } => {
                if table.1.eq_ignore_ascii_case(META_TABLE) || table.1.eq_ignore_ascii_case(super::routines::ROUTINES_TABLE) || table.1.starts_with("sqlite_") || table.1.starts_with("ts_rebuild_") {
                    return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", table.1)));
                }
                if table.1.len() > 64 || table.1.is_empty() {
                    return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", table.1)));
                }
                if self.def_of(schema, &table.1).is_some() || self.sqlite_object_exists(schema, &table.1)? {
                    let exists = format!("Table '{}' already exists", table.1);
                    if *if_not_exists {
                        ctx.note(1050, exists);
                        return ok(0);
                    }
                    return Err(SqlError::new(1050, "42S01", exists));
                }
                let mut def: TableDef = match like {
                    Some(src) => {
                        let (s2, _, _) = self.target(src, false).or_else(|_| self.target(src, true))?;
                        let d = self.def_of(&s2, &src.1).ok_or_else(|| errors::no_such_table(src.0.as_deref().unwrap_or(dbname), &src.1))?;
                        let mut d = (*d).clone();
                        if d.view.take().is_some() {
                            d.engine = "InnoDB".into();
                        }
                        d.name = table.1.clone();
                        d.created = ddl::empty_def("").created;
                        d
                    }
                    None => (**def).clone(),
                };
                for ix in def.indexes.iter_mut() {
                    ix.sqlite_name.clear();
                }
                self.create_objects(&mut def, schema)?;
                if let Some(ai) = auto_increment.filter(|v| *v > 1) {
                    if def.auto_increment_column().is_some() {
                        self.conn().exec(&format!("INSERT INTO {}.sqlite_sequence(name, seq) VALUES ({}, {})", sq_ident(schema), sq_str(&def.name), ai - 1))?;
                    }
                }
                self.save_def(schema, temp, &def)?;
                // MariaDB's Note for each YEAR column declared with a width other than 4.
                for (code, message) in def.columns.iter().filter_map(|c| c.year_note()) {
                    ctx.note(code, message);
                }
                ok(0)
            }
            Ddl::DropTable { .. } => Err(SqlError::internal("DROP TABLE runs through drop_tables")),
            Ddl::Truncate { table } => {
                let d = self.def_of(schema, &table.1).filter(|d| d.view.is_none()).ok_or_else(|| errors::no_such_table(dbname, &table.1))?;
                let conn = self.conn();
                conn.exec(&format!("DELETE FROM {}.{}", sq_ident(schema), sq_ident(&d.name)))?;
                if d.auto_increment_column().is_some() {
                    conn.exec(&format!("DELETE FROM {}.sqlite_sequence WHERE name = {}", sq_ident(schema), sq_str(&d.name)))?;
                }
                ok(0)
            }
            Ddl::CreateIndex { table, index, if_not_exists } => {
                let d = self.base_table(schema, dbname, &table.1)?;
                if *if_not_exists && d.indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(&index.name)) {
                    ctx.note(1061, format!("Duplicate key name '{}'", index.name));
                    return Ok(super::alter_table::altered_warned(0, 1));
                }
                let mut nd = (*d).clone();
                nd.indexes.push(index.clone());
                ddl::finish_def(&mut nd)?;
                let ix = nd.indexes.last_mut().expect("pushed");
                self.create_index(&d, ix, schema)?;
                self.save_def(schema, temp, &nd)?;
                Ok(altered(0))
            }
            Ddl::DropIndex { table, name, if_exists } => {
                let d = self.base_table(schema, dbname, &table.1)?;
                let op = AlterOp::DropIndex(name.clone());
                let op = if *if_exists { AlterOp::Guarded(Box::new(op)) } else { op };
                self.alter(ctx, (schema, temp, dbname), &d, &[op])
            }
            Ddl::Alter { if_exists, table, ops } => {
                let d = match self.base_table(schema, dbname, &table.1) {
                    Err(e) if *if_exists && e.code == 1146 => {
                        // MariaDB raises it at the Error level and answers OK.
                        if let Some(w) = ctx.warnings() {
                            w.push(Level::Error, e.code, e.message);
                        }
                        return ok(1);
                    }
                    d => d?,
                };
                self.alter(ctx, (schema, temp, dbname), &d, ops)
            }
            Ddl::Rename { if_exists, pairs } => self.rename_tables(ctx, *if_exists, pairs),
            Ddl::DropView { if_exists, views } => self.drop_views(ctx, *if_exists, views).and_then(|(out, e)| e.map_or(Ok(out), Err)),
            Ddl::CreateView { .. } => Err(SqlError::internal("CREATE VIEW not prepared")),
        }
    }

    /// RENAME TABLE a TO b, c TO d, ...: in order, each seeing the ones
    /// before it (`t1 TO tmp, t2 TO t1, tmp TO t2` swaps two tables). The
    /// catalog is read again only after the statement commits, so the
    /// renames made so far are kept in `moved` (lower-case name -> the
    /// table now there, or None where it left).
    fn rename_tables(&mut self, ctx: &ExecContext<'_>, if_exists: bool, pairs: &[(Name, Name)]) -> Result<Outcome, SqlError> {
        let mut moved: HashMap<(String, String), Option<Arc<TableDef>>> = HashMap::new();
        for (from, to) in pairs {
            let (s1, db1, _) = self.target(from, false)?;
            let (s2, db2, _) = self.target(to, false)?;
            let key = |s: &str, t: &str| (s.to_string(), t.to_ascii_lowercase());
            let now = |this: &Self, s: &str, t: &str| moved.get(&key(s, t)).cloned().unwrap_or_else(|| this.def_of(s, t));
            if db1 != db2 {
                if now(self, &s1, &from.1).is_some_and(|d| d.view.is_some()) {
                    return Err(SqlError::new(1450, "HY000", format!("Changing schema from '{}' to '{}' is not allowed", db1, db2)));
                }
                return Err(SqlError::unsupported("RENAME TABLE across databases"));
            }
            let Some(d) = now(self, &s1, &from.1) else {
                let e = errors::no_such_table(&db1, &from.1);
                if if_exists {
                    ctx.note(e.code, e.message);
                    continue;
                }
                return Err(e);
            };
            if now(self, &s2, &to.1).is_some() {
                return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", to.1)));
            }
            if d.view.is_some() {
                self.rename_view(&s1, &d, &to.1)?;
            } else {
                self.rename_table(&s1, s1 == "temp", &d, &to.1)?;
            }
            let mut arrived = (*d).clone();
            arrived.name = to.1.clone();
            moved.insert(key(&s1, &from.1), None);
            moved.insert(key(&s2, &to.1), Some(Arc::new(arrived)));
        }
        Ok(Outcome::Done(Done::default()))
    }

    /// A table's definition for DDL that needs a base table: a view is 1347.
    fn base_table(&self, schema: &str, dbname: &str, name: &str) -> Result<Arc<TableDef>, SqlError> {
        match self.def_of(schema, name) {
            Some(d) if d.view.is_some() => Err(views::not_base_table(dbname, &d.name)),
            Some(d) => Ok(d),
            None => Err(errors::no_such_table(dbname, name)),
        }
    }

    /// CREATE VIEW / ALTER VIEW inside the DDL transaction: `prepared` is
    /// what `prepare_view` made of it.
    #[allow(clippy::too_many_arguments)]
    fn create_view(&mut self, ctx: &ExecContext<'_>, (or_replace, alter): (bool, bool), view: &Name, schema: &str, dbname: &str, def: TableDef, create: &str) -> Result<Outcome, SqlError> {
        let _ = ctx;
        if view.1.len() > 64
            || view.1.is_empty()
            || view.1.eq_ignore_ascii_case(META_TABLE)
            || view.1.eq_ignore_ascii_case(super::routines::ROUTINES_TABLE)
            || view.1.starts_with("sqlite_")
            || view.1.starts_with("ts_rebuild_")
        {
            return Err(SqlError::new(1103, "42000", format!("Incorrect table name '{}'", view.1)));
        }
        match self.def_of(schema, &view.1) {
            Some(old) if old.view.is_some() && (or_replace || alter) => {
                self.conn().exec(&format!("DROP VIEW {}.{}", sq_ident(schema), sq_ident(&old.name)))?;
                self.remove_def(schema, false, &old.name)?;
            }
            Some(old) if alter => return Err(SqlError::new(1347, "HY000", format!("'{}.{}' is not of type 'VIEW'", dbname, old.name))),
            Some(old) => return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", old.name))),
            None if alter => return Err(errors::no_such_table(dbname, &view.1)),
            None if self.sqlite_object_exists(schema, &view.1)? => return Err(SqlError::new(1050, "42S01", format!("Table '{}' already exists", view.1))),
            None => {}
        }
        // One statement, never a batch (see view_parser::refuse_second_statement).
        let conn = self.conn();
        conn.db.execute(create, []).map_err(|e| errors::from_rusqlite(conn, &e, create))?;
        self.save_def(schema, false, &def)?;
        Ok(Outcome::Done(Done::default()))
    }

    /// DROP VIEW: the outcome, and the 4092 for the views missing (reported
    /// after the others are dropped).
    fn drop_views(&mut self, ctx: &ExecContext<'_>, if_exists: bool, views: &[Name]) -> Result<(Outcome, Option<SqlError>), SqlError> {
        let mut missing = Vec::new();
        for v in views {
            let (s, dbn, _) = self.target(v, false)?;
            match self.def_of(&s, &v.1) {
                Some(d) if d.view.is_some() => {
                    self.conn().exec(&format!("DROP VIEW {}.{}", sq_ident(&s), sq_ident(&d.name)))?;
                    self.remove_def(&s, false, &d.name)?;
                }
                _ => missing.push(format!("{}.{}", v.0.as_deref().unwrap_or(&dbn), v.1)),
            }
        }
        if !missing.is_empty() {
            let e = views::unknown_view(&missing.join(","));
            if !if_exists {
                return Ok((Outcome::Done(Done::default()), Some(e)));
            }
            ctx.note(e.code, e.message);
        }
        Ok((Outcome::Done(Done::default()), None))
    }

    fn sqlite_object_exists(&self, schema: &str, name: &str) -> Result<bool, SqlError> {
        let conn = self.conn.as_ref().expect("conn");
        let sql = format!("SELECT count(*) FROM {}.sqlite_master WHERE type IN ('table','view') AND name = ?1 COLLATE NOCASE", sq_ident(schema));
        conn.db.query_row(&sql, [name], |r| r.get::<_, i64>(0)).map(|n| n > 0).map_err(|e| errors::from_rusqlite(conn, &e, &sql))
    }

    pub(super) fn create_index(&mut self, def: &TableDef, ix: &mut IndexDef, schema: &str) -> Result<(), SqlError> {
        if ix.sqlite_name.is_empty() {
            let conn = self.conn.as_ref().expect("conn");
            let base = format!("{}_{}", def.name, ix.name);
            let mut name = base.clone();
            let mut n = 1;
            loop {
                let sql = format!("SELECT count(*) FROM {}.sqlite_master WHERE name = ?1 COLLATE NOCASE", sq_ident(schema));
                let exists: i64 = conn.db.query_row(&sql, [&name], |r| r.get(0)).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
                if exists == 0 {
                    break;
                }
                n += 1;
                name = format!("{}_{}", base, n);
            }
            ix.sqlite_name = name;
        }
        let sql = ddl::sqlite_create_index(def, ix, schema);
        self.conn().exec(&sql)
    }

    /// CREATE TABLE + indexes + triggers for a definition (index names assigned).
    fn create_objects(&mut self, def: &mut TableDef, schema: &str) -> Result<(), SqlError> {
        let sql = ddl::sqlite_create_table(def, schema, &def.name);
        self.conn().exec(&sql).map_err(|e| match e.code {
            // Only a CHECK (or an expression default) names columns here.
            1054 => SqlError::new(1054, "42S22", format!("{} in 'CHECK'", e.message.split(" in '").next().unwrap_or(&e.message))),
            1305 => unknown_function_in_definition(def, e),
            _ => e,
        })?;
        self.check_expression_defaults(def, schema)?;
        let snapshot = def.clone();
        for ix in def.indexes.iter_mut() {
            self.create_index(&snapshot, ix, schema)?;
        }
        for t in ddl::sqlite_triggers(def, schema) {
            self.conn().exec(&t)?;
        }
        Ok(())
    }

    /// An expression default calling a function the engine does not know (or
    /// a stored function) is refused when the table is created, as MariaDB
    /// refuses it (1901); SQLite would only fail when a row takes the
    /// default. Each default is compiled once against the new table.
    fn check_expression_defaults(&self, def: &TableDef, schema: &str) -> Result<(), SqlError> {
        for col in &def.columns {
            let Some(crate::schema::Default_::Expr(e)) = &col.default else { continue };
            let Ok(expr) = crate::rewrite::expression(e) else { continue };
            let sql = format!("SELECT ({}) FROM {}.{}", expr, sq_ident(schema), sq_ident(&def.name));
            let Err(err) = self.conn.as_ref().expect("conn").prepare(&sql, e) else { continue };
            if err.code != 1305 {
                continue;
            }
            let name = err.message.trim_end_matches(" does not exist").rsplit('.').next().unwrap_or("").to_string();
            return Err(SqlError::new(1901, "HY000", format!("Function or expression '`{}`()' cannot be used in the DEFAULT clause of {}", name, crate::schema::quote_ident(&col.name))));
        }
        Ok(())
    }

    pub(super) fn save_def(&mut self, schema: &str, temp: bool, def: &TableDef) -> Result<(), SqlError> {
        let conn = self.conn.as_mut().expect("conn");
        if temp {
            conn.temp.tables.insert(def.name.to_ascii_lowercase(), Arc::new(def.clone()));
            return Ok(());
        }
        let json = serde_json::to_string(def).map_err(|e| SqlError::internal(e.to_string()))?;
        let sql = format!("INSERT OR REPLACE INTO {}.{}(name, def) VALUES (?1, ?2)", sq_ident(schema), META_TABLE);
        conn.db.execute(&sql, rusqlite::params![def.name.to_ascii_lowercase(), json]).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
        Ok(())
    }

    pub(super) fn remove_def(&mut self, schema: &str, temp: bool, name: &str) -> Result<(), SqlError> {
        let conn = self.conn.as_mut().expect("conn");
        if temp {
            conn.temp.tables.remove(&name.to_ascii_lowercase());
            return Ok(());
        }
        let sql = format!("DELETE FROM {}.{} WHERE name = ?1", sq_ident(schema), META_TABLE);
        conn.db.execute(&sql, [name.to_ascii_lowercase()]).map_err(|e| errors::from_rusqlite(conn, &e, &sql))?;
        Ok(())
    }

    /// RENAME TABLE of a view: SQLite renames no view, so its SQLite
    /// definition is made again under the new name (views over it keep
    /// naming the old one, as MariaDB's do).
    fn rename_view(&mut self, schema: &str, def: &TableDef, to: &str) -> Result<(), SqlError> {
        let stored: String = {
            let q = format!("SELECT sql FROM {}.sqlite_master WHERE type = 'view' AND name = ?1", sq_ident(schema));
            let conn = self.conn();
            conn.db.query_row(&q, [&def.name], |r| r.get(0)).map_err(|e| errors::from_rusqlite(conn, &e, &q))?
        };
        // `CREATE VIEW "name"...`, as SQLite keeps it: the body after the name.
        let rest = stored.strip_prefix("CREATE VIEW ").and_then(after_sqlite_ident).ok_or_else(|| SqlError::internal("a view's stored definition"))?;
        self.conn().exec(&format!("DROP VIEW {}.{}", sq_ident(schema), sq_ident(&def.name)))?;
        self.conn().exec(&format!("CREATE VIEW {}.{}{}", sq_ident(schema), sq_ident(to), rest))?;
        self.remove_def(schema, false, &def.name)?;
        let mut nd = def.clone();
        nd.name = to.to_string();
        self.save_def(schema, false, &nd)
    }

    pub(super) fn rename_table(&mut self, schema: &str, temp: bool, def: &TableDef, to: &str) -> Result<(), SqlError> {
        // The table's own triggers name it in their bodies, which a legacy
        // rename leaves alone: made again for the new name below.
        for col in def.columns.iter().filter(|c| c.on_update_now) {
            self.conn().exec(&format!("DROP TRIGGER IF EXISTS {}.{}", sq_ident(schema), sq_ident(&format!("ts_onupdate:{}:{}", def.name, col.name))))?;
        }
        self.conn().rename_legacy(schema, &def.name, to)?;
        let mut renamed = def.clone();
        renamed.name = to.to_string();
        for t in ddl::sqlite_triggers(&renamed, schema) {
            self.conn().exec(&t)?;
        }
        let conn = self.conn();
        if def.auto_increment_column().is_some() {
            let _ = conn.exec(&format!("UPDATE {}.sqlite_sequence SET name = {} WHERE name = {}", sq_ident(schema), sq_str(to), sq_str(&def.name)));
        }
        self.remove_def(schema, temp, &def.name)?;
        let mut nd = def.clone();
        nd.name = to.to_string();
        self.save_def(schema, temp, &nd)
    }
}

/// The text after the SQLite identifier that opens `s` (`"a""b"`, `[a]`,
/// `` `a` `` or a bare word).
/// SQLite's "no such function" (1305) for a generated column or a CHECK
/// constraint: MariaDB's 1901 naming the clause and the column or
/// constraint that calls it (an unknown or stored function is refused there).
fn unknown_function_in_definition(def: &TableDef, e: SqlError) -> SqlError {
    let name = e.message.trim_end_matches(" does not exist").rsplit('.').next().unwrap_or("").to_string();
    let calls = |text: &str| {
        let t = text.to_ascii_lowercase();
        let n = name.to_ascii_lowercase();
        t.contains(&format!("{}(", n)) || t.contains(&format!("`{}`(", n))
    };
    let owner = def.columns.iter().find(|c| c.generated.as_ref().is_some_and(|g| calls(&g.expr))).map(|c| ("GENERATED ALWAYS AS", c.name.clone()));
    let owner = owner.or_else(|| def.columns.iter().find(|c| c.check.as_deref().is_some_and(calls)).map(|c| ("CHECK", c.name.clone())));
    let owner = owner.or_else(|| def.checks.iter().find(|c| calls(&c.clause)).map(|c| ("CHECK", c.name.clone())));
    match owner {
        Some((clause, who)) => SqlError::new(1901, "HY000", format!("Function or expression '`{}`()' cannot be used in the {} clause of {}", name, clause, crate::schema::quote_ident(&who))),
        None => e,
    }
}

fn after_sqlite_ident(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let close = match b.first()? {
        b'"' => b'"',
        b'`' => b'`',
        b'[' => b']',
        _ => return Some(&s[s.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))?..]),
    };
    let mut i = 1;
    while i < b.len() {
        if b[i] == close {
            if close != b']' && b.get(i + 1) == Some(&close) {
                i += 2;
                continue;
            }
            return Some(&s[i + 1..]);
        }
        i += 1;
    }
    None
}
