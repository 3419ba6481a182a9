//! An aggregated API whose server does not answer (an APIService whose
//! Service does not exist) is named in `incomplete` with the API server's
//! own reason, as kubectl warns "unable to retrieve the complete list of
//! server APIs". Its own test binary: while the broken APIService exists,
//! every other answer on the cluster is partial too.

mod common;
mod support;

use std::time::Duration;

use support::{Namespace, cluster, kubectl_as, wait_until};

struct ApiService(String);

impl Drop for ApiService {
    fn drop(&mut self) {
        let _ = support::kubectl(&["delete", "apiservice", &self.0, "--wait=false"]);
    }
}

#[test]
fn a_broken_aggregated_api_is_named_with_its_reason() {
    let ns = Namespace::new("aggregated");
    ns.apply(&support::deployment("web", 1, "", "", "", ""));
    wait_until("rollout", Duration::from_secs(60), || {
        support::rolled_out(&ns, "web", 1)
    });
    let group = format!("broken{}.example.org", std::process::id());
    let manifest = format!(
        "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {{name: v1beta1.{group}}}\n\
         spec: {{group: {group}, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100,\n\
         insecureSkipTLSVerify: true, service: {{name: nothing-here, namespace: {}, port: 443}}}}\n",
        ns.name
    );
    kubectl_as(
        &cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&manifest),
    )
    .ok();
    let _guard = ApiService(format!("v1beta1.{group}"));
    let mut last = String::new();
    wait_until(
        "the stale group in incomplete",
        Duration::from_secs(60),
        || {
            let run = ns.reconcile(&["status", "deploy/web", "-o", "json"]);
            last = format!("{}\n{}", run.stdout, run.stderr);
            run.stdout.contains(&format!("API group {group}/v1beta1"))
        },
    );
    let run = ns.reconcile(&["status", "deploy/web", "-o", "json"]);
    let doc = run.json();
    let gap = doc["incomplete"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["resource"] == format!("API group {group}/v1beta1"))
        .unwrap_or_else(|| panic!("{last}"));
    let error = gap["error"].as_str().unwrap();
    assert!(
        error.contains("unable to retrieve the complete list of server APIs"),
        "{error}"
    );
    assert!(
        error.contains("ServiceNotFound"),
        "the server's reason is kept: {error}"
    );
    // The target itself is still judged.
    assert_eq!(doc["items"][0]["verdict"], "Converged", "{doc}");
}
