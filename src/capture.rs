//! A capture: what an answer read, as a snapshot file a stranger can be
//! handed and replay with `--snapshot` for the same answer. Pure: the
//! documents are made here, written by the command.
//!
//! A capture is a YAML stream (or, with `-o json`, a `List`): first a
//! header (`kind: Capture`) with the instant replay judges at, the tool
//! and server versions, the command that made it, the gaps of the answer
//! (so a partial capture replays as partial), the objects read as metadata
//! only, and the kinds as the server served them; then every object, then
//! every Event, as core/v1 Events.
//!
//! Redacted for sharing, on top of what is never read (Secret and
//! ConfigMap data): literal environment values are replaced, names kept;
//! the last-applied annotation, which copies a spec, is dropped;
//! managedFields keep who wrote which part (spec, status), not the fields.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::model::{Event, Incomplete, KindFacts, Object, ObjectRef, Snapshot};

pub const API_VERSION: &str = "reconcile.kubectl.dev/v1alpha1";
pub const KIND: &str = "Capture";

/// What replaces a literal environment value.
pub const REDACTED: &str = "(redacted)";

/// The annotations that copy a spec (and so may carry what was redacted).
const COPIES: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "deployment.kubernetes.io/desired-spec",
];

/// The header of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// The instant the answer was read at: what replay judges at.
    pub captured_at: Timestamp,
    /// `kubectl-reconcile 0.1.0`.
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// The command line that made it, without its connection flags.
    pub command: String,
    /// Reads that failed (forbidden, timed out, not served).
    #[serde(default)]
    pub incomplete: Vec<Incomplete>,
    /// Objects looked for and found gone.
    #[serde(default)]
    pub absent: Vec<ObjectRef>,
    /// The uids of objects read as metadata only (owned pods in a sweep).
    #[serde(default)]
    pub metadata_only: Vec<String>,
    /// The kinds of the objects, as the server served them.
    #[serde(default)]
    pub kinds: Vec<KindFacts>,
    /// How many documents (objects and events) follow the header: a
    /// capture cut short (its writer stopped, a copy cut off) is refused
    /// rather than replayed as a smaller answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<usize>,
}

impl Header {
    /// The header of a capture of `snap`, read live with these kinds.
    pub fn of(
        snap: &Snapshot,
        command: String,
        server_version: Option<String>,
        kinds: Vec<KindFacts>,
    ) -> Header {
        Header {
            captured_at: snap.now,
            tool: format!("kubectl-reconcile {}", env!("CARGO_PKG_VERSION")),
            server_version,
            command,
            incomplete: snap.incomplete.clone(),
            absent: snap.absent.clone(),
            metadata_only: snap
                .objects()
                .iter()
                .filter(|o| o.metadata_only)
                .map(|o| o.uid.clone())
                .collect(),
            kinds,
            documents: Some(snap.objects().len() + snap.events.len()),
        }
    }

    /// The header as its document.
    pub fn to_value(&self) -> Value {
        let mut v =
            json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "capture"}});
        if let (Some(map), Ok(Value::Object(fields))) =
            (v.as_object_mut(), serde_json::to_value(self))
        {
            map.extend(fields);
        }
        v
    }
}

/// Whether a document is a capture's header.
pub fn is_header(v: &Value) -> bool {
    v.get("apiVersion").and_then(Value::as_str) == Some(API_VERSION)
        && v.get("kind").and_then(Value::as_str) == Some(KIND)
}

/// A header document read back; `Err` says what is wrong with it.
pub fn parse_header(v: &Value) -> Result<Header, String> {
    serde_json::from_value(v.clone())
        .map_err(|e| format!("a Capture header that does not parse: {e}"))
}

/// Every document of the capture of `snap`: the header, the objects,
/// the events.
pub fn documents<'a>(snap: &'a Snapshot, header: &Header) -> impl Iterator<Item = Value> + 'a {
    std::iter::once(header.to_value())
        .chain(snap.objects().iter().map(object_value))
        .chain(snap.events.iter().map(event_value))
}

/// An object as captured: as read, redacted for sharing.
pub fn object_value(obj: &Object) -> Value {
    let mut v = (*obj.raw).clone();
    redact_for_sharing(&mut v);
    v
}

/// Drops the annotations that copy a spec, and replaces every literal
/// environment value (an `env` entry's `value`) wherever a pod spec or
/// template holds one.
pub fn redact_for_sharing(v: &mut Value) {
    if let Some(annotations) = v
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        for key in COPIES {
            annotations.remove(*key);
        }
    }
    redact_env(v, 0);
    crate::model::reduce_managed_fields(v);
}

/// Containers sit at most a few levels down (a CronJob's job template's
/// pod template); deeper is not walked.
const MAX_DEPTH: usize = 12;

fn redact_env(v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(env)) = map.get_mut("env") {
                for entry in env.iter_mut().filter_map(Value::as_object_mut) {
                    if entry.get("value").is_some_and(Value::is_string) {
                        entry.insert("value".into(), Value::String(REDACTED.into()));
                    }
                }
            }
            for (key, child) in map.iter_mut() {
                if key != "env" {
                    redact_env(child, depth + 1);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| redact_env(i, depth + 1)),
        _ => {}
    }
}

