//! End-to-end tests of the verdicts on the real control plane: situations
//! where a careless judge says Converged on a broken object, or Failed on
//! one that is about to converge. Real controllers write every status here,
//! except on custom resources, whose status the test writes as a
//! controller would.

mod common;
mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Background, Namespace, kubectl_as, wait_until};

/// The item for `kind/name` in a `status -o json` document.
fn item<'a>(doc: &'a Value, kind: &str, name: &str) -> Option<&'a Value> {
    doc["items"]
        .as_array()?
        .iter()
        .find(|i| i["object"]["kind"] == kind && i["object"]["name"] == name)
}

/// A cron schedule (in UTC) that fires once, at the start of the minute
/// that begins between 10 and 70 seconds from now, and not again that day.
fn once_soon() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = (now + 70) % 86_400;
    format!("{} {} * * *", at / 60 % 60, at / 3600)
}

#[test]
fn a_cronjob_whose_last_job_failed_is_failed_and_in_the_sweep() {
    let ns = Namespace::new("verdict-cron");
    ns.apply(&format!(
        r#"
apiVersion: batch/v1
kind: CronJob
metadata: {{name: report}}
spec:
  schedule: "{}"
  timeZone: Etc/UTC
  jobTemplate:
    spec:
      backoffLimit: 0
      template:
        metadata:
          labels: {{reconcile.test/failure: job-fail}}
        spec:
          restartPolicy: Never
          containers: [{{name: report, image: "registry.example.com/report:1"}}]
"#,
        once_soon()
    ));
    // The CronJob controller starts the run; kwok fails its pod; the Job
    // controller marks the Job Failed; the CronJob controller drops it from
    // status.active.
    wait_until("the scheduled run fails", Duration::from_secs(150), || {
        let jobs = ns.kubectl(&["get", "jobs", "-o", "json"]).ok().json();
        let failed = jobs["items"].as_array().is_some_and(|items| {
            items.iter().any(|j| {
                j["status"]["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Failed" && c["status"] == "True")
                })
            })
        });
        failed && ns.jsonpath("cronjob/report", "{.status.active}").is_empty()
    });

    // `status` and `tree` both read its Jobs: judged from the most recent.
    for command in ["status", "tree"] {
        let run = ns.reconcile(&[command, "cronjob/report", "-o", "json"]);
        assert_eq!(run.code, 1, "{command}: {}", run.stdout);
        let cron = &run.json()["items"][0];
        assert_eq!(cron["verdict"], "Failed", "{command}: {cron}");
        assert_eq!(cron["reason"], "LastJobFailed", "{command}: {cron}");
        let message = cron["message"].as_str().unwrap();
        assert!(
            message.contains("report-") && message.contains("BackoffLimitExceeded"),
            "{command}: {message}"
        );
    }

    // The namespace sweep lists it, not converged.
    let run = ns.reconcile(&["status", "-o", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = run.json();
    let swept = item(&doc, "CronJob", "report").unwrap_or_else(|| panic!("no CronJob in {doc}"));
    assert_eq!(swept["verdict"], "Failed", "{swept}");
}

/// `kubectl apply` of a Deployment a second before its ServiceAccount: the
/// first pod create is refused, the retry succeeds, and `wait` must not
/// give up on the stale FailedCreate in between.
#[test]
fn a_late_service_account_does_not_fail_wait() {
    let ns = Namespace::new("verdict-late-sa");
    ns.apply(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      serviceAccountName: late
      containers: [{name: api, image: "registry.example.com/api:1"}]
"#,
    );
    let waiter = Background::start(&["-n", &ns.name, "wait", "deploy/api", "--timeout", "120s"]);
    // The refusal is real before the ServiceAccount arrives.
    wait_until("the create is refused", Duration::from_secs(30), || {
        ns.jsonpath(
            "deploy/api",
            "{.status.conditions[?(@.type==\"ReplicaFailure\")].status}",
        ) == "True"
    });
    std::thread::sleep(Duration::from_secs(1));
    ns.apply("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: late}\n");
    let (code, out, took) = waiter.finish(Duration::from_secs(150));
    assert_eq!(code, 0, "wait gave up after {took:?}:\n{out}");
}

/// A Gateway-shaped custom resource in a `*.k8s.io` group that no
/// controller serves: swept like any root, and never Converged, whether it
/// carries Gateway API's initial status or none at all.
#[test]
fn a_gateway_without_a_controller_is_never_converged() {
    let group = "gateway.e2e-verdicts.k8s.io";
    let crd = format!(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gateways.{group}
  annotations: {{api-approved.kubernetes.io: "unapproved, test only"}}
spec:
  group: {group}
  names: {{kind: Gateway, plural: gateways, singular: gateway}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
"#
    );
    let plural = format!("gateways.{group}");
    apply_crd(&crd, &plural);

    let ns = Namespace::new("verdict-gateway");
    let gateway = |name: &str| {
        format!(
            "apiVersion: {group}/v1\nkind: Gateway\nmetadata: {{name: {name}}}\nspec:\n  gatewayClassName: none\n  listeners: [{{name: http, port: 80, protocol: HTTP}}]\n"
        )
    };
    ns.apply(&gateway("initial"));
    ns.apply(&gateway("bare"));
    // What the real Gateway CRD's defaults write on create.
    ns.kubectl(&[
        "patch",
        &format!("{plural}/initial"),
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[
            {"type":"Accepted","status":"Unknown","reason":"Pending","message":"Waiting for controller","lastTransitionTime":"1970-01-01T00:00:00Z"},
            {"type":"Programmed","status":"Unknown","reason":"Pending","message":"Waiting for controller","lastTransitionTime":"1970-01-01T00:00:00Z"}]}}"#,
    ])
    .ok();

    // The sweep reads the types discovery lists; a type created a moment
    // ago is listed once the cached discovery is refreshed, which naming
    // the type does.
    ns.reconcile(&["status", &plural]);
    let run = ns.reconcile(&["status", "-o", "json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let doc = run.json();
    let initial = item(&doc, "Gateway", "initial").unwrap_or_else(|| panic!("not swept: {doc}"));
    assert_eq!(initial["verdict"], "Progressing", "{initial}");
    assert_eq!(initial["message"], "Waiting for controller", "{initial}");
    let bare = item(&doc, "Gateway", "bare").unwrap_or_else(|| panic!("not swept: {doc}"));
    // No status yet: waiting within the grace, Unknown after it; never a
    // pair the code does not make.
    let pair = (
        bare["verdict"].as_str().unwrap_or(""),
        bare["reason"].as_str().unwrap_or(""),
    );
    assert!(
        pair == ("Progressing", "WaitingForController") || pair == ("Unknown", "NoStatus"),
        "{bare}"
    );
}

#[test]
fn a_custom_resource_whose_phase_failed_is_failed() {
    support::install_crd("batchruns", "BatchRun", "verdicts.reconcile.dev", "", "");
    let ns = Namespace::new("verdict-phase");
    ns.apply(
        "apiVersion: verdicts.reconcile.dev/v1\nkind: BatchRun\nmetadata: {name: nightly}\nspec: {steps: 3}\n",
    );
    ns.kubectl(&[
        "patch",
        "batchruns.verdicts.reconcile.dev/nightly",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"phase":"Failed","message":"step 2 exited 1"}}"#,
    ])
    .ok();
    let run = ns.reconcile(&[
        "status",
        "batchruns.verdicts.reconcile.dev/nightly",
        "-o",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let doc = run.json();
    let it = &doc["items"][0];
    assert_eq!(it["verdict"], "Failed", "{it}");
    assert_eq!(it["reason"], "Failed", "{it}");
    assert_eq!(
        it["message"], "status.phase is Failed: step 2 exited 1",
        "{it}"
    );
}

/// A StatefulSet has no progress deadline: without the cause from its pods
/// its row would say "0/1 replicas ready" for ever.
#[test]
fn a_workload_row_carries_its_failing_pod() {
    let ns = Namespace::new("verdict-rows");
    ns.apply(
        r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db, reconcile.test/failure: image-pull-backoff}}
    spec:
      containers: [{name: db, image: "registry.example.com/db:1"}]
"#,
    );
    let mut row = Value::Null;
    wait_until(
        "the pod's cause in the row",
        Duration::from_secs(60),
        || {
            let run = ns.reconcile(&["tree", "sts/db", "-o", "json"]);
            row = run.json()["items"][0].clone();
            row["message"]
                .as_str()
                .is_some_and(|m| m.contains("ImagePullBackOff"))
        },
    );
    assert_eq!(row["verdict"], "Progressing", "{row}");
    assert_eq!(
        row["message"], "Pod db-0 ImagePullBackOff; 0/1 replicas ready",
        "{row}"
    );
}

