//! End-to-end tests of `--watch` and `wait` on the real control plane:
//! watches see controllers act, and `wait` returns when (and only when)
//! the cluster has converged.

mod common;
mod support;
#[path = "support/tmux.rs"]
mod tmux;

use std::time::Duration;

use common::run::bin;
use serde_json::Value;
use support::{Background, Namespace, wait_until};

fn deployment(name: &str, replicas: u32, extra_spec: &str, pod_labels: &str) -> String {
    support::deployment(name, replicas, extra_spec, pod_labels, "", "")
}

fn available(ns: &Namespace, name: &str, replicas: u32) -> bool {
    support::rolled_out(ns, name, replicas)
}

#[test]
fn wait_returns_when_a_real_rollout_completes_and_not_before() {
    let ns = Namespace::new("wait-rollout");
    let slow =
        "\n  minReadySeconds: 3\n  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}";
    ns.apply(&deployment("web", 3, slow, ""));
    wait_until("first rollout", Duration::from_secs(90), || {
        available(&ns, "web", 3)
    });

    ns.kubectl(&[
        "set",
        "image",
        "deploy/web",
        "app=registry.example.com/web:2",
    ])
    .ok();
    let waiter = Background::start(&["-n", &ns.name, "wait", "deploy/web", "--timeout", "120s"]);
    let (code, out, elapsed) = waiter.finish(Duration::from_secs(150));
    assert_eq!(code, 0, "{out}");
    // At the moment wait returned, the rollout was complete: every replica
    // updated and available, the latest generation observed.
    assert!(
        available(&ns, "web", 3),
        "wait returned before the rollout completed"
    );
    let image = ns.jsonpath("deploy/web", "{.spec.template.spec.containers[0].image}");
    assert_eq!(image, "registry.example.com/web:2");
    // Three pods, one at a time, each ready for 3s: it cannot be done sooner.
    assert!(
        elapsed >= Duration::from_secs(6),
        "returned after {elapsed:?}, before the rollout could finish"
    );
    assert!(
        out.contains("Deployment/web: Converged (Available)"),
        "{out}"
    );
}

#[test]
fn wait_fails_fast_with_the_cause_when_the_image_cannot_be_pulled() {
    let ns = Namespace::new("wait-fail");
    ns.apply(&deployment(
        "web",
        2,
        "\n  progressDeadlineSeconds: 8",
        ", reconcile.test/failure: image-pull-backoff",
    ));
    let waiter = Background::start(&["-n", &ns.name, "wait", "deploy/web", "--timeout", "120s"]);
    let (code, out, elapsed) = waiter.finish(Duration::from_secs(90));
    assert_eq!(code, 1, "{out}");
    assert!(
        elapsed < Duration::from_secs(60),
        "it failed as soon as the deadline passed, not at the timeout: {elapsed:?}"
    );
    assert!(
        out.contains("ProgressDeadlineExceeded")
            && out.contains("Root cause: Pod ImagePullBackOff"),
        "{out}"
    );
}

#[test]
fn status_watch_records_verdicts_during_a_scale_up() {
    let ns = Namespace::new("watch-json");
    ns.apply(&deployment("web", 1, "\n  minReadySeconds: 2", ""));
    wait_until("one replica", Duration::from_secs(60), || {
        available(&ns, "web", 1)
    });
    let mut watcher = Background::start(&[
        "-n",
        &ns.name,
        "status",
        "deploy/web",
        "--watch",
        "-o",
        "json",
    ]);
    let verdict = |line: &str| -> String {
        let doc: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("one JSON document per line ({e}): {line}"));
        assert_eq!(doc["kind"], "StatusReport");
        doc["items"][0]["verdict"].as_str().unwrap().to_string()
    };
    watcher.line("initial Converged", Duration::from_secs(30), |l| {
        verdict(l) == "Converged"
    });
    ns.kubectl(&["scale", "deploy/web", "--replicas=3"]).ok();
    watcher.line("Progressing", Duration::from_secs(30), |l| {
        verdict(l) == "Progressing"
    });
    let last = watcher.line("Converged again", Duration::from_secs(60), |l| {
        verdict(l) == "Converged"
    });
    let doc: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(doc["items"][0]["ready"]["ready"], 3);
    let sequence: Vec<String> = watcher.seen.iter().map(|l| verdict(l)).collect();
    let mut collapsed = sequence.clone();
    collapsed.dedup();
    assert_eq!(
        collapsed,
        vec!["Converged", "Progressing", "Converged"],
        "{sequence:?}"
    );
}

