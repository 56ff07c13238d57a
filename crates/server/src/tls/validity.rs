//! The validity dates of an X.509 certificate (Ssl_server_not_before and
//! Ssl_server_not_after), read from its DER without a parsing library: the
//! walk below goes to TBSCertificate's fifth element and no further. Every
//! length is checked against what is left, so a malformed certificate gives
//! None, never a panic (rustls has already refused one it cannot use).

/// (not before, not after), as MySQL prints them: "Nov 28 00:00:00 2026 GMT".
pub fn validity(der: &[u8]) -> Option<(String, String)> {
    let (_, cert, _) = element(der)?; // Certificate ::= SEQUENCE
    let (_, mut tbs, _) = element(cert)?; // TBSCertificate ::= SEQUENCE
    let (tag, _, rest) = element(tbs)?;
    if tag == 0xA0 {
        tbs = rest; // [0] version
    }
    for _ in 0..3 {
        tbs = element(tbs)?.2; // serial, signature algorithm, issuer
    }
    let (_, validity, _) = element(tbs)?;
    let (t1, a, rest) = element(validity)?;
    let (t2, b, _) = element(rest)?;
    Some((time_text(t1, a)?, time_text(t2, b)?))
}

/// One DER element: (tag, contents, what follows).
pub(super) fn element(d: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, d) = d.split_first()?;
    let (&first, mut d) = d.split_first()?;
    let len = if first < 0x80 {
        first as usize
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || d.len() < n {
            return None;
        }
        let len = d[..n].iter().fold(0usize, |a, &b| a << 8 | b as usize);
        d = &d[n..];
        len
    };
    (d.len() >= len).then(|| (tag, &d[..len], &d[len..]))
}

/// UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ).
fn time_text(tag: u8, t: &[u8]) -> Option<String> {
    let t = std::str::from_utf8(t).ok().filter(|t| t.is_ascii())?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit()).then(|| s.parse::<u32>().ok()).flatten();
    let (year, rest) = match tag {
        0x17 if t.len() >= 12 => {
            let yy = digits(&t[..2])?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &t[2..])
        }
        0x18 if t.len() >= 14 => (digits(&t[..4])?, &t[4..]),
        _ => return None,
    };
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.get(digits(&rest[..2])?.checked_sub(1)? as usize)?;
    let (d, h, m, s) = (digits(&rest[2..4])?, digits(&rest[4..6])?, digits(&rest[6..8])?, digits(&rest[8..10])?);
    Some(format!("{month} {d:2} {h:02}:{m:02}:{s:02} {year} GMT"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_a_generated_certificate() {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut p = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        p.not_before = rcgen::date_time_ymd(2025, 1, 1);
        p.not_after = rcgen::date_time_ymd(2060, 11, 28);
        let cert = p.self_signed(&key).unwrap();
        assert_eq!(validity(cert.der()), Some(("Jan  1 00:00:00 2025 GMT".to_string(), "Nov 28 00:00:00 2060 GMT".to_string())));
    }

    #[test]
    fn malformed_input_is_none_never_a_panic() {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let der = rcgen::CertificateParams::new(vec!["x".to_string()]).unwrap().self_signed(&key).unwrap().der().to_vec();
        for cut in 0..der.len() {
            let _ = validity(&der[..cut]);
        }
        for i in 0..der.len() {
            let mut d = der.clone();
            d[i] ^= 0xff;
            let _ = validity(&d);
        }
        assert_eq!(validity(&[]), None);
        assert_eq!(validity(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
    }
}
