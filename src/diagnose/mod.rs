//! `why`: the diagnosis of one target, as an operator would assemble it by
//! hand from `describe`, `get events` and `get -o yaml` at every level of the
//! tree: the verdict, the generation check, the conditions, the root-cause
//! chain, one event timeline, other findings, and the next step. Pure.

mod chain;
pub mod controller;
mod events;
mod filters;
mod findings;
pub(crate) mod generation;
mod gone;
mod rollout;
mod scheduling;
mod steps;

#[cfg(test)]
mod tests;

use crate::verdict::Judged;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

pub use chain::{Cause, Link};
pub use events::{EventLine, NO_EVENTS};
pub use findings::Finding;
pub use generation::GenerationCheck;
#[cfg(test)]
pub use gone::GONE_FAILURE_WINDOW;
pub use gone::{failed_and_deleted, failed_then_deleted, missing};
pub use steps::NextStep;

use crate::graph::Graph;
use crate::model::{Condition, Object, ObjectRef};
use crate::relations::{End, Node as TreeNode};
use crate::verdict::reason::Aside;
use crate::verdict::{Item, Verdict};
use crate::verdict::{Judgement, judge};

/// A condition of the target, flagged when abnormal or behind the spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionView {
    #[serde(flatten)]
    pub condition: Condition,
    pub abnormal: bool,
    pub lagging: bool,
}

/// `command` aimed at `context`: `kubectl --context NAME …` (kubectl's
/// plugins, such as `kubectl argo rollouts`, take the flag too). Other
/// commands are left as they are.
pub fn in_context(command: &str, context: &str) -> String {
    match command.strip_prefix("kubectl ") {
        Some(rest) => format!("kubectl --context {} {rest}", shell_word(context)),
        None => command.to_string(),
    }
}

/// `word` as one shell word: as it is when it holds only safe characters,
/// else in single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:@=+,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Everything `why` says about one target.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    #[serde(flatten)]
    pub item: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_check: Option<GenerationCheck>,
    pub conditions: Vec<ConditionView>,
    /// The most severe group of identical causes; none when converged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<Cause>,
    /// From the target down to the root cause (and its failing container).
    pub chain: Vec<Link>,
    /// Every group of causes, the root cause first.
    pub causes: Vec<Cause>,
    pub findings: Vec<Finding>,
    pub events: Vec<EventLine>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_note: Option<String>,
    pub next_steps: Vec<NextStep>,
    /// The controller that should act on a target whose status lags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<controller::ControllerCheck>,
    /// Other roots of a sweep whose trouble is this one's (a PVC that a
    /// Deployment waits on), merged into this item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_cause: Vec<ObjectRef>,
    /// The uids in the target's tree, for merging a sweep's items.
    #[serde(skip)]
    pub members: HashSet<String>,
}

impl Diagnosis {
    /// How bad the worst cause in its tree is, for ranking a sweep: the
    /// verdict, then whether the cause is a hard failure that will not
    /// pass on its own, then how many objects share it.
    pub fn rank(&self) -> (u8, u8, usize) {
        match &self.root_cause {
            Some(c) => (c.verdict.severity(), chain::hardness(&c.reason), c.count),
            None => (self.item.judgement.verdict.severity(), 0, 0),
        }
    }
}

/// Whether a condition is bad news or work under way, by the one table of
/// condition types ([`crate::verdict::polarity`]).
fn abnormal(c: &Condition) -> bool {
    use crate::verdict::Polarity;
    match crate::verdict::polarity(&c.type_) {
        Polarity::Problem | Polarity::Work => c.is_true(),
        Polarity::Neutral => false,
        Polarity::Good => c.is_false(),
    }
}

/// Diagnoses the object `uid` of the snapshot.
#[cfg(test)]
pub fn diagnose(snap: &Judged<'_>, uid: &str) -> Diagnosis {
    diagnose_in(snap, &Graph::new(snap), uid)
}

