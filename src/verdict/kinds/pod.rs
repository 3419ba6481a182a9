//! Pods (v1): finished, failed, unschedulable, containers that cannot start
//! or keep crashing, not ready (and failing readiness probes), or running.

use crate::verdict::Judged;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use crate::model::{Container, Object, age};
use crate::verdict::conditions::{cite, false_, find, reason_or};
use crate::verdict::reason::{Lifecycle, Pod, Reason, Scheduling, Volume};
use crate::verdict::words::{count, list};
use crate::verdict::{Judgement, Verdict};

/// How long an init container may run without exiting before it is the
/// pod's failure: most finish in seconds; one that waits on a dependency
/// waits for ever.
pub const INIT_GRACE: SignedDuration = SignedDuration::from_mins(5);

/// The same under `--fail-fast`: a minute of running, long enough for a
/// migration's first steps.
const INIT_FAIL_FAST: SignedDuration = SignedDuration::from_mins(1);

/// A CrashLoopBackOff is a hard failure from this many restarts on.
pub const CRASH_RESTARTS: i64 = 3;

/// Waiting reasons that will not clear without a change.
const STUCK: [Pod; 11] = [
    Pod::ImagePullBackOff,
    Pod::ErrImagePull,
    Pod::ErrImageNeverPull,
    Pod::InvalidImageName,
    Pod::ImageInspectError,
    Pod::RegistryUnavailable,
    Pod::SignatureValidationFailed,
    Pod::CreateContainerConfigError,
    Pod::CreateContainerError,
    Pod::RunContainerError,
    Pod::PreStartHookError,
];

/// How long Ready may stay False with readiness probes failing before the
/// pod is judged Failed rather than still starting.
const PROBE_GRACE: SignedDuration = SignedDuration::from_mins(2);

