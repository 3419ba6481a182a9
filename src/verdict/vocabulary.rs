//! The one vocabulary of status words, condition types and condition
//! reasons: which word means failure, work in progress, success or a
//! deliberate stop. `docs/verdicts.md` prints the same tables.

/// What a status word says about the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Failed,
    Progressing,
    Converged,
    Suspended,
}

/// The words of `status.phase`, `status.state`, `status.health`,
/// `status.health.status` and `status.status`, compared without case,
/// spaces, dashes or underscores (`In Progress`, `in-progress` and
/// `InProgress` are one word). A word not listed says nothing.
pub const WORDS: &[(&str, Word)] = &[
    // Will not converge without a change.
    ("failed", Word::Failed),
    ("failure", Word::Failed),
    ("failing", Word::Failed),
    ("error", Word::Failed),
    ("errored", Word::Failed),
    ("degraded", Word::Failed),
    ("unhealthy", Word::Failed),
    ("crashed", Word::Failed),
    ("crashloopbackoff", Word::Failed),
    ("invalid", Word::Failed),
    ("rejected", Word::Failed),
    ("aborted", Word::Failed),
    ("broken", Word::Failed),
    ("lost", Word::Failed),
    ("timedout", Word::Failed),
    ("red", Word::Failed),
    ("healtherr", Word::Failed),
    ("noncompliant", Word::Failed),
    ("expired", Word::Failed),
    ("cancelled", Word::Failed),
    ("canceled", Word::Failed),
    ("warning", Word::Failed),
    // Work under way.
    ("pending", Word::Progressing),
    ("provisioning", Word::Progressing),
    ("creating", Word::Progressing),
    ("updating", Word::Progressing),
    ("deploying", Word::Progressing),
    ("initializing", Word::Progressing),
    ("initialising", Word::Progressing),
    ("progressing", Word::Progressing),
    ("reconciling", Word::Progressing),
    ("inprogress", Word::Progressing),
    ("waiting", Word::Progressing),
    ("starting", Word::Progressing),
    ("scheduling", Word::Progressing),
    ("queued", Word::Progressing),
    ("installing", Word::Progressing),
    ("upgrading", Word::Progressing),
    ("migrating", Word::Progressing),
    ("scaling", Word::Progressing),
    ("syncing", Word::Progressing),
    ("restarting", Word::Progressing),
    ("building", Word::Progressing),
    ("deleting", Word::Progressing),
    ("terminating", Word::Progressing),
    ("applying", Word::Progressing),
    ("new", Word::Progressing),
    ("notready", Word::Progressing),
    ("yellow", Word::Progressing),
    ("healthwarn", Word::Progressing),
    ("submitted", Word::Progressing),
    ("retrying", Word::Progressing),
    ("outofsync", Word::Progressing),
    ("processing", Word::Progressing),
    ("bootstrap", Word::Progressing),
    // Phrases of work under way (CloudNativePG's `Setting up primary`,
    // `Failing over`, `Switchover in progress`).
    ("setting", Word::Progressing),
    ("bootstrapping", Word::Progressing),
    ("configuring", Word::Progressing),
    ("restoring", Word::Progressing),
    ("recovering", Word::Progressing),
    ("failingover", Word::Progressing),
    ("switchover", Word::Progressing),
    // Done, or in its steady state.
    ("succeeded", Word::Converged),
    ("success", Word::Converged),
    ("successful", Word::Converged),
    ("ready", Word::Converged),
    ("healthy", Word::Converged),
    ("available", Word::Converged),
    ("active", Word::Converged),
    ("running", Word::Converged),
    ("bound", Word::Converged),
    ("complete", Word::Converged),
    ("completed", Word::Converged),
    ("deployed", Word::Converged),
    ("established", Word::Converged),
    ("synced", Word::Converged),
    ("insync", Word::Converged),
    ("provisioned", Word::Converged),
    ("issued", Word::Converged),
    ("online", Word::Converged),
    ("ok", Word::Converged),
    ("up", Word::Converged),
    ("current", Word::Converged),
    ("green", Word::Converged),
    ("healthok", Word::Converged),
    ("compliant", Word::Converged),
    ("valid", Word::Converged),
    ("accepted", Word::Converged),
    // Cut off, as a whole value only (inside a phrase, `scaling down`,
    // `1 replica unavailable`, they say less): what is meant to serve
    // does not.
    ("unavailable", Word::Failed),
    ("offline", Word::Failed),
    ("down", Word::Failed),
    ("unreachable", Word::Failed),
    ("disconnected", Word::Failed),
    // Stopped on purpose.
    ("suspended", Word::Suspended),
    ("paused", Word::Suspended),
    ("stopped", Word::Suspended),
    ("hibernating", Word::Suspended),
    ("hibernated", Word::Suspended),
];

