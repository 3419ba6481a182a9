//! Why the API server refused to create a controller's pods (FailedCreate):
//! one reason with many causes, told apart by the admission error the API
//! server wrote (the condition or event message is the only field that
//! carries it) and by the objects it names, read as metadata where
//! existence is enough.

use serde_json::Value;

use crate::model::{Event, Object, Snapshot};
use crate::verdict::reason::Admission as Refused;

/// The cause of a refused pod creation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    MissingServiceAccount {
        name: String,
    },
    /// A cluster-scoped class the pods name (PriorityClass, RuntimeClass)
    /// that does not exist.
    MissingClass {
        kind: &'static str,
        name: String,
    },
    /// The namespace is being deleted: nothing new may be created in it.
    NamespaceTerminating {
        namespace: String,
    },
    /// An admission webhook failed or denied: its name and what happened.
    Webhook {
        webhook: String,
        detail: String,
    },
    /// A ValidatingAdmissionPolicy denied.
    Policy {
        policy: String,
        binding: Option<String>,
        detail: String,
    },
    /// A ResourceQuota: its name when the message gives it.
    Quota {
        quota: Option<String>,
        detail: String,
    },
    /// A LimitRange: whether the limit or the request is out of range.
    LimitRange {
        side: &'static str,
        detail: String,
    },
    /// Pod Security Admission: the level and the violations.
    PodSecurity {
        level: String,
        violations: String,
    },
    Other,
}

/// The messages of refused creations about `obj`, newest first: its
/// FailedCreate events, then a ReplicaSet's ReplicaFailure condition (set
/// at the first failure and not rewritten by later ones, so it can be stale).
pub fn create_failures(obj: &Object, events: &[Event]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !obj.uid.is_empty() {
        let mut mine: Vec<&Event> = events
            .iter()
            .filter(|e| e.regarding_uid == obj.uid && e.reason == Refused::FailedCreate.as_str())
            .collect();
        mine.sort_by_key(|e| std::cmp::Reverse(e.last_seen));
        for e in mine {
            if !out.contains(&e.message) {
                out.push(e.message.clone());
            }
        }
    }
    if let Some(c) = obj.condition("ReplicaFailure")
        && c.is_true()
        && c.reason == Refused::FailedCreate.as_str()
        && !out.contains(&c.message)
    {
        out.push(c.message);
    }
    out
}

/// The text after `marker`, up to the first of `ends`.
fn between<'a>(message: &'a str, marker: &str, ends: &[char]) -> Option<&'a str> {
    let rest = &message[message.find(marker)? + marker.len()..];
    Some(rest.split(|c| ends.contains(&c)).next().unwrap_or(rest))
}

/// Tells the causes apart by the API server's admission error formats.
pub fn classify(message: &str) -> Admission {
    if let Some(name) = between(message, "serviceaccount \"", &['"'])
        && message.contains("not found")
    {
        return Admission::MissingServiceAccount { name: name.into() };
    }
    // The Priority and RuntimeClass admission plugins' formats.
    if let Some(name) = between(message, "no PriorityClass with name ", &[' ']) {
        return Admission::MissingClass {
            kind: "PriorityClass",
            name: name.into(),
        };
    }
    if let Some(name) = between(message, "RuntimeClass \"", &['"'])
        && message.contains("not found")
    {
        return Admission::MissingClass {
            kind: "RuntimeClass",
            name: name.into(),
        };
    }
    // NamespaceLifecycle's format.
    if let Some(ns) = between(
        message,
        "unable to create new content in namespace ",
        &[' '],
    ) && message.contains("being terminated")
    {
        return Admission::NamespaceTerminating {
            namespace: ns.into(),
        };
    }
    if let Some(policy) = between(message, "ValidatingAdmissionPolicy '", &['\'']) {
        let binding = between(message, "with binding '", &['\'']).map(str::to_string);
        let detail = message
            .split_once("denied request: ")
            .map(|(_, d)| d)
            .unwrap_or(message);
        return Admission::Policy {
            policy: policy.into(),
            binding,
            detail: detail.into(),
        };
    }
    if let Some(webhook) = between(message, "webhook \"", &['"'])
        && (message.contains("failed calling webhook") || message.contains("denied the request"))
    {
        let detail = message.rsplit_once(": ").map(|(_, d)| d).unwrap_or(message);
        return Admission::Webhook {
            webhook: webhook.into(),
            detail: detail.into(),
        };
    }
    if let Some(detail) = between(message, "violates PodSecurity \"", &[]) {
        let (level, violations) = detail.split_once("\": ").unwrap_or((detail, ""));
        return Admission::PodSecurity {
            level: level.into(),
            violations: violations.into(),
        };
    }
    if message.contains("exceeded quota: ") || message.contains("failed quota: ") {
        let quota = between(message, "exceeded quota: ", &[','])
            .or_else(|| between(message, "failed quota: ", &[':']))
            .map(str::to_string);
        // After the quota's name: `requested: ..., used: ..., limited: ...`
        // or `must specify limits.cpu for: ...`.
        let detail = message
            .split_once("quota: ")
            .and_then(|(_, d)| d.split_once(", ").or_else(|| d.split_once(": ")))
            .map(|(_, d)| d)
            .unwrap_or(message);
        return Admission::Quota {
            quota,
            detail: detail.into(),
        };
    }
    for (marker, side) in [
        ("but limit is", "limit"),
        ("but request is", "request"),
        ("limit to request ratio", "ratio of limit to request"),
    ] {
        if message.contains(marker) && message.contains(" usage per ")
            || message.contains(marker) && side.starts_with("ratio")
        {
            let detail = message
                .split_once("is forbidden: ")
                .map(|(_, d)| d)
                .unwrap_or(message);
            return Admission::LimitRange {
                side,
                detail: detail.trim_matches(|c| c == '[' || c == ']').into(),
            };
        }
    }
    Admission::Other
}

