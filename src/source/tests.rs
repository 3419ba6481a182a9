//! The request budget of each question, proven over an in-memory cluster
//! that records every request: the discovery documents are the ones the
//! v1.36 test cluster serves, the objects are real shapes.

use crate::verdict::Judged;
use serde_json::{Value, json};

use super::crawl::{Earlier, Settle};
use super::live::{Ask, FetchError, Fetched, Mode};
use super::memory::{Memory, Request, by_path};
use super::read::{METADATA, METADATA_LIST, METADATA_LIST_PROTOBUF, Read, Reader};
use crate::catalog::Catalog;
use crate::model::{Object, Target};
use crate::targets::{Scope, TargetSpec};

/// The aggregated discovery documents of the test cluster, with one CRD.
pub(crate) fn catalog() -> Catalog {
    let read = |name: &str| -> Value {
        let path = format!(
            "{}/tests/fixtures/discovery/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_slice(&std::fs::read(&path).expect("discovery fixture")).unwrap()
    };
    Catalog::from_aggregated(&[&read("api.json"), &read("apis.json")])
}

fn deployment(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop", "uid": format!("{name}-d"), "generation": 1,
                     "labels": {"app": name}, "creationTimestamp": "2026-01-10T10:00:00Z",
                     "managedFields": [{"manager": "kubectl", "operation": "Apply", "time": "2026-01-10T10:00:00Z"}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
        "status": {"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas,
                   "availableReplicas": replicas, "updatedReplicas": replicas}})
}

fn replicaset(deploy: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": format!("{deploy}-7d9"), "namespace": "shop", "uid": format!("{deploy}-rs"),
                     "labels": {"app": deploy, "pod-template-hash": "7d9"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": deploy,
                                          "uid": format!("{deploy}-d"), "controller": true}]},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": deploy}}},
        "status": {"observedGeneration": 1, "replicas": 1, "readyReplicas": 1, "availableReplicas": 1}})
}

fn pod(deploy: &str, i: usize, owned: bool) -> Value {
    let owners = if owned {
        json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{deploy}-7d9"),
                "uid": format!("{deploy}-rs"), "controller": true}])
    } else {
        json!([])
    };
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{deploy}-7d9-{i}"), "namespace": "shop", "uid": format!("{deploy}-pod-{i}"),
                     "labels": {"app": deploy}, "ownerReferences": owners},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "nodeName": "kwok-node-0"},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                   "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "state": {"running": {}}}]}})
}

fn event(about: &str, uid: &str, i: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{about}.{i}"), "namespace": "shop", "uid": format!("ev-{uid}-{i}")},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": about, "namespace": "shop", "uid": uid},
        "reason": "Pulled", "message": "pulled", "type": "Normal", "count": 1,
        "lastTimestamp": "2026-01-10T10:00:00Z"})
}

fn secret() -> Value {
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop", "uid": "s1"},
           "data": {"password": "c2VjcmV0"}})
}

fn web() -> Vec<Value> {
    let mut objects = vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "uid": "ns"}}),
        deployment("web", 3),
        replicaset("web"),
        secret(),
    ];
    objects.extend((0..3).map(|i| pod("web", i, true)));
    objects.push(event("web-7d9-0", "web-pod-0", 0));
    objects
}

async fn ask(
    memory: &Memory,
    catalog: &Catalog,
    targets: &[TargetSpec],
    mode: Mode,
    earlier: Option<Earlier>,
) -> Result<Fetched, FetchError> {
    ask_as(memory, catalog, targets, mode, earlier, false).await
}

/// [`ask`]; `live`: the answer stays live (`--watch`, `wait`).
async fn ask_as(
    memory: &Memory,
    catalog: &Catalog,
    targets: &[TargetSpec],
    mode: Mode,
    earlier: Option<Earlier>,
    live: bool,
) -> Result<Fetched, FetchError> {
    let scope = Scope::Namespace("shop".into());
    asker(memory, catalog, live, None)
        .fetch(targets, &scope, mode, earlier)
        .await
}

/// Questions over the in-memory reader, in namespace `shop` unless told.
fn asker<'a>(
    memory: &'a Memory,
    catalog: &'a Catalog,
    live: bool,
    settle: Option<&'a dyn Settle>,
) -> Ask<'a, Memory> {
    Ask {
        reader: memory,
        catalog,
        stale: &[],
        server: "127.0.0.1:6443",
        default_namespace: "shop",
        live,
        settle,
        sweep_labels: None,
        impersonation: &[],
    }
}

fn name(type_: &str, name: &str) -> TargetSpec {
    TargetSpec::Name {
        type_: type_.into(),
        name: name.into(),
    }
}

/// One question with no events read before, answered.
fn answer(memory: &Memory, catalog: &Catalog, target: TargetSpec, mode: Mode) -> Fetched {
    run(ask(memory, catalog, &[target], mode, None)).unwrap()
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// `Kind/name` of each target found.
fn found_names(fetched: &Fetched) -> Vec<String> {
    fetched
        .targets
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => fetched
                .snapshot
                .get(uid)
                .map(|o| format!("{}/{}", o.kind(), o.name())),
            Target::Missing(_) => None,
        })
        .collect()
}

fn paths(requests: &[Request]) -> Vec<String> {
    let mut p: Vec<String> = requests.iter().map(|r| r.path.clone()).collect();
    p.sort();
    p
}

#[test]
fn a_healthy_deployment_tree_is_three_reads() {
    let cat = catalog();
    let memory = Memory::new(web());
    let fetched = answer(
        &memory,
        &cat,
        name("deploy", "web"),
        Mode::Tree { owners: false },
    );
    // No events: nothing in the tree needs one to explain its verdict.
    assert_eq!(
        paths(&memory.requests()),
        [
            "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb&limit=500",
            "/apis/apps/v1/namespaces/shop/deployments/web",
            "/apis/apps/v1/namespaces/shop/replicasets?labelSelector=app%3Dweb&limit=500",
        ]
    );
    assert_eq!(fetched.snapshot.objects().len(), 5);
    assert!(matches!(fetched.targets[..], [Target::Found(ref uid)] if uid == "web-d"));
    // Watched: the get as a list by name, the two lists, and the events
    // of the namespace from now on (none was read), so that --watch
    // explains a pod that turns unhealthy later.
    assert_eq!(fetched.watches.len(), 4);
    let events: Vec<&Read> = fetched
        .watches
        .iter()
        .map(|w| &w.read)
        .filter(|r| r.is_events())
        .collect();
    assert!(
        matches!(events[..], [r] if r.is_starting_now() && r.namespace.as_deref() == Some("shop")),
        "{events:#?}"
    );
}

#[test]
fn a_pod_that_is_not_ready_has_its_own_events_read() {
    let cat = catalog();
    let mut objects = web();
    objects[5]["status"]["conditions"] = json!([{"type": "Ready", "status": "False"}]);
    objects.push(event("web-7d9-1", "web-pod-1", 1));
    let memory = Memory::new(objects);
    let fetched = answer(
        &memory,
        &cat,
        name("deploy", "web"),
        Mode::Tree { owners: false },
    );
    let events: Vec<String> = memory.paths_containing("/events");
    assert_eq!(
        events,
        ["/api/v1/namespaces/shop/events?fieldSelector=involvedObject.uid%3Dweb-pod-1&limit=500"]
    );
    assert_eq!(fetched.snapshot.events.len(), 1);
}

