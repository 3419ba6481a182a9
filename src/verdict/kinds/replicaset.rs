//! ReplicaSets (apps/v1): pods that cannot be created, pods not yet ready,
//! scaled down.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::conditions::{reason_or, true_};
use crate::verdict::words::count;
use crate::verdict::{Judgement, Verdict};

use super::pods::{controlled, explain};
use super::{create_failure_pending, pod_error};
use crate::verdict::reason::{Admission, Lifecycle, Workload};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let desired = obj.int("/spec/replicas").unwrap_or(1);
    let replicas = obj.int("/status/replicas").unwrap_or(0);
    let ready = obj.int("/status/readyReplicas").unwrap_or(0);
    let available = obj.int("/status/availableReplicas").unwrap_or(0);
    if let Some(c) = true_(&conds, "ReplicaFailure") {
        let message = format!(
            "cannot create pods: {}; {replicas} of {desired} created, {ready} ready",
            pod_error(&c.message)
        );
        let j = match create_failure_pending(c, snap, &[obj]) {
            Some(why) => Judgement::new(
                Verdict::Progressing,
                reason_or(c, Admission::ReplicaFailure),
                format!("{message}; {why}"),
            ),
            None => Judgement::new(
                Verdict::Failed,
                reason_or(c, Admission::ReplicaFailure),
                message,
            ),
        };
        return Some(j.since(c.last_transition_time).ready(ready, desired));
    }
    let j = if desired == 0 && replicas == 0 {
        Judgement::new(
            Verdict::Converged,
            Workload::ScaledDown,
            "scaled to 0 replicas",
        )
    } else if replicas > desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::ScalingDown,
            format!(
                "{} pending termination; {ready}/{desired} ready",
                count(replicas - desired, "replica")
            ),
        )
    } else if ready < desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForReady,
            format!("{ready}/{desired} replicas ready ({replicas} created)"),
        )
    } else if available < desired {
        Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForAvailable,
            format!("{available}/{desired} replicas available (minReadySeconds)"),
        )
    } else {
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Ready,
            format!("{ready}/{desired} replicas ready"),
        )
    };
    let pods = controlled(snap, &obj.uid, "Pod");
    Some(explain(j, snap, &pods).ready(ready, desired))
}
