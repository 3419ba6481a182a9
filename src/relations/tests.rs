//! Relations over real-shaped objects: each edge, the tree it makes, the
//! read plan, and the diagnosis that follows the edges to the root cause.

use crate::verdict::Judged;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::*;
use crate::graph::Graph;
use crate::model::{Event, ObjectRef, Snapshot};

const NOW: &str = "2026-01-10T12:00:00Z";

fn load(name: &str, absent: &[(&str, &str, Option<&str>, &str)]) -> Snapshot {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/relations"
    ))
    .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    load_text(&text, absent)
}

fn load_text(text: &str, absent: &[(&str, &str, Option<&str>, &str)]) -> Snapshot {
    let mut objects = Vec::new();
    let mut events = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let value = Value::deserialize(doc).unwrap();
        if value.get("kind").and_then(Value::as_str) == Some("Event") {
            events.push(Event::from_value(&value).unwrap());
        } else {
            objects.push(Object::from_value(value).unwrap());
        }
    }
    let mut snap = Snapshot::new(objects, events, vec![], NOW.parse().unwrap());
    snap.absent = absent
        .iter()
        .map(|(api, kind, ns, name)| ObjectRef {
            api_version: api.to_string(),
            kind: kind.to_string(),
            namespace: ns.map(str::to_string),
            name: name.to_string(),
            uid: None,
        })
        .collect();
    snap
}

/// `edge Kind/name` lines of a tree, indented by depth.
fn lines(snap: &Snapshot, root: &str) -> Vec<String> {
    let graph = Graph::new(snap);
    let t = tree(&Judged::builtin(snap), &graph, root);
    let mut out = Vec::new();
    fn walk(snap: &Snapshot, n: &Node, depth: usize, out: &mut Vec<String>) {
        let (kind, name, missing) = match &n.end {
            End::Found(uid) => {
                let o = snap.get(uid).unwrap();
                (o.kind().to_string(), o.name().to_string(), "")
            }
            End::Missing(r) => (r.kind.clone(), r.name.clone(), " (missing)"),
        };
        let edge = n.edge.map(|e| e.as_str()).unwrap_or("root");
        out.push(format!(
            "{}{edge} {kind}/{name}{missing}",
            "  ".repeat(depth)
        ));
        for c in &n.children {
            walk(snap, c, depth + 1, out);
        }
    }
    walk(snap, &t, 0, &mut out);
    out
}

const FAST: (&str, &str, Option<&str>, &str) = ("storage.k8s.io/v1", "StorageClass", None, "fast");

#[test]
fn a_pod_mounts_its_claim_and_the_claim_its_missing_class() {
    let snap = load("pvc-missing-class.yaml", &[FAST]);
    assert_eq!(
        lines(&snap, "d-db"),
        vec![
            "root Deployment/db",
            "  owns ReplicaSet/db-6c8f7b9d4",
            "    owns Pod/db-6c8f7b9d4-x7k2p",
            "      mounts PersistentVolumeClaim/data",
            "        mounts StorageClass/fast (missing)",
        ]
    );
    // Without the source's word that it is absent, nothing is claimed missing.
    let offline = load("pvc-missing-class.yaml", &[]);
    assert!(
        !lines(&offline, "d-db")
            .iter()
            .any(|l| l.contains("StorageClass"))
    );
}

#[test]
fn why_follows_the_claim_to_its_missing_class() {
    let snap = load("pvc-missing-class.yaml", &[FAST]);
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "d-db");
    let cause = d.root_cause.unwrap();
    assert_eq!(
        (cause.reason.as_str(), cause.objects[0].kind.as_str()),
        ("NotFound", "StorageClass")
    );
    let path: Vec<String> = d
        .chain
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l.edge.map(|e| e.as_str()).unwrap_or("-"),
                l.object.as_ref().unwrap().kind
            )
        })
        .collect();
    assert_eq!(
        path,
        vec![
            "- Deployment",
            "owns ReplicaSet",
            "owns Pod",
            "mounts PersistentVolumeClaim",
            "mounts StorageClass"
        ]
    );
    let step = &d.next_steps[0];
    assert!(
        step.text
            .contains("PersistentVolumeClaim/data asks for StorageClass \"fast\""),
        "{}",
        step.text
    );
    assert!(
        step.commands
            .contains(&"kubectl get storageclass".to_string()),
        "{:?}",
        step.commands
    );
}

#[test]
fn ingress_routes_to_its_services_and_missing_class_and_services_select_pods() {
    let snap = load(
        "service-ingress-hpa-pdb.yaml",
        &[("networking.k8s.io/v1", "IngressClass", None, "nginx")],
    );
    assert_eq!(
        lines(&snap, "ing"),
        vec![
            "root Ingress/shop",
            "  routes-to IngressClass/nginx (missing)",
            "  routes-to Service/payment",
            "  routes-to Service/web",
            "    selects Pod/web-5f7b8-good2",
            "    selects Pod/web-5f7b8-lost1",
            "      runs-on Node/node-b",
        ]
    );
    // A Ready node is context, not drawn.
    assert!(!lines(&snap, "svc-web").iter().any(|l| l.contains("node-a")));
}

