//! `--anonymize`: a capture whose names say nothing about the cluster it
//! came from, so that it can be posted publicly. Namespaces, object names
//! and label values become stable pseudonyms (`deployment-1`, `ns-1`),
//! the same everywhere in the file: in objects, references, selectors,
//! events, messages and the header. A name made from another (a
//! ReplicaSet `web-7c9d`, its pod `web-7c9d-x2x4p`) keeps its suffix after
//! its parent's pseudonym (`deployment-1-7c9d-x2x4p`), so that what reads
//! names (a rollout's ReplicaSets, a pod's events) reads the same. Pure.
//!
//! A name is replaced where it stands as a word of its own: between
//! characters that cannot be in a name (`/`, `"`, `:`, space, …), never
//! inside a longer word. Kubernetes' own names (`default`, `kube-system`,
//! `kubernetes`, `kube-root-ca.crt`) and kinds, reasons, types and times
//! are kept: they say nothing of the cluster, and the diagnosis reads them.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

/// Names every cluster has, kept as they are.
const KEPT: &[&str] = &[
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "kubernetes",
    "kube-root-ca.crt",
];

/// Fields whose strings are Kubernetes' words or machine values, never a
/// name of the cluster's: kept as they are.
const WORDS: &[&str] = &[
    "apiVersion",
    "kind",
    "type",
    "reason",
    "status",
    "phase",
    "uid",
    "resourceVersion",
    "fieldsType",
    "operation",
    "capturedAt",
    "tool",
    "serverVersion",
];

/// Label values that are words, not names: kept.
fn is_plain_value(value: &str) -> bool {
    value.len() < 3
        || value.parse::<f64>().is_ok()
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "enabled" | "disabled" | "none"
        )
}

/// Label keys whose values are hashes or copies of a name already mapped.
const HASH_LABELS: &[&str] = &["pod-template-hash", "controller-revision-hash"];

/// The pseudonym of every name of a capture.
#[derive(Debug, Default)]
pub struct Pseudonyms {
    map: HashMap<String, String>,
}

impl Pseudonyms {
    /// The pseudonyms of the names in `docs` (a capture's documents).
    pub fn of(docs: &[Value]) -> Pseudonyms {
        let mut names: Vec<(String, String)> = Vec::new();
        for doc in docs {
            collect(doc, &mut names);
        }
        let originals: HashSet<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
        // Shorter names first, so that a name made from another finds its
        // parent's pseudonym.
        let mut ordered: BTreeSet<(usize, &str, &str)> = BTreeSet::new();
        let mut seen = HashSet::new();
        for (name, hint) in &names {
            if seen.insert(name.as_str()) {
                ordered.insert((name.len(), name.as_str(), hint.as_str()));
            }
        }
        let mut map: HashMap<String, String> = HashMap::new();
        let mut counters: HashMap<&str, usize> = HashMap::new();
        for (_, name, hint) in ordered {
            let pseudonym = match parent(&map, name).filter(|(_, rest)| is_generated(rest)) {
                Some((parent, rest)) => format!("{parent}{rest}"),
                None => loop {
                    let n = counters.entry(hint).or_insert(0);
                    *n += 1;
                    let candidate = format!("{hint}-{n}");
                    if !originals.contains(candidate.as_str()) {
                        break candidate;
                    }
                },
            };
            map.insert(name.to_string(), pseudonym);
        }
        Pseudonyms { map }
    }

    /// `text` with every name in it (as a word of its own) replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for c in text.chars() {
            if is_name_char(c) {
                word.push(c);
            } else {
                out.push_str(&self.word(&word));
                word.clear();
                out.push(c);
            }
        }
        out.push_str(&self.word(&word));
        out
    }

    /// One word: its pseudonym, the pseudonym of the name it was made
    /// from followed by the rest, or itself. A sentence's full stop after
    /// a name is kept.
    fn word(&self, word: &str) -> String {
        // No name is longer: a longer word (free text anyone may write in
        // a message) is not searched for names made from others, whose
        // search is quadratic in the word.
        if word.len() > MAX_NAME {
            return word.to_string();
        }
        let bare = word.trim_end_matches('.');
        let stop = &word[bare.len()..];
        if let Some(p) = self.map.get(bare) {
            return format!("{p}{stop}");
        }
        match parent(&self.map, bare) {
            Some((p, rest)) => format!("{p}{rest}{stop}"),
            None => word.to_string(),
        }
    }

    /// Every string of `v` with its names replaced, object keys kept but
    /// label keys' values, and Kubernetes' own words ([`WORDS`]) kept.
    pub fn apply(&self, v: &mut Value) {
        self.walk(v, 0);
    }

    fn walk(&self, v: &mut Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match v {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.walk(i, depth + 1)),
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    let kept = WORDS.contains(&key.as_str())
                        || key.ends_with("Timestamp")
                        || key.ends_with("Time")
                        || HASH_LABELS.contains(&key.as_str());
                    if kept && child.is_string() {
                        continue;
                    }
                    self.walk(child, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The longest name Kubernetes takes (a DNS subdomain).
const MAX_NAME: usize = 253;

/// Documents nest no deeper than this in practice; deeper is left alone.
const MAX_DEPTH: usize = 64;

/// The characters a name (or a label value) is made of.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')
}

/// The longest name in `map` that `name` starts with, followed by `-`:
/// its pseudonym and the rest of `name`.
fn parent<'a>(map: &'a HashMap<String, String>, name: &'a str) -> Option<(&'a str, &'a str)> {
    name.match_indices('-')
        .rev()
        .find_map(|(i, _)| map.get(&name[..i]).map(|p| (p.as_str(), &name[i..])))
}

