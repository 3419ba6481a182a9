//! Captures on the real control plane: `why --capture` writes what the
//! answer read, and `--snapshot` over that file replays the same answer,
//! document for document and exit code for exit code, over the failures
//! the suite builds (an image that cannot be pulled, a crash loop, a
//! creation a quota refuses, a custom resource that says it failed, a
//! sweep by a user who may read only part of the namespace). Every
//! capture is searched for the markers planted in Secret data, env values
//! and the last-applied annotation, and none is found.

mod common;
mod support;

use std::time::Duration;

use support::{Namespace, kubectl, wait_until};

/// What no capture may hold: planted in a Secret's data, a literal env
/// value, and (through `kubectl apply`) the last-applied annotation.
const MARKER: &str = "capture-marker-7f3a";

fn planted(name: &str, failure: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Secret
metadata: {{name: {name}-secret}}
stringData: {{password: {MARKER}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata:
      labels: {{app: {name}, reconcile.test/failure: {failure}}}
    spec:
      containers:
      - name: app
        image: registry.example.com/{name}:1
        env:
        - {{name: PASSWORD, value: {MARKER}}}
        - {{name: FROM_SECRET, valueFrom: {{secretKeyRef: {{name: {name}-secret, key: password}}}}}}
"#
    )
}

/// [`support::replays_the_same`], and no marker in the capture.
fn replays_the_same(ns: &Namespace, as_user: &[&str], args: &[&str]) -> String {
    let capture = support::replays_the_same(ns, as_user, args);
    assert!(
        !capture.contains(MARKER),
        "a marker leaked into the capture:\n{capture}"
    );
    capture
}

#[test]
fn image_pull_and_crash_loop_replay_as_they_were_read() {
    let ns = Namespace::new("capture-pods");
    ns.apply(&planted("pull", "image-pull-backoff"));
    ns.apply(&planted("crash", "crash-loop"));
    wait_until("both failures", Duration::from_secs(60), || {
        let reasons = ns.jsonpath(
            "pods",
            "{.items[*].status.containerStatuses[*].state.waiting.reason}",
        );
        reasons.contains("ImagePullBackOff") && reasons.contains("CrashLoopBackOff")
    });
    let capture = replays_the_same(&ns, &[], &["deploy/pull"]);
    assert!(
        capture.contains("kind: Capture") && capture.contains("PASSWORD"),
        "{capture}"
    );
    replays_the_same(&ns, &[], &["deploy/crash"]);
    // The CI artefact: a failed wait leaves the capture of its diagnosis,
    // whose replay says what the wait said.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wait.yaml");
    let file = file.to_str().unwrap();
    let wait = ns.reconcile(&[
        "wait",
        "deploy/pull",
        "--fail-fast",
        "--timeout",
        "30s",
        "--capture",
        file,
    ]);
    assert_eq!(wait.code, 1, "{}\n{}", wait.stdout, wait.stderr);
    let replay = support::reconcile(&["--snapshot", file, "-n", &ns.name, "why", "deploy/pull"]);
    assert_eq!(replay.code, 1, "{}", replay.stderr);
    assert!(
        replay.stdout.contains("ImagePullBackOff"),
        "{}",
        replay.stdout
    );
    let kept = std::fs::read_to_string(file).unwrap();
    assert!(
        kept.contains("command: kubectl reconcile -n") && !kept.contains(MARKER),
        "{kept}"
    );
    // The namespace's sweep, and what it read as metadata only.
    replays_the_same(&ns, &[], &[]);
}

#[test]
fn a_quota_refusal_and_a_failed_custom_resource_replay_as_they_were_read() {
    // A kind of its own: the cluster is shared, and another test's `gadget`
    // must not become ambiguous.
    support::install_crd(
        "contraptions",
        "Contraption",
        "capture.reconcile.test",
        "",
        "",
    );
    let ns = Namespace::new("capture-refused");
    ns.apply("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: no-pods}\nspec: {hard: {pods: \"0\"}}\n");
    ns.apply(&support::deployment("web", 1, "", "", "", ""));
    wait_until("the refused creation", Duration::from_secs(60), || {
        ns.kubectl(&["get", "events", "-o", "jsonpath={.items[*].reason}"])
            .ok()
            .stdout
            .contains("FailedCreate")
    });
    replays_the_same(&ns, &[], &["deploy/web"]);
    ns.apply("apiVersion: capture.reconcile.test/v1\nkind: Contraption\nmetadata: {name: g}\nspec: {size: 1}\n");
    ns.kubectl(&[
        "patch",
        "contraption.capture.reconcile.test/g",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[{"type":"Ready","status":"False","reason":"ReconcileError","message":"cannot reach the backend","lastTransitionTime":"2026-12-01T00:00:00Z"}]}}"#,
    ])
    .ok();
    let capture = replays_the_same(&ns, &[], &["contraption/g"]);
    assert!(
        capture.contains("plural: contraptions"),
        "the kind's facts are kept:\n{capture}"
    );
}

