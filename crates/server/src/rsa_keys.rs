//! caching_sha2_password's RSA key pair: how a client without TLS sends its
//! password for a full authentication (the fast path's cache is empty after
//! a restart or a password change, or the scramble did not match).
//!
//! The client asks for the public key (a packet holding 0x02), the server
//! answers with its PEM, and the client sends RSA-OAEP(SHA-1) of
//! `password\0` XOR the scramble. MySQL's settings and files:
//! `caching_sha2_password_private_key_path` / `_public_key_path`, relative to
//! the data directory, generated there at the first start (2048 bits, 0600)
//! unless `caching_sha2_password_auto_generate_rsa_keys` is OFF. Without a
//! key pair a client on plain TCP cannot make a full authentication; TLS and
//! the Unix socket still can (the password travels in the clear inside them).
//!
//! aws-lc-rs does the RSA: rustls's ring cannot decrypt, and the pure-Rust
//! `rsa` crate's private-key operations are not constant-time
//! (RUSTSEC-2023-0071), which matters here: every decryption is of bytes an
//! unauthenticated peer chose.

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeySize, OaepPrivateDecryptingKey, PrivateDecryptingKey, OAEP_SHA1_MGF1SHA1};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::PrivateKeyDer;
use std::io::Write;
use std::path::{Path, PathBuf};
use turnstile_settings::Config;

/// The longest password a client may send encrypted: what fits in one
/// RSA-OAEP(SHA-1) block of the largest key accepted (8192 bits).
const KEY_BITS_MAX: usize = 8192;

pub struct RsaKeys {
    private: OaepPrivateDecryptingKey,
    /// The public key's PEM, sent to clients and shown in SHOW STATUS
    /// (Caching_sha2_password_rsa_public_key).
    pub public_pem: String,
    pub private_path: PathBuf,
    pub public_path: PathBuf,
}

impl RsaKeys {
    /// The key pair as configured: read from its files, or generated there
    /// when neither file exists and generation is on. None: no key pair
    /// (full authentication then needs TLS or the socket), logged.
    pub fn load(c: &Config) -> Result<Option<RsaKeys>, String> {
        let private_path = in_datadir(&c.datadir, &c.caching_sha2_password_private_key_path);
        let public_path = in_datadir(&c.datadir, &c.caching_sha2_password_public_key_path);
        let (have_private, have_public) = (private_path.exists(), public_path.exists());
        if !have_private && !have_public {
            if !c.caching_sha2_password_auto_generate_rsa_keys {
                tracing::warn!(
                    private_key = %private_path.display(),
                    "caching_sha2_password: no RSA key pair and caching_sha2_password_auto_generate_rsa_keys=OFF: clients on plain TCP cannot make a full authentication (TLS and the Unix socket can)"
                );
                return Ok(None);
            }
            generate(&private_path, &public_path)?;
        } else if have_private != have_public {
            return Err(format!(
                "caching_sha2_password: {} exists but {} does not: give both files or neither",
                if have_private { private_path.display() } else { public_path.display() },
                if have_private { public_path.display() } else { private_path.display() }
            ));
        }
        let private = read_private(&private_path)?;
        let public_pem = std::fs::read_to_string(&public_path).map_err(|e| format!("caching_sha2_password_public_key_path {}: {e}", public_path.display()))?;
        check_pair(&private, &public_pem).map_err(|e| format!("caching_sha2_password: {} and {}: {e}", private_path.display(), public_path.display()))?;
        let private = OaepPrivateDecryptingKey::new(private).map_err(|_| "caching_sha2_password: the private key cannot decrypt RSA-OAEP".to_string())?;
        Ok(Some(RsaKeys { private, public_pem, private_path, public_path }))
    }

    /// The password a client sent encrypted: RSA-OAEP(SHA-1) of
    /// `password\0` XOR the scramble (repeated). None when the bytes do not
    /// decrypt (a wrong key, or anything else a peer may send).
    pub fn decrypt_password(&self, ciphertext: &[u8], scramble: &[u8]) -> Option<Vec<u8>> {
        if ciphertext.len() != self.private.key_size_bytes() {
            return None;
        }
        let mut plain = vec![0u8; self.private.min_output_size()];
        let n = self.private.decrypt(&OAEP_SHA1_MGF1SHA1, ciphertext, &mut plain, None).ok()?.len();
        plain.truncate(n);
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= scramble[i % scramble.len()];
        }
        strip_nul(plain)
    }

    pub fn key_bytes(&self) -> usize {
        self.private.key_size_bytes()
    }
}

/// A password sent in the clear (inside TLS or over the socket) or
/// decrypted ends with one NUL; one without it is taken as it is.
pub fn strip_nul(mut password: Vec<u8>) -> Option<Vec<u8>> {
    if password.last() == Some(&0) {
        password.pop();
    }
    (!password.contains(&0)).then_some(password)
}

fn in_datadir(datadir: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        datadir.join(p)
    }
}

fn generate(private_path: &Path, public_path: &Path) -> Result<(), String> {
    let key = PrivateDecryptingKey::generate(KeySize::Rsa2048).map_err(|_| "caching_sha2_password: cannot generate an RSA key".to_string())?;
    let private_der = key.as_der().map_err(|_| "caching_sha2_password: cannot encode the RSA key".to_string())?;
    let public_der = key.public_key().as_der().map_err(|_| "caching_sha2_password: cannot encode the RSA public key".to_string())?;
    // LF line ends, as OpenSSL writes them (the pem crate's default is CRLF).
    let lf = pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF);
    write_new(private_path, &pem::encode_config(&pem::Pem::new("PRIVATE KEY", private_der.as_ref().to_vec()), lf))?;
    write_new(public_path, &pem::encode_config(&pem::Pem::new("PUBLIC KEY", public_der.as_ref().to_vec()), lf))?;
    tracing::info!(private_key = %private_path.display(), public_key = %public_path.display(), "caching_sha2_password: generated a 2048-bit RSA key pair");
    Ok(())
}

