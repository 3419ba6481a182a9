//! End-to-end: a stopped kube-controller-manager. It is stopped for real
//! (tests/cluster/controller-manager), so this test has a binary of its own:
//! no other test runs beside it while the controllers are down.

mod common;
mod support;

use std::process::Command;
use std::time::Duration;

use support::{Namespace, wait_until};

/// Runs tests/cluster/controller-manager; `start` again when dropped, so a
/// failed assertion does not leave the cluster without controllers.
struct Stopped;

fn controller_manager(action: &str) {
    let status = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cluster/controller-manager"
    ))
    .arg(action)
    .status()
    .unwrap();
    assert!(status.success(), "controller-manager {action}");
}

impl Stopped {
    fn new() -> Stopped {
        controller_manager("stop");
        Stopped
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        controller_manager("start");
    }
}

#[test]
fn a_deployment_change_while_the_controller_manager_is_down_names_it() {
    let ns = Namespace::new("cp-kcm");
    ns.apply(&support::deployment("web", 1, "", "", "", ""));
    support::wait_rolled_out(&ns, "web", 1);
    let stopped = Stopped::new();
    ns.kubectl(&["scale", "deploy/web", "--replicas=2"]).ok();
    // The lease expires after its 15 s; the lag is looked into after 30 s.
    let mut last = serde_json::Value::Null;
    wait_until(
        "the controller manager named",
        Duration::from_secs(120),
        || {
            let run = ns.reconcile(&["why", "deploy/web", "-o", "json"]);
            last = run.json()["items"][0].clone();
            last["rootCause"]["reason"] == "ControllerDown"
        },
    );
    let cause = &last["rootCause"]["objects"][0];
    assert_eq!(
        (
            cause["kind"].as_str(),
            cause["namespace"].as_str(),
            cause["name"].as_str()
        ),
        (
            Some("Lease"),
            Some("kube-system"),
            Some("kube-controller-manager")
        )
    );
    assert_eq!(last["controller"]["expired"], true, "{last:#}");
    let step = last["nextSteps"][0]["text"].as_str().unwrap();
    assert!(
        step.starts_with("kube-controller-manager is not running"),
        "{step}"
    );
    assert!(
        step.contains("control-plane outage, not a fault of this object"),
        "{step}"
    );
    let text = ns.reconcile(&["why", "deploy/web"]);
    assert!(
        text.stdout
            .contains("[reconciled-by] Lease/kube-controller-manager"),
        "{}",
        text.stdout
    );

    // Started again, it takes the lease over and the rollout goes on.
    drop(stopped);
    wait_until(
        "the scale-up after the restart",
        Duration::from_secs(120),
        || support::rolled_out(&ns, "web", 2),
    );
    let after = ns.reconcile(&["why", "deploy/web", "-o", "json"]);
    assert_eq!(after.code, 0, "{}", after.stdout);
}
