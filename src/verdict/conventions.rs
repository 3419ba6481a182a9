//! How any kind without a per-kind rule is judged, from status conventions
//! many controllers share: a spec that suspends, conditions that name a
//! problem, status words (`status.phase`, `status.state`, `status.health`,
//! `status.status`), `healthy`/`ready` booleans and Ready-style conditions.

use crate::verdict::Judged;
use jiff::{SignedDuration, Timestamp};

use serde_json::Value;

use crate::model::{Condition, Object, age};

use super::conditions::{cite, find, reason_or};
use super::vocabulary::{
    POSITIVE_CONDITIONS, Polarity, ReasonClass, Word, is_health_condition, is_negative_condition,
    polarity, reason_class, status_word, unqualified, waits_on_another,
};
use super::{Judgement, Verdict, shapes};
use crate::verdict::reason::{Lifecycle, Network, Pod, Reason, Workload};

/// How long a Ready-style condition may stay False, for a reason that names
/// neither a failure nor work under way, before the object is judged
/// Failed with "no progress for X". The same ten minutes as a Deployment's
/// default `progressDeadlineSeconds`.
pub const NO_PROGRESS_GRACE: SignedDuration = SignedDuration::from_mins(10);

/// `spec.suspend: true` (Flux, CronJob-like kinds), `spec.paused: true`
/// (Argo Rollouts, Cluster API) or `spec.stopped: true` (cass-operator's
/// CassandraDatacenter): Suspended, unless the status says the controller
/// has not acted on it (a `Suspended`, `Paused` or `Stopped` condition
/// that is not True).
pub fn suspended(obj: &Object) -> Option<Judgement> {
    let conds = obj.conditions();
    let field = ["suspend", "paused", "stopped"]
        .into_iter()
        .find(|f| obj.bool(&format!("/spec/{f}")) == Some(true))
        .map(|f| format!("spec.{f}"))
        .or_else(|| shapes::pause_flag(obj));
    // A controller that says it stopped on purpose (KEDA's `Paused=True`),
    // whatever else stays True beside it.
    let Some(field) = field else {
        let c = ["Suspended", "Paused", "Stopped", "Hibernated"]
            .into_iter()
            .find_map(|t| find(&conds, t))
            .filter(|c| c.is_true())?;
        return Some(
            Judgement::new(
                Verdict::Suspended,
                Lifecycle::Suspended,
                format!("reconciliation stopped: {}", cite(c)),
            )
            .since(c.last_transition_time),
        );
    };
    if let Some(c) = ["Suspended", "Paused", "Stopped"]
        .into_iter()
        .find_map(|t| find(&conds, t))
        .filter(|c| !c.is_true())
    {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Lifecycle::SuspendPending,
                format!(
                    "{field} is true but the controller has not acted on it yet: {}",
                    cite(c)
                ),
            )
            .since(c.last_transition_time),
        );
    }
    Some(Judgement::new(
        Verdict::Suspended,
        Lifecycle::Suspended,
        format!("reconciliation stopped by {field}"),
    ))
}

/// Conditions whose `True` means trouble, and Cluster API's `severity:
/// Error` on a False one: Failed, whatever else the status says. A
/// condition of trouble listed without a status is there while it holds
/// (Argo CD's `ComparisonError`, `SyncError`): True.
pub fn negative(conds: &[Condition]) -> Option<Judgement> {
    let c = conds
        .iter()
        .find(|c| (c.is_true() || c.status.is_empty()) && is_negative_condition(&c.type_))
        .or_else(|| conds.iter().find(|c| c.is_false() && c.severity == "Error"))?;
    Some(
        Judgement::new(
            Verdict::Failed,
            reason_or(c, Reason::of(unqualified(&c.type_))),
            cite(c),
        )
        .since(c.last_transition_time),
    )
}

