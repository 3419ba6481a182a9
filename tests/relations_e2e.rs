//! End-to-end tests of relations and refused pod creations on the real
//! control plane: each test builds the situation for real (real scheduler,
//! controllers and admission), then asserts what `tree` and `why` say.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Namespace, kubectl, kubectl_as, wait_until};

/// `why TARGET -o json` until `ready` holds for the first item.
fn why_until(ns: &Namespace, target: &str, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    wait_until(what, Duration::from_secs(90), || {
        let run = ns.reconcile(&["why", target, "-o", "json"]);
        last = run.json();
        ready(&last["items"][0])
    });
    last["items"][0].clone()
}

fn cause_kind(item: &Value) -> &str {
    item["rootCause"]["objects"][0]["kind"]
        .as_str()
        .unwrap_or("")
}

fn steps(item: &Value) -> String {
    item["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["text"].as_str().unwrap(), s["commands"]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn edges(item: &Value) -> Vec<String> {
    item["chain"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["object"].is_object())
        .map(|l| {
            format!(
                "{} {}",
                l["edge"].as_str().unwrap_or("-"),
                l["object"]["kind"].as_str().unwrap()
            )
        })
        .collect()
}

/// A one-pod Deployment; `pod_spec` is extra YAML inside the pod spec
/// (indented by six spaces), `labels` extra pod labels.
fn workload(name: &str, labels: &str, pod_spec: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}{labels}}}}}
    spec:
      containers: [{{name: app, image: "registry.example.com/{name}:1"}}]
{pod_spec}
"#
    )
}

#[test]
fn a_claim_with_a_missing_storage_class_is_the_root_cause() {
    let ns = Namespace::new("rel-pvc");
    let class = format!("missing-{}", ns.name);
    ns.apply(&format!(
        r#"
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data}}
spec: {{accessModes: [ReadWriteOnce], storageClassName: {class}, resources: {{requests: {{storage: 1Gi}}}}}}
---
{}"#,
        workload("db", "", "      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]")
    ));
    let item = why_until(&ns, "deploy/db", "the missing class", |i| {
        cause_kind(i) == "StorageClass"
    });
    assert_eq!(item["rootCause"]["objects"][0]["name"], class.as_str());
    assert_eq!(
        edges(&item),
        vec![
            "- Deployment",
            "owns ReplicaSet",
            "owns Pod",
            "mounts PersistentVolumeClaim",
            "mounts StorageClass"
        ]
    );
    assert!(
        steps(&item).contains(&format!("asks for StorageClass \"{class}\"")),
        "{}",
        steps(&item)
    );

    let tree = ns.reconcile(&["tree", "deploy/db"]);
    assert!(
        tree.stdout.contains("[mounts] PersistentVolumeClaim/data"),
        "{}",
        tree.stdout
    );
    assert!(
        tree.stdout
            .contains(&format!("[mounts] StorageClass/{class}")),
        "{}",
        tree.stdout
    );
    let doc = ns.reconcile(&["tree", "deploy/db", "-o", "json"]).json();
    let pod = &doc["items"][0]["children"][0]["children"][0];
    assert_eq!(pod["edge"], "owns");
    assert_eq!(pod["children"][0]["edge"], "mounts");
    assert_eq!(
        pod["children"][0]["object"]["kind"],
        "PersistentVolumeClaim"
    );

    // The sweep: the Deployment and the claim it waits on are one item.
    let sweep = ns.reconcile(&["why"]);
    let first = sweep.stdout.lines().next().unwrap_or("");
    assert!(
        first.contains("root objects not converged:"),
        "{}",
        sweep.stdout
    );
    assert!(
        sweep
            .stdout
            .contains("same cause: PersistentVolumeClaim/data"),
        "{}",
        sweep.stdout
    );
    assert!(
        !sweep.stdout.contains("\nConditions"),
        "compact without --verbose:\n{}",
        sweep.stdout
    );
    let verbose = ns.reconcile(&["why", "--verbose"]);
    assert!(verbose.stdout.contains("Conditions"), "{}", verbose.stdout);
}