/// How long a pod whose containers are ready may wait for readiness gates
/// that nothing sets before it is Failed.
pub const GATE_GRACE: SignedDuration = SignedDuration::from_mins(10);

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    let phase = obj.str("/status/phase").unwrap_or("Pending");
    let containers = statuses(obj);
    let app: Vec<&Container> = containers.iter().filter(|c| !c.init).collect();
    let total = obj
        .at("/spec/containers")
        .and_then(Value::as_array)
        .map_or(app.len(), Vec::len) as i64;
    let ready = app.iter().filter(|c| c.ready()).count() as i64;
    let counts = format!("{ready}/{total} containers ready");

    match phase {
        "Succeeded" => {
            let finished = containers
                .iter()
                .filter_map(|c| parse(c.raw.pointer("/state/terminated/finishedAt")))
                .max();
            let ago = finished
                .map(|t| format!(", {} ago", age(snap.now, t)))
                .unwrap_or_default();
            return Some(
                Judgement::new(
                    Verdict::Converged,
                    Pod::Completed,
                    format!("all containers exited successfully{ago}"),
                )
                .since(finished)
                .ready(ready, total),
            );
        }
        "Failed" => return Some(failed(obj, &containers).ready(ready, total)),
        "Unknown" => {
            return Some(
                Judgement::new(
                    Verdict::Unknown,
                    Pod::PodStatusUnknown,
                    "the node stopped reporting the pod's state",
                )
                .ready(ready, total),
            );
        }
        _ => {}
    }

    if let Some(c) = false_(&conds, "PodScheduled") {
        let j = match Reason::of(&c.reason) {
            Reason::Scheduling(Scheduling::Unschedulable) => Judgement::new(
                Verdict::Failed,
                Scheduling::Unschedulable,
                format!("the scheduler cannot place it: {}", c.message),
            ),
            Reason::Scheduling(Scheduling::SchedulingGated) => Judgement::new(
                Verdict::Progressing,
                Scheduling::SchedulingGated,
                format!("waiting for scheduling gates to be removed: {}", gates(obj)),
            ),
            _ => Judgement::new(Verdict::Progressing, Volume::Pending, cite(c)),
        };
        return Some(j.since(c.last_transition_time).ready(ready, total));
    }

    // Containers that cannot start, init containers first (nothing else
    // starts before them), then those merely on their way.
    if let Some(j) = containers.iter().find_map(|c| crashing(c, obj, snap.now)) {
        return Some(j.ready(ready, total));
    }
    if let Some(j) = containers.iter().find_map(|c| stuck(c)) {
        return Some(j.since(ready_since(&conds)).ready(ready, total));
    }
    // An init container that runs and does not exit holds the whole pod
    // (`until nc -z db 5432; do sleep 2; done`): the cause, bounded.
    if let Some(c) = containers
        .iter()
        .find(|c| c.init && c.raw.pointer("/state/running").is_some())
    {
        return Some(init_running(c, snap).ready(ready, total));
    }
    if let Some(c) = containers
        .iter()
        .find(|c| matches!(c.waiting(), "ContainerCreating" | "PodInitializing"))
    {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Reason::of(c.waiting()),
                format!("{}: {}", c.label(), c.waiting()),
            )
            .since(obj.time("/status/startTime"))
            .ready(ready, total),
        );
    }
    if phase == "Pending" && obj.str("/spec/nodeName").is_none() {
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Volume::Pending,
                "waiting to be scheduled",
            )
            .since(obj.created)
            .ready(ready, total),
        );
    }
    if phase == "Pending" {
        let node = obj.str("/spec/nodeName").unwrap_or_default();
        return Some(
            Judgement::new(
                Verdict::Progressing,
                Volume::Pending,
                format!("scheduled to {node}; waiting for containers to start"),
            )
            .since(obj.created)
            .ready(ready, total),
        );
    }

    let ready_cond = find(&conds, "Ready");
    if ready_cond.is_some_and(|c| c.is_true()) && app.is_empty() {
        // The kubelet reported Ready without container statuses (trimmed
        // objects, some virtual kubelets): Ready is the evidence.
        return Some(
            Judgement::new(
                Verdict::Converged,
                Pod::Running,
                "Ready=True; no container statuses reported",
            )
            .since(ready_cond.and_then(|c| c.last_transition_time)),
        );
    }
    if ready_cond.is_some_and(|c| c.is_true()) {
        let j = Judgement::new(
            Verdict::Converged,
            Pod::Running,
            format!("{counts}{}", restarts(&app, snap)),
        );
        return Some(
            j.since(ready_cond.and_then(|c| c.last_transition_time))
                .ready(ready, total),
        );
    }
    Some(not_ready(obj, snap, &counts).ready(ready, total))
}

