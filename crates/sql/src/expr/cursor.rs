//! `Parser`: the front's cursor over the lexer's tokens, which the
//! expression grammar (`parser.rs`), the front's statement parsers (SET,
//! SHOW, KILL, ...) and `account_sql` are written on.
//!
//! The cursor itself is turnstile-sqltext's `TokenCursor` (the one the SQLite
//! engine's parsers walk too): `Parser` derefs to it for peek, eat, expect,
//! `error` and the position. What is left here is what only the front has:
//! the count of `?` placeholders the expression grammar numbers, and `name`,
//! which also takes a string as a name (user and database names). Two steps
//! of the cursor are spelled differently from what the front once had:
//! "no token left" is `exhausted()` (`at_end()` also takes a lone final
//! `;` for the end), and `next()` stays at the end instead of stepping past
//! it, so a caller that steps back with `pos -= 1` does so only after a
//! token was consumed.

use std::ops::{Deref, DerefMut};
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex::{Tok, Token};

/// A cursor over one statement's tokens; `sql` is the text they came from
/// (for error messages).
pub struct Parser<'a> {
    cur: TokenCursor<'a>,
    /// Placeholders seen so far (numbers `?` in order).
    pub params_seen: usize,
}

impl<'a> Deref for Parser<'a> {
    type Target = TokenCursor<'a>;
    fn deref(&self) -> &TokenCursor<'a> {
        &self.cur
    }
}

impl DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.cur
    }
}

impl<'a> Parser<'a> {
    pub fn new(sql: &'a str, toks: &'a [Token]) -> Self {
        Parser { cur: TokenCursor::new(sql, toks), params_seen: 0 }
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
            _ => Err(self.error().into()),
        }
    }
}
