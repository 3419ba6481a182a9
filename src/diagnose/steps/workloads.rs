//! Steps for workloads and rollouts: a stuck rollout and the way back, a
//! pause, an OnDelete update, a Job that gave up, an autoscaler without
//! metrics.

use super::{Cx, NextStep, arg, describe, kubectl, step};
use crate::model::{Object, ObjectRef};
use crate::verdict::Judged;
use crate::verdict::reason::Workload;

pub(super) fn step_for(code: Workload, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    Some(match code {
        // The object with the reason: the target, or a workload a GitOps
        // object above it applies.
        Workload::ProgressDeadlineExceeded => rollback(cx.snap, who),
        Workload::Paused => {
            let resume = vec![format!("{} rollout resume {}", kubectl(who), arg(who))];
            match cx.who_obj.and_then(|d| pending_template(cx.snap, d)) {
                Some(false) => step(
                    "The Deployment is paused on purpose (spec.paused) and nothing is pending: its pods run its current template. Resume it when later changes should roll out.",
                    resume,
                ),
                _ => step(
                    "The Deployment is paused on purpose; resume it to roll out pending changes.",
                    resume,
                ),
            }
        }
        Workload::WaitingForPodDeletion => step(
            "The update strategy is OnDelete: pods update only when deleted.",
            vec![format!("{} delete pod POD", kubectl(who))],
        ),
        Workload::BackoffLimitExceeded | Workload::DeadlineExceeded => {
            job_gave_up(cx.snap, who, cx.t())
        }
        Workload::RunsSkipped => hanging_run(cx.snap, who),
        Workload::FailedGetResourceMetric
        | Workload::FailedGetPodsMetric
        | Workload::FailedGetExternalMetric
        | Workload::FailedGetObjectMetric => step(
            "The autoscaler cannot read metrics: check that the metrics API is served (metrics-server) and that the pods have resource requests.",
            vec![
                "kubectl get apiservices | grep metrics".into(),
                describe(who),
            ],
        ),
        Workload::RolloutInProgress
        | Workload::PartitionedRollout
        | Workload::WaitingForReplicas
        | Workload::WaitingForReady
        | Workload::WaitingForAvailable
        | Workload::Available
        | Workload::NotAvailable
        | Workload::NotProgressing
        | Workload::ScalingDown
        | Workload::ScaledDown
        | Workload::Active
        | Workload::Complete
        | Workload::Completing
        | Workload::Backoff
        | Workload::PodFailurePolicy
        | Workload::MaxFailedIndexesExceeded
        | Workload::FailedIndexes
        | Workload::JobFailed
        | Workload::Suspending
        | Workload::Resuming
        | Workload::RunFailed
        | Workload::LastJobFailed
        | Workload::LastRunFailed
        | Workload::Scaling
        | Workload::Stable
        | Workload::ScalingDisabled => return None,
    })
}

/// Going back to the revision before a change that broke the rollout,
/// beside the forward fix; none when a step already rolls back.
pub fn undo_change(target: &Object, previous: i64, steps: &[NextStep]) -> Option<NextStep> {
    if steps.iter().any(|s| s.rolls_back) {
        return None;
    }
    let t = &target.id;
    Some(back(step(
        format!(
            "Or go back to revision {previous}, which ran before the change (see Also), while the new revision is fixed:"
        ),
        vec![format!(
            "{} rollout undo {} --to-revision={previous}",
            kubectl(t),
            arg(t)
        )],
    )))
}

/// A step that goes back to an earlier revision.
fn back(step: NextStep) -> NextStep {
    NextStep {
        rolls_back: true,
        ..step
    }
}

