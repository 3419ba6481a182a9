//! `-f FILE|DIR|-`: the identities of the objects manifests declare. Only
//! apiVersion, kind, namespace and name are used; state comes from the
//! cluster (or the snapshot).

use anyhow::{Context, bail};
use serde_json::Value;

use super::file::{parse_documents, read_sources};
use crate::targets::TargetSpec;

/// `recursive`: with `-R`, the manifests in a directory's subdirectories
/// too, as kubectl reads them.
pub fn identities(path: &str, recursive: bool) -> anyhow::Result<Vec<TargetSpec>> {
    let mut out = Vec::new();
    for source in read_sources(path, recursive)
        .with_context(|| format!("cannot read the manifests in {path}"))?
    {
        for (index, doc) in parse_documents(&source.text, &source.origin)?
            .into_iter()
            .enumerate()
        {
            let items = match doc.get("items").and_then(Value::as_array) {
                Some(items)
                    if doc
                        .get("kind")
                        .and_then(Value::as_str)
                        .is_some_and(|k| k.ends_with("List")) =>
                {
                    items.clone()
                }
                _ => vec![doc],
            };
            for item in items {
                let text = |p: &str| {
                    item.pointer(p)
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                };
                let (Some(api_version), Some(kind)) = (text("/apiVersion"), text("/kind")) else {
                    bail!(
                        "{} (document {}) is not a Kubernetes object: it has no apiVersion or kind",
                        source.origin,
                        index + 1
                    );
                };
                let Some(name) = text("/metadata/name") else {
                    bail!(
                        "{kind} in {} (document {}) has no metadata.name, so it cannot be looked up (objects made with generateName cannot be tracked)",
                        source.origin,
                        index + 1
                    );
                };
                out.push(TargetSpec::Manifest {
                    api_version,
                    kind,
                    namespace: text("/metadata/namespace"),
                    name,
                });
            }
        }
    }
    if out.is_empty() {
        bail!("{path} declares no Kubernetes objects");
    }
    Ok(out)
}
