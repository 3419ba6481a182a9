//! End-to-end tests against real operators: Argo Rollouts, prometheus-operator,
//! cert-manager and the External Secrets Operator run as local processes
//! (`tests/cluster/operator`) and reconcile the objects each test makes in a
//! fresh namespace; kwok plays the kubelets. Every verdict of the plugin is
//! held against what the operator itself says: `kubectl-argo-rollouts
//! status` for a Rollout, the conditions (and, for ESO, the synced
//! generation) the operator writes for the others.
//!
//! Each operator is started once per test binary. Tests that stop or freeze
//! an operator hold its lock as the writer, so that no test that needs it
//! running runs meanwhile, and start it again when they end, even by a
//! panic.

mod common;
mod support;

use std::path::PathBuf;
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use common::run::{Cmd, Run};
use serde_json::Value;
use support::{Namespace, wait_until};

// ---------------------------------------------------------------------------
// The operators

/// One operator of `tests/cluster/operator`: started once per test binary,
/// and a lock that ordinary tests hold as readers and a test that stops or
/// freezes it holds as the writer.
struct Operator {
    name: &'static str,
    /// How long its first build may take (see `build`).
    build_deadline: Duration,
    lock: RwLock<()>,
    /// What `operator NAME start` printed on stdout the first time.
    started: OnceLock<String>,
}

static ARGO_ROLLOUTS: Operator = Operator::new("argo-rollouts", 45);
static PROMETHEUS_OPERATOR: Operator = Operator::new("prometheus-operator", 45);
static CERT_MANAGER: Operator = Operator::new("cert-manager", 45);
/// Trimmed to two providers, its build measured 191 s on 2 cores from an
/// empty Go build cache (tests/cluster/README.md); untrimmed, 405 s, and 21
/// to 32 minutes beside a busy Rust build.
static EXTERNAL_SECRETS: Operator = Operator::new("external-secrets", 30);

fn operator_script() -> PathBuf {
    common::root().join("tests/cluster/operator")
}

impl Operator {
    const fn new(name: &'static str, build_minutes: u64) -> Operator {
        Operator {
            name,
            build_deadline: Duration::from_secs(build_minutes * 60),
            lock: RwLock::new(()),
            started: OnceLock::new(),
        }
    }

    /// Builds it from the Go module proxy on a machine's first run (3 to 7
    /// minutes on 2 cores, more beside the other tests), under a deadline
    /// of its own: `start`'s is for starting. Cached after: at once.
    fn build(&self) {
        let run = Cmd::new(common::root().join("tests/cluster/build"))
            .arg(self.name)
            .deadline(self.build_deadline)
            .run();
        assert_eq!(
            run.code, 0,
            "tests/cluster/build {} failed\nstdout:\n{}\nstderr:\n{}",
            self.name, run.stdout, run.stderr
        );
    }

    /// `tests/cluster/operator NAME ACTION`, which must succeed.
    fn run(&self, action: &str) -> Run {
        let run = Cmd::new(operator_script())
            .args([self.name, action])
            .deadline(Duration::from_secs(200))
            .run();
        assert_eq!(
            run.code, 0,
            "tests/cluster/operator {} {action} failed\nstdout:\n{}\nstderr:\n{}",
            self.name, run.stdout, run.stderr
        );
        run
    }

    /// Starts it the first time a test of this binary needs it (the script
    /// installs its CRDs and waits until it is ready); what it printed.
    fn ensure_started(&self) -> &str {
        self.started.get_or_init(|| {
            support::cluster();
            self.build();
            // Its CRDs change discovery under any test that counts on it.
            let _catalog = support::catalog_lock();
            self.run("start").stdout
        })
    }

    /// For a test that needs it running: shared with other such tests.
    fn running(&'static self) -> RwLockReadGuard<'static, ()> {
        let guard = self.lock.read().unwrap_or_else(PoisonError::into_inner);
        self.ensure_started();
        guard
    }

    /// For a test that stops or freezes it: no other test of it runs
    /// meanwhile, and it is running again when the guard is dropped.
    fn exclusive(&'static self) -> Outage {
        let guard = self.lock.write().unwrap_or_else(PoisonError::into_inner);
        self.ensure_started();
        // A test before this one that failed to start it again would
        // leave it stopped: `start` is idempotent.
        self.run("start");
        Outage {
            operator: self,
            _guard: guard,
        }
    }
}

/// An operator held by one test, which may stop or freeze it; started (or
/// thawed) again when dropped, before the lock is released.
struct Outage {
    operator: &'static Operator,
    _guard: RwLockWriteGuard<'static, ()>,
}

impl Outage {
    fn stop(&self) {
        self.operator.run("stop");
        assert_eq!(self.operator.run("status").stdout.trim(), "stopped");
    }

    fn freeze(&self) {
        self.operator.run("freeze");
        assert_eq!(self.operator.run("status").stdout.trim(), "frozen");
    }

    fn thaw(&self) {
        self.operator.run("thaw");
        assert_eq!(self.operator.run("status").stdout.trim(), "running");
    }

