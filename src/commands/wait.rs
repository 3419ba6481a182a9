//! `wait`: block until every target is converged (or deleted), driven by
//! watches. A target that fails, or the timeout, ends the wait with the
//! diagnosis. One progress line on stderr says what is still pending.

use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

use super::frame::{Shown, Subject};
use super::load::{identity, load_keep, load_why};
use super::watch::Retarget;
use super::{Outcome, UsageError};
use crate::cli::WaitFor;
use crate::model::{Incomplete, Snapshot};
use crate::render::{self, Style, why::WhyOptions};
use crate::report::{Item, StatusReport, WhyReport};
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::source::watch::Cache;
use crate::targets::TargetSpec;
use crate::terminal::Console;
use crate::verdict::{Judge, Verdict};

enum State<'a> {
    Done,
    Failed(Vec<&'a Item>),
    Pending(Vec<&'a Item>),
}

fn evaluate(items: &[std::sync::Arc<Item>], want: WaitFor) -> State<'_> {
    let items = items.iter().map(|i| &**i);
    match want {
        WaitFor::Converged => {
            let failed: Vec<&Item> = items
                .clone()
                .filter(|i| i.judgement.verdict == Verdict::Failed)
                .collect();
            if !failed.is_empty() {
                return State::Failed(failed);
            }
            let pending: Vec<&Item> = items
                .filter(|i| i.judgement.verdict != Verdict::Converged)
                .collect();
            if pending.is_empty() {
                State::Done
            } else {
                State::Pending(pending)
            }
        }
        WaitFor::Deleted => {
            let pending: Vec<&Item> = items
                .filter(|i| i.judgement.verdict != Verdict::NotFound)
                .collect();
            if pending.is_empty() {
                State::Done
            } else {
                State::Pending(pending)
            }
        }
    }
}

/// What `wait` waits for, and how long.
pub struct Wait {
    pub want: WaitFor,
    /// `--timeout`: the wait never ends before it unless a target fails.
    pub timeout: Duration,
    /// `--failure-grace` (zero with `--fail-fast`): how long new pods may
    /// fail hard before their workload is Failed; the default otherwise.
    pub failure_grace: Option<jiff::SignedDuration>,
    /// `--capture`: where to write the diagnosis's capture, and the command
    /// it names.
    pub capture: Option<(std::path::PathBuf, String)>,
    /// A context's place on a fleet's one progress line (`--contexts`).
    pub seat: Option<LineSeat>,
}

fn needs_live() -> UsageError {
    UsageError("wait needs a live cluster: a snapshot does not change".into())
}

/// A wait needs a target and a live cluster.
fn check_asked(settings: &Settings, specs: &[TargetSpec]) -> Result<(), UsageError> {
    if specs.is_empty() {
        return Err(UsageError(
            "wait needs a target, e.g. `wait deploy/web` or `wait -f k8s/`".into(),
        ));
    }
    if settings.snapshot.is_some() {
        return Err(needs_live());
    }
    Ok(())
}

/// How often a wait with nothing changing judges its targets again, so
/// that a grace that runs out (a controller that stopped, a refusal that
/// stood) ends it.
const REJUDGE: Duration = Duration::from_secs(5);

