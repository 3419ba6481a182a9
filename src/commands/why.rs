//! `why`: the diagnosis of each target, or of every root object in the
//! namespace that is not converged.

use super::{Outcome, exit_code, load_why};
use crate::cli::OutputFormat;
use crate::render::{self, Style, why::WhyOptions};
use crate::report::WhyReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;

pub async fn run(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Outcome> {
    let fetched = load_why(settings, specs).await?;
    let report = WhyReport::build(&fetched.snapshot, &fetched.targets);
    let stdout = match settings.output {
        OutputFormat::Json => render::json(&report),
        OutputFormat::Yaml => render::yaml(&report),
        OutputFormat::Text if report.items.is_empty() => {
            let place = if settings.all_namespaces {
                "any namespace".to_string()
            } else {
                "the namespace".to_string()
            };
            format!(
                "Every root object in {place} is converged.\n{}",
                render::tree_footer(
                    &report.incomplete,
                    Style {
                        color: settings.color
                    }
                )
            )
        }
        OutputFormat::Text => render::why::render(
            &report,
            &WhyOptions {
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
        code: exit_code(report.items.iter().map(|d| &d.item)),
    })
}
