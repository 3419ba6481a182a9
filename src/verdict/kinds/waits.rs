//! A custom resource whose operator waits on another object it names (a
//! Certificate's issuer): the wait is bounded. Past
//! `REFERENCE_GRACE` (see `verdict::retried`; under `--fail-fast`, the retry floor of 30 s: the
//! operator retries, and the object is often applied a moment later), counted from when the
//! object's own state last changed, a reference that does not exist or is
//! not ready is the cause, and the object is Failed, naming it. An issuer
//! created or mended a moment later is picked up within the grace.

use crate::model::{Object, age, waits_on};
use crate::verdict::reason::Lifecycle;
use crate::verdict::{Judged, Judgement, Verdict, judge};

#[cfg(test)]
pub use crate::verdict::retried::REFERENCE_GRACE;

/// The object's verdict, Failed when it has waited past the grace on a
/// reference that is gone or not ready; else as it was.
pub fn bounded(obj: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    if j.verdict != Verdict::Progressing {
        return j;
    }
    let Some(wanted) = waits_on(obj) else {
        return j;
    };
    let grace = crate::verdict::retried::retry_grace(snap);
    let since = j.since.or(obj.created);
    let waited = since.map(|t| snap.now.duration_since(t));
    if waited.is_none_or(|w| w < grace) {
        return j;
    }
    let how_long = since
        .map(|t| format!(" for {}", age(snap.now, t)))
        .unwrap_or_default();
    let what = format!("{} {}", wanted.kind, wanted.name);
    let found = snap.find(
        wanted.group(),
        &wanted.kind,
        wanted.namespace.as_deref(),
        &wanted.name,
    );
    let (reason, why) = match found {
        Some(issuer) => {
            let state = judge(issuer, snap);
            if state.verdict == Verdict::Converged {
                return j;
            }
            (
                Lifecycle::ReferenceNotReady,
                format!(
                    "waits on {what}, which is {} ({}): {}",
                    state.verdict, state.reason, state.message
                ),
            )
        }
        None if snap.absent.iter().any(|a| {
            a.kind == wanted.kind && a.name == wanted.name && a.namespace == wanted.namespace
        }) =>
        {
            (
                Lifecycle::ReferenceNotFound,
                format!("waits on {what}, which does not exist"),
            )
        }
        // Not read (forbidden, or not looked for): nothing to say.
        None => return j,
    };
    Judgement::new(
        Verdict::Failed,
        reason,
        format!("{why}; {}{how_long}", j.message),
    )
    .since(since)
}
