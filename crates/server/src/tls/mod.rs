//! TLS for clients: the server's certificate and rustls configuration,
//! built once at start-up from the `ssl*`/`tls*` settings (every setting
//! checked there, so a bad one stops the start), rebuilt by ALTER INSTANCE
//! RELOAD TLS, and generated in the data directory on its first start when
//! no certificate is configured (MySQL's auto-generated file names).
//! `upgrade` is what both schedulers' loops call when a client's SSLRequest
//! asks for TLS. The transport is stream.rs, session tickets tickets.rs, the
//! certificate's dates validity.rs.
//!
//! Lock: `Tls::config` (a RwLock, read once per TLS handshake to take the
//! current configuration; written by a reload), and inside rustls the
//! ticket rotator's RwLock (read per ticket issued or resumed). Neither is
//! held while anything else is taken (docs/architecture.md, the lock table).

pub mod names;
pub mod stream;
mod tickets;
pub mod validity;

use crate::stats::Striped;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{NoServerSessionStorage, ProducesTickets, ServerSessionMemoryCache, WebPkiClientVerifier};
use rustls::{CipherSuite, ProtocolVersion, ServerConfig, SupportedProtocolVersion};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use stream::TlsInfo;
use turnstile_settings::Config;

/// MySQL's names for the files it generates in the data directory.
pub const CA_FILE: &str = "ca.pem";
pub const CA_KEY_FILE: &str = "ca-key.pem";
pub const CERT_FILE: &str = "server-cert.pem";
pub const KEY_FILE: &str = "server-key.pem";
/// Years a generated certificate is valid (MySQL's auto-generated ones: 10).
const GENERATED_VALID_YEARS: i32 = 10;

/// Ssl_* counters.
#[derive(Default)]
pub struct Counters {
    /// TLS handshakes started (Ssl_accepts).
    pub accepts: Striped,
    /// Handshakes that completed (Ssl_finished_accepts).
    pub finished: Striped,
    /// Handshakes that failed (Ssl_handshake_failures; MySQL counts them in Ssl_accepts minus Ssl_finished_accepts).
    pub failures: Striped,
    /// Completed handshakes that resumed a session (Ssl_session_cache_hits) or did not (_misses).
    pub resumed: Striped,
    pub full: Striped,
}

/// Where the certificate and key come from, and their validity dates.
#[derive(Clone)]
struct Files {
    cert: PathBuf,
    key: PathBuf,
    ca: Option<PathBuf>,
}

pub struct Tls {
    config: RwLock<Loaded>,
    files: Files,
    pub counters: Counters,
}

/// One configuration and what SHOW STATUS says of its certificate.
struct Loaded {
    rustls: Arc<ServerConfig>,
    /// Ssl_server_not_before / _after, as MySQL prints them ("Nov 28 00:00:00 2026 GMT").
    not_before: String,
    not_after: String,
    /// SHA-256 of the certificate's DER, for MariaDB's proof of the
    /// certificate in the login's OK (`session::authentication::cert_proof`).
    cert_sha256: [u8; 32],
}

impl Tls {
    /// TLS as configured (None when `ssl` is OFF); generates the data
    /// directory's certificate on its first start when none is configured.
    pub fn load(c: &Config) -> Result<Option<Arc<Tls>>, String> {
        if !c.ssl {
            return Ok(None);
        }
        let files = match (&c.ssl_cert, &c.ssl_key) {
            (Some(cert), Some(key)) => Files { cert: cert.into(), key: key.into(), ca: c.ssl_ca.as_ref().map(PathBuf::from) },
            (None, None) => generated_files(&c.datadir, c.ssl_ca.as_deref())?,
            _ => return Err("ssl_cert and ssl_key are given together (or neither: the data directory's own)".into()),
        };
        let loaded = build(c, &files)?;
        Ok(Some(Arc::new(Tls { config: RwLock::new(loaded), files, counters: Counters::default() })))
    }

    /// ALTER INSTANCE RELOAD TLS: read the files again; on an error the
    /// configuration in use stays (MySQL's default, without NO ROLLBACK ON ERROR).
    pub fn reload(&self, c: &Config) -> Result<(), String> {
        let loaded = build(c, &self.files)?;
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = loaded;
        Ok(())
    }