/// Running, but Ready is not True.
fn not_ready(obj: &Object, snap: &Judged<'_>, counts: &str) -> Judgement {
    let conds = obj.conditions();
    let since = ready_since(&conds);
    if find(&conds, "ContainersReady").is_some_and(|c| c.is_true()) {
        let pending = pending_gates(obj, &conds);
        if !pending.is_empty() {
            // A gate that nothing sets (its controller is missing or
            // stopped) keeps the pod out of every Service for ever.
            if let Some(t) = since.filter(|t| snap.now.duration_since(*t) > GATE_GRACE) {
                return Judgement::new(
                    Verdict::Failed,
                    Pod::ReadinessGateNotSet,
                    format!(
                        "{counts}; readiness gates not set for {}, longer than {}m: {}; is the controller that sets them running?",
                        age(snap.now, t),
                        GATE_GRACE.as_mins(),
                        list(&pending)
                    ),
                )
                .since(since);
            }
            return Judgement::new(
                Verdict::Progressing,
                Pod::ReadinessGatesPending,
                format!("{counts}; waiting for readiness gates: {}", list(&pending)),
            )
            .since(since);
        }
        // Containers are ready, no gate is pending, yet Ready is not True:
        // someone else marked it, such as the node controller for a node
        // that stopped reporting.
        if let Some(c) = find(&conds, "Ready").filter(|c| !c.is_true()) {
            return Judgement::new(
                Verdict::Progressing,
                reason_or(c, Pod::NotReady),
                format!("{counts}, but marked not ready: {}", cite(c)),
            )
            .since(since);
        }
    }
    // Not started yet (`started: false`): its startup probe, not its
    // readiness probe, is what fails.
    let starting = statuses(obj)
        .iter()
        .any(|c| !c.init && c.raw.get("started").and_then(Value::as_bool) == Some(false));
    let (probe, code) = if starting {
        ("Startup", Pod::StartupProbeFailed)
    } else {
        ("Readiness", Pod::ReadinessProbeFailed)
    };
    let said = format!("{probe} probe failed");
    let probe_failures: Vec<_> = snap
        .events_for(&obj.uid)
        .filter(|e| {
            e.is_warning()
                && e.reason == Pod::Unhealthy.as_str()
                && e.message.starts_with(&said)
                && (since.is_none() || e.last_seen >= since)
        })
        .collect();
    let unready_for = since.map(|t| snap.now.duration_since(t));
    if let Some(last) = probe_failures.iter().max_by_key(|e| e.last_seen)
        && unready_for.is_some_and(|d| d > PROBE_GRACE)
    {
        let times: u32 = probe_failures.iter().map(|e| e.count).sum();
        let detail = last
            .message
            .strip_prefix(&said)
            .map(|d| d.trim_start_matches(':'))
            .unwrap_or(&last.message)
            .trim();
        let when = last
            .last_seen
            .map(|t| format!(", last {} ago", age(snap.now, t)))
            .unwrap_or_default();
        return Judgement::new(
            Verdict::Failed,
            code,
            format!(
                "not ready for {}: {} probe failed {} ({detail}{when}); {counts}",
                since.map(|t| age(snap.now, t)).unwrap_or_default(),
                probe.to_ascii_lowercase(),
                count(times as i64, "time"),
            ),
        )
        .since(since);
    }
    if starting && !probe_failures.is_empty() {
        return Judgement::new(
            Verdict::Progressing,
            Pod::StartupProbeFailed,
            format!("{counts}; not started: its startup probe has not passed yet"),
        )
        .since(since);
    }
    let unready: Vec<String> = statuses(obj)
        .iter()
        .filter(|c| !c.init && !c.ready())
        .map(|c| c.name().to_string())
        .collect();
    let which = if unready.is_empty() {
        String::new()
    } else {
        format!(" (not ready: {})", list(&unready))
    };
    Judgement::new(
        Verdict::Progressing,
        Pod::NotReady,
        format!("{counts}{which}"),
    )
    .since(since)
}

/// The kubelet's restart back-off: 10 s, doubled after each failed start,
/// at most 5 minutes (and reset once a container runs for 10 minutes).
const BACK_OFF_FIRST: SignedDuration = SignedDuration::from_secs(10);
const BACK_OFF_MAX: SignedDuration = SignedDuration::from_mins(5);

/// A container's current run of failed starts: how many in a row, and
/// since when (its first failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrashRun {
    pub failures: i64,
    pub since: Option<Timestamp>,
}

