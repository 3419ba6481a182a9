//! Diagnoses over realistic snapshots: the verdict fixtures of real objects
//! (`tests/fixtures/verdict/`), the example namespace captured from the test
//! cluster (`examples/shop.yaml`), and small hand-built trees for what needs
//! several objects (overlapping selectors, dangling owners).

use crate::model::Snapshot;
use serde_json::json;

use super::*;
use crate::model::{Event, Object};
use crate::testutil::load;
use crate::verdict::Verdict;

const NOW: &str = "2026-11-29T22:30:00Z";

/// fixture, root cause reason, a phrase of the first next step, a phrase of
/// the root cause's message (or of the chain's last link).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "pod-image-pull-backoff.yaml",
        "ImagePullBackOff",
        "image cannot be pulled",
        "pull",
    ),
    (
        "pod-crashloop-oomkilled.yaml",
        "CrashLoopBackOff",
        "OOMKilled",
        "exit code 137",
    ),
    (
        "pod-init-crashloop.yaml",
        "CrashLoopBackOff",
        "--previous",
        "restart",
    ),
    (
        "pod-readiness-failing.yaml",
        "ReadinessProbeFailed",
        "readiness probe",
        "Readiness probe failed",
    ),
    (
        "pod-unschedulable.yaml",
        "Unschedulable",
        "No node can run the pod",
        "Insufficient cpu",
    ),
    (
        "pod-config-error.yaml",
        "CreateContainerConfigError",
        "refers to something missing",
        "not found",
    ),
    (
        "replicaset-quota.yaml",
        "FailedCreate",
        "ResourceQuota",
        "exceeded quota",
    ),
    (
        "deployment-quota.yaml",
        "FailedCreate",
        "resourcequota",
        "exceeded quota",
    ),
    (
        "deployment-deadline-exceeded.yaml",
        "ProgressDeadlineExceeded",
        "no earlier revision",
        "progress",
    ),
    (
        "deployment-paused-pending.yaml",
        "Paused",
        "rollout resume",
        "paused",
    ),
    (
        "statefulset-not-ready.yaml",
        "WaitingForReady",
        "watch it converge",
        "ready",
    ),
    (
        "daemonset-misscheduled.yaml",
        "Misscheduled",
        "no longer match",
        "should not run one",
    ),
    (
        "daemonset-unready.yaml",
        "WaitingForReady",
        "watch it converge",
        "ready",
    ),
    (
        "job-backoff-limit.yaml",
        "BackoffLimitExceeded",
        "Job has given up",
        "backoffLimit",
    ),
    (
        "job-deadline.yaml",
        "DeadlineExceeded",
        "Job has given up",
        "activeDeadlineSeconds",
    ),
    (
        "cronjob-suspended.yaml",
        "Suspended",
        "spec.suspend",
        "suspend",
    ),
    (
        "pvc-storageclass-missing.yaml",
        "ProvisioningFailed",
        "storageClassName",
        "storageclass",
    ),
    (
        "pvc-no-matching-volume.yaml",
        "NoMatchingVolume",
        "matching PersistentVolume",
        "no storage class is set",
    ),
    (
        "pvc-wait-first-consumer.yaml",
        "WaitingForFirstConsumer",
        "WaitForFirstConsumer",
        "binds on first use",
    ),
    (
        "pvc-wffc-no-volume.yaml",
        "NoMatchingVolume",
        "Nothing provisions volumes for the claim's class",
        "kubernetes.io/no-provisioner",
    ),
    (
        "service-named-port-missing.yaml",
        "NamedPortNotFound",
        "targetPort to a port name",
        "\"http\" by name",
    ),
    (
        "service-no-endpoints.yaml",
        "NoEndpoints",
        "selector matches no pods",
        "matches no pods",
    ),
    (
        "service-no-ready-endpoints.yaml",
        "NotReady",
        "readiness probe",
        "ready",
    ),
    (
        "namespace-terminating.yaml",
        "FinalizersPending",
        "finalizers",
        "finalizer",
    ),
    (
        "namespace-discovery-failure.yaml",
        "DiscoveryFailed",
        "namespace waits",
        "discovery",
    ),
    (
        "configmap-finalizer.yaml",
        "FinalizersPending",
        "finalizers",
        "example.com",
    ),
    (
        "pvc-terminating-protection.yaml",
        "FinalizersPending",
        "finalizers",
        "pvc-protection",
    ),
    (
        "cr-no-status.yaml",
        "NoStatus",
        "controller (operator)",
        "no controller has written status",
    ),
    (
        "cr-synced-false.yaml",
        "ReconcileError",
        "controller of Bucket",
        "accessdenied",
    ),
    (
        "hpa-failed-metrics.yaml",
        "FailedGetResourceMetric",
        "metrics",
        "metrics",
    ),
    (
        "ingress-no-address.yaml",
        "NoAddress",
        "ingress controller",
        "ingress controller",
    ),
    ("node-not-ready.yaml", "NodeNotReady", "kubelet", "kubelet"),
];

fn diag(fixture: &str) -> Diagnosis {
    let (snap, obj) = load(fixture, NOW);
    diagnose(&Judged::builtin(&snap), &obj.uid)
}

#[test]
fn every_diagnosis_over_real_fixtures() {
    let mut failures = Vec::new();
    for (fixture, reason, step, evidence) in CASES {
        let d = diag(fixture);
        let Some(cause) = &d.root_cause else {
            failures.push(format!("{fixture}: no root cause"));
            continue;
        };
        let step_text: String = d
            .next_steps
            .iter()
            .map(|s| format!("{} {}", s.text, s.commands.join(" ")))
            .collect();
        let evidence_text = format!(
            "{} {}",
            cause.message,
            d.chain
                .iter()
                .map(|l| l.message.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        )
        .to_lowercase();
        if cause.reason != *reason {
            failures.push(format!(
                "{fixture}: root cause {} (want {reason})",
                cause.reason
            ));
        }
        if !step_text.contains(step) {
            failures.push(format!("{fixture}: next step {step_text:?} lacks {step:?}"));
        }
        if !evidence_text.contains(&evidence.to_lowercase()) {
            failures.push(format!(
                "{fixture}: evidence {evidence_text:?} lacks {evidence:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn converged_objects_have_no_root_cause_and_say_so() {
    for fixture in [
        "deployment-available.yaml",
        "job-complete.yaml",
        "pvc-bound.yaml",
        "service-ready-endpoints.yaml",
    ] {
        let d = diag(fixture);
        assert_eq!(d.item.judgement.verdict, Verdict::Converged, "{fixture}");
        assert!(d.root_cause.is_none() && d.chain.is_empty(), "{fixture}");
    }
}

#[test]
fn no_events_is_not_health() {
    let d = diag("cr-no-status.yaml");
    assert!(d.events.is_empty());
    assert!(
        d.events_note
            .as_deref()
            .unwrap()
            .contains("events expire after about an hour")
    );
    assert!(
        d.findings
            .iter()
            .any(|f| f.reason == "NoStatusWriter"
                && f.message.contains("is the controller for Widget")),
        "{:?}",
        d.findings
    );
}

#[test]
fn a_pod_nothing_recreates() {
    let d = diag("pod-running.yaml");
    assert_eq!(d.item.judgement.verdict, Verdict::Converged);
    assert!(
        d.findings
            .iter()
            .any(|f| f.reason == "BarePod" && f.message.contains("nothing will recreate it"))
    );
    assert!(
        d.next_steps
            .iter()
            .any(|s| s.text.contains("under a controller"))
    );
}

#[test]
fn conditions_are_flagged() {
    let d = diag("deployment-deadline-exceeded.yaml");
    let progressing = d
        .conditions
        .iter()
        .find(|c| c.condition.type_ == "Progressing")
        .unwrap();
    assert!(progressing.abnormal);
    let available = d
        .conditions
        .iter()
        .find(|c| c.condition.type_ == "Available")
        .unwrap();
    assert_eq!(available.abnormal, available.condition.is_false());
    let lag = diag("cr-condition-generation-lag.yaml");
    assert!(
        lag.conditions.iter().any(|c| c.lagging),
        "{:?}",
        lag.conditions
    );
}

/// The example namespace from the test cluster: a rollout that cannot pull
/// its new image, and a Job whose three pods failed.
fn shop() -> Snapshot {
    crate::source::file::load_snapshot(
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/shop.yaml"),
        None,
        crate::source::local::MAX_SNAPSHOT_BYTES,
    )
    .unwrap()
}

#[test]
fn the_chain_walks_down_to_the_failing_container() {
    let snap = shop();
    let web = snap
        .find("apps", "Deployment", Some("shop"), "web")
        .unwrap();
    let d = diagnose(&Judged::builtin(&snap), &web.uid);
    let path: Vec<String> = d
        .chain
        .iter()
        .map(|l| match (&l.object, &l.container) {
            (Some(o), _) => o.kind.clone(),
            (None, Some(c)) => format!("container {c}"),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        path,
        vec!["Deployment", "ReplicaSet", "Pod", "container web"]
    );
    assert_eq!(d.chain[3].reason, "ImagePullBackOff");
    assert!(
        d.events
            .iter()
            .any(|e| e.type_ == "Warning" && e.reason == "Failed")
    );
    assert_eq!(d.events[0].type_, "Warning", "warnings first");
}

#[test]
fn identical_causes_are_one_line_with_a_count() {
    let snap = shop();
    let job = snap.find("batch", "Job", Some("shop"), "migrate").unwrap();
    let d = diagnose(&Judged::builtin(&snap), &job.uid);
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.count, 3, "three failed pods are one cause");
    assert_eq!(cause.objects.len(), 3);
    assert_eq!(d.causes.len(), 1);
    assert!(d.chain.last().unwrap().message.contains("exit code 1"));
}

fn obj(v: serde_json::Value) -> Object {
    Object::from_value(v).unwrap()
}

fn deployment(name: &str, uid: &str, app: &str) -> Object {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop", "uid": uid, "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": app}}},
        "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
            "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}}))
}

fn pod_of(name: &str, uid: &str, owner: (&str, &str, &str), app: &str) -> Object {
    obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "uid": uid, "labels": {"app": app},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner.0, "name": owner.1, "uid": owner.2, "controller": true}]},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "state": {"running": {}}}]}}))
}

