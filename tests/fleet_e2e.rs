//! End-to-end tests of fleet answers (`--contexts`, `--all-contexts`) on
//! three real control planes (`tests/cluster/fleet`), with a context whose
//! server is a closed port and one whose user may read nothing: the table,
//! the document, the exit status, a wait across two contexts where one
//! rollout fails, and the fleet's time against its members'.

mod common;
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{Run, kubectl_as, plugin_as, wait_until};

const MEMBERS: [&str; 3] = ["main", "fleet-b", "fleet-c"];

/// How many tests this file has: the last of them to end stops the two
/// extra control planes, so that they take no CPU from the tests after
/// (`.ci/run` stops them too, when only some of these ran).
const TESTS: usize = 10;
static ENDED: AtomicUsize = AtomicUsize::new(0);

/// The fleet test bed, held by each test while it runs.
struct Bed;

fn bed() -> Bed {
    support::fleet();
    Bed
}

impl Drop for Bed {
    fn drop(&mut self) {
        if ENDED.fetch_add(1, Ordering::SeqCst) + 1 == TESTS {
            let _ = std::process::Command::new(common::root().join("tests/cluster/fleet"))
                .arg("down")
                .status();
        }
    }
}

#[test]
fn every_test_holds_the_bed_so_the_last_one_stops_it() {
    let _bed = bed();
    let source = include_str!("fleet_e2e.rs");
    let lines = |line: &str| source.lines().filter(|l| l.trim() == line).count();
    assert_eq!(lines("#[test]"), TESTS, "TESTS counts the tests");
    assert_eq!(lines("let _bed = bed();"), TESTS, "each test holds the bed");
}

/// A namespace of the same name in each of the three control planes,
/// deleted from each when dropped.
struct Namespaces {
    name: String,
}

impl Namespaces {
    fn new(prefix: &str) -> Namespaces {
        let name = format!("{prefix}-{}", std::process::id());
        for context in MEMBERS {
            in_context(context, &["create", "namespace", &name]).ok();
            wait_until(
                &format!("service account in {name} of {context}"),
                Duration::from_secs(30),
                || in_context(context, &["get", "sa", "default", "-n", &name]).code == 0,
            );
        }
        Namespaces { name }
    }

    fn apply(&self, context: &str, manifest: &str) {
        kubectl_as(
            support::fleet(),
            &["--context", context, "apply", "-n", &self.name, "-f", "-"],
            Some(manifest),
        )
        .ok();
    }

    /// Waits until `deploy/NAME` has rolled out in `context`.
    fn rolled_out(&self, context: &str, name: &str) {
        wait_until(
            &format!("deploy/{name} in {context}"),
            Duration::from_secs(60),
            || {
                in_context(
                    context,
                    &[
                        "rollout",
                        "status",
                        "-n",
                        &self.name,
                        &format!("deploy/{name}"),
                        "--timeout=2s",
                    ],
                )
                .code
                    == 0
            },
        );
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for context in MEMBERS {
            in_context(
                context,
                &["delete", "namespace", &self.name, "--wait=false"],
            );
        }
    }
}

fn in_context(context: &str, args: &[&str]) -> Run {
    let mut all = vec!["--context", context];
    all.extend_from_slice(args);
    kubectl_as(support::fleet(), &all, None)
}

fn fleet(args: &[&str]) -> Run {
    plugin_as(support::fleet()).args(args).run()
}

fn web(name: &str, node_selector: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      nodeSelector: {{{node_selector}}}
      containers: [{{name: app, image: "registry.example.com/{name}:1"}}]
"#
    )
}

/// The cells of the row of `context` whose NAME is `name`.
fn row<'a>(out: &'a str, context: &str, name: &str) -> Vec<&'a str> {
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cells| cells.first() == Some(&context) && cells.get(1) == Some(&name))
        .unwrap_or_else(|| panic!("no row of {context} for {name}:\n{out}"))
}

