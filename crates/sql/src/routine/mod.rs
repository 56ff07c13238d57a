//! Stored procedures and functions, in the SQL front (any engine that
//! stores `RoutineRow`s can hold them; the engine never runs one):
//! - `parse`: CREATE PROCEDURE / FUNCTION and routine bodies;
//! - `interp`: the interpreter CALL runs;
//! - `subst`: a routine's variables bound as parameters of its statements;
//! - `catalog`: CREATE, DROP, SHOW CREATE, SHOW ... STATUS, with privileges.
//!
//! Here: CALL, and the call of a procedure from a routine (`call_routine`):
//! arguments, OUT parameters, SQL SECURITY, the routine's database, the
//! recursion limit. Stored functions called in expressions are
//! `function`'s.

mod catalog;
mod fire;
pub mod function;
mod interp;
pub mod parse;
mod subst;
pub mod trigger;

pub use fire::dml as trigger_dml;

pub use catalog::{create, drop, show};

use crate::front::Call;
use interp::Interp;
use parse::Mode;
use turnstile_engine::{privs, Done, Outcome, RoutineKind, RoutineRow, RowSink, SqlError, Value};

/// Which statements this module answers: CREATE/DROP PROCEDURE/FUNCTION,
/// CALL, SHOW CREATE PROCEDURE/FUNCTION and SHOW PROCEDURE/FUNCTION STATUS.
pub fn handles(kw: &str, toks: &[turnstile_sqltext::lex::Token]) -> bool {
    let at = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    let routine = |i: usize| at(i, "PROCEDURE") || at(i, "FUNCTION");
    match kw {
        "CALL" => true,
        "DROP" => routine(1),
        "SHOW" => (at(1, "CREATE") && routine(2)) || (routine(1) && (at(2, "STATUS") || at(2, "CODE"))),
        "CREATE" => toks.iter().take(12).take_while(|t| !t.is_op("(")).any(|t| t.is_kw("PROCEDURE") || (t.is_kw("FUNCTION") && !toks.iter().any(|x| x.is_kw("SONAME")))),
        _ => false,
    }
}

/// A top-level CALL statement.
pub fn call_statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let max_depth = setting(call, "routine_max_nesting").max(1) as usize;
    let stmt = parse::parse_body(sql, max_depth)?.pop();
    let Some(parse::Stmt::Call { db, name, args }) = stmt else { return Err(SqlError::syntax(sql)) };
    let mut top = Interp::new(call, true);
    call_routine(&mut top, db.as_deref(), &name, &args, sink)?;
    let affected = top.affected_rows;
    Ok(Outcome::Done(Done { affected_rows: affected, ..Default::default() }))
}

/// A statement the interpreter runs outside any routine: MariaDB's
/// anonymous block `BEGIN NOT ATOMIC ... END`, and `SELECT ... INTO @a, @b`
/// (one row into user variables: none is warning 1329, more is 1172, a
/// different number of columns 1222).
pub fn anonymous_statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let max_depth = setting(call, "routine_max_nesting").max(1) as usize;
    let body = parse::parse_body(sql, max_depth)?;
    catalog::warn_trailing_into(call, &body);
    let mut top = Interp::new(call, true);
    top.run_body(&body, sink)?;
    let affected = top.affected_rows;
    Ok(Outcome::Done(Done { affected_rows: affected, ..Default::default() }))
}

/// Is this SELECT one with an INTO clause of user variables at its top
/// level (`SELECT a INTO @x FROM t`, `... FROM t INTO @x, @y`)? A byte
/// check first: most SELECTs have no "into" at all.
pub fn selects_into_variables(sql: &str) -> bool {
    if !sql.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"into")) {
        return false;
    }
    let Ok(toks) = turnstile_sqltext::lex::tokenize(sql) else { return false };
    let into = turnstile_sqltext::parens::find_top_level(&toks, 0, |_, t| t.is_kw("INTO"));
    into.is_some_and(|i| matches!(toks.get(i + 1).map(|n| &n.tok), Some(turnstile_sqltext::lex::Tok::UserVar(_))))
}

