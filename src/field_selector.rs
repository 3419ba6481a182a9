//! `--field-selector`: kubectl's `field=value`, `field==value` and
//! `field!=value` requirements, comma-separated, matched in memory against
//! each object's fields (`metadata.name`, `status.phase`, `spec.nodeName`).
//! Pure. Matching here rather than on the server keeps one behaviour for
//! the live cluster and snapshot files, and for every kind (the server
//! supports only a few fields per kind).

use serde_json::Value;

use crate::model::{Object, Snapshot, Target};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSelector(Vec<Requirement>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    path: Vec<String>,
    value: String,
    equal: bool,
}

impl FieldSelector {
    pub fn parse(text: &str) -> Result<FieldSelector, String> {
        let bad = |part: &str| {
            format!(
                "--field-selector {part:?} is not FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE (e.g. status.phase=Running)"
            )
        };
        text.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|part| {
                let (field, value, equal) = if let Some((f, v)) = part.split_once("!=") {
                    (f, v, false)
                } else if let Some((f, v)) = part.split_once("==") {
                    (f, v, true)
                } else if let Some((f, v)) = part.split_once('=') {
                    (f, v, true)
                } else {
                    return Err(bad(part));
                };
                let field = field.trim();
                if field.is_empty() || field.split('.').any(str::is_empty) {
                    return Err(bad(part));
                }
                Ok(Requirement {
                    path: field.split('.').map(str::to_string).collect(),
                    value: value.trim().to_string(),
                    equal,
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(FieldSelector)
    }

    /// Every requirement holds. A missing field reads as the empty string.
    pub fn matches(&self, obj: &Object) -> bool {
        self.0.iter().all(|r| {
            let mut at: &Value = &obj.raw;
            for key in &r.path {
                at = at.get(key).unwrap_or(&Value::Null);
            }
            let text = match at {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            (text == r.value) == r.equal
        })
    }

    /// The targets whose objects match; a target that was not found stays,
    /// so that a named object that is missing is still said to be missing.
    pub fn filter(&self, snap: &Snapshot, targets: &[Target]) -> Vec<Target> {
        targets
            .iter()
            .filter(|t| match t {
                Target::Found(uid) => snap.get(uid).is_some_and(|o| self.matches(o)),
                Target::Missing(_) => true,
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, phase: &str, node: Option<&str>) -> Object {
        let mut raw = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "status": {"phase": phase},
        });
        if let Some(n) = node {
            raw["spec"] = json!({"nodeName": n});
        }
        Object::from_value(raw).unwrap()
    }

    #[test]
    fn equality_and_inequality_on_any_field() {
        let running = pod("a", "Running", Some("n1"));
        let pending = pod("b", "Pending", None);
        let sel = FieldSelector::parse("status.phase=Running").unwrap();
        assert!(sel.matches(&running) && !sel.matches(&pending));
        let sel = FieldSelector::parse("status.phase!=Running,metadata.name==b").unwrap();
        assert!(!sel.matches(&running) && sel.matches(&pending));
        let sel = FieldSelector::parse("spec.nodeName=").unwrap();
        assert!(
            !sel.matches(&running) && sel.matches(&pending),
            "missing is empty"
        );
    }

    #[test]
    fn malformed_selectors_are_refused() {
        for bad in ["status.phase", "=x", "status..phase=x"] {
            assert!(FieldSelector::parse(bad).is_err(), "{bad}");
        }
    }
}
