//! `tree -o dot` and `-o mermaid` on the saved snapshot of the test
//! cluster (examples/shop.yaml): the DOT is drawn by Graphviz's `dot`
//! (installed by tests/install-tools, which `.ci/run` runs), and a
//! snapshot someone sends, with a name made to break out of a label,
//! still draws. No cluster needed.

mod common;

use common::run::Cmd;

fn plugin(args: &[&str]) -> (i32, String, String) {
    let out = Cmd::reconcile().env_remove("KUBECONFIG").args(args).run();
    (out.code, out.stdout, out.stderr)
}

/// The plugin on the shop snapshot, in namespace shop.
fn shop(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["--snapshot", "examples/shop.yaml", "-n", "shop"];
    all.extend_from_slice(args);
    plugin(&all)
}

/// `dot -Tsvg` of `text`: its exit status and the SVG.
fn drawn(text: &str) -> (i32, String) {
    let path = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(path.path(), text).unwrap();
    let out = Cmd::new("dot")
        .args(["-Tsvg", path.path().to_str().unwrap()])
        .run();
    assert!(out.stderr.is_empty(), "dot warned: {}", out.stderr);
    (out.code, out.stdout)
}

#[test]
fn a_tree_as_dot_is_drawn_by_graphviz_with_every_object_and_relation() {
    let (code, text, stderr) = shop(&["tree", "deploy/web", "-o", "dot"]);
    assert_eq!(code, 1, "the exit status follows the verdict: {stderr}");
    assert!(text.starts_with("digraph reconcile {"), "{text}");
    let (drew, svg) = drawn(&text);
    assert_eq!(drew, 0, "{text}");
    // The Deployment, its three ReplicaSets and four pods, each once.
    assert_eq!(svg.matches("class=\"node\"").count(), 8, "{svg}");
    assert_eq!(svg.matches("class=\"edge\"").count(), 7, "{svg}");
    assert!(svg.contains("Failed (ImagePullBackOff)"), "{svg}");
    assert!(
        svg.contains("#ffcdd2"),
        "a failed node is filled red: {svg}"
    );
}

#[test]
fn a_tree_as_mermaid_has_a_node_a_line_edges_labelled_and_a_class_per_verdict() {
    let (_, text, _) = shop(&["tree", "deploy/web", "-o", "mermaid"]);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("flowchart LR"));
    assert_eq!(text.matches("<br/>").count(), 8, "{text}");
    assert_eq!(text.matches("-->|owns|").count(), 7, "{text}");
    assert!(text.contains("  classDef Failed fill:#ffcdd2"), "{text}");
    assert!(
        text.contains("Pod/web-77fcf69c59-4nn6r<br/>Failed (ImagePullBackOff)"),
        "{text}"
    );
}

#[test]
fn only_tree_draws_and_a_hostile_name_stays_inside_its_label() {
    let (code, _, stderr) = shop(&["status", "-o", "dot"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("use them with tree"), "{stderr}");
    let evil = r#"web"];evil[label="owned"]; //<b>#"#;
    let snapshot = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":{name},"namespace":"shop","uid":"u1","generation":1,"creationTimestamp":"2026-11-29T22:18:36Z"}},"spec":{{"replicas":1}},"status":{{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1,"conditions":[{{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}}]}}}}]}}"#,
        name = serde_json::Value::String(evil.into())
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), snapshot).unwrap();
    let path = file.path().to_str().unwrap();
    let (_, dot, stderr) = plugin(&[
        "--snapshot",
        path,
        "-n",
        "shop",
        "tree",
        "deployments",
        "-o",
        "dot",
    ]);
    let (drew, svg) = drawn(&dot);
    assert_eq!(drew, 0, "{dot}\n{stderr}");
    assert_eq!(svg.matches("class=\"node\"").count(), 1, "{dot}");
    let (_, mermaid, _) = plugin(&[
        "--snapshot",
        path,
        "-n",
        "shop",
        "tree",
        "deployments",
        "-o",
        "mermaid",
    ]);
    let node = mermaid.lines().nth(1).unwrap();
    // One quoted label, nothing after it: no quote, bracket or tag escaped.
    assert_eq!(node.matches('"').count(), 2, "{node}");
    assert!(node.ends_with("\"]") && !node.contains("<b>"), "{node}");
}

/// The README's picture is what the tool draws today.
#[test]
fn the_readme_shows_the_mermaid_the_tool_draws() {
    let (_, text, _) = shop(&["tree", "deploy/web", "-o", "mermaid"]);
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```mermaid\n{text}```")),
        "README.md's mermaid block differs from:\n{text}"
    );
}