/// What a status value says: the whole value if it is a word of the
/// vocabulary (`In Progress`), else the words in it (`PartiallyFailed`,
/// `ApplyingChanges`, `Cluster in healthy state`): any failure word, then
/// any in-progress word, then any stop word, then a success word unless a
/// `not` or `no` negates it (`NotReady`).
pub fn status_word(value: &str) -> Option<Word> {
    let whole: String = value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if let Some(w) = lookup(&whole) {
        return Some(w);
    }
    let words = camel_words(value);
    if words.len() < 2 {
        return None;
    }
    // Words that mean something else inside a phrase: `Failing over` is a
    // failover under way (read as the pair), `Setting up` is work under
    // way (read by `setting`), `a new replica` says nothing.
    const NOT_IN_PHRASES: [&str; 9] = [
        "failing",
        "up",
        "new",
        "current",
        "unavailable",
        "offline",
        "down",
        "unreachable",
        "disconnected",
    ];
    let mut said: Vec<Word> = words
        .iter()
        .filter(|w| !NOT_IN_PHRASES.contains(&w.as_str()))
        .filter_map(|w| lookup(w))
        .collect();
    // Words that are one word of the table together (`Config Out Of Sync`,
    // `In Sync`).
    for n in [2, 3] {
        said.extend(words.windows(n).filter_map(|w| lookup(&w.concat())));
    }
    let negated = words.iter().any(|w| w == "not" || w == "no");
    [Word::Failed, Word::Progressing, Word::Suspended]
        .into_iter()
        .find(|w| said.contains(w))
        .or_else(|| (!negated && said.contains(&Word::Converged)).then_some(Word::Converged))
        .or_else(|| {
            negated
                .then_some(Word::Progressing)
                .filter(|_| !said.is_empty())
        })
}

fn lookup(word: &str) -> Option<Word> {
    WORDS.iter().find(|(w, _)| *w == word).map(|(_, c)| *c)
}

/// What a condition type's `True` says: the one table of condition types,
/// for the verdicts and for `why`'s condition table alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// `True` is bad news: the type names a problem (`Degraded`, `*Failed`).
    Problem,
    /// `True` is work under way (`Reconciling`, `Pending*`, `Waiting*`).
    Work,
    /// Either value is a decision, not a problem (`Suspended`, `Paused`).
    Neutral,
    /// `True` is good news, `False` the problem: every other type.
    Good,
}

/// Condition types whose `True` means trouble, besides the word rules of
/// [`polarity`]: Kubernetes' own (a Job's `FailureTarget`, a
/// Deployment's `ReplicaFailure`, a Node's pressures, a Namespace whose
/// content or finalizers remain, an HPA's `ScalingLimited`, a pod's
/// `DisruptionTarget`) and those many operators share.
const PROBLEM_TYPES: &[&str] = &[
    "Degraded",
    "Orphan",
    "Orphaned",
    "Stalled",
    "Failed",
    "Failure",
    "Failing",
    "Error",
    "ErrorOccurred",
    "Unhealthy",
    "Denied",
    "Terminal",
    "Invalid",
    "PartiallyReady",
    "FailureTarget",
    "ReplicaFailure",
    "DisruptionTarget",
    "MemoryPressure",
    "DiskPressure",
    "PIDPressure",
    "NetworkUnavailable",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
    "ScalingLimited",
    // API Priority and Fairness: a FlowSchema whose priority level does
    // not exist.
    "Dangling",
];

