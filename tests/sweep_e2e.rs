//! End-to-end tests of what a sweep and a wait may claim on the real
//! control plane: a sweep that could read nothing is an error (exit 2), a
//! partial one never says all is converged, a namespace that does not exist
//! is an error, every object without an owner is swept (an orphaned
//! ReplicaSet too), `wait` waits for an object that does not exist yet, and
//! a user who may list but not watch still sees a rollout converge. `why
//! -A` searches failing custom resources of several namespaces without
//! listing any type again per namespace. A sweep whose lists after the
//! first of each group version ask for a state no older than it still sees
//! what was applied the moment before.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;

use support::{Background, Namespace, kubectl, reconcile, wait_until};

fn deployment(name: &str, replicas: u32) -> String {
    support::deployment(name, replicas, "", "", "", "")
}

/// The plugin as an impersonated user with only the given groups.
fn reconcile_as_user(user: &str, args: &[&str]) -> support::Run {
    let mut all = vec!["--as", user];
    all.extend_from_slice(args);
    reconcile(&all)
}

#[test]
fn a_sweep_by_a_user_with_no_rights_is_an_error_not_a_healthy_namespace() {
    let ns = Namespace::new("sweep-norights");
    ns.apply(&deployment("web", 1));
    for cmd in ["status", "why"] {
        let run = reconcile_as_user("nobody-at-all", &["-n", &ns.name, cmd]);
        assert_eq!(run.code, 2, "{cmd}: {}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("could not read any object"),
            "{cmd}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("converged"), "{cmd}: {}", run.stdout);
        // Who was refused what, in the server's words, and the complete
        // line that asks about it as the same user.
        assert!(
            run.stderr.contains("the first refused: ")
                && run
                    .stderr
                    .contains("User \"nobody-at-all\" cannot list resource"),
            "{cmd}: {}",
            run.stderr
        );
        let can_i = run
            .stderr
            .split('`')
            .find(|s| s.starts_with("kubectl auth can-i list "))
            .unwrap_or_else(|| panic!("no can-i line: {}", run.stderr));
        assert!(
            can_i.ends_with(&format!(" -n {} --as=nobody-at-all", ns.name)),
            "{can_i}"
        );
        // The line, run, says no.
        let words: Vec<&str> = can_i.split_whitespace().skip(1).collect();
        let answer = kubectl(&words);
        assert_eq!(answer.stdout.trim(), "no", "{can_i}: {}", answer.stderr);
    }
    // A user who may read one namespace and asks about every namespace.
    kubectl(&[
        "create",
        "rolebinding",
        "viewer",
        "--clusterrole=view",
        "--user=ns-viewer",
        "-n",
        &ns.name,
    ])
    .ok();
    let run = reconcile_as_user("ns-viewer", &["-A", "status"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("could not read any object in any namespace"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_partial_sweep_names_what_is_missing_and_never_claims_convergence() {
    let ns = Namespace::new("sweep-partial");
    ns.apply(&deployment("web", 1));
    wait_until("rollout", Duration::from_secs(60), || {
        support::rolled_out(&ns, "web", 1)
    });
    ns.kubectl(&[
        "create",
        "role",
        "deploys",
        "--verb=get,list,watch",
        "--resource=deployments,replicasets,pods,events",
    ])
    .ok();
    ns.kubectl(&[
        "create",
        "rolebinding",
        "deploys",
        "--role=deploys",
        "--user=deploy-reader",
    ])
    .ok();
    let why = reconcile_as_user("deploy-reader", &["-n", &ns.name, "why"]);
    assert_eq!(why.code, 1, "{}\n{}", why.stdout, why.stderr);
    assert!(!why.stdout.contains("is converged"), "{}", why.stdout);
    assert!(
        why.stdout.contains("convergence is not known"),
        "{}",
        why.stdout
    );
    let status = reconcile_as_user("deploy-reader", &["-n", &ns.name, "status", "-o", "json"]);
    assert_eq!(status.code, 1, "{}\n{}", status.stdout, status.stderr);
    let doc = status.json();
    let items = doc["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "the Deployment it could read: {doc}");
    assert_eq!(items[0]["verdict"], "Converged");
    let gaps: Vec<&str> = doc["incomplete"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["resource"].as_str())
        .collect();
    assert!(gaps.contains(&"services"), "{gaps:?}");
    assert!(gaps.contains(&"statefulsets.apps"), "{gaps:?}");
}

#[test]
fn a_namespace_that_does_not_exist_is_an_error() {
    let missing = format!("no-such-ns-{}", std::process::id());
    for args in [
        vec!["-n", &missing, "why"],
        vec!["-n", &missing, "status"],
        vec!["-n", &missing, "status", "deploy/web"],
        vec!["-n", &missing, "wait", "deploy/web", "--timeout", "10s"],
    ] {
        let run = reconcile(&args);
        assert_eq!(run.code, 2, "{args:?}: {}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains(&format!("namespace \"{missing}\" not found")),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn wait_waits_for_an_object_that_does_not_exist_yet() {
    let ns = Namespace::new("wait-later");
    let waiter = Background::start(&["-n", &ns.name, "wait", "deploy/later", "--timeout", "90s"]);
    std::thread::sleep(Duration::from_secs(3));
    ns.apply(&deployment("later", 1));
    let (code, out, _) = waiter.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Deployment/later: Converged"), "{out}");
}

#[test]
fn an_orphaned_replicaset_is_swept_as_a_root() {
    let ns = Namespace::new("sweep-orphan");
    ns.apply(&deployment("web", 1));
    wait_until("rollout", Duration::from_secs(60), || {
        support::rolled_out(&ns, "web", 1)
    });
    ns.kubectl(&["delete", "deployment", "web", "--cascade=orphan"])
        .ok();
    wait_until("the orphan", Duration::from_secs(30), || {
        ns.kubectl(&[
            "get",
            "rs",
            "-o",
            "jsonpath={.items[0].metadata.ownerReferences}",
        ])
        .stdout
        .is_empty()
    });
    let run = ns.reconcile(&["status", "-o", "json", "-v", "8"]);
    let doc = run.json();
    let kinds: Vec<String> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["kind"].as_str().unwrap().to_string())
        .collect();
    // The pods are no roots: their owners came through the server's
    // protobuf lists of metadata, which were asked for and answered.
    assert_eq!(kinds, ["ReplicaSet"], "{doc}");
    for list in ["/pods?limit=500", "/replicasets?limit=500"] {
        let answer: Vec<&str> = run
            .stderr
            .lines()
            .skip_while(|l| !(l.starts_with("GET ") && l.contains(list)))
            .skip(1)
            .take_while(|l| !l.starts_with("GET "))
            .collect();
        assert!(
            answer.contains(
                &"Response Header: \"Content-Type: application/vnd.kubernetes.protobuf\""
            ),
            "{list}: {answer:?}\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_user_who_may_list_but_not_watch_still_sees_a_rollout_converge() {
    let ns = Namespace::new("wait-nowatch");
    ns.kubectl(&[
        "create",
        "role",
        "lister",
        "--verb=get,list",
        "--resource=deployments,replicasets,pods,events",
    ])
    .ok();
    ns.kubectl(&[
        "create",
        "rolebinding",
        "lister",
        "--role=lister",
        "--user=lister",
    ])
    .ok();
    ns.apply(&deployment("web", 2));
    let started = std::time::Instant::now();
    let run = reconcile(&[
        "--as",
        "lister",
        "-n",
        &ns.name,
        "wait",
        "deploy/web",
        "--timeout",
        "60s",
    ]);
    let elapsed = started.elapsed();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "warning: deployments.apps: forbidden (watching; re-listed every 5s instead)"
        ),
        "the forbidden watch is said at once: {}",
        run.stderr
    );
    assert!(
        elapsed < Duration::from_secs(45),
        "converged by re-listing: {elapsed:?}"
    );
}

#[test]
fn a_sweep_that_keeps_only_rows_answers_as_one_that_keeps_every_object() {
    // A one-shot `status` judges a custom resource as its list arrives and
    // keeps only the row of one that is converged; `--show-labels` needs
    // the objects, so it keeps them all. Both must answer alike.
    support::install_crd("gizmos", "Gizmo", "sweep.reconcile.test", "", "");
    let ns = Namespace::new("sweep-settled");
    ns.apply(&deployment("web", 1));
    for (name, ready, reason) in [
        ("a", "True", "Reconciled"),
        ("b", "False", "Broken"),
        ("c", "True", "Reconciled"),
    ] {
        ns.apply(&format!(
            "apiVersion: sweep.reconcile.test/v1\nkind: Gizmo\nmetadata: {{name: {name}}}\nspec: {{size: 1}}\n"
        ));
        let status = format!(
            r#"{{"status": {{"observedGeneration": 1, "conditions": [{{"type": "Ready", "status": "{ready}", "reason": "{reason}", "message": "gizmo {name}", "lastTransitionTime": "2026-12-01T10:00:00Z"}}]}}}}"#
        );
        ns.kubectl(&[
            "patch",
            &format!("gizmos.sweep.reconcile.test/{name}"),
            "--subresource=status",
            "--type=merge",
            "-p",
            &status,
        ])
        .ok();
    }
    support::wait_rolled_out(&ns, "web", 1);
    let items = |extra: &[&str]| -> Vec<Value> {
        let mut args = vec!["-n", ns.name.as_str(), "status", "-o", "json"];
        args.extend_from_slice(extra);
        let run = reconcile(&args);
        assert_eq!(run.code, 1, "gizmo b is broken: {}", run.stderr);
        run.json()["items"].as_array().unwrap().clone()
    };
    let rows = items(&[]);
    let names: Vec<String> = rows
        .iter()
        .map(|i| {
            format!(
                "{}/{} {}",
                i["object"]["kind"].as_str().unwrap(),
                i["object"]["name"].as_str().unwrap(),
                i["verdict"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "Deployment/web Converged",
            "Gizmo/a Converged",
            "Gizmo/b Failed",
            "Gizmo/c Converged"
        ]
    );
    assert_eq!(rows, items(&["--show-labels"]));
    // `why` counts the roots it did not keep.
    let why = |extra: &[&str]| -> Value {
        let mut args = vec!["-n", ns.name.as_str(), "why", "-o", "json"];
        args.extend_from_slice(extra);
        let run = reconcile(&args);
        assert_eq!(run.code, 1, "{}", run.stderr);
        run.json()
    };
    let settled = why(&[]);
    assert_eq!(settled["summary"]["roots"], 4, "{settled:#}");
    assert_eq!(settled["summary"]["notConverged"], 1, "{settled:#}");
    let every = why(&["--show-labels"]);
    assert_eq!(settled["summary"], every["summary"]);
    let objects = |doc: &Value| -> Vec<Value> {
        let items = doc["items"].as_array().unwrap();
        items.iter().map(|i| i["object"].clone()).collect()
    };
    assert_eq!(objects(&settled), objects(&every));
}

/// A Gizmo in `ns` whose controller reports it broken.
fn broken_gizmo(ns: &Namespace) {
    ns.apply("apiVersion: sweep.reconcile.test/v1\nkind: Gizmo\nmetadata: {name: broken}\nspec: {size: 1}\n");
    ns.kubectl(&[
        "patch",
        "gizmos.sweep.reconcile.test/broken",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "False", "reason": "Broken", "message": "gizmo broken", "lastTransitionTime": "2026-12-01T10:00:00Z"}]}}"#,
    ])
    .ok();
}

#[test]
fn why_across_namespaces_lists_no_type_again_per_namespace() {
    // `why -A` reads the failing roots of every namespace in depth. The
    // search for a custom resource's children uses the sweep's lists
    // across namespaces, and lists each type the sweep did not read once
    // across namespaces: never once per namespace with a failing root.
    support::install_crd("gizmos", "Gizmo", "sweep.reconcile.test", "", "");
    let first = Namespace::new("sweep-why-a");
    let second = Namespace::new("sweep-why-b");
    broken_gizmo(&first);
    broken_gizmo(&second);
    let run = reconcile(&["why", "-A", "-o", "json", "-v", "6"]);
    assert!(matches!(run.code, 1 | 3), "{}", run.stderr);
    let doc = run.json();
    for ns in [&first, &second] {
        let item = doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| {
                i["object"]["kind"] == "Gizmo" && i["object"]["namespace"] == ns.name.as_str()
            })
            .unwrap_or_else(|| panic!("the Gizmo of {}: {doc:#}", ns.name));
        assert_eq!(item["verdict"], "Failed", "{item:#}");
    }
    let lists: Vec<&str> = run
        .stderr
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|url| url.contains("limit=") && !url.contains("continue="))
        .collect();
    for ns in [&first, &second] {
        let again: Vec<&&str> = lists
            .iter()
            .filter(|url| url.contains(&format!("/namespaces/{}/", ns.name)))
            .filter(|url| !url.split('?').next().unwrap().ends_with("/events"))
            .collect();
        assert!(again.is_empty(), "listed in {}: {again:#?}", ns.name);
    }
    // Once across namespaces. Only lists across namespaces are counted:
    // the shared cluster's other namespaces hold other tests' failures,
    // whose own reads in depth (a failing Deployment's ServiceAccounts)
    // are theirs, not this question's.
    for plural in [
        "configmaps",
        "serviceaccounts",
        "deployments",
        "endpointslices",
    ] {
        let of_type = lists
            .iter()
            .filter(|url| !url.contains("Selector="))
            .map(|url| url.split('?').next().unwrap())
            .filter(|path| !path.contains("/namespaces/"))
            .filter(|path| path.ends_with(&format!("/{plural}")))
            .count();
        assert_eq!(of_type, 1, "{plural}: {lists:#?}");
    }
}

/// The group version of a list's URL (`/api/v1/...` is the core group's).
fn group_version(url: &str) -> String {
    let path = url
        .split("://")
        .nth(1)
        .and_then(|u| u.find('/').map(|i| &u[i..]));
    let parts: Vec<&str> = path.unwrap_or("").split('/').collect();
    match parts.get(1) {
        Some(&"api") => parts.get(2).unwrap_or(&"").to_string(),
        _ => format!(
            "{}/{}",
            parts.get(2).unwrap_or(&""),
            parts.get(3).unwrap_or(&"")
        ),
    }
}

/// A sweep reads the first list of each group version consistently and
/// the others of that group version no older than what it saw, which the
/// API server answers from its watch cache without asking etcd: a
/// Deployment applied the moment before is in the answer, every list with
/// a floor follows an answered consistent list of its group version, the
/// lists of its tree (read after the sweep, as it is not converged) take
/// one, and the lists of events never do (clusters keep them in an etcd
/// of their own).
#[test]
fn a_sweep_sees_what_was_applied_just_before_though_most_lists_ask_no_older_than_the_first() {
    let ns = Namespace::new("sweep-floor");
    ns.apply(&support::deployment(
        "just-applied",
        1,
        "",
        ", reconcile.test/failure: crash-loop",
        "",
        "",
    ));
    let applied = ns.jsonpath("deploy/just-applied", "{.metadata.resourceVersion}");
    let run = ns.reconcile(&["status", "-v", "6"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("Deployment/just-applied"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let tree_lists = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET ") && l.contains("labelSelector=app%3Djust-applied"))
        .collect::<Vec<_>>();
    assert!(
        !tree_lists.is_empty()
            && tree_lists
                .iter()
                .all(|l| l.contains("resourceVersionMatch=NotOlderThan")),
        "{tree_lists:?}\n{}",
        run.stderr
    );
    // Every floor is at least the version the Deployment was written at
    // (the server's versions are etcd's revisions, which this test may
    // compare), and follows an answered consistent list of this
    // namespace in its group version.
    let written: u64 = applied.parse().unwrap();
    let mut answered = std::collections::HashSet::new();
    for line in run.stderr.lines().filter(|l| l.starts_with("GET ")) {
        let url = line.split(' ').nth(1).unwrap_or("");
        if !url.contains("limit=") || url.contains("continue=") {
            continue;
        }
        let gv = group_version(url);
        let in_namespace = url.contains(&format!("/namespaces/{}/", ns.name));
        if let Some(floor) = url.split("resourceVersion=").nth(1) {
            let floor: u64 = floor.split('&').next().unwrap().parse().unwrap();
            assert!(floor >= written, "{line}: older than {written}");
            assert!(url.contains("resourceVersionMatch=NotOlderThan"), "{line}");
            assert!(in_namespace, "{line}");
            assert!(
                answered.contains(&gv),
                "{line}: no consistent list of {gv} in the namespace before it"
            );
            assert!(!url.contains("/events?"), "{line}");
            assert!(line.contains(" 200 OK "), "{line}");
        } else if in_namespace && line.contains(" 200 OK ") {
            answered.insert(gv);
        }
    }
}
