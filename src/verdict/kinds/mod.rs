//! Step 4 of the precedence: rules for the kinds whose status needs more than
//! the shared conditions, in a table keyed by group and kind. Each rule reads
//! one object (and, for Pods, PVCs and Services, related objects and events of
//! the snapshot) and answers, or leaves the question to the later steps.

mod crd;
mod cronjob;
mod csr;
mod daemonset;
mod deployment;
mod hpa;
mod ingress;
mod job;
mod namespace;
mod node;
mod owned;
mod pdb;
mod pod;
pub(crate) mod pods;
mod pvc;
mod replicaset;
mod service;
mod statefulset;
pub(crate) mod waits;

use crate::verdict::Judged;
use jiff::SignedDuration;

pub use daemonset::node_selector;
pub use owned::failed_below;
pub use pdb::BLOCKS as PDB_BLOCKS;
#[cfg(test)]
pub use pod::{GATE_GRACE, INIT_GRACE};
#[cfg(test)]
pub use pods::HARD_FAILURE_GRACE;
#[cfg(test)]
pub use pvc::PROVISION_GRACE;
pub use pvc::{NO_PROVISIONER, class_provisioner};
#[cfg(test)]
pub use waits::REFERENCE_GRACE;
pub use waits::bounded;

use crate::model::{Condition, Object, age};

use super::Judgement;

/// A rule: judges an object of one kind, or returns `None` to let the later
/// steps (Ready-style conditions, the default) answer.
pub type RuleFn = fn(&Object, &Judged<'_>) -> Option<Judgement>;

/// The rules for one group and kind.
pub struct Rule {
    pub group: &'static str,
    pub kind: &'static str,
    /// Runs before the generation check: a spec that deliberately pauses
    /// reconciliation wins over a controller that has not caught up.
    pub paused: Option<RuleFn>,
    /// Whether a controller always writes a status for this kind, so that an
    /// empty one means nobody reconciles it. Not so for kinds whose status
    /// starts empty by design (a CronJob before its first run, a Service or
    /// an Ingress without a load balancer) or is set at creation (Pod, PVC,
    /// Namespace).
    pub expects_status: bool,
    pub judge: RuleFn,
}

const fn rule(group: &'static str, kind: &'static str, judge: RuleFn) -> Rule {
    Rule {
        group,
        kind,
        paused: None,
        expects_status: false,
        judge,
    }
}

/// A rule for a kind whose controller always writes status.
const fn reconciled(group: &'static str, kind: &'static str, judge: RuleFn) -> Rule {
    Rule {
        expects_status: true,
        ..rule(group, kind, judge)
    }
}

static RULES: &[Rule] = &[
    Rule {
        paused: Some(deployment::paused),
        ..reconciled("apps", "Deployment", deployment::judge)
    },
    reconciled("apps", "ReplicaSet", replicaset::judge),
    // ReplicaSet's predecessor: the same status fields and conditions.
    reconciled("", "ReplicationController", replicaset::judge),
    reconciled("apps", "StatefulSet", statefulset::judge),
    reconciled("apps", "DaemonSet", daemonset::judge),
    reconciled("batch", "Job", job::judge),
    rule("batch", "CronJob", cronjob::judge),
    rule("", "Pod", pod::judge),
    rule("", "PersistentVolumeClaim", pvc::judge),
    rule("", "Service", service::judge),
    rule("", "Namespace", namespace::judge),
    rule("", "Node", node::judge),
    rule(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        crd::judge,
    ),
    rule("autoscaling", "HorizontalPodAutoscaler", hpa::judge),
    rule("policy", "PodDisruptionBudget", pdb::judge),
    rule("networking.k8s.io", "Ingress", ingress::judge),
    rule(
        "certificates.k8s.io",
        "CertificateSigningRequest",
        csr::judge,
    ),
];

/// The rules for this group and kind, if it has any.
pub fn rule_for(group: &str, kind: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.group == group && r.kind == kind)
}

/// `pods "web-1" is forbidden: exceeded quota: ...` → `exceeded quota: ...`:
/// the name of the one pod that could not be created is noise.
fn pod_error(message: &str) -> &str {
    match message.split_once(" is forbidden: ") {
        Some((head, rest)) if head.starts_with("pods ") => rest,
        _ => message,
    }
}

/// How long a `ReplicaFailure=True` (FailedCreate) may stand before it is
/// final: pods refused for a ServiceAccount, Secret or quota that is applied
/// a moment later are created on the controller's next retry, seconds later.
pub const CREATE_FAILURE_GRACE: SignedDuration = SignedDuration::from_secs(60);

/// Why a create failure is not final yet, if it is not: younger than
/// [`CREATE_FAILURE_GRACE`] (or of unknown age), or a pod was created after
/// it. `sets` are the ReplicaSets that create the pods.
fn create_failure_pending(c: &Condition, snap: &Judged<'_>, sets: &[&Object]) -> Option<String> {
    let Some(at) = c.last_transition_time else {
        return Some("retrying (age of the failure unknown)".into());
    };
    if snap.now.duration_since(at) <= CREATE_FAILURE_GRACE {
        return Some(format!("retrying (failing for {})", age(snap.now, at)));
    }
    let created_after = sets.iter().any(|rs| {
        pods::controlled(snap, &rs.uid, "Pod")
            .iter()
            .any(|p| p.created.is_some_and(|t| t > at))
            || snap
                .events_for(&rs.uid)
                .any(|e| e.reason == "SuccessfulCreate" && e.last_seen.is_some_and(|t| t > at))
    });
    created_after.then(|| "retrying: a pod was created since".to_string())
}
