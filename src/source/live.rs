//! The live source: connects, resolves the targets as the user spelled
//! them, and crawls what the command needs through the API client (see
//! [`super::crawl`]). The events of the targets' namespace are asked for
//! while the rest is read.
//!
//! Discovery is revalidated (two requests, 304 when unchanged) before an
//! answer that goes through every type ([`plan::needs_every_type`]). An
//! answer that names its types reads with the catalog cached by an earlier
//! run, as kubectl does, and is asked again with a revalidated catalog
//! when it leaned on the list of types after all: a type gone (404), a
//! kind the catalog does not know, a spelling it does not resolve.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::api::Api;
use super::builder::Gaps;
use super::client::{Connection, connect};
use super::crawl::{Crawl, Earlier, EventsOf, EventsRead, Settle, Swept, Watch, first_event_pages};
use super::discovery;
use super::plan;
use super::read::ApiError;
use super::read::{Read, Reader};
use crate::catalog::{Catalog, ResourceType, UnknownType};
use crate::model::{Incomplete, Object, ObjectRef, Snapshot, Target};
use crate::targets::{Scope, TargetSpec};

/// What a command needs read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The owner trees under the targets, and with `owners` the chains above.
    Tree { owners: bool },
    /// What `why` needs: trees, owners, and who wrote what (managedFields).
    Why,
    /// The targets themselves and what their verdicts need.
    Status,
    /// As [`Mode::Status`], for a sweep that `why` then reads in depth:
    /// what its lists held with an owner is kept (see `crawl::Swept`).
    Roots,
}

/// The result of a read: the snapshot and the resolved targets, in order.
pub struct Fetched {
    pub snapshot: Snapshot,
    pub targets: Vec<Target>,
    /// What to watch to keep this snapshot current (live sources only).
    pub watches: Vec<Watch>,
    /// The gaps and absent owners, kept for every later snapshot.
    pub gaps: Gaps,
    /// Whose events were read, so that a second read of the same question
    /// does not read them again.
    pub events_read: EventsRead,
    /// What the sweep listed, for a second read of the same question.
    pub swept: Swept,
    /// Whether the answer leaned on which types the server serves (see
    /// [`super::crawl::Crawled::leaned_on_types`]).
    pub leaned_on_types: bool,
}

/// Fails the whole command: the tool could not answer. Each keeps what
/// went wrong as a value; it becomes words only where it is printed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}")]
    UnknownType(String),
    /// A read the answer could not do without.
    #[error("{}", explain(.error, .server, .doing))]
    Api {
        error: ApiError,
        /// The server's address, for the message.
        server: String,
        /// What the read was for, in the user's words.
        doing: String,
    },
    /// The client could not be made (kubeconfig, credentials, TLS files).
    #[error("{0}")]
    Connect(String),
    /// A namespace the question named does not exist.
    #[error(
        "namespace \"{0}\" not found\nhint: kubectl get namespaces lists them; check -n and the context's namespace"
    )]
    NoNamespace(String),
    /// A sweep whose every list failed; `refused`, the first read the
    /// server refused for want of rights, in its words and as the
    /// `kubectl auth can-i` line that asks about it.
    #[error(
        "could not read any object in {place}: every list failed ({}){}",
        .causes.join("; "),
        refused_text(.refused)
    )]
    NothingRead {
        place: String,
        causes: Vec<String>,
        refused: Option<Refused>,
    },
    /// A type the catalog named is not served (any more).
    #[error(
        "the server does not serve what was needed to {0}\nhint: kubectl api-resources lists the types this cluster serves"
    )]
    NotServed(String),
}

/// A read the server refused: its words (`User "jane" cannot list
/// resource "pods" in API group "" in the namespace "shop"`), and the
/// `kubectl auth can-i` line that asks the same.
#[derive(Debug)]
pub struct Refused {
    pub message: String,
    pub can_i: String,
    /// `kubectl auth can-i --list`, in the same place as the same user.
    pub can_i_list: String,
}

fn refused_text(refused: &Option<Refused>) -> String {
    match refused {
        Some(r) => format!(
            "\nthe first refused: {}\nhint: ask for get, list and watch on what you need; `{}` checks one, and `{}` shows what you may do",
            r.message, r.can_i, r.can_i_list
        ),
        None => "\nhint: check your rights (`kubectl auth can-i --list`) and the cluster's health"
            .into(),
    }
}

