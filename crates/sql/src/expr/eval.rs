//! Evaluation of an `Expr` against a session (`Env`): variables, operators
//! with MySQL's NULL and overflow rules, comparison, CASE, the lazy functions
//! (IF, IFNULL/COALESCE, BENCHMARK), and the numeric context in which a hex
//! or bit literal is its number. Other functions go to the session first,
//! then to the pure built-ins of `functions.rs`.

use super::functions::builtin;
use super::{Env, Expr};
use turnstile_engine::{SqlError, Value};

/// SQL truth of a value: NULL is unknown, numbers are true unless zero,
/// strings by their numeric prefix.
pub fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        other => Some(other.as_f64().unwrap_or(0.0) != 0.0),
    }
}

/// A truth value as SQL returns it: 1, 0 or NULL.
pub(super) fn bool_val(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

/// A value's text (lossy UTF-8); None for NULL.
pub(super) fn text(v: &Value) -> Option<String> {
    v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned())
}

fn is_numeric(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Float(_))
}

/// `BINARY x`, `BINARY(x)` or `CAST(x AS BINARY[(n)])`: a binary string.
fn is_binary_string(e: &Expr) -> bool {
    match e {
        Expr::Func(n, _) if n == "BINARY" => true,
        Expr::Func(n, args) if n == "CAST" => matches!(args.get(1), Some(Expr::Lit(Value::Bytes(t))) if t == b"BINARY"),
        _ => false,
    }
}

/// Whether comparison `op` holds for ordering `o`.
fn cmp_holds(op: &str, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        "=" | "<=>" => o == Equal,
        "<>" => o != Equal,
        "<" => o == Less,
        ">" => o == Greater,
        "<=" => o != Greater,
        _ => o != Less,
    }
}

/// MySQL comparison: numbers numerically, strings as utf8mb4_general_ci
/// does (case-insensitively, trailing spaces ignored: `'a  ' = 'A'`), the
/// engine's `ts_ci` rule.
pub(super) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if is_numeric(a) || is_numeric(b) {
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            return Some(x.cmp(y));
        }
        return a.as_f64()?.partial_cmp(&b.as_f64()?);
    }
    Some(turnstile_sqltext::collate::ci_compare(text(a)?.as_bytes(), text(b)?.as_bytes()))
}

fn arith(op: &str, a: &Value, b: &Value) -> Result<Value, SqlError> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    if let (Some(x), Some(y), true) = (integral(a), integral(b), matches!((a, b), (Value::UInt(_), _) | (_, Value::UInt(_)))) {
        // An unsigned operand (a hex literal in numeric context): exact in i128.
        let r = match op {
            "+" => Some(x + y),
            "-" => Some(x - y),
            "*" => x.checked_mul(y),
            "DIV" | "%" if y == 0 => return Ok(Value::Null),
            "DIV" => Some(x / y),
            "%" => Some(x % y),
            _ => None,
        };
        if let Some(r) = r {
            return match (i64::try_from(r), u64::try_from(r)) {
                (Ok(v), _) => Ok(Value::Int(v)),
                (_, Ok(v)) => Ok(Value::UInt(v)),
                _ => Err(SqlError::new(1690, "22003", format!("BIGINT UNSIGNED value is out of range in '({} {} {})'", x, op, y))),
            };
        }
    }
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let r = match op {
            "+" => x.checked_add(*y),
            "-" => x.checked_sub(*y),
            "*" => x.checked_mul(*y),
            "DIV" => {
                if *y == 0 {
                    return Ok(Value::Null);
                }
                x.checked_div(*y)
            }
            "%" => {
                if *y == 0 {
                    return Ok(Value::Null);
                }
                x.checked_rem(*y)
            }
            _ => None,
        };
        if let Some(r) = r {
            return Ok(Value::Int(r));
        }
        if op != "/" {
            return Err(SqlError::new(1690, "22003", format!("BIGINT value is out of range in '({} {} {})'", x, op, y)));
        }
    }
    let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
    // A DOUBLE past its range is MariaDB's ERR 1690, not infinity.
    let finite = |r: f64| {
        if r.is_infinite() {
            return Err(SqlError::new(1690, "22003", format!("DOUBLE value is out of range in '{} {} {}'", show_double(x), op, show_double(y))));
        }
        Ok(Value::Double(r))
    };
    Ok(match op {
        "+" => finite(x + y)?,
        "-" => finite(x - y)?,
        "*" => finite(x * y)?,
        "/" => {
            if y == 0.0 {
                Value::Null
            } else if (x / y).is_infinite() {
                finite(x / y)?
            } else {
                // MySQL's division yields a DECIMAL with 4 more digits of scale.
                Value::Bytes(format!("{:.4}", x / y).into_bytes())
            }
        }
        "DIV" => {
            if y == 0.0 {
                Value::Null
            } else {
                Value::Int((x / y).trunc() as i64)
            }
        }
        "%" => {
            if y == 0.0 {
                Value::Null
            } else {
                Value::Double(x % y)
            }
        }
        _ => Value::Null,
    })
}

