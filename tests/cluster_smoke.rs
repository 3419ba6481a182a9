//! Smoke tests that prove the test control plane is real: real controllers
//! reconcile, RBAC holds, the audit log records requests, and every failure
//! that the other tests rely on can be produced on demand.

mod common;
mod support;

use std::time::Duration;

use support::{Namespace, audit_events, cluster, kubectl, kubectl_as, wait_until};

const WEB: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27"}]
"#;

/// Pods of `selector` that are Running with Ready=True.
fn ready_pods(ns: &Namespace, selector: &str) -> Vec<String> {
    let out = ns.kubectl(&["get", "pods", "-l", selector, "-o",
        r#"jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}"#]).ok();
    out.stdout
        .lines()
        .filter(|l| l.ends_with(" True"))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_deployment_becomes_ready_and_a_deleted_pod_is_replaced() {
    let ns = Namespace::new("smoke-web");
    ns.apply(WEB);
    wait_until("3 ready pods", Duration::from_secs(60), || {
        ready_pods(&ns, "app=web").len() == 3
    });
    wait_until("deployment available", Duration::from_secs(30), || {
        ns.jsonpath("deploy/web", "{.status.availableReplicas}") == "3"
    });

    let before = ready_pods(&ns, "app=web");
    ns.kubectl(&["delete", "pod", &before[0], "--wait=false"])
        .ok();
    wait_until("a replacement pod", Duration::from_secs(60), || {
        let now = ready_pods(&ns, "app=web");
        now.len() == 3 && !now.contains(&before[0])
    });
    // The replacement was created by the ReplicaSet controller.
    let events = ns
        .kubectl(&[
            "get",
            "events",
            "--field-selector",
            "reason=SuccessfulCreate",
            "-o",
            "jsonpath={.items[*].message}",
        ])
        .ok();
    assert!(
        events.stdout.matches("Created pod").count() >= 4,
        "{}",
        events.stdout
    );
}

#[test]
fn the_view_user_reads_but_cannot_write_and_the_audit_log_says_so() {
    let ns = Namespace::new("smoke-view");
    ns.apply(WEB);
    let view = &cluster().view_kubeconfig;
    kubectl_as(view, &["get", "pods", "-n", &ns.name], None).ok();
    let can = kubectl_as(
        view,
        &["auth", "can-i", "create", "pods", "-n", &ns.name],
        None,
    );
    assert_eq!(can.stdout.trim(), "no", "stderr: {}", can.stderr);
    let secrets = kubectl_as(view, &["get", "secrets", "-n", &ns.name], None);
    assert_ne!(secrets.code, 0);
    assert!(secrets.stderr.contains("forbidden"), "{}", secrets.stderr);

    let mine = |e: &serde_json::Value| e["objectRef"]["namespace"] == ns.name.as_str();
    wait_until("audit entries", Duration::from_secs(10), || {
        let events = audit_events(mine);
        let seen = |user: &str, verb: &str, resource: &str| {
            events.iter().any(|e| {
                e["user"]["username"] == user
                    && e["verb"] == verb
                    && e["objectRef"]["resource"] == resource
                    && e["userAgent"]
                        .as_str()
                        .is_some_and(|ua| ua.starts_with("kubectl"))
            })
        };
        seen("kubectl-reconcile-viewer", "list", "pods")
            && seen("kubectl-reconcile-viewer", "list", "secrets")
            && seen("kubectl-reconcile-admin", "create", "deployments")
    });
    let denied = audit_events(|e| mine(e) && e["objectRef"]["resource"] == "secrets");
    assert!(
        denied.iter().any(|e| e["responseStatus"]["code"] == 403),
        "the forbidden list is audited with its 403"
    );
}

#[test]
fn the_rust_client_accepts_the_generated_certificates() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let kubeconfig = kube::config::Kubeconfig::read_from(&cluster().kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let version = client
            .apiserver_version()
            .await
            .expect("TLS handshake and client certificate accepted");
        assert_eq!(
            version.git_version, "v1.36.3",
            "the API server reports the real release"
        );
        let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(client);
        assert_eq!(
            nodes.list(&Default::default()).await.unwrap().items.len(),
            2
        );
    });
}

fn pod_with_failure(name: &str, mode: &str, annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{reconcile.test/failure: {mode}}}\n  annotations: {{{annotations}}}\nspec:\n  containers: [{{name: app, image: \"registry.example/app:1\"}}]\n"
    )
}

fn container_state(ns: &Namespace, pod: &str) -> serde_json::Value {
    let out = ns.kubectl(&["get", "pod", pod, "-o", "json"]).ok();
    out.json()["status"]["containerStatuses"][0].clone()
}

#[test]
fn kwok_stages_play_kubelet_failures_on_demand() {
    let ns = Namespace::new("smoke-stages");
    ns.apply(&pod_with_failure("pull", "image-pull-backoff", ""));
    ns.apply(&pod_with_failure(
        "crash",
        "crash-loop",
        "reconcile.test/reason: OOMKilled, reconcile.test/exit-code: \"137\"",
    ));
    ns.apply(&pod_with_failure("unready", "never-ready", ""));

    wait_until("ImagePullBackOff", Duration::from_secs(30), || {
        container_state(&ns, "pull")["state"]["waiting"]["reason"] == "ImagePullBackOff"
    });
    wait_until("a climbing restart count", Duration::from_secs(60), || {
        let c = container_state(&ns, "crash");
        c["state"]["waiting"]["reason"] == "CrashLoopBackOff"
            && c["restartCount"].as_i64().unwrap_or(0) >= 3
    });
    let crash = container_state(&ns, "crash");
    assert_eq!(crash["lastState"]["terminated"]["reason"], "OOMKilled");
    assert_eq!(crash["lastState"]["terminated"]["exitCode"], 137);
    wait_until("running but not ready", Duration::from_secs(30), || {
        ns.jsonpath("pod/unready", "{.status.phase}") == "Running"
            && ns.jsonpath(
                "pod/unready",
                r#"{.status.conditions[?(@.type=="Ready")].status}"#,
            ) == "False"
    });
    let unhealthy = ns
        .kubectl(&[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=unready",
            "-o",
            "jsonpath={.items[*].reason}",
        ])
        .ok();
    assert!(
        unhealthy.stdout.contains("Unhealthy"),
        "{}",
        unhealthy.stdout
    );

    ns.apply(
        r#"
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  backoffLimit: 1
  template:
    metadata: {labels: {reconcile.test/failure: job-fail}}
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: "registry.example/migrate:1"}]
"#,
    );
    wait_until("a failed Job", Duration::from_secs(60), || {
        ns.jsonpath(
            "job/migrate",
            r#"{.status.conditions[?(@.type=="Failed")].reason}"#,
        ) == "BackoffLimitExceeded"
    });
}