#[test]
fn why_reads_the_namespace_events_beside_the_first_reads() {
    let cat = catalog();
    let memory = Memory::new(web());
    let fetched = answer(&memory, &cat, name("deploy", "web"), Mode::Why);
    let events: Vec<String> = memory.paths_containing("/events");
    assert_eq!(events, ["/api/v1/namespaces/shop/events?limit=500"]);
    assert_eq!(fetched.snapshot.events.len(), 1);
}

/// A kwok node as the test cluster's, Ready or not.
fn node(name: &str, ready: bool) -> Value {
    let status = if ready { "True" } else { "Unknown" };
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("{name}-uid"), "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"},
            {"type": "Ready", "status": status, "reason": if ready { "KubeletReady" } else { "NodeStatusUnknown" }}]}})
}

#[test]
fn why_reads_no_events_of_the_healthy_nodes_an_unschedulable_pod_is_kept_off() {
    let cat = catalog();
    let mut stuck = pod("stuck", 0, false);
    stuck["spec"] = json!({"containers": [{"name": "c", "image": "nginx"}], "nodeSelector": {"disktype": "ssd"}});
    stuck["status"] = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "lastTransitionTime": "2026-01-10T10:00:00Z",
        "message": "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}]});
    let mut objects = web();
    objects.push(stuck);
    objects.extend([
        node("kwok-node-0", true),
        node("kwok-node-1", true),
        node("kwok-node-2", false),
    ]);
    let memory = Memory::new(objects);
    let fetched = answer(&memory, &cat, name("pod", "stuck-7d9-0"), Mode::Why);
    assert_eq!(
        fetched
            .snapshot
            .objects()
            .iter()
            .filter(|o| o.kind() == "Node")
            .count(),
        3,
        "the nodes are read, to name what keeps the pod off them"
    );
    // Each node's events are a search of every event in the cluster: only
    // the node that is not Ready has its own read.
    assert_eq!(
        memory.paths_containing("/events"),
        [
            "/api/v1/namespaces/shop/events?limit=500",
            "/api/v1/events?fieldSelector=involvedObject.uid%3Dkwok-node-2-uid&limit=500",
        ]
    );
}

#[test]
fn why_reads_no_events_of_the_leases_it_reads_to_find_a_controller() {
    let cat = catalog();
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "generation": 2,
                     "creationTimestamp": "2026-01-10T10:00:00Z"},
        "spec": {"size": 3},
        "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True",
            "reason": "Reconciled", "lastTransitionTime": "2026-01-10T10:00:00Z"}]}});
    let mut objects = web();
    objects.push(widget);
    for ns in ["ops-a", "ops-b", "ops-c"] {
        objects.push(json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": format!("{ns}-leader"), "namespace": ns, "uid": format!("{ns}-lease")},
            "spec": {"holderIdentity": format!("{ns}-manager-5d8f9_1c2b"), "leaseDurationSeconds": 15,
                     "renewTime": "2026-01-10T10:00:00.000000Z"}}));
        let mut e = event("x", "y", 0);
        e["metadata"]["namespace"] = json!(ns);
        e["involvedObject"]["namespace"] = json!(ns);
        objects.push(e);
    }
    let memory = Memory::new(objects);
    answer(&memory, &cat, name("widget", "w"), Mode::Why);
    // Its status lags its spec: every Lease but the nodes' is read, to
    // find the controller; those that match nothing are not kept, and the
    // namespaces they are in have no events read.
    assert_eq!(memory.paths_containing("/leases?fieldSelector").len(), 1);
    assert_eq!(
        memory.paths_containing("/events"),
        ["/api/v1/namespaces/shop/events?limit=500"]
    );
}

#[test]
fn managed_fields_are_kept_only_for_why_and_only_on_its_targets() {
    let cat = catalog();
    let mut objects = web();
    let entries = json!([{"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
        "time": "2026-01-10T10:00:05Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:phase": {}}}}]);
    for o in objects.iter_mut() {
        o["metadata"]["managedFields"] = entries.clone();
    }
    let memory = Memory::new(objects);
    let tree = answer(
        &memory,
        &cat,
        name("deploy", "web"),
        Mode::Tree { owners: false },
    );
    let why = answer(&memory, &cat, name("deploy", "web"), Mode::Why);
    // Whole: the field sets below each part are there.
    let whole = |f: &Fetched, uid: &str| {
        f.snapshot
            .get(uid)
            .unwrap()
            .at("/metadata/managedFields/0/fieldsV1/f:status/f:phase")
            .is_some()
    };
    // Reduced: who wrote which part when, which the judge reads.
    let reduced = |f: &Fetched, uid: &str| {
        let o = f.snapshot.get(uid).unwrap();
        o.str("/metadata/managedFields/0/manager") == Some("kubelet")
            && o.at("/metadata/managedFields/0/fieldsV1/f:status")
                .is_some()
            && o.at("/metadata/managedFields/0/apiVersion").is_none()
    };
    assert!(!whole(&tree, "web-d") && reduced(&tree, "web-d"));
    assert!(whole(&why, "web-d"));
    // The generation check reads the target's; the pods below keep who
    // wrote them only.
    assert!(!whole(&why, "web-pod-0") && reduced(&why, "web-pod-0"));
}

#[test]
fn a_busy_namespace_gives_a_small_tree_its_events_by_uid() {
    let cat = catalog();
    let mut objects = web();
    objects.extend((0..1200).map(|i| event("other", "other-uid", i)));
    let memory = Memory::new(objects);
    let fetched = answer(&memory, &cat, name("deploy", "web"), Mode::Why);
    let requests = memory.requests();
    let event_reads: Vec<&str> = requests
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| p.contains("/events"))
        .collect();
    // One page of the namespace, then one read per object of the tree (5).
    assert_eq!(event_reads.len(), 6, "{event_reads:#?}");
    assert!(
        event_reads
            .iter()
            .filter(|p| p.contains("involvedObject.uid"))
            .count()
            == 5
    );
    assert_eq!(
        fetched.snapshot.events.len(),
        1,
        "only the tree's own events"
    );
}

#[test]
fn a_failing_pod_s_service_account_is_looked_up_without_keeping_the_namespace_s() {
    let cat = catalog();
    let mut objects = web();
    objects[4]["spec"]["serviceAccountName"] = json!("builder");
    objects[4]["status"]["conditions"] = json!([{"type": "Ready", "status": "False"}]);
    let account = |name: &str| {
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": name, "namespace": "shop", "uid": format!("sa-{name}")}})
    };
    objects.extend((0..40).map(|i| account(&format!("robot-{i}"))));
    objects.push(account("builder"));
    objects.push(account("builders"));
    objects.extend((0..1200).map(|i| event("other", "other-uid", i)));
    let accounts = |fetched: &Fetched| -> Vec<String> {
        let mut names: Vec<String> = fetched
            .snapshot
            .objects()
            .iter()
            .filter(|o| o.kind() == "ServiceAccount")
            .map(|o| o.name().to_string())
            .collect();
        names.sort_unstable();
        names
    };
    let memory = Memory::new(objects.clone());
    let fetched = answer(&memory, &cat, name("deploy", "web"), Mode::Why);
    // It exists: asked for by name, and the namespace's 42 are not listed.
    assert_eq!(accounts(&fetched), ["builder"]);
    assert_eq!(
        memory.paths_containing("serviceaccounts"),
        ["/api/v1/namespaces/shop/serviceaccounts/builder"]
    );
    // Missing (a typo): then the list, for the name "did you mean" offers,
    // keeping the close ones only, not the other 40, which would each
    // want their events.
    let mut typo = objects.clone();
    typo[4]["spec"]["serviceAccountName"] = json!("buildr");
    let memory_typo = Memory::new(typo);
    let missed = answer(&memory_typo, &cat, name("deploy", "web"), Mode::Why);
    assert_eq!(accounts(&missed), ["builder", "builders"]);
    assert_eq!(
        memory_typo.paths_containing("serviceaccounts"),
        [
            "/api/v1/namespaces/shop/serviceaccounts/buildr",
            "/api/v1/namespaces/shop/serviceaccounts?limit=500"
        ]
    );
    let absent: Vec<&str> = missed
        .snapshot
        .absent
        .iter()
        .filter(|a| a.kind == "ServiceAccount")
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(
        absent,
        ["buildr"],
        "missing once, though asked twice (the snapshot names each once)"
    );
    // The busy namespace's page once, then by uid: never a page again.
    let pages: Vec<String> = memory
        .paths_containing("/events")
        .into_iter()
        .filter(|p| !p.contains("involvedObject.uid"))
        .collect();
    assert_eq!(pages, ["/api/v1/namespaces/shop/events?limit=500"]);
    assert_eq!(fetched.snapshot.events.len(), 1, "the tree's own");
}