    /// A rustls server connection for one client, with the current
    /// configuration, and the SHA-256 of the certificate it presents.
    pub fn accept(&self) -> Result<(rustls::ServerConnection, [u8; 32]), rustls::Error> {
        let (config, cert_sha256) = {
            let loaded = self.config.read().unwrap_or_else(|e| e.into_inner());
            (loaded.rustls.clone(), loaded.cert_sha256)
        };
        Ok((rustls::ServerConnection::new(config)?, cert_sha256))
    }

    /// The handshake of `conn` completed: count it and tell the session.
    pub fn note_handshake(&self, conn: &rustls::ServerConnection, info: &TlsInfo) {
        self.counters.finished.inc();
        match conn.handshake_kind() {
            Some(rustls::HandshakeKind::Resumed) => self.counters.resumed.inc(),
            _ => self.counters.full.inc(),
        }
        let _ = info.version.set(version_name(conn.protocol_version()));
        let _ = info.cipher.set(conn.negotiated_cipher_suite().map_or("", |s| cipher_name(s.suite())));
        // A client certificate is only ever here verified against ssl_ca (`client_verifier`).
        if let Some(leaf) = conn.peer_certificates().and_then(|c| c.first()) {
            let _ = info.peer_cert.set(leaf.as_ref().to_vec());
        }
    }

    /// The global Ssl_* status rows.
    pub fn status(&self) -> Vec<(&'static str, turnstile_engine::Value)> {
        use turnstile_engine::Value;
        let c = &self.counters;
        let i = |v: i64| Value::Int(v.max(0));
        let loaded = self.config.read().unwrap_or_else(|e| e.into_inner());
        vec![
            ("Ssl_accepts", i(c.accepts.get())),
            ("Ssl_finished_accepts", i(c.finished.get())),
            ("Ssl_handshake_failures", i(c.failures.get())),
            ("Ssl_server_not_after", Value::str(&loaded.not_after)),
            ("Ssl_server_not_before", Value::str(&loaded.not_before)),
            ("Ssl_session_cache_hits", i(c.resumed.get())),
            ("Ssl_session_cache_misses", i(c.full.get())),
        ]
    }

    /// ssl_ca / ssl_cert / ssl_key as in use (the generated files when none was given).
    pub fn variables(&self) -> [(&'static str, String); 3] {
        let p = |p: &Path| p.display().to_string();
        [("ssl_ca", self.files.ca.as_deref().map(p).unwrap_or_default()), ("ssl_cert", p(&self.files.cert)), ("ssl_key", p(&self.files.key))]
    }
}

/// The data directory's certificate files, generated if they are not there.
fn generated_files(datadir: &Path, ca: Option<&str>) -> Result<Files, String> {
    let cert = datadir.join(CERT_FILE);
    let key = datadir.join(KEY_FILE);
    let ca_default = datadir.join(CA_FILE);
    if !cert.exists() || !key.exists() {
        generate(datadir)?;
    }
    let ca = ca.map(PathBuf::from).or_else(|| ca_default.exists().then_some(ca_default));
    Ok(Files { cert, key, ca })
}

/// A CA and a server certificate it signs (ECDSA P-256, for localhost,
/// 127.0.0.1, ::1 and the host name), written with MySQL's file names; the
/// keys 0600. The certificate's SHA-256 fingerprint is logged.
fn generate(datadir: &Path) -> Result<(), String> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose, SanType, PKCS_ECDSA_P256_SHA256};
    let err = |e: rcgen::Error| format!("cannot generate a TLS certificate: {e}");
    let year = current_year();
    let dated = |p: &mut CertificateParams| {
        // From January 1st of last year: a clock a little behind is no problem.
        p.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
        p.not_after = rcgen::date_time_ymd(year + GENERATED_VALID_YEARS, 1, 1);
    };
    let ca_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(err)?;
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.distinguished_name.push(DnType::CommonName, "Turnstile_Auto_Generated_CA_Certificate");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    dated(&mut ca);
    let ca_cert = ca.self_signed(&ca_key).map_err(err)?;
    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(err)?;
    let mut names = vec!["localhost".to_string()];
    if let Some(h) = host_name().filter(|h| h != "localhost") {
        names.push(h);
    }
    let mut server = CertificateParams::new(names).map_err(err)?;
    for ip in [std::net::IpAddr::from([127, 0, 0, 1]), std::net::IpAddr::from(std::net::Ipv6Addr::LOCALHOST)] {
        server.subject_alt_names.push(SanType::IpAddress(ip));
    }
    server.distinguished_name.push(DnType::CommonName, "Turnstile_Auto_Generated_Server_Certificate");
    dated(&mut server);
    let cert = server.signed_by(&key, &ca_cert, &ca_key).map_err(err)?;
    for (name, text) in [(CA_KEY_FILE, ca_key.serialize_pem()), (KEY_FILE, key.serialize_pem()), (CA_FILE, ca_cert.pem()), (CERT_FILE, format!("{}{}", cert.pem(), ca_cert.pem()))] {
        write_private(&datadir.join(name), &text)?;
    }
    let fingerprint: Vec<String> = turnstile_wire::auth::sha256(&[cert.der()]).iter().map(|b| format!("{b:02X}")).collect();
    tracing::info!(file = %datadir.join(CERT_FILE).display(), sha256 = %fingerprint.join(":"), "generated a TLS certificate (first start of this data directory)");
    Ok(())
}

