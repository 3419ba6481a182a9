//! `tree`: the owner-reference tree under each target.

use super::{Outcome, exit_code, load};
use crate::cli::OutputFormat;
use crate::render::{self, Style, tree::TreeOptions};
use crate::report::TreeReport;
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    owners: bool,
    all: bool,
) -> anyhow::Result<Outcome> {
    if specs.is_empty() {
        return Err(super::UsageError(
            "tree needs a target, e.g. `tree deploy/web` or `tree deployments -l app=web`".into(),
        )
        .into());
    }
    let fetched = load(settings, specs, Mode::Tree { owners }).await?;
    let report = TreeReport::build(&fetched.snapshot, &fetched.targets, owners);
    let stdout = match settings.output {
        OutputFormat::Json => render::json(&report),
        OutputFormat::Yaml => render::yaml(&report),
        OutputFormat::Text => {
            let opts = TreeOptions {
                style: Style {
                    color: settings.color,
                },
                width: settings.width,
                all,
                now: fetched.snapshot.now,
            };
            if report.items.is_empty() {
                "No objects found.\n".to_string()
            } else {
                render::tree::render(&report, &opts)
            }
        }
    };
    Ok(Outcome {
        stdout,
        code: exit_code(report.items.iter().map(|t| &t.node.item)),
    })
}
