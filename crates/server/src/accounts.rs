//! Accounts and grants, stored durably in `<datadir>/accounts.json`.
//!
//! Each account keeps its plugin's hash, never the password (credentials.rs:
//! SHA1(SHA1(pw)) or a salted SHA-256 crypt). Writes go to a temporary file that is fsynced
//! and renamed over the old one, so a crash leaves either the old or the new
//! list. Reads take a RwLock read guard (writers are account statements only);
//! sessions cache privilege bits and revalidate with `generation`.

use crate::credentials::Credentials;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use turnstile_engine::SqlError;
use turnstile_sql::account_sql::{AccountStmt, Require, UserName, UserSpec};
use turnstile_sql::privs;
use turnstile_wire::auth;
use turnstile_wire::sha_crypt;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Account {
    pub user: String,
    pub host: String,
    pub plugin: String,
    /// The plugin's hash of the password (and the fast path's cache).
    #[serde(flatten)]
    pub secret: Credentials,
    pub global_privs: u32,
    #[serde(default)]
    pub db_privs: BTreeMap<String, u32>,
    /// Table- and column-level grants (`ON db.t`), one entry per table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_privs: Vec<TablePrivs>,
    /// REQUIRE SSL (and every form below): a login over plain TCP or the
    /// Unix socket is refused (1045, as MariaDB). mysql.user's ssl_type 'ANY'.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_tls: bool,
    /// REQUIRE X509: a client certificate ssl_ca verified (ssl_type 'X509').
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_x509: bool,
    /// REQUIRE ISSUER / SUBJECT / CIPHER (ssl_type 'SPECIFIED').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_issuer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_cipher: Option<String>,
}

/// The grants of one account on one table: table-level bits and
/// column-level ones (`mysql.tables_priv`, `mysql.columns_priv`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TablePrivs {
    pub db: String,
    pub table: String,
    pub privs: u32,
    #[serde(default)]
    pub columns: Vec<(String, u32)>,
}

impl TablePrivs {
    fn grant(&self) -> turnstile_engine::TableGrant {
        turnstile_engine::TableGrant { db: self.db.clone(), table: self.table.clone(), privs: self.privs, columns: self.columns.clone() }
    }

    fn is_for(&self, db: &str, table: &str) -> bool {
        self.db == db && self.table.eq_ignore_ascii_case(table)
    }

    fn is_empty(&self) -> bool {
        self.privs == 0 && self.columns.is_empty()
    }

    /// Add (or with `revoke`, take away) `bits` on `columns`.
    fn set_columns(&mut self, bits: u32, columns: &[String], revoke: bool) {
        for c in columns {
            match self.columns.iter_mut().find(|(name, _)| name.eq_ignore_ascii_case(c)) {
                Some((_, b)) if revoke => *b &= !bits,
                Some((_, b)) => *b |= bits,
                None if revoke => {}
                None => self.columns.push((c.clone(), bits)),
            }
        }
        self.columns.retain(|(_, b)| *b != 0);
    }
}

impl Account {
    pub fn new(user: &str, host: &str, plugin: &str, password: &str, rounds: u32) -> Account {
        Account {
            user: user.into(),
            host: host.into(),
            plugin: plugin.into(),
            secret: Credentials::from_password(plugin, password.as_bytes(), rounds),
            global_privs: 0,
            db_privs: BTreeMap::new(),
            table_privs: Vec::new(),
            require_tls: false,
            require_x509: false,
            require_issuer: None,
            require_subject: None,
            require_cipher: None,
        }
    }

    /// What the account's connection must be (REQUIRE).
    pub fn require(&self) -> Require {
        Require { tls: self.require_tls, x509: self.require_x509, issuer: self.require_issuer.clone(), subject: self.require_subject.clone(), cipher: self.require_cipher.clone() }
    }

    fn set_require(&mut self, r: Require) {
        self.require_tls = r.tls;
        self.require_x509 = r.x509;
        self.require_issuer = r.issuer;
        self.require_subject = r.subject;
        self.require_cipher = r.cipher;
    }

    /// A new password (the fast path's cache goes with the old one, as in MySQL).
    pub fn set_password(&mut self, password: &str, rounds: u32) {
        self.secret = Credentials::from_password(&self.plugin, password.as_bytes(), rounds);
    }

    pub fn has_password(&self) -> bool {
        self.secret.has_password()
    }

    /// The password or hash a CREATE/ALTER USER or GRANT gives. A new plugin
    /// without either clears the password, as MySQL's `IDENTIFIED WITH plugin` does.
    fn take_secret(&mut self, u: &UserSpec, rounds: u32) -> Result<(), SqlError> {
        match (&u.hash, &u.password) {
            (Some(h), _) => self.secret = Credentials::from_hash(&self.plugin, h)?,
            (None, Some(pw)) => self.set_password(pw, rounds),
            (None, None) if u.plugin.is_some() => self.set_password("", rounds),
            (None, None) => {}
        }
        Ok(())
    }