#[test]
fn controllers_fighting_over_pods_are_named() {
    let rs = obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "rs1", "labels": {"app": "web"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}}));
    let snap = Snapshot::new(
        vec![
            deployment("web", "d1", "web"),
            rs,
            pod_of("web-1-a", "p1", ("ReplicaSet", "web-1", "rs1"), "web"),
            deployment("web-canary", "d2", "canary"),
            pod_of(
                "canary-x",
                "p2",
                ("ReplicaSet", "web-canary-1", "rs2"),
                "web",
            ),
        ],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), "d1");
    let f = d
        .findings
        .iter()
        .find(|f| f.reason == "SelectorOverlap")
        .expect("overlap found");
    assert!(
        f.message.contains(
            "selector app=web also matches 1 object(s) controlled by ReplicaSet/web-canary-1"
        ),
        "{}",
        f.message
    );
    assert!(
        d.next_steps
            .iter()
            .any(|s| s.text.contains("selector that matches only its own pods"))
    );
}

#[test]
fn a_dangling_owner_is_reported() {
    let mut snap = Snapshot::new(
        vec![pod_of(
            "orphan",
            "p1",
            ("ReplicaSet", "gone-7f", "rs-gone"),
            "x",
        )],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    snap.absent.push(crate::model::ObjectRef {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        namespace: Some("shop".into()),
        name: "gone-7f".into(),
        uid: Some("rs-gone".into()),
    });
    let d = diagnose(&Judged::builtin(&snap), "p1");
    let f = d
        .findings
        .iter()
        .find(|f| f.reason == "OwnerGone")
        .expect("dangling owner found");
    assert!(
        f.message.contains("ReplicaSet/gone-7f no longer exists"),
        "{}",
        f.message
    );
}

#[test]
fn a_stale_status_reads_as_a_wedged_controller() {
    let mut d = std::sync::Arc::unwrap_or_clone(deployment("web", "d1", "web").raw);
    d["metadata"]["generation"] = json!(4);
    d["status"]["observedGeneration"] = json!(3);
    d["metadata"]["managedFields"] = json!([
        {"manager": "kubectl-edit", "operation": "Update", "time": "2026-11-29T22:10:00Z", "fieldsV1": {"f:spec": {"f:template": {}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "time": "2026-11-29T22:01:00Z", "subresource": "status", "fieldsV1": {"f:status": {}}}]);
    let snap = Snapshot::new(vec![obj(d)], vec![], vec![], NOW.parse().unwrap());
    let diag = diagnose(&Judged::builtin(&snap), "d1");
    assert_eq!(diag.item.judgement.reason, "ObservedGenerationLag");
    let g = diag.generation_check.as_ref().unwrap();
    assert!(g.stale);
    assert!(
        g.summary[0].contains("spec changed 20m ago by kubectl-edit"),
        "{:?}",
        g.summary
    );
    let f = diag
        .findings
        .iter()
        .find(|f| f.reason == "StaleStatus")
        .expect("stale status found");
    assert!(
        f.message.contains("lagged for 20m") && f.message.contains("kube-controller-manager"),
        "{}",
        f.message
    );
}

#[test]
fn events_of_the_whole_subtree_are_in_the_timeline() {
    let ev = |uid: &str, kind: &str, name: &str, reason: &str| {
        Event::from_value(&json!({"metadata": {"uid": format!("ev-{uid}")}, "involvedObject": {"uid": uid, "kind": kind, "name": name},
            "type": "Warning", "reason": reason, "message": "m", "lastTimestamp": "2026-11-29T22:20:00Z"}))
        .unwrap()
    };
    let snap = Snapshot::new(
        vec![
            deployment("web", "d1", "web"),
            pod_of("web-a", "p1", ("Deployment", "web", "d1"), "web"),
        ],
        vec![
            ev("p1", "Pod", "web-a", "BackOff"),
            ev("elsewhere", "Pod", "other", "Nope"),
        ],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), "d1");
    let reasons: Vec<&str> = d.events.iter().map(|e| e.reason.as_str()).collect();
    assert_eq!(reasons, vec!["BackOff"]);
}

/// A snapshot of a fixture with more objects added.
fn with(fixture: &str, more: Vec<Object>) -> (Snapshot, Object) {
    let (snap, subject) = load(fixture, NOW);
    let mut objects = snap.objects().to_vec();
    objects.extend(more);
    (
        Snapshot::new(objects, snap.events.clone(), vec![], snap.now),
        subject,
    )
}

fn step_text(d: &Diagnosis) -> String {
    d.next_steps
        .iter()
        .map(|s| format!("{}\n{}", s.text, s.commands.join("\n")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn an_oom_step_quotes_the_current_memory_limit() {
    let text = step_text(&diag("pod-crashloop-oomkilled.yaml"));
    assert!(text.contains("memory limit of 64Mi"), "{text}");
    assert!(text.contains("--limits=memory=128Mi"), "{text}");
}

#[test]
fn rollout_undo_only_when_an_earlier_revision_exists() {
    let (snap, deploy) = load("deployment-deadline-exceeded.yaml", NOW);
    let text = step_text(&diagnose(&Judged::builtin(&snap), &deploy.uid));
    assert!(!text.contains("rollout undo"), "{text}");
    let old = obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "stuck-old", "namespace": deploy.namespace(), "uid": "old-rs",
            "annotations": {"deployment.kubernetes.io/revision": "0"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": deploy.name(), "uid": deploy.uid, "controller": true}]},
        "spec": {"replicas": 0}, "status": {"replicas": 0}}));
    let (snap, deploy) = with("deployment-deadline-exceeded.yaml", vec![old]);
    let text = step_text(&diagnose(&Judged::builtin(&snap), &deploy.uid));
    assert!(
        text.contains("rollout undo deployment/stuck --to-revision=0"),
        "{text}"
    );
}

#[test]
fn a_job_whose_pods_are_gone_gets_no_logs_step() {
    let text = step_text(&diag("job-backoff-limit.yaml"));
    assert!(!text.contains(" logs job/"), "{text}");
    assert!(text.contains("its pods are gone"), "{text}");
    assert!(
        text.contains("get events --field-selector involvedObject.name="),
        "{text}"
    );
}

#[test]
fn a_quota_refusal_names_the_quota_with_use_and_limit() {
    let quota = obj(json!({"apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "pods", "namespace": "verdict-fixtures-quota", "uid": "q"},
        "spec": {"hard": {"pods": "2"}}, "status": {"hard": {"pods": "2"}, "used": {"pods": "2"}}}));
    let (snap, rs) = with("replicaset-quota.yaml", vec![quota]);
    let text = step_text(&diagnose(&Judged::builtin(&snap), &rs.uid));
    assert!(
        text.contains("ResourceQuota pods refuses the pods"),
        "{text}"
    );
    assert!(text.contains("pods 2 used of 2"), "{text}");
    assert!(text.contains("describe resourcequota pods"), "{text}");
}

#[test]
fn a_webhook_refusal_names_the_configuration_and_its_endpoints() {
    let (snap, rs) = load("replicaset-quota.yaml", NOW);
    let ns = rs.namespace().unwrap().to_string();
    let mut raw = (*rs.raw).clone();
    raw["status"]["conditions"][0]["message"] = json!(
        "Internal error occurred: failed calling webhook \"deny.example.com\": failed to call webhook: Post \"https://hook.shop.svc:443/validate?timeout=10s\": no endpoints available for service \"hook\""
    );
    let rs = obj(raw);
    let hook = obj(
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "deny", "uid": "vwc"},
        "webhooks": [{"name": "deny.example.com", "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"namespace": ns, "name": "hook", "path": "/validate"}}}]}),
    );
    let svc = obj(
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hook", "namespace": ns, "uid": "svc"},
        "spec": {"selector": {"app": "hook"}, "ports": [{"port": 443}]}}),
    );
    let slice = obj(
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "hook-abcde", "namespace": ns, "uid": "eps", "labels": {"kubernetes.io/service-name": "hook"}},
        "addressType": "IPv4", "endpoints": null}),
    );
    // The condition alone: the fixture's events are about a quota.
    let snap = Snapshot::new(vec![rs.clone(), hook, svc, slice], vec![], vec![], snap.now);
    let text = step_text(&diagnose(&Judged::builtin(&snap), &rs.uid));
    assert!(
        text.contains("admission webhook \"deny.example.com\""),
        "{text}"
    );
    assert!(
        text.contains("ValidatingWebhookConfiguration/deny with failurePolicy Fail"),
        "{text}"
    );
    assert!(
        text.contains(&format!("its Service {ns}/hook has no ready endpoints")),
        "{text}"
    );
    // Behind an ExternalName Service: the name it points to is the one
    // that does not answer, not "no ready endpoints".
    let external = obj(
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hook", "namespace": ns, "uid": "svc"},
        "spec": {"type": "ExternalName", "externalName": "hooks.corp.example.com"}}),
    );
    let hook_again = snap
        .objects()
        .iter()
        .find(|o| o.kind() == "ValidatingWebhookConfiguration")
        .cloned()
        .unwrap();
    let snap = Snapshot::new(
        vec![rs.clone(), hook_again, external],
        vec![],
        vec![],
        snap.now,
    );
    let text = step_text(&diagnose(&Judged::builtin(&snap), &rs.uid));
    assert!(
        text.contains(&format!(
            "its Service {ns}/hook is an ExternalName for hooks.corp.example.com"
        )) && !text.contains("no ready endpoints"),
        "{text}"
    );
}

