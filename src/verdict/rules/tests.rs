//! Rule files: format, errors with positions, precedence of selectors, the
//! helpers expressions see, and the hook into the judge.

use crate::verdict::{Judge, Judged};
use std::path::PathBuf;
use std::sync::Arc;

use jiff::Timestamp;
use serde_json::json;

use super::{Origin, RuleSet};
use crate::model::{Object, Snapshot};
use crate::verdict::reason::Lifecycle;
use crate::verdict::{Verdict, judge};

const NOW: &str = "2026-01-10T12:00:00Z";

fn now() -> Timestamp {
    NOW.parse().unwrap()
}

fn widget(status: serde_json::Value) -> Object {
    Object::from_value(json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "u1", "generation": 2,
                     "creationTimestamp": "2026-01-10T11:00:00Z"},
        "spec": {"size": 3},
        "status": status,
    }))
    .unwrap()
}

fn set(text: &str) -> RuleSet {
    let mut set = RuleSet::default();
    set.add_source(text, Origin::Flag(PathBuf::from("mine.yaml")))
        .unwrap_or_else(|e| panic!("{e}"));
    set
}

fn error(text: &str) -> String {
    let mut set = RuleSet::default();
    set.add_source(text, Origin::Flag(PathBuf::from("mine.yaml")))
        .expect_err("the rule should be rejected")
        .to_string()
}

const PHASE_RULE: &str = r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.status.phase == "Broken"
        verdict: Failed
        reason: WidgetBroken
        message: '"widget " + object.metadata.name + " is broken: " + object.status.why'
      - when: object.status.phase == "Failed"
        verdict: Converged
        reason: FailedIsFineHere
        message: '"phase Failed means the last batch is done"'
"#;

#[test]
fn the_first_check_that_holds_decides() {
    let rules = set(PHASE_RULE);
    let j = rules
        .judge(
            &widget(json!({"phase": "Broken", "why": "no gears"})),
            now(),
        )
        .unwrap();
    assert_eq!(j.verdict, Verdict::Failed);
    assert_eq!(j.reason, "WidgetBroken");
    assert_eq!(j.message, "widget w is broken: no gears");
}

#[test]
fn no_check_holding_leaves_the_conventions() {
    let rules = set(PHASE_RULE);
    assert_eq!(
        rules.judge(&widget(json!({"phase": "Running"})), now()),
        None
    );
    // A missing field does not match rather than failing the rule.
    assert_eq!(rules.judge(&widget(json!({})), now()), None);
}

