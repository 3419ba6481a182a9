//! A custom workload whose own status says it is under way, while what it
//! rolls out has failed for good below it: an Argo Rollout whose new
//! ReplicaSet cannot pull its image, a Prometheus whose StatefulSet's only
//! pod crash-loops. The operator's word (`phase: Progressing`,
//! `Available=False`) would keep it Progressing until its own deadline, or
//! for ever; the workload it owns was judged Failed by the hard-failure
//! rules (after [`super::pods::HARD_FAILURE_GRACE`], at once under `--fail-fast`),
//! so the owner is Failed too, naming the child.

use crate::model::Object;
use crate::verdict::{Judged, Judgement, Verdict, judge};

use super::pods::{controlled, explain};

/// What an owner rolls out toward, of the workloads it controls: the
/// newest ReplicaSet and Deployment (one per revision: the older ones are
/// on their way out, and may fail while a fix rolls out), and every
/// StatefulSet and DaemonSet (updated in place, one per shard).
fn rolled_out_toward<'a>(snap: &'a Judged<'_>, owner: &Object) -> Vec<&'a Object> {
    let mut out = Vec::new();
    for kind in ["ReplicaSet", "Deployment"] {
        let newest = controlled(snap, &owner.uid, kind)
            .into_iter()
            .filter(|o| o.group() == "apps" && o.deleted.is_none() && !o.metadata_only)
            .max_by_key(|o| (o.created, o.name().to_string()));
        out.extend(newest);
    }
    for kind in ["StatefulSet", "DaemonSet"] {
        out.extend(
            controlled(snap, &owner.uid, kind)
                .into_iter()
                .filter(|o| o.group() == "apps" && o.deleted.is_none() && !o.metadata_only),
        );
    }
    out
}

/// A Progressing custom object over a workload that has failed for good
/// is Failed, with the workload's reason and evidence; one that runs pods
/// itself (a pod set) is Failed when every one of them has failed hard,
/// as a ReplicaSet would be. Anything else stands.
pub fn failed_below(owner: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    for child in rolled_out_toward(snap, owner) {
        let below = judge(child, snap);
        if below.verdict == Verdict::Failed {
            let mut failed = Judgement::new(
                Verdict::Failed,
                below.reason.clone(),
                format!(
                    "{} {} is Failed ({}): {}; {}",
                    child.kind(),
                    child.name(),
                    below.reason,
                    below.message,
                    j.message
                ),
            )
            .since(below.since);
            failed.ready = j.ready;
            return failed;
        }
    }
    let pods: Vec<&Object> = controlled(snap, &owner.uid, "Pod")
        .into_iter()
        .filter(|p| p.group().is_empty())
        .collect();
    if pods.is_empty() {
        return j;
    }
    explain(j, snap, &pods)
}
