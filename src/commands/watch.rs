//! `--watch`: keep the answer live. The watches feed a cache; after every
//! change (gathered for a moment) the pure stages run again on a snapshot of
//! the cache and the new frame is shown: redrawn in place on a terminal,
//! as timestamped change lines off one, or as one document per change with
//! `-o json|yaml`.

use std::time::{Duration, Instant};

use super::fleet_watch::Seat;
use super::frame::{Frame, Shown, Subject};
use super::load::Loaded;
use super::screen::{Printer, Screen};
use super::{Outcome, UsageError};
use crate::model::{ObjectRef, Snapshot, Target};
use crate::settings::Settings;
use crate::source::live::Fetched;
use crate::source::offline;
use crate::source::watch::Cache;
use crate::targets::failing_roots;
use crate::terminal::Console;
use crate::verdict::Judged;

/// How long changes are gathered before a redraw (`--watch`) or a new
/// look (`wait`).
pub const SETTLE: Duration = Duration::from_millis(150);

/// Which objects the answer is about, found again in every new snapshot:
/// objects come and go, and a recreated object has a new uid.
pub enum Retarget {
    Fixed(Vec<ObjectRef>),
    /// The scope's roots, all of them or only those not converged; only
    /// those with these labels when given (`-l` without a TYPE).
    Roots(Subject, Option<String>),
}

impl Retarget {
    pub fn new(fetched: &Fetched, subject: Subject, labels: Option<&str>) -> Retarget {
        if subject.is_sweep() {
            return Retarget::Roots(subject, labels.map(str::to_string));
        }
        Retarget::Fixed(
            fetched
                .targets
                .iter()
                .map(|t| match t {
                    Target::Found(uid) => ObjectRef {
                        uid: None,
                        ..fetched.snapshot.id_of(uid)
                    },
                    Target::Missing(id) => id.clone(),
                })
                .collect(),
        )
    }

    pub fn targets(&self, snap: &Judged<'_>) -> Vec<Target> {
        match self {
            Retarget::Fixed(ids) => ids
                .iter()
                .map(|id| {
                    match snap.find(id.group(), &id.kind, id.namespace.as_deref(), &id.name) {
                        Some(obj) => Target::Found(obj.uid.clone()),
                        None => Target::Missing(id.clone()),
                    }
                })
                .collect(),
            Retarget::Roots(subject, labels) => {
                let roots =
                    offline::resolve(snap, &[], None, labels.as_deref()).unwrap_or_default();
                match subject {
                    Subject::FailingRoots => failing_roots(snap, &roots),
                    Subject::Roots | Subject::Named => roots,
                }
            }
        }
    }
}

/// Shows a loaded answer once, or keeps it live with `--watch`, its
/// targets (its `subject`) found again on every change.
/// `seat`: one context of a fleet's watch draws there, not on stdout.
pub async fn show(
    settings: &Settings,
    loaded: Loaded,
    (shown, seat): (Shown, Option<Seat>),
    subject: Subject,
    frame: impl Fn(&Settings, &Snapshot, &[Target], Shown) -> Frame,
) -> anyhow::Result<Outcome> {
    if shown == Shown::Live {
        let retarget = Retarget::new(&loaded.fetched, subject, settings.sweep_labels.as_deref());
        return match seat {
            // One context of a fleet: its frames go to the fleet's screen.
            Some(mut seat) => watch(settings, loaded, retarget, frame, &mut seat).await,
            None => {
                let mut printer = Printer::new(settings, Console::process());
                watch(settings, loaded, retarget, frame, &mut printer).await
            }
        };
    }
    let f = frame(
        settings,
        &loaded.fetched.snapshot,
        &loaded.fetched.targets,
        Shown::Once,
    );
    Ok(Outcome {
        stdout: f.output(settings),
        code: f.code,
    })
}

/// Watches until interrupted; the exit status is the last frame's.
async fn watch(
    settings: &Settings,
    mut loaded: Loaded,
    retarget: Retarget,
    frame: impl Fn(&Settings, &Snapshot, &[Target], Shown) -> Frame,
    printer: &mut impl Screen,
) -> anyhow::Result<Outcome> {
    let Some(live) = loaded.live else {
        return Err(
            UsageError("--watch needs a live cluster: a snapshot does not change".into()).into(),
        );
    };
    let mut cache = Cache::start(
        live.api(),
        std::mem::take(&mut loaded.fetched.watches),
        loaded.fetched.gaps.clone(),
        live.settle.clone(),
    )
    .keeping_crds_of(&loaded.fetched.snapshot);
    // On a terminal the width is read again for every frame (a resized
    // window), and the last state is drawn again every second, so that
    // AGE and SINCE keep time between changes.
    let redraw = printer.redraws();
    let mut current = settings.clone();
    let mut last = (loaded.fetched.snapshot, loaded.fetched.targets);
    // What a frame costs: a large answer is redrawn for its clock less
    // often (at most a tenth of the time goes to it), never more than once
    // a second.
    let started = Instant::now();
    let first = frame(&current, &last.0, &last.1, Shown::Live);
    let mut cost = started.elapsed();
    let mut drawn = Instant::now();
    let mut code = first.code;
    if !printer.show(&first) {
        return Ok(Outcome {
            stdout: String::new(),
            code: 0,
        });
    }
    // One listener for the whole watch: a Ctrl-C that arrives while a frame
    // is being built is kept, not lost between two listeners.
    let interrupted = interrupt();
    tokio::pin!(interrupted);
    // An outage is shown, and its clock kept running, once a second.
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            biased;
            () = &mut interrupted => break,
            _ = tick.tick() => {
                if crate::terminal::stdout_closed() {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
                for notice in cache.notices() {
                    if !printer.notice(&notice) {
                        return Ok(Outcome { stdout: String::new(), code: 0 });
                    }
                }
                if !printer.outage(cache.outage()) {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
                if redraw && cache.outage().is_none() && drawn.elapsed() >= cost * 10 {
                    current.width = Some(printer.width());
                    last.0.now = printer.now();
                    let started = Instant::now();
                    let f = frame(&current, &last.0, &last.1, Shown::Live);
                    (cost, drawn) = (started.elapsed(), Instant::now());
                    code = f.code;
                    if !printer.show(&f) {
                        return Ok(Outcome { stdout: String::new(), code: 0 });
                    }
                }
            }
            got = cache.changes.recv() => {
                if got.is_none() {
                    break;
                }
                tokio::select! {
                    biased;
                    () = &mut interrupted => break,
                    () = tokio::time::sleep(SETTLE) => {}
                }
                while cache.changes.try_recv().is_ok() {}
                if !cache.synced() {
                    continue;
                }
                let snap = cache.snapshot(printer.now());
                if redraw {
                    current.width = Some(printer.width());
                }
                let targets = retarget.targets(&settings.judge().on(&snap));
                let started = Instant::now();
                let f = frame(&current, &snap, &targets, Shown::Live);
                (cost, drawn) = (started.elapsed(), Instant::now());
                last = (snap, targets);
                code = f.code;
                if !printer.show(&f) {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
            }
        }
    }
    Ok(Outcome {
        stdout: String::new(),
        code,
    })
}

/// Resolves at the first Ctrl-C. The handler is installed at once, so a
/// Ctrl-C that comes before the first poll, or between two polls, counts.
fn interrupt() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
    async move {
        #[cfg(unix)]
        match sigint {
            Ok(mut sigint) => {
                sigint.recv().await;
            }
            // No handler: Ctrl-C keeps its default action, ending the process.
            Err(_) => std::future::pending().await,
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}
