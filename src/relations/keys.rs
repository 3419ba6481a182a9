//! A key a container asks of a ConfigMap or Secret that does not hold it
//! (`configMapKeyRef: {name: app-config, key: LOG_LEVEL}` where the map
//! has `log_level`). Data is never read, so the keys come from the
//! object's managedFields: every writer's field set names the keys it
//! wrote under `f:data` (and `f:binaryData`, `f:stringData`), never their
//! values. Pure.

use serde_json::Value;

use crate::model::{Object, Snapshot};

/// At most this many of the object's keys are named in a message.
pub const KEYS_SHOWN: usize = 8;

/// At most this many missing keys are told of a pod: a pod spec of
/// thousands of env entries gives a handful of findings, not thousands.
pub const MISSING_AT_MOST: usize = 8;

/// At most this many of a map's keys are compared with a missing one for
/// its near miss (each comparison costs a few steps per character, see
/// [`crate::model::edits`]).
pub const KEYS_COMPARED: usize = 256;

/// A key asked for and not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingKey {
    pub container: String,
    /// The env variable that asks for it.
    pub env: String,
    /// `ConfigMap` or `Secret`.
    pub kind: &'static str,
    pub name: String,
    pub key: String,
    /// The keys the object has, sorted, as its managedFields name them.
    pub keys: Vec<String>,
    /// The one of them a typo most likely meant.
    pub close: Option<String>,
}

impl MissingKey {
    /// `env LOG_LEVEL of container app asks ConfigMap app-config for key
    /// LOG_LEVEL, which it does not have; did you mean log_level?`
    pub fn message(&self) -> String {
        let mut text = format!(
            "env {} of container {} asks {} {} for key {}, which it does not have",
            self.env, self.container, self.kind, self.name, self.key
        );
        match (&self.close, self.keys.as_slice()) {
            (Some(close), _) => text.push_str(&format!("; did you mean {close}?")),
            (None, []) => text.push_str("; it has no keys"),
            (None, keys) => {
                let shown: Vec<&str> = keys.iter().take(KEYS_SHOWN).map(String::as_str).collect();
                let more = keys.len().saturating_sub(KEYS_SHOWN);
                text.push_str(&format!("; its keys: {}", shown.join(", ")));
                if more > 0 {
                    text.push_str(&format!(" and {more} more"));
                }
            }
        }
        text
    }
}

/// The keys of a ConfigMap or Secret as its managedFields name them;
/// `None` where it carries none (they were not read, or were cleared), so
/// nothing can be said.
pub fn data_keys(obj: &Object) -> Option<Vec<String>> {
    let entries = obj.at("/metadata/managedFields")?.as_array()?;
    if entries.is_empty() {
        return None;
    }
    let mut keys: Vec<String> = entries
        .iter()
        .filter_map(|e| e.get("fieldsV1")?.as_object())
        .flat_map(|fields| {
            ["f:data", "f:binaryData", "f:stringData"]
                .into_iter()
                .filter_map(|part| fields.get(part)?.as_object())
                .flat_map(|set| set.keys())
        })
        .filter_map(|k| k.strip_prefix("f:"))
        .map(str::to_string)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    Some(keys)
}

/// The containers of `pod` the kubelet cannot start for their
/// configuration (`CreateContainerConfigError`: a ConfigMap, Secret or key
/// missing), by name.
pub fn waiting_on_configuration(pod: &Object) -> Vec<&str> {
    if pod.kind() != "Pod" || !pod.group().is_empty() {
        return Vec::new();
    }
    ["initContainerStatuses", "containerStatuses"]
        .into_iter()
        .filter_map(|s| pod.at(&format!("/status/{s}"))?.as_array())
        .flatten()
        .filter(|s| {
            s.pointer("/state/waiting/reason").and_then(Value::as_str)
                == Some("CreateContainerConfigError")
        })
        .filter_map(|s| s.get("name")?.as_str())
        .collect()
}