#[test]
fn a_watch_with_a_jsonpath_template_prints_the_template_only() {
    // No YAML separators between frames: `-o jsonpath` is not YAML.
    let ns = Namespace::new("watch-jsonpath");
    ns.apply(&deployment("web", 1, "", ""));
    let mut watcher = Background::start(&[
        "-n",
        &ns.name,
        "status",
        "deploy/web",
        "--watch",
        "-o",
        "jsonpath={.items[0].verdict} {.items[0].reason}{\"\\n\"}",
    ]);
    watcher.line("converged", Duration::from_secs(60), |l| {
        l == "Converged Available"
    });
    assert!(
        watcher
            .seen
            .iter()
            .all(|l| !l.contains("---") && !l.is_empty()),
        "{:?}",
        watcher.seen
    );
}

#[test]
fn status_watch_of_a_namespace_shows_a_bare_pod_created_later() {
    let ns = Namespace::new("watch-sweep");
    ns.apply(&deployment("web", 2, "", ""));
    wait_until("two replicas", Duration::from_secs(60), || {
        available(&ns, "web", 2)
    });
    let mut watcher = Background::start(&["-n", &ns.name, "status", "--watch", "-o", "json"]);
    let rows = |line: &str| -> Vec<String> {
        let doc: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("one JSON document per line ({e}): {line}"));
        support::item_names(&doc)
    };
    watcher.line("the Deployment", Duration::from_secs(30), |l| {
        rows(l).contains(&"Deployment/web".to_string())
    });
    ns.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: lonely}\nspec:\n  containers: [{name: app, image: app}]\n");
    let last = watcher.line("the bare pod", Duration::from_secs(60), |l| {
        rows(l).contains(&"Pod/lonely".to_string())
    });
    // The Deployment's pods are not roots: the watch keeps only bare ones.
    let mut seen = rows(&last);
    seen.sort();
    assert_eq!(seen, ["Deployment/web", "Pod/lonely"], "{last}");
}

#[test]
fn tree_watch_shows_the_replacement_of_a_deleted_pod() {
    let ns = Namespace::new("watch-tree");
    ns.apply(&deployment("web", 2, "", ""));
    wait_until("two replicas", Duration::from_secs(60), || {
        available(&ns, "web", 2)
    });
    let pods: Vec<String> = ns
        .kubectl(&["get", "pods", "-o", "name"])
        .ok()
        .stdout
        .lines()
        .map(|l| l.trim_start_matches("pod/").to_string())
        .collect();
    let mut watcher = Background::start(&["-n", &ns.name, "tree", "deploy/web", "--watch"]);
    // Off a terminal: timestamped change lines, the first frame in full.
    watcher.line("the first pod", Duration::from_secs(30), |l| {
        l.contains(&format!("/Pod/{}", pods[0]))
    });
    ns.kubectl(&["delete", "pod", &pods[0], "--wait=false"])
        .ok();
    let gone = watcher.line("the deleted pod gone", Duration::from_secs(60), |l| {
        l.contains(&pods[0]) && l.ends_with(" gone")
    });
    assert!(gone.starts_with("20"), "timestamped: {gone}");
    let new = watcher.line("a replacement pod", Duration::from_secs(60), |l| {
        l.contains("/Pod/web-") && !pods.iter().any(|p| l.contains(p.as_str()))
    });
    assert!(new.contains(&format!("{}/Pod/web-", ns.name)), "{new}");
}

