//! caching_sha2_password's stored form: SHA-256 crypt (Ulrich Drepper's
//! "Unix crypt using SHA-256", the `$5$` of /etc/shadow) with a 20-byte salt,
//! written as MySQL writes `mysql.user.authentication_string`:
//!
//! ```text
//! $A$005$<20 salt bytes><43 characters of digest>
//! ```
//!
//! `005` is the number of rounds in thousands, three hex digits (MySQL's
//! `caching_sha2_password_digest_rounds`, 5,000 to 4,095,000). The salt is
//! kept as MySQL keeps it, whole (Drepper's `$5$` cuts salts at 16 bytes;
//! MySQL's implementation takes 20), so a hash copied from MySQL's
//! mysql.user verifies here and the other way round.
//!
//! Why salted and slow: the fast path's SHA256(SHA256(password)) is
//! unsalted, and a stolen file of those is a table lookup away from the
//! passwords; this one costs an attacker the rounds for every guess and
//! every account. The server keeps the fast path's hash only in memory,
//! filled when a full authentication proves the password (authentication.rs).

use sha2::{Digest, Sha256};

/// MySQL's "$A$": caching_sha2_password's hash format.
const PREFIX: &[u8] = b"$A$";
pub const SALT_LEN: usize = 20;
pub const DIGEST_CHARS: usize = 43;
/// Rounds are stored in thousands, as three hex digits.
pub const ROUNDS_MIN: u32 = 5_000;
pub const ROUNDS_MAX: u32 = 0xFFF * 1000;
/// Longest password hashed (MySQL's limit for this plugin: longer ones are refused).
pub const PASSWORD_MAX_BYTES: usize = 256;
const STORED_LEN: usize = PREFIX.len() + 4 + SALT_LEN + DIGEST_CHARS;

const ITOA64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A parsed `$A$...` hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub rounds: u32,
    pub salt: [u8; SALT_LEN],
    pub digest: [u8; DIGEST_CHARS],
}

impl Stored {
    /// Hash `password` with `salt` (MySQL's salt bytes: 1..=0x7f, never '$').
    pub fn new(password: &[u8], salt: [u8; SALT_LEN], rounds: u32) -> Stored {
        assert!((ROUNDS_MIN..=ROUNDS_MAX).contains(&rounds) && rounds.is_multiple_of(1000), "rounds checked when the setting is loaded");
        Stored { rounds, salt, digest: digest(password, &salt, rounds) }
    }

    /// Parse MySQL's text form; None when it is not one.
    pub fn parse(text: &[u8]) -> Option<Stored> {
        if text.len() != STORED_LEN || !text.starts_with(PREFIX) || text[6] != b'$' {
            return None;
        }
        let thousands = u32::from_str_radix(std::str::from_utf8(&text[3..6]).ok()?, 16).ok()?;
        let rounds = thousands.checked_mul(1000)?;
        if !(ROUNDS_MIN..=ROUNDS_MAX).contains(&rounds) {
            return None;
        }
        let salt: [u8; SALT_LEN] = text[7..7 + SALT_LEN].try_into().ok()?;
        let digest: [u8; DIGEST_CHARS] = text[7 + SALT_LEN..].try_into().ok()?;
        if !digest.iter().all(|c| ITOA64.contains(c)) {
            return None;
        }
        Some(Stored { rounds, salt, digest })
    }

    /// MySQL's text form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STORED_LEN);
        out.extend_from_slice(PREFIX);
        out.extend_from_slice(format!("{:03X}$", self.rounds / 1000).as_bytes());
        out.extend_from_slice(&self.salt);
        out.extend_from_slice(&self.digest);
        out
    }

    /// Whether `password` is the one hashed (the comparison takes the same
    /// time wherever the digests differ).
    pub fn verify(&self, password: &[u8]) -> bool {
        if password.len() > PASSWORD_MAX_BYTES {
            return false;
        }
        let d = digest(password, &self.salt, self.rounds);
        crate::auth::constant_time_eq(&d, &self.digest)
    }
}

/// A salt as MySQL's generate_user_salt makes one, from random bytes:
/// each byte in 1..=0x7f and never '$' (the format's separator).
pub fn salt_from_random(random: &[u8; SALT_LEN]) -> [u8; SALT_LEN] {
    let mut s = [0u8; SALT_LEN];
    for (i, b) in random.iter().enumerate() {
        let mut c = b & 0x7f;
        if c == 0 || c == b'$' {
            c += 1;
        }
        s[i] = c;
    }
    s
}

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// `len` bytes of `block` repeated.
fn repeated(block: &[u8; 32], len: usize) -> Vec<u8> {
    block.iter().copied().cycle().take(len).collect()
}

