//! End-to-end tests of `why` following a failure to the object that holds
//! its cause, on the real control plane: the workload behind a Service, a
//! named port no container declares, the class a pod asks for.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Namespace, wait_until};

/// `why TARGET -o json` until `ready` holds; its first item.
fn why_until(
    ns: &Namespace,
    target: &str,
    what: &str,
    ready: impl Fn(&Value) -> bool,
) -> (i32, Value) {
    let (code, doc) = support::why_until(ns, target, what, ready);
    (code, doc["items"][0].clone())
}

/// The finding of this reason that `why TARGET` comes to give.
fn why_finding(ns: &Namespace, target: &str, reason: &str) -> Value {
    let find = |i: &Value| {
        i["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["reason"] == reason))
            .cloned()
    };
    let (_, item) = why_until(ns, target, &format!("a {reason} finding"), |i| {
        find(i).is_some()
    });
    find(&item).unwrap()
}

fn root_reason(item: &Value) -> &str {
    item["rootCause"]["reason"].as_str().unwrap_or("")
}

fn steps(item: &Value) -> String {
    item["nextSteps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let commands: Vec<&str> = s["commands"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "{}\n{}",
                s["text"].as_str().unwrap_or(""),
                commands.join("\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn service(name: &str, selector: &str, target_port: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\nspec:\n  selector: {{app: {selector}}}\n  ports: [{{port: 80, targetPort: {target_port}}}]\n"
    )
}

#[test]
fn a_service_behind_a_deployment_scaled_to_zero_names_it() {
    let ns = Namespace::new("cause-scaled");
    ns.apply(&support::deployment("web", 0, "", "", "", ""));
    ns.apply(&service("web", "web", "8080"));
    let (code, item) = why_until(&ns, "svc/web", "scaled to zero", |i| {
        root_reason(i) == "ScaledToZero"
    });
    assert_eq!(code, 1);
    assert_eq!(
        item["rootCause"]["message"],
        "no pods to route to: Deployment/web is scaled to 0 replicas (selector app=web)"
    );
    let text = steps(&item);
    assert!(
        text.contains(&format!(
            "kubectl -n {} scale deployment/web --replicas=1",
            ns.name
        )),
        "{text}"
    );
    assert!(!text.contains("fix spec.selector"), "{text}");

    // Scaled up, it converges.
    ns.kubectl(&["scale", "deployment/web", "--replicas=1"])
        .ok();
    let (code, item) = why_until(&ns, "svc/web", "endpoints ready", |i| {
        i["verdict"] == "Converged"
    });
    assert_eq!((code, item["reason"].as_str()), (0, Some("EndpointsReady")));
}

#[test]
fn a_named_target_port_no_container_declares_is_failed() {
    let ns = Namespace::new("cause-port");
    ns.apply(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers: [{name: app, image: example.com/api:1, ports: [{name: web, containerPort: 8080}]}]\n",
    );
    ns.apply(&service("api", "api", "http"));
    let (code, item) = why_until(&ns, "svc/api", "named port", |i| {
        i["reason"] == "NamedPortNotFound"
    });
    assert_eq!((code, item["verdict"].as_str()), (1, Some("Failed")));
    assert_eq!(
        item["message"],
        "port 80 targets port \"http\" by name, which no container of its pods declares (its pods' containers declare \"web\"): traffic to it fails"
    );
    // The sweep judges it too.
    let status = ns.reconcile(&["status", "-o", "json"]);
    assert_eq!(status.code, 1, "{}", status.stdout);
    let svc = status.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["object"]["kind"] == "Service")
        .cloned()
        .unwrap();
    assert_eq!(svc["reason"], "NamedPortNotFound", "{svc:#}");
}

#[test]
fn a_missing_priority_class_names_the_class() {
    let ns = Namespace::new("cause-class");
    ns.apply(&support::deployment("pc", 1, "", "", "", "").replace(
        "    spec:\n      containers",
        "    spec:\n      priorityClassName: nosuch-priority\n      containers",
    ));
    let (code, item) = why_until(&ns, "deploy/pc", "refused pods", |i| {
        root_reason(i) == "FailedCreate"
    });
    assert_eq!(code, 1);
    let text = steps(&item);
    assert!(
        text.contains("ask for PriorityClass \"nosuch-priority\", which does not exist")
            && text.contains("kubectl get priorityclasses"),
        "{text}"
    );
}

#[test]
fn a_statefulset_whose_governing_service_is_missing() {
    let ns = Namespace::new("cause-governing");
    ns.apply(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 1\n  serviceName: db-headless\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: db, image: example.com/db:1}]\n",
    );
    let (code, item) = why_until(&ns, "sts/db", "the missing Service", |i| {
        root_reason(i) == "NotFound"
    });
    assert_eq!(code, 1);
    let cause = &item["rootCause"]["objects"][0];
    assert_eq!(
        (cause["kind"].as_str(), cause["name"].as_str()),
        (Some("Service"), Some("db-headless"))
    );
    let text = steps(&item);
    assert!(
        text.contains("as its governing Service (spec.serviceName), which does not exist")
            && text.contains("create service clusterip db-headless --clusterip=None"),
        "{text}"
    );
    // With the Service, nothing is left to say.
    ns.apply("apiVersion: v1\nkind: Service\nmetadata: {name: db-headless}\nspec:\n  clusterIP: None\n  selector: {app: db}\n");
    let (code, item) = why_until(&ns, "sts/db", "converged", |i| i["rootCause"].is_null());
    assert_eq!(
        (code, item["verdict"].as_str()),
        (0, Some("Converged")),
        "{item:#}"
    );
}

