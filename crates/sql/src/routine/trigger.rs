//! Triggers, as MariaDB 10.11 has them: CREATE [OR REPLACE] [DEFINER=...]
//! TRIGGER [IF NOT EXISTS] [db.]name {BEFORE|AFTER} {INSERT|UPDATE|DELETE}
//! ON tbl FOR EACH ROW [{FOLLOWS|PRECEDES} other] body, DROP TRIGGER, SHOW
//! TRIGGERS, SHOW CREATE TRIGGER. A trigger is a `RoutineRow` of kind
//! TRIGGER in the engine's routine store (engine/routine.rs says which
//! fields hold its table, timing, event and order), so it survives a
//! restart and goes with DROP DATABASE; DROP TABLE drops the table's.
//!
//! Which tables have triggers is kept for the whole process (`Cache`),
//! read from the engine once after start and after every change, so a
//! statement on a table without triggers pays one atomic load while no
//! database has any, and one map lookup otherwise. Firing them is
//! `fire.rs`'s.
//!
//! Privileges: TRIGGER on the table's database to create or drop one, SUPER
//! (an administrator) to name another DEFINER (ERR 1227); the body runs
//! with the definer's privileges.

use super::parse::{self, Stmt};
use crate::front::Call;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use turnstile_engine::{privs, Column, Done, Outcome, RoutineKind, RoutineRow, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};

/// INSERT, UPDATE or DELETE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Insert,
    Update,
    Delete,
}

impl Event {
    pub fn keyword(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
        }
    }
    fn of(word: &str) -> Option<Event> {
        match word.to_ascii_uppercase().as_str() {
            "INSERT" => Some(Event::Insert),
            "UPDATE" => Some(Event::Update),
            "DELETE" => Some(Event::Delete),
            _ => None,
        }
    }
}

/// A stored trigger, its body parsed.
#[derive(Debug)]
pub struct Trigger {
    pub row: RoutineRow,
    pub before: bool,
    pub event: Event,
    pub order: i64,
    pub body: Result<Vec<Stmt>, SqlError>,
}

/// What a CREATE TRIGGER statement says.
#[derive(Debug, Default)]
struct Header {
    or_replace: bool,
    if_not_exists: bool,
    definer: Option<(String, String)>,
    db: Option<String>,
    name: String,
    before: bool,
    event: Option<Event>,
    table_db: Option<String>,
    table: String,
    /// FOLLOWS (true) or PRECEDES (false) another trigger.
    order: Option<(bool, String)>,
    body: String,
    /// From the name to the end, as written (SHOW CREATE TRIGGER).
    tail: String,
}

// ---- the process-wide cache ----------------------------------------------

/// 0: not read yet; 1: no trigger anywhere; 2: some.
static STATE: AtomicU8 = AtomicU8::new(0);
/// Bumped by every change, so a read that raced one is not kept.
static GENERATION: AtomicU64 = AtomicU64::new(0);
/// (db, table) lower-cased → the table's triggers, in firing order.
type Map = HashMap<(String, String), Vec<Arc<Trigger>>>;
static CACHE: Mutex<Option<Map>> = Mutex::new(None);

