//! `why` on a saved snapshot (no cluster), compared with golden files: the
//! sweep's summary line and compact items, and the event timeline with
//! events that differ only by generated names folded into one line. Set
//! `UPDATE_GOLDEN=1` to rewrite them after a deliberate change.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
        .current_dir(root())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    pretty_assertions::assert_eq!(expected, actual, "{name}");
}

const SHOP: &str = "examples/shop.yaml";

#[test]
fn the_sweep_starts_with_a_summary_and_keeps_items_compact() {
    let (code, out, err) = run(&["--snapshot", SHOP, "-n", "shop", "why"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.lines()
            .next()
            .unwrap_or("")
            .contains(" root objects not converged: "),
        "{out}"
    );
    assert!(!out.contains("Conditions"), "{out}");
    golden("why-sweep.txt", &out);
}

#[test]
fn events_that_differ_by_generated_names_are_one_line() {
    let (code, out, err) = run(&["--snapshot", SHOP, "-n", "shop", "why", "job/migrate"]);
    assert_eq!(code, 1, "{err}");
    // Three "Created pod: migrate-xxxxx" events are one line.
    let created: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("SuccessfulCreate"))
        .collect();
    assert_eq!(created.len(), 1, "{out}");
    assert!(
        created[0].contains("x3") && created[0].contains("Created pod: migrate-*"),
        "{out}"
    );
    golden("why-job-events.txt", &out);
}
