//! `status`: one line per target, or per root object of the namespace.

use super::{Outcome, exit_code, load};
use crate::cli::OutputFormat;
use crate::render::{self, Style, status::StatusOptions};
use crate::report::StatusReport;
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

pub async fn run(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Outcome> {
    let fetched = load(settings, specs, Mode::Status).await?;
    let report = StatusReport::build(&fetched.snapshot, &fetched.targets);
    let stdout = match settings.output {
        OutputFormat::Json => render::json(&report),
        OutputFormat::Yaml => render::yaml(&report),
        OutputFormat::Text => render::status::render(
            &report,
            &StatusOptions {
                style: Style {
                    color: settings.color,
                },
                width: settings.width,
                now: fetched.snapshot.now,
            },
        ),
    };
    Ok(Outcome {
        stdout,
        code: exit_code(&report.items),
    })
}
