//! The scheduler's filters that name no object: a bound volume pinned to
//! nodes the pod cannot use (`volume node affinity conflict`), a host port
//! taken (`didn't have free ports`), a topology spread whose key no node
//! carries (`didn't match pod topology spread constraints`), and, when the
//! nodes could not be read, every other part of the scheduler's message
//! kept as it is. Each names what blocks and what to change. Pure.

use serde_json::Value;

use super::scheduling::Blocker;
use crate::model::{Object, Snapshot};

/// The blockers of an unschedulable `pod` that [`super::scheduling::blockers`]
/// does not read: from the scheduler's `message`, the snapshot's claims,
/// volumes and pods, and the `nodes` read (none when they could not be).
pub fn blockers(pod: &Object, snap: &Snapshot, nodes: &[&Object], message: &str) -> Vec<Blocker> {
    let mut out = Vec::new();
    // `didn't match PersistentVolume's node affinity` (v1.36 says so),
    // `volume node affinity conflict` before.
    if message.contains("PersistentVolume's node affinity")
        || message.contains("volume node affinity conflict")
    {
        out.extend(pinned_volumes(pod, snap));
    }
    if message.contains("didn't have free ports") {
        out.extend(host_ports(pod, snap));
    }
    if message.contains("topology spread constraints") {
        out.extend(spread_keys(pod, nodes, message));
    }
    out
}

/// The parts of the scheduler's count (`2 node(s) were unschedulable`)
/// that no blocker already speaks for, kept whole: when the nodes could
/// not be read they are all there is to go on.
pub fn unexplained_parts(message: &str, explained: &[&str]) -> Vec<String> {
    let Some((_, rest)) = message.split_once("are available: ") else {
        return Vec::new();
    };
    let first = rest
        .split(". ")
        .next()
        .unwrap_or(rest)
        .trim_end_matches('.');
    first
        .split(", ")
        .map(str::trim)
        .filter(|part| !part.is_empty() && !explained.iter().any(|e| part.contains(e)))
        .map(str::to_string)
        .collect()
}

/// The scheduler's fragments the blockers speak for.
pub const EXPLAINED: &[&str] = &[
    "didn't match Pod's node affinity/selector",
    "had untolerated taint",
    "Insufficient ",
    "didn't match pod anti-affinity rules",
    "didn't match pod affinity rules",
    "volume node affinity conflict",
    "PersistentVolume's node affinity",
    "didn't have free ports",
    "topology spread constraints",
];