impl Refused {
    /// From a refused read, with the impersonation flags the command had,
    /// so that the line asks for the same user.
    pub fn of(read: &Read, message: &str, impersonation: &[String]) -> Refused {
        let flags: String = impersonation.iter().map(|f| format!(" {f}")).collect();
        // `--list` takes no -A: across namespaces it lists the default's.
        let (place, list_place) = match &read.namespace {
            Some(ns) => (format!(" -n {ns}"), format!(" -n {ns}")),
            None => (" -A".to_string(), String::new()),
        };
        Refused {
            message: message.to_string(),
            can_i: format!(
                "kubectl auth can-i list {}{place}{flags}",
                read.rt.full_name()
            ),
            can_i_list: format!("kubectl auth can-i --list{list_place}{flags}"),
        }
    }
}

impl FetchError {
    /// The API server refused a read for want of rights.
    pub fn is_forbidden(&self) -> bool {
        matches!(
            self,
            FetchError::Api {
                error: ApiError::Forbidden(_),
                ..
            }
        )
    }
}

/// What `rules TYPE` finds of a kind's CRD.
pub enum Crd {
    Found(Object),
    /// A kind of Kubernetes' own: the tool's rules judge it.
    BuiltIn(ResourceType),
    /// The CRD could not be read, and why.
    Unread(ResourceType, String),
}

pub struct Live {
    api: Api,
    catalog: Catalog,
    /// API groups discovery could not see into.
    stale: Vec<Incomplete>,
    server: String,
    pub default_namespace: String,
    cache_dir: PathBuf,
    /// Whether the catalog was revalidated with the server in this run.
    fresh: bool,
    /// The answers stay live: see [`Ask::live`].
    pub live: bool,
    /// See [`Ask::settle`].
    pub settle: Option<Arc<dyn Settle>>,
    /// `-l` without a TYPE: a sweep lists only the objects with these
    /// labels.
    pub sweep_labels: Option<String>,
    /// The flags that say who asks (`--context=prod`, `--as=jane`),
    /// repeated in the `kubectl auth can-i` line a refusal offers.
    pub impersonation: Vec<String>,
}

/// The most CRDs read for one answer.
const MAX_CRDS: usize = 8;

impl Live {
    /// The CRD of the custom kind `spelling` names (one GET), for
    /// `rules TYPE`: the catalog is read again when it does not know the
    /// spelling.
    pub async fn crd_of(&mut self, spelling: &str) -> Result<Crd, FetchError> {
        if self.catalog.resolve(spelling).is_err() && !self.fresh {
            self.revalidate(false).await?;
        }
        let rt = self
            .catalog
            .resolve(spelling)
            .map_err(|e| FetchError::UnknownType(e.to_string()))?
            .clone();
        if crate::catalog::is_builtin_group(&rt.group) {
            return Ok(Crd::BuiltIn(rt));
        }
        let Some(crds) = self
            .catalog
            .by_kind("apiextensions.k8s.io", "CustomResourceDefinition")
        else {
            return Ok(Crd::Unread(
                rt,
                "the server serves no CustomResourceDefinitions".into(),
            ));
        };
        let name = format!("{}.{}", rt.plural, rt.group);
        Ok(
            match Reader::get(&self.api, &Read::get(crds, None, &name)).await {
                Ok(Some(v)) => match Object::from_value(v) {
                    Some(crd) => Crd::Found(crd),
                    None => Crd::Unread(rt, "its CRD is not an object".into()),
                },
                // An aggregated API's kind has no CRD.
                Ok(None) => Crd::Unread(rt, "no CRD: an aggregated API serves it".into()),
                Err(e) => Crd::Unread(rt, e.short()),
            },
        )
    }