#[test]
fn a_user_rule_overrides_the_conventions_in_the_judge() {
    let obj = widget(json!({"observedGeneration": 2, "conditions": [
        {"type": "Ready", "status": "False", "reason": "ScaledToZero", "message": "0 workers"}]}));
    let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], now());
    assert_eq!(
        judge(&obj, &Judged::builtin(&snap)).verdict,
        Verdict::Progressing,
        "the conventions read Ready=False as not converged"
    );
    let users = Judge::new(Arc::new(set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: isFalse("Ready") && condition("Ready").reason == "ScaledToZero"
        verdict: Converged
        reason: Idle
"#)));
    let j = judge(&obj, &users.on(&snap));
    assert_eq!(j.verdict, Verdict::Converged);
    assert_eq!(j.reason, "Idle");
    // The same rule in the built-in pack says more than the conventions,
    // never less: its success gives way to the Ready=False they read.
    let mut pack = RuleSet::default();
    pack.add_source(
        r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: isFalse("Ready")
        verdict: Converged
        reason: Idle
"#,
        Origin::Builtin("example"),
    )
    .unwrap();
    let j = judge(&obj, &Judge::new(Arc::new(pack)).on(&snap));
    assert_eq!(
        (j.verdict, j.reason.as_str()),
        (Verdict::Progressing, "ScaledToZero")
    );
}

#[test]
fn no_rule_passes_a_status_written_for_an_older_spec() {
    let users = Judge::new(Arc::new(set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.status.phase == "Broken"
        verdict: Failed
        reason: WidgetBroken
      - when: object.status.phase == "Resting"
        verdict: Suspended
        reason: Resting
      - when: object.status.phase == "Working"
        verdict: Progressing
        reason: Working
      - when: object.status.phase == "Happy"
        verdict: Converged
        reason: Happy
"#)));
    let verdict = |status: serde_json::Value| {
        let obj = widget(status);
        let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], now());
        let j = judge(&obj, &users.on(&snap));
        (j.verdict, j.reason, j.message)
    };
    // The widget is at generation 2; its controller saw 1, as a number or
    // as Argo Rollouts writes it, a numeric string.
    for observed in [json!(1), json!("1")] {
        assert_eq!(
            verdict(json!({"phase": "Happy", "observedGeneration": observed})),
            (
                Verdict::Progressing,
                Lifecycle::ObservedGenerationLag.into(),
                "controller has observed generation 1 of 2".to_string()
            ),
            "observedGeneration {observed}"
        );
        assert_eq!(
            verdict(json!({"phase": "Working", "observedGeneration": observed})).1,
            "ObservedGenerationLag"
        );
        // A failure or a pause read from a stale status stands.
        assert_eq!(
            verdict(json!({"phase": "Broken", "observedGeneration": observed})).1,
            "WidgetBroken"
        );
        assert_eq!(
            verdict(json!({"phase": "Resting", "observedGeneration": observed})).1,
            "Resting"
        );
    }
    // A condition's own observedGeneration lags the same way.
    let (v, reason, message) = verdict(json!({"phase": "Happy", "conditions": [
        {"type": "Ready", "status": "True", "observedGeneration": "1"}]}));
    assert_eq!(
        (v, reason.as_str()),
        (Verdict::Progressing, "ObservedGenerationLag")
    );
    assert!(
        message.contains("condition Ready reflects generation 1 of 2"),
        "{message}"
    );
    // Caught up, the rule decides.
    assert_eq!(
        verdict(json!({"phase": "Happy", "observedGeneration": "2"})).0,
        Verdict::Converged
    );
}

#[test]
fn deletion_still_comes_first() {
    let mut obj = widget(json!({"phase": "Failed"}));
    obj.deleted = Some("2026-01-10T11:59:00Z".parse().unwrap());
    obj.finalizers = vec!["example.com/cleanup".into()];
    let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], now());
    let phase = Judge::new(Arc::new(set(PHASE_RULE)));
    assert_eq!(judge(&obj, &phase.on(&snap)).verdict, Verdict::Terminating);
}

#[test]
fn helpers_read_conditions_ages_and_generations() {
    let rules = set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: staleStatus()
        verdict: Progressing
        reason: Stale
      - when: isFalse("Ready") && age(condition("Ready").lastTransitionTime) > 600
        verdict: Failed
        reason: condition("Ready").reason
        message: condition("Ready").message + " for " + string(age(condition("Ready").lastTransitionTime)) + "s"
        since: condition("Ready").lastTransitionTime
      - when: isTrue("Ready") && condition("Missing").status == "" && now == "2026-01-10T12:00:00Z"
        verdict: Converged
        reason: Ready
"#);
    let cond = |status: &str, at: &str| {
        json!({"observedGeneration": 2, "conditions": [
            {"type": "Ready", "status": status, "reason": "GearsJammed", "message": "gears jammed",
             "lastTransitionTime": at}]})
    };
    let j = rules
        .judge(&widget(cond("False", "2026-01-10T11:00:00Z")), now())
        .unwrap();
    assert_eq!(
        (j.verdict, j.reason.as_str(), j.message.as_str()),
        (Verdict::Failed, "GearsJammed", "gears jammed for 3600s")
    );
    assert_eq!(j.since, Some("2026-01-10T11:00:00Z".parse().unwrap()));
    assert_eq!(
        rules.judge(&widget(cond("False", "2026-01-10T11:58:00Z")), now()),
        None,
        "two minutes is not yet a failure"
    );
    let j = rules
        .judge(&widget(cond("True", "2026-01-10T11:00:00Z")), now())
        .unwrap();
    assert_eq!(j.verdict, Verdict::Converged);
    assert!(
        j.message
            .contains("health rule 1 for Widget.example.com (--health-rules mine.yaml)"),
        "a check without a message names its rule: {}",
        j.message
    );
    let stale = widget(json!({"observedGeneration": 1}));
    assert_eq!(rules.judge(&stale, now()).unwrap().reason, "Stale");
}

