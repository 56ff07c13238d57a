//! Fuzz target: what caching_sha2_password's full authentication takes from
//! outside (crates/server/src/rsa_keys.rs, credentials.rs, turnstile-wire's
//! sha_crypt.rs): the bytes an unauthenticated client sends where its
//! RSA-encrypted password goes, decrypted with the server's key and checked
//! as a password; and the same bytes as a stored hash given with
//! `IDENTIFIED WITH caching_sha2_password AS '...'` or `IDENTIFIED BY
//! PASSWORD '...'`. No input may panic; a hash that parses prints back
//! byte for byte, and a decrypted password never keeps a NUL.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use turnstile_server::credentials::Credentials;
use turnstile_server::rsa_keys::RsaKeys;
use turnstile_wire::auth;
use turnstile_wire::sha_crypt::Stored;

/// One key pair for the whole run, generated in a temporary directory.
fn keys() -> &'static RsaKeys {
    static KEYS: OnceLock<RsaKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ts-fuzz-rsa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = turnstile_server::config::Config { datadir: dir, ..Default::default() };
        RsaKeys::load(&config).unwrap().expect("generated")
    })
}

fuzz_target!(|data: &[u8]| {
    let scramble = b"abcdefghijklmnopqrst";
    if let Some(pw) = keys().decrypt_password(data, scramble) {
        assert!(!pw.contains(&0));
    }
    // Every ciphertext the right size is tried as well: pad or cut to the key's size.
    let mut sized = data.to_vec();
    sized.resize(keys().key_bytes(), 0);
    let _ = keys().decrypt_password(&sized, scramble);
    if let Some(s) = Stored::parse(data) {
        assert_eq!(s.to_bytes(), data, "a parsed hash prints back as given");
        // Slow hashes (up to 4,095,000 rounds) are an administrator's choice; checked only when cheap.
        if s.rounds <= 10_000 {
            assert!(!s.verify(data));
        }
    }
    let text = String::from_utf8_lossy(data);
    for plugin in [auth::CACHING_SHA2, auth::NATIVE] {
        if let Ok(c) = Credentials::from_hash(plugin, &text) {
            let _ = c.shown(plugin);
        }
    }
});
