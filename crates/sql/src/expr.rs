//! Expressions of session statements: a small precedence-climbing parser over
//! the shared lexer's tokens, and an evaluator.
//!
//! This covers what clients really send without a table: literals (a hex or
//! bit literal is a binary string, and a number in numeric context), @@system and
//! @user variables, arithmetic and comparison, CONCAT/IF/IFNULL and friends,
//! session functions (DATABASE(), USER(), CONNECTION_ID(), ...) and scalar
//! subqueries such as `(SELECT CONCAT(@@sql_mode, ',X'))`.

use turnstile_engine::lex::{Tok, Token};
use turnstile_engine::{SqlError, Value};

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

pub struct Parser<'a> {
    pub toks: &'a [Token],
    pub pos: usize,
    pub sql: &'a str,
    /// Placeholders seen so far (numbers `?` in order).
    pub params_seen: usize,
}

impl<'a> Parser<'a> {
    pub fn new(sql: &'a str, toks: &'a [Token]) -> Self {
        Parser { toks, pos: 0, sql, params_seen: 0 }
    }

    pub fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// The next token, consumed (a cursor, not an Iterator: it also steps back).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }

    pub fn eat_kw(&mut self, kw: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_kw(kw)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn eat_op(&mut self, op: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_op(op)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The 1064 error pointing at the current token.
    pub fn error(&self) -> SqlError {
        let at = self.peek().map_or(self.sql.len(), |t| t.start);
        SqlError::syntax(&self.sql[at..])
    }

    pub fn expect_op(&mut self, op: &str) -> Result<(), SqlError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    pub fn expect_kw(&mut self, kw: &str) -> Result<(), SqlError> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier or a string used as a name (user names, database names).
    pub fn name(&mut self) -> Result<String, SqlError> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                self.pos += 1;
                Ok(w.to_string())
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(String::from_utf8_lossy(s).into_owned())
            }
            _ => Err(self.error()),
        }
    }

    /// Every recursion of the parser passes through `expr`, `not` or
    /// `unary`, each of which checks the thread's stack first (ERR 1436).
    pub fn expr(&mut self) -> Result<Expr, SqlError> {
        turnstile_engine::stack::check()?;
        self.or()
    }

    fn or(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.xor()?;
        while self.eat_kw("OR") || self.eat_op("||") {
            let r = self.xor()?;
            l = Expr::Bin("OR", Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn xor(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.and()?;
        while self.eat_kw("XOR") {
            let r = self.and()?;
            l = Expr::Bin("XOR", Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.not()?;
        while self.eat_kw("AND") || self.eat_op("&&") {
            let r = self.not()?;
            l = Expr::Bin("AND", Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn not(&mut self) -> Result<Expr, SqlError> {
        turnstile_engine::stack::check()?;
        if self.eat_kw("NOT") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.cmp()
    }

    fn cmp(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.add()?;
        loop {
            if self.eat_kw("IS") {
                let neg = self.eat_kw("NOT");
                if self.eat_kw("NULL") {
                    l = Expr::IsNull(Box::new(l), neg);
                } else if self.eat_kw("TRUE") {
                    let e = Expr::Bin("<=>", Box::new(Expr::Bin("<>", Box::new(l), Box::new(Expr::Lit(Value::Int(0))))), Box::new(Expr::Lit(Value::Int(1))));
                    l = if neg { Expr::Not(Box::new(e)) } else { e };
                } else if self.eat_kw("FALSE") {
                    let e = Expr::Bin("<=>", Box::new(l), Box::new(Expr::Lit(Value::Int(0))));
                    l = if neg { Expr::Not(Box::new(e)) } else { e };
                } else {
                    return Err(self.error());
                }
                continue;
            }
            let negated = self.peek().is_some_and(|t| t.is_kw("NOT")) && self.toks.get(self.pos + 1).is_some_and(|t| t.is_kw("LIKE") || t.is_kw("IN") || t.is_kw("BETWEEN"));
            if negated {
                self.pos += 1;
            }
            if self.eat_kw("LIKE") {
                let r = self.add()?;
                let e = Expr::Func("LIKE".into(), vec![l, r]);
                l = if negated { Expr::Not(Box::new(e)) } else { e };
                continue;
            }
            if self.eat_kw("IN") {
                self.expect_op("(")?;
                let mut args = vec![l];
                loop {
                    args.push(self.expr()?);
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(")")?;
                let e = Expr::Func("IN".into(), args);
                l = if negated { Expr::Not(Box::new(e)) } else { e };
                continue;
            }
            if self.eat_kw("BETWEEN") {
                let lo = self.add()?;
                self.expect_kw("AND")?;
                let hi = self.add()?;
                let e = Expr::Func("BETWEEN".into(), vec![l, lo, hi]);
                l = if negated { Expr::Not(Box::new(e)) } else { e };
                continue;
            }
            let op = match self.peek().map(|t| &t.tok) {
                Some(Tok::Op(o)) if matches!(*o, "=" | "<=>" | "<>" | "!=" | "<" | ">" | "<=" | ">=") => *o,
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.add()?;
            l = Expr::Bin(if op == "!=" { "<>" } else { op }, Box::new(l), Box::new(r));
        }
    }

    fn add(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.mul()?;
        loop {
            let op = if self.eat_op("+") {
                "+"
            } else if self.eat_op("-") {
                "-"
            } else {
                return Ok(l);
            };
            let r = self.mul()?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn mul(&mut self) -> Result<Expr, SqlError> {
        let mut l = self.unary()?;
        loop {
            let op = if self.eat_op("*") {
                "*"
            } else if self.eat_op("/") {
                "/"
            } else if self.eat_op("%") || self.eat_kw("MOD") {
                "%"
            } else if self.eat_kw("DIV") {
                "DIV"
            } else {
                return Ok(l);
            };
            let r = self.unary()?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self) -> Result<Expr, SqlError> {
        turnstile_engine::stack::check()?;
        if self.eat_op("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat_op("+") {
            return self.unary();
        }
        if self.eat_op("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, SqlError> {
        let Some(t) = self.next() else { return Err(self.error()) };
        Ok(match &t.tok {
            Tok::Number(n) => match turnstile_engine::lex::hybrid_bytes(n) {
                Some(b) => Expr::Hybrid(b),
                None => Expr::Lit(parse_number(n)),
            },
            Tok::Str(s) => Expr::Lit(Value::Bytes(s.clone())),
            Tok::SysVar(scope, name) => Expr::SysVar(scope.clone(), name.clone()),
            Tok::UserVar(name) => Expr::UserVar(name.clone()),
            Tok::Quoted(w) => Expr::Word(w.to_string()),
            Tok::Param => {
                self.params_seen += 1;
                Expr::Param(self.params_seen - 1)
            }
            Tok::Op("(") => {
                if self.peek().is_some_and(|t| t.is_kw("SELECT")) {
                    self.pos += 1;
                    let e = self.expr()?;
                    let _ = self.eat_kw("FROM") && self.eat_kw("DUAL");
                    self.expect_op(")")?;
                    Expr::Subquery(Box::new(e))
                } else {
                    let e = self.expr()?;
                    self.expect_op(")")?;
                    e
                }
            }
            Tok::Word(w) => {
                let upper = w.as_str().to_ascii_uppercase();
                match upper.as_str() {
                    // Operators, not functions: `IN(1)` is a syntax error, as in MySQL.
                    "IN" | "LIKE" | "BETWEEN" | "AND" | "OR" | "XOR" | "IS" | "DIV" => {
                        self.pos -= 1;
                        return Err(self.error());
                    }
                    "NULL" => return Ok(Expr::Lit(Value::Null)),
                    "TRUE" => return Ok(Expr::Lit(Value::Int(1))),
                    "FALSE" => return Ok(Expr::Lit(Value::Int(0))),
                    "DEFAULT" if !self.peek().is_some_and(|t| t.is_op("(")) => return Ok(Expr::Default),
                    "CASE" => return self.case(),
                    "INTERVAL" => return Err(SqlError::unsupported("INTERVAL expressions without a table")),
                    "BINARY" if !self.peek().is_some_and(|t| t.is_op("(")) => return self.unary(),
                    "CURRENT_USER" | "CURRENT_TIMESTAMP" | "CURRENT_DATE" | "CURRENT_TIME" | "LOCALTIME" | "LOCALTIMESTAMP" | "UTC_TIMESTAMP" | "UTC_DATE"
                        if !self.peek().is_some_and(|t| t.is_op("(")) =>
                    {
                        return Ok(Expr::Func(upper, vec![]))
                    }
                    _ => {}
                }
                if self.eat_op("(") {
                    let mut args = Vec::new();
                    if upper == "CAST" || upper == "CONVERT" {
                        let e = self.expr()?;
                        let mut len = Value::Null;
                        let ty = if self.eat_kw("AS") || self.eat_op(",") {
                            let ty = self.name()?.to_ascii_uppercase();
                            if self.eat_op("(") {
                                if let Some(Tok::Number(n)) = self.peek().map(|t| &t.tok) {
                                    len = parse_number(n);
                                }
                                while !self.eat_op(")") {
                                    if self.next().is_none() {
                                        return Err(self.error());
                                    }
                                }
                            }
                            ty
                        } else if self.eat_kw("USING") {
                            let cs = self.name()?;
                            if cs.eq_ignore_ascii_case("binary") { "BINARY" } else { "CHAR" }.to_string()
                        } else {
                            return Err(self.error());
                        };
                        self.expect_op(")")?;
                        return Ok(Expr::Func("CAST".into(), vec![e, Expr::Lit(Value::str(&ty)), Expr::Lit(len)]));
                    }
                    if self.eat_op(")") {
                        return Ok(Expr::Func(upper, args));
                    }
                    if upper == "COUNT" && self.eat_op("*") {
                        self.expect_op(")")?;
                        return Ok(Expr::Func(upper, vec![Expr::Lit(Value::Int(1))]));
                    }
                    loop {
                        args.push(self.expr()?);
                        if !self.eat_op(",") {
                            break;
                        }
                    }
                    self.expect_op(")")?;
                    Expr::Func(upper, args)
                } else {
                    // A qualified name a.b is a column reference.
                    let mut name = w.to_string();
                    while self.eat_op(".") {
                        name.push('.');
                        name.push_str(&self.name()?);
                    }
                    Expr::Word(name)
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error());
            }
        })
    }

    fn case(&mut self) -> Result<Expr, SqlError> {
        let operand = if self.peek().is_some_and(|t| t.is_kw("WHEN")) { None } else { Some(Box::new(self.expr()?)) };
        let mut arms = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            arms.push((w, self.expr()?));
        }
        let els = if self.eat_kw("ELSE") { Some(Box::new(self.expr()?)) } else { None };
        self.expect_kw("END")?;
        if arms.is_empty() {
            return Err(self.error());
        }
        Ok(Expr::Case(operand, arms, els))
    }
}

fn parse_number(n: &str) -> Value {
    if let Some(hex) = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map(Value::UInt).unwrap_or(Value::Null);
    }
    if n.contains(['e', 'E']) {
        return Value::Double(n.parse().unwrap_or(0.0));
    }
    if n.contains('.') {
        // Exact decimal literal: keep its text (rendered as DECIMAL).
        return Value::Bytes(n.as_bytes().to_vec());
    }
    match n.parse::<i64>() {
        Ok(v) => Value::Int(v),
        Err(_) => match n.parse::<u64>() {
            Ok(v) => Value::UInt(v),
            Err(_) => Value::Bytes(n.as_bytes().to_vec()),
        },
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
}

pub fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        other => Some(other.as_f64().unwrap_or(0.0) != 0.0),
    }
}

fn bool_val(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

fn text(v: &Value) -> Option<String> {
    v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned())
}

fn is_numeric(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Float(_))
}

/// MySQL comparison: numbers numerically, strings case-insensitively (general_ci).
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if is_numeric(a) || is_numeric(b) {
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            return Some(x.cmp(y));
        }
        return a.as_f64()?.partial_cmp(&b.as_f64()?);
    }
    Some(text(a)?.to_lowercase().cmp(&text(b)?.to_lowercase()))
}

fn like(s: &str, pat: &str) -> bool {
    turnstile_engine::like::like(s, pat, true)
}

/// Public for SHOW ... LIKE.
pub fn like_match(s: &str, pat: &str) -> bool {
    like(s, pat)
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
    Ok(match op {
        "+" => Value::Double(x + y),
        "-" => Value::Double(x - y),
        "*" => Value::Double(x * y),
        "/" => {
            if y == 0.0 {
                Value::Null
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

fn integral(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

/// `e` in numeric context: a hybrid literal is its number, anything else its value.
fn eval_num(e: &Expr, env: &mut dyn Env) -> Result<Value, SqlError> {
    match e {
        Expr::Hybrid(b) => Ok(Value::UInt(turnstile_engine::lex::hybrid_u64(b))),
        _ => eval(e, env),
    }
}

/// A comparison of a hybrid literal with a number compares numbers (`0x41 = 65`);
/// with a string, strings (`0x41 = 'A'`).
fn hybrids_as_numbers(l: &Expr, r: &Expr, a: Value, b: Value) -> (Value, Value) {
    let num = |e: &Expr, v: Value, other: &Value| match e {
        Expr::Hybrid(h) if is_numeric(other) => Value::UInt(turnstile_engine::lex::hybrid_u64(h)),
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
        Expr::Neg(x) => match eval_num(x, env)? {
            // -(-9223372036854775808) is 9223372036854775808 (MariaDB).
            Value::Int(i64::MIN) => Value::UInt(1 << 63),
            Value::Int(i) => Value::Int(-i),
            Value::UInt(u) if u <= i64::MAX as u64 => Value::Int(-(u as i64)),
            Value::Null => Value::Null,
            Value::Bytes(b) if b.iter().all(|c| c.is_ascii_digit() || *c == b'.') => {
                let mut n = b"-".to_vec();
                n.extend_from_slice(&b);
                Value::Bytes(n)
            }
            other => Value::Double(-other.as_f64().unwrap_or(0.0)),
        },
        Expr::Not(x) => bool_val(truthy(&eval(x, env)?).map(|b| !b)),
        Expr::IsNull(x, neg) => Value::Int((eval(x, env)?.is_null() != *neg) as i64),
        Expr::Bin(op, l, r) => {
            let cmp = matches!(*op, "=" | "<>" | "<" | ">" | "<=" | ">=" | "<=>");
            let a = if cmp { eval(l, env)? } else { eval_num(l, env)? };
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
            let b = if cmp { eval(r, env)? } else { eval_num(r, env)? };
            let (a, b) = if cmp { hybrids_as_numbers(l, r, a, b) } else { (a, b) };
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
                    let n = eval(&args[0], env)?.as_i64().unwrap_or(0);
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

fn arg_count(name: &str, vals: &[Value], min: usize, max: usize) -> Result<(), SqlError> {
    if vals.len() < min || vals.len() > max {
        return Err(SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{}'", name.to_lowercase())));
    }
    Ok(())
}

/// Pure built-in functions.
fn builtin(name: &str, v: &[Value]) -> Result<Value, SqlError> {
    let s = |i: usize| text(&v[i]);
    Ok(match name {
        "CONCAT" => {
            arg_count(name, v, 1, usize::MAX)?;
            let mut parts = Vec::with_capacity(v.len());
            for x in v {
                match x.to_text() {
                    None => return Ok(Value::Null),
                    Some(t) => parts.push(t),
                }
            }
            // Past max_allowed_packet MySQL answers NULL; checked before building it.
            if !fits(parts.iter().map(|p| p.len()).sum()) {
                return Ok(Value::Null);
            }
            Value::Bytes(parts.concat())
        }
        "CONCAT_WS" => {
            arg_count(name, v, 2, usize::MAX)?;
            let Some(sep) = v[0].to_text() else { return Ok(Value::Null) };
            let parts: Vec<Vec<u8>> = v[1..].iter().filter_map(|x| x.to_text().map(|t| t.into_owned())).collect();
            if !fits(parts.iter().map(|p| p.len() + sep.len()).sum()) {
                return Ok(Value::Null);
            }
            Value::Bytes(parts.join(&sep[..]))
        }
        "NULLIF" => {
            arg_count(name, v, 2, 2)?;
            if compare(&v[0], &v[1]) == Some(std::cmp::Ordering::Equal) {
                Value::Null
            } else {
                v[0].clone()
            }
        }
        "LOWER" | "LCASE" => {
            arg_count(name, v, 1, 1)?;
            s(0).map_or(Value::Null, |t| Value::str(&t.to_lowercase()))
        }
        "UPPER" | "UCASE" => {
            arg_count(name, v, 1, 1)?;
            s(0).map_or(Value::Null, |t| Value::str(&t.to_uppercase()))
        }
        "LENGTH" | "OCTET_LENGTH" => {
            arg_count(name, v, 1, 1)?;
            v[0].to_text().map_or(Value::Null, |t| Value::Int(t.len() as i64))
        }
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
            arg_count(name, v, 1, 1)?;
            s(0).map_or(Value::Null, |t| Value::Int(t.chars().count() as i64))
        }
        "SUBSTRING" | "SUBSTR" | "MID" => {
            arg_count(name, v, 2, 3)?;
            let Some(t) = s(0) else { return Ok(Value::Null) };
            let chars: Vec<char> = t.chars().collect();
            let pos = v[1].as_i64().unwrap_or(0);
            // A position counted from the end that is before the start: empty (MySQL).
            let back = pos.unsigned_abs();
            let start = if pos > 0 {
                (pos - 1) as usize
            } else if pos < 0 && back <= chars.len() as u64 {
                chars.len() - back as usize
            } else {
                chars.len()
            };
            let len = if v.len() == 3 { v[2].as_i64().unwrap_or(0).max(0) as usize } else { usize::MAX };
            Value::str(&chars.iter().skip(start).take(len).collect::<String>())
        }
        "REPLACE" => {
            arg_count(name, v, 3, 3)?;
            match (s(0), s(1), s(2)) {
                (Some(a), Some(b), _) if !b.is_empty() && c_len(&s(2)) > b.len() && !fits(a.len() + a.matches(b.as_str()).count().saturating_mul(c_len(&s(2)) - b.len())) => Value::Null,
                (Some(a), Some(b), Some(c)) => Value::str(&if b.is_empty() { a } else { a.replace(&b, &c) }),
                _ => Value::Null,
            }
        }
        "ABS" => {
            arg_count(name, v, 1, 1)?;
            match &v[0] {
                Value::Int(i64::MIN) => return Err(SqlError::new(1690, "22003", "BIGINT value is out of range in 'abs(-9223372036854775808)'")),
                Value::Int(i) => Value::Int(i.abs()),
                Value::UInt(u) => Value::UInt(*u),
                Value::Null => Value::Null,
                x => Value::Double(x.as_f64().unwrap_or(0.0).abs()),
            }
        }
        "ROUND" | "FLOOR" | "CEIL" | "CEILING" | "TRUNCATE" => {
            arg_count(name, v, 1, 2)?;
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            if matches!(v[0], Value::Int(_) | Value::UInt(_)) && v.len() == 1 {
                return Ok(v[0].clone());
            }
            let x = v[0].as_f64().unwrap_or(0.0);
            // MySQL keeps at most 30 decimals; far to the left everything rounds to 0.
            let d = if v.len() == 2 { v[1].as_i64().unwrap_or(0).clamp(-64, 30) } else { 0 };
            let m = 10f64.powi(d as i32);
            // Past 15 decimals a double has nothing left to round.
            let r = if d > 15 {
                x
            } else {
                match name {
                    "ROUND" => (x * m).round() / m,
                    "FLOOR" => (x * m).floor() / m,
                    "TRUNCATE" => (x * m).trunc() / m,
                    _ => (x * m).ceil() / m,
                }
            };
            if d <= 0 {
                Value::Int(r as i64)
            } else {
                Value::str(&format!("{:.*}", d as usize, r))
            }
        }
        "LIKE" => bool_val(match (arg_count(name, v, 2, 2).map(|_| s(0))?, s(1)) {
            (Some(a), Some(b)) => Some(like(&a, &b)),
            _ => None,
        }),
        "IN" => {
            arg_count(name, v, 2, usize::MAX)?;
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for x in &v[1..] {
                match compare(&v[0], x) {
                    Some(std::cmp::Ordering::Equal) => return Ok(Value::Int(1)),
                    None => saw_null = true,
                    _ => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Int(0)
            }
        }
        "BETWEEN" => bool_val(match (arg_count(name, v, 3, 3).map(|_| compare(&v[0], &v[1]))?, compare(&v[0], &v[2])) {
            (Some(a), Some(b)) => Some(a != std::cmp::Ordering::Less && b != std::cmp::Ordering::Greater),
            _ => None,
        }),
        "CAST" => {
            arg_count(name, v, 2, 3)?;
            let ty = s(1).unwrap_or_default();
            match ty.as_str() {
                "SIGNED" | "INTEGER" | "INT" => v[0].as_i64().map_or(Value::Null, Value::Int),
                "UNSIGNED" => match v[0] {
                    Value::UInt(u) => Value::UInt(u),
                    _ => v[0].as_i64().map_or(Value::Null, |i| Value::UInt(i as u64)),
                },
                "DECIMAL" | "DOUBLE" | "FLOAT" | "REAL" => v[0].as_f64().map_or(Value::Null, Value::Double),
                // Typed temporal values, so drivers get DATE/DATETIME/TIME columns.
                "DATE" | "DATETIME" | "TIME" => {
                    use turnstile_engine::sqlite::schema::{parse_temporal, Base};
                    let base = match ty.as_str() {
                        "DATE" => Base::Date,
                        "DATETIME" => Base::DateTime,
                        _ => Base::Time,
                    };
                    match &v[0] {
                        Value::Null => Value::Null,
                        Value::Date { .. } | Value::DateTime { .. } | Value::Time { .. } if base == Base::DateTime => v[0].clone(),
                        other => other.to_text().and_then(|t| parse_temporal(base, &t)).unwrap_or(Value::Null),
                    }
                }
                _ => {
                    let Some(t) = v[0].to_text() else { return Ok(Value::Null) };
                    let mut t = t.into_owned();
                    match (ty.as_str(), v.get(2).and_then(Value::as_i64)) {
                        // BINARY(n): exactly n bytes, padded with 0x00 as MySQL does.
                        ("BINARY", Some(n)) => t.resize(n.clamp(0, MAX_CAST_LEN) as usize, 0),
                        // CHAR(n): the first n characters (a byte that is no UTF-8 counts as one).
                        ("CHAR" | "NCHAR", Some(n)) => t.truncate(char_prefix_len(&t, n.max(0) as usize)),
                        _ => {}
                    }
                    Value::Bytes(t)
                }
            }
        }
        "GREATEST" | "LEAST" => {
            arg_count(name, v, 2, usize::MAX)?;
            let mut best = v[0].clone();
            for x in &v[1..] {
                match compare(x, &best) {
                    None => return Ok(Value::Null),
                    Some(o) => {
                        if (name == "GREATEST" && o == std::cmp::Ordering::Greater) || (name == "LEAST" && o == std::cmp::Ordering::Less) {
                            best = x.clone();
                        }
                    }
                }
            }
            best
        }
        "NOW" | "CURRENT_TIMESTAMP" | "SYSDATE" | "LOCALTIME" | "LOCALTIMESTAMP" | "UTC_TIMESTAMP" => now_value(false),
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" => now_value(true),
        "UNIX_TIMESTAMP" => {
            if v.is_empty() {
                Value::Int(unix_now() as i64)
            } else {
                return Err(SqlError::unsupported("UNIX_TIMESTAMP(date) without a table"));
            }
        }
        "FOUND_ROWS" | "ROW_COUNT" => Value::Int(0),
        "COUNT" => Value::Int(v.iter().filter(|x| !x.is_null()).count() as i64),
        "MAX" | "MIN" | "SUM" | "AVG" => {
            arg_count(name, v, 1, 1)?;
            v[0].clone()
        }
        "UNHEX" => {
            arg_count(name, v, 1, 1)?;
            v[0].to_text().map_or(Value::Null, |t| turnstile_engine::sqlite::functions::unhex(&t).map_or(Value::Null, Value::Bytes))
        }
        "HEX" => {
            arg_count(name, v, 1, 1)?;
            match &v[0] {
                Value::Bytes(b) if !fits(b.len().saturating_mul(2)) => Value::Null,
                Value::Int(i) => Value::str(&format!("{:X}", i)),
                Value::UInt(u) => Value::str(&format!("{:X}", u)),
                x => x.to_text().map_or(Value::Null, |t| Value::str(&t.iter().map(|b| format!("{:02X}", b)).collect::<String>())),
            }
        }
        _ => return Err(SqlError::unknown_function(name)),
    })
}

/// Does a result of `len` bytes fit under max_allowed_packet (the engine's limit)?
fn fits(len: usize) -> bool {
    turnstile_engine::sqlite::functions::fits(len)
}

fn c_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

/// Bytes of the first `n` characters of `t` (UTF-8 characters; each byte
/// that is not part of one counts as one).
fn char_prefix_len(t: &[u8], n: usize) -> usize {
    let mut at = 0;
    let mut left = n;
    for chunk in t.utf8_chunks() {
        for c in chunk.valid().chars() {
            if left == 0 {
                return at;
            }
            at += c.len_utf8();
            left -= 1;
        }
        for _ in chunk.invalid() {
            if left == 0 {
                return at;
            }
            at += 1;
            left -= 1;
        }
    }
    at
}

/// Longest CAST(x AS BINARY(n)) the front builds (MySQL's limit is max_allowed_packet).
const MAX_CAST_LEN: i64 = 64 << 20;

pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// The current UTC date/time (Turnstile runs with time_zone = SYSTEM = UTC).
pub fn now_value(date_only: bool) -> Value {
    let secs = unix_now();
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (y, m, d) = civil_from_days(days);
    if date_only {
        Value::Date { year: y as u16, month: m as u8, day: d as u8 }
    } else {
        Value::DateTime { year: y as u16, month: m as u8, day: d as u8, hour: (rem / 3600) as u8, minute: (rem / 60 % 60) as u8, second: (rem % 60) as u8, micro: 0 }
    }
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = (z - era * 146097) as u64;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe as i64 + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_engine::lex::tokenize;

    struct E;
    impl Env for E {
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

    fn ev(s: &str) -> Value {
        let t = tokenize(s).unwrap();
        let mut p = Parser::new(s, &t);
        let e = p.expr().unwrap();
        assert!(p.at_end(), "trailing tokens in {}", s);
        eval(&e, &mut E).unwrap()
    }

    #[test]
    fn hostile_arguments_are_errors_not_panics() {
        // Found by fuzz/fuzz_targets/sql_expr.rs.
        for bad in ["IN()", "BETWEEN(1)", "LIKE(1)", "FORMAT_FLOAT()"] {
            let toks = turnstile_engine::lex::tokenize(bad).unwrap();
            if let Ok(e) = Parser::new(bad, &toks).expr() {
                assert!(eval(&e, &mut E).is_err(), "{}", bad);
            }
        }
        assert_eq!(ev("-(-9223372036854775807 - 1)"), Value::UInt(1 << 63));
        assert_eq!(ev("SUBSTRING('abc', -9223372036854775807 - 1)"), Value::str(""));
        assert_eq!(ev("SUBSTRING('abc', -2)"), Value::str("bc"));
        assert_eq!(ev("ROUND(1.5, 100000)"), Value::str(&format!("1.5{}", "0".repeat(29))));
        let toks = turnstile_engine::lex::tokenize("ABS(-9223372036854775807 - 1)").unwrap();
        let e = Parser::new("", &toks).expr().unwrap();
        assert_eq!(eval(&e, &mut E).unwrap_err().code, 1690);
    }

    #[test]
    fn arithmetic_and_logic() {
        assert_eq!(ev("1+2*3"), Value::Int(7));
        assert_eq!(ev("(1+2)*3"), Value::Int(9));
        assert_eq!(ev("-@x + 1"), Value::Int(-4));
        assert_eq!(ev("1 = 1 AND NOT 0"), Value::Int(1));
        assert_eq!(ev("NULL = 1"), Value::Null);
        assert_eq!(ev("NULL <=> NULL"), Value::Int(1));
        assert_eq!(ev("'abc' = 'ABC'"), Value::Int(1));
        assert_eq!(ev("1/0"), Value::Null);
        assert_eq!(ev("7 DIV 2"), Value::Int(3));
        assert_eq!(ev("3 IN (1,2,3)"), Value::Int(1));
        assert_eq!(ev("2 BETWEEN 1 AND 3"), Value::Int(1));
        assert_eq!(ev("'abc' LIKE 'a%'"), Value::Int(1));
        assert_eq!(ev("NULL IS NULL"), Value::Int(1));
    }

    #[test]
    fn functions() {
        assert_eq!(ev("CONCAT('a', 1, @@sql_mode)"), Value::str("a1<sql_mode>"));
        assert_eq!(ev("IF(1, 'y', 'n')"), Value::str("y"));
        assert_eq!(ev("IFNULL(NULL, 3)"), Value::Int(3));
        assert_eq!(ev("COALESCE(NULL, NULL, 'x')"), Value::str("x"));
        assert_eq!(ev("(SELECT CONCAT(@@sql_mode, ',X'))"), Value::str("<sql_mode>,X"));
        assert_eq!(ev("UPPER('abc')"), Value::str("ABC"));
        assert_eq!(ev("SUBSTRING('hello', 2, 3)"), Value::str("ell"));
        assert_eq!(ev("CASE WHEN 1 THEN 'a' ELSE 'b' END"), Value::str("a"));
        assert_eq!(ev("ROUND(2.567, 2)"), Value::str("2.57"));
        assert_eq!(ev("CAST('12' AS SIGNED)"), Value::Int(12));
    }

    #[test]
    fn hybrid_literals() {
        let bytes = |b: &[u8]| Value::Bytes(b.to_vec());
        assert_eq!(ev("0x41"), bytes(b"A"));
        assert_eq!(ev("b'1000001'"), bytes(b"A"));
        assert_eq!(ev("0x41 + 0"), Value::Int(65));
        assert_eq!(ev("b'1000001' + 0"), Value::Int(65));
        assert_eq!(ev("-0x41"), Value::Int(-65));
        assert_eq!(ev("0x41 = 65"), Value::Int(1));
        assert_eq!(ev("65 = 0x41"), Value::Int(1));
        assert_eq!(ev("0x41 = 'A'"), Value::Int(1));
        assert_eq!(ev("0x00 OR 0"), Value::Int(0));
        assert_eq!(ev("0xffffffffffffffff + 0"), Value::UInt(u64::MAX));
        assert_eq!(ev("0x4142434445464748494a + 0"), Value::Int(0x434445464748494a));
        assert_eq!(ev("0x4142434445464748494a"), bytes(b"ABCDEFGHIJ"));
        assert_eq!(ev("CAST(0x41 AS UNSIGNED)"), Value::UInt(65));
        assert_eq!(ev("ABS(0x41)"), Value::UInt(65));
        assert_eq!(ev("CAST(0x41 AS CHAR)"), bytes(b"A"));
        assert_eq!(ev("CAST('abc' AS BINARY(5))"), bytes(b"abc\0\0"));
        assert_eq!(ev("CAST('abcdef' AS BINARY(2))"), bytes(b"ab"));
        assert_eq!(ev("CONVERT('abc' USING binary)"), bytes(b"abc"));
        assert_eq!(ev("HEX(0x41)"), Value::str("41"));
        assert_eq!(ev("LENGTH(0x0000)"), Value::Int(2));
        assert_eq!(ev("UNHEX('414')"), bytes(&[4, 0x14]));
        assert_eq!(ev("UNHEX('zz')"), Value::Null);
        // X'..' is a string, also in numeric context (MariaDB)
        assert_eq!(ev("X'41' + 0"), Value::Double(0.0));
    }

    #[test]
    fn executable_comments_run_up_to_the_server_version() {
        let v: Vec<u32> = crate::SERVER_VERSION.split('-').next().unwrap().split('.').map(|p| p.parse().unwrap()).collect();
        assert_eq!(v[0] * 10000 + v[1] * 100 + v[2], turnstile_engine::lex::VERSION_ID);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19782), (2024, 2, 29));
    }
}