pub async fn run(settings: &Settings, specs: &[TargetSpec], wait: Wait) -> anyhow::Result<Outcome> {
    let capture = wait
        .capture
        .as_ref()
        .map(|(p, c)| (p.as_path(), c.as_str()));
    let (want, timeout, failure_grace) = (wait.want, wait.timeout, wait.failure_grace);
    check_asked(settings, specs)?;
    let started = tokio::time::Instant::now();
    let (deadline, wait_until) = deadlines(started, timeout, settings.deadline);
    // The trees too: a workload's pods are watched, so a hard failure of
    // its new pods ends the wait as soon as it is judged final.
    let mut loaded = tokio::time::timeout_at(deadline, load_keep(settings, specs, Mode::Tree { owners: false }, None))
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "timed out after {timeout:?}: the cluster did not answer the first reads\nhint: check that the API server answers (`kubectl get --raw /readyz`), or raise --timeout"
            )
        })??;
    let retarget = Retarget::new(&loaded.fetched, Subject::Named, None);
    let Some(mut live) = loaded.live.take() else {
        return Err(needs_live().into());
    };
    let mut cache = watch_answer(&live, &mut loaded.fetched);
    let mut snapshot = loaded.fetched.snapshot;
    // Children an operator made after the first read, asked about again
    // once each.
    let mut asked_again: HashSet<String> = HashSet::new();
    let judge = Judge {
        failure_grace,
        ..settings.judge()
    };
    let mut targets = loaded.fetched.targets;
    let mut progress = Progress::stderr();
    progress.seat = wait.seat;
    let mut said: HashSet<String> = HashSet::new();
    let mut asked_gone: HashSet<String> = HashSet::new();
    loop {
        let report = StatusReport::build(&judge.on(&snapshot), &targets);
        let mut state = evaluate(&report.items, want);
        // Converged is only said of a whole answer: a list of the targets'
        // own children that failed could hide the failure.
        if matches!(state, State::Done) {
            match unconfirmed(&snapshot, want, &cache.unwatchable()) {
                Unconfirmed::No => {}
                Unconfirmed::Never(lines) => {
                    let items: Vec<&Item> = report.items.iter().map(|i| &**i).collect();
                    progress.say(&format!(
                        "error: {} cannot be confirmed converged: {} could not be read, and will not be without a change of permissions",
                        names(&items),
                        lines.join("; ")
                    ));
                    return diagnose(settings, &items, deadline, &snapshot, &judge, capture).await;
                }
                Unconfirmed::Yet(lines) => {
                    progress.say_once(
                        &mut said,
                        "warning: not read yet, so not converged: ",
                        lines,
                    );
                    state = State::Pending(report.items.iter().map(|i| &**i).collect());
                }
            }
        }
        match state {
            State::Done => {
                progress.clear();
                return Ok(Outcome {
                    stdout: done(&report, settings),
                    code: 0,
                });
            }
            State::Failed(items) => {
                // What failed, as the wait saw it: the diagnosis after is
                // read afresh and may come a moment later.
                progress.say(&failed_line(&items));
                return diagnose(settings, &items, deadline, &snapshot, &judge, capture).await;
            }
            State::Pending(items) => {
                // A Job that is not there may have failed and been deleted
                // (its TTL after finishing): its events say so, once.
                if want == WaitFor::Converged
                    && let Some((gone, report, now)) =
                        failed_and_gone(settings, &items, &mut asked_gone, deadline, &judge).await
                {
                    progress.say(&format!(
                        "error: {} failed and was deleted; it will not converge without a change",
                        names(&[gone])
                    ));
                    return Ok(shown(settings, &report, now));
                }
                progress.show(&items, started.elapsed());
                let pending: Vec<Item> = items.into_iter().cloned().collect();
                tokio::select! {
                    // The deadline first: `--timeout 0` checks once.
                    biased;
                    _ = tokio::time::sleep_until(wait_until) => {
                        let refs: Vec<&Item> = pending.iter().collect();
                        progress.say(&format!("error: timed out after {timeout:?} waiting for {}", names(&refs)));
                        return diagnose(settings, &refs, deadline, &snapshot, &judge, capture).await;
                    }
                    got = cache.changes.recv() => {
                        if got.is_none() {
                            return Err(anyhow::anyhow!("the watches stopped"));
                        }
                        tokio::time::sleep(super::watch::SETTLE).await;
                        while cache.changes.try_recv().is_ok() {}
                        if cache.synced() {
                            snapshot = cache.snapshot(jiff::Timestamp::now());
                            if asked_again.len() < MAX_CHILDREN_ASKED
                                && made_since(&snapshot, &mut asked_again)
                            {
                                // Read the trees again, the new children in
                                // full, and watch what that answer read.
                                let again = load_keep(settings, specs, Mode::Tree { owners: false }, Some(live));
                                let mut reloaded = tokio::time::timeout_at(deadline, again)
                                    .await
                                    .map_err(|_| anyhow::anyhow!("timed out after {timeout:?} reading the new children of the targets"))??;
                                let Some(l) = reloaded.live.take() else {
                                    return Err(needs_live().into());
                                };
                                live = l;
                                cache = watch_answer(&live, &mut reloaded.fetched);
                                snapshot = reloaded.fetched.snapshot;
                            }
                            targets = retarget.targets(&judge.on(&snapshot));
                            // A watch this user may not open is said at once.
                            let unwatchable = cache
                                .unwatchable()
                                .iter()
                                .map(|g| render::escape(&format!("{}: {}", g.resource, g.error)).into_owned())
                                .collect();
                            progress.say_once(&mut said, "warning: ", unwatchable);
                        }
                    }
                    // On a terminal, redraw the elapsed time every second.
                    _ = tokio::time::sleep(Duration::from_secs(1)), if progress.terminal => {
                        snapshot.now = jiff::Timestamp::now();
                    }
                    // Graces run out with no change to any object (a
                    // controller that stopped writes nothing): judged
                    // again at the time it is now.
                    _ = tokio::time::sleep(REJUDGE), if !progress.terminal => {
                        snapshot.now = jiff::Timestamp::now();
                    }
                }
            }
        }
    }
}

