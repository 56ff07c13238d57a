//! TLS session tickets whose keys live `ssl_session_cache_timeout` seconds:
//! a ticket encrypted with the current key resumes until the key after next
//! replaces it (at most twice the timeout), and then falls back to a full
//! handshake, never a failure. rustls's own rotator has a fixed six hours;
//! a ticket's lifetime must come from rolling its key, not from a field in it
//! (rustls's `ProducesTickets` contract), so this rolls keys itself.
//!
//! Lock: `keys`, read per ticket issued or checked, written once per timeout.

use rustls::server::ProducesTickets;
use std::sync::{Arc, RwLock};

#[derive(Debug)]
pub struct Rotating {
    lifetime_s: u32,
    keys: RwLock<Keys>,
}

#[derive(Debug)]
struct Keys {
    current: Arc<dyn ProducesTickets>,
    previous: Option<Arc<dyn ProducesTickets>>,
    /// When `current` becomes `previous` (Unix seconds).
    switch_at_s: u64,
}

fn now_s() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A new key (ring's AEAD ticketer, fresh random key).
fn fresh() -> Result<Arc<dyn ProducesTickets>, rustls::Error> {
    rustls::crypto::ring::Ticketer::new()
}

impl Rotating {
    pub fn new(lifetime_s: u32) -> Result<Rotating, rustls::Error> {
        debug_assert!(lifetime_s >= 1, "ssl_session_cache_timeout's range starts at 1");
        Ok(Rotating { lifetime_s, keys: RwLock::new(Keys { current: fresh()?, previous: None, switch_at_s: now_s() + lifetime_s as u64 }) })
    }

    /// Roll the keys if the current one is due (a failed key generation
    /// keeps the old key for another round).
    fn roll(&self) {
        let now = now_s();
        if self.keys.read().unwrap_or_else(|e| e.into_inner()).switch_at_s > now {
            return;
        }
        let mut k = self.keys.write().unwrap_or_else(|e| e.into_inner());
        if k.switch_at_s > now {
            return;
        }
        if let Ok(next) = fresh() {
            // Two timeouts late: the previous key is too old to keep as well.
            let late = now >= k.switch_at_s + self.lifetime_s as u64;
            let old = std::mem::replace(&mut k.current, next);
            k.previous = (!late).then_some(old);
        }
        k.switch_at_s = now + self.lifetime_s as u64;
    }
}

impl ProducesTickets for Rotating {
    fn enabled(&self) -> bool {
        true
    }

    fn lifetime(&self) -> u32 {
        self.lifetime_s
    }

    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        self.roll();
        self.keys.read().unwrap_or_else(|e| e.into_inner()).current.encrypt(plain)
    }

    fn decrypt(&self, cipher: &[u8]) -> Option<Vec<u8>> {
        self.roll();
        let k = self.keys.read().unwrap_or_else(|e| e.into_inner());
        k.current.decrypt(cipher).or_else(|| k.previous.as_ref().and_then(|p| p.decrypt(cipher)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_resumes_until_its_key_is_two_rolls_old() {
        let r = Rotating::new(1).unwrap();
        let t = r.encrypt(b"session").unwrap();
        assert_eq!(r.decrypt(&t).as_deref(), Some(&b"session"[..]));
        // One roll, on time: the key is `previous`, still accepted.
        r.keys.write().unwrap().switch_at_s = now_s();
        r.roll();
        assert_eq!(r.decrypt(&t).as_deref(), Some(&b"session"[..]));
        // A second roll drops it: a full handshake instead.
        r.keys.write().unwrap().switch_at_s = now_s();
        r.roll();
        assert_eq!(r.decrypt(&t), None);
        // A roll two timeouts late keeps no previous key at all.
        let t2 = r.encrypt(b"again").unwrap();
        r.keys.write().unwrap().switch_at_s = 0;
        r.roll();
        assert_eq!(r.decrypt(&t2), None);
        assert_eq!(r.decrypt(b"not a ticket"), None);
    }
}
