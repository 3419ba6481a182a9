//! Relations beyond ownership: named edges from an object to the objects it
//! mounts, selects, routes to, scales, protects, runs on, uses or manages,
//! read from the fields that say so. Pure: computed from a snapshot, and a
//! plan of the extra reads they need (`reads_for`).

pub mod admission;

mod gitops;
mod keys;
mod managers;
mod near;
mod pods;
mod producers;
mod reads;
mod tree;
mod users;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::model::{Object, ObjectRef, Snapshot, group_of};
use crate::selector;

pub use crate::selector::{backing_workloads, selector_of};
pub use crate::verdict::controller::named_like;
pub use keys::{missing_keys, waiting_on_configuration};
pub use managers::{helm_release, helm_revision, manager_of, source_of};
pub use near::near_miss;
pub use producers::{producers, secret_producer_types};
pub use reads::{RelatedRead, Resource, Select, lease_reads, reads_for};
pub use tree::{End, Node, tree, tree_with_users};
#[cfg(test)]
pub use users::PodsToRead;
pub use users::{pods_to_read, uses};

/// The name of an edge between two objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Edge {
    /// ownerReferences: the parent controls the child.
    Owns,
    /// A pod's volume (claim, ConfigMap, Secret); a claim's class and volume.
    Mounts,
    /// A pod's ServiceAccount, env references and pull secrets; a workload
    /// template's ServiceAccount.
    Uses,
    /// A Service's selector.
    Selects,
    /// An Ingress's backend Services and its IngressClass; an Argo
    /// Rollout's stable, canary, active and preview Services.
    RoutesTo,
    /// An autoscaler's scale target.
    Scales,
    /// A PodDisruptionBudget's pods.
    Protects,
    /// A pod's node.
    RunsOn,
    /// A GitOps or composition inventory (Flux, Argo CD, Crossplane).
    Manages,
    /// A Terminating Namespace and the objects whose finalizers hold it.
    Contains,
    /// A missing object and the resource that should make it (the
    /// ExternalSecret, SealedSecret or Certificate of a Secret).
    MadeBy,
    /// An object whose status lags and the controller that should act on
    /// it (found by its Lease; see `diagnose::controller`).
    ReconciledBy,
    /// The reverse of `mounts` and `uses`: a ConfigMap, Secret,
    /// ServiceAccount, claim or PriorityClass and the workloads whose pods
    /// use it (under the target of `tree` only).
    UsedBy,
    /// The reverse of `runs-on`: a Node and the pods on it.
    Hosts,
}

impl Edge {
    pub fn as_str(self) -> &'static str {
        match self {
            Edge::Owns => "owns",
            Edge::Mounts => "mounts",
            Edge::Uses => "uses",
            Edge::Selects => "selects",
            Edge::RoutesTo => "routes-to",
            Edge::Scales => "scales",
            Edge::Protects => "protects",
            Edge::RunsOn => "runs-on",
            Edge::Manages => "manages",
            Edge::Contains => "contains",
            Edge::MadeBy => "made-by",
            Edge::ReconciledBy => "reconciled-by",
            Edge::UsedBy => "used-by",
            Edge::Hosts => "hosts",
        }
    }

    /// Context edges are drawn only when they lead to trouble: a pod's node
    /// or ServiceAccount is worth a row only when it is missing or failing
    /// (so are the ConfigMaps and Secrets it mounts; see `tree`).
    pub fn is_context(self) -> bool {
        matches!(self, Edge::Uses | Edge::RunsOn)
    }
}

/// An object named by a field, which may or may not exist.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Named {
    pub api_version: String,
    pub kind: String,
    /// The namespace the field implies; a cluster-scoped type ignores it.
    pub namespace: Option<String>,
    pub name: String,
}

impl Named {
    fn new(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> Named {
        Named {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
        }
    }

    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }

    /// The object in the snapshot: in the namespace, else cluster-scoped.
    pub fn find<'a>(&self, snap: &'a Snapshot) -> Option<&'a Object> {
        snap.find(
            self.group(),
            &self.kind,
            self.namespace.as_deref(),
            &self.name,
        )
        .or_else(|| snap.find(self.group(), &self.kind, None, &self.name))
    }

    /// Whether the source looked for it and found it gone.
    pub fn is_absent(&self, snap: &Snapshot) -> bool {
        snap.absent.iter().any(|a| {
            a.group() == self.group()
                && a.kind == self.kind
                && a.name == self.name
                && (a.namespace.is_none() || a.namespace == self.namespace)
        })
    }

    pub fn to_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            uid: None,
        }
    }
}

