//! Sweeps: every root object of a namespace (or of all), and what the
//! sweep listed for a second read in depth (`Swept`).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use crate::sync::locked;

use super::*;

/// What a sweep listed: each type in each namespace it read whole, and
/// what those lists held that has an owner (the sweep keeps only roots),
/// as metadata with its owner references. A second read of the question
/// (`why` in depth) finds children there instead of listing again.
#[derive(Debug, Clone, Default)]
pub struct Swept {
    /// (group, kind, namespace) of every list that answered.
    pub lists: HashSet<(String, String, Option<String>)>,
    /// Owned objects of those lists: name, namespace, uid and owners only.
    pub owned: Vec<Owned>,
    /// Whether `owned` is filled: only for `why`, which reads in depth
    /// next. A status sweep's memory stays with its roots.
    pub(super) keep_owned: bool,
    /// Whether the sweep listed a namespaced type across namespaces (`-A`):
    /// the search in depth may too, where it would otherwise list each
    /// type once per namespace. A user allowed only some namespaces never
    /// gets there, and is searched per namespace.
    pub(super) across: bool,
}

/// At most this many owned objects are kept for `why` in depth; past it
/// a list is not counted as read, and is listed again if it is needed.
/// Memory follows the answer: a few hundred bytes each.
pub const MAX_OWNED: usize = 50_000;

impl Swept {
    /// Counts a list as read, with what it held that has an owner. Only
    /// for a sweep that keeps them: a list counted as read without them
    /// would hide children from the search that trusts it.
    /// `held`: the answer keeps these objects whole anyway (a context
    /// list's), so they are shared as they are, not cut to their owners:
    /// a child found among them is not read again.
    /// `cut`: objects the list's pages cut to their identity already, as
    /// JSON text.
    pub(super) fn record(&mut self, read: &Read, objects: &[Object], cut: Vec<String>, held: bool) {
        if !self.keep_owned {
            return;
        }
        self.across |= read.rt.namespaced && read.namespace.is_none();
        let owned: Vec<&Object> = objects.iter().filter(|o| !o.owners.is_empty()).collect();
        if self.owned.len() + owned.len() + cut.len() > MAX_OWNED {
            return;
        }
        let type_ = Arc::new((read.rt.group.clone(), read.rt.kind.clone()));
        self.owned.extend(
            cut.into_iter()
                .filter_map(|text| Owned::from_text(text, &type_)),
        );
        self.lists.insert((
            read.rt.group.clone(),
            read.rt.kind.clone(),
            read.namespace.clone(),
        ));
        if held {
            self.owned
                .extend(owned.into_iter().map(|o| Owned::Whole(o.clone())));
        } else {
            self.owned
                .extend(owned.into_iter().filter_map(|o| Owned::cut(o, &type_)));
        }
    }

    /// Whether a list answered what `read` asks: the same list, or one
    /// of the type across every namespace.
    pub(super) fn covers(&self, read: &Read) -> bool {
        let key = |ns: Option<String>| (read.rt.group.clone(), read.rt.kind.clone(), ns);
        self.lists.contains(&key(read.namespace.clone()))
            || (read.namespace.is_some() && self.lists.contains(&key(None)))
    }
}

/// An object as a metadata-only list would have it, its identity and
/// owner references only: what finding children needs.
fn identity(obj: &Object) -> Option<Value> {
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
    Some(serde_json::json!({
        "apiVersion": obj.id.api_version,
        "kind": obj.kind(),
        "metadata": Value::Object(keep),
    }))
}

/// An owned object a sweep listed, kept for the search for children.
#[derive(Debug, Clone)]
pub enum Owned {
    /// Held whole by the answer anyway (a context list's): shared, and
    /// not read again when found in a tree.
    Whole(Object),
    /// What a metadata-only list would hold of it (identity and owner
    /// references) as JSON text, with the uids it is matched by: a pod's
    /// is about 0.4 KiB, where the parsed object took several times that
    /// (a map node per field), and `why` with nothing failing keeps them
    /// all until its sweep ends.
    Cut {
        /// (group, kind), shared by every object of its list.
        type_: Arc<(String, String)>,
        namespace: Option<String>,
        uid: String,
        owners: Vec<String>,
        json: Box<str>,
    },
}

