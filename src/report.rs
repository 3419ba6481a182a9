//! The versioned report documents (`-o json|yaml`) and the view model the
//! text renderers draw: objects with their verdicts, trees and gaps. Pure:
//! built from a snapshot, a graph and the judge.

use crate::verdict::Judged;
use serde::Serialize;

use crate::graph::{ChainLink, Graph, MAX_DEPTH, Note};
use crate::model::{Incomplete, ObjectRef, OwnerRef, Target};
use crate::relations::{self, Edge, End};
pub use crate::verdict::Item;
use crate::verdict::reason::Aside;
use crate::verdict::{Judgement, Verdict};

pub const API_VERSION: &str = "reconcile.kubectl.dev/v1alpha1";

/// `status`: one item per target.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// Shared: a live sweep's settled rows are drawn in every frame
    /// without a copy.
    pub items: Vec<std::sync::Arc<Item>>,
    pub incomplete: Vec<Incomplete>,
}

impl StatusReport {
    pub fn build(snap: &Judged<'_>, targets: &[Target]) -> StatusReport {
        let items = targets
            .iter()
            .map(|t| match t {
                Target::Found(uid) => match snap.get(uid) {
                    Some(obj) => Item::target(obj, snap),
                    None => Item::missing(&snap.id_of(uid)),
                },
                Target::Missing(id) => Item::missing_near(id, snap.close_name(id)),
            })
            .map(std::sync::Arc::new)
            .collect();
        StatusReport {
            api_version: API_VERSION,
            kind: "StatusReport",
            items,
            incomplete: snap.incomplete.clone(),
        }
    }
}

/// A sweep's rows with what the sweep kept of objects with a controller
/// that are in trouble on their own (see `Settle::troubled`): a row
/// settled before its child was read takes the tree's verdict from it
/// (`verdict::tree::from_child`); a child whose controller is neither a
/// row nor read (a cluster-scoped owner of a namespace's objects, an owner
/// the user may not read) is a row of its own, so the sweep never reads as
/// all clear over it. Roots the snapshot holds whole judge their trees
/// themselves.
pub fn with_troubled_children(snap: &Judged<'_>, items: &mut Vec<std::sync::Arc<Item>>) {
    use std::sync::Arc;
    let mut extra: Vec<Arc<Item>> = Vec::new();
    for child in snap.objects() {
        let Some(owner) = child.controller() else {
            continue;
        };
        if child.metadata_only || child.deleted.is_some() || snap.get(&owner.uid).is_some() {
            continue;
        }
        let row = items
            .iter_mut()
            .find(|i| i.object.uid.as_deref() == Some(owner.uid.as_str()));
        match row {
            Some(row) => {
                let Some(tree) =
                    crate::verdict::tree::from_child(&row.object, &row.judgement, child, snap)
                else {
                    continue;
                };
                // The worst child decides; a row already Failed stays so.
                if tree.verdict.severity() > row.judgement.verdict.severity() {
                    let own = row.own.clone().unwrap_or_else(|| row.judgement.clone());
                    *row = Arc::new(Item {
                        judgement: tree,
                        own: Some(own),
                        ..(**row).clone()
                    });
                }
            }
            None => {
                let item = Item::target(child, snap);
                if matches!(
                    item.judgement.verdict,
                    Verdict::Failed | Verdict::Progressing
                ) && !items.iter().any(|i| i.object.uid == item.object.uid)
                {
                    extra.push(Arc::new(item));
                }
            }
        }
    }
    if !extra.is_empty() {
        items.extend(extra);
        items.sort_by(|a, b| {
            let key = |i: &Item| {
                let o = &i.object;
                (o.namespace.clone(), o.kind.clone(), o.name.clone())
            };
            key(a).cmp(&key(b))
        });
    }
}

/// A node of a tree in a report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(flatten)]
    pub item: Item,
    /// How the node hangs under its parent: `owns`, or a relation
    /// (`mounts`, `selects`, `routes-to`, ...). None for the root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge: Option<Edge>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_owned_by: Vec<ObjectRef>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub children: Vec<Node>,
}

/// One link of an owner chain in a report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerLink {
    #[serde(flatten)]
    pub item: Item,
    /// `present`, `dangling` (the owner is gone), `unread`, `cut` (the
    /// chain is not followed further up), or `manager` (the GitOps object
    /// that applies what is below it, named by its labels; topmost).
    pub state: &'static str,
}

