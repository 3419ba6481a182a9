//! The ownership graph: edges from ownerReferences matched by uid, one
//! placement per object (under its controller), notes for what is wrong with
//! an edge (dangling, across namespaces, cycles), and owner chains upward.

use std::collections::{HashMap, HashSet};

use crate::model::{Object, OwnerRef, Snapshot};

/// Something wrong with an object's place in the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The owner is gone: garbage collection will delete this object.
    DanglingOwner(OwnerRef),
    /// A namespaced owner in another namespace, or a namespaced owner of a
    /// cluster-scoped object: invalid, the garbage collector ignores it.
    InvalidOwner(OwnerRef, String),
    /// Following owners from here leads back to an ancestor.
    Cycle(String),
    /// The tree is not drawn below this node, [`MAX_DEPTH`] levels under
    /// the root: this many objects further down are left out.
    Cut(usize),
    /// Its users (`used-by`) were found among the pods that exist: a
    /// workload with none (a CronJob before its first run, a Deployment
    /// scaled to 0) may use it too.
    PodsOnly,
}

/// How many levels a tree is drawn below its root, and how many owners a
/// chain follows above a target. Controllers nest a handful of levels;
/// deeper chains are runaway or hostile (anyone who can create custom
/// resources can chain thousands), and every stage after this one walks
/// what it is given.
pub const MAX_DEPTH: usize = 64;

/// How an owner that is gone is told, the one place it is worded: what it
/// means for its dependents.
pub const OWNER_GONE: &str =
    "no longer exists; the garbage collector will delete the objects that depend on it";

/// `its owner Kind/name no longer exists; …`
pub fn owner_gone(owner: &OwnerRef) -> String {
    format!("its owner {}/{} {OWNER_GONE}", owner.kind, owner.name)
}

/// One node of a tree: an object and its children.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    pub uid: String,
    pub children: Vec<TreeNode>,
    /// Owners besides the one this node is drawn under.
    pub also_owned_by: Vec<OwnerRef>,
    pub notes: Vec<Note>,
}

/// One link of the chain above a target.
#[derive(Debug, Clone, PartialEq)]
pub enum ChainLink {
    Found(String),
    /// The owner no longer exists.
    Dangling(OwnerRef),
    /// The owner was not read (not in a snapshot file, or not readable).
    Unread(OwnerRef),
    /// The chain is not followed past [`MAX_DEPTH`] owners: `next` and the
    /// owners above it, `more` in all (those in the snapshot), are left out.
    Cut {
        next: OwnerRef,
        more: usize,
    },
}

/// The owner edges of a snapshot, validated.
pub struct Graph<'a> {
    snap: &'a Snapshot,
    children: HashMap<&'a str, Vec<&'a Object>>,
}

