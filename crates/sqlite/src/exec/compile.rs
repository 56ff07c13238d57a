//! Compiling a DML statement: translated by the rewriter (rewrite.rs), the
//! databases it names attached, compiled by SQLite under the authorizer
//! (authorize.rs), and kept in the connection's statement cache with the
//! privileges it needs. A compile error that would tell an account what exists
//! where it may not look is answered as MySQL answers it.

use super::SqliteSession;
use crate::conn::{Cached, Conn};
use crate::rewrite::{self, Kind, Resolver, Rewritten};
use crate::schema::{sq_ident, TableDef};
use crate::{authorize, errors, show, Inner};
use std::sync::Arc;
use turnstile_engine::catalog::Catalog;
use turnstile_engine::{privs, Access, SqlError, SqlMode};

/// The rewriter's view of the names a statement uses: the connection's
/// databases and TEMPORARY tables, and the catalog's databases; and the
/// session's sql_mode.
struct ConnResolver<'a> {
    conn: &'a Conn,
    inner: &'a Inner,
    sql_mode: SqlMode,
    foreign_key_checks: bool,
    /// False while a view's body is translated (`Resolver::qualify_home`).
    qualify_home: bool,
}

impl Resolver for ConnResolver<'_> {
    fn sql_mode(&self) -> SqlMode {
        self.sql_mode
    }
    fn foreign_key_checks(&self) -> bool {
        self.foreign_key_checks
    }
    fn qualify_home(&self) -> bool {
        self.qualify_home
    }
    fn home(&self) -> Option<&str> {
        self.conn.home.as_ref().map(|h| h.name.as_str())
    }
    fn is_database(&self, name: &str) -> bool {
        !Catalog::is_system(name) && self.inner.catalog.exists(name)
    }
    fn is_temp(&self, name: &str) -> bool {
        self.conn.temp.table(name).is_some()
    }
    fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<TableDef>> {
        match db {
            None => self.conn.temp.table(name).cloned().or_else(|| self.conn.home.as_ref().and_then(|h| h.schema().table(name).cloned())),
            Some(d) if Some(d) == self.home() => self.conn.temp.table(name).cloned().or_else(|| self.conn.home.as_ref().and_then(|h| h.schema().table(name).cloned())),
            Some(d) => {
                if !self.is_database(d) {
                    return None;
                }
                self.inner.db(d).ok().and_then(|x| x.schema().table(name).cloned())
            }
        }
    }
}

/// A compiled statement's stamp: the DDL epoch, the TEMPORARY tables'
/// version and the settings it was translated under (`mode_key`, in the top bits).
fn stamp_of(epoch: u64, temp_version: u64, mode_key: u64) -> u64 {
    debug_assert!(epoch < 1 << 37, "the epoch stays below the mode bits");
    debug_assert!(mode_key < 1 << 7, "seven mode bits");
    ((epoch << 20) ^ temp_version) ^ (mode_key << 57)
}

/// The epoch of a statement compiled while DDL was changing a schema: no
/// epoch equals it, so SQLite may never recompile such a statement on its own.
const UNTRUSTED_EPOCH: u64 = u64::MAX;

/// The session settings a statement's translation depends on, as bits for
/// its stamp: strict or not (lenient writes fit values: rewrite/store.rs),
/// whether a division by zero raises anything (ERROR_FOR_DIVISION_BY_ZERO),
/// how its strings were lexed (NO_BACKSLASH_ESCAPES, the thread's lexing
/// rule), foreign_key_checks (INSERT IGNORE's parent test) and
/// NO_AUTO_VALUE_ON_ZERO (`ts_ai` or `ts_ai_null` around an AUTO_INCREMENT value),
/// NO_ZERO_IN_DATE and NO_ZERO_DATE (a strict date write's `ts_tnorm`). A connection
/// is shared by sessions of any mode: one whose statement was translated
/// under other settings compiles it again.
fn mode_key(mode: SqlMode, fk_off: bool) -> u64 {
    let bits = [
        mode.strict(),
        mode.error_for_division_by_zero(),
        !turnstile_sqltext::lex::backslash_escapes(),
        fk_off,
        mode.no_auto_value_on_zero(),
        mode.has(SqlMode::NO_ZERO_IN_DATE),
        mode.has(SqlMode::NO_ZERO_DATE),
    ];
    bits.iter().enumerate().fold(0, |k, (i, b)| k | (*b as u64) << i)
}

