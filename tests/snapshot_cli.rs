//! The binary on a saved snapshot (no cluster): the rendered text is
//! compared with golden files, at the snapshot's own fixed "now" and with no
//! terminal, so the output is the same on every machine. Set
//! `UPDATE_GOLDEN=1` to rewrite the golden files after a deliberate change,
//! then review the diff.

mod common;

use common::golden;
use common::run::Cmd;

fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = Cmd::reconcile()
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .args(args);
    if let Some(text) = stdin {
        cmd = cmd.stdin(text);
    }
    let out = cmd.run();
    (out.code, out.stdout, out.stderr)
}

const SHOP: &str = "examples/shop.yaml";

#[test]
fn tree_of_a_stuck_rollout() {
    let (code, out, err) = run(
        &["--snapshot", SHOP, "-n", "shop", "tree", "deploy/web"],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("tree-web.txt", &out);
}

#[test]
fn tree_with_owners_from_a_pod() {
    let (_, pods, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "pods",
            "-o",
            "json",
        ],
        None,
    );
    let doc: serde_json::Value = serde_json::from_str(&pods).unwrap();
    let pod = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["reason"] == "ImagePullBackOff")
        .expect("a pod that cannot pull");
    let target = format!("pod/{}", pod["object"]["name"].as_str().unwrap());
    let (code, out, err) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "tree",
            &target,
            "--owners",
        ],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("tree-owners.txt", &out);
}

#[test]
fn status_of_every_root_object() {
    let (code, out, err) = run(&["--snapshot", SHOP, "status"], None);
    assert_eq!(code, 1, "{err}");
    golden("status-shop.txt", &out);
}

#[test]
fn json_follows_the_versioned_schema() {
    let (code, out, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "deploy/api",
            "job/migrate",
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["apiVersion"], "reconcile.kubectl.dev/v1alpha1");
    assert_eq!(doc["kind"], "StatusReport");
    assert_eq!(doc["items"][0]["verdict"], "Converged");
    assert_eq!(doc["items"][1]["verdict"], "Failed");
    assert_eq!(doc["items"][1]["reason"], "BackoffLimitExceeded");
    let (_, yaml, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "deploy/api",
            "-o",
            "yaml",
        ],
        None,
    );
    assert!(
        yaml.starts_with("apiVersion: reconcile.kubectl.dev/v1alpha1\nkind: StatusReport\n"),
        "{yaml}"
    );
}

#[test]
fn snapshots_from_stdin_and_a_fixed_now() {
    let text = std::fs::read_to_string(common::root().join(SHOP)).unwrap();
    let (code, out, err) = run(
        &[
            "--snapshot",
            "-",
            "-n",
            "shop",
            "status",
            "deploy/api",
            "--now",
            "2030-01-01T00:00:00Z",
        ],
        Some(&text),
    );
    assert_eq!(code, 0, "{err}");
    // SINCE, measured from --now: the Available condition of the saved
    // snapshot (2026-11-29) to 2030-01-01, as kubectl writes ages.
    let row: Vec<&str> = out.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        row,
        ["Deployment/api", "Converged", "Available", "2/2", "3y33d"],
        "{out}"
    );
}

#[test]
fn hostile_strings_never_reach_the_terminal() {
    let snap = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evil", "namespace": "x", "uid": "u1",
        "creationTimestamp": "2026-01-01T00:00:00Z"},
      "spec": {"containers": [{"name": "c", "image": "i"}]},
      "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/3 nodes \u001b[2J\u001b]8;;http://x\u0007click\u001b]8;;\u0007 are \u202eavailable"}]}}"#;
    let (code, out, err) = run(
        &["--snapshot", "-", "status", "pod/evil", "-o", "text"],
        Some(snap),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        !out.chars()
            .any(|c| c == '\u{1b}' || c == '\u{7}' || c == '\u{202e}'),
        "{out:?}"
    );
    assert!(out.contains("\\x1b") || out.contains("\\e"), "{out}");
}