/// What the conventions see that no built-in health rule may answer with
/// success: `Stalled=True`, a condition that names a problem ([`negative`]),
/// and a well-known Ready-style condition (`Ready`, `Available`, `Synced`,
/// …) that is not True: Failed for a reason that names a failure, else as
/// [`positive`] judges it. A rule says more than the conventions, never
/// less: its Converged gives way to any of these, its Progressing to the
/// first, and to the second once it has lasted [`NO_PROGRESS_GRACE`] (a
/// False condition under way is bounded later, by [`bounded_wait`]).
pub fn contradiction(
    conds: &[Condition],
    verdict: Verdict,
    snap: &Judged<'_>,
) -> Option<Judgement> {
    if let Some(c) = conds.iter().find(|c| c.is_true() && c.type_ == "Stalled") {
        return Some(
            Judgement::new(Verdict::Failed, reason_or(c, Lifecycle::Stalled), cite(c))
                .since(c.last_transition_time),
        );
    }
    // Beside work under way, trouble is bounded as work is: a Rollout's
    // `ReplicaFailure` (a quota met during a surge) fails it only once it
    // has lasted the grace, as a Deployment's does.
    if let Some(j) = negative(conds)
        .filter(|j| verdict == Verdict::Converged || stalled_for(j.since, snap.now).is_some())
    {
        return Some(j);
    }
    if verdict != Verdict::Converged {
        return None;
    }
    let well_known: Vec<Condition> = conds
        .iter()
        .filter(|c| POSITIVE_CONDITIONS.contains(&unqualified(&c.type_)))
        .cloned()
        .collect();
    failure_reason(&well_known)
        .or_else(|| positive(&well_known, snap).filter(|j| j.verdict != Verdict::Converged))
}

/// Conditions whose `True` means work under way ([`Polarity::Work`]):
/// cert-manager's `Issuing`, Strimzi's `NotReady`, `InProgress`,
/// `Pending*`, `Waiting*`.
pub fn in_progress(conds: &[Condition]) -> Option<Judgement> {
    let c = conds
        .iter()
        .find(|c| c.is_true() && polarity(&c.type_) == Polarity::Work)?;
    Some(
        Judgement::new(
            Verdict::Progressing,
            reason_or(c, Reason::of(unqualified(&c.type_))),
            cite(c),
        )
        .since(c.last_transition_time),
    )
}

/// The status fields that hold one word about the whole object, read (and
/// cited) first; [`word_fields`] adds the others (`currentState`,
/// `lastOperation.state`, `applicationState.state`, `syncStatus`, …).
const WORD_FIELDS: [&str; 5] = [
    "/status/phase",
    "/status/state",
    "/status/health",
    "/status/health/status",
    "/status/status",
];

/// Every status word the object reports, as (field, value, word): the
/// fields of [`WORD_FIELDS`], then any other string field at the top of
/// `status`, or one level down, named `state`, `status` or `phase` or
/// ending in `State` or `Status` (`syncStatus`, `ceph.health`, …).
fn word_fields(obj: &Object) -> Vec<(String, &str, Word)> {
    let mut out: Vec<(String, &str, Word)> = WORD_FIELDS
        .iter()
        .filter_map(|p| {
            let value = obj.str(p)?;
            Some((p[1..].replace('/', "."), value, status_word(value)?))
        })
        .collect();
    let Some(status) = obj.status().and_then(Value::as_object) else {
        return out;
    };
    let mut found: Vec<(String, &Value)> = Vec::new();
    let mut budget = WORD_FIELDS_VISITED;
    collect_words(status, "status", (0, 0), &mut found, &mut budget);
    for (path, v) in found {
        if let Some(value) = v.as_str()
            && let Some(word) = status_word(value)
            && !out.iter().any(|(p, _, _)| *p == path)
        {
            out.push((path, value, word));
        }
    }
    out
}

/// How many fields of a status the search for words looks at, at most: a
/// status of thousands of members is read in part, never at length.
const WORD_FIELDS_VISITED: usize = 512;

/// How deep below `status` words are looked for: a field of the status, of
/// an object in it, or of an entry of a map in it (`status.statuses.<reporter>.state`,
/// `status.brokersState.<id>.configurationState`). A map of statuses
/// (`…statuses`, `subresourceStatuses`) is not a level of its own, up to
/// [`STATUS_MAPS`] of them.
const WORD_DEPTH: usize = 2;

