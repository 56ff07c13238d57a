//! The expression grammar: precedence climbing from OR down to primaries
//! (literals, variables, function calls, CAST/CONVERT, CASE, scalar
//! subqueries), on the token cursor of `cursor.rs`.
//!
//! Every recursion passes through `expr`, `not` or `unary`, which check the
//! thread's stack first (ERR 1436), so hostile nesting is an error, not a crash.

use super::{Expr, Parser};
use turnstile_engine::{SqlError, Value};
use turnstile_sqltext::lex::Tok;

impl Parser<'_> {
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
                    return Err(self.error().into());
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
        let Some(t) = self.next() else { return Err(self.error().into()) };
        Ok(match &t.tok {
            Tok::Number(n) => match turnstile_sqltext::lex::hybrid_bytes(n) {
                Some(b) => Expr::Hybrid(b),
                None => Expr::Lit(parse_number(n)),
            },
            Tok::Str(s) => {
                // Adjacent string literals are one string ('a' 'b' is 'ab'), as in MariaDB.
                let mut value = s.clone();
                let sql = self.sql;
                let hex = |t: &turnstile_sqltext::lex::Token| turnstile_sqltext::lex::written_in_hex(&sql[t.start..t.end]);
                if !hex(t) {
                    while let Some(Tok::Str(more)) = self.peek().filter(|n| !hex(n)).map(|n| &n.tok) {
                        value.extend_from_slice(more);
                        self.pos += 1;
                    }
                }
                Expr::Lit(Value::Bytes(value))
            }
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
                        return Err(self.error().into());
                    }
                    "NULL" => return Ok(Expr::Lit(Value::Null)),
                    "TRUE" => return Ok(Expr::Lit(Value::Int(1))),
                    "FALSE" => return Ok(Expr::Lit(Value::Int(0))),
                    "DEFAULT" if !self.peek().is_some_and(|t| t.is_op("(")) => return Ok(Expr::Default),
                    "CASE" => return self.case(),
                    "INTERVAL" => return Err(SqlError::unsupported("INTERVAL expressions without a table")),
                    // BINARY x: x as a binary string (compared byte by byte).
                    "BINARY" if !self.peek().is_some_and(|t| t.is_op("(")) => return Ok(Expr::Func("BINARY".into(), vec![self.unary()?])),
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
                        let (ty, len) = self.cast_target()?;
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
                return Err(self.error().into());
            }
        })
    }

    /// The target of CAST(e AS type[(n)]), CONVERT(e, type[(n)]) or
    /// CONVERT(e USING charset), after `e`: the type's name in upper case and
    /// its length (NULL if none is given).
    fn cast_target(&mut self) -> Result<(String, Value), SqlError> {
        let mut len = Value::Null;
        let ty = if self.eat_kw("AS") || self.eat_op(",") {
            let ty = self.name()?.to_ascii_uppercase();
            if self.eat_op("(") {
                if let Some(Tok::Number(n)) = self.peek().map(|t| &t.tok) {
                    len = parse_number(n);
                }
                while !self.eat_op(")") {
                    if self.next().is_none() {
                        return Err(self.error().into());
                    }
                }
            }
            ty
        } else if self.eat_kw("USING") {
            let charset = self.name()?;
            if charset.eq_ignore_ascii_case("binary") { "BINARY" } else { "CHAR" }.to_string()
        } else {
            return Err(self.error().into());
        };
        Ok((ty, len))
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
            return Err(self.error().into());
        }
        Ok(Expr::Case(operand, arms, els))
    }
}

/// A numeric literal's value: 0x... unsigned, an integer if it fits (signed,
/// then unsigned), a double if it has an exponent, else its exact text (a decimal).
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
