//! End-to-end tests of `tree` and `status` on the real control plane: real
//! controllers build the trees, the plugin binary reads them.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Namespace, audit_events, cluster, kubectl, reconcile_as, wait_until};

fn web(name: &str, replicas: u32, extra_labels: &str) -> String {
    support::deployment(
        name,
        replicas,
        "\n  progressDeadlineSeconds: 8",
        extra_labels,
        "",
        "",
    )
}

fn wait_available(ns: &Namespace, name: &str, replicas: u32) {
    support::wait_rolled_out(ns, name, replicas);
}

/// `kind/name` of a node and its children, recursively, as one string.
fn shape(node: &Value) -> String {
    let me = format!(
        "{}={}",
        node["object"]["kind"].as_str().unwrap(),
        node["verdict"].as_str().unwrap()
    );
    let kids: Vec<String> = node["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(shape)
        .collect();
    if kids.is_empty() {
        me
    } else {
        format!("{me}[{}]", kids.join(","))
    }
}

#[test]
fn a_healthy_deployment_has_the_exact_tree_shape() {
    let ns = Namespace::new("tree-healthy");
    ns.apply(&web("web", 3, ""));
    wait_available(&ns, "web", 3);

    let json = ns.reconcile(&["tree", "deploy/web", "-o", "json"]);
    assert_eq!(json.code, 0, "{}\n{}", json.stdout, json.stderr);
    let doc = json.json();
    assert_eq!(doc["apiVersion"], "reconcile.kubectl.dev/v1alpha1");
    assert_eq!(doc["kind"], "TreeReport");
    assert_eq!(
        shape(&doc["items"][0]),
        "Deployment=Converged[ReplicaSet=Converged[Pod=Converged,Pod=Converged,Pod=Converged]]"
    );
    assert_eq!(doc["items"][0]["reason"], "Available");
    assert_eq!(
        doc["items"][0]["ready"],
        serde_json::json!({"ready": 3, "desired": 3})
    );
    assert_eq!(doc["incomplete"], serde_json::json!([]));

    let text = ns.reconcile(&["tree", "deployment.apps/web"]).ok();
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines[0].starts_with("NAME") && lines[0].contains("VERDICT"),
        "{}",
        text.stdout
    );
    assert!(
        lines[1].starts_with("Deployment/web ") && lines[1].contains("Converged"),
        "{}",
        text.stdout
    );
    assert!(lines[2].starts_with("└─ReplicaSet/web-"), "{}", text.stdout);
    assert!(
        lines[3].starts_with("  ├─Pod/web-")
            && lines[4].starts_with("  ├─Pod/web-")
            && lines[5].starts_with("  └─Pod/web-"),
        "{}",
        text.stdout
    );
    assert_eq!(lines.len(), 6, "{}", text.stdout);
    assert!(!text.stdout.contains('\u{1b}'), "no colour off a terminal");
}

#[test]
fn a_stuck_rollout_shows_old_and_new_replicasets() {
    let ns = Namespace::new("tree-stuck");
    ns.apply(&web("web", 3, ""));
    wait_available(&ns, "web", 3);
    // The new template's pods cannot pull their image.
    ns.apply(
        &web("web", 3, ", reconcile.test/failure: image-pull-backoff")
            .replace("nginx:1.27", "nginx:9.99-missing"),
    );
    wait_until("ProgressDeadlineExceeded", Duration::from_secs(60), || {
        ns.jsonpath(
            "deploy/web",
            r#"{.status.conditions[?(@.type=="Progressing")].reason}"#,
        ) == "ProgressDeadlineExceeded"
    });
    let run = ns.reconcile(&["tree", "deploy/web", "-o", "json"]);
    assert_eq!(run.code, 1, "not converged: {}", run.stderr);
    let doc = run.json();
    let root = &doc["items"][0];
    assert_eq!(root["verdict"], "Failed");
    assert_eq!(root["reason"], "ProgressDeadlineExceeded");
    let sets = root["children"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "old and new ReplicaSets: {root:#}");
    let pods_of = |rs: &Value| rs["children"].as_array().unwrap().clone();
    let (old, new): (Vec<&Value>, Vec<&Value>) = sets
        .iter()
        .partition(|rs| pods_of(rs).iter().all(|p| p["verdict"] == "Converged"));
    assert_eq!(old.len(), 1, "{root:#}");
    assert_eq!(pods_of(old[0]).len(), 3);
    let failing = pods_of(new[0]);
    assert!(!failing.is_empty());
    assert!(
        failing
            .iter()
            .all(|p| p["verdict"] == "Failed" && p["reason"] == "ImagePullBackOff"),
        "{failing:#?}"
    );

    let text = ns.reconcile(&["tree", "deploy/web"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stdout.contains("ProgressDeadlineExceeded"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("ImagePullBackOff"), "{}", text.stdout);
}

/// Widgets, readable by the `view` ClusterRole through aggregation.
fn install_widgets() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        support::install_crd(
            "widgets",
            "Widget",
            "e2e.reconcile.dev",
            ", shortNames: [wdg], categories: [all]",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: e2e-widgets-view\n  labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nrules:\n- apiGroups: [e2e.reconcile.dev]\n  resources: [widgets]\n  verbs: [get, list, watch]\n",
        );
    });
}