#[test]
fn optional_syntax_and_annotations() {
    let rules = set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.metadata.?annotations[?"example.com/paused"].orValue("") == "true"
        verdict: Suspended
        reason: Paused
      - when: object.status.?phase.orValue("none") == "none"
        verdict: Progressing
        reason: NoPhase
"#);
    let mut raw = std::sync::Arc::unwrap_or_clone(widget(json!({})).raw);
    raw["metadata"]["annotations"] = json!({"example.com/paused": "true"});
    let paused = Object::from_value(raw).unwrap();
    assert_eq!(rules.judge(&paused, now()).unwrap().reason, "Paused");
    assert_eq!(
        rules.judge(&widget(json!({})), now()).unwrap().reason,
        "NoPhase"
    );
}

#[test]
fn a_runtime_error_is_unknown_and_names_the_rule() {
    let rules = set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.spec.size + "x" == 1
        verdict: Failed
        reason: Never
"#);
    let j = rules.judge(&widget(json!({})), now()).unwrap();
    assert_eq!(j.verdict, Verdict::Unknown);
    assert_eq!(j.reason, "HealthRuleError");
    assert!(
        j.message
            .starts_with("health rule 1 for Widget.example.com (--health-rules mine.yaml), check 1: `when: object.spec.size + \"x\" == 1`"),
        "{}",
        j.message
    );
}

#[test]
fn a_syntax_error_names_file_rule_check_and_position() {
    let e = error(
        r#"
rules:
  - group: example.com
    kind: Gadget
    checks:
      - when: "true"
        verdict: Converged
        reason: Fine
  - group: example.com
    kind: Widget
    checks:
      - when: "true"
        verdict: Converged
        reason: Fine
      - when: object.status.phase == = "x"
        verdict: Failed
        reason: Broken
"#,
    );
    assert!(
        e.starts_with(
            "health rules in --health-rules mine.yaml: rule 2 (Widget.example.com), check 2, `when`: "
        ),
        "{e}"
    );
    assert!(e.contains("(line 1, column 24)"), "{e}");
    assert!(
        e.contains("  | object.status.phase == = \"x\"\n  |                        ^\n"),
        "{e}"
    );
    assert!(e.contains("\nhint: "), "{e}");
}

