//! Nodes (v1): not ready, under pressure, cordoned, or ready.

use crate::model::{Object, age};
use crate::verdict::Judged;
use crate::verdict::conditions::{find, true_};
use crate::verdict::reason::{Lifecycle, Reason, Scheduling};
use crate::verdict::{Judgement, Verdict};

/// Conditions whose `True` means the node is unhealthy.
const PRESSURES: [&str; 4] = [
    "MemoryPressure",
    "DiskPressure",
    "PIDPressure",
    "NetworkUnavailable",
];

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let Some(ready) = find(&conds, "Ready") else {
        return Some(
            Judgement::new(
                Verdict::Unknown,
                Lifecycle::NoReadyCondition,
                "the kubelet has not reported a Ready condition",
            )
            .since(obj.created),
        );
    };
    if !ready.is_true() {
        let since = ready
            .last_transition_time
            .map(|t| format!(" for {}", age(snap.now, t)))
            .unwrap_or_default();
        let detail = if ready.message.is_empty() {
            ready.reason.clone()
        } else {
            ready.message.clone()
        };
        return Some(
            Judgement::new(
                Verdict::Failed,
                Scheduling::NodeNotReady,
                format!("Ready={}{since}: {detail}", ready.status),
            )
            .since(ready.last_transition_time),
        );
    }
    if let Some(c) = PRESSURES.iter().find_map(|t| true_(&conds, t)) {
        let detail = if c.message.is_empty() {
            &c.reason
        } else {
            &c.message
        };
        return Some(
            Judgement::new(
                Verdict::Failed,
                Reason::of(&c.type_),
                format!("{}: {detail}", c.type_),
            )
            .since(c.last_transition_time),
        );
    }
    if obj.bool("/spec/unschedulable") == Some(true) {
        return Some(Judgement::new(
            Verdict::Suspended,
            Scheduling::Cordoned,
            "cordoned (spec.unschedulable): running pods stay, no new pods are scheduled",
        ));
    }
    Some(
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Ready,
            "kubelet reports Ready",
        )
        .since(ready.last_transition_time),
    )
}
