//! The quiet controller: when an object's status lags its spec, find the
//! controller that should act on it and judge that controller. The
//! evidence, cheapest first: who writes its status (managedFields), the
//! leader-election Lease that matches the kind's group or that manager, the
//! lease's holder pod and the workload that runs it. Built-in kinds are the
//! kube-controller-manager's, and a pod nobody schedules the
//! kube-scheduler's: their Leases in kube-system. Every match says how it
//! was made; nothing matched is said, not guessed. Pure.

use crate::verdict::Judged;
use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use crate::model::{Object, ObjectRef, Snapshot, age};
pub use crate::verdict::controller::CONTROL_PLANE_NAMESPACE;
#[cfg(test)]
use crate::verdict::controller::lags;
use crate::verdict::controller::{
    control_plane_lease, holder, holder_pod, is_lease, manager_names, matching_leases, named_like,
    renewal, status_manager, status_managers,
};
use crate::verdict::reason::Reason;
use crate::verdict::{Verdict, judge};

/// How long a lag may last before the controller behind it is looked at.
pub use crate::verdict::CONTROLLER_GRACE;

/// What was found out about the controller of a lagging object.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllerCheck {
    /// The status manager from managedFields, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manager: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease: Option<ObjectRef>,
    /// How the lease was matched to the object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renewed: Option<Timestamp>,
    /// Not renewed within its leaseDurationSeconds: the holder is not running.
    pub expired: bool,
    /// The workload that runs the holder pod, and its verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<ObjectRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_verdict: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_reason: Option<Reason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_message: Option<String>,
    /// The holder pod's failure (`its pod X is Failed (CrashLoopBackOff)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_failure: Option<String>,
    /// The controller is down: the lease expired, or its workload fails.
    pub down: bool,
    /// One sentence for people: what was found and how.
    pub summary: String,
}

/// Finds and judges the controller of `obj`, whose status lags. None when
/// no lease was read at all (the search did not run, or was forbidden:
/// a gap, never "down").
pub fn check(snap: &Judged<'_>, obj: &Object) -> Option<ControllerCheck> {
    let leases: Vec<&Object> = snap.objects().iter().filter(|o| is_lease(o)).collect();
    let manager = status_manager(obj);
    let written = manager
        .as_ref()
        .map(|(m, t)| format!("status last written {} ago by {m}", age(snap.now, *t)))
        .unwrap_or_else(|| "status never written".into());
    let mut check = ControllerCheck {
        manager: manager.as_ref().map(|(m, _)| m.clone()),
        ..ControllerCheck::default()
    };
    let Some((lease, how)) = matching_leases(&leases, obj).into_iter().next() else {
        if leases.is_empty() && !snap.absent.iter().any(|a| a.kind == "Lease") {
            return None;
        }
        let no_lease = format!(
            "no leader-election lease matches {} ({} lease(s) read)",
            obj.kind(),
            leases.len()
        );
        // An operator that holds no Lease: the workload named like a
        // manager that writes the status.
        let names = manager_names(obj);
        let workload = named_workload(snap, None, &names);
        let managers = status_managers(obj)
            .into_iter()
            .map(|(m, _)| m)
            .collect::<Vec<_>>()
            .join(", ");
        check.summary = match workload {
            Some(w) => {
                check.matched_by = Some(format!(
                    "{}/{}/{} is named like its status manager {managers}",
                    w.kind(),
                    w.namespace().unwrap_or_default(),
                    w.name()
                ));
                let mut summary = format!(
                    "{written}; {no_lease}; {}/{}/{} is named like its status manager",
                    w.kind(),
                    w.namespace().unwrap_or_default(),
                    w.name()
                );
                judge_workload(snap, w, &mut check, &mut summary);
                summary
            }
            None if names.is_empty() => {
                format!("{written}; {no_lease}: its controller is not found")
            }
            None if workloads_unread(snap) => format!(
                "{written}; {no_lease}, and the Deployments and StatefulSets that might run its status manager {managers} could not be read: its controller is not known"
            ),
            None => format!(
                "{written}; {no_lease}, and no Deployment or StatefulSet read is named like its status manager {managers}: its controller is not found"
            ),
        };
        return Some(check);
    };
    let mut judged = judge_lease(snap, lease, Some(&how), control_plane_lease(obj).is_some());
    judged.manager = check.manager;
    judged.summary = format!("{}; {written}", judged.summary);
    Some(judged)
}