#[test]
fn a_terminating_namespace_step_reads_spec_finalizers() {
    let text = step_text(&diag("namespace-terminating.yaml"));
    assert!(text.contains("-o jsonpath='{.spec.finalizers}'"), "{text}");
    assert!(
        !text.contains("namespace/"),
        "no jsonpath on metadata.finalizers of a namespace: {text}"
    );
}

#[test]
fn a_statefulset_rollout_names_the_blocking_ordinal() {
    let sts = obj(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "shop", "uid": "sts", "generation": 2},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}}, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}},
        "status": {"observedGeneration": 2, "replicas": 3, "readyReplicas": 2, "updatedReplicas": 1,
            "currentRevision": "db-5d4f8", "updateRevision": "db-7c9b6"}}));
    let pod = |i: u32, rev: &str, ready: bool| {
        obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("db-{i}"), "namespace": "shop", "uid": format!("p{i}"),
                "labels": {"app": "db", "controller-revision-hash": rev, "apps.kubernetes.io/pod-index": i.to_string()},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "sts", "controller": true}]},
            "spec": {"containers": [{"name": "db", "image": "db"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}}]}}))
    };
    let snap = Snapshot::new(
        vec![
            sts,
            pod(0, "db-5d4f8", true),
            pod(1, "db-5d4f8", true),
            pod(2, "db-7c9b6", false),
        ],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), "sts");
    let f = d
        .findings
        .iter()
        .find(|f| f.reason == "Rollout")
        .expect("a rollout finding");
    assert_eq!(
        f.message,
        "rolling out revision db-7c9b6 (current db-5d4f8): 1 of 3 pods updated, partition 0; pod db-2 (updated revision) is not ready, which blocks the pods below it (podManagementPolicy OrderedReady)"
    );
}

#[test]
fn max_unavailable_zero_keeps_the_old_pods_for_a_new_one_not_ready() {
    let d = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "d", "generation": 2, "annotations": {"deployment.kubernetes.io/revision": "2"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}},
        "status": {"observedGeneration": 2, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1, "unavailableReplicas": 1}}));
    let rs = |name: &str, uid: &str, rev: &str, replicas: i64| {
        obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "shop", "uid": uid, "annotations": {"deployment.kubernetes.io/revision": rev},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d", "controller": true}]},
            "spec": {"replicas": replicas}, "status": {"replicas": replicas}}))
    };
    let mut new_pod = pod_of(
        "web-new-x2x9z",
        "pn",
        ("ReplicaSet", "web-new", "rs2"),
        "web",
    );
    std::sync::Arc::make_mut(&mut new_pod.raw)["status"]["conditions"][0]["status"] =
        json!("False");
    let new_pod = obj(std::sync::Arc::unwrap_or_clone(new_pod.raw));
    let snap = Snapshot::new(
        vec![
            d,
            rs("web-old", "rs1", "1", 1),
            rs("web-new", "rs2", "2", 1),
            new_pod,
        ],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let diagnosis = diagnose(&Judged::builtin(&snap), "d");
    let f = diagnosis
        .findings
        .iter()
        .find(|f| f.reason == "Rollout")
        .expect("a rollout finding");
    assert!(f.message.starts_with("maxUnavailable is 0, so the old ReplicaSet web-old keeps its 1 pod(s) until new pods are ready, and the new pod web-new-x2x9z is not ready"), "{}", f.message);
}

/// `why`'s condition table flags by the one table of condition types: a
/// healthy `Unhealthy=False` is not abnormal, `Unhealthy=True` is, and a
/// work-under-way type is flagged only when True.
#[test]
fn the_condition_table_flags_by_the_one_polarity_table() {
    let cond = |type_: &str, status: &str| crate::model::Condition {
        type_: type_.into(),
        status: status.into(),
        reason: String::new(),
        message: String::new(),
        last_transition_time: None,
        observed_generation: None,
        severity: String::new(),
    };
    let cases = [
        ("Unhealthy", "False", false),
        ("Unhealthy", "True", true),
        ("SpecError", "False", false),
        ("Ready", "False", true),
        ("Ready", "True", false),
        ("PendingRestart", "True", true),
        ("Suspended", "True", false),
        ("Suspended", "False", false),
        ("MemoryPressure", "True", true),
    ];
    for (type_, status, want) in cases {
        assert_eq!(
            super::abnormal(&cond(type_, status)),
            want,
            "{type_}={status}"
        );
    }
}

