//! Statement dispatch: answer session statements here, send the rest to the engine.
//!
//! `execute` classifies a statement by its first keyword and hands it to the
//! module that does that job:
//! - `select`: SELECT and DO without a table, evaluated here;
//! - `set`: SET of variables, NAMES, CHARACTER SET, TRANSACTION;
//! - `show`: SHOW VARIABLES/STATUS/DATABASES/COLLATION/... (SHOW TABLES and the
//!   like are the engine's);
//! - `process`: KILL and SHOW PROCESSLIST;
//! - `account`: account statements and SHOW GRANTS, applied by the server;
//! - `database`: USE and CREATE/DROP DATABASE;
//! - `transaction`: BEGIN/START TRANSACTION/COMMIT/ROLLBACK;
//! - `engine`: everything else, run by the engine with the session's privileges;
//! - `access`: the session's privileges, cached;
//! - `session_env`: what expressions see of the session (variables, USER(), SLEEP(), ...);
//! - `deadline`: the statement's time limit (max_execution_time and friends);
//! - `diagnostics`: the notes, warnings and error a statement leaves for SHOW WARNINGS;
//! - `admin`: RESET, START/STOP SLAVE, INSTALL/UNINSTALL PLUGIN, answered as a
//!   server without query cache, replication or plugins answers them;
//! - `backup`: BACKUP DATA TO 'dir' (a copy of the data directory, made by the server);
//! - stored routines (CALL, CREATE/DROP PROCEDURE/FUNCTION, their SHOWs) are
//!   `crate::routine`'s (`routine_dispatch`).
//!
//! The public paths (`front::execute`, `front::Call`, `front::use_database`, ...)
//! are those of the single file this module was.

mod access;
mod account;
mod admin;
mod backup;
mod database;
mod deadline;
mod diagnostics;
pub(crate) use diagnostics::keeps_diagnostics;
mod engine;
pub mod load_data;
mod process;
mod select;
mod session_env;
mod set;
mod show;
mod show_server;
mod show_where;
mod transaction;

/// BACKUP DATA's target directory (the fuzz targets call it too).
pub use backup::parse as parse_backup_target;
pub use database::use_database;
pub use engine::{field_list, prepare, take_user_variables};
pub use select::describe_without_table;
pub use session_env::read_sys_var;
pub(crate) use set::value_of_expression;
pub use set::{set_session_isolation, set_session_read_only};

use crate::account_sql;
use crate::expr::Parser;
use crate::{privs, ServerOps, SessionState};
use turnstile_engine::{Done, EngineSession, ExecContext, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Token};
use turnstile_sqltext::scan;

/// Everything one statement execution needs.
pub struct Call<'a, 'b> {
    pub sess: &'a mut SessionState,
    pub engine: &'a mut dyn EngineSession,
    pub ops: &'a dyn ServerOps,
    pub ctx: &'a ExecContext<'b>,
    pub params: &'a [Value],
}

fn ok() -> Outcome {
    Outcome::Done(Done::default())
}

fn ok_rows(n: u64) -> Outcome {
    Outcome::Done(Done { affected_rows: n, ..Default::default() })
}

fn lex_or_syntax(sql: &str) -> Result<Vec<Token>, SqlError> {
    lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))
}

/// A statement with no first word. Only comments (`/* x */`, the trailing
/// `-- Dump completed on ...` of a dump sent as one multi-statement query, a
/// later version's `/*!99999 ... */`) is an empty OK, as in MySQL and
/// MariaDB; nothing at all, blanks or `;` alone is 1065; anything else
/// (`(1)`, `= 1`) is a syntax error.
fn empty_statement(sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    if toks.iter().any(|t| !t.is_op(";")) {
        return Err(SqlError::syntax(sql.trim()));
    }
    let blank = sql.bytes().all(|c| c.is_ascii_whitespace() || c == b';');
    if blank {
        Err(SqlError::empty_query())
    } else {
        Ok(ok())
    }
}