/// How many maps of statuses, one inside another, the search enters
/// without counting them as a level
/// (`statuses.<reporter>.subresourceStatuses.<resource>.state`).
const STATUS_MAPS: usize = 2;

/// Whether a key names a field that holds a status word.
fn names_a_word(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    k.ends_with("state")
        || k.ends_with("status")
        || matches!(
            k.as_str(),
            "phase" | "health" | "compliant" | "compliance" | "result" | "outcome"
        )
}

/// The fields of `map` that name a word, and those of the objects below it
/// to [`WORD_DEPTH`], in order, within the visit budget.
fn collect_words<'a>(
    map: &'a serde_json::Map<String, Value>,
    path: &str,
    (depth, maps): (usize, usize),
    found: &mut Vec<(String, &'a Value)>,
    budget: &mut usize,
) {
    for (key, v) in map {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if key == "conditions" {
            continue;
        }
        let here = format!("{path}.{key}");
        if names_a_word(key) {
            found.push((here.clone(), v));
        }
        let Some(inner) = v.as_object() else {
            continue;
        };
        if key.to_ascii_lowercase().ends_with("statuses") && maps < STATUS_MAPS {
            collect_words(inner, &here, (depth, maps + 1), found, budget);
        } else if depth < WORD_DEPTH {
            collect_words(inner, &here, (depth + 1, maps), found, budget);
        }
    }
}

/// Step 5: status words, error fields, booleans, nested and Ready-style
/// conditions, counts. Failure signals come first, so a stale `Ready=True`
/// cannot hide them; then work under way; then success. A run (a kind that
/// runs to completion) is work under way while it runs and Failed at once
/// when it failed. `None` when nothing speaks: the caller says so.
pub fn judge(obj: &Object, conds: &[Condition], snap: &Judged<'_>) -> Option<Judgement> {
    let words = word_fields(obj);
    let word = |want: Word| words.iter().find(|(_, _, w)| *w == want);
    let run = shapes::is_run(obj, conds);

    if let Some((field, value, _)) = word(Word::Failed) {
        return Some(said(obj, field, value, Verdict::Failed, Lifecycle::Failed));
    }
    if let Some(field) = false_verdict_field(obj) {
        return Some(Judgement::new(
            Verdict::Failed,
            Pod::Unhealthy,
            with_detail(obj, format!("{field} is false")),
        ));
    }
    if let Some(j) = terminal_failure(obj) {
        return Some(j);
    }
    if let Some(e) = shapes::error(obj) {
        return Some(Judgement::new(Verdict::Failed, Lifecycle::Error, e));
    }
    if let Some(j) = failed_members(obj, conds) {
        return Some(j);
    }
    if run
        && let Some(c) = conds
            .iter()
            .find(|c| c.type_ == "Succeeded" && c.is_false())
    {
        // A finished run does not recover by itself, whatever the reason.
        return Some(
            Judgement::new(
                Verdict::Failed,
                reason_or(c, Workload::RunFailed),
                format!("the run failed: {}", cite(c)),
            )
            .since(c.last_transition_time),
        );
    }
    if let Some(j) = nested(obj, snap) {
        return Some(j);
    }
    if let Some(j) = failure_reason(conds) {
        return Some(j);
    }
    let positive = positive(conds, snap);
    if let Some(j) = positive
        .as_ref()
        .filter(|j| j.verdict != Verdict::Converged)
    {
        return Some(j.clone());
    }
    if let Some(j) = members_not_ready(obj) {
        return Some(j);
    }
    if let Some(c) = rolling(conds) {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                reason_or(c, Lifecycle::InProgress),
                cite(c),
            )
            .since(c.last_transition_time),
        );
    }
    if let Some(j) = operation(obj) {
        return Some(j);
    }
    if let Some((field, value, _)) = word(Word::Suspended) {
        return Some(said(
            obj,
            field,
            value,
            Verdict::Suspended,
            Lifecycle::Suspended,
        ));
    }
    if let Some((field, value, _)) = word(Word::Progressing) {
        let j = said(
            obj,
            field,
            value,
            Verdict::Progressing,
            Lifecycle::InProgress,
        );
        return Some(if run {
            j
        } else {
            under_way(obj, conds, j, snap)
        });
    }
    if run
        && positive.is_none()
        && let Some((field, value, _)) = word(Word::Converged).filter(|(_, v, _)| running(v))
    {
        return Some(said(obj, field, value, Verdict::Progressing, Pod::Running));
    }
    if let Some(s) = shapes::shortfall(obj) {
        return Some(Judgement::new(
            Verdict::Progressing,
            Workload::WaitingForReplicas,
            with_detail(obj, s.message),
        ));
    }
    if let Some(j) = not_yet_flag(obj) {
        return Some(j);
    }
    if let Some(j) = positive {
        return Some(j);
    }
    if let Some((field, value, _)) = word(Word::Converged) {
        return Some(said(
            obj,
            field,
            value,
            Verdict::Converged,
            Lifecycle::Current,
        ));
    }
    if let Some(j) = well_flag(obj) {
        return Some(j);
    }
    // Counts all at their number, and nothing else to say: done.
    if let Some(done) = shapes::counts_complete(obj) {
        return Some(Judgement::new(Verdict::Converged, Lifecycle::Current, done));
    }
    every_part_well(obj, snap)
}