    /// Reads the CRD of each custom kind among `fetched`'s targets that no
    /// convention or rule can judge (`NoHealthSignal`), at most
    /// [`MAX_CRDS`], one GET each, into the snapshot: its printer columns
    /// and enums then speak for it (`verdict::columns`). A CRD that cannot
    /// be read (forbidden, gone) is no gap: the verdict stays as it was.
    pub async fn read_crds(&self, fetched: &mut Fetched, judge: &crate::verdict::Judge) {
        let kinds: Vec<(String, String)> = {
            let judged = judge.on(&fetched.snapshot);
            let mut kinds: Vec<(String, String)> = fetched
                .targets
                .iter()
                .filter_map(|t| match t {
                    crate::model::Target::Found(uid) => judged.get(uid),
                    crate::model::Target::Missing(_) => None,
                })
                .filter(|o| !o.metadata_only && !crate::catalog::is_builtin_group(o.group()))
                .filter(|o| {
                    crate::verdict::judge(o, &judged).reason
                        == crate::verdict::reason::Lifecycle::NoHealthSignal
                })
                .map(|o| (o.group().to_string(), o.kind().to_string()))
                .collect();
            kinds.sort();
            kinds.dedup();
            kinds.truncate(MAX_CRDS);
            kinds
        };
        let Some(crds) = self
            .catalog
            .by_kind("apiextensions.k8s.io", "CustomResourceDefinition")
        else {
            return;
        };
        let mut read = Vec::new();
        for (group, kind) in kinds {
            let Some(rt) = self.catalog.by_kind(&group, &kind) else {
                continue;
            };
            let name = format!("{}.{group}", rt.plural);
            if let Ok(Some(crd)) = Reader::get(&self.api, &Read::get(crds, None, &name)).await
                && let Some(crd) = Object::from_value(crd)
            {
                read.push(crd);
            }
        }
        fetched.snapshot.add_objects(read);
    }
}

/// One question to a cluster through any [`Reader`]: the live API, or an
/// in-memory cluster in tests.
pub struct Ask<'a, R: Reader> {
    pub reader: &'a R,
    pub catalog: &'a Catalog,
    /// Gaps known before reading (API groups discovery could not see).
    pub stale: &'a [Incomplete],
    /// The server's address, for messages.
    pub server: &'a str,
    pub default_namespace: &'a str,
    /// The answer stays live (`--watch`, `wait`): each watch starts from
    /// what this answer read (see [`Watch::from`]).
    pub live: bool,
    /// A sweep's roots settled as they arrive (see [`Crawl::settle_roots`]).
    pub settle: Option<&'a dyn Settle>,
    /// See [`Live::sweep_labels`].
    pub sweep_labels: Option<&'a str>,
    /// See [`Live::impersonation`].
    pub impersonation: &'a [String],
}

/// A target resolved to a read.
enum Wanted {
    One(Read),
    /// A list; `one_type` when the spelling named one type (a failure then
    /// fails the command, where a category's is a gap).
    Many {
        read: Read,
        one_type: bool,
    },
}

impl Live {
    pub async fn connect(conn: &Connection, cache_dir: PathBuf) -> Result<Live, FetchError> {
        let connected = connect(conn)
            .await
            .map_err(|e| FetchError::Connect(super::api::anyhow_chain(&e)))?;
        let api =
            Api::of(&connected, conn.request_timeout).with_more_connections(connected.another);
        let mut live = Live {
            api,
            catalog: Catalog::default(),
            stale: Vec::new(),
            server: connected.server,
            default_namespace: connected.default_namespace,
            cache_dir,
            fresh: false,
            live: false,
            settle: None,
            sweep_labels: None,
            impersonation: Vec::new(),
        };
        match discovery::cached_clean(&live.cache_dir, &live.server) {
            Some(catalog) => live.catalog = catalog,
            None => {
                live.revalidate(false).await?;
            }
        }
        Ok(live)
    }

    /// Revalidates discovery (`whole`: reads it again whatever the ETags
    /// say); true when the catalog changed.
    async fn revalidate(&mut self, whole: bool) -> Result<bool, FetchError> {
        let found = discovery::catalog(&self.api, &self.cache_dir, &self.server, whole)
            .await
            .map_err(|e| failed(&e, &self.server, "read the API types (discovery)"))?;
        let changed = found.catalog != self.catalog;
        self.catalog = found.catalog;
        self.stale = found.stale;
        self.fresh = true;
        Ok(changed)
    }

