//! Judges one object: is it converged, and if not, why not. Pure: reads the
//! object and the snapshot it came in, never the cluster.
//!
//! The precedence is kstatus's: deletion, generation, abnormal-true
//! conditions, the per-kind rule, Ready-style conditions, and a default. The
//! first step with an answer wins. Refinements: health rules come right
//! after deletion, but the generation check still stands before any
//! Converged or Progressing they give (a rule never passes a stale status);
//! a spec that pauses
//! reconciliation (a paused Deployment, `spec.suspend` on a custom resource)
//! is judged before the generation step, and an object whose controller
//! should have written status but has not is waiting for it (Progressing,
//! then Unknown after [`NO_STATUS_GRACE`]) before any per-kind rule reads
//! zeros into it. `docs/verdicts.md` is this precedence in the user's words.

pub(crate) mod columns;
pub(crate) mod conditions;
pub(crate) mod controller;
mod conventions;
mod deletion;
mod item;
mod judge;
mod kinds;
pub(crate) mod reason;
mod refusals;
pub(crate) mod retried;
pub(crate) mod rules;
mod shapes;
pub(crate) mod tree;
mod unobserved;
pub(crate) mod value;
mod vocabulary;
mod words;

#[cfg(test)]
mod tests;

pub use item::Item;
pub use judge::{Judge, Judged};
pub use kinds::{NO_PROVISIONER, class_provisioner};
pub use reason::Reason;
pub use refusals::is_refusal;
pub use unobserved::CONTROLLER_GRACE;
#[cfg(test)]
pub use value::Ready;
pub use value::{Judgement, Verdict};
pub use vocabulary::{Polarity, camel_words, polarity};

use jiff::SignedDuration;

use crate::model::{Condition, Object, age};

use conditions::{cite, lagging, reason_or, true_};
use reason::{Aside, Lifecycle, Network, Scheduling};

/// Whether an object's verdict reads nothing but the object (and the
/// health rules): a kind without a rule of its own is judged by the shared
/// conventions over its own status, and no other kind's verdict reads it.
/// A sweep may then judge it as soon as its list arrives, and keep only
/// the row.
pub fn judged_alone(obj: &Object) -> bool {
    kinds::rule_for(obj.group(), obj.kind()).is_none()
        && obj.deleted.is_none()
        && !obj.metadata_only
        && !controller::lags(obj)
}

/// Judges one object of the snapshot.
pub fn judge(obj: &Object, snap: &Judged<'_>) -> Judgement {
    let mut j = judge_own(obj, snap);
    // A status older than the spec, taken as current because its
    // controller runs: the answer says what it trusted.
    if j.verdict == Verdict::Converged
        && let Some(note) = unobserved::trusted(obj, snap)
    {
        j.message = format!("{}; {note}", j.message);
    }
    // A refusal said only in Warning events (a quota, a mount): the cause
    // of work under way, and final once it has recurred past the grace.
    let j = refusals::judge(obj, j, snap);
    if obj.metadata_only
        || rule_for(obj).is_some()
        || matches!(
            j.reason,
            Reason::Lifecycle(Lifecycle::SpecNotObserved | Lifecycle::ControllerNotFound)
        )
    {
        return j;
    }
    // A custom resource in a state since its conditions last changed, where
    // neither a rule nor a convention said since when.
    let j = match j.since {
        Some(_) => j,
        None => {
            let changed = obj
                .conditions()
                .iter()
                .filter_map(|c| c.last_transition_time)
                .max();
            j.since(changed)
        }
    };
    // A failure its controller retries, on a recent transition, is not
    // final yet; a health rule's word is taken as it is.
    let j = match snap.judge.rules.rule_for(obj.group(), obj.kind()) {
        None => retried::judge(obj, j, snap),
        Some(_) => j,
    };
    if j.verdict != Verdict::Progressing {
        return conventions::explained(obj, j);
    }
    let j = kinds::failed_below(obj, j, snap);
    let j = kinds::bounded(obj, j, snap);
    let j = conventions::waiting_on_error(obj, j, snap);
    conventions::explained(obj, conventions::bounded_wait(obj, j, snap))
}

/// The kind's own rule, for the built-in kinds that have one.
fn rule_for(obj: &Object) -> Option<&'static kinds::Rule> {
    kinds::rule_for(obj.group(), obj.kind())
}