fn write_new(path: &Path, text: &str) -> Result<(), String> {
    let mut f = crate::datadir::create_private_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(text.as_bytes()).and_then(|_| f.sync_all()).map_err(|e| format!("{}: {e}", path.display()))
}

/// A PKCS#8 ("PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY", what MySQL and
/// `openssl genrsa` write) PEM file.
fn read_private(path: &Path) -> Result<PrivateDecryptingKey, String> {
    let bad = |e: String| format!("caching_sha2_password_private_key_path {}: {e}", path.display());
    let pkcs8 = match PrivateKeyDer::from_pem_file(path).map_err(|e| bad(e.to_string()))? {
        PrivateKeyDer::Pkcs8(k) => k.secret_pkcs8_der().to_vec(),
        PrivateKeyDer::Pkcs1(k) => pkcs1_in_pkcs8(k.secret_pkcs1_der()),
        _ => return Err(bad("not an RSA private key".into())),
    };
    let key = PrivateDecryptingKey::from_pkcs8(&pkcs8).map_err(|e| bad(e.to_string()))?;
    if key.key_size_bits() > KEY_BITS_MAX {
        return Err(bad(format!("keys of more than {KEY_BITS_MAX} bits are refused")));
    }
    Ok(key)
}

/// The public key file must be the private key's: a client would otherwise
/// encrypt to a key the server cannot use, and every full authentication fail.
fn check_pair(private: &PrivateDecryptingKey, public_pem: &str) -> Result<(), String> {
    let public = rustls::pki_types::SubjectPublicKeyInfoDer::from_pem_slice(public_pem.as_bytes()).map_err(|e| format!("public key: {e}"))?;
    let ours = private.public_key().as_der().map_err(|_| "cannot encode the public key".to_string())?;
    if ours.as_ref() != public.as_ref() {
        return Err("the public key is not the private key's".into());
    }
    Ok(())
}

/// PKCS#8 PrivateKeyInfo around a PKCS#1 RSAPrivateKey (RFC 5208):
/// SEQUENCE { INTEGER 0, SEQUENCE { rsaEncryption, NULL }, OCTET STRING key }.
fn pkcs1_in_pkcs8(pkcs1: &[u8]) -> Vec<u8> {
    const VERSION_AND_ALGORITHM: &[u8] = &[0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
    let mut body = VERSION_AND_ALGORITHM.to_vec();
    der_tlv(&mut body, 0x04, pkcs1);
    let mut out = Vec::with_capacity(body.len() + 4);
    der_tlv(&mut out, 0x30, &body);
    out
}

fn der_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
    out.push(tag);
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::rsa::{OaepPublicEncryptingKey, PublicEncryptingKey};

    fn encrypt_as_client(public_pem: &str, password: &[u8], scramble: &[u8]) -> Vec<u8> {
        let der = rustls::pki_types::SubjectPublicKeyInfoDer::from_pem_slice(public_pem.as_bytes()).unwrap();
        let key = OaepPublicEncryptingKey::new(PublicEncryptingKey::from_der(der.as_ref()).unwrap()).unwrap();
        let mut plain = password.to_vec();
        plain.push(0);
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= scramble[i % scramble.len()];
        }
        let mut out = vec![0u8; key.ciphertext_size()];
        key.encrypt(&OAEP_SHA1_MGF1SHA1, &plain, &mut out, None).unwrap().to_vec()
    }

    #[test]
    fn generated_pair_decrypts_what_a_client_encrypts_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("ts-rsa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (private, public) = (dir.join("private_key.pem"), dir.join("public_key.pem"));
        generate(&private, &public).unwrap();
        let key = OaepPrivateDecryptingKey::new(read_private(&private).unwrap()).unwrap();
        let public_pem = std::fs::read_to_string(&public).unwrap();
        assert!(public_pem.starts_with("-----BEGIN PUBLIC KEY-----"));
        let keys = RsaKeys { private: key, public_pem: public_pem.clone(), private_path: private, public_path: public };
        let scramble = b"abcdefghijklmnopqrst";
        let c = encrypt_as_client(&public_pem, b"s3cret \xc3\xa9", scramble);
        assert_eq!(keys.decrypt_password(&c, scramble).as_deref(), Some(&b"s3cret \xc3\xa9"[..]));
        assert_ne!(keys.decrypt_password(&c, b"ABCDEFGHIJKLMNOPQRST").as_deref(), Some(&b"s3cret \xc3\xa9"[..]));
        let mut flipped = c.clone();
        flipped[10] ^= 1;
        assert_eq!(keys.decrypt_password(&flipped, scramble), None);
        assert_eq!(keys.decrypt_password(&c[1..], scramble), None);
        assert_eq!(keys.decrypt_password(&[], scramble), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn pkcs1_wrapping_is_what_aws_lc_reads() {
        let key = PrivateDecryptingKey::generate(KeySize::Rsa2048).unwrap();
        let pkcs8 = key.as_der().unwrap();
        // The PKCS#1 key is the OCTET STRING at the end of the PKCS#8 one.
        let pkcs8 = pkcs8.as_ref();
        let inner = &pkcs8[26..];
        assert_eq!(pkcs1_in_pkcs8(inner), pkcs8);
    }
}