#[test]
fn a_busy_namespace_with_a_large_tree_is_read_page_by_page() {
    let cat = catalog();
    let mut objects = vec![deployment("big", 30), replicaset("big")];
    objects.extend((0..30).map(|i| pod("big", i, true)));
    objects.extend((0..1200).map(|i| event("big-7d9-0", "big-pod-0", i)));
    let memory = Memory::new(objects);
    let fetched = answer(&memory, &cat, name("deploy", "big"), Mode::Why);
    let pages = memory.paths_containing("/events").len();
    assert_eq!(pages, 3, "1,200 events in pages of 500");
    assert_eq!(fetched.snapshot.events.len(), 1200);
}

#[test]
fn lists_are_paged() {
    let cat = catalog();
    let mut objects = vec![deployment("big", 1200), replicaset("big")];
    objects.extend((0..1200).map(|i| pod("big", i, true)));
    let memory = Memory::new(objects);
    let fetched = answer(
        &memory,
        &cat,
        name("deploy", "big"),
        Mode::Tree { owners: false },
    );
    let pod_pages: Vec<String> = memory.paths_containing("/pods?");
    assert_eq!(
        pod_pages,
        [
            "/api/v1/namespaces/shop/pods?labelSelector=app%3Dbig&limit=500",
            "/api/v1/namespaces/shop/pods?labelSelector=app%3Dbig&limit=500&continue=500",
            "/api/v1/namespaces/shop/pods?labelSelector=app%3Dbig&limit=500&continue=1000",
        ]
    );
    assert_eq!(fetched.snapshot.objects().len(), 1202);
}

#[test]
fn no_secret_or_configmap_is_ever_read_in_full() {
    let cat = catalog();
    let mut objects = web();
    objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cfg", "namespace": "shop", "uid": "cm1",
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "w1", "controller": true}]},
        "data": {"k": "v"}}));
    objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "generation": 1}, "spec": {}, "status": {}}));
    let memory = Memory::new(objects);
    let targets = [
        name("secret", "db"),
        name("configmap", "cfg"),
        name("widget", "w"),
    ];
    for mode in [Mode::Tree { owners: true }, Mode::Status, Mode::Why] {
        let fetched = run(ask(&memory, &cat, &targets, mode, None)).unwrap();
        for o in fetched.snapshot.objects() {
            assert!(o.raw.get("data").is_none(), "{mode:?}: {:?}", o.id);
        }
    }
    let swept = run(ask(&memory, &cat, &[], Mode::Status, None)).unwrap();
    assert!(
        !swept
            .snapshot
            .objects()
            .iter()
            .any(|o| o.raw.get("data").is_some())
    );
    for r in memory.requests() {
        if r.path.contains("/secrets") || r.path.contains("/configmaps") {
            assert!(
                [METADATA, METADATA_LIST, METADATA_LIST_PROTOBUF].contains(&r.accept),
                "a full read of {}",
                r.path
            );
        }
    }
}

/// Settles ready Widgets; records every root it is asked about and every
/// list it is told to forget.
#[derive(Default)]
struct Recorded {
    seen: std::sync::Mutex<Vec<String>>,
    forgotten: std::sync::Mutex<Vec<String>>,
}

impl Settle for Recorded {
    fn settle(&self, _: &Read, obj: &crate::model::Object) -> bool {
        self.seen.lock().unwrap().push(obj.name().to_string());
        obj.kind() == "Widget" && obj.condition("Ready").is_some_and(|c| c.is_true())
    }
    fn forget(&self, list: &Read) {
        self.forgotten.lock().unwrap().push(list.rt.kind.clone());
    }
    fn forget_except(&self, _: &Read, _: &dyn Fn(Option<&str>, &str) -> bool) {}
    fn unsettle(&self, _: &crate::model::Object) {}
}

#[test]
fn what_was_settled_of_a_list_that_failed_is_forgotten() {
    let cat = catalog();
    let mut objects = web();
    objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w1", "namespace": "shop", "uid": "w1"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}}));
    let memory = Memory::new(objects).forbid("widgets");
    let settle = Recorded::default();
    let ask = asker(&memory, &cat, false, Some(&settle));
    let fetched =
        run(ask.fetch(&[], &Scope::Namespace("shop".into()), Mode::Status, None)).unwrap();
    assert!(
        fetched
            .gaps
            .incomplete
            .iter()
            .any(|g| g.resource.starts_with("widgets")),
        "{:?}",
        fetched.gaps.incomplete
    );
    assert_eq!(
        settle.forgotten.into_inner().unwrap().len(),
        1,
        "the Widget list only"
    );
}

#[test]
fn a_sweep_keeps_only_the_roots_its_settler_does_not_answer_for() {
    let cat = catalog();
    let mut objects = web();
    for (name, ready) in [("w1", "True"), ("w2", "False"), ("w3", "True")] {
        objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": "shop", "uid": name, "generation": 1},
            "spec": {}, "status": {"conditions": [{"type": "Ready", "status": ready}]}}));
    }
    // An owned Widget is no root: the settler never sees it.
    let mut owned = objects.last().unwrap().clone();
    owned["metadata"]["name"] = "w4".into();
    owned["metadata"]["uid"] = "w4".into();
    owned["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "Deployment",
        "name": "web", "uid": "web-d", "controller": true}]);
    objects.push(owned);
    let memory = Memory::new(objects);
    let settle = Recorded::default();
    let ask = asker(&memory, &cat, false, Some(&settle));
    let fetched =
        run(ask.fetch(&[], &Scope::Namespace("shop".into()), Mode::Status, None)).unwrap();
    let mut kept: Vec<String> = fetched
        .targets
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => fetched.snapshot.get(uid).map(|o| o.name().to_string()),
            Target::Missing(_) => None,
        })
        .collect();
    kept.sort();
    assert_eq!(kept, ["w2", "web"]);
    assert!(fetched.snapshot.get("w1").is_none() && fetched.snapshot.get("w3").is_none());
    let mut seen = settle.seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(
        seen,
        ["w1", "w2", "w3", "web"],
        "every root of a full list, no owned one"
    );
    assert!(settle.forgotten.into_inner().unwrap().is_empty());
    // The same requests as a sweep that keeps every object.
    let settled_requests = paths(&memory.requests());
    let again = Memory::new(web());
    let _ = run(ask_as(&again, &cat, &[], Mode::Status, None, false));
    assert_eq!(
        settled_requests.len(),
        paths(&again.requests()).len(),
        "{settled_requests:#?}"
    );
}

