//! End-to-end tests of `why` on the real control plane: each test creates
//! the situation for real, with real controllers, then asserts the
//! diagnosis and the exit status.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Namespace, wait_until, why_until};

fn deployment(
    name: &str,
    replicas: u32,
    pod_labels: &str,
    pod_annotations: &str,
    resources: &str,
) -> String {
    support::deployment(
        name,
        replicas,
        "\n  progressDeadlineSeconds: 10",
        pod_labels,
        pod_annotations,
        resources,
    )
}

fn root_reason(item: &Value) -> &str {
    item["rootCause"]["reason"].as_str().unwrap_or("")
}

#[test]
fn image_pull_back_off_and_an_exceeded_deadline() {
    let ns = Namespace::new("why-pull");
    ns.apply(&deployment(
        "web",
        2,
        ", reconcile.test/failure: image-pull-backoff",
        "",
        "",
    ));
    let (code, doc) = why_until(&ns, "deploy/web", "deadline exceeded", |i| {
        i["reason"] == "ProgressDeadlineExceeded"
    });
    assert_eq!(code, 1);
    assert_eq!(doc["kind"], "WhyReport");
    let item = &doc["items"][0];
    assert_eq!(item["verdict"], "Failed");
    assert_eq!(root_reason(item), "ImagePullBackOff");
    assert_eq!(
        item["rootCause"]["count"], 2,
        "two pods, one cause: {item:#}"
    );
    let path: Vec<&str> = item["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["object"]["kind"].as_str().unwrap_or("container"))
        .collect();
    assert_eq!(path, vec!["Deployment", "ReplicaSet", "Pod", "container"]);
    assert!(
        item["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Progressing" && c["abnormal"] == true)
    );
    assert!(
        item["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "Warning"
                && e["message"].as_str().unwrap().contains("ImagePullBackOff"))
    );
    assert_eq!(item["generationCheck"]["observed"], true);
    assert!(
        item["generationCheck"]["specChanged"]["manager"]
            .as_str()
            .unwrap()
            .starts_with("kubectl"),
        "{item:#}"
    );
    assert!(
        item["nextSteps"][0]["text"]
            .as_str()
            .unwrap()
            .contains("image cannot be pulled")
    );

    let text = ns.reconcile(&["why", "deploy/web"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stdout.contains("Root cause: Pod ImagePullBackOff (x2"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("spec last changed") && text.stdout.contains("status last written"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_crash_loop_names_the_last_termination() {
    let ns = Namespace::new("why-crash");
    ns.apply(&deployment(
        "api",
        1,
        ", reconcile.test/failure: crash-loop",
        r#"reconcile.test/reason: OOMKilled, reconcile.test/exit-code: "137""#,
        "",
    ));
    let (code, doc) = why_until(&ns, "deploy/api", "crash loop", |i| {
        root_reason(i) == "CrashLoopBackOff"
    });
    assert_eq!(code, 1);
    let chain = doc["items"][0]["chain"].as_array().unwrap();
    let container = chain.last().unwrap();
    assert_eq!(container["container"], "app");
    assert!(
        container["message"]
            .as_str()
            .unwrap()
            .contains("OOMKilled, exit code 137"),
        "{container:#}"
    );
    assert!(
        doc["items"][0]["nextSteps"][0]["text"]
            .as_str()
            .unwrap()
            .contains("OOMKilled")
    );
}

#[test]
fn unschedulable_pods_quote_the_scheduler() {
    let ns = Namespace::new("why-sched");
    ns.apply(&deployment("big", 1, "", "", r#"requests: {cpu: "500"}"#));
    let (code, doc) = why_until(&ns, "deploy/big", "unschedulable", |i| {
        root_reason(i) == "Unschedulable"
    });
    assert_eq!(code, 1);
    let message = doc["items"][0]["rootCause"]["message"].as_str().unwrap();
    assert!(message.contains("Insufficient cpu"), "{message}");
}

#[test]
fn a_quota_that_rejects_pods() {
    let ns = Namespace::new("why-quota");
    ns.apply("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods}\nspec: {hard: {pods: \"1\"}}\n");
    wait_until("quota", Duration::from_secs(30), || {
        ns.jsonpath("quota/pods", "{.status.hard.pods}") == "1"
    });
    ns.apply(&deployment("web", 3, "", "", ""));
    let (code, doc) = why_until(&ns, "deploy/web", "FailedCreate", |i| {
        root_reason(i) == "FailedCreate"
    });
    assert_eq!(code, 1);
    let item = &doc["items"][0];
    assert_eq!(item["rootCause"]["objects"][0]["kind"], "ReplicaSet");
    assert!(
        item["rootCause"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeded quota"),
        "{item:#}"
    );
    assert!(
        item["nextSteps"][0]["commands"][0]
            .as_str()
            .unwrap()
            .contains("describe resourcequota")
    );
}

#[test]
fn a_deletion_blocked_by_a_finalizer_and_a_dangling_owner() {
    let ns = Namespace::new("why-final");
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: parent}\n");
    let parent_uid = ns.jsonpath("configmap/parent", "{.metadata.uid}");
    ns.apply(&format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child\n  finalizers: [example.com/cleanup]\n  ownerReferences: [{{apiVersion: v1, kind: ConfigMap, name: parent, uid: {parent_uid}}}]\n"
    ));
    // The parent goes; the garbage collector then deletes the child, whose
    // finalizer holds it.
    ns.kubectl(&["delete", "configmap", "parent", "--cascade=background"])
        .ok();
    let (code, doc) = why_until(&ns, "configmap/child", "child being deleted", |i| {
        i["verdict"] == "Terminating"
    });
    assert_eq!(code, 1);
    let item = &doc["items"][0];
    assert_eq!(item["reason"], "FinalizersPending");
    assert!(
        item["message"]
            .as_str()
            .unwrap()
            .contains("example.com/cleanup"),
        "{item:#}"
    );
    let findings = item["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["reason"] == "OwnerGone"
            && f["message"].as_str().unwrap().contains("ConfigMap/parent")),
        "{findings:#?}"
    );
    ns.kubectl(&[
        "patch",
        "configmap",
        "child",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .ok();
}

#[test]
fn a_custom_resource_that_no_controller_serves() {
    support::install_crd("gadgets", "Gadget", "why.reconcile.dev", "", "");
    let ns = Namespace::new("why-cr");
    ns.apply(
        "apiVersion: why.reconcile.dev/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {size: 1}\n",
    );
    let (code, doc) = why_until(&ns, "gadget/g1", "NoStatus", |i| i["reason"] == "NoStatus");
    assert_eq!(code, 1);
    let item = &doc["items"][0];
    assert_eq!(item["verdict"], "Unknown");
    assert!(
        item["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["reason"] == "NoStatusWriter"
                && f["message"]
                    .as_str()
                    .unwrap()
                    .contains("is the controller for Gadget (why.reconcile.dev) running?")),
        "{item:#}"
    );
    let text = ns.reconcile(&["why", "gadget/g1"]);
    assert!(
        text.stdout.contains("events expire after about an hour"),
        "no events is not health: {}",
        text.stdout
    );
    assert!(
        text.stdout.contains("Unknown (NoStatus)"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_bare_pod_and_why_without_a_target() {
    let ns = Namespace::new("why-roots");
    ns.apply(&deployment("healthy", 1, "", "", ""));
    ns.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: lonely, labels: {reconcile.test/failure: crash-loop}}\nspec:\n  containers: [{name: app, image: app}]\n");
    ns.apply("apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  backoffLimit: 0\n  template:\n    metadata: {labels: {reconcile.test/failure: job-fail}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: m}]\n");
    wait_until("healthy is available", Duration::from_secs(60), || {
        ns.jsonpath("deploy/healthy", "{.status.availableReplicas}") == "1"
    });
    let (code, pod) = why_until(&ns, "pod/lonely", "crash loop", |i| {
        root_reason(i) == "CrashLoopBackOff"
    });
    assert_eq!(code, 1);
    assert!(
        pod["items"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["reason"] == "BarePod")
    );

    wait_until("the job fails", Duration::from_secs(60), || {
        ns.jsonpath(
            "job/migrate",
            r#"{.status.conditions[?(@.type=="Failed")].status}"#,
        ) == "True"
    });
    let run = ns.reconcile(&["why", "-o", "json"]);
    assert_eq!(run.code, 1);
    let doc = run.json();
    let mut names: Vec<String> = support::item_names(&doc);
    names.sort();
    assert_eq!(
        names,
        vec!["Job/migrate", "Pod/lonely"],
        "exactly the broken roots, not the healthy Deployment"
    );
    let text = ns.reconcile(&["why"]);
    assert!(
        text.stdout.contains("Pod/lonely")
            && text.stdout.contains("Job/migrate")
            && !text.stdout.contains("Deployment/healthy"),
        "{}",
        text.stdout
    );

    let clean = Namespace::new("why-clean");
    clean.apply(&deployment("fine", 1, "", "", ""));
    wait_until("fine is available", Duration::from_secs(60), || {
        clean.reconcile(&["why"]).code == 0
    });
    assert!(clean.reconcile(&["why"]).stdout.contains("is converged"));
}