#[test]
fn a_selector_that_matches_nothing_names_the_near_miss() {
    let snap = load("service-ingress-hpa-pdb.yaml", &[]);
    let svc = snap.get("svc-payment").unwrap();
    assert_eq!(
        near_miss(&snap, svc).as_deref(),
        Some(
            "pods carry app=payments (e.g. Pod/payments-7d9c5-abcde), the selector asks for app=payment"
        )
    );
    assert_eq!(near_miss(&snap, snap.get("svc-web").unwrap()), None);
}

#[test]
fn autoscaler_scales_and_budget_protects() {
    let snap = load("service-ingress-hpa-pdb.yaml", &[]);
    let hpa = lines(&snap, "hpa");
    assert_eq!(hpa[1], "  scales Deployment/web");
    let pdb = lines(&snap, "pdb");
    assert_eq!(
        &pdb[1..3],
        &[
            "  protects Pod/web-5f7b8-good2",
            "  protects Pod/web-5f7b8-lost1"
        ]
    );
}

#[test]
fn why_on_an_ingress_finds_the_lost_pods_node() {
    let snap = load("service-ingress-hpa-pdb.yaml", &[]);
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "svc-web");
    let last = d.chain.iter().rev().find_map(|l| l.object.clone()).unwrap();
    assert_eq!((last.kind.as_str(), last.name.as_str()), ("Node", "node-b"));
}

#[test]
fn a_terminating_namespace_contains_what_holds_it() {
    let snap = load("namespace-and-gitops.yaml", &[]);
    assert_eq!(
        lines(&snap, "ns-old"),
        vec!["root Namespace/old", "  contains Widget/stuck"]
    );
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "ns-old");
    let cause = d.root_cause.unwrap();
    assert_eq!(cause.objects[0].kind, "Widget");
    let commands = d.next_steps[0].commands.join("\n");
    assert!(
        commands.contains("get widget.example.com/stuck -o jsonpath='{.metadata.finalizers}'"),
        "{commands}"
    );
}

#[test]
fn gitops_inventories_are_managed() {
    let snap = load("namespace-and-gitops.yaml", &[]);
    assert_eq!(
        lines(&snap, "ks-apps"),
        vec![
            "root Kustomization/apps",
            "  manages Deployment/api",
            "  manages Service/api",
            "  manages Namespace/apps",
        ]
    );
    assert_eq!(
        lines(&snap, "app-api"),
        vec![
            "root Application/api",
            "  manages Deployment/api",
            "  manages Service/api"
        ]
    );
    assert_eq!(
        lines(&snap, "claim-db"),
        vec![
            "root PostgresInstance/db",
            "  manages XPostgresInstance/db-x7k2p",
            "    manages Instance/db-x7k2p-abcde",
        ]
    );
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "ks-apps");
    let cause = d.root_cause.unwrap();
    assert_eq!(
        (cause.objects[0].kind.as_str(), cause.reason.as_str()),
        ("Deployment", "ProgressDeadlineExceeded")
    );
}

fn plan(snap: &Snapshot) -> Vec<RelatedRead> {
    reads_for(snap.objects(), &snap.events, &[])
}

fn kind_of(r: &RelatedRead) -> &str {
    match &r.resource {
        Resource::Kind { kind, .. } => kind,
        Resource::EveryNamespacedType => "*",
    }
}

#[test]
fn a_container_waiting_on_its_configuration_has_the_keys_of_its_maps_read() {
    let pod = |reason: &str| {
        Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-7d9-abcde", "namespace": "shop", "uid": "p1"},
            "spec": {"serviceAccountName": "web", "containers": [{"name": "app", "image": "registry.example.com/app:1",
                "env": [{"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "app-config", "key": "LOG_LEVEL"}}},
                        {"name": "DB", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]}]},
            "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}],
                "containerStatuses": [{"name": "app", "ready": false, "restartCount": 0,
                    "state": {"waiting": {"reason": reason, "message": "couldn't find key LOG_LEVEL in ConfigMap shop/app-config"}}}]}}))
        .unwrap()
    };
    let managed = |objects: &[Object]| -> Vec<(String, bool)> {
        let mut v: Vec<(String, bool)> = reads_for(objects, &[], &[])
            .iter()
            .filter(|r| matches!(kind_of(r), "ConfigMap" | "Secret" | "ServiceAccount"))
            .map(|r| (kind_of(r).to_string(), r.managed_fields))
            .collect();
        v.sort();
        v
    };
    // The kubelet cannot build its configuration: the maps' keys (their
    // managedFields) are read, by name; the ServiceAccount's are not.
    assert_eq!(
        managed(&[pod("CreateContainerConfigError")]),
        [
            ("ConfigMap".to_string(), true),
            ("Secret".to_string(), true),
            ("ServiceAccount".to_string(), false)
        ]
    );
    // Failing otherwise: existence is enough.
    assert!(
        managed(&[pod("ImagePullBackOff")])
            .iter()
            .all(|(_, keys)| !keys)
    );
}

