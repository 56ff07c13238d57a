//! A double written to a character column, as MariaDB stores it: the text
//! of the number fitted to the column's width (`Field_str::store(double)`,
//! which formats with `my_gcvt`): as many significant digits as the width
//! holds, in plain or `e` notation, whichever keeps more of them
//! (`1.25e78`, `1.22e-4`, `10` for 9.999999 into CHAR(7)). SQLite would
//! store its own text (`1.25e+78`, `5000000.0`) and a strict write of a
//! longer text would fail with 1406 where MariaDB stores fewer digits.
//!
//! The rewriter applies it to an approximate-number literal (`1.5e3`,
//! `-1.37e+0`) written to a CHAR/VARCHAR/TEXT column (store.rs).

use turnstile_sqltext::lex::{Tok, Token};

/// MariaDB's DBL_DIG: an integer part past this many digits, or a fraction
/// below 1e-15, prints in `e` notation even where the width would hold it.
const MAX_DECPT_FOR_F_FORMAT: i32 = 15;

/// Digits of `|x|` and the decimal point's place: `|x| = 0.d1d2... × 10^decpt`.
/// No trailing zeros; empty digits when the value rounded to zero.
struct Digits {
    digits: Vec<u8>,
    decpt: i32,
}

/// Digits out of Rust's `{:e}` text of a non-negative finite number ("1.225e-4").
fn from_exp_text(t: &str) -> Digits {
    let (mantissa, exp) = t.split_once('e').unwrap_or((t, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa.bytes().filter(|b| b.is_ascii_digit()).collect();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return Digits { digits, decpt: 1 };
    }
    Digits { digits, decpt: exp + 1 }
}

/// dtoa mode 4: the shortest digits that read back as `x`, or `n` (at
/// least 1) significant digits, correctly rounded, when those are fewer.
fn significant(x: f64, n: i32) -> Digits {
    let n = n.max(1) as usize;
    let shortest = from_exp_text(&format!("{:e}", x.abs()));
    if shortest.digits.len() <= n {
        return shortest;
    }
    from_exp_text(&format!("{:.*e}", n - 1, x.abs()))
}

/// dtoa mode 5: the shortest digits, or the digits through `n` places
/// after the decimal point (rounded) when those are fewer.
fn fixed(x: f64, n: i32) -> Digits {
    let n = n.max(0);
    let shortest = from_exp_text(&format!("{:e}", x.abs()));
    if shortest.digits.len() as i32 - shortest.decpt <= n {
        return shortest;
    }
    let t = format!("{:.*}", n as usize, x.abs());
    let (int, frac) = t.split_once('.').unwrap_or((&t, ""));
    let all: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let lead = all.iter().take_while(|b| **b == b'0').count();
    let mut digits = all[lead..].to_vec();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    let decpt = int.len() as i32 - lead as i32;
    Digits { digits, decpt }
}

/// `x` as text of at most `width` characters (MariaDB's `my_gcvt` for a
/// double), and whether even that lost the number (no significant digit
/// fits: MariaDB's 1406 under a strict write, 1265 otherwise).
pub fn fitted(x: f64, width: usize) -> (String, bool) {
    if !x.is_finite() || width == 0 {
        return ("0".into(), true);
    }
    let width = width.min(400) as i32;
    let mut w = width - (x < 0.0) as i32;
    let mut error = false;
    let Digits { digits, decpt } = significant(x, w);
    let len = digits.len() as i32;
    if len == 0 {
        return ("0".into(), false);
    }
    let exp_len = 1 + (decpt >= 101 || decpt <= -99) as i32 + (decpt >= 11 || decpt <= -9) as i32;
    let have_space = (if decpt <= 0 {
        len - decpt + 2
    } else if decpt < len {
        len + 1
    } else {
        decpt
    }) <= w;
    let force_e = decpt <= 0 && w <= 2 - decpt && w >= 3 + exp_len;
    let f_keeps_more = decpt <= w && decpt >= -2 && !force_e;
    let f_nicer = !have_space || (decpt > -MAX_DECPT_FOR_F_FORMAT && (decpt <= MAX_DECPT_FOR_F_FORMAT || len > decpt));
    let mut out = String::new();
    let sign = x < 0.0;
    if (have_space || f_keeps_more) && f_nicer {
        w -= (decpt < len) as i32 + if decpt <= 0 { 1 - decpt } else { 0 };
        let d = if w < len {
            if w < decpt {
                error = true;
                w = decpt;
            }
            fixed(x, w - decpt)
        } else {
            Digits { digits, decpt }
        };
        if d.digits.is_empty() {
            return ("0".into(), error);
        }
        if sign {
            out.push('-');
        }
        let mut decpt = d.decpt;
        if decpt <= 0 {
            out.push_str("0.");
            while decpt < 0 {
                out.push('0');
                decpt += 1;
            }
        }
        let len = d.digits.len() as i32;
        for (i, b) in d.digits.iter().enumerate() {
            out.push(*b as char);
            if i as i32 + 1 == d.decpt && (i as i32 + 1) < len {
                out.push('.');
            }
        }
        for _ in len..d.decpt {
            out.push('0');
        }
    } else {
        if decpt - 1 < 0 {
            w -= 1;
        }
        w -= 1 + exp_len;
        if len > 1 {
            w -= 1;
        }
        if w <= 0 {
            error = true;
            w = 0;
        }
        let d = if w < len { significant(x, w) } else { Digits { digits, decpt } };
        let e = (d.decpt - 1).abs();
        if sign {
            out.push('-');
        }
        out.push(d.digits[0] as char);
        if d.digits.len() > 1 {
            out.push('.');
            out.extend(d.digits[1..].iter().map(|b| *b as char));
        }
        out.push('e');
        if d.decpt - 1 < 0 {
            out.push('-');
        }
        out.push_str(&e.to_string());
    }
    // MariaDB writes no further than the width (its buffer ends there).
    out.truncate(width as usize);
    (out, error)
}

/// The value of tokens [s, e) when they are one approximate-number
/// literal (`1.5e3`, `-2E-4`), optionally signed.
pub fn approximate_literal(toks: &[Token], s: usize, e: usize) -> Option<f64> {
    let (negative, at) = match toks.get(s) {
        Some(t) if (t.is_op("-") || t.is_op("+")) && e == s + 2 => (t.is_op("-"), s + 1),
        _ if e == s + 1 => (false, s),
        _ => return None,
    };
    match &toks.get(at)?.tok {
        Tok::Number(n) if n.contains(['e', 'E']) && n.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.') && !n.starts_with("0x") && !n.starts_with("0b") => {
            let v: f64 = n.parse().ok()?;
            v.is_finite().then_some(if negative { -v } else { v })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::fitted;

    #[test]
    fn doubles_fit_the_width_as_mariadb_stores_them() {
        let f = |x: f64, w: usize| fitted(x, w).0;
        assert_eq!(f(9.999999, 20), "9.999999");
        assert_eq!(f(9.999999, 7), "10");
        assert_eq!(f(9.999, 4), "10");
        assert_eq!(f(1.225e-4, 20), "0.0001225");
        assert_eq!(f(1.225e-4, 7), "1.22e-4");
        assert_eq!(f(1.25e78, 20), "1.25e78");
        assert_eq!(f(1.25e-94, 7), "1.2e-94");
        assert_eq!(f(5000000.0, 20), "5000000");
        assert_eq!(f(-1.37, 4), "-1.4");
        assert_eq!(f(-5000.0, 4), "-5e3");
        assert_eq!(f(1e20, 100), "1e20");
        assert_eq!(f(0.5, 100), "0.5");
        assert_eq!(fitted(1.87e-3, 4), ("2e-3".to_string(), true));
        assert!(!fitted(1.225e-5, 7).1);
    }
}