/// An operator stopped for one test where it was running, and started
/// again when the test ends.
struct StoppedWhileHere(bool);

fn operator(action: &str) -> std::process::Output {
    std::process::Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cluster/operator"
    ))
    .args(["external-secrets", action])
    .output()
    .unwrap()
}

impl StoppedWhileHere {
    fn external_secrets() -> StoppedWhileHere {
        let running = String::from_utf8_lossy(&operator("status").stdout).trim() != "stopped";
        if running {
            assert!(
                operator("stop").status.success(),
                "operator external-secrets stop"
            );
        }
        StoppedWhileHere(running)
    }
}

impl Drop for StoppedWhileHere {
    fn drop(&mut self) {
        if self.0 {
            let _ = operator("start");
        }
    }
}

#[test]
fn a_missing_secret_leads_to_its_failing_external_secret() {
    // The status below is written as External Secrets Operator would: the
    // real one, where a test of its own left it running, would write its
    // own over it. It is stopped for this test, and started again after,
    // so that no later test finds its Lease down.
    let _eso = StoppedWhileHere::external_secrets();
    support::install_crd(
        "externalsecrets",
        "ExternalSecret",
        "external-secrets.io",
        "",
        "",
    );
    let ns = Namespace::new("cause-producer");
    ns.apply(
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: billing}\nspec:\n  refreshInterval: 1h\n  secretStoreRef: {name: vault, kind: SecretStore}\n  target: {name: billing-db, creationPolicy: Owner}\n  data: [{secretKey: password, remoteRef: {key: billing/db}}]\n",
    );
    // As External Secrets Operator reports a store it cannot read.
    ns.kubectl(&[
        "patch",
        "externalsecret.external-secrets.io/billing",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[{"type":"Ready","status":"False","reason":"SecretSyncedError","message":"could not get secret data from provider","lastTransitionTime":"2026-12-01T00:00:00Z"}]}}"#,
    ])
    .ok();
    ns.apply(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: billing}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: billing}}\n  template:\n    metadata:\n      labels: {app: billing, reconcile.test/failure: config-error}\n      annotations: {reconcile.test/message: 'secret \"billing-db\" not found'}\n    spec:\n      containers: [{name: app, image: example.com/billing:1, envFrom: [{secretRef: {name: billing-db}}]}]\n",
    );
    // Where External Secrets Operator's own CRDs are installed (its e2e
    // tests install them), SecretStore is served too, and the cause goes
    // one step further: the store the ExternalSecret names is missing.
    let store_served =
        support::kubectl(&["get", "crd", "secretstores.external-secrets.io"]).code == 0;
    let want = if store_served {
        "SecretStore"
    } else {
        "ExternalSecret"
    };
    let (code, item) = why_until(
        &ns,
        "deploy/billing",
        "the ExternalSecret (or its missing store) as the cause",
        |i| i["rootCause"]["objects"][0]["kind"] == want,
    );
    assert_eq!(code, 1);
    let mut want_path = vec![
        "- Deployment",
        "owns ReplicaSet",
        "owns Pod",
        "uses Secret",
        "made-by ExternalSecret",
    ];
    if store_served {
        assert_eq!(root_reason(&item), "NotFound");
        want_path.push("uses SecretStore");
    } else {
        assert_eq!(root_reason(&item), "SecretSyncedError");
    }
    let path: Vec<String> = item["chain"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| {
            Some(format!(
                "{} {}",
                l["edge"].as_str().unwrap_or("-"),
                l["object"]["kind"].as_str()?
            ))
        })
        .collect();
    assert_eq!(path, want_path, "{item:#}");
    let text = steps(&item);
    let said = if store_served {
        "ExternalSecret/billing refers to SecretStore \"vault\", which does not exist"
    } else {
        "Secret \"billing-db\" is missing because ExternalSecret/billing, which makes it, is Failed (SecretSyncedError)"
    };
    assert!(text.contains(said), "{text}");
    let tree = ns.reconcile(&["tree", "deploy/billing"]);
    assert!(
        tree.stdout.contains("[made-by] ExternalSecret/billing"),
        "{}",
        tree.stdout
    );

    // A discovery cache written before External Secrets was installed (its
    // types absent, and an ETag the server no longer has): the maker's kind
    // is not taken to be unserved; discovery is revalidated, and the cause
    // is the same.
    let cache = std::env::temp_dir().join(format!("reconcile-catalog-{}", ns.name));
    let cache_flag = cache.display().to_string();
    let why = |args: &[&str]| {
        let mut all = vec!["--cache-dir", cache_flag.as_str()];
        all.extend_from_slice(args);
        ns.reconcile(&all)
    };
    assert_eq!(why(&["why", "deploy/billing"]).code, 1);
    let file = kubectl_reconcile::app::cache_path(
        &cache,
        &support::server_authority(&support::cluster().kubeconfig),
    );
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let groups = &mut doc["groups"];
    groups["etag"] = "\"written-before-the-crd\"".into();
    groups["catalog"]["types"]
        .as_array_mut()
        .expect("the cache holds the /apis document's types")
        .retain(|t| t["group"] != "external-secrets.io");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let stale = why(&["why", "deploy/billing", "-o", "json", "-v", "6"]);
    let item = &stale.json()["items"][0];
    assert_eq!(
        item["rootCause"]["objects"][0]["kind"], want,
        "{item:#}\n{}",
        stale.stderr
    );
    assert!(
        stale.stderr.contains("/apis 200"),
        "discovery revalidated: {}",
        stale.stderr
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_key_the_config_map_lacks_is_named_with_its_near_miss_from_key_names_only() {
    let ns = Namespace::new("cause-key");
    // Written by kubectl as a user would: the keys are in each writer's
    // managedFields; a value the answer must never hold is planted.
    ns.kubectl(&[
        "create",
        "configmap",
        "app-config",
        "--from-literal=log_level=key-marker-5d1c",
        "--from-literal=port=8080",
    ])
    .ok();
    ns.kubectl(&[
        "create",
        "secret",
        "generic",
        "app-db",
        "--from-literal=db-password=key-marker-5d1c",
    ])
    .ok();
    let deployment = |name: &str, env: &str, message: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata:\n      labels: {{app: {name}, reconcile.test/failure: config-error}}\n      annotations: {{reconcile.test/message: \"{message}\"}}\n    spec:\n      containers: [{{name: app, image: example.com/app:1, env: [{env}]}}]\n"
        )
    };
    ns.apply(&deployment(
        "web",
        "{name: LOG_LEVEL, valueFrom: {configMapKeyRef: {name: app-config, key: LOG_LEVEL}}}",
        &format!(
            "couldn't find key LOG_LEVEL in ConfigMap {}/app-config",
            ns.name
        ),
    ));
    ns.apply(&deployment(
        "db",
        "{name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: app-db, key: password}}}",
        &format!("couldn't find key password in Secret {}/app-db", ns.name),
    ));
    let (code, item) = why_until(&ns, "deploy/web", "the config error", |i| {
        root_reason(i) == "CreateContainerConfigError"
    });
    assert_eq!(code, 1);
    let findings = item["findings"].to_string();
    assert!(
        findings.contains("env LOG_LEVEL of container app asks ConfigMap app-config for key LOG_LEVEL, which it does not have; did you mean log_level?"),
        "{item:#}"
    );
    let text = steps(&item);
    assert!(
        text.contains("Container app waits for key LOG_LEVEL of ConfigMap app-config (env LOG_LEVEL), which it does not have: it has log_level, a near miss: ask for log_level in the container's env (in Deployment web)"),
        "{text}"
    );
    // The step's command lists the map's keys, and no value.
    let list = item["nextSteps"][0]["commands"][0].as_str().unwrap();
    let listed = std::process::Command::new("sh")
        .args(["-c", list])
        .env("KUBECONFIG", &support::cluster().kubeconfig)
        .output()
        .unwrap();
    assert!(listed.status.success(), "{list}: {listed:?}");
    let out = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["log_level", "port"],
        "{list}"
    );

    // A Secret's key with no near miss: its keys are listed, by name.
    let (_, item) = why_until(&ns, "deploy/db", "the secret's key", |i| {
        i["findings"].to_string().contains("app-db")
    });
    assert!(
        item["findings"].to_string().contains(
            "env DB_PASSWORD of container app asks Secret app-db for key password, which it does not have; its keys: db-password"
        ),
        "{item:#}"
    );
    assert!(!item.to_string().contains("key-marker-5d1c"));
    // A capture keeps the key names (and no value), and replays the same.
    let capture = support::replays_the_same(&ns, &[], &["deploy/web"]);
    assert!(
        capture.contains("f:log_level") && !capture.contains("key-marker-5d1c"),
        "{capture}"
    );
}