    /// The API client, for the watches.
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// The kinds of `snap`'s objects as the server serves them, for a
    /// capture's header.
    pub fn kinds_of(&self, snap: &Snapshot) -> Vec<crate::model::KindFacts> {
        let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
        snap.objects()
            .iter()
            .filter(|o| seen.insert((o.group(), o.kind())))
            .filter_map(|o| self.catalog.by_kind(o.group(), o.kind()))
            .map(|rt| crate::model::KindFacts {
                group: rt.group.clone(),
                version: rt.version.clone(),
                kind: rt.kind.clone(),
                plural: rt.plural.clone(),
                singular: rt.singular.clone(),
                short_names: rt.short_names.clone(),
                namespaced: rt.namespaced,
                has_status: rt.has_status,
            })
            .collect()
    }

    /// The server's `gitVersion`, or `None` when `/version` does not say.
    pub async fn server_version(&self) -> Option<String> {
        let v = self.api.get("/version", None).await.ok()?;
        v.get("gitVersion")?.as_str().map(str::to_string)
    }

    /// Watches of what an operator may make below custom resources, for an
    /// answer that stays live (`wait`): metadata-only lists of the
    /// namespaces' ReplicaSets, StatefulSets, DaemonSets, Deployments, Jobs
    /// and Pods. A child made after the first read (a Rollout's new
    /// ReplicaSet) shows there, and the question is asked again for it.
    pub fn children_watches(&self, objects: &[&Object]) -> Vec<Watch> {
        let namespaces: BTreeSet<&str> = objects
            .iter()
            .filter(|o| !crate::catalog::is_builtin_group(o.group()))
            .filter_map(|o| o.namespace())
            .collect();
        let kinds = [
            ("apps", "ReplicaSet"),
            ("apps", "StatefulSet"),
            ("apps", "DaemonSet"),
            ("apps", "Deployment"),
            ("batch", "Job"),
            ("", "Pod"),
        ];
        let mut out = Vec::new();
        for ns in namespaces {
            for (group, kind) in kinds {
                if let Some(rt) = self.catalog.by_kind(group, kind) {
                    out.push(Watch {
                        read: Read::list(rt, Some(ns)).metadata_only(),
                        from: None,
                        settles: None,
                    });
                }
            }
        }
        out
    }

    /// [`Ask::fetch`] over the API client, with a catalog revalidated
    /// before the answer when it goes through every type, and after it
    /// when it leaned on the list of types after all (the question is then
    /// asked again if the catalog changed).
    pub async fn fetch(
        &mut self,
        targets: &[TargetSpec],
        scope: &Scope,
        mode: Mode,
        earlier: Option<Earlier>,
    ) -> Result<Fetched, FetchError> {
        let trees = matches!(mode, Mode::Tree { .. } | Mode::Why);
        if !self.fresh && plan::needs_every_type(&self.catalog, targets, trees) {
            self.revalidate(false).await?;
        }
        let answer = self
            .ask()
            .fetch(targets, scope, mode, earlier.clone())
            .await;
        if self.fresh {
            return answer;
        }
        let leaned = match &answer {
            Ok(fetched) => fetched.leaned_on_types,
            Err(FetchError::UnknownType(_) | FetchError::NotServed(_)) => true,
            Err(_) => false,
        };
        // A target's type the cache names is gone: the catalog is read
        // whole, not trusted to an ETag.
        let whole = matches!(answer, Err(FetchError::NotServed(_)));
        // A revalidation that fails leaves the first answer, gaps and all.
        if leaned && self.revalidate(whole).await.unwrap_or(false) {
            return self.ask().fetch(targets, scope, mode, earlier).await;
        }
        answer
    }

    fn ask(&self) -> Ask<'_, Api> {
        Ask {
            reader: &self.api,
            catalog: &self.catalog,
            stale: &self.stale,
            server: &self.server,
            default_namespace: &self.default_namespace,
            live: self.live,
            settle: self.settle.as_deref().map(|s| s as &dyn Settle),
            sweep_labels: self.sweep_labels.as_deref(),
            impersonation: &self.impersonation,
        }
    }
}