#[test]
fn status_of_a_fleet_has_a_context_column_and_says_which_contexts_gave_no_answer() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-status");
    for context in MEMBERS {
        ns.apply(context, &web("web", ""));
    }
    for context in MEMBERS {
        ns.rolled_out(context, "web");
    }
    let all = fleet(&[
        "status",
        "-n",
        &ns.name,
        "--contexts",
        "main,fleet-*",
        "--contexts",
        "closed,forbidden",
    ]);
    assert_eq!(all.code, 1, "{}{}", all.stdout, all.stderr);
    let header: Vec<&str> = all
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        header[..3],
        ["CONTEXT", "NAME", "VERDICT"],
        "{}",
        all.stdout
    );
    for context in MEMBERS {
        assert_eq!(row(&all.stdout, context, "Deployment/web")[2], "Converged");
    }
    let closed = row(&all.stdout, "closed", "-");
    assert_eq!(closed[2..4], ["Unknown", "Unreachable"], "{}", all.stdout);
    let forbidden = row(&all.stdout, "forbidden", "-");
    assert_eq!(forbidden[2..4], ["Unknown", "Forbidden"], "{}", all.stdout);
    // The kubeconfig's order, each context once.
    let order: Vec<&str> = all
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        order,
        ["main", "fleet-b", "fleet-c", "closed", "forbidden"],
        "{}",
        all.stdout
    );

    // --all-contexts: the same five.
    let every = fleet(&["status", "-n", &ns.name, "--all-contexts"]);
    assert_eq!(every.code, 1, "{}{}", every.stdout, every.stderr);
    let contexts: Vec<&str> = every
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(contexts, order, "{}", every.stdout);

    // Every context answered and every row converged: 0. None answered: 2.
    let well = fleet(&["status", "-n", &ns.name, "--contexts", "main,fleet-*"]);
    assert_eq!(well.code, 0, "{}{}", well.stdout, well.stderr);
    let none = fleet(&["status", "-n", &ns.name, "--contexts", "closed,forbidden"]);
    assert_eq!(none.code, 2, "{}{}", none.stdout, none.stderr);
    assert!(none.stdout.contains("Unreachable"), "{}", none.stdout);
    // A refused context's hint asks `kubectl auth can-i` of that context.
    let refused = fleet(&[
        "status",
        "-n",
        &ns.name,
        "--contexts",
        "forbidden",
        "-o",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&refused.stdout).unwrap();
    let message = doc["contexts"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "-n {} --context=forbidden` checks one, and `kubectl auth can-i --list -n {} --context=forbidden`",
            ns.name, ns.name
        )),
        "{doc:#}"
    );

    // -o name: the context first.
    let names = fleet(&[
        "status",
        "deploy/web",
        "-n",
        &ns.name,
        "--contexts",
        "main,fleet-b",
        "-o",
        "name",
    ]);
    assert_eq!(
        names.stdout,
        "main/deployment.apps/web\nfleet-b/deployment.apps/web\n"
    );
    // A context that gave no answer has no line to hold it: said on stderr.
    let partial = fleet(&[
        "status",
        "deploy/web",
        "-n",
        &ns.name,
        "--contexts",
        "main,closed",
        "-o",
        "name",
    ]);
    assert_eq!(partial.code, 1, "{}", partial.stderr);
    assert_eq!(partial.stdout, "main/deployment.apps/web\n");
    assert!(
        partial.stderr.contains("error: context closed: ")
            && partial.stderr.contains("(Unreachable)"),
        "{}",
        partial.stderr
    );
}

#[test]
fn the_fleet_document_carries_the_context_on_every_item_and_matches_the_schema() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-json");
    ns.apply("main", &web("api", ""));
    ns.apply("fleet-c", &web("api", ""));
    ns.rolled_out("main", "api");
    ns.rolled_out("fleet-c", "api");
    let out = fleet(&[
        "status",
        "deploy/api",
        "-n",
        &ns.name,
        "--contexts",
        "main,fleet-c,closed",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "FleetReport");
    assert_eq!(doc["command"], "status");
    let contexts: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["context"].as_str().unwrap())
        .collect();
    assert_eq!(contexts, ["main", "fleet-c"]);
    let closed = &doc["contexts"][2];
    assert_eq!(closed["context"], "closed");
    assert_eq!(closed["answered"], false);
    assert_eq!(closed["reason"], "Unreachable");
    assert!(
        closed["server"]
            .as_str()
            .unwrap()
            .starts_with("https://127.0.0.1:"),
        "{closed}"
    );
    assert_eq!(doc["contexts"][0]["exitCode"], 0);

    let text =
        std::fs::read_to_string(common::root().join("docs/schema/reports.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for args in [
        vec!["status", "deploy/api"],
        vec!["why", "deploy/api"],
        vec!["tree", "deploy/api"],
    ] {
        let mut args = args;
        args.extend([
            "-n",
            &ns.name,
            "--contexts",
            "main,fleet-c,closed",
            "-o",
            "json",
        ]);
        let out = fleet(&args);
        let doc: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", out.stderr));
        let problems: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{args:?}: {problems:?}");
        assert_eq!(doc["items"][1]["context"], "fleet-c", "{args:?}");
    }
}

