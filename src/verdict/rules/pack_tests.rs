//! The built-in rule pack, rule by rule, over objects shaped like the ones
//! each operator writes (`rules/<operator>/health_test.yaml`, every folder
//! of [`super::pack::PACK`]), judged through the whole judge. Every rule
//! has a converged case and at least one that is not.

use crate::verdict::Judged;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use super::pack::PACK;
use super::{Origin, RuleSet};
use crate::model::{Object, Snapshot};
use crate::verdict::{Verdict, judge};

const NOW: &str = "2026-01-10T12:00:00Z";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// `<operator>: <what the object is>`, once read.
    case: String,
    verdict: String,
    reason: String,
    /// A part of the message that must be there.
    #[serde(default)]
    message: Option<String>,
    object: Value,
    /// The folder the case is in.
    #[serde(skip)]
    operator: &'static str,
}

/// Every case of every operator's folder.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for operator in PACK {
        let before = cases.len();
        for doc in serde_yaml_ng::Deserializer::from_str(operator.cases) {
            let mut case = Case::deserialize(doc)
                .unwrap_or_else(|e| panic!("rules/{}/health_test.yaml: {e}", operator.name));
            case.case = format!("{}: {}", operator.name, case.case);
            case.operator = operator.name;
            cases.push(case);
        }
        assert!(
            cases.len() > before,
            "rules/{}/health_test.yaml has no cases",
            operator.name
        );
    }
    cases
}

#[test]
fn every_case_is_judged_by_its_own_folder() {
    // A case in the wrong folder tests another operator's rule.
    let set = RuleSet::builtin();
    let mut elsewhere = Vec::new();
    for case in cases() {
        let obj = Object::from_value(case.object).unwrap();
        if let Some(rule) = set.rule_for(obj.group(), obj.kind())
            && rule.origin != Origin::Builtin(case.operator)
        {
            elsewhere.push(format!("{}: a rule of {:?}", case.case, rule.origin));
        }
    }
    assert!(elsewhere.is_empty(), "\n{}", elsewhere.join("\n"));
}

#[test]
fn no_folder_has_a_rule_of_another() {
    // One selector, one folder: across folders the pack would replace a
    // rule silently (within a file it is an error).
    let set = RuleSet::builtin();
    let replaced: Vec<String> = set
        .rules()
        .iter()
        .filter(|r| !r.overrides.is_empty())
        .map(|r| format!("{} ({:?} over {:?})", r.selector, r.origin, r.overrides))
        .collect();
    assert!(replaced.is_empty(), "{replaced:?}");
}

#[test]
fn every_folder_has_its_cases_read() {
    let cases = cases();
    let names: BTreeSet<&str> = cases.iter().map(|c| c.operator).collect();
    assert_eq!(names.len(), PACK.len());
    assert!(cases.len() >= 174, "{}", cases.len());
}

