//! The session's privileges: cached per database until accounts change, as
//! the engine asks for them (`SessionAccess`) and as the front checks them
//! (`require`).

use super::Call;
use crate::{privs, ServerOps, SessionState};
use turnstile_engine::{Access, SqlError};

/// The session's privileges on its current database (the hot path: no copy
/// of the database name while the cache holds).
fn current_db_privileges(sess: &mut SessionState, ops: &dyn ServerOps) -> u32 {
    let gen = ops.privilege_generation();
    if let Some((g, d, bits)) = &sess.priv_cache {
        if *g == gen && *d == sess.db {
            return *bits;
        }
    }
    let db = sess.db.clone();
    privileges(sess, ops, db.as_deref())
}

/// The session's privileges on `db`, cached until accounts change.
pub(super) fn privileges(sess: &mut SessionState, ops: &dyn ServerOps, db: Option<&str>) -> u32 {
    let gen = ops.privilege_generation();
    if let Some((g, d, bits)) = &sess.priv_cache {
        if *g == gen && d.as_deref() == db {
            return *bits;
        }
    }
    let bits = ops.privileges(sess, db);
    sess.priv_cache = Some((gen, db.map(str::to_string), bits));
    bits
}

/// The session's privileges as the engine asks for them, for each table a
/// statement names: the current database's bits (from the session's cache,
/// refreshed by `session_access` before the statement), the accounts for
/// any other.
pub(super) struct SessionAccess<'a> {
    sess: &'a SessionState,
    ops: &'a dyn ServerOps,
    /// The current database and the session's bits on it.
    current: Option<(&'a str, u32)>,
    /// Whether the session's engine has a transaction open (for
    /// SESSION_VARIABLES' in_transaction), set by whoever knows.
    pub(super) in_transaction: bool,
}