#[test]
fn bad_snapshots_say_what_is_wrong() {
    let (code, _, err) = run(&["--snapshot", "no/such/file.yaml", "status"], None);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/file.yaml"), "{err}");
    let (code, _, err) = run(
        &[
            "--snapshot",
            SHOP,
            "tree",
            "deploy/nothing-here",
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 1, "a missing target is the verdict NotFound: {err}");
    let (code, _, err) = run(&["--now", "2026-01-01T00:00:00Z", "status"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--now only applies to --snapshot"), "{err}");
}

#[test]
fn text_is_cut_to_a_fixed_terminal_width() {
    use kubectl_reconcile::pipeline::{self, Judged, Style, TargetSpec, TreeReport, tree};

    let snap = pipeline::load_snapshot(
        common::root().join(SHOP).to_str().unwrap(),
        None,
        pipeline::MAX_SNAPSHOT_BYTES,
    )
    .unwrap();
    let targets = pipeline::resolve(
        &snap,
        &[TargetSpec::Name {
            type_: "deploy".into(),
            name: "web".into(),
        }],
        Some("shop"),
        None,
    )
    .unwrap();
    let report = TreeReport::build(&Judged::builtin(&snap), &targets, false);
    let opts = tree::TreeOptions {
        style: Style { color: false },
        width: Some(100),
        all: false,
        now: snap.now,
        no_headers: false,
        all_namespaces: false,
        labels: None,
    };
    let text = tree::render(&report, &opts);
    assert!(
        text.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 100),
        "{text}"
    );
    golden("tree-web-width-100.txt", &text);
    let colored = tree::render(
        &report,
        &tree::TreeOptions {
            style: Style { color: true },
            ..opts
        },
    );
    assert!(colored.contains("\u{1b}["), "colour when asked for");
}

#[test]
fn why_offline_gives_the_same_diagnosis() {
    let (code, out, err) = run(
        &["--snapshot", SHOP, "-n", "shop", "why", "deploy/web"],
        None,
    );
    assert_eq!(code, 1, "{err}");
    golden("why-web.txt", &out);
    let (code, json, _) = run(&["--snapshot", SHOP, "why", "-o", "json"], None);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["kind"], "WhyReport");
    let roots: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        roots,
        vec!["web", "migrate"],
        "the failing roots, most severe first, then by kind (Deployment before Job) and name"
    );
    for key in [
        "rootCause",
        "chain",
        "conditions",
        "events",
        "generationCheck",
        "nextSteps",
    ] {
        assert!(
            doc["items"][0].get(key).is_some(),
            "{key} in {}",
            doc["items"][0]
        );
    }
}

#[test]
fn colour_only_when_asked_for_off_a_terminal() {
    let (_, always, _) = run(
        &[
            "--snapshot",
            SHOP,
            "-n",
            "shop",
            "status",
            "--color",
            "always",
        ],
        None,
    );
    assert!(
        always.contains("\u{1b}["),
        "--color always colours even a pipe"
    );
    let (_, auto, _) = run(&["--snapshot", SHOP, "-n", "shop", "status"], None);
    assert!(!auto.contains('\u{1b}'), "auto: no colour on a pipe");
    assert_eq!(
        always.lines().count(),
        auto.lines().count(),
        "the same lines with and without colour"
    );
}

/// What `kubectl create deployment web --image=... --dry-run=client -o yaml`
/// and `kubectl create service clusterip web --tcp=80 --dry-run=client -o
/// yaml` print: no uid, no creationTimestamp, empty status.
const DRY_RUN: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  creationTimestamp: null
  labels:
    app: web
  name: web
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  strategy: {}
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: web
    spec:
      containers:
      - image: example.com/web:v1
        name: web
        resources: {}
status: {}
---
apiVersion: v1
kind: Service
metadata:
  creationTimestamp: null
  labels:
    app: web
  name: web
  namespace: shop
spec:
  ports:
  - name: "80"
    port: 80
    protocol: TCP
    targetPort: 80
  selector:
    app: web
  type: ClusterIP
status:
  loadBalancer: {}
"#;