/// [`diagnose`] with the snapshot's graph already built: one graph for
/// every target of an answer, not one each.
pub fn diagnose_in(snap: &Judged<'_>, graph: &Graph, uid: &str) -> Diagnosis {
    let Some(target) = snap.get(uid) else {
        return missing(snap, &snap.id_of(uid));
    };
    let tree = crate::relations::tree(snap, graph, uid);
    let mut judged: HashMap<String, Judgement> = HashMap::new();
    judge_all(snap, &tree, &mut judged);
    let judgement = judged[uid].clone();
    let generation = generation::check(target, snap.now);
    // A GitOps object's own Ready message names what holds it up.
    let named_in = target
        .condition("Ready")
        .filter(|c| !c.is_true())
        .map(|c| c.message.clone());
    let mut ranked = chain::ranked_causes(snap, &tree, &judged, named_in.as_deref());
    let chain = ranked
        .first_mut()
        .map(|(_, c)| std::mem::take(c))
        .unwrap_or_default();
    let causes: Vec<Cause> = ranked.iter().map(|(c, _)| c.clone()).collect();
    let owners = graph.owner_chain(uid);
    let findings = findings::findings(&findings::Context {
        snap,
        target,
        tree: &tree,
        judgement: &judgement,
        generation: &generation,
        owners: &owners,
    });
    let mut findings = findings;
    findings.extend(rollout::rollout(snap, target));
    if judgement.verdict != Verdict::Converged {
        let who = generation.spec_changed.as_ref().map(|c| {
            format!(
                "spec changed {} ago by {}",
                crate::model::age(snap.now, c.at),
                c.manager
            )
        });
        findings.extend(rollout::what_changed(snap, target, who));
    }
    let changed_from = findings
        .iter()
        .any(|f| f.reason == Aside::RolloutChange)
        .then(|| rollout::way_back(snap, target).map(|(n, _, _)| n))
        .flatten();
    tree.walk(&mut |n| {
        if let Some(obj) = n.uid().and_then(|u| snap.get(u))
            && let Some(hint) = crate::relations::near_miss(snap, obj)
        {
            findings.push(Finding {
                reason: Aside::SelectorNearMiss.into(),
                message: format!("{}/{}: {hint}", obj.kind(), obj.name()),
                objects: vec![obj.id.clone()],
            });
        }
        if let Some(pod) = n.uid().and_then(|u| snap.get(u)) {
            for missing in crate::relations::missing_keys(snap, pod) {
                findings.push(Finding {
                    reason: Aside::MissingKey.into(),
                    message: format!("Pod/{}: {}", pod.name(), missing.message()),
                    objects: vec![pod.id.clone()],
                });
            }
        }
    });
    let mut uids: HashSet<&str> = HashSet::new();
    collect_uids(&tree, &mut uids);
    let events = events::timeline(snap, &uids);
    let manager = manager_finding(snap, target);
    findings.extend(manager.iter().map(|(f, _)| f.clone()));
    let (mut causes, mut chain) = (causes, chain);
    // The controller of the target, else of the object the root cause
    // names (a ReplicaSet whose status no controller wrote, under a
    // custom workload whose own status says nothing yet).
    let controller = quiet(snap, target, &judgement, &generation).or_else(|| {
        let held = causes.first()?.objects.first()?.uid.as_deref()?;
        let obj = snap.get(held).filter(|o| o.uid != target.uid)?;
        quiet(
            snap,
            obj,
            judged.get(held)?,
            &generation::check(obj, snap.now),
        )
    });
    let next_steps = match controller.as_ref() {
        Some(c) if c.down => {
            blame_controller(c, target, &mut causes, &mut chain);
            let mut s = vec![steps::controller_down(c)];
            s.extend(steps::next_steps(snap, target, None, &chain, &findings));
            s
        }
        Some(c) => {
            findings.push(Finding {
                reason: Aside::Controller.into(),
                message: c.summary.clone(),
                objects: c.workload.iter().chain(c.lease.iter()).cloned().collect(),
            });
            steps::next_steps(snap, target, causes.first(), &chain, &findings)
        }
        None => steps::next_steps(snap, target, causes.first(), &chain, &findings),
    };
    let mut next_steps = next_steps;
    // One step for each distinct cause, not for the first alone.
    if controller.as_ref().is_none_or(|c| !c.down) {
        for (cause, chain) in ranked.iter().skip(1).take(MORE_CAUSE_STEPS) {
            for s in steps::next_steps(snap, target, Some(cause), chain, &[]) {
                if !next_steps.contains(&s) {
                    next_steps.push(s);
                }
            }
        }
    }
    if let Some(previous) = changed_from {
        next_steps.extend(steps::undo_change(target, previous, &next_steps));
    }
    if let Some((_, Some(step))) = manager {
        next_steps.push(step);
    }
    Diagnosis {
        item: Item::judged(target, judgement, snap),
        generation_check: (target.generation.is_some()).then_some(generation),
        conditions: conditions(target),
        root_cause: causes.first().cloned(),
        chain,
        causes,
        findings,
        events_note: events.is_empty().then(|| events_note(snap, target)),
        events,
        next_steps,
        controller,
        same_cause: vec![],
        members: uids.iter().map(|u| u.to_string()).collect(),
    }
}

