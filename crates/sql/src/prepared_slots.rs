//! The server's prepared statements counted, all sessions together, SQL
//! PREPARE and COM_STMT_PREPARE alike (MariaDB's Prepared_stmt_count), and
//! held under max_prepared_stmt_count (ERR 1461), as MariaDB counts them.
//! Each prepared statement owns a `Slot`; dropping it (DEALLOCATE PREPARE,
//! COM_STMT_CLOSE, a new statement under the same name, a reset, the
//! session's end) gives its place back, so the count follows the statements
//! held and cannot drift.

use std::sync::atomic::{AtomicU64, Ordering};
use turnstile_engine::SqlError;

static HELD: AtomicU64 = AtomicU64::new(0);

/// One prepared statement's place in the count.
#[derive(Debug)]
pub struct Slot(());

impl Slot {
    /// A place for one more statement, when fewer than `max` are held.
    pub fn take(max: u64) -> Result<Slot, SqlError> {
        match HELD.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)) {
            Ok(_) => Ok(Slot(())),
            Err(_) => Err(SqlError::new(1461, "42000", format!("Can't create more than max_prepared_stmt_count statements (current value: {})", max))),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        HELD.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Prepared statements held now (SHOW STATUS's Prepared_stmt_count).
pub fn held() -> u64 {
    HELD.load(Ordering::Acquire)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_and_limited() {
        // Other tests of this process may hold slots at the same time: only
        // what holds whatever they do is asserted.
        let a = Slot::take(u64::MAX).unwrap();
        assert!(held() >= 1);
        let err = Slot::take(0).unwrap_err();
        assert_eq!(err.code, 1461);
        assert!(err.message.ends_with("(current value: 0)"), "{}", err.message);
        drop(a);
    }
}
