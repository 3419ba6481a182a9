//! Upward: who manages an object, from the labels and annotations the
//! GitOps and packaging tools stamp on what they apply (the inventory of
//! `manages` goes the other way, see `gitops.rs`). No list of every type:
//! the labels name the manager.

use super::Named;
use crate::model::{Object, Snapshot};

/// The manager an object's labels name, and which label says so.
pub fn manager_of(obj: &Object) -> Option<(Named, String)> {
    let label = |k: &str| {
        obj.labels
            .get(k)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };
    let annotation = |k: &str| {
        obj.str(&format!("/metadata/annotations/{}", k.replace('/', "~1")))
            .filter(|v| !v.is_empty())
    };
    for (prefix, api_version, kind) in [
        (
            "kustomize.toolkit.fluxcd.io",
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
        ),
        (
            "helm.toolkit.fluxcd.io",
            "helm.toolkit.fluxcd.io/v2",
            "HelmRelease",
        ),
    ] {
        if let Some(name) = label(&format!("{prefix}/name")) {
            let ns = label(&format!("{prefix}/namespace")).or(obj.namespace());
            return Some((
                Named::new(api_version, kind, ns, name),
                format!("label {prefix}/name"),
            ));
        }
    }
    // Crossplane: a composite resource names the claim that made it (v1
    // `spec.claimRef`, v2 `spec.crossplane.claimRef`); what it composes is
    // owned by it, so the owner chain reaches it.
    for at in ["/spec/claimRef", "/spec/crossplane/claimRef"] {
        let field = |k: &str| obj.str(&format!("{at}/{k}")).filter(|v| !v.is_empty());
        if let (Some(api_version), Some(kind), Some(name)) =
            (field("apiVersion"), field("kind"), field("name"))
        {
            let ns = field("namespace").or(obj.namespace());
            return Some((
                Named::new(api_version, kind, ns, name),
                format!("field {}", at.trim_start_matches('/').replace('/', ".")),
            ));
        }
    }
    // Argo CD: `<app>:<group>/<kind>:<namespace>/<name>`; an app outside
    // Argo CD's own namespace is written `<namespace>_<app>`.
    if let Some(app) = annotation("argocd.argoproj.io/tracking-id")
        .and_then(|id| argo_application(id.split(':').next().unwrap_or("")))
    {
        return Some((app, "annotation argocd.argoproj.io/tracking-id".into()));
    }
    // Argo CD with label tracking, under the key its docs recommend
    // instead of `app.kubernetes.io/instance` (which Helm sets too, and so
    // names no manager on its own): the Application, in Argo CD's namespace.
    if let Some(app) = label("argocd.argoproj.io/instance").and_then(argo_application) {
        return Some((app, "label argocd.argoproj.io/instance".into()));
    }
    None
}

/// An Argo CD Application as tracking names it: `<app>`, in Argo CD's own
/// namespace, or `<namespace>_<app>` for one outside it.
fn argo_application(app: &str) -> Option<Named> {
    let (ns, name) = app.split_once('_').unwrap_or(("argocd", app));
    (!name.is_empty()).then(|| Named::new("argoproj.io/v1alpha1", "Application", Some(ns), name))
}

