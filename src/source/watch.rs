//! Live updates: for every list and get a command made, a list-then-watch
//! loop keeps a local cache current. Watches resume from the last
//! resourceVersion, re-list when it has expired (410 Gone), and reconnect
//! with backoff when the connection or the API server goes away. No polling:
//! the cache changes only when the server says something changed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kube::core::WatchEvent;
use serde_json::Value;
use tokio::sync::mpsc;

use super::api::{Api, ApiError, query_escape};
use crate::catalog::ResourceType;
use crate::model::{Event, Incomplete, Object, Snapshot, dedupe_events};

/// One list (or get, as a list by name) to keep current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchSpec {
    pub rt: ResourceType,
    pub namespace: Option<String>,
    pub labels: Option<String>,
    pub fields: Option<String>,
}

impl WatchSpec {
    fn path(&self, watch: Option<&str>) -> String {
        let mut query: Vec<String> = Vec::new();
        if let Some(l) = self.labels.as_deref().filter(|l| !l.is_empty()) {
            query.push(format!("labelSelector={}", query_escape(l)));
        }
        if let Some(f) = &self.fields {
            query.push(format!("fieldSelector={}", query_escape(f)));
        }
        if let Some(rv) = watch {
            query.push("watch=1".into());
            query.push("allowWatchBookmarks=true".into());
            query.push(format!("timeoutSeconds={WATCH_SECONDS}"));
            if !rv.is_empty() {
                query.push(format!("resourceVersion={}", query_escape(rv)));
            }
        }
        let base = self.rt.collection_path(self.namespace.as_deref());
        if query.is_empty() {
            base
        } else {
            format!("{base}?{}", query.join("&"))
        }
    }

    /// The list request of this spec.
    pub fn list_path(&self) -> String {
        self.path(None)
    }

    fn is_events(&self) -> bool {
        self.rt.group.is_empty() && self.rt.kind == "Event"
    }
}

/// How long the server keeps one watch open before we resume it.
const WATCH_SECONDS: u64 = 240;
/// Backoff between reconnections: doubling from the first, up to the last.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(500), Duration::from_secs(8));
/// Events kept per watch; the oldest go first, so memory stays bounded.
const MAX_EVENTS: usize = 5000;

#[derive(Default)]
struct Store {
    /// Specs whose first list has answered (with objects or an error).
    synced: std::collections::HashSet<usize>,
    objects: HashMap<usize, HashMap<String, Object>>,
    events: HashMap<usize, HashMap<String, Event>>,
    gaps: HashMap<usize, Incomplete>,
}