#[test]
fn the_plan_reads_existence_as_metadata_and_context_only_for_failures() {
    // The claim is unbound: its class is read by name; the pending pod's
    // references are read as metadata; nothing runs on a node yet.
    let mut objects: Vec<Object> = load("pvc-missing-class.yaml", &[]).objects().to_vec();
    objects.retain(|o| o.kind() != "ServiceAccount");
    let snap = Snapshot::new(objects, vec![], vec![], NOW.parse().unwrap());
    let reads = plan(&snap);
    let class = reads.iter().find(|r| kind_of(r) == "StorageClass").unwrap();
    assert_eq!(
        (&class.select, class.metadata_only),
        (&Select::Name("fast".into()), false)
    );
    let sa = reads
        .iter()
        .find(|r| kind_of(r) == "ServiceAccount")
        .unwrap();
    // Whether it exists is asked by name; the namespace's list only once
    // it was found missing, for the name it may have meant.
    assert!(sa.metadata_only && sa.select == Select::Name("default".into()));
    let missing = crate::model::ObjectRef {
        api_version: "v1".into(),
        kind: "ServiceAccount".into(),
        namespace: Some("shop".into()),
        name: "default".into(),
        uid: None,
    };
    let again = reads_for(snap.objects(), &snap.events, &[missing]);
    let sa = again
        .iter()
        .find(|r| kind_of(r) == "ServiceAccount")
        .unwrap();
    assert!(
        sa.metadata_only && sa.select == Select::All && sa.expect == vec!["default".to_string()],
        "{sa:?}"
    );
    assert!(
        reads
            .iter()
            .all(|r| !matches!(kind_of(r), "Secret" | "ConfigMap") || r.metadata_only)
    );

    // Nodes already read are not read again; a not-ready pod's
    // ServiceAccount is read as metadata.
    let snap = load("service-ingress-hpa-pdb.yaml", &[]);
    let reads = plan(&snap);
    assert!(!reads.iter().any(|r| kind_of(r) == "Node"), "{reads:?}");
    assert!(
        reads
            .iter()
            .filter(|r| kind_of(r) == "ServiceAccount")
            .all(|r| r.metadata_only)
    );
    assert!(reads.iter().any(|r| kind_of(r) == "IngressClass"));
    // A Service's pods come with its EndpointSlices; once those are read and
    // no pod matched, every pod's labels as metadata, for the near miss.
    assert!(!reads.iter().any(|r| kind_of(r) == "Pod"), "{reads:?}");
    let slice = Object::from_value(serde_json::json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "payment-x7k2p", "namespace": "shop", "uid": "eps",
            "labels": {"kubernetes.io/service-name": "payment"}}, "addressType": "IPv4", "endpoints": []}))
    .unwrap();
    let mut objects = snap.objects().to_vec();
    objects.push(slice);
    let reads = reads_for(&objects, &[], &[]);
    let pods: Vec<&RelatedRead> = reads.iter().filter(|r| kind_of(r) == "Pod").collect();
    assert_eq!(pods.len(), 1, "{pods:?}");
    assert!(pods[0].select == Select::All && pods[0].metadata_only);
    // With them, the workloads whose pod template the selector matches.
    let workloads: Vec<(&str, &Select)> = reads
        .iter()
        .filter(|r| matches!(kind_of(r), "Deployment" | "StatefulSet" | "DaemonSet"))
        .map(|r| (kind_of(r), &r.select))
        .collect();
    assert_eq!(workloads.len(), 3, "{reads:?}");
    assert!(
        workloads
            .iter()
            .all(|(_, s)| **s == Select::Template("app=payment".into())),
        "{workloads:?}"
    );
    // A budget whose pods were not read: its pods by its selector.
    let no_pods: Vec<Object> = objects.into_iter().filter(|o| o.kind() != "Pod").collect();
    let reads = reads_for(&no_pods, &[], &[]);
    assert!(reads.iter().any(|r| kind_of(r) == "Pod"
        && r.select == Select::Labels("app=web".into())
        && !r.metadata_only));

    // A Terminating namespace: every namespaced type, metadata only.
    let snap = load("namespace-and-gitops.yaml", &[]);
    let every = plan(&snap)
        .into_iter()
        .find(|r| r.resource == Resource::EveryNamespacedType)
        .unwrap();
    assert_eq!(
        (every.namespace.as_deref(), every.metadata_only),
        (Some("old"), true)
    );
}