/// A target's tree, with the owners above it when asked for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeItem {
    /// Owners above the target, root first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owners: Option<Vec<OwnerLink>>,
    #[serde(flatten)]
    pub node: Node,
}

/// At most this many objects are drawn in one `tree` answer, over all its
/// targets. One tree is bounded by its depth, but the trees of many targets
/// can share their objects: every pod of an owner chain 10,000 long draws
/// the chain again. Far above a real answer (a Deployment of 5,000 pods).
pub const MAX_TREE_OBJECTS: usize = 50_000;

/// `tree`: one tree per target.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub items: Vec<TreeItem>,
    pub incomplete: Vec<Incomplete>,
    /// Set when the answer reached [`MAX_TREE_OBJECTS`]: what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// What a tree answer cut at [`MAX_TREE_OBJECTS`] left out. Every target
/// is still judged; only the objects below are not drawn.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    pub limit: usize,
    /// Objects left out below the trees that were drawn.
    pub objects_left_out: usize,
    /// Targets drawn without their trees and owners.
    pub targets_without_tree: usize,
}

impl Cut {
    /// What was left out, in one line (the hint is the renderer's).
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if self.objects_left_out > 0 {
            parts.push(format!(
                "{} objects below the trees drawn",
                self.objects_left_out
            ));
        }
        if self.targets_without_tree > 0 {
            parts.push(format!(
                "the trees of {} targets (each target is still judged)",
                self.targets_without_tree
            ));
        }
        format!(
            "the answer is cut at {} objects: {} are left out",
            self.limit,
            parts.join(" and ")
        )
    }
}

/// How many objects an answer may still draw, and what it left out.
struct Budget {
    left: usize,
    cut: Cut,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            left: MAX_TREE_OBJECTS,
            cut: Cut {
                limit: MAX_TREE_OBJECTS,
                ..Cut::default()
            },
        }
    }

    fn take(&mut self, n: usize) {
        self.left = self.left.saturating_sub(n);
    }

    fn into_cut(self) -> Option<Cut> {
        (self.cut.objects_left_out + self.cut.targets_without_tree > 0).then_some(self.cut)
    }
}

impl TreeReport {
    pub fn build(snap: &Judged<'_>, targets: &[Target], owners: bool) -> TreeReport {
        let graph = Graph::new(snap);
        let mut budget = Budget::new();
        let items = targets
            .iter()
            .map(|t| match t {
                Target::Found(uid) if budget.left == 0 => {
                    budget.cut.targets_without_tree += 1;
                    let item = match snap.get(uid) {
                        Some(obj) => Item::target(obj, snap),
                        None => Item::missing(&snap.id_of(uid)),
                    };
                    TreeItem {
                        owners: None,
                        node: leaf(
                            item,
                            vec![format!(
                                "its tree is not drawn: the answer is cut at {MAX_TREE_OBJECTS} objects"
                            )],
                        ),
                    }
                }
                Target::Found(uid) => {
                    let owners = owners.then(|| chain(snap, &graph, uid));
                    budget.take(owners.as_ref().map_or(0, Vec::len));
                    let mut node = node(
                        snap,
                        &relations::tree_with_users(snap, &graph, uid),
                        &mut budget,
                    );
                    // The root line says the tree's verdict and its own.
                    if let Some(obj) = snap.get(uid) {
                        node.item = Item::judged(obj, node.item.judgement, snap);
                    }
                    TreeItem { owners, node }
                }
                Target::Missing(id) => TreeItem {
                    owners: None,
                    node: leaf(Item::missing_near(id, snap.close_name(id)), vec![]),
                },
            })
            .collect();
        TreeReport {
            api_version: API_VERSION,
            kind: "TreeReport",
            items,
            incomplete: snap.incomplete.clone(),
            cut: budget.into_cut(),
        }
    }
}

/// A node with no children.
fn leaf(item: Item, notes: Vec<String>) -> Node {
    Node {
        item,
        edge: None,
        also_owned_by: vec![],
        notes,
        children: vec![],
    }
}