/// The keys `pod`'s containers wait for (the kubelet reports
/// `CreateContainerConfigError` for them) that their ConfigMap or Secret,
/// read with its managedFields, does not have: at most
/// [`MISSING_AT_MOST`].
pub fn missing_keys(snap: &Snapshot, pod: &Object) -> Vec<MissingKey> {
    let waiting = waiting_on_configuration(pod);
    if waiting.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for c in ["initContainers", "containers"]
        .into_iter()
        .filter_map(|s| pod.at(&format!("/spec/{s}"))?.as_array())
        .flatten()
    {
        let Some(container) = c.get("name").and_then(Value::as_str) else {
            continue;
        };
        if !waiting.contains(&container) {
            continue;
        }
        for env in c.get("env").and_then(Value::as_array).into_iter().flatten() {
            for (field, kind) in [("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")] {
                let Some(r) = env.pointer(&format!("/valueFrom/{field}")) else {
                    continue;
                };
                let s = |k: &str| r.get(k).and_then(Value::as_str);
                let (Some(name), Some(key)) = (s("name"), s("key")) else {
                    continue;
                };
                if r.get("optional").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let Some(keys) = snap
                    .find("", kind, pod.namespace(), name)
                    .and_then(data_keys)
                else {
                    continue;
                };
                if keys.iter().any(|k| k == key) {
                    continue;
                }
                if out.len() == MISSING_AT_MOST {
                    return out;
                }
                out.push(MissingKey {
                    container: container.to_string(),
                    env: env.get("name").and_then(Value::as_str).unwrap_or("").into(),
                    kind,
                    name: name.to_string(),
                    key: key.to_string(),
                    close: closest(key, &keys),
                    keys,
                });
            }
        }
    }
    out
}

