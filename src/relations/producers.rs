//! What makes a Secret: the operators that write one from a resource of
//! their own, named by that resource's documented fields. A pod waiting on
//! a missing Secret then leads to the resource that should have made it,
//! and the step fixes that resource instead of fighting its controller.

use crate::model::{Object, ObjectRef, Snapshot};

/// A kind that makes Secrets, and where its spec names the Secret (the
/// first field present wins; `None` when the resource's own name is used).
struct Producer {
    api_version: &'static str,
    kind: &'static str,
    name_at: &'static [&'static str],
    defaults_to_own_name: bool,
}

const PRODUCERS: &[Producer] = &[
    // External Secrets Operator: spec.target.name, by default the
    // ExternalSecret's name.
    Producer {
        api_version: "external-secrets.io/v1",
        kind: "ExternalSecret",
        name_at: &["/spec/target/name"],
        defaults_to_own_name: true,
    },
    // Sealed Secrets: the Secret has the SealedSecret's name.
    Producer {
        api_version: "bitnami.com/v1alpha1",
        kind: "SealedSecret",
        name_at: &[],
        defaults_to_own_name: true,
    },
    // cert-manager: spec.secretName holds the certificate and key.
    Producer {
        api_version: "cert-manager.io/v1",
        kind: "Certificate",
        name_at: &["/spec/secretName"],
        defaults_to_own_name: false,
    },
    // Vault Secrets Operator: spec.destination.name.
    Producer {
        api_version: "secrets.hashicorp.com/v1beta1",
        kind: "VaultStaticSecret",
        name_at: &["/spec/destination/name"],
        defaults_to_own_name: false,
    },
    Producer {
        api_version: "secrets.hashicorp.com/v1beta1",
        kind: "VaultDynamicSecret",
        name_at: &["/spec/destination/name"],
        defaults_to_own_name: false,
    },
    // 1Password Connect operator: the Secret has the item's name.
    Producer {
        api_version: "onepassword.com/v1",
        kind: "OnePasswordItem",
        name_at: &[],
        defaults_to_own_name: true,
    },
];

/// The types whose objects may make a Secret, to list in a namespace where
/// a pod waits on one (only the served ones are read).
pub fn secret_producer_types() -> impl Iterator<Item = (&'static str, &'static str)> {
    PRODUCERS.iter().map(|p| (p.api_version, p.kind))
}

/// The name of the Secret `obj` makes, when it is a producer.
fn made_secret(obj: &Object) -> Option<&str> {
    let p = PRODUCERS
        .iter()
        .find(|p| obj.kind() == p.kind && obj.group() == crate::model::group_of(p.api_version))?;
    p.name_at
        .iter()
        .find_map(|at| obj.str(at).filter(|n| !n.is_empty()))
        .or(p.defaults_to_own_name.then(|| obj.name()))
}

/// The objects of the snapshot that make the Secret `secret` names.
pub fn producers<'a>(snap: &'a Snapshot, secret: &ObjectRef) -> Vec<&'a Object> {
    if secret.kind != "Secret" || !secret.group().is_empty() {
        return Vec::new();
    }
    let mut found: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.namespace() == secret.namespace.as_deref() && made_secret(o) == Some(&secret.name)
        })
        .collect();
    found.sort_by_key(|o| (o.kind(), o.name()));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn obj(v: Value) -> Object {
        Object::from_value(v).unwrap()
    }

    #[test]
    fn each_producer_names_its_secret_by_its_documented_fields() {
        let es = obj(
            json!({"apiVersion": "external-secrets.io/v1beta1", "kind": "ExternalSecret",
            "metadata": {"name": "billing", "namespace": "shop", "uid": "1"},
            "spec": {"target": {"name": "billing-db"}, "secretStoreRef": {"name": "vault", "kind": "SecretStore"}}}),
        );
        let es_default = obj(
            json!({"apiVersion": "external-secrets.io/v1", "kind": "ExternalSecret",
            "metadata": {"name": "api-key", "namespace": "shop", "uid": "2"}, "spec": {}}),
        );
        let sealed = obj(
            json!({"apiVersion": "bitnami.com/v1alpha1", "kind": "SealedSecret",
            "metadata": {"name": "db-pass", "namespace": "shop", "uid": "3"}, "spec": {"encryptedData": {}}}),
        );
        let cert = obj(
            json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "web", "namespace": "shop", "uid": "4"},
            "spec": {"secretName": "web-tls", "issuerRef": {"name": "letsencrypt"}}}),
        );
        let other = obj(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "web-tls", "namespace": "shop", "uid": "5"}, "spec": {"secretName": "web-tls"}}));
        assert_eq!(made_secret(&es), Some("billing-db"));
        assert_eq!(made_secret(&es_default), Some("api-key"));
        assert_eq!(made_secret(&sealed), Some("db-pass"));
        assert_eq!(made_secret(&cert), Some("web-tls"));
        assert_eq!(made_secret(&other), None);
        let snap = Snapshot::new(
            vec![es, cert, other],
            vec![],
            vec![],
            jiff::Timestamp::UNIX_EPOCH,
        );
        let secret = |name: &str, ns: &str| ObjectRef {
            api_version: "v1".into(),
            kind: "Secret".into(),
            namespace: Some(ns.into()),
            name: name.into(),
            uid: None,
        };
        let names = |r: &ObjectRef| -> Vec<String> {
            producers(&snap, r)
                .iter()
                .map(|o| format!("{}/{}", o.kind(), o.name()))
                .collect()
        };
        assert_eq!(
            names(&secret("billing-db", "shop")),
            vec!["ExternalSecret/billing"]
        );
        assert_eq!(names(&secret("web-tls", "shop")), vec!["Certificate/web"]);
        assert!(
            names(&secret("web-tls", "other")).is_empty(),
            "same namespace only"
        );
    }
}
