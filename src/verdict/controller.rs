//! Which controller acts on an object, from what the object and the
//! cluster say, pure: whether its status lags its spec, who writes its
//! status (managedFields), the leader-election Lease that matches it and
//! how, the pod a Lease's holder names, and the workloads named like a
//! manager or a pod. What the read plan asks for (`reads.rs`) and what
//! `why` judges (`diagnose::controller`) both come from here.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use serde_json::Value;

use crate::model::Object;

/// The namespace of the control plane's own Leases.
pub const CONTROL_PLANE_NAMESPACE: &str = "kube-system";
/// The namespace of the kubelets' Leases, one per node: never a controller.
pub const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";

/// Whether an object's status lags its spec (read-plan side: no clock):
/// observedGeneration below generation, conditions that all reflect an
/// older generation, a custom resource with a generation and no status at
/// all, a built-in kind whose controller has never written its status
/// ([`never_written`]), or a custom resource whose spec changed after its
/// status was last written ([`unseen_spec`]).
pub fn lags(obj: &Object) -> bool {
    if obj.metadata_only {
        return false;
    }
    if never_written(obj) || unseen_spec(obj).is_some() {
        return true;
    }
    // Conditions that carry their own observedGeneration, all behind.
    let conditions: Vec<i64> = obj
        .conditions()
        .iter()
        .filter_map(|c| c.observed_generation)
        .collect();
    if let Some(g) = obj.generation
        && obj.observed_generation().is_none()
        && !conditions.is_empty()
        && conditions.iter().all(|o| *o < g)
    {
        return true;
    }
    match (obj.generation, obj.observed_generation()) {
        (Some(g), Some(o)) => o < g,
        (Some(_), None) => {
            let empty = obj
                .status()
                .is_none_or(|s| s.as_object().is_some_and(|m| m.is_empty()));
            empty && !crate::catalog::is_builtin_group(obj.group())
        }
        _ => false,
    }
}

/// Built-in kinds whose controller records `status.observedGeneration`
/// with its first status: one without it has never been written.
fn writes_generation(obj: &Object) -> bool {
    matches!(
        (obj.group(), obj.kind()),
        (
            "apps",
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
        ) | ("autoscaling", "HorizontalPodAutoscaler")
    )
}

/// Whether a pod waits for a scheduler that has not looked at it: Pending,
/// no node, and no PodScheduled condition at all.
pub fn unscheduled(obj: &Object) -> bool {
    obj.kind() == "Pod"
        && obj.group().is_empty()
        && obj.str("/status/phase").unwrap_or("Pending") == "Pending"
        && obj.str("/spec/nodeName").is_none()
        && obj.condition("PodScheduled").is_none()
}

/// Whether a kind is reconciled by kube-controller-manager.
fn built_in(obj: &Object) -> bool {
    matches!(
        obj.group(),
        "apps" | "batch" | "autoscaling" | "policy" | ""
    ) && obj.kind() != "Pod"
}

/// The control-plane Lease that answers for the object, if it is one of
/// the control plane's.
pub fn control_plane_lease(obj: &Object) -> Option<&'static str> {
    if unscheduled(obj) {
        Some("kube-scheduler")
    } else if built_in(obj) {
        Some("kube-controller-manager")
    } else {
        None
    }
}

/// Every manager that wrote the object's status (managedFields), the
/// latest first: an operator often writes through several
/// (`cert-manager-certificates-readiness`, `cert-manager-issuers`).
pub fn status_managers(obj: &Object) -> Vec<(String, Timestamp)> {
    let mut managers: Vec<(String, Timestamp)> = obj
        .at("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.get("subresource").and_then(Value::as_str) == Some("status"))
        .filter_map(|e| {
            Some((
                e.get("manager")?.as_str()?.to_string(),
                crate::model::parse_time(e.get("time"))?,
            ))
        })
        .collect();
    managers.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    managers.dedup_by(|a, b| a.0 == b.0);
    managers
}

/// The manager that last wrote the object's status.
pub fn status_manager(obj: &Object) -> Option<(String, Timestamp)> {
    status_managers(obj).into_iter().next()
}

/// One write recorded in managedFields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub at: Timestamp,
    pub manager: String,
    pub operation: String,
}