/// A boolean at the top of `status` whose `false` says the work is not
/// done yet (`ready`, `readyToUse`, `available`, `synced`, `applied`):
/// Progressing.
fn not_yet_flag(obj: &Object) -> Option<Judgement> {
    [
        ("/status/ready", Reason::from(Pod::NotReady)),
        ("/status/readyToUse", Reason::from(Lifecycle::NotReadyToUse)),
        ("/status/available", Reason::from(Workload::NotAvailable)),
        ("/status/synced", Reason::from(Lifecycle::InProgress)),
        ("/status/applied", Reason::from(Lifecycle::InProgress)),
    ]
    .into_iter()
    .find(|(field, _)| obj.bool(field) == Some(false))
    .map(|(field, reason)| {
        Judgement::new(
            Verdict::Progressing,
            reason,
            with_detail(obj, format!("{} is false", field[1..].replace('/', "."))),
        )
    })
}

/// A boolean at the top of `status` whose `true` says the object is well:
/// Converged.
fn well_flag(obj: &Object) -> Option<Judgement> {
    [
        "/status/healthy",
        "/status/ready",
        "/status/readyToUse",
        "/status/available",
        "/status/valid",
        "/status/pass",
        "/status/succeeded",
        "/status/synced",
        "/status/applied",
    ]
    .into_iter()
    .find(|field| obj.bool(field) == Some(true))
    .map(|field| {
        Judgement::new(
            Verdict::Converged,
            Lifecycle::Current,
            format!("{} is true", field[1..].replace('/', ".")),
        )
    })
}

/// Members the status lists as failed (`instancesStatus.failed: [db-1]`):
/// named. Failed while nothing says the whole is well; a whole that says
/// it is ready (`Ready=True`) with a failed member is degraded, work for
/// its operator.
fn failed_members(obj: &Object, conds: &[Condition]) -> Option<Judgement> {
    let (text, names) = match shapes::failed_members(obj) {
        Some((field, names)) => (format!("{field} lists"), names),
        None => match shapes::unwell_members(obj)? {
            (map, flag, shapes::MemberFlag::Unhealthy, names) => {
                (format!("status.{map}: {flag} is false for"), names)
            }
            _ => return None,
        },
    };
    let whole_well = conds
        .iter()
        .any(|c| c.is_true() && is_health_condition(&c.type_));
    let (verdict, what) = if whole_well {
        (Verdict::Progressing, "degraded: ")
    } else {
        (Verdict::Failed, "")
    };
    Some(Judgement::new(
        verdict,
        Lifecycle::Failed,
        with_detail(obj, format!("{what}{text} {}", members_text(&names))),
    ))
}

