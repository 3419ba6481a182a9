//! StatefulSets (apps/v1): pods not ready, rolling updates (including a
//! partitioned rollout, converged once it reaches its partition, and the
//! OnDelete strategy), scaling.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::words::{count, noun};
use crate::verdict::{Judgement, Verdict};

use super::pods::{controlled, explain};
use crate::verdict::reason::{Lifecycle, Workload};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let desired = obj.int("/spec/replicas").unwrap_or(1);
    let replicas = obj.int("/status/replicas").unwrap_or(0);
    let ready = obj.int("/status/readyReplicas").unwrap_or(0);
    let updated = obj.int("/status/updatedReplicas").unwrap_or(0);
    let current = obj.str("/status/currentRevision");
    let update = obj.str("/status/updateRevision");
    let revisions_differ = matches!((current, update), (Some(c), Some(u)) if c != u);
    let strategy = obj
        .str("/spec/updateStrategy/type")
        .unwrap_or("RollingUpdate");
    let partition = obj
        .int("/spec/updateStrategy/rollingUpdate/partition")
        .unwrap_or(0);
    let current_replicas = obj.int("/status/currentReplicas");

    let j = if ready < desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForReady,
            format!("{ready}/{desired} replicas ready"),
        )
    } else if revisions_differ && strategy == "OnDelete" {
        let old = (replicas - updated).max(0);
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForPodDeletion,
            format!(
                "updateStrategy OnDelete: {} on the old revision; pods update only when deleted",
                stay(old)
            ),
        )
    } else if revisions_differ && partition > 0 && updated >= (desired - partition).max(0) {
        // The controller has done what the spec asks: every ordinal from
        // the partition up runs the new revision. `kubectl rollout status`
        // calls this "partitioned roll out complete" (exit 0); so does
        // `wait` here, and the message says what stays behind.
        let old = (desired - updated).max(0);
        Judgement::new(
            Verdict::Converged,
            Workload::PartitionedRollout,
            format!(
                "partition {partition}: {updated} of {desired} replicas updated to {}, {} on the old revision until the partition is lowered",
                update.unwrap_or_default(),
                stay(old)
            ),
        )
    } else if revisions_differ
        || updated < desired && update.is_some()
        || current_replicas.is_some_and(|c| c < desired) && partition == 0
    {
        Judgement::new(
            Verdict::Progressing,
            Workload::RolloutInProgress,
            format!("{updated} of {desired} replicas updated; {ready}/{desired} ready"),
        )
    } else if replicas > desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::ScalingDown,
            format!(
                "{} pending termination",
                count(replicas - desired, "replica")
            ),
        )
    } else if let Some(available) = obj.int("/status/availableReplicas")
        && available < desired
    {
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForAvailable,
            format!("{available}/{desired} replicas available (minReadySeconds)"),
        )
    } else if desired == 0 {
        Judgement::new(
            Verdict::Converged,
            Workload::ScaledDown,
            "scaled to 0 replicas",
        )
    } else {
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Ready,
            format!("{ready}/{desired} {} ready", noun(desired, "replica")),
        )
    };
    let pods: Vec<&Object> = controlled(snap, &obj.uid, "Pod")
        .into_iter()
        .filter(|p| {
            update.is_none_or(|u| {
                p.labels
                    .get("controller-revision-hash")
                    .is_none_or(|h| h == u)
            })
        })
        .collect();
    let j = explain(j, snap, &pods);
    Some(ordered_ready(obj, j, replicas, desired).ready(ready, desired))
}

/// With `podManagementPolicy: OrderedReady` (the default) the controller
/// creates ordinal N+1 only once N is ready: a failing pod keeps the later
/// ordinals from being created, and the message says so.
fn ordered_ready(obj: &Object, j: Judgement, replicas: i64, desired: i64) -> Judgement {
    let ordered = obj
        .str("/spec/podManagementPolicy")
        .unwrap_or("OrderedReady")
        == "OrderedReady";
    if !ordered || j.verdict != Verdict::Failed || replicas >= desired {
        return j;
    }
    let next = if desired - replicas == 1 {
        format!("{}-{replicas}", obj.name())
    } else {
        format!("{}-{}…{}-{}", obj.name(), replicas, obj.name(), desired - 1)
    };
    Judgement {
        message: format!(
            "{}; OrderedReady: {next} not created until the pods before them are ready",
            j.message
        ),
        ..j
    }
}

/// `1 pod stays`, `2 pods stay`.
fn stay(n: i64) -> String {
    format!(
        "{} {}",
        count(n, "pod"),
        if n == 1 { "stays" } else { "stay" }
    )
}