#[test]
fn a_refused_creation_plans_the_reads_that_explain_it() {
    let rs = |message: &str| {
        Object::from_value(serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-5d8f9c", "namespace": "shop", "uid": "rs"},
            "spec": {"replicas": 1, "template": {"spec": {"serviceAccountName": "builder", "containers": [{"name": "web", "image": "web"}]}}},
            "status": {"replicas": 0, "conditions": [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                "message": message}]}}))
        .unwrap()
    };
    let cases = [
        (
            "pods \"web-5d8f9c-\" is forbidden: error looking up service account shop/builder: serviceaccount \"builder\" not found",
            "ServiceAccount",
        ),
        (
            "Internal error occurred: failed calling webhook \"deny.example.com\": failed to call webhook: Post \"https://hook.shop.svc:443/validate?timeout=10s\": no endpoints available for service \"hook\"",
            "ValidatingWebhookConfiguration",
        ),
        (
            "pods \"web-x\" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-binding' denied request: pinned",
            "ValidatingAdmissionPolicyBinding",
        ),
        (
            "pods \"web-x\" is forbidden: exceeded quota: compute, requested: requests.memory=2Gi, used: requests.memory=0, limited: requests.memory=1Gi",
            "ResourceQuota",
        ),
        (
            "pods \"web-x\" is forbidden: maximum memory usage per Container is 512Mi, but limit is 1Gi",
            "LimitRange",
        ),
        (
            "pods \"web-x\" is forbidden: violates PodSecurity \"restricted:latest\": runAsNonRoot != true",
            "Namespace",
        ),
    ];
    for (message, kind) in cases {
        let snap = Snapshot::new(vec![rs(message)], vec![], vec![], NOW.parse().unwrap());
        let reads = plan(&snap);
        assert!(
            reads.iter().any(|r| kind_of(r) == kind),
            "{kind}: {reads:?}"
        );
    }
}

#[test]
fn a_statefulset_mounts_the_claims_of_its_templates() {
    let sts = Object::from_value(serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "shop", "uid": "sts"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "db"}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                "resources": {"requests": {"storage": "1Gi"}}}}]},
        "status": {"replicas": 0}}))
    .unwrap();
    let claim = |name: &str| {
        Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "shop", "uid": name, "labels": {"app": "db"}},
            "spec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Pending"}}))
        .unwrap()
    };
    let mut snap = Snapshot::new(
        vec![sts, claim("data-db-0"), claim("data-db-1")],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    snap.absent = vec![ObjectRef {
        api_version: "storage.k8s.io/v1".into(),
        kind: "StorageClass".into(),
        namespace: None,
        name: "fast".into(),
        uid: None,
    }];
    assert_eq!(
        lines(&snap, "sts"),
        vec![
            "root StatefulSet/db",
            "  mounts PersistentVolumeClaim/data-db-0",
            "    mounts StorageClass/fast (missing)",
            "  mounts PersistentVolumeClaim/data-db-1",
        ]
    );
    let reads = plan(&Snapshot::new(
        vec![snap.get("sts").unwrap().clone()],
        vec![],
        vec![],
        NOW.parse().unwrap(),
    ));
    let claims: Vec<&RelatedRead> = reads
        .iter()
        .filter(|r| kind_of(r) == "PersistentVolumeClaim")
        .collect();
    assert_eq!(claims.len(), 2, "{claims:?}");
}

#[test]
fn a_sweep_merges_a_claim_into_the_deployment_that_waits_on_it() {
    use crate::model::Target;
    use crate::report::WhyReport;
    let snap = load("pvc-missing-class.yaml", &[FAST]);
    let targets = vec![
        Target::Found("pvc-data".into()),
        Target::Found("d-db".into()),
    ];
    let report = WhyReport::sweep(&Judged::builtin(&snap), &targets, 3);
    // The Deployment's only pod has been unschedulable past the hard-failure
    // grace, so it is Failed too (docs/verdicts.md).
    assert_eq!(
        report.summary.as_ref().unwrap().text(),
        "2 of 3 root objects not converged: 2 Failed"
    );
    assert_eq!(report.items.len(), 1);
    assert_eq!(report.items[0].item.object.kind, "Deployment");
    assert_eq!(report.items[0].same_cause[0].name, "data");
}

#[test]
fn a_sweep_ranks_a_crash_loop_above_a_selector_typo() {
    use crate::model::Target;
    use crate::report::WhyReport;
    let typo = load("service-ingress-hpa-pdb.yaml", &[]);
    let (crash, pod) =
        crate::testutil::load("pod-crashloop-oomkilled.yaml", "2026-11-29T22:30:00Z");
    let mut objects = typo.objects().to_vec();
    objects.extend(crash.objects().iter().cloned());
    let snap = Snapshot::new(objects, vec![], vec![], NOW.parse().unwrap());
    // The Service first in the input: the rank, not the order, decides.
    let targets = vec![
        Target::Found("svc-payment".into()),
        Target::Found(pod.uid.clone()),
    ];
    let report = WhyReport::sweep(&Judged::builtin(&snap), &targets, 2);
    let order: Vec<&str> = report
        .items
        .iter()
        .map(|d| d.item.object.kind.as_str())
        .collect();
    assert_eq!(order, vec!["Pod", "Service"]);
}