impl SqliteSession {
    pub(super) fn stamp(&self) -> u64 {
        let t = self.conn.as_ref().map_or(0, |c| c.temp_version);
        stamp_of(self.inner.epoch(), t, mode_key(self.sql_mode, self.fk_off))
    }

    /// Find or compile the statement; returns nothing (it stays in the cache).
    pub(super) fn compile(&mut self, sql: &str, kind: Kind, access: &dyn Access) -> Result<(), SqlError> {
        let stamp = self.stamp();
        let conn = self.conn.as_mut().expect("conn");
        if let Some(c) = conn.cache_get(sql) {
            if c.stamp == stamp {
                return Ok(());
            }
            conn.cache.remove(sql);
        }
        let mut entry = self.build(sql, kind, access)?;
        if kind == Kind::Select {
            entry.members = self.union_members(sql, access);
        }
        self.conn.as_mut().expect("conn").cache_put(sql, entry);
        Ok(())
    }

    /// The members of a top-level UNION / INTERSECT / EXCEPT `sql`, each
    /// compiled alone (not kept) and its result columns described; None when
    /// `sql` is no such query or a member does not compile alone. Nothing of
    /// a member's failure reaches the client: the query itself was compiled.
    fn union_members(&mut self, sql: &str, access: &dyn Access) -> Option<Arc<[crate::conn::MemberCols]>> {
        let texts = rewrite::member_texts(sql)?;
        let mut members = Vec::with_capacity(texts.len());
        for text in &texts {
            let entry = self.build(text, Kind::Select, access).ok()?;
            let conn = self.conn.as_ref().expect("conn");
            members.push(super::results::member_columns(conn, &entry, text));
        }
        Some(members.into())
    }

    /// Compile the statement (translated, attached, prepared under the
    /// authorizer) into a cache entry, not yet kept.
    fn build(&mut self, sql: &str, kind: Kind, access: &dyn Access) -> Result<Cached, SqlError> {
        self.build_named(sql, None, kind, access)
    }