#[test]
fn a_live_sweep_seeds_its_watches_with_the_roots_it_kept_and_has_them_settle_the_rest() {
    let cat = catalog();
    let mut objects = web();
    for (name, ready) in [("w1", "True"), ("w2", "False")] {
        objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": "shop", "uid": name, "resourceVersion": "7"},
            "status": {"conditions": [{"type": "Ready", "status": ready}]}}));
    }
    let memory = Memory::new(objects);
    let settle = Recorded::default();
    let ask = asker(&memory, &cat, true, Some(&settle));
    let fetched =
        run(ask.fetch(&[], &Scope::Namespace("shop".into()), Mode::Status, None)).unwrap();
    let widgets = fetched
        .watches
        .iter()
        .find(|w| w.read.rt.kind == "Widget")
        .expect("the Widget list is watched");
    assert_eq!(widgets.settles, Some(false), "its watch settles its roots");
    let seeded: Vec<&str> = widgets
        .from
        .as_ref()
        .expect("seeded from the sweep")
        .objects
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(seeded, ["w2"], "the settled root is its row alone");
    // Lists the settler never saw settle nothing when watched.
    assert!(
        fetched
            .watches
            .iter()
            .filter(|w| w.read.is_metadata_only())
            .all(|w| w.settles.is_none())
    );
}

#[test]
fn a_custom_resource_root_searches_every_type_as_metadata_then_reads_its_children() {
    let cat = catalog();
    let mut objects = web();
    objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "generation": 1}, "spec": {}, "status": {}}));
    let mut owned = deployment("child", 1);
    owned["metadata"]["ownerReferences"] = json!([{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "w1", "controller": true}]);
    objects.push(owned);
    let memory = Memory::new(objects);
    let fetched = answer(
        &memory,
        &cat,
        name("widget", "w"),
        Mode::Tree { owners: false },
    );
    let requests = memory.requests();
    let metadata_lists = requests
        .iter()
        .filter(|r| r.accept == METADATA_LIST_PROTOBUF)
        .count();
    let listable = cat
        .types
        .iter()
        .filter(|t| t.namespaced && t.can("list"))
        .filter(|t| !matches!(t.plural.as_str(), "events" | "endpoints"))
        .count();
    assert_eq!(
        metadata_lists, listable,
        "one metadata-only list per namespaced type"
    );
    // The child found by owner uid is read in full with one GET.
    let full_gets: Vec<&str> = requests
        .iter()
        .filter(|r| r.accept == "application/json" && !r.path.contains('?'))
        .map(|r| r.path.as_str())
        .collect();
    assert!(
        full_gets.contains(&"/apis/apps/v1/namespaces/shop/deployments/child"),
        "{full_gets:#?}"
    );
    let child = fetched
        .snapshot
        .get("child-d")
        .expect("the child is in the tree");
    assert!(!child.metadata_only);
    // The metadata lists of every type are not watched; the Secret list
    // is not either, since the tree holds no Secret.
    assert!(
        fetched.watches.iter().all(|w| w.read.rt.kind != "Secret"),
        "{:#?}",
        fetched.watches
    );
    assert!(fetched.watches.iter().all(|w| !w.read.is_metadata_only()));
}

#[test]
fn a_live_answer_starts_each_watch_from_what_it_read_with_what_a_list_would_hold() {
    let cat = catalog();
    let mut objects = web();
    objects.push(pod("bare", 0, false));
    objects.push(event("bare-7d9-0", "bare-pod-0", 0));
    let memory = Memory::new(objects);
    let uids = |items: &[Value]| -> Vec<String> {
        let mut uids: Vec<String> = items
            .iter()
            .filter_map(|v| v.pointer("/metadata/uid").and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        uids.sort();
        uids
    };
    let questions = [
        (vec![], Mode::Status),
        (vec![name("deploy", "web")], Mode::Tree { owners: false }),
        (vec![name("deploy", "web")], Mode::Why),
    ];
    for (targets, mode) in questions {
        let fetched = run(ask_as(&memory, &cat, &targets, mode, None, true)).unwrap();
        assert!(!fetched.watches.is_empty());
        for w in &fetched.watches {
            if w.read.is_starting_now() {
                // Only the version is read for those, when the watch starts.
                assert!(w.from.is_none(), "{:?}", w.read);
                continue;
            }
            let seed = w
                .from
                .as_ref()
                .unwrap_or_else(|| panic!("{mode:?}: {:?} would be listed again", w.read));
            assert_eq!(seed.resource_version, "1", "{:?}", w.read);
            // The seed is what a list of the watched read holds.
            let listed = run(memory.list(&w.read)).unwrap();
            let seeded: Vec<Value> = if w.read.is_events() {
                let mut uids: Vec<Value> = seed
                    .events
                    .iter()
                    .map(|e| json!({"metadata": {"uid": e.uid}}))
                    .collect();
                uids.sort_by_key(|v| v.to_string());
                uids
            } else {
                seed.objects.iter().map(|o| (*o.raw).clone()).collect()
            };
            assert_eq!(uids(&seeded), uids(&listed.items), "{mode:?}: {:?}", w.read);
            if !w.read.is_metadata_only() {
                assert!(
                    seed.objects.iter().all(|o| !o.metadata_only),
                    "{:?}",
                    w.read
                );
            }
        }
        // The sweep's bare pod is watched by a roots-only list of full pods.
        if targets.is_empty() {
            let pods = fetched
                .watches
                .iter()
                .find(|w| w.read.rt.kind == "Pod" && w.read.labels.is_none())
                .expect("the pods are watched");
            let seed = pods.from.as_ref().unwrap();
            assert!(
                matches!(&seed.objects[..], [p] if p.name() == "bare-7d9-0" && !p.metadata_only)
            );
        }
        // An answer that ends at once keeps nothing for the watches.
        let once = run(ask(&memory, &cat, &targets, mode, None)).unwrap();
        assert!(once.watches.iter().all(|w| w.from.is_none()));
    }
}

#[test]
fn a_sweep_with_labels_but_no_type_asks_the_server_for_only_those_roots() {
    let cat = catalog();
    let mut objects = web();
    objects.push(pod("bare", 0, false));
    let memory = Memory::new(objects);
    let mut asked = asker(&memory, &cat, false, None);
    asked.sweep_labels = Some("app=web");
    let fetched =
        run(asked.fetch(&[], &Scope::Namespace("shop".into()), Mode::Status, None)).unwrap();
    let roots = found_names(&fetched);
    assert_eq!(roots, ["Deployment/web"]);
    // Every list of the sweep carries the selector, but the slices read
    // for the Services' verdicts.
    let requests = memory.requests();
    let unfiltered: Vec<&str> = requests
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| p.contains('?') && !p.contains("labelSelector=app%3Dweb"))
        .filter(|p| !p.contains("endpointslices") && !p.contains("/events"))
        .collect();
    assert!(unfiltered.is_empty(), "{unfiltered:?}");
}

