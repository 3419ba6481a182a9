//! One Kubernetes object of any kind: its identity and metadata parsed once,
//! and the raw JSON kept for the per-kind rules.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::time::parse_time;

/// The identity of an object, as printed in JSON output.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

impl ObjectRef {
    /// The API group: `apps` for `apps/v1`, empty for the core group.
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }
}

/// An entry of `metadata.ownerReferences`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub controller: bool,
    pub block_owner_deletion: bool,
}

/// An entry of `status.conditions`, in the shape most APIs share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Cluster API's `severity` of a False condition: `Error`, `Warning`,
    /// `Info`; empty where the API has none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub severity: String,
}

impl Condition {
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
    pub fn is_false(&self) -> bool {
        self.status == "False"
    }
}

/// A Kubernetes object. `raw` holds the whole object as JSON; when the source
/// only had metadata (Secrets, ConfigMaps, metadata-only lists), `raw` has no
/// spec or status and `metadata_only` is set.
#[derive(Debug, Clone)]
pub struct Object {
    pub id: ObjectRef,
    pub uid: String,
    pub generation: Option<i64>,
    pub created: Option<Timestamp>,
    pub deleted: Option<Timestamp>,
    pub finalizers: Vec<String>,
    pub owners: Vec<OwnerRef>,
    pub labels: BTreeMap<String, String>,
    pub metadata_only: bool,
    /// Whether the type serves a `status` subresource, where discovery told
    /// the source; `None` when unknown (snapshot files).
    pub status_subresource: Option<bool>,
    /// Shared: the watch cache, every frame drawn from it and the first
    /// answer hold one copy of an object's JSON.
    pub raw: std::sync::Arc<Value>,
}

impl Object {
    /// Parses an object from its JSON form. Returns `None` for something that
    /// is not an object: no kind, no apiVersion or no name.
    pub fn from_value(raw: Value) -> Option<Object> {
        let api_version = raw.get("apiVersion")?.as_str()?.to_string();
        let kind = raw.get("kind")?.as_str()?.to_string();
        let meta = raw.get("metadata")?;
        let name = meta.get("name")?.as_str()?.to_string();
        let text = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_string);
        let namespace = text("namespace").filter(|ns| !ns.is_empty());
        let real_uid = text("uid").filter(|u| !u.is_empty());
        let uid = real_uid.clone().unwrap_or_else(|| {
            synthetic_uid(group_of(&api_version), &kind, namespace.as_deref(), &name)
        });
        let owners = meta
            .get("ownerReferences")
            .and_then(Value::as_array)
            .map(|refs| refs.iter().filter_map(parse_owner).collect())
            .unwrap_or_default();
        let finalizers = string_list(meta.get("finalizers"));
        let labels = meta
            .get("labels")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let metadata_only = kind == "PartialObjectMetadata"
            || (raw.get("spec").is_none()
                && raw.get("status").is_none()
                && raw.get("data").is_none()
                && is_data_kind(&kind));
        Some(Object {
            id: ObjectRef {
                api_version,
                kind,
                namespace,
                name,
                uid: real_uid,
            },
            uid,
            generation: meta.get("generation").and_then(Value::as_i64),
            created: parse_time(meta.get("creationTimestamp")),
            deleted: parse_time(meta.get("deletionTimestamp")),
            finalizers,
            owners,
            labels,
            metadata_only,
            status_subresource: None,
            raw: std::sync::Arc::new(raw),
        })
    }

    pub fn kind(&self) -> &str {
        &self.id.kind
    }
    pub fn name(&self) -> &str {
        &self.id.name
    }
    pub fn namespace(&self) -> Option<&str> {
        self.id.namespace.as_deref()
    }
    pub fn group(&self) -> &str {
        self.id.group()
    }

    /// A JSON pointer into the object, e.g. `/status/readyReplicas`.
    pub fn at(&self, pointer: &str) -> Option<&Value> {
        super::pointer(&self.raw, pointer).filter(|v| !v.is_null())
    }
    pub fn int(&self, pointer: &str) -> Option<i64> {
        self.at(pointer).and_then(Value::as_i64)
    }
    pub fn str(&self, pointer: &str) -> Option<&str> {
        self.at(pointer).and_then(Value::as_str)
    }
    pub fn bool(&self, pointer: &str) -> Option<bool> {
        self.at(pointer).and_then(Value::as_bool)
    }
    pub fn time(&self, pointer: &str) -> Option<Timestamp> {
        parse_time(self.at(pointer))
    }

    pub fn status(&self) -> Option<&Value> {
        self.at("/status")
    }

    /// `status.observedGeneration`, where the controller records the
    /// generation it last acted on: a number, or a numeric string as Argo
    /// Rollouts writes it (`"3"`).
    pub fn observed_generation(&self) -> Option<i64> {
        self.at("/status/observedGeneration")
            .and_then(generation_number)
    }

    /// `status.conditions` (or, for older operators that nest them,
    /// `status.conditionedStatus.conditions`), skipping entries without a
    /// type.
    pub fn conditions(&self) -> Vec<Condition> {
        parse_conditions(
            self.at("/status/conditions")
                .or_else(|| self.at("/status/conditionedStatus/conditions")),
        )
    }

    /// A pod's container statuses, init containers first, each with
    /// whether it is one: the one reader of them.
    pub fn container_statuses(&self) -> impl Iterator<Item = (bool, &Value)> {
        [
            ("/status/initContainerStatuses", true),
            ("/status/containerStatuses", false),
        ]
        .into_iter()
        .filter_map(|(p, init)| Some((init, self.at(p)?.as_array()?)))
        .flat_map(|(init, list)| list.iter().map(move |c| (init, c)))
    }

    pub fn condition(&self, type_: &str) -> Option<Condition> {
        self.conditions().into_iter().find(|c| c.type_ == type_)
    }

    /// The owner reference with `controller: true`, if any.
    pub fn controller(&self) -> Option<&OwnerRef> {
        self.owners.iter().find(|o| o.controller)
    }
}