/// The report's node for a tree's node, within the budget: past it, the
/// children are left out and counted in a note.
fn node(snap: &Judged<'_>, tree: &relations::Node, budget: &mut Budget) -> Node {
    budget.take(1);
    let (item, ns) = match &tree.end {
        End::Found(uid) => match snap.get(uid) {
            Some(obj) => (Item::of(obj, snap), obj.namespace()),
            None => (Item::missing(&snap.id_of(uid)), None),
        },
        End::Missing(r) => (Item::missing(r), None),
    };
    let mut notes: Vec<String> = tree.notes.iter().map(note_text).collect();
    let mut children = Vec::new();
    let mut left_out = 0;
    for c in &tree.children {
        if budget.left == 0 {
            c.walk(&mut |_| left_out += 1);
        } else {
            children.push(node(snap, c, budget));
        }
    }
    if left_out > 0 {
        budget.cut.objects_left_out += left_out;
        notes.push(format!(
            "the answer is cut here, at {MAX_TREE_OBJECTS} objects: {left_out} objects below are left out"
        ));
    }
    Node {
        item,
        edge: tree.edge,
        also_owned_by: tree
            .also_owned_by
            .iter()
            .map(|o| owner_ref(o, ns))
            .collect(),
        notes,
        children,
    }
}

fn chain(snap: &Judged<'_>, graph: &Graph, uid: &str) -> Vec<OwnerLink> {
    let ns = snap
        .get(uid)
        .and_then(|o| o.namespace())
        .map(str::to_string);
    let mut links: Vec<OwnerLink> = graph
        .owner_chain(uid)
        .iter()
        .map(|link| match link {
            ChainLink::Found(u) => OwnerLink {
                item: match snap.get(u) {
                    Some(obj) => Item::of(obj, snap),
                    None => Item::missing(&snap.id_of(u)),
                },
                state: "present",
            },
            ChainLink::Dangling(o) => OwnerLink {
                item: Item {
                    judgement: Judgement::new(Verdict::NotFound, Aside::OwnerGone, format!("it {}", crate::graph::OWNER_GONE)),
                    ..Item::missing(&owner_ref(o, ns.as_deref()))
                },
                state: "dangling",
            },
            ChainLink::Unread(o) => OwnerLink {
                item: Item {
                    judgement: Judgement::new(Verdict::Unknown, Aside::OwnerNotRead, "the owner could not be read"),
                    ..Item::missing(&owner_ref(o, ns.as_deref()))
                },
                state: "unread",
            },
            ChainLink::Cut { next, more } => OwnerLink {
                item: Item {
                    judgement: Judgement::new(
                        Verdict::Unknown,
                        Aside::ChainCut,
                        format!(
                            "the owner chain is cut here, after {MAX_DEPTH} owners: {more} owners from this one up are left out (controllers do not nest this deep)"
                        ),
                    ),
                    ..Item::missing(&owner_ref(next, ns.as_deref()))
                },
                state: "cut",
            },
        })
        .collect();
    links.extend(manager_link(snap, graph, uid));
    links.reverse();
    links
}

/// The GitOps object that applies the target or an owner above it, named
/// by their labels (see [`relations::manager_of`]): drawn above the owner
/// chain, with its verdict (a suspended Kustomization does not correct
/// drift). The nearest such label wins.
fn manager_link(snap: &Judged<'_>, graph: &Graph, uid: &str) -> Option<OwnerLink> {
    let above = graph.owner_chain(uid).into_iter().filter_map(|l| match l {
        ChainLink::Found(u) => Some(u),
        _ => None,
    });
    let (named, how) = std::iter::once(uid.to_string())
        .chain(above)
        .filter_map(|u| snap.get(&u))
        .find_map(relations::manager_of)?;
    let item = match named.find(snap) {
        Some(m) => Item::of(m, snap),
        // Looked for, and the server said there is none (an Application
        // in another namespace than the label implies, or deleted).
        None if named.is_absent(snap) => Item {
            judgement: Judgement::new(
                Verdict::NotFound,
                crate::verdict::reason::Lifecycle::NotFound,
                format!("named by the {how}; it does not exist"),
            ),
            ..Item::missing(&named.to_ref())
        },
        None => Item {
            judgement: Judgement::new(
                Verdict::Unknown,
                Aside::ManagerNotRead,
                format!("named by the {how}; it could not be read"),
            ),
            ..Item::missing(&named.to_ref())
        },
    };
    Some(OwnerLink {
        item,
        state: "manager",
    })
}