impl Owned {
    /// An object cut to its identity and owner references.
    fn cut(obj: &Object, type_: &Arc<(String, String)>) -> Option<Owned> {
        Some(Owned::Cut {
            type_: Arc::clone(type_),
            namespace: obj.namespace().map(str::to_string),
            uid: obj.uid.clone(),
            owners: obj.owners.iter().map(|o| o.uid.clone()).collect(),
            json: serde_json::to_string(&identity(obj)?)
                .ok()?
                .into_boxed_str(),
        })
    }

    /// An object's identity as [`identity`] wrote it: the text is kept.
    fn from_text(text: String, type_: &Arc<(String, String)>) -> Option<Owned> {
        let obj = Object::from_value(serde_json::from_str(&text).ok()?)?;
        Some(Owned::Cut {
            type_: Arc::clone(type_),
            namespace: obj.namespace().map(str::to_string),
            uid: obj.uid,
            owners: obj.owners.into_iter().map(|o| o.uid).collect(),
            json: text.into_boxed_str(),
        })
    }

    pub fn uid(&self) -> &str {
        match self {
            Owned::Whole(o) => &o.uid,
            Owned::Cut { uid, .. } => uid,
        }
    }

    /// The uids of its owners.
    pub fn owners(&self) -> Vec<&str> {
        match self {
            Owned::Whole(o) => o.owners.iter().map(|r| r.uid.as_str()).collect(),
            Owned::Cut { owners, .. } => owners.iter().map(String::as_str).collect(),
        }
    }

    /// Whether `read` would have listed it: its type, within its reach.
    pub fn listed_by(&self, read: &Read) -> bool {
        let (group, kind, namespace) = match self {
            Owned::Whole(o) => (o.group(), o.kind(), o.namespace()),
            Owned::Cut {
                type_, namespace, ..
            } => (type_.0.as_str(), type_.1.as_str(), namespace.as_deref()),
        };
        read.rt.group == group
            && read.rt.kind == kind
            && (read.namespace.is_none() || read.namespace.as_deref() == namespace)
    }

    /// The object, as the metadata-only list would have given it.
    pub fn object(&self) -> Option<Object> {
        match self {
            Owned::Whole(o) => Some(o.clone()),
            Owned::Cut { json, .. } => {
                let mut out = Object::from_value(serde_json::from_str(json).ok()?)?;
                out.metadata_only = true;
                Some(out)
            }
        }
    }
}

