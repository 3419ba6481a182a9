//! Rollouts read as rollouts: a StatefulSet's update revision against its
//! current one, the partition and the ordinal that blocks the rest; a
//! Deployment with `maxUnavailable: 0` keeping its old pods because the
//! new one is not ready.

use crate::verdict::Judged;
use serde_json::Value;

use super::findings::Finding;
use crate::model::{Object, Snapshot};
use crate::verdict::reason::Aside;

pub fn rollout(snap: &Judged<'_>, target: &Object) -> Option<Finding> {
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

fn statefulset(snap: &Judged<'_>, sts: &Object) -> Option<Finding> {
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
        reason: Aside::Rollout.into(),
        message,
        objects,
    })
}

fn deployment(snap: &Judged<'_>, deploy: &Object) -> Option<Finding> {
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
        reason: Aside::Rollout.into(),
        message: format!(
            "maxUnavailable is 0, so the old ReplicaSet {} keeps its {} pod(s) until new pods are ready, and the new pod {} is not ready (see the root cause)",
            old_rs.name(),
            old_rs.int("/status/replicas").unwrap_or(0),
            pod.name()
        ),
        objects: vec![old_rs.id.clone(), pod.id.clone()],
    })
}

/// A workload's revisions, newest first: (number, the object that keeps
/// it, its pod template). A Deployment keeps each in a ReplicaSet (the
/// `deployment.kubernetes.io/revision` annotation, the ReplicaSet's
/// template); a StatefulSet or DaemonSet in a ControllerRevision
/// (`revision`, and the template under `data.spec.template`).
pub fn revisions<'a>(
    snap: &'a Snapshot,
    workload: &Object,
) -> Vec<(i64, &'a Object, Option<&'a Value>)> {
    type Number = fn(&Object) -> Option<i64>;
    let (kind, number, template): (&str, Number, &str) = match (workload.group(), workload.kind()) {
        ("apps", "Deployment") => (
            "ReplicaSet",
            |o| {
                o.str("/metadata/annotations/deployment.kubernetes.io~1revision")?
                    .parse()
                    .ok()
            },
            "/spec/template",
        ),
        ("apps", "StatefulSet" | "DaemonSet") => (
            "ControllerRevision",
            |o| o.int("/revision"),
            "/data/spec/template",
        ),
        _ => return Vec::new(),
    };
    let mut out: Vec<(i64, &Object, Option<&Value>)> = owned_by(snap, workload, kind)
        .into_iter()
        .filter_map(|o| Some((number(o)?, o, o.at(template))))
        .collect();
    out.sort_by_key(|(r, _, _)| std::cmp::Reverse(*r));
    out
}

/// The revision to go back to from the newest: the newest older one that
/// still runs pods (a Deployment's ReplicaSet with replicas; a
/// StatefulSet's `status.currentRevision` while an update is under way),
/// else the one just before the newest.
pub fn way_back<'a>(
    snap: &'a Snapshot,
    workload: &Object,
) -> Option<(i64, &'a Object, Option<&'a Value>)> {
    let kept = revisions(snap, workload);
    let older = kept.get(1..)?;
    let running = match workload.kind() {
        "Deployment" => older
            .iter()
            .find(|(_, rs, _)| rs.int("/status/replicas").unwrap_or(0) > 0),
        "StatefulSet" => {
            let current = workload.str("/status/currentRevision");
            older
                .iter()
                .find(|(_, cr, _)| Some(cr.name()) == current)
                .filter(|_| current != workload.str("/status/updateRevision"))
        }
        _ => None,
    };
    running.or(older.first()).copied()
}

/// What the newest revision of a workload (Deployment, StatefulSet,
/// DaemonSet) changed in the pod template, against the revision before
/// it: the first question when a rollout breaks. `who`: who last changed
/// the spec, and when, from managedFields.
pub fn what_changed(snap: &Judged<'_>, workload: &Object, who: Option<String>) -> Option<Finding> {
    let sets = revisions(snap, workload);
    let (new_rev, new, new_template) = *sets.first()?;
    let (old_rev, old, old_template) = way_back(snap, workload)?;
    // Said when revisions in between are skipped: they never ran either.
    let ran = if sets.get(1).is_some_and(|(n, _, _)| *n != old_rev) {
        ", the last that ran"
    } else {
        ""
    };
    let changes = template_changes(
        old_template.unwrap_or(&Value::Null),
        new_template.unwrap_or(&Value::Null),
    );
    if changes.is_empty() {
        return None;
    }
    const SHOWN: usize = 5;
    let mut listed: Vec<String> = changes.iter().take(SHOWN).cloned().collect();
    if changes.len() > SHOWN {
        listed.push(format!("and {} more", changes.len() - SHOWN));
    }
    let made = new
        .created
        .map(|at| format!(", made {} ago", crate::model::age(snap.now, at)))
        .unwrap_or_default();
    let by = who.map(|w| format!("; {w}")).unwrap_or_default();
    Some(Finding {
        reason: Aside::RolloutChange.into(),
        message: format!(
            "revision {new_rev} ({}/{}{made}{by}) changed the pod template of revision {old_rev}{ran}: {}; `kubectl rollout undo --to-revision={old_rev}` goes back to it",
            new.kind(),
            new.name(),
            listed.join("; ")
        ),
        objects: vec![new.id.clone(), old.id.clone()],
    })
}