/// The first token past a statement that ends at token `end`: the token
/// there, or the one after a `;` there (a second statement: it needs
/// CLIENT_MULTI_STATEMENTS, without which the whole text is 1064 at it, as
/// in MariaDB; before, `DROP PROCEDURE IF EXISTS p; CREATE ...` ran the DROP
/// and answered OK for a CREATE it never ran).
pub(crate) fn extra_token(toks: &[turnstile_sqltext::lex::Token], end: usize) -> Option<usize> {
    match toks.get(end) {
        Some(t) if t.is_op(";") => (end + 1 < toks.len()).then_some(end + 1),
        Some(_) => Some(end),
        None => None,
    }
}

/// A numeric setting as the session sees it (its own value, else the global).
pub(crate) fn setting(call: &Call<'_, '_>, name: &str) -> i64 {
    let Some(def) = crate::vars::lookup(name) else { return 0 };
    let v = call.sess.var(call.ops.globals(), def);
    v.as_i64().or_else(|| String::from_utf8_lossy(&v.to_text().unwrap_or_default()).trim().parse().ok()).unwrap_or(0)
}

fn not_found(kind: RoutineKind, db: &str, name: &str) -> SqlError {
    SqlError::new(1305, "42000", format!("{} {}.{} does not exist", kind.keyword(), db, name))
}

