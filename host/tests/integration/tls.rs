//! `droidscore run` against an `https://` endpoint: the scripted server
//! behind a TLS front on loopback whose certificate is signed by a test CA
//! made here (rcgen), so it is in no system store. With `--ca-cert` the run
//! is scored; without it the run stops on the untrusted certificate; a
//! `--ca-cert` file that holds no certificate is refused before any episode.

use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use droidscore::exit;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
    SanType,
};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

use super::runs::{solve_wifi, user_text};
use super::scripted_server::{runtime, ScriptedServer};
use super::support::{text, TestEnv};

/// A TLS listener on 127.0.0.1 that forwards each connection's plaintext to
/// a plain server, presenting a certificate for 127.0.0.1 signed by its CA.
struct TlsFront {
    /// `https://127.0.0.1:PORT/v1`
    base_url: String,
    /// The CA's certificate, PEM.
    ca_pem: String,
    /// Handshakes that failed (the client refused the certificate, say).
    failed: Arc<AtomicUsize>,
}

fn tls_front(rt: &Runtime, backend: &ScriptedServer) -> TlsFront {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "droidscore test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    leaf.subject_alt_names
        .push(SanType::IpAddress(Ipv4Addr::LOCALHOST.into()));
    let cert = leaf.signed_by(&key, &ca).unwrap();

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let upstream = backend
        .base_url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string();
    let failed = Arc::new(AtomicUsize::new(0));
    let count = failed.clone();
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, upstream, count) = (acceptor.clone(), upstream.clone(), count.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    count.fetch_add(1, Ordering::SeqCst);
                    return;
                };
                let Ok(mut plain) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    TlsFront {
        base_url: format!("https://127.0.0.1:{port}/v1"),
        ca_pem: ca.pem(),
        failed,
    }
}

/// The Wi-Fi solver of `runs.rs` behind TLS.
fn wifi_server(rt: &Runtime) -> (ScriptedServer, TlsFront) {
    let server =
        ScriptedServer::start_policy(rt, Arc::new(|body: &Value| solve_wifi(&user_text(body))));
    let front = tls_front(rt, &server);
    (server, front)
}

fn run<'a>(
    env: &'a TestEnv,
    base_url: &str,
    store: &Path,
    extra: &[&str],
) -> super::support::TestCommand<'a> {
    let mut command = env.droidscore();
    command
        .args(["run", "--base-url", base_url, "--model", "scripted"])
        .args(["--no-image", "--tasks", "wifi_on", "--variants", "base"])
        .args(["--run-id", "tls", "--store", store.to_str().unwrap()])
        .args(extra);
    command
}

#[test]
fn an_https_run_with_the_servers_ca_cert_is_scored() {
    let rt = runtime();
    let (server, front) = wifi_server(&rt);
    let dir = TestEnv::new("tls-ca-cert");
    let ca = dir.write("ca.pem", &front.ca_pem);
    let store = dir.join("runs.sqlite");
    let o = run(
        &dir,
        &front.base_url,
        &store,
        &["--ca-cert", ca.to_str().unwrap()],
    )
    .ok();
    let out = text(&o.stdout);
    assert!(
        out.lines()
            .last()
            .unwrap_or("")
            .starts_with("agent llm: 1/1 episodes succeeded (100.0%)"),
        "{out}"
    );
    // open Settings, three clicks, done: every request went through TLS.
    assert_eq!(server.received().len(), 5);
    assert_eq!(front.failed.load(Ordering::SeqCst), 0);
    let store = droidscore::store::Store::open_existing(&store).unwrap();
    let run = store.run("tls").unwrap().unwrap();
    assert_eq!(run.config["base_url"], front.base_url.as_str());
    assert_eq!(run.config["ca_cert"], ca.to_str().unwrap());
    assert_eq!(run.config["rate_limit_wait_s"], 300);
}

#[test]
fn without_the_ca_cert_the_run_stops_on_the_untrusted_certificate() {
    let rt = runtime();
    let (server, front) = wifi_server(&rt);
    let dir = TestEnv::new("tls-untrusted");
    let o = run(&dir, &front.base_url, &dir.join("runs.sqlite"), &[]).code(exit::ENDPOINT);
    let err = text(&o.stderr);
    let want = format!(
        "{}/chat/completions: the server's TLS certificate is not trusted: UnknownIssuer \
         (give the CA that signed it with --ca-cert FILE)",
        front.base_url
    );
    assert!(err.contains(&want), "{err}");
    assert!(server.received().is_empty(), "no request got past TLS");
    // One handshake per attempt: not retried (the /health probe is one more).
    let failed = front.failed.load(Ordering::SeqCst);
    assert!((1..=2).contains(&failed), "{failed} failed handshakes");
}

#[test]
fn a_ca_cert_file_without_a_certificate_is_refused_before_any_episode() {
    let rt = runtime();
    let (server, front) = wifi_server(&rt);
    let dir = TestEnv::new("tls-bad-ca-cert");
    let bad = dir.write(
        "ca.pem",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    let store = dir.join("runs.sqlite");
    let o = run(
        &dir,
        &front.base_url,
        &store,
        &["--ca-cert", bad.to_str().unwrap()],
    )
    .code(exit::BAD_INPUT);
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "--ca-cert {}: holds no PEM certificate",
            bad.display()
        )),
        "{err}"
    );
    let missing = dir.join("nowhere.pem");
    let o = run(
        &dir,
        &front.base_url,
        &store,
        &["--ca-cert", missing.to_str().unwrap()],
    )
    .code(exit::BAD_INPUT);
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "--ca-cert {}: could not read it: ",
            missing.display()
        )),
        "{err}"
    );
    assert!(server.received().is_empty());
    let store = droidscore::store::Store::open_existing(&store).unwrap();
    assert!(store.runs().unwrap().is_empty(), "no run was started");
}
