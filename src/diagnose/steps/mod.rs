//! The next step: what to check or change, with the commands to run. The
//! cause's reason picks the family that decides its step, one file each,
//! each an exhaustive match over its family's codes; every step is built
//! from fields of the snapshot, never from a message.

mod admission;
mod lifecycle;
mod network;
mod operators;
mod pods;
mod scheduling;
mod volumes;
mod workloads;

use serde::Serialize;

use super::chain::{Cause, Link};
use super::findings::Finding;
use crate::model::{Object, ObjectRef};
use crate::verdict::reason::{Aside, Pod};
use crate::verdict::{Judged, Reason, Verdict};

pub use lifecycle::controller_down;
pub use workloads::undo_change;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextStep {
    pub text: String,
    pub commands: Vec<String>,
    /// The step goes back to an earlier revision (`rollout undo`).
    #[serde(skip)]
    pub rolls_back: bool,
}

impl NextStep {
    pub fn new(text: impl Into<String>, commands: Vec<String>) -> NextStep {
        NextStep {
            text: text.into(),
            commands,
            rolls_back: false,
        }
    }
}

fn step(text: impl Into<String>, commands: Vec<String>) -> NextStep {
    NextStep::new(text, commands)
}

/// `kubectl -n NS` (or plain `kubectl` for cluster-scoped objects).
fn kubectl(id: &ObjectRef) -> String {
    match &id.namespace {
        Some(ns) => format!("kubectl -n {ns}"),
        None => "kubectl".into(),
    }
}

/// `-n NS ` for namespaced objects.
fn namespace_flag(id: &ObjectRef) -> String {
    id.namespace
        .as_deref()
        .map(|ns| format!("-n {ns} "))
        .unwrap_or_default()
}

/// `deployment/web`, as kubectl takes it.
fn arg(id: &ObjectRef) -> String {
    let group = id.group();
    if group.is_empty() || crate::catalog::is_builtin_group(group) {
        format!("{}/{}", id.kind.to_ascii_lowercase(), id.name)
    } else {
        format!("{}.{group}/{}", id.kind.to_ascii_lowercase(), id.name)
    }
}

/// `kubectl -n NS describe kind/name`.
fn describe(id: &ObjectRef) -> String {
    format!("{} describe {}", kubectl(id), arg(id))
}

/// What a family's step reads: the cause, the object that holds it, and the
/// chain from the target down to it.
struct Cx<'a> {
    snap: &'a Judged<'a>,
    /// The object `why` was asked about.
    target: &'a Object,
    cause: &'a Cause,
    /// The failing container this step is for, where the cause is a pod's.
    container: Option<String>,
    chain: &'a [Link],
    /// The object that holds the cause (its first member), else the target.
    who: ObjectRef,
    /// That object, where the snapshot has it.
    who_obj: Option<&'a Object>,
}

impl<'a> Cx<'a> {
    fn t(&self) -> &ObjectRef {
        &self.target.id
    }

    /// The object above the cause in the chain: what refers to a missing one.
    fn referrer(&self) -> ObjectRef {
        self.chain
            .iter()
            .rev()
            .filter_map(|l| l.object.as_ref())
            .nth(1)
            .cloned()
            .unwrap_or_else(|| self.t().clone())
    }

    /// `kubectl logs` of the cause's pod (and container).
    fn logs(&self, previous: bool) -> String {
        let c = self
            .container
            .as_deref()
            .map(|c| format!(" -c {c}"))
            .unwrap_or_default();
        format!(
            "{} logs {}{c}{}",
            kubectl(&self.who),
            arg(&self.who),
            if previous { " --previous" } else { "" }
        )
    }

    /// ` NAME` of the failing container, or nothing.
    fn named(&self) -> String {
        self.container
            .as_deref()
            .map(|c| format!(" {c}"))
            .unwrap_or_default()
    }

    /// The topmost workload with a pod template on the chain (the
    /// Deployment, not a GitOps object above it): what `set image` and
    /// `set resources` change.
    fn workload(&self) -> &ObjectRef {
        self.chain
            .iter()
            .filter_map(|l| l.object.as_ref())
            .find(|o| crate::catalog::makes_pods(o.group(), &o.kind))
            .unwrap_or(self.t())
    }

