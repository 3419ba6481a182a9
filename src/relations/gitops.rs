//! `manages` edges from the inventories GitOps and composition tools write:
//! Flux's `status.inventory.entries` (Kustomization, HelmRelease and other
//! Flux-style objects), Argo CD's Application `status.resources`, and
//! Crossplane's `resourceRefs` (v1 `spec.resourceRefs`, v2
//! `spec.crossplane.resourceRefs`) and a claim's `spec.resourceRef`.

use serde_json::Value;

use super::{Edge, Named};
use crate::model::Object;

pub fn managed(obj: &Object) -> Vec<(Edge, Named)> {
    let mut out: Vec<Named> = Vec::new();
    for e in array(obj.at("/status/inventory/entries")) {
        let version = e.get("v").and_then(Value::as_str).unwrap_or("v1");
        if let Some(n) = e
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| flux_id(id, version))
        {
            out.push(n);
        }
    }
    if obj.group() == "argoproj.io" && obj.kind() == "Application" {
        for r in array(obj.at("/status/resources")) {
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
            let (group, version, kind, name) = (s("group"), s("version"), s("kind"), s("name"));
            if kind.is_empty() || name.is_empty() {
                continue;
            }
            let api_version = match (group, version) {
                ("", v) => v.to_string(),
                (g, v) => format!("{g}/{v}"),
            };
            let ns = Some(s("namespace")).filter(|n| !n.is_empty());
            out.push(Named::new(&api_version, kind, ns, name));
        }
    }
    for refs in ["/spec/resourceRefs", "/spec/crossplane/resourceRefs"] {
        for r in array(obj.at(refs)) {
            out.extend(crossplane_ref(r, obj.namespace()));
        }
    }
    if let Some(r) = obj.at("/spec/resourceRef") {
        out.extend(crossplane_ref(r, obj.namespace()));
    }
    out.into_iter().map(|n| (Edge::Manages, n)).collect()
}

/// A Flux inventory id, `<namespace>_<name>_<group>_<kind>` (the
/// kstatus object-metadata form; `:` in a name is written `__`).
fn flux_id(id: &str, version: &str) -> Option<Named> {
    let mut back = id.rsplitn(3, '_');
    let kind = back.next()?;
    let group = back.next()?;
    let rest = back.next()?;
    let (ns, name) = rest.split_once('_')?;
    if kind.is_empty() || name.is_empty() {
        return None;
    }
    let api_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let ns = Some(ns).filter(|n| !n.is_empty());
    Some(Named::new(&api_version, kind, ns, &name.replace("__", ":")))
}

/// A Crossplane object reference: namespaced where it says so, else in
/// the referrer's namespace when the type is namespaced (resolved later).
fn crossplane_ref(r: &Value, ns: Option<&str>) -> Option<Named> {
    let s = |k: &str| r.get(k).and_then(Value::as_str).filter(|v| !v.is_empty());
    Some(Named::new(
        s("apiVersion")?,
        s("kind")?,
        s("namespace").or(ns),
        s("name")?,
    ))
}

fn array(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    v.and_then(Value::as_array).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flux_ids_parse_core_named_and_cluster_scoped() {
        let n = flux_id("apps_web_apps_Deployment", "v1").unwrap();
        assert_eq!(
            (
                n.api_version.as_str(),
                n.kind.as_str(),
                n.namespace.as_deref(),
                n.name.as_str()
            ),
            ("apps/v1", "Deployment", Some("apps"), "web")
        );
        let n = flux_id("apps_web__Service", "v1").unwrap();
        assert_eq!((n.api_version.as_str(), n.kind.as_str()), ("v1", "Service"));
        let n = flux_id(
            "_system__controller_rbac.authorization.k8s.io_ClusterRole",
            "v1",
        )
        .unwrap();
        assert_eq!((n.namespace, n.name.as_str()), (None, "system:controller"));
        assert!(flux_id("nonsense", "v1").is_none());
    }

    #[test]
    fn a_helm_release_inventory_is_managed() {
        let hr = Object::from_value(serde_json::json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": "podinfo", "namespace": "apps", "uid": "hr"},
            "spec": {"interval": "10m", "chart": {"spec": {"chart": "podinfo", "sourceRef": {"kind": "HelmRepository", "name": "podinfo"}}}},
            "status": {"inventory": {"entries": [
                {"id": "apps_podinfo_apps_Deployment", "v": "v1"},
                {"id": "apps_podinfo__Service", "v": "v1"}]}}}))
        .unwrap();
        let names: Vec<String> = managed(&hr)
            .into_iter()
            .map(|(e, n)| format!("{} {} {}/{}", e.as_str(), n.api_version, n.kind, n.name))
            .collect();
        assert_eq!(
            names,
            vec![
                "manages apps/v1 Deployment/podinfo",
                "manages v1 Service/podinfo"
            ]
        );
    }
}