#[test]
fn a_sweep_reads_pods_as_metadata_and_only_bare_ones_in_full() {
    let cat = catalog();
    let mut objects = web();
    objects.extend((3..600).map(|i| pod("web", i, true)));
    objects.push(pod("bare", 0, false));
    let mut orphan = replicaset("gone");
    orphan["metadata"]["ownerReferences"] = json!([]);
    objects.push(orphan);
    let memory = Memory::new(objects);
    let fetched = run(ask(&memory, &cat, &[], Mode::Status, None)).unwrap();
    let roots = found_names(&fetched);
    assert_eq!(
        roots,
        ["Deployment/web", "Pod/bare-7d9-0", "ReplicaSet/gone-7d9"]
    );
    let requests = memory.requests();
    let full_pod_reads: Vec<&Request> = requests
        .iter()
        .filter(|r| r.path.contains("/pods") && r.accept == "application/json")
        .collect();
    assert_eq!(
        full_pod_reads
            .iter()
            .map(|r| r.path.as_str())
            .collect::<Vec<_>>(),
        ["/api/v1/namespaces/shop/pods/bare-7d9-0"]
    );
    assert!(
        !fetched
            .snapshot
            .objects()
            .iter()
            .any(|o| o.kind() == "Pod" && o.name() == "web-7d9-5")
    );
    let per_path = by_path(&requests);
    assert_eq!(
        per_path.get("/api/v1/namespaces/shop/pods"),
        Some(&2),
        "two pages of metadata"
    );
    // The paged metadata lists start first: they are the sweep's long pole.
    let first_list = requests
        .iter()
        .position(|r| r.path.contains("limit="))
        .unwrap();
    assert!(
        requests[first_list]
            .accept
            .contains("PartialObjectMetadataList"),
        "{:?}",
        requests[first_list]
    );
    // --watch keeps the pods current with a list that holds only roots:
    // memory follows the bare pods, not the 600 in the namespace.
    let pods = fetched
        .watches
        .iter()
        .map(|w| &w.read)
        .find(|r| r.rt.kind == "Pod" && r.labels.is_none() && r.fields.is_none())
        .expect("the pods are watched");
    assert!(!pods.is_metadata_only());
    let listed = run(memory.list(pods)).unwrap();
    let names: Vec<&str> = listed
        .items
        .iter()
        .filter_map(|v| v.pointer("/metadata/name").and_then(Value::as_str))
        .collect();
    assert_eq!(names, ["bare-7d9-0"]);
}

#[test]
fn a_sweep_that_can_read_nothing_is_an_error_and_a_partial_one_names_its_gaps() {
    let cat = catalog();
    let mut all = Memory::new(web());
    for t in cat.types.iter().filter(|t| t.namespaced) {
        all = all.forbid(&t.plural);
    }
    let err = run(ask(&all, &cat, &[], Mode::Status, None))
        .err()
        .expect("an error");
    assert!(
        err.to_string()
            .contains("could not read any object in namespace \"shop\""),
        "{err}"
    );
    let some = Memory::new(web()).forbid("deployments");
    let fetched = run(ask(&some, &cat, &[], Mode::Status, None)).unwrap();
    assert!(
        fetched
            .snapshot
            .incomplete
            .iter()
            .any(|g| g.resource == "deployments.apps" && g.error == "forbidden"),
        "{:?}",
        fetched.snapshot.incomplete
    );
}

#[test]
fn a_sweep_whose_owner_kind_cannot_be_read_lists_what_it_owns_as_roots() {
    // The user may read ReplicaSets and pods but not Deployments: the
    // ReplicaSet's controller cannot be read, so it is a root (judged,
    // with the gap named), never "No objects found".
    let cat = catalog();
    let memory = Memory::new(web()).forbid("deployments");
    let fetched = run(ask(&memory, &cat, &[], Mode::Status, None)).unwrap();
    let roots: Vec<String> = fetched
        .targets
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => fetched.snapshot.get(uid),
            Target::Missing(_) => None,
        })
        .map(|o| format!("{}/{}", o.kind(), o.name()))
        .collect();
    assert!(
        roots.contains(&"ReplicaSet/web-7d9".to_string()),
        "{roots:?}"
    );
    // Its pods have a readable controller: they stay below it.
    assert!(
        !roots.iter().any(|r| r.starts_with("Pod/web-")),
        "{roots:?}"
    );
    // Read again only where a dropped object named the unread kind.
    let replicaset_lists = memory
        .requests()
        .iter()
        .filter(|r| r.path.contains("/replicasets?"))
        .count();
    assert_eq!(replicaset_lists, 2, "{:?}", memory.requests());
    // With nothing forbidden, nothing is read twice.
    let all = Memory::new(web());
    run(ask(&all, &cat, &[], Mode::Status, None)).unwrap();
    assert_eq!(
        all.requests()
            .iter()
            .filter(|r| r.path.contains("/replicasets?"))
            .count(),
        1
    );
}

#[test]
fn a_missing_target_in_a_missing_namespace_is_an_error_and_a_missing_target_is_watched() {
    let cat = catalog();
    let mut objects = web();
    objects.retain(|o| o["kind"] != "Namespace");
    let memory = Memory::new(objects);
    let err = run(ask(
        &memory,
        &cat,
        &[name("deploy", "nope")],
        Mode::Status,
        None,
    ))
    .err()
    .expect("no namespace");
    assert!(
        err.to_string().starts_with("namespace \"shop\" not found"),
        "{err}"
    );
    let memory = Memory::new(web());
    let fetched = answer(&memory, &cat, name("deploy", "nope"), Mode::Status);
    assert!(matches!(fetched.targets[..], [Target::Missing(_)]));
    assert!(
        fetched
            .watches
            .iter()
            .any(|w| w.read.fields.as_deref() == Some("metadata.name=nope")),
        "wait must see it appear: {:?}",
        fetched.watches
    );
}

#[test]
fn a_name_not_found_reads_one_page_of_its_type_for_a_close_name() {
    let cat = catalog();
    let memory = Memory::new(web());
    let fetched = answer(&memory, &cat, name("deploy", "wbe"), Mode::Status);
    let pages: Vec<String> = paths(&memory.requests())
        .into_iter()
        .filter(|p| p.contains("/deployments?"))
        .collect();
    assert_eq!(
        pages,
        ["/apis/apps/v1/namespaces/shop/deployments?limit=500"]
    );
    let Target::Missing(id) = &fetched.targets[0] else {
        panic!("{:?}", fetched.targets)
    };
    assert_eq!(fetched.snapshot.close_name(id), Some("web"));
    // Found, it costs nothing more.
    let memory = Memory::new(web());
    answer(&memory, &cat, name("deploy", "web"), Mode::Status);
    assert!(
        !paths(&memory.requests())
            .iter()
            .any(|p| p.contains("/deployments?")),
        "{:?}",
        memory.requests()
    );
}

#[test]
fn a_name_not_found_in_a_busy_namespace_reads_its_newest_events_only() {
    let cat = catalog();
    let mut objects = web();
    objects.extend((0..30).map(|i| deployment(&format!("web-{i:02}"), 1)));
    objects.extend((0..600).map(|i| event("web-7d9-0", "web-pod-0", i + 1)));
    let memory = Memory::new(objects);
    let fetched = answer(&memory, &cat, name("deploy", "wbe"), Mode::Why);
    // The 31 Deployments of the page read for "did you mean" are not the
    // tree of the missing one: their events are not paged through.
    assert_eq!(
        memory.paths_containing("/events"),
        ["/api/v1/namespaces/shop/events?limit=500"]
    );
    let Target::Missing(id) = &fetched.targets[0] else {
        panic!("{:?}", fetched.targets)
    };
    assert_eq!(fetched.snapshot.close_name(id), Some("web"));
    assert_eq!(fetched.snapshot.events.len(), 500);
}