/// The names a document holds, each with the word its pseudonym is made
/// of: its own name (by its kind), its namespace, its label values, the
/// names an Event is about, and a header's targets and gaps.
fn collect(doc: &Value, out: &mut Vec<(String, String)>) {
    let mut add = |name: Option<&str>, hint: &str| {
        if let Some(name) = name.filter(|n| !n.is_empty() && !KEPT.contains(n)) {
            out.push((name.to_string(), hint.to_string()));
        }
    };
    let str_at = |p: &str| doc.pointer(p).and_then(Value::as_str);
    if crate::capture::is_header(doc) {
        for id in doc["absent"].as_array().into_iter().flatten() {
            add(id["name"].as_str(), "object");
            add(id["namespace"].as_str(), "ns");
        }
        for gap in doc["incomplete"].as_array().into_iter().flatten() {
            add(gap["namespace"].as_str(), "ns");
        }
        return;
    }
    let kind = str_at("/kind").unwrap_or_default();
    add(str_at("/metadata/namespace"), "ns");
    if kind == "Event" {
        add(str_at("/involvedObject/namespace"), "ns");
        add(
            str_at("/involvedObject/name"),
            &hint_of(str_at("/involvedObject/kind")),
        );
        return;
    }
    let hint = if kind == "Namespace" {
        "ns".to_string()
    } else {
        hint_of(Some(kind))
    };
    add(str_at("/metadata/name"), &hint);
    // A node's name says where the cluster runs (often an address).
    add(str_at("/spec/nodeName"), "node");
    for (key, value) in doc
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let key = key.rsplit('/').next().unwrap_or(key);
        match value.as_str() {
            Some(v) if !HASH_LABELS.contains(&key) && !is_plain_value(v) => add(Some(v), "label"),
            _ => {}
        }
    }
}

/// The word a pseudonym of this kind's objects is made of: the kind in
/// lower case (`deployment`), `object` for an odd one.
fn hint_of(kind: Option<&str>) -> String {
    match kind {
        Some(k)
            if !k.is_empty() && k.len() <= 63 && k.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            k.to_ascii_lowercase()
        }
        _ => "object".into(),
    }
}

/// Whether what follows a parent's name was made by a controller: a
/// ReplicaSet's template hash, a pod's random suffix, an ordinal, a
/// scheduled run's minute; not a word someone chose (`-db`).
fn is_generated(rest: &str) -> bool {
    const RANDOM: &str = "bcdfghjklmnpqrstvwxz2456789";
    let segments: Vec<&str> = rest.trim_start_matches('-').split('-').collect();
    !segments.is_empty()
        && segments.iter().all(|s| {
            !s.is_empty()
                && (s.chars().all(|c| c.is_ascii_digit())
                    || (s.len() >= 5
                        && s.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                        && (s.chars().any(|c| c.is_ascii_digit())
                            || s.chars().all(|c| RANDOM.contains(c)))))
        })
}