/// A kwok node with a taint, for as long as the test runs.
struct TaintedNode(&'static str);

impl TaintedNode {
    fn new(name: &'static str) -> TaintedNode {
        support::kubectl_as(
            &support::cluster().kubeconfig,
            &["apply", "-f", "-"],
            Some(&format!(
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  annotations: {{kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: \"0\"}}\n  labels: {{type: kwok, kubernetes.io/hostname: {name}, pool: {name}}}\nspec:\n  taints: [{{key: dedicated, value: {name}, effect: NoSchedule}}]\nstatus:\n  allocatable: {{cpu: \"8\", memory: 32Gi, pods: \"100\"}}\n  capacity: {{cpu: \"8\", memory: 32Gi, pods: \"100\"}}\n"
            )),
        )
        .ok();
        TaintedNode(name)
    }
}

impl Drop for TaintedNode {
    fn drop(&mut self) {
        support::kubectl(&["delete", "node", self.0, "--wait=false"]);
    }
}

#[test]
fn an_unschedulable_pod_names_the_constraint_that_blocks_it() {
    let node = TaintedNode::new("kwok-causes-tainted");
    let ns = Namespace::new("cause-sched");
    let pod = |name: &str, spec: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{spec}  containers: [{{name: app, image: example.com/app:1{}}}]\n",
            if name == "big" {
                ", resources: {requests: {cpu: \"64\"}}"
            } else {
                ""
            }
        )
    };
    ns.apply(&pod("selector", "  nodeSelector: {disktype: ssd}\n"));
    ns.apply(&pod(
        "taint",
        &format!("  nodeSelector: {{pool: {}}}\n", node.0),
    ));
    ns.apply(&pod("big", ""));
    ns.apply(&pod(
        "zone",
        "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [eu-1a]}]}]}}}\n",
    ));
    let expected = [
        ("selector", "nodeSelector disktype=ssd matches no node: no node has the label disktype".to_string()),
        (
            "taint",
            format!(
                "a taint the pod does not tolerate: dedicated={0}:NoSchedule (on {0})",
                node.0
            ),
        ),
        ("big", "it requests cpu 64, more than any node can give: 64 > 32".to_string()),
        (
            "zone",
            "required node affinity topology.kubernetes.io/zone In [eu-1a] matches no node: no node has the label topology.kubernetes.io/zone".to_string(),
        ),
    ];
    for (name, phrase) in expected {
        let (code, item) = why_until(&ns, &format!("pod/{name}"), "unschedulable", |i| {
            root_reason(i) == "Unschedulable" && steps(i).contains(phrase.as_str())
        });
        assert_eq!(code, 1, "{name}");
        assert!(
            item["nextSteps"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("No node can run the pod: ")
        );
    }

    // Anti-affinity: three replicas that may not share a node, two nodes.
    ns.apply("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: spread}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: spread}}\n  template:\n    metadata: {labels: {app: spread}}\n    spec:\n      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: spread}}}]}}\n      containers: [{name: app, image: example.com/app:1}]\n");
    let (code, item) = why_until(&ns, "deploy/spread", "anti-affinity", |i| {
        steps(i).contains("required pod anti-affinity (topologyKey kubernetes.io/hostname, pods app=spread): each of the 2 node(s) it may run on already runs such a pod")
    });
    assert_eq!(code, 1);
    assert!(steps(&item).contains(&format!(
        "kubectl -n {} get pods -l app=spread -o wide",
        ns.name
    )));

    // As a user who may not read nodes: the scheduler's counts and the spec.
    let view = support::cluster().view_kubeconfig.clone();
    let run = support::reconcile_as(
        &view,
        &["why", "-n", &ns.name, "pod/selector", "-o", "json"],
    );
    assert_eq!(run.code, 1);
    let item = run.json()["items"][0].clone();
    assert!(
        steps(&item).contains(
            "do not match its nodeSelector disktype=ssd (the nodes could not be read to say more)"
        ),
        "{}",
        steps(&item)
    );
}

#[test]
fn a_failed_job_deleted_by_its_ttl_is_still_reported() {
    let ns = Namespace::new("cause-ttl");
    ns.apply("apiVersion: batch/v1\nkind: Job\nmetadata: {name: seed-data}\nspec:\n  backoffLimit: 0\n  ttlSecondsAfterFinished: 0\n  template:\n    metadata: {labels: {reconcile.test/failure: job-fail}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: seed, image: example.com/seed:1}]\n");
    wait_until(
        "the job fails and is deleted",
        Duration::from_secs(90),
        || {
            ns.kubectl(&[
                "get",
                "events",
                "--field-selector",
                "reason=BackoffLimitExceeded",
                "-o",
                "name",
            ])
            .stdout
            .contains("event")
                && ns.kubectl(&["get", "job", "seed-data"]).code != 0
        },
    );
    // The sweep does not call the namespace converged.
    let why = ns.reconcile(&["why", "-o", "json"]);
    assert_eq!(why.code, 1, "{}", why.stdout);
    let item = why.json()["items"][0].clone();
    assert_eq!(
        (
            item["object"]["name"].as_str(),
            item["verdict"].as_str(),
            item["reason"].as_str()
        ),
        (
            Some("seed-data"),
            Some("Failed"),
            Some("BackoffLimitExceeded")
        ),
        "{item:#}"
    );
    assert!(
        item["message"]
            .as_str()
            .unwrap()
            .contains("has been deleted"),
        "{item:#}"
    );
    let status = ns.reconcile(&["status"]);
    assert_eq!(status.code, 1, "{}", status.stdout);
    assert!(
        status.stdout.contains("Job/seed-data") && status.stdout.contains("BackoffLimitExceeded"),
        "{}",
        status.stdout
    );

    // `why` on the name says what its events say.
    let target = ns.reconcile(&["why", "job/seed-data"]);
    assert_eq!(target.code, 1);
    assert!(
        target.stdout.contains(
            "; it failed (BackoffLimitExceeded: Job has reached the specified backoff limit)"
        ) && target
            .stdout
            .contains("Job seed-data failed and was deleted"),
        "{}",
        target.stdout
    );
    assert!(
        !target.stdout.contains("Check the name and namespace"),
        "{}",
        target.stdout
    );

    // `wait` on it fails at once with the same finding, not at its timeout.
    let started = std::time::Instant::now();
    let wait = ns.reconcile(&["wait", "job/seed-data", "--timeout", "60s"]);
    assert_eq!(wait.code, 1, "{}\n{}", wait.stdout, wait.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(
        wait.stderr
            .contains("error: Job/seed-data failed and was deleted")
            && wait.stdout.contains("Job seed-data failed and was deleted"),
        "{}\n{}",
        wait.stderr,
        wait.stdout
    );
}

#[test]
fn a_first_consumer_claim_with_no_volume_is_the_cause_not_a_cycle() {
    let class = "causes-local";
    support::kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {class}}}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
        )),
    )
    .ok();
    let ns = Namespace::new("cause-wffc");
    ns.apply(&format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec:\n      containers: [{{name: db, image: example.com/db:1}}]\n  volumeClaimTemplates:\n  - metadata: {{name: data}}\n    spec: {{accessModes: [ReadWriteOnce], storageClassName: {class}, resources: {{requests: {{storage: 10Gi}}}}}}\n"
    ));
    let (code, item) = why_until(&ns, "sts/db", "no matching volume", |i| {
        root_reason(i) == "NoMatchingVolume"
    });
    support::kubectl(&["delete", "storageclass", class, "--wait=false"]);
    assert_eq!(code, 1);
    assert_eq!(
        item["rootCause"]["objects"][0]["kind"],
        "PersistentVolumeClaim"
    );
    assert_eq!(
        item["rootCause"]["message"],
        format!(
            "no PersistentVolume matches it (class {class}, 10Gi, ReadWriteOnce) on any node pod db-0 may run on; class {class} has no provisioner (kubernetes.io/no-provisioner), so such a volume must be created by hand"
        )
    );
    assert!(
        steps(&item).starts_with("Nothing provisions volumes for the claim's class"),
        "{}",
        steps(&item)
    );
}

