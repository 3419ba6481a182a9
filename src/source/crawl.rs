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
}

/// A read `--watch` and `wait` keep current, and where its watch starts.
#[derive(Debug, Clone)]
pub struct Watch {
    pub read: Read,
    /// What this answer read of it, where that is what a list of `read`
    /// would hold: the watch starts from there instead of listing again.
    /// Only kept for an answer that stays live ([`Crawl::seed_watches`]).
    pub from: Option<Seed>,
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
}

/// What a sweep listed: each type in each namespace it read whole, and
/// what those lists held that has an owner (the sweep keeps only roots),
/// as metadata with its owner references. A second read of the question
/// (`why` in depth) finds children there instead of listing again.
#[derive(Debug, Clone, Default)]
pub struct Swept {
    /// (group, kind, namespace) of every list that answered.
    pub lists: HashSet<(String, String, Option<String>)>,
    /// Owned objects of those lists: name, namespace, uid and owners only.
    pub owned: Vec<Object>,
    /// Whether `owned` is filled: only for `why`, which reads in depth
    /// next. A status sweep's memory stays with its roots.
    keep_owned: bool,
}

/// At most this many owned objects are kept for `why` in depth; past it
/// a list is not counted as read, and is listed again if it is needed.
/// Memory follows the answer: a few hundred bytes each.
pub const MAX_OWNED: usize = 50_000;

impl Swept {
    /// Counts a list as read, with what it held that has an owner. Only
    /// for a sweep that keeps them: a list counted as read without them
    /// would hide children from the search that trusts it.
    fn record(&mut self, read: &Read, objects: &[Object]) {
        if !self.keep_owned {
            return;
        }
        let owned: Vec<&Object> = objects.iter().filter(|o| !o.owners.is_empty()).collect();
        if self.owned.len() + owned.len() > MAX_OWNED {
            return;
        }
        self.lists.insert((
            read.rt.group.clone(),
            read.rt.kind.clone(),
            read.namespace.clone(),
        ));
        self.owned.extend(owned.into_iter().filter_map(owned_only));
    }

    fn covers(&self, read: &Read) -> bool {
        self.lists.contains(&(
            read.rt.group.clone(),
            read.rt.kind.clone(),
            read.namespace.clone(),
        ))
    }
}

