//! Test support for the end-to-end tests: one real control plane per test
//! run (started by `tests/cluster/up`, or reused), a fresh namespace per
//! test, the real `kubectl`, the plugin binary, and waiting with deadlines.
//! It runs programs with `tests/common` (`crate::common`), so a test crate
//! that includes it says `mod common;` too.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub use crate::common::run::Run;
use crate::common::run::{Cmd, bin};

/// The paths `tests/cluster/up` prints.
#[derive(Debug)]
pub struct Cluster {
    pub kubeconfig: PathBuf,
    pub view_kubeconfig: PathBuf,
    pub audit_log: PathBuf,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails with a message that says what to install when a tool is missing.
fn require_tool(tool: &str, version_args: &[&str], install: &str) {
    let found = Command::new(tool).args(version_args).output();
    if !matches!(found, Ok(ref o) if o.status.success()) {
        panic!(
            "the end-to-end tests need `{tool}`, which is not installed or not on PATH: install {install}"
        );
    }
}

/// What the end-to-end tests run, and how to get each: `(tool, version
/// arguments, what to install)`. `tests/cluster/up` uses all of them.
pub const TOOLS: &[(&str, &[&str], &str)] = &[
    (
        "go",
        &["version"],
        "Go 1.26 or later (https://go.dev/doc/install): the control plane is built from source with it",
    ),
    (
        "kubectl",
        &["version", "--client"],
        "kubectl 1.30 or later (https://kubernetes.io/docs/tasks/tools/)",
    ),
    (
        "openssl",
        &["version"],
        "openssl (e.g. apt-get install openssl): it makes the cluster's certificates",
    ),
    (
        "python3",
        &["--version"],
        "python3: tests/cluster/up uses it to find free ports",
    ),
    (
        "curl",
        &["--version"],
        "curl: tests/cluster/up uses it to probe the control plane",
    ),
];

/// The tools in [`TOOLS`] that are missing, each with what to install.
pub fn missing_tools() -> Vec<String> {
    TOOLS
        .iter()
        .filter(|(tool, args, _)| {
            !matches!(Command::new(tool).args(*args).output(), Ok(ref o) if o.status.success())
        })
        .map(|(tool, _, install)| format!("`{tool}`: install {install}"))
        .collect()
}

/// The cluster for this test run, started on first use.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        for (tool, args, install) in TOOLS {
            require_tool(tool, args, install);
        }
        let up = repo_root().join("tests/cluster/up");
        let out = Command::new(&up)
            .stderr(Stdio::inherit())
            .output()
            .expect("run tests/cluster/up");
        assert!(
            out.status.success(),
            "tests/cluster/up failed ({}); see its output above",
            out.status
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("tests/cluster/up printed no {key}= line:\n{text}"))
        };
        Cluster {
            kubeconfig: field("KUBECONFIG"),
            view_kubeconfig: field("VIEW_KUBECONFIG"),
            audit_log: field("AUDIT_LOG"),
        }
    })
}

/// The kubeconfig of the fleet test bed (`tests/cluster/fleet up`): the
/// contexts `main`, `fleet-b` and `fleet-c` (three control planes, as
/// cluster-admin), `closed` (a closed port) and `forbidden` (the main
/// cluster as a user with no rights). Started on first use.
pub fn fleet() -> &'static Path {
    static FLEET: OnceLock<PathBuf> = OnceLock::new();
    FLEET.get_or_init(|| {
        cluster();
        let out = Command::new(repo_root().join("tests/cluster/fleet"))
            .arg("up")
            .stderr(Stdio::inherit())
            .output()
            .expect("run tests/cluster/fleet up");
        assert!(
            out.status.success(),
            "tests/cluster/fleet up failed ({}); see its output above",
            out.status
        );
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .find_map(|l| l.strip_prefix("FLEET_KUBECONFIG="))
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                panic!("tests/cluster/fleet up printed no FLEET_KUBECONFIG= line:\n{text}")
            })
    })
}

