//! The snapshot: every object and event a command needs, read once by a
//! source (the live cluster or files) and then only read.

use std::collections::HashMap;
use std::sync::OnceLock;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{Event, Object};

/// Something the source could not read, so an answer may be partial.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Incomplete {
    /// The resource type, e.g. `secrets` or `widgets.example.com`.
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Short cause: `forbidden`, `unavailable`, `timeout`, ...
    pub error: String,
}

/// What the server said of a kind when a capture was made: its names,
/// scope and whether it has a status subresource, so that a replay
/// resolves `ep/web` and judges roots as the live answer did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindFacts {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    #[serde(default)]
    pub singular: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    pub namespaced: bool,
    pub has_status: bool,
}

/// The key of an object's identity: group, kind, namespace and name.
fn identity(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> String {
    format!("{group}\0{kind}\0{}\0{name}", namespace.unwrap_or(""))
}

/// Whether two copies name the same object.
fn same_identity(a: &Object, b: &Object) -> bool {
    a.group() == b.group()
        && a.kind() == b.kind()
        && a.namespace() == b.namespace()
        && a.name() == b.name()
}

/// Objects indexed by uid and by identity, plus events and gaps.
#[derive(Debug, Clone)]
pub struct Snapshot {
    objects: Vec<Object>,
    by_uid: HashMap<String, usize>,
    /// By [`identity`]: the first object of each.
    by_identity: HashMap<String, usize>,
    /// The objects each controller owns, by the controller's uid: made on
    /// first use, once.
    by_controller: OnceLock<HashMap<String, Vec<usize>>>,
    pub events: Vec<Event>,
    pub incomplete: Vec<Incomplete>,
    /// Objects the source looked for and found gone (dangling owners).
    pub absent: Vec<super::ObjectRef>,
    /// The instant every age is measured from.
    pub now: Timestamp,
    /// The kinds a capture recorded as the server served them (empty for
    /// other snapshots and live answers).
    pub kinds: Vec<KindFacts>,
}

impl Snapshot {
    /// Builds a snapshot. An object seen twice (same uid, or same identity
    /// where there is no uid) keeps its fullest copy. Two different objects
    /// that share a uid (copied manifests) are both kept: the later one is
    /// known by a uid derived from its identity.
    pub fn new(
        objects: Vec<Object>,
        events: Vec<Event>,
        mut incomplete: Vec<Incomplete>,
        now: Timestamp,
    ) -> Snapshot {
        let mut snap = Snapshot {
            objects: Vec::new(),
            by_uid: HashMap::new(),
            by_identity: HashMap::new(),
            by_controller: OnceLock::new(),
            events,
            incomplete: Vec::new(),
            absent: Vec::new(),
            now,
            kinds: Vec::new(),
        };
        for obj in objects {
            snap.insert(obj);
        }
        incomplete.sort();
        incomplete.dedup();
        snap.incomplete = incomplete;
        snap
    }

    fn insert(&mut self, mut obj: Object) {
        if let Some(&i) = self.by_uid.get(&obj.uid)
            && !same_identity(&self.objects[i], &obj)
        {
            obj.uid = format!(
                "{}#{}",
                obj.uid,
                super::object::synthetic_uid(obj.group(), obj.kind(), obj.namespace(), obj.name())
            );
        }
        let key = obj.uid.clone();
        match self.by_uid.get(&key) {
            Some(&i) if !obj.metadata_only || self.objects[i].metadata_only => {
                self.objects[i] = obj
            }
            Some(_) => {}
            None => {
                self.by_uid.insert(key, self.objects.len());
                self.by_identity
                    .entry(identity(
                        obj.group(),
                        obj.kind(),
                        obj.namespace(),
                        obj.name(),
                    ))
                    .or_insert(self.objects.len());
                self.objects.push(obj);
            }
        }
    }

    /// Adds objects read after the snapshot was built (a CRD the verdict
    /// reads), as [`Snapshot::new`] keeps them.
    pub fn add_objects(&mut self, objects: Vec<Object>) {
        for obj in objects {
            self.insert(obj);
        }
        self.by_controller = OnceLock::new();
    }

    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// The objects, by value (to build another snapshot from this one).
    pub fn into_objects(self) -> Vec<Object> {
        self.objects
    }

    /// The objects whose controller is the object with this uid, in the
    /// order they were read.
    pub fn controlled(&self, owner: &str) -> impl Iterator<Item = &Object> {
        let index = self.by_controller.get_or_init(|| {
            let mut index: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, o) in self.objects.iter().enumerate() {
                if let Some(c) = o.controller() {
                    index.entry(c.uid.clone()).or_default().push(i);
                }
            }
            index
        });
        index
            .get(owner)
            .into_iter()
            .flatten()
            .map(|&i| &self.objects[i])
    }

    pub fn get(&self, uid: &str) -> Option<&Object> {
        self.by_uid.get(uid).map(|&i| &self.objects[i])
    }

    /// The name of an object of the same kind and namespace as `missing`
    /// that is closest to its name, within a small edit distance (2, or 3
    /// for names of 12 characters or more): a typo's likely meaning.
    pub fn close_name(&self, missing: &super::ObjectRef) -> Option<&str> {
        let limit = close_limit(&missing.name);
        self.objects
            .iter()
            .filter(|o| {
                o.kind() == missing.kind
                    && o.group() == missing.group()
                    && o.namespace() == missing.namespace.as_deref()
                    && o.name() != missing.name
            })
            .filter_map(|o| {
                Some((
                    super::edits::within(&missing.name, o.name(), limit)?,
                    o.name(),
                ))
            })
            .min()
            .map(|(_, name)| name)
    }

    /// Whether `other` is close enough to `wanted` to be offered for it
    /// (see [`Snapshot::close_name`]).
    pub fn is_close_name(wanted: &str, other: &str) -> bool {
        Snapshot::close_distance(wanted, other).is_some()
    }

    /// How far `other` is from `wanted`, when close enough to be offered
    /// for it.
    pub fn close_distance(wanted: &str, other: &str) -> Option<usize> {
        super::edits::within(wanted, other, close_limit(wanted))
    }

    /// The identity of the object with this uid; for a uid the snapshot
    /// does not hold (a target of another read), one that says only the
    /// uid, so that callers report it instead of failing.
    pub fn id_of(&self, uid: &str) -> super::ObjectRef {
        match self.get(uid) {
            Some(obj) => obj.id.clone(),
            None => super::ObjectRef {
                api_version: String::new(),
                kind: "Object".into(),
                namespace: None,
                name: uid.to_string(),
                uid: Some(uid.to_string()),
            },
        }
    }

    /// Finds an object by group, kind, namespace and name.
    pub fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object> {
        self.by_identity
            .get(&identity(group, kind, namespace, name))
            .map(|&i| &self.objects[i])
    }

    /// Events about the object with this uid.
    pub fn events_for<'a>(&'a self, uid: &'a str) -> impl Iterator<Item = &'a Event> + 'a {
        self.events.iter().filter(move |e| e.regarding_uid == uid)
    }
}