/// A list of conditions as the API conventions write them (`metav1.Condition`
/// and its look-alikes), skipping entries without a type.
pub fn parse_conditions(list: Option<&Value>) -> Vec<Condition> {
    let Some(list) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| {
            let text = |k: &str| {
                c.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let type_ = text("type");
            (!type_.is_empty()).then(|| Condition {
                type_,
                status: text("status"),
                reason: text("reason"),
                message: text("message"),
                // The epoch is a placeholder (Gateway API's CRD defaults
                // its conditions to it before any controller writes), not
                // a time anything happened.
                last_transition_time: parse_time(c.get("lastTransitionTime"))
                    .filter(|t| *t != Timestamp::UNIX_EPOCH),
                observed_generation: c.get("observedGeneration").and_then(generation_number),
                severity: text("severity"),
            })
        })
        .collect()
}

/// A generation as a controller recorded it: a JSON number, or a string of
/// decimal digits (Argo Rollouts' `status.observedGeneration: "3"`). Any
/// other string (older Argo Rollouts wrote a hash of the spec) is no
/// generation.
pub fn generation_number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s)
            if !s.is_empty() && s.len() <= 18 && s.bytes().all(|b| b.is_ascii_digit()) =>
        {
            s.parse().ok()
        }
        _ => None,
    }
}

/// Whether an object (as JSON) names a controller among its owners as
/// [`Object::controller`] reads one: `controller: true` with a kind, name
/// and uid. A reference without them leaves the object a root.
pub fn names_controller(object: &Value) -> bool {
    object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|refs| {
            refs.iter()
                .filter_map(parse_owner)
                .any(|owner| owner.controller)
        })
}

