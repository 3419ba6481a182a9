//! The text status table: one line per object, with kubectl's table flags
//! (`-o wide`, `--no-headers`, `--show-labels`, `-L`, NAMESPACE with `-A`).

use jiff::Timestamp;

use super::layout::{Cell, table_shrinking};
use super::shape::{Shape, View};
use super::{Style, footer, ready_text, since_text};
use crate::escape::escape;
use crate::model::{Object, Snapshot};
use crate::report::{Item, StatusReport};
use crate::verdict::Verdict;

pub struct StatusOptions<'a> {
    pub style: Style,
    pub width: Option<usize>,
    pub now: Timestamp,
    pub view: &'a View,
    /// `-A`: the NAMESPACE column even when every row has the same one.
    pub all_namespaces: bool,
    /// Where labels are read from.
    pub snapshot: Option<&'a Snapshot>,
}

pub fn render(report: &StatusReport, opts: &StatusOptions) -> String {
    let namespaces: std::collections::BTreeSet<Option<&str>> = report
        .items
        .iter()
        .map(|i| i.object.namespace.as_deref())
        .collect();
    let show_ns = opts.all_namespaces || namespaces.len() > 1;
    let rows = rows(report, opts, show_ns);
    let mut out = if report.items.is_empty() {
        "No objects found.\n".to_string()
    } else {
        lay_out_table(None, columns(opts, show_ns), rows, opts)
    };
    out.push_str(&footer(&report.incomplete, opts.style));
    out
}

/// The table's header, and which column is MESSAGE (it gives way to the
/// width).
pub struct Columns {
    pub header: Vec<String>,
    pub message: usize,
}

/// The columns of the status table for these flags, NAMESPACE first when
/// `show_ns`.
pub fn columns(opts: &StatusOptions, show_ns: bool) -> Columns {
    let wide = opts.view.output == Shape::Wide;
    let mut header: Vec<String> = Vec::new();
    if show_ns {
        header.push("NAMESPACE".into());
    }
    header.extend(["NAME", "VERDICT", "REASON", "READY", "SINCE"].map(String::from));
    if wide {
        header.extend(["GENERATION", "CONTROLLER", "NODE"].map(String::from));
    }
    header.extend(opts.view.label_columns.iter().map(|k| label_header(k)));
    // MESSAGE gives way to the width; LABELS comes last, as in kubectl.
    let message = header.len();
    header.push("MESSAGE".into());
    if opts.view.show_labels {
        header.push("LABELS".into());
    }
    Columns { header, message }
}

/// The table laid out to the width (`-o wide` prints messages whole, as
/// kubectl's wide output does), with a first CONTEXT column when a fleet
/// is asked (each row's first cell is then its context).
pub fn lay_out_table(
    context: Option<&str>,
    columns: Columns,
    rows: Vec<Vec<Cell>>,
    opts: &StatusOptions,
) -> String {
    let mut header: Vec<&str> = context.into_iter().collect();
    header.extend(columns.header.iter().map(String::as_str));
    let message = columns.message + usize::from(context.is_some());
    let width = if opts.view.output == Shape::Wide {
        None
    } else {
        opts.width
    };
    super::layout::without_header(
        table_shrinking(&header, rows, width, message),
        opts.view.no_headers,
    )
}

/// A row that stands for a whole context that gave no answer (it could
/// not be reached, its credentials failed, nothing could be read): the
/// verdict Unknown, the reason, and what failed as the message.
pub fn unanswered_row(
    opts: &StatusOptions,
    show_ns: bool,
    reason: &str,
    message: &str,
) -> Vec<Cell> {
    let columns = columns(opts, show_ns);
    let style = opts.style;
    let mut cells: Vec<Cell> = (0..columns.header.len())
        .map(|_| Cell::plain(String::new()))
        .collect();
    let name = usize::from(show_ns);
    cells[name] = Cell::plain("-");
    cells[name + 1] = Cell::painted(Verdict::Unknown.as_str(), move |s| {
        style.verdict(Verdict::Unknown, s)
    });
    cells[name + 2] = Cell::plain(escape(reason).into_owned());
    cells[columns.message] = Cell::plain(escape(message).into_owned());
    cells
}

