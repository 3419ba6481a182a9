//! Why no node can run a pod: the scheduler's message counts the nodes
//! each filter rejected, but names neither the term nor the taint nor the
//! numbers. This reads the pod's spec against the nodes (when they could be
//! read) and names each blocking constraint, with a step for it. Pure.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::Object;

/// One constraint that keeps the pod off every node it could use.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocker {
    /// What blocks it, with the values (`nodeSelector disktype=ssd: …`).
    pub text: String,
    /// What to change.
    pub fix: String,
    pub commands: Vec<String>,
}

/// The blocking constraints of an unschedulable pod, from its spec, the
/// nodes read (none when they could not be read) and the scheduler's
/// message.
pub fn blockers(pod: &Object, nodes: &[&Object], message: &str) -> Vec<Blocker> {
    let Some(spec) = pod.at("/spec") else {
        return Vec::new();
    };
    if nodes.is_empty() {
        return from_message(spec, pod.namespace(), message);
    }
    let mut out = Vec::new();
    // The nodes its node selector and required node affinity allow.
    let placed: Vec<&Object> = nodes
        .iter()
        .copied()
        .filter(|n| selector_allows(spec, n) && affinity_allows(spec, n))
        .collect();
    if placed.is_empty() {
        out.extend(selector_blockers(spec, nodes));
        out.extend(affinity_blockers(spec, nodes));
        return out;
    }
    let open: Vec<&Object> = placed
        .iter()
        .copied()
        .filter(|n| {
            !n.at("/spec/unschedulable")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        })
        .collect();
    if open.is_empty() {
        let names: Vec<&str> = placed.iter().map(|n| n.name()).collect();
        out.push(Blocker {
            text: format!("every node it may run on is cordoned: {}", names.join(", ")),
            fix: "uncordon a node, or widen the pod's node selector".into(),
            commands: names
                .iter()
                .map(|n| format!("kubectl uncordon {n}"))
                .collect(),
        });
        return out;
    }
    let tolerated: Vec<&Object> = open
        .iter()
        .copied()
        .filter(|n| untolerated(spec, n).is_empty())
        .collect();
    if tolerated.is_empty() {
        let mut taints: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for n in &open {
            for t in untolerated(spec, n) {
                taints.entry(t).or_default().push(n.name());
            }
        }
        let listed: Vec<String> = taints
            .iter()
            .map(|(t, on)| format!("{t} (on {})", on.join(", ")))
            .collect();
        let only = if open.len() < nodes.len() {
            "the nodes it may run on have"
        } else {
            "every node has"
        };
        let first = taints.keys().next().cloned().unwrap_or_default();
        let node = taints
            .values()
            .next()
            .and_then(|v| v.first())
            .copied()
            .unwrap_or("NODE");
        out.push(Blocker {
            text: format!("{only} a taint the pod does not tolerate: {}", listed.join("; ")),
            fix: format!(
                "add a toleration for {first} to the pod template, or remove the taint from the node"
            ),
            commands: vec![format!("kubectl taint node {node} {first}-")],
        });
        return out;
    }
    out.extend(resource_blockers(pod, &tolerated, message));
    if message.contains("didn't match pod anti-affinity rules") {
        out.push(anti_affinity(spec, pod.namespace(), tolerated.len()));
    }
    if message.contains("didn't match pod affinity rules") {
        out.push(Blocker {
            text: format!(
                "its required pod affinity finds no pod to join on the {} node(s) it may run on",
                tolerated.len()
            ),
            fix: "start the pods it must run beside, or make the affinity preferred".into(),
            commands: vec![],
        });
    }
    out
}

