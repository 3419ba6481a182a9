//! `why`: the diagnosis of each target, or of every root object in the
//! namespace that is not converged.

use super::frame::{Frame, Shown, Subject, document, state_line};
use super::{Outcome, exit_code, load_why_keep, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, why::WhyOptions};
use crate::report::WhyReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;

/// `capture`: where to write what the answer read, and the command that
/// the capture names (`why --capture`).
pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    shown: Shown,
    verbose: bool,
    capture: Option<(&std::path::Path, String)>,
    seat: Option<super::fleet_watch::Seat>,
) -> anyhow::Result<Outcome> {
    let (loaded, settled) = load_why_keep(settings, specs).await?;
    if let Some((path, command)) = capture {
        // YAML whatever -o says: -o shapes the answer, not its capture.
        super::snapshot::capture(
            settings,
            &loaded.fetched.snapshot,
            loaded.live.as_ref(),
            command,
            false,
            super::snapshot::Sink::File(path),
        )
        .await?;
    }
    let subject = if specs.is_empty() {
        Subject::FailingRoots
    } else {
        Subject::Named
    };
    let detail = if verbose {
        Detail::Full
    } else {
        Detail::AsAsked
    };
    watch::show(
        settings,
        loaded,
        (shown, seat),
        subject,
        |settings, snap, targets, shown| {
            frame(
                settings,
                snap,
                targets,
                Asked {
                    shown,
                    subject,
                    detail,
                },
                settled.as_ref().map_or(0, |s| s.count(snap)),
            )
        },
    )
    .await
}

/// How much of each diagnosis a sweep prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Whole, as for a named target (`-v` on a sweep).
    Full,
    /// Whole for named targets, a summary each in a sweep.
    AsAsked,
}

/// What a `why` frame was asked for.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    pub shown: Shown,
    /// The targets are named, or the namespace's failing roots, found by
    /// reading it.
    pub subject: Subject,
    pub detail: Detail,
}

/// `settled`: how many converged roots the sweep judged as their lists
/// arrived and did not keep.
pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    asked: Asked,
    settled: usize,
) -> Frame {
    let Asked {
        shown,
        subject,
        detail,
    } = asked;
    let sweep = subject.is_sweep();
    let judge = settings.judge();
    let snap = &judge.on(snap);
    let targets = super::frame::selected(settings, snap, targets);
    let report = if sweep {
        // Every root in scope: those the snapshot holds, and those the
        // sweep settled (see load_why_keep).
        let roots = crate::source::offline::resolve(
            snap,
            &[],
            super::load::offline_namespace(settings),
            settings.sweep_labels.as_deref(),
        )
        .map(|r| r.len())
        .unwrap_or(targets.len())
            + settled;
        WhyReport::sweep(snap, &targets, roots)
    } else {
        WhyReport::build(snap, &targets)
    };
    // Steps run against the context asked for, not whichever is current.
    let mut report = report;
    if let Some(context) = &settings.connection.context {
        report.aim_at(context);
    }
    let style = Style {
        color: settings.color,
    };
    let code = super::answer_exit_code(
        exit_code(report.items.iter().map(|d| &d.item)),
        &report.incomplete,
        sweep,
    );
    Frame::made(
        settings,
        shown,
        code,
        || {
            let objects: Vec<_> = report.items.iter().map(|d| &d.item.object).collect();
            let shaped = super::frame::shaped_text(settings, &report.items, &objects);
            if let Some(text) = shaped {
                text
            } else if report.items.is_empty() {
                let place = if settings.scope.is_all() {
                    "any namespace"
                } else {
                    "the namespace"
                };
                // A partial read never claims that everything is converged.
                let claim = if report.incomplete.is_empty() {
                    format!("Every root object in {place} is converged.")
                } else {
                    format!(
                        "No root object that could be read in {place} is failing, but not everything could be read (below): convergence is not known."
                    )
                };
                format!("{claim}\n{}", render::footer(&report.incomplete, style))
            } else {
                render::why::render(
                    &report,
                    &WhyOptions {
                        style,
                        width: settings.text_width(),
                        now: snap.now,
                        full: detail == Detail::Full || !sweep,
                    },
                )
            }
        },
        || document(&report, settings, shown),
        || {
            report
                .items
                .iter()
                .map(|d| {
                    let (key, mut line) = state_line(&d.item);
                    if let Some(c) = &d.root_cause {
                        let kind = c.objects.first().map(|o| o.kind.as_str()).unwrap_or("");
                        line.push_str(&format!(
                            "; root cause: {kind} {} x{}",
                            render::escape(c.reason.as_str()),
                            c.count
                        ));
                    }
                    (key, line)
                })
                .collect()
        },
    )
}
