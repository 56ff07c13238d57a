//! Which databases the backend let each user into lately, so that a login
//! naming a database (sysbench, PHP's `new PDO("mysql:dbname=...")`, most
//! applications) costs no backend round trip.
//!
//! Why: checking the database at login took a backend connection, and
//! under churn (100 clients, 31 backend connections) the login often found
//! none free and blocked its pool worker until one came back. The pool then
//! started workers to replace the blocked ones: 45 threads on two cores,
//! ~4.8 context switches and ~150 µs of Turnstile CPU per connection
//! (docs/upstream.md). A proof is what the backend answered to this user's
//! COM_INIT_DB (or a `USE` the session tracker reported), kept until the
//! accounts are next read (`upstream_accounts_refresh_s`, an account
//! statement through Turnstile) or a DROP DATABASE runs through Turnstile:
//! the same staleness as the accounts themselves. A proof that went stale
//! (the database dropped, or the grant revoked, on the backend directly)
//! lets the login in, and the session's first statement gets the backend's
//! own error when its connection is brought to that database.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// Proofs kept at most; past it they are all forgotten (the next login
/// for each pair pays its round trip again).
pub const MAX_PROOFS: usize = 10_000;

#[derive(Default)]
pub struct Proofs {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Per user, the databases the backend accepted since the last `forget_all`.
    by_user: HashMap<String, HashSet<String>>,
    count: usize,
}

impl Proofs {
    /// Has the backend let `user` into `db` since the proofs were last forgotten?
    pub fn proven(&self, user: &str, db: &str) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.by_user.get(user).is_some_and(|dbs| dbs.contains(db))
    }

    /// The backend let `user` into `db`.
    pub fn record(&self, user: &str, db: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.by_user.get(user).is_some_and(|dbs| dbs.contains(db)) {
            return;
        }
        if inner.count >= MAX_PROOFS {
            *inner = Inner::default();
        }
        inner.by_user.entry(user.to_string()).or_default().insert(db.to_string());
        inner.count += 1;
        debug_assert!(inner.count <= MAX_PROOFS);
    }

    /// Accounts were read again, or a database was dropped: prove again.
    pub fn forget_all(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Inner::default();
    }

    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).count
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_holds_until_forgotten_and_the_set_is_bounded() {
        let p = Proofs::default();
        assert!(!p.proven("u", "d"));
        p.record("u", "d");
        assert!(p.proven("u", "d"));
        assert!(!p.proven("v", "d"), "per user");
        assert!(!p.proven("u", "e"), "per database");
        p.forget_all();
        assert!(!p.proven("u", "d"));
        for i in 0..MAX_PROOFS + 5 {
            p.record("u", &i.to_string());
        }
        assert!(p.len() <= MAX_PROOFS);
        assert!(p.proven("u", &(MAX_PROOFS + 4).to_string()));
    }
}