/// The latest spec write and the latest status write in managedFields.
pub fn writes(obj: &Object) -> (Option<Change>, Option<Change>) {
    writes_except(obj, &[])
}

/// [`writes`], leaving out the spec writes of the managers in `skip`.
fn writes_except(obj: &Object, skip: &[String]) -> (Option<Change>, Option<Change>) {
    let mut spec: Option<Change> = None;
    let mut status: Option<Change> = None;
    for entry in obj
        .at("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(at) = crate::model::parse_time(entry.get("time")) else {
            continue;
        };
        let change = Change {
            at,
            manager: entry
                .get("manager")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
            operation: entry
                .get("operation")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        };
        let fields = entry.get("fieldsV1");
        let touches = |key: &str| fields.and_then(|f| f.get(key)).is_some();
        let is_status = entry.get("subresource").and_then(Value::as_str) == Some("status")
            || (touches("f:status") && !touches("f:spec"));
        let slot = if is_status {
            &mut status
        } else if touches("f:spec") && !skip.contains(&change.manager) {
            &mut spec
        } else {
            continue;
        };
        // Times are to the second; on a tie the later entry wins, as the
        // API server appends a manager's first entry after the others.
        if slot.as_ref().is_none_or(|c| c.at <= change.at) {
            *slot = Some(change);
        }
    }
    (spec, status)
}

/// When the lease was last renewed, and whether that is longer ago than
/// its duration.
pub fn renewal(lease: &Object, now: Timestamp) -> (Option<Timestamp>, bool) {
    let renewed = crate::model::parse_time(lease.at("/spec/renewTime"))
        .or_else(|| crate::model::parse_time(lease.at("/spec/acquireTime")));
    let duration = lease.int("/spec/leaseDurationSeconds").unwrap_or(15);
    let expired = holder(lease).is_none()
        || renewed.is_some_and(|t| now.duration_since(t) > SignedDuration::from_secs(duration));
    (renewed, expired)
}

/// A spec written after its controller last wrote the status, where the
/// kind reports no `observedGeneration` to say whether the controller saw
/// it: the spec's last write (by a manager that writes no status) and the
/// status's last write.
#[derive(Debug, Clone, PartialEq)]
pub struct Unseen {
    pub spec: Change,
    pub status: Change,
}

/// [`Unseen`], for a custom resource whose spec changed since its creation
/// (a generation above 1: a change of labels alone bumps none) and whose
/// status and conditions carry no `observedGeneration`. Built-in kinds
/// report `observedGeneration` where their controllers act on the spec,
/// or are judged by their own rules. A write to the spec by the status's
/// own manager (an operator defaulting its spec) is not a change it has to
/// see.
pub fn unseen_spec(obj: &Object) -> Option<Unseen> {
    if obj.metadata_only
        || crate::catalog::is_builtin_group(obj.group())
        || obj.generation.is_none_or(|g| g < 2)
        || obj.observed_generation().is_some()
        || obj
            .conditions()
            .iter()
            .any(|c| c.observed_generation.is_some())
    {
        return None;
    }
    let managers: Vec<String> = status_managers(obj).into_iter().map(|(m, _)| m).collect();
    let (spec, status) = writes_except(obj, &managers);
    let (spec, status) = (spec?, status?);
    (spec.at > status.at).then_some(Unseen { spec, status })
}

/// A built-in workload whose controller records `observedGeneration` with
/// its first status, and has none: kube-controller-manager never wrote
/// it (a DaemonSet created while it was stopped holds the zero counts the
/// API server defaults).
/// (The autoscaler is left out: its controller writes no
/// `observedGeneration` at all.)
pub fn never_written(obj: &Object) -> bool {
    !obj.metadata_only
        && obj.group() == "apps"
        && writes_generation(obj)
        && obj.observed_generation().is_none()
}