/// Where a GitOps object takes what it applies from, and the revision it
/// last applied, where its status has them: `from GitRepository/fleet at
/// revision main@sha1:4f2c…`. Flux (`spec.sourceRef`,
/// `status.lastAppliedRevision`; a HelmRelease's chart source), Argo CD
/// (`spec.source.repoURL`, `status.sync.revision`).
pub fn source_of(manager: &Object) -> Option<String> {
    let text = |p: &str| manager.str(p).filter(|v| !v.is_empty());
    let source = match manager.group() {
        "argoproj.io" => text("/spec/source/repoURL").map(str::to_string),
        _ => {
            let at = [
                "/spec/sourceRef",
                "/spec/chart/spec/sourceRef",
                "/spec/chartRef",
            ]
            .into_iter()
            .find(|at| text(&format!("{at}/name")).is_some())?;
            let kind = text(&format!("{at}/kind")).unwrap_or("source");
            Some(format!("{kind}/{}", text(&format!("{at}/name"))?))
        }
    };
    let revision = text("/status/lastAppliedRevision")
        .or_else(|| text("/status/sync/revision"))
        .or_else(|| text("/status/lastAttemptedRevision"));
    let parts: Vec<String> = source
        .map(|s| format!("from {s}"))
        .into_iter()
        .chain(revision.map(|r| format!("at revision {r}")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// A Helm release an object belongs to: (namespace, release), from the
/// labels and annotations Helm writes.
pub fn helm_release(obj: &Object) -> Option<(String, String)> {
    if obj
        .labels
        .get("app.kubernetes.io/managed-by")
        .map(String::as_str)
        != Some("Helm")
    {
        return None;
    }
    let annotation = |k: &str| obj.str(&format!("/metadata/annotations/meta.helm.sh~1{k}"));
    let name = annotation("release-name")?;
    let ns = annotation("release-namespace").or(obj.namespace())?;
    Some((ns.to_string(), name.to_string()))
}

/// The newest revision of a Helm release, from its release Secrets'
/// metadata (never their data): (revision, status label).
pub fn helm_revision(snap: &Snapshot, ns: &str, release: &str) -> Option<(u64, String)> {
    snap.objects()
        .iter()
        .filter(|o| {
            o.kind() == "Secret"
                && o.namespace() == Some(ns)
                && o.labels.get("owner").map(String::as_str) == Some("helm")
                && o.labels.get("name").map(String::as_str) == Some(release)
        })
        .filter_map(|o| {
            let version: u64 = o.labels.get("version")?.parse().ok()?;
            Some((version, o.labels.get("status").cloned().unwrap_or_default()))
        })
        .max_by_key(|(v, _)| *v)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: serde_json::Value) -> Object {
        Object::from_value(v).unwrap()
    }

    #[test]
    fn managers_are_named_by_their_labels_and_annotations() {
        let flux = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "1",
                "labels": {"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}}}));
        let (n, how) = manager_of(&flux).unwrap();
        assert_eq!(
            (n.kind.as_str(), n.namespace.as_deref(), n.name.as_str()),
            ("Kustomization", Some("flux-system"), "apps")
        );
        assert_eq!(how, "label kustomize.toolkit.fluxcd.io/name");
        let argo = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "2",
                "annotations": {"argocd.argoproj.io/tracking-id": "shop:apps/Deployment:shop/web"}}}));
        let (n, _) = manager_of(&argo).unwrap();
        assert_eq!(
            (n.kind.as_str(), n.namespace.as_deref(), n.name.as_str()),
            ("Application", Some("argocd"), "shop")
        );
        let label = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "4",
                "labels": {"argocd.argoproj.io/instance": "team-a_shop"}}}));
        let (n, how) = manager_of(&label).unwrap();
        assert_eq!(
            (n.namespace.as_deref(), n.name.as_str(), how.as_str()),
            (Some("team-a"), "shop", "label argocd.argoproj.io/instance")
        );
        // Helm sets app.kubernetes.io/instance too: it names no Argo CD app.
        let instance = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "5",
                "labels": {"app.kubernetes.io/instance": "shop"}}}));
        assert!(manager_of(&instance).is_none());
        let helm = obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "3",
                "labels": {"app.kubernetes.io/managed-by": "Helm"},
                "annotations": {"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": "shop"}}}));
        assert!(manager_of(&helm).is_none());
        assert_eq!(helm_release(&helm), Some(("shop".into(), "web".into())));
        let secret = |v: u64, status: &str| {
            obj(json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": format!("sh.helm.release.v1.web.v{v}"), "namespace": "shop", "uid": format!("s{v}"),
                    "labels": {"owner": "helm", "name": "web", "version": v.to_string(), "status": status}}}))
        };
        let snap = Snapshot::new(
            vec![secret(1, "superseded"), secret(2, "failed")],
            vec![],
            vec![],
            jiff::Timestamp::UNIX_EPOCH,
        );
        assert_eq!(
            helm_revision(&snap, "shop", "web"),
            Some((2, "failed".into()))
        );
    }

    #[test]
    fn a_managers_source_and_revision_are_read_from_its_documented_fields() {
        let ks = obj(
            json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system", "uid": "k"},
            "spec": {"sourceRef": {"kind": "GitRepository", "name": "fleet"}, "path": "./apps"},
            "status": {"lastAppliedRevision": "main@sha1:4f2c1a9"}}),
        );
        assert_eq!(
            source_of(&ks).as_deref(),
            Some("from GitRepository/fleet at revision main@sha1:4f2c1a9")
        );
        let hr = obj(
            json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": "web", "namespace": "shop", "uid": "h"},
            "spec": {"chart": {"spec": {"chart": "web", "sourceRef": {"kind": "HelmRepository", "name": "charts"}}}},
            "status": {"lastAttemptedRevision": "1.4.2"}}),
        );
        assert_eq!(
            source_of(&hr).as_deref(),
            Some("from HelmRepository/charts at revision 1.4.2")
        );
        let app = obj(
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": "shop", "namespace": "argocd", "uid": "a"},
            "spec": {"source": {"repoURL": "https://git.example.com/shop.git", "path": "deploy"}},
            "status": {"sync": {"status": "OutOfSync", "revision": "9d1e2f0"}}}),
        );
        assert_eq!(
            source_of(&app).as_deref(),
            Some("from https://git.example.com/shop.git at revision 9d1e2f0")
        );
        let bare = obj(
            json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "x", "namespace": "flux-system", "uid": "x"}}),
        );
        assert_eq!(source_of(&bare), None);
    }

    #[test]
    fn a_crossplane_composite_is_managed_by_its_claim() {
        // As Crossplane v1 writes it; v2 keeps it under spec.crossplane.
        let xr = obj(
            json!({"apiVersion": "example.org/v1alpha1", "kind": "XPostgreSQLInstance",
            "metadata": {"name": "db-7x2kq", "uid": "xr", "labels": {"crossplane.io/claim-name": "db", "crossplane.io/claim-namespace": "shop"}},
            "spec": {"claimRef": {"apiVersion": "example.org/v1alpha1", "kind": "PostgreSQLInstance", "name": "db", "namespace": "shop"},
                "compositionRef": {"name": "aws"}}}),
        );
        let (n, how) = manager_of(&xr).unwrap();
        assert_eq!(
            (n.kind.as_str(), n.namespace.as_deref(), n.name.as_str()),
            ("PostgreSQLInstance", Some("shop"), "db")
        );
        assert_eq!(how, "field spec.claimRef");
        let v2 = obj(json!({"apiVersion": "example.org/v1", "kind": "XBucket",
            "metadata": {"name": "b-1", "uid": "xb"},
            "spec": {"crossplane": {"claimRef": {"apiVersion": "example.org/v1", "kind": "Bucket", "name": "b", "namespace": "data"}}}}));
        let (n, how) = manager_of(&v2).unwrap();
        assert_eq!((n.kind.as_str(), n.name.as_str()), ("Bucket", "b"));
        assert_eq!(how, "field spec.crossplane.claimRef");
    }
}