/// An event as a core/v1 Event that [`Event::from_value`] reads back the
/// same.
pub fn event_value(e: &Event) -> Value {
    let mut involved = Map::new();
    for (k, v) in [
        ("apiVersion", &e.regarding_api_version),
        ("kind", &e.regarding_kind),
        ("name", &e.regarding_name),
        ("namespace", &e.regarding_namespace),
        ("uid", &e.regarding_uid),
    ] {
        if !v.is_empty() {
            involved.insert(k.into(), Value::String(v.clone()));
        }
    }
    let time = |t: Option<Timestamp>| t.map_or(Value::Null, |t| Value::String(t.to_string()));
    let mut meta = json!({"name": e.uid, "uid": e.uid});
    if !e.regarding_namespace.is_empty() {
        meta["namespace"] = Value::String(e.regarding_namespace.clone());
    }
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta,
        "involvedObject": involved,
        "type": e.type_,
        "reason": e.reason,
        "message": e.message,
        "count": e.count,
        "firstTimestamp": time(e.first_seen),
        "lastTimestamp": time(e.last_seen),
        "source": {"component": e.reporter},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values_and_copies_of_the_spec_are_gone_and_names_stay() {
        let mut deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": "{\"env\":\"hunter2\"}",
                "team": "shop"}},
            "spec": {"template": {"spec": {
                "initContainers": [{"name": "init", "env": [{"name": "TOKEN", "value": "hunter2"}]}],
                "containers": [{"name": "web", "env": [
                    {"name": "PASSWORD", "value": "hunter2"},
                    {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}}}});
        redact_for_sharing(&mut deploy);
        let text = deploy.to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(
            text.contains("PASSWORD") && text.contains("TOKEN") && text.contains("secretKeyRef")
        );
        assert_eq!(deploy["metadata"]["annotations"]["team"], "shop");
    }

    #[test]
    fn managed_fields_keep_who_wrote_which_part_and_not_the_fields() {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web",
            "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1",
                 "time": "2026-12-02T05:00:00Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:env": {
                     "k:{\"name\":\"PASSWORD\"}": {".": {}, "f:value": {}}}}}}}},
                {"manager": "kubelet", "operation": "Update", "subresource": "status",
                 "time": "2026-12-02T05:01:00Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:status": {"f:phase": {}}}}]}});
        redact_for_sharing(&mut pod);
        let entries = &pod["metadata"]["managedFields"];
        assert_eq!(entries[0]["fieldsV1"], json!({"f:spec": {}}));
        assert_eq!(entries[0]["manager"], "kubectl-client-side-apply");
        assert_eq!(entries[1]["fieldsV1"], json!({"f:status": {}}));
        assert_eq!(entries[1]["subresource"], "status");
        assert!(!pod.to_string().contains("PASSWORD"));
        // What the generation check reads of them is unchanged.
        let obj = Object::from_value(pod).unwrap();
        let check =
            crate::diagnose::generation::check(&obj, "2026-12-02T05:02:00Z".parse().unwrap());
        assert_eq!(
            check.spec_changed.unwrap().manager,
            "kubectl-client-side-apply"
        );
        assert_eq!(check.status_written.unwrap().manager, "kubelet");
        // A ConfigMap keeps its keys' names (what a missing key is told
        // from), and nothing below them.
        let mut map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app",
            "managedFields": [{"manager": "kubectl-create", "operation": "Update",
                "fieldsV1": {"f:data": {"f:log_level": {}, "f:port": {".": {}}},
                             "f:metadata": {"f:labels": {"f:app": {}}}}}]}});
        redact_for_sharing(&mut map);
        assert_eq!(
            map["metadata"]["managedFields"][0]["fieldsV1"],
            json!({"f:data": {"f:log_level": {}, "f:port": {}}, "f:metadata": {}})
        );
    }

    #[test]
    fn an_event_reads_back_the_same() {
        let v = json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "web.1", "namespace": "shop", "uid": "e1", "creationTimestamp": "2026-11-29T22:18:00Z"},
            "involvedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "shop", "uid": "d1"},
            "type": "Warning", "reason": "FailedCreate", "message": "quota exceeded", "count": 4,
            "firstTimestamp": "2026-11-29T22:18:00Z", "lastTimestamp": "2026-11-29T22:19:00Z",
            "source": {"component": "replicaset-controller"}});
        let event = Event::from_value(&v).unwrap();
        let again = Event::from_value(&event_value(&event)).unwrap();
        assert_eq!(again, event);
    }

    #[test]
    fn a_header_reads_back_the_same() {
        let header = Header {
            captured_at: "2026-12-02T05:00:00Z".parse().unwrap(),
            tool: "kubectl-reconcile 0.1.0".into(),
            server_version: Some("v1.36.3".into()),
            command: "kubectl reconcile -n shop snapshot".into(),
            incomplete: vec![Incomplete {
                resource: "secrets".into(),
                namespace: Some("shop".into()),
                error: "forbidden".into(),
            }],
            absent: vec![],
            metadata_only: vec!["p1".into()],
            kinds: vec![],
            documents: Some(12),
        };
        let v = header.to_value();
        assert!(is_header(&v));
        assert_eq!(parse_header(&v), Ok(header));
    }
}