    /// Privileges on `db` (global ones included).
    pub fn privileges(&self, db: Option<&str>) -> u32 {
        let mut p = self.global_privs;
        if let Some(db) = db {
            if let Some(d) = self.db_privs.get(db) {
                p |= d;
            }
        }
        p
    }
}

/// Who is connecting: for host matching.
#[derive(Debug, Clone)]
pub struct Peer {
    /// IP address text, or "localhost" for the Unix socket.
    pub ip: String,
    /// Unix socket or a loopback address.
    pub local: bool,
}

fn host_matches(pattern: &str, peer: &Peer) -> bool {
    if pattern == "%" {
        return true;
    }
    if pattern.eq_ignore_ascii_case("localhost") {
        return peer.local;
    }
    if pattern.contains('%') || pattern.contains('_') {
        return turnstile_sql::expr::like_match(&peer.ip, pattern);
    }
    pattern == peer.ip
}

/// Specificity for choosing among matching accounts (MySQL sorts the same way:
/// exact hosts before patterns, named users before the anonymous one).
fn specificity(a: &Account) -> (u8, u8) {
    let host = if a.host == "%" {
        0
    } else if a.host.contains('%') || a.host.contains('_') {
        1
    } else {
        2
    };
    (host, !a.user.is_empty() as u8)
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    accounts: Vec<Account>,
    /// 0 (absent): written before ALTER, INDEX, REFERENCES, CREATE TEMPORARY
    /// TABLES and LOCK TABLES had privileges of their own; see `upgrade`.
    #[serde(default)]
    version: u32,
}

/// The accounts file format this build writes. 1: privileges as today;
/// 2: each account keeps only its plugin's hash, caching_sha2_password's salted
/// (credentials.rs; a version-1 account's unsalted SHA-256 hash stays until
/// its next full authentication).
const FILE_VERSION: u32 = 2;

/// Bring privileges from a version-0 file to today's bits, keeping what each
/// account could do: CREATE used to allow ALTER, CREATE/DROP INDEX, foreign
/// keys and temporary tables, and LOCK TABLES was not checked at all.
fn upgrade(bits: u32) -> u32 {
    let mut b = bits;
    if b & privs::ADMIN != 0 {
        b |= privs::ALL;
    }
    if b & privs::CREATE != 0 {
        b |= privs::ALTER | privs::INDEX | privs::REFERENCES | privs::CREATE_TMP_TABLE;
    }
    if b & privs::DB_ALL != 0 {
        b |= privs::LOCK_TABLES;
    }
    b
}

pub struct Accounts {
    path: PathBuf,
    list: RwLock<Vec<Arc<Account>>>,
    generation: AtomicU64,
    /// caching_sha2_password_digest_rounds.
    rounds: u32,
    /// default_authentication_plugin: of new accounts without IDENTIFIED WITH.
    default_plugin: &'static str,
    /// A hash of a random password, checked for an unknown user's password
    /// so its full authentication costs what a real account's does.
    decoy: Credentials,
}

pub const FILE_NAME: &str = "accounts.json";

#[derive(Debug)]
pub enum BootstrapError {
    NoRootPassword,
    Io(std::io::Error),
    Corrupt(String),
}

impl std::fmt::Display for BootstrapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BootstrapError::NoRootPassword => {
                write!(f, "the data directory has no accounts yet: give --root-password (or TURNSTILE_ROOT_PASSWORD), or --allow-empty-root-password for a root@localhost without password")
            }
            BootstrapError::Io(e) => write!(f, "accounts file: {}", e),
            BootstrapError::Corrupt(e) => write!(f, "accounts file is not valid: {}", e),
        }
    }
}

impl Accounts {
    /// Load the accounts file, creating it (with root) on first start.
    /// `rounds`: caching_sha2_password_digest_rounds, for hashes written from
    /// now on; `default_plugin`: default_authentication_plugin, of root at
    /// the first start and of new accounts that name none.
    pub fn open(datadir: &Path, root_password: Option<&str>, allow_empty_root: bool, rounds: u32, default_plugin: &'static str) -> Result<Accounts, BootstrapError> {
        let path = datadir.join(FILE_NAME);
        let list = match std::fs::read(&path) {
            Ok(bytes) => {
                let file = serde_json::from_slice::<File>(&bytes).map_err(|e| BootstrapError::Corrupt(e.to_string()))?;
                let mut list = file.accounts;
                if file.version < 1 {
                    for a in list.iter_mut() {
                        a.global_privs = upgrade(a.global_privs);
                        a.db_privs.values_mut().for_each(|b| *b = upgrade(*b));
                    }
                }
                for a in list.iter_mut() {
                    a.secret.upgrade_on_load(&a.plugin);
                }
                if file.version < FILE_VERSION {
                    // The hashes no plugin reads leave the disk now.
                    write_file(&path, &list).map_err(BootstrapError::Io)?;
                }
                let legacy = list.iter().filter(|a| a.secret.is_legacy()).count();
                if legacy > 0 {
                    tracing::warn!(
                        accounts = legacy,
                        "caching_sha2_password accounts still keep an unsalted hash from an older version: each is salted at its next login over TLS or the Unix socket, or its next new password"
                    );
                }
                list
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let root = match root_password {
                    Some(pw) if !pw.is_empty() => {
                        let mut a = Account::new("root", "%", default_plugin, pw, rounds);
                        a.global_privs = privs::ALL | privs::GRANT_OPTION;
                        a
                    }
                    _ if allow_empty_root => {
                        let mut a = Account::new("root", "localhost", default_plugin, "", rounds);
                        a.global_privs = privs::ALL | privs::GRANT_OPTION;
                        a
                    }
                    _ => return Err(BootstrapError::NoRootPassword),
                };
                let list = vec![root];
                write_file(&path, &list).map_err(BootstrapError::Io)?;
                list
            }
            Err(e) => return Err(BootstrapError::Io(e)),
        };
        Ok(Accounts { path, list: RwLock::new(list.into_iter().map(Arc::new).collect()), generation: AtomicU64::new(1), rounds, default_plugin, decoy: Credentials::decoy(rounds) })
    }

