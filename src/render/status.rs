//! The text status table: one line per object.

use jiff::Timestamp;

use super::escape::escape;
use super::layout::{Cell, table};
use super::{Style, footer, ready_text, since_text};
use crate::report::StatusReport;
use crate::verdict::Verdict;

pub struct StatusOptions {
    pub style: Style,
    pub width: Option<usize>,
    pub now: Timestamp,
}

pub fn render(report: &StatusReport, opts: &StatusOptions) -> String {
    let namespaces: std::collections::BTreeSet<Option<&str>> = report
        .items
        .iter()
        .map(|i| i.object.namespace.as_deref())
        .collect();
    let show_ns = namespaces.len() > 1;
    let mut header = vec!["NAME", "VERDICT", "REASON", "READY", "SINCE", "MESSAGE"];
    if show_ns {
        header.insert(0, "NAMESPACE");
    }
    let style = opts.style;
    let rows = report
        .items
        .iter()
        .map(|item| {
            let mut cells = Vec::new();
            if show_ns {
                cells.push(Cell::plain(
                    item.object
                        .namespace
                        .as_deref()
                        .map(|n| escape(n).into_owned())
                        .unwrap_or_default(),
                ));
            }
            let verdict = item.verdict;
            cells.push(Cell::plain(format!(
                "{}/{}",
                escape(&item.object.kind),
                escape(&item.object.name)
            )));
            cells.push(Cell::painted(verdict.as_str(), move |s| {
                style.verdict(verdict, s)
            }));
            cells.push(Cell::plain(escape(&item.reason).into_owned()));
            cells.push(Cell::plain(ready_text(item)));
            cells.push(Cell::plain(since_text(item, opts.now)));
            cells.push(Cell::plain(if verdict == Verdict::Converged {
                String::new()
            } else {
                escape(&item.message).into_owned()
            }));
            cells
        })
        .collect();
    let mut out = if report.items.is_empty() {
        "No objects found.\n".to_string()
    } else {
        table(&header, rows, opts.width)
    };
    out.push_str(&footer(&report.incomplete, style));
    out
}