/// Every document of a capture, anonymized with one set of pseudonyms.
pub fn anonymize(docs: &mut [Value]) {
    let pseudonyms = Pseudonyms::of(docs);
    docs.iter_mut().for_each(|d| pseudonyms.apply(d));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn capture() -> Vec<Value> {
        vec![
            json!({"apiVersion": crate::capture::API_VERSION, "kind": "Capture",
                "command": "kubectl reconcile -n shop why deploy/web",
                "capturedAt": "2026-12-02T05:00:00Z",
                "incomplete": [{"resource": "secrets", "namespace": "shop", "error": "forbidden"}],
                "absent": []}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "shop", "uid": "d1",
                    "labels": {"app": "web", "team": "payments", "tier": "1"}},
                "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "app", "image": "registry.example.com/web:1"}]}}},
                "status": {"conditions": [{"type": "Progressing", "status": "True",
                    "reason": "ReplicaSetUpdated", "message": "ReplicaSet \"web-7c9d6f5b8\" is progressing."}]}}),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-7c9d6f5b8", "namespace": "shop", "uid": "r1",
                    "labels": {"app": "web", "pod-template-hash": "7c9d6f5b8"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "web-7c9d6f5b8-x2x4p", "namespace": "shop", "uid": "p1",
                    "labels": {"app": "web", "pod-template-hash": "7c9d6f5b8"}},
                "spec": {"nodeName": "worker-eu-1", "serviceAccountName": "default"}}),
            json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "e1", "namespace": "shop", "uid": "e1"},
                "involvedObject": {"kind": "ReplicaSet", "name": "web-7c9d6f5b8", "namespace": "shop", "uid": "r1"},
                "type": "Normal", "reason": "SuccessfulDelete",
                "message": "Deleted pod: web-7c9d6f5b8-gone1. Scaled web."}),
        ]
    }

    #[test]
    fn names_become_the_same_pseudonyms_everywhere_and_no_name_is_left() {
        let mut docs = capture();
        anonymize(&mut docs);
        let text = serde_json::to_string(&docs).unwrap();
        for secret in [
            "\"web",
            "shop",
            "payments",
            "/web:",
            "web-7c9d6f5b8",
            " web.",
        ] {
            assert!(!text.contains(secret), "{secret} left in {text}");
        }
        let deploy = &docs[1];
        let name = deploy["metadata"]["name"].as_str().unwrap();
        assert_eq!(name, "deployment-1");
        let ns = deploy["metadata"]["namespace"].as_str().unwrap();
        assert_eq!(ns, "ns-1");
        // The selector still selects what it did: label values map alike.
        assert_eq!(deploy["spec"]["selector"]["matchLabels"]["app"], name);
        assert_eq!(docs[3]["metadata"]["labels"]["app"], name);
        // Made names keep their suffix after the parent's pseudonym.
        assert_eq!(docs[2]["metadata"]["name"], "deployment-1-7c9d6f5b8");
        assert_eq!(docs[3]["metadata"]["name"], "deployment-1-7c9d6f5b8-x2x4p");
        assert_eq!(docs[2]["metadata"]["ownerReferences"][0]["name"], name);
        assert_eq!(
            docs[4]["message"],
            "Deleted pod: deployment-1-7c9d6f5b8-gone1. Scaled deployment-1."
        );
        assert_eq!(
            deploy["status"]["conditions"][0]["message"],
            "ReplicaSet \"deployment-1-7c9d6f5b8\" is progressing."
        );
        assert_eq!(
            docs[0]["command"],
            "kubectl reconcile -n ns-1 why deploy/deployment-1"
        );
        // Kubernetes' words, hashes, numbers and its own names are kept.
        assert_eq!(
            deploy["status"]["conditions"][0]["reason"],
            "ReplicaSetUpdated"
        );
        assert_eq!(
            docs[2]["metadata"]["labels"]["pod-template-hash"],
            "7c9d6f5b8"
        );
        assert_eq!(deploy["metadata"]["labels"]["tier"], "1");
        assert_ne!(deploy["metadata"]["labels"]["team"], "payments");
        assert_eq!(docs[3]["spec"]["serviceAccountName"], "default");
        assert_eq!(docs[0]["capturedAt"], "2026-12-02T05:00:00Z");
        // A node's name says where the cluster runs.
        assert_eq!(docs[3]["spec"]["nodeName"], "node-1");
    }

    #[test]
    fn a_pseudonym_never_takes_a_name_that_is_in_the_capture() {
        let docs = vec![
            json!({"kind": "Deployment", "metadata": {"name": "deployment-1"}}),
            json!({"kind": "Deployment", "metadata": {"name": "api"}}),
        ];
        let p = Pseudonyms::of(&docs);
        let api = p.text("api");
        assert_ne!(api, "deployment-1");
        assert_ne!(p.text("deployment-1"), api);
    }

    #[test]
    fn a_word_longer_than_any_name_costs_linear_time() {
        let docs = vec![json!({"kind": "Deployment", "metadata": {"name": "web"}})];
        let p = Pseudonyms::of(&docs);
        let long = format!("web{}", "-a".repeat(2_000_000));
        let started = std::time::Instant::now();
        assert_eq!(p.text(&long), long);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(p.text("web-a"), "deployment-1-a");
    }

    #[test]
    fn only_a_suffix_a_controller_made_follows_its_parents_pseudonym() {
        assert!(is_generated("-7c9d6f5b8"));
        assert!(is_generated("-7c9d6f5b8-x2x4p"));
        assert!(is_generated("-bcdfg"));
        assert!(is_generated("-0"));
        assert!(is_generated("-29412345"));
        assert!(!is_generated("-db"));
        assert!(!is_generated("-frontend"));
        let docs = vec![
            json!({"kind": "Namespace", "metadata": {"name": "shop"}}),
            json!({"kind": "StatefulSet", "metadata": {"name": "shop-db", "namespace": "shop"}}),
            json!({"kind": "Pod", "metadata": {"name": "shop-db-0", "namespace": "shop"}}),
        ];
        let p = Pseudonyms::of(&docs);
        assert_eq!(p.text("shop-db"), "statefulset-1");
        assert_eq!(p.text("shop-db-0"), "statefulset-1-0");
    }
}