/// A Widget owning two ConfigMaps (as its controller would make them).
fn widget_with_configmaps(ns: &Namespace) -> String {
    install_widgets();
    ns.apply(
        "apiVersion: e2e.reconcile.dev/v1\nkind: Widget\nmetadata: {name: shop}\nspec: {size: 2}\n",
    );
    let uid = ns.jsonpath("widget/shop", "{.metadata.uid}");
    for name in ["shop-config", "shop-routes"] {
        ns.apply(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  ownerReferences: [{{apiVersion: e2e.reconcile.dev/v1, kind: Widget, name: shop, uid: {uid}, controller: true}}]\ndata: {{secret-ish: do-not-print}}\n"
        ));
    }
    uid
}

#[test]
fn a_custom_resource_owning_configmaps() {
    let ns = Namespace::new("tree-cr");
    widget_with_configmaps(&ns);
    let run = ns.reconcile(&["tree", "wdg/shop", "-o", "json"]);
    let doc = run.json();
    let root = &doc["items"][0];
    assert_eq!(
        shape(root),
        "Widget=Progressing[ConfigMap=Converged,ConfigMap=Converged]"
    );
    assert_eq!(
        root["reason"], "WaitingForController",
        "no controller has written status yet, within a minute of creation: {root:#}"
    );
    assert_eq!(run.code, 1);
    assert!(
        !run.stdout.contains("do-not-print"),
        "ConfigMap data is never read"
    );
    let names: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["shop-config", "shop-routes"]);
}