    /// The accounts of an upstream engine's backend (`turnstile_upstream::accounts`):
    /// kept in memory only, replaced as they are read again.
    pub fn learned(list: Vec<turnstile_upstream::LearnedAccount>) -> Accounts {
        let a =
            Accounts { path: PathBuf::new(), list: RwLock::new(Vec::new()), generation: AtomicU64::new(1), rounds: sha_crypt::ROUNDS_MIN, default_plugin: auth::NATIVE, decoy: Credentials::default() };
        a.replace_learned(list);
        a
    }

    /// Replace every account with the backend's.
    pub fn replace_learned(&self, list: Vec<turnstile_upstream::LearnedAccount>) {
        let accounts: Vec<Arc<Account>> = list
            .into_iter()
            .map(|l| {
                let global_privs = if l.admin { privs::ALL | privs::GRANT_OPTION } else { 0 };
                // No REQUIRE: the backend checks its own on the connection it is given.
                let mut a = Account::new(&l.user, &l.host, auth::NATIVE, "", sha_crypt::ROUNDS_MIN);
                a.secret = Credentials { native: l.hash2.map(|h| auth::hex(&h)), ..Default::default() };
                a.global_privs = global_privs;
                Arc::new(a)
            })
            .collect();
        *self.list.write().unwrap_or_else(|e| e.into_inner()) = accounts;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// An account still on a version-1 file's unsalted hash proved its
    /// password in a full authentication: keep the salted hash instead.
    /// A failure to write is logged; the account keeps working either way.
    pub fn salt_legacy(&self, user: &str, host: &str, password: &[u8]) {
        let rounds = self.rounds;
        let r = self.modify(|list| {
            let Some(a) = list.iter_mut().find(|a| a.user == user && a.host == host && a.secret.is_legacy()) else { return Ok(false) };
            if !a.secret.check_password(password) {
                return Ok(false);
            }
            a.secret = Credentials::from_password(&a.plugin, password, rounds);
            let _ = a.secret.fast.set(auth::sha2_stored(password));
            Ok(true)
        });
        match r {
            Ok(true) => tracing::info!(user, host, "caching_sha2_password: the account's unsalted hash from an older version is now salted"),
            Ok(false) => {}
            Err(e) => tracing::warn!(user, host, error = %e.message, "caching_sha2_password: cannot store the account's salted hash"),
        }
    }

    /// What an unknown user's password is checked against (matches nothing).
    pub fn decoy(&self) -> &Credentials {
        &self.decoy
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The account a login as `user` from `peer` uses, if any.
    pub fn find(&self, user: &str, peer: &Peer) -> Option<Arc<Account>> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter().filter(|a| a.user == user && host_matches(&a.host, peer)).max_by_key(|a| specificity(a)).cloned()
    }

    /// Every account as `mysql.user` shows it (MariaDB's `*HEX` for a
    /// mysql_native_password hash; the SHA-256 one's hex for
    /// caching_sha2_password). Only for an administrator (`Access::accounts`).
    pub fn rows(&self) -> Vec<turnstile_engine::AccountRow> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter()
            .map(|a| turnstile_engine::AccountRow {
                user: a.user.clone(),
                host: a.host.clone(),
                plugin: a.plugin.clone(),
                authentication_string: a.secret.shown(&a.plugin),
                ssl_type: a.require().ssl_type().to_string(),
                ssl_cipher: a.require_cipher.clone().unwrap_or_default(),
                x509_issuer: a.require_issuer.clone().unwrap_or_default(),
                x509_subject: a.require_subject.clone().unwrap_or_default(),
                global_privs: a.global_privs,
                db_privs: a.db_privs.iter().map(|(d, b)| (d.clone(), *b)).collect(),
                table_privs: a.table_privs.iter().map(TablePrivs::grant).collect(),
            })
            .collect()
    }

