//! `status`: one line per target, or per root object of the namespace.

use super::frame::{Frame, document, state_line};
use super::{Outcome, exit_code, load_keep, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, status::StatusOptions};
use crate::report::StatusReport;
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    watching: bool,
) -> anyhow::Result<Outcome> {
    let loaded = load_keep(settings, specs, Mode::Status, None).await?;
    if watching {
        let retarget = watch::Retarget::new(&loaded.fetched, specs.is_empty(), false, settings);
        return watch::watch(settings, loaded, retarget, |snap, targets, compact| {
            frame(settings, snap, targets, compact)
        })
        .await;
    }
    let f = frame(
        settings,
        &loaded.fetched.snapshot,
        &loaded.fetched.targets,
        false,
    );
    Ok(Outcome {
        stdout: f.output(settings),
        code: f.code,
    })
}

pub fn frame(settings: &Settings, snap: &Snapshot, targets: &[Target], compact: bool) -> Frame {
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
        code: exit_code(&report.items),
        states: report.items.iter().map(state_line).collect(),
        text,
    }
}