/// Cluster API's convention, which other operators share: a non-empty
/// `status.failureReason` or `status.failureMessage` is a terminal problem
/// that needs a person, whatever the phase says. Failed, with the reason
/// as written (a single word) and the message.
fn terminal_failure(obj: &Object) -> Option<Judgement> {
    let text = |p: &str| obj.str(p).map(str::trim).filter(|s| !s.is_empty());
    let (reason, message) = (
        text("/status/failureReason"),
        text("/status/failureMessage"),
    );
    if reason.is_none() && message.is_none() {
        return None;
    }
    let word = reason.filter(|r| r.chars().all(|c| c.is_ascii_alphanumeric()));
    let said = match (reason, message) {
        (Some(r), Some(m)) => format!("status.failureReason is {r}: {m}"),
        (Some(r), None) => format!("status.failureReason is {r}"),
        (None, Some(m)) => format!("status.failureMessage: {m}"),
        (None, None) => return None,
    };
    Some(Judgement::new(
        Verdict::Failed,
        word.map_or(Reason::from(Lifecycle::Failed), Reason::of),
        said,
    ))
}

/// A `Progressing=True` whose reason names work under way (`Reconciling`,
/// `Updating`, `Deploying`), as OpenShift's operators and others that
/// share its conventions write while they roll out, though `Available`
/// stays True. A reason that says the rollout is done
/// (`NewReplicaSetAvailable`) is not.
fn rolling(conds: &[Condition]) -> Option<&Condition> {
    conds.iter().find(|c| {
        unqualified(&c.type_) == "Progressing"
            && c.is_true()
            && reason_class(&c.reason) == ReasonClass::Transient
            && !waits_on_another(&c.reason)
    })
}