    /// What the user edits to change the workload: the workload itself,
    /// or the object at the top of its controllers (the Rollout above a
    /// ReplicaSet, the Alertmanager above a StatefulSet), whose operator
    /// would rewrite any edit made below it.
    fn edited(&self) -> ObjectRef {
        let workload = self.workload().clone();
        let mut top = workload.clone();
        let mut at = workload.uid.as_deref().and_then(|u| self.snap.get(u));
        // Owner chains are short; a loop in hostile owner references ends.
        for _ in 0..crate::graph::MAX_DEPTH {
            let Some(owner) = at
                .and_then(|o| o.controller())
                .and_then(|c| self.snap.get(&c.uid))
            else {
                break;
            };
            top = owner.id.clone();
            at = Some(owner);
        }
        top
    }

    /// The command that changes a container's image, on the object the
    /// user edits.
    fn set_image(&self) -> String {
        let c = self.container.clone().unwrap_or_else(|| "CONTAINER".into());
        let w = self.edited();
        if let Some(rollouts) = operators::argo_rollouts(&w) {
            return format!("{rollouts} set image {} {c}=IMAGE", w.name);
        }
        if crate::catalog::is_builtin_group(w.group()) {
            format!("{} set image {} {c}=IMAGE", kubectl(&w), arg(&w))
        } else {
            format!("{} edit {}", kubectl(&w), arg(&w))
        }
    }

    /// `; change it in Alertmanager main's spec (...)` when the object
    /// edited is an operator's, above the workload that runs the pods.
    fn owned_note(&self) -> String {
        let (w, edited) = (self.workload(), self.edited());
        if edited == *w || crate::catalog::is_builtin_group(edited.group()) {
            return String::new();
        }
        format!(
            " Change it in {} {}: its operator owns {} {} and rewrites what is edited there.",
            edited.kind, edited.name, w.kind, w.name
        )
    }
}

pub fn next_steps(
    snap: &Judged<'_>,
    target: &Object,
    cause: Option<&Cause>,
    chain: &[Link],
    findings: &[Finding],
) -> Vec<NextStep> {
    let mut steps = Vec::new();
    let t = &target.id;
    if let Some(cause) = cause {
        // One step per failing container, the one that matches the cause
        // first; containers that fail alike share a step.
        let mut containers: Vec<&Link> = chain.iter().filter(|l| l.container.is_some()).collect();
        containers.sort_by_key(|l| l.reason != cause.reason);
        let first = containers.first().and_then(|l| l.container.clone());
        steps.push(cause_step(snap, target, cause, &cause.reason, first, chain));
        for link in containers.iter().skip(1) {
            let reason = if link.reason == Pod::OOMKilled {
                Pod::CrashLoopBackOff.into()
            } else {
                link.reason.clone()
            };
            let s = cause_step(snap, target, cause, &reason, link.container.clone(), chain);
            if !steps.contains(&s) {
                steps.push(s);
            }
        }
    }
    for f in findings {
        let Reason::Aside(aside) = f.reason else {
            continue;
        };
        match aside {
            Aside::BarePod => steps.push(step("Run the pod under a controller (a Deployment, StatefulSet or Job) so that it is recreated.", vec![])),
            Aside::SelectorOverlap => steps.push(step("Give each controller a selector that matches only its own pods.", vec![format!("{} get pods --show-labels", kubectl(t))])),
            Aside::StaleStatus => steps.push(step("The controller does not act on the latest spec: check that it is running and read its logs.", vec![])),
            Aside::OwnerGone => steps.push(step("The owner is gone: the garbage collector deletes its dependents; recreate the owner if that is not wanted.", vec![])),
            _ => {}
        }
    }
    steps
}

