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
) -> anyhow::Result<Outcome> {
    let loaded = load_why_keep(settings, specs).await?;
    watch::show(
        settings,
        loaded,
        watching,
        specs.is_empty(),
        true,
        |snap, targets, compact| frame(settings, snap, targets, compact, specs.is_empty()),
    )
    .await
}

/// `sweep`: the targets are the namespace's roots, found by reading it.
pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    compact: bool,
    sweep: bool,
) -> Frame {
    let report = WhyReport::build(snap, targets);
    let style = Style {
        color: settings.color,
    };
    let text = if report.items.is_empty() {
        let place = if settings.all_namespaces {
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
            },
        )
    };
    let states = report
        .items
        .iter()
        .map(|d| {
            let (key, mut line) = state_line(&d.item);
            if let Some(c) = &d.root_cause {
                let kind = c.objects.first().map(|o| o.kind.as_str()).unwrap_or("");
                line.push_str(&format!(
                    "; root cause: {kind} {} x{}",
                    render::escape(&c.reason),
                    c.count
                ));
            }
            (key, line)
        })
        .collect();
    Frame {
        document: document(&report, settings, compact),
        code: if sweep && report.items.is_empty() && !report.incomplete.is_empty() {
            1
        } else {
            exit_code(report.items.iter().map(|d| &d.item))
        },
        states,
        text,
    }
}
