//! Reads what a command needs from a live cluster, with as few requests as
//! the answer allows: known edges through server-side selectors, metadata-only
//! lists for unknown kinds, full objects only for the nodes that are shown,
//! and events once per namespace. Everything ends up in one [`Snapshot`].

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use futures::{StreamExt, stream};
use serde_json::Value;

use super::api::{Api, ApiError, METADATA_LIST, query_escape};
use super::client::{Connection, connect};
use super::discovery;
use super::watch::WatchSpec;
use crate::catalog::{Catalog, ResourceType, UnknownType};
use crate::model::{Event, Incomplete, Object, ObjectRef, Snapshot, Target, dedupe_events};
use crate::selector;
use crate::targets::TargetSpec;

/// Where targets without a namespace of their own are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Namespace(String),
    AllNamespaces,
}

impl Scope {
    fn namespace(&self) -> Option<&str> {
        match self {
            Scope::Namespace(ns) => Some(ns),
            Scope::AllNamespaces => None,
        }
    }
}

/// What a command needs read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The owner trees under the targets, and with `owners` the chains above.
    Tree { owners: bool },
    /// The targets themselves and what their verdicts need.
    Status,
}

/// The result of a read: the snapshot and the resolved targets, in order.
pub struct Fetched {
    pub snapshot: Snapshot,
    pub targets: Vec<Target>,
    /// What to watch to keep this snapshot current (live sources only).
    pub watches: Vec<WatchSpec>,
}

/// Fails the whole command: the tool could not answer.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    UnknownType(String),
    #[error("{0}")]
    Api(String),
}

