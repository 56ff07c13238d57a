//! Fuzz target: exact decimal numbers (crates/sqltext/src/decimal.rs), which
//! read every value a client stores into a DECIMAL column and every operand
//! of DECIMAL arithmetic (crates/sqlite/src/functions/decimal.rs).
//!
//! Input: two number texts separated by a newline. Besides not panicking (or
//! building a huge number from a huge exponent), checks what storage relies
//! on: a parsed value prints as text that parses back to the same value
//! (and, for text without an exponent, compares equal to what was written);
//! rounding to a scale gives exactly that many digits and is idempotent;
//! `cmp_text` (the `ts_dec` collation, which orders stored values and
//! indexes) agrees with the numeric order of the parsed values and is
//! antisymmetric; a + b - b == a; a quotient times the divisor is within one
//! unit of its last digit of the dividend.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cmp::Ordering;
use turnstile_fuzz::on_server_stack;
use turnstile_sqltext::decimal::{cmp_text, Decimal};

fn check(data: &[u8]) {
    let (a, b) = match data.iter().position(|&c| c == b'\n') {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &b"1"[..]),
    };
    assert_eq!(cmp_text(a, b), cmp_text(b, a).reverse(), "cmp_text is not antisymmetric");
    let (Some(x), Some(y)) = (Decimal::parse(a), Decimal::parse(b)) else { return };
    // A text with an exponent keeps at most 70 digits after the point (parse's bound).
    let exact = |t: &[u8]| !t.iter().any(|c| matches!(c, b'e' | b'E'));
    if exact(a) && exact(b) {
        assert_eq!(cmp_text(a, b), x.cmp(&y), "cmp_text disagrees with the parsed values");
    }
    let text = x.to_string();
    assert_eq!(Decimal::parse(text.as_bytes()).as_ref(), Some(&x), "{text} does not read back");
    if exact(a) {
        assert_eq!(cmp_text(text.as_bytes(), a), Ordering::Equal);
    }
    for scale in [0u32, 2, 30] {
        let r = x.round(scale);
        let shown = r.to_string();
        let frac = shown.split_once('.').map_or(0, |(_, f)| f.len());
        assert_eq!(frac as u32, scale, "{shown} has not {scale} digits after the point");
        assert_eq!(r.round(scale), r);
    }
    assert_eq!(x.add(&y).sub(&y).cmp(&x), Ordering::Equal, "{x} + {y} - {y} is not {x}");
    let _ = x.mul(&y);
    if let Some(q) = x.div_internal(&y) {
        let back = q.mul(&y);
        let unit = Decimal::from_parts(1, q.scale()).mul(&y);
        let diff = x.sub(&back);
        let (diff, unit) = (if diff.is_negative() { diff.neg() } else { diff }, if unit.is_negative() { unit.neg() } else { unit });
        assert!(diff <= unit, "{x} / {y} = {q} is off by more than one unit");
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
