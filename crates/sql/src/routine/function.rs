//! Stored functions called in expressions (`SELECT f1()`, `WHERE a = f(2)`,
//! `INSERT ... VALUES (f())`, `SET @x = f(2)`, `select f(t.x) from t`, in
//! routines and triggers).
//!
//! Design: the front rewrites the statement; the engine never runs a
//! routine and never calls back into the front. A statement is first run
//! as it is (nothing is paid by statements without stored functions); when
//! the engine (or the front's evaluator) answers "FUNCTION x does not
//! exist" (1305) before running anything, `rewrite` looks for a stored
//! function of that name and writes each of its calls out of the statement,
//! which is then run again (`front::statement`):
//! - a call whose arguments do not depend on the statement's rows (they
//!   evaluate alone as `SELECT arg, ...`) is run now by the interpreter
//!   (`invoke`: EXECUTE privilege 1370, argument count 1318, SQL SECURITY,
//!   the function's database, no recursion 1424, no result set 1415, no
//!   RETURN 1321) and replaced by its value as a literal (a select item
//!   keeps its text as its column name);
//! - a call with arguments from the rows (`f(t.x)`) is inlined when the
//!   body is `RETURN expr` of an expression that reads no table: the
//!   parameters become the (converted) arguments, so it is evaluated per
//!   row by the engine. Any other body with row arguments is 1235.
//!
//! Why not a SQLite user function calling back into the interpreter: the
//! interpreter needs the session's engine, which is in the middle of
//! stepping the statement that would call it; re-entering it is what the
//! engine's design (one statement at a time per session, paused result
//! sets) rules out. Evaluating a call once instead of once per row gives
//! MariaDB's answer only when the function has no side effects, so a
//! function that writes, sets user variables, calls procedures or reads
//! RAND()/UUID()-like values is refused (1235) in a statement over rows
//! (UPDATE, DELETE, anything with FROM); in `SELECT f()`, `SET`, `DO` and
//! `INSERT ... VALUES` MariaDB runs it once per call, as here.
//!
//! While a function runs, the tables of the statement that called it are
//! in `SessionState::trigger_tables` (with "" marking "in a function"), so a
//! write to one is 1442 and a statement that commits is 1422, as for
//! triggers. Nesting (calls in arguments, in bodies, inlined expressions)
//! is bounded by `stored_function_max_nesting` (ERR 1436) and the stack.