/// Runs the real `kubectl` against the test cluster with the given kubeconfig.
pub fn kubectl_as(kubeconfig: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = Cmd::new("kubectl")
        .env("KUBECONFIG", kubeconfig)
        .args(["--request-timeout=20s"])
        .args(args);
    if let Some(input) = stdin {
        cmd = cmd.stdin(input);
    }
    cmd.run()
}

/// `kubectl` as cluster-admin.
pub fn kubectl(args: &[&str]) -> Run {
    kubectl_as(&cluster().kubeconfig, args, None)
}

/// The plugin binary with the given kubeconfig, no colour, and this test
/// run's discovery cache, for a test to add to and run.
pub fn plugin_as(kubeconfig: &Path) -> Cmd {
    Cmd::reconcile()
        .env("KUBECONFIG", kubeconfig)
        .env("NO_COLOR", "1")
        .env("KUBECACHEDIR", cache_dir())
}

/// Runs the plugin binary with the given kubeconfig and arguments.
pub fn reconcile_as(kubeconfig: &Path, args: &[&str]) -> Run {
    plugin_as(kubeconfig).args(args).run()
}

/// The plugin as cluster-admin.
pub fn reconcile(args: &[&str]) -> Run {
    reconcile_as(&cluster().kubeconfig, args)
}

/// A discovery cache of this test run's own, so that tests never read a
/// user's cache.
pub fn cache_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!(
            "kubectl-reconcile-test-cache-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
    .clone()
}

/// A fresh namespace for one test, deleted (without waiting) when dropped.
pub struct Namespace {
    pub name: String,
}

impl Namespace {
    pub fn new(prefix: &str) -> Namespace {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "{prefix}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        kubectl(&["create", "namespace", &name]).ok();
        // Pods need the namespace's default service account.
        wait_until(
            &format!("service account in {name}"),
            Duration::from_secs(30),
            || kubectl(&["get", "serviceaccount", "default", "-n", &name]).code == 0,
        );
        Namespace { name }
    }

    /// `kubectl apply` of a manifest into this namespace.
    pub fn apply(&self, manifest: &str) -> Run {
        kubectl_as(
            &cluster().kubeconfig,
            &["apply", "-n", &self.name, "-f", "-"],
            Some(manifest),
        )
        .ok()
    }

    /// kubectl as admin, in this namespace.
    pub fn kubectl(&self, args: &[&str]) -> Run {
        let mut all = vec!["-n", &self.name];
        all.extend_from_slice(args);
        kubectl(&all)
    }

    /// A JSONPath query of one object in this namespace.
    pub fn jsonpath(&self, object: &str, path: &str) -> String {
        self.kubectl(&["get", object, "-o", &format!("jsonpath={path}")])
            .ok()
            .stdout
    }

    /// The plugin as admin, in this namespace.
    pub fn reconcile(&self, args: &[&str]) -> Run {
        let mut all = vec!["-n", &self.name];
        all.extend_from_slice(args);
        reconcile(&all)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = kubectl(&["delete", "namespace", &self.name, "--wait=false"]);
    }
}

/// Polls `check` every 250 ms until it holds, or panics after `limit`.
pub fn wait_until(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Audit events (one JSON object per line) that match `filter`.
pub fn audit_events(filter: impl Fn(&serde_json::Value) -> bool) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(&cluster().audit_log).expect("audit log readable");
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e| filter(e))
        .collect()
}

/// A plugin process left running (`--watch`, `wait`): its stdout lines
/// arrive on a channel. Killed when dropped.
pub struct Background {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    pub seen: Vec<String>,
    pub started: Instant,
}