/// Words a problem type ends in (`SpecError`, `ConfigInvalid`,
/// `ReconciliationFailed`, `MemberUnhealthy`), or, for `failed`, starts
/// with (`FailedScheduling`).
const PROBLEM_LAST_WORDS: &[&str] = &[
    "failed",
    "failure",
    "failing",
    "error",
    "errors",
    "invalid",
    "unhealthy",
];

/// Condition types whose `True` means work under way: `Reconciling`,
/// cert-manager's `Issuing`, Strimzi's `NotReady`, `InProgress`, a rolling
/// update or a scaling under way (Keycloak's `RollingUpdate`,
/// cass-operator's `ScalingUp`, `Upgrading`, `Updating`), and every type
/// starting with `Pending` or `Waiting` or ending in `InProgress`
/// (KubeRay's `UpgradeInProgress`) (see [`polarity`]).
const WORK_TYPES: &[&str] = &[
    "Reconciling",
    "Issuing",
    "NotReady",
    "InProgress",
    "Terminating",
    "RollingUpdate",
    "ScalingUp",
    "ScalingDown",
    "Upgrading",
    "Updating",
    "Resizing",
];

/// The last words of condition types whose `True` says the object is well,
/// compound ones included (`RevisionHealthy`, `RemoteSynced`,
/// `ChildrenResourcesHealthy`, `KruisePodReady`, `Valid`): good news when
/// True, a problem when False.
const GOOD_LAST_WORDS: &[&str] = &[
    "ready",
    "available",
    "healthy",
    "synced",
    "succeeded",
    "accepted",
    "programmed",
    "valid",
    "completed",
    "complete",
    "reconciled",
    "established",
    "bound",
    "initialized",
    "resolved",
    "provisioned",
    "deployed",
    "applied",
    "satisfied",
    "connected",
    "registered",
    "installed",
];

/// Whether a condition type says, by its whole word or its last, that the
/// object is well when it is True (and not well when False).
pub fn is_health_condition(type_: &str) -> bool {
    let words = camel_words(unqualified(type_));
    polarity(type_) == Polarity::Good
        && (words
            .last()
            .is_some_and(|w| GOOD_LAST_WORDS.contains(&w.as_str()))
            || words.ends_with(&["up".into(), "to".into(), "date".into()])
            || (words.len() > 1
                && words[0] == "no"
                && words
                    .last()
                    .is_some_and(|w| NO_PROBLEM_WORDS.contains(&w.as_str()))))
}

/// What a type of the shape `No<problem>` (RabbitMQ's `NoWarnings`,
/// `NoErrors`) says there is none of: good news when True, a problem when
/// False.
const NO_PROBLEM_WORDS: &[&str] = &[
    "warnings", "warning", "errors", "error", "failures", "alarms", "issues", "problems",
];

