//! `Parser` as a cursor over the shared lexer's tokens: look at the next
//! token, consume a keyword or operator, expect one or fail with the 1064
//! error pointing at the current token, read a name.
//!
//! The expression grammar (`parser.rs`) is written on these steps, and so are
//! the front's statement parsers (SET, SHOW, KILL, ...) and `account_sql`,
//! which is why they live apart from the grammar.

use turnstile_engine::lex::{Tok, Token};
use turnstile_engine::SqlError;

/// A cursor over one statement's tokens; `sql` is the text they came from
/// (for error messages).
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
}