/// Besides the first cause's, at most this many more causes get steps.
const MORE_CAUSE_STEPS: usize = 2;

/// Who manages the target (or the workload above it), from the labels the
/// GitOps and packaging tools stamp: the finding, and a step when that
/// manager is not converged (a fix made here by hand would be reverted).
fn manager_finding(snap: &Judged<'_>, target: &Object) -> Option<(Finding, Option<NextStep>)> {
    let mut at = Some(target);
    for _ in 0..4 {
        let obj = at?;
        if let Some((named, how)) = crate::relations::manager_of(obj) {
            let who = format!(
                "{} {}/{}",
                named.kind,
                named.namespace.as_deref().unwrap_or(""),
                named.name
            );
            let Some(m) = named.find(snap) else {
                return Some((
                    Finding {
                        reason: Aside::ManagedBy.into(),
                        message: format!(
                            "{}/{} is applied by {who} ({how}), which could not be read",
                            obj.kind(),
                            obj.name()
                        ),
                        objects: vec![obj.id.clone()],
                    },
                    None,
                ));
            };
            let j = judge(m, snap);
            let from = crate::relations::source_of(m)
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            let state = match j.verdict {
                Verdict::Suspended => format!(
                    "which is Suspended ({}): drift here is not corrected, and changes in its source are not applied",
                    j.reason
                ),
                v => format!("which is {v} ({}): {}", j.reason, j.message),
            };
            let step = (j.verdict != Verdict::Converged).then(|| NextStep::new(
                format!(
                    "{who} manages it and is {}: fix it there; a change made here by hand is reverted (or left behind) at its next reconciliation.",
                    j.verdict
                ),
                vec![format!(
                    "kubectl -n {} describe {}.{}/{}",
                    named.namespace.as_deref().unwrap_or("default"),
                    named.kind.to_ascii_lowercase(),
                    named.group(),
                    named.name
                )],
            ));
            return Some((
                Finding {
                    reason: Aside::ManagedBy.into(),
                    message: format!(
                        "{}/{} is applied by {who} ({how}){from}, {state}",
                        obj.kind(),
                        obj.name()
                    ),
                    objects: vec![obj.id.clone(), m.id.clone()],
                },
                step,
            ));
        }
        if let Some((ns, release)) = crate::relations::helm_release(obj) {
            let revision = crate::relations::helm_revision(snap, &ns, &release)
                .map(|(v, status)| format!(", revision {v}: {status}"))
                .unwrap_or_default();
            return Some((
                Finding {
                    reason: Aside::ManagedBy.into(),
                    message: format!(
                        "{}/{} is installed by Helm release {ns}/{release}{revision} (labels app.kubernetes.io/managed-by, meta.helm.sh/release-name)",
                        obj.kind(),
                        obj.name()
                    ),
                    objects: vec![obj.id.clone()],
                },
                None,
            ));
        }
        at = obj.controller().and_then(|c| snap.get(&c.uid));
    }
    None
}

/// A controller that is down is the root cause: the chain goes from the
/// target to it, and the target's own lag (its symptom) is no cause of
/// its own.
fn blame_controller(
    c: &controller::ControllerCheck,
    target: &Object,
    causes: &mut Vec<Cause>,
    chain: &mut Vec<Link>,
) {
    let who = c
        .workload
        .clone()
        .or_else(|| c.lease.clone())
        .expect("a down controller has a lease");
    causes.retain(|c| c.objects != [target.id.clone()]);
    causes.insert(
        0,
        Cause {
            verdict: Verdict::Failed,
            reason: Aside::ControllerDown.into(),
            message: c.summary.clone(),
            count: 1,
            objects: vec![who.clone()],
        },
    );
    chain.truncate(1);
    chain.push(Link {
        object: Some(who),
        edge: Some(crate::relations::Edge::ReconciledBy),
        container: None,
        verdict: Some(c.workload_verdict.unwrap_or(Verdict::Failed)),
        reason: c
            .workload_reason
            .clone()
            .unwrap_or_else(|| Aside::LeaseExpired.into()),
        message: c
            .workload_message
            .clone()
            .unwrap_or_else(|| c.summary.clone()),
    });
}