/// Without the nodes: what the pod's spec asks for, by the filters the
/// scheduler's message names.
fn from_message(spec: &Value, ns: Option<&str>, message: &str) -> Vec<Blocker> {
    let mut out = Vec::new();
    // `0/3 nodes are available: 1 node(s) had …, 2 Insufficient cpu.`:
    // each filter's count of the nodes it rejected.
    let counts: Vec<&str> = message
        .split_once("are available: ")
        .map(|(_, rest)| rest.split(". ").next().unwrap_or(rest))
        .map(|first| first.split(", ").collect())
        .unwrap_or_default();
    let nodes = |fragment: &str| -> Option<String> {
        let piece = counts.iter().find(|p| p.contains(fragment))?;
        let count = piece.split(' ').next().unwrap_or("");
        Some(
            if !count.is_empty() && count.chars().all(|c| c.is_ascii_digit()) {
                format!("{count} node(s)")
            } else {
                "nodes".into()
            },
        )
    };
    let unread = "(the nodes could not be read to say more)";
    if let Some(n) = nodes("didn't match Pod's node affinity/selector") {
        let sel = node_selector(spec);
        let what = if sel.is_empty() {
            "its required node affinity".to_string()
        } else {
            format!(
                "its nodeSelector {}",
                sel.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        out.push(Blocker {
            text: format!("{n} do not match {what} {unread}"),
            fix: "label nodes to match, or change the pod's node selector or affinity".into(),
            commands: vec![],
        });
    }
    if let Some(n) = nodes("had untolerated taint") {
        out.push(Blocker {
            text: format!("{n} have a taint the pod does not tolerate {unread}"),
            fix: "add a toleration for the node's taint to the pod template, or remove the taint"
                .into(),
            commands: vec![],
        });
    }
    for (resource, amount) in requests(spec) {
        if let Some(n) = nodes(&format!("Insufficient {resource}")) {
            out.push(Blocker {
                text: format!(
                    "{n} lack the free {resource} it requests ({}) {unread}",
                    format_quantity(&resource, amount)
                ),
                fix: format!("lower its {resource} request, or add capacity"),
                commands: vec![],
            });
        }
    }
    if let Some(n) = nodes("didn't match pod anti-affinity rules") {
        let mut b = anti_affinity(spec, ns, 0);
        b.text = format!("{n}: {} {unread}", b.text);
        out.push(b);
    }
    out
}

fn node_selector(spec: &Value) -> Vec<(String, String)> {
    spec.get("nodeSelector")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect()
}

fn selector_allows(spec: &Value, node: &Object) -> bool {
    node_selector(spec)
        .iter()
        .all(|(k, v)| node.labels.get(k) == Some(v))
}

/// The terms of `requiredDuringSchedulingIgnoredDuringExecution`; a node
/// must match one of them.
fn required_terms(spec: &Value) -> Vec<&Value> {
    spec.pointer(
        "/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms",
    )
    .and_then(Value::as_array)
    .map(|t| t.iter().collect())
    .unwrap_or_default()
}

fn affinity_allows(spec: &Value, node: &Object) -> bool {
    let terms = required_terms(spec);
    terms.is_empty() || terms.iter().any(|t| term_matches(t, node))
}

fn expressions(term: &Value) -> impl Iterator<Item = &Value> {
    term.get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn term_matches(term: &Value, node: &Object) -> bool {
    expressions(term).all(|e| expression_matches(e, node))
}

/// A requirement's `values`.
fn values_of(e: &Value) -> Vec<&str> {
    e.get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// A node selector requirement against a node's labels (`In`, `NotIn`,
/// `Exists`, `DoesNotExist`, `Gt`, `Lt`).
fn expression_matches(e: &Value, node: &Object) -> bool {
    let key = e.get("key").and_then(Value::as_str).unwrap_or("");
    let values = values_of(e);
    let label = node.labels.get(key).map(String::as_str);
    let number = |s: Option<&str>| s.and_then(|s| s.parse::<i64>().ok());
    match e.get("operator").and_then(Value::as_str).unwrap_or("") {
        "In" => label.is_some_and(|l| values.contains(&l)),
        "NotIn" => label.is_none_or(|l| !values.contains(&l)),
        "Exists" => label.is_some(),
        "DoesNotExist" => label.is_none(),
        "Gt" => {
            matches!((number(label), number(values.first().copied())), (Some(l), Some(v)) if l > v)
        }
        "Lt" => {
            matches!((number(label), number(values.first().copied())), (Some(l), Some(v)) if l < v)
        }
        _ => false,
    }
}

/// The values the nodes have for a label key, for the message.
fn node_values(nodes: &[&Object], key: &str) -> BTreeSet<String> {
    nodes
        .iter()
        .filter_map(|n| n.labels.get(key).cloned())
        .collect()
}

fn have(nodes: &[&Object], key: &str) -> String {
    let values = node_values(nodes, key);
    if values.is_empty() {
        format!("no node has the label {key}")
    } else {
        format!(
            "the nodes have {key}={}",
            values.into_iter().collect::<Vec<_>>().join(", ")
        )
    }
}

fn selector_blockers(spec: &Value, nodes: &[&Object]) -> Vec<Blocker> {
    node_selector(spec)
        .into_iter()
        .filter(|(k, v)| !nodes.iter().any(|n| n.labels.get(k) == Some(v)))
        .map(|(k, v)| Blocker {
            text: format!("nodeSelector {k}={v} matches no node: {}", have(nodes, &k)),
            fix: format!(
                "label the nodes that should run it with {k}={v}, or change spec.nodeSelector in the pod template"
            ),
            commands: vec![format!("kubectl get nodes -L {k}"), format!("kubectl label node NODE {k}={v}")],
        })
        .collect()
}

fn affinity_blockers(spec: &Value, nodes: &[&Object]) -> Vec<Blocker> {
    let terms = required_terms(spec);
    if terms.is_empty() || nodes.iter().any(|n| affinity_allows(spec, n)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for term in terms {
        for e in expressions(term).filter(|e| !nodes.iter().any(|n| expression_matches(e, n))) {
            let key = e.get("key").and_then(Value::as_str).unwrap_or("");
            let op = e.get("operator").and_then(Value::as_str).unwrap_or("");
            let values = values_of(e);
            let wanted = if values.is_empty() {
                format!("{key} {op}")
            } else {
                format!("{key} {op} [{}]", values.join(", "))
            };
            out.push(Blocker {
                text: format!(
                    "required node affinity {wanted} matches no node: {}",
                    have(nodes, key)
                ),
                fix: "change the pod template's required node affinity, or label nodes to match"
                    .into(),
                commands: vec![format!("kubectl get nodes -L {key}")],
            });
        }
    }
    if out.is_empty() {
        out.push(Blocker {
            text: "no node matches every expression of any required node affinity term".into(),
            fix: "change the pod template's required node affinity, or label nodes to match".into(),
            commands: vec!["kubectl get nodes --show-labels".into()],
        });
    }
    out
}

/// The node's NoSchedule and NoExecute taints the pod does not tolerate,
/// as `key=value:Effect`.
fn untolerated(spec: &Value, node: &Object) -> Vec<String> {
    let tolerations: Vec<&Value> = spec
        .get("tolerations")
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    node.at("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| {
            matches!(
                t.get("effect").and_then(Value::as_str),
                Some("NoSchedule" | "NoExecute")
            )
        })
        .filter(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
        .map(|t| {
            let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
            match s("value") {
                "" => format!("{}:{}", s("key"), s("effect")),
                v => format!("{}={v}:{}", s("key"), s("effect")),
            }
        })
        .collect()
}

/// A toleration against a taint, as the scheduler matches them.
fn tolerates(tol: &Value, taint: &Value) -> bool {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let effect = s(tol, "effect");
    if !effect.is_empty() && effect != s(taint, "effect") {
        return false;
    }
    let key = s(tol, "key");
    if !key.is_empty() && key != s(taint, "key") {
        return false;
    }
    match s(tol, "operator").as_str() {
        "Exists" => true,
        _ => !key.is_empty() && s(tol, "value") == s(taint, "value"),
    }
}

/// What the pod requests: its containers' requests summed, or its largest
/// init container's when larger (init containers run one at a time).
fn requests(spec: &Value) -> BTreeMap<String, f64> {
    let of = |c: &Value| -> BTreeMap<String, f64> {
        c.pointer("/resources/requests")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), quantity(v.as_str()?)?)))
            .collect()
    };
    let mut total: BTreeMap<String, f64> = BTreeMap::new();
    for c in spec
        .get("containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for (k, v) in of(c) {
            *total.entry(k).or_default() += v;
        }
    }
    for c in spec
        .get("initContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for (k, v) in of(c) {
            let e = total.entry(k).or_default();
            *e = e.max(v);
        }
    }
    total
}