/// Judges one object from what it says itself, and for built-in kinds
/// what their rule reads below them.
fn judge_own(obj: &Object, snap: &Judged<'_>) -> Judgement {
    if let Some(j) = deletion::judge(obj, snap) {
        return j;
    }
    let rule = kinds::rule_for(obj.group(), obj.kind());
    // Health rules (built-in and the user's) override the conventions
    // below, but none reads success (or work toward it) into a status its
    // controller wrote for an older spec: a rule may say Failed or
    // Suspended from a stale status, never Converged.
    if let Some(j) = snap.judge.rules.judge(obj, snap.now) {
        return match j.verdict {
            Verdict::Converged | Verdict::Progressing => {
                let conds = obj.conditions();
                generation(obj, &conds, rule.is_none())
                    .or_else(|| unobserved::judge(obj, snap))
                    .or_else(|| contradicted(obj, &conds, &j, snap))
                    .unwrap_or(j)
            }
            _ => j,
        };
    }
    if obj.metadata_only {
        return Judgement::new(
            Verdict::Converged,
            Lifecycle::Exists,
            format!("{} exists; only its metadata was read", obj.kind()),
        );
    }
    // A spec that pauses reconciliation is a decision, not a lag: a paused
    // Deployment may have a newer generation than its controller observed.
    let paused = match rule {
        Some(r) => r.paused.and_then(|paused| paused(obj, snap)),
        None => conventions::suspended(obj),
    };
    if let Some(j) = paused {
        return j;
    }
    let conds = obj.conditions();
    if let Some(j) = generation(obj, &conds, rule.is_none()) {
        return j;
    }
    // Who wrote the status, and whether it is alive: a spec its
    // controller may not have seen, a built-in status never written.
    if let Some(j) = unobserved::judge(obj, snap) {
        return j;
    }
    if let Some(j) = abnormal(&conds, rule.is_none()) {
        return j;
    }
    // Nobody has written status: no per-kind rule can read anything into
    // the zeros of a missing status.
    let expects_status = match rule {
        Some(r) => r.expects_status,
        None => obj.status_subresource.unwrap_or_else(|| {
            !crate::catalog::is_builtin_group(obj.group()) && obj.at("/spec").is_some()
        }),
    };
    if expects_status && status_is_empty(obj) {
        return no_status(obj, snap);
    }

    if let Some(j) = rule.and_then(|r| (r.judge)(obj, snap)) {
        return j;
    }
    if let Some(j) = conventions::judge(obj, &conds, snap) {
        return j;
    }
    // No convention reads it: what its operator's CRD points at, when the
    // answer holds the CRD (its printer columns, its enums).
    if rule.is_none()
        && !crate::catalog::is_builtin_group(obj.group())
        && let Some(j) = columns::judge(obj, snap)
    {
        return j;
    }
    // Nothing in the status speaks, and it holds nothing but identifiers
    // or empty lists: no health reported yet, rather than no signal.
    if expects_status
        && rule.is_none()
        && let Some(fields) = reports_no_health(obj)
    {
        return no_health(obj, snap, &fields);
    }
    default(obj)
}

/// A built-in health rule's success, or work under way, that a convention
/// contradicts ([`conventions::contradiction`]) on a custom resource: the
/// built-in pack says more than the conventions, never less. A rule of the
/// user's is taken at its word.
fn contradicted(
    obj: &Object,
    conds: &[Condition],
    j: &Judgement,
    snap: &Judged<'_>,
) -> Option<Judgement> {
    let builtin = snap
        .judge
        .rules
        .rule_for(obj.group(), obj.kind())
        .is_some_and(|r| matches!(r.origin, rules::Origin::Builtin(_)));
    if !builtin || crate::catalog::is_builtin_group(obj.group()) {
        return None;
    }
    conventions::contradiction(conds, j.verdict, snap)
}

