//! One object and its verdict: the row every report and renderer shares.

use crate::verdict::Judged;
use jiff::Timestamp;
use serde::Serialize;

use super::{Judgement, Ready, Verdict, judge};
use crate::model::{Object, ObjectRef};

/// One object and its verdict.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub object: ObjectRef,
    pub verdict: Verdict,
    pub reason: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<Ready>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<Timestamp>,
}

impl Item {
    pub fn of(obj: &Object, snap: &Judged<'_>) -> Item {
        Item::with(obj, judge(obj, snap))
    }

    /// An item from a judgement already made.
    pub fn with(obj: &Object, j: Judgement) -> Item {
        Item {
            object: obj.id.clone(),
            verdict: j.verdict,
            reason: j.reason,
            message: j.message,
            since: j.since,
            ready: j.ready,
            generation: obj.generation,
            observed_generation: obj.observed_generation(),
            created: obj.created,
        }
    }

    /// A target that does not exist.
    pub fn missing(id: &ObjectRef) -> Item {
        let place = id
            .namespace
            .as_deref()
            .map(|ns| format!(" in namespace \"{ns}\""))
            .unwrap_or_default();
        Item {
            object: id.clone(),
            verdict: Verdict::NotFound,
            reason: "NotFound".into(),
            message: format!("{} \"{}\" not found{place}", id.kind, id.name),
            since: None,
            ready: None,
            generation: None,
            observed_generation: None,
            created: None,
        }
    }
}
