//! Deployments (apps/v1): paused, stuck (deadline exceeded, pods that cannot
//! be created), rolling out, or available, with the cause from its pods.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::conditions::{cite, false_, find, reason_or, true_, with_reason};
use crate::verdict::words::count;

use super::pods::{controlled, explain, first_cause};
use super::{create_failure_pending, pod_error};
use crate::verdict::reason::{Admission, Workload};
use crate::verdict::{Judgement, Verdict};

/// `spec.paused`: the controller stops rolling out on purpose.
pub fn paused(obj: &Object, _snap: &Judged<'_>) -> Option<Judgement> {
    if obj.bool("/spec/paused") != Some(true) {
        return None;
    }
    let desired = obj.int("/spec/replicas").unwrap_or(1);
    let updated = obj.int("/status/updatedReplicas").unwrap_or(0);
    let available = obj.int("/status/availableReplicas").unwrap_or(0);
    let lag = matches!((obj.generation, obj.observed_generation()), (Some(g), Some(o)) if o < g);
    let message = if lag {
        format!(
            "paused; spec changes are pending (generation {} not yet rolled out)",
            obj.generation.unwrap_or_default()
        )
    } else if updated < desired {
        format!(
            "paused; spec changes are pending: {updated} of {desired} replicas run the latest template"
        )
    } else {
        format!("paused; {available}/{desired} replicas available")
    };
    let conds = obj.conditions();
    let since =
        with_reason(&conds, "Progressing", "DeploymentPaused").and_then(|c| c.last_transition_time);
    Some(
        Judgement::new(Verdict::Suspended, Workload::Paused, message)
            .since(since)
            .ready(obj.int("/status/readyReplicas").unwrap_or(0), desired),
    )
}

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let desired = obj.int("/spec/replicas").unwrap_or(1);
    let replicas = obj.int("/status/replicas").unwrap_or(0);
    let updated = obj.int("/status/updatedReplicas").unwrap_or(0);
    let ready = obj.int("/status/readyReplicas").unwrap_or(0);
    let available = obj.int("/status/availableReplicas").unwrap_or(0);
    let counts = format!("{available}/{desired} replicas available");
    let deadline = with_reason(&conds, "Progressing", "ProgressDeadlineExceeded");
    let sets = controlled(snap, &obj.uid, "ReplicaSet");

    // The cause (pods cannot be created) before the symptom (no progress).
    if let Some(c) = true_(&conds, "ReplicaFailure") {
        let also = if deadline.is_some() {
            "; progress deadline exceeded"
        } else {
            ""
        };
        let cause = format!("cannot create pods: {}", pod_error(&c.message));
        let j = match create_failure_pending(c, snap, &sets) {
            Some(why) => Judgement::new(
                Verdict::Progressing,
                reason_or(c, Admission::ReplicaFailure),
                format!("{cause}; {counts}{also}; {why}"),
            ),
            None => Judgement::new(
                Verdict::Failed,
                reason_or(c, Admission::ReplicaFailure),
                format!("{cause}; {counts}{also}"),
            ),
        };
        return Some(j.since(c.last_transition_time).ready(ready, desired));
    }
    if let Some(c) = deadline {
        let secs = obj.int("/spec/progressDeadlineSeconds").unwrap_or(600);
        // The row names what holds the rollout: the newest pods' failure.
        let new_pods = newest(&sets)
            .map(|rs| controlled(snap, &rs.uid, "Pod"))
            .unwrap_or_default();
        // What holds it first, then the controller's words and the counts.
        let cause = first_cause(snap, &new_pods)
            .map(|c| format!("{c}; "))
            .unwrap_or_default();
        let j = Judgement::new(
            Verdict::Failed,
            Workload::ProgressDeadlineExceeded,
            format!(
                "rollout made no progress for {secs}s (progressDeadlineSeconds): {cause}{}; {counts}",
                c.message.trim_end_matches('.')
            ),
        );
        return Some(j.since(c.last_transition_time).ready(ready, desired));
    }

    let progressing = find(&conds, "Progressing").and_then(|c| c.last_transition_time);
    let available_since = find(&conds, "Available").and_then(|c| c.last_transition_time);
    let j = if updated < desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::RolloutInProgress,
            format!("{updated} of {desired} replicas updated; {counts}"),
        )
        .since(progressing)
    } else if replicas > updated && desired == 0 {
        Judgement::new(
            Verdict::Progressing,
            Workload::ScalingDown,
            format!("scaling to 0: {} left", count(replicas, "replica")),
        )
    } else if replicas > updated {
        let old = replicas - updated;
        Judgement::new(
            Verdict::Progressing,
            Workload::RolloutInProgress,
            format!(
                "all {desired} replicas updated; old replicas are pending termination ({} left)",
                count(old, "replica")
            ),
        )
        .since(progressing)
    } else if replicas > desired {
        // Scaled down, the pods above the count not yet removed: as
        // `kubectl rollout status` (updated replicas not all available)
        // and kstatus ("pending termination"), not done.
        Judgement::new(
            Verdict::Progressing,
            Workload::ScalingDown,
            format!(
                "scaling down to {desired}: {} pending termination; {counts}",
                count(replicas - desired, "replica")
            ),
        )
        .since(progressing)
    } else if available < desired {
        Judgement::new(Verdict::Progressing, Workload::WaitingForAvailable, counts)
            .since(available_since)
    } else if let Some(c) = false_(&conds, "Available") {
        // The counts look whole, but the controller says otherwise.
        Judgement::new(
            Verdict::Progressing,
            reason_or(c, Workload::NotAvailable),
            format!("{counts}, but {}", cite(c)),
        )
        .since(c.last_transition_time)
    } else if let Some(c) = false_(&conds, "Progressing") {
        Judgement::new(
            Verdict::Progressing,
            reason_or(c, Workload::NotProgressing),
            format!("{counts}, but {}", cite(c)),
        )
        .since(c.last_transition_time)
    } else if desired == 0 {
        Judgement::new(
            Verdict::Converged,
            Workload::ScaledDown,
            "scaled to 0 replicas",
        )
    } else {
        Judgement::new(Verdict::Converged, Workload::Available, counts).since(available_since)
    };
    let new_pods = newest(&sets)
        .map(|rs| controlled(snap, &rs.uid, "Pod"))
        .unwrap_or_default();
    Some(explain(j, snap, &new_pods).ready(ready, desired))
}

/// The ReplicaSet of the current template: the highest revision.
fn newest<'a>(sets: &[&'a Object]) -> Option<&'a Object> {
    sets.iter()
        .max_by_key(|rs| {
            rs.str("/metadata/annotations/deployment.kubernetes.io~1revision")
                .and_then(|r| r.parse::<i64>().ok())
                .unwrap_or(0)
        })
        .copied()
}
