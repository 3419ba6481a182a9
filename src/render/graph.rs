//! `tree -o dot` and `-o mermaid`: the owner trees as a graph, for
//! Graphviz or Mermaid to draw. A node per object (shared objects drawn
//! once), labelled with its kind, name, verdict and reason and filled by
//! its verdict; an edge per relation, labelled with it (`owns`, `mounts`,
//! `selects`, ...). Every string from the cluster is escaped for the
//! language it lands in, so a name cannot end a label or open a tag.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::report::{Node, TreeReport};
use crate::verdict::Verdict;

/// The fill of a verdict, as the text colours read: green, yellow, red,
/// and grey for what says nothing.
fn fill(v: Verdict) -> &'static str {
    match v {
        Verdict::Converged => "#c8e6c9",
        Verdict::Progressing | Verdict::Terminating => "#fff3b0",
        Verdict::Failed | Verdict::NotFound => "#ffcdd2",
        Verdict::Suspended | Verdict::Unknown => "#e0e0e0",
    }
}

/// Each node once, by its uid (or the key of a missing one), with an id
/// of its own; and each edge once.
struct Graph<'a> {
    nodes: Vec<&'a Node>,
    ids: HashMap<String, usize>,
    edges: Vec<(usize, usize, &'static str)>,
    /// The edges drawn already: a shared object is reached more than once.
    drawn: std::collections::HashSet<(usize, usize, &'static str)>,
    /// Whether the nodes lie in more than one namespace: each label then
    /// says its own.
    namespaced: bool,
}

fn key(n: &Node) -> String {
    let o = &n.item.object;
    match &o.uid {
        Some(uid) => uid.clone(),
        None => format!(
            "{}/{}/{}/{}",
            o.group(),
            o.kind,
            o.namespace.as_deref().unwrap_or(""),
            o.name
        ),
    }
}

impl<'a> Graph<'a> {
    fn of(report: &'a TreeReport) -> Graph<'a> {
        let mut g = Graph {
            nodes: Vec::new(),
            ids: HashMap::new(),
            edges: Vec::new(),
            drawn: std::collections::HashSet::new(),
            namespaced: false,
        };
        for item in &report.items {
            g.add(&item.node, None);
        }
        let mut namespaces = g
            .nodes
            .iter()
            .filter_map(|n| n.item.object.namespace.as_deref());
        let first = namespaces.next();
        g.namespaced = namespaces.any(|ns| Some(ns) != first);
        g
    }

    fn add(&mut self, node: &'a Node, parent: Option<usize>) {
        let k = key(node);
        let (id, new) = match self.ids.get(&k) {
            Some(&id) => (id, false),
            None => {
                let id = self.nodes.len();
                self.nodes.push(node);
                self.ids.insert(k, id);
                (id, true)
            }
        };
        if let Some(p) = parent {
            let label = node.edge.map_or("owns", |e| e.as_str());
            if self.drawn.insert((p, id, label)) {
                self.edges.push((p, id, label));
            }
        }
        if new {
            for child in &node.children {
                self.add(child, Some(id));
            }
        }
    }
}

/// The lines of a node's label: `Kind/name` (and its namespace, in a
/// graph of more than one), `Verdict (Reason)`.
fn label_lines(n: &Node, namespaced: bool) -> [String; 2] {
    let o = &n.item.object;
    let j = &n.item.judgement;
    let name = match &o.namespace {
        Some(ns) if namespaced => format!("{}/{} ({ns})", o.kind, o.name),
        _ => format!("{}/{}", o.kind, o.name),
    };
    [
        name,
        format!("{} ({})", j.verdict.as_str(), j.reason.as_str()),
    ]
}

/// A DOT string's inside: quotes and backslashes escaped, control
/// characters and anything that could end the string written as escapes.
fn dot_escape(s: &str) -> String {
    let mut out = String::new();
    for c in crate::escape::escape(s).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

/// Graphviz's DOT.
pub fn dot(report: &TreeReport) -> String {
    let g = Graph::of(report);
    let mut out = String::from(
        "digraph reconcile {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    for (i, n) in g.nodes.iter().enumerate() {
        let [name, state] = label_lines(n, g.namespaced);
        let _ = writeln!(
            out,
            "  n{i} [label=\"{}\\n{}\", fillcolor=\"{}\"];",
            dot_escape(&name),
            dot_escape(&state),
            fill(n.item.judgement.verdict)
        );
    }
    for (from, to, label) in &g.edges {
        let _ = writeln!(out, "  n{from} -> n{to} [label=\"{label}\"];");
    }
    out.push_str("}\n");
    out
}

/// Mermaid's text inside a quoted label: its own entity codes for the
/// characters that would end the string or open markup.
fn mermaid_escape(s: &str) -> String {
    let mut out = String::new();
    for c in crate::escape::escape(s).chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            '`' => out.push_str("#96;"),
            c => out.push(c),
        }
    }
    out
}

/// A Mermaid flowchart.
pub fn mermaid(report: &TreeReport) -> String {
    let g = Graph::of(report);
    let mut out = String::from("flowchart LR\n");
    let mut classes: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let [name, state] = label_lines(n, g.namespaced);
        let _ = writeln!(
            out,
            "  n{i}[\"{}<br/>{}\"]",
            mermaid_escape(&name),
            mermaid_escape(&state)
        );
        let class = n.item.judgement.verdict.as_str();
        match classes.iter_mut().find(|(c, _)| *c == class) {
            Some((_, ids)) => ids.push(i),
            None => classes.push((class, vec![i])),
        }
    }
    for (from, to, label) in &g.edges {
        let _ = writeln!(out, "  n{from} -->|{label}| n{to}");
    }
    for (class, ids) in &classes {
        let verdict = g.nodes[ids[0]].item.judgement.verdict;
        let _ = writeln!(out, "  classDef {class} fill:{},stroke:#555", fill(verdict));
        let list: Vec<String> = ids.iter().map(|i| format!("n{i}")).collect();
        let _ = writeln!(out, "  class {} {class}", list.join(","));
    }
    out
}
