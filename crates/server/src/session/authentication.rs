//! Logging in: the handshake response, authentication with either plugin,
//! the auth switch, the checks after a password is proved (admin port,
//! connection slots, the database asked for), and COM_CHANGE_USER, which
//! logs in again on the same connection.

use super::{Flow, Phase, Session};
use crate::accounts::Account;
use crate::credentials::Proof;
use crate::registry::login;
use crate::rsa_keys;
use std::sync::atomic::Ordering;
use turnstile_engine::SqlError;
use turnstile_sql::front::{self};
use turnstile_sql::privs;
use turnstile_wire::auth;
use turnstile_wire::command::ChangeUser;
use turnstile_wire::consts::cap;
use turnstile_wire::handshake::{encode_auth_more_data, encode_auth_switch, HandshakeResponse};

/// Login details kept across an auth switch.
pub(super) struct PendingLogin {
    pub(super) account: Option<std::sync::Arc<Account>>,
    pub(super) username: String,
    pub(super) database: Option<String>,
    pub(super) plugin: &'static str,
    pub(super) change_user: bool,
    /// caching_sha2_password's RSA public key was sent (once per login).
    pub(super) key_sent: bool,
}

impl Session {
    /// At login and reset: a READ COMMITTED (or READ UNCOMMITTED) global
    /// transaction_isolation becomes the session's, as MySQL copies globals at
    /// login. The default, REPEATABLE-READ, is the engine's own: one atomic load.
    /// A global transaction_read_only that is ON is copied the same way.
    pub(super) fn apply_global_isolation(&mut self) {
        if self.server.globals.read_only_default.load(Ordering::Relaxed) {
            if let Some(e) = self.engine.as_mut() {
                front::set_session_read_only(&mut self.sql, e.as_mut(), true);
            }
        }
        if !self.server.globals.weak_isolation.load(Ordering::Relaxed) {
            return;
        }
        let Some(def) = turnstile_sql::vars::lookup("transaction_isolation") else { return };
        let Some(level) = turnstile_sql::vars::isolation_level(&self.server.globals.get(def)) else { return };
        if let Some(e) = self.engine.as_mut() {
            front::set_session_isolation(&mut self.sql, e.as_mut(), level);
        }
    }

    pub(super) fn login_failed(&mut self, out: &mut Vec<u8>, user: &str, token_given: bool) -> Flow {
        self.server.stats.aborted_connects.inc();
        self.login_decided = true;
        self.server.guard.denied.inc();
        self.server.guard.login_failed(user, &self.peer.ip, &self.server.guard_limits());
        let host = if self.peer.local && self.peer.ip == "localhost" { "localhost".to_string() } else { self.peer.ip.clone() };
        let e = SqlError::access_denied(user, &host, token_given);
        self.send_err(out, &e);
        Flow::Close
    }

    pub(super) fn bad_handshake(&mut self, out: &mut Vec<u8>) -> Flow {
        self.server.stats.aborted_connects.inc();
        self.send_err(out, &SqlError::new(1043, "08S01", "Bad handshake"));
        Flow::Close
    }