    fn start(&self) {
        self.operator.run("start");
        assert_eq!(self.operator.run("status").stdout.trim(), "running");
    }
}

impl Drop for Outage {
    fn drop(&mut self) {
        // Never panics (this may run while a failed test unwinds): `start`
        // thaws a frozen operator and starts a stopped one.
        let status = std::process::Command::new(operator_script())
            .args([self.operator.name, "start"])
            .stdout(std::process::Stdio::null())
            .status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!(
                "tests/cluster/operator {} start failed after the test: {status:?}",
                self.operator.name
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Argo Rollouts

/// The `kubectl-argo-rollouts` plugin built beside the controller, as
/// `operator argo-rollouts start` printed it.
fn argo_plugin() -> PathBuf {
    let out = ARGO_ROLLOUTS.ensure_started();
    out.lines()
        .find_map(|l| l.strip_prefix("KUBECTL_ARGO_ROLLOUTS="))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("operator argo-rollouts start printed no plugin path:\n{out}"))
}

/// Runs `kubectl-argo-rollouts ARGS -n NS`: the ground truth.
fn argo(ns: &Namespace, args: &[&str]) -> Run {
    Cmd::new(argo_plugin())
        .env("KUBECONFIG", &support::cluster().kubeconfig)
        .args(args)
        .args(["-n", &ns.name])
        .deadline(Duration::from_secs(120))
        .run()
}

/// What `kubectl-argo-rollouts status NAME --timeout 1s` says now: its last
/// line (`Healthy`, `Paused - CanaryPauseStep`, `Degraded - ...`,
/// `Progressing - ...`), and its exit status (0 only when Healthy).
fn argo_status(ns: &Namespace, name: &str) -> (i32, String) {
    let run = argo(ns, &["status", name, "--timeout", "1s"]);
    let last = run.stdout.lines().last().unwrap_or("").trim().to_string();
    (run.code, last)
}

/// A Rollout of `example.test/app:1` with `replicas` pods and this canary
/// strategy (its `steps:` list, indented for under `canary:`).
fn rollout(name: &str, replicas: u32, steps: &str) -> String {
    format!(
        r#"
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  revisionHistoryLimit: 3
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - {{name: app, image: example.test/app:1}}
  strategy:
    canary:
{steps}"#
    )
}

const TIMED_PAUSE: &str = "      steps:\n      - setWeight: 50\n      - pause: {duration: 2s}\n";
const INDEFINITE_PAUSE: &str = "      steps:\n      - setWeight: 50\n      - pause: {}\n";
const NO_PAUSE: &str = "      steps:\n      - setWeight: 50\n";

/// Creates Rollout `web` and waits, as its own plugin does, until Healthy.
fn healthy_rollout(ns: &Namespace, replicas: u32, steps: &str) {
    ns.apply(&rollout("web", replicas, steps));
    let run = argo(ns, &["status", "web", "--timeout", "60s"]);
    assert_eq!(
        run.code, 0,
        "kubectl-argo-rollouts status web --timeout 60s\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stdout.lines().last(), Some("Healthy"), "{}", run.stdout);
}

/// Sets the image of container `app` of Rollout `web` with a JSON patch;
/// returns the Rollout's generation after the patch.
fn patch_image(ns: &Namespace, image: &str) -> u64 {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let run = ns
        .kubectl(&[
            "patch",
            "rollout.argoproj.io/web",
            "--type=json",
            "-p",
            &patch,
            "-o",
            "jsonpath={.metadata.generation}",
        ])
        .ok();
    run.stdout.trim().parse().expect("a generation")
}

/// The Rollout `web` as JSON.
fn rollout_json(ns: &Namespace) -> Value {
    ns.kubectl(&["get", "rollout.argoproj.io/web", "-o", "json"])
        .ok()
        .json()
}

/// Waits until the controller has observed the Rollout's latest spec and
/// made the ReplicaSet of its new revision; returns that ReplicaSet's
/// pod-template hash.
fn wait_for_canary_replicaset(ns: &Namespace) -> String {
    let mut hash = String::new();
    wait_until(
        "the controller to make the new ReplicaSet",
        Duration::from_secs(60),
        || {
            let r = rollout_json(ns);
            let observed = r["status"]["observedGeneration"]
                == r["metadata"]["generation"].to_string().as_str();
            hash = r["status"]["currentPodHash"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            observed
                && !hash.is_empty()
                && r["status"]["stableRS"].as_str() != Some(hash.as_str())
                && ns
                    .kubectl(&[
                        "get",
                        "replicasets",
                        "-l",
                        &format!("rollouts-pod-template-hash={hash}"),
                        "-o",
                        "name",
                    ])
                    .ok()
                    .stdout
                    .contains("replicaset")
        },
    );
    hash
}

/// `kubectl reconcile -n NS wait ARGS` left running, once it has judged its
/// targets a first time (its first progress line on stderr), so that what
/// changes after is seen only through its watches.
fn wait_in_background(ns: &Namespace, args: &[&str]) -> support::Logged {
    let mut all = vec!["-n", ns.name.as_str(), "wait"];
    all.extend_from_slice(args);
    let logged = support::Logged::start(&format!("{}-wait", ns.name), &all);
    wait_until(
        "the wait's first progress line",
        Duration::from_secs(30),
        || logged.err().contains("waiting for "),
    );
    logged
}

// ---------------------------------------------------------------------------
// The plugin's answers

/// The first item of `COMMAND TARGET -o json` (status, why), with the exit
/// status.
fn item_of(ns: &Namespace, command: &str, target: &str) -> (i32, Value) {
    let run = ns.reconcile(&[command, target, "-o", "json"]);
    assert!(
        run.code == 0 || run.code == 1,
        "{command} {target} could not answer ({})\nstdout:\n{}\nstderr:\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
    (run.code, run.json()["items"][0].clone())
}

/// The gist of a `why` item, for messages: verdict, root cause, chain and
/// next steps.
fn why_gist(item: &Value) -> String {
    let chain: Vec<String> = item["chain"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            format!(
                "{}/{} {} {}: {}",
                l["object"]["kind"].as_str().unwrap_or("container"),
                l["object"]["name"]
                    .as_str()
                    .or(l["container"].as_str())
                    .unwrap_or(""),
                l["verdict"].as_str().unwrap_or(""),
                l["reason"].as_str().unwrap_or(""),
                l["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    format!(
        "verdict {} ({}): {}\nroot cause: {}\nchain:\n  {}\nnext steps: {:#}",
        item["verdict"],
        item["reason"],
        item["message"],
        item["rootCause"],
        chain.join("\n  "),
        item["nextSteps"]
    )
}

/// Every command of a `why` item's next steps.
fn step_commands(item: &Value) -> Vec<String> {
    item["nextSteps"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["commands"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The commands under `Next step` in a text diagnosis (`why`, or what a
/// failed `wait` prints): its indented `kubectl ...` lines.
fn text_step_commands(text: &str) -> Vec<String> {
    let (_, steps) = text
        .split_once("\nNext step\n")
        .unwrap_or_else(|| panic!("no Next step in:\n{text}"));
    steps
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("kubectl "))
        .map(str::to_string)
        .collect()
}

/// stdout and stderr of a run, for messages and for "names X" checks.
fn both(run: &Run) -> String {
    format!("{}\n{}", run.stdout, run.stderr)
}

/// A condition of an object, by type.
fn condition<'a>(object: &'a Value, kind: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

// ---------------------------------------------------------------------------
// 1. Argo Rollouts: a healthy canary

#[test]
fn argo_rollouts_healthy_canary_is_converged() {
    let _argo = ARGO_ROLLOUTS.running();
    let ns = Namespace::new("op-argo-healthy");
    healthy_rollout(&ns, 2, TIMED_PAUSE);

    let status = ns.reconcile(&["status", "rollout/web"]);
    assert_eq!(status.code, 0, "{}", both(&status));
    assert!(
        status
            .stdout
            .lines()
            .any(|l| l.starts_with("Rollout/web") && l.contains("Converged")),
        "{}",
        status.stdout
    );
    let (_, item) = item_of(&ns, "status", "rollout/web");
    assert_eq!(item["verdict"], "Converged", "{item:#}");

    let wait = ns.reconcile(&["wait", "rollout.argoproj.io/web", "--timeout", "30s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    assert!(wait.took < Duration::from_secs(10), "took {:?}", wait.took);

    // An update through the canary's steps (setWeight 50, a 2 s pause): the
    // wait ends once the Rollout is Healthy again on the new revision.
    let generation = patch_image(&ns, "example.test/app:2");
    let wait = ns.reconcile(&["wait", "rollout.argoproj.io/web", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let (code, said) = argo_status(&ns, "web");
    assert_eq!(
        (code, said.as_str()),
        (0, "Healthy"),
        "wait exited 0 but kubectl-argo-rollouts says otherwise:\n{}",
        both(&wait)
    );
    let r = rollout_json(&ns);
    assert_eq!(
        r["status"]["observedGeneration"],
        generation.to_string(),
        "{r:#}"
    );
}

// ---------------------------------------------------------------------------
// 2. Argo Rollouts: a new image that cannot be pulled

#[test]
fn argo_rollouts_unpullable_image_fails_fast_with_argo_steps() {
    let _argo = ARGO_ROLLOUTS.running();
    let ns = Namespace::new("op-argo-pull");
    healthy_rollout(&ns, 2, TIMED_PAUSE);
    argo(
        &ns,
        &["set", "image", "web", "app=unpullable.invalid/app:1"],
    )
    .ok();
    // The wait starts once the controller has made the new ReplicaSet (a
    // wait that starts before it: the frozen-controller test below).
    wait_for_canary_replicaset(&ns);

    let wait = ns.reconcile(&["wait", "rollout/web", "--fail-fast", "--timeout", "90s"]);
    let out = both(&wait);
    assert_eq!(wait.code, 1, "{out}");
    assert!(
        wait.took < Duration::from_secs(45),
        "--fail-fast took {:?}:\n{out}",
        wait.took
    );
    assert!(out.contains("ImagePullBackOff"), "{out}");
    let commands = text_step_commands(&wait.stdout);
    let set_image = format!("kubectl argo rollouts -n {} set image web ", ns.name);
    assert!(
        commands.iter().any(|c| c.starts_with(&set_image)),
        "no `{set_image}...` in the next steps:\n{out}"
    );
    assert!(
        !out.contains("set image replicaset/"),
        "a step edits the ReplicaSet the operator owns:\n{out}"
    );
    // The operator's chain (Rollout, ReplicaSets, pods, events) captured
    // replays as it was read.
    let capture = support::replays_the_same(&ns, &[], &["rollout/web"]);
    assert!(capture.contains("kind: Rollout"), "{capture}");

    // The ground truth: not Healthy, and the canary's pod cannot pull.
    let (code, said) = argo_status(&ns, "web");
    assert_ne!(code, 0, "kubectl-argo-rollouts status: {said}");
    assert!(!said.starts_with("Healthy"), "{said}");
    let hash = rollout_json(&ns)["status"]["currentPodHash"]
        .as_str()
        .unwrap()
        .to_string();
    let pods = ns
        .kubectl(&[
            "get",
            "pods",
            "-l",
            &format!("rollouts-pod-template-hash={hash}"),
            "-o",
            "jsonpath={.items[*].status.containerStatuses[*].state.waiting.reason}",
        ])
        .ok()
        .stdout;
    assert!(
        pods.contains("ImagePullBackOff") || pods.contains("ErrImagePull"),
        "the canary pods of {hash}: {pods}"
    );
}

// ---------------------------------------------------------------------------
// 3. Argo Rollouts: an indefinite pause, then an abort

#[test]
fn argo_rollouts_indefinite_pause_then_abort() {
    let _argo = ARGO_ROLLOUTS.running();
    let ns = Namespace::new("op-argo-pause");
    healthy_rollout(&ns, 2, INDEFINITE_PAUSE);
    argo(&ns, &["set", "image", "web", "app=example.test/app:2"]).ok();

    let mut said = String::new();
    wait_until(
        "kubectl-argo-rollouts to say Paused",
        Duration::from_secs(60),
        || {
            said = argo_status(&ns, "web").1;
            said.starts_with("Paused")
        },
    );
    assert_eq!(said, "Paused - CanaryPauseStep");

    let (code, item) = item_of(&ns, "status", "rollout/web");
    assert_eq!(code, 1);
    assert_eq!(
        item["verdict"], "Suspended",
        "kubectl-argo-rollouts says {said:?}; the plugin: {item:#}"
    );
    let (code, why) = item_of(&ns, "why", "rollout/web");
    assert_eq!(code, 1);
    let promote = format!("kubectl argo rollouts -n {} promote web", ns.name);
    assert!(
        step_commands(&why).contains(&promote),
        "no `{promote}` in the next steps of why, while kubectl-argo-rollouts says {said:?}:\n{}",
        why_gist(&why)
    );

    argo(&ns, &["abort", "web"]).ok();
    wait_until(
        "kubectl-argo-rollouts to say Degraded",
        Duration::from_secs(60),
        || {
            said = argo_status(&ns, "web").1;
            said.starts_with("Degraded")
        },
    );
    assert!(said.contains("RolloutAborted"), "{said}");
    // Asked at once, as a user would once the operator says Degraded (the
    // canary's pods may still be going away then); every check is made
    // before any fails, so that a failure shows them all.
    let (_, why) = item_of(&ns, "why", "rollout/web");
    let (code, item) = item_of(&ns, "status", "rollout/web");
    let wait = ns.reconcile(&["wait", "rollout/web", "--timeout", "30s"]);
    let mut wrong = Vec::new();
    if (code, item["verdict"].as_str(), item["reason"].as_str())
        != (1, Some("Failed"), Some("RolloutAborted"))
    {
        wrong.push(format!(
            "status is not Failed (RolloutAborted) while kubectl-argo-rollouts says {said:?}: {item:#}"
        ));
    }
    let retry = format!("kubectl argo rollouts -n {} retry rollout web", ns.name);
    if !step_commands(&why).contains(&retry) {
        wrong.push(format!(
            "no `{retry}` in the next steps of why, while kubectl-argo-rollouts says {said:?}:\n{}",
            why_gist(&why)
        ));
    }
    // A wait on an aborted Rollout ends at once: it will not converge alone.
    if wait.code != 1 || wait.took > Duration::from_secs(10) {
        wrong.push(format!(
            "wait exited {} after {:?}:\n{}",
            wait.code,
            wait.took,
            both(&wait)
        ));
    } else if !text_step_commands(&wait.stdout).contains(&retry) {
        wrong.push(format!(
            "no `{retry}` in the wait's next steps:\n{}",
            both(&wait)
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

// ---------------------------------------------------------------------------
// 4. Argo Rollouts: a wait started at once after the change

#[test]
fn argo_rollouts_wait_right_after_a_change_never_passes_the_old_revision() {
    let _argo = ARGO_ROLLOUTS.running();
    let ns = Namespace::new("op-argo-race");
    let replicas = 2;
    healthy_rollout(&ns, replicas, NO_PAUSE);

    for n in 2..=11 {
        let image = format!("example.test/app:{n}");
        let generation = patch_image(&ns, &image);
        let wait = ns.reconcile(&["wait", "rollout/web", "--timeout", "60s"]);
        // What holds the moment the wait exited, read at once.
        let r = rollout_json(&ns);
        let (argo_code, said) = argo_status(&ns, "web");
        let out = both(&wait);
        assert_eq!(wait.code, 0, "round {n}: {out}");
        assert_eq!(
            r["metadata"]["generation"], generation,
            "round {n}: something else changed the spec: {r:#}"
        );
        assert_eq!(
            r["status"]["observedGeneration"],
            generation.to_string(),
            "round {n}: wait exited 0 before Argo Rollouts observed generation {generation}:\n{out}\n{r:#}"
        );
        assert_eq!(
            (argo_code, said.as_str()),
            (0, "Healthy"),
            "round {n}: wait exited 0 while kubectl-argo-rollouts says {said:?}:\n{out}"
        );
        let stable = r["status"]["stableRS"].as_str().unwrap_or_default();
        let pods = ns
            .kubectl(&[
                "get",
                "pods",
                "-l",
                &format!("rollouts-pod-template-hash={stable}"),
                "-o",
                "json",
            ])
            .ok()
            .json();
        let images: Vec<&str> = pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .map(|p| p["spec"]["containers"][0]["image"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            images,
            vec![image.as_str(); replicas as usize],
            "round {n}: the stable ReplicaSet {stable}'s pods when wait exited 0:\n{out}"
        );
    }
}

// ---------------------------------------------------------------------------
// 5. Argo Rollouts: its controller stopped, or frozen

/// A change that the controller cannot observe: judged as a lag, never
/// Converged; a short wait times out; its own plugin says the same.
fn assert_change_unobserved(ns: &Namespace, generation: u64) {
    let r = rollout_json(ns);
    assert_eq!(
        r["status"]["observedGeneration"],
        (generation - 1).to_string(),
        "the controller observed the change: {r:#}"
    );
    let status = ns.reconcile(&["status", "rollout/web"]);
    assert_eq!(status.code, 1, "{}", both(&status));
    assert!(!status.stdout.contains("Converged"), "{}", status.stdout);
    let (_, item) = item_of(ns, "status", "rollout/web");
    assert_eq!(
        (item["verdict"].as_str(), item["reason"].as_str()),
        (Some("Progressing"), Some("ObservedGenerationLag")),
        "{item:#}"
    );
    let wait = ns.reconcile(&["wait", "rollout/web", "--timeout", "5s"]);
    assert_eq!(wait.code, 1, "{}", both(&wait));
    assert!(
        wait.took >= Duration::from_secs(5) && wait.took < Duration::from_secs(20),
        "wait --timeout 5s took {:?}",
        wait.took
    );
    let (code, said) = argo_status(ns, "web");
    assert_eq!(code, 1);
    assert_eq!(
        said,
        "Progressing - waiting for rollout spec update to be observed"
    );
}

/// After the controller is back: the wait ends 0 and its plugin agrees.
fn assert_converges_again(ns: &Namespace, generation: u64) {
    let wait = ns.reconcile(&["wait", "rollout/web", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let (code, said) = argo_status(ns, "web");
    assert_eq!((code, said.as_str()), (0, "Healthy"));
    let r = rollout_json(ns);
    assert_eq!(r["status"]["observedGeneration"], generation.to_string());
}

/// `why TARGET` once it traces the lag to a controller that is down (its
/// Lease expired and the lag outlasted its grace): the item, whose
/// controller is the `lease` (namespace, name).
fn down_by_lease(ns: &Namespace, target: &str, changed: Instant, lease: (&str, &str)) -> Value {
    let mut item = Value::Null;
    wait_until(
        "why to find the controller down",
        Duration::from_secs(90),
        || {
            item = item_of(ns, "why", target).1;
            item["rootCause"]["reason"] == "ControllerDown"
        },
    );
    eprintln!(
        "why named the controller down {:?} after the change",
        changed.elapsed()
    );
    let c = &item["controller"];
    assert_eq!(
        (
            c["lease"]["namespace"].as_str(),
            c["lease"]["name"].as_str()
        ),
        (Some(lease.0), Some(lease.1)),
        "{c:#}"
    );
    item
}

#[test]
fn argo_rollouts_controller_stopped_is_named_by_its_lease() {
    let argo = ARGO_ROLLOUTS.exclusive();
    let ns = Namespace::new("op-argo-stopped");
    healthy_rollout(&ns, 2, TIMED_PAUSE);
    argo.stop();
    let changed = Instant::now();
    let generation = patch_image(&ns, "example.test/app:2");
    assert_change_unobserved(&ns, generation);

    // Once the Lease (15 s) has expired and the lag outlasted its 30 s
    // grace, `why` traces it to the controller.
    let item = down_by_lease(
        &ns,
        "rollout/web",
        changed,
        ("argo-rollouts", "argo-rollouts-controller-lock"),
    );
    let c = &item["controller"];
    assert_eq!(
        (c["expired"].as_bool(), c["down"].as_bool()),
        (Some(true), Some(true)),
        "{c:#}"
    );
    let why = ns.reconcile(&["why", "rollout/web"]);
    assert_eq!(why.code, 1, "{}", both(&why));
    assert!(
        why.stdout
            .contains("Root cause: Lease ControllerDown (Lease/argo-rollouts-controller-lock)"),
        "{}",
        why.stdout
    );
    assert!(
        why.stdout
            .contains("argo-rollouts/argo-rollouts-controller-lock")
            && why.stdout.contains("not renewed"),
        "{}",
        why.stdout
    );
    assert!(
        text_step_commands(&why.stdout).contains(
            &"kubectl -n argo-rollouts get lease argo-rollouts-controller-lock -o yaml".to_string()
        ),
        "{}",
        why.stdout
    );
    // A capture holds the stopped controller's Lease, and replays the same.
    let capture = support::replays_the_same(&ns, &[], &["rollout/web"]);
    assert!(
        capture.contains("argo-rollouts-controller-lock"),
        "{capture}"
    );

    argo.start();
    assert_converges_again(&ns, generation);
}

#[test]
fn argo_rollouts_controller_frozen_leaves_the_change_unobserved() {
    let argo = ARGO_ROLLOUTS.exclusive();
    let ns = Namespace::new("op-argo-frozen");
    healthy_rollout(&ns, 2, TIMED_PAUSE);
    argo.freeze();
    let generation = patch_image(&ns, "example.test/app:2");
    assert_change_unobserved(&ns, generation);
    argo.thaw();
    assert_converges_again(&ns, generation);
}

/// A wait that began before the controller made the new ReplicaSet: the
/// ReplicaSet and its pods appear only through the wait's watches, and
/// `--fail-fast` must still end it as soon as they fail.
#[test]
fn argo_rollouts_fail_fast_sees_a_replicaset_made_after_the_wait_began() {
    let argo = ARGO_ROLLOUTS.exclusive();
    let ns = Namespace::new("op-argo-late");
    healthy_rollout(&ns, 2, TIMED_PAUSE);
    argo.freeze();
    patch_image(&ns, "unpullable.invalid/app:1");
    let mut wait = wait_in_background(&ns, &["rollout/web", "--fail-fast", "--timeout", "45s"]);
    argo.thaw();
    let thawed = Instant::now();
    // The ground truth: the controller made the canary, whose pod cannot
    // pull its image.
    let hash = wait_for_canary_replicaset(&ns);
    wait_until(
        "the canary's pod in ImagePullBackOff",
        Duration::from_secs(60),
        || {
            ns.jsonpath(
                "pods",
                "{.items[*].status.containerStatuses[*].state.waiting.reason}",
            )
            .contains("ImagePullBackOff")
        },
    );
    failed_fast(
        &mut wait,
        thawed,
        &format!("the canary {hash}'s pod"),
        "ImagePullBackOff",
    );
}

/// `wait --fail-fast`, begun before the operator made the child whose pod
/// now fails, ends with exit 1 and `reason` soon after the thaw, not at its
/// timeout.
fn failed_fast(wait: &mut support::Logged, thawed: Instant, what: &str, reason: &str) {
    let failing = thawed.elapsed();
    let code = wait.wait_exit(Duration::from_secs(60));
    let out = format!("stdout:\n{}\nstderr:\n{}", wait.out(), wait.err());
    assert_eq!(code, Some(1), "{out}");
    assert!(
        wait.err()
            .contains(&format!("failed ({reason}); it will not converge")),
        "{what} failed {failing:?} after the thaw, yet --fail-fast ran to its timeout ({:?} after the thaw):\n{out}",
        thawed.elapsed()
    );
    assert!(
        thawed.elapsed() < Duration::from_secs(30),
        "{:?} after the thaw:\n{out}",
        thawed.elapsed()
    );
    assert!(out.contains(reason), "{out}");
}

// ---------------------------------------------------------------------------
// 6. prometheus-operator

/// Waits until the operator has made this StatefulSet.
fn wait_for_statefulset(ns: &Namespace, name: &str) {
    wait_until(
        &format!("the operator to make StatefulSet {name}"),
        Duration::from_secs(60),
        || ns.kubectl(&["get", "statefulset", name]).code == 0,
    );
}

fn monitoring(kind: &str, name: &str, spec: &str) -> String {
    format!(
        "apiVersion: monitoring.coreos.com/v1\nkind: {kind}\nmetadata: {{name: {name}}}\nspec:\n{spec}"
    )
}

#[test]
fn prometheus_healthy_converges_while_available() {
    let _op = PROMETHEUS_OPERATOR.running();
    let ns = Namespace::new("op-prom-healthy");
    ns.apply(&monitoring("Prometheus", "main", "  replicas: 1\n"));
    let wait = ns.reconcile(&["wait", "prometheus/main", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let p = ns
        .kubectl(&["get", "prometheus.monitoring.coreos.com/main", "-o", "json"])
        .ok()
        .json();
    let available = condition(&p, "Available").unwrap_or_else(|| panic!("{p:#}"));
    assert_eq!(
        available["status"], "True",
        "wait exited 0 while the operator says {available:#}"
    );
    assert_eq!(available["observedGeneration"], p["metadata"]["generation"]);
    let (_, item) = item_of(&ns, "status", "prometheus/main");
    assert_eq!(item["verdict"], "Converged", "{item:#}");
}

/// One pod of two failing: the operator's Available condition says
/// `Degraded` (neither True nor False), which is work under way with a
/// bound (Failed after 10 minutes: the rule's table test), never converged.
#[test]
fn prometheus_with_one_of_two_pods_failing_is_degraded_not_converged() {
    let _op = PROMETHEUS_OPERATOR.running();
    let ns = Namespace::new("op-prom-degraded");
    ns.apply(&monitoring("Prometheus", "main", "  replicas: 2\n"));
    let prometheus = "prometheus.monitoring.coreos.com/main";
    wait_until("both replicas available", Duration::from_secs(90), || {
        ns.jsonpath(prometheus, "{.status.availableReplicas}") == "2"
    });
    ns.kubectl(&[
        "label",
        "pod",
        "prometheus-main-1",
        "reconcile.test/failure=crash-loop",
    ])
    .ok();
    // The ground truth: the operator says Degraded.
    wait_until("Available=Degraded", Duration::from_secs(90), || {
        ns.jsonpath(
            prometheus,
            "{.status.conditions[?(@.type==\"Available\")].status}",
        ) == "Degraded"
    });
    let (code, item) = item_of(&ns, "status", "prometheus/main");
    assert_eq!(code, 1, "{item:#}");
    assert_eq!(
        (item["verdict"].as_str(), item["reason"].as_str()),
        (Some("Progressing"), Some("SomePodsNotReady")),
        "{item:#}"
    );
    assert!(
        item["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Available=Degraded: ")
                && m.ends_with("(1 of 2 replicas available)")),
        "{item:#}"
    );
}

#[test]
fn prometheus_crash_loop_fails_fast() {
    let _op = PROMETHEUS_OPERATOR.running();
    let ns = Namespace::new("op-prom-crash");
    ns.apply(&monitoring(
        "Prometheus",
        "main",
        "  replicas: 1\n  podMetadata:\n    labels: {reconcile.test/failure: crash-loop}\n",
    ));
    // The wait starts once the operator has made the StatefulSet (a wait
    // that starts before it: the frozen-operator test below).
    wait_for_statefulset(&ns, "prometheus-main");
    let wait = ns.reconcile(&["wait", "prometheus/main", "--fail-fast", "--timeout", "90s"]);
    let out = both(&wait);
    assert_eq!(wait.code, 1, "{out}");
    assert!(
        wait.took < Duration::from_secs(60),
        "--fail-fast took {:?}:\n{out}",
        wait.took
    );
    assert!(out.contains("CrashLoopBackOff"), "{out}");
    // The ground truth: the operator says no pod is ready.
    let p = ns
        .kubectl(&["get", "prometheus.monitoring.coreos.com/main", "-o", "json"])
        .ok()
        .json();
    let available = condition(&p, "Available").unwrap_or_else(|| panic!("{p:#}"));
    assert_eq!(
        (available["status"].as_str(), available["reason"].as_str()),
        (Some("False"), Some("NoPodReady")),
        "{available:#}"
    );
}

/// A wait that began before the operator made the StatefulSet: the
/// StatefulSet and its pod appear only through the wait's watches, and
/// `--fail-fast` must still end it as soon as the pod crash-loops.
#[test]
fn prometheus_fail_fast_sees_a_statefulset_made_after_the_wait_began() {
    let op = PROMETHEUS_OPERATOR.exclusive();
    let ns = Namespace::new("op-prom-late");
    op.freeze();
    ns.apply(&monitoring(
        "Prometheus",
        "main",
        "  replicas: 1\n  podMetadata:\n    labels: {reconcile.test/failure: crash-loop}\n",
    ));
    let mut wait = wait_in_background(&ns, &["prometheus/main", "--fail-fast", "--timeout", "45s"]);
    op.thaw();
    let thawed = Instant::now();
    // The ground truth: the operator made the StatefulSet, whose pod
    // crash-loops.
    wait_for_statefulset(&ns, "prometheus-main");
    wait_until(
        "pod prometheus-main-0 in CrashLoopBackOff",
        Duration::from_secs(60),
        || {
            ns.kubectl(&[
                "get",
                "pod",
                "prometheus-main-0",
                "-o",
                "jsonpath={.status.containerStatuses[*].state.waiting.reason}",
            ])
            .stdout
            .contains("CrashLoopBackOff")
        },
    );
    failed_fast(
        &mut wait,
        thawed,
        "pod prometheus-main-0",
        "CrashLoopBackOff",
    );
}

#[test]
fn alertmanager_unpullable_image_fails_fast_and_edits_the_alertmanager() {
    let _op = PROMETHEUS_OPERATOR.running();
    let ns = Namespace::new("op-prom-am");
    ns.apply(&monitoring(
        "Alertmanager",
        "main",
        "  replicas: 1\n  image: unpullable.invalid/app:1\n",
    ));
    wait_for_statefulset(&ns, "alertmanager-main");
    let wait = ns.reconcile(&[
        "wait",
        "alertmanager/main",
        "--fail-fast",
        "--timeout",
        "90s",
    ]);
    let out = both(&wait);
    assert_eq!(wait.code, 1, "{out}");
    assert!(
        wait.took < Duration::from_secs(60),
        "--fail-fast took {:?}:\n{out}",
        wait.took
    );
    assert!(out.contains("ImagePullBackOff"), "{out}");
    let commands = text_step_commands(&wait.stdout);
    let edit = format!(
        "kubectl -n {} edit alertmanager.monitoring.coreos.com/main",
        ns.name
    );
    assert!(commands.contains(&edit), "no `{edit}` in the steps:\n{out}");
    assert!(
        !commands
            .iter()
            .any(|c| c.to_ascii_lowercase().contains("statefulset")),
        "a step acts on the StatefulSet the operator owns: {commands:#?}"
    );
    let a = ns
        .kubectl(&[
            "get",
            "alertmanager.monitoring.coreos.com/main",
            "-o",
            "json",
        ])
        .ok()
        .json();
    let available = condition(&a, "Available").unwrap_or_else(|| panic!("{a:#}"));
    assert_eq!(
        (available["status"].as_str(), available["reason"].as_str()),
        (Some("False"), Some("NoPodReady")),
        "{available:#}"
    );
}

// ---------------------------------------------------------------------------
// 7. cert-manager

fn certificate(name: &str, issuer: &str) -> String {
    format!(
        r#"
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {{name: {name}}}
spec:
  secretName: {name}-tls
  dnsNames: [{name}.example.test]
  issuerRef: {{kind: Issuer, name: {issuer}}}
"#
    )
}

const SELF_SIGNED_ISSUER: &str = "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: selfsigned}\nspec: {selfSigned: {}}\n";

/// Whether `tree`'s node or one below it is `kind/name`.
fn tree_has(node: &Value, kind: &str, name: &str) -> bool {
    (node["object"]["kind"] == kind && node["object"]["name"] == name)
        || node["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|n| tree_has(n, kind, name)))
}

#[test]
fn cert_manager_missing_issuer_is_a_reference_not_found() {
    let _op = CERT_MANAGER.running();
    let ns = Namespace::new("op-cm-missing");
    ns.apply(&certificate("web", "does-not-exist"));
    // cert-manager retries a missing issuer: even `--fail-fast` gives it
    // the retry floor (30 s), then the wait ends with the cause.
    let wait = ns.reconcile(&["wait", "certificate/web", "--fail-fast", "--timeout", "90s"]);
    let out = both(&wait);
    assert_eq!(wait.code, 1, "{out}");
    assert!(
        wait.took >= Duration::from_secs(25) && wait.took < Duration::from_secs(60),
        "took {:?}",
        wait.took
    );
    assert!(out.contains("Failed (ReferenceNotFound)"), "{out}");
    assert!(out.contains("Issuer does-not-exist"), "{out}");

    // The ground truth: cert-manager's CertificateRequest is Pending on the
    // missing Issuer.
    let mut request = Value::Null;
    wait_until(
        "a CertificateRequest pending on the missing Issuer",
        Duration::from_secs(60),
        || {
            let list = ns
                .kubectl(&["get", "certificaterequests.cert-manager.io", "-o", "json"])
                .ok()
                .json();
            request = list["items"][0].clone();
            condition(&request, "Ready").is_some_and(|c| {
                c["status"] == "False"
                    && c["reason"] == "Pending"
                    && c["message"]
                        .as_str()
                        .is_some_and(|m| m.contains(r#""does-not-exist" not found"#))
            })
        },
    );

    let tree = ns.reconcile(&["tree", "certificate/web"]);
    assert_eq!(tree.code, 1, "{}", both(&tree));
    assert!(
        tree.stdout
            .lines()
            .any(|l| l.contains("Issuer/does-not-exist") && l.contains("NotFound")),
        "{}",
        tree.stdout
    );
    let (_, node) = item_of(&ns, "tree", "certificate/web");
    assert!(tree_has(&node, "Issuer", "does-not-exist"), "{node:#}");
}

#[test]
fn cert_manager_self_signed_certificate_converges() {
    let _op = CERT_MANAGER.running();
    let ns = Namespace::new("op-cm-ready");
    ns.apply(SELF_SIGNED_ISSUER);
    ns.apply(&certificate("web", "selfsigned"));
    let wait = ns.reconcile(&[
        "wait",
        "issuer.cert-manager.io/selfsigned",
        "certificate/web",
        "--timeout",
        "60s",
    ]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let cert = ns
        .kubectl(&["get", "certificate.cert-manager.io/web", "-o", "json"])
        .ok()
        .json();
    let ready = condition(&cert, "Ready").unwrap_or_else(|| panic!("{cert:#}"));
    assert_eq!(ready["status"], "True", "{ready:#}");
    assert_eq!(ready["observedGeneration"], cert["metadata"]["generation"]);
}

/// cert-manager's ingress-shim makes a Certificate owned by the Ingress
/// that asks for one: `tree` finds it (and its request) under the Ingress
/// with one list of Certificates, and an Ingress with none costs a few
/// requests, not a list of every type.
#[test]
fn cert_manager_ingress_shim_certificate_hangs_under_its_ingress() {
    let _op = CERT_MANAGER.running();
    let ns = Namespace::new("op-cm-ingress");
    ns.apply(SELF_SIGNED_ISSUER);
    let ingress = |name: &str, annotations: &str, tls: &str| {
        format!(
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: {name}, annotations: {{{annotations}}}}}\nspec:\n{tls}  rules:\n  - host: {name}.example.com\n    http: {{paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]}}\n"
        )
    };
    ns.apply(&ingress(
        "shop",
        "cert-manager.io/issuer: selfsigned",
        "  tls: [{hosts: [shop.example.com], secretName: shop-tls}]\n",
    ));
    ns.apply(&ingress("plain", "", ""));
    wait_until(
        "the shim's Certificate, issued",
        Duration::from_secs(60),
        || {
            ns.jsonpath(
                "certificaterequests.cert-manager.io",
                "{.items[*].metadata.name}",
            )
            .contains("shop-tls")
        },
    );
    let (_, node) = item_of(&ns, "tree", "ingress/shop");
    assert!(tree_has(&node, "Certificate", "shop-tls"), "{node:#}");
    assert!(
        node.to_string().contains("\"kind\":\"CertificateRequest\""),
        "the Certificate's own children are found too: {node:#}"
    );
    let plain = ns.reconcile(&["tree", "ingress/plain", "-v", "6"]);
    let requests = plain
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .count();
    assert!(
        requests <= 5,
        "{requests} requests for an Ingress that owns nothing:\n{}",
        plain.stderr
    );
}

#[test]
fn cert_manager_stopped_is_named_by_its_lease() {
    let cm = CERT_MANAGER.exclusive();
    let ns = Namespace::new("op-cm-stopped");
    ns.apply(SELF_SIGNED_ISSUER);
    ns.apply(&certificate("web", "selfsigned"));
    let wait = ns.reconcile(&["wait", "certificate/web", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));

    cm.stop();
    let changed = Instant::now();
    ns.kubectl(&[
        "patch",
        "certificate.cert-manager.io/web",
        "--type=merge",
        "-p",
        r#"{"spec":{"dnsNames":["web.example.test","www.example.test"]}}"#,
    ])
    .ok();
    let (code, item) = item_of(&ns, "status", "certificate/web");
    assert_eq!(code, 1);
    assert_eq!(
        (item["verdict"].as_str(), item["reason"].as_str()),
        (Some("Progressing"), Some("ObservedGenerationLag")),
        "{item:#}"
    );

    let item = down_by_lease(
        &ns,
        "certificate/web",
        changed,
        ("kube-system", "cert-manager-controller"),
    );
    let c = &item["controller"];
    assert_eq!(c["down"], true, "{c:#}");
    let matched = c["matchedBy"].as_str().unwrap_or_default();
    assert!(matched.contains("cert-manager"), "matched by: {matched:?}");
    eprintln!("cert-manager's Lease matched by: {matched}");
    let why = ns.reconcile(&["why", "certificate/web"]);
    assert_eq!(why.code, 1, "{}", both(&why));
    assert!(
        why.stdout.contains("kube-system/cert-manager-controller")
            && why.stdout.contains("not renewed"),
        "{}",
        why.stdout
    );

    cm.start();
    let wait = ns.reconcile(&["wait", "certificate/web", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let cert = ns
        .kubectl(&["get", "certificate.cert-manager.io/web", "-o", "json"])
        .ok()
        .json();
    let ready = condition(&cert, "Ready").unwrap();
    assert_eq!(
        (&ready["status"], &ready["observedGeneration"]),
        (&Value::from("True"), &cert["metadata"]["generation"]),
        "{cert:#}"
    );
}

// ---------------------------------------------------------------------------
// 8. External Secrets Operator
//
// ESO writes a Ready condition on an ExternalSecret but no observedGeneration
// anywhere: whether it saw the latest spec shows only in its own record of
// the last sync, `status.syncedResourceVersion` (`<generation>-<hash of the
// labels and annotations>`), which these tests read as the ground truth.
// `cargo test --test operators_e2e external_secret` runs them all.

/// A SecretStore of the `fake` provider, `name`, that holds `key: value`.
fn fake_store(name: &str, key: &str, value: &str) -> String {
    format!(
        r#"
apiVersion: external-secrets.io/v1
kind: SecretStore
metadata: {{name: {name}}}
spec:
  provider:
    fake:
      data:
      - {{key: {key}, value: {value}}}
"#
    )
}

/// The spec of an ExternalSecret that reads `remote` of SecretStore `store`
/// into key `k` of Secret `target`, indented by `indent` spaces.
fn external_secret_spec(store: &str, remote: &str, target: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    format!(
        "{pad}refreshInterval: 1h\n{pad}secretStoreRef: {{kind: SecretStore, name: {store}}}\n{pad}target: {{name: {target}}}\n{pad}data:\n{pad}- secretKey: k\n{pad}  remoteRef: {{key: {remote}}}\n"
    )
}

/// An ExternalSecret `name` that reads `remote` of SecretStore `store` into
/// the Secret of its own name.
fn external_secret(name: &str, store: &str, remote: &str) -> String {
    format!(
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {{name: {name}}}\nspec:\n{}",
        external_secret_spec(store, remote, name, 2)
    )
}

/// An ExternalSecret as JSON.
fn external_secret_json(ns: &Namespace, name: &str) -> Value {
    ns.kubectl(&[
        "get",
        &format!("externalsecret.external-secrets.io/{name}"),
        "-o",
        "json",
    ])
    .ok()
    .json()
}

/// The generation ESO last synced, from its `status.syncedResourceVersion`.
fn synced_generation(es: &Value) -> Option<u64> {
    es["status"]["syncedResourceVersion"]
        .as_str()?
        .split_once('-')?
        .0
        .parse()
        .ok()
}

/// SecretStore `fake` holding `k: v` and ExternalSecret `es-ok` reading it:
/// `wait` ends 0, and ESO agrees (Ready=True, the Secret written, the
/// spec's generation synced). Returns the ExternalSecret's generation.
fn healthy_external_secret(ns: &Namespace) -> u64 {
    ns.apply(&fake_store("fake", "k", "v"));
    ns.apply(&external_secret("es-ok", "fake", "k"));
    let wait = ns.reconcile(&["wait", "externalsecret/es-ok", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let es = external_secret_json(ns, "es-ok");
    let ready = condition(&es, "Ready").unwrap_or_else(|| panic!("{es:#}"));
    assert_eq!(
        (ready["status"].as_str(), ready["reason"].as_str()),
        (Some("True"), Some("SecretSynced")),
        "wait exited 0 before ESO synced: {es:#}"
    );
    let generation = es["metadata"]["generation"].as_u64().expect("a generation");
    assert_eq!(synced_generation(&es), Some(generation), "{es:#}");
    assert_eq!(
        ns.jsonpath("secret/es-ok", "{.data.k}"),
        "dg==",
        "the Secret holds v"
    );
    generation
}

/// Changes ExternalSecret `es-ok`'s spec (its refresh interval); returns
/// its generation after the change.
fn change_external_secret(ns: &Namespace) -> u64 {
    let run = ns
        .kubectl(&[
            "patch",
            "externalsecret.external-secrets.io/es-ok",
            "--type=merge",
            "-p",
            r#"{"spec":{"refreshInterval":"2h"}}"#,
            "-o",
            "jsonpath={.metadata.generation}",
        ])
        .ok();
    run.stdout.trim().parse().expect("a generation")
}

/// ESO has not synced the change (its ground truth), the plugin does not
/// call it Converged, and a short wait times out.
fn assert_external_secret_unsynced(ns: &Namespace, generation: u64) {
    let es = external_secret_json(ns, "es-ok");
    assert_eq!(
        synced_generation(&es),
        Some(generation - 1),
        "ESO synced the change: {es:#}"
    );
    let status = ns.reconcile(&["status", "externalsecret/es-ok"]);
    assert_ne!(status.code, 0, "{}", both(&status));
    let (_, item) = item_of(ns, "status", "externalsecret/es-ok");
    assert_ne!(item["verdict"], "Converged", "{item:#}");
    let wait = ns.reconcile(&["wait", "externalsecret/es-ok", "--timeout", "5s"]);
    assert_eq!(wait.code, 1, "{}", both(&wait));
    assert!(
        wait.took >= Duration::from_secs(5) && wait.took < Duration::from_secs(20),
        "wait --timeout 5s took {:?}",
        wait.took
    );
}

/// Once ESO runs again: the wait ends 0, and ESO synced the change.
fn assert_external_secret_synced_again(ns: &Namespace, generation: u64) {
    let wait = ns.reconcile(&["wait", "externalsecret/es-ok", "--timeout", "60s"]);
    assert_eq!(wait.code, 0, "{}", both(&wait));
    let es = external_secret_json(ns, "es-ok");
    assert_eq!(synced_generation(&es), Some(generation), "{es:#}");
    let ready = condition(&es, "Ready").unwrap_or_else(|| panic!("{es:#}"));
    assert_eq!(ready["status"], "True", "{es:#}");
}

/// ESO's Lease, `external-secrets/external-secrets-controller` (its
/// namespace set in the build: tests/cluster/modules/external-secrets).
const ESO_LEASE: (&str, &str) = ("external-secrets", "external-secrets-controller");

/// Whether ESO's Lease has expired: its renewTime plus its duration passed.
fn eso_lease_expired() -> bool {
    let lease = support::kubectl(&["get", "lease", "-n", ESO_LEASE.0, ESO_LEASE.1, "-o", "json"])
        .ok()
        .json();
    let renewed: jiff::Timestamp = lease["spec"]["renewTime"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("a Lease renewTime: {lease:#}"));
    let duration = lease["spec"]["leaseDurationSeconds"].as_i64().unwrap_or(0);
    jiff::Timestamp::now() > renewed + jiff::SignedDuration::from_secs(duration)
}

#[test]
fn external_secrets_healthy_is_converged() {
    let _eso = EXTERNAL_SECRETS.running();
    let ns = Namespace::new("op-eso-ok");
    healthy_external_secret(&ns);
    let (code, item) = item_of(&ns, "status", "externalsecret/es-ok");
    assert_eq!(
        (code, item["verdict"].as_str()),
        (0, Some("Converged")),
        "{item:#}"
    );
}

#[test]
fn external_secrets_stopped_operator_leaves_a_changed_spec_unconverged() {
    let eso = EXTERNAL_SECRETS.exclusive();
    let ns = Namespace::new("op-eso-stopped");
    healthy_external_secret(&ns);
    eso.stop();
    let changed = Instant::now();
    let generation = change_external_secret(&ns);

    // Right after the change: a spec ESO has not seen yet.
    let (code, item) = item_of(&ns, "status", "externalsecret/es-ok");
    assert_eq!(code, 1, "{item:#}");
    assert_eq!(
        (item["verdict"].as_str(), item["reason"].as_str()),
        (Some("Progressing"), Some("SpecNotObserved")),
        "{item:#}"
    );
    assert_external_secret_unsynced(&ns, generation);

    // Once the Lease (15 s) expired and the change is 30 s old, nobody will
    // sync it: Failed, and the message names the Lease.
    wait_until(
        "ESO's Lease to expire",
        Duration::from_secs(60),
        eso_lease_expired,
    );
    std::thread::sleep(Duration::from_secs(30).saturating_sub(changed.elapsed()));
    let mut item = Value::Null;
    wait_until("status to find ESO down", Duration::from_secs(90), || {
        item = item_of(&ns, "status", "externalsecret/es-ok").1;
        item["verdict"] == "Failed"
    });
    eprintln!(
        "status called it Failed {:?} after the change",
        changed.elapsed()
    );
    assert_eq!(item["reason"], "ControllerDown", "{item:#}");
    let message = item["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(ESO_LEASE.1),
        "the message names no Lease: {item:#}"
    );
    let why = ns.reconcile(&["why", "externalsecret/es-ok"]);
    assert_eq!(why.code, 1, "{}", both(&why));
    assert!(why.stdout.contains(ESO_LEASE.1), "{}", why.stdout);

    eso.start();
    assert_external_secret_synced_again(&ns, generation);
}

#[test]
fn external_secrets_frozen_operator_leaves_a_changed_spec_unconverged() {
    let eso = EXTERNAL_SECRETS.exclusive();
    let ns = Namespace::new("op-eso-frozen");
    healthy_external_secret(&ns);
    eso.freeze();
    let generation = change_external_secret(&ns);
    assert_external_secret_unsynced(&ns, generation);
    eso.thaw();
    assert_external_secret_synced_again(&ns, generation);
}

/// A SecretStore that does not exist yet: ESO writes Ready=False
/// (SecretSyncedError) and retries, and the error clears once the store is
/// made. Within the failure grace that is work under way, not a failure.
#[test]
fn external_secrets_error_that_clears_by_itself_is_not_final() {
    let _eso = EXTERNAL_SECRETS.running();
    let ns = Namespace::new("op-eso-late");
    ns.apply(&external_secret("x", "late", "k"));
    // The ground truth: ESO failed to sync it.
    wait_until("ESO to write Ready=False", Duration::from_secs(30), || {
        let es = external_secret_json(&ns, "x");
        condition(&es, "Ready")
            .is_some_and(|c| c["status"] == "False" && c["reason"] == "SecretSyncedError")
    });
    let failed = Instant::now();
    let (code, item) = item_of(&ns, "status", "externalsecret/x");
    assert!(
        failed.elapsed() < Duration::from_secs(3),
        "status took {:?}",
        failed.elapsed()
    );
    assert_eq!(
        (code, item["verdict"].as_str()),
        (1, Some("Progressing")),
        "an error seconds old is not final: {item:#}"
    );

    let mut wait = wait_in_background(&ns, &["externalsecret/x", "--timeout", "90s"]);
    std::thread::sleep(Duration::from_secs(10));
    ns.apply(&fake_store("late", "k", "v"));
    let code = wait.wait_exit(Duration::from_secs(100));
    let out = format!("stdout:\n{}\nstderr:\n{}", wait.out(), wait.err());
    assert_eq!(code, Some(0), "{out}");
    let es = external_secret_json(&ns, "x");
    let ready = condition(&es, "Ready").unwrap_or_else(|| panic!("{es:#}"));
    assert_eq!(
        ready["status"], "True",
        "wait exited 0 before ESO synced: {es:#}\n{out}"
    );
}

/// A cluster-scoped object made by a test, deleted when dropped.
struct ClusterObject(String);

impl Drop for ClusterObject {
    fn drop(&mut self) {
        let _ = support::kubectl(&["delete", &self.0, "--wait=false"]);
    }
}

/// A ClusterExternalSecret that made its ExternalSecret, which cannot get
/// its key from the provider: ESO calls the ClusterExternalSecret Ready
/// (it provisioned the namespace), yet what it stands for never arrives.
#[test]
fn cluster_external_secret_above_a_failing_external_secret_is_not_converged() {
    let _eso = EXTERNAL_SECRETS.running();
    let ns = Namespace::new("op-eso-ces");
    ns.apply(&fake_store("fake", "k", "v"));
    let name = format!("ces-{}", ns.name);
    let _ces = ClusterObject(format!("clusterexternalsecret.external-secrets.io/{name}"));
    support::kubectl_as(
        &support::cluster().kubeconfig,
        &["apply", "-f", "-"],
        Some(&format!(
            "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: {{name: {name}}}\nspec:\n  externalSecretName: es-missing\n  namespaceSelectors:\n  - matchLabels: {{kubernetes.io/metadata.name: {}}}\n  externalSecretSpec:\n{}",
            ns.name,
            external_secret_spec("fake", "missing", "es-missing", 4)
        )),
    )
    .ok();
    // The ground truth: the child exists and ESO failed to sync it.
    wait_until(
        "the child ExternalSecret, failing",
        Duration::from_secs(60),
        || {
            let list = ns
                .kubectl(&["get", "externalsecrets.external-secrets.io", "-o", "json"])
                .ok()
                .json();
            list["items"].as_array().is_some_and(|items| {
                items.iter().any(|es| {
                    es["metadata"]["name"] == "es-missing"
                        && condition(es, "Ready").is_some_and(|c| c["status"] == "False")
                })
            })
        },
    );

    let target = format!("clusterexternalsecret/{name}");
    let (_, node) = item_of(&ns, "tree", &target);
    assert!(tree_has(&node, "ExternalSecret", "es-missing"), "{node:#}");
    // The root line is the tree's verdict; what the object says of itself
    // is kept as `own`.
    assert_ne!(node["verdict"], "Converged", "{node:#}");
    assert_eq!(node["own"]["verdict"], "Converged", "{node:#}");
    assert!(
        node["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("ExternalSecret es-missing is ")),
        "{node:#}"
    );
    let (code, item) = item_of(&ns, "status", &target);
    assert_eq!(code, 1, "{item:#}");
    assert_ne!(item["verdict"], "Converged", "{item:#}");

    let wait = ns.reconcile(&["wait", &target, "--fail-fast", "--timeout", "60s"]);
    assert_eq!(wait.code, 1, "{}", both(&wait));
    assert!(
        wait.took < Duration::from_secs(60),
        "took {:?}: {}",
        wait.took,
        both(&wait)
    );
}
