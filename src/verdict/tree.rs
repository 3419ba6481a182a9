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
//! Over a Converged object, a current descendant still under way makes the
//! tree Progressing (a ClusterExternalSecret whose ExternalSecret is still
//! retrying), except a Job: a run is its owner's steady work.
//!
//! A child is finally Failed when its verdict is Failed, and for a pod
//! when it has failed hard for the failure grace (3 minutes, or
//! `--failure-grace`; at once under `--fail-fast`). Pure; the walk is
//! bounded by depth and by [`MAX_JUDGED`] objects.

use std::collections::{HashMap, VecDeque};

use super::kinds::pods;
use super::{Judged, Judgement, Reason, Verdict, judge};
use crate::model::{Object, ObjectRef};

/// At most this many descendants are judged for one tree's verdict: as
/// many as one tree answer draws (`report::MAX_TREE_OBJECTS`), so a tree
/// that is drawn is judged whole.
pub const MAX_JUDGED: usize = 50_000;

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
    // The newest child of each revision kind, in one pass: an owner of
    // thousands of Jobs costs a pass, not a pass per Job.
    let mut newest: HashMap<(&str, &str), &Object> = HashMap::new();
    for c in children.iter().copied().filter(|c| is_revision(c)) {
        let slot = newest.entry((c.group(), c.kind())).or_insert(c);
        if (c.created, c.name()) > (slot.created, slot.name()) {
            *slot = c;
        }
    }
    children
        .iter()
        .copied()
        .filter(|c| {
            if is_revision(c)
                && newest
                    .get(&(c.group(), c.kind()))
                    .is_some_and(|n| n.uid != c.uid)
            {
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

/// Whether a child's verdict `j` is final: Failed, and for a pod, failed
/// hard past the failure grace.
fn finally_failed(child: &Object, j: Judgement, snap: &Judged<'_>) -> Option<Judgement> {
    if child.kind() == "Pod" && child.group().is_empty() {
        return pods::finally_failed(child, snap);
    }
    (j.verdict == Verdict::Failed).then_some(j)
}

/// The tree's verdict where it differs from the object's own: Failed,
/// naming the first current descendant (nearest first) that has finally
/// failed, over an own verdict of Converged, Progressing or Unknown; else,
/// over Converged, Progressing, naming the first current descendant still
/// under way (a run, a Job, excepted: it is its owner's steady work).
/// `None` when the tree says what the object says.
pub fn of(obj: &Object, own: &Judgement, snap: &Judged<'_>) -> Option<Judgement> {
    of_within(obj, own, snap, MAX_JUDGED)
}

/// [`of`], judging at most `cap` descendants.
fn of_within(obj: &Object, own: &Judgement, snap: &Judged<'_>, cap: usize) -> Option<Judgement> {
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
    let mut under_way: Option<(&Object, Judgement)> = None;
    let mut cut = false;
    'walk: while let Some((owner, depth)) = queue.pop_front() {
        if depth >= MAX_DEPTH {
            continue;
        }
        for child in current(snap, owner) {
            if judged >= cap {
                cut = true;
                break 'walk;
            }
            judged += 1;
            let j = judge(child, snap);
            if let Some(j) = finally_failed(child, j.clone(), snap) {
                return Some(below(&obj.id, own, child, &j, Verdict::Failed));
            }
            if j.verdict == Verdict::Progressing && under_way.is_none() && !is_run(child) {
                under_way = Some((child, j));
            }
            queue.push_back((child, depth + 1));
        }
    }
    match under_way {
        Some((child, j)) if own.verdict == Verdict::Converged => {
            Some(below(&obj.id, own, child, &j, Verdict::Progressing))
        }
        // Past the bound, what was not judged could hide a failure: never
        // an all clear.
        None if cut && own.verdict == Verdict::Converged => Some(Judgement::new(
            Verdict::Unknown,
            Reason::of("TreeCut"),
            format!(
                "its tree holds more than {cap} current objects; those judged say nothing wrong, the rest were not judged; {} {} itself is {} ({})",
                obj.kind(),
                obj.name(),
                own.verdict,
                own.reason
            ),
        )),
        _ => None,
    }
}

/// The tree's verdict of `owner` (known by its row, its object not kept:
/// a sweep's settled root) from one current child of it, by the rules of
/// [`of`]: Failed over a child finally failed, Progressing over Converged
/// for a child under way.
pub fn from_child(
    owner: &ObjectRef,
    own: &Judgement,
    child: &Object,
    snap: &Judged<'_>,
) -> Option<Judgement> {
    if !matches!(
        own.verdict,
        Verdict::Converged | Verdict::Progressing | Verdict::Unknown
    ) {
        return None;
    }
    let j = judge(child, snap);
    if let Some(j) = finally_failed(child, j.clone(), snap) {
        return Some(below(owner, own, child, &j, Verdict::Failed));
    }
    (own.verdict == Verdict::Converged && j.verdict == Verdict::Progressing && !is_run(child))
        .then(|| below(owner, own, child, &j, Verdict::Progressing))
}

/// A Job: a run its owner starts on a schedule or on demand.
fn is_run(o: &Object) -> bool {
    o.group() == "batch" && o.kind() == "Job"
}

/// The tree's verdict from a child's: its reason, its message, and what
/// the object says of itself.
fn below(
    obj: &ObjectRef,
    own: &Judgement,
    child: &Object,
    j: &Judgement,
    verdict: Verdict,
) -> Judgement {
    let mut out = Judgement::new(
        verdict,
        j.reason.clone(),
        format!(
            "{} {} is {} ({}): {}; {} {} itself is {} ({})",
            child.kind(),
            child.name(),
            j.verdict,
            j.reason,
            j.message,
            obj.kind,
            obj.name,
            own.verdict,
            own.reason
        ),
    )
    .since(j.since);
    out.ready = own.ready;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Snapshot;
    use crate::testutil::load;
    use crate::verdict::{Judge, Judged};
    use jiff::SignedDuration;
    use serde_json::{Value, json};

    fn obj(v: Value) -> Object {
        Object::from_value(v).unwrap()
    }

    fn tree_of(snap: &Judged<'_>, o: &Object) -> (Judgement, Option<Judgement>) {
        let own = judge(o, snap);
        let tree = of(o, &own, snap);
        (own, tree)
    }

    #[test]
    fn a_ready_parent_over_a_child_that_retries_then_fails_is_not_converged() {
        // Captured: ESO's ClusterExternalSecret says Ready (it made its
        // ExternalSecret); the ExternalSecret cannot sync since 04:24:56.
        for (now, verdict, said) in [
            (
                "2026-12-06T04:25:30Z",
                Verdict::Progressing,
                "ExternalSecret api-token is Progressing (SecretSyncedError)",
            ),
            (
                "2026-12-06T04:28:00Z",
                Verdict::Failed,
                "ExternalSecret api-token is Failed (SecretSyncedError)",
            ),
        ] {
            let (snap, ces) = load("clusterexternalsecret-over-failing-child.yaml", now);
            let (own, tree) = tree_of(&Judged::builtin(&snap), &ces);
            assert_eq!(own.verdict, Verdict::Converged, "{now}");
            let tree = tree.unwrap_or_else(|| panic!("{now}: no tree verdict"));
            assert_eq!(tree.verdict, verdict, "{now}: {}", tree.message);
            assert!(tree.message.starts_with(said), "{}", tree.message);
            assert!(
                tree.message
                    .ends_with("ClusterExternalSecret api-token itself is Converged (Ready)"),
                "{}",
                tree.message
            );
        }
    }

    /// A Deployment `web` with its newest ReplicaSet and that set's pods.
    fn rollout(pods: Vec<Value>, deploy_status: Value) -> Vec<Object> {
        let mut out = vec![
            obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "shop", "uid": "d", "generation": 2,
                    "creationTimestamp": "2026-11-29T21:00:00Z"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "web:2"}]}}},
                "status": deploy_status})),
            obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-2", "namespace": "shop", "uid": "rs2", "generation": 1,
                    "creationTimestamp": "2026-11-29T22:00:00Z",
                    "annotations": {"deployment.kubernetes.io/revision": "2"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d", "controller": true}]},
                "spec": {"replicas": 1},
                "status": {"observedGeneration": 1, "replicas": 1, "readyReplicas": 1, "availableReplicas": 1}})),
            // The old revision, scaled to zero by the rollout.
            obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-1", "namespace": "shop", "uid": "rs1", "generation": 2,
                    "creationTimestamp": "2026-11-29T21:00:00Z",
                    "annotations": {"deployment.kubernetes.io/revision": "1"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d", "controller": true}]},
                "spec": {"replicas": 0},
                "status": {"observedGeneration": 2, "replicas": 0}})),
        ];
        out.extend(pods.into_iter().map(obj));
        out
    }

    fn pod(name: &str, owner: &str, status: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "uid": name, "creationTimestamp": "2026-11-29T22:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "uid": owner, "controller": true}]},
            "spec": {"nodeName": "kwok-node-1", "containers": [{"name": "web", "image": "web:2"}]},
            "status": status})
    }

    fn ready() -> Value {
        json!({"phase": "Running", "startTime": "2026-11-29T22:00:00Z",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T22:00:10Z"}],
            "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "image": "web:2",
                "state": {"running": {"startedAt": "2026-11-29T22:00:05Z"}}}]})
    }

    const CONVERGED: fn() -> Value = || {
        json!({"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
            "availableReplicas": 1, "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "lastTransitionTime": "2026-11-29T22:00:10Z"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "lastTransitionTime": "2026-11-29T22:00:10Z"}]})
    };

    #[test]
    fn history_never_fails_a_healthy_tree() {
        // An evicted pod left behind by the current ReplicaSet, beside its
        // replacement; the old ReplicaSet scaled to zero.
        let evicted = json!({"phase": "Failed", "reason": "Evicted",
            "message": "The node was low on resource: memory.",
            "startTime": "2026-11-29T22:00:00Z"});
        let objects = rollout(
            vec![
                pod("web-2-a", "rs2", evicted),
                pod("web-2-b", "rs2", ready()),
            ],
            CONVERGED(),
        );
        let snap = Snapshot::new(
            objects,
            vec![],
            vec![],
            "2026-11-29T22:30:00Z".parse().unwrap(),
        );
        let judged = Judged::builtin(&snap);
        let (own, tree) = tree_of(&judged, snap.get("d").unwrap());
        assert_eq!(own.verdict, Verdict::Converged, "{}", own.message);
        assert_eq!(tree, None);
        // The old revision's children are not current either.
        assert_eq!(
            current(&judged, snap.get("d").unwrap())
                .iter()
                .map(|o| o.name())
                .collect::<Vec<_>>(),
            ["web-2"]
        );
    }

    #[test]
    fn a_failing_pod_under_a_converged_set_fails_the_tree_after_the_failure_grace() {
        // The current ReplicaSet's pod cannot pull its image: the tree
        // waits out the failure grace (3m; at once under --fail-fast).
        let pulling = json!({"phase": "Pending", "startTime": "2026-11-29T22:00:00Z",
            "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastTransitionTime": "2026-11-29T22:28:00Z"}],
            "containerStatuses": [{"name": "web", "ready": false, "restartCount": 0, "image": "web:2",
                "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"web:2\""}}}]});
        let objects = rollout(
            vec![
                pod("web-2-b", "rs2", ready()),
                pod("web-2-c", "rs2", pulling),
            ],
            CONVERGED(),
        );
        for (now, grace, want) in [
            ("2026-11-29T22:29:00Z", None, None),
            ("2026-11-29T22:32:00Z", None, Some(Verdict::Failed)),
            (
                "2026-11-29T22:29:00Z",
                Some(SignedDuration::ZERO),
                Some(Verdict::Failed),
            ),
        ] {
            let snap = Snapshot::new(objects.clone(), vec![], vec![], now.parse().unwrap());
            let judge = Judge {
                failure_grace: grace,
                ..Judge::builtin().clone()
            };
            let judged = judge.on(&snap);
            let (_, tree) = tree_of(&judged, snap.get("d").unwrap());
            assert_eq!(
                tree.as_ref().map(|t| t.verdict),
                want,
                "{now} {grace:?}: {tree:?}"
            );
            if let Some(t) = tree {
                assert!(
                    t.message
                        .starts_with("Pod web-2-c is Failed (ImagePullBackOff)"),
                    "{}",
                    t.message
                );
            }
        }
    }

    #[test]
    fn a_cronjob_s_older_failed_run_is_history_and_a_run_under_way_is_its_work() {
        let job = |name: &str, created: &str, status: Value| {
            obj(json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": name, "namespace": "shop", "uid": name, "creationTimestamp": created,
                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "report", "uid": "cj", "controller": true}]},
                "spec": {"template": {"spec": {"containers": [{"name": "r", "image": "r:1"}]}}},
                "status": status}))
        };
        let cronjob = obj(json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "report", "namespace": "shop", "uid": "cj", "generation": 1,
                "creationTimestamp": "2026-11-29T20:00:00Z"},
            "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {}}},
            "status": {"lastScheduleTime": "2026-11-29T22:00:00Z", "lastSuccessfulTime": "2026-11-29T22:01:00Z"}}));
        let failed = job(
            "report-1",
            "2026-11-29T21:00:00Z",
            json!({"failed": 1, "conditions": [
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "lastTransitionTime": "2026-11-29T21:05:00Z"}]}),
        );
        let done = job(
            "report-2",
            "2026-11-29T22:00:00Z",
            json!({"succeeded": 1, "completionTime": "2026-11-29T22:01:00Z", "conditions": [
            {"type": "Complete", "status": "True", "lastTransitionTime": "2026-11-29T22:01:00Z"}]}),
        );
        let snap = Snapshot::new(
            vec![cronjob, failed, done],
            vec![],
            vec![],
            "2026-11-29T22:30:00Z".parse().unwrap(),
        );
        let judged = Judged::builtin(&snap);
        let (own, tree) = tree_of(&judged, snap.get("cj").unwrap());
        assert_eq!(own.verdict, Verdict::Converged, "{}", own.message);
        assert_eq!(tree, None);
    }

    #[test]
    fn a_tree_past_the_bound_is_never_an_all_clear() {
        // A converged Deployment whose ReplicaSet's pods are all ready:
        // judged whole, nothing to say; cut after two, Unknown, TreeCut.
        let objects = rollout(
            vec![
                pod("web-2-a", "rs2", ready()),
                pod("web-2-b", "rs2", ready()),
            ],
            CONVERGED(),
        );
        let snap = Snapshot::new(
            objects,
            vec![],
            vec![],
            "2026-11-29T22:30:00Z".parse().unwrap(),
        );
        let judged = Judged::builtin(&snap);
        let d = snap.get("d").unwrap();
        let own = judge(d, &judged);
        assert_eq!(own.verdict, Verdict::Converged, "{}", own.message);
        assert_eq!(of_within(d, &own, &judged, 10), None);
        let cut = of_within(d, &own, &judged, 2).expect("a verdict of the cut tree");
        assert_eq!(
            (cut.verdict, cut.reason.as_str()),
            (Verdict::Unknown, "TreeCut")
        );
        assert!(
            cut.message.contains("more than 2 current objects"),
            "{}",
            cut.message
        );
    }
}