/// `a, b, c, d, e and 2 more`.
fn members_text(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Members a map under `status` says are not ready yet
/// (`nodes.n-1.ready: false`): work under way, named, whatever the whole
/// says of itself.
fn members_not_ready(obj: &Object) -> Option<Judgement> {
    let (map, flag, says, names) = shapes::unwell_members(obj)?;
    (says == shapes::MemberFlag::NotReady).then(|| {
        Judgement::new(
            Verdict::Progressing,
            Pod::NotReady,
            with_detail(
                obj,
                format!("status.{map}: {flag} is false for {}", members_text(&names)),
            ),
        )
    })
}

/// The words an operator writes when the work under way has met an error
/// (a self-check's `wrong status code '404'`, `connection refused`): then
/// the wait is on that error, not on work.
const ERROR_WORDS: &[&str] = &[
    "error",
    "failed",
    "failure",
    "wrong status code",
    "refused",
    "denied",
    "forbidden",
    "not found",
    "timed out",
    "timeout",
    "unreachable",
    "invalid",
    "cannot",
    "unable",
];

/// A state word that means work under way is bounded, counted from the
/// evidence's own time (the newest condition's transition, else a status
/// time, else, for a wait on an error, the object's creation while its
/// spec never changed): past [`NO_PROGRESS_GRACE`] it is Failed; when the
/// object's own message names an error, past the hard-failure grace (at
/// once under `--fail-fast`). With no time to count from, it stays as it
/// is.
fn under_way(obj: &Object, conds: &[Condition], j: Judgement, snap: &Judged<'_>) -> Judgement {
    let wait = Wait::of(obj, conds);
    if wait.on_error {
        return wait.bound(j, snap);
    }
    let Some(since) = wait.since else {
        return j;
    };
    match stalled_for(Some(since), snap.now) {
        Some(for_) => Judgement::new(
            Verdict::Failed,
            j.reason.clone(),
            format!("no progress for {for_}: {}", j.message),
        )
        .since(Some(since)),
        None => j.since(Some(since)),
    }
}

/// Any custom resource's work under way, whatever rule or convention
/// said so, while its own status message names an error (a self-check's
/// `wrong status code '404'`): bounded by the hard-failure grace, then
/// Failed with that error as the cause.
pub fn waiting_on_error(obj: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    if j.verdict != Verdict::Progressing {
        return j;
    }
    let wait = Wait::of(obj, &obj.conditions());
    if wait.on_error {
        wait.bound(j, snap)
    } else {
        j
    }
}

/// What an object under way waits on, and since when.
struct Wait {
    /// Its own status message or reason names an error.
    on_error: bool,
    since: Option<Timestamp>,
}

impl Wait {
    fn of(obj: &Object, conds: &[Condition]) -> Wait {
        let detail = ["/status/reason", "/status/message", "/status/lastError"]
            .iter()
            .find_map(|p| obj.str(p))
            .unwrap_or_default()
            .to_ascii_lowercase();
        let on_error = ERROR_WORDS.iter().any(|w| detail.contains(w));
        let status_time = [
            "/status/lastTransitionTime",
            "/status/lastUpdateTime",
            "/status/lastUpdated",
            "/status/stateChangedAt",
        ]
        .iter()
        .find_map(|p| crate::model::parse_time(obj.at(p)));
        // The object's creation counts only for a wait on an error, and
        // only while its spec never changed: a state word alone says
        // nothing of when it began.
        let since = conds
            .iter()
            .filter_map(|c| c.last_transition_time)
            .max()
            .or(status_time)
            .or_else(|| {
                obj.created
                    .filter(|_| on_error && obj.generation.is_none_or(|g| g <= 1))
            });
        Wait { on_error, since }
    }

    /// A wait on an error: Failed past the hard-failure grace.
    fn bound(&self, j: Judgement, snap: &Judged<'_>) -> Judgement {
        let Some(since) = self.since else {
            return j;
        };
        // An error its controller retries: never final at once, even
        // under `--fail-fast`.
        let grace = super::retried::retry_grace(snap);
        if snap.now.duration_since(since) < grace {
            return j.since(Some(since));
        }
        Judgement::new(
            Verdict::Failed,
            j.reason.clone(),
            format!(
                "waiting on an error for {}: {}",
                age(snap.now, since),
                j.message
            ),
        )
        .since(Some(since))
    }
}

/// Every part (each parent of a route, each listener) reports health and
/// all of it is good: the object is Converged, as its parts say.
fn every_part_well(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let parts = shapes::parts(obj);
    let mut first: Option<Judgement> = None;
    for part in &parts {
        let j = positive(&part.conditions, snap)?;
        if j.verdict != Verdict::Converged {
            return None;
        }
        first.get_or_insert(Judgement {
            message: format!("{}: {}", part.label, j.message),
            ..j
        });
    }
    let j = first?;
    Some(if parts.len() > 1 {
        Judgement {
            message: format!(
                "every one of {} parts well, e.g. {}",
                parts.len(),
                j.message
            ),
            ..j
        }
    } else {
        j
    })
}

/// A boolean at the top of `status` whose `false` is a verdict, not a
/// wait: `healthy`, `valid`, `pass`, `succeeded` (a finished run's result),
/// or any `…Healthy`.
fn false_verdict_field(obj: &Object) -> Option<String> {
    let status = obj.status()?.as_object()?;
    status
        .iter()
        .find(|(k, v)| {
            v.as_bool() == Some(false)
                && (matches!(k.as_str(), "healthy" | "valid" | "pass" | "succeeded")
                    || k.ends_with("Healthy"))
        })
        .map(|(k, _)| format!("status.{k}"))
}

/// An operation record's state against what was asked: `currentState`
/// not yet `desiredState` is work under way.
fn operation(obj: &Object) -> Option<Judgement> {
    let current = obj.str("/status/currentState")?;
    let desired = obj
        .str("/status/desiredState")
        .or_else(|| obj.str("/spec/desiredState"))?;
    (!current.eq_ignore_ascii_case(desired)).then(|| {
        Judgement::new(
            Verdict::Progressing,
            Lifecycle::InProgress,
            with_detail(
                obj,
                format!("status.currentState is {current}, desiredState {desired}"),
            ),
        )
    })
}

/// `Running` and `Active` as a run reports them: the run is under way.
fn running(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "running" | "active" | "started"
    )
}