#[test]
fn manifests_without_uids_are_judged_not_crashed_on() {
    for command in [
        &["status", "deploy/web"][..],
        &["tree", "deploy/web"][..],
        &["status"][..],
    ] {
        let mut args = vec!["--snapshot", "-", "-n", "shop"];
        args.extend_from_slice(command);
        let (code, out, err) = run(&args, Some(DRY_RUN));
        assert_eq!(code, 1, "{command:?}: {out}{err}");
        assert!(
            out.contains("Progressing") && out.contains("waiting for its controller"),
            "{command:?}: {out}"
        );
    }
    // JSON does not invent a server uid for them.
    let (_, json, err) = run(
        &[
            "--snapshot",
            "-",
            "-n",
            "shop",
            "status",
            "deploy/web",
            "-o",
            "json",
        ],
        Some(DRY_RUN),
    );
    let doc: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(doc["items"][0]["object"]["name"], "web");
    assert!(doc["items"][0]["object"].get("uid").is_none(), "{doc}");
}

/// A failing Deployment written out without its uid (`helm template`, a
/// hand-edited file) is still judged by its status, by `why` as well.
#[test]
fn why_reads_the_status_of_an_object_without_a_uid() {
    let failing = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  generation: 1
  creationTimestamp: "2026-11-29T22:00:00Z"
spec:
  replicas: 1
  progressDeadlineSeconds: 60
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: example.com/web:v1}]}
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  unavailableReplicas: 1
  conditions:
  - type: Progressing
    status: "False"
    reason: ProgressDeadlineExceeded
    message: ReplicaSet "web-5d8c7b9f4" has timed out progressing.
    lastTransitionTime: "2026-11-29T22:01:00Z"
"#;
    let (code, out, err) = run(
        &["--snapshot", "-", "-n", "shop", "why", "deploy/web"],
        Some(failing),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("ProgressDeadlineExceeded"), "{out}");
    assert!(!out.contains("Converged"), "{out}");
}

/// Two different objects that share a uid (a copied manifest) are both
/// judged; neither is silently dropped.
#[test]
fn a_shared_uid_does_not_hide_an_object() {
    let two = r#"apiVersion: v1
kind: ServiceAccount
metadata: {name: a, namespace: shop, uid: same-uid}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: b, namespace: shop, uid: same-uid}
"#;
    let (code, json, err) = run(
        &[
            "--snapshot",
            "-",
            "-n",
            "shop",
            "status",
            "serviceaccounts",
            "-o",
            "json",
        ],
        Some(two),
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"], "{doc}");
}

/// Findings beside a verdict: a ReplicaSet nothing owns, a
/// PodDisruptionBudget that allows no disruption.
#[test]
fn why_names_orphans_and_budgets_that_block_drains() {
    let snap = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8c7b9f4, namespace: shop, uid: rs-1, generation: 1, creationTimestamp: "2026-11-29T22:00:00Z"}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: example.com/web:v1}]}
status: {replicas: 0, observedGeneration: 1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop, uid: pdb-1, generation: 1, creationTimestamp: "2026-11-29T22:00:00Z"}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
status: {currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0, expectedPods: 2, observedGeneration: 1}
"#;
    for (target, want) in [
        ("rs/web-5d8c7b9f4", "NoOwner"),
        ("pdb/web", "DisruptionsBlocked"),
    ] {
        let (code, json, err) = run(
            &["--snapshot", "-", "-n", "shop", "why", target, "-o", "json"],
            Some(snap),
        );
        assert_eq!(code, 0, "{target} is converged: {err}");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        let reasons: Vec<&str> = doc["items"][0]["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("no findings: {doc}"))
            .iter()
            .map(|f| f["reason"].as_str().unwrap())
            .collect();
        assert_eq!(reasons, [want], "{target}: {doc}");
    }
}