impl<'a> Graph<'a> {
    pub fn new(snap: &'a Snapshot) -> Graph<'a> {
        let mut children: HashMap<&str, Vec<&Object>> = HashMap::new();
        for obj in snap.objects() {
            for owner in &obj.owners {
                if let Some(parent) = snap.get(&owner.uid)
                    && invalid_edge(parent, obj).is_none()
                {
                    children.entry(parent.uid.as_str()).or_default().push(obj);
                }
            }
        }
        for list in children.values_mut() {
            list.sort_by(|a, b| {
                (a.kind(), a.name(), a.namespace()).cmp(&(b.kind(), b.name(), b.namespace()))
            });
            list.dedup_by(|a, b| a.uid == b.uid);
        }
        Graph { snap, children }
    }

    /// Notes about an object's owner references themselves.
    pub fn owner_notes(&self, obj: &Object) -> Vec<Note> {
        let absent: HashSet<&str> = self
            .snap
            .absent
            .iter()
            .filter_map(|r| r.uid.as_deref())
            .collect();
        obj.owners
            .iter()
            .filter_map(|owner| match self.snap.get(&owner.uid) {
                Some(parent) => {
                    invalid_edge(parent, obj).map(|why| Note::InvalidOwner(owner.clone(), why))
                }
                None if absent.contains(owner.uid.as_str()) => {
                    Some(Note::DanglingOwner(owner.clone()))
                }
                None => None,
            })
            .collect()
    }

    /// The tree under `root`. Every object appears once: under its
    /// controller when the controller is in the tree, else under its first
    /// owner in the tree. Cycles stop where they close.
    pub fn tree(&self, root: &str) -> TreeNode {
        let Some(root) = self.snap.get(root) else {
            return TreeNode {
                uid: root.to_string(),
                children: Vec::new(),
                also_owned_by: Vec::new(),
                notes: Vec::new(),
            };
        };
        // Breadth-first reach, then one parent per node. Objects, not uids:
        // what was reached is in hand, never looked up again.
        let mut order: Vec<&'a Object> = vec![root];
        let mut reached: HashSet<&str> = HashSet::from([root.uid.as_str()]);
        let mut i = 0;
        while i < order.len() {
            for &child in self
                .children
                .get(order[i].uid.as_str())
                .into_iter()
                .flatten()
            {
                if reached.insert(child.uid.as_str()) {
                    order.push(child);
                }
            }
            i += 1;
        }
        let mut parent_of: HashMap<&str, &str> = HashMap::new();
        for &obj in order.iter().skip(1) {
            let uid = obj.uid.as_str();
            let valid: Vec<&OwnerRef> = obj
                .owners
                .iter()
                .filter(|o| reached.contains(o.uid.as_str()) && self.is_edge(&o.uid, uid))
                .collect();
            let primary = valid
                .iter()
                .find(|o| o.controller)
                .or(valid.first())
                .expect("reached through an owner");
            parent_of.insert(uid, primary.uid.as_str());
        }
        self.connect(root, &order, &mut parent_of);
        self.build(root, &parent_of)
    }

    /// Makes every reached object hang from the root. Owners that control
    /// each other below it (x under y, y under x) would leave both out of
    /// the tree: the first such object, in the order reached, goes under an
    /// owner already in the tree (the one it was reached through is).
    fn connect(
        &self,
        root: &'a Object,
        order: &[&'a Object],
        parent_of: &mut HashMap<&'a str, &'a str>,
    ) {
        let mut kids: HashMap<&str, Vec<&str>> = HashMap::new();
        for (&child, &parent) in parent_of.iter() {
            kids.entry(parent).or_default().push(child);
        }
        let mut placed: HashSet<&str> = HashSet::new();
        let place = |from: &'a str, placed: &mut HashSet<&'a str>| {
            let mut todo = vec![from];
            while let Some(uid) = todo.pop() {
                if placed.insert(uid) {
                    todo.extend(kids.get(uid).into_iter().flatten().copied());
                }
            }
        };
        place(root.uid.as_str(), &mut placed);
        for &obj in order.iter().skip(1) {
            let uid = obj.uid.as_str();
            if placed.contains(uid) {
                continue;
            }
            let owners: Vec<&OwnerRef> = obj
                .owners
                .iter()
                .filter(|o| placed.contains(o.uid.as_str()) && self.is_edge(&o.uid, uid))
                .collect();
            if let Some(owner) = owners.iter().find(|o| o.controller).or(owners.first()) {
                let owner = *placed.get(owner.uid.as_str()).expect("just checked");
                parent_of.insert(uid, owner);
                place(uid, &mut placed);
            }
        }
    }

    fn is_edge(&self, parent: &str, child: &str) -> bool {
        self.children
            .get(parent)
            .is_some_and(|c| c.iter().any(|o| o.uid == child))
    }

    /// The children `uid` is drawn with: those placed under it.
    fn placed_children<'g>(
        &'g self,
        uid: &'g str,
        parent_of: &'g HashMap<&str, &str>,
    ) -> impl Iterator<Item = &'a Object> + 'g {
        self.children
            .get(uid)
            .into_iter()
            .flatten()
            .copied()
            .filter(move |c| parent_of.get(c.uid.as_str()) == Some(&uid))
    }

    /// The tree from `root` down, depth first, without recursion: the path
    /// from the root is an explicit stack, so a chain thousands deep cannot
    /// overflow the call stack, and it stops at [`MAX_DEPTH`] levels.
    fn build(&self, root: &'a Object, parent_of: &HashMap<&'a str, &'a str>) -> TreeNode {
        struct Frame<'g, 'a> {
            node: TreeNode,
            children: &'g [&'a Object],
            next: usize,
        }
        let children_of = |uid: &str| self.children.get(uid).map_or(&[][..], Vec::as_slice);
        let mut on_path: HashSet<&str> = HashSet::from([root.uid.as_str()]);
        let mut stack = vec![Frame {
            node: self.node(root, parent_of),
            children: children_of(root.uid.as_str()),
            next: 0,
        }];
        loop {
            let depth = stack.len() - 1;
            let top = stack.last_mut().expect("the root stays until the end");
            if let Some(&child) = top.children.get(top.next) {
                top.next += 1;
                let uid = top.node.uid.as_str();
                if on_path.contains(child.uid.as_str()) {
                    top.node
                        .notes
                        .push(Note::Cycle(format!("{}/{}", child.kind(), child.name())));
                } else if parent_of.get(child.uid.as_str()) == Some(&uid) {
                    if depth == MAX_DEPTH {
                        if !top.node.notes.iter().any(|n| matches!(n, Note::Cut(_))) {
                            let uid = top.node.uid.clone();
                            let below = self.count_below(&uid, parent_of);
                            top.node.notes.push(Note::Cut(below));
                        }
                        continue;
                    }
                    on_path.insert(child.uid.as_str());
                    stack.push(Frame {
                        node: self.node(child, parent_of),
                        children: children_of(child.uid.as_str()),
                        next: 0,
                    });
                }
                continue;
            }
            let done = stack.pop().expect("checked above").node;
            on_path.remove(done.uid.as_str());
            match stack.last_mut() {
                Some(parent) => parent.node.children.push(done),
                None => return done,
            }
        }
    }

