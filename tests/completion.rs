//! Completion without a cluster: the committed scripts under `completions/`
//! are what the binary generates (set `UPDATE_COMPLETIONS=1` to rewrite them
//! after a change of the scripts, then commit them), the bash script works
//! in a real bash through `__complete`, and `__complete` answers from a
//! snapshot file.

mod common;

use std::path::Path;

use kubectl_reconcile::app::scripts;

use common::root;
use common::run::{Cmd, path_with_bin_dir};

fn plugin(args: &[&str]) -> (i32, String, String) {
    let out = Cmd::reconcile().env_remove("KUBECONFIG").args(args).run();
    (out.code, out.stdout, out.stderr)
}

#[test]
fn committed_scripts_are_current() {
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (shell, arg) in scripts::SHELLS
        .iter()
        .zip(["bash", "zsh", "fish", "powershell"])
    {
        let (code, generated, stderr) = plugin(&["completion", arg]);
        assert_eq!(code, 0, "completion {arg}: {stderr}");
        assert!(
            generated.contains("kubectl-reconcile"),
            "completion {arg}:\n{generated}"
        );
        let path = root().join("completions").join(scripts::file_name(*shell));
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            stale.push(format!("completions/{}", scripts::file_name(*shell)));
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts (the clap definitions changed): {}\nrefresh them with `UPDATE_COMPLETIONS=1 cargo test --test completion`, review the diff and commit completions/",
        stale.join(", ")
    );
}

/// Runs the committed bash script's function as bash would on TAB, and
/// returns COMPREPLY.
fn bash_complete(line: &str) -> Vec<String> {
    let script = root().join("completions/kubectl-reconcile.bash");
    let program = format!(
        r#"source "{}"
COMP_LINE="{line}"
read -ra COMP_WORDS <<<"$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_POINT=${{#COMP_LINE}}
# The function the script registered for kubectl-reconcile.
fn=$(complete -p kubectl-reconcile | sed -n 's/.*-F \([^ ]*\).*/\1/p')
"$fn" kubectl-reconcile "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        script.display()
    );
    // The script runs the plugin it completes: put this build's on PATH.
    let out = Cmd::new("bash")
        .env("PATH", path_with_bin_dir())
        .env_remove("KUBECONFIG")
        .args(["--norc", "--noprofile", "-c", &program])
        .run();
    assert!(out.code == 0, "{}", out.stderr);
    out.stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_bash_script_completes_in_bash() {
    let subcommands = bash_complete("kubectl-reconcile ");
    for sub in ["tree", "status", "completion"] {
        assert!(subcommands.contains(&sub.to_string()), "{subcommands:?}");
    }
    assert_eq!(
        bash_complete("kubectl-reconcile tree --ow"),
        vec!["--owners"]
    );
    assert_eq!(
        bash_complete("kubectl-reconcile status -o "),
        vec![
            "text",
            "wide",
            "name",
            "json",
            "yaml",
            "dot",
            "mermaid",
            "jsonpath=",
            "jsonpath-file=",
            "custom-columns=",
            "custom-columns-file="
        ]
    );
    assert_eq!(
        bash_complete("kubectl-reconcile completion k"),
        vec!["kubectl"]
    );
    // What only the plugin knows: names from a snapshot, and a flag value
    // after `=`, which bash completes from after the `=`.
    assert_eq!(
        bash_complete("kubectl-reconcile --snapshot examples/shop.yaml -n shop tree deploy/"),
        vec!["deploy/api", "deploy/web"]
    );
    assert_eq!(
        bash_complete("kubectl-reconcile status --output=ya"),
        vec!["yaml"]
    );
    // The contexts of a `--contexts` list, from the kubeconfig named.
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = home.path().join("fleet.kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {}}]\ncontexts:\n- {name: prod-eu, context: {cluster: c, user: u}}\n- {name: prod-us, context: {cluster: c, user: u}}\n- {name: dev, context: {cluster: c, user: u}}\n",
    )
    .unwrap();
    let line = |rest: &str| {
        format!(
            "kubectl-reconcile --kubeconfig {} status --contexts {rest}",
            kubeconfig.display()
        )
    };
    assert_eq!(bash_complete(&line("prod")), vec!["prod-eu", "prod-us"]);
    assert_eq!(
        bash_complete(&line("prod-eu,")),
        vec!["prod-eu,dev", "prod-eu,prod-us"]
    );
}

/// `__complete` as kubectl_complete-reconcile runs it: candidates, then `:N`.
fn complete(words: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["__complete"];
    args.extend_from_slice(words);
    let (code, stdout, stderr) = plugin(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.is_empty(),
        "completion never writes to stderr: {stderr}"
    );
    let mut lines: Vec<String> = stdout.lines().map(str::to_string).collect();
    let directive = lines.pop().expect("a directive line");
    assert!(directive.starts_with(':'), "{stdout}");
    let values = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    (values, directive)
}

#[test]
fn offline_from_a_snapshot() {
    let snap = Path::new("examples/shop.yaml").to_str().unwrap();
    assert_eq!(
        complete(&["--snapshot", snap, "-n", "shop", "tree", "deploy/"]),
        (vec!["deploy/api".into(), "deploy/web".into()], ":4".into())
    );
    assert_eq!(
        complete(&["--snapshot", snap, "status", "jobs", ""]),
        (vec!["migrate".into()], ":4".into())
    );
    let (types, _) = complete(&["--snapshot", snap, "tree", ""]);
    for t in ["deployments", "jobs", "pods", "replicasets", "services"] {
        assert!(types.contains(&t.to_string()), "{types:?}");
    }
    assert_eq!(
        complete(&["--snapshot", snap, "tree", "sv"]).0,
        vec!["svc"],
        "a short name when that is what was typed"
    );
}

#[test]
fn the_protocol_without_a_cluster() {
    let (subs, directive) = complete(&[""]);
    assert_eq!(directive, ":4");
    for sub in ["tree", "status", "completion"] {
        assert!(subs.contains(&sub.to_string()), "{subs:?}");
    }
    assert_eq!(
        complete(&["status", "--output=j"]).0,
        vec!["json", "jsonpath=", "jsonpath-file="],
        "bare values after --flag=, as cobra answers"
    );
    assert_eq!(
        complete(&["tree", "--kubeconfig", ""]),
        (vec![], ":0".into()),
        "file names, from the shell"
    );
    // No kubeconfig anywhere: no candidates, no error, at once.
    let out = Cmd::reconcile()
        .env("KUBECONFIG", root().join("no-such-kubeconfig"))
        .env("HOME", root().join("no-such-home"))
        .args(["__complete", "tree", "deploy/"])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, ":4\n", "")
    );
}

#[test]
fn help_has_examples_for_every_subcommand() {
    use clap::CommandFactory;
    let cli = kubectl_reconcile::app::Cli::command();
    let subs: Vec<&str> = cli.get_subcommands().map(|s| s.get_name()).collect();
    assert!(subs.len() >= 3, "{subs:?}");
    for sub in subs {
        let (code, stdout, stderr) = plugin(&[sub, "--help"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("Examples:\n  # "),
            "{sub} --help has no examples:\n{stdout}"
        );
    }
}
