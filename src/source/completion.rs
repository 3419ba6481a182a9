//! What shell completion reads, each read with a short deadline: resource
//! types (the discovery cache, else discovery, else a stale cache), names of
//! one type and namespaces (metadata-only lists), the kubeconfig's contexts,
//! clusters and users, or types and names from a snapshot file. A failure
//! reads as nothing: completion never prints an error.

use std::path::Path;
use std::time::Duration;

use kube::config::Kubeconfig;
use serde_json::Value;

use super::api::Api;
use super::client::{Connected, Connection, connect};
use super::read::METADATA_LIST;
use super::{discovery, file, offline};
use crate::catalog::Catalog;
use crate::targets::Asked;

/// The deadline of each request a completion sends.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// Every resource type the server serves.
pub async fn types(conn: &Connection, cache_dir: &Path) -> Option<Catalog> {
    let connected = connect(conn).await.ok()?;
    Some(catalog(&connected, conn, cache_dir).await?.0)
}

async fn catalog(
    connected: &Connected,
    conn: &Connection,
    cache_dir: &Path,
) -> Option<(Catalog, Api)> {
    let api = Api::of(connected, conn.request_timeout);
    let catalog = match discovery::catalog(&api, cache_dir, &connected.server, false).await {
        Ok(found) => found.catalog,
        Err(_) => discovery::cached(cache_dir, &connected.server)?,
    };
    Some((catalog, api))
}

/// Names of the objects of a type (as the user spelled it), sorted.
pub async fn names(conn: &Connection, cache_dir: &Path, type_: &str, scope: &Asked) -> Vec<String> {
    let Ok(connected) = connect(conn).await else {
        return Vec::new();
    };
    let Some((catalog, api)) = catalog(&connected, conn, cache_dir).await else {
        return Vec::new();
    };
    let Ok(rt) = catalog.resolve(type_) else {
        return Vec::new();
    };
    if !rt.can("list") {
        return Vec::new();
    }
    let scope = scope.resolve(&connected.default_namespace);
    list_names(&api, &rt.collection_path(scope.namespace())).await
}

/// Every namespace, sorted.
pub async fn namespaces(conn: &Connection) -> Vec<String> {
    let Ok(connected) = connect(conn).await else {
        return Vec::new();
    };
    let api = Api::of(&connected, conn.request_timeout);
    list_names(&api, "/api/v1/namespaces").await
}

async fn list_names(api: &Api, path: &str) -> Vec<String> {
    let Ok(list) = api.get(path, Some(METADATA_LIST)).await else {
        return Vec::new();
    };
    let mut names: Vec<String> = list
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| item.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The names the kubeconfig gives its contexts, clusters and users.
#[derive(Debug, Default)]
pub struct KubeconfigNames {
    pub contexts: Vec<String>,
    pub clusters: Vec<String>,
    pub users: Vec<String>,
}

/// Reads the kubeconfig (`--kubeconfig`, else `$KUBECONFIG`, else
/// `~/.kube/config`); nothing is sent.
pub fn kubeconfig_names(conn: &Connection) -> KubeconfigNames {
    let config = match &conn.kubeconfig {
        Some(path) => Kubeconfig::read_from(path),
        None => Kubeconfig::read(),
    };
    let Ok(config) = config else {
        return KubeconfigNames::default();
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v.dedup();
        v
    };
    KubeconfigNames {
        contexts: sorted(config.contexts.into_iter().map(|c| c.name).collect()),
        clusters: sorted(config.clusters.into_iter().map(|c| c.name).collect()),
        users: sorted(config.auth_infos.into_iter().map(|u| u.name).collect()),
    }
}

/// Types from a snapshot file or directory (never stdin: during completion
/// stdin is the terminal).
pub fn snapshot_types(path: &str) -> Option<Catalog> {
    let snapshot = read_snapshot(path)?;
    Some(offline::catalog_of(&snapshot))
}

/// Names of one type in a snapshot, in a namespace when given.
pub fn snapshot_names(path: &str, type_: &str, namespace: Option<&str>) -> Vec<String> {
    let Some(snapshot) = read_snapshot(path) else {
        return Vec::new();
    };
    let catalog = offline::catalog_of(&snapshot);
    let Ok(rt) = catalog.resolve(type_) else {
        return Vec::new();
    };
    let mut names: Vec<String> = snapshot
        .objects()
        .iter()
        .filter(|o| o.group() == rt.group && o.kind() == rt.kind)
        .filter(|o| namespace.is_none_or(|ns| o.namespace().is_none_or(|n| n == ns)))
        .map(|o| o.name().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn read_snapshot(path: &str) -> Option<crate::model::Snapshot> {
    if path == "-" {
        return None;
    }
    file::load_snapshot(path, None, super::local::MAX_SNAPSHOT_BYTES).ok()
}
