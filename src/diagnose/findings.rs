//! Diagnoses beside the verdicts: a pod nothing will recreate, an owner that
//! is gone, controllers whose selectors overlap, a status nobody writes.

use std::collections::HashSet;

use serde::Serialize;

use super::generation::GenerationCheck;
use crate::graph::{ChainLink, Note};
use crate::model::{Object, ObjectRef, Snapshot, age};
use crate::relations::Node as TreeNode;
use crate::selector;
use crate::verdict::Judgement;
use crate::verdict::reason::{Aside, Lifecycle, Reason};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable CamelCase: BarePod, NoOwner, OwnerGone, InvalidOwner,
    /// SelectorOverlap, StaleStatus, NoStatusWriter, DisruptionsBlocked,
    /// NoMatchingNodes, RolloutChange, Controller.
    pub reason: Reason,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectRef>,
}

fn finding(reason: impl Into<Reason>, message: String, objects: Vec<ObjectRef>) -> Finding {
    Finding {
        reason: reason.into(),
        message,
        objects,
    }
}

pub struct Context<'a> {
    pub snap: &'a Snapshot,
    pub target: &'a Object,
    pub tree: &'a TreeNode,
    pub judgement: &'a Judgement,
    pub generation: &'a GenerationCheck,
    pub owners: &'a [ChainLink],
}

pub fn findings(cx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    let target = cx.target;
    if target.kind() == "Pod" && target.group().is_empty() && target.owners.is_empty() {
        out.push(finding(
            Aside::BarePod,
            "no controller owns this pod: nothing will recreate it if it is deleted, evicted, or its node fails".into(),
            vec![target.id.clone()],
        ));
    }
    if target.kind() == "ReplicaSet" && target.group() == "apps" && target.owners.is_empty() {
        out.push(finding(
            Aside::NoOwner,
            "no owner: nothing manages it; left behind by an orphaning delete?".into(),
            vec![target.id.clone()],
        ));
    }
    if target.kind() == "Service" && target.group().is_empty() {
        out.extend(orphans_serving(cx.snap, target));
    }
    if let Some((reason, message)) = crate::verdict::concern(target, cx.judgement) {
        out.push(finding(reason, message, vec![target.id.clone()]));
    }
    for link in cx.owners {
        if let ChainLink::Dangling(o) = link {
            out.push(finding(
                Aside::OwnerGone,
                crate::graph::owner_gone(o),
                vec![target.id.clone()],
            ));
        }
    }
    walk(cx.tree, &mut |node| {
        let Some(obj) = node.uid().and_then(|u| cx.snap.get(u)) else {
            return;
        };
        for note in &node.notes {
            match note {
                Note::DanglingOwner(o) if node.uid() != Some(target.uid.as_str()) => {
                    out.push(finding(
                        Aside::OwnerGone,
                        format!(
                            "{}/{}: {}",
                            obj.kind(),
                            obj.name(),
                            crate::graph::owner_gone(o)
                        ),
                        vec![obj.id.clone()],
                    ))
                }
                Note::InvalidOwner(o, why) => out.push(finding(
                    Aside::InvalidOwner,
                    format!(
                        "{}/{} has an invalid owner reference to {}/{}: {why}",
                        obj.kind(),
                        obj.name(),
                        o.kind,
                        o.name
                    ),
                    vec![obj.id.clone()],
                )),
                _ => {}
            }
        }
    });
    if let Some(f) = overlap(cx) {
        out.push(f);
    }
    if cx.generation.stale {
        let manager = cx
            .generation
            .status_written
            .as_ref()
            .map(|c| c.manager.as_str())
            .unwrap_or("its controller");
        let since = cx
            .generation
            .spec_changed
            .as_ref()
            .map(|c| age(cx.snap.now, c.at))
            .unwrap_or_default();
        out.push(finding(
            Aside::StaleStatus,
            format!(
                "observedGeneration has lagged for {since} and status has not been written since the spec changed; is {manager} running and healthy?"
            ),
            vec![target.id.clone()],
        ));
    }
    if cx.judgement.reason == Lifecycle::NoStatus {
        let created = target
            .created
            .map(|c| format!(" since creation {} ago", age(cx.snap.now, c)))
            .unwrap_or_default();
        out.push(finding(
            Aside::NoStatusWriter,
            format!(
                "no status written{created}; is the controller for {} running?",
                group_name(target)
            ),
            vec![target.id.clone()],
        ));
    }
    out
}