/// A routine's row, by name in `db` (the current database when None).
fn load(call: &mut Call<'_, '_>, db: Option<&str>, kind: RoutineKind, name: &str) -> Result<RoutineRow, SqlError> {
    let db = match db {
        Some(d) => d.to_string(),
        None => call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    call.engine.routine_load(&db, kind, name)?.ok_or_else(|| not_found(kind, &db, name))
}

/// The parsed parameters and body of a stored routine.
fn parsed(call: &mut Call<'_, '_>, row: &RoutineRow) -> Result<(parse::Header, Vec<parse::Stmt>), SqlError> {
    let max_depth = setting(call, "routine_max_nesting").max(1) as usize;
    let text = format!("CREATE {} {}", row.kind.keyword(), row.definition);
    let h = parse::parse_create(&text)?.ok_or_else(|| SqlError::internal("a stored routine that does not parse"))?;
    let body = parse::parse_body(&h.body, max_depth)?;
    Ok((h, body))
}

/// Run the procedure `[db.]name` from `caller` (a CALL statement's empty
/// activation, or a routine), passing `args` (expressions of the caller).
pub(crate) fn call_routine(caller: &mut Interp<'_, '_, '_>, db: Option<&str>, name: &str, args: &[String], sink: &mut dyn RowSink) -> Result<(), SqlError> {
    // The privilege first: a database the caller may not use is not probed (MariaDB: 1370 either way).
    let home = match db {
        Some(d) => d.to_string(),
        None => caller.call.sess.db.clone().ok_or_else(SqlError::no_database)?,
    };
    if crate::front::privileges_on(caller.call, &home) & privs::EXECUTE == 0 {
        let (u, h) = (caller.call.sess.account_user.clone(), caller.call.sess.account_host.clone());
        return Err(SqlError::new(1370, "42000", format!("execute command denied to user '{}'@'{}' for routine '{}.{}'", u, h, home, name)));
    }
    let row = load(caller.call, Some(&home), RoutineKind::Procedure, name)?;
    let (h, body) = parsed(caller.call, &row)?;
    if h.params.len() != args.len() {
        return Err(SqlError::new(1318, "42000", format!("Incorrect number of arguments for PROCEDURE {}.{}; expected {}, got {}", row.db, row.name, h.params.len(), args.len())));
    }
    // OUT and INOUT arguments must be variables: of the caller, or `@x`.
    for (i, (p, a)) in h.params.iter().zip(args).enumerate() {
        if p.mode != Mode::In && !is_variable(caller, a) {
            return Err(SqlError::new(1414, "42000", format!("OUT or INOUT argument {} for routine {}.{} is not a variable or NEW pseudo-variable in BEFORE trigger", i + 1, row.db, row.name)));
        }
    }
    let mut values = Vec::with_capacity(args.len());
    for (p, a) in h.params.iter().zip(args) {
        // DEFAULT or IGNORE from EXECUTE ... USING (bind.rs): no value for an IN parameter.
        if p.mode != Mode::Out && (a.trim().eq_ignore_ascii_case("DEFAULT") || a.trim().eq_ignore_ascii_case("IGNORE")) {
            return Err(SqlError::new(4032, "HY000", "Default/ignore value is not supported for such parameter usage"));
        }
        values.push(if p.mode == Mode::Out { Value::Null } else { caller.eval(a)? });
    }
    let key = format!("{}.{}", row.db, row.name).to_ascii_lowercase();
    let max = setting(caller.call, "max_sp_recursion_depth").max(0) as usize;
    if caller.call.sess.routine_stack.iter().filter(|k| **k == key).count() > max {
        return Err(SqlError::new(1456, "HY000", format!("Recursive limit {} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}", max, row.name)));
    }
    turnstile_engine::stack::check()?;
    let outs = {
        let guard = Activation::enter(caller.call, &row, key)?;
        let mut inner = Interp::new(&mut *caller.call, true);
        let r = inner.bind_params(&h.params, values).and_then(|()| inner.run_body(&body, sink));
        let outs: Vec<Value> = (0..h.params.len()).map(|i| inner.param_value(i)).collect();
        caller.affected_rows += inner.affected_rows;
        guard.leave(caller.call)?;
        r?;
        outs
    };
    for ((p, a), v) in h.params.iter().zip(args).zip(outs) {
        if p.mode != Mode::In {
            caller.assign_arg(a.trim(), v)?;
        }
    }
    Ok(())
}

fn is_variable(caller: &Interp<'_, '_, '_>, arg: &str) -> bool {
    let a = arg.trim();
    (a.starts_with('@') && !a.starts_with("@@") && a.len() > 1 && !a.contains(char::is_whitespace)) || caller.has_var(a)
}

/// What running a routine changes in the session, undone when it ends: the
/// account its statements run as (SQL SECURITY DEFINER), the current
/// database (the routine's own), the stack of running routines.
pub(super) struct Activation {
    account: Option<(String, String)>,
    db: Option<Option<String>>,
}

impl Activation {
    pub(super) fn enter(call: &mut Call<'_, '_>, row: &RoutineRow, key: String) -> Result<Activation, SqlError> {
        let mut a = Activation { account: None, db: None };
        if call.sess.db.as_deref() != Some(row.db.as_str()) {
            call.engine.set_database(Some(&row.db))?;
            a.db = Some(call.sess.db.replace(row.db.clone()));
        }
        if !row.invoker {
            let (u, h) = row.definer.rsplit_once('@').unwrap_or((row.definer.as_str(), "%"));
            let old = (std::mem::replace(&mut call.sess.account_user, u.to_string()), std::mem::replace(&mut call.sess.account_host, h.to_string()));
            a.account = Some(old);
            call.sess.priv_cache = None;
        }
        call.sess.routine_stack.push(key);
        Ok(a)
    }

    pub(super) fn leave(self, call: &mut Call<'_, '_>) -> Result<(), SqlError> {
        call.sess.routine_stack.pop();
        if let Some((u, h)) = self.account {
            call.sess.account_user = u;
            call.sess.account_host = h;
            call.sess.priv_cache = None;
        }
        if let Some(db) = self.db {
            call.engine.set_database(db.as_deref())?;
            call.sess.db = db;
        }
        Ok(())
    }
}
