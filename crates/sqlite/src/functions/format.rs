//! FORMAT(x, d[, locale]): x rounded to d decimals (at most 38) with the
//! locale's decimal point and thousands separator, as MariaDB 10.11 writes
//! it; an unknown (or NULL) locale is en_US with Warning 1649.
//!
//! Why a module: the number is formatted from its digits when it has them
//! exactly (an integer, a DECIMAL's text, a decimal literal the rewriter
//! hands over as text: rewrite/function_calls.rs), so 12345678901234567890.123
//! keeps every digit where a double would not; only a double is formatted
//! from its binary value. And the locales: MariaDB's 112, each with its
//! decimal point, its separator (none for some) and its grouping (threes,
//! or India's three then twos), read from MariaDB's
//! information_schema.LOCALES and FORMAT's output.
//!
//! Bounds: a result is built only when it fits the packet limit (`fits`).

use super::bytes::Out;
use super::{int, num, Counters};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::limits::fits;
use turnstile_engine::Level;

/// MariaDB's most decimals for FORMAT.
const MAX_DECIMALS: i64 = 38;

/// How a locale writes numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Locale {
    point: &'static str,
    /// The thousands separator; None: digits are not grouped.
    sep: Option<&'static str>,
    /// Groups of three then two (India).
    indian: bool,
}

const fn loc(point: &'static str, sep: Option<&'static str>) -> Locale {
    Locale { point, sep, indian: false }
}

const EN: Locale = loc(".", Some(","));
const DE: Locale = loc(",", Some("."));
const SPACE: Locale = loc(",", Some(" "));
const COMMA_ONLY: Locale = loc(",", None);
const INDIA: Locale = Locale { point: ".", sep: Some(","), indian: true };

/// MariaDB's locales (information_schema.LOCALES with the LOCALES plugin).
const LOCALES: &[(&str, Locale)] = &[
    ("ar_AE", EN),
    ("ar_BH", EN),
    ("ar_DZ", EN),
    ("ar_EG", EN),
    ("ar_IN", EN),
    ("ar_IQ", EN),
    ("ar_JO", EN),
    ("ar_KW", EN),
    ("ar_LB", EN),
    ("ar_LY", EN),
    ("ar_MA", EN),
    ("ar_OM", EN),
    ("ar_QA", EN),
    ("ar_SA", loc(".", None)),
    ("ar_SD", EN),
    ("ar_SY", EN),
    ("ar_TN", EN),
    ("ar_YE", EN),
    ("be_BY", DE),
    // A NUL byte between the groups: MariaDB's bg_BG separator.
    ("bg_BG", loc(",", Some("\0"))),
    ("ca_ES", COMMA_ONLY),
    ("cs_CZ", SPACE),
    ("da_DK", DE),
    ("de_AT", COMMA_ONLY),
    ("de_BE", DE),
    ("de_CH", loc(".", Some("'"))),
    ("de_DE", DE),
    ("de_LU", DE),
    ("el_GR", COMMA_ONLY),
    ("en_AU", EN),
    ("en_CA", EN),
    ("en_GB", EN),
    ("en_IN", INDIA),
    ("en_NZ", EN),
    ("en_PH", EN),
    ("en_US", EN),
    ("en_ZA", EN),
    ("en_ZW", EN),
    ("es_AR", DE),
    ("es_BO", DE),
    ("es_CL", DE),
    ("es_CO", DE),
    ("es_CR", SPACE),
    ("es_DO", EN),
    ("es_EC", DE),
    ("es_ES", DE),
    ("es_GT", EN),
    ("es_HN", EN),
    ("es_MX", EN),
    ("es_NI", EN),
    ("es_PA", EN),
    ("es_PE", EN),
    ("es_PR", EN),
    ("es_PY", DE),
    ("es_SV", EN),
    ("es_US", EN),
    ("es_UY", DE),
    ("es_VE", DE),
    ("et_EE", SPACE),
    ("eu_ES", COMMA_ONLY),
    ("fi_FI", SPACE),
    ("fo_FO", DE),
    ("fr_BE", COMMA_ONLY),
    ("fr_CA", COMMA_ONLY),
    ("fr_CH", COMMA_ONLY),
    ("fr_FR", COMMA_ONLY),
    ("fr_LU", COMMA_ONLY),
    ("gl_ES", COMMA_ONLY),
    ("gu_IN", EN),
    ("he_IL", EN),
    ("hi_IN", EN),
    ("hr_HR", COMMA_ONLY),
    ("hu_HU", DE),
    ("id_ID", DE),
    ("is_IS", DE),
    ("it_CH", loc(",", Some("'"))),
    ("it_IT", COMMA_ONLY),
    ("ja_JP", EN),
    ("ka_GE", SPACE),
    ("ko_KR", EN),
    ("lt_LT", DE),
    ("lv_LV", SPACE),
    ("mk_MK", SPACE),
    ("mn_MN", DE),
    ("ms_MY", EN),
    ("nb_NO", DE),
    ("nl_BE", COMMA_ONLY),
    ("nl_NL", COMMA_ONLY),
    ("no_NO", DE),
    ("pl_PL", COMMA_ONLY),
    ("pt_BR", COMMA_ONLY),
    ("pt_PT", COMMA_ONLY),
    ("rm_CH", loc(",", Some("'"))),
    ("ro_RO", DE),
    ("ru_RU", SPACE),
    ("ru_UA", DE),
    ("sk_SK", SPACE),
    ("sl_SI", COMMA_ONLY),
    ("sq_AL", DE),
    ("sr_RS", loc(".", None)),
    ("sv_FI", SPACE),
    ("sv_SE", SPACE),
    ("ta_IN", INDIA),
    ("te_IN", INDIA),
    ("th_TH", EN),
    ("tr_TR", DE),
    ("uk_UA", DE),
    ("ur_PK", EN),
    ("vi_VN", DE),
    ("zh_CN", EN),
    ("zh_HK", EN),
    ("zh_TW", EN),
];