fn group_name(obj: &Object) -> String {
    if obj.group().is_empty() {
        format!("{} objects", obj.kind())
    } else {
        format!("{} ({})", obj.kind(), obj.group())
    }
}

fn walk<'a>(node: &'a TreeNode, f: &mut impl FnMut(&'a TreeNode)) {
    node.walk(f);
}

/// Pods (and ReplicaSets) that the target's selector matches but another
/// controller owns: two controllers may fight over them.
fn overlap(cx: &Context) -> Option<Finding> {
    let target = cx.target;
    let sel = target.at("/spec/selector").filter(|s| s.is_object())?;
    // A CronJob has no selector of its own: its Jobs do.
    if !crate::catalog::makes_pods(target.group(), target.kind()) {
        return None;
    }
    let mut mine: HashSet<&str> = HashSet::new();
    walk(cx.tree, &mut |n| {
        if let Some(uid) = n.uid() {
            mine.insert(uid);
        }
    });
    let others: Vec<&Object> = cx
        .snap
        .objects()
        .iter()
        .filter(|o| {
            o.namespace() == target.namespace()
                && matches!(o.kind(), "Pod" | "ReplicaSet")
                && !mine.contains(o.uid.as_str())
        })
        .filter(|o| {
            o.controller()
                .is_some_and(|c| !mine.contains(c.uid.as_str()))
        })
        .filter(|o| selector::matches(sel, &o.labels))
        .collect();
    if others.is_empty() {
        return None;
    }
    let mut controllers: Vec<String> = others
        .iter()
        .filter_map(|o| o.controller())
        .map(|c| format!("{}/{}", c.kind, c.name))
        .collect();
    controllers.sort();
    controllers.dedup();
    Some(finding(
        Aside::SelectorOverlap,
        format!(
            "selector {} also matches {} object(s) controlled by {}; controllers with overlapping selectors fight over the same pods",
            selector::to_query(sel).unwrap_or_default(),
            others.len(),
            controllers.join(", ")
        ),
        others.iter().map(|o| o.id.clone()).collect(),
    ))
}

/// ReplicaSets with no owner whose pods a Service still sends traffic to,
/// beside the pods of another template (an orphaning delete left the old
/// ReplicaSet, or one was made by hand): nothing manages them, and they
/// serve an old version.
fn orphans_serving(snap: &Snapshot, service: &Object) -> Vec<Finding> {
    let mut by_set: std::collections::BTreeMap<String, (usize, &Object)> = Default::default();
    let mut others = 0usize;
    for uid in crate::relations::selected(snap, service) {
        let Some(pod) = snap.get(&uid) else { continue };
        match pod.controller().and_then(|c| snap.get(&c.uid)) {
            Some(rs)
                if rs.kind() == "ReplicaSet" && rs.group() == "apps" && rs.owners.is_empty() =>
            {
                by_set.entry(rs.uid.clone()).or_insert((0, rs)).0 += 1;
            }
            _ => others += 1,
        }
    }
    if others == 0 {
        return Vec::new();
    }
    by_set
        .into_values()
        .map(|(n, rs)| {
            finding(
                Aside::NoOwner,
                format!(
                    "ReplicaSet {} has no owner and still serves: {n} of its pods are behind this Service beside {others} of another template; nothing manages it (left by an orphaning delete?): delete it once the new pods serve (kubectl delete rs {})",
                    rs.name(),
                    rs.name()
                ),
                vec![rs.id.clone()],
            )
        })
        .collect()
}