#[test]
fn real_controllers_produce_real_failures() {
    let ns = Namespace::new("smoke-controllers");
    // Unschedulable: no node has 500 CPUs.
    ns.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: huge}\nspec:\n  containers: [{name: app, image: app, resources: {requests: {cpu: \"500\"}}}]\n");
    wait_until("FailedScheduling", Duration::from_secs(30), || {
        ns.jsonpath(
            "pod/huge",
            r#"{.status.conditions[?(@.type=="PodScheduled")].reason}"#,
        ) == "Unschedulable"
    });

    // Quota exceeded: the ReplicaSet controller cannot create its pods.
    ns.apply("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods}\nspec: {hard: {pods: \"2\"}}\n");
    wait_until("quota status", Duration::from_secs(30), || {
        ns.jsonpath("quota/pods", "{.status.hard.pods}") == "2"
    });
    ns.apply(
        &WEB.replace("name: web}", "name: quota}")
            .replace("app: web", "app: quota"),
    );
    wait_until("FailedCreate for quota", Duration::from_secs(60), || {
        let ev = ns
            .kubectl(&[
                "get",
                "events",
                "--field-selector",
                "reason=FailedCreate",
                "-o",
                "jsonpath={.items[*].message}",
            ])
            .ok();
        ev.stdout.contains("exceeded quota")
    });

    // Deletion blocked by a finalizer.
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/cleanup]}\n");
    ns.kubectl(&["delete", "configmap", "held", "--wait=false"])
        .ok();
    let deleting = ns.jsonpath("configmap/held", "{.metadata.deletionTimestamp}");
    assert!(
        !deleting.is_empty(),
        "the ConfigMap is still there, being deleted"
    );
    ns.kubectl(&[
        "patch",
        "configmap",
        "held",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .ok();
}

#[test]
fn a_short_progress_deadline_is_exceeded() {
    let ns = Namespace::new("smoke-deadline");
    ns.apply(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: slow}
spec:
  replicas: 2
  progressDeadlineSeconds: 5
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow, reconcile.test/failure: never-ready}}
    spec:
      containers: [{name: app, image: "registry.example/app:1"}]
"#,
    );
    wait_until("ProgressDeadlineExceeded", Duration::from_secs(60), || {
        ns.jsonpath(
            "deploy/slow",
            r#"{.status.conditions[?(@.type=="Progressing")].reason}"#,
        ) == "ProgressDeadlineExceeded"
    });
    // The cluster-wide objects are still fine.
    assert_eq!(
        kubectl(&["get", "nodes", "-o", "name"])
            .ok()
            .stdout
            .lines()
            .count(),
        2
    );
}