/// The differences between two pod templates, in words: per container its
/// image, command, arguments, resources, probes and environment (names,
/// never values); then the pod's
/// own fields (service account, node selector, volumes, labels).
fn template_changes(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let text = |v: Option<&Value>| -> String {
        match v {
            None | Some(Value::Null) => "none".into(),
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
        }
    };
    for list in ["initContainers", "containers"] {
        let by_name = |t: &Value| -> Vec<(String, Value)> {
            t.pointer(&format!("/spec/{list}"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|c| {
                    (
                        c.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                            .to_string(),
                        c.clone(),
                    )
                })
                .collect()
        };
        let (before, after) = (by_name(old), by_name(new));
        for (name, c) in &after {
            let Some((_, was)) = before.iter().find(|(n, _)| n == name) else {
                out.push(format!("container {name} added"));
                continue;
            };
            for field in ["image", "command", "args", "resources"] {
                if was.get(field) != c.get(field) {
                    out.push(format!(
                        "container {name} {field} {} → {}",
                        text(was.get(field)),
                        text(c.get(field))
                    ));
                }
            }
            // Probes and envFrom in a word: their content is long, and an
            // envFrom names what holds values.
            for field in ["livenessProbe", "readinessProbe", "startupProbe", "envFrom"] {
                if was.get(field) != c.get(field) {
                    let how = match (was.get(field), c.get(field)) {
                        (None, Some(_)) => "added",
                        (Some(_), None) => "removed",
                        _ => "changed",
                    };
                    out.push(format!("container {name} {field} {how}"));
                }
            }
            let env = |c: &Value| -> Vec<(String, Value)> {
                c.get("env")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|e| {
                        (
                            e.get("name")
                                .and_then(Value::as_str)
                                .unwrap_or("?")
                                .to_string(),
                            e.clone(),
                        )
                    })
                    .collect()
            };
            let (e0, e1) = (env(was), env(c));
            for (k, v) in &e1 {
                match e0.iter().find(|(n, _)| n == k) {
                    None => out.push(format!("container {name} env {k} added")),
                    Some((_, w)) if w != v => out.push(format!("container {name} env {k} changed")),
                    _ => {}
                }
            }
            for (k, _) in e0.iter().filter(|(k, _)| !e1.iter().any(|(n, _)| n == k)) {
                out.push(format!("container {name} env {k} removed"));
            }
        }
        for (name, _) in before
            .iter()
            .filter(|(n, _)| !after.iter().any(|(m, _)| m == n))
        {
            out.push(format!("container {name} removed"));
        }
    }
    for field in [
        "serviceAccountName",
        "nodeSelector",
        "volumes",
        "affinity",
        "tolerations",
        "priorityClassName",
        "runtimeClassName",
    ] {
        let (a, b) = (
            old.pointer(&format!("/spec/{field}")),
            new.pointer(&format!("/spec/{field}")),
        );
        if a != b {
            out.push(format!("{field} changed"));
        }
    }
    for (what, at) in [
        ("label", "/metadata/labels"),
        ("annotation", "/metadata/annotations"),
    ] {
        let map = |t: &Value| -> serde_json::Map<String, Value> {
            let mut m = t
                .pointer(at)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            m.remove("pod-template-hash");
            m
        };
        let (a, b) = (map(old), map(new));
        for (k, v) in &b {
            match a.get(k) {
                None => out.push(format!("pod {what} {k}={} added", text(Some(v)))),
                Some(w) if w != v => out.push(format!(
                    "pod {what} {k} {} → {}",
                    text(Some(w)),
                    text(Some(v))
                )),
                _ => {}
            }
        }
        for k in a.keys().filter(|k| !b.contains_key(*k)) {
            out.push(format!("pod {what} {k} removed"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_template_change_is_said_field_by_field() {
        let old = json!({"metadata": {"labels": {"app": "web", "pod-template-hash": "a"}},
            "spec": {"containers": [{"name": "web", "image": "registry.example.com/web:1.4.2",
                "env": [{"name": "LOG", "value": "info"}, {"name": "OLD", "value": "1"}]}]}});
        let new = json!({"metadata": {"labels": {"app": "web", "pod-template-hash": "b"},
                "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-01-10T12:00:00Z"}},
            "spec": {"serviceAccountName": "web",
                "containers": [{"name": "web", "image": "registry.example.com/web:1.5.0",
                    "env": [{"name": "LOG", "value": "debug"}, {"name": "NEW", "value": "1"}],
                    "resources": {"limits": {"memory": "64Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}}},
                {"name": "proxy", "image": "envoy"}]}});
        assert_eq!(
            template_changes(&old, &new),
            vec![
                "container web image registry.example.com/web:1.4.2 → registry.example.com/web:1.5.0",
                "container web resources none → {\"limits\":{\"memory\":\"64Mi\"}}",
                "container web readinessProbe added",
                "container web env LOG changed",
                "container web env NEW added",
                "container web env OLD removed",
                "container proxy added",
                "serviceAccountName changed",
                "pod annotation kubectl.kubernetes.io/restartedAt=2026-01-10T12:00:00Z added",
            ]
        );
    }
}
