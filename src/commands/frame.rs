//! One rendering of a command's answer: the text, the document for `-o
//! json|yaml`, the exit status, and a line per object for change logs.

use crate::cli::OutputFormat;
use crate::render;
use crate::settings::Settings;

pub struct Frame {
    pub text: String,
    /// The `-o json` (compact, one line) or `-o yaml` document.
    pub document: String,
    pub code: u8,
    /// `(key, line)` per object, for "what changed" lines off a terminal.
    pub states: Vec<(String, String)>,
}

impl Frame {
    /// What to print once, for a command run without `--watch`.
    pub fn output(&self, settings: &Settings) -> String {
        match settings.output {
            OutputFormat::Text => self.text.clone(),
            _ => self.document.clone(),
        }
    }
}

/// The document of a report in the chosen format; `compact` for JSON lines.
pub fn document<T: serde::Serialize>(report: &T, settings: &Settings, compact: bool) -> String {
    match settings.output {
        OutputFormat::Yaml => render::yaml(report),
        OutputFormat::Json if compact => format!("{}\n", render::escape::json_compact(report)),
        _ => render::json(report),
    }
}

/// `Kind/name  Verdict  Reason  ready` for a change line.
pub fn state_line(item: &crate::report::Item) -> (String, String) {
    let ns = item
        .object
        .namespace
        .as_deref()
        .map(|n| format!("{n}/"))
        .unwrap_or_default();
    let key = format!("{ns}{}/{}", item.object.kind, item.object.name);
    let ready = item
        .ready
        .map(|r| format!(" {}/{}", r.ready, r.desired))
        .unwrap_or_default();
    let line = format!("{key} {} {}{ready}", item.verdict, item.reason);
    (key, render::escape(&line).into_owned())
}