#[test]
fn a_tree_under_a_kind_that_owns_nothing_lists_no_type_it_does_not_need() {
    let cat = catalog();
    let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
        "metadata": {"name": "web", "namespace": "shop", "uid": "i1", "generation": 1},
        "spec": {"rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix",
            "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}});
    let policy = json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": "deny", "namespace": "shop", "uid": "np1", "generation": 1},
        "spec": {"podSelector": {}}});
    let mut objects = web();
    objects.extend([ingress, policy]);
    for target in [name("ingress", "web"), name("networkpolicy", "deny")] {
        let memory = Memory::new(objects.clone());
        answer(&memory, &cat, target.clone(), Mode::Tree { owners: false });
        let lists: Vec<String> = paths(&memory.requests())
            .into_iter()
            .filter(|p| p.contains("limit="))
            .collect();
        // The relations only (the Service an Ingress routes to, the pods a
        // policy selects), never a list of every type to find children.
        assert!(lists.len() <= 2, "{target:?}: {lists:?}");
    }
}

/// An Ingress that asks cert-manager's ingress-shim for a Certificate,
/// where the cached catalog lacks cert-manager: its tree leans on the
/// list of types (discovery is revalidated); a plain one does not.
#[test]
fn an_ingress_for_the_shim_without_cert_manager_in_the_catalog_revalidates() {
    let cat = catalog();
    assert!(cat.by_kind("cert-manager.io", "Certificate").is_none());
    let ingress = |annotations: Value, tls: Value| {
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "shop", "namespace": "shop", "uid": "i1", "generation": 1,
                "annotations": annotations},
            "spec": {"tls": tls, "rules": [{"host": "shop.example.com", "http": {"paths": [{"path": "/",
                "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}})
    };
    let tls = json!([{"hosts": ["shop.example.com"], "secretName": "shop-tls"}]);
    let leaned = |ingress: Value| {
        let mut objects = web();
        objects.push(ingress);
        let memory = Memory::new(objects);
        let target = name("ingress", "shop");
        run(ask(
            &memory,
            &cat,
            &[target],
            Mode::Tree { owners: false },
            None,
        ))
        .unwrap()
        .leaned_on_types
    };
    let issuer = json!({"cert-manager.io/cluster-issuer": "letsencrypt"});
    assert!(leaned(ingress(issuer.clone(), tls.clone())));
    assert!(leaned(ingress(
        json!({"kubernetes.io/tls-acme": "true"}),
        tls.clone()
    )));
    assert!(!leaned(ingress(json!({}), tls)));
    assert!(!leaned(ingress(issuer, json!([]))));
}

#[test]
fn services_without_endpoints_share_one_list_of_workloads_and_each_finds_its_own() {
    let cat = catalog();
    let service = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "shop", "uid": format!("{name}-s")},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80}]}})
    };
    let scaled_to_zero = |name: &str| {
        let mut d = deployment(name, 0);
        d["metadata"]["labels"] = json!({});
        d
    };
    // The slices the EndpointSlice controller writes for a Service whose
    // selector matches no pod: no endpoints.
    let slice = |name: &str| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": format!("{name}-abcde"), "namespace": "shop", "uid": format!("{name}-es"),
                "labels": {"kubernetes.io/service-name": name}},
            "addressType": "IPv4", "endpoints": []})
    };
    let memory = Memory::new(vec![
        service("cart"),
        service("pay"),
        slice("cart"),
        slice("pay"),
        scaled_to_zero("cart"),
        scaled_to_zero("pay"),
    ]);
    let fetched = run(ask(
        &memory,
        &cat,
        &[name("service", "cart"), name("service", "pay")],
        Mode::Why,
        None,
    ))
    .unwrap();
    let lists = paths(&memory.requests())
        .into_iter()
        .filter(|p| p.starts_with("/apis/apps/v1/namespaces/shop/deployments?"))
        .count();
    assert_eq!(lists, 1, "{:?}", memory.requests());
    for wanted in ["cart", "pay"] {
        assert!(
            fetched
                .snapshot
                .objects()
                .iter()
                .any(|o| o.kind() == "Deployment" && o.name() == wanted),
            "the Deployment that would make {wanted}'s pods is read"
        );
    }
}

#[test]
fn absent_owners_are_kept_as_gaps() {
    let cat = catalog();
    let mut objects = web();
    objects.retain(|o| o["kind"] != "Deployment");
    let memory = Memory::new(objects);
    let fetched = answer(&memory, &cat, name("rs", "web-7d9"), Mode::Why);
    assert_eq!(fetched.gaps.absent.len(), 1);
    assert_eq!(fetched.gaps.absent[0].name, "web");
    assert_eq!(fetched.snapshot.absent, fetched.gaps.absent);
}

#[test]
fn a_second_read_of_the_same_question_does_not_read_events_again() {
    let cat = catalog();
    let memory = Memory::new(web());
    let first = answer(&memory, &cat, name("deploy", "web"), Mode::Why);
    let before = memory.requests().len();
    run(ask(
        &memory,
        &cat,
        &[name("deploy", "web")],
        Mode::Why,
        Some(Earlier {
            events: first.events_read,
            swept: Default::default(),
        }),
    ))
    .unwrap();
    let events_again = memory.requests()[before..]
        .iter()
        .filter(|r| r.path.contains("/events"))
        .count();
    assert_eq!(events_again, 0);
}

#[test]
fn long_owner_chains_are_read_level_by_level_and_cut_with_a_gap() {
    let cat = catalog();
    let depth = super::crawl::OWNER_DEPTH + 5;
    let objects: Vec<Value> = (0..depth)
        .map(|i| {
            let owners = if i + 1 < depth {
                json!([{"apiVersion": "example.com/v1", "kind": "Widget", "name": format!("w{}", i + 1),
                        "uid": format!("u{}", i + 1), "controller": true}])
            } else {
                json!([])
            };
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": format!("w{i}"), "namespace": "shop", "uid": format!("u{i}"), "ownerReferences": owners}})
        })
        .collect();
    let memory = Memory::new(objects);
    let fetched = run(ask(&memory, &cat, &[name("widget", "w0")], Mode::Why, None)).unwrap();
    assert!(
        fetched
            .snapshot
            .incomplete
            .iter()
            .any(|g| g.resource == "owner chain" && g.error.contains("256")),
        "{:?}",
        fetched.snapshot.incomplete
    );
    assert_eq!(fetched.snapshot.get("u256").map(|o| o.name()), Some("w256"));
}

#[test]
fn only_answers_that_go_through_every_type_revalidate_discovery_first() {
    use super::plan::needs_every_type;
    let cat = catalog();
    let list = |type_: &str| TargetSpec::Type {
        type_: type_.into(),
        selector: None,
    };
    // Named built-in types with known edges: the cached catalog serves.
    assert!(!needs_every_type(&cat, &[name("deploy", "web")], true));
    assert!(!needs_every_type(
        &cat,
        &[list("deploy,rs"), name("cj", "nightly")],
        true
    ));
    assert!(!needs_every_type(&cat, &[name("pod", "web-0")], true));
    // `status` reads only the target and its context, whatever its kind.
    assert!(!needs_every_type(&cat, &[name("widget", "w")], false));
    assert!(!needs_every_type(&cat, &[name("ingress", "shop")], false));
    // A sweep, a category, a spelling the catalog does not know, and a
    // tree searched in every type need the whole list fresh.
    assert!(needs_every_type(&cat, &[], false));
    assert!(needs_every_type(&cat, &[list("all")], false));
    assert!(needs_every_type(&cat, &[name("gizmo", "g")], false));
    assert!(needs_every_type(&cat, &[name("widget", "w")], true));
    // An Ingress and a NetworkPolicy own nothing found by every type.
    assert!(!needs_every_type(&cat, &[name("ingress", "shop")], true));
    assert!(!needs_every_type(&cat, &[name("netpol", "deny")], true));
    assert!(needs_every_type(
        &cat,
        &[TargetSpec::Manifest {
            api_version: "example.com/v2".into(),
            kind: "Gadget".into(),
            namespace: None,
            name: "g".into(),
        }],
        false
    ));
}