/// A finding that goes with a verdict that is Converged yet deserves a
/// word: a PodDisruptionBudget that allows no disruption, a DaemonSet whose
/// node selector matches no node. Returns the finding's reason and message.
pub fn concern(obj: &Object, j: &Judgement) -> Option<(Reason, String)> {
    match j.reason {
        Reason::Network(Network::NoDisruptionsAllowed) => Some((
            Aside::DisruptionsBlocked.into(),
            format!(
                "PodDisruptionBudget {} allows 0 disruptions: {}; scale the workload up or relax minAvailable/maxUnavailable",
                obj.name(),
                kinds::PDB_BLOCKS
            ),
        )),
        Reason::Scheduling(Scheduling::NoMatchingNodes) => Some((
            Scheduling::NoMatchingNodes.into(),
            format!(
                "DaemonSet {} runs no pod: its node selector {} matches no node; label a node or fix the selector",
                obj.name(),
                kinds::node_selector(obj)
            ),
        )),
        _ => None,
    }
}

/// Step 2: the controller has not yet observed the latest spec, as told by
/// `status.observedGeneration` or a condition's own `observedGeneration`.
/// Where the controller does not report one, there is no lag to see.
///
/// Conditions are only read for kinds without a rule (custom resources,
/// where `metav1.Condition.observedGeneration` is the convention): built-in
/// kinds carry conditions owned by other components, such as a Pod's
/// PodScheduled, which the scheduler never revisits after an in-place
/// resize bumps the generation.
fn generation(obj: &Object, conds: &[Condition], read_conditions: bool) -> Option<Judgement> {
    if let (Some(generation), Some(observed)) = (obj.generation, obj.observed_generation())
        && observed < generation
    {
        return Some(Judgement::new(
            Verdict::Progressing,
            Lifecycle::ObservedGenerationLag,
            format!("controller has observed generation {observed} of {generation}"),
        ));
    }
    if !read_conditions {
        return None;
    }
    if let Some((cond, observed, generation)) = lagging(obj, conds) {
        return Some(Judgement::new(
            Verdict::Progressing,
            Lifecycle::ObservedGenerationLag,
            format!(
                "condition {} reflects generation {observed} of {generation}; the controller has not caught up",
                cond.type_
            ),
        ));
    }
    // Conditions nested per parent or ancestor carry their own.
    shapes::parts(obj).into_iter().find_map(|part| {
        let (cond, observed, generation) = lagging(obj, &part.conditions)?;
        Some(Judgement::new(
            Verdict::Progressing,
            Lifecycle::ObservedGenerationLag,
            format!(
                "{}: condition {} reflects generation {observed} of {generation}; the controller has not caught up",
                part.label, cond.type_
            ),
        ))
    })
}

/// Step 3: conditions whose `True` means trouble or work in progress. For
/// kinds without a rule, also every condition whose type names a problem
/// (`*Failed`, `*Error`, `Degraded`, ...) and Cluster API's `severity:
/// Error`; built-in kinds name theirs in their rules (a Deployment's
/// `ReplicaFailure` may be stale).
fn abnormal(conds: &[Condition], conventions: bool) -> Option<Judgement> {
    if let Some(c) = true_(conds, "Stalled") {
        return Some(
            Judgement::new(Verdict::Failed, reason_or(c, Lifecycle::Stalled), cite(c))
                .since(c.last_transition_time),
        );
    }
    if conventions && let Some(j) = conventions::negative(conds) {
        return Some(j);
    }
    if let Some(c) = true_(conds, "Reconciling") {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                reason_or(c, Lifecycle::Reconciling),
                cite(c),
            )
            .since(c.last_transition_time),
        );
    }
    if conventions {
        return conventions::in_progress(conds);
    }
    None
}

/// How long an object whose controller should write status may go without
/// one before it is Unknown rather than waiting: a controller that runs
/// writes status within seconds of a create.
pub const NO_STATUS_GRACE: SignedDuration = SignedDuration::from_secs(60);

/// An object whose type should have status, and has none: not observed
/// yet, until [`NO_STATUS_GRACE`] has passed since its creation. With no
/// creation time (a snapshot of manifests) its age is unknown, so it is
/// waiting.
fn no_status(obj: &Object, snap: &Judged<'_>) -> Judgement {
    match obj.created {
        Some(created) if snap.now.duration_since(created) > NO_STATUS_GRACE => Judgement::new(
            Verdict::Unknown,
            Lifecycle::NoStatus,
            format!(
                "no controller has written status since creation {} ago",
                age(snap.now, created)
            ),
        )
        .since(obj.created),
        Some(created) => Judgement::new(
            Verdict::Progressing,
            Lifecycle::WaitingForController,
            format!(
                "waiting for its controller to write status (created {} ago)",
                age(snap.now, created)
            ),
        )
        .since(obj.created),
        None => Judgement::new(
            Verdict::Progressing,
            Lifecycle::WaitingForController,
            "waiting for its controller to write status (age unknown)",
        ),
    }
}