#[test]
fn a_pods_configmaps_and_secrets_are_drawn_only_when_missing() {
    let pod = Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "shop", "uid": "pod"},
        "spec": {"serviceAccountName": "default", "containers": [{"name": "web", "image": "web",
                "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "api-token", "key": "token"}}},
                        {"name": "OPT", "valueFrom": {"secretKeyRef": {"name": "maybe", "key": "k", "optional": true}}}]}],
            "volumes": [{"name": "kube-api-access-x7k2p", "projected": {"sources": [{"configMap": {"name": "kube-root-ca.crt"}}]}},
                        {"name": "config", "configMap": {"name": "web-config"}}]},
        "status": {"phase": "Pending", "containerStatuses": [{"name": "web", "ready": false, "restartCount": 0,
            "state": {"waiting": {"reason": "CreateContainerConfigError", "message": "secret \"api-token\" not found"}}}]}}))
    .unwrap();
    // As the source reads them: metadata only.
    let cm = Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "web-config", "namespace": "shop", "uid": "cm"}}))
    .unwrap();
    let sa = Object::from_value(
        serde_json::json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "default", "namespace": "shop", "uid": "sa"}}),
    )
    .unwrap();
    let mut snap = Snapshot::new(vec![pod, cm, sa], vec![], vec![], NOW.parse().unwrap());
    snap.absent = vec![ObjectRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        namespace: Some("shop".into()),
        name: "api-token".into(),
        uid: None,
    }];
    assert_eq!(
        lines(&snap, "pod"),
        vec!["root Pod/web-0", "  uses Secret/api-token (missing)"]
    );
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "pod");
    let step = &d.next_steps[0].text;
    assert!(
        step.starts_with(
            "Pod/web-0 needs Secret \"api-token\", which does not exist in namespace shop"
        ),
        "{step}"
    );
    // The optional reference is never read for.
    let reads = plan(&snap);
    let secrets = reads.iter().find(|r| kind_of(r) == "Secret").unwrap();
    assert_eq!(secrets.expect, vec!["api-token".to_string()]);
    assert!(secrets.metadata_only);
    // The injected token volume's kube-root-ca.crt is not the pod's own: no read for it.
    let without_cm = Snapshot::new(
        snap.objects()
            .iter()
            .filter(|o| o.kind() != "ConfigMap")
            .cloned()
            .collect(),
        vec![],
        vec![],
        NOW.parse().unwrap(),
    );
    let configmaps = plan(&without_cm)
        .into_iter()
        .find(|r| kind_of(r) == "ConfigMap")
        .unwrap();
    assert_eq!(configmaps.expect, vec!["web-config".to_string()]);
}

#[test]
fn failing_pods_read_at_most_eight_distinct_nodes() {
    let pod = |i: usize, node: usize| {
        Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("web-{i}"), "namespace": "shop", "uid": format!("p{i}")},
            "spec": {"nodeName": format!("node-{node}"), "containers": [{"name": "web", "image": "web"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}}))
        .unwrap()
    };
    // Ten failing pods on two nodes: both nodes read.
    let two: Vec<Object> = (0..10).map(|i| pod(i, i % 2)).collect();
    let nodes = reads_for(&two, &[], &[])
        .into_iter()
        .filter(|r| kind_of(r) == "Node")
        .count();
    assert_eq!(nodes, 2);
    // Twenty failing pods on twenty nodes: eight, each by name (a list of
    // nodes would be the whole cluster).
    let many: Vec<Object> = (0..20).map(|i| pod(i, i)).collect();
    let reads = reads_for(&many, &[], &[]);
    let node_reads: Vec<&RelatedRead> = reads.iter().filter(|r| kind_of(r) == "Node").collect();
    assert_eq!(node_reads.len(), 8);
    assert!(
        node_reads
            .iter()
            .all(|r| matches!(r.select, Select::Name(_)))
    );
}

