//! Objects that are gone but whose events remain: a Job that failed and was
//! then deleted (by its `ttlSecondsAfterFinished`, or by hand) leaves its
//! Warning events behind for an hour (the API server's default event TTL).
//! They are the only evidence of the failure, so `why` on the missing name
//! and a sweep read them. Pure.

use crate::verdict::Judged;
use std::collections::{HashMap, HashSet};

use jiff::SignedDuration;

use super::{Cause, Diagnosis, Link, NextStep, events};
use crate::model::{Event, ObjectRef, age};
use crate::verdict::reason::{Reason, Workload};
use crate::verdict::{Item, Judgement, Verdict};

/// How long a sweep reports the failure of a run that has been deleted.
pub const GONE_FAILURE_WINDOW: SignedDuration = SignedDuration::from_mins(15);

/// The reasons with which the Job controller gives a Job up.
const JOB_FAILED: &[Workload] = &[
    Workload::BackoffLimitExceeded,
    Workload::DeadlineExceeded,
    Workload::PodFailurePolicy,
    Workload::MaxFailedIndexesExceeded,
    Workload::FailedIndexes,
];

/// The Warning event that says a Job failed for good.
fn job_failure(e: &Event) -> bool {
    e.is_warning() && e.regarding_kind == "Job" && JOB_FAILED.iter().any(|r| r.as_str() == e.reason)
}

/// The remaining events of a name that does not exist (any more).
fn events_of_gone<'s>(snap: &'s Judged<'_>, id: &ObjectRef) -> Vec<&'s Event> {
    snap.events
        .iter()
        .filter(|e| {
            e.regarding_kind == id.kind
                && e.regarding_name == id.name
                && (id.namespace.is_none()
                    || e.regarding_namespace.is_empty()
                    || Some(e.regarding_namespace.as_str()) == id.namespace.as_deref())
                && snap.get(&e.regarding_uid).is_none()
        })
        .collect()
}

/// Whether a Job of this name failed for good and was then deleted (its
/// events say so): `wait` on it fails at once, as `why` finds.
pub fn failed_then_deleted(snap: &Judged<'_>, id: &ObjectRef) -> bool {
    events_of_gone(snap, id).into_iter().any(job_failure)
}

/// `why` on a name that does not exist: what its remaining events say.
pub fn missing(snap: &Judged<'_>, id: &ObjectRef) -> Diagnosis {
    let mine = events_of_gone(snap, id);
    let close = snap.close_name(id);
    let mut d = bare(Item::missing_near(id, close));
    if mine.is_empty() {
        d.next_steps = vec![match close {
            Some(close) => NextStep::new(
                format!(
                    "Check the name: {close} is a {} of that namespace.",
                    id.kind
                ),
                vec![format!(
                    "kubectl reconcile{} why {}/{close}",
                    id.namespace
                        .as_deref()
                        .map(|ns| format!(" -n {ns}"))
                        .unwrap_or_default(),
                    match id.group() {
                        "" => id.kind.to_ascii_lowercase(),
                        group => format!("{}.{group}", id.kind.to_ascii_lowercase()),
                    }
                )],
            ),
            None => NextStep::new(
                "Check the name and namespace; it may have been deleted.",
                vec![],
            ),
        }];
        return d;
    }
    let uids: HashSet<&str> = mine.iter().map(|e| e.regarding_uid.as_str()).collect();
    d.events = events::timeline(snap, &uids);
    d.events_note = None;
    let failure = mine
        .iter()
        .filter(|e| job_failure(e))
        .max_by_key(|e| e.last_seen);
    match failure {
        Some(e) => {
            d.item
                .judgement
                .message
                .push_str(&format!("; it {}", failed_and_gone(snap, e)));
            d.next_steps = vec![gone_step(id)];
        }
        None => {
            let last = mine.iter().filter_map(|e| e.last_seen).max();
            let when = last
                .map(|t| format!(" (its last event {} ago)", age(snap.now, t)))
                .unwrap_or_default();
            d.item.judgement.message.push_str(&format!(
                "; it existed and has been deleted{when}: its events are below"
            ));
            d.next_steps = vec![NextStep::new(
                "It has been deleted: read its events (below) for what happened before, and re-create it if it is still wanted.",
                vec![],
            )];
        }
    }
    d
}

