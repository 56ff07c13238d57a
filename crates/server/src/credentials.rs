//! What an account keeps to check a password, as MySQL stores it per plugin:
//! - mysql_native_password: SHA1(SHA1(password)) (its protocol needs
//!   exactly that; MySQL and MariaDB store the same), and
//! - caching_sha2_password: a salted SHA-256 crypt (`$A$005$...`,
//!   turnstile-wire's `sha_crypt`), checked against the password itself
//!   in a full authentication.
//!
//! caching_sha2_password's fast path needs SHA256(SHA256(password)); it is
//! kept only in memory (`fast`), filled when a full authentication proves the
//! password and emptied with every new password, as MySQL's cache is. After
//! a restart each such account's first login is a full one: over TLS or the
//! Unix socket the client sends its password inside the secure channel, on
//! plain TCP encrypted to the server's RSA key (rsa_keys.rs).
//!
//! Accounts files before version 2 kept the unsalted SHA256(SHA256(pw)) for
//! every account. It is read as `legacy_sha2`, serves the fast path, and is
//! replaced by the salted form at the account's next full authentication
//! (asked for at its next login over TLS or the socket) or new password, so
//! nobody is locked out by the upgrade (`Credentials::upgrade_on_load`).

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use turnstile_engine::SqlError;
use turnstile_wire::auth;
use turnstile_wire::sha_crypt::{self, Stored};

/// caching_sha2_password's fast path, from the scramble alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    Proved,
    Refused,
    /// The cache is empty or did not match: the password itself is needed.
    NeedPassword,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Credentials {
    /// mysql_native_password: hex SHA1(SHA1(pw)); None for an empty password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<String>,
    /// caching_sha2_password: `$A$005$<salt><digest>` (salt bytes are below
    /// 0x80, so the text is valid UTF-8); None for an empty password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha2_crypt: Option<String>,
    /// A version-1 file's unsalted hex SHA256(SHA256(pw)), until upgraded.
    #[serde(default, rename = "sha2", skip_serializing_if = "Option::is_none")]
    pub legacy_sha2: Option<String>,
    /// The fast path's SHA256(SHA256(pw)): memory only.
    #[serde(skip)]
    pub fast: OnceLock<[u8; 32]>,
}

impl Credentials {
    /// Hashes of `password` for `plugin` (nothing for an empty password).
    pub fn from_password(plugin: &str, password: &[u8], rounds: u32) -> Credentials {
        if password.is_empty() {
            return Credentials::default();
        }
        match plugin {
            auth::NATIVE => Credentials { native: Some(auth::hex(&auth::native_stored(password))), ..Default::default() },
            _ => {
                let mut random = [0u8; sha_crypt::SALT_LEN];
                rand::Rng::fill(&mut rand::thread_rng(), &mut random[..]);
                let stored = Stored::new(password, sha_crypt::salt_from_random(&random), rounds / 1000 * 1000);
                Credentials { sha2_crypt: Some(String::from_utf8(stored.to_bytes()).expect("salt bytes are ASCII")), ..Default::default() }
            }
        }
    }

    /// The hash of a random password nobody knows, for unknown users.
    pub fn decoy(rounds: u32) -> Credentials {
        let mut random = [0u8; 32];
        rand::Rng::fill(&mut rand::thread_rng(), &mut random[..]);
        Credentials::from_password(auth::CACHING_SHA2, auth::hex(&random).as_bytes(), rounds)
    }