/// The step for a cause, with `reason` read for `container` (the pod's
/// cause, or one more failing container's own reason).
fn cause_step(
    snap: &Judged<'_>,
    target: &Object,
    cause: &Cause,
    reason: &Reason,
    container: Option<String>,
    chain: &[Link],
) -> NextStep {
    let who = cause
        .objects
        .first()
        .cloned()
        .unwrap_or_else(|| target.id.clone());
    let who_obj = who.uid.as_deref().and_then(|u| snap.get(u));
    let cx = Cx {
        snap,
        target,
        cause,
        container,
        chain,
        who,
        who_obj,
    };
    if let Some(made) = lifecycle::made_by(cause, chain) {
        return made;
    }
    if let Some(own) = operators::step_for(&cx) {
        return own;
    }
    if let Some(node) = who_obj.and_then(|p| scheduling::node_not_ready(snap, p, reason)) {
        return node;
    }
    let by_family = match reason {
        Reason::Lifecycle(code) => lifecycle::step_for(*code, &cx),
        Reason::Pod(code) => pods::step_for(*code, &cx),
        Reason::Scheduling(code) => scheduling::step_for(*code, &cx),
        Reason::Workload(code) => workloads::step_for(*code, &cx),
        Reason::Admission(code) => admission::step_for(*code, &cx),
        Reason::Volume(code) => volumes::step_for(*code, &cx),
        Reason::Network(code) => network::step_for(*code, &cx),
        Reason::Aside(_) | Reason::Word(_) => None,
    };
    by_family.unwrap_or_else(|| fallback(&cx))
}

/// No family has a step for the reason: what the cause's verdict and kind
/// still say.
fn fallback(cx: &Cx) -> NextStep {
    let who = &cx.who;
    let t = cx.t();
    if who.kind == "Namespace" {
        return lifecycle::namespace_step(who);
    }
    // It waits for someone else: an approver, then its signer.
    if who.kind == "CertificateSigningRequest" && who.group() == "certificates.k8s.io" {
        return step(
            "A CertificateSigningRequest waits for an approver (a person, or an approving controller), then for its signer: approve or deny it; once approved, check that the signer it names runs.",
            vec![
                format!("kubectl certificate approve {}", who.name),
                format!("kubectl get csr {} -o yaml", who.name),
            ],
        );
    }
    // A refusal read from Warning events (a mount, a quota): its words
    // say what to fix; it is retried until then.
    let refused = who.uid.as_deref().is_some_and(|uid| {
        cx.snap.events_for(uid).any(|e| {
            e.type_ == "Warning"
                && e.reason == cx.cause.reason.as_str()
                && crate::verdict::is_refusal(&e.reason)
        })
    });
    if matches!(cx.cause.verdict, Verdict::Progressing | Verdict::Failed) && refused {
        return step(
            format!(
                "{} is refused again and again ({}): fix what its message names (a missing object, a volume held elsewhere, a quota); it is retried until then.",
                who.kind, cx.cause.reason
            ),
            vec![format!(
                "kubectl {}get events --field-selector involvedObject.name={},type=Warning",
                namespace_flag(who),
                who.name
            )],
        );
    }
    if cx.cause.verdict == Verdict::Progressing {
        // Events may hold a refusal the status does not say: where they
        // could not be read, nothing is ruled out.
        let events_unread = cx.snap.incomplete.iter().any(|g| {
            g.resource.starts_with("events")
                && (g.namespace.is_none() || g.namespace == who.namespace)
        });
        let text = if events_unread {
            "The controller is working on it, but its events could not be read: a refusal they may say (a quota, a mount) cannot be ruled out. Watch it converge, and read its events where you can."
        } else {
            "The controller is working on it and nothing says it is stuck: watch it converge."
        };
        return step(
            text,
            vec![format!(
                "kubectl reconcile {}tree {} --watch",
                namespace_flag(t),
                arg(t)
            )],
        );
    }
    if !crate::catalog::is_builtin_group(who.group()) {
        return step(
            format!(
                "The controller of {} reports the problem above: read its conditions and the controller's logs.",
                who.kind
            ),
            vec![describe(who)],
        );
    }
    step(
        format!("Look at {} {} in detail.", who.kind, who.name),
        vec![describe(who)],
    )
}
