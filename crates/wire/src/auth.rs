//! Authentication plugins: mysql_native_password and caching_sha2_password.
//!
//! A mysql_native_password token is checked against SHA1(SHA1(password));
//! caching_sha2_password's fast-path token against SHA256(SHA256(password)),
//! which the server keeps only in memory once a full authentication (the
//! password itself, checked against `sha_crypt`'s salted hash) proved it.

use sha1::{Digest as _, Sha1};
use sha2::Sha256;

pub const NATIVE: &str = "mysql_native_password";
pub const CACHING_SHA2: &str = "caching_sha2_password";

/// caching_sha2_password's "fast auth succeeded" marker, sent as AuthMoreData.
pub const FAST_AUTH_SUCCESS: u8 = 0x03;
/// caching_sha2_password's "perform full authentication" marker.
pub const PERFORM_FULL_AUTH: u8 = 0x04;
/// A client's request for the server's RSA public key (caching_sha2_password on plain TCP).
pub const REQUEST_PUBLIC_KEY: u8 = 0x02;

/// Length of the random challenge ("scramble", "nonce") in the greeting.
pub const SCRAMBLE_LEN: usize = 20;

pub fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// What the server stores for mysql_native_password: SHA1(SHA1(password)).
pub fn native_stored(password: &[u8]) -> [u8; 20] {
    sha1(&[&sha1(&[password])])
}

/// What the server stores for caching_sha2_password: SHA256(SHA256(password)).
pub fn sha2_stored(password: &[u8]) -> [u8; 32] {
    sha256(&[&sha256(&[password])])
}

/// The client's mysql_native_password token: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))).
pub fn native_token(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = sha1(&[password]);
    let h2 = sha1(&[&h1]);
    let x = sha1(&[scramble, &h2]);
    h1.iter().zip(x.iter()).map(|(a, b)| a ^ b).collect()
}

/// The client's caching_sha2_password token:
/// SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble).
pub fn sha2_token(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = sha256(&[password]);
    let h2 = sha256(&[&h1]);
    let x = sha256(&[&h2, scramble]);
    h1.iter().zip(x.iter()).map(|(a, b)| a ^ b).collect()
}

/// Check a mysql_native_password token against the stored SHA1(SHA1(pw)).
/// `stored == None` means the account has an empty password.
pub fn verify_native(stored: Option<&[u8; 20]>, scramble: &[u8], token: &[u8]) -> bool {
    match stored {
        None => token.is_empty(),
        Some(stored) => {
            if token.len() != 20 {
                return false;
            }
            let x = sha1(&[scramble, stored]);
            let h1: Vec<u8> = token.iter().zip(x.iter()).map(|(a, b)| a ^ b).collect();
            constant_time_eq(&sha1(&[&h1]), stored)
        }
    }
}

/// What a proved mysql_native_password token reveals: SHA1(password), from
/// which a token for any other scramble can be made (the upstream engine
/// logs in to its backend with it). Call only after `verify_native` passed.
pub fn native_hash1(stored: &[u8; 20], scramble: &[u8], token: &[u8]) -> Option<[u8; 20]> {
    if token.len() != 20 {
        return None;
    }
    let x = sha1(&[scramble, stored]);
    let mut h1 = [0u8; 20];
    for (i, b) in h1.iter_mut().enumerate() {
        *b = token[i] ^ x[i];
    }
    Some(h1)
}

/// Check a caching_sha2_password scramble token against the stored SHA256(SHA256(pw)).
pub fn verify_sha2(stored: Option<&[u8; 32]>, scramble: &[u8], token: &[u8]) -> bool {
    match stored {
        None => is_empty_token(token),
        Some(stored) => {
            if token.len() != 32 {
                return false;
            }
            let x = sha256(&[stored, scramble]);
            let h1: Vec<u8> = token.iter().zip(x.iter()).map(|(a, b)| a ^ b).collect();
            constant_time_eq(&sha256(&[&h1]), stored)
        }
    }
}

/// A client without a password sends no token, or (some caching_sha2_password clients) one NUL.
pub fn is_empty_token(token: &[u8]) -> bool {
    token.is_empty() || token == [0]
}

/// Equality whose time does not depend on where the bytes differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Make a scramble of printable, non-NUL bytes (clients treat it as a C string).
pub fn scramble_from_random(random: &[u8; SCRAMBLE_LEN]) -> [u8; SCRAMBLE_LEN] {
    let mut s = [0u8; SCRAMBLE_LEN];
    for (i, b) in random.iter().enumerate() {
        s[i] = 0x21 + (b % 0x5e);
    }
    s
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

pub fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N {
        return None;
    }
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = s.as_bytes();
    let mut out = [0u8; N];
    for i in 0..N {
        out[i] = nibble(b[2 * i])? << 4 | nibble(b[2 * i + 1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRAMBLE: &[u8; 20] = b"abcdefghijklmnopqrst";

    #[test]
    fn native_round_trip() {
        let stored = native_stored(b"secret");
        assert!(verify_native(Some(&stored), SCRAMBLE, &native_token(b"secret", SCRAMBLE)));
        assert!(!verify_native(Some(&stored), SCRAMBLE, &native_token(b"wrong", SCRAMBLE)));
        assert!(!verify_native(Some(&stored), SCRAMBLE, b""));
        assert!(verify_native(None, SCRAMBLE, b""));
        assert!(!verify_native(None, SCRAMBLE, &native_token(b"x", SCRAMBLE)));
    }

    #[test]
    fn sha2_round_trip() {
        let stored = sha2_stored(b"secret");
        assert!(verify_sha2(Some(&stored), SCRAMBLE, &sha2_token(b"secret", SCRAMBLE)));
        assert!(!verify_sha2(Some(&stored), SCRAMBLE, &sha2_token(b"secreT", SCRAMBLE)));
        assert!(verify_sha2(None, SCRAMBLE, b""));
    }

    #[test]
    fn native_matches_independent_implementation() {
        // mysql_common computes the client side of the scramble independently.
        let ours = native_token(b"secret", SCRAMBLE);
        let theirs = mysql_common::scramble::scramble_native(SCRAMBLE, b"secret").unwrap();
        assert_eq!(ours, theirs.to_vec());
        let ours = sha2_token(b"secret", SCRAMBLE);
        let theirs = mysql_common::scramble::scramble_sha256(SCRAMBLE, b"secret").unwrap();
        assert_eq!(ours, theirs.to_vec());
    }

    #[test]
    fn hex_round_trip() {
        let s = native_stored(b"x");
        assert_eq!(unhex::<20>(&hex(&s)), Some(s));
        assert_eq!(unhex::<20>("zz"), None);
    }
}
