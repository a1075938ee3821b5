//! The HTTP client every model endpoint is reached through: plain `http://`,
//! or `https://` over rustls with ring as its crypto provider, verifying the
//! server against the system's root certificates (rustls-platform-verifier;
//! on Linux that is rustls-native-certs: the OS store, or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR` when set) plus, with `--ca-cert FILE`, the PEM certificates
//! in that file (a private CA, or a test server's own).
//!
//! reqwest is built without a provider of its own (its `rustls-no-provider`
//! feature: see host/Cargo.toml for why ring), so a client may only be built
//! once ring is the process's default provider; [`builder`] installs it, and
//! so does the binary's `main` (for the clients other crates build).
//!
//! A `--ca-cert` file is read and every certificate in it parsed when the
//! client is built, so a missing, empty or broken file is refused naming it
//! before any episode runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

/// Why a client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("base URL {0:?} must start with http:// or https://")]
    Scheme(String),
    #[error("--ca-cert {}: could not read it: {source}", path.display())]
    CaCertRead {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--ca-cert {}: {why}", path.display())]
    CaCertBad { path: PathBuf, why: String },
    #[error("could not build the HTTP client: {0}")]
    Build(String),
}

/// Make ring the process's default rustls provider (a no-op when one is
/// installed already).
pub fn install_crypto_provider() {
    // Err means a provider is installed already, which is all we need.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A reqwest builder for `base_url`, with `ca_cert`'s certificates trusted
/// beside the system's for `https://`. A plain `http://` client loads no
/// roots at all, so a machine without a CA store still reaches a local server.
pub fn builder(
    base_url: &str,
    ca_cert: Option<&Path>,
) -> Result<reqwest::ClientBuilder, ClientError> {
    install_crypto_provider();
    let https = if base_url.starts_with("https://") {
        true
    } else if base_url.starts_with("http://") {
        false
    } else {
        return Err(ClientError::Scheme(base_url.to_string()));
    };
    let extra = match ca_cert {
        Some(path) => read_ca_cert(path)?,
        None => Vec::new(),
    };
    let builder = reqwest::Client::builder();
    Ok(if https {
        builder.tls_certs_merge(extra)
    } else {
        builder.tls_certs_only(extra)
    })
}

/// The client the LLM agent posts through: `timeout` per attempt (connect
/// included), no proxy (a local server must not go through one).
pub fn client(
    base_url: &str,
    ca_cert: Option<&Path>,
    timeout: Duration,
) -> Result<reqwest::Client, ClientError> {
    builder(base_url, ca_cert)?
        .timeout(timeout)
        .connect_timeout(timeout)
        .no_proxy()
        .build()
        .map_err(|e| ClientError::Build(chain(&e)))
}

/// GET a JSON document (an endpoint's `/health`) through [`client`]; the
/// error in words.
pub async fn get_json(
    url: &str,
    ca_cert: Option<&Path>,
    timeout: Duration,
) -> Result<serde_json::Value, String> {
    let client = client(url, ca_cert, timeout).map_err(|e| e.to_string())?;
    let response = client.get(url).send().await.map_err(|e| chain(&e))?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| chain(&e))?;
    if !status.is_success() {
        return Err(format!("{url}: HTTP {}", status.as_u16()));
    }
    serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON ({e})"))
}

/// Every certificate in the PEM file at `path`, each checked to parse as a
/// trust anchor.
pub(crate) fn read_ca_cert(path: &Path) -> Result<Vec<reqwest::Certificate>, ClientError> {
    let bytes = std::fs::read(path).map_err(|source| ClientError::CaCertRead {
        path: path.to_owned(),
        source,
    })?;
    let bad = |why: String| ClientError::CaCertBad {
        path: path.to_owned(),
        why,
    };
    let mut certs = Vec::new();
    for (i, der) in CertificateDer::pem_slice_iter(&bytes).enumerate() {
        let der = der.map_err(|e| bad(format!("not PEM ({e})")))?;
        let mut check = rustls::RootCertStore::empty();
        check.add(der.clone()).map_err(|e| {
            bad(format!(
                "certificate {} of the file does not parse: {e}",
                i + 1
            ))
        })?;
        let cert = reqwest::Certificate::from_der(&der)
            .map_err(|e| bad(format!("certificate {}: {e}", i + 1)))?;
        certs.push(cert);
    }
    if certs.is_empty() {
        return Err(bad(
            "holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)".into(),
        ));
    }
    Ok(certs)
}

/// An error and its sources, joined with ": ".
fn chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, contents: &[u8]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("droidscore-http-client-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn a_bad_ca_cert_file_is_refused_naming_it() {
        let missing = Path::new("/nonexistent/ca.pem");
        let e = builder("https://x/v1", Some(missing)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--ca-cert /nonexistent/ca.pem: could not read it: "),
            "{e}"
        );
        let empty = scratch("empty.pem", b"just some text\n");
        let e = builder("https://x/v1", Some(&empty)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--ca-cert {}: holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)",
                empty.display()
            )
        );
        // Valid base64 that is no certificate.
        let junk = scratch(
            "junk.pem",
            b"-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n",
        );
        let e = builder("https://x/v1", Some(&junk)).unwrap_err();
        let message = e.to_string();
        assert!(
            message.starts_with(&format!(
                "--ca-cert {}: certificate 1 of the file does not parse: ",
                junk.display()
            )),
            "{message}"
        );
    }

    #[test]
    fn only_http_and_https_are_accepted() {
        assert_eq!(
            builder("ftp://x/v1", None).unwrap_err().to_string(),
            "base URL \"ftp://x/v1\" must start with http:// or https://"
        );
        assert!(client("http://127.0.0.1:9/v1", None, Duration::from_secs(1)).is_ok());
        assert!(client("https://127.0.0.1:9/v1", None, Duration::from_secs(1)).is_ok());
    }
}
