//! How any kind without a per-kind rule is judged, from status conventions
//! many controllers share: a spec that suspends, conditions that name a
//! problem, status words (`status.phase`, `status.state`, `status.health`,
//! `status.status`), `healthy`/`ready` booleans and Ready-style conditions.

use jiff::{SignedDuration, Timestamp};

use crate::model::{Condition, Object, Snapshot, age};

use super::conditions::{cite, find, reason_or, true_};
use super::vocabulary::{
    POSITIVE_CONDITIONS, ReasonClass, Word, is_negative_condition, reason_class, status_word,
    unqualified,
};
use super::{Judgement, Verdict};

/// How long a Ready-style condition may stay False, for a reason that names
/// neither a failure nor work under way, before the object is judged
/// Failed with "no progress for X". The same ten minutes as a Deployment's
/// default `progressDeadlineSeconds`.
pub const NO_PROGRESS_GRACE: SignedDuration = SignedDuration::from_mins(10);

/// `spec.suspend: true` (Flux, CronJob-like kinds) or `spec.paused: true`
/// (Argo Rollouts, Cluster API): Suspended, unless the status says the
/// controller has not acted on it (a `Suspended` or `Paused` condition that
/// is not True).
pub fn suspended(obj: &Object) -> Option<Judgement> {
    let field = ["suspend", "paused"]
        .into_iter()
        .find(|f| obj.bool(&format!("/spec/{f}")) == Some(true))?;
    let conds = obj.conditions();
    if let Some(c) = ["Suspended", "Paused"]
        .into_iter()
        .find_map(|t| find(&conds, t))
        .filter(|c| !c.is_true())
    {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                "SuspendPending",
                format!(
                    "spec.{field} is true but the controller has not acted on it yet: {}",
                    cite(c)
                ),
            )
            .since(c.last_transition_time),
        );
    }
    Some(Judgement::new(
        Verdict::Suspended,
        "Suspended",
        format!("reconciliation stopped by spec.{field}"),
    ))
}

/// Conditions whose `True` means trouble, and Cluster API's `severity:
/// Error` on a False one: Failed, whatever else the status says.
pub fn negative(conds: &[Condition]) -> Option<Judgement> {
    let c = conds
        .iter()
        .find(|c| c.is_true() && is_negative_condition(&c.type_))
        .or_else(|| conds.iter().find(|c| c.is_false() && c.severity == "Error"))?;
    Some(
        Judgement::new(
            Verdict::Failed,
            reason_or(c, unqualified(&c.type_)),
            cite(c),
        )
        .since(c.last_transition_time),
    )
}

/// Conditions whose `True` means work under way: cert-manager's `Issuing`,
/// Strimzi's `NotReady`.
pub fn in_progress(conds: &[Condition]) -> Option<Judgement> {
    let c = true_(conds, "Issuing").or_else(|| true_(conds, "NotReady"))?;
    Some(
        Judgement::new(
            Verdict::Progressing,
            reason_or(c, unqualified(&c.type_)),
            cite(c),
        )
        .since(c.last_transition_time),
    )
}

/// The status fields that hold one word about the whole object.
const WORD_FIELDS: [&str; 5] = [
    "/status/phase",
    "/status/state",
    "/status/health",
    "/status/health/status",
    "/status/status",
];