    /// `build`; `client`: the client's text and how many times it was
    /// written again, when `sql` is rewrite/select_alias.rs's writing of it
    /// (its result columns keep the client's names).
    fn build_named(&mut self, sql: &str, client: Option<(&str, u8)>, kind: Kind, access: &dyn Access) -> Result<Cached, SqlError> {
        let inner = self.inner.clone();
        // The schema epoch this compile is for, read before anything is
        // resolved: DDL that ends after this point moves the epoch, so SQLite
        // may not recompile the statement on its own later (authorize.rs).
        let epoch = inner.epoch();
        // Read after the epoch: DDL that began before it and is still
        // running shows here; DDL that ended in between moved the epoch.
        let trusted = !inner.schema_change_running();
        let stamp = stamp_of(epoch, self.conn.as_ref().map_or(0, |c| c.temp_version), mode_key(self.sql_mode, self.fk_off));
        let (sql_mode, foreign_key_checks) = (self.sql_mode, !self.fk_off);
        let conn = self.conn.as_mut().expect("conn");
        // Databases dropped since they were attached go away (SQLite would still find them).
        if conn.attached.iter().any(|a| a.dropped()) && conn.autocommit() {
            let gone: Vec<String> = conn.attached.iter().filter(|a| a.dropped()).map(|a| a.name.clone()).collect();
            for g in gone {
                let _ = conn.exec(&format!("DETACH DATABASE {}", sq_ident(&g)));
            }
            conn.attached.retain(|a| !a.dropped());
        }
        // `mysql.user` is read from information_schema (mysql_user.rs).
        let redirected = crate::mysql_user::redirect(sql, false);
        let text = redirected.as_deref().unwrap_or(sql);
        // Views kept as text (over information_schema) read as derived tables.
        let expanded = crate::view_expand::expand(text, &|db, name| expanded_view(conn, &inner, text, db, name))?;
        let text = expanded.as_ref().map_or(text, |e| e.text.as_str());
        let scoped = crate::cte_scope::scope(text, conn.home.as_ref().map(|h| h.name.as_str()))?;
        if let (Some(h), Some(t)) = (&conn.home, scoped.tables.iter().find(|t| conn.temp.table(t).is_none() && conn.table_def("main", t).is_none())) {
            return Err(errors::no_such_table(&h.name, t));
        }
        let text = scoped.text.as_deref().unwrap_or(text);
        let combined = crate::cte_mutual::combine(text);
        let text = combined.as_deref().unwrap_or(text);
        let anchored = crate::cte_anchor::anchors_first(text);
        let text = anchored.as_deref().unwrap_or(text);
        let rw = {
            let resolver = ConnResolver { conn, inner: &inner, sql_mode, foreign_key_checks, qualify_home: true };
            // On the client's text, before cte.rs writes its ts_cte_depth.
            rewrite::refuse_internal_functions(text, &resolver)?;
            rewrite::refuse_misnamed_columns(text)?;
            let translate = |t: &str| match client {
                Some((c, _)) => rewrite::rewrite_as(t, kind, &resolver, c),
                None => rewrite::rewrite(t, kind, &resolver),
            };
            let r = match crate::cte::limit_depth(text) {
                Some(limited) => translate(&limited).map(|rw| Rewritten { cte_limited: true, ..rw }),
                None => translate(text),
            };
            r.map_err(|e| invalid_expanded(expanded.as_ref(), sql, e))?
        };
        // Every reference to a view kept as text was written out above.
        if let Some((_, t)) = rw.tables.iter().find(|(d, t)| expanded_view(conn, &inner, "", d.as_deref(), t).is_some()) {
            return Err(SqlError::unsupported(&format!("this use of the view `{}` over information_schema", t)));
        }
        // After the translation's own refusals (MariaDB's parser finds those first).
        crate::windows::check(text)?;
        for name in &rw.dbs {
            let d = inner.db(name)?;
            conn.attach(&d)?;
        }
        // SQLite would look an unqualified name up in attached databases too;
        // MySQL only in the current one.
        if !conn.attached.is_empty() {
            for (d, t) in &rw.tables {
                if d.is_none() && !rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(t)) && conn.temp.table(t).is_none() && conn.home.as_ref().is_none_or(|h| h.schema().table(t).is_none()) {
                    return Err(match &conn.home {
                        Some(h) => errors::no_such_table(&h.name, t),
                        None => SqlError::no_database(),
                    });
                }
            }
        }
        if rw.info_schema {
            show::attach_info_schema(conn)?;
        }
        super::views::check_named_views(conn, &rw.tables)?;
        let rules = authorize::Rules { ctes: &rw.ctes, info_schema: rw.info_schema };
        conn.refresh_schemas(epoch)?;
        let (stmt, mut needs) = match authorize::compile(conn, &rw.sql, sql, &rules) {
            Ok(c) => c,
            // DDL ran while it compiled: what it read of the schema may be
            // from before and after. Compiled again (1412 is retried once).
            Err(_) if inner.epoch() != epoch => return Err(errors::table_definition_changed()),
            Err(e) => {
                let e = hide_missing_table(conn, &rw, invalid_view(conn, &rw, sql, name_missing_table(conn, &rw, e)), access);
                let e = invalid_expanded(expanded.as_ref(), sql, e);
                // A column no table has may be a select-list alias named in a
                // subquery of the list: written as its item's value (one
                // alias a time, a few at most).
                let tries = client.map_or(0, |(_, n)| n);
                let alias = (tries < MAX_ALIAS_TRIES && e.code == 1054).then(|| unknown_column_name(&e.message)).flatten();
                return match alias.and_then(|c| rewrite::alias_references(sql, c)) {
                    Some(Ok(again)) => self.build_named(&again, Some((client.map_or(sql, |(c, _)| c), tries + 1)), kind, access),
                    Some(Err(forward)) => Err(forward),
                    None => Err(e),
                };
            }
        };
        let stmt = if kind == Kind::Select { in_first_seen_order(conn, stmt, &rw.sql, sql, &rules) } else { stmt };
        needs = named_tables_need_select(conn, &rw, needs);
        if let Some(x) = &expanded {
            needs = expanded_views_need_select(x, needs);
        }
        if let Some(ins) = rw.insert.as_ref().filter(|i| i.replace) {
            // REPLACE deletes the rows it replaces: MySQL asks for DELETE too.
            needs.iter_mut().filter(|n| n.bits & privs::INSERT != 0 && n.table.eq_ignore_ascii_case(&ins.table)).for_each(|n| n.bits |= privs::DELETE);
        }
        if let Some(ins) = rw.insert.as_ref().filter(|i| i.ignore && !i.odku && !i.replace) {
            needs = ignore_needs(needs, ins, &rw);
        }
        if let Some(m) = rw.multi.as_deref() {
            needs = multi_needs(conn, m, needs, &rules, sql)?;
        }
        let writes = !stmt.readonly() || rw.for_update || rw.multi.is_some();
        Ok(Cached {
            stmt,
            rw: Arc::new(rw),
            members: None,
            needs,
            writes,
            meta: None,
            written: client.map(|_| Arc::from(sql)),
            stamp,
            epoch: if trusted { epoch } else { UNTRUSTED_EPOCH },
            last_use: 0,
        })
    }
}

