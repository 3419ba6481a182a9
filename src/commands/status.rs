//! `status`: one line per target, or per root object of the namespace.

use super::frame::{Frame, document, state_line};
use super::load::load_status_keep;
use super::{Outcome, sweep_exit_code, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, status::StatusOptions};
use crate::report::StatusReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    watching: bool,
) -> anyhow::Result<Outcome> {
    let loaded = load_status_keep(settings, specs).await?;
    watch::show(
        settings,
        loaded,
        watching,
        specs.is_empty(),
        false,
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
    let report = StatusReport::build(snap, targets);
    let text = render::status::render(
        &report,
        &StatusOptions {
            style: Style {
                color: settings.color,
            },
            width: settings.width,
            now: snap.now,
        },
    );
    Frame {
        document: document(&report, settings, compact),
        code: sweep_exit_code(&report.items, &report.incomplete, sweep),
        states: report.items.iter().map(state_line).collect(),
        text,
    }
}
