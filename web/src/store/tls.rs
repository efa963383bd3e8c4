//! TLS to PostgreSQL, as the URL asks for it: `sslmode` and `sslrootcert`, with libpq's
//! meanings, so that web processes on several hosts can share one database safely.
//!
//! | `sslmode` | the connection |
//! |---|---|
//! | (absent), `disable` | plain TCP, as before TLS was supported |
//! | `prefer` | TLS if the server offers it (its certificate not checked), else plain |
//! | `require` | TLS or nothing; the certificate is not checked — unless `sslrootcert` is given, which makes it `verify-ca` (as libpq does) |
//! | `verify-ca` | TLS, the server's certificate chain checked against the CA in `sslrootcert` |
//! | `verify-full` | as `verify-ca`, and the certificate must name the host of the URL |
//!
//! `sslrootcert=FILE` is a PEM file of one or more CA certificates (needed by
//! `verify-ca` and `verify-full`). The TLS is rustls's (TLS 1.2 and 1.3, ring's
//! algorithms); even unchecked, the server proves it holds the certificate's key.
//!
//! tokio-postgres itself reads only `disable`, `prefer` and `require`: [`Target::parse`]
//! takes `sslmode` and `sslrootcert` out of the URL, builds the rustls configuration
//! and gives tokio-postgres the rest.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{Result, StoreError};

/// What a URL's `sslmode` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain TCP (also when the URL names no `sslmode`).
    Disable,
    /// TLS when the server offers it, unchecked; else plain.
    Prefer,
    /// TLS, the certificate unchecked.
    Require,
    /// TLS, the chain checked against `sslrootcert`.
    VerifyCa,
    /// TLS, the chain checked and the host named by the certificate.
    VerifyFull,
}

impl Mode {
    fn from_name(name: &str) -> Option<Mode> {
        Some(match name {
            "disable" => Mode::Disable,
            "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            _ => return None,
        })
    }
}

/// A database to connect to: tokio-postgres's configuration and the TLS connector.
#[derive(Clone)]
pub struct Target {
    /// The connection settings (the URL less `sslmode` and `sslrootcert`).
    pub config: tokio_postgres::Config,
    /// The TLS mode the URL asked for.
    pub mode: Mode,
    /// The connector (used only when the mode asks for TLS).
    pub tls: MakeRustlsConnect,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Target {
    /// Reads a `postgres://` URL. A bad `sslmode`, a verifying mode without
    /// `sslrootcert`, or a root file that cannot be read are refused, saying which.
    pub fn parse(url: &str) -> Result<Target> {
        let (base, query) = match url.split_once('?') {
            Some((b, q)) => (b, q),
            None => (url, ""),
        };
        let mut mode = None;
        let mut root: Option<PathBuf> = None;
        let mut rest: Vec<&str> = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "sslmode" => {
                    let v = percent_decode(v);
                    mode = Some(Mode::from_name(&v).ok_or_else(|| {
                        StoreError(format!(
                            "the database URL's sslmode={v:?} is none of disable, prefer, require, verify-ca, verify-full"
                        ))
                    })?);
                }
                "sslrootcert" => root = Some(PathBuf::from(percent_decode(v))),
                _ => rest.push(pair),
            }
        }
        let mut mode = mode.unwrap_or(Mode::Disable);
        if mode == Mode::Require && root.is_some() {
            mode = Mode::VerifyCa; // libpq: a root certificate given makes `require` check the chain
        }
        let clean = if rest.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", rest.join("&"))
        };
        let mut config: tokio_postgres::Config = clean
            .parse()
            .map_err(|e| StoreError(format!("the database URL: {e}")))?;
        config.ssl_mode(match mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        });
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match mode {
            Mode::Disable | Mode::Prefer | Mode::Require => Arc::new(Unchecked(provider.clone())),
            Mode::VerifyCa | Mode::VerifyFull => {
                let file = root.ok_or_else(|| {
                    StoreError(format!(
                        "sslmode={} needs sslrootcert=FILE in the database URL: the CA certificate(s) to check the server's against",
                        if mode == Mode::VerifyCa { "verify-ca" } else { "verify-full" }
                    ))
                })?;
                let roots = read_roots(&file)?;
                let webpki =
                    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                        .build()
                        .map_err(|e| StoreError(format!("sslrootcert {}: {e}", file.display())))?;
                if mode == Mode::VerifyFull {
                    webpki
                } else {
                    Arc::new(ChainOnly(webpki))
                }
            }
        };
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| StoreError(format!("TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(Target {
            config,
            mode,
            tls: MakeRustlsConnect::new(tls),
        })
    }
}

/// The CA certificates of a PEM file (at least one).
fn read_roots(file: &std::path::Path) -> Result<RootCertStore> {
    let bad = |e: String| StoreError(format!("sslrootcert {}: {e}", file.display()));
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(file).map_err(|e| bad(e.to_string()))? {
        roots
            .add(cert.map_err(|e| bad(e.to_string()))?)
            .map_err(|e| bad(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(bad("no certificate in the file".into()));
    }
    Ok(roots)
}

/// `%XX` escapes of a URL's query value decoded (a path may hold `%2F`).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `prefer` and `require` without a root: any certificate, but the handshake's
/// signatures are still checked (the server holds the key of the certificate it shows).
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain checked as `verify-full` checks it, the host name not.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_read_as_libpq_reads_it() {
        let t = Target::parse("postgres://u@h:5/db").unwrap();
        assert_eq!(
            (t.mode, t.config.get_ssl_mode()),
            (Mode::Disable, SslMode::Disable)
        );
        let t = Target::parse("postgres://u@h:5/db?sslmode=require&application_name=x").unwrap();
        assert_eq!(
            (t.mode, t.config.get_ssl_mode()),
            (Mode::Require, SslMode::Require)
        );
        assert_eq!(t.config.get_application_name(), Some("x"));
        assert_eq!(t.config.get_dbname(), Some("db"));
        let t = Target::parse("postgres://u@h/db?sslmode=prefer").unwrap();
        assert_eq!(
            (t.mode, t.config.get_ssl_mode()),
            (Mode::Prefer, SslMode::Prefer)
        );
        let e = Target::parse("postgres://u@h/db?sslmode=verify-full").unwrap_err();
        assert!(
            e.0.contains("sslmode=verify-full needs sslrootcert=FILE"),
            "{e}"
        );
        let e = Target::parse("postgres://u@h/db?sslmode=verify-ca").unwrap_err();
        assert!(e.0.contains("sslmode=verify-ca needs sslrootcert"), "{e}");
        let e = Target::parse("postgres://u@h/db?sslmode=allow").unwrap_err();
        assert!(e.0.contains("sslmode=\"allow\" is none of"), "{e}");
        let e =
            Target::parse("postgres://u@h/db?sslmode=verify-full&sslrootcert=/no/such/file.pem")
                .unwrap_err();
        assert!(e.0.starts_with("sslrootcert /no/such/file.pem: "), "{e}");
        let e = Target::parse("postgres://u@h/db?sslmode=require&sslrootcert=%2Fno%2Fsuch.pem")
            .unwrap_err();
        assert!(
            e.0.starts_with("sslrootcert /no/such.pem: "),
            "require with a root checks it: {e}"
        );
        assert_eq!(percent_decode("a%2Fb%zz%4"), "a/b%zz%4");
    }
}
