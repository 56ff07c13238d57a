//! utf8mb4_general_ci, the case-insensitive collation: `ci_compare` orders
//! two strings as it does, `fold` is its rule for one character.
//!
//! Why here: the SQLite engine registers `ci_compare` as the `ts_ci`
//! collation (`=` and ORDER BY on text columns), and LIKE as Turnstile
//! matches it (`like.rs`: SHOW ... LIKE, LIKE without a table) folds
//! characters with `fold`, so the two agree on which characters are equal.
//! (The LIKE matcher once lowercased instead, and disagreed with this and with
//! MariaDB on accented Latin letters, final sigma and dotless i.) `fold`:
//! a character's upper case when that is one character, with the accents of
//! Latin-1 letters dropped (É is E), as general_ci does; MariaDB's
//! general_ci also equates a few more (ß with s, İ with i) that this does not.

use std::cmp::Ordering;

/// utf8mb4_general_ci: compare case-insensitively, ignoring trailing spaces.
///
/// One pass for ASCII text, which stops at the first difference (sorting
/// sysbench's 120-byte `c` column spent most of its time scanning whole
/// strings for trailing spaces and non-ASCII bytes first). The result is the
/// same as comparing the space-trimmed strings; non-ASCII text takes the
/// Unicode path.
pub fn ci_compare(a: &[u8], b: &[u8]) -> Ordering {
    let all_spaces = |s: &[u8]| s.iter().all(|&c| c == b' ');
    let n = a.len().min(b.len());
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        if x >= 0x80 || y >= 0x80 {
            return ci_compare_unicode(a, b);
        }
        if x != y {
            let (ux, uy) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
            if ux != uy {
                // A difference inside trailing spaces is the end of that string.
                if x == b' ' && all_spaces(&a[i..]) {
                    return Ordering::Less;
                }
                if y == b' ' && all_spaces(&b[i..]) {
                    return Ordering::Greater;
                }
                return ux.cmp(&uy);
            }
        }
    }
    // Equal up to the shorter length: the longer is greater unless the rest is spaces.
    let (rest, longer) = if a.len() > n { (&a[n..], Ordering::Greater) } else { (&b[n..], Ordering::Less) };
    if rest.is_ascii() {
        if all_spaces(rest) {
            Ordering::Equal
        } else {
            longer
        }
    } else {
        ci_compare_unicode(a, b)
    }
}

fn ci_compare_unicode(a: &[u8], b: &[u8]) -> Ordering {
    let a = trim_spaces(a);
    let b = trim_spaces(b);
    let sa = String::from_utf8_lossy(a);
    let sb = String::from_utf8_lossy(b);
    let mut ia = sa.chars().map(fold);
    let mut ib = sb.chars().map(fold);
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x != y => return x.cmp(&y),
            _ => {}
        }
    }
}

/// general_ci's rule for one character (see the module header).
pub fn fold(c: char) -> char {
    let mut up = c.to_uppercase();
    let first = up.next().unwrap_or(c);
    if up.next().is_some() {
        c
    } else {
        // general_ci also folds accents of Latin letters.
        match first {
            'À'..='Å' => 'A',
            'Ç' => 'C',
            'È'..='Ë' => 'E',
            'Ì'..='Ï' => 'I',
            'Ñ' => 'N',
            'Ò'..='Ö' | 'Ø' => 'O',
            'Ù'..='Ü' => 'U',
            'Ý' => 'Y',
            other => other,
        }
    }
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let mut e = s.len();
    while e > 0 && s[e - 1] == b' ' {
        e -= 1;
    }
    &s[..e]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collation() {
        assert_eq!(ci_compare(b"abc", b"ABC  "), Ordering::Equal);
        assert_eq!(ci_compare(b"abc", b"abd"), Ordering::Less);
        assert_eq!(ci_compare("Éa".as_bytes(), "ea".as_bytes()), Ordering::Equal);
        assert_eq!(ci_compare(b"a", b"a b"), Ordering::Less);
        // the one-pass ASCII path agrees with comparing trimmed strings
        let samples: [&[u8]; 14] = [b"", b" ", b"a", b"A ", b"a  ", b"a\t", b"a b", b"a !", b"ab", b"aB ", b"b", b"a\x01", b"\t", b"Z"];
        for x in samples {
            for y in samples {
                let (tx, ty) = (trim_spaces(x).to_ascii_uppercase(), trim_spaces(y).to_ascii_uppercase());
                assert_eq!(ci_compare(x, y), tx.cmp(&ty), "{:?} vs {:?}", x, y);
            }
        }
        assert_eq!(ci_compare("abc É".as_bytes(), "ABC e  ".as_bytes()), Ordering::Equal);
        assert_eq!(ci_compare("ab".as_bytes(), "ab é".as_bytes()), Ordering::Less);
    }

    #[test]
    fn fold_is_general_ci_for_one_character() {
        for (a, b) in [('a', 'A'), ('ä', 'A'), ('é', 'E'), ('ς', 'Σ'), ('σ', 'Σ'), ('ı', 'I'), ('ǆ', 'Ǆ')] {
            assert_eq!(fold(a), b, "{a}");
        }
        // Upper case of more than one character: kept as it is.
        assert_eq!(fold('ß'), 'ß');
        assert_eq!(fold('ﬁ'), 'ﬁ');
    }
}
