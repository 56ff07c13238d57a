//! CREATE / DROP PROCEDURE and FUNCTION, SHOW CREATE and SHOW ... STATUS:
//! the routine catalog as clients see it, with MariaDB 10.11's privileges
//! and errors. CREATE needs CREATE ROUTINE on the database, DROP needs
//! ALTER ROUTINE; naming a DEFINER other than oneself needs SUPER (an
//! administrator; ERR 1227). A body is parsed when it is created, so a
//! syntax error is reported then, and its size is bounded by
//! routine_max_body_bytes. The record goes to the engine
//! (`EngineSession::routine_save`), which keeps it in the database.

use super::parse;
use crate::expr::clock::now_value;
use crate::front::Call;
use turnstile_engine::{privs, Column, Done, Outcome, RoutineKind, RoutineRow, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok};
use turnstile_wire::consts::coltype;

fn ok(warnings: u16) -> Outcome {
    Outcome::Done(Done { warnings, ..Default::default() })
}

fn denied(call: &Call<'_, '_>, db: &str) -> SqlError {
    SqlError::db_access_denied(&call.sess.account_user, &call.sess.account_host, db)
}

fn now_text() -> String {
    String::from_utf8_lossy(&now_value(false).to_text().unwrap_or_default()).into_owned()
}

fn sql_mode_text(call: &Call<'_, '_>) -> String {
    let v = crate::front::read_sys_var(call.sess, call.ops, &*call.engine, None, "sql_mode").unwrap_or(Value::Null);
    String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned()
}

