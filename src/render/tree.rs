//! The text tree: one row per node with the tree drawn in the name column,
//! large fan-outs grouped by verdict and reason, gaps in a footer.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::layout::{Cell, table_shrinking};
use super::{Style, footer, ready_text};
use crate::escape::escape;
use crate::relations::Edge;
use crate::report::{Item, Node, TreeReport};
use crate::verdict::{Reason, Verdict};

/// More leaf siblings of one kind than this are grouped (unless `--all`).
pub const GROUP_ABOVE: usize = 10;

pub struct TreeOptions<'a> {
    pub style: Style,
    pub width: Option<usize>,
    pub all: bool,
    pub now: Timestamp,
    pub no_headers: bool,
    /// `-A`: the NAMESPACE column even when every row has the same one.
    pub all_namespaces: bool,
    /// `--show-labels`: the objects' labels, read from this snapshot, in a
    /// last column.
    pub labels: Option<&'a crate::model::Snapshot>,
}

struct Row {
    prefix: String,
    name: String,
    shows: Shows,
}

/// What a row of the tree stands for.
enum Shows {
    /// One object, with what its MESSAGE adds (edges' notes).
    One { item: Box<Item>, extra: Vec<String> },
    /// Leaves of one kind, verdict and reason, drawn as one row.
    Group {
        count: usize,
        verdict: Verdict,
        reason: Reason,
        /// The first member's message and name.
        example: String,
    },
}

impl Row {
    fn one(prefix: String, name: String, item: Item, extra: Vec<String>) -> Row {
        Row {
            prefix,
            name,
            shows: Shows::One {
                item: Box::new(item),
                extra,
            },
        }
    }

    /// The object a row stands for; none for a group.
    fn item(&self) -> Option<&Item> {
        match &self.shows {
            Shows::One { item, .. } => Some(item),
            Shows::Group { .. } => None,
        }
    }
}

pub fn render(report: &TreeReport, opts: &TreeOptions<'_>) -> String {
    let mut rows: Vec<Row> = Vec::new();
    let mut grouped = 0;
    for tree in &report.items {
        let mut indent = String::new();
        // The row below a manager hangs from it by `manages`.
        let mut managed = false;
        let mark = |managed: bool| if managed { "[manages] " } else { "" };
        if let Some(owners) = &tree.owners {
            for link in owners {
                rows.push(Row::one(
                    indent.clone(),
                    format!("{}{}", mark(managed), name_of(&link.item)),
                    link.item.clone(),
                    vec![],
                ));
                managed = link.state == "manager";
                indent = if indent.is_empty() {
                    "└─".to_string()
                } else {
                    format!("  {indent}")
                };
            }
        }
        let target_suffix = if tree.owners.as_ref().is_some_and(|o| !o.is_empty()) {
            "  (target)"
        } else {
            ""
        };
        rows.push(Row::one(
            indent.clone(),
            format!(
                "{}{}{target_suffix}",
                mark(managed),
                name_of(&tree.node.item)
            ),
            tree.node.item.clone(),
            extras(&tree.node),
        ));
        let child_indent = indent.replace("└─", "  ").replace("├─", "│ ");
        grouped += children(&tree.node, &child_indent, opts.all, &mut rows);
    }
    let namespaces: std::collections::BTreeSet<Option<&str>> = rows
        .iter()
        .filter_map(Row::item)
        .map(|i| i.object.namespace.as_deref())
        .collect();
    let show_ns = opts.all_namespaces || namespaces.len() > 1;
    let mut header = vec!["NAME", "VERDICT", "REASON", "READY", "AGE", "MESSAGE"];
    if show_ns {
        header.insert(0, "NAMESPACE");
    }
    // MESSAGE gives way to the width; LABELS comes last, as in kubectl.
    let message_col = header.len() - 1;
    if opts.labels.is_some() {
        header.push("LABELS");
    }
    let labels_of = |item: Option<&Item>| -> Option<String> {
        let snap = opts.labels?;
        let uid = item.and_then(|i| i.object.uid.as_deref());
        Some(
            uid.and_then(|u| snap.get(u))
                .map(super::status::labels_text)
                .unwrap_or_default(),
        )
    };
    let style = opts.style;
    let cells = rows
        .into_iter()
        .map(|row| {
            let mut cells = Vec::new();
            if show_ns {
                cells.push(Cell::plain(
                    row.item()
                        .and_then(|i| i.object.namespace.as_deref())
                        .map(|n| escape(n).into_owned())
                        .unwrap_or_default(),
                ));
            }
            let name = format!("{}{}", row.prefix, row.name);
            match &row.shows {
                Shows::Group {
                    count,
                    verdict,
                    reason,
                    example,
                } => {
                    let verdict = *verdict;
                    cells.push(Cell::plain(name));
                    cells.push(Cell::painted(verdict.as_str(), move |s| {
                        style.verdict(verdict, s)
                    }));
                    cells.push(Cell::plain(escape(reason.as_str()).into_owned()));
                    cells.push(Cell::plain(""));
                    cells.push(Cell::plain(""));
                    let msg = if verdict == Verdict::Converged {
                        String::new()
                    } else {
                        escape(example).into_owned()
                    };
                    cells.push(Cell::plain(if *count > 0 { msg } else { String::new() }));
                }
                Shows::One { item, extra } => {
                    let verdict = item.judgement.verdict;
                    cells.push(Cell::plain(name));
                    cells.push(Cell::painted(verdict.as_str(), move |s| {
                        style.verdict(verdict, s)
                    }));
                    cells.push(Cell::plain(
                        escape(item.judgement.reason.as_str()).into_owned(),
                    ));
                    cells.push(Cell::plain(ready_text(item)));
                    cells.push(Cell::plain(
                        item.created
                            .map(|c| crate::model::age(opts.now, c))
                            .unwrap_or_default(),
                    ));
                    let mut parts: Vec<String> =
                        extra.iter().map(|e| escape(e).into_owned()).collect();
                    if verdict != Verdict::Converged && !item.judgement.message.is_empty() {
                        parts.insert(0, escape(&item.judgement.message).into_owned());
                    }
                    cells.push(Cell::plain(parts.join("; ")));
                }
            }
            if let Some(labels) = labels_of(row.item()) {
                cells.push(Cell::plain(labels));
            }
            cells
        })
        .collect();
    let mut out = super::layout::without_header(
        table_shrinking(&header, cells, opts.width, message_col),
        opts.no_headers,
    );
    if grouped > 0 {
        out.push_str(&style.dim(&format!(
            "{grouped} nodes are grouped by verdict and reason; --all lists every node\n"
        )));
    }
    if let Some(cut) = &report.cut {
        out.push_str(&style.bold(&format!("\n{}\n", cut.text())));
        out.push_str("hint: name fewer targets: a name, -l or --field-selector\n");
    }
    out.push_str(&footer(&report.incomplete, style));
    out
}

