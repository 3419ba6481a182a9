//! The generation check: generation against observedGeneration, and from
//! managedFields who last changed the spec and who last wrote status, when.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use serde_json::Value;

use crate::model::{Object, age};
pub use crate::verdict::controller::Change;
use crate::verdict::controller::writes;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationCheck {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `Some(false)` when the controller has not observed the latest spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_changed: Option<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_written: Option<Change>,
    /// One or two sentences for people.
    pub summary: Vec<String>,
    /// The lag has lasted longer than [`STALE_AFTER`] and status has not
    /// been written since the spec changed: a wedged or absent controller.
    pub stale: bool,
}

/// How long an observedGeneration lag may last before it reads as stale.
pub const STALE_AFTER: SignedDuration = SignedDuration::from_secs(120);

pub fn check(obj: &Object, now: Timestamp) -> GenerationCheck {
    let (spec_changed, status_written) = writes(obj);
    let generation = obj.generation;
    let observed_generation = obj.observed_generation();
    let observed = match (generation, observed_generation) {
        (Some(g), Some(o)) => Some(o >= g),
        _ => None,
    };
    let mut summary = Vec::new();
    match (generation, observed_generation) {
        (Some(g), Some(o)) if o < g => {
            let mut s = format!(
                "generation {g}, observedGeneration {o}: the controller has not observed the latest spec"
            );
            if let Some(c) = &spec_changed {
                s.push_str(&format!(
                    " (spec changed {} ago by {})",
                    age(now, c.at),
                    c.manager
                ));
            }
            summary.push(s);
        }
        (Some(g), Some(_)) => summary.push(format!(
            "generation {g}, observedGeneration {g}: the controller has observed the latest spec"
        )),
        (Some(g), None) if crate::verdict::controller::never_written(obj) => summary.push(format!(
            "generation {g}; its controller has never written its status (no observedGeneration)"
        )),
        (Some(g), None)
            if obj
                .status()
                .is_some_and(|s| s.as_object().is_some_and(|m| !m.is_empty())) =>
        {
            summary.push(format!(
                "generation {g}; this kind does not report observedGeneration"
            ))
        }
        (Some(g), None) => summary.push(format!("generation {g}; no status has been written")),
        (None, _) => {}
    }
    let mut writes_line = Vec::new();
    if let Some(c) = &spec_changed {
        writes_line.push(format!(
            "spec last changed {} ago by {}",
            age(now, c.at),
            c.manager
        ));
    }
    match &status_written {
        Some(c) => writes_line.push(format!(
            "status last written {} ago by {}",
            age(now, c.at),
            c.manager
        )),
        None if obj.status().is_none() => writes_line.push("status never written".into()),
        None => {}
    }
    // A spec entry without a time (a `scale` subresource's) cannot be
    // ordered against the others: its manager is named, not guessed.
    let untimed = untimed_spec_managers(obj);
    if !untimed.is_empty() {
        writes_line.push(format!(
            "spec also set by {} at a time not recorded",
            untimed.join(", ")
        ));
    }
    if !writes_line.is_empty() {
        summary.push(writes_line.join("; "));
    }
    let stale = observed == Some(false)
        && spec_changed
            .as_ref()
            .is_some_and(|c| now.duration_since(c.at) > STALE_AFTER)
        && match (&status_written, &spec_changed) {
            (Some(w), Some(c)) => w.at < c.at,
            (None, _) => true,
            _ => false,
        };
    GenerationCheck {
        generation,
        observed_generation,
        observed,
        spec_changed,
        status_written,
        summary,
        stale,
    }
}

/// The managers of managedFields entries that touch the spec and carry
/// no time.
fn untimed_spec_managers(obj: &Object) -> Vec<String> {
    let mut out: Vec<String> = obj
        .at("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| crate::model::parse_time(e.get("time")).is_none())
        .filter(|e| {
            e.get("subresource").and_then(Value::as_str) == Some("scale")
                || e.pointer("/fieldsV1/f:spec").is_some()
        })
        .filter_map(|e| e.get("manager").and_then(Value::as_str).map(str::to_string))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(generation: i64, observed: i64, status_time: &str) -> Object {
        Object::from_value(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "uid": "d", "generation": generation, "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-01-10T11:00:00Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}, "f:spec": {"f:replicas": {}}}},
                {"manager": "kubectl-edit", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-01-10T11:56:00Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:template": {}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1", "time": status_time,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {}}}, "subresource": "status"}]},
            "status": {"observedGeneration": observed}}))
        .unwrap()
    }

    fn now() -> Timestamp {
        "2026-01-10T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn a_lagging_controller_that_wrote_nothing_since_is_stale() {
        let c = check(&deployment(5, 4, "2026-01-10T11:30:00Z"), now());
        assert_eq!(c.observed, Some(false));
        assert_eq!(c.spec_changed.as_ref().unwrap().manager, "kubectl-edit");
        assert_eq!(
            c.status_written.as_ref().unwrap().manager,
            "kube-controller-manager"
        );
        assert_eq!(
            c.summary[0],
            "generation 5, observedGeneration 4: the controller has not observed the latest spec (spec changed 4m ago by kubectl-edit)"
        );
        assert_eq!(
            c.summary[1],
            "spec last changed 4m ago by kubectl-edit; status last written 30m ago by kube-controller-manager"
        );
        assert!(c.stale);
    }

    #[test]
    fn a_spec_write_without_a_time_names_its_manager_not_a_guess() {
        let mut raw = (*deployment(5, 4, "2026-01-10T11:30:00Z").raw).clone();
        raw["metadata"]["managedFields"]
            .as_array_mut()
            .unwrap()
            .push(json!({"manager": "kubectl", "operation": "Update", "apiVersion": "autoscaling/v1",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}));
        let c = check(&Object::from_value(raw).unwrap(), now());
        assert_eq!(
            c.summary[1],
            "spec last changed 4m ago by kubectl-edit; status last written 30m ago by kube-controller-manager; spec also set by kubectl at a time not recorded"
        );
    }

    #[test]
    fn a_fresh_lag_or_a_recent_status_write_is_not_stale() {
        let recent = check(&deployment(5, 4, "2026-01-10T11:59:00Z"), now());
        assert!(!recent.stale, "status was written after the spec changed");
        let young = check(
            &deployment(5, 4, "2026-01-10T11:30:00Z"),
            "2026-01-10T11:57:00Z".parse().unwrap(),
        );
        assert!(
            !young.stale,
            "a one-minute lag is just a controller at work"
        );
        let synced = check(&deployment(5, 5, "2026-01-10T11:59:57Z"), now());
        assert_eq!(synced.observed, Some(true));
        assert_eq!(
            synced.summary[0],
            "generation 5, observedGeneration 5: the controller has observed the latest spec"
        );
        assert!(
            synced.summary[1].ends_with("status last written 3s ago by kube-controller-manager")
        );
    }

    #[test]
    fn a_missing_observed_generation_is_not_a_lag() {
        let obj = Object::from_value(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "uid": "w", "generation": 2}, "spec": {}}))
        .unwrap();
        let c = check(&obj, now());
        assert_eq!(c.observed, None);
        assert!(!c.stale);
        assert_eq!(
            c.summary,
            vec![
                "generation 2; no status has been written",
                "status never written"
            ]
        );
    }
}
