//! Reads what an answer needs through any [`Reader`]: owner trees (known
//! edges by server-side selectors, else metadata-only lists matched by
//! owner uid), the chains of owners above, what verdicts need besides the
//! objects, namespace sweeps and events. It records every read for
//! `--watch` and `wait`, and every gap, into one [`SnapshotBuilder`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use futures::{StreamExt, stream};
use serde_json::Value;

use super::builder::{Gaps, Keep, SnapshotBuilder, to_object};
use super::plan::{self, Edges, Sweep};
use super::read::ApiError;
use super::read::{PAGE, Page, Read, Reader};
use crate::catalog::{Catalog, ResourceType};
use crate::model::{Event, Incomplete, Object, ObjectRef};

mod events;
mod related;
mod sweep;
mod trees;

pub use events::first_event_pages;
pub use related::conversion_webhook;
#[cfg(test)]
use sweep::MAX_OWNED;
pub use sweep::{Owned, Swept};

/// The caller's side of a sweep that keeps only what is left to report,
/// and of the watches that keep such a sweep current (`--watch`).
pub trait Settle: Sync + Send {
    /// Whether the caller has what it needs of root `obj` of list `list`
    /// (its row): the object is then not kept. A list started over, or a
    /// watched change, gives a root again.
    fn settle(&self, list: &Read, obj: &Object) -> bool;
    /// List `list` did not answer whole: nothing settled of it counts.
    fn forget(&self, list: &Read);
    /// List `list` was read again, its roots settled as its pages came:
    /// the rows of it that `settled` (namespace, name) does not name were
    /// not settled again (gone, or kept whole now) and no longer hold.
    fn forget_except(&self, list: &Read, settled: &dyn Fn(Option<&str>, &str) -> bool);
    /// Root `obj` is kept whole now, or is gone: a row made of it before
    /// no longer holds.
    fn unsettle(&self, obj: &Object);
    /// The rows as they are now are the ones the next frame shows (a
    /// watch's cache calls it as it makes a snapshot, so that the two
    /// agree).
    fn hold(&self) {}
    /// Whether `obj`, an object with a controller (no root), is in trouble
    /// on its own (Failed or under way): kept, so that its root's tree
    /// verdict reads it (a ClusterExternalSecret over a failing
    /// ExternalSecret).
    fn troubled(&self, _obj: &Object) -> bool {
        false
    }
}

/// What a settling list does with one of its objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Kept whole: not settled, or needed by a read in depth.
    Kept,
    /// Settled: its row stands for it.
    Settled,
    /// Not a root, and not needed.
    Dropped,
}

/// The fate of `obj`, an object of `list`, a sweep's full list of roots
/// that `settle` answers for. `owned`: objects with an owner are kept
/// (`why` searches them for children) and never settled.
pub fn fate(obj: &Object, list: &Read, settle: &dyn Settle, owned: bool) -> Fate {
    if obj.controller().is_some() {
        return if owned || (!obj.metadata_only && settle.troubled(obj)) {
            Fate::Kept
        } else {
            Fate::Dropped
        };
    }
    // A root: settled, unless it has an owner that a search in depth
    // may need.
    if owned && !obj.owners.is_empty() || !settle.settle(list, obj) {
        return Fate::Kept;
    }
    Fate::Settled
}

/// How many requests run at once: streams on one HTTP/2 connection
/// (kube-apiserver allows 100 per connection by default), with room left
/// for the watches that share it.
pub const CONCURRENCY: usize = 32;

/// How far above a target the chain of owners is followed. Beyond it the
/// walk stops and says so: a chain that long is built on purpose.
pub const OWNER_DEPTH: usize = 256;

/// What was read, what could not be, and what to watch.
pub struct Crawled {
    pub builder: SnapshotBuilder,
    /// Every read that answered (or found nothing), to keep current.
    pub watched: Vec<Watch>,
    /// Errors that make any answer wrong (credentials, connection).
    pub fatal: Option<ApiError>,
    /// How many reads were tried and how many failed: a sweep that read
    /// nothing cannot answer.
    pub tried: usize,
    pub failed: usize,
    pub gaps: Gaps,
    /// Namespaces whose events were all read, and objects whose events
    /// were read one by one.
    pub events_read: EventsRead,
    /// Whether the answer leaned on which types the server serves: it went
    /// through every type, met a kind the catalog does not know, or read a
    /// type the server no longer serves. A catalog that was not revalidated
    /// this run is then revalidated, and the question asked again if it
    /// changed.
    pub leaned_on_types: bool,
    /// What the sweep listed (see [`Swept`]).
    pub swept: Swept,
    /// The first read the server refused for want of rights, and its
    /// words (which name the user): what a user must ask rights for.
    pub first_refusal: Option<(Read, String)>,
}

