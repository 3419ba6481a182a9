//! Aggregated discovery (two requests: `/api` and `/apis`) with an on-disk
//! cache per server and a TTL, under the user's kube cache directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::api::{AGGREGATED_DISCOVERY, Api, ApiError};
use crate::catalog::Catalog;

/// How long a cached catalog is trusted. A type that does not resolve
/// refreshes the cache at once, so new CRDs are found without waiting.
pub const TTL: Duration = Duration::from_secs(6 * 3600);

#[derive(Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    server: String,
    catalog: Catalog,
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

/// The catalog from the cache when fresh, else from the server (and cached).
/// Returns whether it came from the cache.
pub async fn catalog(
    api: &Api,
    cache_dir: &Path,
    server: &str,
    refresh: bool,
) -> Result<(Catalog, bool), ApiError> {
    let path = cache_path(cache_dir, server);
    if !refresh && let Some(catalog) = read_cache(&path, server) {
        return Ok((catalog, true));
    }
    let (core, groups) = futures::join!(
        api.get("/api", Some(AGGREGATED_DISCOVERY)),
        api.get("/apis", Some(AGGREGATED_DISCOVERY))
    );
    let (core, groups) = (core?, groups?);
    if core.get("kind").and_then(|k| k.as_str()) != Some("APIGroupDiscoveryList") {
        return Err(ApiError::Other(
            406,
            "the server does not support aggregated discovery (Kubernetes 1.30 or later is needed)"
                .into(),
        ));
    }
    let catalog = Catalog::from_aggregated(&[&core, &groups]);
    write_cache(&path, server, &catalog);
    Ok((catalog, false))
}

/// The cached catalog whatever its age: for shell completion, where a stale
/// answer beats none when the server does not answer.
pub fn cached(cache_dir: &Path, server: &str) -> Option<Catalog> {
    read_cache_file(&cache_path(cache_dir, server), server)
}

fn read_cache(path: &Path, server: &str) -> Option<Catalog> {
    let age = SystemTime::now()
        .duration_since(std::fs::metadata(path).ok()?.modified().ok()?)
        .ok()?;
    if age > TTL {
        return None;
    }
    read_cache_file(path, server)
}

fn read_cache_file(path: &Path, server: &str) -> Option<Catalog> {
    let file: CacheFile = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (file.version == 1 && file.server == server && !file.catalog.types.is_empty())
        .then_some(file.catalog)
}

/// Best effort: a cache that cannot be written only costs two requests.
fn write_cache(path: &Path, server: &str, catalog: &Catalog) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let file = CacheFile {
        version: 1,
        server: server.to_string(),
        catalog: catalog.clone(),
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