use super::interp::{cast_of, Interp};
use super::parse::{self, Stmt};
use crate::front::Call;
use std::cell::Cell;
use turnstile_engine::{privs, Column, RoutineKind, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

thread_local! {
    /// How many rewrites of this thread's statement are open (nested).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// The stored function that made `sql` fail with `e`: the name in a
/// "FUNCTION db.name does not exist" (1305), or for a syntax error at a
/// `(` (1064: `db.f(...)` is no SQL the engine knows) or an unknown column
/// (1054: the front's SET reads `db.f` as one) the first qualified call of
/// a function that exists. None for any other error.
pub(crate) fn unknown_function(call: &mut Call<'_, '_>, e: &SqlError, sql: &str) -> Option<String> {
    if (e.code == 1064 && e.message.contains("near '(")) || e.code == 1054 {
        let toks = lex::tokenize(sql).ok()?;
        return toks.windows(4).enumerate().find_map(|(i, w)| {
            let (db, name) = (w[0].ident()?, w[2].ident()?);
            let table_context = i > 0 && ["FROM", "JOIN", "INTO", "UPDATE", "TABLE", "REFERENCES"].iter().any(|k| toks[i - 1].is_kw(k));
            let is_call = w[1].is_op(".") && w[3].is_op("(") && !table_context;
            (is_call && call.engine.routine_load(db, RoutineKind::Function, name).ok()??.kind == RoutineKind::Function).then(|| name.to_string())
        });
    }
    if e.code != 1305 {
        return None;
    }
    let rest = e.message.strip_prefix("FUNCTION ")?.strip_suffix(" does not exist")?;
    let name = rest.split_once('.').map_or(rest, |(_, n)| n);
    (!name.is_empty()).then(|| name.to_string())
}

/// The statement without the calls of the stored function `name` (see the
/// module header), or None when there is none to write out (the 1305
/// stands). With it, the values of the `?` left in the statement (those of
/// a call's arguments are the call's). `round`: how many rewrites of this
/// statement came before (inlined bodies).
pub(crate) fn rewrite(call: &mut Call<'_, '_>, sql: &str, name: &str, round: usize) -> Result<Option<(String, Vec<Value>)>, SqlError> {
    let kw = turnstile_sqltext::scan::first_keyword(sql);
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    // A definition keeps its calls (a view's, a trigger's, a routine's).
    if matches!(kw.as_str(), "CREATE" | "ALTER") && !toks.iter().take(4).any(|t| t.is_kw("TABLE")) {
        return Ok(None);
    }
    let sites = call_sites(&toks, name);
    if sites.is_empty() {
        return Ok(None);
    }
    if kw == "EXECUTE" {
        let what = if toks.get(1).is_some_and(|t| t.is_kw("IMMEDIATE")) { "EXECUTE IMMEDIATE" } else { "EXECUTE..USING" };
        return Err(SqlError::new(1970, "42000", format!("{} does not support subqueries or stored functions", what)));
    }
    let limit = super::setting(call, "stored_function_max_nesting").max(1) as usize;
    if DEPTH.get() + round >= limit {
        return Err(SqlError::new(1436, "HY000", format!("Stored function calls nest deeper than {} (stored_function_max_nesting)", limit)));
    }
    turnstile_engine::stack::check()?;
    DEPTH.set(DEPTH.get() + 1);
    let r = write_out(call, &kw, sql, &toks, &sites);
    DEPTH.set(DEPTH.get() - 1);
    r.map(Some)
}

/// One call in the statement: tokens [start, close] (`db . name ( ... )`).
struct Site {
    db: Option<String>,
    start: usize,
    open: usize,
    close: usize,
}

/// The outermost calls of `name` (calls inside their arguments are written
/// out when the arguments are evaluated or, inlined, in the next round).
fn call_sites(toks: &[Token], name: &str) -> Vec<Site> {
    const NAMES_A_TABLE: [&str; 8] = ["INTO", "TABLE", "REFERENCES", "UPDATE", "FROM", "JOIN", "WITH", "RECURSIVE"];
    let mut sites: Vec<Site> = Vec::new();
    let mut i = 0;
    while i + 1 < toks.len() {
        let is_call = toks[i].ident().is_some_and(|n| n.eq_ignore_ascii_case(name)) && toks[i + 1].is_op("(");
        let Some(close) = is_call.then(|| parens::closing(toks, i + 1)).flatten() else {
            i += 1;
            continue;
        };
        let qualified = i >= 2 && toks[i - 1].is_op(".") && toks[i - 2].ident().is_some();
        let before = if qualified { i.checked_sub(3) } else { i.checked_sub(1) };
        if before.is_some_and(|b| toks[b].is_op(".") || NAMES_A_TABLE.iter().any(|k| toks[b].is_kw(k))) {
            i += 1;
            continue;
        }
        let (db, start) = if qualified { (toks[i - 2].ident().map(str::to_string), i - 2) } else { (None, i) };
        sites.push(Site { db, start, open: i + 1, close });
        i = close + 1;
    }
    sites
}

/// The text of `toks` (a call's argument) with its `?` written as the
/// literals of `params`, the values of the `?` from the first on.
fn with_literals(sql: &str, toks: &[Token], params: &[Value]) -> String {
    let (Some(first), Some(end)) = (toks.first(), toks.last()) else { return String::new() };
    let (mut out, mut last, mut k) = (String::with_capacity(end.end - first.start + 16), first.start, 0);
    for t in toks.iter().filter(|t| matches!(t.tok, Tok::Param)) {
        out.push_str(&sql[last..t.start]);
        out.push_str(&crate::dialect::literal(params.get(k).unwrap_or(&Value::Null)));
        (last, k) = (t.end, k + 1);
    }
    out.push_str(&sql[last..end.end]);
    out
}

fn count_params(toks: &[Token]) -> usize {
    toks.iter().filter(|t| matches!(t.tok, Tok::Param)).count()
}

/// The statement with every site replaced by its value or its inlined body.
fn write_out(call: &mut Call<'_, '_>, kw: &str, sql: &str, toks: &[Token], sites: &[Site]) -> Result<(String, Vec<Value>), SqlError> {
    let all: Vec<Value> = call.params.to_vec();
    let mut params = Vec::with_capacity(all.len());
    let mut next_param = 0;
    // The first token after the last call written out.
    let mut next_tok = 0;
    let items = crate::dialect::unaliased_select_items(toks);
    let tables = statement_tables(call, toks);
    let mut out = String::with_capacity(sql.len() + 32);
    let mut last = 0;
    let mut item = 0;
    let mut item_changed = false;
    for s in sites {
        while items.get(item).is_some_and(|&(_, end)| end <= s.start) {
            if std::mem::take(&mut item_changed) {
                crate::dialect::alias_item(&mut out, &mut last, sql, &toks[items[item].0..items[item].1]);
            }
            item += 1;
        }
        let over_rows = kw == "UPDATE" || toks.iter().enumerate().any(|(i, t)| (i < s.start || i > s.close) && t.is_kw("FROM") && !toks.get(i + 1).is_some_and(|n| n.is_kw("DUAL")));
        let before = count_params(&toks[next_tok..s.start]);
        params.extend(all.iter().skip(next_param).take(before).cloned());
        let inside = count_params(&toks[s.start..=s.close]);
        let own = all.get(next_param + before..next_param + before + inside).unwrap_or(&[]);
        next_param += before + inside;
        let text = replacement(call, sql, toks, s, own, over_rows, &tables)?;
        out.push_str(&sql[last..toks[s.start].start]);
        out.push_str(&text);
        last = toks[s.close].end;
        next_tok = s.close + 1;
        item_changed |= items.get(item).is_some_and(|&(start, end)| start <= s.start && s.close < end);
    }
    while items.get(item).is_some_and(|&(_, end)| end <= toks.len()) {
        if std::mem::take(&mut item_changed) {
            crate::dialect::alias_item(&mut out, &mut last, sql, &toks[items[item].0..items[item].1]);
        }
        item += 1;
    }
    out.push_str(&sql[last..]);
    params.extend(all.into_iter().skip(next_param));
    Ok((out, params))
}

/// A stored function, parsed.
struct Function {
    row: turnstile_engine::RoutineRow,
    header: parse::Header,
    body: Vec<Stmt>,
}

/// The text that replaces one call.
fn replacement(call: &mut Call<'_, '_>, sql: &str, toks: &[Token], s: &Site, params: &[Value], over_rows: bool, tables: &[String]) -> Result<String, SqlError> {
    let name = toks[s.open - 1].ident().unwrap_or("");
    let f = load(call, s.db.as_deref(), name)?;
    let mut args = Vec::new();
    if s.close > s.open + 1 {
        let mut k = 0;
        for a in parens::split_top_level(&toks[s.open + 1..s.close], ",") {
            args.push(with_literals(sql, a, params.get(k..).unwrap_or(&[])));
            k += count_params(a);
        }
    }
    if args.len() != f.header.params.len() {
        return Err(SqlError::new(1318, "42000", format!("Incorrect number of arguments for FUNCTION {}.{}; expected {}, got {}", f.row.db, f.row.name, f.header.params.len(), args.len())));
    }
    match evaluate_args(call, &args) {
        Ok(values) => {
            if over_rows && has_side_effects(&f.header.body) {
                return Err(SqlError::unsupported("a stored function with side effects (writes, user variables, CALL, RAND()) called in a statement over rows"));
            }
            let v = invoke(call, &f, values, tables)?;
            Ok(crate::dialect::literal(&v))
        }
        Err(e) if matches!(e.code, 1054 | 1109) => inline(call, &f, &args),
        Err(e) => Err(e),
    }
}

/// The function `[db.]name`, after the caller's EXECUTE privilege on its
/// database (1370 before 1305, as MariaDB: an unknown database is not probed).
fn load(call: &mut Call<'_, '_>, db: Option<&str>, name: &str) -> Result<Function, SqlError> {
    let home = match db {
        Some(d) => d.to_string(),
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    if crate::front::privileges_on(call, &home) & privs::EXECUTE == 0 {
        let (u, h) = (call.sess.account_user.clone(), call.sess.account_host.clone());
        return Err(SqlError::new(1370, "42000", format!("execute command denied to user '{}'@'{}' for routine '{}.{}'", u, h, home, name)));
    }
    let row = super::load(call, Some(&home), RoutineKind::Function, name)?;
    let (header, body) = super::parsed(call, &row)?;
    Ok(Function { row, header, body })
}

/// The arguments' values, evaluated alone (1054: one names a column of the
/// statement's rows).
fn evaluate_args(call: &mut Call<'_, '_>, args: &[String]) -> Result<Vec<Value>, SqlError> {
    if args.is_empty() {
        return Ok(Vec::new());
    }
    let list: Vec<String> = args.iter().map(|a| format!("({})", a)).collect();
    let mut cap = OneRow { row: None };
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &[] };
    crate::front::routine_statement(&mut inner, &format!("SELECT {}", list.join(", ")), &mut cap)?;
    Ok(cap.row.unwrap_or_else(|| vec![Value::Null; args.len()]))
}

/// Keeps the one row of `SELECT args`.
struct OneRow {
    row: Option<Vec<Value>>,
}

impl RowSink for OneRow {
    fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
        self.row.get_or_insert_with(|| r.to_vec());
        Ok(())
    }
}

/// A function's body may not send a result set (a procedure it calls, or
/// a SELECT that CREATE did not see): 1415.
struct NoResultSet;

impl RowSink for NoResultSet {
    fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
        Err(no_result_set())
    }
    fn row(&mut self, _: &[Value]) -> Result<(), SqlError> {
        Err(no_result_set())
    }
}

