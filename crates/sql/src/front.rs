//! Statement dispatch: answer session statements here, send the rest to the engine.

use crate::account_sql::{self, AccountStmt};
use crate::expr::{self, Env, Expr, Parser};
use crate::vars::{self, Scope};
use crate::{privs, ServerOps, SessionState, SERVER_VERSION};
use turnstile_engine::lex::{self, Tok, Token};
use turnstile_engine::{Access, Column, Done, EngineSession, ExecContext, Interruption, Outcome, Prepared, RowSink, SqlError, Value, WaitKind};
use turnstile_wire::consts::{colflag, coltype};

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

/// Run one statement (multi-statement texts are split by the caller).
pub fn execute(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let result = time_limited(call, sql, |call| statement(call, sql, sink));
    note_row_count(call, &result);
    result
}

/// The statement's time limit in milliseconds and what passing it is, if it
/// has one: for a SELECT its `/*+ MAX_EXECUTION_TIME(n) */` hint, else the
/// session's max_execution_time (MySQL applies both to SELECT only); for any
/// statement MariaDB's max_statement_time (seconds). The nearer one counts.
fn time_limit(sess: &SessionState, ops: &dyn ServerOps, sql: &str) -> Option<(u64, Interruption)> {
    let hot = &ops.globals().hot;
    let select_ms = if crate::dialect::is_select(sql) {
        crate::dialect::max_execution_time_hint(sql).unwrap_or_else(|| session_int(sess, ops, "max_execution_time", &hot.max_execution_time).max(0) as u64)
    } else {
        0
    };
    let statement_ms = match sess.vars.get("max_statement_time").filter(|_| !sess.vars.is_empty()) {
        Some(v) => (v.as_f64().unwrap_or(0.0) * 1000.0).round().max(0.0) as u64,
        None => hot.max_statement_time_ms.load(std::sync::atomic::Ordering::Relaxed).max(0) as u64,
    };
    match (select_ms, statement_ms) {
        (0, 0) => None,
        (s, t) if s != 0 && (t == 0 || s <= t) => Some((s, Interruption::TimedOut)),
        (_, t) => Some((t, Interruption::StatementTimedOut)),
    }
}

/// An integer variable kept in an atomic global: the session's value if it
/// set one (no lookup when it set none), else the global.
fn session_int(sess: &SessionState, _ops: &dyn ServerOps, name: &str, global: &std::sync::atomic::AtomicI64) -> i64 {
    match sess.vars.is_empty() {
        true => None,
        false => sess.vars.get(name).and_then(Value::as_i64),
    }
    .unwrap_or_else(|| global.load(std::sync::atomic::Ordering::Relaxed))
}

/// Run `f` with the statement's time limit in its context (and remembered
/// in the session, for the rest of a paused result).
fn time_limited<R>(call: &mut Call<'_, '_>, sql: &str, f: impl FnOnce(&mut Call<'_, '_>) -> R) -> R {
    let Some((limit_ms, kind)) = time_limit(call.sess, call.ops, sql) else {
        call.sess.deadline_ms = 0;
        return f(call);
    };
    let deadline = turnstile_engine::clock::coarse_ms() + limit_ms;
    call.sess.deadline_ms = deadline;
    call.sess.deadline_kind = kind;
    let ctx = call.ctx.with_deadline(deadline, kind);
    let mut limited = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: &ctx, params: call.params };
    f(&mut limited)
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
    is_engine_dml(&lex::first_keyword(sql), sql) && !crate::dialect::needs_substitution(sql)
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
    let result = time_limited(call, sql, |call| engine_run(call, sql, sink));
    note_row_count(call, &result);
    result
}

fn statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let kw = lex::first_keyword(sql);
    if is_engine_dml(&kw, sql) {
        return engine_statement(call, sql, sink);
    }
    match kw.as_str() {
        "SELECT" => {
            // A SELECT without a table.
            let toks = lex_or_syntax(sql)?;
            // `SELECT 1 UNION SELECT 2`: no table, but a query for the engine, which needs a database.
            if call.sess.db.is_some() && has_union(&toks) {
                return engine_statement(call, sql, sink);
            }
            match local_select(call, sql, &toks, sink) {
                // What the front does not know (a function, an operator, a
                // clause) an engine that evaluates SQL may: it answers or
                // refuses with its own error. Nothing was sent yet.
                Err(e) if matches!(e.code, 1064 | 1235 | 1054 | 1305) && call.engine.evaluates_expressions() => engine_statement(call, sql, sink),
                r => r,
            }
        }
        "PREPARE" | "EXECUTE" | "DEALLOCATE" => match crate::dialect::sql_prepared(call, sql, sink)? {
            Some(out) => Ok(out),
            None => Err(SqlError::syntax(sql.trim_start())),
        },
        "SET" => {
            let toks = lex_or_syntax(sql)?;
            let mut p = Parser::new(sql, &toks);
            if let Some(stmt) = account_sql::parse(&mut p)? {
                return account(call, stmt, sink);
            }
            set_statement(call, sql, &toks)
        }
        "SHOW" => show(call, sql, sink),
        "USE" => {
            let toks = lex_or_syntax(sql)?;
            let mut p = Parser::new(sql, &toks);
            p.expect_kw("USE")?;
            let db = p.name()?;
            p.eat_op(";");
            if !p.at_end() {
                return Err(p.error());
            }
            use_database(call.sess, call.engine, call.ops, &db)?;
            Ok(ok())
        }
        "KILL" => kill(call, sql),
        "CREATE" | "DROP" | "ALTER" | "GRANT" | "REVOKE" => {
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
            let mut p = Parser::new(sql, &toks);
            if let Some(stmt) = account_sql::parse(&mut p)? {
                return account(call, stmt, sink);
            }
            if let Some(out) = database_ddl(call, sql, &toks)? {
                return Ok(out);
            }
            engine_statement(call, sql, sink)
        }
        "BEGIN" | "START" | "COMMIT" | "ROLLBACK" => transaction(call, sql, sink),
        "DO" => {
            let toks = lex_or_syntax(sql)?;
            let mut p = Parser::new(sql, &toks);
            p.expect_kw("DO")?;
            loop {
                let e = p.expr()?;
                eval_in(call, &e)?;
                if !p.eat_op(",") {
                    break;
                }
            }
            Ok(ok())
        }
        "FLUSH" => {
            require(call, None, privs::ADMIN, "RELOAD")?;
            Ok(ok())
        }
        "" => {
            if lex_or_syntax(sql)?.is_empty() {
                Err(SqlError::empty_query())
            } else {
                Err(SqlError::syntax(sql.trim()))
            }
        }
        "TRUNCATE" => {
            if call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            engine_statement(call, sql, sink)
        }
        "DESCRIBE" | "DESC" | "EXPLAIN" | "WITH" | "TABLE" | "VALUES" => engine_statement(call, sql, sink),
        "RENAME" => {
            if call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            engine_statement(call, sql, sink)
        }
        verb if ENGINE_VERBS.contains(&verb) => engine_statement(call, sql, sink),
        _ => Err(SqlError::syntax(sql.trim_start())),
    }
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