/// The plan reads each object and event once: ready pods that each name a
/// ServiceAccount, a ConfigMap and a node, with an event each, are planned
/// in time that grows with their number, not its square (a pass per pod
/// over every object, as before, took seconds at 5,000). The growth is
/// measured, not the time: 8 times the pods may cost at most 24 times the
/// shortest of three runs (linear is 8, quadratic 64), whatever the
/// machine's load; a minute is only a guard against a hang.
#[test]
fn the_plan_is_linear_in_the_objects_and_events() {
    let world = |n: usize| {
        let mut objects = Vec::new();
        let mut events = Vec::new();
        for i in 0..n {
            let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("big-{i}"), "namespace": "bench", "uid": format!("p{i}")},
                "spec": {"nodeName": format!("node-{}", i % 13), "serviceAccountName": "default",
                         "containers": [{"name": "c", "image": "x",
                            "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "k"}}}]}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
            objects.push(Object::from_value(pod).unwrap());
            let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("e{i}"), "namespace": "bench", "uid": format!("e{i}")},
                "involvedObject": {"kind": "Pod", "name": format!("big-{i}"), "namespace": "bench", "uid": format!("p{i}")},
                "reason": "Scheduled", "message": "ok", "type": "Normal", "count": 1});
            events.push(Event::from_value(&event).unwrap());
        }
        (objects, events)
    };
    let shortest = |n: usize| {
        let (objects, events) = world(n);
        (0..3)
            .map(|_| {
                let started = std::time::Instant::now();
                let reads = reads_for(&objects, &events, &[]);
                assert!(reads.is_empty(), "ready pods need no context: {reads:?}");
                started.elapsed()
            })
            .min()
            .unwrap()
    };
    let small = shortest(1_000);
    let large = shortest(8_000);
    assert!(
        large < small * 24 + std::time::Duration::from_millis(5),
        "1,000 pods: {small:?}; 8,000: {large:?}"
    );
    assert!(large < std::time::Duration::from_secs(60), "{large:?}");
}

/// `edge Kind/name` lines of what `tree` draws for the target named so.
fn users_lines(snap: &Snapshot, kind: &str, name: &str) -> Vec<String> {
    let root = snap
        .objects()
        .iter()
        .find(|o| o.kind() == kind && o.name() == name)
        .unwrap();
    let graph = Graph::new(snap);
    let t = tree_with_users(&Judged::builtin(snap), &graph, &root.uid);
    let mut out = Vec::new();
    t.walk(&mut |n| {
        let o = snap.get(n.uid().unwrap()).unwrap();
        let edge = n.edge.map(|e| e.as_str()).unwrap_or("root");
        out.push(format!("{edge} {}/{}", o.kind(), o.name()));
    });
    out
}

#[test]
fn a_tree_of_what_pods_use_lists_who_uses_it() {
    let snap = load("users.yaml", &[]);
    // envFrom in the Deployment's pods, and an optional volume of a pod of
    // its own: the workload with its tree, and the pod.
    assert_eq!(
        users_lines(&snap, "ConfigMap", "checkout-config"),
        vec![
            "root ConfigMap/checkout-config",
            "used-by Deployment/checkout",
            "owns ReplicaSet/checkout-7b7dbf4db9",
            "owns Pod/checkout-7b7dbf4db9-cqfs5",
            "owns Pod/checkout-7b7dbf4db9-dxp6v",
            "used-by Pod/lone",
        ]
    );
    // Every pod runs as a ServiceAccount, the default one unless named.
    assert_eq!(
        users_lines(&snap, "ServiceAccount", "default")[1..],
        [
            "used-by Deployment/checkout",
            "owns ReplicaSet/checkout-7b7dbf4db9",
            "owns Pod/checkout-7b7dbf4db9-cqfs5",
            "owns Pod/checkout-7b7dbf4db9-dxp6v",
            "used-by Pod/lone",
            "used-by Pod/other",
            "used-by Pod/puller",
        ]
    );
    // A pull secret, and a PriorityClass.
    assert_eq!(
        users_lines(&snap, "Secret", "registry"),
        ["root Secret/registry", "used-by Pod/puller"]
    );
    assert_eq!(
        users_lines(&snap, "PriorityClass", "high"),
        ["root PriorityClass/high", "used-by Pod/puller"]
    );
    // A node hosts pods, drawn themselves: their workloads run elsewhere too.
    assert_eq!(
        users_lines(&snap, "Node", "kwok-node-1"),
        [
            "root Node/kwok-node-1",
            "hosts Pod/checkout-7b7dbf4db9-dxp6v",
            "hosts Pod/lone",
            "hosts Pod/other",
        ]
    );
    // `why` does not go there: the users of a node are its effects.
    let node = snap.objects().iter().find(|o| o.kind() == "Node").unwrap();
    let graph = Graph::new(&snap);
    assert!(
        tree(&Judged::builtin(&snap), &graph, &node.uid)
            .children
            .is_empty()
    );
}

#[test]
fn the_pods_read_for_users_are_narrowed_where_the_api_allows() {
    let snap = load("users.yaml", &[]);
    let of = |kind: &str| {
        let o = snap.objects().iter().find(|o| o.kind() == kind).unwrap();
        pods_to_read(o, Some("shop"))
    };
    assert_eq!(
        of("Node"),
        Some(PodsToRead {
            namespace: None,
            fields: Some("spec.nodeName=kwok-node-1".into())
        })
    );
    assert_eq!(
        of("ConfigMap"),
        Some(PodsToRead {
            namespace: Some("u1".into()),
            fields: None
        })
    );
    assert_eq!(
        of("PriorityClass"),
        Some(PodsToRead {
            namespace: Some("shop".into()),
            fields: None
        })
    );
    assert_eq!(of("Deployment"), None);
}