/// Whether the controller of an object is running, as its Lease says.
#[derive(Debug, Clone)]
pub enum Liveness<'a> {
    /// Its Lease is renewed within its duration.
    Running {
        lease: &'a Object,
        renewed: Option<Timestamp>,
    },
    /// Its Lease is not renewed within its duration, or held by no one.
    Down {
        lease: &'a Object,
        renewed: Option<Timestamp>,
    },
    /// Leases were read and none matches the object.
    NotFound { read: usize },
    /// No Lease was read: not asked for, or refused (`refused`).
    Unread { refused: bool },
}

/// The liveness of the controller of `obj`, from the Leases among
/// `objects` (the node leases left out), as of `now`. `refused`: the
/// Leases could not be read (a gap of the answer).
pub fn liveness<'a>(
    objects: &'a [Object],
    obj: &Object,
    now: Timestamp,
    refused: bool,
) -> Liveness<'a> {
    let leases: Vec<&Object> = objects
        .iter()
        .filter(|l| is_lease(l) && l.namespace() != Some(NODE_LEASE_NAMESPACE))
        .collect();
    if leases.is_empty() {
        return Liveness::Unread { refused };
    }
    match matching_leases(&leases, obj).into_iter().next() {
        Some((lease, _)) => match renewal(lease, now) {
            (renewed, true) => Liveness::Down { lease, renewed },
            (renewed, false) => Liveness::Running { lease, renewed },
        },
        None => Liveness::NotFound { read: leases.len() },
    }
}

impl Liveness<'_> {
    /// The Lease and its renewal, in words: `lease ns/name last renewed
    /// 40s ago, longer than its 15s`.
    pub fn text(&self, now: Timestamp) -> String {
        let named =
            |l: &Object| format!("lease {}/{}", l.namespace().unwrap_or_default(), l.name());
        match self {
            Liveness::Running { lease, renewed } => format!(
                "{} renewed {}",
                named(lease),
                renewed
                    .map(|t| format!("{} ago", crate::model::age(now, t)))
                    .unwrap_or_else(|| "at a time not recorded".into())
            ),
            Liveness::Down { lease, renewed } => match (renewed, holder(lease)) {
                (_, None) => format!("{} is held by no one", named(lease)),
                (Some(t), Some(_)) => format!(
                    "{} last renewed {} ago, longer than its {}s",
                    named(lease),
                    crate::model::age(now, *t),
                    lease.int("/spec/leaseDurationSeconds").unwrap_or(15)
                ),
                (None, Some(_)) => format!("{} never renewed", named(lease)),
            },
            Liveness::NotFound { read } => {
                format!("no leader-election lease matches it ({read} read)")
            }
            Liveness::Unread { refused: true } => "the leases could not be read".into(),
            Liveness::Unread { refused: false } => "no lease was read".into(),
        }
    }
}

pub fn is_lease(o: &Object) -> bool {
    o.kind() == "Lease" && o.group() == "coordination.k8s.io"
}

/// The words of a name, lower case (`PrometheusOperator` → `prometheus`,
/// `operator`): the vocabulary's one splitter.
fn words(name: &str) -> Vec<String> {
    super::camel_words(name)
}

/// Words every controller's names share, which say nothing of which one.
const GENERIC: &[&str] = &[
    "controller",
    "controllers",
    "manager",
    "operator",
    "leader",
    "election",
    "lock",
    "lease",
    "kube",
    "k8s",
    "io",
    "com",
    "system",
    "default",
    "webhook",
    "apps",
    "external",
];

