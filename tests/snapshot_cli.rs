//! The binary on a saved snapshot (no cluster): the rendered text is
//! compared with golden files, at the snapshot's own fixed "now" and with no
//! terminal, so the output is the same on every machine. Set
//! `UPDATE_GOLDEN=1` to rewrite the golden files after a deliberate change,
//! then review the diff.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
        .current_dir(root())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    pretty_assertions::assert_eq!(expected, actual, "{}", Path::new(name).display());
}

const SHOP: &str = "examples/shop.yaml";

#[test]
fn tree_of_a_stuck_rollout() {
    let (code, out, err) = run(
        &["--snapshot", SHOP, "-n", "shop", "tree", "deploy/web"],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("tree-web.txt", &out);
}

#[test]
fn tree_with_owners_from_a_pod() {
    let (_, pods, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "pods",
            "-o",
            "json",
        ],
        None,
    );
    let doc: serde_json::Value = serde_json::from_str(&pods).unwrap();
    let pod = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["reason"] == "ImagePullBackOff")
        .expect("a pod that cannot pull");
    let target = format!("pod/{}", pod["object"]["name"].as_str().unwrap());
    let (code, out, err) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "tree",
            &target,
            "--owners",
        ],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("tree-owners.txt", &out);
}

#[test]
fn status_of_every_root_object() {
    let (code, out, err) = run(&["--snapshot", SHOP, "status"], None);
    assert_eq!(code, 1, "{err}");
    golden("status-shop.txt", &out);
}

#[test]
fn json_follows_the_versioned_schema() {
    let (code, out, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "deploy/api",
            "job/migrate",
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["apiVersion"], "reconcile.kubectl.dev/v1alpha1");
    assert_eq!(doc["kind"], "StatusReport");
    assert_eq!(doc["items"][0]["verdict"], "Converged");
    assert_eq!(doc["items"][1]["verdict"], "Failed");
    assert_eq!(doc["items"][1]["reason"], "BackoffLimitExceeded");
    let (_, yaml, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "deploy/api",
            "-o",
            "yaml",
        ],
        None,
    );
    assert!(
        yaml.starts_with("apiVersion: reconcile.kubectl.dev/v1alpha1\nkind: StatusReport\n"),
        "{yaml}"
    );
}

#[test]
fn snapshots_from_stdin_and_a_fixed_now() {
    let text = std::fs::read_to_string(root().join(SHOP)).unwrap();
    let (code, out, err) = run(
        &[
            "--snapshot",
            "-",
            "-n",
            "shop",
            "status",
            "deploy/api",
            "--now",
            "2030-01-01T00:00:00Z",
        ],
        Some(&text),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().nth(1).unwrap().contains("3y") || out.contains("d "),
        "ages measured from --now: {out}"
    );
}

#[test]
fn hostile_strings_never_reach_the_terminal() {
    let snap = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evil", "namespace": "x", "uid": "u1",
        "creationTimestamp": "2026-01-01T00:00:00Z"},
      "spec": {"containers": [{"name": "c", "image": "i"}]},
      "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/3 nodes \u001b[2J\u001b]8;;http://x\u0007click\u001b]8;;\u0007 are \u202eavailable"}]}}"#;
    let (code, out, err) = run(
        &["--snapshot", "-", "status", "pod/evil", "-o", "text"],
        Some(snap),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        !out.chars()
            .any(|c| c == '\u{1b}' || c == '\u{7}' || c == '\u{202e}'),
        "{out:?}"
    );
    assert!(out.contains("\\x1b") || out.contains("\\e"), "{out}");
}

#[test]
fn bad_snapshots_say_what_is_wrong() {
    let (code, _, err) = run(&["--snapshot", "no/such/file.yaml", "status"], None);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/file.yaml"), "{err}");
    let (code, _, err) = run(
        &[
            "--snapshot",
            SHOP,
            "tree",
            "deploy/nothing-here",
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 1, "a missing target is the verdict NotFound: {err}");
    let (code, _, err) = run(&["--now", "2026-01-01T00:00:00Z", "status"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--now only applies to --snapshot"), "{err}");
}

#[test]
fn text_is_cut_to_a_fixed_terminal_width() {
    use kubectl_reconcile::render::{Style, tree};
    use kubectl_reconcile::report::TreeReport;
    use kubectl_reconcile::source::{file, offline};
    use kubectl_reconcile::targets::TargetSpec;

    let snap = file::load_snapshot(root().join(SHOP).to_str().unwrap(), None).unwrap();
    let targets = offline::resolve(
        &snap,
        &[TargetSpec::Name {
            type_: "deploy".into(),
            name: "web".into(),
        }],
        Some("shop"),
    )
    .unwrap();
    let report = TreeReport::build(&snap, &targets, false);
    let opts = tree::TreeOptions {
        style: Style { color: false },
        width: Some(100),
        all: false,
        now: snap.now,
    };
    let text = tree::render(&report, &opts);
    assert!(
        text.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 100),
        "{text}"
    );
    golden("tree-web-width-100.txt", &text);
    let colored = tree::render(
        &report,
        &tree::TreeOptions {
            style: Style { color: true },
            ..opts
        },
    );
    assert!(colored.contains("\u{1b}["), "colour when asked for");
}

#[test]
fn why_offline_gives_the_same_diagnosis() {
    let (code, out, err) = run(
        &["--snapshot", SHOP, "-n", "shop", "why", "deploy/web"],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("why-web.txt", &out);
    let (code, json, _) = run(&["--snapshot", SHOP, "why", "-o", "json"], None);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["kind"], "WhyReport");
    let roots: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        roots,
        vec!["web", "migrate"],
        "the failing roots, most severe first, then by kind (Deployment before Job) and name"
    );
    for key in [
        "rootCause",
        "chain",
        "conditions",
        "events",
        "generationCheck",
        "nextSteps",
    ] {
        assert!(
            doc["items"][0].get(key).is_some(),
            "{key} in {}",
            doc["items"][0]
        );
    }
}

#[test]
fn colour_only_when_asked_for_off_a_terminal() {
    let (_, always, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "--color",
            "always",
        ],
        None,
    );
    assert!(
        always.contains("\u{1b}["),
        "--color always colours even a pipe"
    );
    let (_, auto, _) = run(&["--snapshot", SHOP, "-n", "shop", "status"], None);
    assert!(!auto.contains('\u{1b}'), "auto: no colour on a pipe");
    assert_eq!(
        always.lines().count(),
        auto.lines().count(),
        "the same lines with and without colour"
    );
}