impl<R: Reader> Crawl<'_, R> {
    /// Every root object (no controller) of the namespace, or of every
    /// namespace: full lists of the types whose objects are mostly roots,
    /// metadata-only lists of the others and then only their roots in full.
    pub async fn sweep(&mut self, namespace: Option<&str>, labels: Option<&str>) -> Vec<Object> {
        let plan = plan::sweep(self.catalog, namespace, labels);
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
        // The first list of each group version before any second (the
        // long lists are each the first of theirs, so they stay ahead).
        let reads: Vec<Read> = plan::firsts_of_group_versions_first(
            meta.iter().chain(&context).chain(&full).cloned().collect(),
        );
        let mut roots: Vec<Object> = Vec::new();
        let mut meta_roots: Vec<Object> = Vec::new();
        // The full lists that --watch keeps for the metadata-only ones, so
        // that a new bare pod shows (the watch keeps only the roots), with
        // the version each was read at and how many roots it held.
        let mut roots_only: Vec<(Read, String, usize)> = Vec::new();
        // Each list is taken as it arrives, and a root the answer settles
        // at once (see [`Crawl::settle_roots`]) is not kept: memory follows
        // what is left to report, not every root read.
        let reader = self.reader;
        let settle = self.settle;
        let owned = self.swept.keep_owned;
        // A one-shot answer cuts what it keeps of an object with a
        // controller to its identity as its page arrives: only the search
        // for children reads it. A live one's watches start from it whole.
        let cut = owned && !self.seeding;
        let context_reads = &context;
        let settles = |read: &Read| {
            settle.is_some() && !read.is_metadata_only() && !context_reads.contains(read)
        };
        // The kinds of the controllers of what each list dropped (an owned
        // object is no root): a list of such a kind that fails leaves its
        // objects without a root, and they are read again as roots.
        let owners_seen: Mutex<Vec<(Read, Kinds)>> = Mutex::default();
        let owners_seen = &owners_seen;
        let mut answers = stream::iter(reads)
            .map(|read| async move {
                let note = |v: &Value| {
                    if let Some(kind) = controller_kind(v) {
                        let mut seen = locked(owners_seen);
                        match seen.iter_mut().find(|(r, _)| *r == read) {
                            Some((_, kinds)) => {
                                kinds.insert(kind);
                            }
                            None => seen.push((read.clone(), BTreeSet::from([kind]))),
                        }
                    }
                };
                let result = match settle {
                    // Page by page: an owned object or a settled root is
                    // dropped as its page arrives.
                    Some(settle) if settles(&read) => {
                        let keep = |v: Value| {
                            note(&v);
                            unsettled_root(v, &read, settle, owned, cut)
                        };
                        let result = reader.list_with(&read, &keep).await;
                        if result.is_err() {
                            settle.forget(&read);
                        }
                        result
                    }
                    // A one-shot why's metadata-only lists (pods): what
                    // has a controller is cut as its page arrives.
                    _ if cut && read.is_metadata_only() && !context_reads.contains(&read) => {
                        let keep = |v: Value| {
                            note(&v);
                            cut_if_owned(v, &read)
                        };
                        reader.list_with(&read, &keep).await
                    }
                    _ => {
                        let result = reader.list(&read).await;
                        if let Ok(listing) = &result {
                            listing.items.iter().for_each(note);
                        }
                        result
                    }
                };
                (read, result)
            })
            .buffer_unordered(CONCURRENCY);
        let mut unread: Kinds = BTreeSet::new();
        while let Some((read, result)) = answers.next().await {
            self.tried += 1;
            let listing = match result {
                Ok(listing) => listing,
                Err(e) => {
                    self.failed += 1;
                    unread.insert((read.rt.group.clone(), read.rt.kind.clone()));
                    self.fail(&read, e);
                    continue;
                }
            };
            let (cut, items) = cut_apart(listing.items);
            let listing = crate::source::read::Listing { items, ..listing };
            let (rv, objects) = self.take_list(&read, listing);
            if settles(&read) {
                self.settles_when_watched(&read, owned);
            }
            self.swept
                .record(&read, &objects, cut, context.contains(&read));
            if context.contains(&read) {
                self.objects.extend(objects);
            } else if read.is_metadata_only() {
                let before = meta_roots.len();
                meta_roots.extend(objects.into_iter().filter(|o| o.controller().is_none()));
                let whole = Read::list(&read.rt, read.namespace.as_deref()).roots_only();
                roots_only.push((whole, rv, meta_roots.len() - before));
            } else {
                // What a settling list kept with a controller is in
                // trouble on its own: context for its root's tree verdict.
                let (rooted, owned): (Vec<Object>, Vec<Object>) =
                    objects.into_iter().partition(|o| o.controller().is_none());
                roots.extend(rooted);
                if settles(&read) && !self.swept.keep_owned {
                    self.objects.extend(owned);
                }
            }
        }
        drop(answers);
        // Objects whose controller's kind could not be listed have no root
        // that can be read: they are the roots (the gap names the rest).
        let seen = std::mem::take(&mut *locked(owners_seen));
        let orphans = self.orphans(&unread, seen).await;
        let (meta_orphans, full_orphans): (Vec<Object>, Vec<Object>) =
            orphans.into_iter().partition(|o| o.metadata_only);
        meta_roots.extend(meta_orphans);
        roots.extend(full_orphans);
        roots.extend(self.roots_in_full(&meta_roots, roots_only).await);
        roots.sort_by(|a, b| {
            (a.namespace(), a.kind(), a.name()).cmp(&(b.namespace(), b.kind(), b.name()))
        });
        roots
    }

    /// The roots a metadata-only list found, read in full; a roots-only
    /// watch of each of those lists (`roots_only`: the watch, the version
    /// it was read at, how many roots it held) starts from the sweep where
    /// every root of its list was read in full, and replays what changed
    /// since.
    async fn roots_in_full(
        &mut self,
        meta_roots: &[Object],
        roots_only: Vec<(Read, String, usize)>,
    ) -> Vec<Object> {
        let before = self.objects.len();
        self.full_objects(meta_roots).await;
        let fetched: Vec<Object> = self.objects.drain(before..).collect();
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
        fetched
    }

    /// The objects of the lists in `seen` whose controller is of a kind in
    /// `unread` (a list that failed): read again, whole lists, keeping
    /// those only. Nothing is read when no list dropped such an object.
    async fn orphans(&mut self, unread: &Kinds, seen: Vec<(Read, Kinds)>) -> Vec<Object> {
        let again: Vec<Read> = seen
            .into_iter()
            .filter(|(_, kinds)| kinds.iter().any(|k| unread.contains(k)))
            .map(|(read, _)| read)
            .collect();
        let mut out = Vec::new();
        for read in again {
            self.tried += 1;
            match self.reader.list(&read).await {
                Ok(listing) => out.extend(
                    listing
                        .items
                        .into_iter()
                        .filter(|v| controller_kind(v).is_some_and(|k| unread.contains(&k)))
                        .filter_map(|v| {
                            to_object(v, &read.rt, read.is_metadata_only(), Keep::NoManagedFields)
                        }),
                ),
                Err(e) => {
                    self.failed += 1;
                    self.fail(&read, e);
                }
            }
        }
        out
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
            Ok(listing) => self.take_events(read, listing),
            Err(e) => self.fail(&read, e),
        }
    }
}

