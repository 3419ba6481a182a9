//! The snapshot: every object and event a command needs, read once by a
//! source (the live cluster or files) and then only read.

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;
use serde::Serialize;

use super::{Event, Object};
use crate::rules::RuleSet;

/// Something the source could not read, so an answer may be partial.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Incomplete {
    /// The resource type, e.g. `secrets` or `widgets.example.com`.
    pub resource: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Short cause: `forbidden`, `unavailable`, `timeout`, ...
    pub error: String,
}

/// Objects indexed by uid and by identity, plus events and gaps.
#[derive(Debug, Clone)]
pub struct Snapshot {
    objects: Vec<Object>,
    by_uid: HashMap<String, usize>,
    pub events: Vec<Event>,
    pub incomplete: Vec<Incomplete>,
    /// Objects the source looked for and found gone (dangling owners).
    pub absent: Vec<super::ObjectRef>,
    /// The instant every age is measured from.
    pub now: Timestamp,
    /// The health rules objects are judged by: the built-in pack unless a
    /// command sets the user's (`set_rules`).
    rules: Arc<RuleSet>,
}

impl Snapshot {
    /// Builds a snapshot. An object seen twice (same uid, or same identity
    /// where there is no uid) keeps its fullest copy.
    pub fn new(
        objects: Vec<Object>,
        events: Vec<Event>,
        mut incomplete: Vec<Incomplete>,
        now: Timestamp,
    ) -> Snapshot {
        let mut snap = Snapshot {
            objects: Vec::new(),
            by_uid: HashMap::new(),
            events,
            incomplete: Vec::new(),
            absent: Vec::new(),
            now,
            rules: RuleSet::builtin(),
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
        let key = Self::key(&obj);
        // A snapshot file's object may lack a uid: its identity stands in,
        // so that `get(&obj.uid)` finds every object (found by fuzzing).
        if obj.uid.is_empty() {
            obj.uid = key.clone();
        }
        match self.by_uid.get(&key) {
            Some(&i) if !obj.metadata_only || self.objects[i].metadata_only => {
                self.objects[i] = obj
            }
            Some(_) => {}
            None => {
                self.by_uid.insert(key, self.objects.len());
                self.objects.push(obj);
            }
        }
    }

    fn key(obj: &Object) -> String {
        if obj.uid.is_empty() {
            format!(
                "{}/{}/{}/{}",
                obj.group(),
                obj.kind(),
                obj.namespace().unwrap_or(""),
                obj.name()
            )
        } else {
            obj.uid.clone()
        }
    }

    /// Judges this snapshot's objects by these health rules.
    pub fn set_rules(&mut self, rules: Arc<RuleSet>) {
        self.rules = rules;
    }

    /// The health rules in effect.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// The objects, by value (to build another snapshot from this one).
    pub fn into_objects(self) -> Vec<Object> {
        self.objects
    }

    pub fn get(&self, uid: &str) -> Option<&Object> {
        self.by_uid.get(uid).map(|&i| &self.objects[i])
    }

    /// Finds an object by group, kind, namespace and name.
    pub fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object> {
        self.objects.iter().find(|o| {
            o.kind() == kind && o.group() == group && o.name() == name && o.namespace() == namespace
        })
    }

    /// Events about the object with this uid.
    pub fn events_for<'a>(&'a self, uid: &'a str) -> impl Iterator<Item = &'a Event> + 'a {
        self.events.iter().filter(move |e| e.regarding_uid == uid)
    }
}