#[test]
fn an_undeclared_name_is_an_error_at_load_with_its_position() {
    let e = error(
        r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.status.conditions.exists(c, c.type == "Ready") && objet.spec.size > 1
        verdict: Failed
        reason: Broken
"#,
    );
    assert!(
        e.contains("check 1, `when`: undeclared reference to 'objet'; expressions see `object`, `now` and the helpers (line 1, column 58)"),
        "{e}"
    );
    assert!(
        e.contains("\n  |                                                          ^\n"),
        "{e}"
    );
    // Comprehension variables, `now` and type names are declared.
    set(r#"
rules:
  - group: example.com
    kind: Widget
    checks:
      - when: object.status.conditions.all(c, c.status == "True") && now != "" && type(1) == int
        verdict: Converged
        reason: Fine
        message: '[1, 2].map(x, x * 2).filter(y, y > 2).size() == 1 ? "one" : "many"'
"#);
}

#[test]
fn format_errors_name_the_file() {
    let e = error(
        "rules:\n  - group: example.com\n    kind: Widget\n    checks:\n      - wen: 'true'\n        verdict: Failed\n        reason: X\n",
    );
    assert!(
        e.starts_with("health rules in --health-rules mine.yaml: "),
        "{e}"
    );
    assert!(e.contains("unknown field `wen`"), "{e}");
    assert!(e.contains("line 5"), "{e}");
    let e = error(
        "rules:\n  - group: example.com\n    kind: Widget\n    checks:\n      - verdict: Done\n        reason: X\n",
    );
    assert!(e.contains("unknown variant `Done`"), "{e}");
    let e = error(
        "rules:\n  - group: example.com\n    checks:\n      - verdict: Failed\n        reason: X\n",
    );
    assert!(e.contains("rule 1 names no `kind`"), "{e}");
    let e = error(
        "rules:\n  - kind: Pod\n    checks: [{verdict: Failed, reason: X}]\n  - kind: Pod\n    checks: [{verdict: Failed, reason: Y}]\n",
    );
    assert!(e.contains("rules 1 and 2 are both for Pod"), "{e}");
}

#[test]
fn an_empty_file_has_no_rules() {
    assert!(set("").rules().is_empty());
    assert!(set("# nothing yet\n").rules().is_empty());
    assert!(set("rules: []\n").rules().is_empty());
}

#[test]
fn the_most_specific_selector_wins_then_the_later_source() {
    let mut rules = RuleSet::default();
    let any = "rules:\n  - group: '*.aws.example'\n    kind: '*'\n    checks: [{verdict: Failed, reason: Any}]\n";
    let exact = "rules:\n  - group: s3.aws.example\n    kind: Bucket\n    checks: [{verdict: Converged, reason: Exact}]\n";
    rules.add_source(exact, Origin::Builtin("example")).unwrap();
    rules
        .add_source(any, Origin::Env(PathBuf::from("env.yaml")))
        .unwrap();
    assert_eq!(
        rules
            .rule_for("s3.aws.example", "Bucket")
            .unwrap()
            .checks
            .len(),
        1
    );
    let reason_for = |rules: &RuleSet, group: &str, kind: &str| {
        let obj = Object::from_value(json!({
            "apiVersion": format!("{group}/v1"), "kind": kind,
            "metadata": {"name": "x"}, "status": {}}))
        .unwrap();
        rules.judge(&obj, now()).map(|j| j.reason.to_string())
    };
    assert_eq!(
        reason_for(&rules, "s3.aws.example", "Bucket").as_deref(),
        Some("Exact")
    );
    assert_eq!(
        reason_for(&rules, "s3.aws.example", "Queue").as_deref(),
        Some("Any")
    );
    assert_eq!(
        reason_for(&rules, "aws.example", "Queue"),
        None,
        "*.x needs a subdomain"
    );
    assert_eq!(reason_for(&rules, "evilaws.example", "Queue"), None);
    rules
        .add_source(
            "rules:\n  - group: '*.example'\n    kind: Queue\n    checks: [{verdict: Failed, reason: Broad}]\n",
            Origin::Flag(PathBuf::from("flag.yaml")),
        )
        .unwrap();
    assert_eq!(
        reason_for(&rules, "sqs.aws.example", "Queue").as_deref(),
        Some("Any"),
        "the longer suffix is more specific than the later source"
    );
    assert_eq!(
        reason_for(&rules, "mq.example", "Queue").as_deref(),
        Some("Broad")
    );
}

#[test]
fn the_builtin_pack_compiles_and_documents_every_rule() {
    let set = RuleSet::builtin();
    assert!(set.rules().len() > 40, "{}", set.rules().len());
    assert!(set.rule_for("cert-manager.io", "Certificate").is_some());
    assert!(set.rule_for("s3.services.k8s.aws", "Bucket").is_some());
    assert!(set.rule_for("apps", "Deployment").is_none());
}

#[test]
fn objects_read_as_metadata_only_are_left_to_the_conventions() {
    let mut obj = Object::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": {"name": "c", "uid": "c1"}}))
    .unwrap();
    let always = Arc::new(set(
        "rules:\n  - group: cert-manager.io\n    kind: Certificate\n    checks: [{verdict: Failed, reason: Always}]\n",
    ));
    assert_eq!(always.judge(&obj, now()).unwrap().reason, "Always");
    obj.metadata_only = true;
    assert_eq!(always.judge(&obj, now()), None);
    let snap = Snapshot::new(vec![obj.clone()], vec![], vec![], now());
    assert_eq!(judge(&obj, &Judge::new(always).on(&snap)).reason, "Exists");
}
