//! The plugin as kubectl runs it, against the real control plane: kubectl's
//! plugin completion (the real `kubectl __complete reconcile ...` finds
//! kubectl_complete-reconcile on PATH, which runs the plugin, which reads the
//! cluster), and `--version` with the server's version, or one line saying
//! why not, quickly.

mod common;
mod plugin_env;
mod support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use plugin_env::{kubectl_dir, link, parse_completion, path_of, run_with, scratch};
use support::{Namespace, Run, cache_dir, cluster, kubectl};

/// A directory with the plugin (a link to the test build) and the helper,
/// installed by `kubectl-reconcile completion kubectl` into the directory
/// where the plugin is on PATH.
fn plugin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("plugin-bin");
        link(common::run::bin(), &dir.join("kubectl-reconcile"));
        let path = path_of(&[&dir, kubectl_dir()]);
        let run = run_with("kubectl-reconcile", &["completion", "kubectl"], &path, &[]).ok();
        let helper = dir.join("kubectl_complete-reconcile");
        assert!(
            run.stdout
                .starts_with(&format!("installed {} (a copy of ", helper.display())),
            "{}",
            run.stdout
        );
        assert!(helper.is_file() && !helper.is_symlink());
        dir
    })
}

fn path() -> std::ffi::OsString {
    path_of(&[plugin_dir(), kubectl_dir()])
}

/// `kubectl ARGS...` with the plugin and its helper on PATH.
fn kubectl_plugin(args: &[&str], kubeconfig: &Path, cache: &Path) -> Run {
    run_with(
        "kubectl",
        args,
        &path(),
        &[("KUBECONFIG", kubeconfig), ("KUBECACHEDIR", cache)],
    )
}

/// `kubectl __complete reconcile WORDS...`: candidates and directive.
fn complete_as(kubeconfig: &Path, cache: &Path, words: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["__complete", "reconcile"];
    args.extend_from_slice(words);
    parse_completion(&kubectl_plugin(&args, kubeconfig, cache))
}

fn complete(words: &[&str]) -> Vec<String> {
    let (values, directive) = complete_as(&cluster().kubeconfig, &cache_dir(), words);
    // No file names (4); with no space after a candidate ending in `=` (2).
    let expected = if values.iter().any(|v| v.ends_with('=')) {
        ":6"
    } else {
        ":4"
    };
    assert_eq!(directive, expected, "{words:?}: no file names");
    values
}

fn has(values: &[String], wanted: &[&str]) {
    for w in wanted {
        assert!(values.iter().any(|v| v == w), "{w} not in {values:?}");
    }
}

#[test]
fn subcommands_flags_and_values_through_kubectl() {
    has(
        &complete(&[""]),
        &["tree", "why", "status", "wait", "completion"],
    );
    assert_eq!(
        complete(&["wait", "--for", ""]),
        vec!["converged", "deleted"]
    );
    assert_eq!(complete(&["tree", "--ow"]), vec!["--owners"]);
    assert_eq!(
        complete(&["status", "-o", "j"]),
        vec!["json", "jsonpath=", "jsonpath-file="]
    );
    assert_eq!(
        complete(&["completion", ""]),
        vec!["bash", "zsh", "fish", "powershell", "kubectl"]
    );
    let (_, directive) = complete_as(&cluster().kubeconfig, &cache_dir(), &["tree", "-f", ""]);
    assert_eq!(directive, ":0", "file names after -f");
}

#[test]
fn namespaces_contexts_types_and_names_from_the_cluster() {
    let ns = Namespace::new("pkg-complete");
    for name in ["web", "api"] {
        ns.apply(&format!(
            "apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 0
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: c, image: nginx}}]}}
"
        ));
    }
    let n = ns.name.as_str();
    assert_eq!(
        complete(&["-n", n, "tree", "deploy/"]),
        vec!["deploy/api", "deploy/web"]
    );
    assert_eq!(
        complete(&["tree", &format!("--namespace={n}"), "deployments.apps/w"]),
        vec!["deployments.apps/web"]
    );
    assert_eq!(
        complete(&["status", "-n", n, "deployments", "api", ""]),
        vec!["api", "web"]
    );
    has(&complete(&["-A", "tree", "deploy/we"]), &["deploy/web"]);

    has(&complete(&["-n", ""]), &[n, "default", "kube-system"]);
    let contexts = kubectl(&["config", "get-contexts", "-o", "name"])
        .ok()
        .stdout;
    let mut contexts: Vec<String> = contexts.lines().map(str::to_string).collect();
    contexts.sort();
    assert_eq!(complete(&["tree", "--context", ""]), contexts);

    let types = complete(&["tree", ""]);
    has(
        &types,
        &[
            "deployments",
            "pods",
            "jobs",
            "events",
            "events.events.k8s.io",
            "customresourcedefinitions",
        ],
    );
    assert!(types.iter().all(|t| !t.contains('/')), "{types:?}");
    assert_eq!(complete(&["tree", "statefuls"]), vec!["statefulsets"]);
    // The short name is offered; other types whose names start the same
    // (an operator's `stssessiontokens`, where its CRDs are installed) may
    // follow it.
    let sts = complete(&["tree", "sts"]);
    assert_eq!(sts.first().map(String::as_str), Some("sts"), "{sts:?}");
    assert!(sts.iter().all(|t| t.starts_with("sts")), "{sts:?}");
    has(
        &complete(&["status", "deploy,"]),
        &["deploy,pods", "deploy,jobs"],
    );

    // What a user may not list is no candidate, and no error.
    let (secrets, directive) = complete_as(
        &cluster().view_kubeconfig,
        &cache_dir(),
        &["-n", n, "status", "secrets/"],
    );
    assert_eq!((secrets, directive.as_str()), (vec![], ":4"));
}