#[test]
fn under_a_gitops_object_its_own_message_ranks_the_cause_and_each_cause_gets_a_step() {
    // The Kustomization also applies a Job that failed, listed first; its
    // Ready message names the Deployment it waits for.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/relations/namespace-and-gitops.yaml");
    let text = std::fs::read_to_string(path).unwrap().replacen(
        "    - {id: apps_api_apps_Deployment, v: v1}",
        "    - {id: apps_migrate_batch_Job, v: v1}\n    - {id: apps_api_apps_Deployment, v: v1}",
        1,
    ) + r#"---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: apps, uid: job-migrate, generation: 1, creationTimestamp: "2026-01-10T11:00:00Z"}
spec: {backoffLimit: 1, completions: 1, template: {spec: {restartPolicy: Never, containers: [{name: migrate, image: migrate:1}]}}}
status:
  failed: 2
  startTime: "2026-01-10T11:00:00Z"
  conditions:
  - {type: FailureTarget, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit, lastTransitionTime: "2026-01-10T11:05:00Z"}
  - {type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit, lastTransitionTime: "2026-01-10T11:05:00Z"}
"#;
    let snap = load_text(&text, &[]);
    let d = crate::diagnose::diagnose(&Judged::builtin(&snap), "ks-apps");
    let kinds: Vec<&str> = d
        .causes
        .iter()
        .map(|c| c.objects[0].kind.as_str())
        .collect();
    // Both Failed once: without the message, the Job (listed first) would lead.
    assert_eq!(kinds[..2], ["Deployment", "Job"], "{:#?}", d.causes);
    let steps: Vec<String> = d
        .next_steps
        .iter()
        .map(|s| format!("{} {}", s.text, s.commands.join(" ")))
        .collect();
    assert!(
        steps.iter().any(|s| s.contains("deployment/api"))
            && steps.iter().any(|s| s.contains("job/migrate")),
        "{steps:#?}"
    );
}

#[test]
fn every_way_a_pod_names_a_secret_or_a_claim_makes_it_a_user() {
    // Not only `secret` volumes and env: a CSI driver's publish secret, a
    // cephfs secretRef, azureFile's secretName, an ephemeral container's
    // env, and a generic ephemeral volume's claim (`<pod>-<volume>`).
    let pod = Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "db-0", "namespace": "shop", "uid": "pod"},
        "spec": {"containers": [{"name": "db", "image": "db"}],
            "ephemeralContainers": [{"name": "debug", "image": "busybox",
                "env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "debug-token", "key": "t"}}}]}],
            "volumes": [
                {"name": "vault", "csi": {"driver": "secrets-store.csi.k8s.io", "nodePublishSecretRef": {"name": "csi-creds"}}},
                {"name": "share", "cephfs": {"monitors": ["10.0.0.1:6789"], "secretRef": {"name": "ceph-key"}}},
                {"name": "files", "azureFile": {"secretName": "azure-key", "shareName": "s"}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}}}}}}]}}))
    .unwrap();
    let target = |kind: &str, name: &str| {
        Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": kind,
            "metadata": {"name": name, "namespace": "shop", "uid": name}}))
        .unwrap()
    };
    for (kind, name) in [
        ("Secret", "csi-creds"),
        ("Secret", "ceph-key"),
        ("Secret", "azure-key"),
        ("Secret", "debug-token"),
        ("PersistentVolumeClaim", "db-0-scratch"),
    ] {
        assert_eq!(
            uses(&pod, &target(kind, name)),
            Some(Edge::UsedBy),
            "{kind}/{name}"
        );
    }
    assert_eq!(uses(&pod, &target("Secret", "other")), None);
    // The volume's own name is not a Secret.
    assert_eq!(uses(&pod, &target("Secret", "vault")), None);
}