/// An object as a metadata-only list would have it, its owner references
/// and identity only: what finding children needs, in a few hundred bytes.
fn owned_only(obj: &Object) -> Option<Object> {
    let meta = obj.at("/metadata")?;
    let mut keep = serde_json::Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "ownerReferences",
        "creationTimestamp",
    ] {
        if let Some(v) = meta.get(key) {
            keep.insert(key.to_string(), v.clone());
        }
    }
    let mut out = Object::from_value(serde_json::json!({
        "apiVersion": obj.id.api_version,
        "kind": obj.kind(),
        "metadata": Value::Object(keep),
    }))?;
    out.metadata_only = true;
    Some(out)
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
    fatal: Option<ApiError>,
    tried: usize,
    failed: usize,
    events_read: EventsRead,
    /// Whose events are read: every object's (`why`'s timeline), or only
    /// those of objects that are not visibly healthy (`tree`, `status`).
    events_of: EventsOf,
    /// See [`Crawled::leaned_on_types`].
    leaned_on_types: bool,
    /// What this crawl's sweep listed, or an earlier one's.
    swept: Swept,
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
            fatal: None,
            tried: 0,
            failed: 0,
            events_read: EventsRead::default(),
            events_of: EventsOf::Every,
            leaned_on_types: false,
            swept: Swept::default(),
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

    /// Lists concurrently as [`Crawl::lists`], as objects; the lists of
    /// full objects (and of Secrets and ConfigMaps) are watched.
    async fn run(&mut self, reads: Vec<Read>) -> Vec<(Read, Vec<Object>)> {
        Vec::from_iter(
            self.run_at(reads)
                .await
                .into_iter()
                .map(|(read, _, objects)| (read, objects)),
        )
    }

    /// [`Crawl::run`], with the version each list was read at.
    async fn run_at(&mut self, reads: Vec<Read>) -> Vec<(Read, String, Vec<Object>)> {
        let mut out = Vec::new();
        for (read, listing) in self.lists(reads).await {
            let objects = self.convert_all(listing.items, &read);
            if !read.is_metadata_only() || super::read::is_data_type(&read.rt) {
                let rv = listing.resource_version.clone();
                self.watch_from(read.clone(), || Seed::objects(rv, objects.clone()));
            }
            out.push((read, listing.resource_version, objects));
        }
        out
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
        self.watched.push(Watch { read, from });
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
            other => self.gaps.incomplete.push(Incomplete {
                resource: read.rt.full_name(),
                namespace: read.namespace.clone(),
                error: other.short(),
            }),
        }
    }

    /// A gap that is not a failed request (a type not served, a walk cut).
    pub fn gap(&mut self, gap: Incomplete) {
        self.gaps.incomplete.push(gap);
    }

    /// Finds the descendants of `roots`: known edges first; kinds with
    /// unknown edges search metadata-only lists of every type in scope.
    pub async fn trees(&mut self, roots: &[Object]) {
        let mut unknown: Vec<Object> = Vec::new();
        let mut frontier: Vec<Object> = roots.to_vec();
        let mut expanded: HashSet<String> = HashSet::new();
        while !frontier.is_empty() {
            let mut reads = Vec::new();
            let mut parents: Vec<(String, bool)> = Vec::new();
            for obj in std::mem::take(&mut frontier) {
                if !expanded.insert(obj.uid.clone()) {
                    continue;
                }
                match plan::edges(self.catalog, &obj) {
                    Edges::Leaf => {}
                    Edges::Unknown => unknown.push(obj),
                    Edges::Reads {
                        reads: r,
                        covers_grandchildren,
                    } => {
                        for read in r {
                            if !reads.contains(&read) {
                                reads.push(read);
                            }
                        }
                        parents.push((obj.uid.clone(), covers_grandchildren));
                    }
                }
            }
            let found: Vec<Object> = self
                .run(reads)
                .await
                .into_iter()
                .flat_map(|(_, objects)| objects)
                .collect();
            for (parent, covers) in parents {
                for child in found
                    .iter()
                    .filter(|o| o.owners.iter().any(|r| r.uid == parent))
                {
                    if covers {
                        expanded.insert(child.uid.clone());
                    } else {
                        frontier.push(child.clone());
                    }
                }
            }
            self.objects.extend(found);
        }
        if !unknown.is_empty() {
            self.fallback(&unknown).await;
        }
    }

    /// Children of kinds with unknown edges: metadata-only lists of every
    /// listable type where children can live, matched by owner uid, then
    /// the full objects of the nodes found.
    async fn fallback(&mut self, roots: &[Object]) {
        let cluster_wide = roots.iter().any(|o| o.namespace().is_none());
        let namespaces: BTreeSet<&str> = roots.iter().filter_map(|o| o.namespace()).collect();
        let namespaces: Vec<&str> = namespaces.into_iter().collect();
        let reads = plan::fallback(self.catalog, &namespaces, cluster_wide);
        self.leaned_on_types = true;
        // What a sweep listed already is not listed again: its owned
        // objects are here, and its roots are no one's children.
        let (known, reads): (Vec<Read>, Vec<Read>) =
            reads.into_iter().partition(|r| self.swept.covers(r));
        // Not watched: only what the tree holds is kept current (below).
        let mut meta: Vec<Object> = self
            .swept
            .owned
            .iter()
            .filter(|o| {
                known.iter().any(|r| {
                    r.rt.group == o.group()
                        && r.rt.kind == o.kind()
                        && r.namespace.as_deref() == o.namespace()
                })
            })
            .cloned()
            .collect();
        let mut data_reads: Vec<(Read, Option<Seed>)> = Vec::new();
        for (read, listing) in self.lists(reads).await {
            let objects = self.convert_all(listing.items, &read);
            if super::read::is_data_type(&read.rt) {
                let seed = self
                    .seeding
                    .then(|| Seed::objects(listing.resource_version, objects.clone()));
                data_reads.push((read, seed.flatten()));
            }
            meta.extend(objects);
        }
        // Owner index over the metadata, then the subtree of every root.
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, obj) in meta.iter().enumerate() {
            for owner in &obj.owners {
                children.entry(owner.uid.as_str()).or_default().push(i);
            }
        }
        let mut in_tree: Vec<usize> = Vec::new();
        let mut seen: HashSet<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        let mut stack: Vec<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        while let Some(uid) = stack.pop() {
            for &child in children.get(uid).into_iter().flatten() {
                if seen.insert(meta[child].uid.as_str()) {
                    in_tree.push(child);
                    stack.push(meta[child].uid.as_str());
                }
            }
        }
        let keep: HashSet<usize> = in_tree.into_iter().collect();
        let nodes: Vec<Object> = meta
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep.contains(i))
            .map(|(_, o)| o)
            .collect();
        // Secrets and ConfigMaps in the tree are only ever metadata: their
        // metadata lists are what --watch keeps current, where they hold
        // one of the nodes.
        for (read, seed) in data_reads {
            if nodes.iter().any(|n| {
                n.kind() == read.rt.kind
                    && n.group() == read.rt.group
                    && n.namespace() == read.namespace.as_deref()
            }) {
                self.watch_from(read, || seed);
            }
        }
        self.full_objects(&nodes).await;
        self.objects.extend(nodes);
    }

    /// Full objects for metadata-only ones: a list of the type in the
    /// namespace when there are many, else a GET each. Secrets and
    /// ConfigMaps stay metadata-only.
    async fn full_objects(&mut self, nodes: &[Object]) {
        let mut groups: BTreeMap<(String, String, Option<String>), Vec<&Object>> = BTreeMap::new();
        for obj in nodes.iter().filter(|o| {
            o.metadata_only && !matches!((o.group(), o.kind()), ("", "Secret") | ("", "ConfigMap"))
        }) {
            groups
                .entry((
                    obj.group().to_string(),
                    obj.kind().to_string(),
                    obj.namespace().map(str::to_string),
                ))
                .or_default()
                .push(obj);
        }
        let mut lists = Vec::new();
        let mut gets = Vec::new();
        for ((group, kind, ns), objs) in groups {
            let Some(rt) = self.type_of(&group, &kind) else {
                continue;
            };
            if objs.len() > plan::GETS_AT_MOST {
                lists.push(Read::list(rt, ns.as_deref()));
            } else {
                gets.extend(
                    objs.into_iter()
                        .map(|o| Read::get(rt, ns.as_deref(), o.name())),
                );
            }
        }
        let wanted: HashSet<&str> = nodes.iter().map(|o| o.uid.as_str()).collect();
        for (_, objects) in self.run(lists).await {
            let keep: Vec<Object> = objects
                .into_iter()
                .filter(|o| wanted.contains(o.uid.as_str()))
                .collect();
            self.objects.extend(keep);
        }
        for (_, got) in self.gets(gets).await {
            if let Got::Found(Some(obj)) = got {
                self.objects.push(*obj);
            }
        }
    }

    /// The chain of owners above each target, up to its root. An owner that
    /// is gone, or replaced by another object of the same name, is recorded
    /// as absent: a dangling reference. Each level is read concurrently; a
    /// chain longer than [`OWNER_DEPTH`] is cut, and the cut is a gap.
    pub async fn owners(&mut self, targets: &[Object]) {
        let mut frontier: Vec<Object> = targets.to_vec();
        let mut seen: HashSet<String> = frontier.iter().map(|o| o.uid.clone()).collect();
        for _ in 0..OWNER_DEPTH {
            let mut gets: Vec<(Read, ObjectRef)> = Vec::new();
            for obj in &frontier {
                for owner in &obj.owners {
                    if !seen.insert(owner.uid.clone()) {
                        continue;
                    }
                    let id = ObjectRef {
                        api_version: owner.api_version.clone(),
                        kind: owner.kind.clone(),
                        namespace: None,
                        name: owner.name.clone(),
                        uid: Some(owner.uid.clone()),
                    };
                    let Some(rt) = self.type_of(id.group(), &owner.kind) else {
                        self.gap(Incomplete {
                            resource: format!("{} ({})", owner.kind, owner.api_version),
                            namespace: None,
                            error: "type not served".into(),
                        });
                        continue;
                    };
                    let ns = obj.namespace().filter(|_| rt.namespaced);
                    gets.push((
                        Read::get(rt, ns, &owner.name),
                        ObjectRef {
                            namespace: ns.map(str::to_string),
                            ..id
                        },
                    ));
                }
            }
            if gets.is_empty() {
                return;
            }
            let (reads, ids): (Vec<Read>, Vec<ObjectRef>) = gets.into_iter().unzip();
            let mut next = Vec::new();
            for ((_, got), id) in self.gets(reads).await.into_iter().zip(ids) {
                match got {
                    Got::Found(Some(o)) if Some(&o.uid) == id.uid.as_ref() => next.push(*o),
                    Got::Found(_) | Got::Missing => self.gaps.absent.push(id),
                    Got::Failed => {}
                }
            }
            self.objects.extend(next.iter().cloned());
            frontier = next;
        }
        if frontier.iter().any(|o| !o.owners.is_empty()) {
            self.gap(Incomplete {
                resource: "owner chain".into(),
                namespace: frontier
                    .first()
                    .and_then(|o| o.namespace())
                    .map(str::to_string),
                error: format!("cut after {OWNER_DEPTH} levels of owners"),
            });
        }
    }

    /// Who uses each target that pods name or run on (a ConfigMap,
    /// Secret, ServiceAccount, claim, PriorityClass or Node): the pods (one
    /// list per namespace, a node's by field selector), kept only where
    /// they use it, and the owners above them. Secrets are not read here:
    /// the pods are, and they name them.
    pub async fn users(&mut self, targets: &[Object], scope: Option<&str>) {
        let Some(rt) = self.type_of("", "Pod") else {
            return;
        };
        let mut reads: Vec<(Read, Vec<&Object>)> = Vec::new();
        for t in targets {
            let Some(where_) = crate::relations::pods_to_read(t, scope) else {
                continue;
            };
            let mut read = Read::list(rt, where_.namespace.as_deref());
            if let Some(f) = where_.fields {
                read = read.fields(f);
            }
            match reads.iter_mut().find(|(r, _)| *r == read) {
                Some((_, of)) => of.push(t),
                None => reads.push((read, vec![t])),
            }
        }
        if reads.is_empty() {
            return;
        }
        let lists: Vec<Read> = reads.iter().map(|(r, _)| r.clone()).collect();
        let answered = self.run(lists).await;
        let have: HashSet<&str> = self.objects.iter().map(|o| o.uid.as_str()).collect();
        let mut users: Vec<Object> = Vec::new();
        for (read, pods) in answered {
            let Some((_, of)) = reads.iter().find(|(r, _)| *r == read) else {
                continue;
            };
            users.extend(pods.into_iter().filter(|p| {
                !have.contains(p.uid.as_str())
                    && of.iter().any(|t| crate::relations::uses(p, t).is_some())
            }));
        }
        self.owners(&users).await;
        self.objects.extend(users);
    }

    /// What verdicts need besides the targets (see [`plan::context`]).
    pub async fn context(&mut self, targets: &[Object], swept: bool) {
        let reads = plan::context(self.catalog, targets, swept);
        for (_, objects) in self.run(reads).await {
            self.objects.extend(objects);
        }
    }

    /// Every root object (no controller) of the namespace, or of every
    /// namespace: full lists of the types whose objects are mostly roots,
    /// metadata-only lists of the others and then only their roots in full.
    pub async fn sweep(&mut self, namespace: Option<&str>) -> Vec<Object> {
        let plan = plan::sweep(self.catalog, namespace);
        self.leaned_on_types = true;
        let mut full = Vec::new();
        let mut meta = Vec::new();
        let mut context = Vec::new();
        for s in plan {
            match s {
                Sweep::Full(r) => full.push(r),
                Sweep::Roots(r) => meta.push(r),
                Sweep::Context(r) => context.push(r),
            }
        }
        // The long paged lists first (pods, ReplicaSets: the types whose
        // objects are mostly owned, and the most numerous), so that their
        // pages are not the tail of the sweep behind one list per type.
        let reads: Vec<Read> = meta.iter().chain(&context).chain(&full).cloned().collect();
        let mut roots: Vec<Object> = Vec::new();
        let mut meta_roots: Vec<Object> = Vec::new();
        // The full lists that --watch keeps for the metadata-only ones, so
        // that a new bare pod shows (the watch keeps only the roots), with
        // the version each was read at and how many roots it held.
        let mut roots_only: Vec<(Read, String, usize)> = Vec::new();
        for (read, rv, objects) in self.run_at(reads).await {
            if !context.contains(&read) {
                self.swept.record(&read, &objects);
            }
            if context.contains(&read) {
                self.objects.extend(objects);
            } else if read.is_metadata_only() {
                let before = meta_roots.len();
                meta_roots.extend(objects.into_iter().filter(|o| o.controller().is_none()));
                let whole = Read::list(&read.rt, read.namespace.as_deref()).roots_only();
                roots_only.push((whole, rv, meta_roots.len() - before));
            } else {
                roots.extend(objects.into_iter().filter(|o| o.controller().is_none()));
            }
        }
        let before = self.objects.len();
        self.full_objects(&meta_roots).await;
        let fetched: Vec<Object> = self.objects.drain(before..).collect();
        // A roots-only watch starts from the sweep where every root of its
        // list was read in full; its watch replays what changed since.
        for (read, rv, count) in roots_only {
            self.watch_from(read.clone(), || {
                let full: Vec<Object> = fetched
                    .iter()
                    .filter(|o| {
                        !o.metadata_only
                            && o.kind() == read.rt.kind
                            && o.group() == read.rt.group
                            && o.namespace() == read.namespace.as_deref()
                    })
                    .cloned()
                    .collect();
                Seed::objects(rv, full).filter(|s| s.objects.len() == count)
            });
        }
        roots.extend(fetched);
        roots.sort_by(|a, b| {
            (a.namespace(), a.kind(), a.name()).cmp(&(b.namespace(), b.kind(), b.name()))
        });
        roots
    }

    /// The events of everything found. Per namespace: `first` is the first
    /// page of its events when it was started early. A namespace whose
    /// events fit one page is read whole; a busy one with a small tree is
    /// read object by object (see [`plan::SMALL_TREE`]). Objects without a
    /// namespace get theirs by uid.
    pub async fn events(
        &mut self,
        mut first: HashMap<String, Result<Page, ApiError>>,
        all_namespaces: bool,
    ) {
        let Some(rt) = self.catalog.by_kind("", "Event").cloned() else {
            return;
        };
        if all_namespaces && self.events_of == EventsOf::Every {
            let read = Read::list(&rt, None);
            match self.reader.list(&read).await {
                Ok(listing) => {
                    let events: Vec<Event> =
                        listing.items.iter().filter_map(Event::from_value).collect();
                    let seed = || Seed::events(listing.resource_version, events.clone());
                    self.watch_from(read, seed);
                    self.events.extend(events);
                }
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
            self.tried += 1;
            return;
        }
        // Per namespace, the read of each object's own events.
        let mut by_ns: BTreeMap<String, Vec<Read>> = BTreeMap::new();
        let mut cluster: Vec<Read> = Vec::new();
        for obj in &self.objects {
            if self.events_read.uids.contains(&obj.uid)
                || (self.events_of == EventsOf::Unhealthy && !plan::wants_events(obj))
            {
                continue;
            }
            let read = plan::events_of(&rt, obj);
            match obj.namespace() {
                Some(ns) => by_ns.entry(ns.to_string()).or_default().push(read),
                None => cluster.push(read),
            }
        }
        // `why` on a name that is not there: its namespace's events are
        // all that is left of it.
        if self.events_of == EventsOf::Every {
            for ns in first.keys() {
                by_ns.entry(ns.clone()).or_default();
            }
        }
        let mut by_uid: Vec<Read> = Vec::new();
        let mut pages: Vec<(Read, Option<String>)> = Vec::new();
        let mut found: Vec<Event> = Vec::new();
        // Each namespace list read, and what its watch starts from: the
        // page, where it held all of the namespace's events.
        let mut watch: Vec<(Read, Option<Seed>)> = Vec::new();
        for (ns, objects) in by_ns {
            if self.events_read.namespaces.contains(&ns) {
                continue;
            }
            let read = Read::list(&rt, Some(&ns));
            let page = match first.remove(&ns) {
                Some(page) => page,
                // A few objects' own events cost less than a namespace's.
                None if self.events_of == EventsOf::Unhealthy
                    && objects.len() <= plan::SMALL_TREE =>
                {
                    by_uid.extend(objects);
                    continue;
                }
                None => self.reader.page(&read, PAGE, None).await,
            };
            self.tried += 1;
            match page {
                Ok(page) => {
                    let mut seed = None;
                    match page.continue_token {
                        None => {
                            let events: Vec<Event> =
                                page.items.iter().filter_map(Event::from_value).collect();
                            if self.seeding {
                                seed = Seed::events(page.resource_version, events.clone());
                            }
                            found.extend(events);
                            self.events_read.namespaces.insert(ns);
                        }
                        Some(_) if objects.is_empty() => {
                            // Nothing of it exists: the newest page is enough.
                            found.extend(page.items.iter().filter_map(Event::from_value));
                        }
                        Some(_) if objects.len() <= plan::SMALL_TREE => {
                            // The page is dropped: each object's own are asked for.
                            by_uid.extend(objects);
                        }
                        Some(token) => {
                            found.extend(page.items.iter().filter_map(Event::from_value));
                            pages.push((read.clone(), Some(token)));
                            self.events_read.namespaces.insert(ns);
                        }
                    }
                    watch.push((read, seed));
                }
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
        }
        by_uid.extend(cluster.into_iter().take(plan::CLUSTER_EVENTS_AT_MOST));
        for read in &by_uid {
            if let Some(uid) = read
                .fields
                .as_deref()
                .and_then(|f| f.strip_prefix("involvedObject.uid="))
            {
                self.events_read.uids.insert(uid.to_string());
            }
        }
        // The rest of busy namespaces, page by page.
        for (read, mut token) in pages {
            while let Some(t) = token.take() {
                self.tried += 1;
                match self.reader.page(&read, PAGE, Some(&t)).await {
                    Ok(page) => {
                        found.extend(page.items.iter().filter_map(Event::from_value));
                        token = page.continue_token;
                    }
                    Err(e) => {
                        self.failed += 1;
                        self.fail(&read, e);
                    }
                }
            }
        }
        for (_, listing) in self.lists(by_uid).await {
            found.extend(listing.items.iter().filter_map(Event::from_value));
        }
        self.events.extend(found);
        // --watch and wait see the events of every namespace in the answer
        // from now on, also of objects that turn unhealthy later: the
        // namespace's list where it was read, else a watch that starts now.
        let mut namespaces: BTreeSet<String> = self
            .objects
            .iter()
            .filter_map(|o| o.namespace().map(str::to_string))
            .collect();
        for (read, seed) in watch {
            namespaces.remove(read.namespace.as_deref().unwrap_or_default());
            self.watch_from(read, || seed);
        }
        for ns in namespaces {
            let whole = Read::list(&rt, Some(&ns));
            if !self.watching(&whole) {
                self.watch(whole.from_now());
            }
        }
    }

    /// The Warning events about Jobs in a sweep's scope (every namespace
    /// for `None`), one filtered list: a Job that failed and was deleted
    /// leaves only these behind (see `diagnose::gone`).
    pub async fn job_warnings(&mut self, namespace: Option<&str>) {
        let Some(rt) = self.catalog.by_kind("", "Event").cloned() else {
            return;
        };
        let read = Read::list(&rt, namespace).fields("involvedObject.kind=Job,type=Warning");
        match self.reader.list(&read).await {
            Ok(listing) => {
                let events: Vec<Event> =
                    listing.items.iter().filter_map(Event::from_value).collect();
                let seed = || Seed::events(listing.resource_version, events.clone());
                self.watch_from(read, seed);
                self.events.extend(events);
            }
            Err(e) => self.fail(&read, e),
        }
    }

    /// Names the conversion webhook behind each gap a failing conversion
    /// made (a custom resource read through a webhook that does not
    /// answer): its Service and whether that Service has ready endpoints.
    pub async fn explain_conversion_gaps(&mut self) {
        let mut gaps = std::mem::take(&mut self.gaps.incomplete);
        for gap in gaps
            .iter_mut()
            .filter(|g| g.error.contains("conversion webhook"))
        {
            if let Some(more) = conversion_webhook(self.reader, self.catalog, &gap.resource).await {
                gap.error = format!("{}; {more}", gap.error);
            }
        }
        self.gaps.incomplete = gaps;
    }

    /// Follows relations beyond ownership (see [`crate::relations`]): the
    /// relations' read plan, in up to three rounds (an Ingress's Service,
    /// then the pods it selects). What a plan expected and did not find is
    /// recorded as absent (not when the read itself failed, so a forbidden
    /// read never reads as "missing"); related workloads bring their known
    /// edges; namespaces reached for the first time bring their events.
    pub async fn related(&mut self) {
        use crate::relations::{RelatedRead, Resource, Select};
        let mut done: HashSet<RelatedRead> = HashSet::new();
        for _round in 0..3 {
            let plan: Vec<RelatedRead> = crate::relations::reads_for(&self.objects, &self.events)
                .into_iter()
                .filter(|r| !done.contains(r))
                .collect();
            if plan.is_empty() {
                return;
            }
            let mut lists: Vec<(Read, Vec<String>)> = Vec::new();
            // Lists kept only in part: where a pod template matches, or
            // where a name is one of the names asked for.
            let mut kept_if: Vec<(Read, Select)> = Vec::new();
            let mut gets: Vec<Read> = Vec::new();
            for related in plan {
                let types: Vec<&ResourceType> = match &related.resource {
                    Resource::Kind { api_version, kind } => self
                        .type_of(crate::model::group_of(api_version), kind)
                        .into_iter()
                        .collect(),
                    Resource::IfServed { api_version, kind } => self
                        .catalog
                        .by_kind(crate::model::group_of(api_version), kind)
                        .into_iter()
                        .collect(),
                    Resource::EveryNamespacedType => {
                        self.leaned_on_types = true;
                        self.catalog
                            .types
                            .iter()
                            .filter(|t| t.namespaced && plan::is_searchable(t))
                            .collect()
                    }
                };
                for rt in types {
                    let ns = related.namespace.as_deref();
                    match &related.select {
                        Select::Name(name) => {
                            let get = Read::get(rt, ns, name);
                            gets.push(if related.metadata_only {
                                get.metadata_only()
                            } else {
                                get
                            })
                        }
                        select => {
                            let mut read = Read::list(rt, ns);
                            if let Select::Labels(l) = select {
                                read = read.labels(l.clone());
                            }
                            if let Select::Fields(f) = select {
                                read = read.fields(f.clone());
                            }
                            if related.metadata_only {
                                read = read.metadata_only();
                            }
                            if matches!(select, Select::Template(_) | Select::NamedLike(_)) {
                                kept_if.push((read.clone(), select.clone()));
                            }
                            lists.push((read, related.expect.clone()));
                        }
                    }
                }
                done.insert(related);
            }
            let mut new: Vec<Object> = Vec::new();
            let reads: Vec<Read> = lists.iter().map(|(r, _)| r.clone()).collect();
            let answered: Vec<(Read, Vec<Object>)> = self.run(reads).await;
            for (read, expect) in &lists {
                let Some((_, objects)) = answered.iter().find(|(r, _)| r == read) else {
                    continue; // the read failed: a gap, not an absence
                };
                for name in expect {
                    if !objects.iter().any(|o| o.name() == name) {
                        self.gaps.absent.push(ObjectRef {
                            api_version: read.rt.api_version(),
                            kind: read.rt.kind.clone(),
                            namespace: read.namespace.clone(),
                            name: name.clone(),
                            uid: None,
                        });
                    }
                }
            }
            new.extend(answered.into_iter().flat_map(|(read, objects)| {
                let keep = kept_if.iter().find(|(r, _)| *r == read).map(|(_, s)| s);
                objects.into_iter().filter(move |o| match keep {
                    Some(Select::Template(q)) => crate::relations::template_matches(q, o),
                    Some(Select::NamedLike(names)) => crate::relations::named_like(names, o.name()),
                    _ => true,
                })
            }));
            for (read, got) in self.gets(gets).await {
                match got {
                    Got::Found(obj) => new.extend(obj.map(|o| *o)),
                    Got::Missing => self.gaps.absent.push(ObjectRef {
                        api_version: read.rt.api_version(),
                        kind: read.rt.kind.clone(),
                        namespace: read.namespace.clone(),
                        name: read.name.clone().unwrap_or_default(),
                        uid: None,
                    }),
                    Got::Failed => {}
                }
            }
            // Related workloads and Services bring their own trees (an
            // autoscaler's Deployment, an Ingress's Service and its pods):
            // known edges only.
            let workloads: Vec<Object> = new
                .iter()
                .filter(|o| {
                    !o.metadata_only && matches!(plan::edges(self.catalog, o), Edges::Reads { .. })
                })
                .cloned()
                .collect();
            self.objects.extend(new);
            if !workloads.is_empty() {
                self.trees(&workloads).await;
            }
            // The events of what was reached, before the next plan needs them.
            self.events(HashMap::new(), false).await;
        }
    }

    /// Every object found so far.
    pub fn objects(&self) -> &[Object] {
        &self.objects
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
        }
    }
}

