//! The cluster's resource types, as aggregated discovery describes them, and
//! the pure resolution of a user's TYPE spelling (`deploy`, `deployments.apps`,
//! `Deployment.v1.apps`, a short name or a category) to a type.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The aggregated discovery documents (`/api`, `/apis`) a v1.36 API server
/// answered, recorded from the test control plane.
const RECORDED_API: &str = include_str!("../tests/fixtures/discovery/api.json");
const RECORDED_APIS: &str = include_str!("../tests/fixtures/discovery/apis.json");

/// The built-in types as a v1.36 API server serves them: their plurals,
/// short names, categories, scopes and status subresources. A snapshot file
/// carries no discovery, so this is how it knows what the live catalog
/// says: `status ep/web` resolves offline as it does live.
pub fn builtin_types() -> &'static Catalog {
    static BUILT: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let parse = |text: &str| -> Value {
            serde_json::from_str(text).expect("the recorded discovery documents parse")
        };
        let (api, apis) = (parse(RECORDED_API), parse(RECORDED_APIS));
        Catalog::from_aggregated(&[&api, &apis])
    })
}

/// The built-in kinds that make pods from a template (a CronJob by way of
/// its Jobs): their children explain their verdict, and `set image`,
/// `rollout` and `logs` act on them. The one list of them.
pub const POD_WORKLOADS: &[(&str, &str)] = &[
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
];

/// Whether a kind is one of [`POD_WORKLOADS`].
pub fn makes_pods(group: &str, kind: &str) -> bool {
    POD_WORKLOADS.contains(&(group, kind))
}

/// Whether a built-in kind is served with a status subresource.
pub fn builtin_has_status(group: &str, kind: &str) -> bool {
    builtin_types()
        .by_kind(group, kind)
        .is_some_and(|t| t.has_status)
}

/// Whether a sweep ("every root object in the namespace") judges objects
/// of this type: every namespaced, listable type with a status (a status
/// subresource, or any custom resource, which may keep status without
/// one). Events and EndpointSlices are read for others, never judged
/// alone. The one definition, live and offline.
pub fn is_swept(group: &str, kind: &str, namespaced: bool, has_status: bool) -> bool {
    namespaced
        && (has_status || !is_builtin_group(group))
        && !matches!(
            (group, kind),
            ("", "Event") | ("events.k8s.io", "Event") | ("discovery.k8s.io", "EndpointSlice")
        )
}

/// One resource type at its preferred version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The plural resource name used in URLs, e.g. `deployments`.
    pub plural: String,
    pub singular: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    pub has_status: bool,
}

