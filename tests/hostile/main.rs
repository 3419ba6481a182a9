//! Hostile servers and hostile input, against the real binary: fake API
//! servers on 127.0.0.1 (silent, stalled, answering with escape sequences),
//! exec credential plugins that hang or fail, input nested or chained too
//! deep, and fuzzed snapshots. Every run is bounded: the binary must end by
//! itself with the right exit status, inside its deadline, and print no raw
//! control character.

mod bounds;
mod fake;
mod fuzz;
mod input;
mod network;
mod plugin;
mod signals;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
    /// The most memory it held (VmHWM), in KiB, as last read while it ran.
    pub peak_kib: u64,
}

impl Run {
    /// Ended with `code`, within `bound`, and printed nothing a terminal
    /// would act on.
    pub fn assert(&self, code: i32, bound: Duration) -> &Run {
        assert_eq!(
            self.code, code,
            "exit status\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(
            self.took <= bound,
            "took {:?}, more than {bound:?}\nstderr:\n{}",
            self.took,
            self.stderr
        );
        assert_inert(&self.stdout);
        assert_inert(&self.stderr);
        self
    }
}

/// Fails if `text` holds a control character other than a line break, a
/// bidi control, or an invisible character.
pub fn assert_inert(text: &str) {
    let bad = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                | '\u{3164}' | '\u{115f}' | '\u{34f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e0fff}')
    };
    if let Some(c) = text.chars().find(|&c| bad(c)) {
        panic!("raw U+{:04X} reached the terminal in:\n{text:?}", c as u32);
    }
}

/// Where a test keeps its files (kubeconfig, plugin, cache); removed at the end.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Runs the binary with `args`, no terminal, no colour, the kube cache and
/// HOME in `dir`. The test stops it at `limit` (and fails) if it has not
/// ended by itself; what it writes must be fully read soon after it exits
/// (nothing it started may keep its output open).
pub fn run(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env("HOME", dir)
        .env("KUBECACHEDIR", dir.join("cache"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-reconcile");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            let _ = tx.send(bytes);
        });
        rx
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut peak_kib = 0;
    let status = loop {
        peak_kib = peak_kib.max(high_water_kib(child.id()));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kubectl-reconcile {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = started.elapsed();
    // Shown with --nocapture, to see how close a run comes to its bound.
    eprintln!(
        "kubectl-reconcile {args:?}: exit {:?} after {took:?}",
        status.code()
    );
    let text = |rx: std::sync::mpsc::Receiver<Vec<u8>>, which: &str| {
        let bytes = rx.recv_timeout(Duration::from_secs(3)).unwrap_or_else(|_| {
            panic!("{which} stayed open after kubectl-reconcile {args:?} ended: something it started still runs")
        });
        String::from_utf8(bytes).unwrap_or_else(|e| panic!("{which} is not UTF-8: {e}"))
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: text(out, "stdout"),
        stderr: text(err, "stderr"),
        took,
        peak_kib,
    }
}

/// A running process's peak resident memory (VmHWM), in KiB; 0 once gone.
fn high_water_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A kubeconfig for `server` whose user authenticates with `user` (YAML of
/// the kubeconfig `user:` field), written in `dir`. An `https://` server's
/// certificate is not checked (the fake servers have none worth checking).
pub fn kubeconfig(dir: &Path, server: &str, user: &str) -> PathBuf {
    let user: String = user.lines().map(|l| format!("    {l}\n")).collect();
    let tls = if server.starts_with("https://") {
        "\n    insecure-skip-tls-verify: true"
    } else {
        ""
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {server}{tls}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: u\n    namespace: default\ncurrent-context: fake\nusers:\n- name: u\n  user:\n{user}"
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path
}

/// A kubeconfig with a plain token.
pub fn token_kubeconfig(dir: &Path, server: &str) -> PathBuf {
    kubeconfig(dir, server, "token: t0ken")
}