#[test]
fn a_statefulset_that_reached_its_partition_is_converged_and_ends_wait() {
    let ns = Namespace::new("verdicts-partition");
    let sts = |image: &str| {
        format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  replicas: 3\n  serviceName: db\n  podManagementPolicy: Parallel\n  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate: {{partition: 2}}\n  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec:\n      containers: [{{name: db, image: {image}}}]\n"
        )
    };
    ns.apply(&sts("db:1"));
    wait_until("three ready replicas", Duration::from_secs(60), || {
        ns.jsonpath("sts/db", "{.status.readyReplicas}") == "3"
    });
    // A canary: only the ordinals from the partition up take the new image.
    ns.apply(&sts("db:2"));
    let run = ns.reconcile(&["wait", "sts/db", "--timeout", "60s"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let doc = ns
        .reconcile(&["status", "sts/db", "-o", "json"])
        .ok()
        .json();
    let db = item(&doc, "StatefulSet", "db").unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(db["verdict"], "Converged", "{db}");
    assert_eq!(db["reason"], "PartitionedRollout", "{db}");
    assert!(
        db["message"]
            .as_str()
            .unwrap()
            .contains("1 of 3 replicas updated"),
        "{db}"
    );
    // As kubectl's own rollout status says.
    let kubectl = ns.kubectl(&["rollout", "status", "sts/db", "--timeout=5s"]);
    assert_eq!(kubectl.code, 0, "{}", kubectl.stderr);
    assert!(
        kubectl.stdout.contains("partitioned roll out complete"),
        "{}",
        kubectl.stdout
    );
}

/// Runs `wait` with these arguments in `ns`, timing it.
fn timed_wait(ns: &Namespace, args: &[&str]) -> (support::Run, Duration) {
    let started = std::time::Instant::now();
    let mut all = vec!["wait"];
    all.extend_from_slice(args);
    let run = ns.reconcile(&all);
    (run, started.elapsed())
}

/// A StatefulSet whose pod 0 crash-loops is Failed once the run of failures
/// has lasted the grace, although the pod's Ready condition moves at every
/// restart (kwok rewrites it each time, as a container ready for a moment
/// between crashes does). OrderedReady is named as what keeps pods 1 and 2
/// from being created.
#[test]
fn a_crash_looping_statefulset_is_failed_within_the_grace() {
    let ns = Namespace::new("verdict-sts-crash");
    ns.apply(
        r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db, reconcile.test/failure: crash-loop}}
    spec:
      containers: [{name: db, image: "registry.example.com/db:1"}]
"#,
    );
    let (run, took) = timed_wait(
        &ns,
        &["sts/db", "--failure-grace", "20s", "--timeout", "2m"],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("StatefulSet/db failed"),
        "{}",
        run.stderr
    );
    assert!(took < Duration::from_secs(90), "took {took:?}");
    assert!(
        took >= Duration::from_secs(20),
        "took {took:?}: before the grace"
    );
    assert!(run.stdout.contains("CrashLoopBackOff"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("OrderedReady: db-1…db-2 not created until the pods before them are ready"),
        "{}",
        run.stdout
    );
}

