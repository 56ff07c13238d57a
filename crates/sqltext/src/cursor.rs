//! `TokenCursor`: a cursor over the lexer's tokens, the one the SQLite
//! engine's DDL parser, DML rewriter and SHOW parser walk, and the core of
//! the SQL front's expression `Parser` (crates/sql/src/expr/cursor.rs).
//!
//! Why here: all of them work on this crate's token stream (never a syntax
//! tree), so the steps they share (look at the next token, consume a keyword
//! or operator, expect one or fail, read a name, a string, a number) live
//! once, beside the lexer. The front's `Parser` keeps the few steps that
//! differ (see its header).
//!
//! Errors are `SyntaxError`: MySQL's 1064 pointing at the text from the
//! failing token on. This crate knows no engine error type;
//! turnstile-engine turns it into its `SqlError` (a `From`), so `?` works in
//! code that answers `SqlError`.

use crate::lex::{Tok, Token};

/// A syntax error (MySQL's 1064) near this text: the statement from the
/// token where it failed (empty at the end of the statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError<'a> {
    pub near: &'a str,
}

/// A cursor over one statement's tokens; `sql` is the text they came from
/// (for error messages).
pub struct TokenCursor<'a> {
    pub sql: &'a str,
    pub toks: &'a [Token],
    pub pos: usize,
}

impl<'a> TokenCursor<'a> {
    pub fn new(sql: &'a str, toks: &'a [Token]) -> TokenCursor<'a> {
        TokenCursor { sql, toks, pos: 0 }
    }
    pub fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }
    pub fn peek_at(&self, n: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + n)
    }
    /// At the end: no token left, or only a final `;`.
    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len() || (self.pos + 1 == self.toks.len() && self.toks[self.pos].is_op(";"))
    }
    /// No token left (a final `;` is a token: see `at_end`).
    pub fn exhausted(&self) -> bool {
        self.pos >= self.toks.len()
    }
    /// The next token, consumed; at the end the cursor stays where it is.
    #[allow(clippy::should_implement_trait)]
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
    pub fn error(&self) -> SyntaxError<'a> {
        match self.peek() {
            Some(t) => SyntaxError { near: &self.sql[t.start..] },
            None => SyntaxError { near: "" },
        }
    }
    pub fn expect_kw(&mut self, kw: &str) -> Result<(), SyntaxError<'a>> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    pub fn expect_op(&mut self, op: &str) -> Result<(), SyntaxError<'a>> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    /// An identifier (bare or quoted).
    pub fn ident(&mut self) -> Result<String, SyntaxError<'a>> {
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
    pub fn qualified(&mut self) -> Result<(Option<String>, String), SyntaxError<'a>> {
        let first = self.ident()?;
        if self.is_op(".") && self.peek_at(1).is_some_and(|t| t.ident().is_some()) {
            self.pos += 1;
            let second = self.ident()?;
            return Ok((Some(first), second));
        }
        Ok((None, first))
    }
    /// A string literal's text.
    pub fn string(&mut self) -> Result<String, SyntaxError<'a>> {
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
    pub fn number(&mut self) -> Result<u64, SyntaxError<'a>> {
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
    pub fn skip_group(&mut self) -> Result<&'a str, SyntaxError<'a>> {
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
        Err(SyntaxError { near: "" })
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