/// Judges one leader-election Lease: renewed within its duration or not,
/// its holder pod and the workload that runs it, and their verdicts.
/// `how`: how it was matched to an object, when it was. `control_plane`:
/// a control-plane component's, whose holder is a host, not a pod.
pub fn judge_lease(
    snap: &Judged<'_>,
    lease: &Object,
    how: Option<&str>,
    control_plane: bool,
) -> ControllerCheck {
    let mut check = ControllerCheck::default();
    let (renewed, expired) = renewal(lease, snap.now);
    check.lease = Some(lease.id.clone());
    check.matched_by = how.map(str::to_string);
    check.holder = holder(lease).map(str::to_string);
    check.renewed = renewed;
    check.expired = expired;
    let pod_name = holder_pod(lease);
    // The holder pod in the lease's namespace, else wherever it runs (an
    // operator may hold a Lease in kube-system from its own namespace).
    let pod = pod_name.and_then(|p| {
        snap.find("", "Pod", lease.namespace(), p).or_else(|| {
            snap.objects()
                .iter()
                .find(|o| o.kind() == "Pod" && o.group().is_empty() && o.name() == p)
        })
    });
    let names: Vec<String> = pod_name.map(str::to_string).into_iter().collect();
    let workload = pod
        .and_then(|p| workload_of(snap, p))
        .or_else(|| named_workload(snap, lease.namespace(), &names));
    let lease_text = match how {
        Some(how) => format!(
            "lease {}/{} ({how})",
            lease.namespace().unwrap_or_default(),
            lease.name()
        ),
        None => format!(
            "lease {}/{}",
            lease.namespace().unwrap_or_default(),
            lease.name()
        ),
    };
    let renewed_text = match (renewed, expired) {
        (Some(t), true) => format!(
            "last renewed {} ago, longer than its {}s: its holder is not running",
            age(snap.now, t),
            lease.int("/spec/leaseDurationSeconds").unwrap_or(15)
        ),
        (Some(t), false) => format!("renewed {} ago", age(snap.now, t)),
        (None, _) => "never renewed".into(),
    };
    let held = match (check.holder.as_deref(), pod, workload) {
        (Some(h), ..) if control_plane => format!("held by {h}"),
        (Some(h), Some(p), Some(w)) => {
            format!("held by {h}: pod {} of {}/{}", p.name(), w.kind(), w.name())
        }
        (Some(h), None, Some(w)) => format!(
            "held by {h}; that pod is gone; {}/{} is named like it",
            w.kind(),
            w.name()
        ),
        (Some(h), Some(p), None) => format!("held by {h}: pod {}", p.name()),
        (Some(h), None, None) => {
            let looked = pod_name
                .is_some_and(|p| snap.absent.iter().any(|a| a.kind == "Pod" && a.name == p));
            if looked {
                format!("held by {h}, a pod that was not found")
            } else {
                format!("held by {h}, a pod that could not be read")
            }
        }
        (None, ..) => "held by no one".into(),
    };
    let mut summary = format!("{lease_text}, {held}, {renewed_text}");
    if let Some(w) = workload {
        judge_workload(snap, w, &mut check, &mut summary);
    }
    if let Some(p) = pod {
        let j = judge(p, snap);
        if j.verdict == Verdict::Failed {
            if !check.down {
                summary.push_str(&format!(
                    "; pod {} is Failed ({}): {}",
                    p.name(),
                    j.reason,
                    j.message
                ));
            }
            check.pod_failure = Some(format!("its pod {} is Failed ({})", p.name(), j.reason));
            check.down = true;
        }
    }
    check.down |= expired;
    check.summary = summary;
    check
}