fn parse_owner(v: &Value) -> Option<OwnerRef> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some(OwnerRef {
        api_version: text("apiVersion").unwrap_or_default(),
        kind: text("kind")?,
        name: text("name")?,
        uid: text("uid")?,
        controller: v
            .get("controller")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        block_owner_deletion: v
            .get("blockOwnerDeletion")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The identity of an object that has no `metadata.uid` (written by
/// `kubectl create --dry-run -o yaml`, `helm template` or by hand): stable,
/// derived from what names it, and unlike any uid a server assigns.
pub fn synthetic_uid(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> String {
    format!(
        "synthetic:{group}/{kind}/{}/{name}",
        namespace.unwrap_or_default()
    )
}

/// Kinds whose payload is data the tool never reads: Secrets and
/// ConfigMaps. The one spelling of it. By kind alone, whatever the group,
/// where data is dropped (dropping too much is harmless); reads and trees
/// ask for the core group besides.
pub fn is_data_kind(kind: &str) -> bool {
    matches!(kind, "Secret" | "ConfigMap")
}

/// The group part of an apiVersion: `apps` for `apps/v1`, empty for `v1`.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_identity_owners_and_conditions() {
        let obj = Object::from_value(json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-6d4b9c7f8", "namespace": "shop", "uid": "rs-1", "generation": 3,
                "creationTimestamp": "2026-01-10T11:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-1",
                                     "controller": true, "blockOwnerDeletion": true}]},
            "status": {"observedGeneration": 2, "conditions": [
                {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": "exceeded quota"}]}
        }))
        .unwrap();
        assert_eq!(obj.group(), "apps");
        assert_eq!(obj.namespace(), Some("shop"));
        assert_eq!(obj.generation, Some(3));
        assert_eq!(obj.observed_generation(), Some(2));
        assert_eq!(obj.controller().unwrap().uid, "d-1");
        let cond = obj.condition("ReplicaFailure").unwrap();
        assert!(cond.is_true());
        assert_eq!(cond.reason, "FailedCreate");
        assert!(!obj.metadata_only);
    }

    #[test]
    fn an_observed_generation_written_as_a_numeric_string_counts() {
        let rollout = |observed: Value| {
            Object::from_value(json!({
                "apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
                "metadata": {"name": "web", "namespace": "shop", "generation": 4},
                "status": {"observedGeneration": observed, "phase": "Healthy",
                    "conditions": [{"type": "Available", "status": "True", "observedGeneration": observed}]}
            }))
            .unwrap()
        };
        // Argo Rollouts 1.x writes the generation as a string.
        assert_eq!(rollout(json!("3")).observed_generation(), Some(3));
        assert_eq!(
            rollout(json!("3")).conditions()[0].observed_generation,
            Some(3)
        );
        assert_eq!(rollout(json!(3)).observed_generation(), Some(3));
        // Older releases wrote a hash of the spec: no generation at all.
        assert_eq!(rollout(json!("7b5d9c")).observed_generation(), None);
        assert_eq!(rollout(json!("")).observed_generation(), None);
        assert_eq!(rollout(json!("-1")).observed_generation(), None);
        assert_eq!(
            rollout(json!("99999999999999999999")).observed_generation(),
            None
        );
    }

    #[test]
    fn a_controller_is_named_only_as_the_model_reads_one() {
        let pod = |owner: Value| {
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "web-6d4b9c7f8-x2k9p", "namespace": "shop", "ownerReferences": [owner]}})
        };
        let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-6d4b9c7f8",
            "uid": "rs-1", "controller": true, "blockOwnerDeletion": true});
        assert!(names_controller(&pod(rs.clone())));
        let mut not_controller = rs.clone();
        not_controller["controller"] = json!(false);
        assert!(!names_controller(&pod(not_controller)));
        // A reference the model cannot read leaves a root: the sweeps that
        // keep only roots must not drop what the model would judge.
        for missing in ["kind", "name", "uid"] {
            let mut broken = rs.clone();
            broken.as_object_mut().unwrap().remove(missing);
            let raw = pod(broken);
            assert!(!names_controller(&raw), "without {missing}");
            assert!(Object::from_value(raw).unwrap().controller().is_none());
        }
        assert!(!names_controller(&json!({"metadata": {"name": "bare"}})));
    }

    #[test]
    fn rejects_things_that_are_not_objects() {
        assert!(Object::from_value(json!({"kind": "Pod", "metadata": {"name": "x"}})).is_none());
        assert!(
            Object::from_value(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {}}))
                .is_none()
        );
    }

    #[test]
    fn an_object_without_a_uid_gets_a_stable_synthetic_one() {
        let manifest = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}});
        let a = Object::from_value(manifest.clone()).unwrap();
        let b = Object::from_value(manifest).unwrap();
        assert_eq!(a.uid, "synthetic:apps/Deployment/shop/web");
        assert_eq!(a.uid, b.uid);
        // The printed identity does not pretend a server assigned it.
        assert_eq!(a.id.uid, None);
    }

    #[test]
    fn a_secret_without_data_is_metadata_only() {
        let obj = Object::from_value(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "a"}})).unwrap();
        assert!(obj.metadata_only);
    }
}