/// The cache that the watches feed, and a channel that says "changed".
pub struct Cache {
    store: Arc<Mutex<Store>>,
    specs: usize,
    pub changes: mpsc::UnboundedReceiver<()>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Cache {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Cache {
    /// Starts one list-then-watch loop per spec.
    pub fn start(api: &Api, specs: Vec<WatchSpec>) -> Cache {
        let store = Arc::new(Mutex::new(Store::default()));
        let (tx, changes) = mpsc::unbounded_channel();
        let count = specs.len();
        let tasks = specs
            .into_iter()
            .enumerate()
            .map(|(id, spec)| tokio::spawn(run(api.clone(), id, spec, store.clone(), tx.clone())))
            .collect();
        Cache {
            store,
            specs: count,
            changes,
            tasks,
        }
    }

    /// Whether every watch has listed once, so a snapshot is whole.
    pub fn synced(&self) -> bool {
        self.store.lock().expect("cache lock").synced.len() >= self.specs
    }

    /// The current state as a snapshot, judged at `now`.
    pub fn snapshot(&self, base_incomplete: &[Incomplete], now: jiff::Timestamp) -> Snapshot {
        let store = self.store.lock().expect("cache lock");
        let objects: Vec<Object> = store
            .objects
            .values()
            .flat_map(|m| m.values().cloned())
            .collect();
        let events: Vec<Event> = store
            .events
            .values()
            .flat_map(|m| m.values().cloned())
            .collect();
        let mut incomplete: Vec<Incomplete> = base_incomplete.to_vec();
        incomplete.extend(store.gaps.values().cloned());
        Snapshot::new(objects, dedupe_events(events), incomplete, now)
    }
}

async fn run(
    api: Api,
    id: usize,
    spec: WatchSpec,
    store: Arc<Mutex<Store>>,
    tx: mpsc::UnboundedSender<()>,
) {
    let mut backoff = BACKOFF.0;
    loop {
        // List: the whole current state and the version to watch from.
        let list = match api.get(&spec.path(None), None).await {
            Ok(list) => list,
            Err(e) => {
                let permanent = matches!(e, ApiError::Forbidden(_) | ApiError::NotFound);
                {
                    let mut s = store.lock().expect("cache lock");
                    s.synced.insert(id);
                    s.gaps.insert(
                        id,
                        Incomplete {
                            resource: spec.rt.full_name(),
                            namespace: spec.namespace.clone(),
                            error: format!("{} (watching)", e.short()),
                        },
                    );
                }
                let _ = tx.send(());
                if permanent {
                    return;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF.1);
                continue;
            }
        };
        let mut rv = list
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        {
            let mut s = store.lock().expect("cache lock");
            s.synced.insert(id);
            s.gaps.remove(&id);
            let items = list
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if spec.is_events() {
                s.events.insert(
                    id,
                    items
                        .iter()
                        .filter_map(|v| Event::from_value(v).map(|e| (e.uid.clone(), e)))
                        .collect(),
                );
            } else {
                s.objects.insert(
                    id,
                    items
                        .into_iter()
                        .filter_map(|v| convert(v, &spec))
                        .map(|o| (o.uid.clone(), o))
                        .collect(),
                );
            }
        }
        let _ = tx.send(());
        // Watch from there until the version expires.
        loop {
            let stream = match api.watch(&spec.path(Some(&rv))).await {
                Ok(stream) => stream,
                Err(ApiError::Gone) => break,
                Err(_) => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(BACKOFF.1);
                    continue;
                }
            };
            backoff = BACKOFF.0;
            let mut stream = std::pin::pin!(stream);
            let mut relist = false;
            while let Some(event) = stream.next().await {
                match event {
                    Ok(WatchEvent::Added(v) | WatchEvent::Modified(v)) => {
                        rv = version(&v).unwrap_or(rv);
                        apply(&store, id, &spec, v, false);
                        let _ = tx.send(());
                    }
                    Ok(WatchEvent::Deleted(v)) => {
                        rv = version(&v).unwrap_or(rv);
                        apply(&store, id, &spec, v, true);
                        let _ = tx.send(());
                    }
                    Ok(WatchEvent::Bookmark(b)) => rv = b.metadata.resource_version,
                    Ok(WatchEvent::Error(status)) => {
                        relist = status.code == 410;
                        break;
                    }
                    Err(ApiError::Gone) => {
                        relist = true;
                        break;
                    }
                    Err(_) => break,
                }
            }
            if relist {
                break;
            }
        }
    }
}

fn version(v: &Value) -> Option<String> {
    v.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn convert(v: Value, spec: &WatchSpec) -> Option<Object> {
    super::live::to_object(v, &spec.rt, false)
}

fn apply(store: &Arc<Mutex<Store>>, id: usize, spec: &WatchSpec, v: Value, deleted: bool) {
    let mut s = store.lock().expect("cache lock");
    if spec.is_events() {
        let Some(e) = Event::from_value(&v) else {
            return;
        };
        let events = s.events.entry(id).or_default();
        if deleted {
            events.remove(&e.uid);
        } else {
            events.insert(e.uid.clone(), e);
            if events.len() > MAX_EVENTS {
                let oldest = events
                    .values()
                    .min_by_key(|e| e.last_seen)
                    .map(|e| e.uid.clone());
                if let Some(uid) = oldest {
                    events.remove(&uid);
                }
            }
        }
    } else if let Some(obj) = convert(v, spec) {
        let objects = s.objects.entry(id).or_default();
        if deleted {
            objects.remove(&obj.uid);
        } else {
            objects.insert(obj.uid.clone(), obj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_paths_resume_from_a_version_with_bookmarks() {
        let rt = ResourceType {
            group: "apps".into(),
            version: "v1".into(),
            kind: "ReplicaSet".into(),
            plural: "replicasets".into(),
            singular: "replicaset".into(),
            short_names: vec![],
            categories: vec![],
            namespaced: true,
            verbs: vec![],
            has_status: true,
        };
        let spec = WatchSpec {
            rt,
            namespace: Some("shop".into()),
            labels: Some("app=web".into()),
            fields: None,
        };
        assert_eq!(
            spec.path(None),
            "/apis/apps/v1/namespaces/shop/replicasets?labelSelector=app%3Dweb"
        );
        assert_eq!(
            spec.path(Some("123")),
            "/apis/apps/v1/namespaces/shop/replicasets?labelSelector=app%3Dweb&watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion=123"
        );
    }
}