#[test]
fn wait_across_two_contexts_fails_on_the_one_rollout_that_fails_and_names_it() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-wait");
    ns.apply("main", &web("shop", ""));
    // No node carries the label: the new pods cannot be scheduled.
    ns.apply("fleet-b", &web("shop", "zone: nowhere"));
    let started = Instant::now();
    let out = plugin_as(support::fleet())
        .args([
            "wait",
            "deploy/shop",
            "-n",
            &ns.name,
            "--contexts",
            "main,fleet-b",
            "--fail-fast",
            "--timeout",
            "90s",
        ])
        .deadline(Duration::from_secs(120))
        .run();
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(took < Duration::from_secs(80), "{took:?}: --fail-fast");
    let (main, b) = out
        .stdout
        .split_once("==> context fleet-b")
        .unwrap_or_else(|| panic!("a section per context:\n{}", out.stdout));
    assert!(main.starts_with("==> context main ("), "{}", out.stdout);
    assert!(
        main.contains("Deployment/shop: Converged"),
        "{}",
        out.stdout
    );
    assert!(b.contains("Unschedulable"), "{}", out.stdout);
    // The steps aim at the context where they apply.
    assert!(
        b.contains("kubectl --context fleet-b "),
        "steps name the context:\n{b}"
    );
    assert!(
        out.stderr
            .contains("fleet-b: error: Deployment/shop failed"),
        "{}",
        out.stderr
    );
}

#[test]
fn why_tree_and_controllers_answer_a_section_per_context() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-sections");
    ns.apply("fleet-c", &web("cart", "zone: nowhere"));
    let why = fleet(&["why", "-n", &ns.name, "--contexts", "fleet-*,forbidden"]);
    assert_eq!(why.code, 1, "{}{}", why.stdout, why.stderr);
    let sections: Vec<&str> = why.stdout.split("==> context ").skip(1).collect();
    assert_eq!(sections.len(), 3, "{}", why.stdout);
    assert!(sections[0].starts_with("fleet-b ("), "{}", why.stdout);
    assert!(
        sections[0].contains("Every root object in the namespace is converged"),
        "{}",
        why.stdout
    );
    assert!(sections[1].starts_with("fleet-c ("), "{}", why.stdout);
    assert!(sections[1].contains("Deployment/cart"), "{}", why.stdout);
    assert!(
        sections[2].starts_with("forbidden (") && sections[2].contains("Unknown (Forbidden)"),
        "{}",
        why.stdout
    );
    let tree = fleet(&[
        "tree",
        "deploy/cart",
        "-n",
        &ns.name,
        "--contexts",
        "fleet-c",
    ]);
    assert!(
        tree.stdout.starts_with("==> context fleet-c")
            && tree.stdout.contains("└─ReplicaSet/cart-"),
        "{}",
        tree.stdout
    );
    let controllers = fleet(&["controllers", "--contexts", "main,fleet-b"]);
    assert_eq!(
        controllers.code, 0,
        "{}{}",
        controllers.stdout, controllers.stderr
    );
    assert_eq!(
        controllers
            .stdout
            .matches("kube-system/kube-controller-manager")
            .count(),
        2,
        "{}",
        controllers.stdout
    );
}

#[test]
fn the_fleets_time_is_about_its_slowest_members_not_the_sum() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-time");
    for context in MEMBERS {
        ns.apply(context, &web("time", ""));
    }
    for context in MEMBERS {
        ns.rolled_out(context, "time");
    }
    let best = |args: &[&str]| {
        (0..3)
            .map(|_| {
                let started = Instant::now();
                let out = fleet(args);
                assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
                started.elapsed()
            })
            .min()
            .unwrap()
    };
    let each: Vec<Duration> = MEMBERS
        .iter()
        .map(|c| best(&["status", "-n", &ns.name, "--context", c]))
        .collect();
    let together = best(&[
        "status",
        "-n",
        &ns.name,
        "--contexts",
        "main,fleet-b,fleet-c",
    ]);
    let sum: Duration = each.iter().sum();
    let slowest = *each.iter().max().unwrap();
    eprintln!("fleet of 3: {together:?}; each alone: {each:?} (sum {sum:?})");
    assert!(
        together < sum,
        "asked at once, the fleet ({together:?}) should take less than the contexts one after another ({sum:?}); slowest alone {slowest:?}"
    );
}