/// A plain UNION compiled to return its rows in the order they are first
/// seen, as MariaDB does (union_order.rs), when its result columns are
/// described as the plain UNION's are; else `stmt` as it is.
fn in_first_seen_order(conn: &Conn, stmt: crate::conn::Stmt, sqlite_sql: &str, original: &str, rules: &authorize::Rules<'_>) -> crate::conn::Stmt {
    let n = stmt.column_count();
    let names: Vec<String> = (0..n).map(|i| stmt.column_name(i)).collect();
    let Some(text) = crate::union_order::first_seen(sqlite_sql, &names) else { return stmt };
    let Ok((ordered, _)) = authorize::compile(conn, &text, original, rules) else { return stmt };
    let same = ordered.column_count() == n
        && ordered.param_count() == stmt.param_count()
        && (0..n).all(|i| ordered.column_name(i) == names[i] && ordered.decltype(i) == stmt.decltype(i) && ordered.origin(i) == stmt.origin(i));
    if same {
        ordered
    } else {
        stmt
    }
}

/// The view kept as text (view_expand.rs) that `db`.`name` names, if any:
/// a TEMPORARY table shadows an unqualified name, and so does a CTE `sql`
/// defines (`name AS (`, `name (columns) AS (`).
pub(super) fn expanded_view(conn: &Conn, inner: &Inner, sql: &str, db: Option<&str>, name: &str) -> Option<crate::view_expand::Found> {
    let home = conn.home.as_ref().map(|h| h.name.as_str());
    let def = match db {
        _ if db.is_none() || db == home => {
            if db.is_none() && conn.temp.table(name).is_some() {
                return None;
            }
            conn.home.as_ref()?.schema().table(name).cloned()?
        }
        Some(d) => {
            if Catalog::is_system(d) || !inner.catalog.exists(d) {
                return None;
            }
            inner.db(d).ok()?.schema().table(name).cloned()?
        }
        None => return None,
    };
    let v = def.view.as_ref()?;
    // Looked at only for a view kept as text (a few per statement): the
    // text is read whole.
    if v.expand.is_none() || (db.is_none() && defines_cte(sql, name)) {
        return None;
    }
    let text = v.expand.clone()?;
    Some(crate::view_expand::Found { db: db.or(home)?.to_string(), name: def.name.clone(), text })
}