/// The run of failures a crash-looping container is in: counted from the
/// back-off the kubelet is waiting out (10 s after one failure, doubling to
/// 5 minutes), or from `restartCount` where no back-off is said, and dated
/// back from the last failure by the back-offs between (never before the
/// pod started). The Ready condition's transition time is no clock here:
/// it moves each time the container is briefly ready between crashes.
///
/// A container running again after a failed restart is still in the run
/// while it has run for less than the back-off it waited before this
/// start: most crash loops crash again within seconds.
fn crash_run(c: &Container, pod: &Object, now: Timestamp) -> Option<CrashRun> {
    let restarts = c.int("/restartCount");
    if restarts == 0 || !(c.last_failed() || c.waiting() == Pod::CrashLoopBackOff.as_str()) {
        return None;
    }
    let last_failure = c.time("/lastState/terminated/finishedAt");
    let failures = match Reason::of(c.waiting()) {
        Reason::Pod(Pod::CrashLoopBackOff) => match c.back_off() {
            Some(b) => {
                let mut step = BACK_OFF_FIRST;
                let mut n = 1;
                while step < b && step < BACK_OFF_MAX {
                    step = (step * 2).min(BACK_OFF_MAX);
                    n += 1;
                }
                if b >= BACK_OFF_MAX {
                    restarts.max(n)
                } else {
                    n
                }
            }
            None => restarts,
        },
        _ => {
            let started = c.time("/state/running/startedAt")?;
            let waited = last_failure.map(|f| started.duration_since(f))?;
            if now.duration_since(started) >= waited.max(BACK_OFF_FIRST) {
                return None;
            }
            restarts
        }
    };
    // The first failure of the run: the last one, less the back-offs the
    // kubelet waited between the earlier ones.
    let mut span = SignedDuration::ZERO;
    let mut step = BACK_OFF_FIRST;
    for _ in 1..failures.min(64) {
        span += step;
        step = (step * 2).min(BACK_OFF_MAX);
    }
    let started = pod.time("/status/startTime").or(pod.created);
    let since = last_failure
        .and_then(|f| f.checked_sub(span).ok())
        .map(|t| started.map_or(t, |s| t.max(s)));
    Some(CrashRun { failures, since })
}

/// The crash run of the pod's container that has failed longest, if any.
pub fn crash_loop(pod: &Object, now: Timestamp) -> Option<CrashRun> {
    statuses(pod)
        .iter()
        .filter_map(|c| crash_run(c, pod, now))
        .max_by_key(|r| (r.failures, std::cmp::Reverse(r.since)))
}

/// A container that keeps crashing: waiting out a CrashLoopBackOff, or
/// running again only briefly after one ([`crash_run`]).
fn crashing(c: &Container, pod: &Object, now: Timestamp) -> Option<Judgement> {
    let run = if c.waiting() == Pod::CrashLoopBackOff.as_str() {
        crash_run(c, pod, now).or(Some(CrashRun {
            failures: c.int("/restartCount"),
            since: None,
        }))
    } else {
        crash_run(c, pod, now).filter(|r| r.failures >= CRASH_RESTARTS)
    }?;
    let last = c
        .exit("/lastState/terminated")
        .map(|t| format!("; last exit: {t}"))
        .unwrap_or_default();
    let again = match c.time("/state/running/startedAt") {
        Some(t) if c.waiting().is_empty() => format!(" (running again for {})", age(now, t)),
        _ => String::new(),
    };
    Some(
        Judgement::new(
            Verdict::Failed,
            Pod::CrashLoopBackOff,
            format!(
                "{} keeps crashing: restarted {}{last}{again}",
                c.label(),
                count(c.int("/restartCount"), "time")
            ),
        )
        .since(run.since),
    )
}

/// An init container still running: under way until [`INIT_GRACE`] of
/// running (a minute under `--fail-fast`), then the pod's failure.
fn init_running(c: &Container, snap: &Judged<'_>) -> Judgement {
    let started = c.time("/state/running/startedAt");
    let for_ = started
        .map(|t| format!(" for {}", age(snap.now, t)))
        .unwrap_or_default();
    let bound = if snap.judge.failure_grace.is_some_and(|g| g.is_zero()) {
        INIT_FAIL_FAST
    } else {
        INIT_GRACE
    };
    let stuck = started.is_some_and(|t| snap.now.duration_since(t) > bound);
    let (verdict, code, what) = if stuck {
        (Verdict::Failed, Pod::InitContainerStuck, "has not exited")
    } else {
        (
            Verdict::Progressing,
            Pod::InitContainerRunning,
            "is running; the pod starts once it exits",
        )
    };
    Judgement::new(
        verdict,
        code,
        format!("{} {what} (running{for_})", c.label()),
    )
    .since(started)
}