impl Background {
    /// Starts the plugin as admin with these arguments.
    pub fn start(args: &[&str]) -> Background {
        use std::io::BufRead;
        let mut child = Command::new(bin())
            .env("KUBECONFIG", &cluster().kubeconfig)
            .env("NO_COLOR", "1")
            .env("KUBECACHEDIR", cache_dir())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the plugin binary runs");
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Background {
            child,
            lines,
            seen: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Waits for a line of output that satisfies `pred`, and returns it.
    pub fn line(&mut self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if pred(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line {what} within {limit:?}; output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// The exit status, if it has exited.
    pub fn exited(&mut self) -> Option<i32> {
        self.child
            .try_wait()
            .unwrap()
            .map(|s| s.code().unwrap_or(-1))
    }

    /// Waits for the process to end; its status and the rest of stdout.
    pub fn finish(mut self, limit: Duration) -> (i32, String, Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(code) = self.exited() {
                let elapsed = self.started.elapsed();
                while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    self.seen.push(line);
                }
                return (code, self.seen.join("\n"), elapsed);
            }
            assert!(
                Instant::now() < deadline,
                "still running after {limit:?}; output:\n{}",
                self.seen.join("\n")
            );
            while let Ok(line) = self.lines.try_recv() {
                self.seen.push(line);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The plugin left running as admin (`--watch`) with its stdout and stderr
/// in files; killed when dropped, so a test that fails leaves nothing
/// behind.
pub struct Logged {
    child: std::process::Child,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

impl Logged {
    /// Starts the plugin with `args`; `name` names the log files.
    pub fn start(name: &str, args: &[&str]) -> Logged {
        let dir = std::env::temp_dir();
        let stdout = dir.join(format!("{name}-stdout.log"));
        let stderr = dir.join(format!("{name}-stderr.log"));
        let child = Command::new(bin())
            .env("KUBECONFIG", &cluster().kubeconfig)
            .env("KUBECACHEDIR", cache_dir())
            .env("NO_COLOR", "1")
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout).unwrap())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        Logged {
            child,
            stdout,
            stderr,
        }
    }

    /// What it wrote to stdout so far.
    pub fn out(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// What it wrote to stderr so far.
    pub fn err(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits up to `limit` for it to exit by itself: its exit status (-1
    /// if a signal ended it), or `None` if it still runs (it is then left
    /// running, and killed when dropped).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status.code().unwrap_or(-1));
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Deployment manifest with one container. `spec_extra` goes into the
/// spec (e.g. "\n  progressDeadlineSeconds: 8"); `pod_labels` is appended to
/// the pod template's labels (e.g. ", reconcile.test/failure: crash-loop").
pub fn deployment(
    name: &str,
    replicas: u32,
    spec_extra: &str,
    pod_labels: &str,
    pod_annotations: &str,
    resources: &str,
) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}{spec_extra}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata:
      labels: {{app: {name}{pod_labels}}}
      annotations: {{{pod_annotations}}}
    spec:
      containers: [{{name: app, image: "registry.example.com/{name}:1", resources: {{{resources}}}}}]
"#
    )
}

/// Whether a Deployment has rolled out: every replica updated and
/// available, and the latest generation observed.
pub fn rolled_out(ns: &Namespace, name: &str, replicas: u32) -> bool {
    let d = ns
        .kubectl(&["get", "deploy", name, "-o", "json"])
        .ok()
        .json();
    let s = &d["status"];
    s["availableReplicas"] == replicas
        && s["updatedReplicas"] == replicas
        && s["replicas"] == replicas
        && s["observedGeneration"] == d["metadata"]["generation"]
}

/// Waits until a Deployment has rolled out.
pub fn wait_rolled_out(ns: &Namespace, name: &str, replicas: u32) {
    wait_until(
        &format!("{name} rolled out"),
        Duration::from_secs(90),
        || rolled_out(ns, name, replicas),
    );
}

/// Installs a namespaced custom resource type with a status subresource
/// and no schema (`extra` is appended to the CRD's `names`, and may add
/// more documents after it), and returns once it is served.
pub fn install_crd(plural: &str, kind: &str, group: &str, extra_names: &str, more: &str) {
    let _catalog = catalog_lock();
    install_crd_locked(plural, kind, group, extra_names, more);
}

/// Held while a test changes the cluster's types, or counts on them not
/// changing (a test of discovery's ETags): tests of one binary run in
/// parallel, and a CRD another one installs changes `/apis` under it.
pub fn catalog_lock() -> std::sync::MutexGuard<'static, ()> {
    static CATALOG: std::sync::Mutex<()> = std::sync::Mutex::new(());
    CATALOG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`install_crd`], for a test that holds [`catalog_lock`] already.
pub fn install_crd_locked(plural: &str, kind: &str, group: &str, extra_names: &str, more: &str) {
    let crd = format!(
        r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {plural}.{group}}}
spec:
  group: {group}
  names: {{kind: {kind}, plural: {plural}, singular: {singular}{extra_names}}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {{status: {{}}}}
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
{more}"#,
        singular = kind.to_ascii_lowercase()
    );
    kubectl_as(&cluster().kubeconfig, &["apply", "-f", "-"], Some(&crd)).ok();
    kubectl(&[
        "wait",
        "--for=condition=Established",
        &format!("crd/{plural}.{group}"),
        "--timeout=30s",
    ])
    .ok();
    wait_until(&format!("{plural} served"), Duration::from_secs(30), || {
        kubectl(&["get", &format!("{plural}.{group}"), "-A"]).code == 0
    });
}

/// The discovery cache key: the server's host and port, as the plugin keys it.
pub fn server_authority(kubeconfig: &Path) -> String {
    let server = kubectl_as(
        kubeconfig,
        &[
            "config",
            "view",
            "--minify",
            "-o",
            "jsonpath={.clusters[0].cluster.server}",
        ],
        None,
    )
    .ok()
    .stdout;
    server.trim().trim_start_matches("https://").to_string()
}

/// `Kind/name` of every item of a report, in order.
pub fn item_names(doc: &serde_json::Value) -> Vec<String> {
    doc["items"]
        .as_array()
        .expect("a report has items")
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["object"]["kind"].as_str().unwrap_or(""),
                i["object"]["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// `why ARGS --capture FILE -o json` live (as the user `as_user`'s flags
/// say), then `why ARGS -o json` over the file: the same document and
/// exit code, or the test fails. Returns the capture's text.
pub fn replays_the_same(ns: &Namespace, as_user: &[&str], args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("capture.yaml");
    let file = file.to_str().unwrap();
    let mut live_args: Vec<&str> = as_user.to_vec();
    live_args.extend(["-n", &ns.name, "why"]);
    live_args.extend_from_slice(args);
    live_args.extend(["--capture", file, "-o", "json"]);
    let live = reconcile(&live_args);
    assert!(
        live.code == 0 || live.code == 1,
        "{}\n{}",
        live.stdout,
        live.stderr
    );
    let mut replay_args = vec!["--snapshot", file, "-n", &ns.name, "why"];
    replay_args.extend_from_slice(args);
    replay_args.extend(["-o", "json"]);
    let replay = reconcile(&replay_args);
    assert_eq!(
        (replay.code, replay.json()),
        (live.code, live.json()),
        "why {args:?}: the replay differs from the live answer\nreplay stderr: {}",
        replay.stderr
    );
    std::fs::read_to_string(file).unwrap()
}

/// `why TARGET -o json` in the namespace until `ready` holds for its first
/// item (controllers take a moment), and the exit status with the document.
pub fn why_until(
    ns: &Namespace,
    target: &str,
    what: &str,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> (i32, serde_json::Value) {
    let mut last = (0, serde_json::Value::Null);
    wait_until(what, Duration::from_secs(90), || {
        let run = ns.reconcile(&["why", target, "-o", "json"]);
        last = (run.code, run.json());
        ready(&last.1["items"][0])
    });
    last
}
