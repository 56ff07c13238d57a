//! Notes, warnings and errors a statement raises (SHOW WARNINGS, SHOW ERRORS,
//! @@warning_count, the warning count of OK and EOF packets).
//!
//! The engine and the SQL front push them into the statement's `Warnings`
//! (reached through `ExecContext::warnings`) while it runs; the front then
//! keeps them in the session as its diagnostics until a later statement
//! replaces them (MySQL's diagnostics area). A statement keeps at most
//! `MAX_KEPT` (MySQL's max_error_count default, 64) and counts the rest.

use std::cell::{Cell, RefCell};

/// Conditions kept per statement; the rest are only counted.
pub const MAX_KEPT: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    /// As SHOW WARNINGS spells it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: Level,
    pub code: u16,
    pub message: String,
}

/// One statement's conditions, as they are raised.
#[derive(Debug, Default)]
pub struct Warnings {
    kept: RefCell<Vec<Warning>>,
    count: Cell<u64>,
}

impl Warnings {
    pub fn push(&self, level: Level, code: u16, message: impl Into<String>) {
        self.count.set(self.count.get() + 1);
        let mut kept = self.kept.borrow_mut();
        if kept.len() < MAX_KEPT {
            kept.push(Warning { level, code, message: message.into() });
        }
        debug_assert!(kept.len() <= MAX_KEPT);
    }

    pub fn note(&self, code: u16, message: impl Into<String>) {
        self.push(Level::Note, code, message);
    }

    pub fn warn(&self, code: u16, message: impl Into<String>) {
        self.push(Level::Warning, code, message);
    }

    /// Count `n` more conditions that were raised but not kept (an engine
    /// keeps at most `MAX_KEPT` of its own).
    pub fn add_uncounted(&self, n: u64) {
        self.count.set(self.count.get() + n);
    }

    /// All raised so far, kept or not.
    pub fn count(&self) -> u64 {
        self.count.get()
    }

    /// How many conditions are kept now (a mark for `recode_since`).
    pub fn kept_len(&self) -> usize {
        self.kept.borrow().len()
    }

    /// The conditions kept after `mark` with code `from` get code `to` and
    /// `message` (a write through a view names the view, not its table).
    pub fn recode_since(&self, mark: usize, from: u16, to: u16, message: &str) {
        for w in self.kept.borrow_mut().iter_mut().skip(mark).filter(|w| w.code == from) {
            w.code = to;
            w.message = message.to_string();
        }
    }

    /// Put back what `take` returned, ahead of anything raised since.
    pub fn put_back(&self, (mut kept, count): (Vec<Warning>, u64)) {
        let mut now = self.kept.borrow_mut();
        kept.append(&mut now);
        kept.truncate(MAX_KEPT);
        *now = kept;
        self.count.set(self.count.get() + count);
    }

    /// The kept conditions and the count, leaving this empty.
    pub fn take(&self) -> (Vec<Warning>, u64) {
        (self.kept.take(), self.count.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_max_kept_and_counts_all() {
        let w = Warnings::default();
        for i in 0..(MAX_KEPT as u16 + 10) {
            w.warn(1264, format!("w{}", i));
        }
        assert_eq!(w.count(), MAX_KEPT as u64 + 10);
        let (kept, n) = w.take();
        assert_eq!((kept.len(), n), (MAX_KEPT, MAX_KEPT as u64 + 10));
        assert_eq!(kept[0].message, "w0");
        assert_eq!(w.count(), 0);
    }
}
