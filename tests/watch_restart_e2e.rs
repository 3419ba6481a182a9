//! A watch survives a restart of the API server. This test stops the real
//! kube-apiserver process, so it is alone in its own test binary: cargo runs
//! test binaries one at a time, and nothing else talks to the cluster then.

mod common;
mod support;

use std::process::Command;
use std::time::Duration;

use support::{Background, Logged, Namespace, wait_until};

#[test]
fn a_watch_carries_on_after_the_api_server_restarts() {
    let ns = Namespace::new("watch-restart");
    ns.apply("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: app}]\n");
    wait_until("one replica", Duration::from_secs(60), || {
        ns.jsonpath("deploy/web", "{.status.availableReplicas}") == "1"
    });
    let mut watcher = Background::start(&["-n", &ns.name, "status", "deploy/web", "--watch"]);
    watcher.line("the first state", Duration::from_secs(30), |l| {
        l.contains("Deployment/web Converged Available 1/1")
    });
    // A sweep too, whose converged roots are kept as rows: a restarted API
    // server's watch cache starts at its own version, so each watch's older
    // one has expired (410 Gone), and the sweep lists its types again.
    let sweep = Logged::start(
        &format!("{}-sweep", ns.name),
        &["-n", &ns.name, "status", "--watch", "-v", "6"],
    );
    wait_until("the sweep's first state", Duration::from_secs(30), || {
        sweep
            .out()
            .contains("Deployment/web Converged Available 1/1")
    });
    let deployment_lists = |err: &str| {
        err.lines()
            .filter(|l| l.starts_with("GET ") && l.contains("/deployments?limit="))
            .count()
    };
    assert_eq!(deployment_lists(&sweep.err()), 1, "{}", sweep.err());

    // Down for 3 s at least: the watch says an outage once it has lasted
    // a tick (1 s), and a graceful stop can leave almost no gap.
    let restart = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cluster/restart-apiserver"
    ))
    .arg("3")
    .status()
    .unwrap();
    assert!(restart.success(), "the API server came back");
    assert_eq!(watcher.exited(), None, "the watch outlived the restart");

    ns.kubectl(&["scale", "deploy/web", "--replicas=2"]).ok();
    watcher.line(
        "the scale-up after the restart",
        Duration::from_secs(90),
        |l| l.contains("Deployment/web Converged Available 2/2"),
    );
    // The sweep listed the Deployments again after the 410 and follows the
    // row it settled anew: one Deployment, at its new scale.
    wait_until("the sweep's scale-up", Duration::from_secs(90), || {
        sweep
            .out()
            .contains("Deployment/web Converged Available 2/2")
    });
    assert!(
        deployment_lists(&sweep.err()) >= 2,
        "no list after the watch's version expired:\n{}",
        sweep.err()
    );
    let rows: Vec<String> = sweep
        .out()
        .lines()
        .filter(|l| l.contains("Deployment/"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or_default().to_string())
        .collect();
    assert!(
        rows.iter().all(|r| r.ends_with("/Deployment/web")),
        "{rows:?}"
    );
    // The outage was said while it lasted, and its end too.
    let lost = watcher
        .seen
        .iter()
        .position(|l| l.contains("connection to the API server lost"));
    let restored = watcher
        .seen
        .iter()
        .position(|l| l.contains("connection restored"));
    assert!(
        matches!((lost, restored), (Some(a), Some(b)) if a < b),
        "{:#?}",
        watcher.seen
    );
}