/// Forget what is cached (a trigger was created or dropped, a table or a
/// database went away); the next statement reads the store again.
pub fn invalidate() {
    GENERATION.fetch_add(1, Ordering::SeqCst);
    STATE.store(0, Ordering::SeqCst);
    *CACHE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// True when no database has a trigger (the statement path's fast test).
pub fn none_anywhere() -> bool {
    STATE.load(Ordering::Relaxed) == 1
}

/// The triggers of `db`.`table`, in firing order (empty: none).
pub fn of_table(call: &mut Call<'_, '_>, db: &str, table: &str) -> Result<Vec<Arc<Trigger>>, SqlError> {
    if STATE.load(Ordering::Acquire) == 0 {
        load(call)?;
    }
    let key = (db.to_ascii_lowercase(), table.to_ascii_lowercase());
    let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    Ok(cache.as_ref().and_then(|m| m.get(&key).cloned()).unwrap_or_default())
}

fn load(call: &mut Call<'_, '_>) -> Result<(), SqlError> {
    let generation = GENERATION.load(Ordering::SeqCst);
    let max_depth = super::setting(call, "routine_max_nesting").max(1) as usize;
    let mut map: Map = HashMap::new();
    for row in call.engine.routine_list()?.into_iter().filter(|r| r.kind == RoutineKind::Trigger) {
        let t = from_row(row, max_depth);
        map.entry((t.row.db.to_ascii_lowercase(), t.row.params.to_ascii_lowercase())).or_default().push(Arc::new(t));
    }
    for v in map.values_mut() {
        v.sort_by(|a, b| (a.order, &a.row.created).cmp(&(b.order, &b.row.created)));
    }
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if GENERATION.load(Ordering::SeqCst) == generation {
        STATE.store(if map.is_empty() { 1 } else { 2 }, Ordering::Release);
        *cache = Some(map);
    } else if cache.is_none() {
        // Changed meanwhile: use what was read for this statement only.
        *cache = Some(map);
    }
    Ok(())
}

/// A stored trigger; one whose body no longer parses (a lower
/// routine_max_nesting since) keeps the error, which firing it raises: the
/// other tables' statements are not affected.
fn from_row(row: RoutineRow, max_depth: usize) -> Trigger {
    let (timing, event) = row.returns.split_once(' ').unwrap_or(("BEFORE", "INSERT"));
    let event = Event::of(event).unwrap_or(Event::Insert);
    let body = parse::parse_body(&row.body, max_depth);
    Trigger { before: timing == "BEFORE", event, order: row.data_access.parse().unwrap_or(1), body, row }
}

// ---- statements ----------------------------------------------------------

/// Does this statement create, drop or show triggers?
pub fn handles(kw: &str, toks: &[Token]) -> bool {
    let at = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    match kw {
        "DROP" => at(1, "TRIGGER"),
        "SHOW" => at(1, "TRIGGERS") || (at(1, "CREATE") && at(2, "TRIGGER")),
        "CREATE" => create_keyword_at(toks).is_some(),
        _ => false,
    }
}

/// The index of TRIGGER in `CREATE [OR REPLACE] [DEFINER = u[@h]] TRIGGER`.
fn create_keyword_at(toks: &[Token]) -> Option<usize> {
    let mut i = 1;
    if toks.get(i).is_some_and(|t| t.is_kw("OR")) && toks.get(i + 1).is_some_and(|t| t.is_kw("REPLACE")) {
        i += 2;
    }
    if toks.get(i).is_some_and(|t| t.is_kw("DEFINER")) && toks.get(i + 1).is_some_and(|t| t.is_op("=")) {
        i += 2;
        if toks.get(i).is_some_and(|t| t.is_kw("CURRENT_USER")) {
            i += 1;
            if toks.get(i).is_some_and(|t| t.is_op("(")) && toks.get(i + 1).is_some_and(|t| t.is_op(")")) {
                i += 2;
            }
        } else {
            i += 1;
            if toks.get(i).is_some_and(|t| matches!(t.tok, Tok::UserVar(_))) {
                i += 1;
            }
        }
    }
    toks.get(i).is_some_and(|t| t.is_kw("TRIGGER")).then_some(i)
}

fn syntax_at(sql: &str, toks: &[Token], i: usize) -> SqlError {
    SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]))
}

/// `[db.]name` at `i`: (db, name, the index after it).
fn qualified(sql: &str, toks: &[Token], i: usize) -> Result<(Option<String>, String, usize), SqlError> {
    let first = toks.get(i).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, toks, i))?.to_string();
    if toks.get(i + 1).is_some_and(|t| t.is_op(".")) {
        let name = toks.get(i + 2).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, toks, i + 2))?.to_string();
        return Ok((Some(first), name, i + 3));
    }
    Ok((None, first, i + 1))
}

fn definer_of(sql: &str, toks: &[Token], at: usize) -> Result<Option<(String, String)>, SqlError> {
    // DEFINER = x: the token after `=`.
    let Some(d) = toks.iter().take(at).position(|t| t.is_kw("DEFINER")) else { return Ok(None) };
    let i = d + 2;
    if toks.get(i).is_some_and(|t| t.is_kw("CURRENT_USER")) {
        return Ok(None);
    }
    let user = match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Word(w) | Tok::Quoted(w)) => w.to_string(),
        Some(Tok::Str(s)) => String::from_utf8_lossy(s).into_owned(),
        _ => return Err(syntax_at(sql, toks, i)),
    };
    let host = match toks.get(i + 1).map(|t| &t.tok) {
        Some(Tok::UserVar(h)) => h.trim_matches(|c| c == '\'' || c == '`' || c == '"').to_string(),
        _ => "%".to_string(),
    };
    Ok(Some((user, host)))
}