/// A read `--watch` and `wait` keep current, and where its watch starts.
#[derive(Debug, Clone)]
pub struct Watch {
    pub read: Read,
    /// What this answer read of it, where that is what a list of `read`
    /// would hold: the watch starts from there instead of listing again.
    /// Only kept for an answer that stays live ([`Crawl::seed_watches`]).
    pub from: Option<Seed>,
    /// A sweep's full list of roots whose converged roots the answer
    /// settles (see [`Crawl::settle_roots`]): the watch settles them too,
    /// as they change. `Some(owned)`: see [`fate`].
    pub settles: Option<bool>,
}

/// The state a watch starts from: the version its objects were read at,
/// and the objects (or events) a list would have given.
#[derive(Debug, Clone, Default)]
pub struct Seed {
    pub resource_version: String,
    pub objects: Vec<Object>,
    pub events: Vec<Event>,
}

impl Seed {
    fn objects(resource_version: String, objects: Vec<Object>) -> Option<Seed> {
        Some(Seed {
            resource_version,
            objects,
            events: Vec::new(),
        })
        .filter(|s| !s.resource_version.is_empty())
    }

    fn events(resource_version: String, events: Vec<Event>) -> Option<Seed> {
        Some(Seed {
            resource_version,
            objects: Vec::new(),
            events,
        })
        .filter(|s| !s.resource_version.is_empty())
    }

    /// A get's object: a list by its name holds it alone, at its version.
    fn object(obj: &Object) -> Option<Seed> {
        let rv = obj.at("/metadata/resourceVersion")?.as_str()?.to_string();
        Seed::objects(rv, vec![obj.clone()])
    }
}

/// Whose events are already in hand.
#[derive(Debug, Clone, Default)]
pub struct EventsRead {
    pub namespaces: BTreeSet<String>,
    pub uids: HashSet<String>,
    /// Namespaces with more events than a page, read by uid so far.
    pub busy: BTreeSet<String>,
}

/// What an earlier read of the same question has: whose events, and what
/// the sweep listed.
#[derive(Debug, Clone, Default)]
pub struct Earlier {
    pub events: EventsRead,
    pub swept: Swept,
}

/// What a GET found.
enum Got {
    /// The object (None: the answer was not an object).
    Found(Option<Box<Object>>),
    Missing,
    /// A gap, already recorded.
    Failed,
}

/// One crawl: a reader, the catalog, and what has been found so far.
pub struct Crawl<'a, R: Reader> {
    reader: &'a R,
    catalog: &'a Catalog,
    objects: Vec<Object>,
    events: Vec<Event>,
    gaps: Gaps,
    watched: Vec<Watch>,
    /// Whether watches keep what this answer read (see [`Watch::from`]).
    seeding: bool,
    /// Roots the answer settles as they arrive (see [`Crawl::settle_roots`]).
    settle: Option<&'a dyn Settle>,
    fatal: Option<ApiError>,
    tried: usize,
    failed: usize,
    events_read: EventsRead,
    /// Objects whose events are not read, by uid: related ones that are
    /// plainly well (see [`plan::plainly_well_elsewhere`]), and the names
    /// near a missing target's ([`Crawl::add_near`]).
    quiet: HashSet<String>,
    /// Whose events are read: every object's (`why`'s timeline), or only
    /// those of objects that are not visibly healthy (`tree`, `status`).
    events_of: EventsOf,
    /// See [`Crawled::leaned_on_types`].
    leaned_on_types: bool,
    /// What this crawl's sweep listed, or an earlier one's.
    swept: Swept,
    /// The types whose reads failed in a conversion webhook, as the
    /// server said: [`Crawl::explain_conversion_gaps`] names the webhook.
    conversion_failed: Vec<String>,
    first_refusal: Option<(Read, String)>,
}

/// Whose events an answer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsOf {
    Every,
    /// Only objects [`plan::wants_events`] picks: what verdicts cite.
    Unhealthy,
}