    /// A node with its notes, before its children are added.
    fn node(&self, obj: &Object, parent_of: &HashMap<&str, &str>) -> TreeNode {
        let uid = obj.uid.as_str();
        // The root is drawn under the owner its chain follows, if any.
        let placed_under = parent_of.get(uid).copied().or_else(|| {
            obj.controller()
                .or(obj.owners.first())
                .map(|o| o.uid.as_str())
        });
        TreeNode {
            uid: uid.to_string(),
            children: Vec::new(),
            also_owned_by: obj
                .owners
                .iter()
                .filter(|o| Some(o.uid.as_str()) != placed_under && self.snap.get(&o.uid).is_some())
                .cloned()
                .collect(),
            notes: self.owner_notes(obj),
        }
    }

    /// How many objects the tree would place below `uid`.
    fn count_below(&self, uid: &str, parent_of: &HashMap<&str, &str>) -> usize {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut todo: Vec<&str> = self
            .placed_children(uid, parent_of)
            .map(|c| c.uid.as_str())
            .collect();
        while let Some(next) = todo.pop() {
            if next != uid && seen.insert(next) {
                todo.extend(
                    self.placed_children(next, parent_of)
                        .map(|c| c.uid.as_str()),
                );
            }
        }
        seen.len()
    }

    /// The owners above `uid`, nearest first, following the controller (or
    /// the first owner) until a root, a missing owner or a cycle.
    pub fn owner_chain(&self, uid: &str) -> Vec<ChainLink> {
        let absent: HashSet<&str> = self
            .snap
            .absent
            .iter()
            .filter_map(|r| r.uid.as_deref())
            .collect();
        let mut chain = Vec::new();
        let mut seen = HashSet::from([uid.to_string()]);
        let mut current = self.snap.get(uid);
        while let Some(obj) = current {
            let Some(owner) = obj.controller().or(obj.owners.first()) else {
                break;
            };
            if !seen.insert(owner.uid.clone()) {
                break;
            }
            if chain.len() == MAX_DEPTH {
                let more = self.count_above(owner, &mut seen);
                chain.push(ChainLink::Cut {
                    next: owner.clone(),
                    more,
                });
                break;
            }
            current = match self.snap.get(&owner.uid) {
                Some(parent) if invalid_edge(parent, obj).is_none() => {
                    chain.push(ChainLink::Found(parent.uid.clone()));
                    Some(parent)
                }
                Some(_) => None,
                None if absent.contains(owner.uid.as_str()) => {
                    chain.push(ChainLink::Dangling(owner.clone()));
                    None
                }
                None => {
                    chain.push(ChainLink::Unread(owner.clone()));
                    None
                }
            };
        }
        chain
    }

