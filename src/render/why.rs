//! The text of `why`: sections a person reads top to bottom.

use jiff::Timestamp;

use super::layout::{Cell, lay_out, table, wrap};
use super::{Style, footer};
use crate::diagnose::Diagnosis;
use crate::escape::escape;
use crate::model::age;
use crate::report::WhyReport;
use crate::verdict::Verdict;

pub struct WhyOptions {
    pub style: Style,
    pub width: Option<usize>,
    pub now: Timestamp,
    /// Generation, conditions and events too: for named targets and
    /// `--verbose`; a sweep's items are compact without it.
    pub full: bool,
}

/// At most this many timeline lines in text; JSON has them all.
const MAX_EVENTS: usize = 25;

pub fn render(report: &WhyReport, opts: &WhyOptions) -> String {
    let mut out = String::new();
    if let Some(summary) = &report.summary {
        out.push_str(&format!("{}\n\n", opts.style.bold(&summary.text())));
    }
    for (i, d) in report.items.iter().enumerate() {
        if i > 0 {
            out.push_str(&format!(
                "\n{}\n\n",
                "─".repeat(opts.width.unwrap_or(80).min(80))
            ));
        }
        out.push_str(&diagnosis(d, opts));
    }
    out.push_str(&footer(&report.incomplete, opts.style));
    out
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

fn e(s: &str) -> String {
    escape(s).into_owned()
}

/// One diagnosis: its header, then each section in turn.
fn diagnosis(d: &Diagnosis, opts: &WhyOptions) -> String {
    let mut out = header(d, opts);
    if d.item.judgement.verdict == Verdict::NotFound {
        // What is left of a deleted object: its events.
        if opts.full && !d.events.is_empty() {
            out.push_str(&events(d, opts));
        }
        for s in &d.next_steps {
            out.push_str(&format!("\n{}\n", opts.style.bold("Next step")));
            out.push_str(&wrap(&e(&s.text), opts.width, "  ", "  "));
            for c in &s.commands {
                out.push_str(&format!("    {}\n", e(c)));
            }
        }
        return out;
    }
    if !d.same_cause.is_empty() {
        let others: Vec<String> = d
            .same_cause
            .iter()
            .map(|o| format!("{}/{}", e(&o.kind), e(&o.name)))
            .collect();
        out.push_str(&format!("  same cause: {}\n", others.join(", ")));
    }
    if let Some(g) = d.generation_check.as_ref().filter(|_| opts.full) {
        out.push_str(&format!("\n{}\n", opts.style.bold("Generation")));
        for line in &g.summary {
            out.push_str(&wrap(&e(line), opts.width, "  ", "    "));
        }
    }
    if opts.full && !d.conditions.is_empty() {
        out.push_str(&conditions(d, opts));
    }
    out.push_str(&root_cause(d, opts));
    if !d.findings.is_empty() {
        out.push_str(&format!("\n{}\n", opts.style.bold("Also")));
        for f in &d.findings {
            let text = format!("{}: {}", e(f.reason.as_str()), e(&f.message));
            out.push_str(&wrap(&text, opts.width, "  - ", "    "));
        }
    }
    if opts.full {
        out.push_str(&events(d, opts));
    }
    if !d.next_steps.is_empty() {
        out.push_str(&format!("\n{}\n", opts.style.bold("Next step")));
        for s in &d.next_steps {
            out.push_str(&wrap(&e(&s.text), opts.width, "  ", "  "));
            for c in &s.commands {
                out.push_str(&format!("    {}\n", e(c)));
            }
        }
    }
    out
}

/// `Kind/name in ns: Verdict (Reason) for 5m`, and its message.
fn header(d: &Diagnosis, opts: &WhyOptions) -> String {
    let style = opts.style;
    let item = &d.item;
    let place = item
        .object
        .namespace
        .as_deref()
        .map(|ns| format!(" in {}", e(ns)))
        .unwrap_or_default();
    let since = item
        .judgement
        .since
        .map(|s| format!(" for {}", age(opts.now, s)))
        .unwrap_or_default();
    let mut out = format!(
        "{}{place}: {} ({}){since}\n",
        style.bold(&format!(
            "{}/{}",
            e(&item.object.kind),
            e(&item.object.name)
        )),
        style.verdict(item.judgement.verdict, item.judgement.verdict.as_str()),
        e(item.judgement.reason.as_str())
    );
    if !item.judgement.message.is_empty() {
        out.push_str(&wrap(&e(&item.judgement.message), opts.width, "  ", "    "));
    }
    out
}

/// The target's conditions, abnormal and lagging ones marked.
fn conditions(d: &Diagnosis, opts: &WhyOptions) -> String {
    let style = opts.style;
    let width = opts.width.map(|w| w.saturating_sub(2));
    let mut out = format!("\n{}\n", style.bold("Conditions"));
    let rows = d
        .conditions
        .iter()
        .map(|c| {
            let flag = match (c.abnormal, c.lagging) {
                (true, _) => "!",
                (false, true) => "~",
                _ => " ",
            };
            vec![
                Cell::plain(flag),
                Cell::plain(e(&c.condition.type_)),
                Cell::plain(e(&c.condition.status)),
                Cell::plain(e(c.condition.reason.as_str())),
                Cell::plain(
                    c.condition
                        .last_transition_time
                        .map(|t| age(opts.now, t))
                        .unwrap_or_default(),
                ),
                Cell::plain(e(&c.condition.message)),
            ]
        })
        .collect();
    out.push_str(&indent(
        &table(
            &["", "TYPE", "STATUS", "REASON", "AGE", "MESSAGE"],
            rows,
            width,
        ),
        " ",
    ));
    let mut legend = Vec::new();
    if d.conditions.iter().any(|c| c.abnormal) {
        legend.push("! abnormal");
    }
    if d.conditions.iter().any(|c| !c.abnormal && c.lagging) {
        legend.push("~ reflects an older generation");
    }
    if !legend.is_empty() {
        out.push_str(&style.dim(&format!("  {}\n", legend.join("   "))));
    }
    out
}

/// The root cause, the chain down to it, and the other causes.
fn root_cause(d: &Diagnosis, opts: &WhyOptions) -> String {
    let style = opts.style;
    let width = opts.width.map(|w| w.saturating_sub(2));
    let Some(cause) = &d.root_cause else {
        return format!(
            "\n{}\n  every object in its tree is converged\n",
            style.bold("Root cause")
        );
    };
    let first = cause.objects.first();
    let who = first
        .map(|o| format!("{}/{}", e(&o.kind), e(&o.name)))
        .unwrap_or_default();
    let count = if cause.count > 1 {
        format!(" (x{}, e.g. {who})", cause.count)
    } else {
        format!(" ({who})")
    };
    let mut out = format!(
        "\n{} {}{count}\n",
        style.bold("Root cause:"),
        style.verdict(
            cause.verdict,
            &format!(
                "{} {}",
                e(first.map(|o| o.kind.as_str()).unwrap_or("")),
                e(cause.reason.as_str())
            )
        )
    );
    out.push_str(&wrap(&e(&cause.message), opts.width, "  ", "    "));
    out.push_str(&indent(
        &table(
            &["PATH", "VERDICT", "REASON", "MESSAGE"],
            chain_rows(d, style),
            width,
        ),
        "  ",
    ));
    if d.causes.len() > 1 {
        out.push_str("  Other causes:\n");
        for c in &d.causes[1..] {
            let kind = c.objects.first().map(|o| o.kind.as_str()).unwrap_or("");
            out.push_str(&format!(
                "  - {} x{} {} {}: {}\n",
                e(kind),
                c.count,
                c.verdict,
                e(c.reason.as_str()),
                e(&c.message)
            ));
        }
    }
    out
}

/// The chain's rows: each object under the one above it, the failing
/// containers of the last pod side by side under it.
fn chain_rows(d: &Diagnosis, style: Style) -> Vec<Vec<Cell>> {
    let objects = d.chain.iter().filter(|l| l.object.is_some()).count();
    d.chain
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let depth = if link.object.is_some() { i } else { objects };
            let prefix = if depth == 0 {
                String::new()
            } else {
                format!("{}└─", "  ".repeat(depth - 1))
            };
            let mark = match link.edge {
                Some(edge) if edge != crate::relations::Edge::Owns => {
                    format!("[{}] ", edge.as_str())
                }
                _ => String::new(),
            };
            let name = match (&link.object, &link.container) {
                (Some(o), _) => format!("{mark}{}/{}", e(&o.kind), e(&o.name)),
                (None, Some(c)) => format!("container {}", e(c)),
                (None, None) => String::new(),
            };
            let verdict = link.verdict;
            vec![
                Cell::plain(format!("{prefix}{name}")),
                Cell::painted(verdict.map(|v| v.as_str()).unwrap_or(""), move |s| {
                    verdict
                        .map(|v| style.verdict(v, s))
                        .unwrap_or_else(|| s.to_string())
                }),
                Cell::plain(e(link.reason.as_str())),
                Cell::plain(if link.verdict == Some(Verdict::Converged) {
                    String::new()
                } else {
                    e(&link.message)
                }),
            ]
        })
        .collect()
}