fn resource_blockers(pod: &Object, nodes: &[&Object], message: &str) -> Vec<Blocker> {
    let Some(spec) = pod.at("/spec") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (resource, wanted) in requests(spec) {
        if !message.contains(&format!("Insufficient {resource}")) {
            continue;
        }
        let largest = nodes
            .iter()
            .filter_map(|n| {
                let s = n.str(&format!(
                    "/status/allocatable/{}",
                    resource.replace('/', "~1")
                ))?;
                Some((quantity(s)?, s, n.name()))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.2.cmp(a.2)));
        let asked = format_quantity(&resource, wanted);
        let text = match largest {
            Some((most, shown, node)) if wanted > most => format!(
                "it requests {resource} {asked}, more than any node can give: {asked} > {shown}, the largest allocatable ({node})"
            ),
            Some((_, shown, node)) => format!(
                "it requests {resource} {asked}, which fits a node's allocatable (at most {shown}, {node}) but not what the pods already there leave free"
            ),
            None => format!("it requests {resource} {asked}, which no node offers"),
        };
        out.push(Blocker {
            text,
            fix: format!("lower the {resource} request in the pod template, free capacity, or add a larger node"),
            commands: vec!["kubectl describe nodes".into()],
        });
    }
    out
}

fn anti_affinity(spec: &Value, ns: Option<&str>, nodes: usize) -> Blocker {
    let term =
        spec.pointer("/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0");
    let topology = term
        .and_then(|t| t.get("topologyKey"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    let selector = term
        .and_then(|t| t.get("labelSelector"))
        .and_then(crate::selector::to_query)
        .unwrap_or_default();
    let place = if nodes > 0 {
        format!("each of the {nodes} node(s) it may run on")
    } else {
        "each node it may run on".into()
    };
    Blocker {
        text: format!(
            "required pod anti-affinity (topologyKey {topology}, pods {selector}): {place} already runs such a pod"
        ),
        fix: "add nodes, lower the replicas, or make the anti-affinity preferred".into(),
        commands: if selector.is_empty() {
            vec![]
        } else {
            let ns = ns.map(|n| format!(" -n {n}")).unwrap_or_default();
            vec![format!("kubectl{ns} get pods -l {selector} -o wide")]
        },
    }
}

/// A Kubernetes quantity in base units (`500m` → 0.5, `1Gi` → 2^30).
pub fn quantity(s: &str) -> Option<f64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let n: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => 10f64.powi(e[1..].parse().ok()?),
        _ => return None,
    };
    Some(n * scale)
}