/// Run one statement (multi-statement texts are split by the caller).
pub fn execute(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    // DDL, CALL and SHOW take their parameters written into the text (bind.rs).
    if !call.params.is_empty() && crate::bind::writes_params_into_text(&scan::first_keyword(sql), sql) {
        let (text, values) = crate::bind::bind_values(sql, call.params)?;
        let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &values };
        return execute(&mut inner, &text, sink);
    }
    let _clock = session_clock(call.sess);
    // A `?` with nothing to bind: text from the client (COM_QUERY) has no
    // markers, so MariaDB's parser reads a syntax error there.
    let stray = if call.params.is_empty() { turnstile_sqltext::lex::first_marker(sql) } else { None };
    let mut result = match stray {
        Some(at) => Err(SqlError::syntax(&sql[at..])),
        None => deadline::time_limited(call, sql, |call| statement(call, sql, sink)).map_err(|e| name_clause(e, sql)),
    };
    note_row_count(call, &result);
    diagnostics::record(call, sql, &mut result);
    result
}

/// The session's `SET timestamp` as its statement's clock, for as long as
/// the statement runs on this thread (0 or unset: the system clock).
/// Also its `time_zone` offset (`'+03:00'`; a named zone is UTC here).
fn session_clock(sess: &crate::SessionState) -> (turnstile_engine::clock::FixedNow, turnstile_engine::clock::FixedZone) {
    let fixed = sess.vars.get("timestamp").and_then(|v| v.as_f64()).filter(|s| *s > 0.0 && *s < 2_147_483_648.0).map(|s| (s * 1e6).round() as i64);
    let zone = sess.vars.get("time_zone").and_then(|v| v.to_text()).map_or(0, |t| turnstile_engine::clock::zone_offset_of(&String::from_utf8_lossy(&t)));
    (turnstile_engine::clock::fix_now(fixed), turnstile_engine::clock::fix_zone(zone))
}

/// A 1054 from the front's own evaluation (which sees an expression, not the
/// statement) names its clause as MariaDB does ("in 'SET'", "in 'SELECT'").
fn name_clause(mut e: SqlError, sql: &str) -> SqlError {
    if e.code == 1054 {
        if let Some(name) = e.message.strip_prefix("Unknown column '").and_then(|m| m.strip_suffix("' in 'field list'")) {
            let clause = turnstile_sqltext::clause::of_name(sql, name);
            e.message = format!("Unknown column '{}' in '{}'", name, clause);
        }
    }
    e
}

/// What ROW_COUNT() returns in the next statement.
fn note_row_count(call: &mut Call<'_, '_>, result: &Result<Outcome, SqlError>) {
    call.sess.row_count = match result {
        Ok(Outcome::Done(d)) => d.affected_rows as i64,
        Ok(Outcome::Rows | Outcome::Paused) | Err(_) => -1,
    };
}

/// For a prepared statement, decided once when it is prepared: true if every
/// execution can go straight to the engine (DML that reads a table or writes
/// one and names no session value to substitute: no `@x`, USER(),
/// CONNECTION_ID(), ROW_COUNT()); false if `execute` must look at it each
/// time. Saves re-scanning the text on every execution (sysbench's point
/// select: ~900 of ~11,000 instructions). The engine checks privileges either
/// way.
pub fn is_direct_engine(sql: &str) -> bool {
    is_engine_dml(&scan::first_keyword(sql), sql) && !crate::dialect::needs_substitution(sql)
}

/// DML the engine runs as it is (after substitution): a SELECT that reads a
/// table (one byte scan decides; only table-less SELECTs are lexed by
/// `statement`), INSERT, REPLACE, UPDATE, DELETE.
fn is_engine_dml(kw: &str, sql: &str) -> bool {
    match kw {
        "SELECT" => crate::dialect::select_reads_table(sql),
        "INSERT" | "REPLACE" | "UPDATE" | "DELETE" => true,
        _ => false,
    }
}

/// Execute a statement `is_direct_engine` accepted: what `execute` does for
/// it, without classifying the text again.
pub fn execute_direct(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let _clock = session_clock(call.sess);
    let mut result = deadline::time_limited(call, sql, |call| {
        if !crate::routine::trigger::none_anywhere() {
            if let Some(r) = crate::routine::trigger_dml(call, &scan::first_keyword(sql), sql) {
                return r;
            }
        }
        match engine::engine_run(call, sql, sink) {
            Err(e) if matches!(e.code, 1305 | 1064 | 1054) => with_functions_written_out(call, sql, e, sink),
            r => r,
        }
    });
    note_row_count(call, &result);
    diagnostics::record(call, sql, &mut result);
    result
}