impl<R: Reader> Ask<'_, R> {
    fn resolve(&self, spelling: &str) -> Result<&ResourceType, FetchError> {
        self.catalog
            .resolve(spelling)
            .map_err(|e| FetchError::UnknownType(unknown_type_message(&e)))
    }

    /// `deploy,sts` or a category such as `all`: every type it names. A
    /// resource name wins over a category of the same name, as in kubectl.
    fn resolve_many(&self, spelling: &str) -> Result<Vec<&ResourceType>, FetchError> {
        let mut out = Vec::new();
        for part in spelling.split(',').filter(|p| !p.is_empty()) {
            match self.resolve(part) {
                Ok(rt) => out.push(rt),
                Err(e) => {
                    let members = self.catalog.category(part);
                    if members.is_empty() {
                        return Err(e);
                    }
                    out.extend(members);
                }
            }
        }
        Ok(out)
    }

    /// The reads that find the targets.
    fn wanted(&self, targets: &[TargetSpec], scope: &Scope) -> Result<Vec<Wanted>, FetchError> {
        let default_ns = scope.namespace().unwrap_or(self.default_namespace);
        let mut out = Vec::new();
        for spec in targets {
            match spec {
                TargetSpec::Name { type_, name } => {
                    let rt = self.resolve(type_)?;
                    out.push(Wanted::One(Read::get(rt, Some(default_ns), name)));
                }
                TargetSpec::Type { type_, selector } => {
                    let types = self.resolve_many(type_)?;
                    let one_type = types.len() == 1 && !type_.contains(',');
                    for rt in types {
                        let read = Read::list(rt, scope.namespace())
                            .labels(selector.clone().unwrap_or_default());
                        out.push(Wanted::Many { read, one_type });
                    }
                }
                TargetSpec::Manifest {
                    api_version,
                    kind,
                    namespace,
                    name,
                } => {
                    let Some(rt) = self
                        .catalog
                        .by_kind(crate::model::group_of(api_version), kind)
                    else {
                        return Err(FetchError::UnknownType(format!(
                            "the server doesn't serve {kind} in {api_version} (from a manifest); is its CRD installed?\nhint: kubectl api-resources lists the types this cluster serves"
                        )));
                    };
                    let ns = namespace.as_deref().unwrap_or(default_ns);
                    out.push(Wanted::One(Read::get(rt, Some(ns), name)));
                }
            }
        }
        Ok(out)
    }

    /// Reads everything `mode` needs about `targets` (every root object in
    /// the scope when there are none). `earlier`: the events and the
    /// sweep's lists an earlier read of the same question already has.
    pub async fn fetch(
        &self,
        targets: &[TargetSpec],
        scope: &Scope,
        mode: Mode,
        earlier: Option<Earlier>,
    ) -> Result<Fetched, FetchError> {
        let wanted = self.wanted(targets, scope)?;
        let mut crawl = Crawl::new(self.reader, self.catalog);
        crawl.seed_watches(self.live);
        if let Some(settle) = self.settle {
            crawl.settle_roots(settle);
        }
        // `why` shows a timeline of every event; elsewhere events only
        // explain what is not healthy, and are read after the objects.
        let every = mode == Mode::Why;
        if !every {
            crawl.events_of(EventsOf::Unhealthy);
        }
        let Earlier {
            events: already,
            swept,
        } = earlier.unwrap_or_default();
        crawl.swept_already(swept, mode == Mode::Roots);
        // The namespaces known before anything is read: their events are
        // asked for at once, beside the first reads.
        let mut early: BTreeSet<String> = BTreeSet::new();
        for w in &wanted {
            let read = match w {
                Wanted::One(r) | Wanted::Many { read: r, .. } => r,
            };
            early.extend(read.namespace.clone());
        }
        if targets.is_empty()
            && let Some(ns) = scope.namespace()
        {
            early.insert(ns.to_string());
        }
        let early: Vec<String> = early
            .into_iter()
            .filter(|ns| every && !already.namespaces.contains(ns))
            .collect();
        crawl.events_already(already);
        let first_pages = first_event_pages(self.reader, self.catalog, &early);
        let work = self.read_answer(&mut crawl, wanted, targets.is_empty(), scope, mode);
        let (first_pages, resolved) = futures::join!(first_pages, work);
        let resolved = resolved?;
        crawl
            .events(
                first_pages,
                targets.is_empty() && *scope == Scope::AllNamespaces,
            )
            .await;
        if matches!(mode, Mode::Tree { .. } | Mode::Why) {
            crawl.related().await;
        } else {
            crawl.leases().await;
        }
        if targets.is_empty() {
            crawl.job_warnings(scope.namespace()).await;
        }
        for gap in self.stale {
            crawl.gap(gap.clone());
        }
        crawl.explain_conversion_gaps().await;
        let crawled = crawl.finish();
        if let Some(e) = &crawled.fatal {
            return Err(failed(e, self.server, "read the cluster"));
        }
        if targets.is_empty() && crawled.tried > 0 && crawled.failed == crawled.tried {
            let refused = crawled
                .first_refusal
                .as_ref()
                .map(|(read, message)| Refused::of(read, message, self.impersonation));
            return Err(nothing_read(&crawled.gaps.incomplete, scope, refused));
        }
        let found_nothing = resolved.iter().all(|t| matches!(t, Target::Missing(_)));
        if found_nothing {
            self.check_namespaces(&resolved, scope).await?;
        }
        Ok(Fetched {
            snapshot: crawled.builder.build(jiff::Timestamp::now()),
            targets: resolved,
            watches: crawled.watched,
            gaps: crawled.gaps,
            events_read: crawled.events_read,
            leaned_on_types: crawled.leaned_on_types,
            swept: crawled.swept,
        })
    }

    /// Reads the targets and what the mode needs around them.
    async fn read_answer(
        &self,
        crawl: &mut Crawl<'_, R>,
        wanted: Vec<Wanted>,
        sweep: bool,
        scope: &Scope,
        mode: Mode,
    ) -> Result<Vec<Target>, FetchError> {
        let mut resolved = Vec::new();
        let mut objects: Vec<Object> = Vec::new();
        for w in wanted {
            match w {
                Wanted::One(read) => {
                    let name = read.name.clone().unwrap_or_default();
                    let (rt, namespace) = (read.rt.clone(), read.namespace.clone());
                    match crawl.get(who_wrote_what(read, mode)).await {
                        Ok(Some(obj)) => {
                            resolved.push(Target::Found(obj.uid.clone()));
                            objects.push(obj);
                        }
                        Ok(None) => {
                            crawl.add_near(self.names_near(&rt, namespace.as_deref()).await);
                            resolved.push(Target::Missing(ObjectRef {
                                api_version: rt.api_version(),
                                kind: rt.kind.clone(),
                                namespace,
                                name,
                                uid: None,
                            }))
                        }
                        Err(ApiError::Other(code, message))
                            if message.contains(super::crawl::CONVERSION_FAILED) =>
                        {
                            let more = super::crawl::conversion_webhook(
                                self.reader,
                                self.catalog,
                                &rt.full_name(),
                            )
                            .await;
                            let message = match more {
                                Some(more) => format!("{message}; {more}"),
                                None => message,
                            };
                            return Err(failed(
                                &ApiError::Other(code, message),
                                self.server,
                                &format!("get {} {name}", rt.full_name()),
                            ));
                        }
                        Err(e) => {
                            return Err(failed(
                                &e,
                                self.server,
                                &format!("get {} {name}", rt.full_name()),
                            ));
                        }
                    }
                }
                Wanted::Many { read, one_type } => {
                    match crawl.list(who_wrote_what(read.clone(), mode)).await {
                        Ok(found) => {
                            for obj in found {
                                resolved.push(Target::Found(obj.uid.clone()));
                                objects.push(obj);
                            }
                        }
                        Err(e @ (ApiError::Forbidden(_) | ApiError::NotFound)) if !one_type => {
                            crawl.fail(&read, e)
                        }
                        Err(e) => {
                            return Err(failed(
                                &e,
                                self.server,
                                &format!("list {}", read.rt.full_name()),
                            ));
                        }
                    }
                }
            }
        }
        if sweep {
            for obj in crawl.sweep(scope.namespace(), self.sweep_labels).await {
                resolved.push(Target::Found(obj.uid.clone()));
                objects.push(obj);
            }
        }
        match mode {
            Mode::Tree { owners } => {
                crawl.trees(&objects).await;
                if owners {
                    crawl.owners(&objects).await;
                }
                if !sweep {
                    crawl.users(&objects, scope.namespace()).await;
                }
            }
            Mode::Why => {
                crawl.trees(&objects).await;
                crawl.owners(&objects).await;
            }
            Mode::Status | Mode::Roots => {
                crawl.context(&objects, sweep).await;
                // A named custom resource's tree verdict reads its
                // children; a sweep's roots keep the sweep's cost.
                if !sweep {
                    crawl.likely_trees(&objects).await;
                }
            }
        }
        crawl.add(objects);
        Ok(resolved)
    }

    /// The objects of a type in a namespace, their metadata only and one
    /// page at most, read when a target of that type is not found: a name
    /// close to the one asked is offered ("did you mean web?"). A failure
    /// costs nothing but the offer.
    async fn names_near(&self, rt: &ResourceType, namespace: Option<&str>) -> Vec<Object> {
        let read = Read::list(rt, namespace).metadata_only();
        match self.reader.page(&read, super::read::PAGE, None).await {
            Ok(page) => page
                .items
                .into_iter()
                .filter_map(|v| {
                    super::builder::to_object(v, rt, true, super::builder::Keep::NoManagedFields)
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// A namespace that does not exist is an error, not an empty answer.
    /// Asked only when nothing was found, so it costs nothing otherwise.
    async fn check_namespaces(&self, resolved: &[Target], scope: &Scope) -> Result<(), FetchError> {
        let mut namespaces: BTreeSet<&str> = resolved
            .iter()
            .filter_map(|t| match t {
                Target::Missing(id) => id.namespace.as_deref(),
                Target::Found(_) => None,
            })
            .collect();
        if resolved.is_empty()
            && let Some(ns) = scope.namespace()
        {
            namespaces.insert(ns);
        }
        let Some(rt) = self.catalog.by_kind("", "Namespace") else {
            return Ok(());
        };
        for ns in namespaces {
            if let Ok(None) = self.reader.get(&Read::get(rt, None, ns)).await {
                return Err(FetchError::NoNamespace(ns.to_string()));
            }
        }
        Ok(())
    }
}

/// A target's read: for `why`, its objects keep who wrote what
/// (managedFields, for the generation check); nothing else needs it.
fn who_wrote_what(read: Read, mode: Mode) -> Read {
    if mode == Mode::Why {
        read.with_managed_fields()
    } else {
        read
    }
}

/// A sweep that could read nothing: which reads failed and why.
fn nothing_read(gaps: &[Incomplete], scope: &Scope, refused: Option<Refused>) -> FetchError {
    let mut causes: Vec<String> = gaps.iter().map(|g| g.error.clone()).collect();
    causes.sort();
    causes.dedup();
    let place = match scope {
        Scope::Namespace(ns) => format!("namespace \"{ns}\""),
        Scope::AllNamespaces => "any namespace".to_string(),
    };
    FetchError::NothingRead {
        place,
        causes,
        refused,
    }
}

/// A failed read the answer needs: a type no longer served, or the API's
/// error as it is.
fn failed(err: &ApiError, server: &str, doing: &str) -> FetchError {
    if *err == ApiError::NotFound {
        return FetchError::NotServed(doing.to_string());
    }
    FetchError::Api {
        error: err.clone(),
        server: server.to_string(),
        doing: doing.to_string(),
    }
}

/// An API error in plain words, with what to do next.
fn explain(err: &ApiError, server: &str, doing: &str) -> String {
    match err {
        ApiError::Unreachable(cause) => format!(
            "cannot reach the API server at {server} to {doing}: {cause}\nhint: is the cluster running, and is this the right context? (kubectl config current-context)"
        ),
        ApiError::Tls(cause) => format!(
            "the TLS handshake with the API server at {server} failed while trying to {doing}: {cause}\nhint: check the server's certificate authority (--certificate-authority, or the kubeconfig's), the name it is checked against (--tls-server-name), and the client certificate"
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
        ApiError::NotFound | ApiError::Missing => format!("{doing}: not found"),
        ApiError::Gone => {
            format!("the server's answer expired while trying to {doing}; run the command again")
        }
        ApiError::TooLarge(message) => format!(
            "{message}, while trying to {doing}\nhint: is something other than the API server answering (a proxy, an aggregated API server)?"
        ),
        ApiError::Credential(message) => message.clone(),
        ApiError::Other(0, message) => format!("{message}, while trying to {doing}"),
        ApiError::Other(code, message) => {
            format!("the API server answered {code} while trying to {doing}: {message}")
        }
    }
}

fn unknown_type_message(err: &UnknownType) -> String {
    match err.suggestions.as_slice() {
        [] => format!("{err}\nhint: kubectl api-resources lists the types this cluster serves"),
        names => format!("{err}\nhint: did you mean {}?", names.join(", ")),
    }
}
