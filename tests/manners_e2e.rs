//! kubectl's manners against the real control plane: `-v` request logging
//! with credentials masked, the connection flags CI jobs pass (no kubeconfig
//! at all), a wrong `--context`, and `wait --timeout 0`.

mod common;
mod support;

use common::run::Cmd;
use support::{Namespace, Run, cluster, reconcile};

/// The plugin with no kubeconfig anywhere: only flags.
fn bare(args: &[&str]) -> Run {
    Cmd::reconcile()
        .env_remove("KUBECONFIG")
        .env(
            "HOME",
            std::env::temp_dir().join("kubectl-reconcile-no-home"),
        )
        .env("NO_COLOR", "1")
        .env("KUBECACHEDIR", support::cache_dir())
        .args(args)
        .run()
}

/// The API server's URL and the PKI directory, from the admin kubeconfig.
fn server_and_pki() -> (String, std::path::PathBuf) {
    let kubeconfig = &cluster().kubeconfig;
    let text = std::fs::read_to_string(kubeconfig).unwrap();
    let server = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: "))
        .expect("a server line")
        .to_string();
    (server, kubeconfig.parent().unwrap().join("pki"))
}

#[test]
fn verbose_logs_each_request_and_masks_credentials() {
    let ns = Namespace::new("manners-v");
    let run = ns.reconcile(&["status", "-v", "6"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (server, _) = server_and_pki();
    let line = format!("GET {server}/api/v1/namespaces/{}/", ns.name);
    assert!(
        run.stderr.lines().any(|l| l.starts_with(&line)
            && l.contains(" 200 OK in ")
            && l.ends_with(" milliseconds")),
        "a kubectl-like request line: {}",
        run.stderr
    );
    assert!(!run.stdout.contains("GET "), "logs go to stderr only");
    assert!(!run.stderr.contains("Request Header"), "headers only at 8");

    let (server, pki) = server_and_pki();
    let ca = pki.join("ca.crt");
    let secret = "not-a-real-token-3f9a";
    let run = bare(&[
        "-s",
        &server,
        "--certificate-authority",
        ca.to_str().unwrap(),
        "--token",
        secret,
        "--as-uid",
        "1234",
        "--v=8",
        "status",
    ]);
    assert_eq!(run.code, 2, "a made-up token is refused: {}", run.stderr);
    assert!(
        run.stderr.contains(" 401 Unauthorized in "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("Request Header: \"Authorization: Bearer <masked>\""),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("Request Header: \"Impersonate-Uid: 1234\""),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains(secret),
        "the token never reaches the log: {}",
        run.stderr
    );
}

#[test]
fn connection_flags_without_a_kubeconfig() {
    let ns = Namespace::new("manners-conn");
    let (server, pki) = server_and_pki();
    let path = |f: &str| pki.join(f).to_str().unwrap().to_string();
    let (cert, key) = (path("viewer.crt"), path("viewer.key"));
    // `status` as the viewer, with these TLS flags before and these flags
    // after it.
    let status_as_viewer = |tls: &[&str], more: &[&str]| {
        let mut args = vec!["-s", server.as_str()];
        args.extend_from_slice(tls);
        args.extend([
            "--client-certificate",
            &cert,
            "--client-key",
            &key,
            "-n",
            &ns.name,
            "status",
        ]);
        args.extend_from_slice(more);
        bare(&args)
    };
    let run = status_as_viewer(
        &["--certificate-authority", &path("ca.crt")],
        &["-o", "json"],
    );
    // The viewer may not list every type (custom resources outside the
    // `view` role, installed by other tests): an empty namespace's sweep
    // is exit 0 when it read everything, and exit 1, naming each gap, when
    // it did not.
    let gaps = run.json()["incomplete"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        run.code,
        u8::from(!gaps.is_empty()) as i32,
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(
        gaps.iter()
            .all(|g| g["resource"].is_string() && g["error"] == "forbidden"),
        "{gaps:?}"
    );
    assert_eq!(run.json()["kind"], "StatusReport");
    // Without the CA the server's certificate is not trusted, unless told
    // not to check.
    let run = status_as_viewer(&[], &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("UnknownIssuer"), "{}", run.stderr);
    assert!(
        run.stderr.contains("TLS handshake") && !run.stderr.contains("cannot reach"),
        "a TLS failure is not an unreachable server: {}",
        run.stderr
    );
    let run = status_as_viewer(&["--insecure-skip-tls-verify"], &[]);
    assert_ne!(run.code, 2, "connected and answered: {}", run.stderr);
    // The name the certificate is checked against.
    let run = status_as_viewer(
        &[
            "--certificate-authority",
            &path("ca.crt"),
            "--tls-server-name",
            "kubernetes.default.svc",
        ],
        &[],
    );
    assert_ne!(run.code, 2, "connected and answered: {}", run.stderr);
    let run = status_as_viewer(
        &[
            "--certificate-authority",
            &path("ca.crt"),
            "--tls-server-name",
            "elsewhere.example",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("elsewhere.example"), "{}", run.stderr);
}

#[test]
fn a_wrong_context_names_the_known_ones() {
    let run = reconcile(&["--context", "nope", "status"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: context nope does not exist in the kubeconfig\nhint: known contexts: reconcile-test-admin\n"
    );
    let run = reconcile(&["--kubeconfig", "/no/such/kubeconfig", "status"]);
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        "error: cannot read the kubeconfig /no/such/kubeconfig: No such file or directory (os error 2)",
        "the path once, without Debug quotes"
    );
}

#[test]
fn wait_with_a_zero_timeout_checks_once() {
    let ns = Namespace::new("manners-wait0");
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settled\n");
    let started = std::time::Instant::now();
    let run = ns.reconcile(&["wait", "configmap/settled", "--timeout", "0"]);
    assert_eq!(run.code, 0, "already converged: {}", run.stderr);
    let run = ns.reconcile(&["wait", "pod/never-made", "--timeout", "0"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "0 does not wait"
    );
}