    pub fn privileges(&self, user: &str, host: &str, db: Option<&str>) -> u32 {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter().find(|a| a.user == user && a.host == host).map_or(0, |a| a.privileges(db))
    }

    /// The table- and column-level grants of the account `user`@`host`.
    pub fn table_grants(&self, user: &str, host: &str) -> Vec<turnstile_engine::TableGrant> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        let Some(a) = list.iter().find(|a| a.user == user && a.host == host) else { return Vec::new() };
        a.table_privs.iter().map(TablePrivs::grant).collect()
    }

    /// The table-level bits `user`@`host` holds on `db`.`table`.
    fn table_privileges(&self, user: &str, host: &str, db: &str, table: &str) -> u32 {
        self.table_grants(user, host).iter().filter(|g| g.is_for(db, table)).fold(0, |a, g| a | g.privs)
    }

    /// `may_grant` for a table-level grant: the grantor's database and
    /// table bits together must hold GRANT OPTION and all of `bits`
    /// (MariaDB: 1142 naming the table).
    fn may_grant_table(&self, by_user: &str, by_host: &str, db: &str, table: &str, bits: u32) -> Result<(), SqlError> {
        let held = self.privileges(by_user, by_host, Some(db)) | self.table_privileges(by_user, by_host, db, table);
        let want = bits | privs::GRANT_OPTION;
        if held & want == want {
            return Ok(());
        }
        let name = if held & privs::GRANT_OPTION == 0 { "GRANT" } else { privs::first_missing(want, held) };
        Err(SqlError::table_access_denied(name, by_user, by_host, db, table))
    }

    /// BACKUP DATA: the accounts as they are now, written to `dir/accounts.json`
    /// (fsynced, 0600). Account statements wait meanwhile.
    pub fn write_copy(&self, dir: &Path) -> std::io::Result<()> {
        // The lock is let go before the write and its fsync.
        let copy: Vec<Account> = self.list.read().unwrap_or_else(|e| e.into_inner()).iter().map(|a| (**a).clone()).collect();
        write_file(&dir.join(FILE_NAME), &copy)
    }

    fn modify<T>(&self, f: impl FnOnce(&mut Vec<Account>) -> Result<T, SqlError>) -> Result<T, SqlError> {
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        let mut next: Vec<Account> = list.iter().map(|a| (**a).clone()).collect();
        let out = f(&mut next)?;
        write_file(&self.path, &next).map_err(|e| SqlError::internal(format!("cannot write accounts: {}", e)))?;
        *list = next.into_iter().map(Arc::new).collect();
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(out)
    }

    /// May the account `by` grant (or revoke) `bits` at this level (`*.*`
    /// when `db` is None)? It must hold GRANT OPTION there and every
    /// privilege it hands out, as in MySQL: GRANT OPTION on `*.*` with SELECT
    /// alone does not let an account give itself ALL. Refused with MariaDB's
    /// errors: 1045 at the global level, 1044 naming the database.
    fn may_grant(&self, by_user: &str, by_host: &str, db: Option<&str>, bits: u32) -> Result<(), SqlError> {
        let held = self.privileges(by_user, by_host, db);
        // ADMIN exists only at the global level; ALL on `db.*` means the rest.
        let want = if db.is_some() { bits & !privs::ADMIN } else { bits } | privs::GRANT_OPTION;
        if held & want == want {
            return Ok(());
        }
        Err(match db {
            None => SqlError::access_denied(by_user, by_host, true),
            Some(d) => SqlError::db_access_denied(by_user, by_host, d),
        })
    }

    /// Apply an account statement on behalf of `by` (user, host of its account,
    /// and its global privileges). Returns SHOW GRANTS lines.
    pub fn apply(&self, by_user: &str, by_host: &str, stmt: AccountStmt) -> Result<Vec<String>, SqlError> {
        let admin = self.privileges(by_user, by_host, None) & privs::ADMIN != 0;
        let need_admin = || {
            if admin {
                Ok(())
            } else {
                Err(SqlError::specific_access_denied("CREATE USER"))
            }
        };
        let me = |n: &UserName| {
            if n.user.is_empty() && n.host.is_empty() {
                UserName { user: by_user.into(), host: by_host.into() }
            } else {
                n.clone()
            }
        };
        match stmt {
            AccountStmt::CreateUser { users, if_not_exists } => {
                need_admin()?;
                self.modify(|list| {
                    let mut failed = Vec::new();
                    for u in &users {
                        if find_mut(list, &u.name).is_some() {
                            if !if_not_exists {
                                failed.push(u.name.to_string());
                            }
                            continue;
                        }
                        let plugin = checked_plugin(u, self.default_plugin)?;
                        let mut a = Account::new(&u.name.user, &u.name.host, &plugin, "", self.rounds);
                        a.take_secret(u, self.rounds)?;
                        a.set_require(u.require.clone().unwrap_or_default());
                        list.push(a);
                    }
                    if failed.is_empty() {
                        Ok(Vec::new())
                    } else {
                        Err(SqlError::operation_failed("CREATE USER", &failed.join(",")))
                    }
                })
            }
            AccountStmt::DropUser { users, if_exists } => {
                need_admin()?;
                self.modify(|list| {
                    let mut failed = Vec::new();
                    for u in &users {
                        let before = list.len();
                        list.retain(|a| !(a.user == u.user && a.host == u.host));
                        if list.len() == before && !if_exists {
                            failed.push(u.to_string());
                        }
                    }
                    if failed.is_empty() {
                        Ok(Vec::new())
                    } else {
                        Err(SqlError::operation_failed("DROP USER", &failed.join(",")))
                    }
                })
            }
            AccountStmt::AlterUser { users, if_exists } => self.modify(|list| {
                let mut failed = Vec::new();
                for u in &users {
                    let name = me(&u.name);
                    // Changing one's own password needs no privilege; one's own REQUIRE does,
                    // and so does a hash given as it is stored: it could name 4,095,000 rounds
                    // and make every login attempt at the account, anyone's, cost a second of CPU.
                    if !admin && (name.user != by_user || name.host != by_host || u.require.is_some() || u.hash.is_some()) {
                        return Err(SqlError::specific_access_denied("CREATE USER"));
                    }
                    match find_mut(list, &name) {
                        None => {
                            if !if_exists {
                                failed.push(name.to_string());
                            }
                        }
                        Some(a) => {
                            if u.plugin.is_some() {
                                a.plugin = checked_plugin(u, self.default_plugin)?;
                            }
                            a.take_secret(u, self.rounds)?;
                            if let Some(r) = &u.require {
                                a.set_require(r.clone());
                            }
                        }
                    }
                }
                if failed.is_empty() {
                    Ok(Vec::new())
                } else {
                    Err(SqlError::operation_failed("ALTER USER", &failed.join(",")))
                }
            }),
            AccountStmt::SetPassword { user, password } => {
                let name = user.map(|u| me(&u)).unwrap_or(UserName { user: by_user.into(), host: by_host.into() });
                if !admin && (name.user != by_user || name.host != by_host) {
                    return Err(SqlError::specific_access_denied("CREATE USER"));
                }
                self.modify(|list| match find_mut(list, &name) {
                    Some(a) => {
                        a.set_password(&password, self.rounds);
                        Ok(Vec::new())
                    }
                    None => Err(SqlError::new(1133, "42000", "Can't find any matching row in the user table")),
                })
            }
            AccountStmt::Grant { privs: bits, db, table, columns, users, grant_option, create_missing } => {
                let extra = if grant_option { privs::GRANT_OPTION } else { 0 };
                let column_bits = columns.iter().fold(0, |a, (b, _)| a | b);
                let target = match (&db, &table) {
                    (Some(d), Some(t)) => {
                        let table_bits = if bits & privs::ALL == privs::ALL { privs::TABLE_ALL } else { bits };
                        if table_bits & !privs::TABLE_ALL != 0 || column_bits & !privs::COLUMN_ALL != 0 {
                            return Err(illegal_grant());
                        }
                        self.may_grant_table(by_user, by_host, d, t, table_bits | column_bits | extra)?;
                        Level::Table(d, t, table_bits)
                    }
                    _ if column_bits != 0 => return Err(illegal_grant()),
                    (d, _) => {
                        self.may_grant(by_user, by_host, d.as_deref(), bits | extra)?;
                        Level::Db(d.as_deref(), bits)
                    }
                };
                // `GRANT ... IDENTIFIED BY` changes a password: only an
                // administrator may, as with ALTER USER for another account
                // (MariaDB: 1044 to database 'mysql'). Without this, GRANT
                // OPTION on any database was enough to take over root.
                let sets_password = users.iter().any(|u| u.password.is_some() || u.hash.is_some() || u.plugin.is_some());
                if sets_password && !admin {
                    return Err(SqlError::new(1044, "42000", format!("Access denied for user '{}'@'{}' to database 'mysql'", by_user, by_host)));
                }
                self.modify(|list| {
                    for u in &users {
                        let name = me(&u.name);
                        if find_mut(list, &name).is_none() {
                            // A missing account is created by an administrator
                            // whose sql_mode allows it, or when it gets a password.
                            if !create_missing && u.password.is_none() {
                                return Err(SqlError::new(1133, "28000", "Can't find any matching row in the user table"));
                            }
                            if !admin {
                                return Err(SqlError::new(1410, "42000", "You are not allowed to create a user with GRANT"));
                            }
                            list.push(Account::new(&name.user, &name.host, &checked_plugin(u, self.default_plugin)?, "", self.rounds));
                        }
                        let a = find_mut(list, &name).expect("present or just created");
                        match target {
                            Level::Db(None, bits) => a.global_privs |= bits | extra,
                            // ADMIN only exists at the global level.
                            Level::Db(Some(d), bits) => *a.db_privs.entry(d.to_string()).or_insert(0) |= (bits & !privs::ADMIN) | extra,
                            Level::Table(d, t, table_bits) => {
                                let entry = match a.table_privs.iter().position(|g| g.is_for(d, t)) {
                                    Some(i) => &mut a.table_privs[i],
                                    None => {
                                        a.table_privs.push(TablePrivs { db: d.clone(), table: t.clone(), privs: 0, columns: Vec::new() });
                                        a.table_privs.last_mut().expect("just pushed")
                                    }
                                };
                                entry.privs |= table_bits | extra;
                                for (b, cols) in &columns {
                                    entry.set_columns(*b, cols, false);
                                }
                            }
                        }
                        if u.password.is_some() || u.hash.is_some() {
                            a.take_secret(u, self.rounds)?;
                        }
                    }
                    Ok(Vec::new())
                })
            }
            AccountStmt::Revoke { privs: bits, db, table, columns, users } => {
                let bits = if bits & privs::ALL == privs::ALL { bits | privs::ALL | privs::GRANT_OPTION } else { bits };
                match (&db, &table) {
                    (Some(d), Some(t)) => {
                        let column_bits = columns.iter().fold(0, |a, (b, _)| a | b);
                        self.may_grant_table(by_user, by_host, d, t, (bits & privs::TABLE_ALL) | column_bits)?
                    }
                    (d, _) => self.may_grant(by_user, by_host, d.as_deref(), bits & !privs::GRANT_OPTION)?,
                }
                self.modify(|list| {
                    for u in &users {
                        let name = me(u);
                        let a = find_mut(list, &name).ok_or_else(|| SqlError::nonexisting_grant(&name.user, &name.host))?;
                        match (&db, &table) {
                            (None, _) => a.global_privs &= !bits,
                            (Some(d), None) => {
                                let Some(p) = a.db_privs.get_mut(d) else { return Err(SqlError::nonexisting_grant(&name.user, &name.host)) };
                                *p &= !bits;
                                if *p == 0 {
                                    a.db_privs.remove(d);
                                }
                            }
                            (Some(d), Some(t)) => {
                                let Some(g) = a.table_privs.iter_mut().find(|g| g.is_for(d, t)) else {
                                    return Err(SqlError::new(1147, "42000", format!("There is no such grant defined for user '{}' on host '{}' on table '{}'", name.user, name.host, t)));
                                };
                                g.privs &= !bits;
                                for (b, cols) in &columns {
                                    g.set_columns(*b, cols, true);
                                }
                                a.table_privs.retain(|g| !g.is_empty());
                            }
                        }
                    }
                    Ok(Vec::new())
                })
            }
            AccountStmt::RevokeAll { users } => {
                need_admin()?;
                self.modify(|list| {
                    let mut failed = false;
                    for u in &users {
                        match find_mut(list, &me(u)) {
                            Some(a) => {
                                a.global_privs = 0;
                                a.db_privs.clear();
                                a.table_privs.clear();
                            }
                            None => failed = true,
                        }
                    }
                    if failed {
                        return Err(SqlError::new(1269, "HY000", "Can't revoke all privileges for one or more of the requested users"));
                    }
                    Ok(Vec::new())
                })
            }
            AccountStmt::ShowGrants { user } => {
                let name = user.map(|u| me(&u)).unwrap_or(UserName { user: by_user.into(), host: by_host.into() });
                if !admin && (name.user != by_user || name.host != by_host) {
                    return Err(SqlError::new(1044, "42000", format!("Access denied for user '{}'@'{}' to database 'mysql'", by_user, by_host)));
                }
                let list = self.list.read().unwrap_or_else(|e| e.into_inner());
                let a = list.iter().find(|a| a.user == name.user && a.host == name.host).ok_or_else(|| SqlError::nonexisting_grant(&name.user, &name.host))?;
                Ok(grant_lines(a))
            }
        }
    }
}

