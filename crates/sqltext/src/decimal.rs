//! Exact decimal numbers, as MySQL's DECIMAL computes them.
//!
//! Why: DECIMAL is the type money is kept in, and binary floating point
//! cannot hold 0.10 (`0.10 * 3` is 0.30000000000000004 in a double). A
//! `Decimal` is an integer coefficient and a scale (the value is
//! `coef / 10^scale`); sums, differences and products are exact, a quotient
//! is rounded to the scale asked for, and `round` rounds half away from zero
//! as MySQL does when a value is stored. The coefficient is a `num_bigint`
//! BigInt: MySQL's DECIMAL has up to 65 digits (and a product of two has up
//! to 130 before it is rounded), beyond i128's 38 and rust_decimal's 28; the
//! crate is the standard Rust big integer and was already in the lock file.
//!
//! Also here: MySQL's result precision and scale of `+ - * /` (`DecType`),
//! and `cmp_text`, the order of decimal texts the SQLite engine's `ts_dec`
//! collation sorts stored DECIMAL values by, which compares canonical texts
//! without allocating.

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{Signed, Zero};
use std::cmp::Ordering;

/// MySQL's most digits of a DECIMAL.
pub const MAX_PRECISION: u32 = 65;
/// MariaDB's most digits after the point (DECIMAL_MAX_SCALE; MySQL's is 30).
pub const MAX_SCALE: u32 = 38;
/// `div_precision_increment`: digits a quotient has beyond its dividend's scale.
pub const DIV_INCREMENT: u32 = 4;
/// Most digits after the point `parse` keeps before rounding (an exponent
/// such as 1e-999999 must not build a million-digit number).
pub const PARSE_MAX_SCALE: u32 = 2 * MAX_SCALE + 10;
/// Largest exponent `parse` applies; a larger one is out of every range anyway.
const PARSE_MAX_EXP: i64 = 2 * MAX_PRECISION as i64;

/// How `Decimal::round_to` rounds: ROUND's half away from zero, TRUNCATE's
/// toward zero, FLOOR's and CEILING's toward minus and plus infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundMode {
    HalfUp,
    Truncate,
    Floor,
    Ceiling,
}

/// An exact decimal number: `coef / 10^scale`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    coef: BigInt,
    scale: u32,
}

fn pow10(n: u32) -> BigInt {
    num_traits::pow(BigInt::from(10u32), n as usize)
}

impl Decimal {
    pub fn zero() -> Decimal {
        Decimal { coef: BigInt::zero(), scale: 0 }
    }

    pub fn from_i64(v: i64) -> Decimal {
        Decimal { coef: BigInt::from(v), scale: 0 }
    }

    /// `coef / 10^scale`.
    pub fn from_parts(coef: i64, scale: u32) -> Decimal {
        Decimal { coef: BigInt::from(coef), scale }
    }

    pub fn from_u64(v: u64) -> Decimal {
        Decimal { coef: BigInt::from(v), scale: 0 }
    }

    /// The shortest decimal that reads back as `v` (`None` for NaN and infinities).
    pub fn from_f64(v: f64) -> Option<Decimal> {
        if !v.is_finite() {
            return None;
        }
        // Rust's Display of f64 is the shortest round-trip form, never with an exponent.
        Decimal::parse(format!("{}", v).as_bytes())
    }

