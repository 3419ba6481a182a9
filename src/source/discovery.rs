//! Aggregated discovery (two requests: `/api` and `/apis`), revalidated
//! with the ETags of the cached answers whenever an answer depends on the
//! list of types (sweeps, categories, trees searched in every type) or a
//! read finds a type gone: an unchanged cluster answers 304 and costs two
//! tiny requests, and a CRD created or deleted a second ago is seen. The
//! cache lives per server under the user's kube cache directory.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::{AGGREGATED_DISCOVERY, Api, parse};
use super::read::ApiError;
use crate::catalog::Catalog;
use crate::model::Incomplete;

/// One discovery document, as cached: what it said, and its ETag.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
struct Document {
    etag: Option<String>,
    catalog: Catalog,
    /// Group versions the server could not ask their own server about.
    stale: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    server: String,
    core: Document,
    groups: Document,
}

const CACHE_VERSION: u32 = 2;

/// What discovery found: the types, and the API groups that could not be
/// discovered (an aggregated API server that does not answer), as gaps.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub catalog: Catalog,
    pub stale: Vec<Incomplete>,
}

/// Where the catalog of one server is cached: kubectl's layout, with a file
/// of our own.
pub fn cache_path(cache_dir: &Path, server: &str) -> PathBuf {
    let safe: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache_dir
        .join("discovery")
        .join(safe)
        .join("kubectl-reconcile-catalog.json")
}

/// The catalog, revalidated against the server: the two documents are
/// asked for with `If-None-Match`, and a 304 reuses the cached one. With
/// `whole`, they are asked for without it (a read found the cached catalog
/// wrong).
pub async fn catalog(
    api: &Api,
    cache_dir: &Path,
    server: &str,
    whole: bool,
) -> Result<Discovered, ApiError> {
    let path = cache_path(cache_dir, server);
    let cached = read_cache_file(&path, server).filter(|_| !whole);
    let (old_core, old_groups) = match &cached {
        Some(c) => (Some(&c.core), Some(&c.groups)),
        None => (None, None),
    };
    let (core, groups) = futures::join!(
        document(api, "/api", old_core),
        document(api, "/apis", old_groups)
    );
    let ((core, core_same), (groups, groups_same)) = (core?, groups?);
    if !(core_same && groups_same) {
        write_cache(&path, server, &core, &groups);
    }
    let catalog = joined(&core.catalog, &groups.catalog);
    let mut stale = Vec::new();
    for gv in core.stale.iter().chain(&groups.stale) {
        stale.push(Incomplete {
            resource: format!("API group {gv}"),
            namespace: None,
            error: format!(
                "unable to retrieve the complete list of server APIs: {}",
                why_stale(api, gv).await
            ),
        });
    }
    Ok(Discovered { catalog, stale })
}

/// One document: the cached one when the server says it has not changed.
async fn document(
    api: &Api,
    path: &str,
    cached: Option<&Document>,
) -> Result<(Document, bool), ApiError> {
    let etag = cached.and_then(|d| d.etag.as_deref());
    let answer = api.fetch(path, Some(AGGREGATED_DISCOVERY), etag).await?;
    if answer.status == 304
        && let Some(doc) = cached
    {
        return Ok((doc.clone(), true));
    }
    let value: Value = parse(&answer.body)?;
    if value.get("kind").and_then(Value::as_str) != Some("APIGroupDiscoveryList") {
        return Err(ApiError::Other(
            406,
            "the server does not support aggregated discovery (Kubernetes 1.30 or later is needed)"
                .into(),
        ));
    }
    Ok((
        Document {
            etag: answer.etag,
            catalog: Catalog::from_aggregated(&[&value]),
            stale: stale_versions(&value),
        },
        false,
    ))
}

/// Why an aggregated API is not answering, from its APIService's
/// `Available` condition (the server's own words); asked only for a group
/// that discovery found stale.
async fn why_stale(api: &Api, group_version: &str) -> String {
    let fallback = "its API server did not answer discovery".to_string();
    let Some((group, version)) = group_version.split_once('/') else {
        return fallback;
    };
    let path = format!("/apis/apiregistration.k8s.io/v1/apiservices/{version}.{group}");
    let Ok(service) = api.get(&path, None).await else {
        return fallback;
    };
    service
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Available"))
        .map(|c| {
            let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            format!(
                "APIService {version}.{group} is not available: {} ({})",
                text("message"),
                text("reason")
            )
        })
        .unwrap_or(fallback)
}

/// Group versions whose discovery is stale: their aggregated API server
/// did not answer the API server's own discovery.
fn stale_versions(doc: &Value) -> Vec<String> {
    crate::catalog::group_versions(doc)
        .into_iter()
        .filter(|(_, v)| v.get("freshness").and_then(Value::as_str) == Some("Stale"))
        .map(|(name, v)| {
            let version = v.get("version").and_then(Value::as_str).unwrap_or("");
            if name.is_empty() {
                version.to_string()
            } else {
                format!("{name}/{version}")
            }
        })
        .collect()
}

/// The cached catalog, when the last run found every API group fresh: an
/// answer that names its types reads with it and revalidates only if a
/// read finds a type gone (see [`super::live`]).
pub fn cached_clean(cache_dir: &Path, server: &str) -> Option<Catalog> {
    let file = read_cache_file(&cache_path(cache_dir, server), server)?;
    (file.core.stale.is_empty() && file.groups.stale.is_empty())
        .then(|| joined(&file.core.catalog, &file.groups.catalog))
}

/// The cached catalog whatever its age: for shell completion, where a stale
/// answer beats none when the server does not answer.
pub fn cached(cache_dir: &Path, server: &str) -> Option<Catalog> {
    let file = read_cache_file(&cache_path(cache_dir, server), server)?;
    Some(joined(&file.core.catalog, &file.groups.catalog))
}

/// The catalogs of the two documents as one (their groups are disjoint).
fn joined(core: &Catalog, groups: &Catalog) -> Catalog {
    Catalog {
        types: core.types.iter().chain(&groups.types).cloned().collect(),
        other_versions: core
            .other_versions
            .iter()
            .chain(&groups.other_versions)
            .cloned()
            .collect(),
    }
}

fn read_cache_file(path: &Path, server: &str) -> Option<CacheFile> {
    let file: CacheFile = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (file.version == CACHE_VERSION && file.server == server).then_some(file)
}

/// Best effort: a cache that cannot be written only costs full answers.
fn write_cache(path: &Path, server: &str, core: &Document, groups: &Document) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let file = CacheFile {
        version: CACHE_VERSION,
        server: server.to_string(),
        core: core.clone(),
        groups: groups.clone(),
    };
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    if let Ok(bytes) = serde_json::to_vec(&file)
        && std::fs::write(&tmp, bytes).is_ok()
    {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// The default cache directory: `$HOME/.kube/cache`, as kubectl.
pub fn default_cache_dir() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(".kube")
        .join("cache")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stale_group_versions_are_named() {
        let doc = json!({"kind": "APIGroupDiscoveryList", "items": [
            {"metadata": {"name": "metrics.k8s.io"}, "versions": [{"version": "v1beta1", "freshness": "Stale", "resources": []}]},
            {"metadata": {"name": "apps"}, "versions": [{"version": "v1", "freshness": "Current", "resources": []}]}]});
        assert_eq!(stale_versions(&doc), ["metrics.k8s.io/v1beta1"]);
    }
}
