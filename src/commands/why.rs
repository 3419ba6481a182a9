//! `why`: the diagnosis of each target, or of every root object in the
//! namespace that is not converged.

use super::frame::{Frame, document, state_line};
use super::{Outcome, exit_code, load_why_keep, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, why::WhyOptions};
use crate::report::WhyReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    watching: bool,
    verbose: bool,
) -> anyhow::Result<Outcome> {
    let (loaded, settled) = load_why_keep(settings, specs).await?;
    let sweep = specs.is_empty();
    watch::show(
        settings,
        loaded,
        watching,
        sweep,
        true,
        |settings, snap, targets, live| {
            frame(settings, snap, targets, live, sweep, verbose, settled)
        },
    )
    .await
}

/// `sweep`: the targets are the namespace's roots, found by reading it;
/// `settled`: how many converged roots the sweep judged as their lists
/// arrived and did not keep.
pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    live: bool,
    sweep: bool,
    verbose: bool,
    settled: usize,
) -> Frame {
    let judge = settings.judge();
    let snap = &judge.on(snap);
    let targets = super::frame::selected(settings, snap, targets);
    let report = if sweep {
        // Every root in scope: those the snapshot holds, and those the
        // sweep settled (see load_why_keep).
        let roots =
            crate::source::offline::resolve(snap, &[], super::load::offline_namespace(settings))
                .map(|r| r.len())
                .unwrap_or(targets.len())
                + settled;
        WhyReport::sweep(snap, &targets, roots)
    } else {
        WhyReport::build(snap, &targets)
    };
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
        live,
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
                        width: settings.width,
                        now: snap.now,
                        full: verbose || !sweep,
                    },
                )
            }
        },
        || document(&report, settings, live),
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