#[test]
fn a_resource_whose_operator_stopped_names_the_operator() {
    support::install_crd("caches", "Cache", "cache.reconcile.test", "", "");
    let op = Namespace::new("cause-operator-system");
    // The operator: a Deployment whose pod crash-loops, and the Lease its
    // leader election held, last renewed a minute ago.
    op.apply(&support::deployment(
        "cache-operator",
        1,
        "",
        ", reconcile.test/failure: crash-loop",
        "",
        "",
    ));
    let mut pod = String::new();
    wait_until("the operator's pod", Duration::from_secs(60), || {
        // `[*]`: the list may still be empty, where `[0]` is an error.
        let names = op.jsonpath("pods", "{.items[*].metadata.name}");
        pod = names
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string();
        !pod.is_empty()
    });
    op.apply(&format!(
        "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {{name: 5b7c2f1e.reconcile.test}}\nspec:\n  holderIdentity: {pod}_5e1f9a70-3b1c-4c1e-9d0a-2f7f3f1b8c11\n  leaseDurationSeconds: 15\n  acquireTime: \"2026-01-01T00:00:00.000000Z\"\n  renewTime: \"2026-01-01T00:00:00.000000Z\"\n"
    ));
    let ns = Namespace::new("cause-operator");
    ns.apply("apiVersion: cache.reconcile.test/v1\nkind: Cache\nmetadata: {name: sessions}\nspec: {size: 1}\n");
    // What the operator wrote while it ran: status, under its field manager.
    ns.kubectl(&[
        "patch",
        "cache.cache.reconcile.test/sessions",
        "--subresource=status",
        "--type=merge",
        "--field-manager=cache-operator",
        "-p",
        r#"{"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Reconciled","message":"1 replica","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}"#,
    ])
    .ok();
    // Then the spec changes, and nothing observes it.
    ns.kubectl(&[
        "patch",
        "cache.cache.reconcile.test/sessions",
        "--type=merge",
        "-p",
        r#"{"spec":{"size":3}}"#,
    ])
    .ok();
    let (code, item) = why_until(
        &ns,
        "cache.cache.reconcile.test/sessions",
        "the operator named",
        |i| root_reason(i) == "ControllerDown",
    );
    assert_eq!(code, 1);
    let cause = &item["rootCause"]["objects"][0];
    assert_eq!(
        (cause["kind"].as_str(), cause["name"].as_str()),
        (Some("Deployment"), Some("cache-operator"))
    );
    let c = &item["controller"];
    assert_eq!(
        (c["expired"].as_bool(), c["manager"].as_str()),
        (Some(true), Some("cache-operator")),
        "{c:#}"
    );
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("held by {pod}_5e1f9a70-3b1c-4c1e-9d0a-2f7f3f1b8c11: pod {pod} of Deployment/cache-operator")),
        "{summary}"
    );
    assert!(
        summary.contains("ends in the group's domain reconcile.test"),
        "{summary}"
    );
    assert!(
        steps(&item).contains(&format!(
            "kubectl -n {} logs deployment/cache-operator --previous",
            op.name
        )),
        "{}",
        steps(&item)
    );
    // A capture holds the operator's Lease, its workload and pod, and
    // replays the same answer.
    let capture = support::replays_the_same(&ns, &[], &["cache.cache.reconcile.test/sessions"]);
    assert!(capture.contains("5b7c2f1e.reconcile.test"), "{capture}");

    // `controllers` lists it as down, and exits 1.
    let run = ns.reconcile(&["controllers", "-n", &op.name, "-o", "json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    // The check of the operator's Lease in a `controllers -o json` answer.
    let check_of = |doc: &serde_json::Value| {
        doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["lease"]["name"] == "5b7c2f1e.reconcile.test")
            .cloned()
            .unwrap_or_else(|| panic!("{doc:#}"))
    };
    let doc = run.json();
    assert_eq!(doc["kind"], "ControllersReport");
    let ours = check_of(&doc);
    assert_eq!(
        (ours["down"].as_bool(), ours["expired"].as_bool()),
        (Some(true), Some(true)),
        "{ours:#}"
    );
    assert_eq!(ours["workload"]["name"], "cache-operator", "{ours:#}");
    let table = ns.reconcile(&["controllers", "-n", &op.name]);
    assert_eq!(table.code, 1);
    assert!(
        table.stdout.starts_with("LEASE")
            && table
                .stdout
                .contains(&format!("{}/5b7c2f1e.reconcile.test  Down", op.name)),
        "{}",
        table.stdout
    );
    // Scaled to 0, the holder pod is gone: `controllers` still names the
    // workload `why` names, by its name.
    op.kubectl(&["scale", "deployment/cache-operator", "--replicas=0"])
        .ok();
    wait_until("the operator's pod gone", Duration::from_secs(60), || {
        op.jsonpath("pods", "{.items[*].metadata.name}")
            .trim()
            .is_empty()
    });
    let run = ns.reconcile(&["controllers", "-n", &op.name, "-o", "json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let ours = check_of(&run.json());
    assert_eq!(ours["workload"]["name"], "cache-operator", "{ours:#}");
    assert!(
        ours["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("that pod is gone"),
        "{ours:#}"
    );
}

#[test]
fn a_workload_names_the_gitops_object_that_applies_it() {
    support::install_crd(
        "kustomizations",
        "Kustomization",
        "kustomize.toolkit.fluxcd.io",
        "",
        "",
    );
    let flux = Namespace::new("cause-flux");
    flux.apply("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps}\nspec: {suspend: true, interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: fleet}}\n");
    let ns = Namespace::new("cause-managed");
    ns.apply(&support::deployment("web", 1, "", "", "", "").replacen(
        "metadata: {name: web}",
        &format!("metadata:\n  name: web\n  labels: {{kustomize.toolkit.fluxcd.io/name: apps, kustomize.toolkit.fluxcd.io/namespace: {}}}", flux.name),
        1,
    ));
    let f = why_finding(&ns, "deploy/web", "ManagedBy");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "Deployment/web is applied by Kustomization {}/apps (label kustomize.toolkit.fluxcd.io/name) from GitRepository/fleet, which is Suspended",
            flux.name
        )),
        "{message}"
    );
    // Upward in the tree: the pod's owners, and above them the manager.
    let run = ns.reconcile(&["tree", "pods", "-l", "app=web", "--owners", "-o", "json"]);
    let owners = run.json()["items"][0]["owners"].clone();
    let top = &owners[0];
    assert_eq!(
        (
            top["state"].as_str(),
            top["object"]["kind"].as_str(),
            top["verdict"].as_str()
        ),
        (Some("manager"), Some("Kustomization"), Some("Suspended")),
        "{owners:#}"
    );
    assert_eq!(owners[1]["object"]["kind"], "Deployment", "{owners:#}");
    let text = ns
        .reconcile(&["tree", "pods", "-l", "app=web", "--owners"])
        .stdout;
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.contains(" Kustomization/apps ") && l.contains("Suspended"))
            && text.contains("└─[manages] Deployment/web"),
        "{text}"
    );
}