pub(super) fn no_result_set() -> SqlError {
    SqlError::new(1415, "0A000", "Not allowed to return a result set from a function")
}

/// Run the function with its arguments' values: its RETURN value,
/// converted to the declared type. `tables`: those of the statement that
/// calls it, which it may not write (1442).
fn invoke(call: &mut Call<'_, '_>, f: &Function, values: Vec<Value>, tables: &[String]) -> Result<Value, SqlError> {
    let key = format!("{}.{}", f.row.db, f.row.name).to_ascii_lowercase();
    if call.sess.routine_stack.contains(&key) {
        return Err(SqlError::new(1424, "HY000", "Recursive stored functions and triggers are not allowed"));
    }
    turnstile_engine::stack::check()?;
    let guard = super::Activation::enter(call, &f.row, key)?;
    let marks = call.sess.trigger_tables.len();
    call.sess.trigger_tables.push(String::new());
    call.sess.trigger_tables.extend(tables.iter().cloned());
    let r = {
        let mut inner = Interp::new(&mut *call, false);
        inner.bind_params(&f.header.params, values).and_then(|()| inner.run_body(&f.body, &mut NoResultSet)).and_then(|v| match v {
            Some(v) => inner.coerce(v, &f.header.returns),
            None => Err(SqlError::new(1321, "2F005", format!("FUNCTION {} ended without RETURN", f.row.name))),
        })
    };
    call.sess.trigger_tables.truncate(marks);
    guard.leave(call)?;
    r
}