/// How far a name may be from one asked for to be offered for it: 2 edits,
/// or 3 for names of 12 characters or more.
fn close_limit(name: &str) -> usize {
    if name.chars().count() >= 12 { 3 } else { 2 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(name: &str, uid: Option<&str>) -> Object {
        let mut meta = json!({"name": name, "namespace": "shop"});
        if let Some(uid) = uid {
            meta["uid"] = json!(uid);
        }
        Object::from_value(json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta})).unwrap()
    }

    #[test]
    fn objects_without_uids_are_found_by_their_synthetic_one() {
        let snap = Snapshot::new(
            vec![obj("a", None), obj("b", None), obj("a", None)],
            Vec::new(),
            Vec::new(),
            Timestamp::UNIX_EPOCH,
        );
        assert_eq!(snap.objects().len(), 2);
        let a = &snap.objects()[0];
        assert_eq!(snap.get(&a.uid).unwrap().name(), "a");
    }

    #[test]
    fn a_shared_uid_does_not_drop_an_object() {
        let snap = Snapshot::new(
            vec![
                obj("a", Some("u-1")),
                obj("b", Some("u-1")),
                obj("a", Some("u-1")),
            ],
            Vec::new(),
            Vec::new(),
            Timestamp::UNIX_EPOCH,
        );
        let names: Vec<&str> = snap.objects().iter().map(|o| o.name()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(snap.get("u-1").unwrap().name(), "a");
        let b = &snap.objects()[1];
        assert_eq!(snap.get(&b.uid).unwrap().name(), "b");
    }
}