#[test]
fn a_helm_installed_workload_names_its_release_from_the_release_secrets() {
    let ns = Namespace::new("cause-helm");
    // Helm's release Secrets, as Helm labels them (the data is never read).
    for (v, status) in [(1, "superseded"), (2, "failed")] {
        ns.apply(&format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sh.helm.release.v1.web.v{v}\n  labels: {{owner: helm, name: web, version: \"{v}\", status: {status}}}\ntype: helm.sh/release.v1\ndata: {{release: SDRzSQ==}}\n"
        ));
    }
    ns.apply(&support::deployment("web", 1, "", "", "", "").replacen(
        "metadata: {name: web}",
        &format!("metadata:\n  name: web\n  labels: {{app.kubernetes.io/managed-by: Helm}}\n  annotations: {{meta.helm.sh/release-name: web, meta.helm.sh/release-namespace: {}}}", ns.name),
        1,
    ));
    let f = why_finding(&ns, "deploy/web", "ManagedBy");
    assert_eq!(
        f["message"].as_str().unwrap(),
        format!(
            "Deployment/web is installed by Helm release {}/web, revision 2: failed (labels app.kubernetes.io/managed-by, meta.helm.sh/release-name)",
            ns.name
        )
    );
}

#[test]
fn a_rollout_broken_by_set_image_names_the_change_and_the_way_back() {
    let ns = Namespace::new("cause-setimage");
    ns.apply(&support::deployment("web", 1, "", "", "", ""));
    support::wait_rolled_out(&ns, "web", 1);
    // managedFields keep times to the second: the change is told from the
    // creation only a second later.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // The test cluster cannot pull this image (tests/cluster/README.md).
    ns.kubectl(&["set", "image", "deploy/web", "app=unpullable.invalid/app:1"])
        .ok();
    let (_, item) = why_until(&ns, "deploy/web", "the change named", |i| {
        i["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["reason"] == "RolloutChange"))
            && root_reason(i) == "ImagePullBackOff"
    });
    let change = item["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["reason"] == "RolloutChange")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        change.starts_with("revision 2 (ReplicaSet/web-")
            && change.contains("spec changed ")
            && change.contains(" by kubectl-set)")
            && change.contains(
                "changed the pod template of revision 1: container app image registry.example.com/web:1 → unpullable.invalid/app:1"
            ),
        "{change}"
    );
    let steps = steps(&item);
    assert!(
        steps.contains("set image deployment/web app=IMAGE")
            && steps.contains(&format!(
                "kubectl -n {} rollout undo deployment/web --to-revision=1",
                ns.name
            )),
        "{steps}"
    );
}

/// The scheduler's filters that name no object: a bound volume pinned to a
/// node that does not exist, a host port every node already gives away,
/// and a topology spread whose key no node carries, each named by `why`.
#[test]
fn scheduler_filters_that_name_nothing_are_named() {
    let ns = Namespace::new("cause-filters");
    let pv = format!("{}-pinned", ns.name);
    support::kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {pv}}}\nspec:\n  capacity: {{storage: 1Gi}}\n  accessModes: [ReadWriteOnce]\n  storageClassName: ''\n  hostPath: {{path: /tmp/{pv}}}\n  claimRef: {{namespace: {ns}, name: data}}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [node-gone]}}]}}]\n",
            ns = ns.name
        )),
    )
    .ok();
    ns.apply(&format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: data}}\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: ''\n  volumeName: {pv}\n  resources: {{requests: {{storage: 1Gi}}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: pinned}}\nspec:\n  containers: [{{name: db, image: example.com/db:1}}]\n  volumes: [{{name: data, persistentVolumeClaim: {{claimName: data}}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: spread, labels: {{app: spread}}}}\nspec:\n  containers: [{{name: app, image: example.com/app:1}}]\n  topologySpreadConstraints: [{{maxSkew: 1, topologyKey: topology.example.com/rack, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: spread}}}}}}]\n"
    ));
    for (pod, phrase) in [
        (
            "pinned",
            format!("PersistentVolume {pv} (bound to claim data) may only be used on nodes where kubernetes.io/hostname In [node-gone]"),
        ),
        (
            "spread",
            "its topology spread constraint uses the key topology.example.com/rack, which no node carries".to_string(),
        ),
    ] {
        let (code, item) = why_until(&ns, &format!("pod/{pod}"), "unschedulable", |i| {
            root_reason(i) == "Unschedulable" && steps(i).contains(phrase.as_str())
        });
        assert_eq!(code, 1, "{pod}: {item}");
    }
    let _ = support::kubectl(&["delete", "pv", &pv, "--wait=false"]);
}