/// An item of a sweep's full list as its page arrives: kept when it is a
/// root that `settle` did not answer for (see [`Crawl::settle_roots`]).
/// `owned`: an object with any owner is kept too (`why` counts the list as
/// read for its children search, see [`Swept`]), and is not settled;
/// `cut`: one with a controller, which is no root, as its identity only.
fn unsettled_root(
    item: Value,
    read: &Read,
    settle: &dyn Settle,
    owned: bool,
    cut: bool,
) -> Option<Value> {
    let obj = to_object(
        item,
        &read.rt,
        read.is_metadata_only(),
        Keep::NoManagedFields,
    )?;
    match super::fate(&obj, read, settle, owned) {
        super::Fate::Kept if cut && obj.controller().is_some() => identity_text(&obj),
        super::Fate::Kept => Arc::try_unwrap(obj.raw).ok(),
        _ => None,
    }
}

/// A page's items apart: the identities of objects with a controller, cut
/// to JSON text as they arrived (see [`identity_text`]), and the objects.
fn cut_apart(items: Vec<Value>) -> (Vec<String>, Vec<Value>) {
    let (cut, items): (Vec<Value>, Vec<Value>) = items.into_iter().partition(Value::is_string);
    let cut = cut
        .into_iter()
        .filter_map(|v| match v {
            Value::String(text) => Some(text),
            _ => None,
        })
        .collect();
    (cut, items)
}

/// Kinds, by group and kind.
type Kinds = BTreeSet<(String, String)>;

