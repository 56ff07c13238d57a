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
//! unit of its last digit of the dividend; MOD and DIV agree (a == b * (a DIV
//! b) + a MOD b, the remainder smaller than the divisor and of the
//! dividend's sign); ROUND, TRUNCATE, FLOOR and CEILING to any scale (huge
//! ones too) give that many digits, within one unit, on the right side; a
//! value fitted to DECIMAL(p,s) (CAST) fits, and is the value rounded when
//! that fits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cmp::Ordering;
use turnstile_fuzz::on_server_stack;
use turnstile_sqltext::decimal::{cmp_text, Decimal, RoundMode, PARSE_MAX_SCALE};

fn check(data: &[u8]) {
    let (a, b) = match data.iter().position(|&c| c == b'\n') {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &b"1"[..]),
    };
    assert_eq!(cmp_text(a, b), cmp_text(b, a).reverse(), "cmp_text is not antisymmetric");
    let (Some(x), Some(y)) = (Decimal::parse(a), Decimal::parse(b)) else { return };
    // A text with an exponent keeps at most PARSE_MAX_SCALE digits after the point (parse's bound).
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
    check_functions(&x, &y);
    let _ = x.mul(&y);
    if let Some(q) = x.div_internal(&y) {
        let back = q.mul(&y);
        let unit = Decimal::from_parts(1, q.scale()).mul(&y);
        let diff = x.sub(&back);
        let (diff, unit) = (if diff.is_negative() { diff.neg() } else { diff }, if unit.is_negative() { unit.neg() } else { unit });
        assert!(diff <= unit, "{x} / {y} = {q} is off by more than one unit");
    }
}

/// MOD, DIV, the rounding modes and CAST's fit, on parsed values x and y.
fn check_functions(x: &Decimal, y: &Decimal) {
    if let (Some(q), Some(r)) = (x.div_trunc(y), x.rem(y)) {
        assert_eq!(y.mul(&q).add(&r).cmp(x), Ordering::Equal, "{x} != {y} * ({x} DIV {y}) + {x} MOD {y}");
        assert!(r.abs() < y.abs(), "{x} MOD {y} = {r} is not below the divisor");
        assert!(r.is_zero() || r.is_negative() == x.is_negative(), "{x} MOD {y} = {r} has not the dividend's sign");
    } else {
        assert!(y.is_zero());
    }
    // The scale: the second value's integer part, huge ones included.
    let scale = y.to_i64().unwrap_or(if y.is_negative() { i64::MIN } else { i64::MAX });
    let most = i64::from(PARSE_MAX_SCALE);
    let unit = Decimal::from_parts(1, scale.clamp(0, most) as u32);
    for mode in [RoundMode::HalfUp, RoundMode::Truncate, RoundMode::Floor, RoundMode::Ceiling] {
        let r = x.round_to(scale, mode);
        assert_eq!(r.scale() as i64, scale.clamp(0, most), "{x} rounded to {scale} has scale {}", r.scale());
        if (0..=most).contains(&scale) {
            let diff = r.sub(x);
            assert!(diff.abs() <= unit, "{x} rounded to {scale} ({mode:?}) is {r}");
            match mode {
                RoundMode::Floor => assert!(r <= *x),
                RoundMode::Ceiling => assert!(r >= *x),
                RoundMode::Truncate => assert!(r.abs() <= x.abs()),
                RoundMode::HalfUp => assert!(diff.abs().mul(&Decimal::from_i64(2)) <= unit),
            }
        }
    }
    for (p, s) in [(65u32, 30u32), (10, 2), (5, 5), (1, 0)] {
        let (f, clipped) = x.fit(p, s);
        assert!(f.int_digits() <= p - s && f.scale() == s, "{x} fitted to ({p},{s}) is {f}");
        if !clipped {
            assert_eq!(f, x.round(s));
        }
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