/// A host port every node already gives away: the pod that cannot be
/// placed names the port and the pods that hold it, on their nodes.
#[test]
fn a_host_port_taken_on_every_node_names_the_pods_that_hold_it() {
    let ns = Namespace::new("cause-hostport");
    // One replica more than the test cluster's two nodes; a port no other
    // test asks for.
    ns.apply("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: edge}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: edge}}\n  template:\n    metadata: {labels: {app: edge}}\n    spec:\n      containers: [{name: proxy, image: example.com/proxy:1, ports: [{containerPort: 8080, hostPort: 31477}]}]\n");
    let (code, item) = why_until(&ns, "deploy/edge", "a host port taken", |i| {
        let steps = steps(i);
        steps.contains("host port 31477/TCP is held by ")
            && steps.matches(&format!("{}/edge-", ns.name)).count() >= 2
    });
    assert_eq!(code, 1, "{item}");
    assert!(
        steps(&item).contains("drop hostPort 31477/TCP from the pod template"),
        "{item}"
    );
    // The step's command shows who holds the port, as it says.
    let command = item["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["commands"].as_array().unwrap().iter())
        .filter_map(|c| c.as_str())
        .find(|c| c.contains("HOSTPORTS"))
        .unwrap_or_else(|| panic!("no command lists host ports: {item}"))
        .to_string();
    let listed = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("KUBECONFIG", &support::cluster().kubeconfig)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.lines().filter(|l| l.contains(&ns.name)).count() >= 2,
        "{command}:\n{listed}"
    );
}