#[test]
fn a_service_is_followed_to_its_pods_and_a_typo_is_named() {
    let ns = Namespace::new("rel-svc");
    ns.apply(&workload(
        "payments",
        ", reconcile.test/failure: never-ready",
        "",
    ));
    ns.apply(
        r#"
apiVersion: v1
kind: Service
metadata: {name: payments}
spec: {selector: {app: payments}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: payment}
spec: {selector: {app: payment}, ports: [{port: 80}]}
"#,
    );
    let item = why_until(&ns, "svc/payments", "the pods behind the service", |i| {
        cause_kind(i) == "Pod"
    });
    assert_eq!(
        edges(&item)[..2],
        ["- Service".to_string(), "selects Pod".to_string()]
    );
    let typo = why_until(&ns, "svc/payment", "a near miss", |i| {
        i["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["reason"] == "SelectorNearMiss"))
    });
    let hint = typo["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["reason"] == "SelectorNearMiss")
        .unwrap();
    assert!(
        hint["message"]
            .as_str()
            .unwrap()
            .contains("pods carry app=payments"),
        "{hint}"
    );
}

#[test]
fn an_ingress_names_its_missing_class_and_routes_to_its_services() {
    let ns = Namespace::new("rel-ing");
    let class = format!("nope-{}", ns.name);
    ns.apply(&workload("web", "", ""));
    ns.apply(&format!(
        r#"
apiVersion: v1
kind: Service
metadata: {{name: web}}
spec: {{selector: {{app: web}}, ports: [{{port: 80}}]}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: shop}}
spec:
  ingressClassName: {class}
  rules:
  - http:
      paths:
      - {{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}
"#
    ));
    let item = why_until(&ns, "ingress/shop", "the missing class", |i| {
        cause_kind(i) == "IngressClass"
    });
    assert!(
        steps(&item).contains(&format!("names IngressClass \"{class}\"")),
        "{}",
        steps(&item)
    );
    // The Service's pods, once the Deployment has made one.
    let mut tree = String::new();
    wait_until("the selected pod", Duration::from_secs(60), || {
        tree = ns.reconcile(&["tree", "ingress/shop"]).stdout;
        tree.contains("[selects] Pod/web-")
    });
    assert!(tree.contains("[routes-to] Service/web"), "{tree}");
}

#[test]
fn an_autoscaler_scales_and_a_budget_protects() {
    let ns = Namespace::new("rel-hpa");
    ns.apply(&workload("web", "", ""));
    ns.apply(
        r#"
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 2
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
"#,
    );
    support::wait_rolled_out(&ns, "web", 1);
    let hpa = ns.reconcile(&["tree", "hpa/web"]);
    assert!(
        hpa.stdout.contains("[scales] Deployment/web"),
        "{}",
        hpa.stdout
    );
    assert!(
        hpa.stdout.contains("Pod/web-"),
        "the Deployment's own tree comes along:\n{}",
        hpa.stdout
    );
    let pdb = ns.reconcile(&["tree", "pdb/web", "-o", "json"]).json();
    let child = &pdb["items"][0]["children"][0];
    assert_eq!(
        (child["edge"].as_str(), child["object"]["kind"].as_str()),
        (Some("protects"), Some("Pod"))
    );
}

/// A Deployment whose pods the API server refuses, and the step `why` gives.
fn refused(ns: &Namespace, deployment: &str, want: &str) -> String {
    ns.apply(deployment);
    let item = why_until(ns, "deploy/web", want, |i| steps(i).contains(want));
    steps(&item)
}

#[test]
fn a_missing_service_account() {
    let ns = Namespace::new("rel-sa");
    let text = refused(
        &ns,
        &workload("web", "", "      serviceAccountName: ghost"),
        "ServiceAccount \"ghost\", which does not exist",
    );
    assert!(text.contains("create serviceaccount ghost"), "{text}");
}

#[test]
fn a_resource_quota_with_its_use_and_limit() {
    let ns = Namespace::new("rel-quota");
    ns.apply("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: tight}\nspec: {hard: {pods: \"0\"}}\n");
    wait_until("quota status", Duration::from_secs(30), || {
        !ns.jsonpath("resourcequota/tight", "{.status.hard}")
            .is_empty()
    });
    let text = refused(
        &ns,
        &workload("web", "", ""),
        "ResourceQuota tight refuses the pods",
    );
    assert!(text.contains("pods 0 used of 0"), "{text}");
}

#[test]
fn a_limit_range_says_limit_or_request() {
    let ns = Namespace::new("rel-limits");
    ns.apply("apiVersion: v1\nkind: LimitRange\nmetadata: {name: small}\nspec: {limits: [{type: Container, max: {memory: 64Mi}}]}\n");
    let deployment = workload("web", "", "").replace(
        "image: \"registry.example.com/web:1\"}",
        "image: \"registry.example.com/web:1\", resources: {limits: {memory: 128Mi}}}",
    );
    let text = refused(&ns, &deployment, "a container's limit is out of its range");
    assert!(text.contains("64Mi"), "{text}");
}

#[test]
fn pod_security_admission_with_its_level() {
    let ns = Namespace::new("rel-psa");
    kubectl(&[
        "label",
        "namespace",
        &ns.name,
        "pod-security.kubernetes.io/enforce=restricted",
    ])
    .ok();
    let text = refused(
        &ns,
        &workload("web", "", ""),
        "Pod Security Admission enforces level \"restricted:latest\"",
    );
    assert!(text.contains("runAsNonRoot"), "{text}");
}

/// Cluster-scoped admission objects of one test, deleted when dropped.
struct ClusterObjects(Vec<String>);

impl Drop for ClusterObjects {
    fn drop(&mut self) {
        for o in &self.0 {
            let _ = kubectl(&["delete", o, "--ignore-not-found", "--wait=false"]);
        }
    }
}

#[test]
fn a_validating_admission_policy_and_its_binding() {
    let ns = Namespace::new("rel-vap");
    let name = format!("deny-{}", ns.name);
    let _cleanup = ClusterObjects(vec![
        format!("validatingadmissionpolicybinding/{name}"),
        format!("validatingadmissionpolicy/{name}"),
    ]);
    kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}}]
  validations: [{{expression: "false", message: "pods are not allowed here"}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {name}}}