/// Does `sql` define a CTE named `name`? (A cheap look: the name followed
/// by AS or a column list, after WITH somewhere.)
pub(super) fn defines_cte(sql: &str, name: &str) -> bool {
    let has_with = sql.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"with"));
    has_with
        && turnstile_sqltext::lex::tokenize(sql).is_ok_and(|toks| {
            toks.windows(3).any(|w| w[0].ident().is_some_and(|n| n.eq_ignore_ascii_case(name)) && ((w[1].is_kw("AS") && w[2].is_op("(")) || w[1].is_op("(")) && !w[0].is_kw("FROM"))
                && toks.iter().any(|t| t.is_kw("WITH"))
        })
}

/// SELECT on each view kept as text that the statement read (written out,
/// SQLite never saw it).
fn expanded_views_need_select(x: &crate::view_expand::Expanded, needs: Box<[authorize::Need]>) -> Box<[authorize::Need]> {
    let mut needs = needs.into_vec();
    for (db, view) in &x.views {
        match needs.iter_mut().find(|n| *n.db == **db && n.table.eq_ignore_ascii_case(view)) {
            Some(n) => n.bits |= privs::SELECT,
            None => needs.push(authorize::Need::new(db, view, privs::SELECT)),
        }
    }
    needs.into_boxed_slice()
}

/// A table, column or function missing in the text of a view kept as text
/// is 1356 naming the (first) view, as for any view (`invalid_view`); what
/// the client's own text names keeps its error.
fn invalid_expanded(x: Option<&crate::view_expand::Expanded>, original: &str, e: SqlError) -> SqlError {
    let Some((db, view)) = x.and_then(|x| x.views.first()) else { return e };
    if !matches!(e.code, 1146 | 1054 | 1305) {
        return e;
    }
    let missing = e.message.split('\'').nth(1).unwrap_or("");
    let missing = missing.rsplit('.').next().unwrap_or(missing);
    let named = turnstile_sqltext::lex::tokenize(original).is_ok_and(|toks| toks.iter().any(|t| t.ident().is_some_and(|w| w.eq_ignore_ascii_case(missing))));
    if missing.is_empty() || named {
        return e;
    }
    SqlError::new(1356, "HY000", format!("View '{}.{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them", db, view))
}

/// Select-list aliases one statement may have written as their items' values.
const MAX_ALIAS_TRIES: u8 = 4;

/// The column an "Unknown column 'c' in '...'" error names, when unqualified.
fn unknown_column_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Unknown column '")?;
    let name = &rest[..rest.rfind("' in '")?];
    (!name.is_empty() && !name.contains('.')).then_some(name)
}

impl SqliteSession {
    /// A view's SELECT as SQLite text with no `main.` in it (a view is
    /// resolved in its own database, under whatever name that is attached).
    /// Compiled by `compile` before, so it translates.
    pub(super) fn translate_view_body(&mut self, sql: &str) -> Result<String, SqlError> {
        let inner = self.inner.clone();
        let (sql_mode, foreign_key_checks) = (self.sql_mode, !self.fk_off);
        let conn = self.conn.as_ref().expect("conn");
        let resolver = ConnResolver { conn, inner: &inner, sql_mode, foreign_key_checks, qualify_home: false };
        // A recursive CTE's depth limit is the running session's setting,
        // which a view's fixed text cannot carry.
        if crate::cte::limit_depth(sql).is_some() {
            return Err(SqlError::unsupported("recursive CTEs in views"));
        }
        Ok(rewrite::rewrite(sql, Kind::Select, &resolver)?.sql)
    }
}

