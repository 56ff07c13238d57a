//! A cursor over lexer tokens, shared by the DDL parser and the DML rewriter.
//!
//! Both work on the shared MySQL lexer's token stream (never a syntax tree):
//! the DDL parser walks CREATE/ALTER grammar with it, the rewriter copies
//! tokens to SQLite text and patches the few places where the dialects differ.
//! Errors are MySQL's 1064 with the text from the failing token on.

use crate::lex::{Tok, Token};
use crate::SqlError;

pub struct Cur<'a> {
    pub sql: &'a str,
    pub toks: &'a [Token],
    pub pos: usize,
}

impl<'a> Cur<'a> {
    pub fn new(sql: &'a str, toks: &'a [Token]) -> Cur<'a> {
        Cur { sql, toks, pos: 0 }
    }
    pub fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }
    pub fn peek_at(&self, n: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + n)
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len() || (self.pos + 1 == self.toks.len() && self.toks[self.pos].is_op(";"))
    }
    pub fn next(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }
    pub fn is_kw(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is_kw(kw))
    }
    pub fn is_op(&self, op: &str) -> bool {
        self.peek().is_some_and(|t| t.is_op(op))
    }
    pub fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub fn eat_kws(&mut self, kws: &[&str]) -> bool {
        for (i, k) in kws.iter().enumerate() {
            if !self.peek_at(i).is_some_and(|t| t.is_kw(k)) {
                return false;
            }
        }
        self.pos += kws.len();
        true
    }
    pub fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// 1064 pointing at the current token.
    pub fn error(&self) -> SqlError {
        match self.peek() {
            Some(t) => SqlError::syntax(&self.sql[t.start..]),
            None => SqlError::syntax(""),
        }
    }
    pub fn expect_kw(&mut self, kw: &str) -> Result<(), SqlError> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    pub fn expect_op(&mut self, op: &str) -> Result<(), SqlError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    /// An identifier (bare or quoted).
    pub fn ident(&mut self) -> Result<String, SqlError> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                let w = w.to_string();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.error()),
        }
    }
    /// `name` or `db.name`.
    pub fn qualified(&mut self) -> Result<(Option<String>, String), SqlError> {
        let first = self.ident()?;
        if self.is_op(".") && self.peek_at(1).is_some_and(|t| t.ident().is_some()) {
            self.pos += 1;
            let second = self.ident()?;
            return Ok((Some(first), second));
        }
        Ok((None, first))
    }
    /// A string literal's text.
    pub fn string(&mut self) -> Result<String, SqlError> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Str(s)) => {
                let s = String::from_utf8_lossy(s).into_owned();
                self.pos += 1;
                // Adjacent string literals concatenate, as in MySQL.
                let mut s = s;
                while let Some(Tok::Str(more)) = self.peek().map(|t| &t.tok) {
                    s.push_str(&String::from_utf8_lossy(more));
                    self.pos += 1;
                }
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }
    pub fn number(&mut self) -> Result<u64, SqlError> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Number(n)) => {
                let v = n.parse::<u64>().map_err(|_| self.error())?;
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }
    /// Skip a balanced parenthesised group starting at `(`; returns the text inside.
    pub fn skip_group(&mut self) -> Result<&'a str, SqlError> {
        let open = self.peek().ok_or_else(|| self.error())?;
        if !open.is_op("(") {
            return Err(self.error());
        }
        let mut depth = 0;
        while let Some(t) = self.next() {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return Ok(&self.sql[open.end..t.start]);
                }
            }
        }
        Err(SqlError::syntax(""))
    }
    /// Text from token `from` (inclusive) to the current position (exclusive).
    pub fn text_since(&self, from: usize) -> &'a str {
        if from >= self.pos || from >= self.toks.len() {
            return "";
        }
        let end = self.toks[self.pos - 1].end;
        &self.sql[self.toks[from].start..end]
    }
}
