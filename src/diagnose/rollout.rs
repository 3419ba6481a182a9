//! Rollouts read as rollouts: a StatefulSet's update revision against its
//! current one, the partition and the ordinal that blocks the rest; a
//! Deployment with `maxUnavailable: 0` keeping its old pods because the
//! new one is not ready.

use serde_json::Value;

use super::findings::Finding;
use crate::model::{Object, Snapshot};

pub fn rollout(snap: &Snapshot, target: &Object) -> Option<Finding> {
    match (target.group(), target.kind()) {
        ("apps", "StatefulSet") => statefulset(snap, target),
        ("apps", "Deployment") => deployment(snap, target),
        _ => None,
    }
}

fn ready(pod: &Object) -> bool {
    pod.condition("Ready").is_some_and(|c| c.is_true())
}

fn owned_by<'a>(snap: &'a Snapshot, owner: &Object, kind: &str) -> Vec<&'a Object> {
    snap.objects()
        .iter()
        .filter(|o| o.kind() == kind && o.controller().is_some_and(|c| c.uid == owner.uid))
        .collect()
}

fn ordinal(pod: &Object) -> i64 {
    pod.labels
        .get("apps.kubernetes.io/pod-index")
        .and_then(|i| i.parse().ok())
        .or_else(|| pod.name().rsplit('-').next().and_then(|i| i.parse().ok()))
        .unwrap_or(-1)
}

fn statefulset(snap: &Snapshot, sts: &Object) -> Option<Finding> {
    let current = sts.str("/status/currentRevision")?;
    let update = sts.str("/status/updateRevision")?;
    if current == update || sts.str("/spec/updateStrategy/type") == Some("OnDelete") {
        return None;
    }
    let replicas = sts.int("/spec/replicas").unwrap_or(1);
    let updated = sts.int("/status/updatedReplicas").unwrap_or(0);
    let partition = sts
        .int("/spec/updateStrategy/rollingUpdate/partition")
        .unwrap_or(0);
    let mut message = format!(
        "rolling out revision {update} (current {current}): {updated} of {replicas} pods updated, partition {partition}"
    );
    let mut pods = owned_by(snap, sts, "Pod");
    // The controller updates from the highest ordinal down, one at a time.
    pods.sort_by_key(|p| std::cmp::Reverse(ordinal(p)));
    let ordered = sts
        .str("/spec/podManagementPolicy")
        .unwrap_or("OrderedReady")
        == "OrderedReady";
    let blocking = pods
        .iter()
        .find(|p| ordinal(p) >= partition && !ready(p))
        .copied();
    let mut objects = vec![sts.id.clone()];
    if let Some(pod) = blocking {
        let revision = pod
            .labels
            .get("controller-revision-hash")
            .map(String::as_str)
            .unwrap_or("?");
        let which = if revision == update { "updated" } else { "old" };
        message.push_str(&format!(
            "; pod {} ({which} revision) is not ready, which blocks the pods below it",
            pod.name()
        ));
        if ordered {
            message.push_str(" (podManagementPolicy OrderedReady)");
        }
        objects.push(pod.id.clone());
    } else if partition > 0 && updated + partition >= replicas {
        message.push_str("; the pods below the partition keep the old revision on purpose");
    }
    Some(Finding {
        reason: "Rollout".into(),
        message,
        objects,
    })
}

fn deployment(snap: &Snapshot, deploy: &Object) -> Option<Finding> {
    let max_unavailable = deploy.at("/spec/strategy/rollingUpdate/maxUnavailable")?;
    let zero = match max_unavailable {
        Value::Number(n) => n.as_i64() == Some(0),
        Value::String(s) => s == "0" || s == "0%",
        _ => false,
    };
    if !zero {
        return None;
    }
    let revision = |o: &Object| {
        o.str("/metadata/annotations/deployment.kubernetes.io~1revision")
            .map(str::to_string)
    };
    let current = revision(deploy)?;
    let sets = owned_by(snap, deploy, "ReplicaSet");
    let new = sets
        .iter()
        .find(|rs| revision(rs).as_ref() == Some(&current))?;
    let old: Vec<&&Object> = sets
        .iter()
        .filter(|rs| rs.uid != new.uid && rs.int("/status/replicas").unwrap_or(0) > 0)
        .collect();
    let waiting: Vec<&Object> = owned_by(snap, new, "Pod")
        .into_iter()
        .filter(|p| !ready(p))
        .collect();
    let (old_rs, pod) = (old.first()?, waiting.first()?);
    Some(Finding {
        reason: "Rollout".into(),
        message: format!(
            "maxUnavailable is 0, so the old ReplicaSet {} keeps its {} pod(s) until new pods are ready, and the new pod {} is not ready (see the root cause)",
            old_rs.name(),
            old_rs.int("/status/replicas").unwrap_or(0),
            pod.name()
        ),
        objects: vec![old_rs.id.clone(), pod.id.clone()],
    })
}
