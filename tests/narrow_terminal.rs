//! At 80 columns, in a real terminal (tmux), nothing is lost without a
//! word: a table that cut a column says which, `why`'s event messages are
//! never cut, and its prose wraps with a hanging indent instead of being
//! broken mid-word by the terminal. No cluster: the saved snapshot of the
//! test cluster (examples/shop.yaml). `.ci/run` installs tmux where it is
//! missing.

mod common;
#[path = "support/tmux.rs"]
mod tmux;

use std::time::Duration;

use common::run::path_with_bin_dir;
use tmux::Tmux;

/// What `kubectl-reconcile ARGS` on the shop snapshot printed in an
/// 80-column terminal, lines the terminal wrapped joined again.
fn at_80_columns(args: &str) -> String {
    let home = tempfile::tempdir().unwrap();
    let done = "__the_command_ended__";
    let command = format!(
        "kubectl-reconcile --snapshot examples/shop.yaml -n shop {args}; echo {done}; sleep 60"
    );
    let term = Tmux::start_sized(
        "narrow",
        &command,
        home.path(),
        path_with_bin_dir().to_str().unwrap(),
        &[("NO_COLOR", "1")],
        (80, 50),
    );
    term.until(Duration::from_secs(20), |s| s.contains(done));
    let shown = term.history();
    assert!(shown.contains(done), "the command did not end:\n{shown}");
    shown
}

/// The lines the terminal had to wrap: wider than the window.
fn wrapped_by_the_terminal(shown: &str) -> Vec<&str> {
    shown
        .lines()
        .filter(|l| l.trim_end().chars().count() > 80)
        .collect()
}

#[test]
fn status_and_tree_say_which_column_they_cut() {
    let status = at_80_columns("status");
    assert!(wrapped_by_the_terminal(&status).is_empty(), "{status}");
    assert!(status.contains("…"), "{status}");
    assert!(
        status.contains("(MESSAGE cut to fit the terminal; -o wide shows it whole)"),
        "{status}"
    );
    let tree = at_80_columns("tree deploy/web");
    assert!(wrapped_by_the_terminal(&tree).is_empty(), "{tree}");
    assert!(tree.contains("cut to fit the terminal"), "{tree}");
    // -o wide cuts nothing, and says nothing.
    let wide = at_80_columns("tree deploy/web -o wide");
    assert!(!wide.contains("cut to fit"), "{wide}");
    assert!(wide.contains("3/3 replicas available"), "{wide}");
}

#[test]
fn why_keeps_every_event_message_and_wraps_its_prose() {
    let why = at_80_columns("why deploy/web");
    // Each event's message whole, on a line of its own below the event.
    for message in [
        "Scaled up replica set web-57497db5f5 from 0 to 3",
        "Scaled down replica set web-8f6dbdbcb from 1 to 0",
        "Deleted pod: web-8f6dbdbcb-brzlz",
    ] {
        assert!(
            why.lines().any(|l| l.trim() == message),
            "{message:?} is not shown whole:\n{why}"
        );
    }
    // Prose wraps with a hanging indent; only a command that is longer
    // than the window may be wrapped by the terminal, whole on its line.
    for line in wrapped_by_the_terminal(&why) {
        assert!(line.trim_start().starts_with("kubectl "), "{line:?}\n{why}");
    }
    let also = why.find("\nAlso\n").expect("an Also section");
    let next = why[also..].lines().nth(3).unwrap();
    assert!(
        next.starts_with("    "),
        "no hanging indent: {next:?}\n{why}"
    );
}
