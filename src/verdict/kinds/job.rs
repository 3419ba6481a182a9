//! Jobs (batch/v1): failed, failing, complete, suspended or running, with
//! the cause from its running pods.

use crate::model::{Object, age};
use crate::verdict::Judged;
use crate::verdict::conditions::{cite, find, true_};
use crate::verdict::words::count;
use crate::verdict::{Judgement, Verdict};

use super::pods::{controlled, explain};
use crate::verdict::reason::{Lifecycle, Pod, Reason, Workload};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let active = obj.int("/status/active").unwrap_or(0);
    let succeeded = obj.int("/status/succeeded").unwrap_or(0);
    let failed = obj.int("/status/failed").unwrap_or(0);
    let completions = obj.int("/spec/completions");
    let with_ready = |j: Judgement| match completions {
        Some(n) => j.ready(succeeded, n),
        None => j,
    };

    if let Some(c) = true_(&conds, "Failed") {
        let j = Judgement::new(
            Verdict::Failed,
            Reason::or(&c.reason, Workload::JobFailed),
            failure(obj, &c.reason, &c.message, failed),
        );
        return Some(with_ready(j.since(c.last_transition_time)));
    }
    if let Some(c) = true_(&conds, "FailureTarget") {
        let terminating = obj.int("/status/terminating").unwrap_or(active);
        let j = Judgement::new(
            Verdict::Failed,
            Reason::or(&c.reason, Workload::JobFailed),
            format!(
                "{}; waiting for {} to terminate before the Job is marked Failed",
                failure(obj, &c.reason, &c.message, failed),
                count(terminating, "pod")
            ),
        );
        return Some(with_ready(j.since(c.last_transition_time)));
    }
    if let Some(c) = true_(&conds, "Complete") {
        let took = match (
            obj.time("/status/startTime"),
            obj.time("/status/completionTime"),
        ) {
            (Some(start), Some(end)) => format!(" in {}", age(end, start)),
            _ => String::new(),
        };
        let done = c
            .last_transition_time
            .map(|t| format!(", {} ago", age(snap.now, t)))
            .unwrap_or_default();
        let j = Judgement::new(
            Verdict::Converged,
            Workload::Complete,
            format!(
                "{succeeded} of {} succeeded{took}{done}",
                completions.unwrap_or(succeeded)
            ),
        );
        return Some(with_ready(j.since(c.last_transition_time)));
    }
    if let Some(c) = true_(&conds, "SuccessCriteriaMet") {
        let j = Judgement::new(
            Verdict::Progressing,
            Workload::Completing,
            format!(
                "success criteria met; waiting for {} to terminate",
                count(active, "pod")
            ),
        );
        return Some(with_ready(j.since(c.last_transition_time)));
    }
    let spec_suspend = obj.bool("/spec/suspend") == Some(true);
    let suspended = true_(&conds, "Suspended");
    if spec_suspend != suspended.is_some() {
        // The spec and the controller disagree: the controller has not
        // acted on the latest spec.suspend yet.
        let (reason, doing) = if spec_suspend {
            (Workload::Suspending, "suspension requested by spec.suspend")
        } else {
            (
                Workload::Resuming,
                "resumption requested (spec.suspend is not true)",
            )
        };
        let cond = find(&conds, "Suspended")
            .map(cite)
            .unwrap_or_else(|| "no Suspended condition yet".into());
        let j = Judgement::new(
            Verdict::Progressing,
            reason,
            format!("{doing}; the Job controller has not acted on it yet: {cond}"),
        );
        return Some(with_ready(j));
    }
    if let Some(c) = suspended {
        let j = Judgement::new(
            Verdict::Suspended,
            Lifecycle::Suspended,
            format!(
                "suspended by spec.suspend; {succeeded} of {} succeeded",
                completions.unwrap_or(1)
            ),
        );
        return Some(with_ready(j.since(c.last_transition_time)));
    }
    let failures = if failed > 0 {
        format!(", {failed} failed")
    } else {
        String::new()
    };
    let of = completions.map(|n| format!(" of {n}")).unwrap_or_default();
    let j = Judgement::new(
        Verdict::Progressing,
        Pod::Running,
        format!("{active} active, {succeeded} succeeded{failures}{of}"),
    )
    .since(obj.time("/status/startTime"));
    // The pods still running decide whether the Job can get anywhere; the
    // finished ones are counted above.
    let running: Vec<&Object> = controlled(snap, &obj.uid, "Pod")
        .into_iter()
        .filter(|p| !matches!(p.str("/status/phase"), Some("Succeeded" | "Failed")))
        .collect();
    Some(with_ready(explain(j, snap, &running)))
}

/// The failure in the user's terms: which limit the Job hit.
fn failure(obj: &Object, reason: &str, message: &str, failed: i64) -> String {
    match reason {
        "BackoffLimitExceeded" => format!(
            "{} failed, reaching backoffLimit {}",
            count(failed, "pod"),
            obj.int("/spec/backoffLimit").unwrap_or(6)
        ),
        "DeadlineExceeded" => format!(
            "ran longer than activeDeadlineSeconds {}",
            obj.int("/spec/activeDeadlineSeconds")
                .map(|s| format!("({s}s)"))
                .unwrap_or_default()
        ),
        _ if message.is_empty() => format!("{} failed", count(failed, "pod")),
        _ => message.to_string(),
    }
}