/// What a condition type's `True` says. A prefix such as AWS ACK's `ACK.`
/// is ignored, and the words of the type (`In-progress`, `ACK.Terminal`)
/// are compared without case or separators.
pub fn polarity(type_: &str) -> Polarity {
    let type_ = unqualified(type_);
    let words = camel_words(type_);
    let joined: String = words.concat();
    let is = |list: &[&str]| list.iter().any(|t| t.eq_ignore_ascii_case(&joined));
    // `NoWarnings`, `NoErrors`: the absence of a problem is good news.
    if words.len() > 1 && words[0] == "no" {
        return Polarity::Good;
    }
    if is(PROBLEM_TYPES)
        || (words.len() > 1
            && (words
                .last()
                .is_some_and(|w| PROBLEM_LAST_WORDS.contains(&w.as_str()))
                || words
                    .first()
                    .is_some_and(|w| w == "failed" || w == "invalid")))
    {
        Polarity::Problem
    } else if is(WORK_TYPES)
        || (words.len() > 1
            && words
                .first()
                .is_some_and(|w| w == "pending" || w == "waiting"))
        || (words.len() > 2 && words.ends_with(&["in".into(), "progress".into()]))
    {
        Polarity::Work
    } else if is(&["Suspended", "Paused", "Stopped"]) {
        Polarity::Neutral
    } else {
        Polarity::Good
    }
}

/// Whether a condition type names a problem, so that `True` is bad news.
pub fn is_negative_condition(type_: &str) -> bool {
    polarity(type_) == Polarity::Problem
}

/// `ACK.ResourceSynced` → `ResourceSynced`: a condition type without the
/// prefix some operators put before it.
pub fn unqualified(type_: &str) -> &str {
    type_.rsplit_once('.').map_or(type_, |(_, t)| t)
}

/// Condition types whose `True` means the object is well: the ones most
/// controllers share (`Ready`, `Available`, `Healthy`, Crossplane's
/// `Synced`, Tekton's `Succeeded`), Gateway API's `Accepted` and
/// `Programmed`, and AWS ACK's `ResourceSynced`. Compared without a
/// prefix ([`unqualified`]).
pub const POSITIVE_CONDITIONS: [&str; 8] = [
    "Ready",
    "Available",
    "Healthy",
    "Synced",
    "Succeeded",
    "Accepted",
    "Programmed",
    "ResourceSynced",
];

/// What the reason of a False positive condition says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasonClass {
    /// Names a failure that retrying will not fix.
    Terminal,
    /// Names work under way.
    Transient,
    /// Says neither: judged by how long it has lasted.
    Other,
}

/// Words in a reason that name a terminal failure: `InstallFailed`,
/// `ReconcileError`, `InvalidSpec`, `SecretNotFound`, `QuotaExceeded`,
/// `Denied`, `Forbidden`, `Unauthorized`, `ImagePullBackOff`, `Rejected`,
/// `ErrInitIssuer`, `Expired`, `ManagementConflict`,
/// Gateway API's `UnsupportedValue`, `NotAllowedByListeners`,
/// `NoMatchingParent`.
const TERMINAL_WORDS: &[&str] = &[
    "failed",
    "failure",
    "error",
    "errors",
    "errored",
    "exceeded",
    "denied",
    "forbidden",
    "unauthorized",
    "rejected",
    "invalid",
    "unsupported",
    "backoff",
    "crashed",
    "err",
    "expired",
    "terminal",
    "conflict",
];
const TERMINAL_PAIRS: &[(&str, &str)] = &[
    ("not", "found"),
    ("back", "off"),
    ("not", "allowed"),
    ("no", "matching"),
    ("not", "permitted"),
];

/// The words of a failure reason that say retrying will not fix it (an
/// input refused, a limit passed): what is left of the failure words
/// (`Failed`, `Error`, `BackOff`, `NotFound`, ...) is a controller's
/// catch-all, which it retries.
const FINAL_WORDS: &[&str] = &[
    "invalid",
    "denied",
    "forbidden",
    "unauthorized",
    "rejected",
    "unsupported",
    "exceeded",
    "expired",
    "terminal",
    "validation",
];
const FINAL_PAIRS: &[(&str, &str)] = &[
    ("not", "allowed"),
    ("no", "matching"),
    ("not", "permitted"),
    ("spec", "error"),
];