fn name_of(item: &Item) -> String {
    format!(
        "{}/{}",
        escape(&item.object.kind),
        escape(&item.object.name)
    )
}

/// `[mounts] ` before a child that hangs by a relation, so that it is not
/// mistaken for an owned child; nothing for ownership.
fn edge_mark(node: &Node) -> String {
    match node.edge {
        Some(edge) if edge != Edge::Owns => format!("[{}] ", edge.as_str()),
        _ => String::new(),
    }
}

fn extras(node: &Node) -> Vec<String> {
    let mut extra = node.notes.clone();
    if !node.also_owned_by.is_empty() {
        let owners: Vec<String> = node
            .also_owned_by
            .iter()
            .map(|o| format!("{}/{}", o.kind, o.name))
            .collect();
        extra.push(format!("also owned by {}", owners.join(", ")));
    }
    extra
}

/// Adds the rows of a node's children; returns how many nodes were grouped.
fn children(node: &Node, indent: &str, all: bool, rows: &mut Vec<Row>) -> usize {
    // Leaves of a kind that is too numerous become one row per verdict and reason.
    let mut leaf_counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for c in node.children.iter().filter(|c| c.children.is_empty()) {
        *leaf_counts
            .entry((edge_mark(c), c.item.object.kind.as_str()))
            .or_default() += 1;
    }
    enum Entry<'a> {
        One(&'a Node),
        Group(String, Vec<&'a Node>),
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut groups: BTreeMap<(String, u8, Reason), usize> = BTreeMap::new();
    for c in &node.children {
        let kind = format!("{}{}", edge_mark(c), c.item.object.kind);
        if !all
            && c.children.is_empty()
            && leaf_counts[&(edge_mark(c), c.item.object.kind.as_str())] > GROUP_ABOVE
        {
            let key = (
                kind.clone(),
                c.item.judgement.verdict.severity(),
                c.item.judgement.reason.clone(),
            );
            match groups.get(&key) {
                Some(&i) => {
                    if let Entry::Group(_, members) = &mut entries[i] {
                        members.push(c);
                    }
                }
                None => {
                    groups.insert(key, entries.len());
                    entries.push(Entry::Group(kind, vec![c]));
                }
            }
        } else {
            entries.push(Entry::One(c));
        }
    }
    let mut grouped = 0;
    let last = entries.len();
    for (i, entry) in entries.into_iter().enumerate() {
        let (branch, carry) = if i + 1 == last {
            ("└─", "  ")
        } else {
            ("├─", "│ ")
        };
        match entry {
            Entry::One(c) => {
                rows.push(Row::one(
                    format!("{indent}{branch}"),
                    format!("{}{}", edge_mark(c), name_of(&c.item)),
                    c.item.clone(),
                    extras(c),
                ));
                grouped += children(c, &format!("{indent}{carry}"), all, rows);
            }
            Entry::Group(kind, members) => {
                grouped += members.len();
                let first = members[0];
                let example = format!(
                    "{} (e.g. {})",
                    first.item.judgement.message, first.item.object.name
                );
                rows.push(Row {
                    prefix: format!("{indent}{branch}"),
                    name: format!("{} × {}", members.len(), escape(&kind)),
                    shows: Shows::Group {
                        count: members.len(),
                        verdict: first.item.judgement.verdict,
                        reason: first.item.judgement.reason.clone(),
                        example,
                    },
                });
            }
        }
    }
    grouped
}
