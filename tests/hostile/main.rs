//! Hostile servers and hostile input, against the real binary: fake API
//! servers on 127.0.0.1 (silent, stalled, answering with escape sequences),
//! exec credential plugins that hang or fail, input nested or chained too
//! deep, and fuzzed snapshots. Every run is bounded: the binary must end by
//! itself with the right exit status, inside its deadline, and print no raw
//! control character.

#[path = "../common/mod.rs"]
mod common;

mod bounds;
mod fuzz;
mod input;
mod network;
mod plugin;
mod signals;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::run::Cmd;
pub use common::run::Run;

// `Run` is this crate's own (`common` is one of its modules), so the hostile
// tests' check of it is a method.
impl Run {
    /// Ended with `code`, within `bound`, and printed nothing a terminal
    /// would act on.
    pub fn assert(&self, code: i32, bound: Duration) -> &Run {
        assert_eq!(
            self.code, code,
            "exit status\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(
            self.took <= bound,
            "took {:?}, more than {bound:?}\nstderr:\n{}",
            self.took,
            self.stderr
        );
        assert_inert(&self.stdout);
        assert_inert(&self.stderr);
        self
    }
}

/// Fails if `text` holds a control character other than a line break, a
/// bidi control, or an invisible character.
pub fn assert_inert(text: &str) {
    let bad = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                | '\u{3164}' | '\u{115f}' | '\u{34f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e0fff}')
    };
    if let Some(c) = text.chars().find(|&c| bad(c)) {
        panic!("raw U+{:04X} reached the terminal in:\n{text:?}", c as u32);
    }
}

/// Where a test keeps its files (kubeconfig, plugin, cache); removed at the end.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Runs the binary with `args`, no terminal, no colour, the kube cache and
/// HOME in `dir`. The test stops it at `limit` (and fails) if it has not
/// ended by itself; what it writes must be fully read soon after it exits
/// (nothing it started may keep its output open).
pub fn run(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let out = Cmd::reconcile()
        .args(args)
        .env_remove("KUBECONFIG")
        .env("HOME", dir)
        .env("KUBECACHEDIR", dir.join("cache"))
        .env("NO_COLOR", "1")
        .deadline(limit)
        .run();
    // Shown with --nocapture, to see how close a run comes to its bound.
    eprintln!(
        "kubectl-reconcile {args:?}: exit {} after {:?}",
        out.code, out.took
    );
    out
}

/// A kubeconfig for `server`, namespace `default`, whose user
/// authenticates with `user` (see [`common::fake_api::kubeconfig`]).
pub fn kubeconfig(dir: &Path, server: &str, user: &str) -> PathBuf {
    common::fake_api::kubeconfig(dir, server, user, "default")
}

/// A kubeconfig with a plain token.
pub fn token_kubeconfig(dir: &Path, server: &str) -> PathBuf {
    kubeconfig(dir, server, "token: t0ken")
}