spec:
  policyName: {name}
  validationActions: [Deny]
  matchResources: {{namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}}}
"#,
            ns = ns.name
        )),
    )
    .ok();
    // Admission configuration takes a moment to be in effect.
    std::thread::sleep(Duration::from_secs(3));
    let text = refused(
        &ns,
        &workload("web", "", ""),
        &format!("ValidatingAdmissionPolicy \"{name}\" through binding \"{name}\""),
    );
    assert!(text.contains("pods are not allowed here"), "{text}");
}

#[test]
fn a_webhook_whose_service_has_no_endpoints() {
    let ns = Namespace::new("rel-hook");
    let name = format!("hook-{}", ns.name);
    let _cleanup = ClusterObjects(vec![format!("validatingwebhookconfiguration/{name}")]);
    ns.apply("apiVersion: v1\nkind: Service\nmetadata: {name: hook}\nspec: {selector: {app: hook}, ports: [{port: 443}]}\n");
    kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: {name}}}
webhooks:
- name: deny.reconcile.test
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 2
  clientConfig: {{service: {{namespace: {ns}, name: hook, path: /validate}}}}
  namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}
  rules: [{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}}]
"#,
            ns = ns.name
        )),
    )
    .ok();
    std::thread::sleep(Duration::from_secs(3));
    let text = refused(
        &ns,
        &workload("web", "", ""),
        "admission webhook \"deny.reconcile.test\"",
    );
    assert!(
        text.contains(&format!("ValidatingWebhookConfiguration/{name}")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "its Service {}/hook has no ready endpoints",
            ns.name
        )),
        "{text}"
    );
}