/// The session's privilege bits on `db` ("": the global ones).
pub(crate) fn privileges_on(call: &mut Call<'_, '_>, db: &str) -> u32 {
    access::privileges(call.sess, call.ops, (!db.is_empty()).then_some(db))
}

/// A statement of a stored routine's body (routine/interp.rs): what a
/// client's statement does, without the per-statement diagnostics and
/// time limit of the CALL around it.
pub(crate) fn routine_statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let result = statement(call, sql, sink);
    note_row_count(call, &result);
    result
}

/// Make `db` the session's default database without the checks and
/// notes of USE (routine/fire.rs: a trigger's table's database, and back).
pub(crate) fn use_database_quietly(call: &mut Call<'_, '_>, db: Option<&str>) -> Result<(), SqlError> {
    call.engine.set_database(db)?;
    call.sess.db = db.map(str::to_string);
    Ok(())
}

/// A statement of a trigger's own (routine/fire.rs): one row's write, run
/// by the engine as it is, no trigger fired.
pub(crate) fn engine_raw(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    engine::engine_run(call, sql, sink)
}

/// CALL, CREATE/DROP PROCEDURE/FUNCTION, SHOW CREATE PROCEDURE/FUNCTION and
/// SHOW PROCEDURE/FUNCTION STATUS (routine/), CREATE/DROP TRIGGER, SHOW
/// TRIGGERS and SHOW CREATE TRIGGER (routine/trigger.rs); None for anything else.
fn routine_dispatch(call: &mut Call<'_, '_>, kw: &str, sql: &str, sink: &mut dyn RowSink) -> Option<Result<Outcome, SqlError>> {
    let toks = lex::tokenize(sql).ok()?;
    if crate::routine::trigger::handles(kw, &toks) {
        return Some(match kw {
            "SHOW" => crate::routine::trigger::show(call, sql, sink),
            "DROP" => crate::routine::trigger::drop(call, sql),
            _ => crate::routine::trigger::create(call, sql),
        });
    }
    if !crate::routine::handles(kw, &toks) {
        return None;
    }
    Some(match kw {
        "CALL" => crate::routine::call_statement(call, sql, sink),
        "SHOW" => crate::routine::show(call, sql, sink),
        "DROP" => crate::routine::drop(call, sql),
        _ => crate::routine::create(call, sql),
    })
}

/// A statement, run again without its stored function calls when one made
/// it fail with 1305 (or 1064/1054 at `db.f(`; routine/function.rs).
fn statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let e = match statement_once(call, sql, sink) {
        Err(e) if matches!(e.code, 1305 | 1064 | 1054) => e,
        r => return r,
    };
    with_functions_written_out(call, sql, e, sink)
}

/// The statement that failed with `e` (1305) rewritten by
/// routine/function.rs and run again, for as long as that finds calls of a
/// stored function to write out. Calls in the text of a view the engine
/// keeps as text (EngineSession::expand_views) are found in the statement
/// with its views written out, once SELECT on each is checked; a function
/// such a view calls that no longer exists is 1356 naming the view.
fn with_functions_written_out(call: &mut Call<'_, '_>, sql: &str, e: SqlError, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let mut views: Vec<(String, String)> = Vec::new();
    let r = functions_written_out(call, sql, e, sink, &mut views);
    match (r, views.first()) {
        (Err(e), Some((db, view))) if e.code == 1305 && !names_function(sql, &e.message) => {
            Err(SqlError::new(1356, "HY000", format!("View '{}.{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them", db, view)))
        }
        (r, _) => r,
    }
}

/// Does `sql` itself name the function a 1305 `message` names?
fn names_function(sql: &str, message: &str) -> bool {
    let rest = message.strip_prefix("FUNCTION ").and_then(|r| r.strip_suffix(" does not exist")).unwrap_or("");
    let name = rest.rsplit('.').next().unwrap_or(rest);
    lex::tokenize(sql).is_ok_and(|toks| toks.iter().any(|t| t.ident().is_some_and(|w| w.eq_ignore_ascii_case(name))))
}