#[test]
fn a_gateway_route_routes_to_its_gateways_and_backend_services() {
    // An HTTPRoute as the Gateway API defines it (v1): parentRefs default
    // to a Gateway of gateway.networking.k8s.io, backendRefs to a core
    // Service in the route's namespace.
    let route = crate::model::Object::from_value(serde_json::json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "shop", "namespace": "shop", "uid": "r"},
        "spec": {
            "parentRefs": [{"name": "edge", "namespace": "infra", "sectionName": "https"},
                           {"name": "mesh", "group": "", "kind": "Service"}],
            "hostnames": ["shop.example.com"],
            "rules": [
                {"matches": [{"path": {"type": "PathPrefix", "value": "/api"}}],
                 "backendRefs": [{"name": "api", "port": 8080, "weight": 90},
                                 {"name": "api-canary", "port": 8080, "weight": 10}]},
                {"backendRefs": [{"name": "web", "port": 80}, {"name": "api", "port": 8080},
                                 {"name": "bucket", "group": "storage.example.com", "kind": "Bucket"}]}
            ]
        },
        "status": {"parents": [{"parentRef": {"name": "edge", "namespace": "infra"},
            "controllerName": "example.com/gateway",
            "conditions": [{"type": "Accepted", "status": "True"}, {"type": "ResolvedRefs", "status": "True"}]}]}
    }))
    .unwrap();
    let got: Vec<String> = crate::relations::named(&route)
        .into_iter()
        .map(|(edge, n)| {
            format!(
                "{} {}/{} in {}",
                edge.as_str(),
                n.kind,
                n.name,
                n.namespace.unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "routes-to Gateway/edge in infra",
            "routes-to Service/api in shop",
            "routes-to Service/api-canary in shop",
            "routes-to Service/web in shop",
        ]
    );
}

#[test]
fn a_statefulsets_claims_for_ordinals_not_made_yet_are_not_missing() {
    let sts = |policy: &str| {
        Object::from_value(serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "shop", "uid": "sts"},
            "spec": {"replicas": 3, "podManagementPolicy": policy, "selector": {"matchLabels": {"app": "db"}},
                "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}}}}]},
            "status": {"replicas": 1}}))
        .unwrap()
    };
    let claim = Object::from_value(
        serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-db-0", "namespace": "shop", "uid": "c0"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Bound"}}),
    )
    .unwrap();
    let absent = |n: &str| ObjectRef {
        api_version: "v1".into(),
        kind: "PersistentVolumeClaim".into(),
        namespace: Some("shop".into()),
        name: n.into(),
        uid: None,
    };
    for (policy, want) in [
        (
            "OrderedReady",
            vec![
                "root StatefulSet/db",
                "  mounts PersistentVolumeClaim/data-db-0",
            ],
        ),
        (
            "Parallel",
            vec![
                "root StatefulSet/db",
                "  mounts PersistentVolumeClaim/data-db-0",
                "  mounts PersistentVolumeClaim/data-db-1 (missing)",
                "  mounts PersistentVolumeClaim/data-db-2 (missing)",
            ],
        ),
    ] {
        let mut snap = Snapshot::new(
            vec![sts(policy), claim.clone()],
            vec![],
            vec![],
            NOW.parse().unwrap(),
        );
        snap.absent = vec![absent("data-db-1"), absent("data-db-2")];
        assert_eq!(lines(&snap, "sts"), want, "{policy}");
    }
}

/// The kinds that make Secrets are listed only once the Secret is found
/// missing: a failing pod whose Secret exists costs no list of them.
#[test]
fn a_secret_s_makers_are_read_only_once_it_is_found_missing() {
    let snap = load_text(
        r#"
apiVersion: v1
kind: Pod
metadata:
  name: billing-5d8c7b6f9-q2w8e
  namespace: shop
  uid: pod-billing
  creationTimestamp: "2026-01-10T11:00:00Z"
spec:
  serviceAccountName: default
  containers: [{name: app, image: example.com/billing:1, envFrom: [{secretRef: {name: billing-db}}]}]
status:
  phase: Pending
  conditions:
  - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: "2026-01-10T11:00:00Z"}
  containerStatuses:
  - name: app
    image: example.com/billing:1
    imageID: ""
    ready: false
    restartCount: 0
    started: false
    state: {waiting: {reason: CreateContainerConfigError, message: secret "billing-db" not found}}
"#,
        &[],
    );
    let makers = |reads: &[RelatedRead]| -> std::collections::BTreeSet<String> {
        reads
            .iter()
            .filter(|r| {
                matches!(
                    kind_of(r),
                    "ExternalSecret" | "SealedSecret" | "Certificate"
                )
            })
            .map(|r| kind_of(r).to_string())
            .collect()
    };
    let first = plan(&snap);
    let secret = first.iter().find(|r| kind_of(r) == "Secret").unwrap();
    assert_eq!(secret.select, Select::Name("billing-db".into()));
    assert!(makers(&first).is_empty(), "{first:?}");
    let missing = ObjectRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        namespace: Some("shop".into()),
        name: "billing-db".into(),
        uid: None,
    };
    let again = reads_for(snap.objects(), &snap.events, &[missing]);
    assert_eq!(
        makers(&again),
        ["Certificate", "ExternalSecret", "SealedSecret"]
            .map(String::from)
            .into()
    );
    assert!(
        again
            .iter()
            .filter(|r| kind_of(r) == "ExternalSecret")
            .all(|r| r.namespace.as_deref() == Some("shop") && r.select == Select::All)
    );
}
