//! References a controller waits on, read from an object's own fields: the
//! object its operator will not go on without. One reader, for the edge the
//! tree draws and for the bound the judge puts on the wait.

use super::{Object, ObjectRef};

/// A reference a kind's controller waits on: where it is, and what it
/// names when the field says no kind or group.
struct WaitsOn {
    group: &'static str,
    kinds: &'static [&'static str],
    /// The reference: an object with `name`, and maybe `kind`, `group`,
    /// `namespace`.
    at: &'static str,
    kind: &'static str,
    ref_group: &'static str,
}

/// The references controllers wait on, from their documented types:
/// cert-manager's issuer, External Secrets' store, Flux's source.
const WAITS_ON: &[WaitsOn] = &[
    WaitsOn {
        group: "cert-manager.io",
        kinds: &["Certificate", "CertificateRequest"],
        at: "/spec/issuerRef",
        kind: "Issuer",
        ref_group: "cert-manager.io",
    },
    WaitsOn {
        group: "external-secrets.io",
        kinds: &["ExternalSecret", "PushSecret"],
        at: "/spec/secretStoreRef",
        kind: "SecretStore",
        ref_group: "external-secrets.io",
    },
    WaitsOn {
        group: "kustomize.toolkit.fluxcd.io",
        kinds: &["Kustomization"],
        at: "/spec/sourceRef",
        kind: "GitRepository",
        ref_group: "source.toolkit.fluxcd.io",
    },
    WaitsOn {
        group: "helm.toolkit.fluxcd.io",
        kinds: &["HelmRelease"],
        at: "/spec/chart/spec/sourceRef",
        kind: "HelmRepository",
        ref_group: "source.toolkit.fluxcd.io",
    },
];

/// The object a controller waits on that this one names: a cert-manager
/// Certificate's or CertificateRequest's `spec.issuerRef` (an Issuer, or a
/// ClusterIssuer cluster-wide, or an external issuer's kind and group), an
/// ExternalSecret's `spec.secretStoreRef` (a SecretStore or a
/// ClusterSecretStore), a Flux Kustomization's `spec.sourceRef` or a
/// HelmRelease's `spec.chart.spec.sourceRef`. A kind whose name starts
/// with `Cluster` is cluster-scoped; a reference's own namespace wins.
pub fn waits_on(obj: &Object) -> Option<ObjectRef> {
    let w = WAITS_ON
        .iter()
        .find(|w| w.group == obj.group() && w.kinds.contains(&obj.kind()))?;
    let field = |k: &str| obj.str(&format!("{}/{k}", w.at)).filter(|v| !v.is_empty());
    let name = field("name")?;
    let kind = field("kind").unwrap_or(w.kind);
    let group = field("group")
        .or_else(|| field("apiVersion").map(super::group_of))
        .filter(|g| !g.is_empty())
        .unwrap_or(w.ref_group);
    let cluster_wide = kind.starts_with("Cluster") || kind.contains("ClusterIssuer");
    Some(ObjectRef {
        api_version: format!("{group}/v1"),
        kind: kind.to_string(),
        namespace: if cluster_wide {
            None
        } else {
            field("namespace").or(obj.namespace()).map(str::to_string)
        },
        name: name.to_string(),
        uid: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_issuer_reference_defaults_as_cert_manager_does() {
        let cert = |issuer: serde_json::Value| {
            Object::from_value(
                json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"secretName": "web-tls", "issuerRef": issuer}}),
            )
            .unwrap()
        };
        let r = waits_on(&cert(json!({"name": "ca"}))).unwrap();
        assert_eq!(
            (r.kind.as_str(), r.group(), r.namespace.as_deref()),
            ("Issuer", "cert-manager.io", Some("shop"))
        );
        let r = waits_on(&cert(json!({"name": "le", "kind": "ClusterIssuer"}))).unwrap();
        assert_eq!(r.namespace, None);
        let r = waits_on(&cert(json!({"name": "pca", "kind": "AWSPCAClusterIssuer", "group": "awspca.cert-manager.io"})))
            .unwrap();
        assert_eq!(
            (r.group(), r.namespace.as_deref()),
            ("awspca.cert-manager.io", None)
        );
        assert!(waits_on(&cert(json!({}))).is_none());
    }

    #[test]
    fn a_store_and_a_source_are_waited_on_as_their_types_say() {
        let obj = |v: serde_json::Value| Object::from_value(v).unwrap();
        let es = obj(
            json!({"apiVersion": "external-secrets.io/v1beta1", "kind": "ExternalSecret",
            "metadata": {"name": "db", "namespace": "shop"},
            "spec": {"secretStoreRef": {"name": "vault", "kind": "ClusterSecretStore"}}}),
        );
        let r = waits_on(&es).unwrap();
        assert_eq!(
            (r.kind.as_str(), r.group(), r.namespace.as_deref()),
            ("ClusterSecretStore", "external-secrets.io", None)
        );
        let ks = obj(
            json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system"},
            "spec": {"sourceRef": {"kind": "OCIRepository", "name": "apps", "namespace": "sources"}}}),
        );
        let r = waits_on(&ks).unwrap();
        assert_eq!(
            (r.kind.as_str(), r.group(), r.namespace.as_deref()),
            ("OCIRepository", "source.toolkit.fluxcd.io", Some("sources"))
        );
        let hr = obj(
            json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {"chart": {"spec": {"chart": "web", "sourceRef": {"kind": "HelmRepository", "name": "charts"}}}}}),
        );
        assert_eq!(waits_on(&hr).unwrap().namespace.as_deref(), Some("apps"));
    }
}