/// True if a statement has a UNION (at any depth: the local evaluator has none).
fn has_union(toks: &[Token]) -> bool {
    toks.iter().any(|t| t.is_kw("UNION"))
}

/// The session's privileges on its current database (the hot path: no copy
/// of the database name while the cache holds).
fn current_db_privileges(sess: &mut SessionState, ops: &dyn ServerOps) -> u32 {
    let gen = ops.privilege_generation();
    if let Some((g, d, bits)) = &sess.priv_cache {
        if *g == gen && *d == sess.db {
            return *bits;
        }
    }
    let db = sess.db.clone();
    privileges(sess, ops, db.as_deref())
}

/// The session's privileges on `db`, cached until accounts change.
fn privileges(sess: &mut SessionState, ops: &dyn ServerOps, db: Option<&str>) -> u32 {
    let gen = ops.privilege_generation();
    if let Some((g, d, bits)) = &sess.priv_cache {
        if *g == gen && d.as_deref() == db {
            return *bits;
        }
    }
    let bits = ops.privileges(sess, db);
    sess.priv_cache = Some((gen, db.map(str::to_string), bits));
    bits
}

/// The session's privileges as the engine asks for them, for each table a
/// statement names: the current database's bits (from the session's cache,
/// refreshed by `session_access` before the statement), the accounts for
/// any other.
struct SessionAccess<'a> {
    sess: &'a SessionState,
    ops: &'a dyn ServerOps,
    /// The current database and the session's bits on it.
    current: Option<(&'a str, u32)>,
}

impl Access for SessionAccess<'_> {
    fn privileges(&self, db: &str) -> u32 {
        match self.current {
            Some((d, bits)) if d == db => bits,
            _ => self.ops.privileges(self.sess, Some(db)),
        }
    }
    fn who(&self) -> (&str, &str) {
        (&self.sess.user, &self.sess.host)
    }
}

/// The `Access` of a session, with its current database's privileges cached.
fn session_access<'a>(sess: &'a mut SessionState, ops: &'a dyn ServerOps) -> SessionAccess<'a> {
    let bits = current_db_privileges(sess, ops);
    let sess: &'a SessionState = sess;
    SessionAccess { current: sess.db.as_deref().map(|d| (d, bits)), sess, ops }
}

/// COM_STMT_PREPARE of a statement the engine runs: its description, or the
/// error MySQL gives at prepare (no privilege, no such table, bad syntax).
pub fn prepare(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, sql: &str) -> Result<Prepared, SqlError> {
    let access = session_access(sess, ops);
    engine.prepare(&access, sql)
}

/// COM_FIELD_LIST: the columns of `table` in the current database.
pub fn field_list(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, table: &str) -> Result<Vec<Column>, SqlError> {
    let access = session_access(sess, ops);
    engine.field_list(&access, table)
}

fn require(call: &mut Call<'_, '_>, db: Option<&str>, need: u32, name: &str) -> Result<(), SqlError> {
    if privileges(call.sess, call.ops, db) & need == need {
        Ok(())
    } else if need == privs::ADMIN {
        Err(SqlError::specific_access_denied(name))
    } else {
        Err(SqlError::db_access_denied(&call.sess.user, &call.sess.host, db.unwrap_or("")))
    }
}

/// USE / COM_INIT_DB / CONNECT_WITH_DB.
pub fn use_database(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, db: &str) -> Result<(), SqlError> {
    if privileges(sess, ops, Some(db)) & privs::ALL == 0 && !db.eq_ignore_ascii_case("information_schema") {
        return Err(SqlError::db_access_denied(&sess.user, &sess.host, db));
    }
    if !ops.engine().database_exists(db) {
        return Err(SqlError::unknown_database(db));
    }
    engine.set_database(Some(db))?;
    sess.db = Some(db.to_string());
    Ok(())
}

fn engine_statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let substituted = crate::dialect::substitute(call, sql)?;
    engine_run(call, substituted.as_deref().unwrap_or(sql), sink)
}