/// The leading words two names share, when they name one product: two
/// words or more (`cert`, `manager`), or one that is not generic
/// (`rollouts`). Joined with `-`.
fn shared_stem(a: &str, b: &str) -> Option<String> {
    let (a, b) = (words(a), words(b));
    let shared: Vec<&String> = a
        .iter()
        .zip(b.iter())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    let telling = match shared.as_slice() {
        [] => false,
        [one] => one.len() >= 4 && !GENERIC.contains(&one.as_str()),
        _ => shared.iter().any(|w| !GENERIC.contains(&w.as_str())),
    };
    telling.then(|| {
        shared
            .iter()
            .map(|w| w.as_str())
            .collect::<Vec<_>>()
            .join("-")
    })
}

/// Whether `needle`'s words appear, in order and together, among
/// `haystack`'s: `rollouts-controller` in `argo-rollouts-controller-lock`.
fn names_within(haystack: &str, needle: &str) -> bool {
    let (h, n) = (words(haystack), words(needle));
    !n.is_empty()
        && n.iter().any(|w| !GENERIC.contains(&w.as_str()))
        && h.windows(n.len()).any(|w| w == n.as_slice())
}

/// The leases that may be the controller's, best first, with how each was
/// matched: the control plane's own for built-in kinds; for custom
/// resources, a lease named for the kind's API group, its domain (as
/// operator SDKs name them, `<id>.<domain>`) or its first label
/// (`cert-manager-controller` for `cert-manager.io`), or whose name or
/// holder names a status manager or shares its name's leading words
/// (`cert-manager-controller` and `cert-manager-certificates-readiness`).
pub fn matching_leases<'a>(leases: &[&'a Object], obj: &Object) -> Vec<(&'a Object, String)> {
    let leases: Vec<&Object> = leases
        .iter()
        .copied()
        .filter(|l| is_lease(l) && l.namespace() != Some(NODE_LEASE_NAMESPACE))
        .collect();
    if let Some(name) = control_plane_lease(obj) {
        return leases
            .into_iter()
            .filter(|l| l.namespace() == Some(CONTROL_PLANE_NAMESPACE) && l.name() == name)
            .map(|l| (l, format!("{name} reconciles {} objects", obj.kind())))
            .collect();
    }
    let group = obj.group();
    let domain = group
        .split_once('.')
        .map(|(_, d)| d)
        .filter(|d| d.contains('.'));
    let label = group.split('.').next().filter(|_| group.contains('.'));
    let managers: Vec<String> = status_managers(obj)
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| m.len() > 3 && m != "manager")
        .collect();
    let mut out: Vec<(u8, &Object, String)> = Vec::new();
    for l in leases {
        let name = l.name();
        let holder = holder(l).unwrap_or_default();
        let by_manager = || {
            managers.iter().find_map(|m| {
                if name.contains(m.as_str()) || names_within(name, m) {
                    Some(format!("lease {name} names the status manager {m}"))
                } else if !holder.is_empty() && holder.contains(m.as_str()) {
                    Some(format!(
                        "lease {name}'s holder {holder} names the status manager {m}"
                    ))
                } else {
                    None
                }
            })
        };
        let by_stem = || {
            managers.iter().find_map(|m| {
                shared_stem(name, m).map(|stem| {
                    format!("lease {name} and the status manager {m} share the name {stem}")
                })
            })
        };
        let how = if !group.is_empty() && name.contains(group) {
            Some((
                0,
                format!("lease name {name} contains the API group {group}"),
            ))
        } else if let Some(d) = domain.filter(|d| name.ends_with(&format!(".{d}"))) {
            Some((
                1,
                format!("lease name {name} ends in the group's domain {d}"),
            ))
        } else if let Some(how) = by_manager() {
            Some((2, how))
        } else if let Some(label) = label.filter(|label| {
            shared_stem(name, label).is_some_and(|stem| words(&stem) == words(label))
        }) {
            Some((
                3,
                format!("lease name {name} starts with the API group's first label {label}"),
            ))
        } else {
            by_stem().map(|how| (4, how))
        };
        if let Some((rank, how)) = how {
            out.push((rank, l, how));
        }
    }
    out.sort_by_key(|(rank, l, _)| {
        (
            *rank,
            l.namespace().map(str::to_string),
            l.name().to_string(),
        )
    });
    out.into_iter().map(|(_, l, how)| (l, how)).collect()
}

