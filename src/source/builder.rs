//! The one way what was read becomes a [`Snapshot`]: objects redacted and
//! deduplicated, events, the gaps (what could not be read) and the owners
//! found gone, and "now". Snapshot files, the crawl of a live cluster and
//! the watch cache all build through it, so none of them can lose a gap
//! or an absent owner that another keeps.

use jiff::Timestamp;
use serde_json::Value;

use crate::catalog::ResourceType;
use crate::model::{Event, Incomplete, Object, ObjectRef, Snapshot, dedupe_events};

/// What a read learned besides objects and events: the gaps and the
/// owners found gone. A live answer keeps them for every later snapshot
/// of the same question (`--watch`, `wait`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gaps {
    pub incomplete: Vec<Incomplete>,
    pub absent: Vec<ObjectRef>,
}

impl Gaps {
    pub fn extend(&mut self, other: Gaps) {
        self.incomplete.extend(other.incomplete);
        self.absent.extend(other.absent);
    }
}

/// Collects objects, events and gaps, then builds the snapshot.
#[derive(Default)]
pub struct SnapshotBuilder {
    objects: Vec<Object>,
    events: Vec<Event>,
    gaps: Gaps,
}

impl SnapshotBuilder {
    pub fn new() -> SnapshotBuilder {
        SnapshotBuilder::default()
    }

    pub fn objects(&mut self, objects: impl IntoIterator<Item = Object>) {
        self.objects.extend(objects);
    }

    pub fn events(&mut self, events: impl IntoIterator<Item = Event>) {
        self.events.extend(events);
    }

    pub fn gap(&mut self, gap: Incomplete) {
        self.gaps.incomplete.push(gap);
    }

    pub fn gaps(&mut self, gaps: &Gaps) {
        self.gaps.extend(gaps.clone());
    }

    /// The snapshot, judged at `now`. An object seen twice keeps its
    /// fullest copy; an event seen through both Event APIs counts once.
    pub fn build(self, now: Timestamp) -> Snapshot {
        let Gaps {
            incomplete,
            mut absent,
        } = self.gaps;
        let mut snapshot = Snapshot::new(self.objects, dedupe_events(self.events), incomplete, now);
        absent.sort();
        absent.dedup();
        snapshot.absent = absent;
        snapshot
    }
}

/// Removes what the tool must never hold: the payload of Secrets and
/// ConfigMaps, and the last-applied annotation that can carry a copy of
/// it. The one place this is done, for every source.
pub fn redact(v: &mut Value) {
    // By kind alone, whatever the group: dropping too much is harmless.
    let is_data = v
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(crate::model::is_data_kind);
    if !is_data {
        return;
    }
    if let Some(map) = v.as_object_mut() {
        for key in ["data", "stringData", "binaryData"] {
            map.remove(key);
        }
    }
    if let Some(annotations) = v
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    }
}

/// What of an object read live is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Everything the server sent.
    All,
    /// `metadata.managedFields` reduced to who wrote which part when (see
    /// `model::reduce_managed_fields`), and none on a metadata-only
    /// object: only `why` reads the field sets, which are often the
    /// largest part of an object.
    NoManagedFields,
}

/// An item of a list (which carries no apiVersion and kind of its own) or
/// a metadata-only answer, as an Object of its real type.
pub fn to_object(
    mut item: Value,
    rt: &ResourceType,
    metadata_only: bool,
    keep: Keep,
) -> Option<Object> {
    let map = item.as_object_mut()?;
    map.insert("apiVersion".into(), Value::String(rt.api_version()));
    map.insert("kind".into(), Value::String(rt.kind.clone()));
    redact(&mut item);
    if keep == Keep::NoManagedFields {
        if metadata_only {
            if let Some(meta) = item.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("managedFields");
            }
        } else {
            crate::model::reduce_managed_fields(&mut item);
        }
    }
    let mut obj = Object::from_value(item)?;
    obj.metadata_only = metadata_only;
    obj.status_subresource = Some(rt.has_status);
    Some(obj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_payloads_are_dropped_and_other_kinds_are_untouched() {
        let mut secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s",
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{}}", "keep": "me"}},
            "data": {"password": "c2VjcmV0"}, "stringData": {"a": "b"}});
        redact(&mut secret);
        assert_eq!(
            secret,
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "annotations": {"keep": "me"}}})
        );
        let mut widget =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "data": {"x": 1}});
        redact(&mut widget);
        assert_eq!(widget["data"], json!({"x": 1}));
    }

    #[test]
    fn absent_owners_and_gaps_survive_into_every_snapshot() {
        let gaps = Gaps {
            incomplete: vec![Incomplete {
                resource: "secrets".into(),
                namespace: Some("shop".into()),
                error: "forbidden".into(),
            }],
            absent: vec![ObjectRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: Some("shop".into()),
                name: "gone".into(),
                uid: Some("u1".into()),
            }],
        };
        let mut b = SnapshotBuilder::new();
        b.gaps(&gaps);
        b.gaps(&gaps);
        let snap = b.build(Timestamp::UNIX_EPOCH);
        assert_eq!(snap.incomplete, gaps.incomplete);
        assert_eq!(snap.absent, gaps.absent);
    }
}
