//! The TLS connectors for libpq's modes, over rustls.

use std::path::Path;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, Error, SignatureScheme};

/// What is checked of the server's certificate.
pub enum Verify {
    /// Nothing (`prefer`, `require` without a root certificate): the link is encrypted,
    /// the server not authenticated, as libpq does.
    Nothing,
    /// The chain up to the root certificate, not the host name (`verify-ca`).
    Chain,
    /// The chain and the host name (`verify-full`).
    Full,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A connector that checks what `verify` says against the certificates in `roots`.
pub fn connector(
    verify: Verify,
    roots: Option<&Path>,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, String> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let config = match verify {
        Verify::Nothing => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoCheck(provider())))
            .with_no_client_auth(),
        Verify::Chain | Verify::Full => {
            let path = roots.expect("checked by the caller");
            let mut store = rustls::RootCertStore::empty();
            let mut pinned = Vec::new();
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?;
            for c in certs {
                let c =
                    c.map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?;
                pinned.push(c.clone());
                store
                    .add(c)
                    .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            }
            if store.is_empty() {
                return Err(format!(
                    "sslrootcert {} holds no certificate",
                    path.display()
                ));
            }
            let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                Arc::new(store),
                provider(),
            )
            .build()
            .map_err(|e| format!("TLS: {e}"))?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Pinned {
                    webpki,
                    pinned,
                    full: matches!(verify, Verify::Full),
                }))
                .with_no_client_auth()
        }
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// Accepts any certificate, still checking the handshake's signatures with it.
#[derive(Debug)]
struct NoCheck(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for NoCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
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
    ) -> Result<HandshakeSignatureValid, Error> {
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

/// A server certificate that is itself in `sslrootcert` (a self-signed one, the usual
/// quick setup) is trusted as it stands, as libpq's OpenSSL trusts a certificate of its
/// trust store; WebPKI refuses one that is a CA certificate (`CaUsedAsEndEntity`). With
/// `verify-full` its names must still match the host. Every other certificate goes
/// through WebPKI's check of the chain and the name; without `full` (`verify-ca`) a
/// certificate for another name is accepted.
#[derive(Debug)]
struct Pinned {
    webpki: Arc<rustls::client::WebPkiServerVerifier>,
    pinned: Vec<CertificateDer<'static>>,
    full: bool,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        if self
            .pinned
            .iter()
            .any(|p| p.as_ref() == end_entity.as_ref())
        {
            if self.full {
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
                rustls::client::verify_server_name(&parsed, server_name)?;
            }
            return Ok(ServerCertVerified::assertion());
        }
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(Error::InvalidCertificate(
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. },
            )) if !self.full => Ok(ServerCertVerified::assertion()),
            r => r,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}
