//! `why` on a saved snapshot (no cluster), compared with golden files: the
//! sweep's summary line and compact items, and the event timeline with
//! events that differ only by generated names folded into one line. Set
//! `UPDATE_GOLDEN=1` to rewrite them after a deliberate change.

mod common;

use common::golden;
use common::run::Cmd;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Cmd::reconcile()
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .args(args)
        .run();
    (out.code, out.stdout, out.stderr)
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