    pub(super) fn on_handshake(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Flow {
        if HandshakeResponse::is_ssl_request(payload) {
            if self.server.tls.is_none() || self.tls.is_some() {
                // Not offered (ssl=OFF), or asked twice: a clear refusal.
                self.server.stats.aborted_connects.inc();
                self.send_err(out, &SqlError::new(1043, "08S01", "Bad handshake: this server does not offer SSL/TLS"));
                return Flow::Close;
            }
            // The handshake response comes next, inside TLS, with the next sequence id.
            self.tls = Some(Default::default());
            return Flow::StartTls;
        }
        let resp = match HandshakeResponse::decode(payload) {
            Ok(r) => r,
            Err(_) => return self.bad_handshake(out),
        };
        if let Some(info) = &self.tls {
            self.sql.tls = Some((info.version.get().copied().unwrap_or(""), info.cipher.get().copied().unwrap_or("")));
        }
        if self.server.globals.hot.require_secure_transport.load(Ordering::Relaxed) != 0 && !self.secure_transport() {
            self.login_decided = true;
            self.server.stats.aborted_connects.inc();
            self.send_err(out, &SqlError::new(3159, "HY000", "Connections using insecure transport are prohibited while --require_secure_transport=ON."));
            return Flow::Close;
        }
        if let Err(e) = self.take_client_collation(resp.charset as u16) {
            self.server.stats.aborted_connects.inc();
            self.send_err(out, &e);
            return Flow::Close;
        }
        if self.server.digests.is_some() && !resp.attributes_raw.is_empty() {
            let kept = turnstile_wire::handshake::bounded_attributes(&resp.attributes_raw, self.server.config.performance_schema_session_connect_attrs_size);
            self.connect_attrs = kept.into();
        }
        self.caps = (resp.capabilities & cap::SERVER_DEFAULT) | cap::PROTOCOL_41;
        self.sql.interactive = resp.capabilities & cap::INTERACTIVE != 0;
        self.multi_statements = resp.capabilities & cap::MULTI_STATEMENTS != 0;
        let plugin = match resp.auth_plugin.as_deref() {
            None => auth::NATIVE,
            Some(auth::NATIVE) => auth::NATIVE,
            Some(auth::CACHING_SHA2) => auth::CACHING_SHA2,
            Some(_) => "",
        };
        let account = self.find_account(&resp.username);
        self.authenticate(PendingLogin { account, username: resp.username, database: resp.database, plugin, change_user: false, key_sent: false }, &resp.auth_response, out)
    }

    /// Check the token, or switch the client to the account's plugin first.
    /// An unknown user is treated as an account of the default plugin (the
    /// same switch, the same wait, the same 1045), so an answer does not
    /// tell which users exist.
    pub(super) fn authenticate(&mut self, login: PendingLogin, token: &[u8], out: &mut Vec<u8>) -> Flow {
        let want: &'static str = match &login.account {
            Some(a) if a.plugin == auth::NATIVE => auth::NATIVE,
            Some(_) => auth::CACHING_SHA2,
            None => self.server.default_plugin(),
        };
        if login.plugin != want {
            let scramble = self.scramble;
            self.packet(out, |o| encode_auth_switch(o, want, &scramble));
            self.pending = Some(PendingLogin { plugin: want, ..login });
            self.phase = Phase::AuthSwitch;
            return Flow::Continue;
        }
        self.check_token(login, token, out)
    }