/// Drepper's algorithm, steps numbered as in his specification.
fn digest(key: &[u8], salt: &[u8], rounds: u32) -> [u8; DIGEST_CHARS] {
    // Steps 4-8: B = SHA256(key salt key).
    let b = sha256(&[key, salt, key]);
    // Steps 1-3, 9-12: A.
    let mut a = Sha256::new();
    a.update(key);
    a.update(salt);
    a.update(repeated(&b, key.len()));
    let mut n = key.len();
    while n > 0 {
        if n & 1 == 1 {
            a.update(b);
        } else {
            a.update(key);
        }
        n >>= 1;
    }
    let mut a: [u8; 32] = a.finalize().into();
    // Steps 13-16: P from the key repeated, 17-20: S from the salt repeated 16 + A[0] times.
    let dp = {
        let mut h = Sha256::new();
        (0..key.len()).for_each(|_| h.update(key));
        h.finalize().into()
    };
    let p = repeated(&dp, key.len());
    let ds = {
        let mut h = Sha256::new();
        (0..16 + a[0] as usize).for_each(|_| h.update(salt));
        h.finalize().into()
    };
    let s = repeated(&ds, salt.len());
    // Step 21: the rounds.
    for i in 0..rounds {
        let mut c = Sha256::new();
        if i & 1 == 1 {
            c.update(&p);
        } else {
            c.update(a);
        }
        if i % 3 != 0 {
            c.update(&s);
        }
        if i % 7 != 0 {
            c.update(&p);
        }
        if i & 1 == 1 {
            c.update(a);
        } else {
            c.update(&p);
        }
        a = c.finalize().into();
    }
    encode(&a)
}

/// Step 22: the digest's bytes in the specification's order, six bits a character.
fn encode(a: &[u8; 32]) -> [u8; DIGEST_CHARS] {
    const ORDER: [(usize, usize, usize); 10] = [(0, 10, 20), (21, 1, 11), (12, 22, 2), (3, 13, 23), (24, 4, 14), (15, 25, 5), (6, 16, 26), (27, 7, 17), (18, 28, 8), (9, 19, 29)];
    let mut out = [0u8; DIGEST_CHARS];
    let mut at = 0;
    let mut put = |w: u32, chars: usize| {
        let mut w = w;
        for _ in 0..chars {
            out[at] = ITOA64[(w & 0x3f) as usize];
            at += 1;
            w >>= 6;
        }
    };
    for (x, y, z) in ORDER {
        put((a[x] as u32) << 16 | (a[y] as u32) << 8 | a[z] as u32, 4);
    }
    put((a[31] as u32) << 8 | a[30] as u32, 3);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drepper(key: &str, salt: &str, rounds: u32) -> String {
        String::from_utf8(digest(key.as_bytes(), &salt.as_bytes()[..salt.len().min(16)], rounds).to_vec()).unwrap()
    }

    /// Drepper's specification's inputs, checked against glibc's crypt(3)
    /// (`openssl passwd -5` and Python's crypt module give the same; salts cut at 16 bytes there).
    #[test]
    fn specification_vectors() {
        assert_eq!(drepper("Hello world!", "saltstring", 5000), "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5");
        assert_eq!(drepper("Hello world!", "saltstringsaltstring", 10000), "3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA");
        assert_eq!(drepper("This is just a test", "toolongsaltstring", 5000), "Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5");
        assert_eq!(drepper("a very much longer text to encrypt.  This one even stretches over morethan one line.", "anotherlongsaltstring", 1400), "Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1");
        assert_eq!(drepper("we have a short salt string but not a short password", "short", 77777), "JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/");
        assert_eq!(drepper("a short string", "asaltof16chars..", 123456), "gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD");
    }

    #[test]
    fn mysql_form_round_trips() {
        let salt = salt_from_random(&[0x24, 0, 0x80, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert!(salt.iter().all(|&c| c != 0 && c != b'$' && c < 0x80));
        let h = Stored::new(b"secret", salt, 5000);
        let text = h.to_bytes();
        assert!(text.starts_with(b"$A$005$"));
        assert_eq!(text.len(), 70);
        let back = Stored::parse(&text).unwrap();
        assert_eq!(back, h);
        assert!(back.verify(b"secret"));
        assert!(!back.verify(b"Secret"));
        assert!(!back.verify(b""));
        let h = Stored::new(b"x", salt, ROUNDS_MAX);
        assert!(h.to_bytes().starts_with(b"$A$FFF$"));
    }

    #[test]
    fn malformed_hashes_are_refused() {
        let good = Stored::new(b"pw", [b'a'; SALT_LEN], 5000).to_bytes();
        assert!(Stored::parse(&good).is_some());
        assert!(Stored::parse(&good[..69]).is_none());
        let mut bad = good.clone();
        bad[3] = b'G';
        assert!(Stored::parse(&bad).is_none());
        let mut bad = good.clone();
        bad[3..6].copy_from_slice(b"004");
        assert!(Stored::parse(&bad).is_none(), "under the minimum rounds");
        let mut bad = good.clone();
        bad[69] = b'!';
        assert!(Stored::parse(&bad).is_none());
        // MySQL's own "locked" hash is well formed and matches no password.
        let locked = Stored::parse(b"$A$005$THISISACOMBINATIONOFINVALIDSALTANDPASSWORDTHATMUSTNEVERBRBEUSED").unwrap();
        assert!(!locked.verify(b"") && !locked.verify(b"THISISACOMBINATION"));
    }
}