/// Whether a reason (or a condition type) names a failure known to be
/// final: `InvalidSpec`, `QuotaExceeded`, `Forbidden`, `NotAllowedByListeners`.
/// A failure reason that is not ([`reason_class`] `Terminal` without these
/// words: `SecretSyncedError`, `ReconcileFailed`, `IssuerNotFound`) is a
/// catch-all the controller retries.
pub fn final_reason(reason: &str) -> bool {
    let words = camel_words(reason);
    words.iter().any(|w| FINAL_WORDS.contains(&w.as_str()))
        || FINAL_PAIRS
            .iter()
            .any(|(a, b)| words.windows(2).any(|w| w[0] == *a && w[1] == *b))
}

/// Whether a reason names a failure its controller retries: a failure
/// word, and none that says it is final.
pub fn retried_reason(reason: &str) -> bool {
    reason_class(reason) == ReasonClass::Terminal && !final_reason(reason)
}

/// Words in a reason that name work under way: `Progressing`,
/// `Reconciling`, `Pending`, `WaitingForDependencies`, `Creating`,
/// `Provisioning`, `InProgress`, Flux's `DependencyNotReady`.
const TRANSIENT_WORDS: &[&str] = &[
    "progressing",
    "progress",
    "reconciling",
    "pending",
    "waiting",
    "creating",
    "provisioning",
    "initializing",
    "updating",
    "deploying",
    "starting",
    "scaling",
    "installing",
    "upgrading",
    "issuing",
    "syncing",
    "dependency",
    "dependencies",
];

/// Whether a reason says the object waits on another one (`Waiting…`,
/// `DependencyNotReady`, Cluster API's `WaitingForBootstrapData`): that
/// one carries its own verdict, so the wait is not bounded here.
pub fn waits_on_another(reason: &str) -> bool {
    camel_words(reason).iter().any(|w| {
        matches!(
            w.as_str(),
            "waiting" | "wait" | "waits" | "dependency" | "dependencies"
        )
    })
}

/// Kinds a controller makes for the object it reconciles: a reason that
/// says one is not found (prometheus-operator's `StatefulSetNotFound`)
/// names a child not made yet, work under way judged by how long it
/// lasts, not a reference the user must mend.
const MADE_KINDS: &[&str] = &[
    "statefulset",
    "deployment",
    "daemonset",
    "replicaset",
    "pod",
    "pods",
    "job",
];

/// Whether the words before `at` spell a kind its controller makes
/// (`stateful set` → `statefulset`).
fn names_a_made_kind(words: &[String], at: usize) -> bool {
    (1..=2).any(|n| {
        at.checked_sub(n)
            .is_some_and(|from| MADE_KINDS.contains(&words[from..at].concat().as_str()))
    })
}

/// Classifies a condition reason by its words; terminal words win.
pub fn reason_class(reason: &str) -> ReasonClass {
    let words = camel_words(reason);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let pair = TERMINAL_PAIRS.iter().any(|(a, b)| {
        words.windows(2).enumerate().any(|(i, w)| {
            w[0] == *a && w[1] == *b && !(*b == "found" && names_a_made_kind(&words, i))
        })
    });
    if has(TERMINAL_WORDS) || pair {
        ReasonClass::Terminal
    } else if has(TRANSIENT_WORDS) {
        ReasonClass::Transient
    } else {
        ReasonClass::Other
    }
}