fn owner_ref(o: &OwnerRef, ns: Option<&str>) -> ObjectRef {
    ObjectRef {
        api_version: o.api_version.clone(),
        kind: o.kind.clone(),
        namespace: ns.map(str::to_string),
        name: o.name.clone(),
        uid: Some(o.uid.clone()),
    }
}

fn note_text(note: &Note) -> String {
    match note {
        Note::DanglingOwner(o) => crate::graph::owner_gone(o),
        Note::InvalidOwner(o, why) => {
            format!("invalid owner reference to {}/{}: {why}", o.kind, o.name)
        }
        Note::Cycle(to) => format!("ownership cycle: {to} is also an owner above"),
        Note::Cut(below) => format!(
            "the tree is cut here, {MAX_DEPTH} levels down: {below} objects below are left out (controllers do not nest this deep)"
        ),
        Note::PodsOnly => "used-by counts the pods that exist: a workload with none (a CronJob before its first run, a Deployment scaled to 0) may use it too".into(),
    }
}

/// `why`: one diagnosis per target.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhyReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// A sweep (`why` with no target): how many roots are not converged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    pub items: Vec<crate::diagnose::Diagnosis>,
    pub incomplete: Vec<Incomplete>,
}

impl WhyReport {
    /// Every command it suggests aimed at `context` (`kubectl --context
    /// NAME …`): asked with `--context`, or of a fleet.
    pub fn aim_at(&mut self, context: &str) {
        self.items.iter_mut().for_each(|d| d.aim_at(context));
    }
}

/// `8 of 12 root objects not converged: 3 Failed, 5 Progressing`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub roots: usize,
    pub not_converged: usize,
    /// How many of them per verdict, worst first.
    pub verdicts: Vec<VerdictCount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VerdictCount {
    pub verdict: Verdict,
    pub count: usize,
}

impl Summary {
    pub fn text(&self) -> String {
        let parts: Vec<String> = self
            .verdicts
            .iter()
            .map(|c| format!("{} {}", c.count, c.verdict))
            .collect();
        format!(
            "{} of {} root objects not converged: {}",
            self.not_converged,
            self.roots,
            parts.join(", ")
        )
    }
}

impl WhyReport {
    pub fn build(snap: &Judged<'_>, targets: &[Target]) -> WhyReport {
        let graph = Graph::new(snap);
        let items = targets
            .iter()
            .map(|t| match t {
                Target::Found(uid) => crate::diagnose::diagnose_in(snap, &graph, uid),
                Target::Missing(id) => crate::diagnose::missing(snap, id),
            })
            .collect();
        WhyReport {
            api_version: API_VERSION,
            kind: "WhyReport",
            summary: None,
            items,
            incomplete: snap.incomplete.clone(),
        }
    }

