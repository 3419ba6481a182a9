//! Rendering reports: text for people (tree, status table), and the
//! versioned JSON or YAML documents for programs. Pure: writes to strings.

pub use crate::escape::escape;
pub mod graph;
pub mod layout;
pub mod rules;
pub mod shape;
pub mod status;
mod style;
pub mod tree;
pub mod why;

pub use style::Style;

use jiff::Timestamp;

use crate::model::{Incomplete, age};
use crate::report::Item;

/// `2/3` where ready counts mean something.
fn ready_text(item: &Item) -> String {
    item.judgement
        .ready
        .map(|r| format!("{}/{}", r.ready, r.desired))
        .unwrap_or_default()
}

/// Age of the last change: the verdict's `since`, else creation.
fn since_text(item: &Item, now: Timestamp) -> String {
    item.judgement
        .since
        .or(item.created)
        .map(|t| age(now, t))
        .unwrap_or_default()
}

/// The footer that says what could not be read, so a partial answer is
/// never mistaken for a whole one.
pub fn footer(incomplete: &[Incomplete], style: Style) -> String {
    footer_of(incomplete.iter().map(|gap| (None, gap)), style)
}

/// [`footer`] of a fleet answer: each gap with the context it is in.
pub fn footer_of<'a>(
    gaps: impl IntoIterator<Item = (Option<&'a str>, &'a Incomplete)>,
    style: Style,
) -> String {
    let mut out = String::new();
    for (context, gap) in gaps {
        if out.is_empty() {
            out = style.bold("\nIncomplete: this answer leaves out what could not be read:\n");
        }
        let place = gap
            .namespace
            .as_deref()
            .map(|ns| format!(" in namespace {}", escape(ns)))
            .unwrap_or_default();
        let context = context
            .map(|c| format!(" of context {}", escape(c)))
            .unwrap_or_default();
        out.push_str(&format!(
            "  - {}{place}{context}: {}\n",
            escape(&gap.resource),
            escape(&gap.error)
        ));
    }
    out
}

/// The JSON document, pretty-printed, unsafe characters as `\uXXXX`.
pub fn json<T: serde::Serialize>(report: &T) -> String {
    let mut s = crate::escape::json_pretty(report);
    s.push('\n');
    s
}

/// The same document as YAML, unsafe characters escaped in double quotes.
pub fn yaml<T: serde::Serialize>(report: &T) -> String {
    crate::escape::yaml(report)
}
