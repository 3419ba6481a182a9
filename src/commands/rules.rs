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
        render(&settings.rules)
    };
    Outcome { stdout, code: 0 }
}