#[test]
fn wait_on_a_directory_of_a_deployment_a_job_and_a_custom_resource() {
    support::install_crd("tickets", "Ticket", "wait.reconcile.dev", "", "");
    let ns = Namespace::new("wait-dir");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("deploy.yaml"), deployment("web", 2, "", "")).unwrap();
    std::fs::write(
        dir.path().join("job.yaml"),
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: m}]\n",
    )
    .unwrap();
    // A Service applied with its Deployment has no endpoints for a moment;
    // that must not read as a failure.
    std::fs::write(
        dir.path().join("svc.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ticket.yaml"),
        "apiVersion: wait.reconcile.dev/v1\nkind: Ticket\nmetadata: {name: t1}\nspec: {seats: 2}\n",
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    ns.kubectl(&["apply", "-f", path]).ok();
    let mut waiter = Background::start(&["-n", &ns.name, "wait", "-f", path, "--timeout", "120s"]);
    // The Deployment and the Job converge by themselves; the Ticket needs
    // its controller, which is this test.
    wait_until("deployment and job done", Duration::from_secs(60), || {
        available(&ns, "web", 2)
            && ns.jsonpath(
                "job/migrate",
                r#"{.status.conditions[?(@.type=="Complete")].status}"#,
            ) == "True"
    });
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        waiter.exited(),
        None,
        "wait must not return while the Ticket has no status"
    );
    let generation = ns.jsonpath("ticket/t1", "{.metadata.generation}");
    ns.kubectl(&[
        "patch", "ticket", "t1", "--subresource=status", "--type=merge", "-p",
        &format!(r#"{{"status":{{"observedGeneration":{generation},"conditions":[{{"type":"Ready","status":"True","reason":"Booked","message":"2 seats booked","lastTransitionTime":"2026-01-01T00:00:00Z"}}]}}}}"#),
    ])
    .ok();
    let (code, out, _) = waiter.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{out}");
    for name in ["Deployment/web", "Job/migrate", "Service/web", "Ticket/t1"] {
        assert!(
            out.contains(&format!("{name}: Converged")),
            "{name} in {out}"
        );
    }
}

#[test]
fn wait_for_deleted() {
    let ns = Namespace::new("wait-deleted");
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: doomed, finalizers: [example.com/hold]}\n");
    let mut waiter = Background::start(&[
        "-n",
        &ns.name,
        "wait",
        "configmap/doomed",
        "--for",
        "deleted",
        "--timeout",
        "60s",
    ]);
    ns.kubectl(&["delete", "configmap", "doomed", "--wait=false"])
        .ok();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(waiter.exited(), None, "still there: a finalizer holds it");
    ns.kubectl(&[
        "patch",
        "configmap",
        "doomed",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .ok();
    let (code, out, _) = waiter.finish(Duration::from_secs(30));
    assert_eq!(code, 0, "{out}");
}

/// A namespace with a healthy Deployment `web` of one pod, and
/// `tree deploy/web --watch -v 6` running on it, logging its requests.
fn watched_web(prefix: &str) -> (Namespace, support::Logged) {
    let ns = Namespace::new(prefix);
    ns.apply(&deployment("web", 1, "", ""));
    wait_until("one replica", Duration::from_secs(60), || {
        available(&ns, "web", 1)
    });
    let plugin = support::Logged::start(
        &ns.name,
        &["-n", &ns.name, "tree", "deploy/web", "--watch", "-v", "6"],
    );
    (ns, plugin)
}

#[test]
fn tree_watch_follows_the_namespace_events_from_now_without_listing_them() {
    // A healthy tree reads no events; its --watch still follows the
    // namespace's events from now on (a pod may turn unhealthy later),
    // asking only for the list's version, not its items.
    let (ns, plugin) = watched_web("watch-events");
    let events = format!("/api/v1/namespaces/{}/events?", ns.name);
    let requests = || -> Vec<String> {
        plugin
            .err()
            .lines()
            .filter(|l| l.contains(&events))
            .map(str::to_string)
            .collect()
    };
    wait_until("the events watch", Duration::from_secs(30), || {
        requests().iter().any(|l| l.contains("watch=1"))
    });
    let seen = requests();
    let lists: Vec<&String> = seen.iter().filter(|l| !l.contains("watch=1")).collect();
    assert!(
        matches!(lists[..], [l] if l.contains("limit=1 ") || l.contains("limit=1&") || l.ends_with("limit=1")),
        "one list of one item, for its version: {seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.contains("watch=1")
            && l.contains("resourceVersion=")
            && l.contains(" 200 ")),
        "{seen:#?}"
    );
}

#[test]
fn a_watch_of_more_targets_than_one_connection_carries_sees_every_change() {
    // kube-apiserver lets one HTTP/2 connection carry 100 streams at once;
    // each watched target holds one. The 120th target must still be live.
    let ns = Namespace::new("watch-many");
    let items: Vec<String> = (0..120)
        .map(|i| format!("{{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}"))
        .collect();
    ns.apply(&format!(
        "apiVersion: v1\nkind: List\nitems: [{}]\n",
        items.join(", ")
    ));
    let targets: Vec<String> = (0..120).map(|i| format!("cm/c{i}")).collect();
    let mut args = vec!["-n", ns.name.as_str(), "status", "--watch"];
    args.extend(targets.iter().map(String::as_str));
    let mut watcher = Background::start(&args);
    watcher.line("the last target", Duration::from_secs(60), |l| {
        l.contains("ConfigMap/c119 ")
    });
    ns.kubectl(&["delete", "configmap", "c119", "--wait=false"])
        .ok();
    watcher.line("the last target deleted", Duration::from_secs(30), |l| {
        l.contains("ConfigMap/c119 ") && l.contains("NotFound")
    });
}