fn functions_written_out(call: &mut Call<'_, '_>, sql: &str, mut e: SqlError, sink: &mut dyn RowSink, views: &mut Vec<(String, String)>) -> Result<Outcome, SqlError> {
    let (mut text, mut params) = (sql.to_string(), call.params.to_vec());
    let mut round = 0;
    while let Some(name) = crate::routine::function::unknown_function(call, &e, &text) {
        let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &params };
        let next = crate::routine::function::rewrite(&mut inner, &text, &name, round)?;
        let Some(next) = next else {
            // Not in the statement's own text: in a view's, once.
            if !views.is_empty() {
                break;
            }
            let Some((expanded, named)) = call.engine.expand_views(&text)? else { break };
            {
                let access = access::session_access(call.sess, call.ops);
                let access: &dyn turnstile_engine::Access = &access;
                for (db, view) in &named {
                    access.check_table(db, view, privs::SELECT)?;
                }
            }
            *views = named;
            text = expanded;
            continue;
        };
        (text, params) = next;
        round += 1;
        let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &params };
        match statement_once(&mut inner, &text, sink) {
            Err(next_e) if matches!(next_e.code, 1305 | 1064 | 1054) => e = next_e,
            r => return r,
        }
    }
    Err(e)
}

fn statement_once(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let kw = scan::first_keyword(sql);
    if matches!(kw.as_str(), "SELECT" | "WITH") && crate::routine::selects_into_variables(sql) {
        return crate::routine::anonymous_statement(call, sql, sink);
    }
    if kw == "BEGIN" && lex_or_syntax(sql)?.get(1).is_some_and(|t| t.is_kw("NOT")) {
        return crate::routine::anonymous_statement(call, sql, sink);
    }
    // IF, CASE, WHILE, REPEAT, LOOP and FOR outside a routine (MariaDB).
    if matches!(kw.as_str(), "IF" | "CASE" | "WHILE" | "REPEAT" | "LOOP" | "FOR") && turnstile_sqltext::compound::is_compound_start(&lex_or_syntax(sql)?) {
        return crate::routine::anonymous_statement(call, sql, sink);
    }
    if is_engine_dml(&kw, sql) {
        if !call.sess.trigger_tables.is_empty() {
            crate::routine::function::check_write(call, &kw, &lex_or_syntax(sql)?)?;
        }
        if kw != "SELECT" {
            if let Some(r) = crate::routine::trigger_dml(call, &kw, sql) {
                return r;
            }
        }
        return engine::engine_statement(call, sql, sink);
    }
    if kw == "SHOW" {
        if let Some(r) = show_where::show_where(call, sql, sink) {
            return r;
        }
    }
    if matches!(kw.as_str(), "CALL" | "SHOW") {
        if let Some(r) = routine_dispatch(call, &kw, sql, sink) {
            return r;
        }
    }
    if !call.sess.trigger_tables.is_empty() && commits(&kw, sql) {
        return Err(SqlError::new(1422, "HY000", "Explicit or implicit commit is not allowed in stored function or trigger"));
    }
    crate::routine::function::check_in_function(call, &kw)?;
    if admin::handles(&kw, sql) {
        return admin::statement(call, &kw, sql);
    }
    if backup::handles(&kw, sql) {
        return backup::statement(call, sql, sink);
    }
    match kw.as_str() {
        "SELECT" => select::select_without_table(call, sql, sink),
        "PREPARE" | "EXECUTE" | "DEALLOCATE" => match crate::dialect::sql_prepared(call, sql, sink)? {
            Some(out) => Ok(out),
            None => Err(SqlError::syntax(sql.trim_start())),
        },
        "SET" => {
            let toks = lex_or_syntax(sql)?;
            let mut p = Parser::new(sql, &toks);
            if toks.get(1).is_some_and(|t| t.is_kw("STATEMENT")) {
                return set::set_statement_for(call, sql, &toks, sink);
            }
            if let Some(stmt) = account_sql::parse(&mut p)? {
                return account::account_statement(call, stmt, sink);
            }
            set::set_statement(call, sql, &toks)
        }
        "SHOW" => show::show(call, sql, sink),
        "USE" => database::use_statement(call, sql),
        "KILL" => process::kill(call, sql),
        "CREATE" | "DROP" | "ALTER" | "GRANT" | "REVOKE" => definition_statement(call, &kw, sql, sink),
        "BEGIN" | "START" | "COMMIT" | "ROLLBACK" => transaction::transaction(call, sql, sink),
        "DO" => select::do_statement(call, sql),
        "FLUSH" => {
            access::require(call, None, privs::ADMIN, "RELOAD")?;
            // FLUSH [LOCAL | NO_WRITE_TO_BINLOG] HOSTS [, ...] forgets blocked
            // hosts; FLUSH [SLOW | GENERAL | ...] LOGS opens the query logs'
            // files again (logrotate); the rest has nothing to flush.
            let toks = lex_or_syntax(sql)?;
            if toks.iter().any(|t| t.is_kw("HOSTS")) {
                call.ops.flush_hosts();
            }
            if toks.iter().any(|t| t.is_kw("LOGS")) {
                call.ops.flush_logs();
            }
            Ok(ok())
        }
        "TRUNCATE" if names_digest_table(call, sql) => {
            if access::privileges(call.sess, call.ops, Some("performance_schema")) & privs::DROP == 0 {
                return Err(SqlError::table_access_denied("DROP", &call.sess.user, &call.sess.host, "performance_schema", "events_statements_summary_by_digest"));
            }
            call.ops.reset_digests();
            Ok(ok())
        }
        "" => empty_statement(sql),
        "TRUNCATE" => {
            if call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            engine::engine_statement(call, sql, sink)
        }
        "DESCRIBE" | "DESC" | "EXPLAIN" | "WITH" | "TABLE" | "VALUES" => engine::engine_statement(call, sql, sink),
        "RENAME" => {
            if call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            let result = engine::engine_statement(call, sql, sink);
            crate::routine::trigger::after_table_ddl(call, &lex_or_syntax(sql)?)?;
            result
        }
        "LOAD" => load_data::statement(call, sql),
        verb if ENGINE_VERBS.contains(&verb) => engine::engine_statement(call, sql, sink),
        _ => Err(SqlError::syntax(sql.trim_start())),
    }
}