    /// A sweep of `roots` root objects, of which `failing` are not
    /// converged: a summary, items that share one cause merged (the one
    /// whose tree holds the other, and whose causes hold the other's root
    /// cause, keeps it), worst cause first.
    pub fn sweep(snap: &Judged<'_>, failing: &[Target], roots: usize) -> WhyReport {
        let mut report = WhyReport::build(snap, failing);
        // Runs that failed and are gone, known by their events.
        report
            .items
            .extend(crate::diagnose::failed_and_deleted(snap));
        let mut verdicts: Vec<VerdictCount> = Vec::new();
        for d in &report.items {
            match verdicts
                .iter_mut()
                .find(|c| c.verdict == d.item.judgement.verdict)
            {
                Some(c) => c.count += 1,
                None => verdicts.push(VerdictCount {
                    verdict: d.item.judgement.verdict,
                    count: 1,
                }),
            }
        }
        verdicts.sort_by_key(|c| std::cmp::Reverse(c.verdict.severity()));
        report.summary = Some(Summary {
            roots: roots.max(report.items.len()),
            not_converged: report.items.len(),
            verdicts,
        });
        let items = std::mem::take(&mut report.items);
        let uid = |d: &crate::diagnose::Diagnosis| d.item.object.uid.clone().unwrap_or_default();
        // Each item goes into the largest other tree that holds it.
        let home: Vec<Option<usize>> = items
            .iter()
            .enumerate()
            .map(|(i, d)| {
                items
                    .iter()
                    .enumerate()
                    .filter(|(j, other)| *j != i && other.members.contains(&uid(d)))
                    // ... and whose causes include this one's root cause.
                    .filter(|(_, other)| {
                        d.root_cause.as_ref().is_none_or(|mine| {
                            mine.objects
                                .iter()
                                .all(|o| other.causes.iter().any(|c| c.objects.contains(o)))
                        })
                    })
                    .filter(|(_, other)| {
                        !d.members.contains(&uid(other)) || other.members.len() > d.members.len()
                    })
                    .max_by_key(|(j, other)| (other.members.len(), std::cmp::Reverse(*j)))
                    .map(|(j, _)| j)
            })
            .collect();
        let mut kept: Vec<Option<crate::diagnose::Diagnosis>> =
            items.into_iter().map(Some).collect();
        for (i, h) in home.iter().enumerate() {
            if let Some(j) = h
                && home[*j].is_none()
                && let Some(d) = kept[i].take()
                && let Some(host) = kept[*j].as_mut()
            {
                host.same_cause.push(d.item.object);
            }
        }
        let mut items: Vec<crate::diagnose::Diagnosis> = kept.into_iter().flatten().collect();
        items.sort_by(|a, b| {
            b.rank().cmp(&a.rank()).then_with(|| {
                let key = |d: &crate::diagnose::Diagnosis| {
                    (
                        d.item.object.namespace.clone(),
                        d.item.object.kind.clone(),
                        d.item.object.name.clone(),
                    )
                };
                key(a).cmp(&key(b))
            })
        });
        report.items = items;
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Snapshot;

    /// A target from another read (a uid this snapshot does not hold) is
    /// reported, never a panic: status, tree and why alike.
    #[test]
    fn a_target_the_snapshot_does_not_hold_is_reported_not_a_crash() {
        let snap = Snapshot::new(vec![], vec![], vec![], jiff::Timestamp::UNIX_EPOCH);
        let targets = [Target::Found("u-gone".into())];
        let status = StatusReport::build(&Judged::builtin(&snap), &targets);
        assert_eq!(status.items[0].judgement.verdict, Verdict::NotFound);
        assert_eq!(status.items[0].object.uid.as_deref(), Some("u-gone"));
        let tree = TreeReport::build(&Judged::builtin(&snap), &targets, true);
        assert_eq!(tree.items[0].node.item.judgement.verdict, Verdict::NotFound);
        let why = WhyReport::build(&Judged::builtin(&snap), &targets);
        assert_eq!(why.items[0].item.judgement.verdict, Verdict::NotFound);
    }

    /// An Argo CD Application a tracking id names, looked for and found
    /// gone, is "does not exist", never "could not be read"; one not read
    /// at all stays "could not be read".
    #[test]
    fn a_manager_looked_for_and_not_there_is_not_found() {
        let cm = crate::model::Object::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "web", "namespace": "team-a", "uid": "cm",
                "annotations": {"argocd.argoproj.io/tracking-id": "team-a_web:/ConfigMap:team-a/web"}}}))
        .unwrap();
        let mut snap = Snapshot::new(vec![cm], vec![], vec![], jiff::Timestamp::UNIX_EPOCH);
        let manager = |snap: &Snapshot| {
            let tree =
                TreeReport::build(&Judged::builtin(snap), &[Target::Found("cm".into())], true);
            let owners = tree.items[0].owners.clone().unwrap_or_default();
            owners
                .last()
                .map(|o| (o.item.judgement.verdict, o.item.judgement.message.clone()))
        };
        let (verdict, message) = manager(&snap).expect("the manager is drawn");
        assert_eq!(verdict, Verdict::Unknown);
        assert!(message.contains("could not be read"), "{message}");
        snap.absent.push(crate::model::ObjectRef {
            api_version: "argoproj.io/v1alpha1".into(),
            kind: "Application".into(),
            namespace: Some("team-a".into()),
            name: "web".into(),
            uid: None,
        });
        let (verdict, message) = manager(&snap).expect("the manager is drawn");
        assert_eq!(verdict, Verdict::NotFound);
        assert!(message.contains("does not exist"), "{message}");
    }
}
