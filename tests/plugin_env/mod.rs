//! The plugin as kubectl runs it: PATH directories built for one test run
//! (so that no other `kubectl-reconcile` on the machine is picked up),
//! `kubectl` run with that PATH, and servers that refuse or never answer.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::fake_api;
use crate::common::run::{Cmd, Run};

/// A fresh directory of this test run, under Cargo's scratch space.
pub fn scratch(name: &str) -> PathBuf {
    // One of its own for every call: tests that run at once in one process
    // (two validations of a manifest) must not share, and so empty, one.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first `name` on PATH, with symlinks resolved.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
}

/// A directory holding only `kubectl` (a link to the real one), so that a
/// PATH made of it and the test's own directories sees no other plugin.
pub fn kubectl_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let kubectl = which("kubectl").unwrap_or_else(|| {
            panic!("these tests need `kubectl` 1.26 or later on PATH (https://kubernetes.io/docs/tasks/tools/)")
        });
        let dir = scratch("kubectl-only");
        link(&kubectl, &dir.join("kubectl"));
        dir
    })
}

pub fn link(from: &Path, to: &Path) {
    let _ = std::fs::remove_file(to);
    std::os::unix::fs::symlink(from, to)
        .unwrap_or_else(|e| panic!("link {} -> {}: {e}", to.display(), from.display()));
}

/// PATH made of exactly these directories.
pub fn path_of(dirs: &[&Path]) -> std::ffi::OsString {
    std::env::join_paths(dirs).unwrap()
}

/// Runs `program` (a path, or a name looked up on `path`) with `args`, PATH
/// set to `path`, and the extra environment.
pub fn run_with(
    program: &str,
    args: &[&str],
    path: &std::ffi::OsStr,
    env: &[(&str, &Path)],
) -> Run {
    let exe = if program.contains('/') {
        PathBuf::from(program)
    } else {
        std::env::split_paths(path)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on {path:?}"))
    };
    Cmd::new(exe)
        .args(args)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .run()
}

/// Candidates (without descriptions) and the directive of a cobra-style
/// completion answer.
pub fn parse_completion(run: &Run) -> (Vec<String>, String) {
    assert_eq!(
        run.code, 0,
        "completion failed\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    let mut lines: Vec<&str> = run.stdout.lines().filter(|l| !l.is_empty()).collect();
    let directive = lines.pop().unwrap_or_default().to_string();
    assert!(
        directive.starts_with(':'),
        "no directive line:\n{}",
        run.stdout
    );
    let values = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    (values, directive)
}

/// A kubeconfig whose server accepts connections and never answers.
pub fn silent_server_kubeconfig(dir: &Path) -> PathBuf {
    kubeconfig(dir, "silent", fake_api::silent().port)
}

/// A kubeconfig whose server refuses connections.
pub fn refusing_server_kubeconfig(dir: &Path) -> PathBuf {
    kubeconfig(dir, "refusing", fake_api::refusing().port)
}

fn kubeconfig(dir: &Path, name: &str, port: u16) -> PathBuf {
    let path = dir.join(format!("{name}.kubeconfig"));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1
kind: Config
clusters: [{{name: {name}, cluster: {{server: 'https://127.0.0.1:{port}', insecure-skip-tls-verify: true}}}}]
users: [{{name: {name}, user: {{token: not-a-token}}}}]
contexts: [{{name: {name}, context: {{cluster: {name}, user: {name}, namespace: default}}}}]
current-context: {name}
"
        ),
    )
    .unwrap();
    path
}