/// The body's expression when it is `RETURN expr` of one that reads no
/// table, with each parameter replaced by its argument (converted to the
/// parameter's type) and the whole converted to the declared type.
fn inline(call: &mut Call<'_, '_>, f: &Function, args: &[String]) -> Result<String, SqlError> {
    let refuse = || SqlError::unsupported("a stored function called with arguments from the statement's rows unless its body is RETURN of an expression without a query");
    let expr = match f.body.as_slice() {
        [Stmt::Return(e)] => e,
        [Stmt::Block { body, .. }] => match body.as_slice() {
            [Stmt::Return(e)] => e,
            _ => return Err(refuse()),
        },
        _ => return Err(refuse()),
    };
    let toks = lex::tokenize(expr).map_err(|e| SqlError::syntax(&expr[e.at..]))?;
    if toks.iter().any(|t| t.is_kw("SELECT")) || has_side_effects(expr) {
        return Err(refuse());
    }
    let mut seen = Vec::new();
    if calls_itself(call, &f.row.db, &toks, &f.row.name, &mut seen) {
        return Err(SqlError::new(1424, "HY000", "Recursive stored functions and triggers are not allowed"));
    }
    substitute_params(expr, &f.header.params, args, &f.header.returns)
}

/// `expr` (a function's RETURN) with each of `params` replaced by its
/// argument converted to the parameter's type, the whole converted to
/// `returns`. The arguments are whole expressions (their parentheses
/// balance: `call_spans` split them), each written in parentheses.
pub fn substitute_params(expr: &str, params: &[parse::Param], args: &[String], returns: &str) -> Result<String, SqlError> {
    let toks = lex::tokenize(expr).map_err(|e| SqlError::syntax(&expr[e.at..]))?;
    let mut out = String::with_capacity(expr.len() + 32);
    let mut last = 0;
    for (i, t) in toks.iter().enumerate() {
        let Some(n) = t.ident() else { continue };
        let after_dot = i > 0 && toks[i - 1].is_op(".");
        let before_paren_or_dot = toks.get(i + 1).is_some_and(|x| x.is_op("(") || x.is_op("."));
        let is_name = !after_dot && !before_paren_or_dot;
        let Some(p) = params.iter().position(|p| is_name && p.name.eq_ignore_ascii_case(n)) else { continue };
        let arg = args.get(p).ok_or_else(|| SqlError::internal("an argument for each parameter"))?;
        out.push_str(&expr[last..t.start]);
        out.push_str(&converted(arg, &params[p].ty));
        last = t.end;
    }
    out.push_str(&expr[last..]);
    Ok(converted(&out, returns))
}

