//! End-to-end: a stopped kube-controller-manager. It is stopped for real
//! (tests/cluster/controller-manager), so this test has a binary of its own:
//! no other test runs beside it while the controllers are down.

mod common;
mod support;

use std::process::Command;
use std::time::Duration;

use support::{Namespace, wait_until};

/// Runs tests/cluster/controller-manager; `start` again when dropped, so a
/// failed assertion does not leave the cluster without controllers. One
/// test at a time stops it.
struct Stopped(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        controller_manager("stop");
        Stopped(turn)
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

/// A DaemonSet created while kube-controller-manager is stopped holds the
/// zero counts the API server defaults and no observedGeneration: never
/// written. It is waiting for 60 s, then Failed naming the controller's
/// Lease, never Converged; `wait` does not pass it. Started again, the
/// controller writes it and it converges.
#[test]
fn a_daemonset_its_controller_never_wrote_is_not_converged() {
    let ns = Namespace::new("cp-ds");
    let stopped = Stopped::new();
    let created = std::time::Instant::now();
    ns.apply(
        r#"
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "registry.example.com/agent:1"}]
"#,
    );
    let status = |ns: &Namespace| {
        let run = ns.reconcile(&["status", "ds/agent", "-o", "json"]);
        (run.code, run.json()["items"][0].clone())
    };
    let (code, item) = status(&ns);
    assert_eq!(code, 1, "{item:#}");
    assert_eq!(
        (item["verdict"].as_str(), item["reason"].as_str()),
        (Some("Progressing"), Some("WaitingForController")),
        "{item:#}"
    );
    let wait = ns.reconcile(&["wait", "ds/agent", "--timeout", "5s"]);
    assert_eq!(wait.code, 1, "{}", wait.stdout);
    // Past the 60 s grace: Failed, naming kube-controller-manager's Lease.
    let mut last = serde_json::Value::Null;
    wait_until("the DaemonSet Failed", Duration::from_secs(120), || {
        last = status(&ns).1;
        last["verdict"] == "Failed"
    });
    // Creation times are to the second: the grace is 60 s of them.
    assert!(
        created.elapsed() >= Duration::from_secs(58),
        "{:?}",
        created.elapsed()
    );
    assert_eq!(last["reason"], "ControllerDown", "{last:#}");
    let message = last["message"].as_str().unwrap();
    assert!(
        message.contains("kube-controller-manager never wrote it")
            && message.contains("lease kube-system/kube-controller-manager last renewed"),
        "{message}"
    );
    // Started again, it writes the status and the DaemonSet converges.
    drop(stopped);
    wait_until("the DaemonSet converged", Duration::from_secs(120), || {
        status(&ns).0 == 0
    });
}