/// What a wait that ended well prints: a line per target, or the document.
fn done(report: &StatusReport, settings: &Settings) -> String {
    match &settings.view.output {
        shape if !shape.is_document() => report
            .items
            .iter()
            .map(|i| {
                format!(
                    "{}/{}: {} ({})\n",
                    render::escape(&i.object.kind),
                    render::escape(&i.object.name),
                    i.judgement.verdict,
                    render::escape(i.judgement.reason.as_str())
                )
            })
            .collect(),
        _ => super::frame::document(report, settings, Shown::Once),
    }
}

/// Whether an answer that says Done can be trusted: no gap hides a
/// failure, a gap that may heal (wait on), or one that will not (say so).
enum Unconfirmed {
    No,
    Yet(Vec<String>),
    Never(Vec<String>),
}

fn unconfirmed(snapshot: &Snapshot, want: WaitFor, unwatchable: &[Incomplete]) -> Unconfirmed {
    let hiding = hiding_gaps(snapshot, want, unwatchable);
    if hiding.is_empty() {
        return Unconfirmed::No;
    }
    let lines: Vec<String> = hiding
        .iter()
        .map(|g| render::escape(&gap_line(g)).into_owned())
        .collect();
    if hiding.iter().all(|g| is_permanent(g)) {
        Unconfirmed::Never(lines)
    } else {
        Unconfirmed::Yet(lines)
    }
}

/// The gaps of `snapshot` that could hide a failure of the targets or
/// their trees (a list of their children); none matter to `--for
/// deleted`, which needs only the targets' own reads. A read whose watch
/// is forbidden but whose list is not (`unwatchable`) is read all the
/// same, by listing again: no gap.
fn hiding_gaps<'s>(
    snapshot: &'s Snapshot,
    want: WaitFor,
    unwatchable: &[Incomplete],
) -> Vec<&'s Incomplete> {
    match want {
        WaitFor::Deleted => Vec::new(),
        WaitFor::Converged => snapshot
            .incomplete
            .iter()
            .filter(|g| !super::explains_only(&g.resource))
            .filter(|g| !unwatchable.contains(g))
            .collect(),
    }
}

/// A gap that no retry heals: the read is forbidden, or not served.
fn is_permanent(gap: &Incomplete) -> bool {
    gap.error.starts_with("forbidden") || gap.error.starts_with("not found")
}

fn gap_line(gap: &Incomplete) -> String {
    match &gap.namespace {
        Some(ns) => format!("{} in {ns} ({})", gap.resource, gap.error),
        None => format!("{} ({})", gap.resource, gap.error),
    }
}

/// The diagnosis of the first target that is a Job not found whose events
/// say it failed and was deleted, read once (each such name is asked
/// about once), with the item: the wait shows it as it is.
async fn failed_and_gone<'i>(
    settings: &Settings,
    items: &[&'i Item],
    asked: &mut HashSet<String>,
    deadline: tokio::time::Instant,
    judge: &Judge,
) -> Option<(&'i Item, WhyReport, jiff::Timestamp)> {
    for item in items {
        let id = &item.object;
        let key = format!(
            "{}/{}/{}",
            id.namespace.as_deref().unwrap_or(""),
            id.kind,
            id.name
        );
        if item.judgement.verdict != Verdict::NotFound || id.kind != "Job" || !asked.insert(key) {
            continue;
        }
        let Ok(Ok(fetched)) =
            tokio::time::timeout_at(deadline, load_why(settings, &[identity(id)])).await
        else {
            continue;
        };
        let judged = judge.on(&fetched.snapshot);
        if crate::diagnose::failed_then_deleted(&judged, id) {
            let report = WhyReport::build(&judged, &fetched.targets);
            return Some((item, report, fetched.snapshot.now));
        }
    }
    None
}