    /// A hash given as `IDENTIFIED WITH plugin AS 'hash'` or `IDENTIFIED BY
    /// PASSWORD 'hash'`, as SHOW CREATE USER and mariadb-dump print them:
    /// `*` and 40 hex digits for mysql_native_password, `$A$...` for
    /// caching_sha2_password, '' for no password.
    pub fn from_hash(plugin: &str, hash: &str) -> Result<Credentials, SqlError> {
        if hash.is_empty() {
            return Ok(Credentials::default());
        }
        match plugin {
            auth::NATIVE => match hash.strip_prefix('*').and_then(auth::unhex::<20>) {
                Some(h) => Ok(Credentials { native: Some(auth::hex(&h)), ..Default::default() }),
                None => Err(SqlError::new(1372, "HY000", "Password hash should be a 41-digit hexadecimal number")),
            },
            _ => match Stored::parse(hash.as_bytes()) {
                Some(_) => Ok(Credentials { sha2_crypt: Some(hash.to_string()), ..Default::default() }),
                None => Err(SqlError::new(1827, "HY000", "The password hash doesn't have the expected format.")),
            },
        }
    }

    pub fn has_password(&self) -> bool {
        self.native.is_some() || self.sha2_crypt.is_some() || self.legacy_sha2.is_some()
    }

    /// Still on a version-1 file's unsalted hash.
    pub fn is_legacy(&self) -> bool {
        self.legacy_sha2.is_some() && self.sha2_crypt.is_none()
    }

    /// A version-1 file's account under `plugin`: only the plugin's own hash
    /// stays (the unsalted SHA1 of a caching_sha2_password account goes),
    /// and the legacy SHA-256 one fills the fast path until it is replaced.
    pub fn upgrade_on_load(&mut self, plugin: &str) {
        if plugin == auth::NATIVE {
            self.legacy_sha2 = None;
            return;
        }
        self.native = None;
        if let Some(h) = self.legacy_sha2.as_deref().and_then(auth::unhex::<32>) {
            let _ = self.fast.set(h);
        }
    }

    /// Check a token made from the scramble (mysql_native_password, or
    /// caching_sha2_password's fast path).
    pub fn check_scramble(&self, plugin: &str, scramble: &[u8], token: &[u8]) -> Proof {
        let empty_token = auth::is_empty_token(token);
        if plugin == auth::NATIVE {
            let stored = self.native.as_deref().map(auth::unhex::<20>);
            let ok = match stored {
                None => auth::verify_native(None, scramble, token),
                Some(Some(s)) => auth::verify_native(Some(&s), scramble, token),
                Some(None) => false,
            };
            return if ok { Proof::Proved } else { Proof::Refused };
        }
        match (self.has_password(), empty_token) {
            (false, true) => Proof::Proved,
            // A client without a password, an account with one (or the other way round).
            (true, true) | (false, false) => Proof::Refused,
            (true, false) => match self.fast.get() {
                Some(h) if auth::verify_sha2(Some(h), scramble, token) => Proof::Proved,
                _ => Proof::NeedPassword,
            },
        }
    }

    /// Check caching_sha2_password's password itself (a full
    /// authentication); on success the fast path is filled.
    pub fn check_password(&self, password: &[u8]) -> bool {
        let ok = if let Some(text) = &self.sha2_crypt {
            Stored::parse(text.as_bytes()).is_some_and(|s| s.verify(password))
        } else if let Some(h) = self.legacy_sha2.as_deref().and_then(auth::unhex::<32>) {
            auth::constant_time_eq(&auth::sha2_stored(password), &h)
        } else {
            password.is_empty()
        };
        if ok && !password.is_empty() {
            let _ = self.fast.set(auth::sha2_stored(password));
        }
        ok
    }

