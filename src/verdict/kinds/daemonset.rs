//! DaemonSets (apps/v1): daemon pods on the wrong nodes, rolling updates,
//! nodes still without a daemon pod, pods not ready.

use crate::model::{Object, Snapshot};
use crate::verdict::Judged;
use crate::verdict::words::{count, noun};
use crate::verdict::{Judgement, Verdict};

use super::pods::{controlled, explain};
use crate::verdict::reason::{Lifecycle, Scheduling, Workload};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let Some(desired) = obj.int("/status/desiredNumberScheduled") else {
        return Some(Judgement::new(
            Verdict::Progressing,
            Lifecycle::WaitingForController,
            "the controller has not yet counted the nodes that need a daemon pod (no status.desiredNumberScheduled)",
        ));
    };
    let available = obj.int("/status/numberAvailable").unwrap_or(0);
    let current = obj.int("/status/currentNumberScheduled").unwrap_or(0);
    let ready = obj.int("/status/numberReady").unwrap_or(0);
    let updated = obj.int("/status/updatedNumberScheduled").unwrap_or(0);
    let unavailable = obj.int("/status/numberUnavailable").unwrap_or(0);
    let misscheduled = obj.int("/status/numberMisscheduled").unwrap_or(0);
    let on_delete = obj.str("/spec/updateStrategy/type") == Some("OnDelete");
    let counts = format!("{ready}/{desired} pods ready");

    // A rollout usually also makes pods unavailable: name the rollout, the
    // cause, rather than the unavailability it brings.
    let j = if misscheduled > 0 {
        Judgement::new(
            Verdict::Progressing,
            Scheduling::Misscheduled,
            format!(
                "{} on nodes that should not run one, waiting for removal; {counts}",
                count(misscheduled, "daemon pod")
            ),
        )
    } else if updated < desired && on_delete {
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForPodDeletion,
            format!(
                "updateStrategy OnDelete: {updated} of {desired} pods updated; pods update only when deleted"
            ),
        )
    } else if updated < desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::RolloutInProgress,
            format!("{updated} of {desired} pods updated; {counts}"),
        )
    } else if current < desired {
        Judgement::new(
            Verdict::Progressing,
            Scheduling::Scheduling,
            format!("{current} of {desired} nodes run a daemon pod"),
        )
    } else if ready < desired || unavailable > 0 || available < desired {
        let unavailable = if unavailable > 0 {
            format!(", {unavailable} unavailable")
        } else if available < desired {
            format!(", {available} available")
        } else {
            String::new()
        };
        let reason = if ready < desired {
            Workload::WaitingForReady
        } else {
            Workload::WaitingForAvailable
        };
        Judgement::new(
            Verdict::Progressing,
            reason,
            format!("{counts}{unavailable}"),
        )
    } else if desired == 0 && !node_selector(obj).is_empty() && !a_node_matches(obj, snap) {
        Judgement::new(
            Verdict::Converged,
            Scheduling::NoMatchingNodes,
            format!(
                "node selector {} matches no node (0 scheduled)",
                node_selector(obj)
            ),
        )
    } else if desired == 0 {
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Ready,
            "no node needs a daemon pod (0 scheduled)",
        )
    } else {
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Ready,
            format!("{ready}/{desired} {} ready", noun(desired, "pod")),
        )
    };
    let pods = updated_pods(obj, snap);
    Some(explain(j, snap, &pods).ready(ready, desired))
}

/// The daemon pods of the current template: those whose
/// `pod-template-generation` label is the DaemonSet's template generation
/// (the controller's `deprecated.daemonset.template.generation`
/// annotation). A rollout whose updated pod fails hard on one node is then
/// judged by that pod, not hidden by the healthy old ones. Without the
/// annotation, every pod.
fn updated_pods<'a>(obj: &Object, snap: &'a Snapshot) -> Vec<&'a Object> {
    let pods = controlled(snap, &obj.uid, "Pod");
    let Some(generation) =
        obj.str("/metadata/annotations/deprecated.daemonset.template.generation")
    else {
        return pods;
    };
    let updated: Vec<&Object> = pods
        .iter()
        .copied()
        .filter(|p| p.labels.get("pod-template-generation").map(String::as_str) == Some(generation))
        .collect();
    if updated.is_empty() { pods } else { updated }
}

/// Whether a Node in the snapshot carries every label of the node selector
/// (then taints or affinity keep the pods off, not the selector). Without
/// Nodes in the snapshot, none is known to match.
fn a_node_matches(obj: &Object, snap: &Judged<'_>) -> bool {
    let Some(wanted) = obj
        .at("/spec/template/spec/nodeSelector")
        .and_then(|v| v.as_object())
    else {
        return false;
    };
    snap.objects()
        .iter()
        .filter(|o| o.kind() == "Node" && o.group().is_empty())
        .any(|node| {
            wanted
                .iter()
                .all(|(k, v)| v.as_str() == node.labels.get(k).map(String::as_str))
        })
}

/// `spec.template.spec.nodeSelector` as `key=value,...`, sorted; empty
/// when there is none.
pub fn node_selector(obj: &Object) -> String {
    let mut pairs: Vec<String> = obj
        .at("/spec/template/spec/nodeSelector")
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.join(",")
}