    /// A number's whole text: optional spaces, sign, digits with at most one
    /// point (at least one digit), an optional exponent, optional spaces.
    /// `None` for anything else.
    pub fn parse(text: &[u8]) -> Option<Decimal> {
        let t = trim_spaces(text);
        let (neg, rest) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let mantissa_end = rest.iter().position(|b| matches!(b, b'e' | b'E')).unwrap_or(rest.len());
        let (mantissa, exp_text) = rest.split_at(mantissa_end);
        let exp = if exp_text.is_empty() { 0 } else { parse_exponent(&exp_text[1..])? };
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(p) => (&mantissa[..p], &mantissa[p + 1..]),
            None => (mantissa, &[][..]),
        };
        if int.is_empty() && frac.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
            return None;
        }
        let digits: Vec<u8> = int.iter().chain(frac).copied().collect();
        let digits = std::str::from_utf8(&digits).ok()?;
        let mut coef: BigInt = digits.parse().ok()?;
        if neg {
            coef = -coef;
        }
        // value = coef * 10^(exp - frac.len()); the digits written are kept
        // exactly, a negative exponent adds at most PARSE_MAX_SCALE more.
        let shift = exp - frac.len() as i64;
        let max_scale = (frac.len() as u64).max(PARSE_MAX_SCALE as u64);
        let d = if shift >= 0 {
            Decimal { coef: coef * pow10(shift as u32), scale: 0 }
        } else if (-shift) as u64 <= max_scale {
            Decimal { coef, scale: u32::try_from(-shift).ok()? }
        } else {
            // Too many digits after the point: first drop what rounding to max_scale ignores.
            let excess = (-shift) as u64 - max_scale;
            let max_scale = u32::try_from(max_scale).ok()?;
            if excess > digits.len() as u64 + 1 {
                return Some(Decimal::zero().with_scale(max_scale));
            }
            Decimal { coef, scale: (-shift) as u32 }.round(max_scale)
        };
        Some(d)
    }

    /// Digits after the point.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    pub fn is_zero(&self) -> bool {
        self.coef.is_zero()
    }

    pub fn is_negative(&self) -> bool {
        self.coef.is_negative()
    }

    /// Digits before the point, not counting leading zeros (0 for 0.5).
    pub fn int_digits(&self) -> u32 {
        let int = self.coef.abs() / pow10(self.scale);
        if int.is_zero() {
            0
        } else {
            int.to_string().len() as u32
        }
    }

    /// The same value with `scale` digits after the point (more: zeros).
    /// Rounds half away from zero when there are fewer.
    pub fn round(&self, scale: u32) -> Decimal {
        match scale.cmp(&self.scale) {
            Ordering::Equal => self.clone(),
            Ordering::Greater => self.with_scale(scale),
            Ordering::Less => {
                let div = pow10(self.scale - scale);
                let (q, r) = self.coef.abs().div_rem(&div);
                let q = if r * 2u32 >= div { q + 1u32 } else { q };
                Decimal { coef: if self.coef.is_negative() { -q } else { q }, scale }
            }
        }
    }

    /// Zeros appended up to `scale` (which must not be below the current one).
    fn with_scale(&self, scale: u32) -> Decimal {
        debug_assert!(scale >= self.scale);
        Decimal { coef: &self.coef * pow10(scale - self.scale), scale }
    }

    /// Both coefficients at the larger of the two scales.
    fn aligned(&self, other: &Decimal) -> (BigInt, BigInt, u32) {
        let s = self.scale.max(other.scale);
        (self.with_scale(s).coef, other.with_scale(s).coef, s)
    }

    pub fn add(&self, other: &Decimal) -> Decimal {
        let (a, b, scale) = self.aligned(other);
        Decimal { coef: a + b, scale }
    }

    pub fn sub(&self, other: &Decimal) -> Decimal {
        let (a, b, scale) = self.aligned(other);
        Decimal { coef: a - b, scale }
    }

    pub fn mul(&self, other: &Decimal) -> Decimal {
        Decimal { coef: &self.coef * &other.coef, scale: self.scale + other.scale }
    }

    pub fn neg(&self) -> Decimal {
        Decimal { coef: -&self.coef, scale: self.scale }
    }

    /// `self / other` rounded half away from zero to `scale` digits;
    /// `None` when `other` is zero.
    pub fn div(&self, other: &Decimal, scale: u32) -> Option<Decimal> {
        if other.coef.is_zero() {
            return None;
        }
        // self/other = (a / 10^sa) / (b / 10^sb); scaled by 10^(scale+1) for the rounding digit.
        let num = &self.coef * pow10(scale + 1 + other.scale);
        let den = &other.coef * pow10(self.scale);
        let q = num / den; // truncates toward zero
        let (q10, last) = q.abs().div_rem(&BigInt::from(10u32));
        let mag = if last >= BigInt::from(5u32) { q10 + 1u32 } else { q10 };
        Some(Decimal { coef: if q.is_negative() { -mag } else { mag }, scale })
    }

    /// `self / other` as MariaDB computes it before the result is shown:
    /// truncated to whole 9-digit words of fraction, as many as the
    /// operands' fraction words plus what div_precision_increment adds
    /// beyond the digits those words already give (strings/decimal.c,
    /// do_div_mod). `0.10 / 3` is 0.033333333; the result column rounds it
    /// to its scale (6: 0.033333), a DECIMAL(65,30) column stores all nine.
    /// `None` when `other` is zero.
    pub fn div_internal(&self, other: &Decimal) -> Option<Decimal> {
        if other.coef.is_zero() {
            return None;
        }
        let words = |s: u32| s.div_ceil(9) * 9;
        let (f1, f2) = (words(self.scale), words(other.scale));
        let incr = (DIV_INCREMENT as i64 - (f1 - self.scale) as i64 - (f2 - other.scale) as i64).max(0) as u32;
        let scale = words(f1 + f2 + incr);
        let num = &self.coef * pow10(scale + other.scale);
        let den = &other.coef * pow10(self.scale);
        Some(Decimal { coef: num / den, scale })
    }

    /// `self` rounded to `scale` digits after the point by `mode`; a
    /// negative scale rounds to tens, hundreds... (ROUND(15, -1) is 20).
    /// The result has `max(scale, 0)` digits after the point (more digits
    /// than the value has: zeros appended). Bounded for any scale: a value
    /// rounded far left of its first digit is 0 (or one unit, for FLOOR and
    /// CEILING away from zero). A scale above `PARSE_MAX_SCALE` (86) counts
    /// as 86: callers give at most MAX_SCALE.
    pub fn round_to(&self, scale: i64, mode: RoundMode) -> Decimal {
        // Far left of any digit a value can have, every scale rounds alike.
        let scale = scale.clamp(-(self.coef.bits() as i64) - 2, PARSE_MAX_SCALE as i64);
        let target = scale.max(0) as u32;
        if scale >= self.scale as i64 {
            return self.with_scale(target);
        }
        // Digits dropped from the coefficient: own scale minus target scale.
        let drop = self.scale as i64 - scale;
        let digits = self.coef.magnitude().to_string().len() as i64;
        if drop > digits + 1 {
            // |self| < 10^-scale / 10: rounds to 0, or to one unit away from zero.
            let away = match mode {
                RoundMode::Ceiling => self.coef.is_positive(),
                RoundMode::Floor => self.coef.is_negative(),
                RoundMode::HalfUp | RoundMode::Truncate => false,
            };
            return Decimal::unit_of(scale, away, self.coef.is_negative());
        }
        let div = pow10(drop as u32);
        let (q, r) = self.coef.magnitude().div_rem(div.magnitude());
        let (q, r) = (BigInt::from(q), BigInt::from(r));
        let neg = self.coef.is_negative();
        let up = match mode {
            RoundMode::HalfUp => &r * 2u32 >= div,
            RoundMode::Truncate => false,
            RoundMode::Ceiling => !neg && !r.is_zero(),
            RoundMode::Floor => neg && !r.is_zero(),
        };
        let q = if up { q + 1u32 } else { q };
        let q = if neg { -q } else { q };
        if scale >= 0 {
            Decimal { coef: q, scale: target }
        } else {
            Decimal { coef: q * pow10((-scale) as u32), scale: 0 }
        }
    }

    /// 0, or (`away`) one unit of 10^-scale with the sign `neg`, at `max(scale, 0)` digits.
    fn unit_of(scale: i64, away: bool, neg: bool) -> Decimal {
        let target = scale.clamp(0, PARSE_MAX_SCALE as i64) as u32;
        if !away {
            return Decimal { coef: BigInt::zero(), scale: target };
        }
        // A unit left of the point far beyond any DECIMAL's digits stays bounded.
        let coef = if scale >= 0 { BigInt::from(1u32) } else { pow10(((-scale) as u64).min(2 * MAX_PRECISION as u64) as u32) };
        Decimal { coef: if neg { -coef } else { coef }, scale: target }
    }

    /// `self % other` as MySQL's MOD: the remainder of the quotient truncated
    /// toward zero, with the dividend's sign, at the larger of the two
    /// scales; `None` when `other` is zero.
    pub fn rem(&self, other: &Decimal) -> Option<Decimal> {
        if other.coef.is_zero() {
            return None;
        }
        let (a, b, scale) = self.aligned(other);
        // BigInt's % truncates toward zero: the remainder has the dividend's sign.
        Some(Decimal { coef: a % b, scale })
    }

    /// `self DIV other`: the quotient truncated toward zero, as an integer
    /// (scale 0); `None` when `other` is zero.
    pub fn div_trunc(&self, other: &Decimal) -> Option<Decimal> {
        if other.coef.is_zero() {
            return None;
        }
        let (a, b, _) = self.aligned(other);
        Some(Decimal { coef: a / b, scale: 0 })
    }

    pub fn abs(&self) -> Decimal {
        Decimal { coef: self.coef.abs(), scale: self.scale }
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i64 {
        match self.coef.sign() {
            Sign::Minus => -1,
            Sign::NoSign => 0,
            Sign::Plus => 1,
        }
    }

    /// The value as a DECIMAL(precision, scale) holds it: rounded half away
    /// from zero to `scale`, and, when that does not fit, the largest value
    /// of the type with the value's sign (the bool says it was clipped), as
    /// MySQL's CAST and non-strict stores do.
    pub fn fit(&self, precision: u32, scale: u32) -> (Decimal, bool) {
        let precision = precision.clamp(1, MAX_PRECISION);
        let scale = scale.min(precision);
        let r = self.round(scale);
        if r.int_digits() <= precision - scale {
            return (r, false);
        }
        let max = pow10(precision) - 1u32;
        (Decimal { coef: if r.is_negative() { -max } else { max }, scale }, true)
    }

    /// The value as u64 when it is an integer in u64's range.
    pub fn to_u64_exact(&self) -> Option<u64> {
        if self.scale != 0 && !(&self.coef % pow10(self.scale)).is_zero() {
            return None;
        }
        u64::try_from(&self.coef / pow10(self.scale)).ok()
    }

    /// The value as i64 when it is an integer in i64's range.
    pub fn to_i64_exact(&self) -> Option<i64> {
        if self.scale != 0 && !(&self.coef % pow10(self.scale)).is_zero() {
            return None;
        }
        i64::try_from(&self.coef / pow10(self.scale)).ok()
    }

    /// The value as f64 (nearest).
    pub fn to_f64(&self) -> f64 {
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The value as i64, rounded half away from zero; `None` out of range.
    pub fn to_i64(&self) -> Option<i64> {
        i64::try_from(self.round(0).coef).ok()
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let (a, b, _) = self.aligned(other);
        a.cmp(&b)
    }
}

/// Exactly `scale` digits after the point; no exponent; `-` only when not zero.
impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.coef.magnitude().to_string();
        let s = self.scale as usize;
        let padded = if digits.len() <= s { format!("{}{}", "0".repeat(s + 1 - digits.len()), digits) } else { digits };
        let (int, frac) = padded.split_at(padded.len() - s);
        if self.coef.sign() == Sign::Minus {
            f.write_str("-")?;
        }
        f.write_str(int)?;
        if s > 0 {
            f.write_str(".")?;
            f.write_str(frac)?;
        }
        Ok(())
    }
}

