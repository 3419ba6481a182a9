//! Warning events as evidence. Some controllers say a refusal only in
//! events: the CronJob controller that cannot create a Job (`FailedCreate`:
//! a quota), the kubelet that cannot mount a volume (`FailedMount`,
//! `FailedAttachVolume`), a load-balancer controller with no address to
//! give (`AllocationFailed`, `SyncLoadBalancerFailed`), a provisioner
//! (`ProvisioningFailed`), the binder (`FailedBinding`). Where the status
//! says only that work is under way (or, for a CronJob, nothing at all), a
//! Warning that recurs on the object within [`REFUSAL_WINDOW`] is the
//! cause: Progressing with the event's words for the retry grace from its
//! first occurrence, then Failed. Pure: the events are the snapshot's.

use jiff::{SignedDuration, Timestamp};

use super::reason::Reason;
use super::retried::retry_grace;
use super::vocabulary::{ReasonClass, reason_class};
use super::{Judged, Judgement, Verdict};
use crate::model::{Event, Object, age, human_duration};

/// How recent the last occurrence of a refusal must be to count: a
/// controller that keeps failing says so every few minutes.
pub const REFUSAL_WINDOW: SignedDuration = SignedDuration::from_mins(15);

/// Whether an event's reason names a refusal: `Failed…` (`FailedCreate`,
/// `FailedMount`, `FailedScheduling`), or a failure word anywhere
/// (`AllocationFailed`, `ProvisioningFailed`, `BackOff`, `…Error`).
pub fn is_refusal(reason: &str) -> bool {
    reason.starts_with("Failed") || reason_class(reason) == ReasonClass::Terminal
}

/// The refusal said most recently about `obj`: its Warning events of one
/// reason, summed (count, first and last occurrence).
struct Refusal<'a> {
    latest: &'a Event,
    count: u64,
    first: Timestamp,
    last: Timestamp,
}

/// Whether a kind's verdict may be told by its events even where its own
/// status says it is converged: a CronJob says nothing of a run it could
/// not create.
fn silent_when_refused(obj: &Object) -> bool {
    obj.group() == "batch" && obj.kind() == "CronJob"
}

/// The refusal that stands on `obj`: the newest recurring Warning of a
/// refusal reason, last seen within [`REFUSAL_WINDOW`] (for a CronJob,
/// any since its last successful run, one is enough).
fn refusal<'a>(obj: &'a Object, snap: &'a Judged<'_>) -> Option<Refusal<'a>> {
    let cronjob = silent_when_refused(obj);
    let success = obj.time("/status/lastSuccessfulTime");
    let events: Vec<&Event> = snap
        .events_for(&obj.uid)
        .filter(|e| e.type_ == "Warning" && is_refusal(&e.reason))
        // Seen by the time judged at (a snapshot replayed at an earlier
        // `--now` holds later events).
        .filter(|e| e.last_seen.is_some_and(|t| t <= snap.now))
        .collect();
    let latest = *events.iter().max_by_key(|e| e.last_seen)?;
    let same: Vec<&&Event> = events
        .iter()
        .filter(|e| e.reason == latest.reason)
        .collect();
    let count: u64 = same.iter().map(|e| u64::from(e.count.max(1))).sum();
    let last = latest.last_seen?;
    let first = same
        .iter()
        .filter_map(|e| e.first_seen.or(e.last_seen))
        .min()
        .unwrap_or(last);
    let recent = if cronjob {
        success.is_none_or(|s| last > s)
    } else {
        snap.now.duration_since(last) <= REFUSAL_WINDOW
    };
    let recurs = count >= 2 || cronjob;
    (recent && recurs).then_some(Refusal {
        latest,
        count,
        first,
        last,
    })
}

/// The verdict with the refusal read into it: for work under way (or a
/// CronJob's all clear), Progressing with the event's reason and words
/// within the retry grace from its first occurrence, then Failed. A
/// verdict that already names a failure, a pause or a deletion stands.
pub fn judge(obj: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    let open = match j.verdict {
        Verdict::Progressing => true,
        Verdict::Converged => silent_when_refused(obj),
        _ => false,
    };
    if !open || obj.metadata_only {
        return j;
    }
    let Some(r) = refusal(obj, snap) else {
        return j;
    };
    let grace = retry_grace(snap);
    let times = if r.count == 1 {
        format!("{} ago", age(snap.now, r.last))
    } else {
        format!(
            "×{} over {}, last {} ago",
            r.count,
            age(r.last, r.first),
            age(snap.now, r.last)
        )
    };
    let said = format!(
        "Warning {} {times}: {}",
        r.latest.reason,
        r.latest.message.trim()
    );
    let reason = Reason::of(&r.latest.reason);
    let failed = snap.now.duration_since(r.first) > grace;
    let mut out = if failed {
        Judgement::new(
            Verdict::Failed,
            reason,
            format!(
                "{said}; refused for longer than the {} grace; {}",
                human_duration(grace),
                j.message
            ),
        )
    } else {
        Judgement::new(
            Verdict::Progressing,
            reason,
            format!(
                "{said}; retried: Failed if it lasts {}; {}",
                human_duration(grace),
                j.message
            ),
        )
    }
    .since(Some(r.first));
    out.ready = j.ready;
    out
}