fn parse_create(sql: &str) -> Result<Header, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let at = create_keyword_at(&toks).ok_or_else(|| SqlError::syntax(sql))?;
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    let mut h = Header { or_replace: kw(1, "OR"), definer: definer_of(sql, &toks, at)?, ..Default::default() };
    let mut i = at + 1;
    if kw(i, "IF") && kw(i + 1, "NOT") && kw(i + 2, "EXISTS") {
        h.if_not_exists = true;
        i += 3;
    }
    let tail_start = toks.get(i).map_or(sql.len(), |t| t.start);
    let (db, name, next) = qualified(sql, &toks, i)?;
    (h.db, h.name, i) = (db, name, next);
    h.before = kw(i, "BEFORE");
    if !h.before && !kw(i, "AFTER") {
        return Err(syntax_at(sql, &toks, i));
    }
    h.event = toks.get(i + 1).and_then(|t| t.ident()).and_then(Event::of);
    if h.event.is_none() || !kw(i + 2, "ON") {
        return Err(syntax_at(sql, &toks, i + 1));
    }
    let (tdb, table, next) = qualified(sql, &toks, i + 3)?;
    (h.table_db, h.table, i) = (tdb, table, next);
    if !(kw(i, "FOR") && kw(i + 1, "EACH") && kw(i + 2, "ROW")) {
        return Err(syntax_at(sql, &toks, i));
    }
    i += 3;
    if kw(i, "FOLLOWS") || kw(i, "PRECEDES") {
        let other = toks.get(i + 1).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, &toks, i + 1))?;
        h.order = Some((kw(i, "FOLLOWS"), other.to_string()));
        i += 2;
    }
    let body_start = toks.get(i).ok_or_else(|| SqlError::syntax(""))?.start;
    let mut end = sql.len();
    if toks.last().is_some_and(|t| t.is_op(";")) && toks.len() > i + 1 {
        end = toks[toks.len() - 1].start;
    }
    h.body = sql[body_start..end].trim_end().to_string();
    h.tail = sql[tail_start..end].trim_end().to_string();
    Ok(h)
}

/// Everything CREATE TRIGGER checks of its text alone (the fuzz target's
/// entry): the header, the body at `max_depth`, the statements a trigger
/// may hold, its use of NEW and OLD.
pub fn check_definition(sql: &str, max_depth: usize) -> Result<(), SqlError> {
    let h = parse_create(sql)?;
    let body = parse::parse_body(&h.body, max_depth)?;
    allowed(&body)?;
    check_rows(&h.body, h.event.expect("parse_create sets the event"), h.before, None)
}

/// NEW and OLD as the body uses them, checked as MariaDB checks them when
/// the trigger is created: no NEW in a DELETE trigger, no OLD in an INSERT
/// trigger (1363), no assignment to NEW after the row is written, nor to
/// OLD ever (1362).
fn check_rows(body: &str, event: Event, before: bool, cols: Option<&[String]>) -> Result<(), SqlError> {
    let toks = lex::tokenize(body).map_err(|e| SqlError::syntax(&body[e.at..]))?;
    for (i, t) in toks.iter().enumerate() {
        if !matches!(t.tok, Tok::Word(_)) || !toks.get(i + 1).is_some_and(|n| n.is_op(".")) || i > 0 && toks[i - 1].is_op(".") {
            continue;
        }
        let (new, old) = (t.is_kw("NEW"), t.is_kw("OLD"));
        if !new && !old {
            continue;
        }
        let assigned = toks.get(i + 3).is_some_and(|n| n.is_op("=") || n.is_op(":=")) && i >= 1 && (toks[i - 1].is_kw("SET") || toks[i - 1].is_op(","));
        if assigned && old {
            return Err(SqlError::new(1362, "HY000", "Updating of OLD row is not allowed in trigger"));
        }
        if new && event == Event::Delete {
            return Err(SqlError::new(1363, "HY000", "There is no NEW row in on DELETE trigger"));
        }
        if old && event == Event::Insert {
            return Err(SqlError::new(1363, "HY000", "There is no OLD row in on INSERT trigger"));
        }
        let col = toks.get(i + 2).and_then(|c| c.ident()).unwrap_or("");
        if cols.is_some_and(|cols| !cols.iter().any(|c| c.eq_ignore_ascii_case(col))) {
            return Err(SqlError::new(1054, "42S22", format!("Unknown column '{}' in '{}'", col, if new { "NEW" } else { "OLD" })));
        }
        if assigned && !before {
            return Err(SqlError::new(1362, "HY000", "Updating of NEW row is not allowed in after trigger"));
        }
    }
    Ok(())
}

