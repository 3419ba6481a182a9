//! Services (v1): a load balancer still pending, and for a Service with a
//! selector, whether any pod behind it is ready, from the EndpointSlices and
//! Pods of the snapshot.

use crate::verdict::Judged;
use std::collections::BTreeSet;

use serde_json::Value;

use crate::model::{Object, age};
use crate::verdict::reason::{Lifecycle, Network};
use crate::verdict::words::{list, noun};
use crate::verdict::{Judgement, Verdict, judge as judge_object};

/// How long a new Service may have no pods before that is a failure.
const ENDPOINTS_GRACE: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let type_ = obj.str("/spec/type").unwrap_or("ClusterIP");
    if type_ == "ExternalName" {
        let target = obj.str("/spec/externalName").unwrap_or("?");
        return Some(Judgement::new(
            Verdict::Converged,
            Network::ExternalName,
            format!("DNS alias for {target}; no endpoints to check"),
        ));
    }
    if type_ == "LoadBalancer" && lb_addresses(obj).is_empty() {
        let waited = obj
            .created
            .map(|c| format!(" for {}", age(snap.now, c)))
            .unwrap_or_default();
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Network::PendingLoadBalancer,
                format!(
                    "waiting{waited} for a load balancer: no controller has written status.loadBalancer.ingress"
                ),
            )
            .since(obj.created),
        );
    }
    let selector = selector(obj);
    if selector.is_empty() {
        return Some(Judgement::new(
            Verdict::Converged,
            Lifecycle::Current,
            "no selector: its endpoints are managed outside Kubernetes",
        ));
    }
    let mut j = endpoints(obj, snap, &selector);
    let addresses = lb_addresses(obj);
    if j.verdict == Verdict::Converged && !addresses.is_empty() {
        j.message
            .push_str(&format!("; load balancer at {}", addresses.join(", ")));
    }
    Some(j)
}

fn endpoints(obj: &Object, snap: &Judged<'_>, selector: &[(String, String)]) -> Judgement {
    let namespace = obj.namespace();
    let selector_text = selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let slices: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.group() == "discovery.k8s.io"
                && o.kind() == "EndpointSlice"
                && o.namespace() == namespace
                && o.labels
                    .get("kubernetes.io/service-name")
                    .map(String::as_str)
                    == Some(obj.name())
        })
        .collect();
    let pods_known = snap
        .objects()
        .iter()
        .any(|o| is_pod(o) && o.namespace() == namespace);
    if slices.is_empty() && !pods_known {
        // Nothing says whether a pod serves it: not enough evidence to
        // call it converged (a false green when the slices are unreadable).
        return Judgement::new(
            Verdict::Unknown,
            Network::EndpointsNotRead,
            format!(
                "endpoints not checked: no EndpointSlices or Pods of namespace {} were read",
                namespace.unwrap_or_default()
            ),
        );
    }
    let pods: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            is_pod(o)
                && o.namespace() == namespace
                && !matches!(o.str("/status/phase"), Some("Succeeded" | "Failed"))
                && selector.iter().all(|(k, v)| o.labels.get(k) == Some(v))
        })
        .collect();
    // The slices are what kube-proxy routes to; the pods only explain.
    let (ready, total) = if slices.is_empty() {
        let ready = pods.iter().filter(|p| pod_ready(p)).count() as i64;
        (ready, pods.len() as i64)
    } else {
        slice_endpoints(&slices)
    };
    if total == 0 {
        // Scaled to 0 on purpose or not, no pod is coming: no grace.
        if let Some(j) = scaled_to_zero(obj, snap, &selector_text) {
            return j;
        }
        // Applied together with its workload, a Service has no pods for a
        // moment: that is not yet a failure.
        let young = obj
            .created
            .is_some_and(|c| snap.now.duration_since(c) < ENDPOINTS_GRACE);
        if young {
            return Judgement::new(
                Verdict::Progressing,
                Network::WaitingForEndpoints,
                format!("selector {selector_text} matches no pods yet"),
            );
        }
        return no_pods(obj, snap, &selector_text);
    }
    if let Some(j) = missing_named_port(obj, &pods, &slices) {
        return j;
    }
    if ready == 0 {
        // A Service with no ready backend serves nothing. Whether that is
        // stuck depends on its pods: failing pods make it Failed, pods on
        // their way up only Progressing.
        let failing: Vec<String> = pods
            .iter()
            .filter(|p| !pod_ready(p))
            .filter_map(|p| {
                let j = judge_object(p, snap);
                (j.verdict == Verdict::Failed).then(|| format!("{} ({})", p.name(), j.reason))
            })
            .collect();
        let head = format!("0/{total} endpoints ready");
        return if failing.is_empty() {
            Judgement::new(
                Verdict::Progressing,
                Network::NoReadyEndpoints,
                format!("{head}; its pods are not ready yet"),
            )
        } else {
            Judgement::new(
                Verdict::Failed,
                Network::NoReadyEndpoints,
                format!(
                    "{head}; failing {}: {}",
                    noun(failing.len() as i64, "pod"),
                    list(&failing)
                ),
            )
        }
        .ready(0, total);
    }
    Judgement::new(
        Verdict::Converged,
        Network::EndpointsReady,
        format!("{ready}/{total} {} ready", noun(total, "endpoint")),
    )
    .ready(ready, total)
}

