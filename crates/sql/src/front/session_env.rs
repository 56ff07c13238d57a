//! What expressions see of the session: @@system variables (some computed
//! from session state), @user variables, session functions (DATABASE(),
//! USER(), LAST_INSERT_ID(), REPEAT(), SLEEP(), ...), placeholders, and why
//! the statement must stop.

use super::Call;
use crate::expr::{self, Env, Expr};
use crate::vars::{self, Scope};
use crate::{ServerOps, SessionState, SERVER_VERSION};
use turnstile_engine::{EngineSession, ExecContext, SqlError, Value, WaitKind};

/// Evaluation environment for one statement.
pub(super) struct SessionEnv<'c, 'a, 'b> {
    pub(super) call: &'c mut Call<'a, 'b>,
    /// In SET, a bare word is a value (ON, utf8mb4); in SELECT it is a column.
    pub(super) words_are_values: bool,
}

impl Env for SessionEnv<'_, '_, '_> {
    fn division_by_zero(&mut self) {
        if self.call.sess.sql_mode(self.call.ops.globals()).error_for_division_by_zero() {
            self.call.ctx.warn(1365, "Division by 0");
        }
    }
    fn truncated(&mut self, warning: bool, message: String) {
        if warning {
            self.call.ctx.warn(1292, message);
        } else {
            self.call.ctx.note(1292, message);
        }
    }
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
                // As MySQL: a result longer than max_allowed_packet is NULL, with Warning 1301.
                if text.len().saturating_mul(n) > max {
                    self.call.ctx.warn(1301, format!("Result of repeat() was larger than max_allowed_packet ({}) - truncated", max));
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

/// Evaluate `e` for the statement of `call` (bare words are columns).
pub(super) fn eval_in(call: &mut Call<'_, '_>, e: &Expr) -> Result<Value, SqlError> {
    expr::eval(e, &mut SessionEnv { call, words_are_values: false })
}

/// @@name as the session sees it (`scope`: the `global`/`session` of
/// @@global.name, None for plain @@name), or the error MySQL gives.
pub fn read_sys_var(sess: &SessionState, ops: &dyn ServerOps, engine: &dyn EngineSession, scope: Option<&str>, name: &str) -> Result<Value, SqlError> {
    sys_var_value(sess, ops, engine.in_transaction(), scope, name)
}

/// `read_sys_var` for a caller that knows whether a transaction is open
/// (information_schema.SESSION_VARIABLES is filled without the engine).
pub fn sys_var_value(sess: &SessionState, ops: &dyn ServerOps, in_transaction: bool, scope: Option<&str>, name: &str) -> Result<Value, SqlError> {
    // Variables computed from session state.
    match name {
        "identity" | "last_insert_id" => return Ok(Value::UInt(sess.last_insert_id)),
        "warning_count" => return Ok(Value::UInt(sess.diagnostics_count)),
        "error_count" => return Ok(Value::Int(super::diagnostics::error_count(&sess.diagnostics))),
        "in_transaction" => return Ok(Value::Int(in_transaction as i64)),
        "timestamp" => return Ok(Value::Double(turnstile_engine::clock::now_micros() as f64 / 1e6)),
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

/// The machine's name (@@hostname).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_else(|_| "localhost".into())
}