#[test]
fn a_slow_context_holds_up_only_the_sections_after_it() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-stream");
    ns.apply("main", &web("web", ""));
    ns.rolled_out("main", "web");
    // A server that takes connections and never answers, after main in
    // the kubeconfig (which `kubectl config` writes sorted by name).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::copy(support::fleet(), &config).unwrap();
    let user = kubectl_as(
        &config,
        &[
            "config",
            "view",
            "-o",
            "jsonpath={.contexts[?(@.name==\"main\")].context.user}",
        ],
        None,
    )
    .ok()
    .stdout;
    kubectl_as(
        &config,
        &[
            "config",
            "set-cluster",
            "zz-hang",
            &format!("--server=https://127.0.0.1:{port}"),
            "--insecure-skip-tls-verify=true",
        ],
        None,
    )
    .ok();
    kubectl_as(
        &config,
        &[
            "config",
            "set-context",
            "zz-hang",
            "--cluster=zz-hang",
            &format!("--user={user}"),
        ],
        None,
    )
    .ok();
    let mut why = support::Background::start(&[
        "--kubeconfig",
        config.to_str().unwrap(),
        "why",
        "-n",
        &ns.name,
        "--contexts",
        "main,zz-hang",
        "--request-timeout",
        "8s",
    ]);
    // main's section is printed while hang is still being waited for.
    why.line("main's section", Duration::from_secs(6), |l| {
        l.starts_with("==> context main ")
    });
    let seen = why.started.elapsed();
    assert!(
        seen < Duration::from_secs(6) && why.exited().is_none(),
        "main's section came after {seen:?}"
    );
    let (code, out, took) = why.finish(Duration::from_secs(60));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("==> context zz-hang ")
            && out.find("context main").unwrap() < out.find("context zz-hang").unwrap(),
        "{out}"
    );
    assert!(
        took >= Duration::from_secs(7),
        "zz-hang answered in {took:?}?\n{out}"
    );
}

#[test]
fn contexts_complete_from_the_kubeconfig_lists_included() {
    let _bed = bed();
    let complete = |word: &str| {
        plugin_as(support::fleet())
            .args(["__complete", "status", "--contexts", word])
            .run()
            .stdout
    };
    let first = complete("fleet-");
    assert!(
        first.contains("fleet-b\n") && first.contains("fleet-c\n"),
        "{first}"
    );
    let more = complete("main,");
    assert!(more.contains("main,fleet-b\n"), "{more}");
    assert!(!more.contains("main,main\n"), "{more}");
}

#[test]
fn usage_errors_say_what_a_fleet_does_not_do() {
    let _bed = bed();
    let watch = fleet(&[
        "status",
        "--contexts",
        "main,fleet-b",
        "--max-contexts",
        "1",
        "--watch",
    ]);
    assert_eq!(watch.code, 2);
    assert!(
        watch
            .stderr
            .contains("--watch keeps every context's watches open at once"),
        "{}",
        watch.stderr
    );
    // A target the command needs is asked for once, not as a failure of
    // every context.
    let untargeted = fleet(&["tree", "--contexts", "main,fleet-b"]);
    assert_eq!(untargeted.code, 2, "{}", untargeted.stdout);
    assert_eq!(
        untargeted.stderr.matches("tree needs a target").count(),
        1,
        "{}",
        untargeted.stderr
    );
    assert!(untargeted.stdout.is_empty(), "{}", untargeted.stdout);
    let both = fleet(&["status", "--contexts", "main", "--context", "main"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let none = fleet(&["status", "--contexts", "qa-*"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("no context matches qa-*")
            && none
                .stderr
                .contains("known contexts: main, fleet-b, fleet-c, closed, forbidden"),
        "{}",
        none.stderr
    );
}

#[test]
fn a_fleets_watch_says_each_change_with_its_context() {
    let _bed = bed();
    let ns = Namespaces::new("fleet-watch");
    ns.apply("main", &web("live", ""));
    ns.rolled_out("main", "live");
    let child = std::process::Command::new(common::run::bin())
        .env("KUBECONFIG", support::fleet())
        .env("NO_COLOR", "1")
        .env("KUBECACHEDIR", support::cache_dir())
        .args([
            "status",
            "-n",
            &ns.name,
            "--contexts",
            "main,fleet-b,closed",
            "--watch",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A rollout in another context while the fleet is watched.
    std::thread::sleep(Duration::from_secs(2));
    ns.apply("fleet-b", &web("live", ""));
    ns.rolled_out("fleet-b", "live");
    std::thread::sleep(Duration::from_secs(2));
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = |context: &str, verdict: &str| {
        stdout.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.get(1) == Some(&context)
                && words.get(2) == Some(&format!("{}/Deployment/live", ns.name).as_str())
                && words.get(3) == Some(&verdict)
        })
    };
    assert!(line("main", "Converged"), "{stdout}");
    assert!(line("fleet-b", "Converged"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.contains(" closed: Unreachable: cannot reach")),
        "the context that gave no answer says so:\n{stdout}"
    );
}
