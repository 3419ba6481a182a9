//! The root-cause chain: from the target down to the deepest objects that
//! are not converged, with identical causes grouped, and the container that
//! fails inside a pod.

use crate::verdict::Judged;
use std::collections::HashMap;

use serde::Serialize;

use crate::model::{Object, ObjectRef};
use crate::relations::{Edge, End, Node as TreeNode};
use crate::verdict::reason::{Admission, Lifecycle, Network, Pod, Reason, Scheduling, Workload};
use crate::verdict::{Judgement, Verdict};

/// A group of identical causes: the same kind, verdict and reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    pub verdict: Verdict,
    pub reason: Reason,
    /// The first member's message.
    pub message: String,
    pub count: usize,
    pub objects: Vec<ObjectRef>,
}

/// One link of the chain: an object, or the container inside the last pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectRef>,
    /// How this link hangs under the one above: `owns` or a relation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge: Option<Edge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    pub reason: Reason,
    pub message: String,
}

/// Every cause with the chain down to its first member, ranked: first
/// the causes that `named_in` names (a GitOps object's own Ready message,
/// e.g. `timeout waiting for: [Deployment/apps/web status: 'InProgress']`,
/// knows which of its objects holds it up), then the most severe and the
/// most numerous.
pub fn ranked_causes(
    snap: &Judged<'_>,
    tree: &TreeNode,
    judged: &HashMap<String, Judgement>,
    named_in: Option<&str>,
) -> Vec<(Cause, Vec<Link>)> {
    let verdict = |key: &str| judged[key].verdict;
    let mut leaves: Vec<Vec<&TreeNode>> = Vec::new();
    collect(tree, &mut vec![], &mut leaves, &verdict);
    let mut groups: Vec<(Cause, Vec<&TreeNode>)> = Vec::new();
    for path in &leaves {
        let leaf = path.last().expect("paths are not empty");
        let id = id_of(snap, leaf);
        let j = &judged[&leaf.key()];
        match groups.iter_mut().find(|(c, _)| {
            c.verdict == j.verdict && c.reason == j.reason && c.objects[0].kind == id.kind
        }) {
            Some((cause, _)) => {
                cause.count += 1;
                cause.objects.push(id);
            }
            None => groups.push((
                Cause {
                    verdict: j.verdict,
                    reason: j.reason.clone(),
                    message: j.message.clone(),
                    count: 1,
                    objects: vec![id],
                },
                path.clone(),
            )),
        }
    }
    let named = |path: &[&TreeNode]| {
        named_in.is_some_and(|text| {
            path.iter().skip(1).any(|n| {
                let id = id_of(snap, n);
                let ns = id.namespace.as_deref().unwrap_or("");
                text.contains(&format!("{}/{ns}/{}", id.kind, id.name))
                    || text.contains(&format!("{}/{}", id.kind, id.name))
            })
        })
    };
    groups.sort_by(|(a, pa), (b, pb)| {
        named(pb)
            .cmp(&named(pa))
            .then(b.verdict.severity().cmp(&a.verdict.severity()))
            .then(hardness(&b.reason).cmp(&hardness(&a.reason)))
            .then(b.count.cmp(&a.count))
    });
    groups
        .into_iter()
        .map(|(cause, path)| {
            let mut chain: Vec<Link> = path
                .iter()
                .map(|node| {
                    let j = &judged[&node.key()];
                    Link {
                        object: Some(id_of(snap, node)),
                        edge: node.edge,
                        container: None,
                        verdict: Some(j.verdict),
                        reason: j.reason.clone(),
                        message: j.message.clone(),
                    }
                })
                .collect();
            if let Some(last) = path.last().and_then(|n| n.uid()).and_then(|u| snap.get(u)) {
                chain.extend(failing_containers(last));
            }
            (cause, chain)
        })
        .collect()
}

/// Causes that will not pass without a change rank above the rest.
pub fn hardness(reason: &Reason) -> u8 {
    let hard = match reason {
        // Exits: the logs may show it passes on a retry.
        Reason::Pod(Pod::CreateContainerError | Pod::RunContainerError | Pod::PodFailed) => false,
        r if is_container_failure(r) => true,
        Reason::Pod(Pod::Evicted)
        | Reason::Workload(Workload::BackoffLimitExceeded | Workload::DeadlineExceeded)
        | Reason::Lifecycle(Lifecycle::NotFound)
        | Reason::Admission(Admission::FailedCreate)
        | Reason::Scheduling(Scheduling::NodeNotReady)
        | Reason::Network(Network::ScaledToZero | Network::NamedPortNotFound) => true,
        _ => false,
    };
    if hard { 2 } else { 1 }
}