/// Status fields that identify what the controller made (AWS ACK's
/// `ackResourceMetadata`, an `arn`, an `id`) and say nothing of its health.
const IDENTIFIERS: &[&str] = &[
    "ackResourceMetadata",
    "arn",
    "id",
    "resourceId",
    "resourceID",
    "externalID",
    "externalName",
];

/// A status that holds only identifiers, or empty lists and maps
/// (`conditions: []`): the controller has not reported health yet. The
/// fields it does hold, to name them.
fn reports_no_health(obj: &Object) -> Option<Vec<String>> {
    let status = obj.status()?.as_object()?;
    let empty = |v: &serde_json::Value| match v {
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Object(m) => m.is_empty(),
        serde_json::Value::Null => true,
        _ => false,
    };
    // An observedGeneration alone is evidence the spec was acted on
    // (`NoHealthSignal`), not a lack of report.
    let said: Vec<(&String, &serde_json::Value)> = status
        .iter()
        .filter(|(k, _)| k.as_str() != "observedGeneration")
        .collect();
    (!said.is_empty()
        && said
            .iter()
            .all(|(k, v)| IDENTIFIERS.contains(&k.as_str()) || empty(v)))
    .then(|| {
        said.iter()
            .map(|(k, v)| {
                if empty(v) {
                    format!("{k}: {v}")
                } else {
                    k.to_string()
                }
            })
            .collect()
    })
}

/// A status that reports no health yet: waiting for its controller within
/// [`NO_STATUS_GRACE`] of creation, then Unknown, naming what it holds.
fn no_health(obj: &Object, snap: &Judged<'_>, fields: &[String]) -> Judgement {
    let holds = format!("its status holds only {}", fields.join(", "));
    let mut j = no_status(obj, snap);
    j.message = match j.verdict {
        Verdict::Unknown => format!(
            "{holds}: no health reported since creation{}",
            obj.created
                .map(|c| format!(" {} ago", age(snap.now, c)))
                .unwrap_or_default()
        ),
        _ => format!("{holds}: waiting for its controller to report health"),
    };
    j
}

fn status_is_empty(obj: &Object) -> bool {
    obj.status()
        .is_none_or(|s| s.as_object().is_some_and(|m| m.is_empty()))
}

/// Step 6: nothing above had an answer. An object with no status (of a
/// type that keeps none) has nothing to reconcile: Converged, `Exists`. A
/// built-in kind whose status no rule reads (a ResourceQuota's usage)
/// reports no problem: Converged, `Current`. A custom resource whose
/// status no convention can read is said to be so (`NoHealthSignal`),
/// never passed as converged in silence: Converged when its controller has
/// observed the current generation (that much is evidence), else Unknown.
fn default(obj: &Object) -> Judgement {
    if status_is_empty(obj) {
        return Judgement::new(
            Verdict::Converged,
            Lifecycle::Exists,
            format!("{} has no status to reconcile", obj.kind()),
        );
    }
    if crate::catalog::is_builtin_group(obj.group()) {
        let message = match obj.observed_generation() {
            Some(g) => {
                format!("controller has observed generation {g}; no condition reports a problem")
            }
            None => "status reports no problem".to_string(),
        };
        return Judgement::new(Verdict::Converged, Lifecycle::Current, message);
    }
    match (obj.observed_generation(), obj.generation) {
        (Some(observed), Some(generation)) if observed >= generation => Judgement::new(
            Verdict::Converged,
            Lifecycle::NoHealthSignal,
            format!(
                "controller has observed generation {observed}; no condition, status word or count says more (a health rule can: {})",
                NO_SIGNAL_HINT
            ),
        ),
        _ => Judgement::new(
            Verdict::Unknown,
            Lifecycle::NoHealthSignal,
            format!(
                "status has no condition, status word, count or observedGeneration to judge by (a health rule can: {})",
                NO_SIGNAL_HINT
            ),
        ),
    }
}

/// Where a rule for a kind no convention reads goes.
pub const NO_SIGNAL_HINT: &str = "see docs/health-rules.md";
