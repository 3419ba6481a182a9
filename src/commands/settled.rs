//! The rows a one-shot sweep keeps instead of the objects: a root judged
//! alone (see `verdict::judged_alone`) and converged leaves its row here as
//! its list's page arrives, and the object is not kept. Rows are kept per
//! list and by uid, so that a list started over (an expired continue token)
//! counts each root once, and a list that fails part way leaves none.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::model::{Object, Snapshot};
use crate::source::crawl::Settle;
use crate::sync::locked;
use crate::verdict::{Item, Judge, Verdict, judge};

pub struct Settled {
    judge: Judge,
    /// What a root judged alone is judged in: no other object, now.
    alone: Snapshot,
    lists: Mutex<HashMap<usize, BTreeMap<String, Item>>>,
}

impl Settled {
    pub fn new(judge: Judge) -> Settled {
        Settled {
            judge,
            alone: Snapshot::new(Vec::new(), Vec::new(), Vec::new(), jiff::Timestamp::now()),
            lists: Mutex::default(),
        }
    }

    /// Every settled row, each root once.
    pub fn rows(&self) -> Vec<Item> {
        let lists = std::mem::take(&mut *locked(&self.lists));
        lists
            .into_values()
            .flat_map(BTreeMap::into_values)
            .collect()
    }

    /// How many roots were settled.
    pub fn count(&self) -> usize {
        locked(&self.lists).values().map(BTreeMap::len).sum()
    }
}

impl Settle for Settled {
    fn settle(&self, list: usize, obj: &Object) -> bool {
        if !crate::verdict::judged_alone(obj) {
            return false;
        }
        let judgement = judge(obj, &self.judge.on(&self.alone));
        if judgement.verdict != Verdict::Converged {
            return false;
        }
        let row = Item::with(obj, judgement);
        locked(&self.lists)
            .entry(list)
            .or_default()
            .insert(obj.uid.clone(), row);
        true
    }

    fn forget(&self, list: usize) {
        locked(&self.lists).remove(&list);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widget(name: &str, ready: &str) -> Object {
        Object::from_value(
            serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": "shop", "uid": name},
            "status": {"conditions": [{"type": "Ready", "status": ready}]}}),
        )
        .unwrap()
    }

    #[test]
    fn a_root_is_settled_once_and_a_failed_list_leaves_no_rows() {
        let settled = Settled::new(Judge::builtin().clone());
        assert!(settled.settle(0, &widget("a", "True")));
        // The list started over: the same root again.
        assert!(settled.settle(0, &widget("a", "True")));
        assert!(
            !settled.settle(0, &widget("b", "False")),
            "not converged: kept"
        );
        assert!(settled.settle(1, &widget("c", "True")));
        assert_eq!(settled.count(), 2);
        settled.forget(1);
        let rows: Vec<String> = settled
            .rows()
            .iter()
            .map(|i| i.object.name.clone())
            .collect();
        assert_eq!(rows, ["a"]);
    }
}