/// `rules` over a snapshot that carries CRDs says, for each kind, which
/// printer columns and enums speak for it where nothing else reads its
/// status; the object is judged by them.
#[test]
fn rules_and_status_read_a_snapshots_crds() {
    let snapshot = r#"apiVersion: v1
kind: List
items:
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: appliances.example.io, uid: crd}
  spec:
    group: example.io
    names: {kind: Appliance, plural: appliances, singular: appliance}
    scope: Namespaced
    versions:
    - name: v1
      served: true
      storage: true
      additionalPrinterColumns:
      - {name: Lifecycle, type: string, jsonPath: .status.summary.text}
      - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            status:
              type: object
              properties:
                stage: {type: string, enum: [Queued, Provisioning, Ready, Failed]}
- apiVersion: example.io/v1
  kind: Appliance
  metadata: {name: a, namespace: shop, uid: a, generation: 1, creationTimestamp: "2026-01-10T10:00:00Z"}
  status: {stage: Failed}
"#;
    let (code, out, err) = run(&["--snapshot", "-", "rules"], Some(snapshot));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "Appliance.example.io: column Lifecycle (.status.summary.text), enum status.stage"
        ),
        "{out}"
    );
    let (code, out, _) = run(
        &["--snapshot", "-", "-n", "shop", "status", "appliances/a"],
        Some(snapshot),
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("status.stage (an enum of the CRD) is Failed"),
        "{out}"
    );
}

#[test]
fn a_snapshot_without_the_tree_of_a_target_replays_as_incomplete() {
    // A capture of a sweep holds the roots only: the Deployment, whose
    // status counts 2 replicas, and none of its ReplicaSets or pods. Its
    // tree is not all clear; it is not there.
    let text = std::fs::read_to_string(common::root().join(SHOP)).unwrap();
    // The List's items, each starting `- apiVersion:`, less the owned ones.
    let mut items = text.split("\n- apiVersion:");
    let head = items.next().unwrap();
    let kept: Vec<&str> = items
        .filter(|item| {
            !item.contains("\n  kind: ReplicaSet\n") && !item.contains("\n  kind: Pod\n")
        })
        .collect();
    let roots_only = format!("{head}\n- apiVersion:{}", kept.join("\n- apiVersion:"));
    let (code, out, err) = run(
        &["--snapshot", "-", "-n", "shop", "tree", "deploy/api"],
        Some(&roots_only),
    );
    assert_eq!(code, 1, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("the tree below Deployment/api")
            && all.contains("though its status counts 2 below it"),
        "{all}"
    );
    assert!(!all.contains("is converged"), "{all}");
    // With the tree in the snapshot, the same question is all clear.
    let (code, _, err) = run(
        &["--snapshot", SHOP, "-n", "shop", "tree", "deploy/api"],
        None,
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn rules_of_a_kind_print_its_rules_only() {
    // The whole table without a type; one kind's rules with one.
    let (code, all, err) = run(&["--snapshot", SHOP, "rules"], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        all.contains(" builtin (flux)") && all.contains(" builtin (cert-manager)"),
        "{all}"
    );
    // A snapshot that holds the kind asked for.
    let crd = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: certificates.cert-manager.io, uid: crd}
spec:
  group: cert-manager.io
  names: {kind: Certificate, plural: certificates, singular: certificate}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true}]
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: shop, uid: c}
spec: {secretName: web-tls}
"#;
    let (code, one, err) = run(
        &["--snapshot", "-", "rules", "certificates.cert-manager.io"],
        Some(crd),
    );
    assert_eq!(code, 0, "{err}");
    let table: Vec<&str> = one.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(table.len(), 2, "{one}");
    assert!(table[0].starts_with("GROUP "), "{one}");
    assert!(
        table[1].starts_with("cert-manager.io ")
            && table[1].contains(" Certificate ")
            && table[1].ends_with(" builtin (cert-manager)"),
        "{one}"
    );
    // A kind no rule covers says so, and what judges it.
    let (code, none, _) = run(&["--snapshot", SHOP, "rules", "deploy"], None);
    assert_eq!(code, 0);
    assert!(
        none.starts_with("No health rule of the pack or yours covers these kinds.")
            && none.contains("Deployment: a kind of Kubernetes' own"),
        "{none}"
    );
}
