//! Hex text to bytes (`UNHEX`).
//!
//! Why here: UNHEX is answered both by the SQLite engine (a registered SQL
//! function) and by the SQL front (UNHEX without a table), and the two must
//! read odd lengths and bad digits alike.

/// UNHEX: two hex digits a byte, an odd leading digit a byte of its own
/// (UNHEX('414') is 04 14, as in MySQL); None (NULL) for any other character.
pub fn unhex(t: &[u8]) -> Option<Vec<u8>> {
    let digit = |d: u8| (d as char).to_digit(16).map(|x| x as u8);
    let lead = t.len() % 2;
    let mut out = Vec::with_capacity(t.len() / 2 + lead);
    if lead == 1 {
        out.push(digit(t[0])?);
    }
    for pair in t[lead..].chunks(2) {
        out.push((digit(pair[0])? << 4) | digit(pair[1])?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::unhex;

    #[test]
    fn unhex_reads_odd_lengths_and_refuses_other_characters() {
        assert_eq!(unhex(b"4142").unwrap(), b"AB");
        assert_eq!(unhex(b"414").unwrap(), [4, 0x14]);
        assert_eq!(unhex(b"").unwrap(), b"");
        assert!(unhex(b"zz").is_none() && unhex(b"4\xff").is_none());
    }
}