pub(super) fn register(db: &Connection, counters: &Arc<Counters>) -> rusqlite::Result<()> {
    for n in [2, 3] {
        let c = counters.clone();
        db.create_scalar_function("format", n, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| format(ctx, &c))?;
    }
    Ok(())
}

/// The locale named by argument 2 (en_US without one; with Warning 1649 for one MariaDB lacks).
fn locale(ctx: &Context<'_>, counters: &Counters) -> Locale {
    if ctx.len() < 3 {
        return EN;
    }
    let name = match ctx.get_raw(2) {
        ValueRef::Null => "NULL".to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
    };
    match LOCALES.iter().find(|(n, _)| n.eq_ignore_ascii_case(&name)) {
        Some((_, l)) => *l,
        None => {
            counters.raise(Level::Warning, 1649, format!("Unknown locale: '{}'", name));
            EN
        }
    }
}

fn format(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<Out> {
    let Some(d) = int(&ctx.get_raw(1)) else { return Ok(Out::Val(SV::Null)) };
    let d = d.clamp(0, MAX_DECIMALS) as usize;
    let digits = match ctx.get_raw(0) {
        ValueRef::Null => return Ok(Out::Val(SV::Null)),
        ValueRef::Integer(i) => Some(Digits { negative: i < 0, whole: i.unsigned_abs().to_string(), frac: String::new() }),
        ValueRef::Text(t) | ValueRef::Blob(t) => Digits::parse(t),
        ValueRef::Real(_) => None,
    };
    let digits = match digits {
        Some(exact) => exact,
        None => {
            let Some(x) = num(&ctx.get_raw(0)) else { return Ok(Out::Val(SV::Null)) };
            if !x.is_finite() {
                return Ok(Out::Val(SV::Null));
            }
            // Half away from zero, as MySQL rounds (format! rounds half to even).
            let scale = 10f64.powi(d as i32);
            let rounded = if d <= 15 { (x.abs() * scale).round() / scale } else { x.abs() };
            // The double's shortest digits (1e25 is 1 and 25 zeros, not its binary value's).
            let Some(mut digits) = Digits::parse(format!("{}", rounded).as_bytes()) else { return Ok(Out::Val(SV::Null)) };
            digits.negative = x < 0.0;
            digits
        }
    };
    let locale = locale(ctx, counters);
    if !fits(digits.whole.len().saturating_mul(2).saturating_add(d).saturating_add(8)) {
        return Ok(Out::Val(SV::Null));
    }
    Ok(Out::Bytes(digits.round(d).write(locale).into_bytes()))
}

/// A number as its decimal digits.
#[derive(Debug, PartialEq)]
struct Digits {
    negative: bool,
    /// At least one digit, no leading zeros past the first.
    whole: String,
    frac: String,
}

impl Digits {
    /// A plain decimal (`-12.50`, `+3`, `.5`; spaces around): None for
    /// anything else (an exponent, a word), which is read as a double.
    fn parse(t: &[u8]) -> Option<Digits> {
        let s = std::str::from_utf8(t).ok()?.trim();
        let (negative, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
        if (whole.is_empty() && frac.is_empty()) || !whole.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let whole = whole.trim_start_matches('0');
        Some(Digits { negative, whole: if whole.is_empty() { "0".into() } else { whole.into() }, frac: frac.into() })
    }

    /// Rounded half away from zero to `d` decimals (padded with zeros).
    fn round(mut self, d: usize) -> Digits {
        if self.frac.len() > d {
            let up = self.frac.as_bytes()[d] >= b'5';
            self.frac.truncate(d);
            if up {
                let mut all: Vec<u8> = self.whole.bytes().chain(self.frac.bytes()).collect();
                let mut k = all.len();
                loop {
                    if k == 0 {
                        all.insert(0, b'1');
                        break;
                    }
                    k -= 1;
                    if all[k] == b'9' {
                        all[k] = b'0';
                    } else {
                        all[k] += 1;
                        break;
                    }
                }
                let split = all.len() - d;
                self.frac = String::from_utf8_lossy(&all[split..]).into_owned();
                self.whole = String::from_utf8_lossy(&all[..split]).into_owned();
            }
        }
        while self.frac.len() < d {
            self.frac.push('0');
        }
        self
    }

    /// The digits in the locale's way; no minus on a zero.
    fn write(&self, l: Locale) -> String {
        let mut out = String::with_capacity(self.whole.len() * 2 + self.frac.len() + 2);
        let zero = self.whole.bytes().chain(self.frac.bytes()).all(|c| c == b'0');
        if self.negative && !zero {
            out.push('-');
        }
        let w = self.whole.as_bytes();
        for (k, &c) in w.iter().enumerate() {
            let left = w.len() - k;
            if k > 0 {
                if let Some(sep) = l.sep {
                    let boundary = match l.indian {
                        false => left.is_multiple_of(3),
                        true => left == 3 || (left > 3 && (left - 3).is_multiple_of(2)),
                    };
                    if boundary {
                        out.push_str(sep);
                    }
                }
            }
            out.push(c as char);
        }
        if !self.frac.is_empty() {
            out.push_str(l.point);
            out.push_str(&self.frac);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: &str, d: usize, l: &str) -> String {
        let l = LOCALES.iter().find(|(n, _)| *n == l).unwrap().1;
        Digits::parse(x.as_bytes()).unwrap().round(d).write(l)
    }

    #[test]
    fn as_mariadb_writes() {
        assert_eq!(f("12345678901234567890.123", 3, "en_US"), "12,345,678,901,234,567,890.123");
        assert_eq!(f("12345678901234567890.123", 3, "de_DE"), "12.345.678.901.234.567.890,123");
        assert_eq!(f("12345678901234567890.123", 3, "en_IN"), "1,23,45,67,89,01,23,45,67,890.123");
        assert_eq!(f("12345678901234567890.123", 3, "ar_SA"), "12345678901234567890.123");
        assert_eq!(f("12345678901234567890.123", 0, "it_CH"), "12'345'678'901'234'567'890");
        assert_eq!(f("-0.001", 2, "en_US"), "0.00");
        assert_eq!(f("0.005", 2, "en_US"), "0.01");
        assert_eq!(f("-999.995", 2, "en_US"), "-1,000.00");
        assert_eq!(f("1.5", 4, "ru_RU"), "1,5000");
        assert_eq!(f("123", 0, "en_IN"), "123");
        assert_eq!(f("1234", 0, "en_IN"), "1,234");
        assert_eq!(f("123456", 0, "en_IN"), "1,23,456");
        assert_eq!(Digits::parse(b"1e5"), None);
        assert_eq!(Digits::parse(b"-"), None);
        assert_eq!(Digits::parse(b"."), None);
    }

    #[test]
    fn every_byte_and_long_inputs() {
        for b in 0u8..=255 {
            let _ = Digits::parse(&[b]).map(|d| d.round(38).write(EN));
        }
        let long = "9".repeat(100_000);
        assert_eq!(f(&long, 2, "en_US").len(), 100_000 + 33_333 + 3);
    }
}