/// A container waiting for a reason that will not clear by itself.
fn stuck(c: &Container) -> Option<Judgement> {
    let reason = c.waiting();
    if !STUCK.iter().any(|s| s.as_str() == reason) {
        return None;
    }
    let message = c.text("/state/waiting/message").trim();
    let image = c.text("/image");
    let pulling = matches!(
        Reason::of(reason),
        Reason::Pod(
            Pod::ErrImagePull
                | Pod::ImagePullBackOff
                | Pod::ErrImageNeverPull
                | Pod::InvalidImageName
                | Pod::ImageInspectError
                | Pod::RegistryUnavailable
                | Pod::SignatureValidationFailed
        )
    );
    if pulling && !image.is_empty() {
        // `Back-off pulling image "x": ErrImagePull: ...` repeats the image.
        let back_off = format!("Back-off pulling image \"{image}\"");
        let detail = match message.strip_prefix(&back_off) {
            Some(rest) => match rest.trim_start_matches(':').trim() {
                "" => "backing off".to_string(),
                rest => format!("backing off after {rest}"),
            },
            None if message.is_empty() => reason.to_string(),
            None => message.to_string(),
        };
        let label = c.label();
        return Some(Judgement::new(
            Verdict::Failed,
            Reason::of(reason),
            format!("{label} cannot pull image {image}: {detail}"),
        ));
    }
    let detail = if message.is_empty() { reason } else { message };
    Some(Judgement::new(
        Verdict::Failed,
        Reason::of(reason),
        format!("{}: {detail}", c.label()),
    ))
}

/// A pod in phase Failed: evicted, deadline, or a container that failed.
fn failed(obj: &Object, containers: &[Container]) -> Judgement {
    if let Some(reason) = obj.str("/status/reason") {
        let message = obj
            .str("/status/message")
            .map(str::trim)
            .unwrap_or_default();
        let message = if message.is_empty() {
            format!("pod failed ({reason})")
        } else {
            format!("pod failed ({reason}): {message}")
        };
        return Judgement::new(Verdict::Failed, Reason::of(reason), message);
    }
    let failed = containers.iter().find(|c| {
        c.raw.pointer("/state/terminated").is_some() && c.int("/state/terminated/exitCode") != 0
    });
    match failed {
        Some(c) => {
            let reason = Reason::or(c.text("/state/terminated/reason"), Lifecycle::Error);
            let exit = c.exit("/state/terminated").unwrap_or_default();
            Judgement::new(
                Verdict::Failed,
                reason,
                format!("{} failed: {exit}", c.label()),
            )
            .since(parse(c.raw.pointer("/state/terminated/finishedAt")))
        }
        None => Judgement::new(Verdict::Failed, Pod::PodFailed, "the pod failed"),
    }
}

/// ``, or `; restarted 3 times (last: OOMKilled, exit code 137, 5m ago)`.
fn restarts(containers: &[&Container], snap: &Judged<'_>) -> String {
    let total: i64 = containers.iter().map(|c| c.int("/restartCount")).sum();
    if total == 0 {
        return String::new();
    }
    let last = containers
        .iter()
        .filter(|c| c.raw.pointer("/lastState/terminated").is_some())
        .max_by_key(|c| c.time("/lastState/terminated/finishedAt"))
        .and_then(|c| {
            let when = c
                .time("/lastState/terminated/finishedAt")
                .map(|at| format!(", {} ago", age(snap.now, at)))
                .unwrap_or_default();
            c.exit("/lastState/terminated")
                .map(|e| format!(" (last: {e}{when})"))
        })
        .unwrap_or_default();
    format!("; restarted {}{last}", count(total, "time"))
}

fn statuses(obj: &Object) -> Vec<Container<'_>> {
    obj.containers().collect()
}

fn ready_since(conds: &[crate::model::Condition]) -> Option<jiff::Timestamp> {
    find(conds, "Ready").and_then(|c| c.last_transition_time)
}