/// Judges the controller's workload into the check: down when it is
/// Failed, gone or scaled to zero.
fn judge_workload(
    snap: &Judged<'_>,
    w: &Object,
    check: &mut ControllerCheck,
    summary: &mut String,
) {
    let j = judge(w, snap);
    check.workload = Some(w.id.clone());
    check.workload_verdict = Some(j.verdict);
    check.workload_reason = Some(j.reason.clone());
    check.workload_message = Some(j.message.clone());
    if j.verdict != Verdict::Converged {
        summary.push_str(&format!(
            "; {}/{} is {} ({}): {}",
            w.kind(),
            w.name(),
            j.verdict,
            j.reason,
            j.message
        ));
        check.down = matches!(j.verdict, Verdict::Failed | Verdict::NotFound)
            || w.at("/spec/replicas").and_then(Value::as_i64) == Some(0);
    }
}

/// The workload that runs a pod: its controller's controller, as the
/// snapshot holds them (ReplicaSet → Deployment), else the pod's owner.
fn workload_of<'a>(snap: &'a Snapshot, pod: &'a Object) -> Option<&'a Object> {
    let owner = pod.controller()?;
    let rs = snap
        .get(&owner.uid)
        .or_else(|| snap.find("apps", &owner.kind, pod.namespace(), &owner.name));
    match rs {
        Some(rs) if rs.kind() == "ReplicaSet" => rs
            .controller()
            .and_then(|d| {
                snap.get(&d.uid)
                    .or_else(|| snap.find("apps", &d.kind, rs.namespace(), &d.name))
            })
            .or(Some(rs)),
        Some(w) => Some(w),
        None => None,
    }
}

/// A Deployment or StatefulSet named like a manager or the holder pod, in
/// `ns` or (with none) in any namespace: the workload when the pod is gone
/// or no lease names it.
fn named_workload<'a>(
    snap: &'a Snapshot,
    ns: Option<&str>,
    names: &[String],
) -> Option<&'a Object> {
    let mut found: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.group() == "apps"
                && matches!(o.kind(), "Deployment" | "StatefulSet")
                && (ns.is_none() || o.namespace() == ns)
                && named_like(names, o.name())
        })
        .collect();
    found.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
    found.into_iter().next()
}