fn trim_spaces(t: &[u8]) -> &[u8] {
    let start = t.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(t.len());
    let end = t.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &t[start..end]
}

/// An exponent's text (`+5`, `-3`, `12`), clamped to ±PARSE_MAX_EXP·2.
fn parse_exponent(t: &[u8]) -> Option<i64> {
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let limit = PARSE_MAX_EXP * 2 + PARSE_MAX_SCALE as i64;
    let mut v: i64 = 0;
    for d in digits {
        v = (v * 10 + (d - b'0') as i64).min(limit * 10);
    }
    let v = v.min(limit);
    Some(if neg { -v } else { v })
}

/// MySQL's type of a DECIMAL expression: precision (all digits) and scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecType {
    pub precision: u32,
    pub scale: u32,
}

impl DecType {
    pub fn new(precision: u32, scale: u32) -> DecType {
        let scale = scale.min(MAX_SCALE);
        DecType { precision: precision.clamp(scale.max(1), MAX_PRECISION), scale }
    }

    /// A literal's type: `12.50` is (4, 2); MySQL counts a zero before the point.
    pub fn of_literal(text: &str) -> DecType {
        let t = text.trim_start_matches(['-', '+']);
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        let int_digits = int.trim_start_matches('0').len() as u32;
        let int = int_digits.max(1);
        // MariaDB reads a literal into nine words of nine digits: the
        // integer digits take whole words, the fraction what words are left
        // (and at most 38 digits); digits it drops, precision loses too.
        let int_words = if int_digits == 0 { 0 } else { int_digits.div_ceil(9) };
        let room = 81u32.saturating_sub(int_words * 9);
        let scale = (frac.len() as u32).min(MAX_SCALE).min(room);
        DecType::new(int + scale, scale)
    }