impl Access for SessionAccess<'_> {
    fn privileges(&self, db: &str) -> u32 {
        match self.current {
            Some((d, bits)) if d == db => bits,
            _ => self.ops.privileges(self.sess, Some(db)),
        }
    }
    fn table_privileges(&self, db: &str, table: &str) -> u32 {
        self.ops.table_grants(self.sess).iter().filter(|g| g.is_for(db, table)).fold(0, |a, g| a | g.privs)
    }
    fn column_privileges(&self, db: &str, table: &str, column: &str) -> u32 {
        let grants = self.ops.table_grants(self.sess);
        grants.iter().filter(|g| g.is_for(db, table)).flat_map(|g| g.columns.iter()).filter(|(c, _)| c.eq_ignore_ascii_case(column)).fold(0, |a, (_, b)| a | b)
    }
    fn any_column_privileges(&self, db: &str, table: &str) -> u32 {
        self.ops.table_grants(self.sess).iter().filter(|g| g.is_for(db, table)).flat_map(|g| g.columns.iter()).fold(0, |a, (_, b)| a | b)
    }
    fn has_grants_within(&self, db: &str) -> bool {
        self.ops.table_grants(self.sess).iter().any(|g| g.db == db)
    }
    fn who(&self) -> (&str, &str) {
        (&self.sess.user, &self.sess.host)
    }
    fn account(&self) -> (&str, &str) {
        (&self.sess.account_user, &self.sess.account_host)
    }
    fn connection_id(&self) -> u64 {
        u64::from(self.sess.connection_id)
    }
    fn client_charset(&self) -> (String, String) {
        let globals = self.ops.globals();
        let read = |name: &str, or: &str| {
            let v = crate::vars::lookup(name).map(|d| self.sess.var(globals, d));
            v.and_then(|v| v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned())).unwrap_or_else(|| or.to_string())
        };
        // The connection's collation is one of its character set's (MariaDB
        // makes it the set's default when character_set_connection is set).
        let (cs, collation) = (read("character_set_connection", "utf8mb4"), read("collation_connection", "utf8mb4_general_ci"));
        let cs = if cs == "utf8" { "utf8mb3".to_string() } else { cs };
        let collation = if collation == cs || collation.starts_with(&format!("{}_", cs)) { collation } else { super::set::default_collation(&cs) };
        (read("character_set_client", "utf8mb4"), collation)
    }
    fn processlist(&self) -> Vec<crate::ProcessRow> {
        let admin = self.ops.privileges(self.sess, None) & privs::ADMIN != 0;
        super::process::visible_processes(self.sess, self.ops, admin)
    }
    fn digests(&self) -> Vec<turnstile_engine::DigestRow> {
        self.ops.digests()
    }
    fn connect_attrs(&self) -> Vec<turnstile_engine::AttrsRow> {
        let admin = self.ops.privileges(self.sess, None) & privs::ADMIN != 0;
        let mut rows = self.ops.connect_attrs();
        rows.retain(|r| admin || r.user == self.sess.user);
        rows.sort_by_key(|r| r.id);
        rows
    }
    fn accounts(&self) -> Vec<turnstile_engine::AccountRow> {
        let admin = self.ops.privileges(self.sess, None) & privs::ADMIN != 0;
        if admin {
            self.ops.accounts()
        } else {
            Vec::new()
        }
    }
    fn grantees(&self) -> Vec<turnstile_engine::AccountRow> {
        let admin = self.ops.privileges(self.sess, None) & privs::ADMIN != 0;
        let mut all = self.ops.accounts();
        if !admin {
            all.retain(|a| a.user == self.sess.account_user && a.host == self.sess.account_host);
        }
        all
    }
    fn variables(&self, global: bool) -> Vec<(String, String)> {
        let globals = self.ops.globals();
        let text = |v: &turnstile_engine::Value| v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
        crate::vars::all()
            .filter(|def| !(global && def.scope == crate::vars::Scope::Session))
            .map(|def| {
                let v = if global { globals.get(def) } else { super::session_env::sys_var_value(self.sess, self.ops, self.in_transaction, None, def.name).unwrap_or(turnstile_engine::Value::Null) };
                (def.name.to_ascii_uppercase(), text(&crate::vars::show_value(def, &v)))
            })
            .collect()
    }
    fn status(&self, global: bool) -> Vec<(String, String)> {
        let text = |v: &turnstile_engine::Value| v.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
        self.ops.status(self.sess, global).into_iter().map(|(n, v)| (n.to_ascii_uppercase(), text(&v))).collect()
    }
}

/// The `Access` of a session, with its current database's privileges cached.
pub(super) fn session_access<'a>(sess: &'a mut SessionState, ops: &'a dyn ServerOps) -> SessionAccess<'a> {
    let bits = current_db_privileges(sess, ops);
    let sess: &'a SessionState = sess;
    SessionAccess { current: sess.db.as_deref().map(|d| (d, bits)), sess, ops, in_transaction: false }
}

/// May the session see that `db` exists and use it (USE, SHOW DATABASES)?
/// Some privilege on it, or on one of its tables or columns.
pub(super) fn sees_database(sess: &mut SessionState, ops: &dyn ServerOps, db: &str) -> bool {
    db.eq_ignore_ascii_case("information_schema") || privileges(sess, ops, Some(db)) & privs::ALL != 0 || ops.table_grants(sess).iter().any(|g| g.db == db)
}

/// Fail unless the session holds all of `need` on `db` (None: global); for
/// ADMIN the error names the privilege `name`.
pub(super) fn require(call: &mut Call<'_, '_>, db: Option<&str>, need: u32, name: &str) -> Result<(), SqlError> {
    if privileges(call.sess, call.ops, db) & need == need {
        Ok(())
    } else if need == privs::ADMIN {
        Err(SqlError::specific_access_denied(name))
    } else {
        Err(SqlError::db_access_denied(&call.sess.user, &call.sess.host, db.unwrap_or("")))
    }
}