/// A call in a statement: its byte range, its arguments' texts.
pub type CallSpan = (std::ops::Range<usize>, Vec<String>);

/// The calls of `name` in a statement (the fuzz target's view of
/// `call_sites`).
pub fn call_spans(sql: &str, name: &str) -> Result<Vec<CallSpan>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    Ok(call_sites(&toks, name)
        .iter()
        .map(|s| {
            let args = if s.close > s.open + 1 { parens::split_top_level(&toks[s.open + 1..s.close], ",").iter().map(|a| with_literals(sql, a, &[])).collect() } else { Vec::new() };
            (toks[s.start].start..toks[s.close].end, args)
        })
        .collect())
}

/// Does an expression (of a function of `db`) call the function `name`,
/// directly or through the bodies of the functions it calls? Each
/// function is looked at once (`seen`), at most 64 of them.
fn calls_itself(call: &mut Call<'_, '_>, db: &str, toks: &[Token], name: &str, seen: &mut Vec<String>) -> bool {
    for w in toks.windows(2) {
        let Some(callee) = w[0].ident().filter(|_| w[1].is_op("(")) else { continue };
        if callee.eq_ignore_ascii_case(name) {
            return true;
        }
        if seen.len() >= 64 || seen.iter().any(|s| s.eq_ignore_ascii_case(callee)) {
            continue;
        }
        seen.push(callee.to_string());
        let Ok(Some(row)) = call.engine.routine_load(db, RoutineKind::Function, callee) else { continue };
        let Ok(body) = lex::tokenize(&row.body) else { continue };
        if calls_itself(call, db, &body, name, seen) {
            return true;
        }
    }
    false
}

fn converted(expr: &str, ty: &str) -> String {
    match cast_of(ty) {
        Some(c) => format!("CAST(({}) AS {})", expr, c),
        None => format!("({})", expr),
    }
}

/// Could running the function once instead of once per row change the
/// answer: a write, a user variable, a CALL, a value that changes per call.
fn has_side_effects(body: &str) -> bool {
    const WORDS: [&str; 15] = ["INSERT", "UPDATE", "DELETE", "REPLACE", "CALL", "CREATE", "DROP", "ALTER", "TRUNCATE", "RAND", "UUID", "UUID_SHORT", "SYSDATE", "NEXTVAL", "SLEEP"];
    let Ok(toks) = lex::tokenize(body) else { return true };
    toks.iter().any(|t| matches!(t.tok, Tok::UserVar(_)) || WORDS.iter().any(|w| t.is_kw(w)))
}

/// While a function or trigger runs: FLUSH and RESET are refused (1336, a
/// procedure's that a function calls: CREATE FUNCTION saw only the CALL).
pub(crate) fn check_in_function(call: &Call<'_, '_>, kw: &str) -> Result<(), SqlError> {
    if !call.sess.trigger_tables.is_empty() && matches!(kw, "FLUSH" | "RESET") {
        return Err(SqlError::new(1336, "0A000", format!("{} is not allowed in stored function or trigger", kw)));
    }
    Ok(())
}

