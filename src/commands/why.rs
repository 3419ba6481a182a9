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
    let loaded = load_why_keep(settings, specs).await?;
    let sweep = specs.is_empty();
    watch::show(
        settings,
        loaded,
        watching,
        sweep,
        true,
        |snap, targets, compact| frame(settings, snap, targets, compact, sweep, verbose),
    )
    .await
}

pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    compact: bool,
    sweep: bool,
    verbose: bool,
) -> Frame {
    let report = if sweep {
        // Every root in scope; the snapshot holds them all (see load_why_keep).
        let roots =
            crate::source::offline::resolve(snap, &[], super::load::offline_namespace(settings))
                .map(|r| r.len())
                .unwrap_or(targets.len());
        WhyReport::sweep(snap, targets, roots)
    } else {
        WhyReport::build(snap, targets)
    };
    let style = Style {
        color: settings.color,
    };
    let text = if report.items.is_empty() {
        let place = if settings.all_namespaces {
            "any namespace"
        } else {
            "the namespace"
        };
        format!(
            "Every root object in {place} is converged.\n{}",
            render::footer(&report.incomplete, style)
        )
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
        code: exit_code(report.items.iter().map(|d| &d.item)),
        states,
        text,
    }
}
