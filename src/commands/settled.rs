//! The rows a sweep keeps instead of the objects: a root judged alone
//! (see `verdict::judged_alone`) and converged leaves its row here as its
//! list's page arrives, and the object is not kept. Rows are kept by
//! object, so that a list started over (an expired continue token) counts
//! each root once, and a list that fails part way leaves none of its
//! type. A `--watch` keeps them current: its watches settle a root again
//! as it changes, or take its row back when it is kept whole or deleted.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::model::{Object, Snapshot};
use crate::source::crawl::Settle;
use crate::source::read::Read;
use crate::sync::locked;
use crate::verdict::{Item, Judge, Verdict, judge};

/// Where a row is kept: the order a sweep prints its rows in (namespace,
/// kind, name), then the group.
type Key = (Option<String>, String, String, String);

fn key(obj: &Object) -> Key {
    (
        obj.namespace().map(str::to_string),
        obj.kind().to_string(),
        obj.name().to_string(),
        obj.group().to_string(),
    )
}

pub struct Settled {
    judge: Judge,
    /// What a root judged alone is judged in: no other object, now.
    alone: Snapshot,
    rows: Mutex<BTreeMap<Key, Arc<Item>>>,
    /// The rows of the frame being drawn (see [`Settle::hold`]), shared
    /// with `rows`: holding them copies no row.
    held: Mutex<Option<Vec<Arc<Item>>>>,
}

impl Settled {
    pub fn new(judge: Judge) -> Settled {
        Settled {
            judge,
            alone: Snapshot::new(Vec::new(), Vec::new(), Vec::new(), jiff::Timestamp::now()),
            rows: Mutex::default(),
            held: Mutex::default(),
        }
    }

    /// Every settled row, each root once, taken: a one-shot answer's.
    pub fn rows(&self) -> Vec<Arc<Item>> {
        std::mem::take(&mut *locked(&self.rows))
            .into_values()
            .collect()
    }

    /// The rows of the frame being drawn from `snap`: those held when it
    /// was made, or, before any, those there are. A root `snap` holds
    /// whole is drawn from there, not from its row: another watch keeps
    /// it too (`why`'s read in depth of a root that was failing). The
    /// rows are shared, not copied.
    pub fn frame_rows(&self, snap: &Snapshot) -> Vec<Arc<Item>> {
        let drawn = |i: &&Arc<Item>| !held_by(snap, i);
        if let Some(held) = &*locked(&self.held) {
            return held.iter().filter(drawn).cloned().collect();
        }
        let rows = locked(&self.rows);
        rows.values().filter(drawn).cloned().collect()
    }

    /// How many roots were settled, besides those `snap` holds whole:
    /// in the frame being drawn, or, before any, now.
    pub fn count(&self, snap: &Snapshot) -> usize {
        let rows = |items: &mut dyn Iterator<Item = &Arc<Item>>| {
            items.filter(|i| !held_by(snap, i)).count()
        };
        match &*locked(&self.held) {
            Some(held) => rows(&mut held.iter()),
            None => rows(&mut locked(&self.rows).values()),
        }
    }
}

/// Whether `snap` holds the object of row `item`.
fn held_by(snap: &Snapshot, item: &Item) -> bool {
    let id = &item.object;
    snap.find(id.group(), &id.kind, id.namespace.as_deref(), &id.name)
        .is_some()
}

impl Settle for Settled {
    fn settle(&self, _: &Read, obj: &Object) -> bool {
        // A row is judged once, and again only when its object changes: a
        // health rule that reads the time could change its verdict with
        // no change to the object, so its objects are kept whole.
        if !crate::verdict::judged_alone(obj)
            || self.judge.rules.reads_the_time(obj.group(), obj.kind())
        {
            return false;
        }
        let judgement = judge(obj, &self.judge.on(&self.alone));
        if judgement.verdict != Verdict::Converged {
            return false;
        }
        locked(&self.rows).insert(key(obj), Arc::new(Item::with(obj, judgement)));
        true
    }

    fn forget(&self, list: &Read) {
        let rt = &list.rt;
        locked(&self.rows).retain(|(ns, kind, _, group), _| {
            !(*kind == rt.kind
                && *group == rt.group
                && (list.namespace.is_none() || *ns == list.namespace))
        });
    }

    fn forget_except(&self, list: &Read, settled: &dyn Fn(Option<&str>, &str) -> bool) {
        let rt = &list.rt;
        locked(&self.rows).retain(|(ns, kind, name, group), _| {
            !(*kind == rt.kind
                && *group == rt.group
                && (list.namespace.is_none() || *ns == list.namespace))
                || settled(ns.as_deref(), name)
        });
    }

    fn unsettle(&self, obj: &Object) {
        locked(&self.rows).remove(&key(obj));
    }

    fn hold(&self) {
        let rows = locked(&self.rows).values().cloned().collect();
        *locked(&self.held) = Some(rows);
    }