/// On a terminal, `--watch` redraws: AGE keeps time between changes, and a
/// resized window is filled, not overflowed.
#[test]
fn on_a_terminal_the_watch_keeps_time_and_fits_a_resized_window() {
    let ns = Namespace::new("watch-terminal");
    // A long message: the pod cannot pull its image.
    ns.apply(&deployment(
        "web",
        1,
        "",
        ", reconcile.test/failure: image-pull-backoff",
    ));
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = support::cluster().kubeconfig.to_str().unwrap().to_string();
    let cache = support::cache_dir();
    let command = format!("{} -n {} tree deploy/web --watch", bin().display(), ns.name);
    let path = std::env::var("PATH").unwrap();
    let term = tmux::Tmux::start(
        "watch",
        &command,
        home.path(),
        &path,
        &[
            ("KUBECONFIG", &kubeconfig),
            ("KUBECACHEDIR", cache.to_str().unwrap()),
            ("NO_COLOR", "1"),
        ],
    );
    let age_of_web = |screen: &str| -> Option<String> {
        let row = screen.lines().find(|l| l.starts_with("Deployment/web "))?;
        row.split_whitespace().nth(4).map(str::to_string)
    };
    let first = term.until(Duration::from_secs(30), |s| {
        s.contains("ImagePullBackOff") && age_of_web(s).is_some()
    });
    let age = age_of_web(&first).unwrap_or_else(|| panic!("no row:\n{first}"));
    // Nothing changes in the cluster; the clock does.
    let later = term.until(Duration::from_secs(10), |s| {
        age_of_web(s).is_some_and(|a| a != age)
    });
    assert_ne!(age_of_web(&later), Some(age), "AGE stood still:\n{later}");
    let wide = later.lines().map(str::len).max().unwrap_or(0);
    assert!(wide > 80, "the message should fill 200 columns:\n{later}");
    term.resize(80, 30);
    let narrow = term.until(Duration::from_secs(10), |s| {
        s.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80)
            && s.contains("Deployment/web")
    });
    assert!(
        narrow
            .lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80)
            && narrow.contains("Pod/web-"),
        "the table did not fit the resized window:\n{narrow}"
    );
    // What the narrow window cut is said, once.
    let said = term.until(Duration::from_secs(10), |s| {
        s.contains("cut to fit the terminal")
    });
    assert_eq!(
        said.matches("cut to fit the terminal").count(),
        1,
        "the cut is not said once:\n{said}"
    );
}

#[test]
fn tree_watch_starts_its_watches_from_the_first_answer_without_listing_again() {
    let (ns, plugin) = watched_web("watch-seeded");
    let of_ns = |l: &&str| l.contains(&format!("/namespaces/{}/", ns.name)) && l.contains("GET ");
    let watches = |text: &str, plural: &str| {
        text.lines()
            .filter(of_ns)
            .filter(|l| l.contains(&format!("/{plural}?")) && l.contains("watch=1"))
            .count()
    };
    wait_until("the three watches", Duration::from_secs(30), || {
        let text = plugin.err();
        ["deployments", "replicasets", "pods"]
            .iter()
            .all(|p| watches(&text, p) > 0)
    });
    // The watches see what happens next: a second pod.
    ns.kubectl(&["scale", "deploy/web", "--replicas=2"]).ok();
    wait_until(
        "the second pod in the watch",
        Duration::from_secs(60),
        || {
            let text = plugin.out();
            let mut pods: Vec<&str> = text
                .lines()
                .filter_map(|l| l.split_whitespace().nth(1))
                .filter(|k| k.contains("/Pod/web-"))
                .collect();
            pods.sort();
            pods.dedup();
            pods.len() == 2
        },
    );
    let text = plugin.err();
    drop(plugin);
    let lines: Vec<&str> = text.lines().filter(of_ns).collect();
    // Each read of the first answer once, and no list of it again: the
    // watches start from the versions that answer was read at.
    let reads: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.contains("watch=1") && !l.contains("/events"))
        .collect();
    let count = |what: &str| reads.iter().filter(|l| l.contains(what)).count();
    assert_eq!(count("/deployments/web "), 1, "{reads:#?}");
    assert_eq!(count("/replicasets?"), 1, "{reads:#?}");
    assert_eq!(count("/pods?"), 1, "{reads:#?}");
    assert_eq!(reads.len(), 3, "{reads:#?}");
    for l in lines
        .iter()
        .filter(|l| l.contains("watch=1") && !l.contains("/events"))
    {
        assert!(
            l.contains("resourceVersion="),
            "a watch from a version: {l}"
        );
    }
}