/// A Service whose every backing workload is scaled to 0 replicas.
fn scaled_to_zero(obj: &Object, snap: &Judged<'_>, selector_text: &str) -> Option<Judgement> {
    let workloads = crate::selector::backing_workloads(snap, obj);
    let scaled: Vec<String> = workloads
        .iter()
        .filter(|w| {
            w.kind() != "DaemonSet" && w.at("/spec/replicas").and_then(Value::as_i64) == Some(0)
        })
        .map(|w| format!("{}/{}", w.kind(), w.name()))
        .collect();
    (!scaled.is_empty() && scaled.len() == workloads.len()).then(|| {
        Judgement::new(
            Verdict::Failed,
            Network::ScaledToZero,
            format!(
                "no pods to route to: {} {} scaled to 0 replicas (selector {selector_text})",
                list(&scaled),
                if scaled.len() == 1 { "is" } else { "are" }
            ),
        )
    })
}

/// A Service whose selector matches no pods, past its grace: named by the
/// workloads that would make them, when they were read (the chain follows
/// them: they are related to the Service).
fn no_pods(obj: &Object, snap: &Judged<'_>, selector_text: &str) -> Judgement {
    let workloads = crate::selector::backing_workloads(snap, obj);
    let mut message = format!("selector {selector_text} matches no pods");
    if !workloads.is_empty() {
        let names: Vec<String> = workloads
            .iter()
            .map(|w| format!("{}/{}", w.kind(), w.name()))
            .collect();
        let have = if names.len() == 1 { "has" } else { "have" };
        message.push_str(&format!(
            "; its pods would come from {}, which {have} none",
            list(&names)
        ));
    }
    Judgement::new(Verdict::Failed, Network::NoEndpoints, message)
}

/// A `targetPort` given by name that none of the selected pods' containers
/// declares: the EndpointSlice controller then publishes the endpoints with
/// no port, and traffic to the Service fails. Judged from the pods when
/// their specs were read, else from the slices (endpoints but no port of
/// that name).
fn missing_named_port(obj: &Object, pods: &[&Object], slices: &[&Object]) -> Option<Judgement> {
    let ports = obj.at("/spec/ports").and_then(Value::as_array)?;
    let with_spec: Vec<&&Object> = pods.iter().filter(|p| !p.metadata_only).collect();
    let declared: BTreeSet<&str> = with_spec.iter().flat_map(|p| container_ports(p)).collect();
    for port in ports {
        let Some(target) = port.get("targetPort").and_then(Value::as_str) else {
            continue;
        };
        let name = port.get("name").and_then(Value::as_str).unwrap_or("");
        let missing = if !with_spec.is_empty() {
            !declared.contains(target)
        } else {
            let endpoints = slices.iter().any(|s| {
                s.at("/endpoints")
                    .and_then(Value::as_array)
                    .is_some_and(|e| !e.is_empty())
            });
            endpoints
                && !slices.iter().any(|s| {
                    s.at("/ports")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .any(|p| p.get("name").and_then(Value::as_str).unwrap_or("") == name)
                })
        };
        if missing {
            let number = port.get("port").and_then(Value::as_i64).unwrap_or_default();
            let have = if with_spec.is_empty() {
                "its EndpointSlices carry no such port".to_string()
            } else if declared.is_empty() {
                "its pods' containers declare no named ports".to_string()
            } else {
                format!(
                    "its pods' containers declare {}",
                    declared
                        .iter()
                        .map(|d| format!("\"{d}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Some(Judgement::new(
                Verdict::Failed,
                Network::NamedPortNotFound,
                format!(
                    "port {number} targets port \"{target}\" by name, which no container of its pods declares ({have}): traffic to it fails"
                ),
            ));
        }
    }
    None
}

/// The names of the ports a pod's containers declare.
fn container_ports(pod: &Object) -> impl Iterator<Item = &str> {
    ["/spec/containers", "/spec/initContainers"]
        .into_iter()
        .filter_map(|p| pod.at(p).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c.get("ports").and_then(Value::as_array))
        .flatten()
        .filter_map(|p| p.get("name").and_then(Value::as_str))
}

/// Ready and total endpoints across the slices, each backend counted once
/// (dual-stack Services have one slice per IP family).
fn slice_endpoints(slices: &[&Object]) -> (i64, i64) {
    let mut all = BTreeSet::new();
    let mut ready = BTreeSet::new();
    for slice in slices {
        let Some(endpoints) = slice.at("/endpoints").and_then(Value::as_array) else {
            continue;
        };
        for e in endpoints {
            let key = e
                .pointer("/targetRef/uid")
                .or_else(|| e.pointer("/targetRef/name"))
                .or_else(|| e.pointer("/addresses/0"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            // A missing ready condition means unknown, read as ready.
            if e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false) {
                ready.insert(key.clone());
            }
            all.insert(key);
        }
    }
    (ready.len() as i64, all.len() as i64)
}

fn selector(obj: &Object) -> Vec<(String, String)> {
    obj.at("/spec/selector")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

fn lb_addresses(obj: &Object) -> Vec<&str> {
    obj.at("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|i| {
                    i.get("ip")
                        .or_else(|| i.get("hostname"))
                        .and_then(Value::as_str)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn is_pod(o: &Object) -> bool {
    o.kind() == "Pod" && o.group().is_empty()
}

fn pod_ready(p: &Object) -> bool {
    p.condition("Ready").is_some_and(|c| c.is_true())
}