/// Run `sql` in the engine, which checks the session's privileges on every
/// table it names.
fn engine_run(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let cte_depth = session_int(call.sess, call.ops, "cte_max_recursion_depth", &call.ops.globals().hot.cte_max_recursion_depth);
    let access = session_access(call.sess, call.ops);
    let mut ctx = call.ctx.with_access(&access);
    ctx.cte_max_recursion_depth = cte_depth.max(0) as u64;
    let out = call.engine.execute(&ctx, sql, call.params, sink)?;
    // LAST_INSERT_ID() changes only when a value was generated or set with
    // LAST_INSERT_ID(expr) (MySQL); an engine that keeps it knows both.
    match call.engine.last_insert_id() {
        Some(id) => call.sess.last_insert_id = id,
        None => {
            if let Outcome::Done(Done { generated_id: Some(id), .. }) = &out {
                call.sess.last_insert_id = *id;
            }
        }
    }
    Ok(out)
}

/// CREATE/DROP DATABASE|SCHEMA. `None` if the statement is something else.
fn database_ddl(call: &mut Call<'_, '_>, sql: &str, toks: &[Token]) -> Result<Option<Outcome>, SqlError> {
    let mut p = Parser::new(sql, toks);
    let create = if p.eat_kw("CREATE") {
        true
    } else if p.eat_kw("DROP") {
        false
    } else {
        return Ok(None);
    };
    if !(p.eat_kw("DATABASE") || p.eat_kw("SCHEMA")) {
        return Ok(None);
    }
    let mut guard = false;
    if p.eat_kw("IF") {
        if create {
            p.expect_kw("NOT")?;
        }
        p.expect_kw("EXISTS")?;
        guard = true;
    }
    let name = p.name()?;
    // Character set and collation options are accepted; everything is utf8mb4.
    while let Some(t) = p.next() {
        if t.is_op(";") {
            break;
        }
    }
    let need = if create { privs::CREATE } else { privs::DROP };
    if privileges(call.sess, call.ops, Some(&name)) & need != need {
        return Err(SqlError::db_access_denied(&call.sess.user, &call.sess.host, &name));
    }
    let engine = call.ops.engine();
    if create {
        let created = engine.create_database(&name, guard)?;
        Ok(Some(Outcome::Done(Done { affected_rows: created as u64, warnings: (!created) as u16, ..Default::default() })))
    } else {
        let dropped = engine.drop_database(&name, guard)?;
        if call.sess.db.as_deref() == Some(name.as_str()) {
            call.sess.db = None;
            call.engine.set_database(None)?;
        }
        Ok(Some(Outcome::Done(Done { affected_rows: 0, warnings: (!dropped) as u16, ..Default::default() })))
    }
}

fn transaction(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    if p.eat_kw("BEGIN") {
        p.eat_kw("WORK");
        p.eat_op(";");
        if !p.at_end() {
            return Err(p.error());
        }
        call.engine.begin(call.ctx, false)?;
        return Ok(ok());
    }
    if p.eat_kw("START") {
        p.expect_kw("TRANSACTION")?;
        let mut read_only = false;
        loop {
            if p.eat_kw("READ") {
                if p.eat_kw("ONLY") {
                    read_only = true;
                } else {
                    p.expect_kw("WRITE")?;
                }
            } else if p.eat_kw("WITH") {
                p.expect_kw("CONSISTENT")?;
                p.expect_kw("SNAPSHOT")?;
            } else {
                break;
            }
            if !p.eat_op(",") {
                break;
            }
        }
        p.eat_op(";");
        if !p.at_end() {
            return Err(p.error());
        }
        call.engine.begin(call.ctx, read_only)?;
        return Ok(ok());
    }
    let commit = p.eat_kw("COMMIT");
    if !commit {
        p.expect_kw("ROLLBACK")?;
    }
    p.eat_kw("WORK");
    if !commit && p.peek().is_some_and(|t| t.is_kw("TO")) {
        // ROLLBACK TO SAVEPOINT belongs to the engine.
        return engine_statement(call, sql, sink);
    }
    if p.eat_kw("AND") {
        p.eat_kw("NO");
        p.expect_kw("CHAIN")?;
    }
    if p.eat_kw("NO") || p.peek().is_some_and(|t| t.is_kw("RELEASE")) {
        p.expect_kw("RELEASE")?;
    }
    p.eat_op(";");
    if !p.at_end() {
        return Err(p.error());
    }
    if commit {
        call.engine.commit(call.ctx)?;
    } else {
        call.engine.rollback(call.ctx)?;
    }
    Ok(ok())
}

/// Evaluation environment for one statement.
struct SessionEnv<'c, 'a, 'b> {
    call: &'c mut Call<'a, 'b>,
    /// In SET, a bare word is a value (ON, utf8mb4); in SELECT it is a column.
    words_are_values: bool,
}