/// CREATE [OR REPLACE] [DEFINER=...] PROCEDURE | FUNCTION ...
pub fn create(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let max_bytes = super::setting(call, "routine_max_body_bytes").max(64) as usize;
    if sql.len() > max_bytes {
        return Err(SqlError::new(1105, "HY000", format!("The routine is {} bytes long; routine_max_body_bytes allows {}", sql.len(), max_bytes)));
    }
    let h = parse::parse_create(sql)?.ok_or_else(|| SqlError::syntax(sql))?;
    let kind = h.kind.expect("parse_create sets the kind");
    let db = match &h.db {
        Some(d) => d.clone(),
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    if crate::front::privileges_on(call, &db) & privs::CREATE_ROUTINE == 0 {
        return Err(denied(call, &db));
    }
    let me = (call.sess.account_user.clone(), call.sess.account_host.clone());
    let definer = h.definer.clone().unwrap_or_else(|| me.clone());
    if definer != me && crate::front::privileges_on(call, "") & privs::ADMIN == 0 {
        return Err(SqlError::new(1227, "42000", "Access denied; you need (at least one of) the SUPER, SET USER privilege(s) for this operation"));
    }
    if h.or_replace && h.if_not_exists {
        return Err(SqlError::new(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS"));
    }
    if !call.ops.engine().database_exists(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    // The body must parse now (syntax errors at CREATE, as in MariaDB).
    let max_depth = super::setting(call, "routine_max_nesting").max(1) as usize;
    let body = parse::parse_body(&h.body, max_depth)?;
    warn_trailing_into(call, &body);
    if kind == RoutineKind::Function && !has_return(&body) {
        return Err(SqlError::new(1320, "42000", format!("No RETURN found in FUNCTION {}.{}", db, h.name)));
    }
    if kind == RoutineKind::Function {
        super::function::check_body(&body)?;
    }
    if kind == RoutineKind::Procedure && has_return(&body) {
        return Err(SqlError::new(1313, "42000", "RETURN is only allowed in a FUNCTION"));
    }
    if h.if_not_exists && call.engine.routine_load(&db, kind, &h.name)?.is_some() {
        call.ctx.note(1304, format!("{} {} already exists", kind.keyword(), h.name));
        return Ok(ok(1));
    }
    let now = now_text();
    let row = RoutineRow {
        db,
        kind,
        name: h.name.clone(),
        definer: format!("{}@{}", definer.0, definer.1),
        definition: h.tail.clone(),
        body: h.body.clone(),
        params: h.params_text.clone(),
        returns: h.returns.clone(),
        invoker: h.invoker,
        deterministic: h.deterministic,
        data_access: h.data_access.clone(),
        comment: h.comment.clone(),
        sql_mode: sql_mode_text(call),
        created: now.clone(),
        modified: now,
    };
    call.engine.routine_save(call.ctx, &row, h.or_replace)?;
    Ok(ok(0))
}

/// Does the body hold a `SELECT ... FROM ... INTO` (MariaDB's deprecated form)?
pub(super) fn has_trailing_into(body: &[parse::Stmt]) -> bool {
    use parse::Stmt as S;
    body.iter().any(|s| match s {
        S::SelectInto { trailing, .. } => *trailing,
        S::Block { body, .. } | S::While { body, .. } | S::Repeat { body, .. } | S::Loop { body, .. } | S::For { body, .. } => has_trailing_into(body),
        S::If { arms, other } | S::Case { arms, other, .. } => arms.iter().any(|(_, b)| has_trailing_into(b)) || other.as_ref().is_some_and(|b| has_trailing_into(b)),
        S::Handler { body, .. } => has_trailing_into(std::slice::from_ref(body)),
        _ => false,
    })
}

/// MariaDB's Warning 1287 for a body (or statement) with `... FROM ... INTO`.
pub(super) fn warn_trailing_into(call: &mut Call<'_, '_>, body: &[parse::Stmt]) {
    if has_trailing_into(body) {
        call.ctx.warn(1287, "'<select expression> INTO <destination>;' is deprecated and will be removed in a future release. Please use 'SELECT <select list> INTO <destination> FROM...' instead");
    }
}

fn has_return(body: &[parse::Stmt]) -> bool {
    use parse::Stmt as S;
    body.iter().any(|s| match s {
        S::Return(_) => true,
        S::Block { body, .. } | S::While { body, .. } | S::Repeat { body, .. } | S::Loop { body, .. } | S::For { body, .. } => has_return(body),
        S::If { arms, other } | S::Case { arms, other, .. } => arms.iter().any(|(_, b)| has_return(b)) || other.as_ref().is_some_and(|b| has_return(b)),
        S::Handler { body, .. } => has_return(std::slice::from_ref(body)),
        _ => false,
    })
}

/// `PROCEDURE` / `FUNCTION`, `[db.]name` from tokens at `i`.
fn kind_and_name(sql: &str, toks: &[lex::Token], mut i: usize) -> Result<(RoutineKind, Option<String>, String, usize), SqlError> {
    let kind = if toks.get(i).is_some_and(|t| t.is_kw("PROCEDURE")) { RoutineKind::Procedure } else { RoutineKind::Function };
    i += 1;
    let syntax = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    let first = toks.get(i).and_then(|t| t.ident()).ok_or_else(|| syntax(i))?.to_string();
    i += 1;
    if toks.get(i).is_some_and(|t| t.is_op(".")) {
        let name = toks.get(i + 1).and_then(|t| t.ident()).ok_or_else(|| syntax(i + 1))?.to_string();
        return Ok((kind, Some(first), name, i + 2));
    }
    Ok((kind, None, first, i))
}

/// DROP PROCEDURE | FUNCTION [IF EXISTS] [db.]name
pub fn drop(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    // DROP PROCEDURE [IF EXISTS] name: the kind at 1, the name after IF EXISTS.
    let if_exists = toks.get(2).is_some_and(|t| t.is_kw("IF")) && toks.get(3).is_some_and(|t| t.is_kw("EXISTS"));
    let (_, db, name, end) = kind_and_name(sql, &toks, if if_exists { 3 } else { 1 })?;
    let kind = if toks[1].is_kw("PROCEDURE") { RoutineKind::Procedure } else { RoutineKind::Function };
    if let Some(at) = super::extra_token(&toks, end) {
        return Err(SqlError::syntax(&sql[toks[at].start..]));
    }
    let db = match db {
        Some(d) => d,
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    if crate::front::privileges_on(call, &db) & privs::ALTER_ROUTINE == 0 {
        return Err(SqlError::new(1370, "42000", format!("alter routine command denied to user '{}'@'{}' for routine '{}.{}'", call.sess.account_user, call.sess.account_host, db, name)));
    }
    if call.engine.routine_drop(call.ctx, &db, kind, &name)? {
        return Ok(ok(0));
    }
    let msg = format!("{} {}.{} does not exist", kind.keyword(), db, name);
    if if_exists {
        call.ctx.note(1305, msg);
        return Ok(ok(1));
    }
    Err(SqlError::new(1305, "42000", msg))
}

/// SHOW CREATE PROCEDURE | FUNCTION name, SHOW PROCEDURE | FUNCTION STATUS [LIKE | WHERE].
pub fn show(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    if toks.get(1).is_some_and(|t| t.is_kw("CREATE")) {
        let (kind, db, name, _) = kind_and_name(sql, &toks, 2)?;
        return show_create(call, kind, db.as_deref(), &name, sink);
    }
    let kind = if toks[1].is_kw("PROCEDURE") { RoutineKind::Procedure } else { RoutineKind::Function };
    if toks.get(2).is_some_and(|t| t.is_kw("CODE")) {
        return Err(SqlError::unsupported("SHOW PROCEDURE CODE"));
    }
    let like = match (toks.get(3), toks.get(4).map(|t| &t.tok)) {
        (Some(t), Some(Tok::Str(s))) if t.is_kw("LIKE") => Some(String::from_utf8_lossy(s).into_owned()),
        (None, _) => None,
        (Some(t), _) if t.is_op(";") && toks.len() == 4 => None,
        _ => return Err(SqlError::unsupported("SHOW ... STATUS WHERE")),
    };
    let rows = call.engine.routine_list()?;
    let names = ["Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type", "Comment", "character_set_client", "collation_connection", "Database Collation"];
    // MariaDB's types: Modified and Created DATETIME, Comment a text BLOB.
    let columns = names.map(|n| match n {
        "Modified" | "Created" => Column::computed(n, coltype::DATETIME),
        "Comment" => {
            let mut c = Column::computed(n, coltype::BLOB);
            (c.charset, c.flags) = (turnstile_wire::consts::charset::UTF8MB4_GENERAL_CI, turnstile_wire::consts::colflag::BLOB);
            c
        }
        _ => Column::varchar(n),
    });
    sink.columns(&columns)?;
    for r in rows.iter().filter(|r| r.kind == kind && like.as_ref().is_none_or(|p| crate::expr::like_match(&r.name, p))) {
        if crate::front::privileges_on(call, &r.db) == 0 {
            continue;
        }
        let t = |s: &str| Value::str(s);
        sink.row(&[
            t(&r.db),
            t(&r.name),
            t(kind.keyword()),
            t(&r.definer),
            datetime(&r.modified),
            datetime(&r.created),
            t(if r.invoker { "INVOKER" } else { "DEFINER" }),
            t(&r.comment),
            t("utf8mb4"),
            t("utf8mb4_general_ci"),
            t("utf8mb4_general_ci"),
        ])?;
    }
    Ok(Outcome::Rows)
}

/// A `YYYY-MM-DD HH:MM:SS` text as a DATETIME value (the text itself if it is not one).
fn datetime(text: &str) -> Value {
    let n: Vec<u32> = text.split(['-', ' ', ':']).map_while(|p| p.parse().ok()).collect();
    match n[..] {
        [year, month, day, hour, minute, second] if text.len() == 19 => {
            Value::DateTime { year: year as u16, month: month as u8, day: day as u8, hour: hour as u8, minute: minute as u8, second: second as u8, micro: 0 }
        }
        _ => Value::str(text),
    }
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn show_create(call: &mut Call<'_, '_>, kind: RoutineKind, db: Option<&str>, name: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let db = match db {
        Some(d) => d.to_string(),
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    let missing = || SqlError::new(1305, "42000", format!("{} {} does not exist", kind.keyword(), name));
    if crate::front::privileges_on(call, &db) == 0 {
        return Err(missing());
    }
    let r = call.engine.routine_load(&db, kind, name)?.ok_or_else(missing)?;
    let (u, h) = r.definer.rsplit_once('@').unwrap_or((r.definer.as_str(), "%"));
    // The text from the name on, with the name quoted as MariaDB shows it.
    let after_name = parse::parse_create(&format!("CREATE {} {}", kind.keyword(), r.definition))?.map(|hd| {
        let params_at = r.definition.find('(').unwrap_or(0);
        (hd, r.definition[params_at..].to_string())
    });
    let rest = after_name.map_or(r.definition.clone(), |(_, rest)| rest);
    let text = format!("CREATE DEFINER={}@{} {} {}{}", quote(u), quote(h), kind.keyword(), quote(&r.name), rest);
    let title = if kind == RoutineKind::Procedure { ["Procedure", "sql_mode", "Create Procedure"] } else { ["Function", "sql_mode", "Create Function"] };
    let mut cols: Vec<Column> = title.iter().map(|n| Column::varchar(n)).collect();
    cols.extend(["character_set_client", "collation_connection", "Database Collation"].map(Column::varchar));
    sink.columns(&cols)?;
    let t = |s: &str| Value::str(s);
    sink.row(&[t(&r.name), t(&r.sql_mode), t(&text), t("utf8mb4"), t("utf8mb4_general_ci"), t("utf8mb4_general_ci")])?;
    Ok(Outcome::Rows)
}