fn parse(v: Option<&Value>) -> Option<jiff::Timestamp> {
    crate::model::parse_time(v)
}

fn gates(obj: &Object) -> String {
    names(obj.at("/spec/schedulingGates"), "name")
}

/// The readiness gates whose condition is not True.
fn pending_gates(obj: &Object, conds: &[crate::model::Condition]) -> Vec<String> {
    obj.at("/spec/readinessGates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|g| g.get("conditionType").and_then(Value::as_str))
        .filter(|t| !find(conds, t).is_some_and(|c| c.is_true()))
        .map(str::to_string)
        .collect()
}

fn names(v: Option<&Value>, key: &str) -> String {
    let names: Vec<&str> = v
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|g| g.get(key).and_then(Value::as_str))
        .collect();
    list(&names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(container: Value) -> Object {
        Object::from_value(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "n", "uid": "u", "creationTimestamp": "2026-11-29T20:00:00Z"},
            "spec": {"containers": [{"name": "app", "image": "app"}]},
            "status": {"phase": "Running", "startTime": "2026-11-29T20:00:00Z", "containerStatuses": [container]}}))
        .unwrap()
    }

    fn waiting(restarts: i64, back_off: Option<&str>) -> Value {
        let message = back_off
            .map(|b| format!("back-off {b} restarting failed container=app pod=p_n(u)"))
            .unwrap_or_default();
        json!({"name": "app", "image": "app", "ready": false, "restartCount": restarts,
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-11-29T22:29:00Z"}},
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": message}}})
    }

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    /// The run of failures is read from the kubelet's back-off, not from
    /// `restartCount` alone (which never resets), and dated back by the
    /// back-offs between its failures.
    #[test]
    fn a_crash_run_is_counted_from_the_back_off_and_dated_by_it() {
        let now = at("2026-11-29T22:30:00Z");
        // 40s is the third failure in a row, though the container restarted
        // 12 times since the pod started (its back-off was reset since).
        let run = crash_loop(&pod(waiting(12, Some("40s"))), now).unwrap();
        assert_eq!(run.failures, 3);
        // 22:29:00 less the back-offs after the first and second failures.
        assert_eq!(run.since, Some(at("2026-11-29T22:28:30Z")));
        let run = crash_loop(&pod(waiting(12, Some("2m40s"))), now).unwrap();
        assert_eq!(run.failures, 5);
        assert_eq!(run.since, Some(at("2026-11-29T22:26:30Z")));
        // At the longest back-off the run is as long as the restarts say,
        // and never starts before the pod did.
        let run = crash_loop(&pod(waiting(279, Some("5m0s"))), now).unwrap();
        assert_eq!(run.failures, 279);
        assert_eq!(run.since, Some(at("2026-11-29T20:00:00Z")));
        // No back-off said: the restarts are the run.
        let run = crash_loop(&pod(waiting(4, None)), now).unwrap();
        assert_eq!(run.failures, 4);
    }

    /// Running again after a failed restart: still in the loop while it has
    /// run for less than the back-off it waited; recovered after.
    #[test]
    fn a_container_running_again_is_in_the_loop_only_for_its_last_back_off() {
        let running = json!({"name": "app", "image": "app", "ready": true, "restartCount": 6,
            "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "finishedAt": "2026-11-29T22:25:00Z"}},
            "state": {"running": {"startedAt": "2026-11-29T22:27:00Z"}}});
        let p = pod(running.clone());
        assert_eq!(
            crash_loop(&p, at("2026-11-29T22:28:00Z")).map(|r| r.failures),
            Some(6)
        );
        assert_eq!(crash_loop(&p, at("2026-11-29T22:29:30Z")), None);
        // A clean last exit is no crash.
        let mut clean = running;
        clean["lastState"]["terminated"] =
            json!({"exitCode": 0, "reason": "Completed", "finishedAt": "2026-11-29T22:25:00Z"});
        assert_eq!(crash_loop(&pod(clean), at("2026-11-29T22:28:00Z")), None);
    }
}