/// Kinds that own nothing worth a request.
const LEAVES: &[(&str, &str)] = &[
    ("", "Pod"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("", "Endpoints"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("apps", "ControllerRevision"),
    ("coordination.k8s.io", "Lease"),
];

/// Types never listed when searching for children by owner reference.
fn skip_in_fallback(t: &ResourceType) -> bool {
    matches!(
        (t.group.as_str(), t.plural.as_str()),
        ("", "events")
            | ("events.k8s.io", "events")
            | ("", "endpoints")
            | ("", "componentstatuses")
    )
}

/// How many lists run at once.
const CONCURRENCY: usize = 8;

pub struct Live {
    api: Api,
    catalog: Catalog,
    catalog_from_cache: bool,
    cache_dir: PathBuf,
    server: String,
    pub default_namespace: String,
    /// Every list and get made, to be watched by `--watch` and `wait`.
    recorded: std::sync::Mutex<Vec<WatchSpec>>,
}

/// A list to run: a type, where, and which objects.
struct ListSpec {
    rt: ResourceType,
    namespace: Option<String>,
    labels: Option<String>,
    metadata_only: bool,
}

/// What one object's known edges need.
enum Edges {
    /// Run these lists; `covers_grandchildren` when they already hold the
    /// children's children (a Deployment's pod list covers its ReplicaSets').
    Lists {
        lists: Vec<ListSpec>,
        covers_grandchildren: bool,
    },
    Leaf,
    Unknown,
}

impl Live {
    pub async fn connect(conn: &Connection, cache_dir: PathBuf) -> Result<Live, FetchError> {
        let connected = connect(conn)
            .await
            .map_err(|e| FetchError::Api(super::api::anyhow_chain(&e)))?;
        let api = Api::new(connected.client, conn.request_timeout);
        let (catalog, from_cache) = discovery::catalog(&api, &cache_dir, &connected.server, false)
            .await
            .map_err(|e| explain(&e, &connected.server, "read the API types (discovery)"))?;
        Ok(Live {
            api,
            catalog,
            catalog_from_cache: from_cache,
            cache_dir,
            server: connected.server,
            default_namespace: connected.default_namespace,
            recorded: std::sync::Mutex::new(Vec::new()),
        })
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Resolves a TYPE; a miss on a cached catalog refreshes it once.
    async fn resolve(&mut self, spelling: &str) -> Result<ResourceType, FetchError> {
        match self.catalog.resolve(spelling) {
            Ok(rt) => return Ok(rt.clone()),
            Err(_) if self.catalog_from_cache => self.refresh().await?,
            Err(_) => {}
        }
        self.catalog
            .resolve(spelling)
            .cloned()
            .map_err(|e| FetchError::UnknownType(unknown_type_message(&e)))
    }

    /// `deploy,sts` or a category such as `all`: every type it names. A
    /// resource name wins over a category of the same name, as in kubectl.
    async fn resolve_many(&mut self, spelling: &str) -> Result<Vec<ResourceType>, FetchError> {
        let mut out = Vec::new();
        for part in spelling.split(',').filter(|p| !p.is_empty()) {
            match self.resolve(part).await {
                Ok(rt) => out.push(rt),
                Err(e) => {
                    let members: Vec<ResourceType> =
                        self.catalog.category(part).into_iter().cloned().collect();
                    if members.is_empty() {
                        return Err(e);
                    }
                    out.extend(members);
                }
            }
        }
        Ok(out)
    }

    /// The type of a Kind; a miss on a cached catalog refreshes it once.
    async fn type_of_fresh(
        &mut self,
        group: &str,
        kind: &str,
    ) -> Result<Option<ResourceType>, FetchError> {
        if self.type_of(group, kind).is_none() && self.catalog_from_cache {
            self.refresh().await?;
        }
        Ok(self.type_of(group, kind))
    }

    async fn refresh(&mut self) -> Result<(), FetchError> {
        let (catalog, _) = discovery::catalog(&self.api, &self.cache_dir, &self.server, true)
            .await
            .map_err(|e| explain(&e, &self.server, "refresh the API types (discovery)"))?;
        self.catalog = catalog;
        self.catalog_from_cache = false;
        Ok(())
    }

    fn type_of(&self, group: &str, kind: &str) -> Option<ResourceType> {
        self.catalog.by_kind(group, kind).cloned()
    }

    /// Reads everything `mode` needs about `targets` (every root object in
    /// the scope when there are none).
    pub async fn fetch(
        &mut self,
        targets: &[TargetSpec],
        scope: &Scope,
        mode: Mode,
    ) -> Result<Fetched, FetchError> {
        let mut found = Collected::default();
        let mut resolved: Vec<Target> = Vec::new();
        let mut target_objects: Vec<Object> = Vec::new();

        for spec in targets {
            match spec {
                TargetSpec::Name { type_, name } => {
                    let rt = self.resolve(type_).await?;
                    let ns = rt.namespaced.then(|| {
                        scope
                            .namespace()
                            .unwrap_or(&self.default_namespace)
                            .to_string()
                    });
                    let (target, obj) = self.get_target(&rt, ns, name).await?;
                    resolved.push(target);
                    target_objects.extend(obj);
                }
                TargetSpec::Type { type_, selector } => {
                    for rt in self.resolve_many(type_).await? {
                        let ns = if rt.namespaced {
                            scope.namespace()
                        } else {
                            None
                        };
                        let list = ListSpec {
                            rt: rt.clone(),
                            namespace: ns.map(str::to_string),
                            labels: selector.clone(),
                            metadata_only: false,
                        };
                        let objects = match self.list(&list).await {
                            Ok(objects) => objects,
                            // A category spans types this user may not list: a gap, not a failure.
                            Err(e @ (ApiError::Forbidden(_) | ApiError::NotFound))
                                if !type_matches_one(type_, &rt) =>
                            {
                                found.fail(&rt, ns.map(str::to_string), e);
                                continue;
                            }
                            Err(e) => {
                                return Err(explain(
                                    &e,
                                    &self.server,
                                    &format!("list {}", rt.full_name()),
                                ));
                            }
                        };
                        for obj in objects {
                            resolved.push(Target::Found(obj.uid.clone()));
                            target_objects.push(obj);
                        }
                    }
                }
                TargetSpec::Manifest {
                    api_version,
                    kind,
                    namespace,
                    name,
                } => {
                    let Some(rt) = self
                        .type_of_fresh(crate::model::group_of(api_version), kind)
                        .await?
                    else {
                        return Err(FetchError::UnknownType(format!(
                            "the server doesn't serve {kind} in {api_version} (from a manifest); is its CRD installed?"
                        )));
                    };
                    let ns = rt.namespaced.then(|| {
                        namespace.clone().unwrap_or_else(|| {
                            scope
                                .namespace()
                                .unwrap_or(&self.default_namespace)
                                .to_string()
                        })
                    });
                    let (target, obj) = self.get_target(&rt, ns, name).await?;
                    resolved.push(target);
                    target_objects.extend(obj);
                }
            }
        }
        if targets.is_empty() {
            let roots = self.fetch_roots(scope, &mut found).await?;
            for obj in roots {
                resolved.push(Target::Found(obj.uid.clone()));
                target_objects.push(obj);
            }
        }
        found.add(target_objects.clone());

        match mode {
            Mode::Tree { owners } => {
                self.expand_trees(&target_objects, &mut found).await;
                if owners {
                    self.fetch_owners(&target_objects, &mut found).await;
                }
            }
            Mode::Status => self.fetch_context(&target_objects, &mut found).await,
        }
        self.fetch_events(&found, scope, targets.is_empty())
            .await
            .into_iter()
            .for_each(|r| found.merge(r));
        if let Mode::Tree { .. } = mode {
            self.fetch_related(&mut found, scope).await;
        }
        found.check_fatal(&self.server)?;

        let now = jiff::Timestamp::now();
        let mut snapshot = Snapshot::new(
            found.objects,
            dedupe_events(found.events),
            found.incomplete,
            now,
        );
        snapshot.absent = found.absent;
        let mut watches = std::mem::take(&mut *self.recorded.lock().expect("recorded lock"));
        watches.dedup();
        let mut unique: Vec<WatchSpec> = Vec::new();
        for w in watches {
            if !unique.contains(&w) {
                unique.push(w);
            }
        }
        Ok(Fetched {
            snapshot,
            targets: resolved,
            watches: unique,
        })
    }

    /// One named target: found, or missing. Any other answer fails the command.
    async fn get_target(
        &self,
        rt: &ResourceType,
        ns: Option<String>,
        name: &str,
    ) -> Result<(Target, Option<Object>), FetchError> {
        match self.get(rt, ns.as_deref(), name).await {
            Ok(Some(obj)) => Ok((Target::Found(obj.uid.clone()), Some(obj))),
            Ok(None) => Ok((
                Target::Missing(ObjectRef {
                    api_version: rt.api_version(),
                    kind: rt.kind.clone(),
                    namespace: ns,
                    name: name.to_string(),
                    uid: None,
                }),
                None,
            )),
            Err(e) => Err(explain(
                &e,
                &self.server,
                &format!("get {} {name}", rt.full_name()),
            )),
        }
    }

    /// Every root object (no controller) of the usual kinds and of every
    /// custom resource type, plus the EndpointSlices services are judged by.
    async fn fetch_roots(
        &self,
        scope: &Scope,
        found: &mut Collected,
    ) -> Result<Vec<Object>, FetchError> {
        let ns = scope.namespace().map(str::to_string);
        let mut types: Vec<ResourceType> = crate::catalog::ROOT_KINDS
            .iter()
            .filter_map(|(g, k)| self.type_of(g, k))
            .collect();
        types.extend(
            self.catalog
                .types
                .iter()
                .filter(|t| {
                    !crate::catalog::is_builtin_group(&t.group) && t.namespaced && t.can("list")
                })
                .cloned(),
        );
        let mut lists: Vec<ListSpec> = types
            .into_iter()
            .map(|rt| ListSpec {
                rt,
                namespace: ns.clone(),
                labels: None,
                metadata_only: false,
            })
            .collect();
        if let Some(rt) = self.type_of("discovery.k8s.io", "EndpointSlice") {
            lists.push(ListSpec {
                rt,
                namespace: ns.clone(),
                labels: None,
                metadata_only: false,
            });
        }
        let mut roots = Vec::new();
        for result in self.run_lists(lists).await {
            let Collected { objects, .. } = &result;
            roots.extend(
                objects
                    .iter()
                    .filter(|o| o.controller().is_none() && o.kind() != "EndpointSlice")
                    .cloned(),
            );
            found.merge(result);
        }
        roots.sort_by(|a, b| {
            (a.namespace(), a.kind(), a.name()).cmp(&(b.namespace(), b.kind(), b.name()))
        });
        Ok(roots)
    }

    /// What a verdict needs besides the object: a Service's EndpointSlices
    /// and the pods its selector matches.
    async fn fetch_context(&self, targets: &[Object], found: &mut Collected) {
        let mut lists = Vec::new();
        for obj in targets
            .iter()
            .filter(|o| o.kind() == "Service" && o.group().is_empty())
        {
            lists.extend(self.service_lists(obj));
        }
        for result in self.run_lists(lists).await {
            found.merge(result);
        }
    }

    fn service_lists(&self, svc: &Object) -> Vec<ListSpec> {
        let ns = svc.namespace().map(str::to_string);
        let mut lists = Vec::new();
        if let Some(rt) = self.type_of("discovery.k8s.io", "EndpointSlice") {
            lists.push(ListSpec {
                rt,
                namespace: ns.clone(),
                labels: Some(format!("kubernetes.io/service-name={}", svc.name())),
                metadata_only: false,
            });
        }
        if let Some(sel) = svc
            .at("/spec/selector")
            .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
            && let Some(rt) = self.type_of("", "Pod")
        {
            lists.push(ListSpec {
                rt,
                namespace: ns,
                labels: selector::to_query(&selector::from_map(sel)),
                metadata_only: false,
            });
        }
        lists
    }

    /// The known edges of one object.
    fn edges(&self, obj: &Object) -> Edges {
        let ns = obj.namespace().map(str::to_string);
        let by_selector = |group: &str, kind: &str| -> Option<ListSpec> {
            let labels = selector::to_query(obj.at("/spec/selector")?)?;
            Some(ListSpec {
                rt: self.type_of(group, kind)?,
                namespace: ns.clone(),
                labels: Some(labels),
                metadata_only: false,
            })
        };
        let key = (obj.group(), obj.kind());
        if LEAVES.contains(&key) {
            return Edges::Leaf;
        }
        let (lists, covers): (Vec<Option<ListSpec>>, bool) = match key {
            ("apps", "Deployment") => (
                vec![by_selector("apps", "ReplicaSet"), by_selector("", "Pod")],
                true,
            ),
            ("apps", "ReplicaSet") | ("batch", "Job") => (vec![by_selector("", "Pod")], true),
            ("apps", "StatefulSet") | ("apps", "DaemonSet") => (
                vec![
                    by_selector("", "Pod"),
                    by_selector("apps", "ControllerRevision"),
                ],
                true,
            ),
            // Jobs carry no label of their CronJob; their pods all carry the
            // Job controller's label, so one list covers every Job's pods,
            // also those of Jobs created later (for --watch).
            ("batch", "CronJob") => (
                vec![
                    self.type_of("batch", "Job").map(|rt| ListSpec {
                        rt,
                        namespace: ns.clone(),
                        labels: None,
                        metadata_only: false,
                    }),
                    self.type_of("", "Pod").map(|rt| ListSpec {
                        rt,
                        namespace: ns.clone(),
                        labels: Some("batch.kubernetes.io/controller-uid".into()),
                        metadata_only: false,
                    }),
                ],
                true,
            ),
            ("", "Service") => (
                self.service_lists(obj).into_iter().map(Some).collect(),
                true,
            ),
            _ => return Edges::Unknown,
        };
        Edges::Lists {
            lists: lists.into_iter().flatten().collect(),
            covers_grandchildren: covers,
        }
    }

    /// Finds the descendants of every target: known edges first; kinds with
    /// unknown edges search metadata-only lists of every type in scope.
    async fn expand_trees(&self, targets: &[Object], found: &mut Collected) {
        let mut fallback_roots: Vec<&Object> = Vec::new();
        let mut frontier: Vec<Object> = targets.to_vec();
        let mut expanded: HashSet<String> = HashSet::new();
        while !frontier.is_empty() {
            let mut lists = Vec::new();
            let mut parents = Vec::new();
            for obj in std::mem::take(&mut frontier) {
                if !expanded.insert(obj.uid.clone()) {
                    continue;
                }
                match self.edges(&obj) {
                    Edges::Leaf => {}
                    Edges::Unknown => {
                        if let Some(t) = targets.iter().find(|t| t.uid == obj.uid) {
                            fallback_roots.push(t);
                        } else {
                            found.unknown_edges.push(obj.clone());
                        }
                    }
                    Edges::Lists {
                        lists: l,
                        covers_grandchildren,
                    } => {
                        lists.extend(l);
                        parents.push((obj, covers_grandchildren));
                    }
                }
            }
            for result in self.run_lists(lists).await {
                found.merge(result);
            }
            for (parent, covers) in parents {
                let children: Vec<Object> = found
                    .objects
                    .iter()
                    .filter(|o| o.owners.iter().any(|r| r.uid == parent.uid))
                    .cloned()
                    .collect();
                for child in children {
                    if covers {
                        expanded.insert(child.uid.clone());
                    } else {
                        frontier.push(child);
                    }
                }
            }
        }
        let mut roots: Vec<Object> = fallback_roots.into_iter().cloned().collect();
        roots.append(&mut found.unknown_edges);
        if !roots.is_empty() {
            self.fallback(&roots, found).await;
        }
    }

    /// Children of kinds with unknown edges: metadata-only lists of every
    /// listable type where children can live, matched by owner uid, then the
    /// full objects of the nodes found.
    async fn fallback(&self, roots: &[Object], found: &mut Collected) {
        let cluster_wide = roots.iter().any(|o| o.namespace().is_none());
        let namespaces: BTreeSet<String> = roots
            .iter()
            .filter_map(|o| o.namespace().map(str::to_string))
            .collect();
        let mut lists = Vec::new();
        for rt in self
            .catalog
            .types
            .iter()
            .filter(|t| t.can("list") && !skip_in_fallback(t))
        {
            if cluster_wide {
                lists.push(ListSpec {
                    rt: rt.clone(),
                    namespace: None,
                    labels: None,
                    metadata_only: true,
                });
            } else if rt.namespaced {
                for ns in &namespaces {
                    lists.push(ListSpec {
                        rt: rt.clone(),
                        namespace: Some(ns.clone()),
                        labels: None,
                        metadata_only: true,
                    });
                }
            }
        }
        let mut meta = Collected::default();
        for result in self.run_lists(lists).await {
            meta.merge(result);
        }
        // Owner index over the metadata, then the subtree of every root.
        let mut children: HashMap<&str, Vec<&Object>> = HashMap::new();
        for obj in &meta.objects {
            for owner in &obj.owners {
                children.entry(owner.uid.as_str()).or_default().push(obj);
            }
        }
        let mut in_tree: Vec<&Object> = Vec::new();
        let mut seen: HashSet<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        let mut stack: Vec<&str> = roots.iter().map(|r| r.uid.as_str()).collect();
        while let Some(uid) = stack.pop() {
            for child in children.get(uid).into_iter().flatten() {
                if seen.insert(child.uid.as_str()) {
                    in_tree.push(child);
                    stack.push(child.uid.as_str());
                }
            }
        }
        let full = self.full_objects(&in_tree).await;
        let Collected { incomplete, .. } = meta;
        found.incomplete.extend(incomplete);
        found.add(in_tree.into_iter().cloned().collect());
        found.merge(full);
    }

    /// Full objects for metadata-only tree nodes: a list of the type in the
    /// namespace when there are several, else a GET each. Secrets and
    /// ConfigMaps stay metadata-only.
    async fn full_objects(&self, nodes: &[&Object]) -> Collected {
        let mut groups: HashMap<(String, String, Option<String>), Vec<&Object>> = HashMap::new();
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
        let mut out = Collected::default();
        let mut lists = Vec::new();
        let mut gets = Vec::new();
        for ((group, kind, ns), objs) in groups {
            let Some(rt) = self.type_of(&group, &kind) else {
                continue;
            };
            if objs.len() >= 3 {
                lists.push(ListSpec {
                    rt,
                    namespace: ns,
                    labels: None,
                    metadata_only: false,
                });
            } else {
                gets.extend(
                    objs.into_iter()
                        .map(|o| (rt.clone(), ns.clone(), o.name().to_string())),
                );
            }
        }
        let wanted: HashSet<&str> = nodes.iter().map(|o| o.uid.as_str()).collect();
        for mut result in self.run_lists(lists).await {
            result.objects.retain(|o| wanted.contains(o.uid.as_str()));
            out.merge(result);
        }
        let fetched: Vec<_> = stream::iter(gets)
            .map(
                |(rt, ns, name)| async move { (self.get(&rt, ns.as_deref(), &name).await, rt, ns) },
            )
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        for (result, rt, ns) in fetched {
            match result {
                Ok(Some(obj)) => out.add(vec![obj]),
                Ok(None) => {}
                Err(e) => out.fail(&rt, ns, e),
            }
        }
        out
    }

    /// The chain of owners above each target, up to its root. An owner that
    /// is gone, or replaced by another object of the same name, is recorded
    /// as absent: a dangling reference.
    async fn fetch_owners(&self, targets: &[Object], found: &mut Collected) {
        let mut frontier: Vec<Object> = targets.to_vec();
        let mut seen: HashSet<String> = frontier.iter().map(|o| o.uid.clone()).collect();
        for _depth in 0..32 {
            let mut next = Vec::new();
            for obj in std::mem::take(&mut frontier) {
                for owner in &obj.owners {
                    if !seen.insert(owner.uid.clone()) {
                        continue;
                    }
                    let group = crate::model::ObjectRef {
                        api_version: owner.api_version.clone(),
                        kind: owner.kind.clone(),
                        namespace: None,
                        name: owner.name.clone(),
                        uid: Some(owner.uid.clone()),
                    };
                    let Some(rt) = self.type_of(group.group(), &owner.kind) else {
                        found.incomplete.push(Incomplete {
                            resource: format!("{} ({})", owner.kind, owner.api_version),
                            namespace: None,
                            error: "type not served".into(),
                        });
                        continue;
                    };
                    let ns = if rt.namespaced {
                        obj.namespace().map(str::to_string)
                    } else {
                        None
                    };
                    match self.get(&rt, ns.as_deref(), &owner.name).await {
                        Ok(Some(o)) if o.uid == owner.uid => next.push(o),
                        Ok(_) => found.absent.push(ObjectRef {
                            namespace: ns,
                            ..group
                        }),
                        Err(e) => found.fail(&rt, ns, e),
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            found.add(next.clone());
            frontier = next;
        }
    }

    /// Events, listed once per namespace and joined by uid later; objects
    /// without a namespace get theirs by a field selector on their uid.
    async fn fetch_events(
        &self,
        found: &Collected,
        scope: &Scope,
        roots_mode: bool,
    ) -> Vec<Collected> {
        let Some(rt) = self.type_of("", "Event") else {
            return Vec::new();
        };
        let event_spec = |namespace: Option<String>, fields: Option<String>| WatchSpec {
            rt: rt.clone(),
            namespace,
            labels: None,
            fields,
        };
        let mut lists: Vec<WatchSpec> = Vec::new();
        if roots_mode && *scope == Scope::AllNamespaces {
            lists.push(event_spec(None, None));
        } else {
            let namespaces: BTreeSet<&str> =
                found.objects.iter().filter_map(|o| o.namespace()).collect();
            lists.extend(
                namespaces
                    .into_iter()
                    .map(|ns| event_spec(Some(ns.to_string()), None)),
            );
            for obj in found
                .objects
                .iter()
                .filter(|o| o.namespace().is_none())
                .take(16)
            {
                lists.push(event_spec(
                    None,
                    Some(format!("involvedObject.uid={}", obj.uid)),
                ));
            }
        }
        stream::iter(lists)
            .map(|spec| {
                let rt = rt.clone();
                async move {
                    let mut out = Collected::default();
                    match self.api.get(&spec.list_path(), None).await {
                        Ok(list) => {
                            out.events = list
                                .get("items")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter_map(Event::from_value)
                                .collect();
                            self.record(spec);
                        }
                        Err(e) => out.fail(&rt, spec.namespace.clone(), e),
                    }
                    out
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await
    }

    // ---- relations (the `why` helper's; to be ported to the Reader) ----

    /// Runs the relations' read plan (`relations::reads_for`) in up to three
    /// rounds (a Service an Ingress routes to, then the pods it selects),
    /// expands the owner trees of related workloads, records what the plan
    /// expected and did not find as absent, and reads the events of
    /// namespaces that were not read before.
    async fn fetch_related(&self, found: &mut Collected, scope: &Scope) {
        let mut done: HashSet<crate::relations::RelatedRead> = HashSet::new();
        let mut namespaces_read: BTreeSet<String> = found
            .objects
            .iter()
            .filter_map(|o| o.namespace().map(str::to_string))
            .collect();
        for _round in 0..3 {
            let plan: Vec<crate::relations::RelatedRead> =
                crate::relations::reads_for(&found.objects, &found.events)
                    .into_iter()
                    .filter(|r| !done.contains(r))
                    .collect();
            if plan.is_empty() {
                break;
            }
            let mut lists: Vec<(ListSpec, Vec<String>)> = Vec::new();
            let mut gets: Vec<(ResourceType, Option<String>, String)> = Vec::new();
            for read in &plan {
                done.insert(read.clone());
                let types: Vec<ResourceType> = match &read.resource {
                    crate::relations::Resource::Kind { api_version, kind } => self
                        .type_of(crate::model::group_of(api_version), kind)
                        .into_iter()
                        .collect(),
                    crate::relations::Resource::EveryNamespacedType => self
                        .catalog
                        .types
                        .iter()
                        .filter(|t| t.namespaced && t.can("list") && !skip_in_fallback(t))
                        .cloned()
                        .collect(),
                };
                for rt in types {
                    let ns = if rt.namespaced {
                        read.namespace.clone()
                    } else {
                        None
                    };
                    match &read.select {
                        crate::relations::Select::Name(name) if !read.metadata_only => {
                            gets.push((rt, ns, name.clone()))
                        }
                        select => lists.push((
                            ListSpec {
                                rt,
                                namespace: ns,
                                labels: match select {
                                    crate::relations::Select::Labels(l) => Some(l.clone()),
                                    _ => None,
                                },
                                metadata_only: read.metadata_only,
                            },
                            read.expect.clone(),
                        )),
                    }
                }
            }
            let mut new: Vec<Object> = Vec::new();
            let expectations: Vec<(ResourceType, Option<String>, Vec<String>)> = lists
                .iter()
                .map(|(l, e)| (l.rt.clone(), l.namespace.clone(), e.clone()))
                .collect();
            let mut failed: HashSet<(String, Option<String>)> = HashSet::new();
            for result in self
                .run_lists(lists.into_iter().map(|(l, _)| l).collect())
                .await
            {
                for gap in &result.incomplete {
                    failed.insert((gap.resource.clone(), gap.namespace.clone()));
                }
                new.extend(result.objects.iter().cloned());
                found.merge(result);
            }
            for (rt, ns, expect) in expectations {
                if failed.contains(&(rt.full_name(), ns.clone())) {
                    continue;
                }
                for name in expect {
                    if !new.iter().any(|o| {
                        o.kind() == rt.kind
                            && o.group() == rt.group
                            && o.name() == name
                            && o.namespace() == ns.as_deref()
                    }) {
                        found.absent.push(ObjectRef {
                            api_version: rt.api_version(),
                            kind: rt.kind.clone(),
                            namespace: ns.clone(),
                            name,
                            uid: None,
                        });
                    }
                }
            }
            let fetched: Vec<_> = stream::iter(gets)
                .map(|(rt, ns, name)| async move {
                    (self.get(&rt, ns.as_deref(), &name).await, rt, ns, name)
                })
                .buffer_unordered(CONCURRENCY)
                .collect()
                .await;
            for (result, rt, ns, name) in fetched {
                match result {
                    Ok(Some(obj)) => new.push(obj),
                    Ok(None) => found.absent.push(ObjectRef {
                        api_version: rt.api_version(),
                        kind: rt.kind.clone(),
                        namespace: ns,
                        name,
                        uid: None,
                    }),
                    Err(e) => found.fail(&rt, ns, e),
                }
            }
            // Related workloads and Services bring their own trees (an
            // autoscaler's Deployment, an Ingress's Service and its pods):
            // known edges only.
            let workloads: Vec<Object> = new
                .iter()
                .filter(|o| !o.metadata_only && matches!(self.edges(o), Edges::Lists { .. }))
                .cloned()
                .collect();
            found.add(new);
            if !workloads.is_empty() {
                self.expand_trees(&workloads, found).await;
            }
            // The events of namespaces read for the first time (an
            // inventory's objects elsewhere), before the next plan needs them.
            let fresh = Collected {
                objects: found
                    .objects
                    .iter()
                    .filter(|o| {
                        o.namespace()
                            .is_some_and(|ns| !namespaces_read.contains(ns))
                    })
                    .cloned()
                    .collect(),
                ..Collected::default()
            };
            namespaces_read.extend(
                fresh
                    .objects
                    .iter()
                    .filter_map(|o| o.namespace().map(str::to_string)),
            );
            if !fresh.objects.is_empty() {
                for r in self.fetch_events(&fresh, scope, false).await {
                    found.merge(r);
                }
            }
        }
    }

    // ---- end of relations ----

    async fn run_lists(&self, lists: Vec<ListSpec>) -> Vec<Collected> {
        stream::iter(lists)
            .map(|spec| async move {
                let mut out = Collected::default();
                match self.list(&spec).await {
                    Ok(objects) => out.objects = objects,
                    Err(e) => out.fail(&spec.rt, spec.namespace.clone(), e),
                }
                out
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await
    }

    async fn get(
        &self,
        rt: &ResourceType,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Option<Object>, ApiError> {
        let metadata_only = is_data_type(rt);
        let accept =
            metadata_only.then_some("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
        match self
            .api
            .get(
                &format!("{}/{}", rt.collection_path(ns), query_escape(name)),
                accept,
            )
            .await
        {
            Ok(value) => {
                self.record(WatchSpec {
                    rt: rt.clone(),
                    namespace: ns.map(str::to_string),
                    labels: None,
                    fields: Some(format!("metadata.name={name}")),
                });
                Ok(to_object(value, rt, metadata_only))
            }
            Err(ApiError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn record(&self, spec: WatchSpec) {
        self.recorded.lock().expect("recorded lock").push(spec);
    }

    /// The API client, for the watches.
    pub fn api(&self) -> &Api {
        &self.api
    }

    async fn list(&self, spec: &ListSpec) -> Result<Vec<Object>, ApiError> {
        let metadata_only = spec.metadata_only || is_data_type(&spec.rt);

        let mut path = spec.rt.collection_path(spec.namespace.as_deref());
        if let Some(labels) = spec.labels.as_deref().filter(|l| !l.is_empty()) {
            path = format!("{path}?labelSelector={}", query_escape(labels));
        }
        let list = self
            .api
            .get(&path, metadata_only.then_some(METADATA_LIST))
            .await?;
        if !spec.metadata_only {
            self.record(WatchSpec {
                rt: spec.rt.clone(),
                namespace: spec.namespace.clone(),
                labels: spec.labels.clone(),
                fields: None,
            });
        }
        Ok(list
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .cloned()
            .filter_map(|item| to_object(item, &spec.rt, metadata_only))
            .collect())
    }
}

/// Whether a TYPE spelling names this one type (not a category or list).
fn type_matches_one(spelling: &str, rt: &ResourceType) -> bool {
    !spelling.contains(',')
        && (rt.plural == spelling
            || rt.singular == spelling
            || rt.kind.eq_ignore_ascii_case(spelling)
            || rt.short_names.iter().any(|s| s == spelling)
            || spelling.starts_with(&format!("{}.", rt.plural)))
}

/// Secrets and ConfigMaps are only ever read as metadata.
fn is_data_type(rt: &ResourceType) -> bool {
    rt.group.is_empty() && (rt.kind == "Secret" || rt.kind == "ConfigMap")
}

/// An item of a list (which carries no apiVersion and kind of its own) or a
/// metadata-only answer, as an Object of its real type.
pub(crate) fn to_object(mut item: Value, rt: &ResourceType, metadata_only: bool) -> Option<Object> {
    let map = item.as_object_mut()?;
    map.insert("apiVersion".into(), Value::String(rt.api_version()));
    map.insert("kind".into(), Value::String(rt.kind.clone()));
    if is_data_type(rt) {
        for key in ["data", "stringData", "binaryData"] {
            map.remove(key);
        }
        if let Some(ann) = item
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            ann.remove("kubectl.kubernetes.io/last-applied-configuration");
        }
    }
    let mut obj = Object::from_value(item)?;
    obj.metadata_only = metadata_only;
    obj.status_subresource = Some(rt.has_status);
    Some(obj)
}

/// Objects, events and gaps gathered by one or more requests.
#[derive(Default)]
struct Collected {
    objects: Vec<Object>,
    events: Vec<Event>,
    incomplete: Vec<Incomplete>,
    absent: Vec<ObjectRef>,
    /// Errors that make any answer wrong (credentials, connection).
    fatal: Vec<ApiError>,
    unknown_edges: Vec<Object>,
}

impl Collected {
    fn add(&mut self, objects: Vec<Object>) {
        self.objects.extend(objects);
    }
    fn merge(&mut self, other: Collected) {
        self.objects.extend(other.objects);
        self.events.extend(other.events);
        self.incomplete.extend(other.incomplete);
        self.absent.extend(other.absent);
        self.fatal.extend(other.fatal);
    }
    fn fail(&mut self, rt: &ResourceType, namespace: Option<String>, err: ApiError) {
        match err {
            ApiError::Unauthorized(_) | ApiError::Unreachable(_) => self.fatal.push(err),
            other => self.incomplete.push(Incomplete {
                resource: rt.full_name(),
                namespace,
                error: other.short(),
            }),
        }
    }
    fn check_fatal(&self, server: &str) -> Result<(), FetchError> {
        match self.fatal.first() {
            Some(e) => Err(explain(e, server, "read the cluster")),
            None => Ok(()),
        }
    }
}

/// An API error in plain words, with what to do next.
fn explain(err: &ApiError, server: &str, doing: &str) -> FetchError {
    FetchError::Api(match err {
        ApiError::Unreachable(cause) => format!(
            "cannot reach the API server at {server} to {doing}: {cause}\nhint: is the cluster running, and is this the right context? (kubectl config current-context)"
        ),
        ApiError::Unauthorized(_) => format!(
            "the API server at {server} rejected the credentials (401 Unauthorized) while trying to {doing}\nhint: log in again, or check --kubeconfig, --context and --user"
        ),
        ApiError::Forbidden(message) => format!(
            "forbidden: cannot {doing}: {message}\nhint: ask for get/list/watch on it, or check --as and --context (kubectl auth can-i list ...)"
        ),
        ApiError::Timeout => format!(
            "the API server at {server} did not answer in time while trying to {doing}\nhint: raise --request-timeout, or check the cluster's health"
        ),
        ApiError::NotFound => format!("the server does not serve what was needed to {doing}"),
        ApiError::Gone => {
            format!("the server's answer expired while trying to {doing}; run the command again")
        }
        ApiError::Other(code, message) => {
            format!("the API server answered {code} while trying to {doing}: {message}")
        }
    })
}

fn unknown_type_message(err: &UnknownType) -> String {
    match err.suggestions.as_slice() {
        [] => format!("{err}\nhint: kubectl api-resources lists the types this cluster serves"),
        names => format!("{err}\nhint: did you mean {}?", names.join(", ")),
    }
}