impl Env for SessionEnv<'_, '_, '_> {
    fn sys_var(&self, scope: Option<&str>, name: &str) -> Result<Value, SqlError> {
        read_sys_var(self.call.sess, self.call.ops, self.call.engine, scope, name)
    }
    fn user_var(&self, name: &str) -> Value {
        self.call.sess.user_vars.get(name).cloned().unwrap_or(Value::Null)
    }
    fn session_function(&mut self, name: &str, args: &[Value]) -> Option<Result<Value, SqlError>> {
        let sess = &mut *self.call.sess;
        Some(Ok(match name {
            "DATABASE" | "SCHEMA" => sess.db.as_deref().map_or(Value::Null, Value::str),
            "USER" | "SESSION_USER" | "SYSTEM_USER" => Value::str(&format!("{}@{}", sess.user, sess.host)),
            "CURRENT_USER" => Value::str(&format!("{}@{}", sess.account_user, sess.account_host)),
            "VERSION" => Value::str(SERVER_VERSION),
            "CONNECTION_ID" => Value::UInt(sess.connection_id as u64),
            "ROW_COUNT" => Value::Int(sess.row_count),
            "FOUND_ROWS" => Value::UInt(self.call.engine.found_rows()),
            "LAST_INSERT_ID" => {
                if let Some(v) = args.first() {
                    sess.last_insert_id = v.as_i64().unwrap_or(0) as u64;
                    self.call.engine.set_last_insert_id(sess.last_insert_id);
                    v.clone()
                } else {
                    Value::UInt(sess.last_insert_id)
                }
            }
            "REPEAT" => {
                let (Some(text), Some(n)) = (args.first().and_then(|v| v.to_text()), args.get(1).and_then(|v| v.as_i64())) else { return Some(Ok(Value::Null)) };
                let n = n.max(0) as usize;
                let max = self.call.ops.globals().hot.max_allowed_packet.load(std::sync::atomic::Ordering::Relaxed).max(0) as usize;
                // As MySQL: a result longer than max_allowed_packet is NULL.
                if text.len().saturating_mul(n) > max {
                    Value::Null
                } else {
                    Value::Bytes(text.repeat(n))
                }
            }
            "SLEEP" => {
                let secs = args.first().and_then(|v| v.as_f64()).unwrap_or(0.0);
                Value::Int(sleep(self.call.ctx, secs) as i64)
            }
            _ => return None,
        }))
    }
    fn word(&self, w: &str) -> Result<Value, SqlError> {
        if self.words_are_values {
            Ok(Value::str(w))
        } else {
            Err(SqlError::unknown_column(w, "field list"))
        }
    }
    fn param(&self, i: usize) -> Value {
        self.call.params.get(i).cloned().unwrap_or(Value::Null)
    }
    fn interruption(&self) -> Option<SqlError> {
        self.call.ctx.interruption().map(|why| why.error())
    }
}

/// SLEEP(n): a blocking wait the scheduler is told about, cut short by KILL,
/// max_execution_time or the client going away. Returns true if interrupted
/// (MySQL's SLEEP returns 1 then).
fn sleep(ctx: &ExecContext<'_>, secs: f64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.clamp(0.0, 365.0 * 86400.0));
    ctx.waits.wait_begin(WaitKind::Sleep);
    let mut interrupted = false;
    loop {
        if ctx.interruption().is_some() {
            interrupted = true;
            break;
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(std::time::Duration::from_millis(10)));
    }
    ctx.waits.wait_end();
    interrupted
}

fn eval_in(call: &mut Call<'_, '_>, e: &Expr) -> Result<Value, SqlError> {
    expr::eval(e, &mut SessionEnv { call, words_are_values: false })
}