/// Whether the search for a workload could not read Deployments or
/// StatefulSets.
fn workloads_unread(snap: &Snapshot) -> bool {
    snap.incomplete
        .iter()
        .any(|g| g.resource.starts_with("deployments") || g.resource.starts_with("statefulsets"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::relations::{Resource, Select, reads_for};

    fn obj(v: Value) -> Object {
        Object::from_value(v).unwrap()
    }

    fn lease(ns: &str, name: &str, holder: &str) -> Object {
        obj(
            json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": ns, "uid": name},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15, "renewTime": "2026-11-29T22:29:59.000000Z"}}),
        )
    }

    fn widget(manager: &str) -> Object {
        obj(json!({"apiVersion": "widgets.acme.io/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "apps", "uid": "w", "generation": 2,
                "managedFields": [{"manager": manager, "operation": "Update", "subresource": "status",
                    "time": "2026-11-29T22:00:00Z", "fieldsV1": {"f:status": {}}}]},
            "status": {"observedGeneration": 1}}))
    }

    #[test]
    fn conditions_of_an_older_generation_are_a_lag() {
        let cr = |observed: i64| {
            obj(json!({"apiVersion": "widgets.acme.io/v1", "kind": "Widget",
                "metadata": {"name": "w", "namespace": "apps", "uid": "w", "generation": 3},
                "status": {"conditions": [{"type": "Ready", "status": "True", "observedGeneration": observed}]}}))
        };
        assert!(lags(&cr(2)));
        assert!(!lags(&cr(3)));
    }

    #[test]
    fn a_holder_pod_not_read_is_not_called_gone() {
        let l = lease(
            "acme-system",
            "9f3e1c2a.acme.io",
            "widget-controller-5f-abcde_77",
        );
        let now = "2026-11-29T22:30:00Z".parse().unwrap();
        let unread = Snapshot::new(vec![l.clone()], vec![], vec![], now);
        let c = judge_lease(&Judged::builtin(&unread), &l, None, false);
        assert!(
            c.summary.contains("a pod that could not be read"),
            "{}",
            c.summary
        );
        let mut looked = Snapshot::new(vec![l.clone()], vec![], vec![], now);
        looked.absent.push(ObjectRef {
            api_version: "v1".into(),
            kind: "Pod".into(),
            namespace: Some("acme-system".into()),
            name: "widget-controller-5f-abcde".into(),
            uid: None,
        });
        let c = judge_lease(&Judged::builtin(&looked), &l, None, false);
        assert!(
            c.summary.contains("a pod that was not found"),
            "{}",
            c.summary
        );
    }

    #[test]
    fn leases_match_by_group_domain_or_status_manager() {
        let by_group = lease("acme-system", "widgets.acme.io-leader", "x_1");
        let by_domain = lease(
            "acme-system",
            "9f3e1c2a.acme.io",
            "widget-controller-5f-abcde_77",
        );
        let by_manager = lease("tools", "leader-lock", "widget-controller-5f-abcde_77");
        let node = lease("kube-node-lease", "widgets.acme.io", "node");
        let unrelated = lease("other", "ingress-nginx-leader", "nginx_1");
        let all = [&by_group, &by_domain, &by_manager, &node, &unrelated];
        let found: Vec<(String, String)> = matching_leases(&all, &widget("widget-controller"))
            .into_iter()
            .map(|(l, how)| (l.name().to_string(), how))
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    "widgets.acme.io-leader".to_string(),
                    "lease name widgets.acme.io-leader contains the API group widgets.acme.io"
                        .to_string()
                ),
                (
                    "9f3e1c2a.acme.io".to_string(),
                    "lease name 9f3e1c2a.acme.io ends in the group's domain acme.io".to_string()
                ),
                (
                    "leader-lock".to_string(),
                    "lease leader-lock's holder widget-controller-5f-abcde_77 names the status manager widget-controller".to_string()
                ),
            ]
        );
        // kubebuilder's default manager name says nothing.
        assert!(matching_leases(&[&by_manager], &widget("manager")).is_empty());
        assert_eq!(holder_pod(&by_domain), Some("widget-controller-5f-abcde"));
    }

    #[test]
    fn the_search_reads_leases_only_for_what_lags_and_then_the_holder() {
        let w = widget("widget-controller");
        let mut fine = w.clone();
        std::sync::Arc::make_mut(&mut fine.raw)["status"]["observedGeneration"] = json!(2);
        let fine = obj(std::sync::Arc::unwrap_or_clone(fine.raw));
        assert!(
            reads_for(std::slice::from_ref(&fine), &[], &[]).is_empty(),
            "a healthy object costs nothing"
        );
        let first = reads_for(std::slice::from_ref(&w), &[], &[]);
        let leases: Vec<_> = first
            .iter()
            .filter(|r| matches!(&r.resource, Resource::Kind { kind, .. } if kind == "Lease"))
            .collect();
        assert_eq!(leases.len(), 1, "{first:?}");
        assert_eq!(
            leases[0].select,
            Select::Fields("metadata.namespace!=kube-node-lease".into())
        );
        assert_eq!(leases[0].namespace, None);
        let with = vec![
            w,
            lease(
                "acme-system",
                "9f3e1c2a.acme.io",
                "widget-controller-5f-abcde_77",
            ),
        ];
        let second = reads_for(&with, &[], &[]);
        // The holder pod wherever it runs: by name, across namespaces.
        assert!(
            second.iter().any(|r| r.select
                == Select::Fields("metadata.name=widget-controller-5f-abcde".into())
                && r.namespace.is_none()
                && r.expect == ["widget-controller-5f-abcde"]),
            "{second:?}"
        );
        assert!(second.iter().any(|r| matches!(&r.select, Select::NamedLike(n) if n.contains(&"widget-controller".to_string()))), "{second:?}");
    }
}