/// A row per item, NAMESPACE first when `show_ns`.
pub fn rows(report: &StatusReport, opts: &StatusOptions, show_ns: bool) -> Vec<Vec<Cell>> {
    let wide = opts.view.output == Shape::Wide;
    let style = opts.style;
    report
        .items
        .iter()
        .map(|item| {
            let obj = object_of(opts.snapshot, item);
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
            let verdict = item.judgement.verdict;
            cells.push(Cell::plain(format!(
                "{}/{}",
                escape(&item.object.kind),
                escape(&item.object.name)
            )));
            cells.push(Cell::painted(verdict.as_str(), move |s| {
                style.verdict(verdict, s)
            }));
            cells.push(Cell::plain(
                escape(item.judgement.reason.as_str()).into_owned(),
            ));
            cells.push(Cell::plain(ready_text(item)));
            cells.push(Cell::plain(since_text(item, opts.now)));
            if wide {
                cells.push(Cell::plain(generation_text(item)));
                let text = |v: &Option<String>| {
                    v.as_deref()
                        .map(|v| escape(v).into_owned())
                        .unwrap_or_default()
                };
                cells.push(Cell::plain(text(&item.controller)));
                cells.push(Cell::plain(text(&item.node)));
            }
            for key in &opts.view.label_columns {
                cells.push(Cell::plain(
                    obj.and_then(|o| o.labels.get(key))
                        .map(|v| escape(v).into_owned())
                        .unwrap_or_default(),
                ));
            }
            cells.push(Cell::plain(if verdict == Verdict::Converged {
                String::new()
            } else {
                escape(&item.judgement.message).into_owned()
            }));
            if opts.view.show_labels {
                cells.push(Cell::plain(obj.map(labels_text).unwrap_or_default()));
            }
            cells
        })
        .collect()
}

fn object_of<'a>(snap: Option<&'a Snapshot>, item: &Item) -> Option<&'a Object> {
    snap?.get(item.object.uid.as_deref()?)
}

/// kubectl's `-L` header: the key after its prefix, upper-cased.
pub fn label_header(key: &str) -> String {
    key.rsplit('/').next().unwrap_or(key).to_uppercase()
}

/// `3/2`: the generation asked for and the one the controller last saw.
fn generation_text(item: &Item) -> String {
    match (item.generation, item.observed_generation) {
        (Some(g), Some(o)) => format!("{g}/{o}"),
        (Some(g), None) => g.to_string(),
        _ => String::new(),
    }
}

/// `--show-labels`: `k=v,k2=v2`, or `<none>` as kubectl prints it.
/// `k=v,k=v` as `--show-labels` prints them; `<none>` for none.
pub fn labels_text(obj: &Object) -> String {
    if obj.labels.is_empty() {
        return "<none>".into();
    }
    obj.labels
        .iter()
        .map(|(k, v)| escape(&format!("{k}={v}")).into_owned())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::StatusReport;
    use crate::testutil;
    use crate::verdict::Judged;

    fn report_and_snap() -> (StatusReport, Snapshot) {
        let (snap, pod) = testutil::load("pod-crashloop-oomkilled.yaml", "2026-11-29T22:20:00Z");
        let targets = [crate::model::Target::Found(pod.uid.clone())];
        (StatusReport::build(&Judged::builtin(&snap), &targets), snap)
    }

    fn render_with(view: &View, all_namespaces: bool) -> String {
        let (report, snap) = report_and_snap();
        render(
            &report,
            &StatusOptions {
                style: Style { color: false },
                width: None,
                now: snap.now,
                view,
                all_namespaces,
                snapshot: Some(&snap),
            },
        )
    }

    #[test]
    fn all_namespaces_always_shows_the_namespace_column() {
        let first = |out: String| out.split_whitespace().next().unwrap().to_string();
        assert_eq!(first(render_with(&View::default(), true)), "NAMESPACE");
        assert_eq!(first(render_with(&View::default(), false)), "NAME");
    }

    #[test]
    fn table_flags_shape_the_columns() {
        let view = View {
            output: Shape::Wide,
            no_headers: true,
            show_labels: true,
            label_columns: vec!["reconcile.test/failure".into()],
            sort_by: None,
            verdicts: None,
        };
        let out = render_with(&view, false);
        let first = out.lines().next().unwrap();
        assert!(!out.contains("VERDICT"), "no header: {out}");
        assert!(
            first.contains("  1  ") && first.contains("kwok-node-1"),
            "generation and node: {first}"
        );
        assert!(
            first.contains("reconcile.test/failure=crash-loop"),
            "labels: {first}"
        );
        let header = render_with(
            &View {
                no_headers: false,
                ..view
            },
            false,
        );
        let head = header.lines().next().unwrap();
        let cols: Vec<&str> = head.split_whitespace().collect();
        assert_eq!(
            cols,
            [
                "NAME",
                "VERDICT",
                "REASON",
                "READY",
                "SINCE",
                "GENERATION",
                "CONTROLLER",
                "NODE",
                "FAILURE",
                "MESSAGE",
                "LABELS"
            ]
        );
    }

    #[test]
    fn label_headers_drop_the_prefix() {
        assert_eq!(label_header("app.kubernetes.io/name"), "NAME");
        assert_eq!(label_header("tier"), "TIER");
    }
}