/// Step 5: status words, booleans and Ready-style conditions. Failure
/// signals come first, so a stale `Ready=True` cannot hide them.
pub fn judge(obj: &Object, conds: &[Condition], snap: &Snapshot) -> Option<Judgement> {
    let words: Vec<(&str, &str, Word)> = WORD_FIELDS
        .iter()
        .filter_map(|p| {
            let value = obj.str(p)?;
            Some((&p[1..], value, status_word(value)?))
        })
        .collect();
    let word = |want: Word| words.iter().find(|(_, _, w)| *w == want);

    if let Some((field, value, _)) = word(Word::Failed) {
        return Some(said(obj, field, value, Verdict::Failed, "Failed"));
    }
    if obj.bool("/status/healthy") == Some(false) {
        return Some(Judgement::new(
            Verdict::Failed,
            "Unhealthy",
            with_detail(obj, "status.healthy is false".into()),
        ));
    }
    if let Some(j) = positive(conds, snap) {
        return Some(j);
    }
    if let Some((field, value, _)) = word(Word::Suspended) {
        return Some(said(obj, field, value, Verdict::Suspended, "Suspended"));
    }
    if let Some((field, value, _)) = word(Word::Progressing) {
        return Some(said(obj, field, value, Verdict::Progressing, "InProgress"));
    }
    if obj.bool("/status/ready") == Some(false) {
        return Some(Judgement::new(
            Verdict::Progressing,
            "NotReady",
            with_detail(obj, "status.ready is false".into()),
        ));
    }
    if let Some((field, value, _)) = word(Word::Converged) {
        return Some(said(obj, field, value, Verdict::Converged, "Current"));
    }
    if obj.bool("/status/healthy") == Some(true) || obj.bool("/status/ready") == Some(true) {
        let field = if obj.bool("/status/healthy").is_some() {
            "healthy"
        } else {
            "ready"
        };
        return Some(Judgement::new(
            Verdict::Converged,
            "Current",
            format!("status.{field} is true"),
        ));
    }
    None
}

/// The Ready-style conditions: any False one decides by its reason, then
/// any Unknown one is work under way, then all True is converged.
fn positive(conds: &[Condition], snap: &Snapshot) -> Option<Judgement> {
    let present: Vec<&Condition> = POSITIVE_CONDITIONS
        .iter()
        .filter_map(|t| conds.iter().find(|c| unqualified(&c.type_) == *t))
        .collect();
    if let Some(c) = present.iter().find(|c| c.is_false()) {
        return Some(not_well(c, snap));
    }
    if let Some(c) = present.iter().find(|c| !c.is_true()) {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                reason_or(c, &format!("Not{}", unqualified(&c.type_))),
                message(c),
            )
            .since(c.last_transition_time),
        );
    }
    let c = present.first()?;
    Some(Judgement::new(Verdict::Converged, c.type_.clone(), cite(c)).since(c.last_transition_time))
}

/// A Ready-style condition that is False: Failed for a terminal reason,
/// Progressing for a transient one, and for any other reason Progressing
/// until it has lasted [`NO_PROGRESS_GRACE`].
fn not_well(c: &Condition, snap: &Snapshot) -> Judgement {
    let reason = reason_or(c, &format!("Not{}", unqualified(&c.type_)));
    let since = c.last_transition_time;
    let j = match reason_class(&c.reason) {
        ReasonClass::Terminal => Judgement::new(Verdict::Failed, reason, cite(c)),
        ReasonClass::Transient => Judgement::new(Verdict::Progressing, reason, message(c)),
        ReasonClass::Other => match stalled_for(since, snap.now) {
            Some(for_) => Judgement::new(
                Verdict::Failed,
                reason,
                format!("no progress for {for_}: {}", cite(c)),
            ),
            None => Judgement::new(Verdict::Progressing, reason, message(c)),
        },
    };
    j.since(since)
}

/// How long it has stalled, once that is longer than the grace period.
fn stalled_for(since: Option<Timestamp>, now: Timestamp) -> Option<String> {
    let since = since?;
    (now.duration_since(since) > NO_PROGRESS_GRACE).then(|| age(now, since))
}

/// The condition's own message, or its citation when it has none.
fn message(c: &Condition) -> String {
    if c.message.is_empty() {
        cite(c)
    } else {
        c.message.clone()
    }
}

/// `status.phase is Failed: <status.message>`.
fn said(obj: &Object, field: &str, value: &str, verdict: Verdict, fallback: &str) -> Judgement {
    let path = field.replace('/', ".");
    let reason = if !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric()) {
        let mut chars = value.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase());
        first.into_iter().chain(chars).collect()
    } else {
        fallback.to_string()
    };
    Judgement::new(
        verdict,
        reason,
        with_detail(obj, format!("{path} is {value}")),
    )
}

/// Adds `status.message` (or `status.reason`) where the controller wrote one.
fn with_detail(obj: &Object, text: String) -> String {
    let detail = [
        "/status/message",
        "/status/reason",
        "/status/health/message",
    ]
    .iter()
    .find_map(|p| {
        obj.str(p)
            .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
    });
    match detail {
        Some(d) => format!("{text}: {d}"),
        None => text,
    }
}