#[test]
fn every_builtin_case_gets_its_verdict() {
    let mut wrong = Vec::new();
    for case in cases() {
        let obj = Object::from_value(case.object.clone())
            .unwrap_or_else(|| panic!("{}: not an object", case.case));
        let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
        let j = judge(&obj, &Judged::builtin(&snap));
        let message_ok = case.message.as_ref().is_none_or(|m| j.message.contains(m));
        if j.verdict.as_str() != case.verdict || j.reason.as_str() != case.reason || !message_ok {
            wrong.push(format!(
                "{}: want {} {} {:?}, got {} {} {:?}",
                case.case, case.verdict, case.reason, case.message, j.verdict, j.reason, j.message
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn every_builtin_rule_has_a_converged_case_and_another() {
    let set = RuleSet::builtin();
    let mut seen: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for case in cases() {
        let obj = Object::from_value(case.object).unwrap();
        if let Some(rule) = set.rule_for(obj.group(), obj.kind()) {
            seen.entry(rule.index).or_default().insert(case.verdict);
        }
    }
    let converged = Verdict::Converged.as_str();
    let missing: Vec<String> = set
        .rules()
        .iter()
        .filter(|r| {
            let verdicts = seen.get(&r.index);
            verdicts.is_none_or(|v| !v.contains(converged) || v.len() < 2)
        })
        .map(|r| {
            format!(
                "rule {} ({}): {:?}",
                r.index,
                r.selector,
                seen.get(&r.index)
            )
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(
        missing.is_empty(),
        "rules without cases:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_builtin_rule_fails_on_an_object_without_spec_or_status() {
    // A resource just created, or written by a client that leaves spec
    // out: every rule must still answer (`object.?spec`), not error.
    let set = RuleSet::builtin();
    let mut errors = Vec::new();
    for r in set.rules() {
        let group = r.selector.group.trim_start_matches("*.");
        let kind = if r.selector.kind == "*" {
            "Anything"
        } else {
            &r.selector.kind
        };
        let api_version = if group.is_empty() || group == "*" {
            "example.com/v1".to_string()
        } else {
            format!("{group}/v1")
        };
        let obj = Object::from_value(serde_json::json!({"apiVersion": api_version, "kind": kind,
            "metadata": {"name": "bare", "namespace": "default", "uid": "bare", "generation": 1,
                "creationTimestamp": "2026-01-10T11:00:00Z"}}))
        .unwrap();
        let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
        let j = judge(&obj, &Judged::builtin(&snap));
        if j.reason == "HealthRuleError" {
            errors.push(format!("rule {} ({}): {}", r.index, r.selector, j.message));
        }
    }
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn the_cnpg_rule_reads_a_cluster_without_spec() {
    let obj = Object::from_value(
        serde_json::json!({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
        "metadata": {"name": "pg", "namespace": "default", "uid": "pg", "generation": 1},
        "status": {"phase": "Cluster in healthy state", "readyInstances": 1, "instances": 1}}),
    )
    .unwrap();
    let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
    let j = judge(&obj, &Judged::builtin(&snap));
    assert_ne!(j.reason, "HealthRuleError", "{}", j.message);
    assert_eq!(j.verdict, Verdict::Converged, "{} {}", j.reason, j.message);
}

/// The conventions alone: what an object means without any health rule.
fn conventions() -> crate::verdict::Judge {
    crate::verdict::Judge::new(std::sync::Arc::new(RuleSet::default()))
}

#[test]
fn every_builtin_rule_says_more_than_the_conventions() {
    // A rule is kept only where it says more than the conventions on some
    // object its operator writes: a verdict, a reason or words of its own.
    let set = RuleSet::builtin();
    let bare = conventions();
    let mut more: BTreeSet<usize> = BTreeSet::new();
    for case in cases() {
        let obj = Object::from_value(case.object).unwrap();
        let Some(rule) = set.rule_for(obj.group(), obj.kind()) else {
            continue;
        };
        let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
        let pack = judge(&obj, &Judged::builtin(&snap));
        let alone = judge(&obj, &bare.on(&snap));
        if (pack.verdict, &pack.reason, &pack.message)
            != (alone.verdict, &alone.reason, &alone.message)
        {
            more.insert(rule.index);
        }
    }
    let same: Vec<String> = set
        .rules()
        .iter()
        .filter(|r| !more.contains(&r.index))
        .map(|r| format!("rule {} ({})", r.index, r.selector))
        .collect();
    assert!(
        same.is_empty(),
        "rules that say nothing the conventions do not:\n{}",
        same.join("\n")
    );
}

/// A condition as (type, status, reason).
type Cond = (&'static str, &'static str, &'static str);

/// Condition shapes that say the same thing whatever the operator, judged
/// two hours after their last transition.
fn probes() -> Vec<(&'static str, Value)> {
    #[rustfmt::skip]
    let shapes: [(&str, &[Cond]); 10] = [
        ("Ready=False DependencyNotFound", &[("Ready", "False", "DependencyNotFound")]),
        ("Ready=False SecretNotFound", &[("Ready", "False", "SecretNotFound")]),
        ("Ready=False MissingCredentials", &[("Ready", "False", "MissingCredentials")]),
        ("Ready=False ReconciliationFailed", &[("Ready", "False", "ReconciliationFailed")]),
        ("Ready=Unknown for two hours", &[("Ready", "Unknown", "Progressing")]),
        ("Stalled=True beside Ready=True", &[("Ready", "True", "Succeeded"), ("Stalled", "True", "BuildFailed")]),
        ("Degraded=True beside Ready=True", &[("Ready", "True", "Succeeded"), ("Degraded", "True", "Unhealthy")]),
        ("ConfigError=True beside Ready=True", &[("Ready", "True", "Succeeded"), ("ConfigError", "True", "BadValue")]),
        ("Synced=False ReconcileError beside Ready=True", &[("Ready", "True", "Available"), ("Synced", "False", "ReconcileError")]),
        ("Healthy=False", &[("Healthy", "False", "UnhealthyPackageRevision")]),
    ];
    shapes
        .into_iter()
        .map(|(name, conditions)| {
            let conditions = conditions
                .iter()
                .map(|(type_, status, reason)| {
                    serde_json::json!({"type": type_, "status": status, "reason": reason,
                        "message": format!("{type_} is {status}: {reason}"),
                        "lastTransitionTime": "2026-01-10T10:00:00Z"})
                })
                .collect();
            (name, Value::Array(conditions))
        })
        .collect()
}

#[test]
fn no_builtin_rule_says_less_than_the_conventions() {
    // Every built-in rule over shapes whose meaning is the same for any
    // operator: a rule may be surer of trouble than the conventions, never
    // surer of health.
    let set = RuleSet::builtin();
    let bare = conventions();
    let rank = |v: Verdict| match v {
        Verdict::Converged => 0,
        Verdict::Suspended => 1,
        Verdict::Failed => 3,
        _ => 2,
    };
    let mut less = Vec::new();
    for r in set.rules() {
        let group = match r.selector.group.strip_prefix("*.") {
            Some(suffix) => format!("any.{suffix}"),
            None => r.selector.group.clone(),
        };
        let kind = if r.selector.kind == "*" {
            "Anything"
        } else {
            r.selector.kind.as_str()
        };
        for (name, conditions) in probes() {
            let obj = Object::from_value(serde_json::json!({"apiVersion": format!("{group}/v1"), "kind": kind,
                "metadata": {"name": "p", "namespace": "default", "uid": "p", "generation": 1,
                    "creationTimestamp": "2026-01-10T09:00:00Z"},
                "spec": {"replicas": 1}, "status": {"observedGeneration": 1, "readyReplicas": 1, "conditions": conditions}}))
            .unwrap();
            let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], NOW.parse().unwrap());
            let pack = judge(&obj, &Judged::builtin(&snap));
            let alone = judge(&obj, &bare.on(&snap));
            if rank(pack.verdict) < rank(alone.verdict) {
                less.push(format!(
                    "rule {} ({}), {name}: {} {} ({}), the conventions {} {} ({})",
                    r.index,
                    r.selector,
                    pack.verdict,
                    pack.reason,
                    pack.message,
                    alone.verdict,
                    alone.reason,
                    alone.message
                ));
            }
        }
    }
    assert!(less.is_empty(), "\n{}", less.join("\n"));
}
