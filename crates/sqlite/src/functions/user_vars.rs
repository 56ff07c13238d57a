//! `ts_uv_get(name)` / `ts_uv_set(name, value)`: the session's user
//! variables as a statement assigns them row by row (rewrite/user_vars.rs
//! writes the calls; the name is its bytes).
//!
//! The values live in a thread-local map for the length of one engine call:
//! `SqliteSession::execute` and `resume` move the session's map in before
//! SQLite runs and take it back after (exec.rs `with_user_vars`), so a
//! statement that pauses and resumes on another worker thread still sees
//! its values. Neither function is deterministic: SQLite calls them for
//! every row.

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::cell::RefCell;
use std::collections::HashMap;
use turnstile_engine::Value;

/// User variables one statement may create; past it, ERR 1105 naming the
/// limit (a statement's names are its own text's, so this binds only a
/// statement with that many distinct `@name :=`).
pub const MAX_USER_VARS: usize = 10_000;

thread_local! {
    static USER_VARS: RefCell<HashMap<String, SV>> = RefCell::new(HashMap::new());
}

pub(crate) fn register(db: &Connection) -> rusqlite::Result<()> {
    // The front's mark of a string variable's value (expr_type::USER_VAR_MARK),
    // which the rewriter drops: an identity wherever a text skips it.
    db.create_scalar_function(turnstile_sqltext::expr_type::USER_VAR_MARK, 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, |ctx| Ok(owned(ctx.get_raw(0))))?;
    db.create_scalar_function("ts_uv_get", 1, FunctionFlags::SQLITE_UTF8, |ctx| {
        let name = name_of(ctx.get_raw(0));
        Ok(USER_VARS.with_borrow(|m| m.get(&name).cloned().unwrap_or(SV::Null)))
    })?;
    db.create_scalar_function("ts_uv_set", 2, FunctionFlags::SQLITE_UTF8, |ctx| {
        let name = name_of(ctx.get_raw(0));
        let v = owned(ctx.get_raw(1));
        USER_VARS.with_borrow_mut(|m| {
            if m.len() >= MAX_USER_VARS && !m.contains_key(&name) {
                return Err(rusqlite::Error::UserFunctionError(format!("ts:1105:A statement may set at most {} user variables", MAX_USER_VARS).into()));
            }
            m.insert(name, v.clone());
            Ok(v)
        })
    })?;
    Ok(())
}

/// The type of user variable `name` as an operand while a statement runs
/// (None: unset, NULL, or no statement running on this thread).
pub(crate) fn user_var_type(name: &str) -> Option<turnstile_sqltext::expr_type::ExprType> {
    use turnstile_sqltext::expr_type::{user_var, VarValue};
    let kind = USER_VARS.with_borrow(|m| match m.get(name)? {
        SV::Null => None,
        SV::Integer(_) => Some(VarValue::Int),
        SV::Real(_) => Some(VarValue::Real),
        SV::Text(_) => Some(VarValue::Str),
        SV::Blob(_) => Some(VarValue::Bytes),
    })?;
    Some(user_var(kind))
}

/// The value, owned; text that is not UTF-8 (bytes a string column
/// holds) stays bytes.
fn owned(v: ValueRef<'_>) -> SV {
    match v {
        ValueRef::Null => SV::Null,
        ValueRef::Integer(n) => SV::Integer(n),
        ValueRef::Real(f) => SV::Real(f),
        ValueRef::Text(b) => match std::str::from_utf8(b) {
            Ok(s) => SV::Text(s.to_string()),
            Err(_) => SV::Blob(b.to_vec()),
        },
        ValueRef::Blob(b) => SV::Blob(b.to_vec()),
    }
}

fn name_of(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Blob(b) | ValueRef::Text(b) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    }
}

/// Run `f` with `vars` as the thread's user variables; they are updated
/// with what the statement assigned.
pub(crate) fn with_user_vars<R>(vars: &mut HashMap<String, Value>, f: impl FnOnce() -> R) -> R {
    if vars.is_empty() {
        return f();
    }
    USER_VARS.with_borrow_mut(|m| {
        m.clear();
        m.extend(vars.iter().map(|(k, v)| (k.clone(), to_sqlite(v))));
    });
    let r = f();
    USER_VARS.with_borrow_mut(|m| {
        for (k, v) in m.drain() {
            vars.insert(k, from_sqlite(v));
        }
    });
    r
}

fn to_sqlite(v: &Value) -> SV {
    match v {
        Value::Null => SV::Null,
        Value::Int(n) => SV::Integer(*n),
        Value::UInt(n) if *n <= i64::MAX as u64 => SV::Integer(*n as i64),
        Value::Float(f) => SV::Real(f64::from(*f)),
        Value::Double(f) => SV::Real(*f),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => SV::Text(s.to_string()),
            Err(_) => SV::Blob(b.clone()),
        },
        other => SV::Text(other.to_text().map(|c| String::from_utf8_lossy(&c).into_owned()).unwrap_or_default()),
    }
}

fn from_sqlite(v: SV) -> Value {
    match v {
        SV::Null => Value::Null,
        SV::Integer(n) => Value::Int(n),
        SV::Real(f) => Value::Double(f),
        SV::Text(s) => Value::Bytes(s.into_bytes()),
        SV::Blob(b) => Value::Bytes(b),
    }
}