/// The group and kind of an item's controller (its owner reference with
/// `controller: true`), as its JSON says.
fn controller_kind(item: &Value) -> Option<(String, String)> {
    let owner = item
        .pointer("/metadata/ownerReferences")?
        .as_array()?
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))?;
    let api_version = owner.get("apiVersion")?.as_str()?;
    let kind = owner.get("kind")?.as_str()?;
    Some((
        crate::model::group_of(api_version).to_string(),
        kind.to_string(),
    ))
}

/// An object with a controller, which is no root, as its identity in JSON
/// text: a string among a list's items, read back one at a time by the
/// sweep (see [`Owned::from_text`]), so that a page's owned objects do not
/// add up as parsed JSON.
fn identity_text(obj: &Object) -> Option<Value> {
    serde_json::to_string(&identity(obj)?)
        .ok()
        .map(Value::String)
}

/// An item of a one-shot `why`'s metadata-only sweep list as its page
/// arrives: a root as it is, an object with a controller cut.
fn cut_if_owned(item: Value, read: &Read) -> Option<Value> {
    if !crate::model::names_controller(&item) {
        return Some(item);
    }
    identity_text(&to_object(item, &read.rt, true, Keep::NoManagedFields)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metadata_item_is_cut_only_when_the_model_reads_its_controller() {
        let cat = crate::source::tests::catalog();
        let read = Read::list(cat.by_kind("", "Pod").unwrap(), None).metadata_only();
        let item = |owner: Value| {
            serde_json::json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                "metadata": {"name": "web-0", "namespace": "shop", "uid": "p1",
                    "labels": {"app": "web"}, "ownerReferences": [owner]}})
        };
        let owned = item(
            serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "name": "web-7d9", "uid": "rs-1", "controller": true}),
        );
        let Some(Value::String(text)) = cut_if_owned(owned, &read) else {
            panic!("cut to text");
        };
        let owned = Owned::from_text(text, &Arc::new((String::new(), "Pod".into()))).unwrap();
        assert_eq!((owned.uid(), owned.owners()), ("p1", vec!["rs-1"]));
        // `controller: true` without a uid names no controller the model
        // reads: the pod is a root, kept as it came.
        let odd =
            item(serde_json::json!({"kind": "ReplicaSet", "name": "web-7d9", "controller": true}));
        let kept = cut_if_owned(odd, &read).unwrap();
        assert!(kept.is_object());
        assert_eq!(kept["metadata"]["labels"]["app"], "web");
    }

    /// Settles every root it is shown.
    struct Every;

    impl Settle for Every {
        fn settle(&self, _: &Read, _: &Object) -> bool {
            true
        }
        fn forget(&self, _: &Read) {}
        fn forget_except(&self, _: &Read, _: &dyn Fn(Option<&str>, &str) -> bool) {}
        fn unsettle(&self, _: &Object) {}
    }

    #[test]
    fn a_full_list_s_owned_item_is_cut_as_its_page_arrives_for_a_one_shot_why() {
        let cat = crate::source::tests::catalog();
        let read = Read::list(cat.by_kind("apps", "Deployment").unwrap(), None);
        let owned = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "w-worker", "namespace": "shop", "uid": "d1",
                "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Widget",
                    "name": "w", "uid": "w1", "controller": true}]},
            "spec": {"replicas": 1}, "status": {"replicas": 1}});
        // One-shot why: its identity as text; live (--watch): whole; status
        // (no owned objects kept): dropped.
        let cut = unsettled_root(owned.clone(), &read, &Every, true, true).unwrap();
        assert!(cut.as_str().is_some_and(|t| !t.contains("spec")), "{cut}");
        let whole = unsettled_root(owned.clone(), &read, &Every, true, false).unwrap();
        assert_eq!(whole["spec"]["replicas"], 1);
        assert_eq!(unsettled_root(owned, &read, &Every, false, false), None);
    }
}
