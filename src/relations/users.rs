//! Sideways: who uses an object that pods name (a ConfigMap, Secret,
//! ServiceAccount, PersistentVolumeClaim or PriorityClass) or run on (a
//! Node). The reverse of a pod's `mounts`, `uses` and `runs-on`, drawn
//! under the target of `tree` only. Pure: where the pods to look at are,
//! whether a pod uses the object, and the users found in a snapshot.

use serde_json::Value;

use super::{Edge, pods};
use crate::graph::{ChainLink, Graph};
use crate::model::{Object, Snapshot};

/// Where the pods that may use an object are: a namespace (none: every
/// namespace), and a field selector that narrows them on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodsToRead {
    pub namespace: Option<String>,
    pub fields: Option<String>,
}

/// The pods to read to find who uses `obj`; none for a kind no pod names.
/// `scope`: the command's namespace, none for `-A` (a PriorityClass's
/// users are looked for there, there being no field to select them by).
pub fn pods_to_read(obj: &Object, scope: Option<&str>) -> Option<PodsToRead> {
    match (obj.group(), obj.kind()) {
        ("", "ConfigMap" | "Secret" | "ServiceAccount" | "PersistentVolumeClaim") => {
            Some(PodsToRead {
                namespace: Some(obj.namespace()?.to_string()),
                fields: None,
            })
        }
        ("", "Node") => Some(PodsToRead {
            namespace: None,
            fields: Some(format!("spec.nodeName={}", obj.name())),
        }),
        ("scheduling.k8s.io", "PriorityClass") => Some(PodsToRead {
            namespace: scope.map(str::to_string),
            fields: None,
        }),
        _ => None,
    }
}

/// How `pod` relates to `obj`, if it uses it or runs on it. Optional
/// references count: the pod still reads the object when it is there.
pub fn uses(pod: &Object, obj: &Object) -> Option<Edge> {
    if pod.kind() != "Pod" || !pod.group().is_empty() {
        return None;
    }
    let spec = pod.at("/spec")?;
    let named = |key: &str| spec.get(key).and_then(Value::as_str) == Some(obj.name());
    match (obj.group(), obj.kind()) {
        ("", "Node") => named("nodeName").then_some(Edge::Hosts),
        ("scheduling.k8s.io", "PriorityClass") => {
            named("priorityClassName").then_some(Edge::UsedBy)
        }
        (_, kind) if pod.namespace() == obj.namespace() => {
            let pulls = kind == "Secret"
                && spec
                    .get("imagePullSecrets")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|s| s.get("name").and_then(Value::as_str) == Some(obj.name()));
            let named = pods::pod_refs_all(pod)
                .into_iter()
                .any(|(_, n)| n.kind == kind && n.group().is_empty() && n.name == obj.name());
            (pulls || named).then_some(Edge::UsedBy)
        }
        _ => None,
    }
}

/// The users of `root` in the snapshot, each as the top of its pod's owner
/// chain (the Deployment, not its pod), sorted, with the edge they hang by.
pub fn users(snap: &Snapshot, graph: &Graph, root: &Object) -> Vec<(Edge, String)> {
    let mut out: Vec<(Edge, &Object)> = Vec::new();
    for pod in snap.objects() {
        let Some(edge) = uses(pod, root) else {
            continue;
        };
        // A node's pods are drawn themselves: their workloads run elsewhere too.
        let top = if edge == Edge::Hosts {
            pod
        } else {
            graph
                .owner_chain(&pod.uid)
                .iter()
                .rev()
                .find_map(|l| match l {
                    ChainLink::Found(uid) => snap.get(uid),
                    _ => None,
                })
                .unwrap_or(pod)
        };
        if !out.iter().any(|(_, o)| o.uid == top.uid) {
            out.push((edge, top));
        }
    }
    out.sort_by_key(|(_, o)| (o.namespace(), o.kind(), o.name()));
    out.into_iter().map(|(e, o)| (e, o.uid.clone())).collect()
}
