//! The tree `tree` draws and `why` walks: the owner tree, with each object's
//! relations hung under it as children that carry their edge. An object is
//! placed once; context (a pod's node, its ServiceAccount, ConfigMaps and
//! Secrets) appears only when it is missing or not converged.

use crate::verdict::Judged;
use std::collections::HashSet;

use serde::Serialize;

use super::{Edge, relations};
use crate::graph::{Graph, Note, TreeNode};
use crate::model::{ObjectRef, OwnerRef};
use crate::verdict::{Verdict, judge};

/// How far relations are followed from the target.
const MAX_DEPTH: usize = 5;

/// The end of an edge: an object of the snapshot, or one a field names
/// that the source looked for and did not find.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum End {
    Found(String),
    Missing(ObjectRef),
}

/// One node: an object, the edge it hangs by, and its children.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub end: End,
    /// `None` for the root.
    pub edge: Option<Edge>,
    pub children: Vec<Node>,
    pub also_owned_by: Vec<OwnerRef>,
    pub notes: Vec<Note>,
}

impl Node {
    /// The uid, or a key naming the missing object.
    pub fn key(&self) -> String {
        match &self.end {
            End::Found(uid) => uid.clone(),
            End::Missing(r) => missing_key(r),
        }
    }

    pub fn uid(&self) -> Option<&str> {
        match &self.end {
            End::Found(uid) => Some(uid),
            End::Missing(_) => None,
        }
    }

    /// Every node, depth first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Node)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }
}

/// The key of a missing object in maps keyed by uid.
pub fn missing_key(r: &ObjectRef) -> String {
    format!(
        "missing:{}/{}/{}/{}",
        r.group(),
        r.kind,
        r.namespace.as_deref().unwrap_or(""),
        r.name
    )
}

/// The tree under `root`: owners' children and related objects.
pub fn tree(snap: &Judged<'_>, graph: &Graph, root: &str) -> Node {
    let owned = graph.tree(root);
    let mut seen: HashSet<String> = HashSet::new();
    collect(&owned, &mut seen);
    let mut node = convert(owned, None);
    attach(snap, graph, &mut node, &mut seen, 0);
    node
}

/// [`tree`], and below it who uses the root (see `users.rs`): what `tree`
/// draws for its targets. Not for `why`, whose causes lie below, and the
/// users of a node or a claim are its effects, not its causes.
pub fn tree_with_users(snap: &Judged<'_>, graph: &Graph, root: &str) -> Node {
    let mut node = tree(snap, graph, root);
    let Some(obj) = snap.get(root) else {
        return node;
    };
    let mut seen: HashSet<String> = HashSet::new();
    node.walk(&mut |n| {
        seen.insert(n.key());
    });
    if super::users::pods_to_read(obj, None).is_some_and(|p| p.fields.is_none())
        && obj.kind() != "PriorityClass"
    {
        node.notes.push(crate::graph::Note::PodsOnly);
    }
    for (edge, uid) in super::users::users(snap, graph, obj) {
        if seen.contains(&uid) {
            continue;
        }
        let owned = graph.tree(&uid);
        collect(&owned, &mut seen);
        let mut child = convert(owned, Some(edge));
        attach(snap, graph, &mut child, &mut seen, 1);
        node.children.push(child);
    }
    node
}

fn collect(t: &TreeNode, seen: &mut HashSet<String>) {
    seen.insert(t.uid.clone());
    for c in &t.children {
        collect(c, seen);
    }
}

fn convert(t: TreeNode, edge: Option<Edge>) -> Node {
    Node {
        end: End::Found(t.uid),
        edge,
        children: t
            .children
            .into_iter()
            .map(|c| convert(c, Some(Edge::Owns)))
            .collect(),
        also_owned_by: t.also_owned_by,
        notes: t.notes,
    }
}

fn attach(
    snap: &Judged<'_>,
    graph: &Graph,
    node: &mut Node,
    seen: &mut HashSet<String>,
    depth: usize,
) {
    for c in node.children.iter_mut() {
        attach(snap, graph, c, seen, depth);
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Some(obj) = node.uid().and_then(|u| snap.get(u)) else {
        return;
    };
    for rel in relations(snap, obj) {
        match rel.to {
            End::Found(uid) => {
                let Some(to) = snap.get(&uid) else { continue };
                let context = rel.edge.is_context()
                    || (to.group().is_empty() && crate::model::is_data_kind(to.kind()));
                if seen.contains(&uid) || (context && judge(to, snap).verdict == Verdict::Converged)
                {
                    continue;
                }
                let owned = graph.tree(&uid);
                collect(&owned, seen);
                let mut child = convert(owned, Some(rel.edge));
                attach(snap, graph, &mut child, seen, depth + 1);
                node.children.push(child);
            }
            End::Missing(r) => {
                if seen.insert(missing_key(&r)) {
                    // What should have made it hangs under it, with its tree.
                    let mut children = Vec::new();
                    for maker in super::producers(snap, &r) {
                        if !seen.contains(&maker.uid) {
                            let owned = graph.tree(&maker.uid);
                            collect(&owned, seen);
                            let mut child = convert(owned, Some(Edge::MadeBy));
                            attach(snap, graph, &mut child, seen, depth + 1);
                            children.push(child);
                        }
                    }
                    node.children.push(Node {
                        end: End::Missing(r),
                        edge: Some(rel.edge),
                        children,
                        also_owned_by: vec![],
                        notes: vec![],
                    });
                }
            }
        }
    }
}
