//! Expressions of session statements: a small precedence-climbing parser over
//! the shared lexer's tokens, and an evaluator.
//!
//! This covers what clients really send without a table: literals (a hex or
//! bit literal is a binary string, and a number in numeric context), @@system and
//! @user variables, arithmetic and comparison, CONCAT/IF/IFNULL and friends,
//! session functions (DATABASE(), USER(), CONNECTION_ID(), ...) and scalar
//! subqueries such as `(SELECT CONCAT(@@sql_mode, ',X'))`.
//!
//! This module holds the tree (`Expr`) and what the evaluator needs from the
//! session (`Env`); the work is split by job:
//! - `cursor`: `Parser`, the front's cursor over tokens (turnstile-sqltext's
//!   `TokenCursor` plus placeholder numbering and names), which the statement
//!   parsers of the front and `account_sql` also use;
//! - `parser`: the expression grammar on that cursor;
//! - `eval`: evaluation (operators, comparison, numeric context of hybrid literals);
//! - `functions`: the pure built-in functions and LIKE;
//! - `clock`: the current date and time (civil dates from turnstile-sqltext).
//!
//! The paths `expr::{Parser, eval, Env, like_match, ...}` stay as they were.

pub(crate) mod clock;
mod cursor;
mod eval;
mod functions;
mod parser;

pub use clock::{now_value, unix_now};
pub use cursor::Parser;
pub use eval::{eval, truthy};
pub use functions::like_match;

use turnstile_engine::{SqlError, Value};

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    /// A hex or bit literal (`0x41`, `b'1'`): a binary string that is a
    /// number in numeric context (arithmetic, comparison with a number,
    /// CAST to a number, numeric functions): `eval_num`.
    Hybrid(Vec<u8>),
    SysVar(Option<String>, String),
    UserVar(String),
    /// A bare word: a column reference in SELECT, a keyword value in SET (ON, utf8mb4).
    Word(String),
    Func(String, Vec<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    IsNull(Box<Expr>, bool),
    Case(Option<Box<Expr>>, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// (SELECT expr): only single-value subqueries without tables.
    Subquery(Box<Expr>),
    Default,
    /// The n-th `?` placeholder (prepared statements).
    Param(usize),
}

/// Children are moved to a heap stack and freed one by one, so a deep tree
/// (a chain of 100,000 `+ 1` terms is 100,000 levels deep without a single
/// parenthesis) is freed without recursing on a small thread stack.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut e) = pending.pop() {
            take_children(&mut e, &mut pending);
        }
    }
}

/// Move `e`'s children (those not yet taken) onto `out`.
fn take_children(e: &mut Expr, out: &mut Vec<Expr>) {
    fn take(b: &mut Expr, out: &mut Vec<Expr>) {
        if !matches!(b, Expr::Default) {
            out.push(std::mem::replace(b, Expr::Default));
        }
    }
    match e {
        Expr::Neg(x) | Expr::Not(x) | Expr::Subquery(x) | Expr::IsNull(x, _) => take(x, out),
        Expr::Bin(_, l, r) => {
            take(l, out);
            take(r, out);
        }
        Expr::Func(_, args) => out.append(args),
        Expr::Case(operand, arms, els) => {
            if let Some(o) = operand {
                take(o, out);
            }
            for (w, t) in arms.iter_mut() {
                take(w, out);
                take(t, out);
            }
            if let Some(x) = els {
                take(x, out);
            }
        }
        _ => {}
    }
}

/// What the evaluator needs from the session.
pub trait Env {
    fn sys_var(&self, scope: Option<&str>, name: &str) -> Result<Value, SqlError>;
    fn user_var(&self, name: &str) -> Value;
    /// Session functions (DATABASE(), USER(), ...). `None` if not one of them.
    fn session_function(&mut self, name: &str, args: &[Value]) -> Option<Result<Value, SqlError>>;
    /// A bare word in an expression: a column in SELECT, a keyword value in SET.
    fn word(&self, word: &str) -> Result<Value, SqlError>;
    /// The value bound to placeholder `i`.
    fn param(&self, i: usize) -> Value;
    /// Why the running statement must stop (KILL QUERY, max_execution_time,
    /// the client gone), as the error it ends with.
    fn interruption(&self) -> Option<SqlError> {
        None
    }
    /// A division by zero (`/`, DIV, `%`) gave NULL: the session raises
    /// MariaDB's Warning 1365 under ERROR_FOR_DIVISION_BY_ZERO. (Nothing
    /// the front evaluates writes a table, so it is never the error.)
    fn division_by_zero(&mut self) {}
    /// A string read as a number did not hold one all through: MariaDB's
    /// Warning 1292 (a Note, `warning` false, when only blanks followed).
    fn truncated(&mut self, _warning: bool, _message: String) {}
}

/// An `Env` for the unit tests of this module: @@x is `<x>`, every @user
/// variable 5, bare words unknown columns, placeholders NULL.
#[cfg(test)]
mod test_env {
    use super::{eval, Env, Parser};
    use turnstile_engine::{SqlError, Value};
    use turnstile_sqltext::lex::tokenize;

    pub struct TestEnv;

    impl Env for TestEnv {
        fn sys_var(&self, _: Option<&str>, name: &str) -> Result<Value, SqlError> {
            Ok(Value::str(&format!("<{}>", name)))
        }
        fn user_var(&self, _: &str) -> Value {
            Value::Int(5)
        }
        fn session_function(&mut self, _: &str, _: &[Value]) -> Option<Result<Value, SqlError>> {
            None
        }
        fn word(&self, w: &str) -> Result<Value, SqlError> {
            Err(SqlError::unknown_column(w, "field list"))
        }
        fn param(&self, _: usize) -> Value {
            Value::Null
        }
    }

    /// Parse all of `sql` as one expression and evaluate it.
    pub fn eval_text(sql: &str) -> Value {
        let toks = tokenize(sql).unwrap();
        let mut p = Parser::new(sql, &toks);
        let e = p.expr().unwrap();
        assert!(p.exhausted(), "trailing tokens in {}", sql);
        eval(&e, &mut TestEnv).unwrap()
    }
}
