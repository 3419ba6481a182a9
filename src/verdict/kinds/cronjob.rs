//! CronJobs (batch/v1): suspended, its most recent run failed, or scheduled.

use crate::model::{Object, age};
use crate::verdict::Judged;
use crate::verdict::words::count;
use crate::verdict::{Judgement, Verdict};

use super::job;
use super::pods::controlled;
use crate::verdict::reason::{Lifecycle, Scheduling, Workload};

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let schedule = obj.str("/spec/schedule").unwrap_or("?");
    let last = obj.time("/status/lastScheduleTime");
    let last_text = match last {
        Some(t) => format!("last scheduled {} ago", age(snap.now, t)),
        None => "never scheduled".to_string(),
    };
    if obj.bool("/spec/suspend") == Some(true) {
        return Some(Judgement::new(
            Verdict::Suspended,
            Lifecycle::Suspended,
            format!("suspended by spec.suspend (schedule \"{schedule}\"); {last_text}"),
        ));
    }
    let active = obj
        .at("/status/active")
        .and_then(|v| v.as_array())
        .map_or(0, |a| a.len() as i64);
    let mut message = format!("schedule \"{schedule}\"; {last_text}");
    let success = obj.time("/status/lastSuccessfulTime");
    if let Some(t) = success {
        message.push_str(&format!(", last success {} ago", age(snap.now, t)));
    }
    if active > 0 {
        message.push_str(&format!("; {} active", count(active, "job")));
    }
    if let Some(j) = last_run_failed(obj, snap, &message) {
        return Some(j);
    }
    if let Some(j) = runs_skipped(obj, snap, &message) {
        return Some(j);
    }
    Some(Judgement::new(Verdict::Converged, Scheduling::Scheduled, message).since(last))
}

/// What the CronJob controller says when it does not start a run: a run
/// is still active under `concurrencyPolicy: Forbid`, or runs were missed.
const SKIPPED: [&str; 3] = ["JobAlreadyActive", "TooManyMissedTimes", "MissSchedule"];

/// The controller's newest word on the schedule is that it skipped or
/// missed a run: the schedule is not being kept, whatever the last success
/// said. Named with the run that holds it, where one is active.
fn runs_skipped(obj: &Object, snap: &Judged<'_>, message: &str) -> Option<Judgement> {
    let newest = snap
        .events_for(&obj.uid)
        .max_by_key(|e| (e.last_seen, e.reason.clone()))?;
    if !SKIPPED.contains(&newest.reason.as_str()) {
        return None;
    }
    let holding = controlled(snap, &obj.uid, "Job")
        .into_iter()
        .filter(|j| j.at("/status/completionTime").is_none())
        .min_by_key(|j| j.created)
        .map(|j| {
            let running = j
                .created
                .map(|c| format!(", running for {}", age(snap.now, c)))
                .unwrap_or_default();
            format!("; Job {} has not finished{running}", j.name())
        })
        .unwrap_or_default();
    let times = if newest.count > 1 {
        format!(" ({} times)", newest.count)
    } else {
        String::new()
    };
    Some(
        Judgement::new(
            Verdict::Failed,
            Workload::RunsSkipped,
            format!(
                "runs are skipped: {}{times}: {}{holding}; {message}",
                newest.reason,
                newest.message.trim()
            ),
        )
        .since(newest.first_seen.or(newest.last_seen)),
    )
}

/// The most recent run failed: judged from the CronJob's Jobs when the
/// snapshot holds them, else from a last schedule with no success after it
/// and nothing running.
fn last_run_failed(obj: &Object, snap: &Judged<'_>, message: &str) -> Option<Judgement> {
    let jobs = controlled(snap, &obj.uid, "Job");
    if let Some(latest) = jobs
        .iter()
        .max_by_key(|j| (j.created, j.name().to_string()))
    {
        let j = job::judge(latest, snap)?;
        if j.verdict != Verdict::Failed {
            return None;
        }
        return Some(
            Judgement::new(
                Verdict::Failed,
                Workload::LastJobFailed,
                format!(
                    "its most recent Job {} failed ({}): {}; {message}",
                    latest.name(),
                    j.reason,
                    j.message
                ),
            )
            .since(j.since),
        );
    }
    let scheduled = obj.time("/status/lastScheduleTime")?;
    let running = obj
        .at("/status/active")
        .and_then(|v| v.as_array())
        .is_some_and(|a| !a.is_empty());
    let succeeded_since = obj
        .time("/status/lastSuccessfulTime")
        .is_some_and(|t| t >= scheduled);
    if running || succeeded_since {
        return None;
    }
    Some(
        Judgement::new(
            Verdict::Failed,
            Workload::LastRunFailed,
            format!(
                "the run scheduled {} ago did not succeed and none is running; {message}",
                age(snap.now, scheduled)
            ),
        )
        .since(Some(scheduled)),
    )
}
