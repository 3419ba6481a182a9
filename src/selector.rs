//! Label selectors: the JSON `LabelSelector` of workloads turned into the
//! query-string form the API server filters by, and matched in memory, both
//! by kube-core's `Selector`; and the `-l` text form matched against
//! snapshots (kube-core has no parser for it); and the selectors of
//! Services and budgets, and the workloads whose pod templates they match.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::core::{Selector, SelectorExt};
use serde_json::Value;

use crate::model::{Object, Snapshot};

/// A `LabelSelector` as kube-core reads it. `None` for null (selects
/// nothing) and for a selector the API server would refuse (an unknown
/// operator, `In` without values).
fn parse(selector: &Value) -> Option<Selector> {
    if selector.is_null() {
        return None;
    }
    let typed: LabelSelector = serde_json::from_value(selector.clone()).ok()?;
    Selector::try_from(typed).ok()
}

/// The `labelSelector=` form of a `LabelSelector` (`matchLabels` and
/// `matchExpressions`, values of a set sorted). `None` when the selector
/// selects nothing (null); an empty string selects everything.
pub fn to_query(selector: &Value) -> Option<String> {
    parse(selector).map(|s| s.to_string())
}

/// Whether labels match a `LabelSelector`.
pub fn matches(selector: &Value, labels: &BTreeMap<String, String>) -> bool {
    parse(selector).is_some_and(|s| s.matches(labels))
}

/// A Service's `spec.selector` map as a `LabelSelector`.
pub fn from_map(map: &Value) -> Value {
    serde_json::json!({ "matchLabels": map })
}

// Selector queries over a snapshot: whose pods a Service or a budget
// selects, and which workloads would make them.

/// The workloads of a Service's namespace whose pod template its selector
/// matches: what would make its pods.
pub fn backing_workloads<'a>(snap: &'a Snapshot, svc: &Object) -> Vec<&'a Object> {
    let Some(sel) = selector_of(svc) else {
        return Vec::new();
    };
    let mut found: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.namespace() == svc.namespace()
                && template_labels(o).is_some_and(|labels| matches(&sel, &labels))
        })
        .collect();
    found.sort_by_key(|o| (o.kind(), o.name()));
    found
}

/// Whether a workload's pod template carries the labels a selector (query
/// form) asks for.
pub fn template_matches(query: &str, workload: &Object) -> bool {
    template_labels(workload).is_some_and(|labels| matches_query(query, &labels).unwrap_or(false))
}

/// A Deployment's, StatefulSet's or DaemonSet's pod template labels; none
/// for any other kind, or a template without labels.
fn template_labels(workload: &Object) -> Option<BTreeMap<String, String>> {
    if workload.group() != "apps"
        || !matches!(workload.kind(), "Deployment" | "StatefulSet" | "DaemonSet")
    {
        return None;
    }
    let labels: BTreeMap<String, String> = workload
        .at("/spec/template/metadata/labels")
        .and_then(|l| l.as_object())
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    (!labels.is_empty()).then_some(labels)
}

/// A Service's or PodDisruptionBudget's pod selector as a `LabelSelector`;
/// none when it selects nothing by design (a Service without a selector).
pub fn selector_of(obj: &Object) -> Option<serde_json::Value> {
    match (obj.group(), obj.kind()) {
        ("", "Service") => obj
            .at("/spec/selector")
            .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
            .map(from_map),
        ("policy", "PodDisruptionBudget") => obj.at("/spec/selector").cloned(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn query_form_covers_every_operator() {
        let sel = json!({"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["front", "edge"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "env", "operator": "NotIn", "values": ["dev"]},
            {"key": "team", "operator": "Exists"}]});
        assert_eq!(
            to_query(&sel).unwrap(),
            "app=web,tier in (edge,front),!canary,env notin (dev),team"
        );
        assert_eq!(to_query(&json!({})).unwrap(), "");
        assert_eq!(to_query(&Value::Null), None);
    }

    #[test]
    fn matching_in_memory() {
        let sel = json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]});
        assert!(matches(
            &sel,
            &labels(&[("app", "web"), ("tier", "front"), ("x", "y")])
        ));
        assert!(!matches(&sel, &labels(&[("app", "web")])));
        assert!(!matches(
            &sel,
            &labels(&[("app", "api"), ("tier", "front")])
        ));
        assert!(
            matches(&json!({}), &labels(&[])),
            "empty selector selects everything"
        );
        assert!(
            !matches(&Value::Null, &labels(&[])),
            "null selector selects nothing"
        );
        assert!(matches(
            &from_map(&json!({"app": "web"})),
            &labels(&[("app", "web")])
        ));
    }
}

/// Whether labels match a selector in query form (`app=web,tier!=db,
/// env in (a,b),!canary`), as `-l` takes it; for snapshots, where no server
/// filters. `Err` for a selector that does not parse.
pub fn matches_query(query: &str, labels: &BTreeMap<String, String>) -> Result<bool, String> {
    let mut ok = true;
    for term in split_terms(query) {
        let term = term.trim();
        if term.is_empty() {
            continue;
        }
        let holds = if let Some((key, rest)) = term.split_once(" notin ") {
            set_values(rest, term)?
                .iter()
                .all(|v| labels.get(key.trim()) != Some(v))
        } else if let Some((key, rest)) = term.split_once(" in ") {
            let values = set_values(rest, term)?;
            labels.get(key.trim()).is_some_and(|v| values.contains(v))
        } else if let Some((key, value)) = term.split_once("!=") {
            labels.get(key.trim()).map(String::as_str) != Some(value.trim())
        } else if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
            labels.get(key.trim()).map(String::as_str) == Some(value.trim())
        } else if let Some(key) = term.strip_prefix('!') {
            !labels.contains_key(key.trim())
        } else if term
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        {
            labels.contains_key(term)
        } else {
            return Err(format!("cannot parse the selector term {term:?}"));
        };
        ok &= holds;
    }
    Ok(ok)
}

/// Splits on commas that are not inside parentheses.
fn split_terms(query: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, c) in query.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&query[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&query[start..]);
    out
}

fn set_values(rest: &str, term: &str) -> Result<Vec<String>, String> {
    let inner = rest
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("cannot parse the selector term {term:?}"))?;
    Ok(inner.split(',').map(|v| v.trim().to_string()).collect())
}

#[cfg(test)]
mod query_tests {
    use super::*;

    #[test]
    fn query_selectors_match_like_the_server() {
        let labels: BTreeMap<String, String> = [("app", "web"), ("tier", "front")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(matches_query("app=web", &labels), Ok(true));
        assert_eq!(matches_query("app==web,tier!=db", &labels), Ok(true));
        assert_eq!(
            matches_query("tier in (front,edge),!canary", &labels),
            Ok(true)
        );
        assert_eq!(matches_query("tier notin (front)", &labels), Ok(false));
        assert_eq!(matches_query("app", &labels), Ok(true));
        assert_eq!(matches_query("app=api", &labels), Ok(false));
        assert!(matches_query("tier in front", &labels).is_err());
    }
}