/// The recent final failures of Jobs that are gone, one item each, for a
/// sweep: a namespace whose failed Job was cleaned up is not converged
/// while the failure is recent. A Job of an existing CronJob is its
/// CronJob's to judge, and a Job re-created under the same name supersedes
/// the failure.
pub fn failed_and_deleted(snap: &Judged<'_>) -> Vec<Diagnosis> {
    let mut latest: HashMap<(&str, &str), &Event> = HashMap::new();
    for e in snap.events.iter().filter(|e| job_failure(e)) {
        let recent = e
            .last_seen
            .is_some_and(|t| snap.now.duration_since(t) <= GONE_FAILURE_WINDOW);
        if !recent || snap.get(&e.regarding_uid).is_some() {
            continue;
        }
        let ns = e.regarding_namespace.as_str();
        let present = snap.objects().iter().any(|o| {
            o.namespace() == Some(ns)
                && ((o.kind() == "Job" && o.name() == e.regarding_name)
                    || (o.kind() == "CronJob" && scheduled_by(&e.regarding_name, o.name())))
        });
        if present {
            continue;
        }
        let slot = latest.entry((ns, e.regarding_name.as_str())).or_insert(e);
        if e.last_seen > slot.last_seen {
            *slot = e;
        }
    }
    let mut out: Vec<Diagnosis> = latest
        .into_values()
        .map(|e| {
            let id = e.regarding();
            let mut item = Item::missing(&id);
            item.judgement = Judgement::new(
                Verdict::Failed,
                Reason::of(&e.reason),
                failed_and_gone(snap, e),
            )
            .since(e.last_seen);
            let mut d = bare(item.clone());
            let cause = Cause {
                verdict: Verdict::Failed,
                reason: item.judgement.reason.clone(),
                message: item.judgement.message.clone(),
                count: 1,
                objects: vec![id.clone()],
            };
            d.chain = vec![Link {
                object: Some(id.clone()),
                edge: None,
                container: None,
                verdict: Some(Verdict::Failed),
                reason: Reason::of(&e.reason),
                message: e.message.clone(),
            }];
            d.causes = vec![cause.clone()];
            d.root_cause = Some(cause);
            let uids = HashSet::from([e.regarding_uid.as_str()]);
            d.events = events::timeline(snap, &uids);
            d.next_steps = vec![gone_step(&id)];
            d
        })
        .collect();
    out.sort_by(|a, b| {
        (&a.item.object.namespace, &a.item.object.name)
            .cmp(&(&b.item.object.namespace, &b.item.object.name))
    });
    out
}