#[test]
fn gitops_inventories_are_followed_to_the_failing_workload() {
    support::install_crd(
        "kustomizations",
        "Kustomization",
        "kustomize.toolkit.fluxcd.io",
        "",
        "",
    );
    support::install_crd("applications", "Application", "argoproj.io", "", "");
    // The tools' objects in a namespace of their own, the workload in another.
    let ns = Namespace::new("rel-gitops");
    let tools = Namespace::new("rel-flux");
    ns.apply(&workload(
        "api",
        ", reconcile.test/failure: image-pull-backoff",
        "",
    ));
    tools.apply(
        r#"
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps}
spec: {interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: argoproj.io/v1
kind: Application
metadata: {name: api}
spec: {project: default}
"#,
    );
    let flux = format!(
        r#"{{"status":{{"observedGeneration":1,"conditions":[{{"type":"Ready","status":"False","reason":"HealthCheckFailed","message":"health check failed","lastTransitionTime":"2026-01-10T11:00:00Z","observedGeneration":1}}],"inventory":{{"entries":[{{"id":"{ns}_api_apps_Deployment","v":"v1"}}]}}}}}}"#,
        ns = ns.name
    );
    tools
        .kubectl(&[
            "patch",
            "kustomization.kustomize.toolkit.fluxcd.io/apps",
            "--subresource=status",
            "--type=merge",
            "-p",
            &flux,
        ])
        .ok();
    let argo = format!(
        r#"{{"status":{{"health":{{"status":"Degraded"}},"resources":[{{"group":"apps","version":"v1","kind":"Deployment","namespace":"{ns}","name":"api"}}]}}}}"#,
        ns = ns.name
    );
    tools
        .kubectl(&[
            "patch",
            "application.argoproj.io/api",
            "--subresource=status",
            "--type=merge",
            "-p",
            &argo,
        ])
        .ok();

    // The workload's own tree comes along, once its pod exists.
    let mut tree = String::new();
    wait_until(
        "the managed workload's pod",
        Duration::from_secs(60),
        || {
            tree = tools
                .reconcile(&["tree", "kustomization.kustomize.toolkit.fluxcd.io/apps"])
                .stdout;
            tree.contains("Pod/api-")
        },
    );
    assert!(tree.contains("[manages] Deployment/api"), "{tree}");
    let item = why_until(
        &tools,
        "kustomization.kustomize.toolkit.fluxcd.io/apps",
        "the failing pods",
        |i| i["rootCause"]["reason"] == "ImagePullBackOff",
    );
    assert_eq!(edges(&item)[1], "manages Deployment");
    // The events of the workload's namespace were read too.
    assert!(
        item["events"].as_array().unwrap().iter().any(|e| {
            e["type"] == "Warning" && e["objects"][0]["namespace"] == ns.name.as_str()
        }),
        "{item:#}"
    );
    let argo_tree = tools
        .reconcile(&["tree", "application.argoproj.io/api", "-o", "json"])
        .json();
    let child = &argo_tree["items"][0]["children"][0];
    assert_eq!(
        (child["edge"].as_str(), child["object"]["name"].as_str()),
        (Some("manages"), Some("api"))
    );
}

#[test]
fn a_crossplane_composite_manages_its_resource_refs() {
    // A namespaced (Crossplane v2) composite: spec.crossplane.resourceRefs
    // without a namespace are in the composite's own.
    support::install_crd("xapps", "XApp", "platform.reconcile.test", "", "");
    let ns = Namespace::new("rel-xp");
    ns.apply(&workload(
        "api",
        ", reconcile.test/failure: image-pull-backoff",
        "",
    ));
    ns.apply(
        r#"
apiVersion: platform.reconcile.test/v1
kind: XApp
metadata: {name: api}
spec:
  crossplane:
    resourceRefs: [{apiVersion: apps/v1, kind: Deployment, name: api}]
"#,
    );
    let item = why_until(
        &ns,
        "xapp.platform.reconcile.test/api",
        "the composed workload",
        |i| i["rootCause"]["reason"] == "ImagePullBackOff",
    );
    assert_eq!(edges(&item)[1], "manages Deployment");
}

#[test]
fn a_terminating_namespace_is_held_by_a_custom_resource() {
    support::install_crd("holders", "Holder", "reconcile.test", "", "");
    let ns = Namespace::new("rel-term");
    ns.apply("apiVersion: reconcile.test/v1\nkind: Holder\nmetadata: {name: stuck, finalizers: [reconcile.test/hold]}\nspec: {}\n");
    kubectl(&["delete", "namespace", &ns.name, "--wait=false"]).ok();
    let target = format!("namespace/{}", ns.name);
    let item = why_until(&ns, &target, "the holder", |i| cause_kind(i) == "Holder");
    let text = steps(&item);
    assert!(
        text.contains("get holder.reconcile.test/stuck -o jsonpath='{.metadata.finalizers}'"),
        "{text}"
    );
    // Let the namespace go.
    ns.kubectl(&[
        "patch",
        "holder.reconcile.test/stuck",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .ok();
}

#[test]
fn events_that_differ_by_a_generated_name_are_one_line() {
    let ns = Namespace::new("rel-events");
    ns.apply("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: none}\nspec: {hard: {pods: \"0\"}}\n");
    wait_until("quota status", Duration::from_secs(30), || {
        !ns.jsonpath("resourcequota/none", "{.status.hard}")
            .is_empty()
    });
    ns.apply(&workload("web", "", ""));
    let item = why_until(&ns, "deploy/web", "several refusals", |i| {
        i["events"].as_array().is_some_and(|e| {
            e.iter()
                .any(|e| e["reason"] == "FailedCreate" && e["count"].as_u64().unwrap_or(0) >= 3)
        })
    });
    let lines: Vec<&Value> = item["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reason"] == "FailedCreate")
        .collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap()
            .contains("pods \"web-*"),
        "{}",
        lines[0]
    );
    let object = &lines[0]["objects"][0];
    assert_eq!(object["kind"], "ReplicaSet");
    assert_eq!(object["namespace"], ns.name.as_str());
    assert!(
        object["uid"].is_string() && object["apiVersion"] == "apps/v1",
        "{object}"
    );
}

