//! References a controller waits on, read from an object's own fields: the
//! object its operator will not go on without. One reader, for the edge the
//! tree draws and for the bound the judge puts on the wait.

use super::{Object, ObjectRef};

/// The issuer a cert-manager Certificate or CertificateRequest names
/// (`spec.issuerRef`: `kind` Issuer by default, ClusterIssuer cluster-wide,
/// `group` cert-manager.io by default or an external issuer's).
pub fn waits_on(obj: &Object) -> Option<ObjectRef> {
    if obj.group() != "cert-manager.io"
        || !matches!(obj.kind(), "Certificate" | "CertificateRequest")
    {
        return None;
    }
    let name = obj.str("/spec/issuerRef/name").filter(|n| !n.is_empty())?;
    let kind = obj
        .str("/spec/issuerRef/kind")
        .filter(|k| !k.is_empty())
        .unwrap_or("Issuer");
    let group = obj
        .str("/spec/issuerRef/group")
        .filter(|g| !g.is_empty())
        .unwrap_or("cert-manager.io");
    let cluster_wide = kind.ends_with("ClusterIssuer");
    Some(ObjectRef {
        api_version: format!("{group}/v1"),
        kind: kind.to_string(),
        namespace: if cluster_wide {
            None
        } else {
            obj.namespace().map(str::to_string)
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
}