impl<'a, R: Reader> Crawl<'a, R> {
    pub fn new(reader: &'a R, catalog: &'a Catalog) -> Crawl<'a, R> {
        Crawl {
            reader,
            catalog,
            objects: Vec::new(),
            events: Vec::new(),
            gaps: Gaps::default(),
            watched: Vec::new(),
            seeding: false,
            settle: None,
            fatal: None,
            tried: 0,
            failed: 0,
            events_read: EventsRead::default(),
            quiet: HashSet::new(),
            events_of: EventsOf::Every,
            leaned_on_types: false,
            swept: Swept::default(),
            conversion_failed: Vec::new(),
            first_refusal: None,
        }
    }

    /// What an earlier sweep of the same question listed; `keep_owned`:
    /// this crawl's sweep keeps what its lists held with an owner, for a
    /// second read in depth (`why`). Otherwise only which lists answered.
    pub fn swept_already(&mut self, swept: Swept, keep_owned: bool) {
        self.swept = swept;
        self.swept.keep_owned = keep_owned;
    }

    /// The type of a kind, noting a kind the catalog does not know.
    fn type_of(&mut self, group: &str, kind: &str) -> Option<&'a ResourceType> {
        let found = self.catalog.by_kind(group, kind);
        self.leaned_on_types |= found.is_none();
        found
    }

    /// A sweep's roots that `settle` answers for as their lists arrive
    /// (it returns true: it made their row already, and they are judged
    /// alone) are not kept. Memory then follows the rows still to make.
    pub fn settle_roots(&mut self, settle: &'a dyn Settle) {
        self.settle = Some(settle);
    }

    /// The answer stays live (`--watch`, `wait`): each watch keeps what
    /// its read found, and starts from it instead of listing again.
    pub fn seed_watches(&mut self, yes: bool) {
        self.seeding = yes;
    }

    /// Whose events are read (every object's by default).
    pub fn events_of(&mut self, which: EventsOf) {
        self.events_of = which;
    }

    /// Events already read by an earlier crawl of the same question.
    pub fn events_already(&mut self, read: EventsRead) {
        self.events_read = read;
    }

    /// Adds objects found elsewhere (the targets) to the answer.
    pub fn add(&mut self, objects: impl IntoIterator<Item = Object>) {
        self.objects.extend(objects);
    }

    /// Adds objects whose names a missing target's may be a misspelling
    /// of: they are in the answer for "did you mean", and their events say
    /// nothing of it (the missing target's namespace keeps its newest page).
    pub fn add_near(&mut self, objects: impl IntoIterator<Item = Object>) {
        for obj in objects {
            self.quiet.insert(obj.uid.clone());
            self.objects.push(obj);
        }
    }

    /// One object by name (`read` is a get). A missing object is watched
    /// too, so that `wait` sees it appear.
    pub async fn get(&mut self, read: Read) -> Result<Option<Object>, ApiError> {
        self.tried += 1;
        match self.reader.get(&read).await {
            Ok(value) => {
                let obj = value.and_then(|v| self.convert(v, &read));
                self.watch_from(read.as_list(), || obj.as_ref().and_then(Seed::object));
                Ok(obj)
            }
            Err(e) => {
                self.failed += 1;
                self.leaned_on_types |= e == ApiError::NotFound;
                Err(e)
            }
        }
    }

    /// One list; its objects are returned, not added.
    pub async fn list(&mut self, read: Read) -> Result<Vec<Object>, ApiError> {
        self.tried += 1;
        match self.reader.list(&read).await {
            Ok(listing) => {
                let objects = self.convert_all(listing.items, &read);
                self.watch_from(read, || {
                    Seed::objects(listing.resource_version, objects.clone())
                });
                Ok(objects)
            }
            Err(e) => {
                self.failed += 1;
                self.leaned_on_types |= e == ApiError::NotFound;
                Err(e)
            }
        }
    }

    /// Lists concurrently; a failure is a gap (or fatal) and left out of
    /// the answer. Returns each list that answered.
    async fn lists(&mut self, reads: Vec<Read>) -> Vec<(Read, super::read::Listing)> {
        let reader = self.reader;
        let results: Vec<(Read, Result<super::read::Listing, ApiError>)> = stream::iter(reads)
            .map(|read| async move {
                let result = reader.list(&read).await;
                (read, result)
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        let mut out = Vec::new();
        for (read, result) in results {
            self.tried += 1;
            match result {
                Ok(listing) => out.push((read, listing)),
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
        }
        out
    }

    /// GETs concurrently, in order; a failure is a gap (or fatal). Every
    /// read that answered, found or not, is watched.
    async fn gets(&mut self, reads: Vec<Read>) -> Vec<(Read, Got)> {
        let reader = self.reader;
        let results: Vec<(Read, Result<Option<Value>, ApiError>)> = stream::iter(reads)
            .map(|read| async move {
                let result = reader.get(&read).await;
                (read, result)
            })
            .buffered(CONCURRENCY)
            .collect()
            .await;
        let mut out = Vec::new();
        for (read, result) in results {
            self.tried += 1;
            let got = match result {
                Ok(Some(value)) => Got::Found(self.convert(value, &read).map(Box::new)),
                Ok(None) => Got::Missing,
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                    Got::Failed
                }
            };
            match &got {
                Got::Found(obj) => {
                    self.watch_from(read.as_list(), || obj.as_deref().and_then(Seed::object))
                }
                Got::Missing => self.watch(read.as_list()),
                Got::Failed => {}
            }
            out.push((read, got));
        }
        out
    }

    /// Lists concurrently as [`Crawl::lists`], as objects (see
    /// [`Crawl::take_list`]).
    async fn run(&mut self, reads: Vec<Read>) -> Vec<(Read, Vec<Object>)> {
        let mut out = Vec::new();
        for (read, listing) in self.lists(reads).await {
            let (_, objects) = self.take_list(&read, listing);
            out.push((read, objects));
        }
        out
    }

    /// A list that answered, as objects; the lists of full objects (and of
    /// Secrets and ConfigMaps) are watched. Returns its version too.
    fn take_list(&mut self, read: &Read, listing: super::read::Listing) -> (String, Vec<Object>) {
        let objects = self.convert_all(listing.items, read);
        if !read.is_metadata_only() || super::read::is_data_type(&read.rt) {
            let rv = listing.resource_version.clone();
            self.watch_from(read.clone(), || Seed::objects(rv, objects.clone()));
        }
        (listing.resource_version, objects)
    }

    fn convert(&self, value: Value, read: &Read) -> Option<Object> {
        let keep = if read.wants_managed_fields() {
            Keep::All
        } else {
            Keep::NoManagedFields
        };
        to_object(value, &read.rt, read.is_metadata_only(), keep)
    }

    fn convert_all(&self, items: Vec<Value>, read: &Read) -> Vec<Object> {
        items
            .into_iter()
            .filter_map(|v| self.convert(v, read))
            .collect()
    }

    /// Keeps `read` current from a list of its own.
    fn watch(&mut self, read: Read) {
        self.watch_from(read, || None);
    }

    /// Keeps `read` current from what this answer read of it (`seed`, made
    /// only for an answer that stays live), else from a list of its own.
    fn watch_from(&mut self, read: Read, seed: impl FnOnce() -> Option<Seed>) {
        if self.watching(&read) {
            return;
        }
        let from = if self.seeding { seed() } else { None };
        self.watched.push(Watch {
            read,
            from,
            settles: None,
        });
    }

    /// The watch of `read`, a list whose roots this answer settled,
    /// settles them too (`owned`: see [`fate`]).
    fn settles_when_watched(&mut self, read: &Read, owned: bool) {
        if let Some(w) = self.watched.iter_mut().find(|w| w.read == *read) {
            w.settles = Some(owned);
        }
    }

    fn watching(&self, read: &Read) -> bool {
        self.watched.iter().any(|w| w.read == *read)
    }

    /// A read that failed: a gap in the answer, or the end of it.
    pub fn fail(&mut self, read: &Read, err: ApiError) {
        self.leaned_on_types |= err == ApiError::NotFound;
        match err {
            ApiError::Unauthorized(_)
            | ApiError::Unreachable(_)
            | ApiError::Tls(_)
            | ApiError::Credential(_) => {
                self.fatal.get_or_insert(err);
            }
            other => {
                if let ApiError::Forbidden(message) = &other
                    && self.first_refusal.is_none()
                {
                    self.first_refusal = Some((read.clone(), message.clone()));
                }
                if is_conversion_failure(&other) {
                    self.conversion_failed.push(read.rt.full_name());
                }
                self.gaps.incomplete.push(Incomplete {
                    resource: read.rt.full_name(),
                    namespace: read.namespace.clone(),
                    error: other.short(),
                })
            }
        }
    }

    /// A gap that is not a failed request (a type not served, a walk cut).
    pub fn gap(&mut self, gap: Incomplete) {
        self.gaps.incomplete.push(gap);
    }

    pub fn finish(self) -> Crawled {
        let mut builder = SnapshotBuilder::new();
        builder.objects(self.objects);
        builder.events(self.events);
        builder.gaps(&self.gaps);
        Crawled {
            builder,
            watched: self.watched,
            fatal: self.fatal,
            tried: self.tried,
            failed: self.failed,
            gaps: self.gaps,
            events_read: self.events_read,
            leaned_on_types: self.leaned_on_types,
            swept: self.swept,
            first_refusal: self.first_refusal,
        }
    }
}

/// What the API server's `Status` message says when a conversion webhook
/// failed: its own words, and no field says it.
pub const CONVERSION_FAILED: &str = "conversion webhook";

/// The API server's answer says a conversion webhook failed.
fn is_conversion_failure(err: &ApiError) -> bool {
    matches!(err, ApiError::Other(_, message) if message.contains(CONVERSION_FAILED))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_keeps_owned_objects_only_up_to_its_bound() {
        let rt = crate::source::tests::catalog()
            .by_kind("", "Pod")
            .unwrap()
            .clone();
        let read = Read::list(&rt, Some("shop")).metadata_only();
        let pod = |i: usize| {
            Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("p{i}"), "namespace": "shop", "uid": format!("u{i}"),
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "rs", "controller": true}]}}))
            .unwrap()
        };
        let mut swept = Swept {
            keep_owned: true,
            ..Swept::default()
        };
        swept.record(&read, &[pod(0), pod(1)], Vec::new(), false);
        assert!(swept.covers(&read));
        assert_eq!(swept.owned.len(), 2);
        // One list past the bound is not counted as read: listed again.
        let many: Vec<Object> = (0..MAX_OWNED).map(pod).collect();
        let other = Read::list(&rt, Some("other")).metadata_only();
        swept.record(&other, &many, Vec::new(), false);
        assert!(!swept.covers(&other));
        assert_eq!(swept.owned.len(), 2);
    }

    #[test]
    fn an_owned_object_is_kept_cut_to_what_a_metadata_list_holds() {
        let cat = crate::source::tests::catalog();
        let read = Read::list(cat.by_kind("", "Pod").unwrap(), Some("shop")).metadata_only();
        // As the sweep's metadata-only list gave it (labels, annotations
        // and managedFields included).
        let pod = Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-7d4b9c-x2x9k", "namespace": "shop", "uid": "9f0c",
                "creationTimestamp": "2026-12-02T10:00:00Z", "resourceVersion": "812",
                "labels": {"app": "web", "pod-template-hash": "7d4b9c"},
                "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-12-02T09:59:00Z"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-7d4b9c", "uid": "rs-1", "controller": true, "blockOwnerDeletion": true}]}}))
        .unwrap();
        let mut swept = Swept {
            keep_owned: true,
            ..Swept::default()
        };
        swept.record(&read, std::slice::from_ref(&pod), Vec::new(), false);
        let kept = &swept.owned[0];
        assert_eq!((kept.uid(), kept.owners()), ("9f0c", vec!["rs-1"]));
        assert!(kept.listed_by(&read));
        assert!(!kept.listed_by(&Read::list(cat.by_kind("", "Pod").unwrap(), Some("other"))));
        assert!(!kept.listed_by(&Read::list(
            cat.by_kind("apps", "ReplicaSet").unwrap(),
            None
        )));
        let back = kept.object().unwrap();
        assert!(back.metadata_only);
        assert_eq!(
            (back.id.clone(), back.uid.as_str()),
            (pod.id.clone(), "9f0c")
        );
        assert_eq!((&back.owners, back.created), (&pod.owners, pod.created));
        assert_eq!(
            back.raw["metadata"],
            serde_json::json!({"name": "web-7d4b9c-x2x9k", "namespace": "shop", "uid": "9f0c",
                "creationTimestamp": "2026-12-02T10:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-7d4b9c", "uid": "rs-1", "controller": true, "blockOwnerDeletion": true}]})
        );
        // A context list's objects are the answer's own: kept as they are.
        swept.record(&read, std::slice::from_ref(&pod), Vec::new(), true);
        assert_eq!(swept.owned[1].object().unwrap().raw, pod.raw);
    }
}