/// Does this statement end the transaction, explicitly or not (not
/// allowed while a trigger runs: a procedure it calls, ERR 1422)?
fn commits(kw: &str, sql: &str) -> bool {
    match kw {
        "COMMIT" | "BEGIN" | "START" | "CREATE" | "DROP" | "ALTER" | "RENAME" | "TRUNCATE" | "GRANT" | "REVOKE" | "BACKUP" => !(kw == "DROP" && sql.to_ascii_uppercase().contains("PREPARE")),
        "ROLLBACK" => !lex::tokenize(sql).is_ok_and(|t| t.get(1).is_some_and(|x| x.is_kw("TO"))),
        _ => false,
    }
}

/// CREATE, DROP, ALTER, GRANT, REVOKE: DROP PREPARE, account statements and
/// CREATE/DROP DATABASE here, the rest in the engine; an open transaction is
/// committed first.
fn definition_statement(call: &mut Call<'_, '_>, kw: &str, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    if kw == "DROP" && toks.get(1).is_some_and(|t| t.is_kw("PREPARE")) {
        return match crate::dialect::sql_prepared(call, sql, sink)? {
            Some(out) => Ok(out),
            None => Err(SqlError::syntax(sql.trim_start())),
        };
    }
    // MySQL commits an open transaction before DDL and account statements
    // (CREATE TEMPORARY TABLE excepted).
    if call.engine.in_transaction() && !toks.get(1).is_some_and(|t| t.is_kw("TEMPORARY")) {
        call.engine.commit(call.ctx)?;
    }
    if kw != "ALTER" {
        if let Some(r) = routine_dispatch(call, kw, sql, sink) {
            return r;
        }
    }
    let mut p = Parser::new(sql, &toks);
    if let Some(stmt) = account_sql::parse(&mut p)? {
        return account::account_statement(call, stmt, sink);
    }
    if let Some(out) = database::database_ddl(call, sql, &toks)? {
        if kw == "DROP" {
            crate::routine::trigger::invalidate();
        }
        return Ok(out);
    }
    let result = engine::engine_statement(call, sql, sink);
    if kw == "DROP" || kw == "ALTER" || kw == "RENAME" {
        crate::routine::trigger::after_table_ddl(call, &toks)?;
    }
    result
}