/// Each claim of the pod bound to a volume whose node affinity keeps it
/// on nodes the pod cannot use: the volume and its rule named.
fn pinned_volumes(pod: &Object, snap: &Snapshot) -> Vec<Blocker> {
    let ns = pod.namespace();
    let claims = pod
        .at("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.pointer("/persistentVolumeClaim/claimName")?.as_str());
    let mut out = Vec::new();
    for claim in claims {
        let Some(pv) = snap
            .find("", "PersistentVolumeClaim", ns, claim)
            .and_then(|c| c.str("/spec/volumeName"))
            .and_then(|v| snap.find("", "PersistentVolume", None, v))
        else {
            continue;
        };
        let rule = pv
            .at("/spec/nodeAffinity/required/nodeSelectorTerms")
            .and_then(Value::as_array)
            .map(|terms| {
                terms
                    .iter()
                    .flat_map(|t| {
                        t.get("matchExpressions")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                    })
                    .map(|e| {
                        let values: Vec<&str> = e
                            .get("values")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .collect();
                        format!(
                            "{} {} [{}]",
                            e.get("key").and_then(Value::as_str).unwrap_or("?"),
                            e.get("operator").and_then(Value::as_str).unwrap_or("?"),
                            values.join(", ")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" or ")
            })
            .filter(|r| !r.is_empty());
        let Some(rule) = rule else {
            continue;
        };
        out.push(Blocker {
            text: format!(
                "PersistentVolume {} (bound to claim {claim}) may only be used on nodes where {rule}, and no node it may run on is one",
                pv.name()
            ),
            fix: format!(
                "the volume's data lives where its node affinity says: bring that node back, or, if the data can go, delete claim {claim} so that a new volume is provisioned where the pod can run"
            ),
            commands: vec![
                format!("kubectl get pv {} -o jsonpath='{{.spec.nodeAffinity}}'", pv.name()),
                "kubectl get nodes --show-labels".into(),
            ],
        });
    }
    out
}

/// The host ports the pod asks for, and the pods that hold them.
fn host_ports(pod: &Object, snap: &Snapshot) -> Vec<Blocker> {
    let ports = host_ports_of(pod);
    let mut out = Vec::new();
    for port in ports {
        let holders: Vec<String> = snap
            .objects()
            .iter()
            .filter(|o| {
                o.kind() == "Pod"
                    && o.group().is_empty()
                    && o.uid != pod.uid
                    && o.str("/spec/nodeName").is_some()
                    && o.str("/status/phase")
                        .is_none_or(|p| p != "Succeeded" && p != "Failed")
                    && host_ports_of(o).contains(&port)
            })
            .map(|o| {
                format!(
                    "{}/{} on {}",
                    o.namespace().unwrap_or_default(),
                    o.name(),
                    o.str("/spec/nodeName").unwrap_or("?")
                )
            })
            .take(5)
            .collect();
        let held = if holders.is_empty() {
            "held on every node it may run on".to_string()
        } else {
            format!("held by {}", holders.join(", "))
        };
        out.push(Blocker {
            text: format!("host port {port} is {held}"),
            fix: format!(
                "drop hostPort {port} from the pod template and reach it through a Service, or free the port (fewer replicas than nodes, or move the pods that hold it)"
            ),
            // `-o wide` shows no host ports: these columns do, one
            // number per port, and `grep -w` finds the number.
            commands: vec![format!(
                "kubectl get pods -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,NODE:.spec.nodeName,HOSTPORTS:.spec.containers[*].ports[*].hostPort | grep -w {}",
                port.split('/').next().unwrap_or(&port)
            )],
        });
    }
    out
}

/// `hostPort/protocol` for each container port with a host port.
fn host_ports_of(pod: &Object) -> Vec<String> {
    let mut ports: Vec<String> = pod
        .at("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|c| {
            c.get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|p| {
            let host = p.get("hostPort")?.as_i64().filter(|&h| h > 0)?;
            let proto = p.get("protocol").and_then(Value::as_str).unwrap_or("TCP");
            Some(format!("{host}/{proto}"))
        })
        .collect();
    ports.sort();
    ports.dedup();
    ports
}

/// The pod's hard topology spread constraints, and the keys no node
/// carries (when the nodes were read) or the scheduler says are missing.
fn spread_keys(pod: &Object, nodes: &[&Object], message: &str) -> Vec<Blocker> {
    let keys: Vec<&str> = pod
        .at("/spec/topologySpreadConstraints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| c.get("whenUnsatisfiable").and_then(Value::as_str) != Some("ScheduleAnyway"))
        .filter_map(|c| c.get("topologyKey")?.as_str())
        .collect();
    let missing_label = message.contains("missing required label");
    let mut out = Vec::new();
    for key in keys {
        let unlabelled = if nodes.is_empty() {
            missing_label
        } else {
            !nodes.iter().any(|n| n.labels.contains_key(key))
        };
        let text = if unlabelled {
            format!("its topology spread constraint uses the key {key}, which no node carries")
        } else {
            format!(
                "its topology spread constraint on {key} (maxSkew) cannot be kept on the nodes it may run on"
            )
        };
        let fix = if unlabelled {
            format!("label the nodes with {key}, or fix the topologyKey in the pod template")
        } else {
            format!(
                "add nodes in another {key} domain, raise maxSkew, or make it whenUnsatisfiable: ScheduleAnyway"
            )
        };
        out.push(Blocker {
            text,
            fix,
            commands: vec![format!("kubectl get nodes -L {key}")],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        Object::from_value(v).unwrap()
    }

    fn pod(spec: Value) -> Object {
        obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "db-0", "namespace": "shop", "uid": "p"},
            "spec": spec, "status": {"phase": "Pending"}}))
    }

    fn snapshot(objects: Vec<Object>) -> Snapshot {
        Snapshot::new(
            objects,
            vec![],
            vec![],
            "2026-12-01T12:00:00Z".parse().unwrap(),
        )
    }

    #[test]
    fn a_volume_pinned_to_a_gone_node_is_named_with_its_rule() {
        let p = pod(json!({"containers": [{"name": "db", "image": "postgres"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}]}));
        let claim = obj(json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data-db-0", "namespace": "shop", "uid": "c"},
            "spec": {"volumeName": "pvc-1"}, "status": {"phase": "Bound"}}));
        let pv = obj(json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "pvc-1", "uid": "v"},
            "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-gone"]}]}]}}}}));
        let snap = snapshot(vec![p.clone(), claim, pv]);
        let older = "0/2 nodes are available: 2 node(s) had volume node affinity conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
        assert_eq!(blockers(&p, &snap, &[], older).len(), 1);
        // As kube-scheduler v1.36 words it.
        let message = "0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
        let b = blockers(&p, &snap, &[], message);
        assert_eq!(b.len(), 1, "{b:?}");
        assert!(
            b[0].text
                .contains("PersistentVolume pvc-1 (bound to claim data-db-0)")
                && b[0].text.contains("kubernetes.io/hostname In [node-gone]"),
            "{}",
            b[0].text
        );
    }

    #[test]
    fn a_taken_host_port_names_the_pods_that_hold_it() {
        let spec = json!({"containers": [{"name": "proxy", "image": "envoy",
            "ports": [{"containerPort": 8080, "hostPort": 8080}]}]});
        let p = pod(spec.clone());
        let holder = obj(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "proxy-a", "namespace": "edge", "uid": "h"},
            "spec": {"nodeName": "node-a", "containers": spec["containers"].clone()},
            "status": {"phase": "Running"}}));
        let snap = snapshot(vec![p.clone(), holder]);
        let message = "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
        let b = blockers(&p, &snap, &[], message);
        assert_eq!(b.len(), 1, "{b:?}");
        assert_eq!(
            b[0].text,
            "host port 8080/TCP is held by edge/proxy-a on node-a"
        );
        // A command whose output shows host ports, found by the number.
        assert!(
            b[0].commands[0].contains("HOSTPORTS:.spec.containers[*].ports[*].hostPort")
                && b[0].commands[0].ends_with("| grep -w 8080"),
            "{:?}",
            b[0].commands
        );
    }

    #[test]
    fn a_spread_key_no_node_carries_is_named() {
        let p = pod(json!({"containers": [{"name": "c", "image": "x"}],
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "topology.example.com/rack", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "db"}}},
                {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]}));
        let node = obj(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-a", "uid": "n", "labels": {"kubernetes.io/hostname": "node-a"}}}));
        let snap = snapshot(vec![p.clone(), node.clone()]);
        let message = "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
        for nodes in [vec![&node], vec![]] {
            let b = blockers(&p, &snap, &nodes, message);
            assert_eq!(b.len(), 1, "{b:?}");
            assert!(
                b[0].text
                    .contains("the key topology.example.com/rack, which no node carries"),
                "{}",
                b[0].text
            );
        }
    }

    #[test]
    fn every_part_of_the_message_no_blocker_speaks_for_is_kept() {
        let message = "0/5 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector, 2 node(s) were unschedulable. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.";
        assert_eq!(
            unexplained_parts(message, EXPLAINED),
            ["2 node(s) were unschedulable"]
        );
    }
}