pub fn read_sys_var(sess: &SessionState, ops: &dyn ServerOps, engine: &dyn EngineSession, scope: Option<&str>, name: &str) -> Result<Value, SqlError> {
    // Variables computed from session state.
    match name {
        "identity" | "last_insert_id" => return Ok(Value::UInt(sess.last_insert_id)),
        "warning_count" | "error_count" => return Ok(Value::Int(0)),
        "in_transaction" => return Ok(Value::Int(engine.in_transaction() as i64)),
        "timestamp" if !sess.vars.contains_key("timestamp") => return Ok(Value::Double(expr::unix_now() as f64)),
        "hostname" => return Ok(Value::str(&hostname())),
        "autocommit" if scope != Some("global") => return Ok(Value::Int(sess.autocommit as i64)),
        "pseudo_thread_id" => return Ok(Value::UInt(sess.connection_id as u64)),
        _ => {}
    }
    let def = vars::lookup(name).ok_or_else(|| SqlError::unknown_system_variable(name))?;
    match scope {
        Some("global") => {
            if def.scope == Scope::Session {
                return Err(SqlError::new(1238, "HY000", format!("Variable '{}' is a SESSION variable", name)));
            }
            Ok(ops.globals().get(def))
        }
        Some(_) if def.scope == Scope::Global => Err(SqlError::new(1238, "HY000", format!("Variable '{}' is a GLOBAL variable", name))),
        _ => {
            let v = sess.var(ops.globals(), def);
            if name == "socket" && matches!(&v, Value::Bytes(b) if b.is_empty()) {
                return Ok(Value::Null);
            }
            Ok(v)
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_else(|_| "localhost".into())
}

/// A column definition that describes a computed value; `binary`: the
/// expression is a binary string (`strtype`), so a string value is one.
fn column_for(name: &str, v: &Value, binary: bool) -> Column {
    let mut c = match v {
        Value::Bytes(b) if binary => {
            let mut c = Column::varbinary(name);
            c.length = b.len() as u32;
            c
        }
        Value::Int(_) => Column::computed(name, coltype::LONGLONG),
        Value::UInt(_) => {
            let mut c = Column::computed(name, coltype::LONGLONG);
            c.flags |= colflag::UNSIGNED;
            c
        }
        Value::Double(_) | Value::Float(_) => Column::computed(name, coltype::DOUBLE),
        Value::Null => Column::computed(name, coltype::NULL),
        Value::Date { .. } => Column::computed(name, coltype::DATE),
        Value::DateTime { .. } => Column::computed(name, coltype::DATETIME),
        Value::Time { .. } => Column::computed(name, coltype::TIME),
        Value::Bytes(_) => Column::varchar(name),
    };
    if !v.is_null() {
        c.flags |= colflag::NOT_NULL;
    }
    c
}

/// SELECT without a table: evaluate the list, return one row.
fn local_select(call: &mut Call<'_, '_>, sql: &str, toks: &[Token], sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let mut p = Parser::new(sql, toks);
    p.expect_kw("SELECT")?;
    while p.eat_kw("SQL_NO_CACHE") || p.eat_kw("SQL_CACHE") || p.eat_kw("DISTINCT") || p.eat_kw("ALL") || p.eat_kw("SQL_CALC_FOUND_ROWS") {}
    let mut names = Vec::new();
    let mut exprs = Vec::new();
    let mut binary = Vec::new();
    loop {
        let start = p.peek().map_or(sql.len(), |t| t.start);
        let first = p.pos;
        let e = p.expr()?;
        binary.push(turnstile_engine::strtype::is_binary_expr(sql, &toks[first..p.pos], &|_| false));
        let end = p.toks.get(p.pos.wrapping_sub(1)).map_or(sql.len(), |t| t.end);
        let mut name = sql[start..end].to_string();
        if p.eat_kw("AS") {
            name = p.name()?;
        } else if let Some(Tok::Word(w)) | Some(Tok::Quoted(w)) = p.peek().map(|t| &t.tok) {
            if !is_clause_keyword(w) {
                name = w.to_string();
                p.next();
            }
        } else if let Some(Tok::Str(s)) = p.peek().map(|t| &t.tok) {
            name = String::from_utf8_lossy(s).into_owned();
            p.next();
        }
        // MySQL names a string literal column by its contents (X'41' by its text).
        if let (Expr::Lit(Value::Bytes(b)), true) = (&e, name == sql[start..end]) {
            if matches!(toks.iter().find(|t| t.start == start).map(|t| &t.tok), Some(Tok::Str(_))) && !matches!(sql.as_bytes()[start], b'x' | b'X') {
                name = String::from_utf8_lossy(b).into_owned();
            }
        }
        names.push(name);
        exprs.push(e);
        if !p.eat_op(",") {
            break;
        }
    }
    if p.eat_kw("FROM") {
        p.expect_kw("DUAL")?;
    }
    let mut limit: Option<u64> = None;
    if p.eat_kw("WHERE") {
        let cond = p.expr()?;
        if expr::truthy(&eval_in(call, &cond)?) != Some(true) {
            limit = Some(0);
        }
    }
    if p.eat_kw("LIMIT") {
        let first = number(&mut p)?;
        limit = Some(
            if p.eat_op(",") {
                let n = number(&mut p)?;
                if first > 0 {
                    0
                } else {
                    n
                }
            } else if p.eat_kw("OFFSET") {
                let off = number(&mut p)?;
                if off > 0 {
                    0
                } else {
                    first
                }
            } else {
                first
            }
            .min(limit.unwrap_or(u64::MAX)),
        );
    }
    if p.eat_kw("FOR") {
        p.expect_kw("UPDATE")?;
    }
    p.eat_op(";");
    if !p.at_end() {
        return Err(p.error());
    }
    let mut row = Vec::with_capacity(exprs.len());
    for e in &exprs {
        row.push(eval_in(call, e)?);
    }
    let cols: Vec<Column> = names.iter().zip(&row).zip(&binary).map(|((n, v), &b)| column_for(n, v, b)).collect();
    sink.columns(&cols)?;
    if limit != Some(0) {
        sink.row(&row)?;
    }
    Ok(Outcome::Rows)
}

fn is_clause_keyword(w: &str) -> bool {
    ["FROM", "WHERE", "LIMIT", "FOR", "INTO", "ORDER", "GROUP", "HAVING", "UNION"].iter().any(|k| k.eq_ignore_ascii_case(w))
}

fn number(p: &mut Parser<'_>) -> Result<u64, SqlError> {
    match p.next().map(|t| &t.tok) {
        Some(Tok::Number(n)) => n.parse().map_err(|_| p.error()),
        _ => {
            p.pos -= 1;
            Err(p.error())
        }
    }
}

/// SET statements: variables, NAMES, CHARACTER SET, TRANSACTION.
fn set_statement(call: &mut Call<'_, '_>, sql: &str, toks: &[Token]) -> Result<Outcome, SqlError> {
    let mut p = Parser::new(sql, toks);
    p.expect_kw("SET")?;
    loop {
        set_one(call, &mut p)?;
        if !p.eat_op(",") {
            break;
        }
    }
    p.eat_op(";");
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(ok())
}

fn set_session(call: &mut Call<'_, '_>, name: &str, v: Value) -> Result<(), SqlError> {
    let def = vars::lookup(name).ok_or_else(|| SqlError::unknown_system_variable(name))?;
    assign(call, def, Some("session"), v)
}

fn set_one(call: &mut Call<'_, '_>, p: &mut Parser<'_>) -> Result<(), SqlError> {
    // SET NAMES x [COLLATE y]
    if p.eat_kw("NAMES") {
        let cs = if p.eat_kw("DEFAULT") { "utf8mb4".to_string() } else { p.name()?.to_ascii_lowercase() };
        let collation = if p.eat_kw("COLLATE") { Some(p.name()?.to_ascii_lowercase()) } else { None };
        check_charset(&cs)?;
        for var in ["character_set_client", "character_set_connection", "character_set_results"] {
            set_session(call, var, Value::str(&cs))?;
        }
        let coll = collation.unwrap_or_else(|| default_collation(&cs));
        set_session(call, "collation_connection", Value::str(&coll))?;
        return Ok(());
    }
    // SET CHARACTER SET x / SET CHARSET x
    if p.peek().is_some_and(|t| t.is_kw("CHARSET")) || (p.peek().is_some_and(|t| t.is_kw("CHARACTER")) && p.toks.get(p.pos + 1).is_some_and(|t| t.is_kw("SET"))) {
        if !p.eat_kw("CHARSET") {
            p.next();
            p.next();
        }
        let cs = if p.eat_kw("DEFAULT") { "utf8mb4".to_string() } else { p.name()?.to_ascii_lowercase() };
        check_charset(&cs)?;
        set_session(call, "character_set_client", Value::str(&cs))?;
        set_session(call, "character_set_results", Value::str(&cs))?;
        return Ok(());
    }
    // Scope keyword.
    let mut scope: Option<&'static str> = None;
    if p.eat_kw("GLOBAL") || p.eat_kw("PERSIST") || p.eat_kw("PERSIST_ONLY") {
        scope = Some("global");
    } else if p.eat_kw("SESSION") || p.eat_kw("LOCAL") {
        scope = Some("session");
    }
    if p.eat_kw("TRANSACTION") {
        return set_transaction(call, p, scope);
    }
    let target = p.next().ok_or_else(|| p.error())?;
    enum Target {
        User(String),
        Sys(Option<String>, String),
    }
    let target = match &target.tok {
        Tok::UserVar(n) => Target::User(n.clone()),
        Tok::SysVar(s, n) => Target::Sys(s.clone().or(scope.map(str::to_string)), n.clone()),
        Tok::Word(w) | Tok::Quoted(w) => {
            let mut name = w.as_str().to_ascii_lowercase();
            if p.eat_op(".") {
                // SET @@session.x is lexed as SysVar; `SET session.x` is not valid.
                name = p.name()?.to_ascii_lowercase();
            }
            Target::Sys(scope.map(str::to_string), name)
        }
        _ => {
            p.pos -= 1;
            return Err(p.error());
        }
    };
    if !(p.eat_op("=") || p.eat_op(":=")) {
        return Err(p.error());
    }
    let e = p.expr()?;
    match target {
        Target::User(name) => {
            let v = expr::eval(&e, &mut SessionEnv { call, words_are_values: false })?;
            call.sess.user_vars.insert(name, v);
            Ok(())
        }
        Target::Sys(scope, name) => {
            let def = vars::lookup(&name).ok_or_else(|| SqlError::unknown_system_variable(&name))?;
            let v = if e == Expr::Default {
                match scope.as_deref() {
                    Some("global") => return Err(SqlError::unsupported("SET GLOBAL ... = DEFAULT")),
                    _ => {
                        call.sess.vars.remove(def.name);
                        if def.name == "autocommit" {
                            return assign(call, def, None, call.ops.globals().get(def));
                        }
                        return Ok(());
                    }
                }
            } else {
                expr::eval(&e, &mut SessionEnv { call, words_are_values: true })?
            };
            assign(call, def, scope.as_deref(), v)
        }
    }
}

fn check_charset(cs: &str) -> Result<(), SqlError> {
    match cs {
        "utf8mb4" | "utf8" | "utf8mb3" | "latin1" | "binary" | "ascii" => Ok(()),
        other => Err(SqlError::new(1115, "42000", format!("Unknown character set: '{}'", other))),
    }
}

fn default_collation(cs: &str) -> String {
    match cs {
        "binary" => "binary".into(),
        "latin1" => "latin1_swedish_ci".into(),
        "ascii" => "ascii_general_ci".into(),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci".into(),
        _ => "utf8mb4_general_ci".into(),
    }
}

/// Store a system variable value with MySQL's scope rules and side effects.
fn assign(call: &mut Call<'_, '_>, def: &'static vars::VarDef, scope: Option<&str>, v: Value) -> Result<(), SqlError> {
    let v = vars::coerce(def, v)?;
    let v = if def.name == "sql_mode" {
        let text = v.to_text().map(|t| String::from_utf8_lossy(&t).to_ascii_uppercase()).unwrap_or_default();
        let mut parts: Vec<&str> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        Value::str(&parts.join(","))
    } else {
        v
    };
    if scope == Some("global") {
        if privileges(call.sess, call.ops, None) & privs::ADMIN == 0 {
            return Err(SqlError::specific_access_denied("SUPER or SYSTEM_VARIABLES_ADMIN"));
        }
        return call.ops.globals().set(def, v);
    }
    if def.scope == Scope::Global {
        return Err(SqlError::global_only_var(def.name));
    }
    if def.read_only {
        return Err(SqlError::read_only_var(def.name));
    }
    match def.name {
        "autocommit" => {
            let on = v == Value::Int(1);
            if on && !call.sess.autocommit && call.engine.in_transaction() {
                call.engine.commit(call.ctx)?;
            }
            call.sess.autocommit = on;
            call.engine.set_autocommit(on);
        }
        "transaction_isolation" | "tx_isolation" => {
            let Some(level) = vars::isolation_level(&v) else {
                return Err(SqlError::wrong_value_for_var(def.name, &String::from_utf8_lossy(&v.to_text().unwrap_or_default())));
            };
            set_session_isolation(call.sess, call.engine, level);
        }
        _ => {
            call.engine.set_variable(def.name, &v);
            call.sess.vars.insert(def.name, v);
        }
    }
    Ok(())
}

/// Make `level` the session's transaction_isolation (both names) and tell the
/// engine, which applies it from the next transaction.
pub fn set_session_isolation(sess: &mut SessionState, engine: &mut dyn EngineSession, level: &'static str) {
    sess.vars.insert("transaction_isolation", Value::str(level));
    sess.vars.insert("tx_isolation", Value::str(level));
    engine.set_variable("transaction_isolation", &Value::str(level));
}

/// SET [GLOBAL|SESSION] TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE
fn set_transaction(call: &mut Call<'_, '_>, p: &mut Parser<'_>, scope: Option<&str>) -> Result<(), SqlError> {
    loop {
        if p.eat_kw("ISOLATION") {
            p.expect_kw("LEVEL")?;
            let level = if p.eat_kw("READ") {
                if p.eat_kw("COMMITTED") {
                    "READ-COMMITTED"
                } else {
                    p.expect_kw("UNCOMMITTED")?;
                    "READ-UNCOMMITTED"
                }
            } else if p.eat_kw("REPEATABLE") {
                p.expect_kw("READ")?;
                "REPEATABLE-READ"
            } else {
                p.expect_kw("SERIALIZABLE")?;
                "SERIALIZABLE"
            };
            let def = vars::lookup("transaction_isolation").unwrap();
            assign(call, def, Some(scope.unwrap_or("session")), Value::str(level))?;
        } else if p.eat_kw("READ") {
            let ro = if p.eat_kw("ONLY") {
                1
            } else {
                p.expect_kw("WRITE")?;
                0
            };
            let def = vars::lookup("transaction_read_only").unwrap();
            assign(call, def, Some(scope.unwrap_or("session")), Value::Int(ro))?;
        } else {
            return Err(p.error());
        }
        if !(p.peek().is_some_and(|t| t.is_op(",")) && p.toks.get(p.pos + 1).is_some_and(|t| t.is_kw("ISOLATION") || t.is_kw("READ"))) {
            return Ok(());
        }
        p.next();
    }
}

fn kill(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("KILL")?;
    let query_only = if p.eat_kw("QUERY") {
        true
    } else {
        p.eat_kw("CONNECTION");
        false
    };
    let e = p.expr()?;
    p.eat_op(";");
    if !p.at_end() {
        return Err(p.error());
    }
    let id = eval_in(call, &e)?.as_i64().filter(|v| *v >= 0).ok_or_else(|| SqlError::wrong_arguments("KILL"))? as u64;
    call.ops.kill(call.sess, id, query_only)?;
    if id == call.sess.connection_id as u64 {
        if query_only {
            return Err(SqlError::query_interrupted());
        }
        call.sess.kill_self = true;
    }
    Ok(ok())
}

fn account(call: &mut Call<'_, '_>, stmt: AccountStmt, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let show = match &stmt {
        AccountStmt::ShowGrants { user } => Some(match user {
            Some(u) if !u.user.is_empty() => format!("{}@{}", u.user, u.host),
            _ => format!("{}@{}", call.sess.account_user, call.sess.account_host),
        }),
        _ => None,
    };
    let lines = call.ops.account(call.sess, stmt)?;
    match show {
        Some(who) => {
            sink.columns(&[Column::varchar(&format!("Grants for {}", who))])?;
            for l in lines {
                sink.row(&[Value::str(&l)])?;
            }
            Ok(Outcome::Rows)
        }
        None => Ok(ok_rows(0)),
    }
}

/// The LIKE pattern or WHERE Variable_name = 'x' filter of a SHOW statement.
enum Filter {
    All,
    Like(String),
    Eq(Vec<String>),
}

impl Filter {
    fn parse(p: &mut Parser<'_>) -> Result<Filter, SqlError> {
        if p.eat_kw("LIKE") {
            return match p.next().map(|t| &t.tok) {
                Some(Tok::Str(s)) => Ok(Filter::Like(String::from_utf8_lossy(s).into_owned())),
                _ => Err(p.error()),
            };
        }
        if p.eat_kw("WHERE") {
            p.name()?;
            if p.eat_op("=") {
                return Ok(Filter::Eq(vec![p.name()?]));
            }
            if p.eat_kw("LIKE") {
                return Ok(Filter::Like(p.name()?));
            }
            p.expect_kw("IN")?;
            p.expect_op("(")?;
            let mut v = vec![p.name()?];
            while p.eat_op(",") {
                v.push(p.name()?);
            }
            p.expect_op(")")?;
            return Ok(Filter::Eq(v));
        }
        Ok(Filter::All)
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Filter::All => true,
            Filter::Like(pat) => expr::like_match(name, pat),
            Filter::Eq(names) => names.iter().any(|n| n.eq_ignore_ascii_case(name)),
        }
    }
}

fn name_value_rows(sink: &mut dyn RowSink, first: &str, rows: impl Iterator<Item = (String, Value)>) -> Result<Outcome, SqlError> {
    sink.columns(&[Column::varchar(first), Column::varchar("Value")])?;
    for (n, v) in rows {
        sink.row(&[Value::str(&n), v])?;
    }
    Ok(Outcome::Rows)
}

fn show(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    if let Some(stmt) = account_sql::parse(&mut p)? {
        return account(call, stmt, sink);
    }
    p.expect_kw("SHOW")?;
    let mut global = false;
    if p.eat_kw("GLOBAL") {
        global = true;
    } else {
        p.eat_kw("SESSION");
        p.eat_kw("LOCAL");
    }
    let full = p.eat_kw("FULL");
    let end = |p: &mut Parser<'_>| -> Result<(), SqlError> {
        p.eat_op(";");
        if p.at_end() {
            Ok(())
        } else {
            Err(p.error())
        }
    };
    if p.eat_kw("VARIABLES") {
        let f = Filter::parse(&mut p)?;
        end(&mut p)?;
        let globals = call.ops.globals();
        let sess = &*call.sess;
        let rows = vars::VARS.iter().filter(|d| f.matches(d.name)).map(|d| {
            let v = if global { globals.get(d) } else { read_sys_var(sess, call.ops, call.engine, None, d.name).unwrap_or(Value::Null) };
            (d.name.to_string(), vars::show_value(d, &v))
        });
        let rows: Vec<_> = rows.collect();
        return name_value_rows(sink, "Variable_name", rows.into_iter());
    }
    if p.eat_kw("STATUS") {
        let f = Filter::parse(&mut p)?;
        end(&mut p)?;
        let rows: Vec<_> = call.ops.status(call.sess, global).into_iter().filter(|(n, _)| f.matches(n)).map(|(n, v)| (n.to_string(), v)).collect();
        return name_value_rows(sink, "Variable_name", rows.into_iter());
    }
    if p.eat_kw("PROCESSLIST") {
        end(&mut p)?;
        let admin = privileges(call.sess, call.ops, None) & privs::ADMIN != 0;
        let cols: Vec<Column> = ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]
            .iter()
            .map(|n| if *n == "Id" || *n == "Time" { Column::computed(n, coltype::LONGLONG) } else { Column::varchar(n) })
            .collect();
        sink.columns(&cols)?;
        let mut rows = call.ops.processlist();
        rows.sort_by_key(|r| r.id);
        for r in rows {
            if !admin && r.user != call.sess.user {
                continue;
            }
            let info = r.info.map(|i| if full { i } else { i.chars().take(100).collect() });
            sink.row(&[
                Value::UInt(r.id),
                Value::str(&r.user),
                Value::str(&r.host),
                r.db.as_deref().map_or(Value::Null, Value::str),
                Value::str(r.command),
                Value::UInt(r.time),
                Value::str(r.state),
                info.as_deref().map_or(Value::Null, Value::str),
            ])?;
        }
        return Ok(Outcome::Rows);
    }
    if p.eat_kw("DATABASES") || p.eat_kw("SCHEMAS") {
        let f = Filter::parse(&mut p)?;
        end(&mut p)?;
        let mut names: Vec<String> = turnstile_engine::catalog::SYSTEM_SCHEMAS.iter().map(|s| s.to_string()).collect();
        names.extend(call.ops.engine().list_databases());
        names.sort();
        sink.columns(&[Column::varchar("Database")])?;
        for n in names {
            if !f.matches(&n) {
                continue;
            }
            if n != "information_schema" && privileges(call.sess, call.ops, Some(&n)) & privs::ALL == 0 {
                continue;
            }
            sink.row(&[Value::str(&n)])?;
        }
        return Ok(Outcome::Rows);
    }
    if p.eat_kw("WARNINGS") || p.eat_kw("ERRORS") {
        sink.columns(&[Column::varchar("Level"), Column::computed("Code", coltype::LONG), Column::varchar("Message")])?;
        return Ok(Outcome::Rows);
    }
    if p.eat_kw("ENGINES") {
        sink.columns(&["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"].map(Column::varchar))?;
        let name = call.ops.engine().name();
        sink.row(&[Value::str("InnoDB"), Value::str("DEFAULT"), Value::str(&format!("Served by Turnstile's {} engine", name)), Value::str("YES"), Value::str("NO"), Value::str("YES")])?;
        return Ok(Outcome::Rows);
    }
    if p.eat_kw("COLLATION") {
        let f = Filter::parse(&mut p)?;
        sink.columns(&[
            Column::varchar("Collation"),
            Column::varchar("Charset"),
            Column::computed("Id", coltype::LONGLONG),
            Column::varchar("Default"),
            Column::varchar("Compiled"),
            Column::computed("Sortlen", coltype::LONGLONG),
        ])?;
        for (c, cs, id, def) in [
            ("utf8mb4_general_ci", "utf8mb4", 45, "Yes"),
            ("utf8mb4_bin", "utf8mb4", 46, ""),
            ("utf8mb4_0900_ai_ci", "utf8mb4", 255, ""),
            ("utf8mb3_general_ci", "utf8mb3", 33, "Yes"),
            ("latin1_swedish_ci", "latin1", 8, "Yes"),
            ("binary", "binary", 63, "Yes"),
        ] {
            if f.matches(c) {
                sink.row(&[Value::str(c), Value::str(cs), Value::Int(id), Value::str(def), Value::str("Yes"), Value::Int(1)])?;
            }
        }
        return Ok(Outcome::Rows);
    }
    if (p.eat_kw("CHARACTER") && p.eat_kw("SET")) || p.eat_kw("CHARSET") {
        let f = Filter::parse(&mut p)?;
        sink.columns(&[Column::varchar("Charset"), Column::varchar("Description"), Column::varchar("Default collation"), Column::computed("Maxlen", coltype::LONGLONG)])?;
        for (cs, d, c, n) in [
            ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4),
            ("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
            ("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
            ("binary", "Binary pseudo charset", "binary", 1),
        ] {
            if f.matches(cs) {
                sink.row(&[Value::str(cs), Value::str(d), Value::str(c), Value::Int(n)])?;
            }
        }
        return Ok(Outcome::Rows);
    }
    // SHOW TABLES, COLUMNS, CREATE TABLE, INDEX, TABLE STATUS: the engine's.
    engine_statement(call, sql, sink)
}

#[cfg(test)]
mod tests {

    #[test]
    fn direct_engine_only_for_plain_dml() {
        use super::is_direct_engine as d;
        assert!(d("SELECT c FROM sbtest1 WHERE id=?"));
        assert!(d("insert into t values (?)"));
        assert!(d("REPLACE INTO t VALUES (1)"));
        assert!(d("UPDATE t SET k=k+1 WHERE id=?"));
        assert!(d("DELETE FROM t WHERE id=?"));
        // Table-less SELECTs and session references take the full path.
        assert!(!d("SELECT 1"));
        assert!(!d("SELECT @x FROM t"));
        assert!(!d("SELECT CONNECTION_ID() FROM t"));
        assert!(!d("INSERT INTO t VALUES (ROW_COUNT())"));
        assert!(!d("SET @a = 1"));
        assert!(!d("SHOW TABLES"));
    }

    use super::*;

    #[test]
    fn table_detection() {
        let t = |s: &str| has_table(&lex::tokenize(s).unwrap());
        assert!(t("SELECT c FROM sbtest1 WHERE id=1"));
        assert!(!t("SELECT 1"));
        assert!(!t("SELECT 1 FROM DUAL"));
        assert!(!t("SELECT (SELECT 1 FROM x)"));
    }
}