fn write_private(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut f = crate::datadir::create_private_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(text.as_bytes()).and_then(|_| f.sync_all()).map_err(|e| format!("{}: {e}", path.display()))
}

fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into our buffer.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    std::str::from_utf8(&buf[..end]).ok().filter(|s| !s.is_empty()).map(str::to_string)
}

fn current_year() -> i32 {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    turnstile_sqltext::civil::civil_from_days(days as i64).0 as i32
}

/// The rustls configuration the settings describe, with its certificate.
fn build(c: &Config, files: &Files) -> Result<Loaded, String> {
    let provider = provider(c.ssl_cipher.as_deref(), c.tls_ciphersuites.as_deref())?;
    let versions = versions(&c.tls_version)?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert).and_then(|i| i.collect::<Result<_, _>>()).map_err(|e| format!("ssl_cert {}: {e}", files.cert.display()))?;
    let Some(leaf) = chain.first() else { return Err(format!("ssl_cert {}: no certificate in it", files.cert.display())) };
    let cert_sha256 = turnstile_wire::auth::sha256(&[leaf.as_ref()]);
    let (not_before, not_after) = validity::validity(leaf).ok_or_else(|| format!("ssl_cert {}: cannot read the certificate's validity", files.cert.display()))?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| format!("ssl_key {}: {e}", files.key.display()))?;
    let provider = Arc::new(provider);
    let verifier = match &files.ca {
        Some(ca) => client_verifier(ca, &provider)?,
        None => WebPkiClientVerifier::no_client_auth(),
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| format!("tls_version / ssl_cipher / tls_ciphersuites: {e}"))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(|e| format!("ssl_cert / ssl_key: {e}"))?;
    // The server's order of suites decides (SHA-256 suites first, below):
    // clients list AES-256/SHA-384 first, whose key schedule costs more.
    config.ignore_client_order = true;
    if c.ssl_session_cache_mode {
        // One TLS 1.3 ticket per connection, not rustls's two: a client resumes
        // once per new connection, and most never do (libmariadb, Connector/J).
        config.send_tls13_tickets = 1;
        config.session_storage = ServerSessionMemoryCache::new(c.ssl_session_cache_size.max(1));
        config.ticketer = Arc::new(tickets::Rotating::new(c.ssl_session_cache_timeout as u32).map_err(|e| format!("TLS session tickets: {e}"))?) as Arc<dyn ProducesTickets>;
    } else {
        config.session_storage = Arc::new(NoServerSessionStorage {});
        config.send_tls13_tickets = 0;
    }
    Ok(Loaded { rustls: Arc::new(config), not_before, not_after, cert_sha256 })
}

/// Clients are asked for a certificate, as MySQL asks when it has a CA: one
/// they send must be signed by ssl_ca (the handshake fails otherwise), and
/// none is fine (`REQUIRE X509`, `ISSUER` and `SUBJECT` accounts then refuse
/// the login).
fn client_verifier(ca: &Path, provider: &Arc<CryptoProvider>) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(ca).and_then(|i| i.collect::<Result<_, _>>()).map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
    let mut roots = rustls::RootCertStore::empty();
    for c in certs {
        roots.add(c).map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
    }
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone()).allow_unauthenticated().build().map_err(|e| format!("ssl_ca {}: {e}", ca.display()))
}

