//! How many TCP connections `--watch` opens on the real control plane, in
//! a cluster with a hundred more custom resource types (about 150 watches):
//! one per 48 watches, each opened and confirmed before its watches start,
//! not one per request racing to a connection not yet up (42 with 110
//! watches before). Counted from the `connect` calls strace sees. A test
//! binary of its own: the extra types are removed at the end, and no other
//! test runs beside them.

mod common;
mod support;

use std::process::Command;
use std::time::Duration;

use support::{Namespace, cluster, kubectl, kubectl_as, wait_until};

const TYPES: usize = 100;

/// The custom resource types, removed when dropped.
struct Types;

impl Drop for Types {
    fn drop(&mut self) {
        let _ = kubectl(&[
            "delete",
            "crd",
            "-l",
            "reconcile.test/connections",
            "--wait=false",
        ]);
    }
}

fn install_types() -> Types {
    let mut manifest = String::new();
    for i in 0..TYPES {
        manifest.push_str(&format!(
            "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: conn{i}s.connections.reconcile.test, labels: {{reconcile.test/connections: \"1\"}}}}\nspec:\n  group: connections.reconcile.test\n  names: {{plural: conn{i}s, singular: conn{i}, kind: Conn{i}}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    subresources: {{status: {{}}}}\n    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n"
        ));
    }
    kubectl_as(
        &cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&manifest),
    )
    .ok();
    let last = format!("conn{}s.connections.reconcile.test", TYPES - 1);
    wait_until("the types served", Duration::from_secs(60), || {
        kubectl(&["get", &last, "-A"]).code == 0
    });
    Types
}

#[test]
fn a_watch_opens_one_connection_per_48_watches() {
    let found = Command::new("sh")
        .args(["-c", "command -v strace"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`strace` is not installed: install it (apt-get install strace), or run tests/install-tools"
    );
    let _types = install_types();
    let ns = Namespace::new("connections");
    ns.apply(&support::deployment("web", 1, "", "", "", ""));
    let port = support::server_authority(&cluster().kubeconfig)
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let trace = tempfile::NamedTempFile::new().unwrap();
    // Eight seconds of `status --watch`, then Ctrl-C.
    let out = Command::new("timeout")
        .args([
            "-s",
            "INT",
            "8",
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=connect",
            "-o",
        ])
        .arg(trace.path())
        .arg(common::run::bin())
        .args(["-n", &ns.name, "status", "--watch", "-v", "6"])
        .env("KUBECONFIG", &cluster().kubeconfig)
        .env("KUBECACHEDIR", support::cache_dir())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("Deployment/web"), "{stdout}\n{stderr}");
    let watches = stderr.matches("watch=1").count();
    assert!(watches > TYPES, "{watches} watches opened:\n{stderr}");
    let calls = std::fs::read_to_string(trace.path()).unwrap();
    let connections = calls
        .lines()
        .filter(|l| l.contains("connect(") && l.contains(&format!("htons({port})")))
        .count();
    // Watches are opened again when the server ends them: distinct reads.
    let reads: std::collections::BTreeSet<&str> = stderr
        .lines()
        .filter(|l| l.contains("watch=1"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|url| url.split('?').next().unwrap_or(url))
        .collect();
    let bound = reads.len().div_ceil(48) + 1;
    eprintln!(
        "{connections} connections for {} watched reads",
        reads.len()
    );
    assert!(
        (1..=bound).contains(&connections),
        "{connections} connections for {} watched reads (bound {bound})",
        reads.len()
    );
}
