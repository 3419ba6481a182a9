//! Small pure predicates over `status.conditions`, shared by the generic
//! precedence and the per-kind rules.

use crate::model::{Condition, Object};
use crate::verdict::reason::Reason;

/// The condition of this type, if the object reports it.
pub fn find<'a>(conds: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conds.iter().find(|c| c.type_ == type_)
}

/// The condition of this type when its status is `True`.
pub fn true_<'a>(conds: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    find(conds, type_).filter(|c| c.is_true())
}

/// The condition of this type when its status is `False`.
pub fn false_<'a>(conds: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    find(conds, type_).filter(|c| c.is_false())
}

/// The condition of this type when its reason is `reason`, whatever its status.
pub fn with_reason<'a>(conds: &'a [Condition], type_: &str, reason: &str) -> Option<&'a Condition> {
    find(conds, type_).filter(|c| c.reason == reason)
}

/// The first condition whose own `observedGeneration` is older than the
/// object's `metadata.generation`. A condition without one never lags.
pub fn lagging<'a>(obj: &Object, conds: &'a [Condition]) -> Option<(&'a Condition, i64, i64)> {
    let generation = obj.generation?;
    conds.iter().find_map(|c| {
        let observed = c.observed_generation?;
        (observed < generation).then_some((c, observed, generation))
    })
}

/// The condition's reason, or `fallback` when it has none.
pub fn reason_or(cond: &Condition, fallback: impl Into<Reason>) -> Reason {
    Reason::or(&cond.reason, fallback)
}

/// `Type=Status: message`, or `Type=Status (Reason)` when there is no
/// message: how a condition is cited as evidence.
pub fn cite(cond: &Condition) -> String {
    // A condition present without a status (Argo CD's `ComparisonError`)
    // is cited by its type alone.
    if cond.status.is_empty() {
        return match cond.message.trim() {
            "" => cond.type_.clone(),
            message => format!("{}: {message}", cond.type_),
        };
    }
    match (cond.message.trim(), cond.reason.as_str()) {
        ("", "") => format!("{}={}", cond.type_, cond.status),
        ("", reason) => format!("{}={} ({reason})", cond.type_, cond.status),
        (message, _) => format!("{}={}: {message}", cond.type_, cond.status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::reason::Lifecycle;
    use serde_json::json;

    fn obj() -> Object {
        Object::from_value(json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "generation": 3},
            "status": {"conditions": [
                {"type": "Ready", "status": "False", "reason": "Waiting", "message": "db not up", "observedGeneration": 3},
                {"type": "Synced", "status": "True", "observedGeneration": 2},
                {"type": "Healthy", "status": "Unknown"}]}
        }))
        .unwrap()
    }

    #[test]
    fn predicates_look_at_type_and_status() {
        let o = obj();
        let c = o.conditions();
        assert!(false_(&c, "Ready").is_some());
        assert!(true_(&c, "Ready").is_none());
        assert!(true_(&c, "Synced").is_some());
        assert!(true_(&c, "Healthy").is_none() && false_(&c, "Healthy").is_none());
        assert!(find(&c, "Missing").is_none());
        assert!(with_reason(&c, "Ready", "Waiting").is_some());
        assert!(with_reason(&c, "Ready", "Other").is_none());
    }

    #[test]
    fn only_a_condition_with_an_older_observed_generation_lags() {
        let o = obj();
        let c = o.conditions();
        let (cond, observed, generation) = lagging(&o, &c).unwrap();
        assert_eq!(
            (cond.type_.as_str(), observed, generation),
            ("Synced", 2, 3)
        );
        let current = &c[..1];
        assert!(lagging(&o, current).is_none());
    }

    #[test]
    fn cites_read_like_kubectl_describe() {
        let o = obj();
        let c = o.conditions();
        assert_eq!(cite(&c[0]), "Ready=False: db not up");
        assert_eq!(cite(&c[1]), "Synced=True");
        assert_eq!(reason_or(&c[1], Lifecycle::Ready), "Ready");
    }
}