#[test]
fn every_failing_container_is_named_with_its_own_step() {
    // The OOMKilled pod of the fixture with a sidecar that is OOMKilled
    // too, at its own limit.
    let (snap, pod) = load("pod-crashloop-oomkilled.yaml", NOW);
    let mut raw = (*pod.raw).clone();
    let mut spec = raw["spec"]["containers"][0].clone();
    spec["name"] = json!("sidecar");
    spec["resources"]["limits"]["memory"] = json!("32Mi");
    raw["spec"]["containers"].as_array_mut().unwrap().push(spec);
    let mut status = raw["status"]["containerStatuses"][0].clone();
    status["name"] = json!("sidecar");
    status["restartCount"] = json!(7);
    raw["status"]["containerStatuses"]
        .as_array_mut()
        .unwrap()
        .push(status);
    let snap = Snapshot::new(vec![obj(raw)], snap.events.clone(), vec![], snap.now);
    let d = diagnose(&Judged::builtin(&snap), &pod.uid);
    let containers: Vec<(&str, &str)> = d
        .chain
        .iter()
        .filter_map(|l| Some((l.container.as_deref()?, l.message.as_str())))
        .collect();
    assert_eq!(containers.len(), 2, "{:?}", d.chain);
    assert_eq!(containers[0].0, "app");
    assert_eq!(containers[1].0, "sidecar");
    assert!(
        containers[1].1.contains("OOMKilled, exit code 137"),
        "{containers:?}"
    );
    assert!(containers[1].1.contains("7 restarts"), "{containers:?}");
    let text = step_text(&d);
    assert!(text.contains("-c app --limits=memory=128Mi"), "{text}");
    assert!(text.contains("-c sidecar --limits=memory=64Mi"), "{text}");
    let oom: Vec<&str> = d
        .next_steps
        .iter()
        .map(|s| s.text.as_str())
        .filter(|t| t.contains("OOMKilled"))
        .collect();
    assert_eq!(oom.len(), 2, "{text}");
    assert!(
        oom[1].starts_with("The container sidecar is killed"),
        "{text}"
    );
}

/// The quota fixture's refusals reworded as another admission plugin
/// words them (the messages seen on the test cluster).
fn refused_with(message: &str) -> (Snapshot, Object) {
    let (snap, rs) = load("replicaset-quota.yaml", NOW);
    let reword = |text: &str| match text.find("forbidden: ") {
        Some(i) if text.contains("exceeded quota") => format!("{}forbidden: {message}", &text[..i]),
        _ => text.to_string(),
    };
    let mut events = snap.events.clone();
    for e in &mut events {
        e.message = reword(&e.message);
    }
    let objects = snap
        .objects()
        .iter()
        .map(|o| {
            let mut raw = (*o.raw).clone();
            for c in raw["status"]["conditions"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                let m = reword(c["message"].as_str().unwrap_or(""));
                c["message"] = json!(m);
            }
            obj(raw)
        })
        .collect();
    (Snapshot::new(objects, events, vec![], snap.now), rs)
}

#[test]
fn a_missing_priority_or_runtime_class_gets_its_own_step() {
    for (message, kind, field, list) in [
        (
            "no PriorityClass with name nosuch-priority was found",
            "PriorityClass \"nosuch-priority\"",
            "spec.template.spec.priorityClassName",
            "kubectl get priorityclasses",
        ),
        (
            "pod rejected: RuntimeClass \"nosuch-runtime\" not found",
            "RuntimeClass \"nosuch-runtime\"",
            "spec.template.spec.runtimeClassName",
            "kubectl get runtimeclasses",
        ),
    ] {
        let (snap, rs) = refused_with(message);
        let d = diagnose(&Judged::builtin(&snap), &rs.uid);
        assert_eq!(d.root_cause.as_ref().unwrap().reason, "FailedCreate");
        let text = step_text(&d);
        assert!(
            text.contains(&format!("ask for {kind}, which does not exist")),
            "{text}"
        );
        assert!(text.contains(field) && text.contains(list), "{text}");
    }
}

/// A Deployment of the no-endpoints fixture's namespace whose pods the
/// Service would select, at `replicas`.
fn backend(replicas: i64, ready: i64) -> Object {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "backend", "namespace": "verdict-fixtures-a", "uid": "backend-uid", "generation": 2,
            "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "nothing-here"}},
            "template": {"metadata": {"labels": {"app": "nothing-here", "tier": "api"}}, "spec": {"containers": [{"name": "app", "image": "example.com/app:v1"}]}}},
        "status": {"observedGeneration": 2, "replicas": ready, "readyReplicas": ready, "availableReplicas": ready,
            "conditions": [{"type": "Available", "status": if ready >= replicas { "True" } else { "False" }, "reason": "MinimumReplicasAvailable"}]}}))
}

#[test]
fn a_service_without_pods_names_the_workload_scaled_to_zero() {
    let (snap, svc) = with("service-no-endpoints.yaml", vec![backend(0, 0)]);
    let d = diagnose(&Judged::builtin(&snap), &svc.uid);
    let cause = d.root_cause.clone().unwrap();
    assert_eq!(cause.reason, "ScaledToZero");
    assert_eq!(
        cause.message,
        "no pods to route to: Deployment/backend is scaled to 0 replicas (selector app=nothing-here)"
    );
    let text = step_text(&d);
    assert!(
        text.contains("kubectl -n verdict-fixtures-a scale deployment/backend --replicas=1"),
        "{text}"
    );
    assert!(!text.contains("fix spec.selector"), "{text}");
}

#[test]
fn a_service_whose_workload_makes_no_pods_leads_to_the_workload() {
    let (snap, svc) = with("service-no-endpoints.yaml", vec![backend(2, 0)]);
    let d = diagnose(&Judged::builtin(&snap), &svc.uid);
    let kinds: Vec<&str> = d
        .chain
        .iter()
        .filter_map(|l| l.object.as_ref().map(|o| o.kind.as_str()))
        .collect();
    assert_eq!(kinds, vec!["Service", "Deployment"], "{:?}", d.chain);
    assert_eq!(d.chain[1].edge, Some(crate::relations::Edge::Selects));
    assert!(
        d.chain[0]
            .message
            .contains("its pods would come from Deployment/backend, which has none"),
        "{}",
        d.chain[0].message
    );
}

#[test]
fn a_statefulset_whose_governing_service_is_missing_says_to_create_it() {
    let (mut snap, sts) = load("statefulset-ready.yaml", NOW);
    let plain = diagnose(&Judged::builtin(&snap), &sts.uid);
    assert!(plain.root_cause.is_none(), "{:?}", plain.root_cause);
    // The source looked for Service db and found it gone.
    snap.absent.push(ObjectRef {
        api_version: "v1".into(),
        kind: "Service".into(),
        namespace: Some("verdict-fixtures-a".into()),
        name: "db".into(),
        uid: None,
    });
    let d = diagnose(&Judged::builtin(&snap), &sts.uid);
    let cause = d
        .root_cause
        .clone()
        .expect("the missing Service is the cause");
    assert_eq!(
        (cause.reason.as_str(), cause.objects[0].kind.as_str()),
        ("NotFound", "Service")
    );
    assert_eq!(d.chain[1].edge, Some(crate::relations::Edge::Uses));
    let text = step_text(&d);
    assert!(
        text.contains("StatefulSet/db names \"db\" as its governing Service (spec.serviceName)"),
        "{text}"
    );
    assert!(
        text.contains("create service clusterip db --clusterip=None"),
        "{text}"
    );
}

/// The ExternalSecret that should make the config-error fixture's Secret
/// `db-credentials`, as External Secrets Operator reports a failed sync.
fn external_secret(ready: &str) -> Object {
    obj(
        json!({"apiVersion": "external-secrets.io/v1beta1", "kind": "ExternalSecret",
        "metadata": {"name": "db-credentials", "namespace": "verdict-fixtures-a", "uid": "es-uid", "generation": 1,
            "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"refreshInterval": "1h", "secretStoreRef": {"name": "vault", "kind": "SecretStore"},
            "target": {"name": "db-credentials", "creationPolicy": "Owner"},
            "data": [{"secretKey": "password", "remoteRef": {"key": "billing/db", "property": "password"}}]},
        "status": {"refreshTime": null, "conditions": [{"type": "Ready", "status": ready,
            "reason": if ready == "True" { "SecretSynced" } else { "SecretSyncedError" },
            "message": if ready == "True" { "secret synced" } else { "could not get secret data from provider" },
            "lastTransitionTime": "2026-11-29T22:01:00Z"}]}}),
    )
}

fn missing_secret(snap: &mut Snapshot) {
    snap.absent.push(ObjectRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        namespace: Some("verdict-fixtures-a".into()),
        name: "db-credentials".into(),
        uid: None,
    });
}