/// Conditions nested in lists (per parent, ancestor, listener or ingress
/// point): a part that refused or failed is a failure of the object, named
/// by its part; a part still waiting is work under way. A route that names
/// parents no controller has answered yet is waiting for them.
fn nested(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let mut waiting: Option<Judgement> = None;
    for part in shapes::parts(obj) {
        let Some(j) = part_judgement(&part.conditions, snap) else {
            continue;
        };
        let j = Judgement {
            message: format!("{}: {}", part.label, j.message),
            ..j
        };
        if j.verdict == Verdict::Failed {
            return Some(j);
        }
        waiting.get_or_insert(j);
    }
    if waiting.is_none() && shapes::parents_unanswered(obj) {
        waiting = Some(Judgement::new(
            Verdict::Progressing,
            Network::WaitingForParents,
            "spec.parentRefs names parents, and no controller has accepted or refused the route yet (status.parents is empty)",
        ));
    }
    waiting
}

/// One part's conditions, by the rules the top-level ones follow, and a
/// refusal: what is wrong or under way there, if anything.
fn part_judgement(conds: &[Condition], snap: &Judged<'_>) -> Option<Judgement> {
    negative(conds)
        .or_else(|| refused(conds))
        .or_else(|| failure_reason(conds))
        .or_else(|| positive(conds, snap).filter(|j| j.verdict != Verdict::Converged))
}

/// A parent that did not accept the route (`Accepted=False`), refs that do
/// not resolve (`ResolvedRefs=False`), a router that did not admit it
/// (`Admitted=False`): the route carries no traffic there, and retrying
/// will not change that, unless the reason says the answer is still to
/// come (Gateway API's `Pending`).
fn refused(conds: &[Condition]) -> Option<Judgement> {
    let c = conds.iter().find(|c| {
        c.is_false()
            && matches!(c.type_.as_str(), "Accepted" | "ResolvedRefs" | "Admitted")
            && reason_class(&c.reason) != ReasonClass::Transient
    })?;
    Some(
        Judgement::new(
            Verdict::Failed,
            reason_or(c, Reason::of(&format!("Not{}", c.type_))),
            cite(c),
        )
        .since(c.last_transition_time),
    )
}

/// Any condition whose `True` is good news (`Deployed`, `Provisioned`,
/// `Launched`, `ReconcileSuccess`, `Scheduled`, …) that is False with a
/// reason naming a failure: Failed, whatever its type.
fn failure_reason(conds: &[Condition]) -> Option<Judgement> {
    let c = conds.iter().find(|c| {
        c.is_false()
            && polarity(&c.type_) == Polarity::Good
            && reason_class(&c.reason) == ReasonClass::Terminal
    })?;
    Some(
        Judgement::new(Verdict::Failed, Reason::of(&c.reason), cite(c))
            .since(c.last_transition_time),
    )
}

/// The Ready-style conditions: any False one decides by its reason, then
/// any Unknown one is work under way, then all True is converged.
fn positive(conds: &[Condition], snap: &Judged<'_>) -> Option<Judgement> {
    // The well-known types first (their citation leads), then every other
    // type that says health by its last word (`RevisionHealthy`).
    let mut present: Vec<&Condition> = POSITIVE_CONDITIONS
        .iter()
        .filter_map(|t| conds.iter().find(|c| unqualified(&c.type_) == *t))
        .collect();
    for c in conds {
        if is_health_condition(&c.type_) && !present.iter().any(|p| p.type_ == c.type_) {
            present.push(c);
        }
    }
    if let Some(c) = present.iter().find(|c| c.is_false()) {
        return Some(not_well(c, snap, Work::Waits));
    }
    if let Some(c) = present.iter().find(|c| !c.is_true()) {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                reason_or(c, Reason::of(&format!("Not{}", unqualified(&c.type_)))),
                message(c),
            )
            .since(c.last_transition_time),
        );
    }
    let c = present.first()?;
    Some(
        Judgement::new(Verdict::Converged, Reason::of(&c.type_), cite(c))
            .since(c.last_transition_time),
    )
}