    /// An integer's type: its digits, scale 0.
    pub fn integer(digits: u32) -> DecType {
        DecType::new(digits, 0)
    }

    fn int_part(self) -> u32 {
        self.precision - self.scale
    }

    /// `a + b` and `a - b`: the larger scale, one more integer digit.
    pub fn added(self, o: DecType) -> DecType {
        let scale = self.scale.max(o.scale);
        DecType::new(self.int_part().max(o.int_part()) + 1 + scale, scale)
    }

    /// `a * b`: precisions and scales add.
    pub fn multiplied(self, o: DecType) -> DecType {
        DecType::new(self.precision + o.precision, self.scale + o.scale)
    }

    /// `a / b`: the dividend's scale plus div_precision_increment.
    pub fn divided(self, o: DecType) -> DecType {
        let scale = (self.scale + DIV_INCREMENT).min(MAX_SCALE);
        DecType::new(self.int_part() + o.scale + scale, scale)
    }

    /// SUM: 22 more digits (MariaDB's DECIMAL_LONGLONG_DIGITS), same scale.
    pub fn sum(self) -> DecType {
        DecType::new(self.precision + 22, self.scale)
    }

    /// AVG: div_precision_increment more digits and scale.
    pub fn avg(self) -> DecType {
        DecType::new(self.precision + DIV_INCREMENT, self.scale + DIV_INCREMENT)
    }