fn versions(list: &str) -> Result<Vec<&'static SupportedProtocolVersion>, String> {
    let mut out = Vec::new();
    for v in list.split(',').map(str::trim).filter(|v| !v.is_empty()) {
        match v {
            "TLSv1.2" => out.push(&rustls::version::TLS12),
            "TLSv1.3" => out.push(&rustls::version::TLS13),
            "TLSv1" | "TLSv1.0" | "TLSv1.1" => return Err(format!("tls_version: {v} is not offered (TLS 1.2 and 1.3 only)")),
            _ => return Err(format!("tls_version: unknown version '{v}' (TLSv1.2, TLSv1.3)")),
        }
    }
    if out.is_empty() {
        return Err("tls_version: no version left (set ssl=OFF for no TLS)".into());
    }
    Ok(out)
}

/// ring's suites, narrowed to those `ssl_cipher` (TLS 1.2) and
/// `tls_ciphersuites` (TLS 1.3) name; a name rustls does not have is an error.
fn provider(tls12: Option<&str>, tls13: Option<&str>) -> Result<CryptoProvider, String> {
    let mut p = rustls::crypto::ring::default_provider();
    // AES-128-GCM with SHA-256 before AES-256-GCM with SHA-384: the handshake's
    // HKDF and transcript hashing on SHA-512 blocks showed at 6.5% of a TLS
    // connection's server CPU (perf, bench/tls.py's workload).
    p.cipher_suites.sort_by_key(|s| match s.suite() {
        CipherSuite::TLS13_AES_128_GCM_SHA256 | CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 | CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => 0,
        _ => 1,
    });
    for (setting, list, is13) in [("ssl_cipher", tls12, false), ("tls_ciphersuites", tls13, true)] {
        let Some(list) = list.filter(|l| !l.trim().is_empty()) else { continue };
        let wanted: Vec<&str> = list.split(':').map(str::trim).filter(|s| !s.is_empty()).collect();
        for w in &wanted {
            if !p.cipher_suites.iter().any(|s| is_tls13(s) == is13 && cipher_name(s.suite()) == *w) {
                return Err(format!("{setting}: '{w}' is not a suite offered here"));
            }
        }
        p.cipher_suites.retain(|s| is_tls13(s) != is13 || wanted.contains(&cipher_name(s.suite())));
    }
    Ok(p)
}

fn is_tls13(s: &rustls::SupportedCipherSuite) -> bool {
    matches!(s, rustls::SupportedCipherSuite::Tls13(_))
}

/// A suite by its OpenSSL name (what MySQL's Ssl_cipher and ssl_cipher use).
pub fn cipher_name(s: CipherSuite) -> &'static str {
    match s {
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-ECDSA-CHACHA20-POLY1305",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        _ => "unknown",
    }
}

fn version_name(v: Option<ProtocolVersion>) -> &'static str {
    match v {
        Some(ProtocolVersion::TLSv1_3) => "TLSv1.3",
        Some(ProtocolVersion::TLSv1_2) => "TLSv1.2",
        _ => "",
    }
}

/// The client's SSLRequest was accepted: the connection's socket becomes a
/// TLS connection, with the bytes the driver holds after that request (the
/// ClientHello may have come with it). Both schedulers' loops call this on
/// `Want::StartTls`; an error closes the connection.
pub fn upgrade(stream: &mut crate::conn::Stream, driver: &mut crate::driver::Driver) -> std::io::Result<()> {
    let session = driver.session();
    let tls = session.server().tls.clone().expect("StartTls only when TLS is offered");
    let info = session.tls_info().expect("the session made its TlsInfo at the SSLRequest");
    let (conn, cert_sha256) = tls.accept().map_err(std::io::Error::other)?;
    let _ = info.server_cert_sha256.set(cert_sha256);
    let early = driver.take_input();
    stream.start_tls(conn, &early, info, tls)?;
    driver.readable();
    Ok(())
}