/// A CronJob names its Jobs `<cronjob>-<scheduled time in minutes>`.
fn scheduled_by(job: &str, cronjob: &str) -> bool {
    job.strip_prefix(cronjob)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// `failed (BackoffLimitExceeded: …) 40s ago and has been deleted …`.
fn failed_and_gone(snap: &Judged<'_>, e: &Event) -> String {
    let when = e
        .last_seen
        .map(|t| format!(" {} ago", age(snap.now, t)))
        .unwrap_or_default();
    format!(
        "failed ({}: {}){when} and has been deleted (ttlSecondsAfterFinished, or by hand); only its events remain",
        e.reason, e.message
    )
}

fn gone_step(id: &ObjectRef) -> NextStep {
    let ns = id
        .namespace
        .as_deref()
        .map(|n| format!("kubectl -n {n}"))
        .unwrap_or_else(|| "kubectl".into());
    NextStep::new(
        format!(
            "{} {} failed and was deleted, and its pods and their logs with it: read its events for the cause, fix it, and run it again (a longer ttlSecondsAfterFinished keeps a failed run to inspect).",
            id.kind, id.name
        ),
        vec![format!(
            "{ns} get events --field-selector involvedObject.name={}",
            id.name
        )],
    )
}

/// A diagnosis of an item with nothing else known.
fn bare(item: Item) -> Diagnosis {
    Diagnosis {
        item,
        generation_check: None,
        conditions: vec![],
        root_cause: None,
        chain: vec![],
        causes: vec![],
        findings: vec![],
        events: vec![],
        events_note: None,
        next_steps: vec![],
        controller: None,
        same_cause: vec![],
        members: HashSet::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Snapshot;
    use serde_json::json;

    use super::*;
    use crate::model::Object;

    const NOW: &str = "2026-12-01T10:42:00Z";

    /// Events as the Job controller writes them (core/v1).
    fn event(job: &str, uid: &str, reason: &str, type_: &str, last: &str) -> Event {
        Event::from_value(&json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{job}.{reason}"), "namespace": "ttl", "uid": format!("e-{job}-{reason}")},
            "involvedObject": {"apiVersion": "batch/v1", "kind": "Job", "name": job, "namespace": "ttl", "uid": uid},
            "type": type_, "reason": reason, "message": if reason == "BackoffLimitExceeded" { "Job has reached the specified backoff limit" } else { "Created pod: x" },
            "count": 1, "lastTimestamp": last, "source": {"component": "job-controller"}}))
        .unwrap()
    }

    fn snapshot(objects: Vec<Object>, events: Vec<Event>) -> Snapshot {
        Snapshot::new(objects, events, vec![], NOW.parse().unwrap())
    }

    fn failed(job: &str, uid: &str, last: &str) -> Vec<Event> {
        vec![
            event(job, uid, "SuccessfulCreate", "Normal", last),
            event(job, uid, "BackoffLimitExceeded", "Warning", last),
        ]
    }

    #[test]
    fn a_sweep_reports_a_recent_failure_of_a_deleted_job() {
        let snap = snapshot(vec![], failed("seed-data", "j1", "2026-12-01T10:41:20Z"));
        let gone = failed_and_deleted(&Judged::builtin(&snap));
        assert_eq!(gone.len(), 1);
        let d = &gone[0];
        assert_eq!(
            (d.item.judgement.verdict, d.item.judgement.reason.as_str()),
            (Verdict::Failed, "BackoffLimitExceeded")
        );
        assert_eq!(d.item.object.name, "seed-data");
        assert_eq!(
            d.item.judgement.message,
            "failed (BackoffLimitExceeded: Job has reached the specified backoff limit) 40s ago and has been deleted (ttlSecondsAfterFinished, or by hand); only its events remain"
        );
        assert_eq!(
            d.root_cause.as_ref().unwrap().reason,
            "BackoffLimitExceeded"
        );
        assert!(
            d.next_steps[0].commands[0].contains(
                "kubectl -n ttl get events --field-selector involvedObject.name=seed-data"
            )
        );
    }

    #[test]
    fn old_failures_recreated_jobs_and_cronjob_runs_are_not_reported() {
        // Older than the window.
        let old = snapshot(vec![], failed("seed-data", "j1", "2026-12-01T10:20:00Z"));
        assert!(failed_and_deleted(&Judged::builtin(&old)).is_empty());
        // Re-created under the same name: the new Job is judged instead.
        let job = Object::from_value(json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "seed-data", "namespace": "ttl", "uid": "j2"}}))
        .unwrap();
        let again = snapshot(vec![job], failed("seed-data", "j1", "2026-12-01T10:41:20Z"));
        assert!(failed_and_deleted(&Judged::builtin(&again)).is_empty());
        // A run of an existing CronJob is the CronJob's to judge.
        let cron = Object::from_value(json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "nightly", "namespace": "ttl", "uid": "c1"}}))
        .unwrap();
        let run = snapshot(
            vec![cron],
            failed("nightly-29412345", "j3", "2026-12-01T10:41:20Z"),
        );
        assert!(failed_and_deleted(&Judged::builtin(&run)).is_empty());
        // A Normal event alone says nothing failed.
        let fine = snapshot(
            vec![],
            vec![event(
                "seed",
                "j4",
                "SuccessfulCreate",
                "Normal",
                "2026-12-01T10:41:20Z",
            )],
        );
        assert!(failed_and_deleted(&Judged::builtin(&fine)).is_empty());
    }

    #[test]
    fn why_on_a_deleted_job_tells_its_failure_from_its_events() {
        let snap = snapshot(vec![], failed("seed-data", "j1", "2026-12-01T10:41:20Z"));
        let id = ObjectRef {
            api_version: "batch/v1".into(),
            kind: "Job".into(),
            namespace: Some("ttl".into()),
            name: "seed-data".into(),
            uid: None,
        };
        let d = missing(&Judged::builtin(&snap), &id);
        assert_eq!(d.item.judgement.verdict, Verdict::NotFound);
        assert!(d.item.judgement.message.ends_with("; it failed (BackoffLimitExceeded: Job has reached the specified backoff limit) 40s ago and has been deleted (ttlSecondsAfterFinished, or by hand); only its events remain"), "{}", d.item.judgement.message);
        assert_eq!(d.events.len(), 2, "{:?}", d.events);
        assert!(
            d.next_steps[0]
                .text
                .starts_with("Job seed-data failed and was deleted")
        );
        // A name nothing is known of.
        let unknown = missing(&Judged::builtin(&snapshot(vec![], vec![])), &id);
        assert!(unknown.events.is_empty());
        assert_eq!(
            unknown.next_steps[0].text,
            "Check the name and namespace; it may have been deleted."
        );
    }
}