#[test]
fn a_missing_secret_leads_to_the_external_secret_that_cannot_sync() {
    let (mut snap, pod) = with("pod-config-error.yaml", vec![external_secret("False")]);
    missing_secret(&mut snap);
    let d = diagnose(&Judged::builtin(&snap), &pod.uid);
    let path: Vec<(String, Option<crate::relations::Edge>)> = d
        .chain
        .iter()
        .filter_map(|l| Some((l.object.as_ref()?.kind.clone(), l.edge)))
        .collect();
    use crate::relations::Edge;
    assert_eq!(
        path,
        vec![
            ("Pod".to_string(), None),
            ("Secret".to_string(), Some(Edge::Uses)),
            ("ExternalSecret".to_string(), Some(Edge::MadeBy)),
        ],
        "{:?}",
        d.chain
    );
    let cause = d.root_cause.clone().unwrap();
    assert_eq!(
        (cause.reason.as_str(), cause.objects[0].kind.as_str()),
        ("SecretSyncedError", "ExternalSecret")
    );
    let text = step_text(&d);
    assert!(
        text.contains("Secret \"db-credentials\" is missing because ExternalSecret/db-credentials, which makes it, is Failed (SecretSyncedError)"),
        "{text}"
    );
    assert!(
        text.contains("by hand would fight its controller"),
        "{text}"
    );
    assert!(!text.contains("create it, or fix the reference"), "{text}");
}

#[test]
fn a_missing_secret_whose_maker_reports_no_failure_says_not_to_create_it() {
    let (mut snap, pod) = with("pod-config-error.yaml", vec![external_secret("True")]);
    missing_secret(&mut snap);
    let d = diagnose(&Judged::builtin(&snap), &pod.uid);
    let text = step_text(&d);
    assert!(
        text.contains("ExternalSecret/db-credentials makes it and reports no failure"),
        "{text}"
    );
}

#[test]
fn a_node_not_ready_event_is_followed_when_the_node_cannot_be_read() {
    // The readiness fixture, with the node controller's event instead of
    // the probe's, and no Node in the snapshot (the user may not read it).
    let (snap, pod) = load("pod-readiness-failing.yaml", NOW);
    let node = pod.str("/spec/nodeName").unwrap().to_string();
    let event = Event::from_value(&json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "x.nnr", "namespace": pod.namespace(), "uid": "nnr"},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": pod.name(), "namespace": pod.namespace(), "uid": pod.uid},
        "type": "Warning", "reason": "NodeNotReady", "message": "Node is not ready", "count": 1,
        "lastTimestamp": "2026-11-29T22:29:00Z", "source": {"component": "node-controller"}}))
    .unwrap();
    let objects: Vec<Object> = snap
        .objects()
        .iter()
        .filter(|o| o.kind() != "Node")
        .cloned()
        .collect();
    let snap = Snapshot::new(objects, vec![event], vec![], snap.now);
    let text = step_text(&diagnose(&Judged::builtin(&snap), &pod.uid));
    assert!(
        text.starts_with(&format!("The pod's node {node} is not ready: the node controller said so 60s ago (NodeNotReady: Node is not ready)")),
        "{text}"
    );
    assert!(
        text.contains(&format!("kubectl describe node {node}")),
        "{text}"
    );
    assert!(!text.contains("readiness probe"), "{text}");
}

/// A custom resource whose operator stopped: generation 3, observed 1, its
/// status last written by cache-operator before the spec changed.
fn lagging_cache() -> Object {
    obj(
        json!({"apiVersion": "cache.example.com/v1", "kind": "Cache",
        "metadata": {"name": "sessions", "namespace": "shop", "uid": "cache-1", "generation": 3,
            "creationTimestamp": "2026-11-29T22:00:00Z",
            "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "cache.example.com/v1",
                 "time": "2026-11-29T22:25:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}}},
                {"manager": "cache-operator", "operation": "Update", "apiVersion": "cache.example.com/v1", "subresource": "status",
                 "time": "2026-11-29T22:22:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:observedGeneration": {}}}}]},
        "spec": {"size": 3},
        "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True", "reason": "Reconciled",
            "lastTransitionTime": "2026-11-29T22:05:00Z", "observedGeneration": 1}]}}),
    )
}

/// A Lease as controller-runtime's leader election writes it.
fn lease(ns: &str, name: &str, holder: &str, renewed: &str) -> Object {
    obj(
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": ns, "uid": format!("lease-{name}")},
        "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15, "acquireTime": "2026-11-29T22:00:00.000000Z",
            "renewTime": renewed, "leaseTransitions": 0}}),
    )
}

/// The operator's pod, ReplicaSet and Deployment, crash-looping or not.
fn operator(crashing: bool) -> Vec<Object> {
    let ns = "cache-system";
    let mut pod = obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "cache-operator-6d5f7c9b8-x2x4z", "namespace": ns, "uid": "op-pod",
            "creationTimestamp": "2026-11-29T22:00:00Z", "labels": {"app": "cache-operator"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "cache-operator-6d5f7c9b8", "uid": "op-rs", "controller": true}]},
        "spec": {"nodeName": "kwok-node-1", "containers": [{"name": "manager", "image": "example.com/cache-operator:1"}]},
        "status": {"phase": "Running", "startTime": "2026-11-29T22:00:00Z",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T22:00:05Z"}],
            "containerStatuses": [{"name": "manager", "ready": true, "restartCount": 0, "state": {"running": {"startedAt": "2026-11-29T22:00:05Z"}}}]}}));
    if crashing {
        pod = obj(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": std::sync::Arc::make_mut(&mut pod.raw)["metadata"], "spec": std::sync::Arc::make_mut(&mut pod.raw)["spec"],
            "status": {"phase": "Running", "startTime": "2026-11-29T22:00:00Z",
                "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": "2026-11-29T22:21:00Z"}],
                "containerStatuses": [{"name": "manager", "ready": false, "restartCount": 9,
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-11-29T22:27:30Z"}},
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=manager pod=cache-operator-6d5f7c9b8-x2x4z"}}}]}}),
        );
    }
    let ready = if crashing { 0 } else { 1 };
    vec![
        pod,
        obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "cache-operator-6d5f7c9b8", "namespace": ns, "uid": "op-rs", "generation": 1,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "cache-operator", "uid": "op-deploy", "controller": true}]},
            "spec": {"replicas": 1}, "status": {"observedGeneration": 1, "replicas": 1, "readyReplicas": ready, "availableReplicas": ready}})),
        obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "cache-operator", "namespace": ns, "uid": "op-deploy", "generation": 1, "creationTimestamp": "2026-11-29T22:00:00Z"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "cache-operator"}}},
            "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": ready, "availableReplicas": ready,
                "conditions": [{"type": "Available", "status": if crashing { "False" } else { "True" },
                    "reason": if crashing { "MinimumReplicasUnavailable" } else { "MinimumReplicasAvailable" },
                    "lastTransitionTime": "2026-11-29T22:21:00Z"}]}})),
    ]
}

fn quiet_snapshot(more: Vec<Object>) -> (Snapshot, Object) {
    let cache = lagging_cache();
    let mut objects = vec![cache.clone()];
    objects.extend(more);
    (
        Snapshot::new(objects, vec![], vec![], NOW.parse().unwrap()),
        cache,
    )
}

#[test]
fn a_lagging_resource_whose_operator_stopped_names_the_operator() {
    let mut more = operator(true);
    more.push(lease(
        "cache-system",
        "a1b2c3d4.example.com",
        "cache-operator-6d5f7c9b8-x2x4z_3f1e2d",
        "2026-11-29T22:22:00.000000Z",
    ));
    // The kubelets' leases are never a controller's.
    more.push(lease(
        "kube-node-lease",
        "kwok-node-1",
        "kwok-node-1",
        "2026-11-29T22:29:58.000000Z",
    ));
    let (snap, cache) = quiet_snapshot(more);
    let d = diagnose(&Judged::builtin(&snap), &cache.uid);
    let c = d.controller.clone().expect("the controller is looked for");
    assert!(c.down && c.expired, "{c:?}");
    assert_eq!(c.manager.as_deref(), Some("cache-operator"));
    assert_eq!(
        c.workload.as_ref().map(|w| w.name.as_str()),
        Some("cache-operator")
    );
    for part in [
        "lease cache-system/a1b2c3d4.example.com (lease name a1b2c3d4.example.com ends in the group's domain example.com)",
        "held by cache-operator-6d5f7c9b8-x2x4z_3f1e2d: pod cache-operator-6d5f7c9b8-x2x4z of Deployment/cache-operator",
        "last renewed 8m ago, longer than its 15s: its holder is not running",
        "Deployment/cache-operator is Failed (CrashLoopBackOff)",
        "status last written 8m ago by cache-operator",
    ] {
        assert!(c.summary.contains(part), "{part}\n{}", c.summary);
    }
    let cause = d.root_cause.clone().unwrap();
    assert_eq!(
        (cause.reason.as_str(), cause.objects[0].kind.as_str()),
        ("ControllerDown", "Deployment")
    );
    assert_eq!(
        d.chain.last().unwrap().edge,
        Some(crate::relations::Edge::ReconciledBy)
    );
    let text = step_text(&d);
    assert!(
        text.starts_with("The controller that should act on it is down"),
        "{text}"
    );
    assert!(
        text.contains("kubectl -n cache-system logs deployment/cache-operator --previous"),
        "{text}"
    );
}