    pub(super) fn on_auth_switch(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Flow {
        let Some(login) = self.pending.take() else { return self.bad_handshake(out) };
        self.check_token(login, payload, out)
    }

    /// The token made from the scramble: mysql_native_password's answer, or
    /// caching_sha2_password's fast path, which asks for the password itself
    /// when its cache cannot tell (an unknown user is asked the same way).
    fn check_token(&mut self, login: PendingLogin, token: &[u8], out: &mut Vec<u8>) -> Flow {
        let empty = auth::is_empty_token(token);
        let proof = match &login.account {
            Some(a) => a.secret.check_scramble(login.plugin, &self.scramble, token),
            None if empty || login.plugin == auth::NATIVE => Proof::Refused,
            None => Proof::NeedPassword,
        };
        let account = login.account.clone();
        match (proof, account) {
            (Proof::Proved, Some(a)) if a.secret.is_legacy() && self.secure_transport() => self.ask_password(login, out),
            (Proof::Proved, Some(a)) => {
                self.keep_upstream_secret(&a, login.plugin, token);
                if login.plugin == auth::CACHING_SHA2 && a.has_password() {
                    self.packet(out, |o| encode_auth_more_data(o, &[auth::FAST_AUTH_SUCCESS]));
                }
                self.verdict(login, true, out)
            }
            (Proof::NeedPassword, _) => self.ask_password(login, out),
            _ => {
                let user = login.username.clone();
                self.arm_login_delay(&user);
                self.login_failed(out, &user, !empty)
            }
        }
    }

    /// caching_sha2_password: "perform full authentication".
    fn ask_password(&mut self, login: PendingLogin, out: &mut Vec<u8>) -> Flow {
        self.packet(out, |o| encode_auth_more_data(o, &[auth::PERFORM_FULL_AUTH]));
        self.pending = Some(login);
        self.phase = Phase::FullAuth;
        Flow::Continue
    }

    /// The client's answer to "perform full authentication": its password
    /// (in the clear inside TLS or over the socket; RSA-encrypted on plain
    /// TCP), or a request for the server's public key first.
    pub(super) fn on_full_auth(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Flow {
        let Some(login) = self.pending.take() else { return self.bad_handshake(out) };
        let password = if self.secure_transport() {
            rsa_keys::strip_nul(payload.to_vec())
        } else if payload == [auth::REQUEST_PUBLIC_KEY] && !login.key_sent {
            let Some(rsa) = &self.server.rsa else {
                // No key pair: a full authentication needs TLS or the socket.
                let user = login.username.clone();
                self.arm_login_delay(&user);
                return self.login_failed(out, &user, true);
            };
            let pem = rsa.public_pem.clone();
            self.packet(out, |o| encode_auth_more_data(o, pem.as_bytes()));
            self.pending = Some(PendingLogin { key_sent: true, ..login });
            return Flow::Continue;
        } else {
            self.server.rsa.as_ref().and_then(|k| k.decrypt_password(payload, &self.scramble))
        };
        let ok = match (&login.account, &password) {
            (Some(a), Some(pw)) => a.secret.check_password(pw),
            // An unknown user's answer takes as long as a real account's.
            (None, Some(pw)) => {
                let _matches_nothing = self.server.accounts.decoy().check_password(pw);
                false
            }
            _ => false,
        };
        if ok {
            let a = login.account.as_ref().expect("checked above");
            if a.secret.is_legacy() {
                self.server.accounts.salt_legacy(&a.user, &a.host, password.as_deref().unwrap_or_default());
            }
        }
        self.verdict(login, ok, out)
    }

    /// The login's answer, after the connection_control delay if any.
    fn verdict(&mut self, login: PendingLogin, ok: bool, out: &mut Vec<u8>) -> Flow {
        self.arm_login_delay(&login.username);
        if !ok {
            let user = login.username.clone();
            return self.login_failed(out, &user, true);
        }
        self.password_proved(&login.username);
        self.finish_login(login, out)
    }

    /// connection_control: past the failed-login threshold this attempt's
    /// answer waits (the driver holds it; `take_login_delay`).
    fn arm_login_delay(&mut self, user: &str) {
        let delay_ms = self.server.guard.delay_ms(user, &self.peer.ip, &self.server.guard_limits());
        if delay_ms > 0 {
            self.server.guard.delays.inc();
            self.login_delay_until_ms = turnstile_engine::clock::coarse_ms() + delay_ms;
        }
    }

    /// The password was right: the user's failures and the host's broken-off connections are forgotten.
    fn password_proved(&mut self, user: &str) {
        self.login_decided = true;
        self.server.guard.login_succeeded(user, &self.peer.ip);
    }

    pub(super) fn finish_login(&mut self, login: PendingLogin, out: &mut Vec<u8>) -> Flow {
        let account = login.account.expect("checked by caller");
        if !self.meets_require(&account) {
            // REQUIRE: the same answer as a wrong password (MariaDB's).
            return self.login_failed(out, &login.username, true);
        }
        let admin = account.privileges(None) & privs::ADMIN != 0;
        if self.handle.admin_port && !admin {
            self.server.stats.aborted_connects.inc();
            self.send_err(out, &SqlError::specific_access_denied("SERVICE_CONNECTION_ADMIN"));
            return Flow::Close;
        }
        if !login.change_user && !self.claim_login_slot(admin) {
            self.server.stats.aborted_connects.inc();
            self.count_refused();
            self.send_err(out, &SqlError::too_many_connections());
            return Flow::Close;
        }
        if login.change_user {
            if let Some(e) = self.engine.as_mut() {
                e.reset();
            }
            self.sql.reset();
            self.stmts.clear();
            self.sql.db = None;
        }
        self.sql.user = login.username;
        self.sql.host = if self.peer.ip == "localhost" { "localhost".into() } else { self.peer.ip.clone() };
        self.sql.account_user = account.user.clone();
        self.sql.account_host = account.host.clone();
        self.sql.priv_cache = None;
        self.sql.apply_login_defaults(&self.server.globals);
        let proof = if login.change_user { None } else { self.cert_proof(&account) };
        if self.is_upstream() {
            let user = self.sql.user.clone();
            if let Err(e) = self.start_upstream_session(&user, login.database.as_deref()) {
                self.server.stats.aborted_connects.inc();
                self.send_err(out, &e);
                return Flow::Close;
            }
            return self.logged_in(out, proof);
        }
        if self.engine.is_none() {
            match self.server.engine.open_session() {
                Ok(e) => self.engine = Some(e),
                Err(e) => {
                    self.send_err(out, &e);
                    return Flow::Close;
                }
            }
        }
        let found_rows = self.caps & cap::FOUND_ROWS != 0;
        self.engine.as_mut().expect("opened above").set_found_rows(found_rows);
        self.apply_global_isolation();
        if let Some(db) = &login.database {
            let engine = self.engine.as_mut().expect("opened above");
            if let Err(e) = front::use_database(&mut self.sql, engine.as_mut(), &*self.server, db) {
                self.server.stats.aborted_connects.inc();
                self.send_err(out, &e);
                return Flow::Close;
            }
        }
        self.logged_in(out, proof)
    }

    /// MariaDB's proof of the certificate, sent as the info of the login's
    /// OK: `\x01` and the upper-case hex of SHA-256(SHA1(SHA1(password)),
    /// the scramble, SHA-256 of the certificate presented). A client that
    /// cannot verify a self-signed certificate (MariaDB Connector/C 3.4,
    /// Connector/J 3.4 and later) trusts it when the server that presented
    /// it also knows the account's password hash: a man in the middle does
    /// not. Only for mysql_native_password accounts with a password, over
    /// TLS (caching_sha2_password has no such proof in those clients).
    fn cert_proof(&self, a: &Account) -> Option<String> {
        if a.plugin != auth::NATIVE {
            return None;
        }
        let cert_sha256 = self.tls.as_ref()?.server_cert_sha256.get()?;
        let stored = auth::unhex::<20>(a.secret.native.as_deref()?)?;
        let digest = auth::sha256(&[&stored, &self.scramble, cert_sha256]);
        Some(format!("\u{1}{}", auth::hex(&digest).to_ascii_uppercase()))
    }

    /// The connection is what the account's REQUIRE asks: TLS; the cipher
    /// named (OpenSSL's name); a client certificate ssl_ca verified, with the
    /// issuer and subject named (compared as OpenSSL's oneline form, as
    /// MariaDB compares them). CIPHER alone needs no certificate, as in MariaDB.
    fn meets_require(&self, a: &Account) -> bool {
        if !a.require_tls {
            return true;
        }
        let Some(info) = &self.tls else { return false };
        if a.require_cipher.as_deref().is_some_and(|c| info.cipher.get().copied() != Some(c)) {
            return false;
        }
        if !a.require_x509 {
            return true;
        }
        let Some(cert) = info.peer_cert.get() else { return false };
        if a.require_issuer.is_none() && a.require_subject.is_none() {
            return true;
        }
        let Some((issuer, subject)) = crate::tls::names::issuer_and_subject(cert) else { return false };
        a.require_issuer.as_deref().is_none_or(|i| i == issuer) && a.require_subject.as_deref().is_none_or(|s| s == subject)
    }

    /// The login is complete: commands from now on. `info`: the OK's
    /// (`cert_proof`).
    fn logged_in(&mut self, out: &mut Vec<u8>, info: Option<String>) -> Flow {
        self.phase = Phase::Command;
        // (Not a COM_CHANGE_USER's second login.)
        let first_login = !self.authenticated;
        self.authenticated = true;
        let (user, db) = (self.sql.user.clone(), self.sql.db.clone());
        let attrs = std::mem::take(&mut self.connect_attrs);
        let mut connect_ns = 0;
        self.handle.set_info(|i| {
            i.user = user;
            i.db = db;
            if first_login {
                i.attrs = attrs;
            }
            i.command = "Sleep";
            i.state = "";
            // `since` was the accept until now.
            let now = std::time::Instant::now();
            connect_ns = now.saturating_duration_since(i.since).as_nanos().min(u64::MAX as u128) as u64;
            i.since = now;
        });
        if first_login && self.server.config.metrics_port != 0 && self.server.config.statistics {
            self.server.stats.connect_seconds.observe_ns(connect_ns);
        }
        self.log_connect();
        self.send_ok_info(out, 0, 0, 0, info.as_deref().unwrap_or(""), false);
        Flow::Continue
    }

    /// At the first login: leave PENDING (so nobody can evict us any more)
    /// and, on the client listeners, take a logged-in slot: max_connections of
    /// them, one more for an administrator. False: no slot (ERR 1040), or the
    /// slot was already given to a newer connection.
    pub(super) fn claim_login_slot(&mut self, admin: bool) -> bool {
        let reg = &self.server.registry;
        if login::evicted(reg.login_leave(&self.handle, login::DONE)) {
            return false;
        }
        if self.counted_admin_port {
            return true;
        }
        let limit = self.server.max_connections() + admin as u64;
        if reg.logged_in.fetch_add(1, Ordering::AcqRel) + 1 > limit {
            reg.logged_in.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        self.counted_login = true;
        true
    }

    /// The collation a client names in its handshake or COM_CHANGE_USER:
    /// the session's character sets from its login on (`apply_login_defaults`).
    /// An id MariaDB does not know means the server's defaults; a character
    /// set a client may not speak (ucs2, utf16, utf16le, utf32) is ERR 1231,
    /// before authentication, as MariaDB's `thd_init_client_charset`.
    pub(super) fn take_client_collation(&mut self, id: u16) -> Result<(), SqlError> {
        let named = turnstile_sqltext::charsets::collation_by_id(id);
        if let Some((_, charset)) = named.filter(|(_, cs)| turnstile_sqltext::charsets::is_client_charset_refused(cs)) {
            return Err(SqlError::new(1231, "42000", format!("Variable 'character_set_client' can't be set to the value of '{}'", charset)));
        }
        self.sql.handshake_collation = named;
        Ok(())
    }

    pub(super) fn change_user(&mut self, cu: ChangeUser, out: &mut Vec<u8>) -> Flow {
        if let Some(id) = cu.charset {
            if let Err(e) = self.take_client_collation(id) {
                // As MariaDB: the session is reset, to the server's character
                // sets, and keeps its connection, user and database.
                self.sql.handshake_collation = None;
                self.reset_session();
                self.send_err(out, &e);
                return Flow::Continue;
            }
        }
        let plugin = match cu.auth_plugin.as_deref() {
            None | Some(auth::NATIVE) => auth::NATIVE,
            Some(auth::CACHING_SHA2) => auth::CACHING_SHA2,
            Some(_) => "",
        };
        let account = self.find_account(&cu.username);
        self.phase = Phase::Handshake;
        self.authenticated = false;
        let login = PendingLogin { account, username: cu.username, database: cu.database, plugin, change_user: true, key_sent: false };
        self.authenticate(login, &cu.auth_response, out)
    }
}