/// A double as MariaDB's messages write one (`1e308`).
fn show_double(v: f64) -> String {
    turnstile_wire::value::format_float(v)
}

/// Is `v` a divisor of zero (a number, or a string whose number is 0)?
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Int(i) => *i == 0,
        Value::UInt(u) => *u == 0,
        other => other.as_f64().unwrap_or(0.0) == 0.0,
    }
}

fn integral(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

/// An operand of arithmetic (`what`: the type MariaDB reads it as, DOUBLE
/// or DECIMAL): a string whose number does not take all of it raises
/// Warning 1292 (a Note when only blanks follow), as MariaDB's. A decimal's
/// digits (also bytes here) are a clean number and raise nothing.
fn eval_operand(e: &Expr, env: &mut dyn Env, what: &str) -> Result<Value, SqlError> {
    let v = eval_num(e, env)?;
    if let Value::Bytes(b) = &v {
        use turnstile_sqltext::int_text::Rest;
        match turnstile_sqltext::num_text::rest(b) {
            Rest::Nothing => {}
            rest => env.truncated(rest == Rest::Garbage, turnstile_sqltext::num_text::truncated_message(what, b)),
        }
    }
    Ok(v)
}

/// `e` in numeric context: a hybrid literal is its number, anything else its value.
fn eval_num(e: &Expr, env: &mut dyn Env) -> Result<Value, SqlError> {
    match e {
        Expr::Hybrid(b) => Ok(Value::UInt(turnstile_sqltext::lex::hybrid_u64(b))),
        _ => eval(e, env),
    }
}

/// A comparison of a hybrid literal with a number compares numbers (`0x41 = 65`);
/// with a string, strings (`0x41 = 'A'`).
fn hybrids_as_numbers(l: &Expr, r: &Expr, a: Value, b: Value) -> (Value, Value) {
    let num = |e: &Expr, v: Value, other: &Value| match e {
        Expr::Hybrid(h) if is_numeric(other) => Value::UInt(turnstile_sqltext::lex::hybrid_u64(h)),
        _ => v,
    };
    let a2 = num(l, a, &b);
    let b2 = num(r, b, &a2);
    (a2, b2)
}

/// CAST(x AS SIGNED/UNSIGNED/DECIMAL/DOUBLE...): numeric context for x.
fn is_numeric_cast(args: &[Expr]) -> bool {
    matches!(args.get(1), Some(Expr::Lit(Value::Bytes(t))) if matches!(&t[..], b"SIGNED" | b"UNSIGNED" | b"INTEGER" | b"INT" | b"DECIMAL" | b"DOUBLE" | b"FLOAT" | b"REAL"))
}

/// Functions whose arguments are numbers (a hybrid literal passed to one is its number).
const NUMERIC_ARGS: &[&str] = &["ABS", "ROUND", "FLOOR", "CEIL", "CEILING", "TRUNCATE", "SIGN", "MOD", "POW", "POWER", "SQRT"];

pub fn eval(e: &Expr, env: &mut dyn Env) -> Result<Value, SqlError> {
    // A left-deep chain (`1+1+...`) is built by loops, not recursion: its
    // depth is met here first.
    turnstile_engine::stack::check()?;
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Hybrid(b) => Value::Bytes(b.clone()),
        Expr::SysVar(scope, name) => env.sys_var(scope.as_deref(), name)?,
        Expr::UserVar(name) => env.user_var(name),
        Expr::Word(w) => env.word(w)?,
        Expr::Default => Value::Null,
        Expr::Param(i) => env.param(*i),
        Expr::Subquery(inner) => eval(inner, env)?,
        Expr::Neg(x) => match eval_operand(x, env, "DOUBLE")? {
            // -(-9223372036854775808) is 9223372036854775808 (MariaDB).
            Value::Int(i64::MIN) => Value::UInt(1 << 63),
            Value::Int(i) => Value::Int(-i),
            Value::UInt(u) if u <= i64::MAX as u64 => Value::Int(-(u as i64)),
            // -9223372036854775808 is the smallest BIGINT, not a double.
            Value::UInt(u) if u == 1 << 63 => Value::Int(i64::MIN),
            Value::Null => Value::Null,
            // A decimal's digits; `-''` and `-'.'` are the DOUBLE 0 (MariaDB).
            Value::Bytes(b) if b.iter().any(u8::is_ascii_digit) && b.iter().all(|c| c.is_ascii_digit() || *c == b'.') => {
                let mut n = b"-".to_vec();
                n.extend_from_slice(&b);
                Value::Bytes(n)
            }
            other => Value::Double(0.0 - other.as_f64().unwrap_or(0.0)),
        },
        Expr::Not(x) => bool_val(truthy(&eval(x, env)?).map(|b| !b)),
        Expr::IsNull(x, neg) => Value::Int((eval(x, env)?.is_null() != *neg) as i64),
        Expr::Bin(op, l, r) => {
            let cmp = matches!(*op, "=" | "<>" | "<" | ">" | "<=" | ">=" | "<=>");
            let reads = match *op {
                "+" | "-" | "*" | "/" | "%" => Some("DOUBLE"),
                "DIV" => Some("DECIMAL"),
                _ => None,
            };
            let a = match reads {
                Some(what) => eval_operand(l, env, what)?,
                None if cmp => eval(l, env)?,
                None => eval_num(l, env)?,
            };
            match *op {
                "AND" => {
                    let ta = truthy(&a);
                    if ta == Some(false) {
                        return Ok(Value::Int(0));
                    }
                    let tb = truthy(&eval_num(r, env)?);
                    return Ok(match (ta, tb) {
                        (_, Some(false)) => Value::Int(0),
                        (Some(true), Some(true)) => Value::Int(1),
                        _ => Value::Null,
                    });
                }
                "OR" => {
                    let ta = truthy(&a);
                    if ta == Some(true) {
                        return Ok(Value::Int(1));
                    }
                    let tb = truthy(&eval_num(r, env)?);
                    return Ok(match (ta, tb) {
                        (_, Some(true)) => Value::Int(1),
                        (Some(false), Some(false)) => Value::Int(0),
                        _ => Value::Null,
                    });
                }
                _ => {}
            }
            let b = match reads {
                Some(what) => eval_operand(r, env, what)?,
                None if cmp => eval(r, env)?,
                None => eval_num(r, env)?,
            };
            let (a, b) = if cmp { hybrids_as_numbers(l, r, a, b) } else { (a, b) };
            if cmp && (is_binary_string(l) || is_binary_string(r)) && !is_numeric(&a) && !is_numeric(&b) {
                // A binary string compares byte by byte: case, accents and trailing spaces count.
                let o = match (a.to_text(), b.to_text()) {
                    (Some(x), Some(y)) => Some(x.cmp(&y)),
                    _ => None,
                };
                return Ok(match *op {
                    "<=>" => Value::Int(match (a.is_null(), b.is_null()) {
                        (true, true) => 1,
                        (false, false) => (o == Some(std::cmp::Ordering::Equal)) as i64,
                        _ => 0,
                    }),
                    _ => bool_val(o.map(|o| cmp_holds(op, o))),
                });
            }
            match *op {
                "XOR" => bool_val(truthy(&a).zip(truthy(&b)).map(|(x, y)| x != y)),
                "<=>" => Value::Int(match (a.is_null(), b.is_null()) {
                    (true, true) => 1,
                    (false, false) => (compare(&a, &b) == Some(std::cmp::Ordering::Equal)) as i64,
                    _ => 0,
                }),
                "=" | "<>" | "<" | ">" | "<=" | ">=" => bool_val(compare(&a, &b).map(|o| {
                    use std::cmp::Ordering::*;
                    match *op {
                        "=" => o == Equal,
                        "<>" => o != Equal,
                        "<" => o == Less,
                        ">" => o == Greater,
                        "<=" => o != Greater,
                        _ => o != Less,
                    }
                })),
                "/" | "DIV" | "%" if !a.is_null() && is_zero(&b) => {
                    env.division_by_zero();
                    Value::Null
                }
                op => arith(op, &a, &b)?,
            }
        }
        Expr::Case(operand, arms, els) => {
            let op = match operand {
                Some(o) => Some(eval(o, env)?),
                None => None,
            };
            for (w, t) in arms {
                let wv = eval(w, env)?;
                let hit = match &op {
                    Some(o) => compare(o, &wv) == Some(std::cmp::Ordering::Equal),
                    None => truthy(&wv) == Some(true),
                };
                if hit {
                    return eval(t, env);
                }
            }
            match els {
                Some(e) => eval(e, env)?,
                None => Value::Null,
            }
        }
        Expr::Func(name, args) => {
            // Lazy functions first.
            match name.as_str() {
                "IF" if args.len() == 3 => {
                    let c = eval(&args[0], env)?;
                    return eval(if truthy(&c) == Some(true) { &args[1] } else { &args[2] }, env);
                }
                "BENCHMARK" if args.len() == 2 => {
                    // CPU-bound on purpose (tests and diagnostics); stops on KILL QUERY and at max_execution_time.
                    // A NULL or negative count is NULL (MariaDB; the latter with Warning 1411, which the engine's BENCHMARK raises).
                    let Some(n) = eval(&args[0], env)?.as_i64() else { return Ok(Value::Null) };
                    if n < 0 {
                        return Ok(Value::Null);
                    }
                    for i in 0..n.max(0) {
                        eval(&args[1], env)?;
                        if i % 4096 == 0 {
                            if let Some(e) = env.interruption() {
                                return Err(e);
                            }
                        }
                    }
                    return Ok(Value::Int(0));
                }
                // NVL2(e, a, b): a when e is not NULL, else b.
                "NVL2" if args.len() == 3 => {
                    let e = eval(&args[0], env)?;
                    return eval(if e.is_null() { &args[2] } else { &args[1] }, env);
                }
                // NAME_CONST(name, value): its value.
                "NAME_CONST" if args.len() == 2 => return eval(&args[1], env),
                "IFNULL" | "COALESCE" | "NVL" => {
                    for a in args {
                        let v = eval(a, env)?;
                        if !v.is_null() {
                            return Ok(v);
                        }
                    }
                    return Ok(Value::Null);
                }
                _ => {}
            }
            // Functions are where a table-less SELECT spends its time: KILL,
            // max_execution_time and a vanished client stop it here.
            if let Some(e) = env.interruption() {
                return Err(e);
            }
            let mut vals = Vec::with_capacity(args.len());
            let numeric = NUMERIC_ARGS.contains(&name.as_str()) || (name == "CAST" && is_numeric_cast(args));
            for a in args {
                vals.push(if numeric { eval_num(a, env)? } else { eval(a, env)? });
            }
            if let Some(r) = env.session_function(name, &vals) {
                return r;
            }
            builtin(name, &vals)?
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::expr::test_env::eval_text;
    use turnstile_engine::Value;

    #[test]
    fn arithmetic_and_logic() {
        assert_eq!(eval_text("1+2*3"), Value::Int(7));
        assert_eq!(eval_text("(1+2)*3"), Value::Int(9));
        assert_eq!(eval_text("-@x + 1"), Value::Int(-4));
        assert_eq!(eval_text("1 = 1 AND NOT 0"), Value::Int(1));
        assert_eq!(eval_text("NULL = 1"), Value::Null);
        assert_eq!(eval_text("NULL <=> NULL"), Value::Int(1));
        assert_eq!(eval_text("'abc' = 'ABC'"), Value::Int(1));
        // utf8mb4_general_ci is PAD SPACE: trailing spaces do not count.
        assert_eq!(eval_text("'abc  ' = 'ABC'"), Value::Int(1));
        assert_eq!(eval_text("'a ' < 'a'"), Value::Int(0));
        assert_eq!(eval_text("'ab' > 'a  '"), Value::Int(1));
        assert_eq!(eval_text("1/0"), Value::Null);
        assert_eq!(eval_text("7 DIV 2"), Value::Int(3));
        assert_eq!(eval_text("3 IN (1,2,3)"), Value::Int(1));
        assert_eq!(eval_text("2 BETWEEN 1 AND 3"), Value::Int(1));
        assert_eq!(eval_text("'abc' LIKE 'a%'"), Value::Int(1));
        assert_eq!(eval_text("NULL IS NULL"), Value::Int(1));
    }

    #[test]
    fn hybrid_literals() {
        let bytes = |b: &[u8]| Value::Bytes(b.to_vec());
        assert_eq!(eval_text("0x41"), bytes(b"A"));
        assert_eq!(eval_text("b'1000001'"), bytes(b"A"));
        assert_eq!(eval_text("0x41 + 0"), Value::Int(65));
        assert_eq!(eval_text("b'1000001' + 0"), Value::Int(65));
        assert_eq!(eval_text("-0x41"), Value::Int(-65));
        // A string with no digits is the DOUBLE 0, not its text after a '-' (MariaDB's `-''` is 0).
        assert_eq!(eval_text("-''"), Value::Double(0.0));
        assert_eq!(eval_text("-'a'"), Value::Double(0.0));
        assert_eq!(eval_text("-'.'"), Value::Double(0.0));
        assert_eq!(eval_text("0x41 = 65"), Value::Int(1));
        assert_eq!(eval_text("65 = 0x41"), Value::Int(1));
        assert_eq!(eval_text("0x41 = 'A'"), Value::Int(1));
        assert_eq!(eval_text("0x00 OR 0"), Value::Int(0));
        assert_eq!(eval_text("0xffffffffffffffff + 0"), Value::UInt(u64::MAX));
        assert_eq!(eval_text("0x4142434445464748494a + 0"), Value::Int(0x434445464748494a));
        assert_eq!(eval_text("0x4142434445464748494a"), bytes(b"ABCDEFGHIJ"));
        assert_eq!(eval_text("CAST(0x41 AS UNSIGNED)"), Value::UInt(65));
        // A string by its leading digits, as MariaDB.
        assert_eq!(eval_text("CAST('12abc' AS SIGNED)"), Value::Int(12));
        assert_eq!(eval_text("CAST('1e3' AS SIGNED)"), Value::Int(1));
        assert_eq!(eval_text("CAST('-1' AS UNSIGNED)"), Value::UInt(u64::MAX));
        assert_eq!(eval_text("ABS(0x41)"), Value::UInt(65));
        assert_eq!(eval_text("CAST(0x41 AS CHAR)"), bytes(b"A"));
        assert_eq!(eval_text("CAST('abc' AS BINARY(5))"), bytes(b"abc\0\0"));
        assert_eq!(eval_text("CAST('abcdef' AS BINARY(2))"), bytes(b"ab"));
        assert_eq!(eval_text("CONVERT('abc' USING binary)"), bytes(b"abc"));
        assert_eq!(eval_text("HEX(0x41)"), Value::str("41"));
        assert_eq!(eval_text("LENGTH(0x0000)"), Value::Int(2));
        assert_eq!(eval_text("UNHEX('414')"), bytes(&[4, 0x14]));
        assert_eq!(eval_text("UNHEX('zz')"), Value::Null);
        // X'..' is a string, also in numeric context (MariaDB)
        assert_eq!(eval_text("X'41' + 0"), Value::Double(0.0));
    }

    /// An Env that keeps the 1292 conditions raised.
    struct Recording(Vec<(bool, String)>);

    impl crate::expr::Env for Recording {
        fn sys_var(&self, _: Option<&str>, _: &str) -> Result<Value, turnstile_engine::SqlError> {
            Ok(Value::Null)
        }
        fn user_var(&self, _: &str) -> Value {
            Value::Null
        }
        fn session_function(&mut self, _: &str, _: &[Value]) -> Option<Result<Value, turnstile_engine::SqlError>> {
            None
        }
        fn word(&self, w: &str) -> Result<Value, turnstile_engine::SqlError> {
            Err(turnstile_engine::SqlError::unknown_column(w, "field list"))
        }
        fn param(&self, _: usize) -> Value {
            Value::Null
        }
        fn truncated(&mut self, warning: bool, message: String) {
            self.0.push((warning, message));
        }
    }

    fn raised(sql: &str) -> Vec<(bool, String)> {
        let toks = turnstile_sqltext::lex::tokenize(sql).unwrap();
        let e = crate::expr::Parser::new(sql, &toks).expr().unwrap();
        let mut env = Recording(Vec::new());
        super::eval(&e, &mut env).unwrap();
        env.0
    }

    #[test]
    fn strings_in_arithmetic_warn_as_mariadb() {
        let w = |m: &str| (true, m.to_string());
        assert_eq!(raised("'a' + 0"), vec![w("Truncated incorrect DOUBLE value: 'a'")]);
        assert_eq!(raised("-''"), vec![w("Truncated incorrect DOUBLE value: ''")]);
        assert_eq!(raised("5 - '12abc'"), vec![w("Truncated incorrect DOUBLE value: '12abc'")]);
        assert_eq!(raised("'x' DIV 2"), vec![w("Truncated incorrect DECIMAL value: 'x'")]);
        assert_eq!(raised("'1 ' * 2"), vec![(false, "Truncated incorrect DOUBLE value: '1 '".to_string())]);
        // Clean numbers, decimals and comparisons raise nothing.
        assert!(raised("'1.5e3' + ' 2' + 1.25 + 1/3").is_empty());
        assert!(raised("'a' = 'b'").is_empty());
    }
}