/// `ImagePullBackOff` → `image pull back off`; `HTTPError` → `http error`;
/// `no_matching` → `no matching`. Lower case.
pub fn camel_words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1);
        let starts_word = c.is_ascii_uppercase()
            && (prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(|p| p.is_ascii_uppercase())
                    && next.is_some_and(|n| n.is_ascii_lowercase())));
        if starts_word && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_compared_without_case_or_separators() {
        assert_eq!(status_word("Failed"), Some(Word::Failed));
        assert_eq!(status_word("FAILED"), Some(Word::Failed));
        assert_eq!(status_word("In Progress"), Some(Word::Progressing));
        assert_eq!(status_word("in-progress"), Some(Word::Progressing));
        assert_eq!(status_word("Timed_Out"), Some(Word::Failed));
        assert_eq!(status_word("Unknown"), None);
        assert_eq!(status_word(""), None);
    }

    #[test]
    fn values_of_several_words_are_read_word_by_word() {
        assert_eq!(status_word("PartiallyFailed"), Some(Word::Failed));
        assert_eq!(status_word("FailedValidation"), Some(Word::Failed));
        assert_eq!(status_word("ApplyingChanges"), Some(Word::Progressing));
        assert_eq!(
            status_word("Cluster in healthy state"),
            Some(Word::Converged)
        );
        assert_eq!(
            status_word("Creating a new replica"),
            Some(Word::Progressing)
        );
        assert_eq!(status_word("Failing over"), Some(Word::Progressing));
        assert_eq!(status_word("NotReady"), Some(Word::Progressing));
        assert_eq!(status_word("No healthy replicas"), Some(Word::Progressing));
        assert_eq!(status_word("Setting up primary"), Some(Word::Progressing));
        assert_eq!(
            status_word("Switchover in progress"),
            Some(Word::Progressing)
        );
    }

    /// docs/verdicts.md prints this table for users; it must not drift.
    #[test]
    fn the_docs_list_every_word_under_its_verdict() {
        let docs = include_str!("../../docs/verdicts.md");
        let (_, table) = docs
            .split_once("### Status words")
            .expect("a Status words section in docs/verdicts.md");
        for (word, class) in WORDS {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("| {class:?} | ")))
                .unwrap_or_else(|| panic!("no {class:?} row in docs/verdicts.md"));
            let listed = row.split('|').nth(2).unwrap().split(',').any(|w| {
                let w: String = w.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
                w.eq_ignore_ascii_case(word)
            });
            assert!(
                listed,
                "{word} is not in the {class:?} row of docs/verdicts.md"
            );
        }
    }

    #[test]
    fn every_word_appears_once() {
        let mut seen = std::collections::HashSet::new();
        for (w, _) in WORDS {
            assert!(seen.insert(*w), "{w} twice");
            assert_eq!(
                w.chars().filter(|c| !c.is_ascii_alphanumeric()).count(),
                0,
                "{w}"
            );
        }
    }

    #[test]
    fn condition_types_say_what_their_true_means() {
        use Polarity::*;
        let cases = [
            ("Degraded", Problem),
            ("Stalled", Problem),
            ("Failed", Problem),
            ("ErrorOccurred", Problem),
            ("SpecError", Problem),
            ("SubmissionError", Problem),
            ("ReconcileError", Problem),
            ("ReconciliationFailed", Problem),
            ("ProvisioningFailure", Problem),
            ("ValidationErrors", Problem),
            ("Denied", Problem),
            ("ACK.Terminal", Problem),
            ("Invalid", Problem),
            ("ConfigInvalid", Problem),
            ("FailedScheduling", Problem),
            ("PartiallyReady", Problem),
            ("Dangling", Problem),
            ("MemberUnhealthy", Problem),
            ("Unhealthy", Problem),
            ("ReplicaFailure", Problem),
            ("FailureTarget", Problem),
            ("MemoryPressure", Problem),
            ("NamespaceDeletionContentFailure", Problem),
            ("NamespaceFinalizersRemaining", Problem),
            ("Reconciling", Work),
            ("In-progress", Work),
            ("InProgress", Work),
            ("PendingRestart", Work),
            ("WaitingForDependencies", Work),
            ("Issuing", Work),
            ("NotReady", Work),
            ("RollingUpdate", Work),
            ("ScalingUp", Work),
            ("UpgradeInProgress", Work),
            ("Failing", Problem),
            ("NoWarnings", Good),
            ("NoErrors", Good),
            ("Suspended", Neutral),
            ("Paused", Neutral),
            ("Stopped", Neutral),
            ("Ready", Good),
            ("Synced", Good),
            ("Errors", Good),
            ("Approved", Good),
            ("Progressing", Good),
            ("Pending", Good),
            ("Waiting", Good),
            ("Available", Good),
        ];
        for (type_, want) in cases {
            assert_eq!(polarity(type_), want, "{type_}");
        }
        assert!(is_negative_condition("SpecError"));
        assert!(!is_negative_condition("Reconciling"));
    }

    #[test]
    fn reasons_are_read_by_their_words() {
        use ReasonClass::*;
        let cases = [
            ("InstallFailed", Terminal),
            ("ReconcileError", Terminal),
            ("InvalidSpec", Terminal),
            ("SecretNotFound", Terminal),
            ("QuotaExceeded", Terminal),
            ("Denied", Terminal),
            ("Forbidden", Terminal),
            ("Unauthorized", Terminal),
            ("ImagePullBackOff", Terminal),
            ("Rejected", Terminal),
            ("UnsupportedValue", Terminal),
            ("NotAllowedByListeners", Terminal),
            ("NoMatchingParent", Terminal),
            ("HTTPError", Terminal),
            ("ErrInitIssuer", Terminal),
            ("Expired", Terminal),
            ("ManagementConflict", Terminal),
            ("Progressing", Transient),
            ("Reconciling", Transient),
            ("Pending", Transient),
            ("WaitingForDependencies", Transient),
            ("Creating", Transient),
            ("Provisioning", Transient),
            ("InProgress", Transient),
            ("DependencyNotReady", Transient),
            ("ProgressingWithRetry", Transient),
            ("DoesNotExist", Other),
            ("StatefulSetNotFound", Other),
            ("DeploymentNotFound", Other),
            ("PodsNotFound", Other),
            ("BackendNotFound", Terminal),
            ("IssuerNotFound", Terminal),
            ("MinimumReplicasUnavailable", Other),
            ("", Other),
        ];
        for (reason, want) in cases {
            assert_eq!(reason_class(reason), want, "{reason}");
        }
    }

    #[test]
    fn words_of_a_service_cut_off_fail_as_whole_values_only() {
        for (value, want) in [
            ("Unavailable", Some(Word::Failed)),
            ("Offline", Some(Word::Failed)),
            ("DOWN", Some(Word::Failed)),
            ("Unreachable", Some(Word::Failed)),
            ("Disconnected", Some(Word::Failed)),
            ("NotAvailable", Some(Word::Progressing)),
            ("Bootstrap", Some(Word::Progressing)),
            ("Scaling down", Some(Word::Progressing)),
            ("1 replica unavailable, rolling", None),
            ("Up", Some(Word::Converged)),
        ] {
            assert_eq!(status_word(value), want, "{value}");
        }
    }

    #[test]
    fn failures_are_retried_unless_their_words_say_they_are_final() {
        for reason in [
            "SecretSyncedError",
            "ScaledObjectCheckFailed",
            "ReconcileError",
            "InstallFailed",
            "IssuerNotFound",
            "ErrInitIssuer",
            "ManagementConflict",
            "BackOff",
        ] {
            assert!(retried_reason(reason), "{reason}");
        }
        for reason in [
            "InvalidSpec",
            "QuotaExceeded",
            "Forbidden",
            "Unauthorized",
            "Rejected",
            "UnsupportedValue",
            "NotAllowedByListeners",
            "NoMatchingParent",
            "Expired",
            "ProgressDeadlineExceeded",
            "ValidationFailed",
            "SpecError",
            "Reconciling",
            "Degraded",
            "",
        ] {
            assert!(!retried_reason(reason), "{reason}");
        }
    }

    #[test]
    fn camel_case_splits_like_a_reader_would() {
        assert_eq!(
            camel_words("ImagePullBackOff"),
            ["image", "pull", "back", "off"]
        );
        assert_eq!(camel_words("HTTPError"), ["http", "error"]);
        assert_eq!(camel_words("no_matching"), ["no", "matching"]);
    }
}
