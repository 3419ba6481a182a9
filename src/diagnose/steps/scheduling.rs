//! Steps for nodes and scheduling: what keeps a pod off every node, a node
//! that reports a problem, daemons on nodes they no longer match.

use super::{Cx, NextStep, describe, kubectl, step};
use crate::model::Object;
use crate::verdict::reason::Scheduling;
use crate::verdict::{Judged, Reason};

pub(super) fn step_for(code: Scheduling, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    Some(match code {
        Scheduling::Unschedulable => unschedulable(cx),
        Scheduling::NodeNotReady
        | Scheduling::MemoryPressure
        | Scheduling::DiskPressure
        | Scheduling::PIDPressure
        | Scheduling::NetworkUnavailable => step(
            "The node reports a problem: check the kubelet and the node's resources.",
            vec![describe(who)],
        ),
        Scheduling::Cordoned => step(
            "The node is cordoned on purpose; uncordon it to schedule pods on it again.",
            vec![format!("kubectl uncordon {}", who.name)],
        ),
        Scheduling::Misscheduled => step(
            "Daemon pods run on nodes that no longer match the DaemonSet's node selector, affinity or tolerations; the controller removes them.",
            vec![describe(who), format!("{} get pods -o wide", kubectl(who))],
        ),
        Scheduling::SchedulingGated
        | Scheduling::Scheduling
        | Scheduling::Scheduled
        | Scheduling::NoMatchingNodes => return None,
    })
}

/// No node can run the pod: each blocking constraint named, with its fix.
fn unschedulable(cx: &Cx) -> NextStep {
    let snap = cx.snap;
    let pod = cx.who_obj;
    let describe = describe(&cx.who);
    let nodes: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| o.kind() == "Node" && o.group().is_empty())
        .collect();
    let message = pod
        .and_then(|p| p.condition("PodScheduled"))
        .map(|c| c.message)
        .unwrap_or_default();
    let mut blockers = pod
        .map(|p| crate::diagnose::scheduling::blockers(p, &nodes, &message))
        .unwrap_or_default();
    if let Some(p) = pod {
        blockers.extend(crate::diagnose::filters::blockers(
            p, snap, &nodes, &message,
        ));
    }
    // Without the nodes, the parts of the scheduler's count that nothing
    // above speaks for are kept as it wrote them.
    if nodes.is_empty() {
        for part in crate::diagnose::filters::unexplained_parts(
            &message,
            crate::diagnose::filters::EXPLAINED,
        ) {
            blockers.push(crate::diagnose::scheduling::Blocker {
                text: format!(
                    "the scheduler says {part} (the nodes could not be read to say more)"
                ),
                fix: "see `kubectl describe nodes`".into(),
                commands: vec!["kubectl describe nodes".into()],
            });
        }
    }
    if blockers.is_empty() {
        return step(
            "No node can run the pod (see the scheduler's message above): lower its requests, fix its node selector, affinity or tolerations, or add capacity.",
            vec![describe, "kubectl describe nodes".into()],
        );
    }
    let what: Vec<&str> = blockers.iter().map(|b| b.text.as_str()).collect();
    let fix: Vec<&str> = blockers.iter().map(|b| b.fix.as_str()).collect();
    let mut commands: Vec<String> = Vec::new();
    for c in blockers.iter().flat_map(|b| b.commands.iter()) {
        if !commands.contains(c) {
            commands.push(c.clone());
        }
    }
    commands.push(describe);
    step(
        format!(
            "No node can run the pod: {}. To fix: {}.",
            what.join("; "),
            fix.join("; ")
        ),
        commands,
    )
}

/// A pod that is not ready, with a NodeNotReady event from the node
/// controller while its node could not be read (partial RBAC): the events
/// are the evidence, so the step is about the node, not the probes.
pub(super) fn node_not_ready(snap: &Judged<'_>, pod: &Object, reason: &Reason) -> Option<NextStep> {
    if pod.kind() != "Pod" || crate::diagnose::chain::is_container_failure(reason) {
        return None;
    }
    let node = pod.str("/spec/nodeName")?;
    if snap.find("", "Node", None, node).is_some() {
        return None; // read: the chain reaches it by its runs-on edge
    }
    let event = snap
        .events
        .iter()
        .filter(|e| {
            e.regarding_uid == pod.uid
                && e.is_warning()
                && e.reason == Scheduling::NodeNotReady.as_str()
        })
        .max_by_key(|e| e.last_seen)?;
    let when = event
        .last_seen
        .map(|t| format!(" {} ago", crate::model::age(snap.now, t)))
        .unwrap_or_default();
    Some(step(
        format!(
            "The pod's node {node} is not ready: the node controller said so{when} (NodeNotReady: {}), and the node itself could not be read. Its pods stay not ready until the kubelet reports again, and are evicted once their not-ready toleration runs out (5 minutes by default): check the node and its kubelet, or ask someone who may read nodes.",
            event.message
        ),
        vec![
            format!("kubectl describe node {node}"),
            format!(
                "{} get pods --field-selector spec.nodeName={node}",
                kubectl(&pod.id)
            ),
        ],
    ))
}