/// One relation of an object: the edge and the object at its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub edge: Edge,
    pub to: End,
}

/// The objects an object names in its fields, by edge: what a read plan
/// and the relations both start from. Pure on the object alone.
pub fn named(obj: &Object) -> Vec<(Edge, Named)> {
    let ns = obj.namespace();
    let mut out = Vec::new();
    // What its controller waits on (a Certificate's issuer).
    if let Some(r) = crate::model::waits_on(obj) {
        out.push((
            Edge::Uses,
            Named::new(&r.api_version, &r.kind, r.namespace.as_deref(), &r.name),
        ));
    }
    match (obj.group(), obj.kind()) {
        ("", "Pod") => out.extend(pods::pod_refs(obj)),
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet") | ("batch", "Job") => {
            out.extend(pods::template_refs(obj));
            out.extend(pods::claim_templates(obj));
            out.extend(pods::governing_service(obj));
        }
        ("", "PersistentVolumeClaim") => {
            if let Some(class) = obj.str("/spec/storageClassName").filter(|c| !c.is_empty()) {
                out.push((
                    Edge::Mounts,
                    Named::new("storage.k8s.io/v1", "StorageClass", None, class),
                ));
            }
            if let Some(pv) = obj.str("/spec/volumeName").filter(|c| !c.is_empty()) {
                out.push((Edge::Mounts, Named::new("v1", "PersistentVolume", None, pv)));
            }
        }
        ("argoproj.io", "Rollout") => {
            // The Services it points at its revisions.
            let mut services: Vec<&str> = [
                "/spec/strategy/canary/stableService",
                "/spec/strategy/canary/canaryService",
                "/spec/strategy/blueGreen/activeService",
                "/spec/strategy/blueGreen/previewService",
            ]
            .iter()
            .filter_map(|p| obj.str(p))
            .filter(|s| !s.is_empty())
            .collect();
            services.dedup();
            for s in services {
                out.push((Edge::RoutesTo, Named::new("v1", "Service", ns, s)));
            }
        }
        ("networking.k8s.io", "Ingress") => {
            let class = obj
                .str("/spec/ingressClassName")
                .or_else(|| obj.str("/metadata/annotations/kubernetes.io~1ingress.class"));
            if let Some(class) = class.filter(|c| !c.is_empty()) {
                out.push((
                    Edge::RoutesTo,
                    Named::new("networking.k8s.io/v1", "IngressClass", None, class),
                ));
            }
            let mut backends: Vec<&str> = Vec::new();
            backends.extend(obj.str("/spec/defaultBackend/service/name"));
            for rule in obj
                .at("/spec/rules")
                .and_then(|r| r.as_array())
                .into_iter()
                .flatten()
            {
                for path in rule
                    .pointer("/http/paths")
                    .and_then(|p| p.as_array())
                    .into_iter()
                    .flatten()
                {
                    backends.extend(
                        path.pointer("/backend/service/name")
                            .and_then(|n| n.as_str()),
                    );
                }
            }
            backends.sort();
            backends.dedup();
            for b in backends {
                out.push((Edge::RoutesTo, Named::new("v1", "Service", ns, b)));
            }
        }
        (
            "gateway.networking.k8s.io",
            "HTTPRoute" | "GRPCRoute" | "TCPRoute" | "TLSRoute" | "UDPRoute",
        ) => out.extend(route_refs(obj)),
        ("autoscaling", "HorizontalPodAutoscaler") => {
            if let (Some(api), Some(kind), Some(name)) = (
                obj.str("/spec/scaleTargetRef/apiVersion"),
                obj.str("/spec/scaleTargetRef/kind"),
                obj.str("/spec/scaleTargetRef/name"),
            ) {
                out.push((Edge::Scales, Named::new(api, kind, ns, name)));
            }
        }
        _ => {}
    }
    out.extend(gitops::managed(obj));
    out
}

