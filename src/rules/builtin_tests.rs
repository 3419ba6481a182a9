//! The built-in rule pack, rule by rule, over objects shaped like the ones
//! each operator writes (`tests/fixtures/rules/builtin.yaml`), judged
//! through the whole judge. Every rule has a converged case and at least
//! one that is not.

use crate::verdict::Judged;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;

use super::RuleSet;
use crate::model::{Object, Snapshot};
use crate::verdict::{Verdict, judge};

const CASES: &str = include_str!("../../tests/fixtures/rules/builtin.yaml");
const NOW: &str = "2026-01-10T12:00:00Z";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    case: String,
    verdict: String,
    reason: String,
    /// A part of the message that must be there.
    #[serde(default)]
    message: Option<String>,
    object: Value,
}

fn cases() -> Vec<Case> {
    serde_yaml_ng::Deserializer::from_str(CASES)
        .map(|doc| Case::deserialize(doc).unwrap_or_else(|e| panic!("builtin cases: {e}")))
        .collect()
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