/// The key a typo of `wanted` most likely meant: the same but for case and
/// separators (`LOG_LEVEL`, `log-level`), else the nearest within the
/// distance names are offered at.
fn closest(wanted: &str, keys: &[String]) -> Option<String> {
    let plain = |k: &str| k.to_ascii_lowercase().replace(['-', '.'], "_");
    if let Some(k) = keys.iter().find(|k| plain(k) == plain(wanted)) {
        return Some(k.clone());
    }
    keys.iter()
        .take(KEYS_COMPARED)
        .filter_map(|k| Some((Snapshot::close_distance(wanted, k)?, k)))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A ConfigMap as `kubectl create configmap --from-literal` writes it,
    /// with a key added later by `kubectl patch`.
    fn config_map(keys: &[&str], later: &str) -> Value {
        let set: serde_json::Map<String, Value> =
            keys.iter().map(|k| (format!("f:{k}"), json!({}))).collect();
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "app-config", "namespace": "shop", "uid": "cm1",
                "managedFields": [
                    {"manager": "kubectl-create", "operation": "Update", "apiVersion": "v1",
                     "time": "2026-12-02T10:00:00Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:data": set}},
                    {"manager": "kubectl-patch", "operation": "Update", "apiVersion": "v1",
                     "time": "2026-12-02T10:05:00Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:data": {format!("f:{later}"): {}}}}]}})
    }

    /// A pod whose container `app` waits on its configuration, asking for
    /// `key`.
    fn pod(kind_ref: &str, key: &str, optional: bool) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-7d9-abcde", "namespace": "shop", "uid": "p1"},
            "spec": {"containers": [{"name": "app", "image": "registry.example.com/app:1",
                "env": [{"name": "LOG_LEVEL", "valueFrom": {kind_ref: {"name": "app-config", "key": key, "optional": optional}}}]}]},
            "status": {"phase": "Pending", "containerStatuses": [{"name": "app", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "CreateContainerConfigError",
                    "message": format!("couldn't find key {key} in ConfigMap shop/app-config")}}}]}})
    }

    fn snap(objects: Vec<Value>) -> Snapshot {
        let objects = objects
            .into_iter()
            .map(|v| Object::from_value(v).unwrap())
            .collect();
        Snapshot::new(objects, vec![], vec![], jiff::Timestamp::UNIX_EPOCH)
    }

    fn missing(objects: Vec<Value>) -> Vec<MissingKey> {
        let snap = snap(objects);
        let pod = snap.find("", "Pod", Some("shop"), "web-7d9-abcde").unwrap();
        missing_keys(&snap, pod)
    }

    #[test]
    fn keys_are_named_by_managed_fields_and_never_by_data() {
        let cm = Object::from_value(config_map(&["log_level", "port"], "mode")).unwrap();
        assert_eq!(
            data_keys(&cm),
            Some(vec!["log_level".into(), "mode".into(), "port".into()])
        );
        let mut cleared = config_map(&["a"], "b");
        cleared["metadata"]["managedFields"] = json!([]);
        assert_eq!(data_keys(&Object::from_value(cleared).unwrap()), None);
    }

    #[test]
    fn a_key_that_differs_by_case_or_separator_is_the_near_miss() {
        let found = missing(vec![
            config_map(&["log_level", "port"], "mode"),
            pod("configMapKeyRef", "LOG_LEVEL", false),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].close.as_deref(), Some("log_level"));
        assert_eq!(
            found[0].message(),
            "env LOG_LEVEL of container app asks ConfigMap app-config for key LOG_LEVEL, which it does not have; did you mean log_level?"
        );
        let typo = missing(vec![
            config_map(&["log_level", "port"], "mode"),
            pod("configMapKeyRef", "log_levle", false),
        ]);
        assert_eq!(typo[0].close.as_deref(), Some("log_level"));
    }

    #[test]
    fn with_no_near_miss_the_keys_are_listed() {
        let found = missing(vec![
            config_map(&["port", "mode"], "host"),
            pod("configMapKeyRef", "verbosity", false),
        ]);
        assert_eq!(
            found[0].message(),
            "env LOG_LEVEL of container app asks ConfigMap app-config for key verbosity, which it does not have; its keys: host, mode, port"
        );
    }

    #[test]
    fn nothing_is_said_where_it_cannot_be_known_or_does_not_matter() {
        // The key is there (written by the later writer).
        assert!(
            missing(vec![
                config_map(&["port"], "LOG_LEVEL"),
                pod("configMapKeyRef", "LOG_LEVEL", false),
            ])
            .is_empty()
        );
        // Optional: the kubelet starts the container without it.
        assert!(
            missing(vec![
                config_map(&["port"], "mode"),
                pod("configMapKeyRef", "LOG_LEVEL", true),
            ])
            .is_empty()
        );
        // A Secret's reference looks for a Secret, not the ConfigMap.
        assert!(
            missing(vec![
                config_map(&["port"], "mode"),
                pod("secretKeyRef", "LOG_LEVEL", false),
            ])
            .is_empty()
        );
        // The map read without its managedFields: its keys are unknown.
        let mut bare = config_map(&["port"], "mode");
        bare["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        assert!(missing(vec![bare, pod("configMapKeyRef", "LOG_LEVEL", false)]).is_empty());
        // The container is not waiting on its configuration.
        let mut running = pod("configMapKeyRef", "LOG_LEVEL", false);
        running["status"]["containerStatuses"][0]["state"] = json!({"running": {}});
        assert!(missing(vec![config_map(&["port"], "mode"), running]).is_empty());
    }

    #[test]
    fn a_hostile_pod_and_map_are_read_within_bounds() {
        // 20,000 env entries each asking for a missing key, of a map with
        // 5,000 keys of the longest length a key may have.
        let long = |i: usize| format!("{i:0>253}");
        let keys: Vec<String> = (0..5_000).map(long).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let map = config_map(&refs, "mode");
        let mut hostile = pod("configMapKeyRef", "x", false);
        hostile["spec"]["containers"][0]["env"] = (0..20_000)
            .map(|i| json!({"name": format!("E{i}"), "valueFrom": {"configMapKeyRef": {"name": "app-config", "key": format!("{i:z>253}")}}}))
            .collect();
        let started = std::time::Instant::now();
        let found = missing(vec![map, hostile]);
        assert_eq!(found.len(), MISSING_AT_MOST);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(
            found[0].message().contains(" and 4993 more"),
            "{}",
            found[0].message()
        );
    }
}