#[test]
fn a_partial_sweep_replays_as_partial() {
    let ns = Namespace::new("capture-partial");
    ns.apply(&support::deployment(
        "web",
        1,
        "",
        ", reconcile.test/failure: image-pull-backoff",
        "",
        "",
    ));
    kubectl(&[
        "create",
        "rolebinding",
        "viewer",
        "--clusterrole=view",
        "--user=capture-viewer",
        "-n",
        &ns.name,
    ])
    .ok();
    wait_until("the failing pod", Duration::from_secs(60), || {
        ns.jsonpath(
            "pods",
            "{.items[*].status.containerStatuses[*].state.waiting.reason}",
        )
        .contains("ImagePullBackOff")
    });
    let capture = replays_the_same(&ns, &["--as", "capture-viewer"], &[]);
    assert!(
        capture.contains("error: forbidden"),
        "the gaps are in the header:\n{}",
        &capture[..capture.len().min(2000)]
    );
}

/// A directory `kubectl cluster-info dump` wrote is a snapshot too, and
/// the kinds such a dump lacks are named: never an all-clear.
#[test]
fn a_cluster_info_dump_is_read_and_says_what_it_lacks() {
    let ns = Namespace::new("capture-dump");
    ns.apply(&support::deployment("web", 2, "", "", "", ""));
    wait_until("the rollout", Duration::from_secs(60), || {
        support::rolled_out(&ns, "web", 2)
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    kubectl(&[
        "cluster-info",
        "dump",
        "--namespaces",
        &ns.name,
        "--output-directory",
        out,
    ])
    .ok();
    let status = support::reconcile(&["--snapshot", out, "-n", &ns.name, "status"]);
    assert!(
        status.stdout.contains("Deployment/web") && status.stdout.contains("Converged"),
        "{}\n{}",
        status.stdout,
        status.stderr
    );
    assert!(
        status.stdout.contains("not in a kubectl cluster-info dump"),
        "{}",
        status.stdout
    );
    assert!(
        status.stdout.contains("statefulsets.apps"),
        "{}",
        status.stdout
    );
    assert_eq!(
        status.code, 1,
        "a partial sweep is no all-clear:\n{}",
        status.stdout
    );
}

/// The verdict, reason and root cause of each item of a `why` document.
fn judgements(doc: &serde_json::Value) -> Vec<(String, String, String, String)> {
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            (
                s(&i["object"]["kind"]),
                s(&i["verdict"]),
                s(&i["reason"]),
                s(&i["rootCause"]["reason"]),
            )
        })
        .collect()
}

#[test]
fn an_anonymized_capture_holds_no_name_and_replays_the_same_verdicts() {
    let ns = Namespace::new("capture-anon");
    ns.apply(&planted("checkout", "crash-loop"));
    wait_until("the crash loop", Duration::from_secs(60), || {
        ns.jsonpath(
            "pods",
            "{.items[*].status.containerStatuses[*].state.waiting.reason}",
        )
        .contains("CrashLoopBackOff")
    });
    let pod = ns.jsonpath("pods", "{.items[0].metadata.name}");
    let node = ns.jsonpath("pods", "{.items[0].spec.nodeName}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("anon.yaml");
    let file = file.to_str().unwrap();
    let live = ns.reconcile(&["why", "--capture", file, "--anonymize", "-o", "json"]);
    assert_eq!(live.code, 1, "{}\n{}", live.stdout, live.stderr);
    let capture = std::fs::read_to_string(file).unwrap();
    for name in [
        ns.name.as_str(),
        "checkout",
        pod.trim(),
        node.trim(),
        MARKER,
    ] {
        assert!(
            !capture.contains(name),
            "{name} left in the anonymized capture:\n{capture}"
        );
    }
    // Replayed under the pseudonyms: the same verdicts, reasons, causes
    // and exit status, the names the pseudonyms the capture gives.
    let header: serde_json::Value = serde_yaml_ng::from_str(
        capture
            .split("\n---\n")
            .next()
            .unwrap()
            .trim_start_matches("---\n"),
    )
    .unwrap();
    let command = header["command"].as_str().unwrap();
    let pseudonym = command
        .split_whitespace()
        .skip_while(|w| *w != "-n")
        .nth(1)
        .unwrap();
    assert!(pseudonym.starts_with("ns-"), "{command}");
    let replay = support::reconcile(&["--snapshot", file, "-n", pseudonym, "why", "-o", "json"]);
    assert_eq!(replay.code, live.code, "{}", replay.stderr);
    assert_eq!(judgements(&replay.json()), judgements(&live.json()));
    assert!(replay.stdout.contains("deployment-1"), "{}", replay.stdout);
}
