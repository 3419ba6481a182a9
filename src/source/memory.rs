//! An in-memory cluster behind the [`Reader`] seam, for tests: it answers
//! lists (with label selectors, `metadata.name` and `involvedObject.uid`
//! field selectors, pages and metadata-only projections) and gets from a
//! set of objects, and records every request, so that the request budget
//! of a question and the absence of any full read of Secrets can be proven
//! in milliseconds.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::Value;

use super::read::ApiError;
use super::read::{Page, Read, Reader};

/// One request the in-memory cluster answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub path: String,
    pub accept: &'static str,
}

/// Objects served from memory.
pub struct Memory {
    objects: Vec<Value>,
    /// Requests to plural names (e.g. `secrets`) answered 403.
    forbidden: Vec<String>,
    pub requests: Mutex<Vec<Request>>,
}

impl Memory {
    /// A cluster of these objects. Each is stamped with a resourceVersion
    /// where it has none, as the API server stamps every object (the
    /// list's own version is "1").
    pub fn new(mut objects: Vec<Value>) -> Memory {
        for obj in &mut objects {
            if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.entry("resourceVersion").or_insert_with(|| "1".into());
            }
        }
        Memory {
            objects,
            forbidden: Vec::new(),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Lists and gets of this resource (plural) are forbidden.
    pub fn forbid(mut self, plural: &str) -> Memory {
        self.forbidden.push(plural.to_string());
        self
    }

    /// Every request made so far.
    pub fn requests(&self) -> Vec<Request> {
        crate::sync::locked(&self.requests).clone()
    }

    /// The paths (with their queries) of the requests whose path holds
    /// `needle`, in the order they were made.
    pub fn paths_containing(&self, needle: &str) -> Vec<String> {
        self.requests()
            .into_iter()
            .map(|r| r.path)
            .filter(|p| p.contains(needle))
            .collect()
    }

    fn record(&self, path: String, accept: &'static str) {
        crate::sync::locked(&self.requests).push(Request { path, accept });
    }

    fn matching(&self, read: &Read) -> Result<Vec<Value>, ApiError> {
        if self.forbidden.contains(&read.rt.plural) {
            return Err(ApiError::Forbidden(format!(
                "{} is forbidden: User \"test\" cannot list resource \"{}\"",
                read.rt.plural, read.rt.plural
            )));
        }
        let labels: Option<Vec<(String, Option<String>)>> = read.labels.as_deref().map(|l| {
            l.split(',')
                .map(|term| match term.split_once('=') {
                    Some((k, v)) => (k.to_string(), Some(v.to_string())),
                    None => (term.to_string(), None),
                })
                .collect()
        });
        let fields: Option<(String, String)> = read.fields.as_deref().and_then(|f| {
            let (k, v) = f.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        });
        Ok(self
            .objects
            .iter()
            .filter(|o| {
                let text = |p: &str| o.pointer(p).and_then(Value::as_str);
                let api_version = text("/apiVersion").unwrap_or("");
                let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
                group == read.rt.group
                    && text("/kind") == Some(read.rt.kind.as_str())
                    && (read.namespace.is_none()
                        || text("/metadata/namespace") == read.namespace.as_deref())
                    && read
                        .name
                        .as_deref()
                        .is_none_or(|n| text("/metadata/name") == Some(n))
            })
            .filter(|o| {
                labels.as_ref().is_none_or(|terms| {
                    let l = o.pointer("/metadata/labels");
                    terms.iter().all(|(k, v)| {
                        let have = l.and_then(|l| l.get(k)).and_then(Value::as_str);
                        match v {
                            Some(v) => have == Some(v.as_str()),
                            None => have.is_some(),
                        }
                    })
                })
            })
            .filter(|o| {
                fields.as_ref().is_none_or(|(k, v)| {
                    let pointer = format!("/{}", k.replace('.', "/"));
                    o.pointer(&pointer).and_then(Value::as_str) == Some(v.as_str())
                })
            })
            .map(|o| project(o, read.is_metadata_only()))
            .collect())
    }
}

/// What the server sends: the object, or only its metadata.
fn project(obj: &Value, metadata_only: bool) -> Value {
    if !metadata_only {
        return obj.clone();
    }
    let mut out = serde_json::Map::new();
    out.insert("apiVersion".into(), "meta.k8s.io/v1".into());
    out.insert("kind".into(), "PartialObjectMetadata".into());
    out.insert(
        "metadata".into(),
        obj.get("metadata").cloned().unwrap_or(Value::Null),
    );
    Value::Object(out)
}

impl Reader for Memory {
    async fn page(
        &self,
        read: &Read,
        limit: usize,
        continue_token: Option<&str>,
    ) -> Result<Page, ApiError> {
        self.record(read.page_path(limit, continue_token), read.accept());
        let items = self.matching(read)?;
        let start: usize = continue_token.and_then(|t| t.parse().ok()).unwrap_or(0);
        let end = (start + limit).min(items.len());
        Ok(Page {
            items: items[start.min(end)..end].to_vec(),
            resource_version: "1".into(),
            continue_token: (end < items.len()).then(|| end.to_string()),
        })
    }

    async fn get(&self, read: &Read) -> Result<Option<Value>, ApiError> {
        self.record(read.path(), read.accept());
        Ok(self.matching(read)?.into_iter().next())
    }
}

/// Counts requests by their path without the query: a summary for asserts.
pub fn by_path(requests: &[Request]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in requests {
        let path = r.path.split('?').next().unwrap_or("").to_string();
        *out.entry(path).or_insert(0) += 1;
    }
    out
}
