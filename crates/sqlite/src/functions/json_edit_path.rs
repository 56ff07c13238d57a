//! `ts_json_path(path, func, argno)`: a path argument of JSON_SET,
//! JSON_INSERT, JSON_REPLACE or JSON_REMOVE (SQLite's own functions, which
//! the rewriter calls: rewrite/function_calls.rs `json_edit`) read as
//! MariaDB reads a path and written as SQLite's: `$.A[last-1]` and
//! `$.A[-2]` become `$."A"[#-2]` (SQLite refused them: "bad JSON path",
//! ERR 1105).
//!
//! A path MariaDB refuses (a syntax error, a wildcard or a range: warnings
//! 4042, 4044...) or a NULL one makes the whole call NULL, as in MariaDB:
//! this function notes it for the row (`BAD_PATH`), and `ts_json_edit_fmt`, the
//! call around SQLite's (functions/mariadb.rs), answers NULL and clears
//! the note. The note is cleared too by the call's first path argument, so
//! a call that failed before reaching `ts_json_fmt` leaves nothing behind
//! for the next one. Not deterministic: SQLite evaluates it on every row.

use super::bytes::barg;
use super::json_doc::path_of;
use super::json_path::{Pos, Step};
use super::Counters;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::cell::Cell;
use std::sync::Arc;

thread_local! {
    /// A path argument of the call being evaluated was bad or NULL.
    static BAD_PATH: Cell<bool> = const { Cell::new(false) };
}

/// Was a path argument of the call just evaluated bad (the note cleared)?
pub(super) fn take_bad_path() -> bool {
    BAD_PATH.with(|b| b.replace(false))
}

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    let c = counters.clone();
    db.create_scalar_function("ts_json_path", 3, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let argno: i64 = ctx.get(2).unwrap_or(0);
        if argno <= 2 {
            BAD_PATH.with(|b| b.set(false));
        }
        let func: String = ctx.get(1).unwrap_or_default();
        if matches!(ctx.get_raw(0), ValueRef::Null) {
            BAD_PATH.with(|b| b.set(true));
            return Ok(SV::Null);
        }
        let text = barg(ctx, 0).unwrap_or_default();
        let argno = usize::try_from(argno).unwrap_or(1).max(1);
        match path_of(&text, argno - 1, &c, &func, false).map(|steps| sqlite_path(&steps)) {
            Some(Some(p)) => Ok(SV::Text(p)),
            _ => {
                BAD_PATH.with(|b| b.set(true));
                Ok(SV::Null)
            }
        }
    })
}

/// A wildcard-free MariaDB path in SQLite's syntax (None: a step SQLite has
/// no form for).
fn sqlite_path(steps: &[Step]) -> Option<String> {
    let mut out = String::from("$");
    for s in steps {
        match s {
            Step::Key(k) if !k.contains('"') => {
                out.push_str(".\"");
                out.push_str(k);
                out.push('"');
            }
            Step::Index(Pos::From(n)) => out.push_str(&format!("[{}]", n)),
            Step::Index(Pos::Back(n)) => out.push_str(&format!("[#-{}]", n.saturating_add(1))),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::sqlite_path;
    use crate::functions::json_path::parse_path;

    fn conv(p: &str) -> Option<String> {
        sqlite_path(&parse_path(p.as_bytes()).expect("a path"))
    }

    #[test]
    fn paths_in_sqlite_syntax() {
        assert_eq!(conv("$.A[last-1][0]").as_deref(), Some("$.\"A\"[#-2][0]"));
        assert_eq!(conv("$.A[-1]").as_deref(), Some("$.\"A\"[#-1]"));
        assert_eq!(conv("$[last]").as_deref(), Some("$[#-1]"));
        assert_eq!(conv("$.\"a b\"").as_deref(), Some("$.\"a b\""));
        assert_eq!(conv("$").as_deref(), Some("$"));
        assert_eq!(conv("$[*]"), None);
    }
}