#[test]
fn a_running_operator_is_named_but_not_blamed() {
    let mut more = operator(false);
    more.push(lease(
        "cache-system",
        "a1b2c3d4.example.com",
        "cache-operator-6d5f7c9b8-x2x4z_3f1e2d",
        "2026-11-29T22:29:57.000000Z",
    ));
    let (snap, cache) = quiet_snapshot(more);
    let d = diagnose(&Judged::builtin(&snap), &cache.uid);
    let c = d.controller.clone().unwrap();
    assert!(!c.down && !c.expired, "{c:?}");
    assert!(c.summary.contains("renewed 3s ago"), "{}", c.summary);
    assert_eq!(d.root_cause.unwrap().reason, "ObservedGenerationLag");
    assert!(d.findings.iter().any(|f| f.reason == "Controller"));
}

#[test]
fn no_lease_read_is_a_gap_not_a_dead_controller() {
    // Leases forbidden: none in the snapshot, none known absent.
    let (snap, cache) = quiet_snapshot(vec![]);
    let d = diagnose(&Judged::builtin(&snap), &cache.uid);
    assert!(d.controller.is_none());
    assert!(
        !d.findings
            .iter()
            .any(|f| f.reason.as_str().starts_with("Controller"))
    );
    // Leases read, none matches: said, not guessed.
    let (snap, cache) = quiet_snapshot(vec![lease(
        "other",
        "ingress-controller-leader",
        "nginx-7f_1",
        "2026-11-29T22:29:57Z",
    )]);
    let c = diagnose(&Judged::builtin(&snap), &cache.uid)
        .controller
        .unwrap();
    assert!(!c.down);
    assert!(
        c.summary.ends_with(
            "no leader-election lease matches Cache (1 lease(s) read), and no Deployment or StatefulSet read is named like its status manager cache-operator: its controller is not found"
        ),
        "{}",
        c.summary
    );
}

#[test]
fn a_deployment_change_never_observed_while_the_controller_manager_is_down() {
    let deploy = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "web", "generation": 2, "creationTimestamp": "2026-11-29T22:00:00Z",
            "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-11-29T22:28:00Z",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}}));
    let kcm = lease(
        "kube-system",
        "kube-controller-manager",
        "cp-1_8d2c",
        "2026-11-29T22:27:00.000000Z",
    );
    let snap = Snapshot::new(
        vec![deploy.clone(), kcm],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), &deploy.uid);
    let c = d.controller.clone().unwrap();
    assert!(c.down && c.expired, "{c:?}");
    assert_eq!(
        d.root_cause.clone().unwrap().objects[0].name,
        "kube-controller-manager"
    );
    let text = step_text(&d);
    assert!(
        text.starts_with("kube-controller-manager is not running"),
        "{text}"
    );
    assert!(
        text.contains("control-plane outage, not a fault of this object"),
        "{text}"
    );
}

#[test]
fn a_broken_rollout_says_what_its_revision_changed() {
    let snap = shop();
    let web = snap
        .find("apps", "Deployment", Some("shop"), "web")
        .unwrap();
    let d = diagnose(&Judged::builtin(&snap), &web.uid);
    let change = d
        .findings
        .iter()
        .find(|f| f.reason == "RolloutChange")
        .expect("the change of the broken revision");
    assert_eq!(
        change.message,
        // Revision 2 was replaced at once and never ran: the way back is 1.
        "revision 3 (ReplicaSet/web-77fcf69c59, made 31s ago) changed the pod template of revision 1, the last that ran: container web image registry.example.com/shop/web:1.4.2 → registry.example.com/shop/web:1.5.0; pod label reconcile.test/failure=image-pull-backoff added; `kubectl rollout undo --to-revision=1` goes back to it"
    );
    // A converged Deployment says nothing of its last change.
    let api = snap
        .find("apps", "Deployment", Some("shop"), "api")
        .unwrap();
    assert!(
        !diagnose(&Judged::builtin(&snap), &api.uid)
            .findings
            .iter()
            .any(|f| f.reason == "RolloutChange")
    );
}

#[test]
fn the_manager_named_by_its_labels_is_said_and_judged() {
    let mut deploy = deployment("web", "web-uid", "web");
    std::sync::Arc::make_mut(&mut deploy.raw)["metadata"]["labels"] = json!({"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"});
    let deploy = obj(std::sync::Arc::unwrap_or_clone(deploy.raw));
    let ks = obj(
        json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system", "uid": "ks", "generation": 4},
        "spec": {"suspend": true, "interval": "10m", "path": "./apps", "sourceRef": {"kind": "GitRepository", "name": "fleet"}},
        "status": {"observedGeneration": 4, "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded",
            "message": "Applied revision: main@sha1:0a1b2c", "lastTransitionTime": "2026-11-29T22:00:00Z"}]}}),
    );
    let snap = Snapshot::new(
        vec![deploy.clone(), ks],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), &deploy.uid);
    let f = d
        .findings
        .iter()
        .find(|f| f.reason == "ManagedBy")
        .expect("the manager");
    assert!(
        f.message.starts_with("Deployment/web is applied by Kustomization flux-system/apps (label kustomize.toolkit.fluxcd.io/name) from GitRepository/fleet, which is Suspended"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("drift here is not corrected"),
        "{}",
        f.message
    );
    let text = step_text(&d);
    assert!(
        text.contains("Kustomization flux-system/apps manages it and is Suspended"),
        "{text}"
    );
    assert!(
        text.contains(
            "kubectl -n flux-system describe kustomization.kustomize.toolkit.fluxcd.io/apps"
        ),
        "{text}"
    );
}

#[test]
fn a_statefulset_rollout_says_what_changed_since_the_revision_that_ran() {
    // Captured: `set image` to an image that cannot be pulled (revision 2),
    // then `set env` (revision 3) while pod db-0 was stuck on revision 2.
    let (snap, sts) = load(
        "statefulset-set-image-unpullable.yaml",
        "2026-12-01T13:20:30Z",
    );
    let d = diagnose(&Judged::builtin(&snap), &sts.uid);
    let change = d
        .findings
        .iter()
        .find(|f| f.reason == "RolloutChange")
        .expect("the change");
    assert_eq!(
        change.message,
        "revision 3 (ControllerRevision/db-fcdd5477c, made 11s ago) changed the pod template of revision 1, the last that ran: container postgres image registry.example.com/postgres:16 → unpullable.invalid/app:1; container postgres env POOL added; `kubectl rollout undo --to-revision=1` goes back to it"
    );
    let text = step_text(&d);
    assert!(
        text.contains("kubectl -n ro1 rollout undo statefulset/db --to-revision=1"),
        "{text}"
    );
    // Env values are never printed, only names.
    assert!(
        !text.contains("/data") && !change.message.contains("20"),
        "{}",
        change.message
    );
}

/// `why` of the first object of `kind` among real operators' objects
/// (`tests/fixtures/operators/`), under `--fail-fast`'s grace.
fn operator_diagnosis(files: &[&str], kind: &str, now: &str) -> Diagnosis {
    let snap = crate::testutil::operators(files, now);
    let judge = crate::verdict::Judge {
        failure_grace: Some(jiff::SignedDuration::ZERO),
        ..crate::verdict::Judge::builtin().clone()
    };
    let uid = snap
        .objects()
        .iter()
        .find(|o| o.kind() == kind)
        .unwrap()
        .uid
        .clone();
    diagnose(&judge.on(&snap), &uid)
}

fn commands(d: &Diagnosis) -> Vec<String> {
    d.next_steps
        .iter()
        .flat_map(|s| s.commands.iter().cloned())
        .collect()
}