/// The namespace and name of the Service the failing webhook calls, from
/// the webhook configurations read.
pub fn webhook_service(webhook: &str, objects: &[Object]) -> Option<(String, String)> {
    let (_, hook) = webhook_config(webhook, objects)?;
    let svc = hook.pointer("/clientConfig/service")?;
    Some((
        svc.get("namespace")?.as_str()?.to_string(),
        svc.get("name")?.as_str()?.to_string(),
    ))
}

/// The configuration that declares the webhook, and the webhook entry.
pub fn webhook_config<'a>(webhook: &str, objects: &'a [Object]) -> Option<(&'a Object, &'a Value)> {
    objects
        .iter()
        .filter(|o| {
            o.group() == "admissionregistration.k8s.io"
                && o.kind().ends_with("WebhookConfiguration")
        })
        .find_map(|o| {
            o.at("/webhooks")
                .and_then(Value::as_array)?
                .iter()
                .find(|h| h.get("name").and_then(Value::as_str) == Some(webhook))
                .map(|h| (o, h))
        })
}

/// Whether a Service has a ready endpoint, from its EndpointSlices.
pub fn has_endpoints(snap: &Snapshot, ns: &str, svc: &str) -> Option<bool> {
    let slices: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.kind() == "EndpointSlice"
                && o.namespace() == Some(ns)
                && o.labels
                    .get("kubernetes.io/service-name")
                    .map(String::as_str)
                    == Some(svc)
        })
        .collect();
    snap.find("", "Service", Some(ns), svc)?;
    Some(slices.iter().any(|s| {
        s.at("/endpoints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|e| e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Messages as the API server writes them (kube-apiserver admission errors).
    #[test]
    fn classifies_each_admission_failure() {
        assert_eq!(
            classify(
                "pods \"web-5d8f9c-\" is forbidden: error looking up service account shop/builder: serviceaccount \"builder\" not found"
            ),
            Admission::MissingServiceAccount {
                name: "builder".into()
            }
        );
        assert_eq!(
            classify(
                "Internal error occurred: failed calling webhook \"deny.example.com\": failed to call webhook: Post \"https://hook.shop.svc:443/validate?timeout=10s\": no endpoints available for service \"hook\""
            ),
            Admission::Webhook {
                webhook: "deny.example.com".into(),
                detail: "no endpoints available for service \"hook\"".into()
            }
        );
        assert_eq!(
            classify(
                "pods \"web-x\" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-binding' denied request: images must be pinned"
            ),
            Admission::Policy {
                policy: "no-latest".into(),
                binding: Some("no-latest-binding".into()),
                detail: "images must be pinned".into()
            }
        );
        assert_eq!(
            classify("pods \"web-x\" is forbidden: exceeded quota: compute, requested: requests.memory=2Gi, used: requests.memory=0, limited: requests.memory=1Gi"),
            Admission::Quota { quota: Some("compute".into()), detail: "requested: requests.memory=2Gi, used: requests.memory=0, limited: requests.memory=1Gi".into() }
        );
        assert_eq!(
            classify(
                "pods \"web-x\" is forbidden: maximum memory usage per Container is 512Mi, but limit is 1Gi"
            ),
            Admission::LimitRange {
                side: "limit",
                detail: "maximum memory usage per Container is 512Mi, but limit is 1Gi".into()
            }
        );
        assert_eq!(
            classify(
                "pods \"web-x\" is forbidden: minimum cpu usage per Container is 100m, but request is 50m"
            ),
            Admission::LimitRange {
                side: "request",
                detail: "minimum cpu usage per Container is 100m, but request is 50m".into()
            }
        );
        assert_eq!(
            classify("pods \"web-x\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false (container \"web\" must set securityContext.allowPrivilegeEscalation=false)"),
            Admission::PodSecurity { level: "restricted:latest".into(), violations: "allowPrivilegeEscalation != false (container \"web\" must set securityContext.allowPrivilegeEscalation=false)".into() }
        );
        assert_eq!(
            classify(
                "pods \"pc-56f564dbb9-\" is forbidden: no PriorityClass with name nosuch-priority was found"
            ),
            Admission::MissingClass {
                kind: "PriorityClass",
                name: "nosuch-priority".into()
            }
        );
        assert_eq!(
            classify(
                "pods \"rc-6876488cd8-\" is forbidden: pod rejected: RuntimeClass \"nosuch-runtime\" not found"
            ),
            Admission::MissingClass {
                kind: "RuntimeClass",
                name: "nosuch-runtime".into()
            }
        );
        assert_eq!(
            classify(
                "pods \"web-x\" is forbidden: unable to create new content in namespace shop because it is being terminated"
            ),
            Admission::NamespaceTerminating {
                namespace: "shop".into()
            }
        );
        assert_eq!(classify("something else entirely"), Admission::Other);
    }
}