/// A failure of a pod's containers themselves (an image, a crash, a config
/// they need, an exit), or of its scheduling: what the pod's own step
/// says, not its node.
pub fn is_container_failure(reason: &Reason) -> bool {
    matches!(
        reason,
        Reason::Pod(
            Pod::CrashLoopBackOff
                | Pod::ImagePullBackOff
                | Pod::ErrImagePull
                | Pod::InvalidImageName
                | Pod::CreateContainerConfigError
                | Pod::CreateContainerError
                | Pod::RunContainerError
                | Pod::PodFailed
        ) | Reason::Scheduling(Scheduling::Unschedulable)
    )
}

/// The identity of a node: the object's, or the missing one's.
pub fn id_of(snap: &Judged<'_>, node: &TreeNode) -> ObjectRef {
    match &node.end {
        End::Found(uid) => snap.id_of(uid),
        End::Missing(r) => r.clone(),
    }
}

/// Paths from the root to every node that is not converged while all its
/// children are; and to a Failed node whose children are only under way
/// (an aborted Rollout whose stable ReplicaSet scales back up): its failure
/// is its own, not theirs.
fn collect<'a>(
    node: &'a TreeNode,
    path: &mut Vec<&'a TreeNode>,
    out: &mut Vec<Vec<&'a TreeNode>>,
    verdict: &dyn Fn(&str) -> Verdict,
) {
    path.push(node);
    let failing_children: Vec<&TreeNode> = node
        .children
        .iter()
        .filter(|c| subtree_failing(c, verdict))
        .collect();
    // Only what it owns: an object a relation reaches (the Deployment
    // behind a Service) may explain the failure while still under way.
    let own_failure = verdict(&node.key()) == Verdict::Failed
        && failing_children.iter().all(|c| {
            c.edge.is_none_or(|e| e == Edge::Owns)
                && worst(c, verdict) < Verdict::Unknown.severity()
        });
    if failing_children.is_empty() || own_failure {
        if verdict(&node.key()) != Verdict::Converged {
            out.push(path.clone());
        }
    } else {
        for child in failing_children {
            collect(child, path, out, verdict);
        }
    }
    path.pop();
}

/// The severity of the worst verdict in a subtree.
fn worst(node: &TreeNode, verdict: &dyn Fn(&str) -> Verdict) -> u8 {
    node.children
        .iter()
        .map(|c| worst(c, verdict))
        .fold(verdict(&node.key()).severity(), u8::max)
}

fn subtree_failing(node: &TreeNode, verdict: &dyn Fn(&str) -> Verdict) -> bool {
    verdict(&node.key()) != Verdict::Converged
        || node.children.iter().any(|c| subtree_failing(c, verdict))
}

/// Every container of a pod that is stuck (init containers, sidecars and
/// main containers, in the pod's order): waiting for a reason other than
/// starting up, terminated with an error, or running but not ready. Each
/// with its own evidence.
fn failing_containers(pod: &Object) -> Vec<Link> {
    let mut out = Vec::new();
    if pod.kind() != "Pod" || !pod.group().is_empty() {
        return out;
    }
    for c in pod.containers() {
        let mut message = Vec::new();
        let waiting = Reason::of(c.waiting());
        let reason = if !c.waiting().is_empty()
            && !matches!(
                waiting,
                Reason::Pod(Pod::ContainerCreating | Pod::PodInitializing)
            ) {
            message.push(c.text("/state/waiting/message").to_string());
            waiting
        } else if c.exited_badly() {
            message.extend(c.exit("/state/terminated"));
            Reason::or(c.text("/state/terminated/reason"), Lifecycle::Error)
        } else if c.init && c.raw.pointer("/state/running").is_some() {
            message.push("running, has not exited".into());
            Pod::InitContainerRunning.into()
        } else if c.running_unready() {
            message.push("running but not ready".into());
            Pod::NotReady.into()
        } else {
            continue;
        };
        if let Some(last) = c.exit("/lastState/terminated") {
            message.push(format!("last termination: {last}"));
        }
        let restarts = c.int("/restartCount");
        if restarts > 0 {
            message.push(format!("{restarts} restarts"));
        }
        message.retain(|m| !m.is_empty());
        out.push(Link {
            object: None,
            edge: None,
            container: Some(c.name().to_string()),
            verdict: None,
            reason,
            message: message.join("; "),
        });
    }
    out
}