/// Where a GRANT puts its privileges.
#[derive(Clone, Copy)]
enum Level<'a> {
    /// `*.*` (None) or `db.*`, with the bits.
    Db(Option<&'a str>, u32),
    /// `db.t`, with the table-level bits.
    Table(&'a String, &'a String, u32),
}

fn illegal_grant() -> SqlError {
    SqlError::new(1144, "42000", "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used")
}

fn checked_plugin(u: &UserSpec, default_plugin: &str) -> Result<String, SqlError> {
    match u.plugin.as_deref() {
        None => Ok(default_plugin.to_string()),
        Some(p) if p == auth::NATIVE || p == auth::CACHING_SHA2 => Ok(p.to_string()),
        Some(p) => Err(SqlError::new(1524, "HY000", format!("Plugin '{}' is not loaded", p))),
    }
}

fn find_mut<'a>(list: &'a mut [Account], n: &UserName) -> Option<&'a mut Account> {
    list.iter_mut().find(|a| a.user == n.user && a.host == n.host)
}

fn priv_text(bits: u32) -> String {
    if bits & privs::ALL == privs::ALL {
        return "ALL PRIVILEGES".into();
    }
    let names: Vec<&str> = privs::NAMES.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect();
    if names.is_empty() {
        "USAGE".into()
    } else {
        names.join(", ")
    }
}