/// A statement refused for touching a table that is not a MySQL table (a
/// table-valued function such as `pragma_table_info` first touches SQLite's
/// own `sqlite_master`): name the table the client wrote.
fn name_missing_table(conn: &Conn, rw: &Rewritten, e: SqlError) -> SqlError {
    if e.code != 1146 {
        return e;
    }
    let home = conn.home.as_ref().map_or("", |h| h.name.as_str());
    let unknown = rw.tables.iter().find(|(db, t)| {
        let cte = rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(t));
        let known = match db.as_deref() {
            None => conn.temp.table(t).is_some() || conn.table_def("main", t).is_some(),
            Some(d) if d == home => conn.table_def("main", t).is_some() || conn.temp.table(t).is_some(),
            Some(d) => conn.table_def(d, t).is_some() || crate::perf_tables::is_system_view_schema(d),
        };
        !cte && !known
    });
    match unknown {
        Some((db, t)) => errors::no_such_table(db.as_deref().unwrap_or(home), t),
        None => e,
    }
}

/// A table, column or function missing inside a view the statement reads
/// (its table dropped, its columns changed) is MariaDB's 1356 naming the
/// view; what the statement's own text names keeps its own error.
fn invalid_view(conn: &Conn, rw: &Rewritten, original: &str, e: SqlError) -> SqlError {
    if !matches!(e.code, 1146 | 1054 | 1305) {
        return e;
    }
    let home = conn.home.as_ref().map_or("", |h| h.name.as_str());
    let view = rw.tables.iter().find(|(d, t)| d.as_deref().is_none_or(|d| d == home) && conn.temp.table(t).is_none() && conn.table_def("main", t).is_some_and(|x| x.view.is_some()));
    let Some((_, v)) = view else { return e };
    let missing = e.message.split('\'').nth(1).unwrap_or("");
    let missing = missing.rsplit('.').next().unwrap_or(missing);
    let named = turnstile_sqltext::lex::tokenize(original).is_ok_and(|toks| toks.iter().any(|t| t.ident().is_some_and(|w| w.eq_ignore_ascii_case(missing))));
    if missing.is_empty() || named {
        return e;
    }
    SqlError::new(1356, "HY000", format!("View '{}.{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them", home, v))
}

/// Every table the statement names, other than what it writes, needs SELECT
/// as in MySQL, even where SQLite reads nothing of it: it drops a LEFT JOIN
/// that cannot change the result (NATURAL LEFT JOIN on a unique key), and
/// success against "doesn't exist" would still tell whether the table exists.
fn named_tables_need_select(conn: &Conn, rw: &Rewritten, needs: Box<[authorize::Need]>) -> Box<[authorize::Need]> {
    let mut needs = needs.into_vec();
    let home = conn.home.as_ref().map(|h| h.name.as_str());
    for (db, table) in &rw.tables {
        let unqualified = db.is_none();
        let Some(db) = db.as_deref().or(home) else { continue };
        let private = db.eq_ignore_ascii_case("information_schema") || (unqualified && conn.temp.table(table).is_some()) || (unqualified && rw.ctes.iter().any(|c| c.eq_ignore_ascii_case(table)));
        if private {
            continue;
        }
        match needs.iter_mut().find(|n| *n.db == *db && n.table.eq_ignore_ascii_case(table)) {
            Some(n) if n.bits & (privs::INSERT | privs::UPDATE | privs::DELETE) != 0 => {}
            Some(n) => n.bits |= privs::SELECT,
            None => needs.push(authorize::Need::new(db, table, privs::SELECT)),
        }
    }
    needs.into_boxed_slice()
}

