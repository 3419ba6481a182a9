//! The JSON documents match docs/schema/reports.schema.json: the binary's
//! real `-o json` output for every report kind, on the saved snapshot of
//! the test cluster (examples/shop.yaml), is validated against the schema.

mod common;

use serde_json::Value;

use common::root;
use common::run::Cmd;

fn json_of(args: &[&str]) -> Value {
    let out = Cmd::reconcile()
        .env_remove("KUBECONFIG")
        .args([
            "--snapshot",
            "examples/shop.yaml",
            "-n",
            "shop",
            "-o",
            "json",
        ])
        .args(args)
        .run();
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", out.stderr))
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/schema/reports.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

fn problems(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn every_report_kind_matches_the_schema() {
    let validator = validator();
    let cases: &[(&[&str], &str)] = &[
        (&["status"], "StatusReport"),
        (&["tree", "deploy/web"], "TreeReport"),
        (
            &["tree", "--owners", "pod/web-77fcf69c59-4nn6r"],
            "TreeReport",
        ),
        (&["why", "deploy/web"], "WhyReport"),
        (&["why"], "WhyReport"),
        (&["status", "deploy/nothere"], "StatusReport"),
    ];
    for (args, kind) in cases {
        let doc = json_of(args);
        assert_eq!(doc["kind"], *kind, "{args:?}");
        let found = problems(&validator, &doc);
        assert!(
            found.is_empty(),
            "{args:?} does not match the schema:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_schema_refuses_what_the_contract_does_not_allow() {
    let validator = validator();
    let mut doc = json_of(&["status"]);
    doc["items"][0]["verdict"] = "Fine".into();
    assert!(!problems(&validator, &doc).is_empty(), "an unknown verdict");
    let mut doc = json_of(&["tree", "deploy/web"]);
    doc["items"][0].as_object_mut().unwrap().remove("children");
    assert!(
        !problems(&validator, &doc).is_empty(),
        "a node without children"
    );
    let mut doc = json_of(&["why", "deploy/web"]);
    doc["apiVersion"] = "v1".into();
    assert!(!problems(&validator, &doc).is_empty(), "another apiVersion");
}
