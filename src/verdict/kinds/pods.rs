//! The pods a workload runs, found in the snapshot by their owner
//! references, and what ails them: the cause a workload's message carries
//! (`0/1 replicas available: Pod web-x ImagePullBackOff`), and the rule that
//! a workload whose new pods have all failed hard for longer than
//! [`HARD_FAILURE_GRACE`] is Failed.

use crate::verdict::Judged;
use jiff::{SignedDuration, Timestamp};

use crate::model::{Object, Snapshot, age};
use crate::verdict::reason::{Pod, Reason};
use crate::verdict::{Judgement, Verdict};

use super::pod::{self, CRASH_RESTARTS};

/// How long every new pod of a workload must have been in a hard failure
/// before the workload is Failed: long enough for a registry blip, a
/// ServiceAccount or Secret applied a moment later, or a node joining to
/// clear it.
pub const HARD_FAILURE_GRACE: SignedDuration = SignedDuration::from_mins(3);

/// Whether a Failed pod's reason will not clear without a change (given
/// time): every failure the pod rule names (an image that cannot be
/// pulled, an init container stuck, a startup probe that keeps failing,
/// an unschedulable pod, ...), except a crash loop, which counts only
/// once it is a run of failed starts (see [`ailment`]).
fn hard(reason: &Reason) -> bool {
    *reason != Pod::CrashLoopBackOff
}

/// The objects of `kind` whose controller is the object with this uid,
/// sorted by name.
pub fn controlled<'a>(snap: &'a Snapshot, owner: &str, kind: &str) -> Vec<&'a Object> {
    let mut out: Vec<&Object> = snap
        .controlled(owner)
        .filter(|o| o.kind() == kind)
        .collect();
    out.sort_by(|a, b| a.name().cmp(b.name()));
    out
}

/// What ails one pod.
pub struct Ailment<'a> {
    pub pod: &'a Object,
    pub judgement: Judgement,
    /// Since when it has failed hard, for the failures that count as hard.
    pub hard_since: Option<Timestamp>,
}

fn ailment<'a>(pod: &'a Object, snap: &Judged<'_>) -> Option<Ailment<'a>> {
    // A pod being deleted is on its way out; one read as metadata only (a
    // sweep) has no status to tell.
    if pod.deleted.is_some() || pod.metadata_only {
        return None;
    }
    // The whole verdict, a refusal said only in Warning events included
    // (a volume that cannot be mounted).
    let judgement = crate::verdict::judge(pod, snap);
    if judgement.verdict != Verdict::Failed {
        return None;
    }
    let reason = &judgement.reason;
    // With a shortened grace (`wait --fail-fast`) one failed restart in
    // back-off is enough; else a run of [`CRASH_RESTARTS`].
    let crashes = if snap.judge.failure_grace.is_some_and(|g| g.is_zero()) {
        1
    } else {
        CRASH_RESTARTS
    };
    let hard = hard(reason)
        || (*reason == Pod::CrashLoopBackOff
            && pod::crash_loop(pod, snap.now).is_some_and(|r| r.failures >= crashes));
    let hard_since = hard.then(|| judgement.since.or(pod.created)).flatten();
    Some(Ailment {
        pod,
        judgement,
        hard_since,
    })
}

/// A pod that has failed hard for longer than the failure grace in force
/// (at once under `--fail-fast`): what it failed with, and since when.
/// What makes a workload Failed when all its new pods are so, and a tree
/// Failed when any current pod of it is.
pub fn finally_failed(pod: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let a = ailment(pod, snap)?;
    let since = a.hard_since?;
    let grace = grace(snap);
    (grace.is_zero() || snap.now.duration_since(since) > grace).then_some(a.judgement)
}

/// The first failing pod among `new_pods`, as a row says it:
/// `Pod web-x ImagePullBackOff`.
pub fn first_cause(snap: &Judged<'_>, new_pods: &[&Object]) -> Option<String> {
    new_pods
        .iter()
        .find_map(|p| ailment(p, snap))
        .map(|a| format!("Pod {} {}", a.pod.name(), a.judgement.reason))
}

/// Adds the cause to a workload that is not yet available: the first
/// failing pod, by name. When every pod in `new_pods` has failed hard for
/// longer than [`HARD_FAILURE_GRACE`], the workload is Failed with that
/// pod's reason.
pub fn explain(j: Judgement, snap: &Judged<'_>, new_pods: &[&Object]) -> Judgement {
    if j.verdict != Verdict::Progressing {
        return j;
    }
    let ailments: Vec<Ailment> = new_pods.iter().filter_map(|p| ailment(p, snap)).collect();
    let Some(first) = ailments.first() else {
        return j;
    };
    let live = new_pods.iter().filter(|p| p.deleted.is_none()).count();
    let grace = grace(snap);
    let hard_for = |a: &Ailment| {
        a.hard_since
            .filter(|t| snap.now.duration_since(*t) > grace || grace.is_zero())
    };
    // Every new pod failing hard; or one that no node can take, which no
    // retry clears: a partial shortfall that is final.
    let all_hard = ailments.len() == live && ailments.iter().all(|a| hard_for(a).is_some());
    let unplaceable = ailments.iter().find(|a| {
        a.judgement.reason == crate::verdict::reason::Scheduling::Unschedulable
            && hard_for(a).is_some()
    });
    if !all_hard && let Some(stuck) = unplaceable {
        let for_ = hard_for(stuck)
            .map(|t| age(snap.now, t))
            .unwrap_or_default();
        let mut failed = Judgement::new(
            Verdict::Failed,
            stuck.judgement.reason.clone(),
            format!(
                "Pod {} {} ({}); {}; no node can take it for {for_}, {}",
                stuck.pod.name(),
                stuck.judgement.reason,
                stuck.judgement.message,
                j.message,
                grace_text(snap)
            ),
        )
        .since(hard_for(stuck));
        failed.ready = j.ready;
        return failed;
    }
    // The cause first, then the counts: a row cut to the terminal's
    // width keeps what matters.
    let pod = format!("Pod {} {}", first.pod.name(), first.judgement.reason);
    if all_hard {
        // All have failed for at least as long as the latest to start.
        let latest = ailments.iter().filter_map(hard_for).max();
        let every = if live == 1 {
            "its only new pod".to_string()
        } else {
            format!("all {live} new pods")
        };
        let for_ = latest.map(|t| age(snap.now, t)).unwrap_or_default();
        let mut failed = Judgement::new(
            Verdict::Failed,
            first.judgement.reason.clone(),
            format!(
                "{pod} ({}); {}; {every} failing for {for_}, {}",
                first.judgement.message,
                j.message,
                grace_text(snap)
            ),
        )
        .since(latest);
        failed.ready = j.ready;
        return failed;
    }
    Judgement {
        message: format!("{pod}; {}", j.message),
        ..j
    }
}

/// The hard-failure grace in force: the command's, else [`HARD_FAILURE_GRACE`].
fn grace(snap: &Judged<'_>) -> SignedDuration {
    snap.judge.failure_grace.unwrap_or(HARD_FAILURE_GRACE)
}

/// `longer than 3m`, `with no grace (--fail-fast)`: the grace period as
/// the docs state it.
fn grace_text(snap: &Judged<'_>) -> String {
    let g = grace(snap);
    if g.is_zero() {
        "with no grace (--fail-fast)".to_string()
    } else if g == HARD_FAILURE_GRACE {
        format!("longer than {}m", g.as_mins())
    } else {
        format!("longer than the {}s --failure-grace", g.as_secs())
    }
}