/// The controller behind a target whose status lags past
/// [`controller::CONTROLLER_GRACE`]: observedGeneration behind since the
/// spec changed, no status since creation, or a pod no scheduler looked at.
fn quiet(
    snap: &Judged<'_>,
    target: &Object,
    judgement: &Judgement,
    generation: &GenerationCheck,
) -> Option<controller::ControllerCheck> {
    if judgement.verdict == Verdict::Converged {
        return None;
    }
    let since =
        if crate::verdict::controller::unscheduled(target) || generation.observed != Some(false) {
            target.created
        } else {
            generation
                .spec_changed
                .as_ref()
                .map(|c| c.at)
                .or(target.created)
        };
    let long = since.is_some_and(|t| snap.now.duration_since(t) > controller::CONTROLLER_GRACE);
    if !long
        || !(crate::verdict::controller::lags(target)
            || crate::verdict::controller::unscheduled(target))
    {
        return None;
    }
    controller::check(snap, target)
}

fn judge_all(snap: &Judged<'_>, node: &TreeNode, out: &mut HashMap<String, Judgement>) {
    node.walk(&mut |n| {
        let j = match &n.end {
            End::Found(uid) => match snap.get(uid) {
                Some(obj) => judge(obj, snap),
                None => {
                    let item = Item::missing(&snap.id_of(uid));
                    Judgement::new(
                        item.judgement.verdict,
                        item.judgement.reason,
                        item.judgement.message,
                    )
                }
            },
            End::Missing(r) => {
                let item = Item::missing(r);
                Judgement::new(
                    item.judgement.verdict,
                    item.judgement.reason,
                    item.judgement.message,
                )
            }
        };
        out.insert(n.key(), j);
    });
}

fn collect_uids<'a>(node: &'a TreeNode, out: &mut HashSet<&'a str>) {
    node.walk(&mut |n| {
        out.extend(n.uid());
    });
}

fn conditions(obj: &Object) -> Vec<ConditionView> {
    obj.conditions()
        .into_iter()
        .map(|c| ConditionView {
            abnormal: abnormal(&c),
            lagging: matches!((c.observed_generation, obj.generation), (Some(o), Some(g)) if o < g),
            condition: c,
        })
        .collect()
}

/// Why the timeline is empty: the events could not be read (say so, never
/// that there are none), or there are none to read.
fn events_note(snap: &Judged<'_>, target: &Object) -> String {
    let ns = target.namespace();
    let unread = snap.incomplete.iter().find(|g| {
        g.resource.split('.').next() == Some("events")
            && (g.namespace.is_none() || g.namespace.as_deref() == ns)
    });
    match unread {
        Some(gap) => format!(
            "the events could not be read ({}), so this answer cannot say what happened to these objects",
            gap.error
        ),
        None => NO_EVENTS.to_string(),
    }
}

impl Diagnosis {
    /// Every command it suggests aimed at `context` ([`in_context`]): the
    /// steps' commands, and those quoted in findings (`` `kubectl …` ``).
    pub fn aim_at(&mut self, context: &str) {
        for step in &mut self.next_steps {
            for command in &mut step.commands {
                *command = in_context(command, context);
            }
        }
        let quoted = format!("`kubectl --context {} ", shell_word(context));
        for finding in &mut self.findings {
            finding.message = finding.message.replace("`kubectl ", &quoted);
        }
    }
}

#[cfg(test)]
mod context_tests {
    use super::in_context;

    #[test]
    fn commands_are_aimed_at_the_context_asked() {
        assert_eq!(
            in_context("kubectl -n shop rollout undo deployment/web", "prod-eu"),
            "kubectl --context prod-eu -n shop rollout undo deployment/web"
        );
        assert_eq!(
            in_context("kubectl get nodes", "arn:aws:eks:eu-west-1:1:cluster/web"),
            "kubectl --context arn:aws:eks:eu-west-1:1:cluster/web get nodes"
        );
        assert_eq!(
            in_context("kubectl get nodes", "it's mine"),
            "kubectl --context 'it'\\''s mine' get nodes"
        );
        assert_eq!(in_context("helm rollback web", "prod"), "helm rollback web");
    }
}