/// How many children made after the first read a wait reads the trees
/// again for, at most: an operator that makes pods without end does not
/// make the wait read without end (past it, the watches alone go on).
const MAX_CHILDREN_ASKED: usize = 64;

/// The watches of an answer, and of what operators may make below its
/// custom resources later.
fn watch_answer(
    live: &crate::source::live::Live,
    fetched: &mut crate::source::live::Fetched,
) -> Cache {
    let mut watches = std::mem::take(&mut fetched.watches);
    let objects: Vec<&crate::model::Object> = fetched.snapshot.objects().iter().collect();
    watches.extend(live.children_watches(&objects));
    Cache::start(live.api(), watches, fetched.gaps.clone(), None).keeping_crds_of(&fetched.snapshot)
}

/// Whether an object read only by the children watches (its metadata) is
/// controlled by an object the answer holds in full, and was not asked
/// about yet: a child an operator made after the first read (a Rollout's
/// new ReplicaSet), or a child of that child made after the answer that
/// found it (the ReplicaSet's first pod), which no watch by name covers.
fn made_since(snap: &Snapshot, asked: &mut HashSet<String>) -> bool {
    let mut new = false;
    for o in snap.objects().iter().filter(|o| o.metadata_only) {
        let owned = o
            .controller()
            .and_then(|c| snap.get(&c.uid))
            .is_some_and(|owner| !owner.metadata_only);
        if owned && asked.insert(o.uid.clone()) {
            new = true;
        }
    }
    new
}

#[cfg(test)]
mod made_since_tests {
    use super::*;
    use serde_json::json;

    fn object(
        kind: &str,
        name: &str,
        uid: &str,
        owner: Option<(&str, &str)>,
    ) -> crate::model::Object {
        let api = match kind {
            "Rollout" => "argoproj.io/v1alpha1",
            "ReplicaSet" => "apps/v1",
            _ => "v1",
        };
        let mut meta = json!({"name": name, "namespace": "shop", "uid": uid});
        if let Some((k, u)) = owner {
            meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": k, "name": "x", "uid": u, "controller": true}]);
        }
        crate::model::Object::from_value(json!({"apiVersion": api, "kind": kind, "metadata": meta}))
            .unwrap()
    }

    #[test]
    fn a_pod_made_by_a_replicaset_the_answer_holds_in_full_is_asked_about_once() {
        let rollout = object("Rollout", "web", "r", None);
        let rs = object("ReplicaSet", "web-66f", "rs", Some(("Rollout", "r")));
        let mut pod = object("Pod", "web-66f-x", "p", Some(("ReplicaSet", "rs")));
        pod.metadata_only = true;
        let mut stranger = object("Pod", "other", "o", Some(("ReplicaSet", "elsewhere")));
        stranger.metadata_only = true;
        let snap = crate::model::Snapshot::new(
            vec![rollout, rs, pod, stranger],
            vec![],
            vec![],
            jiff::Timestamp::UNIX_EPOCH,
        );
        let mut asked = HashSet::new();
        assert!(made_since(&snap, &mut asked));
        assert_eq!(asked, HashSet::from(["p".to_string()]));
        assert!(!made_since(&snap, &mut asked), "asked about once");
    }
}

/// The command's deadline and the end of the wait. The wait never gives
/// up before --timeout has passed (a script that says 5s gets at least
/// 5s); the diagnosis after it has a short budget of its own
/// (`diagnosis_reserve`), and falls back to what the watches last saw.
/// `--timeout 0` checks once: the reads keep the command's own deadline
/// (`reads`), and the wait ends as soon as the first state is judged.
fn deadlines(
    started: tokio::time::Instant,
    timeout: Duration,
    reads: Duration,
) -> (tokio::time::Instant, tokio::time::Instant) {
    if timeout.is_zero() {
        return (started + reads, started);
    }
    // A timeout past what the clock can hold waits as long as it can.
    let far = |t: tokio::time::Instant, d: Duration| {
        t.checked_add(d)
            .unwrap_or_else(|| t + Duration::from_secs(100 * 365 * 86_400))
    };
    let wait_until = far(started, timeout);
    (far(wait_until, diagnosis_reserve(timeout)), wait_until)
}