/// True if `kw` (upper case) can start a statement; `statement` answers any
/// other first word with a syntax error. COM_STMT_PREPARE uses this to refuse
/// such text at prepare time, as MySQL does.
pub fn is_statement_keyword(kw: &str) -> bool {
    const HANDLED: &[&str] = &[
        "SELECT",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "SET",
        "SHOW",
        "USE",
        "KILL",
        "CREATE",
        "DROP",
        "ALTER",
        "GRANT",
        "REVOKE",
        "BEGIN",
        "START",
        "COMMIT",
        "ROLLBACK",
        "DO",
        "FLUSH",
        "INSERT",
        "REPLACE",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "RESET",
        "STOP",
        "INSTALL",
        "UNINSTALL",
        "BACKUP",
        "DESCRIBE",
        "DESC",
        "EXPLAIN",
        "WITH",
        "TABLE",
        "VALUES",
        "RENAME",
    ];
    HANDLED.contains(&kw) || ENGINE_VERBS.contains(&kw)
}

/// Other statements an engine may understand; any other first word is a syntax error.
const ENGINE_VERBS: &[&str] = &["ANALYZE", "CALL", "CHECK", "CHECKSUM", "DEALLOCATE", "EXECUTE", "HANDLER", "LOAD", "LOCK", "OPTIMIZE", "PREPARE", "RELEASE", "REPAIR", "SAVEPOINT", "UNLOCK", "XA"];

/// True if a SELECT reads a table (a top-level FROM other than DUAL).
pub fn has_table(toks: &[Token]) -> bool {
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("FROM") {
            return !toks.get(i + 1).is_some_and(|n| n.is_kw("DUAL"));
        }
    }
    false
}

/// TRUNCATE [TABLE] [performance_schema.]events_statements_summary_by_digest:
/// the server's digests are reset (the table itself is refilled per statement).
fn names_digest_table(call: &Call<'_, '_>, sql: &str) -> bool {
    let Ok(toks) = lex_or_syntax(sql) else { return false };
    let words: Vec<&str> = toks.iter().filter(|t| !t.is_op(";") && !t.is_op(".")).filter_map(|t| t.ident()).collect();
    let words = if words.get(1).is_some_and(|w| w.eq_ignore_ascii_case("TABLE")) { &words[2..] } else { words.get(1..).unwrap_or(&[]) };
    let in_schema = call.sess.db.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("performance_schema"));
    match words {
        [schema, table] => schema.eq_ignore_ascii_case("performance_schema") && table.eq_ignore_ascii_case("events_statements_summary_by_digest"),
        [table] => in_schema && table.eq_ignore_ascii_case("events_statements_summary_by_digest"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_engine_only_for_plain_dml() {
        assert!(is_direct_engine("SELECT c FROM sbtest1 WHERE id=?"));
        assert!(is_direct_engine("insert into t values (?)"));
        assert!(is_direct_engine("REPLACE INTO t VALUES (1)"));
        assert!(is_direct_engine("UPDATE t SET k=k+1 WHERE id=?"));
        assert!(is_direct_engine("DELETE FROM t WHERE id=?"));
        // Table-less SELECTs and session references take the full path.
        assert!(!is_direct_engine("SELECT 1"));
        assert!(!is_direct_engine("SELECT @x FROM t"));
        assert!(!is_direct_engine("SELECT CONNECTION_ID() FROM t"));
        assert!(!is_direct_engine("INSERT INTO t VALUES (ROW_COUNT())"));
        assert!(!is_direct_engine("SET @a = 1"));
        assert!(!is_direct_engine("SHOW TABLES"));
    }

    #[test]
    fn table_detection() {
        let reads_table = |sql: &str| has_table(&lex::tokenize(sql).unwrap());
        assert!(reads_table("SELECT c FROM sbtest1 WHERE id=1"));
        assert!(!reads_table("SELECT 1"));
        assert!(!reads_table("SELECT 1 FROM DUAL"));
        assert!(!reads_table("SELECT (SELECT 1 FROM x)"));
    }
}