/// A Gateway API route's parents (its Gateways) and backends (its
/// Services), as an Ingress's class and backends: each checked to exist,
/// whatever the route's own `ResolvedRefs` says. A reference's kind,
/// group and namespace default as the API defines them (`Gateway` of
/// `gateway.networking.k8s.io`, `Service` of the core group, the route's
/// namespace); references to other kinds are not followed.
fn route_refs(obj: &Object) -> Vec<(Edge, Named)> {
    let ns = obj.namespace();
    let refs = |v: Option<&serde_json::Value>| -> Vec<serde_json::Value> {
        v.and_then(|v| v.as_array()).cloned().unwrap_or_default()
    };
    let field =
        |r: &serde_json::Value, k: &str| r.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let mut out: Vec<(Edge, Named)> = Vec::new();
    for parent in refs(obj.at("/spec/parentRefs")) {
        let group = field(&parent, "group").unwrap_or_else(|| "gateway.networking.k8s.io".into());
        let kind = field(&parent, "kind").unwrap_or_else(|| "Gateway".into());
        if let (Some(name), "gateway.networking.k8s.io", "Gateway") =
            (field(&parent, "name"), group.as_str(), kind.as_str())
        {
            let pns = field(&parent, "namespace");
            out.push((
                Edge::RoutesTo,
                Named::new(
                    "gateway.networking.k8s.io/v1",
                    "Gateway",
                    pns.as_deref().or(ns),
                    &name,
                ),
            ));
        }
    }
    let mut backends: Vec<(Option<String>, String)> = Vec::new();
    for rule in refs(obj.at("/spec/rules")) {
        for backend in refs(rule.get("backendRefs")) {
            let group = field(&backend, "group").unwrap_or_default();
            let kind = field(&backend, "kind").unwrap_or_else(|| "Service".into());
            if let (Some(name), "", "Service") =
                (field(&backend, "name"), group.as_str(), kind.as_str())
            {
                backends.push((field(&backend, "namespace"), name));
            }
        }
    }
    backends.sort();
    backends.dedup();
    for (bns, name) in backends {
        out.push((
            Edge::RoutesTo,
            Named::new("v1", "Service", bns.as_deref().or(ns), &name),
        ));
    }
    out
}

/// Every relation of `obj` that can be resolved in the snapshot: named
/// objects that exist or are known to be absent, and selected pods.
pub fn relations(snap: &Snapshot, obj: &Object) -> Vec<Relation> {
    let mut out: Vec<Relation> = Vec::new();
    for (edge, n) in named(obj) {
        let to = match n.find(snap) {
            Some(o) => End::Found(o.uid.clone()),
            None if pods::claim_not_made_yet(obj, &n) => continue,
            None if n.is_absent(snap) => End::Missing(n.to_ref()),
            None => continue,
        };
        if !out.iter().any(|r| r.to == to) {
            out.push(Relation { edge, to });
        }
    }
    let pods = selected(snap, obj);
    if pods.is_empty() && obj.kind() == "Service" {
        // No pod to route to: the workloads that would make them, so that
        // the chain reaches the one that fails to (or is scaled to 0).
        for w in backing_workloads(snap, obj) {
            out.push(Relation {
                edge: Edge::Selects,
                to: End::Found(w.uid.clone()),
            });
        }
    }
    for uid in pods {
        out.push(Relation {
            edge: match obj.kind() {
                "Service" => Edge::Selects,
                _ => Edge::Protects,
            },
            to: End::Found(uid),
        });
    }
    if obj.kind() == "Namespace" && obj.group().is_empty() && obj.deleted.is_some() {
        let mut holders: Vec<&Object> = snap
            .objects()
            .iter()
            .filter(|o| {
                o.namespace() == Some(obj.name()) && o.deleted.is_some() && !o.finalizers.is_empty()
            })
            .collect();
        holders.sort_by_key(|o| (o.group(), o.kind(), o.name()));
        out.extend(holders.into_iter().map(|o| Relation {
            edge: Edge::Contains,
            to: End::Found(o.uid.clone()),
        }));
    }
    out
}

/// The pods a Service or PodDisruptionBudget selects, in the snapshot.
/// The uids of the pods `obj` (a Service, a PodDisruptionBudget) selects.
pub fn selected(snap: &Snapshot, obj: &Object) -> Vec<String> {
    let Some(sel) = selector_of(obj) else {
        return Vec::new();
    };
    let mut pods: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.kind() == "Pod"
                && o.group().is_empty()
                && o.namespace() == obj.namespace()
                && selector::matches(&sel, &o.labels)
        })
        .collect();
    pods.sort_by_key(|o| o.name());
    pods.into_iter().map(|o| o.uid.clone()).collect()
}
