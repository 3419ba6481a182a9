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
    for source in read_sources(path, recursive, super::local::MAX_SNAPSHOT_BYTES)
        .with_context(|| format!("cannot read the manifests in {path}"))?
    {
        for (index, doc) in parse_documents(&source.text, &source.origin)?
            .into_iter()
            .enumerate()
        {
            let items = super::file::flatten(doc).into_iter().map(|(_, item)| item);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, text).unwrap();
        identities(path.to_str().unwrap(), false)
            .unwrap()
            .into_iter()
            .map(|t| match t {
                TargetSpec::Manifest { kind, name, .. } => format!("{kind}/{name}"),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn manifests_are_read_as_snapshots_are_arrays_and_raw_lists_too() {
        // A JSON array of objects, and a PodList as the API returns it
        // (items without apiVersion and kind): as --snapshot reads them.
        assert_eq!(
            names(
                r#"[{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}]"#
            ),
            vec!["Service/web", "Deployment/web"]
        );
        assert_eq!(
            names(
                r#"{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}"#
            ),
            vec!["Pod/a", "Pod/b"]
        );
    }
}