/// The first page of each namespace's events, read while the crawl runs.
pub async fn first_event_pages<R: Reader>(
    reader: &R,
    catalog: &Catalog,
    namespaces: &[String],
) -> HashMap<String, Result<Page, ApiError>> {
    let Some(rt) = catalog.by_kind("", "Event") else {
        return HashMap::new();
    };
    let pages = namespaces.iter().map(|ns| async move {
        let read = Read::list(rt, Some(ns));
        (ns.clone(), reader.page(&read, PAGE, None).await)
    });
    futures::future::join_all(pages).await.into_iter().collect()
}

/// The conversion webhook of the custom resource type `resource` (the
/// CRD's name, `widgets.example.com`): its Service, and whether that
/// Service has a ready endpoint. None when the CRD or its webhook cannot
/// be read.
pub async fn conversion_webhook<R: Reader>(
    reader: &R,
    catalog: &Catalog,
    resource: &str,
) -> Option<String> {
    let crds = catalog.by_kind("apiextensions.k8s.io", "CustomResourceDefinition")?;
    let crd = reader.get(&Read::get(crds, None, resource)).await.ok()??;
    let service = crd.pointer("/spec/conversion/webhook/clientConfig/service")?;
    let ns = service.get("namespace")?.as_str()?;
    let name = service.get("name")?.as_str()?;
    let mut text = format!("its conversion webhook is Service {ns}/{name}");
    let state = match catalog.by_kind("discovery.k8s.io", "EndpointSlice") {
        Some(slices) => {
            let read =
                Read::list(slices, Some(ns)).labels(format!("kubernetes.io/service-name={name}"));
            match reader.list(&read).await {
                Ok(listing) => {
                    let ready = listing
                        .items
                        .iter()
                        .flat_map(|s| {
                            s.get("endpoints")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                        })
                        .filter(|e| {
                            e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false)
                        })
                        .count();
                    if ready == 0 {
                        ", which has no ready endpoints: start the webhook's pods".to_string()
                    } else {
                        format!(", which has {ready} ready endpoint(s): read the webhook's logs")
                    }
                }
                Err(_) => String::new(),
            }
        }
        None => String::new(),
    };
    text.push_str(&state);
    Some(text)
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
        swept.record(&read, &[pod(0), pod(1)]);
        assert!(swept.covers(&read));
        assert_eq!(swept.owned.len(), 2);
        // One list past the bound is not counted as read: listed again.
        let many: Vec<Object> = (0..MAX_OWNED).map(pod).collect();
        let other = Read::list(&rt, Some("other")).metadata_only();
        swept.record(&other, &many);
        assert!(!swept.covers(&other));
        assert_eq!(swept.owned.len(), 2);
    }
}