    /// How many objects in the snapshot the chain reaches from `owner` up,
    /// following it as [`Graph::owner_chain`] does.
    fn count_above(&self, owner: &OwnerRef, seen: &mut HashSet<String>) -> usize {
        let mut more = 0;
        let mut current = self.snap.get(&owner.uid);
        while let Some(parent) = current {
            more += 1;
            current = parent
                .controller()
                .or(parent.owners.first())
                .filter(|o| seen.insert(o.uid.clone()))
                .and_then(|o| self.snap.get(&o.uid));
        }
        more
    }
}

/// Why an owner edge is invalid, if it is.
fn invalid_edge(parent: &Object, child: &Object) -> Option<String> {
    match (parent.namespace(), child.namespace()) {
        (Some(p), Some(c)) if p != c => Some(format!(
            "owner is in namespace {p}, but owner references cannot cross namespaces"
        )),
        (Some(p), None) => Some(format!(
            "owner is namespaced (in {p}), but this object is cluster-scoped"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectRef;
    use serde_json::json;

    fn obj(
        kind: &str,
        ns: Option<&str>,
        name: &str,
        uid: &str,
        owners: &[(&str, &str, &str, bool)],
    ) -> Object {
        let refs: Vec<_> = owners
            .iter()
            .map(|(k, n, u, c)| json!({"apiVersion": "example.com/v1", "kind": k, "name": n, "uid": u, "controller": c}))
            .collect();
        let mut meta = json!({"name": name, "uid": uid, "ownerReferences": refs});
        if let Some(ns) = ns {
            meta["namespace"] = json!(ns);
        }
        Object::from_value(json!({"apiVersion": "example.com/v1", "kind": kind, "metadata": meta}))
            .unwrap()
    }

    fn snap(objects: Vec<Object>) -> Snapshot {
        Snapshot::new(
            objects,
            vec![],
            vec![],
            "2026-01-01T00:00:00Z".parse().unwrap(),
        )
    }

    fn names(snap: &Snapshot, node: &TreeNode) -> String {
        let me = snap.get(&node.uid).unwrap().name().to_string();
        if node.children.is_empty() {
            me
        } else {
            format!(
                "{me}({})",
                node.children
                    .iter()
                    .map(|c| names(snap, c))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    }

    #[test]
    fn children_sorted_by_kind_then_name() {
        let s = snap(vec![
            obj("Deployment", Some("a"), "web", "d", &[]),
            obj(
                "ReplicaSet",
                Some("a"),
                "web-2",
                "rs2",
                &[("Deployment", "web", "d", true)],
            ),
            obj(
                "ReplicaSet",
                Some("a"),
                "web-1",
                "rs1",
                &[("Deployment", "web", "d", true)],
            ),
            obj(
                "Pod",
                Some("a"),
                "web-1-b",
                "p2",
                &[("ReplicaSet", "web-1", "rs1", true)],
            ),
            obj(
                "Pod",
                Some("a"),
                "web-1-a",
                "p1",
                &[("ReplicaSet", "web-1", "rs1", true)],
            ),
            obj(
                "ConfigMap",
                Some("a"),
                "zzz",
                "cm",
                &[("Deployment", "web", "d", false)],
            ),
        ]);
        let g = Graph::new(&s);
        assert_eq!(
            names(&s, &g.tree("d")),
            "web(zzz web-1(web-1-a web-1-b) web-2)"
        );
    }

    #[test]
    fn several_owners_place_an_object_once_under_its_controller() {
        let s = snap(vec![
            obj("App", Some("a"), "app", "app", &[]),
            obj(
                "Deployment",
                Some("a"),
                "web",
                "d",
                &[("App", "app", "app", true)],
            ),
            obj(
                "Secret",
                Some("a"),
                "shared",
                "sec",
                &[
                    ("App", "app", "app", false),
                    ("Deployment", "web", "d", true),
                ],
            ),
        ]);
        let g = Graph::new(&s);
        let tree = g.tree("app");
        assert_eq!(names(&s, &tree), "app(web(shared))");
        let shared = &tree.children[0].children[0];
        assert_eq!(
            shared
                .also_owned_by
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>(),
            vec!["app"]
        );
        // Seen from the other owner alone it is still there.
        assert_eq!(names(&s, &g.tree("d")), "web(shared)");
    }

    #[test]
    fn cycles_terminate_with_a_note() {
        let s = snap(vec![
            obj(
                "Widget",
                Some("a"),
                "w1",
                "u1",
                &[("Widget", "w2", "u2", true)],
            ),
            obj(
                "Widget",
                Some("a"),
                "w2",
                "u2",
                &[("Widget", "w1", "u1", true)],
            ),
        ]);
        let g = Graph::new(&s);
        let tree = g.tree("u1");
        assert_eq!(names(&s, &tree), "w1(w2)");
        assert_eq!(
            tree.children[0].notes,
            vec![Note::Cycle("Widget/w1".into())]
        );
        assert_eq!(g.owner_chain("u1"), vec![ChainLink::Found("u2".into())]);
    }

    #[test]
    fn cluster_scoped_owner_finds_namespaced_children_but_namespaces_do_not_cross() {
        let s = snap(vec![
            obj("Cluster", None, "c", "c", &[]),
            obj(
                "Pod",
                Some("a"),
                "p-a",
                "pa",
                &[("Cluster", "c", "c", true)],
            ),
            obj(
                "Pod",
                Some("b"),
                "p-b",
                "pb",
                &[("Cluster", "c", "c", true)],
            ),
            obj("Thing", Some("a"), "owner", "o", &[]),
            obj(
                "Thing",
                Some("b"),
                "stray",
                "s",
                &[("Thing", "owner", "o", true)],
            ),
            obj("Global", None, "g", "g", &[("Thing", "owner", "o", true)]),
        ]);
        let g = Graph::new(&s);
        assert_eq!(names(&s, &g.tree("c")), "c(p-a p-b)");
        assert_eq!(names(&s, &g.tree("o")), "owner");
        let stray = s.get("s").unwrap();
        assert!(
            matches!(&g.owner_notes(stray)[..], [Note::InvalidOwner(_, why)] if why.contains("cannot cross namespaces"))
        );
        assert!(
            matches!(&g.owner_notes(s.get("g").unwrap())[..], [Note::InvalidOwner(_, why)] if why.contains("cluster-scoped"))
        );
    }

    #[test]
    fn dangling_owners_are_noted_and_end_the_chain() {
        let mut s = snap(vec![
            obj(
                "ReplicaSet",
                Some("a"),
                "rs",
                "rs",
                &[("Deployment", "gone", "d", true)],
            ),
            obj(
                "Pod",
                Some("a"),
                "p",
                "p",
                &[("ReplicaSet", "rs", "rs", true)],
            ),
            obj(
                "Pod",
                Some("a"),
                "q",
                "q",
                &[("ReplicaSet", "elsewhere", "x", true)],
            ),
        ]);
        s.absent.push(ObjectRef {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("a".into()),
            name: "gone".into(),
            uid: Some("d".into()),
        });
        let g = Graph::new(&s);
        let chain = g.owner_chain("p");
        assert!(
            matches!(&chain[..], [ChainLink::Found(rs), ChainLink::Dangling(d)] if rs == "rs" && d.name == "gone")
        );
        assert!(
            matches!(&g.owner_notes(s.get("rs").unwrap())[..], [Note::DanglingOwner(d)] if d.name == "gone")
        );
        assert!(matches!(&g.owner_chain("q")[..], [ChainLink::Unread(o)] if o.name == "elsewhere"));
        assert!(
            g.owner_notes(s.get("q").unwrap()).is_empty(),
            "an owner merely not read is not called dangling"
        );
    }

    /// A chain of `n` Widgets, w0 the root, each owned by the one before.
    fn chain_of(n: usize) -> Snapshot {
        let objects = (0..n)
            .map(|i| {
                let owner = format!("u{}", i.wrapping_sub(1));
                let name = format!("w{}", i.wrapping_sub(1));
                let owners: &[(&str, &str, &str, bool)] = if i == 0 {
                    &[]
                } else {
                    &[("Widget", &name, &owner, true)]
                };
                obj(
                    "Widget",
                    Some("a"),
                    &format!("w{i}"),
                    &format!("u{i}"),
                    owners,
                )
            })
            .collect();
        snap(objects)
    }

    #[test]
    fn a_chain_thousands_deep_is_cut_at_the_limit_without_recursion() {
        let s = chain_of(10_000);
        let g = Graph::new(&s);
        let tree = g.tree("u0");
        let mut depth = 0;
        let mut node = &tree;
        while let Some(child) = node.children.first() {
            assert_eq!(node.children.len(), 1);
            node = child;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(s.get(&node.uid).unwrap().name(), format!("w{MAX_DEPTH}"));
        assert_eq!(node.notes, vec![Note::Cut(10_000 - MAX_DEPTH - 1)]);

        let chain = g.owner_chain("u9999");
        assert_eq!(chain.len(), MAX_DEPTH + 1);
        assert_eq!(chain[0], ChainLink::Found("u9998".into()));
        assert_eq!(
            chain[MAX_DEPTH - 1],
            ChainLink::Found(format!("u{}", 9999 - MAX_DEPTH))
        );
        assert!(
            matches!(&chain[MAX_DEPTH], ChainLink::Cut { next, more } if next.name == format!("w{}", 9998 - MAX_DEPTH) && *more == 9999 - MAX_DEPTH),
            "{:?}",
            chain[MAX_DEPTH]
        );
    }

    #[test]
    fn a_chain_at_the_limit_is_whole() {
        let s = chain_of(MAX_DEPTH + 1);
        let g = Graph::new(&s);
        assert!(
            g.owner_chain(&format!("u{MAX_DEPTH}"))
                .iter()
                .all(|l| matches!(l, ChainLink::Found(_)))
        );
        let mut node = g.tree("u0");
        while let Some(child) = node.children.pop() {
            assert!(node.notes.is_empty());
            node = child;
        }
        assert!(node.notes.is_empty(), "{:?}", node.notes);
    }

    #[test]
    fn objects_controlling_each_other_below_the_root_are_still_drawn() {
        // x is owned by the root and controlled by y; y is controlled by x.
        let s = snap(vec![
            obj("App", Some("a"), "root", "r", &[]),
            obj(
                "Widget",
                Some("a"),
                "x",
                "x",
                &[("App", "root", "r", false), ("Widget", "y", "y", true)],
            ),
            obj("Widget", Some("a"), "y", "y", &[("Widget", "x", "x", true)]),
        ]);
        let g = Graph::new(&s);
        assert_eq!(names(&s, &g.tree("r")), "root(x(y))");
    }
}
