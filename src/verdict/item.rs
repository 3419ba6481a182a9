//! One object and its verdict: the row every report and renderer shares.

use crate::verdict::Judged;
use jiff::Timestamp;
use serde::Serialize;

use super::reason::Lifecycle;
use super::{Judgement, Verdict, judge};
use crate::model::{Object, ObjectRef};

/// One object and its verdict.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub object: ObjectRef,
    /// The verdict, reason, message, since and ready counts, written
    /// inline in the documents.
    #[serde(flatten)]
    pub judgement: Judgement,
    /// What the object says of itself, where the tree below it says more
    /// (a current child that has failed for good): `judgement` is then the
    /// tree's verdict. See `verdict::tree`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own: Option<Judgement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<Timestamp>,
    /// The controlling owner, `Kind/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    /// A pod's node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl Item {
    /// The object with its own verdict: a node of a tree, a link of a
    /// chain.
    pub fn of(obj: &Object, snap: &Judged<'_>) -> Item {
        Item::with(obj, judge(obj, snap))
    }

    /// A target (or a sweep's root) with its tree's verdict, and its own
    /// where they differ (see `verdict::tree`): what `status`, `wait`,
    /// `why` and a tree's root line say and exit by.
    pub fn target(obj: &Object, snap: &Judged<'_>) -> Item {
        Item::judged(obj, judge(obj, snap), snap)
    }

    /// [`Item::target`], from the object's own judgement already made.
    pub fn judged(obj: &Object, own: Judgement, snap: &Judged<'_>) -> Item {
        match super::tree::of(obj, &own, snap) {
            Some(tree) => Item {
                own: Some(own),
                ..Item::with(obj, tree)
            },
            None => Item::with(obj, own),
        }
    }

    /// An item from a judgement already made.
    pub fn with(obj: &Object, judgement: Judgement) -> Item {
        Item {
            object: obj.id.clone(),
            judgement,
            own: None,
            generation: obj.generation,
            observed_generation: obj.observed_generation(),
            created: obj.created,
            controller: obj.controller().map(|c| format!("{}/{}", c.kind, c.name)),
            node: obj
                .str("/spec/nodeName")
                .filter(|_| obj.kind() == "Pod")
                .map(str::to_string),
        }
    }

    /// A target that does not exist.
    pub fn missing(id: &ObjectRef) -> Item {
        Item::missing_near(id, None)
    }

    /// [`Item::missing`], offering `close`, a name of the same kind and
    /// namespace the user may have meant.
    pub fn missing_near(id: &ObjectRef, close: Option<&str>) -> Item {
        let mut place = id
            .namespace
            .as_deref()
            .map(|ns| format!(" in namespace \"{ns}\""))
            .unwrap_or_default();
        if let Some(close) = close {
            place.push_str(&format!("; did you mean {close}?"));
        }
        Item {
            object: id.clone(),
            judgement: Judgement::new(
                Verdict::NotFound,
                Lifecycle::NotFound,
                format!("{} \"{}\" not found{place}", id.kind, id.name),
            ),
            own: None,
            generation: None,
            observed_generation: None,
            created: None,
            controller: None,
            node: None,
        }
    }
}