/// SHOW GRANTS lines in MySQL's format.
pub fn grant_lines(a: &Account) -> Vec<String> {
    let who = format!("`{}`@`{}`", a.user, a.host);
    let opt = |bits: u32| {
        if bits & privs::GRANT_OPTION != 0 {
            " WITH GRANT OPTION"
        } else {
            ""
        }
    };
    let require = a.require().clause();
    let mut lines = vec![format!("GRANT {} ON *.* TO {}{}{}", priv_text(a.global_privs), who, require, opt(a.global_privs))];
    for (db, bits) in &a.db_privs {
        let text = if bits & privs::DB_ALL == privs::DB_ALL { "ALL PRIVILEGES".to_string() } else { priv_text(*bits) };
        lines.push(format!("GRANT {} ON `{}`.* TO {}{}", text, db, who, opt(*bits)));
    }
    for t in &a.table_privs {
        lines.push(format!("GRANT {} ON `{}`.`{}` TO {}{}", table_priv_text(t), t.db, t.table, who, opt(t.privs)));
    }
    lines
}

/// A table grant's privileges as SHOW GRANTS lists them: each privilege in
/// MySQL's order, table-level first, then with the columns it is held on.
fn table_priv_text(t: &TablePrivs) -> String {
    if t.privs & privs::TABLE_ALL == privs::TABLE_ALL && t.columns.is_empty() {
        return "ALL PRIVILEGES".into();
    }
    let mut parts = Vec::new();
    for (bit, name) in privs::NAMES {
        if t.privs & bit != 0 {
            parts.push(name.to_string());
        }
        let cols: Vec<String> = t.columns.iter().filter(|(_, b)| b & bit != 0).map(|(c, _)| format!("`{}`", c)).collect();
        if !cols.is_empty() {
            parts.push(format!("{} ({})", name, cols.join(", ")));
        }
    }
    if parts.is_empty() {
        "USAGE".into()
    } else {
        parts.join(", ")
    }
}