impl ResourceType {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps`, or `pods` for the core group: how kubectl names it.
    pub fn full_name(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    pub fn can(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// The URL path of the collection, in a namespace when given.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match (self.namespaced, namespace) {
            (true, Some(ns)) => format!("{base}/namespaces/{ns}/{}", self.plural),
            _ => format!("{base}/{}", self.plural),
        }
    }
}

/// Every resource type the server serves, preferred versions first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub types: Vec<ResourceType>,
    /// The same types at their other served versions, for a TYPE spelled
    /// `Kind.version.group`.
    #[serde(default)]
    pub other_versions: Vec<ResourceType>,
}

/// Why a TYPE did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownType {
    pub spelling: String,
    pub suggestions: Vec<String>,
}

impl std::fmt::Display for UnknownType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the server doesn't have a resource type \"{}\"",
            self.spelling
        )
    }
}

impl Catalog {
    /// Builds the catalog from the two aggregated discovery documents
    /// (`/api` and `/apis`, `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`).
    /// Within a group the first listed version is the preferred one; a
    /// resource only served at a later version is still included.
    pub fn from_aggregated(documents: &[&Value]) -> Catalog {
        let mut types: Vec<ResourceType> = Vec::new();
        let mut other_versions: Vec<ResourceType> = Vec::new();
        // (group, plural) already taken, so that each type costs one look.
        let mut taken: std::collections::HashSet<(String, String)> = Default::default();
        for doc in documents {
            for (group_name, version) in group_versions(doc) {
                let version_name = version.get("version").and_then(Value::as_str).unwrap_or("");
                for res in version
                    .get("resources")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(rt) = parse_resource(group_name, version_name, res) else {
                        continue;
                    };
                    if taken.insert((rt.group.clone(), rt.plural.clone())) {
                        types.push(rt);
                    } else {
                        other_versions.push(rt);
                    }
                }
            }
        }
        Catalog {
            types,
            other_versions,
        }
    }

    /// The type of a Kind in a group (from an apiVersion), e.g. for an owner reference.
    pub fn by_kind(&self, group: &str, kind: &str) -> Option<&ResourceType> {
        self.types
            .iter()
            .find(|t| t.group == group && t.kind == kind)
    }

    /// Resolves a TYPE as kubectl spells it. Matching is case-insensitive.
    /// Where a spelling is ambiguous across groups, the built-in groups win,
    /// as with kubectl.
    pub fn resolve(&self, spelling: &str) -> Result<&ResourceType, UnknownType> {
        let lower = spelling.to_ascii_lowercase();
        let names = |t: &ResourceType, name: &str| {
            t.plural == name
                || t.singular == name
                || t.kind.eq_ignore_ascii_case(name)
                || t.short_names.iter().any(|s| s == name)
        };
        // 1. A bare name, in any group.
        let mut found: Vec<&ResourceType> =
            self.types.iter().filter(|t| names(t, &lower)).collect();
        // 2. NAME.GROUP, then 3. NAME.VERSION.GROUP.
        if found.is_empty()
            && let Some((name, rest)) = lower.split_once('.')
        {
            found = self
                .types
                .iter()
                .filter(|t| names(t, name) && t.group == rest)
                .collect();
            if found.is_empty()
                && let Some((version, group)) = rest.split_once('.')
            {
                // The preferred version, else another served one.
                found = self
                    .types
                    .iter()
                    .chain(&self.other_versions)
                    .filter(|t| names(t, name) && t.version == version && t.group == group)
                    .collect();
            }
        }
        found.sort_by_key(|t| !is_builtin_group(&t.group));
        found.first().copied().ok_or_else(|| UnknownType {
            spelling: spelling.to_string(),
            suggestions: self.suggest(&lower),
        })
    }

    /// Types in a category, such as `all`.
    pub fn category(&self, name: &str) -> Vec<&ResourceType> {
        self.types
            .iter()
            .filter(|t| t.categories.iter().any(|c| c == name))
            .collect()
    }

    /// Up to three known names closest to a misspelling.
    fn suggest(&self, wrong: &str) -> Vec<String> {
        let wrong = wrong.split('.').next().unwrap_or(wrong);
        let mut scored: Vec<(usize, String)> = Vec::new();
        for t in &self.types {
            let candidates = std::iter::once(&t.plural)
                .chain(std::iter::once(&t.singular))
                .chain(t.short_names.iter());
            let best = candidates
                .map(|c| strsim::levenshtein(wrong, c))
                .min()
                .unwrap_or(usize::MAX);
            let limit = (wrong.len() / 3).clamp(1, 3);
            if best <= limit || (wrong.len() >= 3 && t.plural.starts_with(wrong)) {
                scored.push((best, t.full_name()));
            }
        }
        scored.sort();
        scored.dedup_by(|a, b| a.1 == b.1);
        scored.into_iter().take(3).map(|(_, n)| n).collect()
    }
}

fn parse_resource(group: &str, version: &str, res: &Value) -> Option<ResourceType> {
    let text = |k: &str| res.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let list = |k: &str| -> Vec<String> {
        res.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let plural = text("resource");
    let kind = res
        .pointer("/responseKind/kind")
        .and_then(Value::as_str)?
        .to_string();
    if plural.is_empty() || plural.contains('/') {
        return None;
    }
    let has_status = res
        .get("subresources")
        .and_then(Value::as_array)
        .is_some_and(|subs| {
            subs.iter()
                .any(|s| s.get("subresource").and_then(Value::as_str) == Some("status"))
        });
    let singular = Some(text("singularResource"))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| kind.to_ascii_lowercase());
    Some(ResourceType {
        group: group.to_string(),
        version: version.to_string(),
        kind,
        plural,
        singular,
        short_names: list("shortNames"),
        categories: list("categories"),
        namespaced: res.get("scope").and_then(Value::as_str) == Some("Namespaced"),
        verbs: list("verbs"),
        has_status,
    })
}

/// Every (group name, version entry) of an aggregated discovery document,
/// in the server's order (preferred version first within a group).
pub fn group_versions(doc: &Value) -> Vec<(&str, &Value)> {
    let mut out = Vec::new();
    for group in doc
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = group
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        out.extend(
            group
                .get("versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|v| (name, v)),
        );
    }
    out
}

/// Groups the Kubernetes API server serves itself. A list, not a pattern:
/// custom resources live under `.k8s.io` groups too
/// (`gateway.networking.k8s.io`, `snapshot.storage.k8s.io`), and an
/// aggregated API (`metrics.k8s.io`) is served by someone else.
pub fn is_builtin_group(group: &str) -> bool {
    matches!(
        group,
        "" | "apps"
            | "batch"
            | "autoscaling"
            | "policy"
            | "extensions"
            | "admissionregistration.k8s.io"
            | "apiextensions.k8s.io"
            | "apiregistration.k8s.io"
            | "authentication.k8s.io"
            | "authorization.k8s.io"
            | "certificates.k8s.io"
            | "coordination.k8s.io"
            | "discovery.k8s.io"
            | "events.k8s.io"
            | "flowcontrol.apiserver.k8s.io"
            | "internal.apiserver.k8s.io"
            | "networking.k8s.io"
            | "node.k8s.io"
            | "rbac.authorization.k8s.io"
            | "resource.k8s.io"
            | "scheduling.k8s.io"
            | "storage.k8s.io"
            | "storagemigration.k8s.io"
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn built_in_groups_are_a_list_not_a_suffix() {
        for group in ["", "apps", "batch", "networking.k8s.io", "storage.k8s.io"] {
            assert!(is_builtin_group(group), "{group:?}");
        }
        for group in [
            "gateway.networking.k8s.io",
            "snapshot.storage.k8s.io",
            "metrics.k8s.io",
            "cert-manager.io",
        ] {
            assert!(!is_builtin_group(group), "{group:?}");
        }
    }

    /// A trimmed copy of what a v1.36 API server answers on /api and /apis,
    /// plus one custom resource.
    pub(crate) fn catalog() -> Catalog {
        let res = |plural: &str, kind: &str, scope: &str, short: &[&str], status: bool| {
            json!({"resource": plural, "responseKind": {"group": "", "version": "", "kind": kind}, "scope": scope,
                   "singularResource": kind.to_ascii_lowercase(), "verbs": ["get", "list", "watch"], "shortNames": short,
                   "categories": if kind == "Pod" || kind == "Deployment" || kind == "Widget" { json!(["all"]) } else { json!([]) },
                   "subresources": if status { json!([{"subresource": "status", "verbs": ["get"]}]) } else { json!([]) }})
        };
        let core = json!({"kind": "APIGroupDiscoveryList", "items": [{"metadata": {"name": ""}, "versions": [{"version": "v1", "resources": [
            res("pods", "Pod", "Namespaced", &["po"], true),
            res("nodes", "Node", "Cluster", &["no"], true),
            res("configmaps", "ConfigMap", "Namespaced", &["cm"], false),
            res("events", "Event", "Namespaced", &["ev"], false)]}]}]});
        let apis = json!({"kind": "APIGroupDiscoveryList", "items": [
            {"metadata": {"name": "apps"}, "versions": [{"version": "v1", "resources": [
                res("deployments", "Deployment", "Namespaced", &["deploy"], true),
                res("replicasets", "ReplicaSet", "Namespaced", &["rs"], true)]}]},
            {"metadata": {"name": "events.k8s.io"}, "versions": [{"version": "v1", "resources": [
                res("events", "Event", "Namespaced", &["ev"], false)]}]},
            {"metadata": {"name": "example.com"}, "versions": [
                {"version": "v2", "resources": [res("widgets", "Widget", "Namespaced", &["wd"], true)]},
                {"version": "v1", "resources": [res("widgets", "Widget", "Namespaced", &["wd"], true),
                                                res("gadgets", "Gadget", "Cluster", &[], false)]}]},
            {"metadata": {"name": "other.io"}, "versions": [{"version": "v1", "resources": [
                res("deployments", "Deployment", "Namespaced", &[], false)]}]}]});
        Catalog::from_aggregated(&[&core, &apis])
    }

    #[test]
    fn resolves_every_kubectl_spelling() {
        let cat = catalog();
        for spelling in [
            "deploy",
            "deployment",
            "deployments",
            "Deployment",
            "deployments.apps",
            "deployment.apps",
            "Deployment.v1.apps",
            "deployments.v1.apps",
        ] {
            let t = cat
                .resolve(spelling)
                .unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(
                (t.group.as_str(), t.plural.as_str()),
                ("apps", "deployments"),
                "{spelling}"
            );
        }
        assert_eq!(cat.resolve("po").unwrap().kind, "Pod");
        assert_eq!(
            cat.resolve("wd").unwrap().version,
            "v2",
            "preferred version first"
        );
        assert_eq!(
            cat.resolve("gadgets").unwrap().version,
            "v1",
            "a type only at a later version"
        );
        for spelling in [
            "Widget.v1.example.com",
            "widgets.v1.example.com",
            "wd.v1.example.com",
        ] {
            let t = cat
                .resolve(spelling)
                .unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(
                (t.version.as_str(), t.plural.as_str()),
                ("v1", "widgets"),
                "{spelling}"
            );
            assert_eq!(
                t.collection_path(Some("a")),
                "/apis/example.com/v1/namespaces/a/widgets"
            );
        }
        assert_eq!(cat.resolve("Widget.v2.example.com").unwrap().version, "v2");
        assert_eq!(
            cat.resolve("widgets.example.com").unwrap().version,
            "v2",
            "preferred by default"
        );
        assert!(cat.resolve("Widget.v3.example.com").is_err(), "not served");
        assert_eq!(
            cat.resolve("deployments.other.io").unwrap().group,
            "other.io"
        );
        assert!(!cat.resolve("nodes").unwrap().namespaced);
        assert!(cat.resolve("pods").unwrap().has_status);
        assert!(!cat.resolve("cm").unwrap().has_status);
    }

    #[test]
    fn unknown_types_suggest_the_closest_names() {
        let cat = catalog();
        let err = cat.resolve("deploymnets").unwrap_err();
        assert_eq!(
            err.suggestions,
            vec!["deployments.apps", "deployments.other.io"]
        );
        assert_eq!(
            err.to_string(),
            "the server doesn't have a resource type \"deploymnets\""
        );
        assert_eq!(
            cat.resolve("widget.v1.nowhere.io").unwrap_err().suggestions[0],
            "widgets.example.com",
            "closest first"
        );
        assert!(cat.resolve("zzzzzzzz").unwrap_err().suggestions.is_empty());
    }

    #[test]
    fn paths_and_categories() {
        let cat = catalog();
        assert_eq!(
            cat.resolve("deploy").unwrap().collection_path(Some("shop")),
            "/apis/apps/v1/namespaces/shop/deployments"
        );
        assert_eq!(
            cat.resolve("pods").unwrap().collection_path(None),
            "/api/v1/pods"
        );
        assert_eq!(
            cat.resolve("nodes").unwrap().collection_path(Some("shop")),
            "/api/v1/nodes"
        );
        let all: Vec<_> = cat.category("all").iter().map(|t| t.kind.clone()).collect();
        assert_eq!(all, vec!["Pod", "Deployment", "Widget", "Deployment"]);
        assert_eq!(
            cat.by_kind("apps", "ReplicaSet").unwrap().plural,
            "replicasets"
        );
    }
}