/// While a function runs: may the statement `kw ... toks` write its
/// target? Not a table of a statement that called the function or fired a
/// trigger (1442, as MariaDB).
pub(crate) fn check_write(call: &Call<'_, '_>, kw: &str, toks: &[Token]) -> Result<(), SqlError> {
    if call.sess.trigger_tables.is_empty() || !matches!(kw, "INSERT" | "REPLACE" | "UPDATE" | "DELETE") {
        return Ok(());
    }
    let Some((db, table, _, _)) = super::fire::target(kw, toks) else { return Ok(()) };
    let Some(db) = db.or_else(|| call.sess.db.clone()) else { return Ok(()) };
    let key = format!("{}.{}", db, table).to_ascii_lowercase();
    if call.sess.trigger_tables.contains(&key) {
        return Err(SqlError::new(
            1442,
            "HY000",
            format!("Can't update table '{}' in stored function/trigger because it is already used by statement which invoked this stored function/trigger", table),
        ));
    }
    Ok(())
}

/// The tables a statement names (after FROM, JOIN, INTO, UPDATE, TABLE and
/// in a FROM list), as `db.table`: those a function it calls may not write.
pub(crate) fn statement_tables(call: &Call<'_, '_>, toks: &[Token]) -> Vec<String> {
    const BEFORE: [&str; 5] = ["FROM", "JOIN", "INTO", "UPDATE", "TABLE"];
    let home = call.sess.db.clone().unwrap_or_default();
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !BEFORE.iter().any(|k| t.is_kw(k)) {
            continue;
        }
        let Some(first) = toks.get(i + 1).and_then(|n| n.ident()) else { continue };
        let key = match (toks.get(i + 2), toks.get(i + 3).and_then(|n| n.ident())) {
            (Some(dot), Some(second)) if dot.is_op(".") => format!("{}.{}", first, second),
            _ => format!("{}.{}", home, first),
        };
        out.push(key.to_ascii_lowercase());
    }
    out
}

/// Statements a function's body may not hold, refused by CREATE FUNCTION
/// as MariaDB does: a result set (1415), a commit (1422), LOCK (1314),
/// FLUSH and RESET (1336).
pub fn check_body(body: &[Stmt]) -> Result<(), SqlError> {
    for s in body {
        match s {
            Stmt::Sql(sql) => check_statement(sql)?,
            Stmt::Block { body, .. } | Stmt::While { body, .. } | Stmt::Repeat { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. } => check_body(body)?,
            Stmt::If { arms, other } | Stmt::Case { arms, other, .. } => {
                for (_, b) in arms {
                    check_body(b)?;
                }
                if let Some(b) = other {
                    check_body(b)?;
                }
            }
            Stmt::Handler { body, .. } => check_body(std::slice::from_ref(body))?,
            _ => {}
        }
    }
    Ok(())
}

fn check_statement(sql: &str) -> Result<(), SqlError> {
    let kw = turnstile_sqltext::scan::first_keyword(sql);
    let second = |k: &str| lex::tokenize(sql).is_ok_and(|t| t.get(1).is_some_and(|x| x.is_kw(k)));
    match kw.as_str() {
        "SELECT" | "WITH" | "SHOW" | "DESCRIBE" | "DESC" | "EXPLAIN" | "TABLE" | "VALUES" | "CHECK" | "ANALYZE" | "OPTIMIZE" | "REPAIR" | "CHECKSUM" | "CACHE" => Err(no_result_set()),
        "LOAD" if second("INDEX") => Err(no_result_set()),
        "CREATE" | "DROP" if second("TEMPORARY") => Ok(()),
        "START" if !second("TRANSACTION") => Ok(()),
        "COMMIT" | "BEGIN" | "START" | "CREATE" | "DROP" | "ALTER" | "RENAME" | "TRUNCATE" | "GRANT" | "REVOKE" | "INSTALL" | "UNINSTALL" | "BACKUP" => {
            Err(SqlError::new(1422, "HY000", "Explicit or implicit commit is not allowed in stored function or trigger"))
        }
        "ROLLBACK" if !lex::tokenize(sql).is_ok_and(|t| t.get(1).is_some_and(|x| x.is_kw("TO"))) => {
            Err(SqlError::new(1422, "HY000", "Explicit or implicit commit is not allowed in stored function or trigger"))
        }
        "LOCK" | "UNLOCK" => Err(SqlError::new(1314, "0A000", "LOCK is not allowed in stored procedures")),
        "FLUSH" | "RESET" => Err(SqlError::new(1336, "0A000", format!("{} is not allowed in stored function or trigger", kw))),
        _ => Ok(()),
    }
}