/// The end of `--timeout` kept for reading the diagnosis: a tenth, at most
/// two seconds.
fn diagnosis_reserve(timeout: Duration) -> Duration {
    (timeout / 10).min(Duration::from_secs(2))
}

/// `error: Deployment/web failed (ImagePullBackOff); …`
fn failed_line(items: &[&Item]) -> String {
    let why: Vec<String> = items
        .iter()
        .map(|i| render::escape(i.judgement.reason.as_str()).into_owned())
        .collect();
    format!(
        "error: {} failed ({}); it will not converge without a change",
        names(items),
        why.join(", ")
    )
}

fn names(items: &[&Item]) -> String {
    items
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                render::escape(&i.object.kind),
                render::escape(&i.object.name)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `why` of the targets that failed or are still pending; exit 1. Read
/// afresh when the cluster answers before `deadline`, else drawn from
/// `last`, what the watches last showed, with the gap named.
async fn diagnose(
    settings: &Settings,
    items: &[&Item],
    deadline: tokio::time::Instant,
    last: &Snapshot,
    judge: &Judge,
    capture: Option<(&std::path::Path, &str)>,
) -> anyhow::Result<Outcome> {
    let specs: Vec<TargetSpec> = items.iter().map(|i| identity(&i.object)).collect();
    let read = super::load::load_why_keep(settings, &specs);
    let (report, now) = match tokio::time::timeout_at(deadline, read).await {
        Ok(loaded) => {
            let (loaded, _) = loaded?;
            if let Some((path, command)) = capture {
                // The kinds as the connection that read them knows them.
                super::snapshot::capture(
                    settings,
                    &loaded.fetched.snapshot,
                    loaded.live.as_ref(),
                    command.to_string(),
                    false,
                    super::snapshot::Sink::File(path),
                )
                .await?;
            }
            let fetched = loaded.fetched;
            (
                WhyReport::build(&judge.on(&fetched.snapshot), &fetched.targets),
                fetched.snapshot.now,
            )
        }
        Err(_) => {
            let mut snapshot = last.clone();
            snapshot.incomplete.push(Incomplete {
                resource: "the diagnosis (events, owners, children)".into(),
                namespace: None,
                error: "not read before --timeout; shown from what the watches last saw".into(),
            });
            if let Some((path, command)) = capture {
                super::snapshot::capture(
                    settings,
                    &snapshot,
                    None,
                    command.to_string(),
                    false,
                    super::snapshot::Sink::File(path),
                )
                .await?;
            }
            // Found again by identity, as the watches find them.
            let ids = items.iter().map(|i| i.object.clone()).collect();
            let targets = Retarget::Fixed(ids).targets(&judge.on(&snapshot));
            (
                WhyReport::build(&judge.on(&snapshot), &targets),
                snapshot.now,
            )
        }
    };
    Ok(shown(settings, &report, now))
}

/// The diagnosis as the wait's answer: exit 1.
fn shown(settings: &Settings, report: &WhyReport, now: jiff::Timestamp) -> Outcome {
    let mut aimed;
    let report = match &settings.connection.context {
        Some(context) => {
            aimed = report.clone();
            aimed.aim_at(context);
            &aimed
        }
        None => report,
    };
    let stdout = match &settings.view.output {
        shape if !shape.is_document() => render::why::render(
            report,
            &WhyOptions {
                style: Style {
                    color: settings.color,
                },
                width: settings.text_width(),
                now,
                full: true,
            },
        ),
        _ => super::frame::document(report, settings, Shown::Once),
    };
    Outcome { stdout, code: 1 }
}

/// The one progress line on stderr: rewritten in place on a terminal,
/// printed when it changes otherwise. The wait's own error and warning
/// lines go through it too, so that they never land inside the line.
struct Progress<E: Write> {
    err: E,
    terminal: bool,
    width: usize,
    last: String,
    last_secs: u64,
    /// A context's place on the fleet's line, which draws instead.
    seat: Option<LineSeat>,
}

/// The one progress line of a fleet's wait: what each context still
/// waits for, and each context's own error and warning lines prefixed
/// with its name.
pub struct FleetLine {
    progress: Progress<std::io::Stderr>,
    waiting: std::collections::BTreeMap<String, (usize, String)>,
    started: std::time::Instant,
}

impl FleetLine {
    pub fn shared() -> std::rc::Rc<std::cell::RefCell<FleetLine>> {
        std::rc::Rc::new(std::cell::RefCell::new(FleetLine {
            progress: Progress::stderr(),
            waiting: std::collections::BTreeMap::new(),
            started: std::time::Instant::now(),
        }))
    }

    fn show(&mut self, context: &str, count: usize, parts: String) {
        self.waiting.insert(context.to_string(), (count, parts));
        let count: usize = self.waiting.values().map(|(n, _)| n).sum();
        let parts: Vec<String> = self
            .waiting
            .iter()
            .map(|(c, (_, p))| format!("{c}: {p}"))
            .collect();
        let line = render::escape(&format!(
            "waiting for {count} in {} contexts: {}",
            self.waiting.len(),
            parts.join(" | ")
        ))
        .into_owned();
        let elapsed = self.started.elapsed();
        self.progress.draw(line, elapsed);
    }
}

/// A context's place on the fleet's [`FleetLine`].
pub struct LineSeat {
    board: std::rc::Rc<std::cell::RefCell<FleetLine>>,
    context: String,
}

impl Drop for LineSeat {
    /// A context whose wait has ended waits for nothing more.
    fn drop(&mut self) {
        if let Ok(mut board) = self.board.try_borrow_mut() {
            board.waiting.remove(&self.context);
        }
    }
}

impl LineSeat {
    pub fn at(board: &std::rc::Rc<std::cell::RefCell<FleetLine>>, context: &str) -> LineSeat {
        LineSeat {
            board: board.clone(),
            context: context.to_string(),
        }
    }
}

impl Progress<std::io::Stderr> {
    /// On the process's stderr.
    fn stderr() -> Self {
        let console = Console::process();
        let width = if console.err_is_terminal {
            (console.width)()
        } else {
            usize::MAX
        };
        Progress::new(console.err, console.err_is_terminal, width)
    }
}

impl<E: Write> Progress<E> {
    fn new(err: E, terminal: bool, width: usize) -> Progress<E> {
        Progress {
            err,
            terminal,
            width,
            last: String::new(),
            last_secs: 0,
            seat: None,
        }
    }

    /// Says each of `lines` after `prefix`, each once in the whole wait.
    fn say_once(&mut self, said: &mut HashSet<String>, prefix: &str, lines: Vec<String>) {
        for line in lines {
            if said.insert(line.clone()) {
                self.say(&format!("{prefix}{line}"));
            }
        }
    }

    fn show(&mut self, pending: &[&Item], elapsed: Duration) {
        let parts: Vec<String> = pending
            .iter()
            .map(|i| {
                let ready = i
                    .judgement
                    .ready
                    .map(|r| format!(" {}/{}", r.ready, r.desired))
                    .unwrap_or_default();
                format!(
                    "{}/{} {} {}{ready}",
                    i.object.kind, i.object.name, i.judgement.verdict, i.judgement.reason
                )
            })
            .collect();
        if let Some(seat) = &self.seat {
            seat.board
                .borrow_mut()
                .show(&seat.context, pending.len(), parts.join("; "));
            return;
        }
        let line = render::escape(&format!(
            "waiting for {}: {}",
            pending.len(),
            parts.join("; ")
        ))
        .into_owned();
        self.draw(line, elapsed);
    }

    /// Draws `line` unless it is what is drawn already (on a terminal, in
    /// the same second).
    fn draw(&mut self, line: String, elapsed: Duration) {
        if line == self.last && (!self.terminal || elapsed.as_secs() == self.last_secs) {
            return;
        }
        self.last_secs = elapsed.as_secs();
        let _ = if self.terminal {
            write!(
                self.err,
                "\r\x1b[K{} ({}s)",
                crate::render::layout::truncate(&line, self.width.saturating_sub(8)),
                elapsed.as_secs()
            )
        } else {
            writeln!(self.err, "{line}")
        };
        let _ = self.err.flush();
        self.last = line;
    }

    /// Takes the progress line off a terminal, before the answer.
    fn clear(&mut self) {
        if let Some(seat) = &self.seat {
            let mut board = seat.board.borrow_mut();
            board.waiting.remove(&seat.context);
            board.progress.clear();
            return;
        }
        if self.terminal && !self.last.is_empty() {
            let _ = write!(self.err, "\r\x1b[K");
            let _ = self.err.flush();
            self.last.clear();
        }
    }

    /// A line of its own on stderr (`error: …`, `warning: …`), the
    /// progress line cleared first; it is drawn again at the next look.
    fn say(&mut self, line: &str) {
        if let Some(seat) = &self.seat {
            let line = format!("{}: {line}", render::escape(&seat.context));
            seat.board.borrow_mut().progress.say(&line);
            return;
        }
        self.clear();
        let _ = writeln!(self.err, "{line}");
        let _ = self.err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectRef;
    use crate::verdict::{Judgement, Ready, Reason};

    fn item(
        kind: &str,
        name: &str,
        verdict: Verdict,
        reason: &str,
        ready: Option<(i64, i64)>,
    ) -> Item {
        let object = ObjectRef {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            namespace: Some("shop".into()),
            name: name.into(),
            uid: None,
        };
        Item {
            judgement: Judgement {
                ready: ready.map(|(ready, desired)| Ready { ready, desired }),
                ..Judgement::new(verdict, Reason::of(reason), String::new())
            },
            ..Item::missing(&object)
        }
    }

    /// Deployment `web`, rolling out, with this many pods ready of two.
    fn rolling(ready: i64) -> Item {
        item(
            "Deployment",
            "web",
            Verdict::Progressing,
            "NewReplicaSetCreated",
            Some((ready, 2)),
        )
    }

    fn taken(p: &mut Progress<Vec<u8>>) -> String {
        String::from_utf8(std::mem::take(&mut p.err)).unwrap()
    }

    #[test]
    fn off_a_terminal_the_progress_line_is_printed_when_it_changes() {
        let mut p = Progress::new(Vec::new(), false, usize::MAX);
        let web = rolling(0);
        p.show(&[&web], Duration::from_secs(1));
        p.show(&[&web], Duration::from_secs(2));
        assert_eq!(
            taken(&mut p),
            "waiting for 1: Deployment/web Progressing NewReplicaSetCreated 0/2\n"
        );
        let web = rolling(1);
        p.show(&[&web], Duration::from_secs(3));
        p.say("error: timed out after 3s waiting for Deployment/web");
        assert_eq!(
            taken(&mut p),
            "waiting for 1: Deployment/web Progressing NewReplicaSetCreated 1/2\nerror: timed out after 3s waiting for Deployment/web\n"
        );
    }

    #[test]
    fn on_a_terminal_the_progress_line_is_rewritten_in_place_and_cleared_before_other_lines() {
        let mut p = Progress::new(Vec::new(), true, 40);
        let web = rolling(0);
        let db = item(
            "StatefulSet",
            "db\u{1b}[2J",
            Verdict::Progressing,
            "RollingUpdate",
            None,
        );
        p.show(&[&web, &db], Duration::from_secs(1));
        // The same line, a second later: the clock moves.
        p.show(&[&web, &db], Duration::from_secs(2));
        // The line is cut to the width, less the clock's room; a name from
        // the cluster is escaped.
        let out = taken(&mut p);
        assert_eq!(
            out,
            "\r\x1b[Kwaiting for 2: Deployment/web P… (1s)\r\x1b[Kwaiting for 2: Deployment/web P… (2s)"
        );
        p.say("warning: pods in shop: forbidden (watching; re-listed every 5s instead)");
        assert_eq!(
            taken(&mut p),
            "\r\x1b[Kwarning: pods in shop: forbidden (watching; re-listed every 5s instead)\n"
        );
        // Cleared once: nothing is left to take off.
        p.clear();
        assert_eq!(taken(&mut p), "");
        let mut wide = Progress::new(Vec::new(), true, 200);
        wide.show(&[&db], Duration::from_secs(4));
        assert_eq!(
            taken(&mut wide),
            "\r\x1b[Kwaiting for 1: StatefulSet/db\\x1b[2J Progressing RollingUpdate (4s)"
        );
    }
}