/// A quantity as kubectl would write it: cores (or millicores) for cpu,
/// binary units for byte amounts.
fn format_quantity(resource: &str, v: f64) -> String {
    if resource == "cpu" {
        return if v.fract() == 0.0 {
            format!("{v}")
        } else {
            format!("{}m", (v * 1000.0).round())
        };
    }
    for (unit, scale) in [("Ti", 4), ("Gi", 3), ("Mi", 2), ("Ki", 1)] {
        let d = 1024f64.powi(scale);
        if v >= d && (v / d).fract() == 0.0 {
            return format!("{}{unit}", v / d);
        }
    }
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn node(name: &str, labels: Value, taints: Value, cpu: &str) -> Object {
        Object::from_value(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": name, "labels": labels},
            "spec": {"taints": taints},
            "status": {"allocatable": {"cpu": cpu, "memory": "256Gi", "pods": "500"}}}))
        .unwrap()
    }

    /// The test cluster's nodes: two plain ones and a tainted GPU node.
    fn nodes() -> Vec<Object> {
        vec![
            node(
                "kwok-node-1",
                json!({"kubernetes.io/hostname": "kwok-node-1", "type": "kwok"}),
                json!([]),
                "32",
            ),
            node(
                "kwok-node-2",
                json!({"kubernetes.io/hostname": "kwok-node-2", "type": "kwok"}),
                json!([]),
                "32",
            ),
            node(
                "kwok-tainted",
                json!({"kubernetes.io/hostname": "kwok-tainted", "pool": "gpu"}),
                json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
                "8",
            ),
        ]
    }

    fn pod(spec: Value) -> Object {
        Object::from_value(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "sch", "uid": "p"}, "spec": spec}))
        .unwrap()
    }

    // The scheduler's messages as kube-scheduler v1.36 wrote them.
    const SELECTOR: &str = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    const CPU: &str = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    const ANTI: &str = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.";

    fn texts(spec: Value, message: &str, with_nodes: bool) -> Vec<String> {
        let all = nodes();
        let refs: Vec<&Object> = if with_nodes {
            all.iter().collect()
        } else {
            vec![]
        };
        blockers(&pod(spec), &refs, message)
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    #[test]
    fn each_constraint_is_named_with_its_values() {
        assert_eq!(
            texts(
                json!({"nodeSelector": {"disktype": "ssd"}, "containers": [{"name": "a"}]}),
                SELECTOR,
                true
            ),
            vec!["nodeSelector disktype=ssd matches no node: no node has the label disktype"]
        );
        assert_eq!(
            texts(
                json!({"nodeSelector": {"type": "metal"}, "containers": [{"name": "a"}]}),
                SELECTOR,
                true
            ),
            vec!["nodeSelector type=metal matches no node: the nodes have type=kwok"]
        );
        assert_eq!(
            texts(
                json!({"nodeSelector": {"pool": "gpu"}, "containers": [{"name": "a"}]}),
                SELECTOR,
                true
            ),
            vec![
                "the nodes it may run on have a taint the pod does not tolerate: dedicated=gpu:NoSchedule (on kwok-tainted)"
            ]
        );
        assert!(
            texts(
                json!({"nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
                    "containers": [{"name": "a", "resources": {"requests": {"cpu": "4"}}}]}),
                SELECTOR,
                true
            )
            .is_empty(),
            "a tolerated taint blocks nothing"
        );
        assert_eq!(
            texts(
                json!({"containers": [{"name": "a", "resources": {"requests": {"cpu": "64", "memory": "1Gi"}}}]}),
                CPU,
                true
            ),
            vec![
                "it requests cpu 64, more than any node can give: 64 > 32, the largest allocatable (kwok-node-1)"
            ]
        );
        assert_eq!(
            texts(
                json!({"containers": [{"name": "a", "resources": {"requests": {"cpu": "20"}}}]}),
                CPU,
                true
            ),
            vec![
                "it requests cpu 20, which fits a node's allocatable (at most 32, kwok-node-1) but not what the pods already there leave free"
            ]
        );
        assert_eq!(
            texts(
                json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-1a"]}]}]}}},
                    "containers": [{"name": "a"}]}),
                SELECTOR,
                true
            ),
            vec![
                "required node affinity topology.kubernetes.io/zone In [eu-1a] matches no node: no node has the label topology.kubernetes.io/zone"
            ]
        );
        assert_eq!(
            texts(
                json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "anti"}}}]}},
                    "containers": [{"name": "a"}]}),
                ANTI,
                true
            ),
            vec![
                "required pod anti-affinity (topologyKey kubernetes.io/hostname, pods app=anti): each of the 2 node(s) it may run on already runs such a pod"
            ]
        );
    }

    #[test]
    fn without_the_nodes_the_message_and_the_spec_still_name_the_constraint() {
        assert_eq!(
            texts(
                json!({"nodeSelector": {"disktype": "ssd"}, "containers": [{"name": "a"}]}),
                SELECTOR,
                false
            ),
            vec![
                "2 node(s) do not match its nodeSelector disktype=ssd (the nodes could not be read to say more)",
                "1 node(s) have a taint the pod does not tolerate (the nodes could not be read to say more)"
            ]
        );
        assert_eq!(
            texts(
                json!({"containers": [{"name": "a", "resources": {"requests": {"cpu": "64"}}}]}),
                CPU,
                false
            )[1],
            "2 node(s) lack the free cpu it requests (64) (the nodes could not be read to say more)"
        );
    }

    #[test]
    fn quantities_read_as_kubernetes_writes_them() {
        assert_eq!(quantity("500m"), Some(0.5));
        assert_eq!(quantity("2"), Some(2.0));
        assert_eq!(quantity("1Gi"), Some(1073741824.0));
        assert_eq!(quantity("1e3"), Some(1000.0));
        assert_eq!(quantity("12x"), None);
        assert_eq!(format_quantity("cpu", 0.25), "250m");
        assert_eq!(
            format_quantity("memory", 1536.0 * 1024.0 * 1024.0),
            "1536Mi"
        );
        let spec = json!({"containers": [{"resources": {"requests": {"cpu": "250m"}}}, {"resources": {"requests": {"cpu": "250m"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "2"}}}]});
        assert_eq!(requests(&spec)["cpu"], 2.0, "the larger init container");
    }
}