/// A multi-table UPDATE or DELETE (rewrite/multi_table.rs) asks, as
/// MariaDB's does, for UPDATE (DELETE and SELECT) on each target, SELECT on
/// each table it only reads, and SELECT on an UPDATE's target only when it
/// reads one of the target's columns (learned from its join without the
/// rowids, `probe`) or reads the table otherwise too (another reference, a
/// subquery).
fn multi_needs(conn: &Conn, m: &rewrite::MultiInfo, needs: Box<[authorize::Need]>, rules: &authorize::Rules<'_>, sql: &str) -> Result<Box<[authorize::Need]>, SqlError> {
    let column_reads = if m.update { authorize::compile_reading(conn, &m.probe, sql, rules)?.2 } else { Vec::new() };
    let mut needs = needs.into_vec();
    let home = conn.home.as_ref().map(|h| h.name.as_str());
    let write = if m.update { privs::UPDATE } else { privs::DELETE };
    for t in &m.targets {
        if t.db.is_none() && conn.temp.table(&t.table).is_some() {
            continue;
        }
        let Some(db) = t.db.as_deref().or(home) else { continue };
        let same = |d: &Option<String>, table: &str| table.eq_ignore_ascii_case(&t.table) && d.as_deref().or(home) == Some(db);
        let read = !m.update || column_reads.iter().any(|(d, table)| d == db && table.eq_ignore_ascii_case(&t.table)) || m.reads.iter().any(|(d, table)| same(d, table));
        let bits = write | if read { privs::SELECT } else { 0 };
        // Column-level grants do not cover a multi-table statement's targets.
        match needs.iter_mut().find(|n| *n.db == *db && n.table.eq_ignore_ascii_case(&t.table)) {
            Some(n) => {
                n.bits = bits;
                n.whole |= bits;
            }
            None => needs.push(authorize::Need::new(db, &t.table, bits)),
        }
    }
    Ok(needs.into_boxed_slice())
}

/// INSERT IGNORE asks for INSERT only, as MariaDB's does: its upsert
/// (insert.rs: a duplicate skipped with a warning) never updates the row it
/// meets, and its parent tests read the parents for the foreign keys. So
/// the target keeps INSERT (and SELECT if the statement reads it itself),
/// and a parent the statement does not name needs nothing.
fn ignore_needs(needs: Box<[authorize::Need]>, ins: &rewrite::InsertInfo, rw: &Rewritten) -> Box<[authorize::Need]> {
    let named = |table: &str| rw.tables.iter().filter(|(_, t)| t.eq_ignore_ascii_case(table)).count();
    let mut needs = needs.into_vec();
    needs.retain_mut(|n| {
        if n.table.eq_ignore_ascii_case(&ins.table) && n.bits & privs::INSERT != 0 {
            let reads = if named(&ins.table) > 1 { privs::SELECT } else { 0 };
            n.bits &= privs::INSERT | reads;
            return true;
        }
        named(&n.table) > 0
    });
    needs.into_boxed_slice()
}

/// A statement that fails to compile (a table, a column or a function that
/// does not exist, bad syntax near it) while it names a database where the
/// session lacks the privilege the statement needs is refused as MySQL
/// refuses it, with 1142: MySQL checks privileges before it looks for
/// columns and tables. Otherwise "doesn't exist" against "denied" would tell
/// any account which databases, tables and columns exist.
fn hide_missing_table(conn: &Conn, rw: &Rewritten, e: SqlError, access: &dyn Access) -> SqlError {
    if matches!(e.code, 1142 | 1044) {
        return e;
    }
    let home = conn.home.as_ref().map_or("", |h| h.name.as_str());
    let need_for = |table: &str| -> u32 {
        let target = rw.insert.as_ref().map(|i| i.table.as_str());
        match rw.kind {
            Kind::Insert if target.is_some_and(|t| t.eq_ignore_ascii_case(table)) => privs::INSERT,
            Kind::Update => privs::UPDATE,
            Kind::Delete => privs::DELETE,
            _ => privs::SELECT,
        }
    };
    let other = |db: &str| db != home && !db.eq_ignore_ascii_case("information_schema");
    // The tables it names in other databases (the rewriter saw them).
    for (db, table) in &rw.tables {
        if let Some(db) = db.as_deref().filter(|d| other(d)) {
            if let Err(denied) = access.check_table(db, table, need_for(table)) {
                return denied;
            }
        }
    }
    // A database the rewriter did not know ("Table 'db.table' doesn't exist").
    if e.code == 1146 {
        if let Some((db, table)) = e.message.strip_prefix("Table '").and_then(|m| m.strip_suffix("' doesn't exist")).and_then(|m| m.split_once('.')) {
            if other(db) {
                return access.check_table(db, table, need_for(table)).err().unwrap_or(e);
            }
        }
    }
    e
}
