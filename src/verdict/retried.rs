//! Retried versus final. A custom resource's condition that names a
//! failure in a controller's catch-all words (`SecretSyncedError`,
//! `ScaledObjectCheckFailed`, `ReconcileError=True`) is what its operator
//! writes on every failed attempt, and it retries: an ExternalSecret
//! applied a moment before its SecretStore says so until the store is
//! there. Such a failure is Progressing for [`retry_grace`] after the
//! condition's transition, then Failed; a reason whose words say it is
//! final (`InvalidSpec`, `QuotaExceeded`, `Forbidden`: see
//! [`super::vocabulary::final_reason`]) is Failed at once, and so is
//! anything a health rule says (the pack knows its operators). Pure.

use jiff::SignedDuration;

use super::vocabulary::{final_reason, retried_reason, unqualified};
use super::{Judged, Judgement, Verdict};
use crate::model::{Condition, Object, age, human_duration};

/// How long an object may wait on a reference that is missing or not
/// ready, or on an error it retries, before the wait is a failure: the
/// retry grace where the command sets none.
pub const REFERENCE_GRACE: SignedDuration = SignedDuration::from_mins(2);

/// The shortest a retried failure is given, whatever the command asks:
/// `--fail-fast` shortens the grace to this, never to zero.
pub const RETRY_FLOOR: SignedDuration = SignedDuration::from_secs(30);

/// How long a failure its controller retries stands before it is final:
/// the failure grace in force (`--failure-grace`), else the grace of a
/// wait on a reference or an error ([`REFERENCE_GRACE`], 120 s), at least
/// [`RETRY_FLOOR`].
pub fn retry_grace(snap: &Judged<'_>) -> SignedDuration {
    snap.judge
        .failure_grace
        .unwrap_or(REFERENCE_GRACE)
        .max(RETRY_FLOOR)
}

/// Whether a condition names a failure its controller retries: its
/// reason, or for a condition of trouble its type, names a failure in
/// catch-all words and neither says it is final.
fn retried(c: &Condition) -> bool {
    let type_ = unqualified(&c.type_);
    if final_reason(&c.reason) || final_reason(type_) {
        return false;
    }
    retried_reason(&c.reason) || (c.is_true() && retried_reason(type_))
}

/// The condition a Failed verdict was read from: the one whose reason or
/// type it gives, since that condition's transition.
fn source<'a>(conds: &'a [Condition], j: &Judgement) -> Option<&'a Condition> {
    let reason = j.reason.as_str();
    conds.iter().find(|c| {
        c.last_transition_time.is_some()
            && c.last_transition_time == j.since
            && (c.reason == reason || unqualified(&c.type_) == reason)
    })
}

/// A Failed verdict of the conventions read from a retried failure on a
/// recent transition: Progressing until the grace has passed, saying since
/// when it fails and when it will be final; past it, Failed, saying for
/// how long it was retried. Anything else stands.
pub fn judge(obj: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    if j.verdict != Verdict::Failed {
        return j;
    }
    let conds = obj.conditions();
    let Some(c) = source(&conds, &j).filter(|c| retried(c)) else {
        return j;
    };
    let Some(first) = c.last_transition_time else {
        return j;
    };
    let grace = retry_grace(snap);
    let failing = age(snap.now, first);
    if snap.now.duration_since(first) > grace {
        return Judgement {
            message: format!(
                "{}; retried for {failing}, longer than the {} grace",
                j.message,
                human_duration(grace)
            ),
            ..j
        };
    }
    Judgement {
        verdict: Verdict::Progressing,
        message: format!(
            "{}; retrying: failing for {failing}, Failed if it lasts {}",
            j.message,
            human_duration(grace)
        ),
        ..j
    }
}
