//! A client certificate's issuer and subject as OpenSSL's
//! `X509_NAME_oneline` prints them (`/C=FI/O=Acme/CN=client`), which is the
//! text `REQUIRE ISSUER '...'` and `REQUIRE SUBJECT '...'` are compared with,
//! byte for byte, as MariaDB compares them. Read from the DER with
//! validity.rs's element walk; rustls has verified the certificate against
//! ssl_ca before anything here reads it, and a malformed name gives None.

use super::validity::element;

/// (issuer, subject) of a DER certificate.
pub fn issuer_and_subject(der: &[u8]) -> Option<(String, String)> {
    let (_, cert, _) = element(der)?; // Certificate ::= SEQUENCE
    let (_, mut tbs, _) = element(cert)?; // TBSCertificate ::= SEQUENCE
    let (tag, _, rest) = element(tbs)?;
    if tag == 0xA0 {
        tbs = rest; // [0] version
    }
    tbs = element(tbs)?.2; // serial
    tbs = element(tbs)?.2; // signature algorithm
    let (_, issuer, rest) = element(tbs)?;
    let rest = element(rest)?.2; // validity
    let (_, subject, _) = element(rest)?;
    Some((oneline(issuer)?, oneline(subject)?))
}

/// Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue):
/// each attribute as `/short name=value`.
fn oneline(mut name: &[u8]) -> Option<String> {
    let mut out = String::new();
    while !name.is_empty() {
        let (_, mut rdn, rest) = element(name)?;
        name = rest;
        while !rdn.is_empty() {
            let (_, atv, rest) = element(rdn)?;
            rdn = rest;
            let (tag, oid, after) = element(atv)?;
            if tag != 0x06 {
                return None;
            }
            let (_, value, _) = element(after)?;
            out.push('/');
            out.push_str(&short_name(oid)?);
            out.push('=');
            push_value(&mut out, value);
        }
    }
    Some(out)
}

/// Printable ASCII as it is; every other byte as OpenSSL's oneline writes it, `\xHH`.
fn push_value(out: &mut String, value: &[u8]) {
    for &b in value {
        if (0x20..0x7f).contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
}

/// OpenSSL's short name of an attribute type, or its dotted number.
fn short_name(oid: &[u8]) -> Option<String> {
    let dotted = dotted(oid)?;
    let known = match dotted.as_str() {
        "2.5.4.3" => "CN",
        "2.5.4.4" => "SN",
        "2.5.4.5" => "serialNumber",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.9" => "street",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.12" => "title",
        "2.5.4.17" => "postalCode",
        "2.5.4.42" => "GN",
        "2.5.4.43" => "initials",
        "2.5.4.46" => "dnQualifier",
        "1.2.840.113549.1.9.1" => "emailAddress",
        "0.9.2342.19200300.100.1.1" => "UID",
        "0.9.2342.19200300.100.1.25" => "DC",
        _ => return Some(dotted),
    };
    Some(known.to_string())
}

fn dotted(oid: &[u8]) -> Option<String> {
    let (&first, rest) = oid.split_first()?;
    // The first byte holds two arcs: 40 * X + Y, X at most 2.
    let x = (first / 40).min(2);
    let mut parts = vec![x as u64, (first - 40 * x) as u64];
    let mut n: u64 = 0;
    for &b in rest {
        n = n.checked_mul(128)? | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            parts.push(n);
            n = 0;
        }
    }
    Some(parts.iter().map(u64::to_string).collect::<Vec<_>>().join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_openssl_prints_them() {
        let ca_key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name = rcgen::DistinguishedName::new();
        ca.distinguished_name.push(rcgen::DnType::CommonName, "Test CA");
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name = rcgen::DistinguishedName::new();
        p.distinguished_name.push(rcgen::DnType::CountryName, "FI");
        p.distinguished_name.push(rcgen::DnType::OrganizationName, "Acme");
        p.distinguished_name.push(rcgen::DnType::CommonName, "client");
        let cert = p.signed_by(&key, &ca_cert, &ca_key).unwrap();
        let (iss, sub) = issuer_and_subject(cert.der()).unwrap();
        assert_eq!(sub, "/C=FI/O=Acme/CN=client");
        assert_eq!(iss, "/CN=Test CA");
    }

    #[test]
    fn oids_and_malformed_names() {
        assert_eq!(dotted(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01]).as_deref(), Some("1.2.840.113549.1.9.1"));
        assert_eq!(dotted(&[0x55, 0x04, 0x03]).as_deref(), Some("2.5.4.3"));
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let der = rcgen::CertificateParams::new(vec!["x".to_string()]).unwrap().self_signed(&key).unwrap().der().to_vec();
        for cut in 0..der.len() {
            let _ = issuer_and_subject(&der[..cut]);
        }
        for i in 0..der.len() {
            let mut d = der.clone();
            d[i] ^= 0xff;
            let _ = issuer_and_subject(&d);
        }
    }
}
