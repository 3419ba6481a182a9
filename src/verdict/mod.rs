//! Judges one object: is it converged, and if not, why not. Pure: reads the
//! object and the snapshot it came in, never the cluster.
//!
//! The precedence is kstatus's: deletion, generation, abnormal-true
//! conditions, the per-kind rule, Ready-style conditions, and a default. The
//! first step with an answer wins. Two refinements: a spec that pauses
//! reconciliation (a paused Deployment) is judged before the generation
//! step, and an object whose controller should have written status but has
//! not is Unknown before any per-kind rule reads zeros into it.

pub(crate) mod conditions;
mod deletion;
mod kinds;
mod words;

#[cfg(test)]
mod tests;

use jiff::Timestamp;
use serde::Serialize;

use crate::model::{Condition, Object, Snapshot, age};

use conditions::{cite, false_, find, lagging, reason_or, true_};

/// The verdicts of the product contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Verdict {
    Converged,
    Progressing,
    Failed,
    Suspended,
    Terminating,
    Unknown,
    NotFound,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Converged => "Converged",
            Verdict::Progressing => "Progressing",
            Verdict::Failed => "Failed",
            Verdict::Suspended => "Suspended",
            Verdict::Terminating => "Terminating",
            Verdict::Unknown => "Unknown",
            Verdict::NotFound => "NotFound",
        }
    }

    /// Higher is worse; used to sort "most severe first".
    pub fn severity(self) -> u8 {
        match self {
            Verdict::Converged => 0,
            Verdict::Suspended => 1,
            Verdict::Progressing => 2,
            Verdict::Terminating => 3,
            Verdict::Unknown => 4,
            Verdict::NotFound => 5,
            Verdict::Failed => 6,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Ready counts where they mean something: `ready` of `desired`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ready {
    pub ready: i64,
    pub desired: i64,
}

/// A verdict with its stable CamelCase reason and a message citing evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judgement {
    pub verdict: Verdict,
    pub reason: String,
    pub message: String,
    /// Since when the object has been in this state, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<Ready>,
}

impl Judgement {
    pub fn new(
        verdict: Verdict,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Judgement {
        Judgement {
            verdict,
            reason: reason.into(),
            message: message.into(),
            since: None,
            ready: None,
        }
    }

    /// Sets since when the object has been in this state.
    pub fn since(mut self, since: Option<Timestamp>) -> Judgement {
        self.since = since;
        self
    }

    /// Sets the ready counts.
    pub fn ready(mut self, ready: i64, desired: i64) -> Judgement {
        self.ready = Some(Ready { ready, desired });
        self
    }
}

/// Judges one object of the snapshot.
pub fn judge(obj: &Object, snap: &Snapshot) -> Judgement {
    if let Some(j) = deletion::judge(obj, snap) {
        return j;
    }
    // Health rules (built-in and the user's) override the conventions below.
    if let Some(j) = snap.rules().judge(obj, snap.now) {
        return j;
    }
    if obj.metadata_only {
        return Judgement::new(
            Verdict::Converged,
            "Exists",
            format!("{} exists; only its metadata was read", obj.kind()),
        );
    }
    let rule = kinds::rule_for(obj.group(), obj.kind());
    // A spec that pauses reconciliation is a decision, not a lag: a paused
    // Deployment may have a newer generation than its controller observed.
    if let Some(j) = rule
        .and_then(|r| r.paused)
        .and_then(|paused| paused(obj, snap))
    {
        return j;
    }
    let conds = obj.conditions();
    if let Some(j) = generation(obj, &conds, rule.is_none()) {
        return j;
    }
    if let Some(j) = abnormal(&conds) {
        return j;
    }
    // Nobody has written status: no per-kind rule can read anything into
    // the zeros of a missing status.
    let expects_status = match rule {
        Some(r) => r.expects_status,
        None => obj
            .status_subresource
            .unwrap_or_else(|| !is_builtin_group(obj.group()) && obj.at("/spec").is_some()),
    };
    if expects_status && status_is_empty(obj) {
        return no_status(obj, snap);
    }
    if let Some(j) = rule.and_then(|r| (r.judge)(obj, snap)) {
        return j;
    }
    if let Some(j) = readiness(&conds) {
        return j;
    }
    default(obj)
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
            "ObservedGenerationLag",
            format!("controller has observed generation {observed} of {generation}"),
        ));
    }
    if !read_conditions {
        return None;
    }
    let (cond, observed, generation) = lagging(obj, conds)?;
    Some(Judgement::new(
        Verdict::Progressing,
        "ObservedGenerationLag",
        format!(
            "condition {} reflects generation {observed} of {generation}; the controller has not caught up",
            cond.type_
        ),
    ))
}

