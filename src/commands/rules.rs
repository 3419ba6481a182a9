//! `rules`: the health rules in effect and where each came from.

use super::Outcome;
use super::frame::document;
use crate::cli::OutputFormat;
use crate::rules::list::{RuleList, render};
use crate::settings::Settings;

pub fn run(settings: &Settings) -> Outcome {
    let stdout = match settings.output {
        OutputFormat::Text => render(&settings.rules),
        _ => document(&RuleList::build(&settings.rules), settings, false),
    };
    Outcome { stdout, code: 0 }
}