    fn troubled(&self, obj: &Object) -> bool {
        matches!(
            judge(obj, &self.judge.on(&self.alone)).verdict,
            Verdict::Failed | Verdict::Progressing
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ResourceType;

    fn object(kind: &str, name: &str, ready: &str) -> Object {
        Object::from_value(
            serde_json::json!({"apiVersion": "example.com/v1", "kind": kind,
            "metadata": {"name": name, "namespace": "shop", "uid": name},
            "status": {"conditions": [{"type": "Ready", "status": ready}]}}),
        )
        .unwrap()
    }

    fn list(kind: &str, namespace: Option<&str>) -> Read {
        let rt = ResourceType {
            group: "example.com".into(),
            version: "v1".into(),
            kind: kind.into(),
            plural: format!("{}s", kind.to_ascii_lowercase()),
            singular: kind.to_ascii_lowercase(),
            short_names: vec![],
            categories: vec![],
            namespaced: true,
            verbs: vec!["list".into(), "watch".into()],
            has_status: true,
        };
        Read::list(&rt, namespace)
    }

    fn nothing() -> Snapshot {
        Snapshot::new(vec![], vec![], vec![], jiff::Timestamp::UNIX_EPOCH)
    }

    fn names(items: &[Arc<Item>]) -> Vec<&str> {
        items.iter().map(|i| i.object.name.as_str()).collect()
    }

    #[test]
    fn a_root_is_settled_once_and_a_failed_list_leaves_no_rows_of_its_type() {
        let settled = Settled::new(Judge::builtin().clone());
        let widgets = list("Widget", Some("shop"));
        let gadgets = list("Gadget", None);
        assert!(settled.settle(&widgets, &object("Widget", "a", "True")));
        // The list started over: the same root again.
        assert!(settled.settle(&widgets, &object("Widget", "a", "True")));
        assert!(
            !settled.settle(&widgets, &object("Widget", "b", "False")),
            "not converged: kept"
        );
        assert!(settled.settle(&gadgets, &object("Gadget", "c", "True")));
        assert_eq!(settled.count(&nothing()), 2);
        settled.forget(&gadgets);
        assert_eq!(names(&settled.rows()), ["a"]);
    }

    #[test]
    fn a_root_whose_health_rule_reads_the_time_is_kept_whole() {
        // Its verdict may turn with the clock while the object, and so its
        // watch, says nothing: a row would keep the old verdict.
        let rules = |when: &str| {
            let mut set = crate::verdict::rules::RuleSet::default();
            let text = format!(
                "rules:\n  - group: example.com\n    kind: Widget\n    checks:\n      - when: '{when}'\n        verdict: Converged\n        reason: Fresh\n"
            );
            set.add_source(
                &text,
                crate::verdict::rules::Origin::Flag(std::path::PathBuf::from("mine.yaml")),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            Settled::new(Judge::new(Arc::new(set)))
        };
        let widgets = list("Widget", None);
        let timed = rules("age(\"2026-01-01T00:00:00Z\") > 0");
        assert!(!timed.settle(&widgets, &object("Widget", "a", "True")));
        let now = rules("now != \"\"");
        assert!(!now.settle(&widgets, &object("Widget", "a", "True")));
        // lagMessage() and a field named `ages` are not the time.
        let timeless = rules("object.?status.?ages.orValue(0) == 0 && lagMessage() == \"\"");
        assert!(timeless.settle(&widgets, &object("Widget", "a", "True")));
        // Another kind is not judged by that rule.
        assert!(timed.settle(&list("Gadget", None), &object("Gadget", "b", "True")));
    }

    #[test]
    fn a_watched_root_leaves_its_row_when_kept_whole_and_a_frame_shows_the_rows_held() {
        let settled = Settled::new(Judge::builtin().clone());
        let widgets = list("Widget", Some("shop"));
        for name in ["a", "b"] {
            assert!(settled.settle(&widgets, &object("Widget", name, "True")));
        }
        // Before any snapshot, a frame shows the rows there are.
        assert_eq!(names(&settled.frame_rows(&nothing())), ["a", "b"]);
        settled.hold();
        // `b` fails: its watch keeps it whole and takes its row back; the
        // frame of the snapshot made before still shows it, the next not.
        settled.unsettle(&object("Widget", "b", "False"));
        assert_eq!(names(&settled.frame_rows(&nothing())), ["a", "b"]);
        assert_eq!(settled.count(&nothing()), 2);
        settled.hold();
        assert_eq!(names(&settled.frame_rows(&nothing())), ["a"]);
        assert_eq!(settled.count(&nothing()), 1);
        // A root another watch keeps whole is drawn from the snapshot,
        // not from its row as well.
        let whole = Snapshot::new(
            vec![object("Widget", "a", "True")],
            vec![],
            vec![],
            jiff::Timestamp::UNIX_EPOCH,
        );
        assert!(settled.frame_rows(&whole).is_empty());
        assert_eq!(settled.count(&whole), 0);
    }
}