/// Step 3: conditions whose `True` means trouble or work in progress.
fn abnormal(conds: &[Condition]) -> Option<Judgement> {
    if let Some(c) = true_(conds, "Stalled") {
        return Some(
            Judgement::new(Verdict::Failed, reason_or(c, "Stalled"), cite(c))
                .since(c.last_transition_time),
        );
    }
    let c = true_(conds, "Reconciling")?;
    Some(
        Judgement::new(Verdict::Progressing, reason_or(c, "Reconciling"), cite(c))
            .since(c.last_transition_time),
    )
}

/// Step 5: the conditions most controllers share, which is how custom
/// resources are judged. Failure signals win over a Ready that may be stale.
fn readiness(conds: &[Condition]) -> Option<Judgement> {
    let failed = false_(conds, "Synced")
        .map(|c| (c, "SyncFailed"))
        .or_else(|| true_(conds, "Degraded").map(|c| (c, "Degraded")))
        .or_else(|| true_(conds, "Failed").map(|c| (c, "Failed")));
    if let Some((c, fallback)) = failed {
        return Some(
            Judgement::new(Verdict::Failed, reason_or(c, fallback), cite(c))
                .since(c.last_transition_time),
        );
    }
    let c = ["Ready", "Available", "Healthy"]
        .into_iter()
        .find_map(|t| find(conds, t))?;
    let j = if c.is_true() {
        Judgement::new(Verdict::Converged, c.type_.clone(), cite(c))
    } else {
        let message = if c.message.is_empty() {
            cite(c)
        } else {
            c.message.clone()
        };
        Judgement::new(
            Verdict::Progressing,
            reason_or(c, &format!("Not{}", c.type_)),
            message,
        )
    };
    Some(j.since(c.last_transition_time))
}

/// An object whose type should have status, and has none.
fn no_status(obj: &Object, snap: &Snapshot) -> Judgement {
    let message = match obj.created {
        Some(created) => format!(
            "no controller has written status since creation {} ago",
            age(snap.now, created)
        ),
        None => "no controller has written status".to_string(),
    };
    Judgement::new(Verdict::Unknown, "NoStatus", message).since(obj.created)
}

fn status_is_empty(obj: &Object) -> bool {
    obj.status()
        .is_none_or(|s| s.as_object().is_some_and(|m| m.is_empty()))
}

/// Step 6: nothing above had an answer.
fn default(obj: &Object) -> Judgement {
    if status_is_empty(obj) {
        return Judgement::new(
            Verdict::Converged,
            "Exists",
            format!("{} has no status to reconcile", obj.kind()),
        );
    }
    let message = match obj.observed_generation() {
        Some(g) => {
            format!("controller has observed generation {g}; no condition reports a problem")
        }
        None => "status reports no problem".to_string(),
    };
    Judgement::new(Verdict::Converged, "Current", message)
}

/// Groups served by the API server itself. Some CRD groups end in
/// `.k8s.io` too (`gateway.networking.k8s.io`), so this is a list.
fn is_builtin_group(group: &str) -> bool {
    matches!(
        group,
        "" | "apps"
            | "batch"
            | "autoscaling"
            | "policy"
            | "extensions"
            | "admissionregistration.k8s.io"
            | "apiextensions.k8s.io"
            | "apiregistration.k8s.io"
            | "authentication.k8s.io"
            | "authorization.k8s.io"
            | "certificates.k8s.io"
            | "coordination.k8s.io"
            | "discovery.k8s.io"
            | "events.k8s.io"
            | "flowcontrol.apiserver.k8s.io"
            | "internal.apiserver.k8s.io"
            | "networking.k8s.io"
            | "node.k8s.io"
            | "rbac.authorization.k8s.io"
            | "resource.k8s.io"
            | "scheduling.k8s.io"
            | "storage.k8s.io"
            | "storagemigration.k8s.io"
    )
}
