//! Step 5 of the precedence, for what the generation check cannot see:
//! who wrote the status, and whether that controller is alive. A custom
//! resource whose kind reports no `observedGeneration` and whose spec was
//! written after its controller last wrote the status
//! ([`controller::unseen_spec`]) is not converged while that controller is
//! down or unknown; a built-in workload whose controller never wrote its
//! status ([`controller::never_written`]) is waiting, then Failed naming
//! kube-controller-manager. Pure: the Leases are objects of the snapshot.

use jiff::SignedDuration;

use super::controller::{self, Liveness};
use super::reason::{Aside, Lifecycle};
use super::{Judged, Judgement, NO_STATUS_GRACE, Verdict};
use crate::model::{Object, age};

/// How long a spec newer than the status's last write is given before the
/// controller's Lease decides: a running controller acts within seconds.
/// The same grace `why` gives a lag before it looks for the controller.
pub const CONTROLLER_GRACE: SignedDuration = SignedDuration::from_secs(30);

/// Whether the answer tried to read Leases and was refused.
fn leases_refused(snap: &Judged<'_>) -> bool {
    snap.incomplete
        .iter()
        .any(|g| g.resource.starts_with("leases"))
}

/// A verdict for a spec the controller may not have seen, or for a
/// built-in status never written; `None` when neither applies, or when
/// the controller is running and its grace has passed (the status is
/// trusted: see [`trusted`]).
pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    if controller::never_written(obj) {
        return Some(never_written(obj, snap));
    }
    let unseen = controller::unseen_spec(obj)?;
    let now = snap.now;
    let live = controller::liveness(snap.objects(), obj, now, leases_refused(snap));
    let since = now.duration_since(unseen.spec.at);
    let writes = format!(
        "spec changed {} ago by {}, after {} last wrote the status {} ago; {} reports no observedGeneration",
        age(now, unseen.spec.at),
        unseen.spec.manager,
        unseen.status.manager,
        age(now, unseen.status.at),
        obj.kind()
    );
    let within = since <= CONTROLLER_GRACE;
    let j = match &live {
        Liveness::Running { .. } if !within => return None,
        Liveness::Running { .. } => Judgement::new(
            Verdict::Progressing,
            Lifecycle::SpecNotObserved,
            format!(
                "{writes}: waiting for {} to act on it ({})",
                unseen.status.manager,
                live.text(now)
            ),
        ),
        _ if within => Judgement::new(
            Verdict::Progressing,
            Lifecycle::SpecNotObserved,
            format!(
                "{writes}; its controller: {}; not converged until it acts on the spec",
                live.text(now)
            ),
        ),
        Liveness::Down { .. } => Judgement::new(
            Verdict::Failed,
            Aside::ControllerDown,
            format!(
                "{writes}, and its controller is not running: {}",
                live.text(now)
            ),
        ),
        Liveness::NotFound { .. } | Liveness::Unread { .. } => Judgement::new(
            Verdict::Unknown,
            Lifecycle::ControllerNotFound,
            format!(
                "{writes}, and whether its controller runs is not known: {}",
                live.text(now)
            ),
        ),
    };
    Some(j.since(Some(unseen.spec.at)))
}

/// What was trusted, for a Converged verdict whose status was written
/// before the spec's last change while its controller runs: the status
/// is taken as current (many operators do not rewrite an unchanged
/// status), and the answer says so.
pub fn trusted(obj: &Object, snap: &Judged<'_>) -> Option<String> {
    let unseen = controller::unseen_spec(obj)?;
    let live = controller::liveness(snap.objects(), obj, snap.now, false);
    matches!(live, Liveness::Running { .. }).then(|| {
        format!(
            "the status, written {} ago, predates the spec's change {} ago; trusted: its controller runs ({})",
            age(snap.now, unseen.status.at),
            age(snap.now, unseen.spec.at),
            live.text(snap.now)
        )
    })
}

/// A built-in workload kube-controller-manager never wrote: waiting for
/// [`NO_STATUS_GRACE`] after creation, then Failed, naming its Lease.
fn never_written(obj: &Object, snap: &Judged<'_>) -> Judgement {
    let now = snap.now;
    let live = controller::liveness(snap.objects(), obj, now, leases_refused(snap));
    let created = obj.created;
    let for_ = created
        .map(|c| format!("created {} ago", age(now, c)))
        .unwrap_or_else(|| "age unknown".into());
    let within = created.is_none_or(|c| now.duration_since(c) <= NO_STATUS_GRACE);
    let who = "kube-controller-manager";
    if within {
        return Judgement::new(
            Verdict::Progressing,
            Lifecycle::WaitingForController,
            format!("waiting for its controller to write status ({for_}): {who}"),
        )
        .since(created);
    }
    let reason = match live {
        Liveness::Down { .. } => Aside::ControllerDown.into(),
        _ => super::Reason::from(Lifecycle::NoStatus),
    };
    Judgement::new(
        Verdict::Failed,
        reason,
        format!(
            "no controller has written status since creation{}: {who} never wrote it (no observedGeneration); {}",
            created
                .map(|c| format!(" {} ago", age(now, c)))
                .unwrap_or_default(),
            live.text(now)
        ),
    )
    .since(created)
}