fn write_file(path: &Path, list: &[Account]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("json.tmp");
    {
        // 0600: the file holds password hashes.
        let mut f = crate::datadir::create_private_file(&tmp)?;
        f.write_all(&serde_json::to_vec_pretty(&File { accounts: list.to_vec(), version: FILE_VERSION }).map_err(std::io::Error::other)?)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::Proof;

    fn peer(ip: &str) -> Peer {
        Peer { ip: ip.into(), local: ip == "127.0.0.1" || ip == "localhost" }
    }

    #[test]
    fn bootstrap_find_verify_persist() {
        let dir = std::env::temp_dir().join(format!("ts-acc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(Accounts::open(&dir, None, false, 5000, auth::CACHING_SHA2), Err(BootstrapError::NoRootPassword)));
        let acc = Accounts::open(&dir, Some("pw"), false, 5000, auth::CACHING_SHA2).unwrap();
        let root = acc.find("root", &peer("10.0.0.1")).unwrap();
        let scramble = b"abcdefghijklmnopqrst";
        let token = auth::sha2_token(b"pw", scramble);
        assert_eq!(root.secret.check_scramble(auth::CACHING_SHA2, scramble, &token), Proof::NeedPassword);
        assert!(root.secret.check_password(b"pw"));
        assert_eq!(root.secret.check_scramble(auth::CACHING_SHA2, scramble, &token), Proof::Proved);
        let on_disk = std::fs::read_to_string(dir.join(FILE_NAME)).unwrap();
        assert!(on_disk.contains("$A$005$") && !on_disk.contains(&auth::hex(&auth::sha2_stored(b"pw"))));
        let stmt = AccountStmt::CreateUser {
            users: vec![UserSpec { name: UserName { user: "bob".into(), host: "localhost".into() }, plugin: None, password: Some("b".into()), hash: None, require: None }],
            if_not_exists: false,
        };
        acc.apply("root", "%", stmt.clone()).unwrap();
        assert_eq!(acc.apply("root", "%", stmt).unwrap_err().code, 1396);
        assert!(acc.find("bob", &peer("10.0.0.1")).is_none());
        assert!(acc.find("bob", &peer("127.0.0.1")).is_some());
        // Reopen: persisted; the root password option no longer matters.
        let again = Accounts::open(&dir, None, false, 5000, auth::CACHING_SHA2).unwrap();
        assert!(again.find("bob", &peer("localhost")).is_some());
        assert_eq!(grant_lines(&again.find("root", &peer("x")).unwrap()), vec!["GRANT ALL PRIVILEGES ON *.* TO `root`@`%` WITH GRANT OPTION"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A version-1 file: nobody is locked out, the hash no plugin reads
    /// leaves the disk at once, and the unsalted SHA-256 one at the
    /// account's first full authentication.
    #[test]
    fn version_one_file_is_upgraded_without_locking_anyone_out() {
        let dir = std::env::temp_dir().join(format!("ts-acc-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (native, sha2) = (auth::hex(&auth::native_stored(b"pw")), auth::hex(&auth::sha2_stored(b"pw")));
        let old = format!(
            r#"{{"accounts":[{{"user":"root","host":"%","plugin":"caching_sha2_password","native":"{native}","sha2":"{sha2}","global_privs":{all}}},
            {{"user":"n","host":"%","plugin":"mysql_native_password","native":"{native}","sha2":"{sha2}","global_privs":0}}],"version":1}}"#,
            all = privs::ALL | privs::GRANT_OPTION
        );
        std::fs::write(dir.join(FILE_NAME), old).unwrap();
        let acc = Accounts::open(&dir, None, false, 5000, auth::CACHING_SHA2).unwrap();
        let disk = || std::fs::read_to_string(dir.join(FILE_NAME)).unwrap();
        assert!(disk().contains("\"version\": 2"));
        assert_eq!(disk().matches(&native).count(), 1, "only the native account keeps SHA1(SHA1(pw))");
        assert_eq!(disk().matches(&sha2).count(), 1, "only the caching_sha2 account keeps its old hash, until salted");
        let scramble = b"abcdefghijklmnopqrst";
        let root = acc.find("root", &peer("10.0.0.1")).unwrap();
        assert_eq!(root.secret.check_scramble(auth::CACHING_SHA2, scramble, &auth::sha2_token(b"pw", scramble)), Proof::Proved);
        acc.salt_legacy("root", "%", b"wrong");
        assert!(disk().contains(&sha2), "a wrong password changes nothing");
        acc.salt_legacy("root", "%", b"pw");
        assert!(!disk().contains(&sha2) && disk().contains("$A$005$"));
        let root = acc.find("root", &peer("10.0.0.1")).unwrap();
        assert!(!root.secret.is_legacy());
        assert_eq!(root.secret.check_scramble(auth::CACHING_SHA2, scramble, &auth::sha2_token(b"pw", scramble)), Proof::Proved, "the cache survives the upgrade");
        let again = Accounts::open(&dir, None, false, 5000, auth::CACHING_SHA2).unwrap();
        assert!(again.find("root", &peer("x")).unwrap().secret.check_password(b"pw"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn grant_option_hands_out_only_what_the_grantor_holds() {
        let dir = std::env::temp_dir().join(format!("ts-acc-grant-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let acc = Accounts::open(&dir, Some("pw"), false, 5000, auth::CACHING_SHA2).unwrap();
        let name = |u: &str| UserName { user: u.into(), host: "%".into() };
        let create = |u: &str| AccountStmt::CreateUser { users: vec![UserSpec { name: name(u), plugin: None, password: Some("p".into()), hash: None, require: None }], if_not_exists: false };
        let grant = |bits: u32, db: Option<&str>, u: &str, opt: bool| AccountStmt::Grant {
            privs: bits,
            db: db.map(str::to_string),
            table: None,
            columns: Vec::new(),
            users: vec![UserSpec { name: name(u), plugin: None, password: None, hash: None, require: None }],
            grant_option: opt,
            create_missing: false,
        };
        acc.apply("root", "%", create("g1")).unwrap();
        acc.apply("root", "%", create("victim")).unwrap();
        acc.apply("root", "%", grant(privs::SELECT, None, "g1", true)).unwrap();
        // SELECT ON *.* WITH GRANT OPTION: may pass SELECT on, nothing more.
        assert_eq!(acc.apply("g1", "%", grant(privs::ALL, None, "g1", false)).unwrap_err().code, 1045);
        assert_eq!(acc.apply("g1", "%", grant(privs::ALL, Some("d1"), "victim", false)).unwrap_err().code, 1044);
        assert_eq!(acc.apply("g1", "%", grant(privs::SELECT, None, "victim", false)).map(|_| ()), Ok(()));
        assert_eq!(acc.apply("g1", "%", grant(privs::SELECT, Some("d1"), "victim", false)).map(|_| ()), Ok(()));
        assert_eq!(acc.privileges("g1", "%", None), privs::SELECT | privs::GRANT_OPTION);
        // GRANT ... IDENTIFIED BY another account's password: account takeover.
        let takeover = AccountStmt::Grant {
            privs: privs::SELECT,
            db: None,
            table: None,
            columns: Vec::new(),
            users: vec![UserSpec { name: name("root"), plugin: None, password: Some("pwned".into()), hash: None, require: None }],
            grant_option: false,
            create_missing: false,
        };
        assert_eq!(acc.apply("g1", "%", takeover).unwrap_err().code, 1044);
        // Without GRANT OPTION nothing can be granted or revoked, not even
        // what the account holds.
        assert_eq!(acc.apply("victim", "%", grant(privs::SELECT, Some("d2"), "victim", false)).unwrap_err().code, 1044);
        assert_eq!(acc.apply("victim", "%", AccountStmt::Revoke { privs: privs::SELECT, db: None, table: None, columns: Vec::new(), users: vec![name("g1")] }).unwrap_err().code, 1045);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