#[test]
fn the_view_user_gets_a_partial_tree_that_says_what_is_missing() {
    let ns = Namespace::new("tree-view");
    widget_with_configmaps(&ns);
    let view = &cluster().view_kubeconfig;
    let run = reconcile_as(
        view,
        &[
            "-n",
            &ns.name,
            "tree",
            "widgets.e2e.reconcile.dev/shop",
            "-o",
            "json",
        ],
    );
    assert_ne!(
        run.code, 2,
        "a partial answer is still an answer: {}",
        run.stderr
    );
    let doc = run.json();
    assert_eq!(
        doc["items"][0]["children"].as_array().unwrap().len(),
        2,
        "ConfigMaps are listable by view"
    );
    let incomplete = doc["incomplete"].as_array().unwrap();
    assert!(
        incomplete.iter().any(|g| g["resource"] == "secrets"
            && g["namespace"] == ns.name.as_str()
            && g["error"] == "forbidden"),
        "{incomplete:#?}"
    );
    let text = reconcile_as(view, &["-n", &ns.name, "tree", "widget/shop"]);
    assert!(
        text.stdout.contains("Incomplete") && text.stdout.contains("secrets in namespace"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_cluster_scoped_owner_finds_children_in_several_namespaces() {
    let a = Namespace::new("tree-cluster-a");
    let b = Namespace::new("tree-cluster-b");
    let owner = format!("e2e-owner-{}", a.name);
    kubectl(&[
        "create",
        "clusterrole",
        &owner,
        "--verb=get",
        "--resource=pods",
    ])
    .ok();
    let uid = kubectl(&[
        "get",
        "clusterrole",
        &owner,
        "-o",
        "jsonpath={.metadata.uid}",
    ])
    .ok()
    .stdout;
    for ns in [&a, &b] {
        ns.apply(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: granted\n  ownerReferences: [{{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: {owner}, uid: {uid}}}]\n"
        ));
    }
    let run = support::reconcile(&["tree", &format!("clusterrole/{owner}"), "-o", "json"]);
    let doc = run.json();
    let children = doc["items"][0]["children"].as_array().unwrap();
    let mut namespaces: Vec<&str> = children
        .iter()
        .map(|c| c["object"]["namespace"].as_str().unwrap())
        .collect();
    namespaces.sort();
    assert_eq!(namespaces, vec![a.name.as_str(), b.name.as_str()]);
    let text = support::reconcile(&["tree", &format!("clusterrole/{owner}")]);
    assert!(
        text.stdout.starts_with("NAMESPACE"),
        "children across namespaces show a NAMESPACE column:\n{}",
        text.stdout
    );
    kubectl(&["delete", "clusterrole", &owner, "--wait=false"]);
}

#[test]
fn an_ownership_cycle_terminates() {
    let ns = Namespace::new("tree-cycle");
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: chicken}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: egg}\n");
    let uid = |n: &str| ns.jsonpath(&format!("configmap/{n}"), "{.metadata.uid}");
    let (chicken, egg) = (uid("chicken"), uid("egg"));
    let own = |name: &str, owner: &str, owner_uid: &str| {
        ns.kubectl(&["patch", "configmap", name, "--type=merge", "-p",
            &format!(r#"{{"metadata":{{"ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"{owner}","uid":"{owner_uid}"}}]}}}}"#)]).ok();
    };
    own("chicken", "egg", &egg);
    own("egg", "chicken", &chicken);
    let run = ns.reconcile(&["tree", "configmap/chicken", "--owners", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = run.json();
    let item = &doc["items"][0];
    assert_eq!(shape(item), "ConfigMap=Converged[ConfigMap=Converged]");
    assert!(
        item["children"][0]["notes"][0]
            .as_str()
            .unwrap()
            .contains("cycle"),
        "{item:#}"
    );
    assert_eq!(
        item["owners"].as_array().unwrap().len(),
        1,
        "the chain above stops where the cycle closes"
    );
}

#[test]
fn status_lists_root_objects_and_exits_by_their_verdicts() {
    let ns = Namespace::new("status-roots");
    ns.apply(&web("web", 2, ""));
    wait_available(&ns, "web", 2);
    let ok = ns.reconcile(&["status", "deploy/web", "-o", "json"]);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let doc = ok.json();
    assert_eq!(doc["kind"], "StatusReport");
    let item = &doc["items"][0];
    assert_eq!(item["object"]["kind"], "Deployment");
    assert_eq!(item["object"]["apiVersion"], "apps/v1");
    assert_eq!(item["object"]["namespace"], ns.name.as_str());
    assert!(item["object"]["uid"].as_str().is_some());
    assert_eq!(item["verdict"], "Converged");
    assert_eq!(item["generation"], item["observedGeneration"]);

    ns.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: bare, labels: {reconcile.test/failure: crash-loop}}\nspec:\n  containers: [{name: app, image: app}]\n");
    wait_until("crash loop", Duration::from_secs(30), || {
        ns.jsonpath(
            "pod/bare",
            "{.status.containerStatuses[0].state.waiting.reason}",
        ) == "CrashLoopBackOff"
    });
    let all = ns.reconcile(&["status"]);
    assert_eq!(all.code, 1, "{}", all.stdout);
    let lines: Vec<&str> = all.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        3,
        "header, the Deployment and the bare pod only:\n{}",
        all.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Deployment/web") && l.contains("Converged"))
    );
    assert!(lines.iter().any(|l| l.starts_with("Pod/bare")
        && l.contains("Failed")
        && l.contains("CrashLoopBackOff")));
}

#[test]
fn errors_are_plain_and_exit_2() {
    let ns = Namespace::new("status-errors");
    let unknown = ns.reconcile(&["tree", "deploymnet/web"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .stderr
            .contains("doesn't have a resource type \"deploymnet\"")
            && unknown.stderr.contains("did you mean deployments.apps"),
        "{}",
        unknown.stderr
    );

    let missing = ns.reconcile(&["status", "deploy/nope", "-o", "json"]);
    assert_eq!(missing.code, 1, "NotFound is a verdict: {}", missing.stderr);
    assert_eq!(missing.json()["items"][0]["verdict"], "NotFound");

    let forbidden = reconcile_as(
        &cluster().view_kubeconfig,
        &["-n", &ns.name, "status", "secret/anything"],
    );
    assert_eq!(forbidden.code, 2);
    assert!(
        forbidden.stderr.contains("forbidden"),
        "{}",
        forbidden.stderr
    );

    let dir = tempfile::tempdir().unwrap();
    let admin = std::fs::read_to_string(&cluster().kubeconfig).unwrap();
    let port = admin
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: https://127.0.0.1:"))
        .unwrap();
    let unreachable = dir.path().join("unreachable");
    std::fs::write(
        &unreachable,
        admin.replace(&format!("127.0.0.1:{port}"), "127.0.0.1:9"),
    )
    .unwrap();
    let run = reconcile_as(&unreachable, &["status", "deploy/web"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot reach the API server"),
        "{}",
        run.stderr
    );

    let token = dir.path().join("bad-token");
    let ca = admin
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority: "))
        .unwrap();
    std::fs::write(
        &token,
        format!("apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"https://127.0.0.1:{port}\", certificate-authority: {ca}}}}}]\nusers: [{{name: u, user: {{token: not-a-real-token}}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\ncurrent-context: x\n"),
    )
    .unwrap();
    let run = reconcile_as(
        &token,
        &[
            "--cache-dir",
            dir.path().to_str().unwrap(),
            "status",
            "deploy/web",
        ],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("401 Unauthorized"), "{}", run.stderr);
}

#[test]
fn a_healthy_deployment_with_500_pods_costs_3_requests_and_writes_nothing() {
    let ns = Namespace::new("tree-audit");
    ns.apply(&web("big", 500, ""));
    wait_available(&ns, "big", 500);
    let who = format!("audit-{}", ns.name);
    let args = [
        "--as",
        who.as_str(),
        "--as-group",
        "system:masters",
        "-n",
        ns.name.as_str(),
        "tree",
        "deploy/big",
        "-o",
        "json",
    ];
    // The first run fills the discovery cache; the second is measured.
    support::reconcile(&args).ok();
    let mine = |e: &Value| e["impersonatedUser"]["username"] == who.as_str();
    wait_until("audit of the first run", Duration::from_secs(10), || {
        !audit_events(mine).is_empty()
    });
    let before = audit_events(mine).len();
    let run = support::reconcile(&args).ok();
    assert_eq!(
        run.json()["items"][0]["children"][0]["children"]
            .as_array()
            .unwrap()
            .len(),
        500
    );
    std::thread::sleep(Duration::from_secs(2));
    let measured: Vec<Value> = audit_events(mine).into_iter().skip(before).collect();
    let described: Vec<String> = measured
        .iter()
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect();
    // The Deployment, its ReplicaSets and its pods (one page of 500). No
    // discovery: the tree names its types, and the cached catalog serves
    // until a read proves it wrong. No events: every pod is ready, so no
    // event would explain anything (`why` reads them).
    let count = |verb: &str, path: &str| {
        measured
            .iter()
            .filter(|e| e["verb"] == verb && e["requestURI"].as_str().unwrap().contains(path))
            .count()
    };
    let discovery = measured
        .iter()
        .filter(|e| e["requestURI"] == "/api" || e["requestURI"] == "/apis")
        .count();
    assert_eq!(discovery, 0, "{described:#?}");
    assert_eq!(count("get", "/deployments/big"), 1, "{described:#?}");
    assert_eq!(count("list", "/replicasets?"), 1, "{described:#?}");
    assert_eq!(count("list", "/pods?"), 1, "{described:#?}");
    assert_eq!(count("list", "/events"), 0, "{described:#?}");
    assert_eq!(measured.len(), 3, "{described:#?}");
    assert!(
        measured.iter().all(|e| e["userAgent"]
            .as_str()
            .unwrap()
            .starts_with("kubectl-reconcile/")),
        "{described:#?}"
    );

    let plugin = audit_events(|e| {
        e["userAgent"]
            .as_str()
            .is_some_and(|ua| ua.starts_with("kubectl-reconcile/"))
    });
    assert!(!plugin.is_empty());
    let writes: Vec<&Value> = plugin
        .iter()
        .filter(|e| !matches!(e["verb"].as_str(), Some("get" | "list" | "watch")))
        .collect();
    assert!(writes.is_empty(), "the plugin only reads: {writes:#?}");
}

#[test]
fn manifests_and_categories_name_the_targets() {
    let ns = Namespace::new("status-files");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.yaml"), web("web", 1, "")).unwrap();
    std::fs::write(dir.path().join("svc.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n").unwrap();
    let path = dir.path().to_str().unwrap();
    ns.kubectl(&["apply", "-f", path]).ok();
    wait_available(&ns, "web", 1);
    wait_until("the manifests converge", Duration::from_secs(60), || {
        ns.reconcile(&["status", "-f", path]).code == 0
    });
    let doc = ns
        .reconcile(&["status", "-f", path, "-o", "json"])
        .ok()
        .json();
    let kinds: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec!["Service", "Deployment"],
        "in the order of the files (svc.yaml, web.yaml)"
    );

    let all = ns.reconcile(&["status", "all", "-o", "json"]).json();
    let mut kinds: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["kind"].as_str().unwrap())
        .collect();
    kinds.sort();
    assert_eq!(kinds, vec!["Deployment", "Pod", "ReplicaSet", "Service"]);
    let two = ns.reconcile(&["status", "deploy,svc", "-o", "json"]).json();
    assert_eq!(two["items"].as_array().unwrap().len(), 2);
}

#[test]
fn a_cronjob_tree_reaches_the_pods_of_its_jobs() {
    let ns = Namespace::new("tree-cron");
    ns.kubectl(&[
        "create",
        "cronjob",
        "tick",
        "--image=busybox",
        "--schedule=0 0 1 1 *",
    ])
    .ok();
    ns.kubectl(&["create", "job", "--from=cronjob/tick", "tick-manual"])
        .ok();
    wait_until("the job completes", Duration::from_secs(60), || {
        ns.jsonpath(
            "job/tick-manual",
            r#"{.status.conditions[?(@.type=="Complete")].status}"#,
        ) == "True"
    });
    let run = ns.reconcile(&["tree", "cronjob/tick", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        shape(&run.json()["items"][0]),
        "CronJob=Converged[Job=Converged[Pod=Converged]]"
    );
}

#[test]
fn a_served_version_that_is_not_the_preferred_one_resolves() {
    // Gizmos are served at v1 and v2; discovery prefers v2 (issue 11, 14).
    support::install_crd(
        "gizmos",
        "Gizmo",
        "versions.reconcile.dev",
        "",
        "  - name: v2\n    served: true\n    storage: false\n    subresources: {status: {}}\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n",
    );
    let ns = Namespace::new("tree-versions");
    ns.apply(
        "apiVersion: versions.reconcile.dev/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {size: 1}\n",
    );
    for (spelling, version) in [
        ("Gizmo.v1.versions.reconcile.dev/g", "v1"),
        ("gizmos.v2.versions.reconcile.dev/g", "v2"),
        ("gizmos.versions.reconcile.dev/g", "v2"),
    ] {
        let run = ns.reconcile(&["status", spelling, "-o", "json"]);
        assert_eq!(
            run.json()["items"][0]["object"]["apiVersion"],
            format!("versions.reconcile.dev/{version}"),
            "{spelling}: {}",
            run.stderr
        );
    }
    let run = ns.reconcile(&["status", "Gizmo.v3.versions.reconcile.dev/g"]);
    assert_eq!(run.code, 2, "not served: {}", run.stderr);
}

/// The discovery requests of a run, from its `-v 6` log: `path status`,
/// sorted.
fn discovery_requests(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = stderr
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("GET ")?;
            let mut words = rest.split_whitespace();
            let url = words.next()?;
            let path = url.splitn(4, '/').nth(3).map(|p| format!("/{p}"))?;
            let code = words.next()?;
            (path == "/api" || path == "/apis").then(|| format!("{path} {code}"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_cached_catalog_serves_until_a_read_proves_it_wrong() {
    // No other test of this binary may change the types meanwhile.
    let _catalog = support::catalog_lock();
    let ns = Namespace::new("tree-catalog");
    ns.apply(&web("web", 1, ""));
    wait_available(&ns, "web", 1);
    let cache = std::env::temp_dir().join(format!("reconcile-catalog-{}", ns.name));
    let cache_flag = cache.display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["--cache-dir", cache_flag.as_str(), "-v", "6"];
        all.extend_from_slice(args);
        ns.reconcile(&all)
    };

    // A first run reads discovery whole; the next one names only built-in
    // types with known edges and sends no discovery request at all.
    let first = run(&["tree", "deploy/web"]).ok();
    assert_eq!(
        discovery_requests(&first.stderr),
        ["/api 200", "/apis 200"],
        "{}",
        first.stderr
    );
    let second = run(&["tree", "deploy/web", "-o", "json"]).ok();
    assert!(
        discovery_requests(&second.stderr).is_empty(),
        "{}",
        second.stderr
    );
    assert_eq!(
        shape(&second.json()["items"][0]),
        "Deployment=Converged[ReplicaSet=Converged[Pod=Converged]]"
    );

    // The server stops serving the version the cache names (as when an
    // upgrade removes one): the 404 has the catalog read whole, and the
    // question asked again.
    let file = kubectl_reconcile::app::cache_path(
        &cache,
        &support::server_authority(&cluster().kubeconfig),
    );
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let deployment = doc["groups"]["catalog"]["types"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["kind"] == "Deployment" && t["group"] == "apps")
        .expect("the cache holds Deployments");
    deployment["version"] = "v1beta9".into();
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let third = run(&["tree", "deploy/web", "-o", "json"]);
    assert_eq!(third.code, 0, "{}\n{}", third.stdout, third.stderr);
    assert!(
        third
            .stderr
            .lines()
            .any(|l| l.contains("/apis/apps/v1beta9/") && l.contains(" 404 ")),
        "{}",
        third.stderr
    );
    assert_eq!(
        discovery_requests(&third.stderr),
        ["/api 200", "/apis 200"],
        "read whole, not revalidated: {}",
        third.stderr
    );
    assert_eq!(
        shape(&third.json()["items"][0]),
        "Deployment=Converged[ReplicaSet=Converged[Pod=Converged]]"
    );
    assert!(discovery_requests(&run(&["tree", "deploy/web"]).ok().stderr).is_empty());

    // A type created after the cache was written: naming it has the
    // catalog revalidated (the server's ETag changed), and it resolves.
    let group = format!("{}.catalog.test", ns.name);
    support::install_crd_locked("gizmos", "Gizmo", &group, "", "");
    ns.apply(
        "apiVersion: GROUP/v1\nkind: Gizmo\nmetadata: {name: a}\n"
            .replace("GROUP", &group)
            .as_str(),
    );
    let fourth = run(&["status", &format!("gizmos.{group}/a"), "-o", "json"]);
    assert!(fourth.code <= 1, "{}\n{}", fourth.stdout, fourth.stderr);
    assert_eq!(
        fourth.json()["items"][0]["object"]["kind"],
        "Gizmo",
        "{}",
        fourth.stdout
    );
    assert_eq!(
        discovery_requests(&fourth.stderr),
        ["/api 304", "/apis 200"],
        "the changed document is read, the other revalidated: {}",
        fourth.stderr
    );
    // A sweep goes through every type: it revalidates, and is answered 304.
    let sweep = run(&["status"]);
    assert_eq!(
        discovery_requests(&sweep.stderr),
        ["/api 304", "/apis 304"],
        "{}",
        sweep.stderr
    );
    assert!(sweep.stdout.contains("Gizmo/a"), "{}", sweep.stdout);

    // An owner of a kind created after the cache was written: the tree
    // names only a built-in type, so it reads with the cached catalog,
    // meets a kind that catalog does not know, revalidates and asks again.
    support::install_crd_locked("sprockets", "Sprocket", &group, "", "");
    ns.apply(
        "apiVersion: GROUP/v1\nkind: Sprocket\nmetadata: {name: s}\n"
            .replace("GROUP", &group)
            .as_str(),
    );
    let uid = ns.jsonpath(&format!("sprockets.{group}/s"), "{.metadata.uid}");
    ns.apply(&format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: owned\n  ownerReferences: [{{apiVersion: {group}/v1, kind: Sprocket, name: s, uid: {uid}}}]\n"
    ));
    let owned = run(&["tree", "sa/owned", "--owners", "-o", "json"]);
    assert!(owned.code <= 1, "{}\n{}", owned.stdout, owned.stderr);
    assert_eq!(
        discovery_requests(&owned.stderr),
        ["/api 304", "/apis 200"],
        "revalidated after the read: {}",
        owned.stderr
    );
    let doc = owned.json();
    assert_eq!(doc["incomplete"], serde_json::json!([]), "{doc}");
    let owner = &doc["items"][0]["owners"][0];
    assert_eq!(owner["object"]["kind"], "Sprocket", "{doc}");
    assert_eq!(owner["object"]["name"], "s", "{doc}");
    assert_eq!(owner["state"], "present", "{doc}");
    let _ = kubectl(&[
        "delete",
        "crd",
        &format!("sprockets.{group}"),
        "--wait=false",
    ]);
    let _ = kubectl(&["delete", "crd", &format!("gizmos.{group}"), "--wait=false"]);
}

/// A TCP relay in front of the API server that counts the connections it
/// accepts; returns a kubeconfig that goes through it.
fn counting_relay(
    dir: &std::path::Path,
) -> (
    std::path::PathBuf,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::io::copy;
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let upstream = support::server_authority(&cluster().kubeconfig);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = std::sync::Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            let Ok(server) = TcpStream::connect(&upstream) else {
                continue;
            };
            let (mut c1, mut s1) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut c2, mut s2) = (client, server);
            std::thread::spawn(move || {
                let _ = copy(&mut c1, &mut s1);
                let _ = s1.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = copy(&mut s2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    let text = std::fs::read_to_string(&cluster().kubeconfig).unwrap();
    let relayed: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("server:") {
                format!("    server: https://127.0.0.1:{port}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("relay.kubeconfig");
    std::fs::write(&path, relayed).unwrap();
    (path, accepted)
}

#[test]
fn one_http2_connection_carries_a_whole_sweep() {
    let ns = Namespace::new("tree-conn");
    ns.apply(&web("web", 2, ""));
    wait_available(&ns, "web", 2);
    let dir = std::env::temp_dir().join(format!("reconcile-relay-{}", ns.name));
    let (kubeconfig, accepted) = counting_relay(&dir);
    let run = reconcile_as(&kubeconfig, &["-n", &ns.name, "status", "-v", "6"]);
    assert!(run.code <= 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Deployment/web"), "{}", run.stdout);
    let requests = run.stderr.lines().filter(|l| l.starts_with("GET ")).count();
    assert!(requests >= 20, "a sweep reads every type: {}", run.stderr);
    // Sixteen reads run at once; over HTTP/1.1 each would need a
    // connection of its own. The two discovery documents, asked for at
    // once before the first handshake has chosen HTTP/2, may take two.
    let connections = accepted.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        (1..=2).contains(&connections),
        "{requests} requests over {connections} connections"
    );
}

#[test]
fn a_manifest_directory_is_read_recursively_only_with_r() {
    let ns = Namespace::new("status-recursive");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("base")).unwrap();
    std::fs::write(
        dir.path().join("base/sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: builder}\n",
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    ns.kubectl(&["apply", "-R", "-f", path]).ok();
    // As kubectl: without -R only the directory's own files are read.
    let flat = ns.reconcile(&["status", "-f", path]);
    assert_eq!(flat.code, 2, "{}\n{}", flat.stdout, flat.stderr);
    assert!(flat.stderr.contains("-R (--recursive)"), "{}", flat.stderr);
    let deep = ns
        .reconcile(&["status", "-R", "-f", path, "-o", "json"])
        .ok();
    assert_eq!(
        support::item_names(&deep.json()),
        ["ServiceAccount/builder"]
    );
}