/// The lease's holder identity.
pub fn holder(lease: &Object) -> Option<&str> {
    lease.str("/spec/holderIdentity").filter(|h| !h.is_empty())
}

/// The pod a holder identity names, in the forms leader election writes:
/// client-go's `<hostname>_<uuid>`, cert-manager's
/// `<hostname>-external-<lock name>`, or the bare hostname. A pod's
/// hostname is its name; anything that is no pod name (the holder is
/// written by whoever may write the Lease) names no pod.
pub fn holder_pod(lease: &Object) -> Option<&str> {
    let h = holder(lease)?;
    let pod = match h.split_once('_') {
        Some((pod, _)) => pod,
        None => h.split_once("-external-").map(|(p, _)| p).unwrap_or(h),
    };
    let name_like = pod
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    (!pod.is_empty() && pod.len() <= 253 && name_like).then_some(pod)
}

/// Whether `name` is one of `names`, or the start of one before a `-`: the
/// workload a pod name or a manager name points at.
pub fn named_like(names: &[String], name: &str) -> bool {
    names.iter().any(|n| {
        n == name
            || n.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('-'))
    })
}

/// The names a status manager's workload may carry: the manager as
/// written, and its words joined by `-` (`PrometheusOperator` →
/// `prometheus-operator`), as a Deployment is named.
pub fn manager_names(obj: &Object) -> Vec<String> {
    let mut names = Vec::new();
    for (m, _) in status_managers(obj) {
        let kebab = words(&m).join("-");
        for n in [m, kebab] {
            if n.len() > 3 && n != "manager" && !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lease(ns: &str, name: &str, holder: &str) -> Object {
        Object::from_value(
            json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": ns, "uid": name},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}}),
        )
        .unwrap()
    }

    #[test]
    fn a_built_in_workload_whose_status_was_never_written_lags() {
        let rs = |status: serde_json::Value, metadata_only: bool| {
            let mut o = Object::from_value(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-7c5b", "namespace": "shop", "generation": 1,
                    "ownerReferences": [{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "web", "uid": "r", "controller": true}]},
                "spec": {"replicas": 2},
                "status": status}))
            .unwrap();
            o.metadata_only = metadata_only;
            o
        };
        // kube-controller-manager stopped before it wrote anything.
        assert!(lags(&rs(json!({}), false)));
        assert_eq!(
            control_plane_lease(&rs(json!({}), false)),
            Some("kube-controller-manager")
        );
        // Written once: observedGeneration is there.
        assert!(!lags(&rs(
            json!({"observedGeneration": 1, "replicas": 2}),
            false
        )));
        // Only its metadata was read (a sweep): nothing to say.
        assert!(!lags(&rs(json!({}), true)));
    }

    #[test]
    fn words_split_as_a_reader_would() {
        assert_eq!(words("PrometheusOperator"), ["prometheus", "operator"]);
        assert_eq!(
            words("cert-manager-certificates-readiness"),
            ["cert", "manager", "certificates", "readiness"]
        );
        assert_eq!(
            words("argo-rollouts-controller-lock"),
            ["argo", "rollouts", "controller", "lock"]
        );
        assert_eq!(words("9f3e1c2a.acme.io"), ["9f3e1c2a", "acme", "io"]);
    }

    #[test]
    fn names_of_one_product_share_a_stem_and_generic_words_do_not() {
        assert_eq!(
            shared_stem("cert-manager-controller", "cert-manager-issuers").as_deref(),
            Some("cert-manager")
        );
        assert_eq!(shared_stem("controller-leader", "controller-manager"), None);
        assert_eq!(shared_stem("kube-system", "kube-scheduler"), None);
        assert_eq!(
            shared_stem("keda-operator", "keda-operator-metrics").as_deref(),
            Some("keda-operator")
        );
        assert!(names_within(
            "argo-rollouts-controller-lock",
            "rollouts-controller"
        ));
        assert!(!names_within("some-controller-lock", "controller"));
    }

    #[test]
    fn a_holder_names_its_pod_in_every_usual_form() {
        for (holder, pod) in [
            (
                "argo-rollouts-7c9d-x2v_0f7e3c7e-1b1a-4d7c-9e1e-2b1c3d4e5f60",
                "argo-rollouts-7c9d-x2v",
            ),
            (
                "cert-manager-5d7f-abcde-external-cert-manager-controller",
                "cert-manager-5d7f-abcde",
            ),
            (
                "ingress-nginx-controller-6bd7-zzqx",
                "ingress-nginx-controller-6bd7-zzqx",
            ),
        ] {
            assert_eq!(holder_pod(&lease("ns", "l", holder)), Some(pod), "{holder}");
        }
        assert_eq!(holder_pod(&lease("ns", "l", "")), None);
        assert_eq!(
            holder_pod(&lease("ns", "l", "x,metadata.namespace=y")),
            None
        );
    }

    /// The object of `kind` in the snapshot.
    fn one<'a>(snap: &'a crate::model::Snapshot, kind: &str) -> &'a Object {
        snap.objects().iter().find(|o| o.kind() == kind).unwrap()
    }

    #[test]
    fn real_operators_leases_are_found_as_they_name_them() {
        // cert-manager: kube-system/cert-manager-controller, held by
        // `<host>-external-cert-manager-controller`, its status written by
        // cert-manager-certificates-readiness and others.
        let snap = crate::testutil::operators(
            &[
                "cert-manager/missing-issuer/objects.yaml",
                "cert-manager/lease.yaml",
            ],
            "2026-12-01T23:24:00Z",
        );
        let leases: Vec<&Object> = snap.objects().iter().filter(|o| is_lease(o)).collect();
        for kind in ["Certificate", "CertificateRequest"] {
            let found = matching_leases(&leases, one(&snap, kind));
            assert_eq!(found.len(), 1, "{kind}: {found:?}");
            assert_eq!(found[0].0.name(), "cert-manager-controller");
            assert_eq!(
                found[0].1,
                "lease name cert-manager-controller starts with the API group's first label cert-manager"
            );
        }
        assert_eq!(holder_pod(leases[0]), Some("vm"));
        // Argo Rollouts: argo-rollouts/argo-rollouts-controller-lock, held
        // by `<pod>_<uuid>`, status by rollouts-controller.
        let snap = crate::testutil::operators(
            &[
                "argo-rollouts/stale-controller-stopped/after-change.yaml",
                "argo-rollouts/lease.yaml",
            ],
            "2026-12-01T23:30:00Z",
        );
        let leases: Vec<&Object> = snap.objects().iter().filter(|o| is_lease(o)).collect();
        let found = matching_leases(&leases, one(&snap, "Rollout"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].1,
            "lease argo-rollouts-controller-lock names the status manager rollouts-controller"
        );
        assert!(holder_pod(leases[0]).is_some());
    }

    #[test]
    fn a_manager_name_becomes_the_names_its_workload_may_carry() {
        let cr = Object::from_value(json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
            "metadata": {"name": "main", "namespace": "mon", "generation": 2,
                "managedFields": [
                    {"manager": "PrometheusOperator", "operation": "Apply", "subresource": "status", "time": "2026-12-01T10:00:00Z"},
                    {"manager": "kubectl-client-side-apply", "operation": "Update", "time": "2026-12-01T09:00:00Z"}]}}))
        .unwrap();
        assert_eq!(
            manager_names(&cr),
            ["PrometheusOperator", "prometheus-operator"]
        );
        assert!(named_like(&manager_names(&cr), "prometheus-operator"));
    }
}
