//! Which reads an answer needs, decided from the catalog and the objects
//! already read. Pure: no request is sent here, so the request budget of
//! every question can be tested in milliseconds.

use serde_json::Value;
use std::collections::BTreeSet;

use crate::catalog::{Catalog, ResourceType};
use crate::model::Object;
use crate::selector;
use crate::targets::TargetSpec;

use super::read::Read;

/// Kinds that own nothing worth a request: no controller of the
/// Kubernetes project sets one of them as an owner, and a tree under one
/// is its relations alone (a policy's pods, an autoscaler's target).
/// Cluster-scoped kinds (a ClusterRole, a StorageClass) are not among
/// them: users make them owners by hand, to have namespaced objects
/// across namespaces collected with them, and their trees keep the search.
const LEAVES: &[(&str, &str)] = &[
    ("", "Pod"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("", "Endpoints"),
    ("", "LimitRange"),
    ("", "ResourceQuota"),
    ("", "Event"),
    ("events.k8s.io", "Event"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("apps", "ControllerRevision"),
    ("coordination.k8s.io", "Lease"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("policy", "PodDisruptionBudget"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
];

/// Whether the tree under a kind is found without going through every
/// type: a leaf, or a parent whose children [`edges`] finds by server-side
/// selectors (a workload that makes pods, a Service).
pub fn has_known_edges(group: &str, kind: &str) -> bool {
    LEAVES.contains(&(group, kind))
        || crate::catalog::makes_pods(group, kind)
        || matches!(
            (group, kind),
            ("", "Service") | ("networking.k8s.io", "Ingress")
        )
}

/// Whether an answer goes through the whole list of types the server
/// serves, so that a catalog cached by an earlier run must be revalidated
/// before reading: a sweep (no target), a spelling the catalog does not
/// resolve, a category such as `all` (its members may be custom types), or
/// with `trees` a target kind without known edges (its children are
/// searched in every type). Other answers name their types and read them
/// with the cached catalog; a read that finds a type gone, or a kind the
/// catalog does not know, has the catalog revalidated and the question
/// asked again (see [`super::live`]).
pub fn needs_every_type(catalog: &Catalog, targets: &[TargetSpec], trees: bool) -> bool {
    let leans = |rt: &ResourceType| trees && !has_known_edges(&rt.group, &rt.kind);
    targets.is_empty()
        || targets.iter().any(|spec| match spec {
            TargetSpec::Name { type_, .. } => catalog.resolve(type_).map_or(true, leans),
            TargetSpec::Type { type_, .. } => type_
                .split(',')
                .filter(|part| !part.is_empty())
                .any(|part| catalog.resolve(part).map_or(true, leans)),
            TargetSpec::Manifest {
                api_version, kind, ..
            } => catalog
                .by_kind(crate::model::group_of(api_version), kind)
                .is_none_or(leans),
        })
}

/// What one object's known edges need.
#[derive(Debug, PartialEq)]
pub enum Edges {
    /// Run these reads; `covers_grandchildren` when they already hold the
    /// children's children (a Deployment's pod list covers its ReplicaSets').
    Reads {
        reads: Vec<Read>,
        covers_grandchildren: bool,
    },
    Leaf,
    /// Its children are of a kind the catalog does not serve, though the
    /// object says their operator runs: none are read, and the catalog is
    /// revalidated (a CRD installed since it was cached).
    Unserved,
    /// No known edges: children are searched by owner reference.
    Unknown,
}

/// Whether an Ingress asks cert-manager's ingress-shim for a Certificate:
/// one of the shim's annotations, and a TLS entry naming its Secret.
fn asks_cert_manager(ingress: &Object) -> bool {
    let annotation = |key: &str| {
        ingress
            .at("/metadata/annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
    };
    let annotated = annotation("cert-manager.io/issuer").is_some()
        || annotation("cert-manager.io/cluster-issuer").is_some()
        || annotation("kubernetes.io/tls-acme") == Some("true");
    let tls = ingress
        .at("/spec/tls")
        .and_then(Value::as_array)
        .is_some_and(|entries| entries.iter().any(|e| e.get("secretName").is_some()));
    annotated && tls
}

/// The known edges of one object: its children found by server-side
/// selectors, one list per child type.
pub fn edges(catalog: &Catalog, obj: &Object) -> Edges {
    let ns = obj.namespace();
    let by_selector = |group: &str, kind: &str| -> Option<Read> {
        let labels = selector::to_query(obj.at("/spec/selector")?)?;
        Some(Read::list(catalog.by_kind(group, kind)?, ns).labels(labels))
    };
    let key = (obj.group(), obj.kind());
    if LEAVES.contains(&key) {
        return Edges::Leaf;
    }
    let reads: Vec<Option<Read>> = match key {
        ("apps", "Deployment") => vec![by_selector("apps", "ReplicaSet"), by_selector("", "Pod")],
        ("apps", "ReplicaSet") | ("batch", "Job") => vec![by_selector("", "Pod")],
        ("apps", "StatefulSet") | ("apps", "DaemonSet") => vec![
            by_selector("", "Pod"),
            by_selector("apps", "ControllerRevision"),
        ],
        // Jobs carry no label of their CronJob; their pods all carry the
        // Job controller's label, so one list covers every Job's pods,
        // also those of Jobs created later (for --watch).
        ("batch", "CronJob") => vec![
            catalog.by_kind("batch", "Job").map(|rt| Read::list(rt, ns)),
            catalog
                .by_kind("", "Pod")
                .map(|rt| Read::list(rt, ns).labels("batch.kubernetes.io/controller-uid")),
        ],
        ("", "Service") => service_context(catalog, obj)
            .into_iter()
            .map(Some)
            .collect(),
        // An Ingress owns nothing a built-in controller makes; cert-manager's
        // ingress-shim makes a Certificate for each TLS secret, owned by the
        // Ingress: one list of them where cert-manager is served, whose
        // own children are then searched as any custom kind's.
        // An Ingress annotated for the shim, where the catalog lacks
        // cert-manager (its CRDs installed since the cache was written):
        // the catalog is revalidated.
        ("networking.k8s.io", "Ingress") => {
            return match catalog.by_kind("cert-manager.io", "Certificate") {
                Some(rt) => Edges::Reads {
                    reads: vec![Read::list(rt, ns)],
                    covers_grandchildren: false,
                },
                None if asks_cert_manager(obj) => Edges::Unserved,
                None => Edges::Leaf,
            };
        }
        _ => return Edges::Unknown,
    };
    Edges::Reads {
        reads: reads.into_iter().flatten().collect(),
        covers_grandchildren: true,
    }
}

/// What a Service's verdict needs besides the Service: its EndpointSlices
/// and the pods its selector matches.
pub fn service_context(catalog: &Catalog, svc: &Object) -> Vec<Read> {
    let ns = svc.namespace();
    let mut reads = Vec::new();
    if let Some(rt) = catalog.by_kind("discovery.k8s.io", "EndpointSlice") {
        reads.push(Read::list(rt, ns).labels(format!("kubernetes.io/service-name={}", svc.name())));
    }
    if let Some(sel) = svc
        .at("/spec/selector")
        .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
        && let Some(rt) = catalog.by_kind("", "Pod")
        && let Some(labels) = selector::to_query(&selector::from_map(sel))
    {
        reads.push(Read::list(rt, ns).labels(labels));
    }
    reads
}

/// What `status` needs besides the targets: a Service's EndpointSlices and
/// pods, a CronJob's Jobs (its last Job's outcome is its health). After a
/// sweep (`swept`), which read every EndpointSlice of its scope, a Service
/// needs nothing more: its verdict comes from its slices, and one that is
/// not converged is read in depth afterwards, as any failing root.
pub fn context(catalog: &Catalog, targets: &[Object], swept: bool) -> Vec<Read> {
    let mut reads: Vec<Read> = Vec::new();
    for obj in targets {
        let more = match (obj.group(), obj.kind()) {
            ("", "Service") if swept => Vec::new(),
            ("", "Service") => service_context(catalog, obj),
            ("batch", "CronJob") => catalog
                .by_kind("batch", "Job")
                .map(|rt| Read::list(rt, obj.namespace()))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        for read in more {
            if !reads.contains(&read) {
                reads.push(read);
            }
        }
    }
    reads
}

/// Types listed when searching for objects by owner reference (or by what
/// holds a namespace): listable, and not events, Endpoints (EndpointSlices
/// say the same) or component statuses.
pub fn is_searchable(t: &ResourceType) -> bool {
    t.can("list")
        && !matches!(
            (t.group.as_str(), t.plural.as_str()),
            ("", "events")
                | ("events.k8s.io", "events")
                | ("", "endpoints")
                | ("", "componentstatuses")
        )
}

/// The metadata-only lists that find the children of kinds with unknown
/// edges: every listable type where children can live (every namespace
/// for a cluster-scoped owner). `across`: the answer already lists across
/// namespaces (a `why -A`); owners in more than one namespace are then
/// searched with one list of each type across namespaces, not one per
/// namespace, so that requests follow the types, not the namespaces.
pub fn fallback(
    catalog: &Catalog,
    namespaces: &[&str],
    cluster_wide: bool,
    across: bool,
) -> Vec<Read> {
    lists_in(
        catalog.types.iter().filter(|t| is_searchable(t)),
        namespaces,
        cluster_wide,
        across,
    )
}

/// Metadata-only lists of `types` where children can live: in each of
/// `namespaces`, or across namespaces for a cluster-scoped owner (or,
/// `across`, for owners in more than one namespace).
fn lists_in<'a>(
    types: impl Iterator<Item = &'a ResourceType>,
    namespaces: &[&str],
    cluster_wide: bool,
    across: bool,
) -> Vec<Read> {
    let mut reads = Vec::new();
    for rt in types {
        if cluster_wide || (across && rt.namespaced && namespaces.len() > 1) {
            reads.push(Read::list(rt, None).metadata_only());
        } else if rt.namespaced {
            reads.extend(
                namespaces
                    .iter()
                    .map(|ns| Read::list(rt, Some(ns)).metadata_only()),
            );
        }
    }
    reads
}

/// Built-in kinds an operator's resource most often makes: what a
/// `status` or `wait` of a custom resource searches for its children.
const MADE_BY_OPERATORS: &[(&str, &str)] = &[
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("", "Pod"),
    ("", "Service"),
    ("", "PersistentVolumeClaim"),
];

/// The lists where the children of custom resources of `groups` most
/// likely are, for a `status` or `wait` that judges their trees without
/// the search of every type a `tree` makes: the types of their own API
/// groups (a ClusterExternalSecret's ExternalSecrets) and the built-in
/// kinds operators make ([`MADE_BY_OPERATORS`]), metadata only, in the
/// namespaces given (across namespaces for a cluster-scoped owner).
pub fn likely_children(
    catalog: &Catalog,
    groups: &BTreeSet<&str>,
    namespaces: &[&str],
    cluster_wide: bool,
) -> Vec<Read> {
    let likely = catalog.types.iter().filter(|t| {
        is_searchable(t)
            && (groups.contains(t.group.as_str())
                || MADE_BY_OPERATORS.contains(&(t.group.as_str(), t.kind.as_str())))
    });
    lists_in(likely, namespaces, cluster_wide, false)
}

/// One list of a namespace sweep.
#[derive(Debug, PartialEq)]
pub enum Sweep {
    /// A full list: most objects of this type are roots.
    Full(Read),
    /// A metadata-only list: most objects of this type belong to a
    /// controller, so only the roots among them are then read in full.
    Roots(Read),
    /// Read for the verdicts of others (EndpointSlices, for Services).
    Context(Read),
}

/// Kinds whose objects usually belong to a controller: swept as metadata,
/// so that 5,000 pods of a Deployment cost a few hundred kilobytes.
const USUALLY_OWNED: &[(&str, &str)] = &[("", "Pod"), ("apps", "ReplicaSet"), ("batch", "Job")];

/// Whether a type's objects are judged in a sweep ([`crate::catalog::is_swept`]),
/// and it can be listed.
pub fn is_swept(rt: &ResourceType) -> bool {
    rt.can("list") && crate::catalog::is_swept(&rt.group, &rt.kind, rt.namespaced, rt.has_status)
}

/// The lists that find every root object (one without a controller) of a
/// namespace, or of every namespace; with `labels` (`-l` without a TYPE),
/// only those with these labels, the server filtering.
pub fn sweep(catalog: &Catalog, namespace: Option<&str>, labels: Option<&str>) -> Vec<Sweep> {
    let mut out: Vec<Sweep> = catalog
        .types
        .iter()
        .filter(|t| is_swept(t))
        .map(|rt| {
            let read = match labels {
                Some(l) => Read::list(rt, namespace).labels(l),
                None => Read::list(rt, namespace),
            };
            if USUALLY_OWNED.contains(&(rt.group.as_str(), rt.kind.as_str())) {
                Sweep::Roots(read.metadata_only())
            } else {
                Sweep::Full(read)
            }
        })
        .collect();
    if let Some(rt) = catalog.by_kind("discovery.k8s.io", "EndpointSlice") {
        out.push(Sweep::Context(Read::list(rt, namespace)));
    }
    out
}

/// The reads in an order that starts the first list of each group
/// version before the second of any (stable otherwise): the first is read
/// consistently and the others of its group version no older than it,
/// which costs the server far less (see `super::freshness`), so the
/// fewer of them start before a first has answered, the better.
pub fn firsts_of_group_versions_first(reads: Vec<Read>) -> Vec<Read> {
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut ranked: Vec<(usize, Read)> = reads
        .into_iter()
        .map(|r| match super::freshness::key(&r) {
            // A read that never takes a floor waits for no first.
            None => (1, r),
            Some(key) => {
                let n = seen.entry(key).or_default();
                *n += 1;
                (*n, r)
            }
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.into_iter().map(|(_, r)| r).collect()
}

/// Up to this many objects of one type are read with a GET each; more
/// with one list.
pub const GETS_AT_MOST: usize = 50;

/// How the events of a namespace are read. The namespace list comes first
/// (one page, started with the first reads). When the namespace holds more
/// than one page of events and the tree has at most [`SMALL_TREE`] objects
/// there, each object's events are asked for by `involvedObject.uid`
/// instead of paging through all of them.
pub const SMALL_TREE: usize = 20;

/// Objects without a namespace whose events are looked up by uid, at most.
pub const CLUSTER_EVENTS_AT_MOST: usize = 16;

/// Whether an object's events can explain its verdict in `tree` and
/// `status`: a pod that is not ready, a claim that is not bound, a workload
/// short of ready replicas or refused pods, a CronJob (its refused runs are
/// said only in events), a load balancer without an address. A healthy object's events say
/// nothing a verdict cites, so they are not read (`why` reads them all).
pub fn wants_events(obj: &Object) -> bool {
    let int = |p: &str| obj.int(p).unwrap_or(0);
    match (obj.group(), obj.kind()) {
        ("", "Pod") => {
            obj.str("/status/phase") != Some("Succeeded")
                && !obj.condition("Ready").is_some_and(|c| c.is_true())
        }
        ("", "PersistentVolumeClaim") => obj.str("/status/phase") != Some("Bound"),
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") | ("", "ReplicationController") => {
            int("/status/readyReplicas") < obj.int("/spec/replicas").unwrap_or(1)
                || obj.condition("ReplicaFailure").is_some_and(|c| c.is_true())
        }
        ("apps", "DaemonSet") => int("/status/numberReady") < int("/status/desiredNumberScheduled"),
        // A run still going may be one its next runs are skipped for; and
        // a CronJob whose runs are refused (a quota) says so only in
        // events: every CronJob that is not suspended.
        ("batch", "CronJob") => obj.bool("/spec/suspend") != Some(true),
        // A load balancer that is not there yet: its controller may have
        // said why (`AllocationFailed`) only in events.
        ("", "Service") => {
            obj.str("/spec/type") == Some("LoadBalancer")
                && obj
                    .at("/status/loadBalancer/ingress")
                    .and_then(|a| a.as_array())
                    .is_none_or(|a| a.is_empty())
        }
        ("batch", "Job") => {
            obj.int("/status/failed").is_some_and(|f| f > 0)
                || (obj.at("/status/completionTime").is_none() && int("/status/active") == 0)
        }
        _ => false,
    }
}

/// Whether an object without a namespace, reached as related, is plainly
/// well: a Node the kubelet reports Ready, with no pressure and not
/// cordoned; a PersistentVolume Bound or Available. Its events are left
/// unread: each is a search of every event in the cluster (by uid, across
/// namespaces), and a healthy node's say nothing of why a pod cannot be
/// placed on it (the scheduler's own message does). Anything else keeps
/// its events, custom kinds included (a ClusterIssuer that is not ready).
pub fn plainly_well_elsewhere(obj: &Object) -> bool {
    if obj.namespace().is_some() {
        return false;
    }
    match (obj.group(), obj.kind()) {
        ("", "Node") => {
            obj.condition("Ready").is_some_and(|c| c.is_true())
                && obj.at("/spec/unschedulable").and_then(|v| v.as_bool()) != Some(true)
                && !obj
                    .conditions()
                    .iter()
                    .any(|c| c.type_ != "Ready" && c.is_true())
        }
        ("", "PersistentVolume") => {
            matches!(obj.str("/status/phase"), Some("Bound" | "Available"))
        }
        _ => false,
    }
}

/// How a namespace's events are read, before its first page is in hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsFirst {
    /// Read already (an earlier read of the question): nothing to do.
    Had,
    /// Each object's own, by uid: a few objects cost less than a page.
    ByUid,
    /// The namespace's first page (read now, or started early).
    Page,
}

/// `had`: the namespace's events were read by an earlier read of the
/// question; `busy`: an earlier page found more than a page of them (so a
/// few objects reached later, a pod's ServiceAccount, get theirs by uid,
/// without the page again); `early`: its first page was started with the
/// first reads; `every`: `why`'s timeline (every event), else only the
/// events verdicts cite; `objects`: how many objects there want their
/// events.
pub fn events_first(
    had: bool,
    busy: bool,
    early: bool,
    every: bool,
    objects: usize,
) -> EventsFirst {
    match () {
        () if had => EventsFirst::Had,
        () if (busy || (!early && !every)) && objects <= SMALL_TREE => EventsFirst::ByUid,
        () => EventsFirst::Page,
    }
}

/// What to do with a namespace's first page of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsThen {
    /// It held them all: the namespace's events are read.
    Whole,
    /// Nothing there wants its events (a target that is not there): the
    /// newest page is enough.
    Newest,
    /// More pages, and a small tree: its objects' own events, by uid.
    ByUid,
    /// More pages, and a large tree: every page.
    Every,
}

/// `more`: the page has a continue token.
pub fn events_then(more: bool, objects: usize) -> EventsThen {
    match (more, objects) {
        (false, _) => EventsThen::Whole,
        (true, 0) => EventsThen::Newest,
        (true, n) if n <= SMALL_TREE => EventsThen::ByUid,
        (true, _) => EventsThen::Every,
    }
}

/// The read of the events of one object.
pub fn events_of(events: &ResourceType, obj: &Object) -> Read {
    Read::list(events, obj.namespace()).fields(format!("involvedObject.uid={}", obj.uid))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_namespace_s_events_are_read_by_page_or_by_object_as_the_tree_needs() {
        use super::{EventsFirst as F, EventsThen as T, events_first, events_then};
        // Read before: nothing. `why` starts with the page; `tree` and
        // `status` ask a few objects' own.
        assert_eq!(events_first(true, false, true, true, 3), F::Had);
        assert_eq!(events_first(false, false, true, true, 3), F::Page);
        assert_eq!(events_first(false, false, false, false, 3), F::ByUid);
        assert_eq!(
            events_first(false, false, false, false, SMALL_TREE + 1),
            F::Page
        );
        assert_eq!(events_first(false, false, false, true, 3), F::Page);
        // A namespace found busy: a few objects by uid, many by pages.
        assert_eq!(events_first(false, true, false, true, 3), F::ByUid);
        assert_eq!(
            events_first(false, true, false, true, SMALL_TREE + 1),
            F::Page
        );
        // One page is all; a busy namespace pages only for a large tree.
        assert_eq!(events_then(false, 500), T::Whole);
        assert_eq!(events_then(true, 0), T::Newest);
        assert_eq!(events_then(true, SMALL_TREE), T::ByUid);
        assert_eq!(events_then(true, SMALL_TREE + 1), T::Every);
    }
    use super::*;
    use crate::source::tests::catalog;
    use serde_json::json;

    fn obj(v: serde_json::Value) -> Object {
        Object::from_value(v).unwrap()
    }

    #[test]
    fn a_deployment_needs_two_lists_by_its_selector() {
        let cat = catalog();
        let deploy = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "d1"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}}}));
        let Edges::Reads { reads, .. } = edges(&cat, &deploy) else {
            panic!("a Deployment has known edges")
        };
        let paths: Vec<String> = reads.iter().map(|r| r.page_path(500, None)).collect();
        assert_eq!(
            paths,
            [
                "/apis/apps/v1/namespaces/shop/replicasets?labelSelector=app%3Dweb&limit=500",
                "/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb&limit=500"
            ]
        );
    }

    #[test]
    fn the_kinds_said_to_have_known_edges_are_the_ones_edges_follows() {
        // `has_known_edges` decides whether discovery is revalidated before
        // a tree; it must agree with `edges` on every kind the catalog has.
        let cat = catalog();
        for rt in &cat.types {
            let o = obj(json!({"apiVersion": rt.api_version(), "kind": rt.kind,
                "metadata": {"name": "x", "namespace": "shop", "uid": "u"},
                "spec": {"selector": {"matchLabels": {"app": "x"}}}}));
            assert_eq!(
                has_known_edges(&rt.group, &rt.kind),
                edges(&cat, &o) != Edges::Unknown,
                "{} ({})",
                rt.kind,
                rt.group
            );
        }
    }

    #[test]
    fn a_sweep_starts_the_first_list_of_each_group_version_before_any_second() {
        let cat = catalog();
        // In the order the sweep hands them over: the long metadata-only
        // lists, the EndpointSlices, then the full lists.
        let (mut meta, mut context, mut full) = (Vec::new(), Vec::new(), Vec::new());
        for s in sweep(&cat, Some("shop"), None) {
            match s {
                Sweep::Roots(r) => meta.push(r),
                Sweep::Context(r) => context.push(r),
                Sweep::Full(r) => full.push(r),
            }
        }
        let reads: Vec<Read> = meta.iter().chain(&context).chain(&full).cloned().collect();
        let spread = firsts_of_group_versions_first(reads.clone());
        // Each read's rank in its group version (1 for the first), in the
        // order the reads start: every first before any second, and so on.
        let rank = |reads: &[Read]| -> Vec<usize> {
            let mut seen = std::collections::HashMap::new();
            reads
                .iter()
                .map(|r| {
                    let n = seen
                        .entry((r.rt.group.clone(), r.rt.version.clone()))
                        .or_insert(0);
                    *n += 1;
                    *n
                })
                .collect()
        };
        let ranks = rank(&spread);
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        assert!(
            rank(&reads).windows(2).any(|w| w[0] > w[1]),
            "the given order is another"
        );
        // The long lists are each the first of their group version: still
        // the first to start.
        assert_eq!(
            spread[..meta.len() + context.len()],
            reads[..meta.len() + context.len()]
        );
        let names = |reads: &[Read]| {
            let mut names: Vec<String> = reads
                .iter()
                .map(|r| format!("{}/{}/{}", r.rt.group, r.rt.version, r.rt.plural))
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(&reads), names(&spread));
        // A list that never takes a floor (across namespaces) waits for
        // no first.
        let same = |a: &Read, b: &Read| a.rt.group == b.rt.group && a.rt.version == b.rt.version;
        let (a, b) = full
            .iter()
            .enumerate()
            .find_map(|(i, a)| full[i + 1..].iter().find(|b| same(a, b)).map(|b| (a, b)))
            .expect("two full lists of one group version");
        let across = Read::list(&b.rt, None);
        let spread = firsts_of_group_versions_first(vec![a.clone(), b.clone(), across.clone()]);
        assert_eq!(spread, [a.clone(), across, b.clone()]);
    }

    #[test]
    fn secrets_and_configmaps_are_never_swept_or_read_in_full() {
        let cat = catalog();
        for s in sweep(&cat, Some("shop"), None) {
            let (Sweep::Full(r) | Sweep::Roots(r) | Sweep::Context(r)) = s;
            assert!(
                !matches!(r.rt.kind.as_str(), "Secret" | "ConfigMap"),
                "{r:?}"
            );
        }
        for r in fallback(&cat, &["shop"], true, false) {
            if matches!(r.rt.kind.as_str(), "Secret" | "ConfigMap") {
                assert!(r.is_metadata_only());
            }
        }
    }

    #[test]
    fn owners_in_two_namespaces_are_searched_across_them_only_where_the_answer_lists_across() {
        let cat = catalog();
        let lists_of = |reads: &[Read]| -> Vec<Option<String>> {
            reads
                .iter()
                .filter(|r| r.rt.kind == "ServiceAccount")
                .map(|r| r.namespace.clone())
                .collect()
        };
        // `why -f` with objects of two namespaces, by a user who may be
        // allowed only those: one list in each.
        let apart = fallback(&cat, &["lab", "shop"], false, false);
        assert_eq!(
            lists_of(&apart),
            [Some("lab".to_string()), Some("shop".to_string())]
        );
        // `why -A`: one list across namespaces, and no cluster-scoped type.
        let across = fallback(&cat, &["lab", "shop"], false, true);
        assert_eq!(lists_of(&across), [None]);
        assert!(across.iter().all(|r| r.rt.namespaced), "{across:?}");
        // One namespace: listed there, whatever the answer lists.
        assert_eq!(
            lists_of(&fallback(&cat, &["shop"], false, true)),
            [Some("shop".to_string())]
        );
    }

    #[test]
    fn pods_are_swept_as_metadata_and_deployments_in_full() {
        let cat = catalog();
        let sweep = sweep(&cat, Some("shop"), None);
        let kind_of = |s: &Sweep| match s {
            Sweep::Full(r) => ("full", r.rt.kind.clone()),
            Sweep::Roots(r) => ("roots", r.rt.kind.clone()),
            Sweep::Context(r) => ("context", r.rt.kind.clone()),
        };
        let kinds: Vec<(&str, String)> = sweep.iter().map(kind_of).collect();
        assert!(kinds.contains(&("roots", "Pod".into())), "{kinds:?}");
        assert!(kinds.contains(&("full", "Deployment".into())), "{kinds:?}");
        assert!(
            kinds.contains(&("context", "EndpointSlice".into())),
            "{kinds:?}"
        );
        assert!(!kinds.iter().any(|(_, k)| k == "Event"), "{kinds:?}");
    }
}