/// A DaemonSet whose updated pod crash-loops on one node, while the old pod
/// on the other node is healthy, is Failed: the rollout will not go on.
#[test]
fn a_daemonset_whose_updated_pod_crash_loops_is_failed() {
    let ns = Namespace::new("verdict-ds-crash");
    let ds = |labels: &str| {
        format!(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent}}\nspec:\n  selector: {{matchLabels: {{app: agent}}}}\n  updateStrategy: {{type: RollingUpdate, rollingUpdate: {{maxUnavailable: 1}}}}\n  template:\n    metadata: {{labels: {{app: agent{labels}}}}}\n    spec:\n      nodeSelector: {{type: kwok}}\n      containers: [{{name: agent, image: \"registry.example.com/agent:1\"}}]\n"
        )
    };
    ns.apply(&ds(""));
    let run = ns.reconcile(&["wait", "ds/agent", "--timeout", "90s"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    ns.apply(&ds(", reconcile.test/failure: crash-loop"));
    let (run, took) = timed_wait(
        &ns,
        &["ds/agent", "--failure-grace", "20s", "--timeout", "2m"],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(took < Duration::from_secs(100), "took {took:?}");
    assert!(run.stdout.contains("CrashLoopBackOff"), "{}", run.stdout);
    let doc = ns.reconcile(&["status", "ds/agent", "-o", "json"]).json();
    let agent = item(&doc, "DaemonSet", "agent").unwrap_or_else(|| panic!("{doc}"));
    assert!(
        agent["message"]
            .as_str()
            .unwrap()
            .contains("CrashLoopBackOff"),
        "{agent}"
    );
}

/// `wait --fail-fast` ends as soon as the new pods cannot pull their
/// image, with the diagnosis; without it the 3-minute grace holds.
#[test]
fn wait_fail_fast_ends_on_an_image_that_cannot_be_pulled() {
    let ns = Namespace::new("verdict-fail-fast");
    ns.apply(&support::deployment(
        "web",
        1,
        "",
        ", reconcile.test/failure: image-pull-backoff",
        "",
        "",
    ));
    let (run, took) = timed_wait(&ns, &["deploy/web", "--fail-fast", "--timeout", "2m"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert!(
        run.stderr.contains("Deployment/web failed"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("ImagePullBackOff"), "{}", run.stdout);
    // Without it, the same state is still within the grace.
    let doc = ns.reconcile(&["status", "deploy/web", "-o", "json"]).json();
    let web = item(&doc, "Deployment", "web").unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(web["verdict"], "Progressing", "{web}");
}

/// `wait --timeout 5s` never returns before 5 seconds have passed.
#[test]
fn wait_timeout_is_never_early() {
    let ns = Namespace::new("verdict-timeout");
    ns.apply(&support::deployment(
        "slow",
        1,
        "",
        ", reconcile.test/failure: never-ready",
        "",
        "",
    ));
    let (run, took) = timed_wait(&ns, &["deploy/slow", "--timeout", "5s"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("timed out after 5s"), "{}", run.stderr);
    assert!(took >= Duration::from_secs(5), "returned after {took:?}");
    assert!(took < Duration::from_secs(9), "took {took:?}");
}

/// A run-like custom resource whose run failed is Failed at once: `wait`
/// exits 1 without waiting out any grace, and `status` says why.
#[test]
fn a_failed_run_of_a_custom_kind_exits_1_at_once() {
    support::install_crd(
        "migrationruns",
        "MigrationRun",
        "e2e.reconcile.test",
        "",
        "",
    );
    let ns = Namespace::new("verdict-run");
    ns.apply(
        "apiVersion: e2e.reconcile.test/v1\nkind: MigrationRun\nmetadata: {name: to-v2}\nspec: {target: v2}\n",
    );
    let status = r#"{"status": {"startTime": "2026-12-01T10:00:00Z", "completionTime": "2026-12-01T10:05:00Z", "conditions": [{"type": "Succeeded", "status": "False", "reason": "MigrationTimeout", "message": "step 3 ran past its deadline", "lastTransitionTime": "2026-12-01T10:05:00Z"}]}}"#;
    ns.kubectl(&[
        "patch",
        "migrationrun/to-v2",
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    ])
    .ok();
    let (run, took) = timed_wait(&ns, &["migrationrun/to-v2", "--timeout", "60s"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let doc = ns
        .reconcile(&["status", "migrationrun/to-v2", "-o", "json"])
        .json();
    let item = item(&doc, "MigrationRun", "to-v2").unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(item["verdict"], "Failed", "{item}");
    assert_eq!(item["reason"], "MigrationTimeout", "{item}");
}

/// A kind no convention reads, whose CRD declares printer columns and a
/// state enum: judged live by what the operator pointed `kubectl get` at,
/// with the CRD read once (one GET), and never a gap when it could not be.
#[test]
fn a_kind_judged_by_its_crds_printer_columns_and_enums() {
    let group = "columns.e2e-verdicts.reconcile.dev";
    let crd = format!(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: appliances.{group}}}
spec:
  group: {group}
  names: {{kind: Appliance, plural: appliances, singular: appliance}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    additionalPrinterColumns:
    - {{name: Lifecycle, type: string, jsonPath: .status.summary.text}}
    - {{name: Age, type: date, jsonPath: .metadata.creationTimestamp}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
          status:
            type: object
            properties:
              stage: {{type: string, enum: [Queued, Provisioning, Ready, Failed]}}
              summary: {{type: object, properties: {{text: {{type: string}}}}}}
"#
    );
    let plural = format!("appliances.{group}");
    apply_crd(&crd, &plural);
    let ns = Namespace::new("verdict-columns");
    for (name, status) in [
        ("broken", r#"{"status":{"summary":{"text":"Failed"}}}"#),
        ("coming", r#"{"status":{"stage":"Provisioning"}}"#),
        (
            "fine",
            r#"{"status":{"stage":"Ready","summary":{"text":"Ready"}}}"#,
        ),
    ] {
        ns.apply(&format!(
            "apiVersion: {group}/v1\nkind: Appliance\nmetadata: {{name: {name}}}\nspec: {{size: 1}}\n"
        ));
        ns.kubectl(&[
            "patch",
            &format!("{plural}/{name}"),
            "--subresource=status",
            "--type=merge",
            "-p",
            status,
        ])
        .ok();
    }
    let judged = |name: &str| {
        let run = ns.reconcile(&[
            "status",
            &format!("{plural}/{name}"),
            "-o",
            "json",
            "-v",
            "6",
        ]);
        let it = run.json()["items"][0].clone();
        (run.code, it, run.stderr)
    };
    let (code, it, log) = judged("broken");
    assert_eq!((code, it["verdict"].as_str()), (1, Some("Failed")), "{it}");
    assert_eq!(
        it["message"], "column Lifecycle (.status.summary.text) is Failed",
        "{it}"
    );
    assert_eq!(
        log.lines()
            .filter(|l| l.starts_with("GET ") && l.contains("/customresourcedefinitions/"))
            .count(),
        1,
        "one GET of the CRD: {log}"
    );
    let (_, it, _) = judged("coming");
    assert_eq!(it["verdict"], "Progressing", "{it}");
    assert_eq!(
        it["message"], "status.stage (an enum of the CRD) is Provisioning",
        "{it}"
    );
    let (code, it, _) = judged("fine");
    assert_eq!(
        (code, it["verdict"].as_str()),
        (0, Some("Converged")),
        "{it}"
    );
    // A sweep of the namespace judges its roots by the CRD alike.
    let sweep = ns.reconcile(&["status", "-o", "json"]).json();
    let verdict_of = |name: &str| {
        sweep["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["object"]["name"] == name)
            .map(|i| i["verdict"].clone())
    };
    assert_eq!(verdict_of("broken"), Some("Failed".into()), "{sweep}");
    assert_eq!(verdict_of("coming"), Some("Progressing".into()), "{sweep}");
    assert_eq!(verdict_of("fine"), Some("Converged".into()), "{sweep}");
    // `rules TYPE` says what the CRD lets speak, read live.
    let rules = ns.reconcile(&["rules", "appliances", "deployments"]);
    assert_eq!(rules.code, 0, "{}", rules.stderr);
    assert!(
        rules.stdout.contains(&format!(
            "  Appliance.{group}: column Lifecycle (.status.summary.text)"
        )) && rules.stdout.contains("status.stage")
            && rules
                .stdout
                .contains("  Deployment: a kind of Kubernetes' own"),
        "{}",
        rules.stdout
    );
    let _ = support::kubectl(&["delete", "crd", &plural, "--wait=false"]);
}

/// Work under way whose own status names an error is bounded: `wait
/// --fail-fast` ends at once on it (the self-check's 404 is the cause, not
/// work to watch), and a member a status lists as failed is named.
#[test]
fn a_wait_on_an_error_ends_and_failed_members_are_named() {
    support::install_crd("probes", "Probe", "underway.reconcile.dev", "", "");
    support::install_crd("dbclusters", "DbCluster", "underway.reconcile.dev", "", "");
    let ns = Namespace::new("verdict-underway");
    ns.apply("apiVersion: underway.reconcile.dev/v1\nkind: Probe\nmetadata: {name: shop}\nspec: {url: http://shop.example.com/.well-known/check}\n");
    ns.kubectl(&[
        "patch",
        "probes.underway.reconcile.dev/shop",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"state":"pending","processing":true,"reason":"Waiting for HTTP-01 challenge propagation: wrong status code '404', expected '200'"}}"#,
    ])
    .ok();
    let started = std::time::Instant::now();
    let run = ns.reconcile(&[
        "wait",
        "probes.underway.reconcile.dev/shop",
        "--fail-fast",
        "--timeout",
        "60s",
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    // An error its operator retries is given the retry floor (30 s) even
    // under --fail-fast, never zero; then the wait ends with it.
    assert!(
        started.elapsed() >= Duration::from_secs(25) && started.elapsed() < Duration::from_secs(55),
        "{:?}",
        started.elapsed()
    );
    assert!(
        run.stdout.contains("waiting on an error")
            && run.stdout.contains("wrong status code '404'"),
        "{}",
        run.stdout
    );
    // Without --fail-fast, a moment old: still work under way.
    let run = ns.reconcile(&["status", "probes.underway.reconcile.dev/shop", "-o", "json"]);
    assert_eq!(
        run.json()["items"][0]["verdict"],
        "Progressing",
        "{}",
        run.stdout
    );

    ns.apply("apiVersion: underway.reconcile.dev/v1\nkind: DbCluster\nmetadata: {name: db}\nspec: {instances: 3}\n");
    ns.kubectl(&[
        "patch",
        "dbclusters.underway.reconcile.dev/db",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"instancesStatus":{"healthy":["db-2","db-3"],"failed":["db-1"]},"conditions":[{"type":"Ready","status":"False","reason":"NotAllInstancesReady","message":"1 instance failed","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}"#,
    ])
    .ok();
    let run = ns.reconcile(&[
        "status",
        "dbclusters.underway.reconcile.dev/db",
        "-o",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let it = &run.json()["items"][0];
    assert_eq!(it["verdict"], "Failed", "{it}");
    assert!(
        it["message"]
            .as_str()
            .unwrap_or("")
            .contains("status.instancesStatus.failed lists db-1"),
        "{it}"
    );
}

/// A Gateway API route's backends are followed like an Ingress's, and a
/// Service it names that does not exist is the cause, whatever the route's
/// own `ResolvedRefs` says.
#[test]
fn a_route_whose_backend_service_is_missing_names_it() {
    let group = "gateway.networking.k8s.io";
    let crd = format!(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: httproutes.{group}
  annotations: {{api-approved.kubernetes.io: "https://github.com/kubernetes-sigs/gateway-api/pull/2466"}}
spec:
  group: {group}
  names: {{kind: HTTPRoute, plural: httproutes, singular: httproute, listKind: HTTPRouteList}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
"#
    );
    let _catalog = support::catalog_lock();
    apply_crd(&crd, &format!("httproutes.{group}"));
    drop(_catalog);
    let ns = Namespace::new("verdict-route");
    ns.apply(&format!(
        "apiVersion: {group}/v1\nkind: HTTPRoute\nmetadata: {{name: shop}}\nspec:\n  parentRefs: [{{name: edge}}]\n  rules:\n  - backendRefs: [{{name: api, port: 8080}}]\n"
    ));
    ns.kubectl(&[
        "patch",
        &format!("httproutes.{group}/shop"),
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"parents":[{"parentRef":{"name":"edge"},"controllerName":"example.com/gateway","conditions":[
            {"type":"Accepted","status":"True","reason":"Accepted","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"},
            {"type":"ResolvedRefs","status":"True","reason":"ResolvedRefs","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}]}}"#,
    ])
    .ok();
    let run = ns.reconcile(&["tree", &format!("httproutes.{group}/shop")]);
    assert!(
        run.stdout.contains("[routes-to] Service/api") && run.stdout.contains("NotFound"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let run = ns.reconcile(&["why", &format!("httproutes.{group}/shop")]);
    assert!(run.stdout.contains("Service/api"), "{}", run.stdout);
}

/// Applies a CustomResourceDefinition and waits until its type `plural`
/// (`widgets.example.com`) is established and served.
fn apply_crd(crd: &str, plural: &str) {
    kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(crd),
    )
    .ok();
    support::kubectl(&[
        "wait",
        "--for=condition=Established",
        &format!("crd/{plural}"),
        "--timeout=30s",
    ])
    .ok();
    wait_until(&format!("{plural} served"), Duration::from_secs(30), || {
        support::kubectl(&["get", plural, "-A"]).code == 0
    });
}

/// A pod whose volume cannot be mounted: the kubelet (kwok's stage) says so
/// only in FailedMount Warnings, again and again. The verdict reads them:
/// not "watch it converge" but the refusal, and past the retry grace the
/// Deployment's wait ends with it.
#[test]
fn a_pod_whose_volume_cannot_be_mounted_is_its_refusal_then_failed() {
    let ns = Namespace::new("verdict-mount");
    ns.apply(&support::deployment(
        "web",
        1,
        "",
        ", reconcile.test/failure: mount",
        "",
        "",
    ));
    let mut pod = Value::Null;
    wait_until("the pod's FailedMount", Duration::from_secs(60), || {
        let doc = ns.reconcile(&["status", "pods", "-o", "json"]).json();
        pod = doc["items"][0].clone();
        pod["reason"] == "FailedMount"
    });
    assert_eq!(pod["verdict"], "Progressing", "{pod:#}");
    let message = pod["message"].as_str().unwrap();
    assert!(
        message.contains("Warning FailedMount")
            && message.contains(r#"configmap "app-config" not found"#)
            && message.contains("Failed if it lasts 2m"),
        "{message}"
    );
    let why = ns.reconcile(&["why", "deploy/web"]);
    assert_eq!(why.code, 1, "{}", why.stdout);
    assert!(why.stdout.contains("FailedMount"), "{}", why.stdout);
    assert!(!why.stdout.contains("watch it converge"), "{}", why.stdout);
    // With a failure grace of 30 s the refusal is final 30 s after it
    // began, and the wait ends with it, not at its timeout.
    let (run, took) = timed_wait(
        &ns,
        &["deploy/web", "--failure-grace", "30s", "--timeout", "3m"],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(took < Duration::from_secs(120), "took {took:?}");
    assert!(run.stdout.contains("FailedMount"), "{}", run.stdout);
}

/// A CronJob whose Jobs a quota refuses: its status stays empty ("never
/// scheduled") and the controller says why only in FailedCreate events.
/// The verdict is the refusal, the sweep never says all clear, and the
/// wait ends with the quota named.
#[test]
fn a_cronjob_refused_by_a_quota_is_not_converged() {
    let ns = Namespace::new("verdict-cron-quota");
    ns.apply(
        r#"
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-jobs}
spec: {hard: {count/jobs.batch: "0"}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: report, image: "registry.example.com/report:1"}]
"#,
    );
    let mut cron = Value::Null;
    wait_until(
        "the CronJob's refused run",
        Duration::from_secs(100),
        || {
            let doc = ns.reconcile(&["status", "-o", "json"]).json();
            cron = item(&doc, "CronJob", "report").cloned().unwrap_or_default();
            cron["reason"] == "FailedCreate"
        },
    );
    assert_ne!(cron["verdict"], "Converged", "{cron:#}");
    assert!(
        cron["message"]
            .as_str()
            .unwrap()
            .contains("exceeded quota: no-jobs"),
        "{cron:#}"
    );
    let sweep = ns.reconcile(&["status"]);
    assert_eq!(sweep.code, 1, "{}", sweep.stdout);
    // The CronJob's row is not Converged, and no line says all is.
    let row = sweep
        .stdout
        .lines()
        .find(|l| l.starts_with("CronJob/report "))
        .unwrap_or_else(|| panic!("{}", sweep.stdout));
    assert!(!row.contains("Converged"), "{row}");
    assert!(
        !sweep.stdout.to_lowercase().contains("every root object"),
        "{}",
        sweep.stdout
    );
    let (run, took) = timed_wait(
        &ns,
        &[
            "cronjob/report",
            "--failure-grace",
            "30s",
            "--timeout",
            "3m",
        ],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(took < Duration::from_secs(100), "took {took:?}");
    assert!(run.stdout.contains("FailedCreate"), "{}", run.stdout);
    assert!(run.stdout.contains("no-jobs"), "{}", run.stdout);
}
