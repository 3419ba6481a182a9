//! HorizontalPodAutoscalers (autoscaling/v2): unable to scale, scaling, or
//! stable (possibly held at a limit).

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::conditions::{false_, true_};
use crate::verdict::reason::{Reason, Workload};
use crate::verdict::{Judgement, Verdict};

pub fn judge(obj: &Object, _snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let current = obj.int("/status/currentReplicas").unwrap_or(0);
    let desired = obj.int("/status/desiredReplicas").unwrap_or(0);
    let min = obj.int("/spec/minReplicas").unwrap_or(1);
    let max = obj.int("/spec/maxReplicas").unwrap_or(0);

    if let Some(c) = false_(&conds, "AbleToScale").or_else(|| false_(&conds, "ScalingActive")) {
        // The target scaled to zero by hand: autoscaling is off on purpose.
        if c.reason == "ScalingDisabled" {
            return Some(
                Judgement::new(
                    Verdict::Suspended,
                    Workload::ScalingDisabled,
                    "the target is scaled to 0 replicas, so autoscaling is off",
                )
                .since(c.last_transition_time),
            );
        }
        // A stabilization window after a recent scale: waiting, not stuck.
        if c.reason.starts_with("Backoff") {
            return Some(
                Judgement::new(
                    Verdict::Progressing,
                    Workload::Backoff,
                    format!(
                        "{current} replicas; waiting out a stabilization window: {}",
                        c.message
                    ),
                )
                .since(c.last_transition_time),
            );
        }
        let hint = if c.message.contains("metrics.k8s.io") {
            "; is metrics-server running?"
        } else {
            ""
        };
        let reason = Reason::or(&c.reason, Reason::of(&c.type_));
        return Some(
            Judgement::new(
                Verdict::Failed,
                reason,
                format!("{}=False: {}{hint}", c.type_, c.message),
            )
            .since(c.last_transition_time),
        );
    }
    if current != desired {
        return Some(Judgement::new(
            Verdict::Progressing,
            Workload::Scaling,
            format!("scaling from {current} to {desired} replicas (min {min}, max {max})"),
        ));
    }
    let mut message = format!("{current} replicas (min {min}, max {max})");
    if let Some(c) = true_(&conds, "ScalingLimited") {
        message.push_str(&format!("; scaling limited ({}): {}", c.reason, c.message));
    }
    Some(Judgement::new(
        Verdict::Converged,
        Workload::Stable,
        message,
    ))
}