/// A stuck rollout: roll back to the revision before the newest, when
/// there is one.
fn rollback(snap: &Judged<'_>, t: &ObjectRef) -> NextStep {
    if let Some(rollouts) = super::operators::argo_rollouts(t) {
        return back(step(
            "The rollout is stuck: fix the new pods (see the root cause), or go back to the stable revision.",
            vec![
                format!("{rollouts} undo {}", t.name),
                format!("{rollouts} get rollout {}", t.name),
            ],
        ));
    }
    if !crate::catalog::makes_pods(t.group(), &t.kind) {
        return step(
            format!(
                "The rollout is stuck: fix the new pods (see the root cause) in {} {}'s spec.",
                t.kind, t.name
            ),
            vec![describe(t)],
        );
    }
    let workload = t.uid.as_deref().and_then(|u| snap.get(u));
    // The newest revision is the Deployment's own annotation (its
    // ReplicaSet may not be read), else the newest kept.
    let previous = workload.and_then(|w| {
        let kept = crate::diagnose::rollout::revisions(snap, w);
        let current = w
            .str("/metadata/annotations/deployment.kubernetes.io~1revision")
            .and_then(|r| r.parse::<i64>().ok())
            .or_else(|| kept.first().map(|(n, _, _)| *n))?;
        match crate::diagnose::rollout::way_back(snap, w) {
            Some((n, _, _)) if n < current => Some(n),
            _ => kept.iter().map(|(n, _, _)| *n).find(|n| *n < current),
        }
    });
    match previous {
        Some(n) => back(step(
            "The rollout is stuck: fix the new pods (see the root cause), or roll back to the previous revision.",
            vec![
                format!("{} rollout undo {} --to-revision={n}", kubectl(t), arg(t)),
                format!("{} rollout history {}", kubectl(t), arg(t)),
            ],
        )),
        None if t.kind != "Deployment" => back(step(
            "The rollout is stuck: fix the new pods (see the root cause), or roll back to the previous revision.",
            vec![
                format!("{} rollout undo {}", kubectl(t), arg(t)),
                format!("{} rollout history {}", kubectl(t), arg(t)),
            ],
        )),
        None => step(
            "The rollout is stuck and there is no earlier revision to roll back to: fix the pod template (see the root cause).",
            vec![describe(t)],
        ),
    }
}

/// A schedule whose runs are skipped: the run that holds it, and why it
/// does not finish.
fn hanging_run(snap: &Judged<'_>, cron: &ObjectRef) -> NextStep {
    let hanging = cron.uid.as_deref().and_then(|uid| {
        snap.controlled(uid)
            .filter(|j| j.kind() == "Job" && j.at("/status/completionTime").is_none())
            .min_by_key(|j| j.created)
    });
    match hanging {
        Some(job) => step(
            format!(
                "Job {} has not finished, and the schedule starts no run while it is active (concurrencyPolicy Forbid): find why it hangs (its pods' logs), fix it, and delete the Job; an activeDeadlineSeconds on the job template bounds a run.",
                job.name()
            ),
            vec![
                format!("{} logs job/{}", kubectl(&job.id), job.name()),
                describe(&job.id),
            ],
        ),
        None => step(
            "The controller skips or misses the schedule's runs (see its events): check the active runs and startingDeadlineSeconds.",
            vec![describe(cron)],
        ),
    }
}

/// A Job that gave up: its pods' logs while they exist, else its events.
fn job_gave_up(snap: &Judged<'_>, who: &ObjectRef, t: &ObjectRef) -> NextStep {
    let pods = snap
        .objects()
        .iter()
        .any(|o| o.kind() == "Pod" && o.owners.iter().any(|r| Some(&r.uid) == who.uid.as_ref()));
    if pods {
        step(
            "The Job has given up: read its pods' logs, fix the cause, then delete and re-create the Job.",
            vec![format!("{} logs {}", kubectl(who), arg(who)), describe(t)],
        )
    } else {
        step(
            "The Job has given up and its pods are gone (the Job controller deletes them), so their logs are too: read the Job's events, fix the cause, then delete and re-create the Job.",
            vec![
                describe(who),
                format!(
                    "{} get events --field-selector involvedObject.name={}",
                    kubectl(who),
                    who.name
                ),
            ],
        )
    }
}

/// Whether a paused Deployment's template differs from that of its newest
/// ReplicaSet (a change that waits for the resume); `None` when its
/// ReplicaSets were not read.
fn pending_template(snap: &Judged<'_>, deployment: &Object) -> Option<bool> {
    let newest = snap
        .controlled(&deployment.uid)
        .filter(|o| o.kind() == "ReplicaSet")
        .max_by_key(|rs| {
            rs.str("/metadata/annotations/deployment.kubernetes.io~1revision")
                .and_then(|r| r.parse::<u64>().ok())
                .unwrap_or(0)
        })?;
    let mut template = newest.at("/spec/template")?.clone();
    if let Some(labels) = template
        .pointer_mut("/metadata/labels")
        .and_then(|l| l.as_object_mut())
    {
        labels.remove("pod-template-hash");
    }
    Some(
        deployment
            .at("/spec/template")
            .is_some_and(|t| *t != template),
    )
}