#[test]
fn types_come_from_the_discovery_cache() {
    let cache = scratch("complete-cache");
    let kubeconfig = &cluster().kubeconfig;
    has(
        &complete_as(kubeconfig, &cache, &["tree", "ingr"]).0,
        &["ingresses"],
    );
    let file = kubectl_reconcile::app::cache_path(&cache, &support::server_authority(kubeconfig));
    assert!(
        file.is_file(),
        "the first completion wrote {}",
        file.display()
    );

    // A type the server does not have: found only if the cache is read
    // (discovery is revalidated, and the server's 304 keeps the cache).
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let types = doc["groups"]["catalog"]["types"]
        .as_array_mut()
        .expect("the cache holds the /apis document's types");
    let mut zorblet = types[0].clone();
    zorblet["group"] = "test.example".into();
    zorblet["kind"] = "Zorblet".into();
    zorblet["plural"] = "zorblets".into();
    zorblet["singular"] = "zorblet".into();
    zorblet["short_names"] = serde_json::json!(["zb"]);
    zorblet["verbs"] = serde_json::json!(["get", "list", "watch"]);
    types.push(zorblet);
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    assert_eq!(
        complete_as(kubeconfig, &cache, &["tree", "zorb"]).0,
        vec!["zorblets"]
    );
    assert_eq!(
        complete_as(kubeconfig, &cache, &["tree", "zb"]).0,
        vec!["zb"]
    );
}

#[test]
fn a_silent_cluster_costs_at_most_the_deadline() {
    let dir = scratch("complete-silent");
    let silent = plugin_env::silent_server_kubeconfig(&dir);
    // As kubectl runs the helper (kubectl itself is not timed here).
    let started = Instant::now();
    let run = run_with(
        "kubectl_complete-reconcile",
        &["tree", "deploy/"],
        &path(),
        &[("KUBECONFIG", &silent), ("KUBECACHEDIR", &dir)],
    );
    let took = started.elapsed();
    assert_eq!(parse_completion(&run), (vec![], ":4".to_string()));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(took < Duration::from_millis(3500), "took {took:?}");
    assert!(
        took >= Duration::from_millis(1500),
        "did it ask at all? {took:?}"
    );
    // Flags and subcommands need no server.
    let started = Instant::now();
    let run = run_with(
        "kubectl_complete-reconcile",
        &["tree", "--al"],
        &path(),
        &[("KUBECONFIG", &silent)],
    );
    assert_eq!(
        parse_completion(&run).0,
        vec!["--all", "--all-namespaces", "--all-contexts"]
    );
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[test]
fn version_with_the_server_version_through_kubectl() {
    let server = kubectl(&["version", "-o", "json"]).json()["serverVersion"]["gitVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let run = kubectl_plugin(
        &["reconcile", "--version"],
        &cluster().kubeconfig,
        &cache_dir(),
    )
    .ok();
    assert_eq!(
        run.stdout,
        format!(
            "kubectl-reconcile {}\nServer Version: {server}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn version_when_the_cluster_cannot_answer() {
    let dir = scratch("version-unreachable");
    let version_line = format!("kubectl-reconcile {}", env!("CARGO_PKG_VERSION"));
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            plugin_env::refusing_server_kubeconfig(&dir),
            "Server Version: unknown (cannot reach 127.0.0.1:",
        ),
        (
            plugin_env::silent_server_kubeconfig(&dir),
            "Server Version: unknown (",
        ),
        (
            dir.join("missing.kubeconfig"),
            "Server Version: unknown (cannot read a kubeconfig",
        ),
    ];
    for (kubeconfig, second) in cases {
        let started = Instant::now();
        let run = kubectl_plugin(&["reconcile", "--version"], &kubeconfig, &dir);
        let took = started.elapsed();
        assert_eq!(run.code, 0, "{}", run.stderr);
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{}", run.stdout);
        assert_eq!(lines[0], version_line);
        assert!(lines[1].starts_with(second), "{}", lines[1]);
        assert!(
            took < Duration::from_secs(4),
            "{kubeconfig:?} took {took:?}"
        );
    }
    let run = kubectl_plugin(
        &["reconcile", "--version", "--snapshot", "examples/shop.yaml"],
        &dir.join("missing.kubeconfig"),
        &dir,
    )
    .ok();
    assert!(
        run.stdout
            .ends_with("Server Version: none (--snapshot: nothing is sent to a server)\n")
    );
}