#[test]
fn a_read_that_leans_on_the_list_of_types_says_so() {
    let cat = catalog();
    let tree = Mode::Tree { owners: false };
    let leaned = |objects: Vec<Value>, target: TargetSpec, mode: Mode| {
        let memory = Memory::new(objects);
        run(ask(&memory, &cat, &[target], mode, None))
            .unwrap()
            .leaned_on_types
    };
    assert!(!leaned(web(), name("deploy", "web"), tree));
    assert!(!leaned(web(), name("rs", "web-7d9"), Mode::Why));
    // The fallback lists every type.
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w1"}, "spec": {}, "status": {}});
    let mut objects = web();
    objects.push(widget);
    assert!(leaned(objects, name("widget", "w"), tree));
    // An owner of a kind the catalog does not know.
    let mut objects = web();
    objects[1]["metadata"]["ownerReferences"] = json!([{"apiVersion": "gizmo.example/v1",
        "kind": "Gizmo", "name": "g", "uid": "g1", "controller": true}]);
    assert!(leaned(objects, name("deploy", "web"), Mode::Why));
    // A manager its labels name, of a kind the cached catalog lacks (a
    // CRD installed since the cache was written).
    let mut objects = web();
    objects[1]["metadata"]["labels"] = json!({"kustomize.toolkit.fluxcd.io/name": "apps",
        "kustomize.toolkit.fluxcd.io/namespace": "flux-system"});
    assert!(leaned(objects, name("deploy", "web"), Mode::Why));
}

/// One definition of a sweep's roots: the live sweep and a snapshot of the
/// same objects judge the same ones. An orphaned ReplicaSet and a
/// ResourceQuota are roots (both have status); a ConfigMap is not.
#[test]
fn a_snapshot_and_the_live_sweep_judge_the_same_roots() {
    let cat = catalog();
    let mut orphan = replicaset("gone");
    orphan["metadata"]["ownerReferences"] = json!([]);
    orphan["spec"]["replicas"] = json!(2);
    let quota = json!({"apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "compute", "namespace": "shop", "uid": "rq"},
        "spec": {"hard": {"pods": "10"}}, "status": {"hard": {"pods": "10"}, "used": {"pods": "4"}}});
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "shop", "uid": "cm"}, "data": {"k": "v"}});
    let mut objects = web();
    objects.extend([orphan, quota, config]);
    let label = |snap: &crate::model::Snapshot, targets: &[Target]| -> Vec<String> {
        let mut out: Vec<String> = targets
            .iter()
            .filter_map(|t| match t {
                Target::Found(uid) => snap.get(uid).map(|o| format!("{}/{}", o.kind(), o.name())),
                Target::Missing(_) => None,
            })
            .collect();
        out.sort();
        out
    };
    let memory = Memory::new(objects.clone());
    let fetched = run(ask(&memory, &cat, &[], Mode::Status, None)).unwrap();
    let live = label(&fetched.snapshot, &fetched.targets);
    assert_eq!(
        live,
        [
            "Deployment/web",
            "ReplicaSet/gone-7d9",
            "ResourceQuota/compute"
        ]
    );
    // The live snapshot, found again as `--watch` and `why`'s count do.
    let again = super::offline::resolve(&fetched.snapshot, &[], Some("shop"), None).unwrap();
    assert_eq!(label(&fetched.snapshot, &again), live);
    // The same objects as a snapshot file.
    let mut builder = super::builder::SnapshotBuilder::new();
    builder.objects(
        objects
            .into_iter()
            .map(|v| crate::model::Object::from_value(v).unwrap()),
    );
    let file = builder.build(jiff::Timestamp::UNIX_EPOCH);
    let offline = super::offline::resolve(&file, &[], Some("shop"), None).unwrap();
    assert_eq!(label(&file, &offline), live);
}

#[tokio::test]
async fn a_failing_conversion_names_its_webhook_service_and_endpoints() {
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com", "uid": "crd-w"},
        "spec": {"group": "example.com", "names": {"plural": "widgets", "kind": "Widget"}, "scope": "Namespaced",
            "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "widget-system", "name": "widget-webhook", "path": "/convert", "port": 443}}}}}});
    let slice = |ready: bool| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
            "metadata": {"name": "widget-webhook-x", "namespace": "widget-system", "uid": "s1",
                "labels": {"kubernetes.io/service-name": "widget-webhook"}},
            "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": ready}}]})
    };
    let catalog = catalog();
    let down = Memory::new(vec![crd.clone(), slice(false)]);
    assert_eq!(
        super::crawl::conversion_webhook(&down, &catalog, "widgets.example.com")
            .await
            .as_deref(),
        Some(
            "its conversion webhook is Service widget-system/widget-webhook, which has no ready endpoints: start the webhook's pods"
        )
    );
    let up = Memory::new(vec![crd, slice(true)]);
    assert!(
        super::crawl::conversion_webhook(&up, &catalog, "widgets.example.com")
            .await
            .unwrap()
            .ends_with("which has 1 ready endpoint(s): read the webhook's logs")
    );
    let none = Memory::new(vec![]);
    assert_eq!(
        super::crawl::conversion_webhook(&none, &catalog, "widgets.example.com").await,
        None
    );
}

#[test]
fn a_sweep_judges_services_from_the_slices_it_read_with_no_list_per_service() {
    let cat = catalog();
    let mut objects = web();
    for name in ["web", "api", "db"] {
        objects.push(json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "shop", "uid": format!("svc-{name}"), "creationTimestamp": "2026-01-10T10:00:00Z"},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]}}));
        objects.push(json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
            "metadata": {"name": format!("{name}-x"), "namespace": "shop", "uid": format!("eps-{name}"),
                "labels": {"kubernetes.io/service-name": name}},
            "ports": [{"name": "", "port": 8080}],
            "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}}]}));
    }
    let memory = Memory::new(objects);
    let fetched = run(ask(&memory, &cat, &[], Mode::Status, None)).unwrap();
    let services: Vec<String> = fetched
        .snapshot
        .objects()
        .iter()
        .filter(|o| o.kind() == "Service")
        .map(|o| {
            crate::verdict::judge(o, &Judged::builtin(&fetched.snapshot))
                .reason
                .to_string()
        })
        .collect();
    assert_eq!(
        services,
        ["EndpointsReady", "EndpointsReady", "EndpointsReady"]
    );
    // One list of the namespace's slices, none per Service (by its label),
    // and no list of the pods a Service selects.
    let requests = memory.requests();
    let slice_lists: Vec<&str> = requests
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| p.contains("endpointslices"))
        .collect();
    assert_eq!(slice_lists.len(), 1, "{slice_lists:?}");
    assert!(!slice_lists[0].contains("labelSelector"), "{slice_lists:?}");
    assert!(
        !requests
            .iter()
            .any(|r| r.path.contains("/pods?") && r.path.contains("labelSelector=app")),
        "{:?}",
        requests.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
}