#[test]
fn steps_edit_what_the_user_owns_in_the_operators_own_verbs() {
    // A Rollout's canary cannot pull: the image is changed on the Rollout
    // (Argo rewrites its ReplicaSets), with its own CLI.
    let d = operator_diagnosis(
        &["argo-rollouts/image-pull-backoff/after-90s.yaml"],
        "Rollout",
        "2026-12-01T23:21:00Z",
    );
    assert_eq!(d.item.judgement.verdict, Verdict::Failed);
    let all = commands(&d);
    assert!(
        all.contains(
            &"kubectl argo rollouts -n fx-argo-image-pull-backoff set image web app=IMAGE"
                .to_string()
        ),
        "{all:?}"
    );
    assert!(!all.iter().any(|c| c.contains("replicaset")), "{all:?}");
    // Paused at `pause: {}`: promote or abort.
    let d = operator_diagnosis(
        &["argo-rollouts/paused-indefinitely/paused.yaml"],
        "Rollout",
        "2026-12-01T23:21:00Z",
    );
    assert_eq!(d.item.judgement.verdict, Verdict::Suspended);
    assert_eq!(
        commands(&d)[..2],
        [
            "kubectl argo rollouts -n fx-argo-paused promote web".to_string(),
            "kubectl argo rollouts -n fx-argo-paused abort web".to_string()
        ]
    );
    // Aborted: retry or undo.
    let d = operator_diagnosis(
        &["argo-rollouts/aborted/aborted.yaml"],
        "Rollout",
        "2026-12-01T23:21:00Z",
    );
    assert_eq!(d.item.judgement.verdict, Verdict::Failed);
    assert_eq!(
        commands(&d)[0],
        "kubectl argo rollouts -n fx-argo-aborted retry rollout web"
    );
    // An Alertmanager that cannot pull: its StatefulSet is the operator's.
    let d = operator_diagnosis(
        &["prometheus-operator/alertmanager-image-pull-backoff/objects.yaml"],
        "Alertmanager",
        "2026-12-01T23:30:00Z",
    );
    let all = commands(&d);
    assert!(!all.iter().any(|c| c.contains("statefulset")), "{all:?}");
    assert!(
        all.iter()
            .any(|c| c.ends_with("edit alertmanager.monitoring.coreos.com/main")),
        "{all:?}"
    );
    assert!(
        d.next_steps[0]
            .text
            .contains("Change it in Alertmanager main"),
        "{}",
        d.next_steps[0].text
    );
}

#[test]
fn a_schedule_whose_runs_are_skipped_is_not_converged_and_names_the_hanging_job() {
    let cron = obj(json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "report", "namespace": "ops", "uid": "cj", "generation": 1,
            "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"schedule": "* * * * *", "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "r", "image": "r:1"}]}}}}},
        "status": {"active": [{"kind": "Job", "name": "report-29400000", "namespace": "ops", "uid": "job"}],
            "lastScheduleTime": "2026-11-29T22:13:00Z", "lastSuccessfulTime": "2026-11-29T22:12:40Z"}}));
    let job = obj(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "report-29400000", "namespace": "ops", "uid": "job",
            "creationTimestamp": "2026-11-29T22:13:00Z",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "report", "uid": "cj", "controller": true}]},
        "spec": {"template": {"spec": {"containers": [{"name": "r", "image": "r:1"}]}}},
        "status": {"active": 1, "ready": 1, "startTime": "2026-11-29T22:13:00Z"}}));
    let skipped = Event::from_value(&json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "report.1", "namespace": "ops", "uid": "e1"},
        "involvedObject": {"apiVersion": "batch/v1", "kind": "CronJob", "name": "report", "namespace": "ops", "uid": "cj"},
        "type": "Normal", "reason": "JobAlreadyActive", "count": 16,
        "message": "Not starting job because prior execution is running and concurrency policy is Forbid",
        "firstTimestamp": "2026-11-29T22:14:00Z", "lastTimestamp": "2026-11-29T22:29:00Z",
        "source": {"component": "cronjob-controller"}}))
    .unwrap();
    let snap = Snapshot::new(
        vec![cron.clone(), job],
        vec![skipped],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), &cron.uid);
    assert_eq!(
        (d.item.judgement.verdict, d.item.judgement.reason.as_str()),
        (Verdict::Failed, "RunsSkipped"),
        "{}",
        d.item.judgement.message
    );
    assert!(
        d.item
            .judgement
            .message
            .contains("JobAlreadyActive (16 times)"),
        "{}",
        d.item.judgement.message
    );
    let text = step_text(&d);
    assert!(
        text.contains("Job report-29400000 has not finished"),
        "{text}"
    );
    assert!(
        text.contains("kubectl -n ops logs job/report-29400000"),
        "{text}"
    );
    // Without the controller's word, the schedule is kept.
    let quiet = Snapshot::new(
        snap.objects().to_vec(),
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    assert_eq!(
        diagnose(&Judged::builtin(&quiet), &cron.uid)
            .item
            .judgement
            .verdict,
        Verdict::Converged
    );
}

#[test]
fn a_startup_probe_that_never_passes_is_told_from_readiness_and_named_with_its_budget() {
    let pod = |restarts: i64, waiting: serde_json::Value| {
        obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "api-0", "namespace": "shop", "uid": "p", "creationTimestamp": "2026-11-29T22:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "api:2",
                "startupProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "failureThreshold": 30, "periodSeconds": 10}}]},
            "status": {"phase": "Running", "startTime": "2026-11-29T22:00:00Z",
                "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "2026-11-29T22:00:00Z"},
                               {"type": "ContainersReady", "status": "False", "lastTransitionTime": "2026-11-29T22:00:00Z"}],
                "containerStatuses": [{"name": "app", "ready": false, "started": false, "restartCount": restarts, "image": "api:2",
                    "state": waiting,
                    "lastState": {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": "2026-11-29T22:24:00Z", "finishedAt": "2026-11-29T22:29:00Z"}}}]}}))
    };
    let event = |reason: &str, type_: &str, message: &str| {
        Event::from_value(&json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("api-0.{reason}"), "namespace": "shop", "uid": format!("e-{reason}")},
            "involvedObject": {"kind": "Pod", "name": "api-0", "namespace": "shop", "uid": "p"},
            "type": type_, "reason": reason, "message": message, "count": 30,
            "firstTimestamp": "2026-11-29T22:00:10Z", "lastTimestamp": "2026-11-29T22:29:50Z",
            "source": {"component": "kubelet"}}))
        .unwrap()
    };
    let events = vec![
        event(
            "Unhealthy",
            "Warning",
            "Startup probe failed: HTTP probe failed with statuscode: 503",
        ),
        event(
            "Killing",
            "Normal",
            "Container app failed startup probe, will be restarted",
        ),
    ];
    // Restarted by its startup probe, in back-off: the step names the
    // probe and its budget, not the readiness probe.
    let crashing = pod(
        5,
        json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 2m40s restarting failed container=app pod=api-0"}}),
    );
    let snap = Snapshot::new(
        vec![crashing.clone()],
        events.clone(),
        vec![],
        NOW.parse().unwrap(),
    );
    let text = step_text(&diagnose(&Judged::builtin(&snap), &crashing.uid));
    assert!(
        text.contains(
            "does not pass its startup probe (GET /healthz on port 8080, 30 × 10s = 300s allowed)"
        ),
        "{text}"
    );
    assert!(!text.contains("readiness"), "{text}");
    // Running, not started: the startup probe, not the readiness probe.
    let running = pod(1, json!({"running": {"startedAt": "2026-11-29T22:29:30Z"}}));
    let snap = Snapshot::new(vec![running.clone()], events, vec![], NOW.parse().unwrap());
    let d = diagnose(&Judged::builtin(&snap), &running.uid);
    assert_eq!(
        d.item.judgement.reason, "StartupProbeFailed",
        "{}",
        d.item.judgement.message
    );
    assert!(
        d.item.judgement.message.contains("startup probe failed"),
        "{}",
        d.item.judgement.message
    );
}