#[test]
fn a_pod_on_a_node_that_never_reports_runs_on_it() {
    // A Node object no kubelet (and no kwok) serves, cordoned and tainted
    // from the start so that nothing else is scheduled there; the pod is
    // bound to it directly.
    let ns = Namespace::new("rel-node");
    let node = format!("gone-{}", ns.name);
    let _cleanup = ClusterObjects(vec![format!("node/{node}")]);
    kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Node
metadata: {{name: {node}, labels: {{reconcile.test/unserved: "true"}}}}
spec:
  unschedulable: true
  taints: [{{key: node.kubernetes.io/unreachable, effect: NoSchedule}}, {{key: node.kubernetes.io/unreachable, effect: NoExecute}}]
"#
        )),
    )
    .ok();
    ns.apply(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: lost}}\nspec: {{nodeName: {node}, tolerations: [{{operator: Exists}}], containers: [{{name: app, image: registry.example.com/app:1}}]}}\n"
    ));
    let item = why_until(&ns, "pod/lost", "the node", |i| cause_kind(i) == "Node");
    assert_eq!(item["rootCause"]["objects"][0]["name"], node.as_str());
    assert_eq!(edges(&item), vec!["- Pod", "runs-on Node"]);
    let tree = ns.reconcile(&["tree", "pod/lost"]);
    assert!(
        tree.stdout.contains(&format!("[runs-on] Node/{node}")),
        "{}",
        tree.stdout
    );
}

/// `edge Kind/name` of every node of the first tree of a `tree -o json`.
fn tree_edges(doc: &Value) -> Vec<String> {
    fn walk(n: &Value, out: &mut Vec<String>) {
        out.push(format!(
            "{} {}/{}",
            n["edge"].as_str().unwrap_or("root"),
            n["object"]["kind"].as_str().unwrap_or(""),
            n["object"]["name"].as_str().unwrap_or("")
        ));
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    walk(&doc["items"][0], &mut out);
    out
}

#[test]
fn a_tree_of_a_configmap_or_a_node_lists_who_uses_it() {
    let ns = Namespace::new("rel-users");
    ns.apply(&format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: checkout-config}}\ndata: {{mode: fast}}\n---\n{}---\n{}",
        workload(
            "checkout",
            "",
            "      volumes: [{name: config, configMap: {name: checkout-config}}]"
        ),
        workload("unrelated", "", "")
    ));
    support::wait_rolled_out(&ns, "checkout", 1);
    support::wait_rolled_out(&ns, "unrelated", 1);
    let run = ns.reconcile(&["tree", "cm/checkout-config", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let edges = tree_edges(&run.json());
    assert_eq!(edges[0], "root ConfigMap/checkout-config");
    assert_eq!(edges[1], "used-by Deployment/checkout", "{edges:?}");
    assert!(
        edges.iter().any(|e| e.starts_with("owns Pod/checkout-")),
        "{edges:?}"
    );
    assert!(!edges.iter().any(|e| e.contains("unrelated")), "{edges:?}");
    let text = ns.reconcile(&["tree", "cm/checkout-config"]).stdout;
    assert!(text.contains("└─[used-by] Deployment/checkout"), "{text}");

    // A node: the pods on it, found by a field selector, not by listing
    // every pod of the cluster.
    let pods = ns
        .kubectl(&["get", "pods", "-l", "app=checkout", "-o", "json"])
        .ok()
        .json();
    let pod = pods["items"][0]["spec"]["nodeName"]
        .as_str()
        .unwrap()
        .to_string();
    let pod_name = pods["items"][0]["metadata"]["name"].as_str().unwrap();
    let run = ns.reconcile(&["tree", &format!("node/{pod}"), "-o", "json", "-v", "6"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let edges = tree_edges(&run.json());
    assert!(
        edges.contains(&format!("hosts Pod/{pod_name}")),
        "{edges:?}"
    );
    assert!(
        run.stderr
            .contains(&format!("/api/v1/pods?fieldSelector=spec.nodeName%3D{pod}")),
        "{}",
        run.stderr
    );
}