    /// mysql.user's authentication_string (MariaDB's `*HEX` for a native hash).
    pub fn shown(&self, plugin: &str) -> String {
        if plugin == auth::NATIVE {
            return self.native.as_ref().map(|h| format!("*{}", h.to_ascii_uppercase())).unwrap_or_default();
        }
        self.sha2_crypt.clone().or_else(|| self.legacy_sha2.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRAMBLE: &[u8; 20] = b"abcdefghijklmnopqrst";

    #[test]
    fn caching_sha2_needs_a_full_authentication_until_the_cache_is_filled() {
        let c = Credentials::from_password(auth::CACHING_SHA2, b"secret", 5000);
        assert!(c.native.is_none() && c.legacy_sha2.is_none());
        assert!(c.sha2_crypt.as_deref().unwrap().starts_with("$A$005$"));
        let token = auth::sha2_token(b"secret", SCRAMBLE);
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &token), Proof::NeedPassword);
        assert!(!c.check_password(b"wrong"));
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &token), Proof::NeedPassword, "a wrong password fills nothing");
        assert!(c.check_password(b"secret"));
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &token), Proof::Proved);
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &auth::sha2_token(b"secreT", SCRAMBLE)), Proof::NeedPassword);
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, b""), Proof::Refused);
        // The cache is memory only.
        let json = serde_json::to_string(&c).unwrap();
        assert!(!json.contains(&auth::hex(&auth::sha2_stored(b"secret"))));
        let back: Credentials = serde_json::from_str(&json).unwrap();
        assert_eq!(back.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &token), Proof::NeedPassword);
    }

    #[test]
    fn native_and_empty_passwords() {
        let c = Credentials::from_password(auth::NATIVE, b"pw", 5000);
        assert!(c.sha2_crypt.is_none());
        assert_eq!(c.check_scramble(auth::NATIVE, SCRAMBLE, &auth::native_token(b"pw", SCRAMBLE)), Proof::Proved);
        assert_eq!(c.check_scramble(auth::NATIVE, SCRAMBLE, &auth::native_token(b"pW", SCRAMBLE)), Proof::Refused);
        let e = Credentials::from_password(auth::CACHING_SHA2, b"", 5000);
        assert_eq!(e.check_scramble(auth::CACHING_SHA2, SCRAMBLE, b""), Proof::Proved);
        assert_eq!(e.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &auth::sha2_token(b"x", SCRAMBLE)), Proof::Refused);
        assert_eq!(e.check_scramble(auth::NATIVE, SCRAMBLE, b""), Proof::Proved);
    }

    #[test]
    fn version_one_accounts_keep_working_and_lose_the_unused_hash() {
        let old = format!(r#"{{"native":"{}","sha2":"{}"}}"#, auth::hex(&auth::native_stored(b"pw")), auth::hex(&auth::sha2_stored(b"pw")));
        let mut c: Credentials = serde_json::from_str(&old).unwrap();
        c.upgrade_on_load(auth::CACHING_SHA2);
        assert!(c.native.is_none() && c.is_legacy());
        assert_eq!(c.check_scramble(auth::CACHING_SHA2, SCRAMBLE, &auth::sha2_token(b"pw", SCRAMBLE)), Proof::Proved);
        assert!(c.check_password(b"pw") && !c.check_password(b"px"));
        let mut n: Credentials = serde_json::from_str(&old).unwrap();
        n.upgrade_on_load(auth::NATIVE);
        assert!(n.legacy_sha2.is_none() && n.native.is_some());
    }

    #[test]
    fn hashes_given_as_text() {
        let native = format!("*{}", auth::hex(&auth::native_stored(b"pw")).to_ascii_uppercase());
        let c = Credentials::from_hash(auth::NATIVE, &native).unwrap();
        assert_eq!(c.shown(auth::NATIVE), native);
        assert_eq!(Credentials::from_hash(auth::NATIVE, "*12").unwrap_err().code, 1372);
        let sha = Credentials::from_password(auth::CACHING_SHA2, b"pw", 5000).sha2_crypt.unwrap();
        let c = Credentials::from_hash(auth::CACHING_SHA2, &sha).unwrap();
        assert!(c.check_password(b"pw"));
        assert_eq!(Credentials::from_hash(auth::CACHING_SHA2, "$A$005$short").unwrap_err().code, 1827);
        assert!(!Credentials::from_hash(auth::CACHING_SHA2, "").unwrap().has_password());
    }
}