#[test]
fn an_init_container_that_never_exits_is_the_cause_and_is_bounded() {
    let pod = |started: &str| {
        obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "app-0", "namespace": "shop", "uid": "p", "creationTimestamp": "2026-11-29T22:00:00Z"},
            "spec": {"nodeName": "n1",
                "initContainers": [{"name": "wait-db", "image": "busybox", "command": ["sh", "-c", "until nc -z db 5432; do sleep 2; done"]}],
                "containers": [{"name": "app", "image": "app:1"}]},
            "status": {"phase": "Pending", "startTime": "2026-11-29T22:00:00Z",
                "conditions": [{"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized"},
                               {"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
                "initContainerStatuses": [{"name": "wait-db", "ready": false, "started": true, "restartCount": 0, "image": "busybox",
                    "state": {"running": {"startedAt": started}}}],
                "containerStatuses": [{"name": "app", "ready": false, "started": false, "restartCount": 0, "image": "app:1",
                    "state": {"waiting": {"reason": "PodInitializing"}}}]}}))
    };
    let judged = |p: &Object| {
        let snap = Snapshot::new(vec![p.clone()], vec![], vec![], NOW.parse().unwrap());
        diagnose(&Judged::builtin(&snap), &p.uid)
    };
    // Two minutes in: under way, and the init container is named.
    let d = judged(&pod("2026-11-29T22:28:00Z"));
    assert_eq!(
        (d.item.judgement.verdict, d.item.judgement.reason.as_str()),
        (Verdict::Progressing, "InitContainerRunning")
    );
    assert!(
        d.item
            .judgement
            .message
            .starts_with("init container wait-db is running"),
        "{}",
        d.item.judgement.message
    );
    // Twenty minutes in: past INIT_GRACE, Failed, and the step reads the
    // init container's logs.
    let d = judged(&pod("2026-11-29T22:10:00Z"));
    assert_eq!(
        (d.item.judgement.verdict, d.item.judgement.reason.as_str()),
        (Verdict::Failed, "InitContainerStuck")
    );
    assert_eq!(
        d.chain.last().unwrap().container.as_deref(),
        Some("wait-db")
    );
    let text = step_text(&d);
    assert!(
        text.contains("kubectl -n shop logs pod/app-0 -c wait-db"),
        "{text}"
    );
}

#[test]
fn a_missing_image_pull_secret_is_the_cause_not_the_image() {
    let pod = obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "p", "creationTimestamp": "2026-11-29T22:00:00Z"},
        "spec": {"nodeName": "n1", "imagePullSecrets": [{"name": "regcred"}],
            "containers": [{"name": "web", "image": "registry.example.com/shop/web:1"}]},
        "status": {"phase": "Pending", "startTime": "2026-11-29T22:00:00Z",
            "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
            "containerStatuses": [{"name": "web", "ready": false, "restartCount": 0, "image": "registry.example.com/shop/web:1",
                "state": {"waiting": {"reason": "ImagePullBackOff",
                    "message": "Back-off pulling image \"registry.example.com/shop/web:1\": ErrImagePull: pull access denied"}}}]}}));
    // The read plan asks for the Secret by name; it was not there.
    let reads = crate::relations::reads_for(std::slice::from_ref(&pod), &[], &[]);
    assert!(
        reads.iter().any(|r| matches!(&r.resource, crate::relations::Resource::Kind { kind, .. } if kind == "Secret")
            && r.expect == ["regcred"]),
        "{reads:?}"
    );
    let mut snap = Snapshot::new(vec![pod.clone()], vec![], vec![], NOW.parse().unwrap());
    snap.absent.push(ObjectRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        namespace: Some("shop".into()),
        name: "regcred".into(),
        uid: None,
    });
    let d = diagnose(&Judged::builtin(&snap), &pod.uid);
    let cause = d.root_cause.clone().unwrap();
    assert_eq!(
        (cause.reason.as_str(), cause.objects[0].kind.as_str()),
        ("NotFound", "Secret")
    );
    let text = step_text(&d);
    assert!(
        text.contains("pulls its images with Secret \"regcred\""),
        "{text}"
    );
    assert!(!text.contains("set image"), "{text}");
}

#[test]
fn a_paused_deployment_with_nothing_pending_is_not_told_to_roll_out() {
    // Its newest ReplicaSet runs its template as it is: nothing waits for
    // the resume.
    let (snap, dep) = load("deployment-paused-pending.yaml", NOW);
    let mut template = dep.at("/spec/template").unwrap().clone();
    template["metadata"]["labels"]["pod-template-hash"] = serde_json::json!("5d8f7c9b6");
    let rs = obj(serde_json::json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("{}-5d8f7c9b6", dep.name()), "namespace": dep.namespace(), "uid": "rs-now",
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": dep.name(), "uid": dep.uid, "controller": true}]},
        "spec": {"replicas": 1, "template": template},
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "observedGeneration": 1}
    }));
    let (with_rs, _) = with("deployment-paused-pending.yaml", vec![rs.clone()]);
    let d = diagnose(&Judged::builtin(&with_rs), &dep.uid);
    let text = step_text(&d);
    assert!(text.contains("nothing is pending"), "{text}");
    assert!(!text.contains("roll out pending changes"), "{text}");
    // A template changed while paused: the old words stand.
    let mut older = (*rs.raw).clone();
    older["spec"]["template"]["spec"]["containers"][0]["image"] =
        serde_json::json!("example.com/app:v1");
    let older = obj(older);
    let (pending, _) = with("deployment-paused-pending.yaml", vec![older]);
    let text = step_text(&diagnose(&Judged::builtin(&pending), &dep.uid));
    assert!(text.contains("roll out pending changes"), "{text}");
    let _ = snap;
}

#[test]
fn events_that_could_not_be_read_are_never_called_none() {
    let (snap, dep) = load("deployment-paused-pending.yaml", NOW);
    let gap = crate::model::Incomplete {
        resource: "events".into(),
        namespace: dep.namespace().map(str::to_string),
        error: "forbidden".into(),
    };
    let unread = Snapshot::new(snap.objects().to_vec(), vec![], vec![gap], snap.now);
    let d = diagnose(&Judged::builtin(&unread), &dep.uid);
    let note = d.events_note.unwrap_or_default();
    assert!(note.contains("could not be read (forbidden)"), "{note}");
    assert!(!note.contains("no events found"), "{note}");
    let d = diagnose(&Judged::builtin(&snap), &dep.uid);
    assert!(
        d.events_note
            .unwrap_or_default()
            .contains("no events found")
    );
}

#[test]
fn an_operator_scaled_to_zero_is_scaled_up_not_read_for_logs() {
    let workload = crate::model::ObjectRef {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        namespace: Some("cert-manager".into()),
        name: "cert-manager".into(),
        uid: Some("d".into()),
    };
    let check = crate::diagnose::controller::ControllerCheck {
        workload: Some(workload),
        workload_verdict: Some(crate::verdict::Verdict::Converged),
        workload_reason: Some(crate::verdict::reason::Workload::ScaledDown.into()),
        expired: true,
        down: true,
        ..Default::default()
    };
    let step = steps::controller_down(&check);
    assert!(step.text.contains("scaled to 0 replicas"), "{}", step.text);
    assert_eq!(
        step.commands.first().map(String::as_str),
        Some("kubectl -n cert-manager scale deployment/cert-manager --replicas=1"),
        "{:?}",
        step.commands
    );
    assert!(!step.commands.iter().any(|c| c.contains("--previous")));
}

#[test]
fn an_ownerless_replicaset_serving_beside_its_successor_is_found() {
    use serde_json::json;
    let rs = |name: &str, uid: &str, owner: Option<&str>| {
        let mut v = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "shop", "uid": uid, "labels": {"app": "web"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}});
        if let Some(o) = owner {
            v["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": o, "controller": true}]);
        }
        obj(v)
    };
    let pod = |name: &str, uid: &str, rs: (&str, &str)| {
        obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "uid": uid, "labels": {"app": "web"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs.0, "uid": rs.1, "controller": true}]},
            "spec": {"containers": [{"name": "web", "image": "web:2"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "state": {"running": {}}}]}}))
    };
    let service = obj(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop", "uid": "svc"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}));
    let snap = Snapshot::new(
        vec![
            service,
            deployment("web", "dep", "web"),
            rs("web-new", "rs-new", Some("dep")),
            rs("web-old", "rs-old", None),
            pod("web-new-a", "p1", ("web-new", "rs-new")),
            pod("web-old-b", "p2", ("web-old", "rs-old")),
        ],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let d = diagnose(&Judged::builtin(&snap), "svc");
    let found: Vec<&str> = d.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(
        found
            .iter()
            .any(|m| m.starts_with("ReplicaSet web-old has no owner and still serves")),
        "{found:?}"
    );
}