/// The object of the answer with this name.
fn found<'a>(answer: &'a Fetched, name: &str) -> &'a Object {
    let objects = answer.snapshot.objects();
    objects
        .iter()
        .find(|o| o.name() == name)
        .unwrap_or_else(|| panic!("{name} in the answer"))
}

/// What a sweep read, for the question asked after it.
fn after(sweep: &Fetched) -> Earlier {
    Earlier {
        events: sweep.events_read.clone(),
        swept: sweep.swept.clone(),
    }
}

/// `why -A` reads failing custom resources of two namespaces in depth after
/// a sweep of every namespace: a type the sweep listed is not listed again
/// (its list across namespaces covers each one), and every other type is
/// listed once across namespaces, not once per namespace.
#[test]
fn why_across_namespaces_lists_each_type_once() {
    let cat = catalog();
    let widget = |ns: &str, uid: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": ns, "uid": uid, "generation": 1},
            "spec": {}, "status": {"observedGeneration": 1,
                "conditions": [{"type": "Ready", "status": "False", "reason": "Broken"}]}})
    };
    let mut objects = web();
    objects.push(widget("shop", "w1"));
    objects.push(widget("lab", "w2"));
    let mut child = deployment("w-worker", 1);
    child["metadata"]["namespace"] = json!("lab");
    child["metadata"]["ownerReferences"] = json!([{"apiVersion": "example.com/v1", "kind": "Widget",
        "name": "w", "uid": "w2", "controller": true}]);
    objects.push(child);
    objects.push(
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "addressType": "IPv4", "endpoints": [],
        "metadata": {"name": "w-abcde", "namespace": "lab", "uid": "es1",
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Widget",
                "name": "w", "uid": "w2", "controller": true}]}}),
    );
    let memory = Memory::new(objects);
    let all = Scope::AllNamespaces;
    let ask = asker(&memory, &cat, false, None);
    let sweep = run(ask.fetch(&[], &all, Mode::Roots, None)).unwrap();
    let swept = memory.requests().len();
    let failing = ["shop", "lab"].map(|ns| TargetSpec::Manifest {
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        namespace: Some(ns.into()),
        name: "w".into(),
    });
    let earlier = after(&sweep);
    let deep = run(ask.fetch(&failing, &all, Mode::Why, Some(earlier))).unwrap();
    let again: Vec<String> = memory.requests()[swept..]
        .iter()
        .map(|r| r.path.clone())
        .collect();
    let lists = |plural: &str| {
        again
            .iter()
            .filter(|p| {
                p.split('?')
                    .next()
                    .unwrap()
                    .ends_with(&format!("/{plural}"))
            })
            .cloned()
            .collect::<Vec<_>>()
    };
    // Swept across namespaces: not listed again, in either namespace;
    // nor the EndpointSlices the sweep read for the Services' verdicts.
    assert!(lists("deployments").is_empty(), "{again:#?}");
    assert!(lists("endpointslices").is_empty(), "{again:#?}");
    // Not swept: listed once, across namespaces.
    assert_eq!(
        lists("serviceaccounts"),
        ["/api/v1/serviceaccounts?limit=500"],
        "{again:#?}"
    );
    // The child the sweep saw in `lab` is found, and read in full.
    let worker = found(&deep, "w-worker");
    assert!(!worker.metadata_only);
    assert_eq!(worker.namespace(), Some("lab"));
    // So is the slice, from the sweep's whole list, not read again.
    let slice = deep
        .snapshot
        .objects()
        .iter()
        .find(|o| o.name() == "w-abcde");
    assert!(slice.is_some_and(|o| !o.metadata_only), "{slice:?}");
    assert!(!again.iter().any(|p| p.contains("w-abcde")), "{again:#?}");
}

/// `why` with no target judges the namespace's roots first, then reads the
/// failing ones in depth. A custom resource's children are searched for in
/// every type: those the sweep listed are not listed again, and the child
/// the sweep saw (and dropped, as it keeps only roots) is found.
#[test]
fn why_in_depth_reuses_the_lists_of_its_sweep() {
    let cat = catalog();
    let mut objects = web();
    objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "generation": 2},
        "spec": {}, "status": {"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "False", "reason": "Broken"}]}}));
    let mut child = deployment("w-worker", 1);
    child["metadata"]["ownerReferences"] = json!([{"apiVersion": "example.com/v1", "kind": "Widget",
        "name": "w", "uid": "w1", "controller": true}]);
    objects.push(child);
    // Its grandchildren, in the sweep's metadata-only lists, and a Widget
    // of its own, in a full list the settler goes through page by page:
    // each kept cut to its identity as the page arrives.
    objects.extend([replicaset("w-worker"), pod("w-worker", 0, true)]);
    objects.push(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w-part", "namespace": "shop", "uid": "w-part",
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "w1", "controller": true}]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}}));
    let fresh_objects = objects.clone();
    let fresh = Memory::new(objects.clone());
    let memory = Memory::new(objects);
    let settle = Recorded::default();
    let sweep = run(asker(&memory, &cat, false, Some(&settle)).fetch(
        &[],
        &Scope::Namespace("shop".into()),
        Mode::Roots,
        None,
    ))
    .unwrap();
    assert!(
        sweep.swept.owned.iter().any(|o| o.uid() == "w-part")
            && sweep
                .swept
                .owned
                .iter()
                .any(|o| o.uid() == "w-worker-pod-0"),
        "{:?}",
        sweep.swept.owned
    );
    let swept_lists = memory.requests().len();
    // A status sweep keeps no more than its roots.
    let status = run(ask(&fresh, &cat, &[], Mode::Status, None)).unwrap();
    assert!(status.swept.owned.is_empty() && !sweep.swept.owned.is_empty());
    // ... nor counts a list as read: a search trusting it would miss children.
    assert!(status.swept.lists.is_empty() && !sweep.swept.lists.is_empty());
    let fresh = Memory::new(fresh_objects.clone());
    let earlier = after(&sweep);
    let deep = run(ask(
        &memory,
        &cat,
        &[name("widget", "w")],
        Mode::Why,
        Some(earlier),
    ))
    .unwrap();
    let again = &memory.requests()[swept_lists..];
    // Without the sweep, the same question lists Deployments in the namespace.
    run(ask(&fresh, &cat, &[name("widget", "w")], Mode::Why, None)).unwrap();
    let list_of = |reqs: &[Request], plural: &str| {
        reqs.iter()
            .filter(|r| {
                r.path
                    .starts_with(&format!("/apis/apps/v1/namespaces/shop/{plural}?"))
            })
            .count()
    };
    assert_eq!(list_of(&fresh.requests(), "deployments"), 1);
    assert_eq!(list_of(again, "deployments"), 0, "{again:#?}");
    assert!(
        again.len() < fresh.requests().len(),
        "{} >= {}",
        again.len(),
        fresh.requests().len()
    );
    // The children are still found, and read in full; the sweep's pods
    // are not listed again.
    for child in ["w-worker", "w-worker-7d9", "w-worker-7d9-0", "w-part"] {
        assert!(!found(&deep, child).metadata_only, "{child}");
    }
    assert!(
        !again
            .iter()
            .any(|r| r.path.starts_with("/api/v1/namespaces/shop/pods?")),
        "{again:#?}"
    );
}