/// Statements a trigger may not hold, refused when it is created as
/// MariaDB refuses them: transaction ends and DDL (1422), result sets
/// (1415), LOCK (1314), RETURN (1313), SET autocommit (1445).
fn allowed(body: &[Stmt]) -> Result<(), SqlError> {
    for s in body {
        match s {
            Stmt::Sql(text) => {
                let kw = turnstile_sqltext::scan::first_keyword(text);
                let toks = lex::tokenize(text).map_err(|e| SqlError::syntax(&text[e.at..]))?;
                let rollback_to = kw == "ROLLBACK" && toks.get(1).is_some_and(|t| t.is_kw("TO"));
                if ["COMMIT", "ROLLBACK", "START", "CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE", "GRANT", "REVOKE"].contains(&kw.as_str()) && !rollback_to {
                    return Err(SqlError::new(1422, "HY000", "Explicit or implicit commit is not allowed in stored function or trigger"));
                }
                if ["SELECT", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "WITH", "TABLE", "VALUES", "CHECK", "ANALYZE", "OPTIMIZE", "REPAIR", "CHECKSUM"].contains(&kw.as_str()) {
                    return Err(SqlError::new(1415, "0A000", "Not allowed to return a result set from a trigger"));
                }
                if kw == "LOCK" || kw == "UNLOCK" {
                    return Err(SqlError::new(1314, "0A000", "LOCK is not allowed in stored procedures"));
                }
            }
            Stmt::Return(_) => return Err(SqlError::new(1313, "42000", "RETURN is only allowed in a FUNCTION")),
            Stmt::Set(items) if items.iter().any(|(t, _, _)| t.trim_start_matches('@').trim_start_matches("session.").eq_ignore_ascii_case("autocommit")) => {
                return Err(SqlError::new(1445, "HY000", "Not allowed to set autocommit from a stored function or trigger"));
            }
            Stmt::Block { body, .. } | Stmt::While { body, .. } | Stmt::Repeat { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. } => allowed(body)?,
            Stmt::If { arms, other } | Stmt::Case { arms, other, .. } => {
                for (_, b) in arms {
                    allowed(b)?;
                }
                if let Some(b) = other {
                    allowed(b)?;
                }
            }
            Stmt::Handler { body, .. } => allowed(std::slice::from_ref(body))?,
            _ => {}
        }
    }
    Ok(())
}

fn ok(warnings: u16) -> Outcome {
    Outcome::Done(Done { warnings, ..Default::default() })
}

/// `YYYY-MM-DD hh:mm:ss.cc`, as MariaDB shows a trigger's creation time.
fn created_now() -> String {
    let micros = turnstile_engine::clock::now_micros();
    let v = crate::expr::clock::now_value(false);
    let text = String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned();
    format!("{}.{:02}", text, (micros.rem_euclid(1_000_000) / 10_000))
}

fn trigger_denied(call: &Call<'_, '_>, db: &str, table: &str) -> SqlError {
    SqlError::table_access_denied("TRIGGER", &call.sess.user, &call.sess.host, db, table)
}