    /// The result column's display length: digits, the point, a sign.
    pub fn display_length(self) -> u32 {
        self.precision + (self.scale > 0) as u32 + 1
    }
}

/// A canonical decimal text split up: sign, integer digits without leading
/// zeros, fraction digits without trailing zeros. `None` when the text is
/// not plain `[-]digits[.digits]`.
fn parts(t: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (neg, rest) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (int, frac) = match rest.iter().position(|&b| b == b'.') {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, &[][..]),
    };
    if int.is_empty() && frac.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let lead = int.iter().position(|&b| b != b'0').unwrap_or(int.len());
    let trail = frac.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1);
    let (int, frac) = (&int[lead..], &frac[..trail]);
    let zero = int.is_empty() && frac.is_empty();
    Some((neg && !zero, int, frac))
}

/// Magnitudes of two split texts compared.
fn cmp_magnitude(a: (&[u8], &[u8]), b: (&[u8], &[u8])) -> Ordering {
    a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)).then_with(|| a.1.cmp(b.1))
}

/// The order of two texts as decimal numbers: exact, and without allocating
/// for plain texts (`-12.50`); texts with an exponent are parsed. Numbers
/// sort before texts that are no number, which sort by their bytes.
pub fn cmp_text(a: &[u8], b: &[u8]) -> Ordering {
    match (parts(a), parts(b)) {
        (Some((na, ia, fa)), Some((nb, ib, fb))) => match (na, nb) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => cmp_magnitude((ia, fa), (ib, fb)),
            (true, true) => cmp_magnitude((ib, fb), (ia, fa)),
        },
        _ => match (Decimal::parse(a), Decimal::parse(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => a.cmp(b),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn parse_and_print() {
        assert_eq!(d("0.10").to_string(), "0.10");
        assert_eq!(d("-0.10").to_string(), "-0.10");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("5.").to_string(), "5");
        assert_eq!(d(" +12 ").to_string(), "12");
        assert_eq!(d("1.5e3").to_string(), "1500");
        assert_eq!(d("1.5E-3").to_string(), "0.0015");
        assert_eq!(d("-0").to_string(), "0");
        for bad in ["", ".", "-", "1.2.3", "abc", "1e", "1e+", "0x10", "1 2", "--1"] {
            assert!(Decimal::parse(bad.as_bytes()).is_none(), "{}", bad);
        }
        // huge exponents stay bounded
        assert!(d("1e999999999999999999999").int_digits() > MAX_PRECISION);
        assert!(d("1e-999999999999999999999").is_zero());
        assert_eq!(d("12345678901234567890123456789012345.123456789012345678901234567891").to_string(), "12345678901234567890123456789012345.123456789012345678901234567891");
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(d("1.005").round(2).to_string(), "1.01");
        assert_eq!(d("-1.005").round(2).to_string(), "-1.01");
        assert_eq!(d("13.37").round(0).to_string(), "13");
        assert_eq!(d("13.5").round(0).to_string(), "14");
        assert_eq!(d("-0.004").round(2).to_string(), "0.00");
        assert_eq!(d("2").round(3).to_string(), "2.000");
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(d("0.10").mul(&d("3")).to_string(), "0.30");
        assert_eq!(d("0.1").add(&d("0.2")).to_string(), "0.3");
        assert_eq!(d("0.10").sub(&d("0.001")).to_string(), "0.099");
        assert_eq!(d("0.10").div(&d("3"), 6).unwrap().to_string(), "0.033333");
        assert_eq!(d("2").div(&d("3"), 4).unwrap().to_string(), "0.6667");
        assert_eq!(d("-2").div(&d("3"), 4).unwrap().to_string(), "-0.6667");
        assert_eq!(d("1").div(&d("-0.5"), 4).unwrap().to_string(), "-2.0000");
        assert!(d("1").div(&d("0.000"), 4).is_none());
        // MariaDB's internal quotient: whole 9-digit words, truncated
        assert_eq!(d("0.10").div_internal(&d("3")).unwrap().to_string(), "0.033333333");
        assert_eq!(d("2").div_internal(&d("3")).unwrap().to_string(), "0.666666666");
        assert_eq!(d("1.05").div_internal(&d("3")).unwrap().to_string(), "0.350000000");
        assert_eq!(d("-1").div_internal(&d("3")).unwrap().to_string(), "-0.333333333");
        assert_eq!(d("1").div_internal(&d("0.0000000001")).unwrap().to_string(), "10000000000.000000000000000000");
        let big = d("99999999999999999999999999999999999.999999999999999999999999999999");
        assert_eq!(big.add(&d("0.000000000000000000000000000001")).to_string(), "100000000000000000000000000000000000.000000000000000000000000000000");
    }

    #[test]
    fn round_truncate_floor_ceiling_mod_div() {
        let r = |x: &str, s: i64, m: RoundMode| d(x).round_to(s, m).to_string();
        assert_eq!(r("10.25", 1, RoundMode::HalfUp), "10.3");
        assert_eq!(r("-10.25", 1, RoundMode::HalfUp), "-10.3");
        assert_eq!(r("10.25", 1, RoundMode::Truncate), "10.2");
        assert_eq!(r("10.25", 5, RoundMode::HalfUp), "10.25000");
        assert_eq!(r("15", -1, RoundMode::HalfUp), "20");
        assert_eq!(r("-3.10", -1, RoundMode::HalfUp), "0");
        assert_eq!(r("12345", -2, RoundMode::HalfUp), "12300");
        assert_eq!(r("-99", -2, RoundMode::HalfUp), "-100");
        assert_eq!(r("18446744073709551615", -1, RoundMode::HalfUp), "18446744073709551620");
        assert_eq!(r("-3.10", 0, RoundMode::Floor), "-4");
        assert_eq!(r("-3.10", 0, RoundMode::Ceiling), "-3");
        assert_eq!(r("10.25", 0, RoundMode::Ceiling), "11");
        assert_eq!(r("0.0000001", 0, RoundMode::Ceiling), "1");
        assert_eq!(r("-0.0000001", 0, RoundMode::Floor), "-1");
        assert_eq!(r("-0.0000001", 0, RoundMode::Ceiling), "0");
        assert_eq!(r("5", i64::MIN, RoundMode::HalfUp), "0");
        assert_eq!(r("5", i64::MAX, RoundMode::HalfUp).len(), 2 + PARSE_MAX_SCALE as usize);
        assert_eq!(d("10.25").rem(&d("3")).unwrap().to_string(), "1.25");
        assert_eq!(d("-3.10").rem(&d("3")).unwrap().to_string(), "-0.10");
        assert_eq!(d("7").rem(&d("-3.10")).unwrap().to_string(), "0.80");
        assert!(d("7").rem(&d("0.00")).is_none());
        assert_eq!(d("10.25").div_trunc(&d("0.7")).unwrap().to_string(), "14");
        assert_eq!(d("-3.10").div_trunc(&d("3")).unwrap().to_string(), "-1");
        assert!(d("1").div_trunc(&d("0")).is_none());
        assert_eq!(d("123.456").fit(4, 2), (d("99.99"), true));
        assert_eq!(d("-123.456").fit(4, 2), (d("-99.99"), true));
        assert_eq!(d("1.005").fit(5, 2), (d("1.01"), false));
        assert_eq!(d("18446744073709551615").to_u64_exact(), Some(u64::MAX));
        assert_eq!(d("18446744073709551616").to_u64_exact(), None);
        assert_eq!(d("5.00").to_i64_exact(), Some(5));
        assert_eq!(d("5.01").to_i64_exact(), None);
        assert_eq!(d("-0.5").signum(), -1);
        assert_eq!(d("-0.5").abs().to_string(), "0.5");
    }

    #[test]
    fn result_types_are_mysqls() {
        let amt = DecType::new(10, 2);
        let three = DecType::integer(1);
        assert_eq!(amt.multiplied(three).display_length(), 13);
        assert_eq!(amt.added(three).display_length(), 13);
        assert_eq!(amt.added(DecType::of_literal("0.001")), DecType::new(12, 3));
        // MariaDB keeps 38 decimals of a longer literal: DECIMAL(39,38).
        assert_eq!(DecType::of_literal(&format!("0.{}", "1".repeat(49))), DecType::new(39, 38));
        // 45 integer digits take five words: four are left, 36 decimals.
        assert_eq!(DecType::of_literal(&format!("{}.{}", "1".repeat(45), "1".repeat(45))), DecType::new(65, 36));
        assert_eq!(amt.divided(three), DecType::new(14, 6));
        assert_eq!(amt.multiplied(amt), DecType::new(20, 4));
        assert_eq!(DecType::of_literal("0.1").added(DecType::of_literal("0.2")).display_length(), 5);
        assert_eq!(DecType::integer(1).divided(DecType::integer(1)), DecType::new(5, 4));
        assert_eq!(amt.sum().display_length(), 34);
        assert_eq!(amt.avg(), DecType::new(14, 6));
    }

    #[test]
    fn text_order_is_numeric() {
        let sorted = ["-100", "-9.5", "-0.01", "0", "0.001", "0.1", "0.10000000001", "2", "10", "1e3", "abc"];
        for (i, a) in sorted.iter().enumerate() {
            for (j, b) in sorted.iter().enumerate() {
                assert_eq!(cmp_text(a.as_bytes(), b.as_bytes()), i.cmp(&j), "{} {}", a, b);
            }
        }
        assert_eq!(cmp_text(b"0.10", b"0.1"), Ordering::Equal);
        assert_eq!(cmp_text(b"-0.00", b"0"), Ordering::Equal);
        assert_eq!(cmp_text(b"5", b"5.00"), Ordering::Equal);
        assert_eq!(cmp_text(b"1.0e-07", b"0.0000001"), Ordering::Equal);
    }
}
