//! Completion in real shells: zsh and fish (and bash through kubectl) run
//! interactively in tmux, a line is typed and Tab pressed, and the screen
//! is read back. No cluster: the values come from the plugin's own flags
//! and from a snapshot file. `.ci/run` installs zsh, fish and tmux from the
//! distribution's packages where they are missing.

mod common;
#[path = "support/tmux.rs"]
mod tmux;

use std::path::Path;

use common::root;
use common::run::path_with_bin_dir;
use tmux::{Tmux, require};

/// This build's directory first on PATH: `kubectl-reconcile` and
/// `kubectl_complete-reconcile`, as kubectl finds plugins.
fn path() -> String {
    path_with_bin_dir().into_string().unwrap()
}

/// Completes `line` with Tab and checks that the line became `want`,
/// with a `--flag=` part said once.
fn completes(shell: &Tmux, prompt: &str, line: &str, tail: &str, want: &str) {
    let screen = shell.complete(prompt, line, tail);
    assert!(
        screen.contains(want) && !screen.contains("--output=--output"),
        "{screen}"
    );
}

/// A kubeconfig of three contexts in `home` (no server is asked: the
/// names come from the file), and the line that completes the second of a
/// `--contexts` list with it.
fn contexts_line(home: &Path) -> String {
    let path = home.join("fleet.kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {}}]\ncontexts:\n- {name: prod-eu, context: {cluster: c, user: u}}\n- {name: prod-us, context: {cluster: c, user: u}}\n- {name: dev, context: {cluster: c, user: u}}\n",
    )
    .unwrap();
    format!(
        "kubectl-reconcile --kubeconfig {} status --contexts prod-eu,pr",
        path.display()
    )
}

fn zsh(home: &Path, rc: &str) -> Tmux {
    require("zsh");
    std::fs::write(home.join(".zshrc"), rc).unwrap();
    Tmux::start("zsh", "zsh -i", home, &path(), &[])
}

#[test]
fn zsh_completes_flags_values_and_names() {
    let home = tempfile::tempdir().unwrap();
    let rc = format!(
        "PS1='zsh-ready%% '\nfpath=({}/completions $fpath)\nautoload -U compinit && compinit -u\n",
        root().display()
    );
    let shell = zsh(home.path(), &rc);
    // A flag's value after `=`: the value alone is added, `--output=` kept.
    completes(
        &shell,
        "zsh-ready%",
        "kubectl-reconcile status --output=ya",
        "--output=yaml",
        "kubectl-reconcile status --output=yaml",
    );
    // Names from a snapshot file.
    completes(
        &shell,
        "zsh-ready%",
        "kubectl-reconcile --snapshot examples/shop.yaml -n shop tree deploy/w",
        "deploy/web",
        "tree deploy/web",
    );
    // The next context of a `--contexts` list, from the kubeconfig.
    completes(
        &shell,
        "zsh-ready%",
        &contexts_line(home.path()),
        "prod-eu,prod-us",
        "--contexts prod-eu,prod-us",
    );
}

/// The direct list is aligned as kubectl's is (zsh's `_describe`): every
/// description begins in one column, and no line wraps at 80 columns.
#[test]
fn zsh_lists_subcommands_aligned_at_80_columns() {
    require("zsh");
    let home = tempfile::tempdir().unwrap();
    let rc = format!(
        "PS1='zsh-ready%% '\nfpath=({}/completions $fpath)\nautoload -U compinit && compinit -u\n",
        root().display()
    );
    std::fs::write(home.path().join(".zshrc"), rc).unwrap();
    let shell = Tmux::start_sized("zsh80", "zsh -i", home.path(), &path(), &[], (80, 30));
    let screen = shell.complete("zsh-ready%", "kubectl-reconcile ", "controllers");
    let described: Vec<&str> = screen.lines().filter(|l| l.contains(" -- ")).collect();
    assert!(described.len() >= 7, "{screen}");
    let columns: std::collections::BTreeSet<usize> =
        described.iter().map(|l| l.find(" -- ").unwrap()).collect();
    assert_eq!(columns.len(), 1, "descriptions not aligned:\n{screen}");
    assert!(
        described.iter().all(|l| l.chars().count() <= 80),
        "{screen}"
    );
}

#[test]
fn zsh_completes_the_plugin_through_kubectl() {
    let home = tempfile::tempdir().unwrap();
    let rc = "PS1='zsh-ready%% '\nautoload -U compinit && compinit -u\nsource <(kubectl completion zsh)\n";
    let shell = zsh(home.path(), rc);
    completes(
        &shell,
        "zsh-ready%",
        "kubectl reconcile status --output=ya",
        "--output=yaml",
        "kubectl reconcile status --output=yaml",
    );
    completes(
        &shell,
        "zsh-ready%",
        "kubectl reconcile --snapshot examples/shop.yaml -n shop why deploy/a",
        "deploy/api",
        "why deploy/api",
    );
}

#[test]
fn fish_completes_flags_values_and_names() {
    require("fish");
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/fish");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.fish"),
        format!(
            "function fish_prompt; echo -n 'fish-ready> '; end\nset -g fish_greeting\nset -p fish_complete_path {}/completions\nkubectl completion fish | source\n",
            root().display()
        ),
    )
    .unwrap();
    let shell = Tmux::start("fish", "fish", home.path(), &path(), &[]);
    completes(
        &shell,
        "fish-ready>",
        "kubectl-reconcile status --output=ya",
        "--output=yaml",
        "kubectl-reconcile status --output=yaml",
    );
    completes(
        &shell,
        "fish-ready>",
        "kubectl-reconcile --snapshot examples/shop.yaml -n shop tree deploy/w",
        "deploy/web",
        "tree deploy/web",
    );
    completes(
        &shell,
        "fish-ready>",
        &contexts_line(home.path()),
        "prod-eu,prod-us",
        "--contexts prod-eu,prod-us",
    );
    // Through kubectl's own fish completion, which keeps `--output=` itself.
    completes(
        &shell,
        "fish-ready>",
        "kubectl reconcile status --output=ya",
        "--output=yaml",
        "kubectl reconcile status --output=yaml",
    );
}
