//! `ts_connection_id()`, `ts_user()`, `ts_current_user()`: the session a
//! statement runs for, where the front cannot write it into the text (a
//! view's body is kept and evaluated when a query reads the view, by
//! whichever session that is: rewrite/function_calls.rs writes these calls
//! for CONNECTION_ID(), USER() and its synonyms, CURRENT_USER).
//!
//! The values live in a thread-local for the length of one engine call:
//! `SqliteSession::execute` and `resume` set them from the statement's
//! `Access` (`enter`), as the user variables are (user_vars.rs), so a result
//! that resumes on another worker thread sees its own session. Copied only
//! when they change (a thread serves one session at a time, mostly).

use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value as SV;
use rusqlite::Connection;
use std::cell::RefCell;
use turnstile_engine::Access;

#[derive(Default)]
struct Identity {
    connection_id: u64,
    /// USER(): `user@host` of the login.
    login: String,
    /// CURRENT_USER(): `user@host` of the account it matched.
    account: String,
}

thread_local! {
    static IDENTITY: RefCell<Identity> = RefCell::new(Identity::default());
}

/// Make `access`'s session the one this thread's statements run for.
pub(crate) fn enter(access: &dyn Access) {
    IDENTITY.with_borrow_mut(|id| {
        id.connection_id = access.connection_id();
        set_pair(&mut id.login, access.who());
        set_pair(&mut id.account, access.account());
    });
}

/// `into` = `user@host`, written only when it differs.
fn set_pair(into: &mut String, (user, host): (&str, &str)) {
    let same = into.len() == user.len() + 1 + host.len() && into.starts_with(user) && into.ends_with(host) && into.as_bytes()[user.len()] == b'@';
    if !same {
        into.clear();
        into.push_str(user);
        into.push('@');
        into.push_str(host);
    }
}

pub(crate) fn register(db: &Connection) -> rusqlite::Result<()> {
    // Not deterministic: the same view gives each session its own values.
    db.create_scalar_function("ts_connection_id", 0, FunctionFlags::SQLITE_UTF8, |_| Ok(SV::Integer(IDENTITY.with_borrow(|id| id.connection_id) as i64)))?;
    db.create_scalar_function("ts_user", 0, FunctionFlags::SQLITE_UTF8, |_| Ok(SV::Text(IDENTITY.with_borrow(|id| id.login.clone()))))?;
    db.create_scalar_function("ts_current_user", 0, FunctionFlags::SQLITE_UTF8, |_| Ok(SV::Text(IDENTITY.with_borrow(|id| id.account.clone()))))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_rewritten_only_when_changed() {
        let mut s = String::new();
        set_pair(&mut s, ("root", "localhost"));
        assert_eq!(s, "root@localhost");
        set_pair(&mut s, ("root", "localhost"));
        assert_eq!(s, "root@localhost");
        set_pair(&mut s, ("ro", "ot@localhost"));
        assert_eq!(s, "ro@ot@localhost");
        set_pair(&mut s, ("u", ""));
        assert_eq!(s, "u@");
    }
}
