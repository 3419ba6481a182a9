//! `rules`: the health rules in effect and where each came from.

use super::Outcome;
use super::frame::document;
use crate::rules::list::{RuleList, render};
use crate::settings::Settings;

pub fn run(settings: &Settings) -> Outcome {
    let stdout = if settings.view.output.is_document() {
        document(
            &RuleList::build(&settings.rules),
            settings,
            super::frame::Shown::Once,
        )
    } else {
        render(&settings.rules) + &crd_reads(settings)
    };
    Outcome { stdout, code: 0 }
}

/// With `--snapshot`: the kinds its CRDs let speak where no convention
/// reads them, and what of each is read (docs/verdicts.md).
fn crd_reads(settings: &Settings) -> String {
    let Some(path) = &settings.snapshot else {
        return String::new();
    };
    let Ok(snap) = crate::source::file::load_snapshot(path, settings.now, settings.snapshot_limit)
    else {
        return String::new();
    };
    let mut lines: Vec<String> = snap
        .objects()
        .iter()
        .filter(|o| o.kind() == "CustomResourceDefinition" && o.group() == "apiextensions.k8s.io")
        .filter_map(|crd| {
            let reads = crate::verdict::columns::reads(crd);
            (!reads.is_empty()).then(|| {
                format!(
                    "  {}.{}: {}\n",
                    crate::render::escape(crd.str("/spec/names/kind").unwrap_or("?")),
                    crate::render::escape(crd.str("/spec/group").unwrap_or("?")),
                    crate::render::escape(&reads.join(", "))
                )
            })
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    lines.sort();
    format!(
        "\nKinds the snapshot's CRDs speak for, where no rule or convention reads their status:\n{}",
        lines.concat()
    )
}