/// A converged custom resource of a sweep is kept as its row alone, also
/// by `--watch`: its watch takes the row back when it fails, settles it
/// again when it converges, and drops it when it is deleted. `why
/// --watch` counts the roots the same way.
#[test]
fn a_watched_sweep_follows_converged_roots_kept_as_rows() {
    support::install_crd("tallies", "Tally", "watch.reconcile.dev", "", "");
    let ns = Namespace::new("watch-rows");
    ns.apply(
        "apiVersion: watch.reconcile.dev/v1\nkind: Tally\nmetadata: {name: a}\nspec: {n: 1}\n---\napiVersion: watch.reconcile.dev/v1\nkind: Tally\nmetadata: {name: b}\nspec: {n: 1}\n",
    );
    let report = |name: &str, ready: &str, reason: &str| {
        let generation = ns.jsonpath(&format!("tally/{name}"), "{.metadata.generation}");
        ns.kubectl(&[
            "patch", "tally", name, "--subresource=status", "--type=merge", "-p",
            &format!(r#"{{"status":{{"observedGeneration":{generation},"conditions":[{{"type":"Ready","status":"{ready}","reason":"{reason}","message":"counted","lastTransitionTime":"2026-01-01T00:00:00Z"}}]}}}}"#),
        ])
        .ok();
    };
    report("a", "True", "Counted");
    report("b", "False", "CountFailed");
    let verdicts = |line: &str| -> Vec<String> {
        let doc: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("one JSON document per line ({e}): {line}"));
        let mut rows: Vec<String> = doc["items"]
            .as_array()
            .expect("a report has items")
            .iter()
            .map(|i| {
                format!(
                    "{} {}",
                    i["object"]["name"].as_str().unwrap(),
                    i["verdict"].as_str().unwrap()
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let mut status = Background::start(&["-n", &ns.name, "status", "--watch", "-o", "json"]);
    let mut why = Background::start(&["-n", &ns.name, "why", "--watch", "-o", "json"]);
    let roots = |line: &str| -> (u64, u64) {
        let doc: Value = serde_json::from_str(line).unwrap();
        let summary = &doc["summary"];
        (
            summary["roots"].as_u64().unwrap_or(0),
            summary["notConverged"].as_u64().unwrap_or(0),
        )
    };
    status.line("a Converged, b Failed", Duration::from_secs(30), |l| {
        verdicts(l) == ["a Converged", "b Failed"]
    });
    why.line("two roots, one failing", Duration::from_secs(30), |l| {
        roots(l) == (2, 1)
    });
    // The settled one fails; the failing one converges.
    report("a", "False", "CountFailed");
    report("b", "True", "Counted");
    status.line("a Failed, b Converged", Duration::from_secs(60), |l| {
        verdicts(l) == ["a Failed", "b Converged"]
    });
    why.line(
        "still two roots, one failing",
        Duration::from_secs(60),
        |l| {
            roots(l) == (2, 1)
                && support::item_names(&serde_json::from_str(l).unwrap()) == ["Tally/a"]
        },
    );
    report("a", "True", "Counted");
    status.line("both Converged", Duration::from_secs(60), |l| {
        verdicts(l) == ["a Converged", "b Converged"]
    });
    why.line("two roots, none failing", Duration::from_secs(60), |l| {
        roots(l) == (2, 0)
    });
    ns.kubectl(&["delete", "tally", "a", "--wait=false"]).ok();
    status.line("a gone", Duration::from_secs(60), |l| {
        verdicts(l) == ["b Converged"]
    });
    why.line("one root", Duration::from_secs(60), |l| roots(l) == (1, 0));
}