/// A custom resource that is not converged, with the most specific False
/// condition's message beside the one that decided: a Flux `Stalled`
/// "Failed to install after 4 attempts" gains its `Ready`'s "context
/// deadline exceeded"; a Cluster API summary "1 of 2 completed" gains
/// `InfrastructureReady=False … InsufficientInstanceCapacity`. The most
/// specific: an Error severity, then a reason that names a failure; one
/// whose message the verdict already quotes adds nothing.
pub fn explained(obj: &Object, j: Judgement) -> Judgement {
    if matches!(j.verdict, Verdict::Converged | Verdict::Suspended) {
        return j;
    }
    let conds = obj.conditions();
    let telling = |c: &&Condition| {
        c.is_false()
            && !c.message.trim().is_empty()
            && !j.message.contains(c.message.trim())
            && is_health_condition(&c.type_)
    };
    let best = conds
        .iter()
        .filter(telling)
        .find(|c| c.severity == "Error")
        .or_else(|| {
            conds
                .iter()
                .filter(telling)
                .find(|c| reason_class(&c.reason) == ReasonClass::Terminal)
        });
    match best {
        Some(c) => Judgement {
            message: format!("{}; {}", j.message, cite(c)),
            ..j
        },
        None => j,
    }
}

/// A custom resource under way by any rule, health rules included, while
/// a Ready-style condition of it is False, or a condition whose `True`
/// names work under way (`Reconciling`, `Issuing`) stands: as the
/// conventions judge that condition, a terminal reason fails it and any
/// other, work under way included, fails it once it has stood for
/// [`NO_PROGRESS_GRACE`], counted from its own transition. So no rule
/// keeps a `Ready=False` or a `Reconciling=True` waiting for ever. A run
/// (a kind that runs to completion) takes the time it takes.
pub fn bounded_wait(obj: &Object, j: Judgement, snap: &Judged<'_>) -> Judgement {
    if j.verdict != Verdict::Progressing {
        return j;
    }
    let conds = obj.conditions();
    let run = shapes::is_run(obj, &conds);
    if let Some(c) = conds
        .iter()
        .find(|c| c.is_false() && is_health_condition(&c.type_))
    {
        let work = if run { Work::Waits } else { Work::Bounded };
        let judged = super::retried::judge(obj, not_well(c, snap, work), snap);
        return if judged.verdict == Verdict::Failed {
            judged
        } else {
            j
        };
    }
    if run {
        return j;
    }
    let Some(c) = conds
        .iter()
        .find(|c| {
            c.is_true() && polarity(&c.type_) == Polarity::Work && !waits_on_another(&c.reason)
        })
        .or_else(|| rolling(&conds))
    else {
        return j;
    };
    match stalled_for(c.last_transition_time, snap.now) {
        Some(for_) => Judgement::new(
            Verdict::Failed,
            reason_or(c, Reason::of(unqualified(&c.type_))),
            format!("no progress for {for_}: {}", cite(c)),
        )
        .since(c.last_transition_time),
        None => j,
    }
}

/// Whether a reason of work under way is bounded where [`not_well`] judges
/// it: in [`bounded_wait`], which knows the object (a run takes the time
/// it takes), and nowhere else, so that it is bounded once.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Work {
    Bounded,
    Waits,
}

/// A Ready-style condition that is False: Failed for a terminal reason at
/// once, and for any other once it has lasted [`NO_PROGRESS_GRACE`];
/// Progressing until then. A reason of work under way is bounded so only
/// where `work` says; one that waits on another object
/// (`DependencyNotReady`) never is: that object carries the verdict.
fn not_well(c: &Condition, snap: &Judged<'_>, work: Work) -> Judgement {
    let reason = reason_or(c, Reason::of(&format!("Not{}", unqualified(&c.type_))));
    let since = c.last_transition_time;
    let class = reason_class(&c.reason);
    let waits =
        class == ReasonClass::Transient && (work == Work::Waits || waits_on_another(&c.reason));
    let j = match class {
        ReasonClass::Terminal => Judgement::new(Verdict::Failed, reason, cite(c)),
        _ if waits => Judgement::new(Verdict::Progressing, reason, message(c)),
        ReasonClass::Transient | ReasonClass::Other => match stalled_for(since, snap.now) {
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
fn said(
    obj: &Object,
    path: &str,
    value: &str,
    verdict: Verdict,
    fallback: impl Into<Reason>,
) -> Judgement {
    let reason = if !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric()) {
        let mut chars = value.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase());
        Reason::of(&first.into_iter().chain(chars).collect::<String>())
    } else {
        fallback.into()
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