/// The merged timeline: one line per group of events alike but for
/// generated names, `x10 over 8m` from first to last seen.
fn events(d: &Diagnosis, opts: &WhyOptions) -> String {
    let style = opts.style;
    let width = opts.width.map(|w| w.saturating_sub(2));
    let e = |s: &str| escape(s).into_owned();
    let mut out = String::new();
    out.push_str(&format!(
        "\n{}\n",
        style.bold("Events (warnings first, oldest first)")
    ));
    match &d.events_note {
        Some(note) => out.push_str(&format!("  {}\n", e(note))),
        None => {
            let skipped = d.events.len().saturating_sub(MAX_EVENTS);
            let shown: Vec<&crate::diagnose::EventLine> =
                d.events.iter().take(MAX_EVENTS).collect();
            let rows = |with_message: bool| -> Vec<Vec<Cell>> {
                shown
                    .iter()
                    .map(|ev| {
                        let name =
                            |o: &crate::model::ObjectRef| format!("{}/{}", e(&o.kind), e(&o.name));
                        let objects = match ev.objects.as_slice() {
                            [one] => name(one),
                            [first, rest @ ..] => format!("{} (+{})", name(first), rest.len()),
                            [] => String::new(),
                        };
                        let count = match (ev.count, ev.first_seen, ev.last_seen) {
                            (n, Some(first), Some(last)) if n > 1 && first < last => {
                                format!("x{n} over {}", age(last, first))
                            }
                            (n, _, _) => format!("x{n}"),
                        };
                        let warn = ev.type_ == "Warning";
                        vec![
                            Cell::plain(
                                ev.last_seen
                                    .map(|t| age(opts.now, t))
                                    .unwrap_or_else(|| "?".into()),
                            ),
                            Cell::painted(e(&ev.type_), move |s| {
                                if warn {
                                    style.verdict(Verdict::Failed, s)
                                } else {
                                    s.to_string()
                                }
                            }),
                            Cell::plain(e(ev.reason.as_str())),
                            Cell::plain(objects),
                            Cell::plain(count),
                        ]
                        .into_iter()
                        .chain(with_message.then(|| Cell::plain(e(&ev.message))))
                        .collect()
                    })
                    .collect()
            };
            let header = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"];
            let (table, cut) = lay_out(&header, rows(true), width, header.len() - 1);
            // Too narrow for the messages: each goes whole on its own
            // indented line below its event, never cut.
            let table = if cut.contains(&(header.len() - 1)) {
                // OBJECT gives way, if any column must.
                let (table, _) = lay_out(&header[..header.len() - 1], rows(false), width, 3);
                let mut lines = table.lines();
                let mut text = format!("{}\n", lines.next().unwrap_or_default());
                for (line, ev) in lines.zip(&shown) {
                    text.push_str(line);
                    text.push('\n');
                    text.push_str(&wrap(
                        &e(&ev.message),
                        width.map(|w| w.saturating_sub(2)),
                        "    ",
                        "    ",
                    ));
                }
                text
            } else {
                table
            };
            out.push_str(&indent(&table, "  "));
            if skipped > 0 {
                out.push_str(&style.dim(&format!(
                    "  ... and {skipped} more (-o json lists them all)\n"
                )));
            }
        }
    }

    out
}
