//! The verdict of a tree: an object's own verdict, and what its current
//! descendants say. A parent whose status says Ready over a child that has
//! failed for good (a ClusterExternalSecret over a failing ExternalSecret,
//! an autoscaler over Jobs that all failed, a Deployment over a pod whose
//! init container is stuck) is not converged: the tree is Failed, naming
//! the child. Only current children count, so history never fails a
//! healthy tree:
//!
//! - a child being deleted, or read as metadata only, says nothing;
//! - of the revisions of one owner (ReplicaSets, ReplicationControllers,
//!   ControllerRevisions, Jobs), only the newest is current: an older one
//!   is superseded (a rollout's old ReplicaSet, a CronJob's earlier run);
//! - a ReplicaSet or ReplicationController scaled to zero is not current;
//! - a pod that has ended (Succeeded or Failed) is not current: its owner
//!   replaces it or counts it (an evicted pod stays behind while its
//!   replacement runs; a run's failed attempt is followed by another), and
//!   the pods of a Job are the Job's to judge.
//!
//! A child is finally Failed when its verdict is Failed, and for a pod
//! when it has failed hard for the failure grace (3 minutes, or
//! `--failure-grace`; at once under `--fail-fast`). Pure; the walk is
//! bounded by depth and by [`MAX_JUDGED`] objects.

use std::collections::VecDeque;

use super::kinds::pods;
use super::{Judged, Judgement, Verdict, judge};
use crate::model::Object;

/// At most this many descendants are judged for one tree's verdict.
pub const MAX_JUDGED: usize = 5_000;

/// How deep below the object the walk goes.
const MAX_DEPTH: usize = 8;

/// Kinds whose objects are revisions of their owner's state: only the
/// newest of one owner is current.
const REVISIONS: &[(&str, &str)] = &[
    ("apps", "ReplicaSet"),
    ("", "ReplicationController"),
    ("apps", "ControllerRevision"),
    ("batch", "Job"),
];

fn is_revision(o: &Object) -> bool {
    REVISIONS
        .iter()
        .any(|(g, k)| o.group() == *g && o.kind() == *k)
}

/// The current children of `owner` (see the module's rules).
fn current<'a>(snap: &'a Judged<'_>, owner: &Object) -> Vec<&'a Object> {
    let children: Vec<&Object> = snap
        .controlled(&owner.uid)
        .filter(|c| c.deleted.is_none() && !c.metadata_only)
        .collect();
    let newest = |kind: &str, group: &str| {
        children
            .iter()
            .filter(|c| c.kind() == kind && c.group() == group)
            .max_by_key(|c| (c.created, c.name().to_string()))
            .map(|c| c.uid.clone())
    };
    children
        .iter()
        .copied()
        .filter(|c| {
            if is_revision(c) && newest(c.kind(), c.group()).as_deref() != Some(c.uid.as_str()) {
                return false;
            }
            if matches!(c.kind(), "ReplicaSet" | "ReplicationController")
                && c.int("/spec/replicas") == Some(0)
            {
                return false;
            }
            if c.kind() == "Pod" && c.group().is_empty() {
                let ended = matches!(c.str("/status/phase"), Some("Succeeded" | "Failed"));
                let run = owner.kind() == "Job" && owner.group() == "batch";
                return !(run || ended);
            }
            true
        })
        .collect()
}

/// Whether a child's verdict is final: Failed, and for a pod, failed hard
/// past the failure grace.
fn finally_failed(child: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    if child.kind() == "Pod" && child.group().is_empty() {
        return pods::finally_failed(child, snap);
    }
    let j = judge(child, snap);
    (j.verdict == Verdict::Failed).then_some(j)
}

/// The tree's verdict where it differs from the object's own: Failed,
/// naming the first current descendant (nearest first) that has finally
/// failed, over an own verdict of Converged, Progressing or Unknown.
/// `None` when the tree says what the object says.
pub fn of(obj: &Object, own: &Judgement, snap: &Judged<'_>) -> Option<Judgement> {
    if !matches!(
        own.verdict,
        Verdict::Converged | Verdict::Progressing | Verdict::Unknown
    ) || obj.metadata_only
    {
        return None;
    }
    let mut queue: VecDeque<(&Object, usize)> = VecDeque::new();
    queue.push_back((obj, 0));
    let mut judged = 0;
    while let Some((owner, depth)) = queue.pop_front() {
        if depth >= MAX_DEPTH {
            continue;
        }
        for child in current(snap, owner) {
            if judged >= MAX_JUDGED {
                return None;
            }
            judged += 1;
            if let Some(j) = finally_failed(child, snap) {
                return Some(failed(obj, own, child, &j));
            }
            queue.push_back((child, depth + 1));
        }
    }
    None
}

/// The tree's Failed verdict: the child's reason, its message, and what
/// the object says of itself.
fn failed(obj: &Object, own: &Judgement, child: &Object, j: &Judgement) -> Judgement {
    let mut out = Judgement::new(
        Verdict::Failed,
        j.reason.clone(),
        format!(
            "{} {} is Failed ({}): {}; {} {} itself is {} ({})",
            child.kind(),
            child.name(),
            j.reason,
            j.message,
            obj.kind(),
            obj.name(),
            own.verdict,
            own.reason
        ),
    )
    .since(j.since);
    out.ready = own.ready;
    out
}