/// CREATE TRIGGER.
pub fn create(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let max_bytes = super::setting(call, "routine_max_body_bytes").max(64) as usize;
    if sql.len() > max_bytes {
        return Err(SqlError::new(1105, "HY000", format!("The trigger is {} bytes long; routine_max_body_bytes allows {}", sql.len(), max_bytes)));
    }
    let h = parse_create(sql)?;
    let event = h.event.expect("parse_create sets the event");
    let current = call.sess.db.clone();
    let db = h.db.clone().or_else(|| h.table_db.clone()).or(current).ok_or_else(SqlError::no_database)?;
    if h.table_db.as_ref().is_some_and(|t| !t.eq_ignore_ascii_case(&db)) {
        return Err(SqlError::new(1435, "HY000", "Trigger in wrong schema"));
    }
    if crate::front::privileges_on(call, &db) & privs::TRIGGER == 0 {
        return Err(trigger_denied(call, &db, &h.table));
    }
    let me = (call.sess.account_user.clone(), call.sess.account_host.clone());
    let definer = h.definer.clone().unwrap_or_else(|| me.clone());
    if definer != me && crate::front::privileges_on(call, "") & privs::ADMIN == 0 {
        return Err(SqlError::specific_access_denied("SUPER, SET USER"));
    }
    if h.or_replace && h.if_not_exists {
        return Err(SqlError::new(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS"));
    }
    let info = super::fire::table_columns(call, &db, &h.table)?;
    base_table(call, &db, &info.name)?;
    let max_depth = super::setting(call, "routine_max_nesting").max(1) as usize;
    let body = parse::parse_body(&h.body, max_depth)?;
    allowed(&body)?;
    check_rows(&h.body, event, h.before, Some(&info.cols))?;
    let table = info.name;
    if let Some(old) = call.engine.routine_load(&db, RoutineKind::Trigger, &h.name)? {
        if h.if_not_exists {
            call.ctx.note(1359, format!("Trigger '{}.{}' already exists", db, h.name));
            return Ok(ok(1));
        }
        if !h.or_replace {
            return Err(SqlError::new(1359, "HY000", format!("Trigger '{}.{}' already exists", db, h.name)));
        }
        call.engine.routine_drop(call.ctx, &db, RoutineKind::Trigger, &old.name)?;
    }
    let timing = format!("{} {}", if h.before { "BEFORE" } else { "AFTER" }, event.keyword());
    let order = place(call, &db, &table, &timing, h.order.as_ref())?;
    let now = created_now();
    let row = RoutineRow {
        db,
        kind: RoutineKind::Trigger,
        name: h.name.clone(),
        definer: format!("{}@{}", definer.0, definer.1),
        definition: h.tail.clone(),
        body: h.body.clone(),
        params: table,
        returns: timing,
        invoker: false,
        deterministic: false,
        data_access: order.to_string(),
        comment: String::new(),
        sql_mode: sql_mode_text(call),
        created: now.clone(),
        modified: now,
    };
    let r = call.engine.routine_save(call.ctx, &row, true);
    invalidate();
    r.map(|()| ok(0))
}

/// A trigger's table is a base table: a view is 1347, as MariaDB; a table
/// SHOW FULL TABLES does not list is 1361. (The SQLite engine lists a
/// TEMPORARY table as a base table, so one is not refused: documented.)
fn base_table(call: &mut Call<'_, '_>, db: &str, table: &str) -> Result<(), SqlError> {
    let sql = format!("SHOW FULL TABLES FROM {}", quote(db));
    let mut cap = super::interp::Capture { rows: Vec::new(), limit: 10_000_000, over: false };
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &[] };
    crate::front::routine_statement(&mut inner, &sql, &mut cap)?;
    let kind = cap.rows.iter().find(|r| r.first().is_some_and(|n| n.to_text().is_some_and(|t| t.eq_ignore_ascii_case(table.as_bytes())))).and_then(|r| r.get(1).cloned());
    match kind.map(|k| String::from_utf8_lossy(&k.to_text().unwrap_or_default()).to_ascii_uppercase()) {
        Some(k) if k == "VIEW" => Err(SqlError::new(1347, "HY000", format!("'{}.{}' is not of type 'BASE TABLE'", db, table))),
        Some(k) if !k.contains("TEMPORARY") => Ok(()),
        _ => Err(SqlError::new(1361, "HY000", format!("Trigger's '{}' is a view, temporary table or sequence", table))),
    }
}

fn sql_mode_text(call: &Call<'_, '_>) -> String {
    let v = crate::front::read_sys_var(call.sess, call.ops, &*call.engine, None, "sql_mode").unwrap_or(Value::Null);
    String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned()
}

/// The ACTION_ORDER of a new trigger of `timing` on `table`: after the
/// others, or next to the one FOLLOWS / PRECEDES names (the triggers after
/// it move down one).
fn place(call: &mut Call<'_, '_>, db: &str, table: &str, timing: &str, at: Option<&(bool, String)>) -> Result<i64, SqlError> {
    let mut same: Vec<RoutineRow> =
        call.engine.routine_list()?.into_iter().filter(|r| r.kind == RoutineKind::Trigger && r.db == db && r.params.eq_ignore_ascii_case(table) && r.returns == timing).collect();
    same.sort_by_key(|r| r.data_access.parse::<i64>().unwrap_or(1));
    let Some((follows, other)) = at else { return Ok(same.len() as i64 + 1) };
    let pos = same
        .iter()
        .position(|r| r.name.eq_ignore_ascii_case(other))
        .ok_or_else(|| SqlError::new(4031, "HY000", format!("Referenced trigger '{}' for the given action time and event type does not exist", other)))?;
    let order = pos as i64 + 1 + *follows as i64;
    for (k, r) in same.iter_mut().enumerate() {
        let o = k as i64 + 1;
        if o >= order {
            r.data_access = (o + 1).to_string();
            call.engine.routine_save(call.ctx, r, true)?;
        }
    }
    Ok(order)
}

/// DROP TRIGGER [IF EXISTS] [db.]name
pub fn drop(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let if_exists = toks.get(2).is_some_and(|t| t.is_kw("IF")) && toks.get(3).is_some_and(|t| t.is_kw("EXISTS"));
    let (db, name, end) = qualified(sql, &toks, if if_exists { 4 } else { 2 })?;
    if let Some(at) = super::extra_token(&toks, end) {
        return Err(syntax_at(sql, &toks, at));
    }
    let db = match db {
        Some(d) => d,
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    let found = call.engine.routine_load(&db, RoutineKind::Trigger, &name)?;
    let Some(row) = found else {
        if if_exists {
            call.ctx.note(1360, "Trigger does not exist");
            return Ok(ok(1));
        }
        return Err(SqlError::new(1360, "HY000", "Trigger does not exist"));
    };
    if crate::front::privileges_on(call, &db) & privs::TRIGGER == 0 {
        return Err(trigger_denied(call, &db, &row.params));
    }
    let r = call.engine.routine_drop(call.ctx, &db, RoutineKind::Trigger, &row.name);
    invalidate();
    r.map(|_| ok(0))
}

/// (db, table) a DDL statement names, and the (db, table) it is renamed to.
type NamedTable = (String, String, Option<(String, String)>);

/// After DROP TABLE, ALTER TABLE or RENAME TABLE (whether it failed or
/// not): a table that has triggers and no longer exists takes them with it
/// (MariaDB keeps them in the table's .TRG file, which goes with the table),
/// or to its new name when it was renamed (`RENAME TABLE a TO b`,
/// `ALTER TABLE a RENAME [TO] b`).
pub fn after_table_ddl(call: &mut Call<'_, '_>, toks: &[Token]) -> Result<(), SqlError> {
    if none_anywhere() || !toks.iter().take(3).any(|t| t.is_kw("TABLE")) {
        return Ok(());
    }
    let current = call.sess.db.clone();
    // Every [db.]name of the statement, with the name that follows TO / RENAME after it.
    let mut names: Vec<NamedTable> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let qualified_at = |i: usize| -> Option<(String, String, usize)> {
            let first = toks.get(i)?.ident()?.to_string();
            if toks.get(i + 1).is_some_and(|t| t.is_op(".")) {
                return Some((first, toks.get(i + 2)?.ident()?.to_string(), i + 3));
            }
            Some((current.clone()?, first, i + 1))
        };
        let starts = i > 0 && (toks[i - 1].is_kw("TABLE") || toks[i - 1].is_kw("EXISTS") || toks[i - 1].is_op(","));
        if let Some((db, t, next)) = qualified_at(i).filter(|_| starts && !toks[i].is_kw("IF")) {
            let to = if toks.get(next).is_some_and(|x| x.is_kw("TO") || x.is_kw("RENAME")) {
                let k = next + 1 + toks.get(next + 1).is_some_and(|x| x.is_kw("TO") || x.is_kw("AS")) as usize;
                qualified_at(k).map(|(d, n, _)| (d, n))
            } else {
                None
            };
            names.push((db, t, to));
            i = next;
            continue;
        }
        i += 1;
    }
    let mut changed = false;
    for (db, table, to) in names {
        let trigs = of_table(call, &db, &table)?;
        if trigs.is_empty() || super::fire::table_columns(call, &db, &table).is_ok() {
            continue;
        }
        for t in trigs {
            call.engine.routine_drop(call.ctx, &t.row.db, RoutineKind::Trigger, &t.row.name)?;
            if let Some((to_db, to_table)) = to.as_ref().filter(|(d, _)| d.eq_ignore_ascii_case(&t.row.db)) {
                let _ = to_db;
                let mut row = t.row.clone();
                row.params = to_table.clone();
                row.definition = rename_in(&row.definition, &table, to_table);
                call.engine.routine_save(call.ctx, &row, true)?;
            }
            changed = true;
        }
    }
    if changed {
        invalidate();
    }
    Ok(())
}

/// A trigger's text with its table renamed (`ON old` → `ON new`).
fn rename_in(definition: &str, old: &str, new: &str) -> String {
    let Ok(toks) = lex::tokenize(definition) else { return definition.to_string() };
    for (i, t) in toks.iter().enumerate() {
        if t.is_kw("ON") {
            let at = if toks.get(i + 2).is_some_and(|x| x.is_op(".")) { i + 3 } else { i + 1 };
            if let Some(n) = toks.get(at).filter(|n| n.ident().is_some_and(|x| x.eq_ignore_ascii_case(old))) {
                return format!("{}{}{}", &definition[..n.start], quote(new), &definition[n.end..]);
            }
        }
    }
    definition.to_string()
}

/// SHOW TRIGGERS [FROM db] [LIKE 'table pattern'], SHOW CREATE TRIGGER [db.]name.
pub fn show(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    if toks.get(1).is_some_and(|t| t.is_kw("CREATE")) {
        let (db, name, _) = qualified(sql, &toks, 3)?;
        return show_create(call, db, &name, sink);
    }
    let mut i = 2;
    let mut db = call.sess.db.clone();
    if toks.get(i).is_some_and(|t| t.is_kw("FROM") || t.is_kw("IN")) {
        db = Some(toks.get(i + 1).and_then(|t| t.ident()).ok_or_else(|| syntax_at(sql, &toks, i + 1))?.to_string());
        i += 2;
    }
    let db = db.ok_or_else(SqlError::no_database)?;
    let like = match (toks.get(i), toks.get(i + 1).map(|t| &t.tok)) {
        (Some(t), Some(Tok::Str(s))) if t.is_kw("LIKE") => Some(String::from_utf8_lossy(s).into_owned()),
        (None, _) => None,
        (Some(t), _) if t.is_op(";") && toks.len() == i + 1 => None,
        (Some(t), _) if t.is_kw("WHERE") => return Err(SqlError::unsupported("SHOW TRIGGERS WHERE")),
        _ => return Err(syntax_at(sql, &toks, i)),
    };
    if !call.ops.engine().database_exists(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    if crate::front::privileges_on(call, &db) == 0 {
        return Err(SqlError::db_access_denied(&call.sess.account_user, &call.sess.account_host, &db));
    }
    let names = ["Trigger", "Event", "Table", "Statement", "Timing", "Created", "sql_mode", "Definer", "character_set_client", "collation_connection", "Database Collation"];
    let mut cols = names.map(Column::varchar);
    (cols[3], cols[5]) = (text_column("Statement"), created_column());
    sink.columns(&cols)?;
    if crate::front::privileges_on(call, &db) & privs::TRIGGER == 0 {
        return Ok(Outcome::Rows);
    }
    let mut rows: Vec<RoutineRow> = call.engine.routine_list()?.into_iter().filter(|r| r.kind == RoutineKind::Trigger && r.db == db).collect();
    rows.retain(|r| like.as_ref().is_none_or(|p| crate::expr::like_match(&r.params, p)));
    // MariaDB's order: by table, then event, then timing, then ACTION_ORDER.
    let rank = |r: &RoutineRow| {
        let (timing, event) = r.returns.split_once(' ').unwrap_or(("", ""));
        (r.params.to_ascii_lowercase(), Event::of(event).map_or(9, |e| e as u8), timing != "BEFORE", r.data_access.parse::<i64>().unwrap_or(1))
    };
    rows.sort_by_key(rank);
    for r in rows {
        let (timing, event) = r.returns.split_once(' ').unwrap_or(("", ""));
        let t = |s: &str| Value::str(s);
        sink.row(&[t(&r.name), t(event), t(&r.params), t(&r.body), t(timing), t(&r.created), t(&r.sql_mode), t(&r.definer), t("utf8mb4"), t("utf8mb4_general_ci"), t("utf8mb4_general_ci")])?;
    }
    Ok(Outcome::Rows)
}

/// A TEXT column (MariaDB's type for a trigger's statement).
fn text_column(name: &str) -> Column {
    let mut c = Column::computed(name, turnstile_wire::consts::coltype::BLOB);
    c.charset = turnstile_wire::consts::charset::UTF8MB4_GENERAL_CI;
    c.flags = turnstile_wire::consts::colflag::BLOB;
    c
}

/// DATETIME(2), as MariaDB types a trigger's creation time.
fn created_column() -> Column {
    let mut c = Column::computed("Created", turnstile_wire::consts::coltype::DATETIME);
    (c.decimals, c.length) = (2, 22);
    c
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn show_create(call: &mut Call<'_, '_>, db: Option<String>, name: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let db = match db {
        Some(d) => d,
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    let missing = || SqlError::new(1360, "HY000", "Trigger does not exist");
    let r = call.engine.routine_load(&db, RoutineKind::Trigger, name)?.ok_or_else(missing)?;
    if crate::front::privileges_on(call, &db) & privs::TRIGGER == 0 {
        return Err(SqlError::specific_access_denied("TRIGGER"));
    }
    let (u, h) = r.definer.rsplit_once('@').unwrap_or((r.definer.as_str(), "%"));
    let text = format!("CREATE DEFINER={}@{} TRIGGER {}", quote(u), quote(h), r.definition);
    let names = ["Trigger", "sql_mode", "SQL Original Statement", "character_set_client", "collation_connection", "Database Collation", "Created"];
    let mut cols = names.map(Column::varchar);
    cols[6] = created_column();
    sink.columns(&cols)?;
    let t = |s: &str| Value::str(s);
    sink.row(&[t(&r.name), t(&r.sql_mode), t(&text), t("utf8mb4"), t("utf8mb4_general_ci"), t("utf8mb4_general_ci"), t(&r.created)])?;
    Ok(Outcome::Rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_header() {
        let h = parse_create("CREATE DEFINER=`u`@`h` TRIGGER IF NOT EXISTS d.t1 BEFORE UPDATE ON d.t FOR EACH ROW FOLLOWS t0 SET NEW.a = 1").unwrap();
        assert_eq!((h.definer.unwrap(), h.db.as_deref(), h.name.as_str(), h.before, h.event), (("u".into(), "h".into()), Some("d"), "t1", true, Some(Event::Update)));
        assert_eq!((h.table.as_str(), h.order.unwrap().1.as_str(), h.body.as_str()), ("t", "t0", "SET NEW.a = 1"));
        assert!(parse_create("CREATE TRIGGER x DURING INSERT ON t FOR EACH ROW SET @a = 1").is_err());
    }

    #[test]
    fn row_rules() {
        assert_eq!(check_rows("SET NEW.a = 1", Event::Insert, false, None).unwrap_err().code, 1362);
        assert_eq!(check_rows("SET @x = NEW.a", Event::Delete, true, None).unwrap_err().code, 1363);
        assert_eq!(check_rows("BEGIN SET OLD.a = 1; END", Event::Update, true, None).unwrap_err().code, 1362);
        assert!(check_rows("INSERT INTO log VALUES (OLD.a, NEW.a)", Event::Update, false, None).is_ok());
        let cols = ["a".to_string()];
        assert_eq!(check_rows("SET @x = NEW.b", Event::Insert, true, Some(&cols)).unwrap_err().code, 1054);
    }
}
