//! Packaging end to end. `packaging/package` builds the release archive of
//! the test build and renders the krew manifest; krew's own validator (built
//! from the Go module proxy, like the control plane) checks the committed
//! manifest and the rendered one, installing the latter from a local HTTP
//! server; the real krew installs the plugin from the local manifest and
//! archive; kubectl then lists it without warnings, runs it against the real
//! control plane, and completes it once `kubectl reconcile completion
//! kubectl` has put the helper on PATH.

mod common;
mod plugin_env;
mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::run::{Cmd, bin_dir};
use plugin_env::{kubectl_dir, link, parse_completion, path_of, run_with, scratch};
use support::{Namespace, Run, cache_dir, cluster, wait_until};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// krew and validate-krew-manifest, built once (and cached) by
/// `tests/cluster/build krew`, with krew named as the kubectl plugin it is.
fn krew_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let go = Command::new("go").arg("version").output();
        assert!(
            matches!(go, Ok(ref o) if o.status.success()),
            "the packaging tests need Go 1.26 or later (https://go.dev/doc/install): krew is built from source with it"
        );
        let out = Command::new(root().join("tests/cluster/build"))
            .arg("krew")
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("run tests/cluster/build krew");
        assert!(out.status.success(), "tests/cluster/build krew failed; see its output above");
        let text = String::from_utf8_lossy(&out.stdout);
        let built = text
            .lines()
            .find_map(|l| l.strip_prefix("KREW_BIN="))
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("tests/cluster/build krew printed no KREW_BIN= line:\n{text}"));
        let dir = scratch("krew-tools");
        link(&built.join("krew"), &dir.join("kubectl-krew"));
        link(&built.join("validate-krew-manifest"), &dir.join("validate-krew-manifest"));
        dir
    })
}

/// `packaging/package ARGS...`.
fn package(args: &[&str]) -> Run {
    Cmd::new(root().join("packaging/package")).args(args).run()
}

fn version() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// This machine as krew names it.
fn platform() -> (&'static str, &'static str) {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    (os, arch)
}

/// Serves the files of a directory over HTTP on 127.0.0.1, and remembers
/// which paths were asked for.
fn serve(dir: PathBuf) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (dir, seen) = (dir.clone(), seen.clone());
            std::thread::spawn(move || answer(stream, &dir, &seen));
        }
    });
    (port, asked)
}

fn answer(mut stream: TcpStream, dir: &Path, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) <= 2 {
            break;
        }
    }
    let name = request
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .trim_start_matches('/')
        .to_string();
    seen.lock().unwrap().push(name.clone());
    let body = (!name.contains("..") && !name.contains('/'))
        .then(|| std::fs::read(dir.join(&name)).ok())
        .flatten();
    let _ = match body {
        Some(body) => write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/gzip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .and_then(|()| stream.write_all(&body)),
        None => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    };
}

/// Runs krew's validator on a manifest (which it wants named after the
/// plugin: reconcile.yaml).
fn validate(manifest: &Path, install: bool) -> Run {
    let dir = scratch("validate");
    let named = dir.join("reconcile.yaml");
    std::fs::copy(manifest, &named).unwrap();
    let mut args = vec!["-manifest", named.to_str().unwrap()];
    if !install {
        args.push("-skip-install");
    }
    // Its installs run `kubectl krew install` from this PATH.
    run_with(
        "validate-krew-manifest",
        &args,
        &path_of(&[krew_dir(), kubectl_dir()]),
        &[],
    )
}

fn yaml(path: &Path) -> serde_yaml_ng::Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_committed_manifest_is_valid_for_six_platforms() {
    let committed = root().join("krew-manifest.yaml");
    let run = validate(&committed, false);
    assert_eq!(
        run.code, 0,
        "validate-krew-manifest:\n{}{}",
        run.stdout, run.stderr
    );
    let doc = yaml(&committed);
    assert_eq!(doc["metadata"]["name"], "reconcile");
    assert_eq!(
        doc["spec"]["version"].as_str(),
        Some(version().as_str()),
        "the manifest follows Cargo.toml"
    );
    let platforms = doc["spec"]["platforms"].as_sequence().unwrap();
    let mut pairs: Vec<String> = platforms
        .iter()
        .map(|p| {
            let labels = &p["selector"]["matchLabels"];
            format!(
                "{}/{}",
                labels["os"].as_str().unwrap(),
                labels["arch"].as_str().unwrap()
            )
        })
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            "darwin/amd64",
            "darwin/arm64",
            "linux/amd64",
            "linux/arm64",
            "windows/amd64",
            "windows/arm64"
        ]
    );
    assert!(
        doc["spec"]["caveats"]
            .as_str()
            .unwrap()
            .contains("kubectl reconcile completion kubectl")
    );

    // The validator can fail: a platform without `bin`.
    let broken = scratch("manifest-broken").join("reconcile.yaml");
    let text = std::fs::read_to_string(&committed).unwrap();
    std::fs::write(
        &broken,
        text.replacen("    bin: kubectl-reconcile\n", "", 1),
    )
    .unwrap();
    let run = validate(&broken, false);
    assert_ne!(
        run.code, 0,
        "a manifest without bin passed:\n{}{}",
        run.stdout, run.stderr
    );
    assert!(run.stderr.contains("`bin` has to be set"), "{}", run.stderr);
}

#[test]
fn the_release_manifest_covers_every_archive() {
    // Six archives (copies of one: only the rendering is under test here).
    let out = scratch("render-all");
    let one = scratch("render-one");
    let built = package(&[
        "--bin-dir",
        bin_dir().to_str().unwrap(),
        "--out",
        one.to_str().unwrap(),
        "--version",
        "v9.8.7",
    ])
    .ok();
    let (os, arch) = platform();
    let archive = one.join(format!("kubectl-reconcile_v9.8.7_{os}_{arch}.tar.gz"));
    assert!(
        built.stdout.contains(archive.to_str().unwrap()),
        "{}",
        built.stdout
    );
    let targets = [
        ("linux", "amd64"),
        ("linux", "arm64"),
        ("darwin", "amd64"),
        ("darwin", "arm64"),
        ("windows", "amd64"),
        ("windows", "arm64"),
    ];
    for (i, (os, arch)) in targets.iter().enumerate() {
        let mut bytes = std::fs::read(&archive).unwrap();
        bytes.extend(std::iter::repeat_n(0u8, i)); // six different hashes
        std::fs::write(
            out.join(format!("kubectl-reconcile_v9.8.7_{os}_{arch}.tar.gz")),
            bytes,
        )
        .unwrap();
    }
    let out_dir = out.to_str().unwrap();
    let render = |all: bool| {
        let mut args = vec![
            "--no-archive",
            "--version",
            "v9.8.7",
            "--url-base",
            "https://example.com/rel/",
            "--out",
            out_dir,
        ];
        if all {
            args.push("--all-platforms");
        }
        package(&args)
    };
    render(true).ok();
    let manifest = out.join("reconcile.yaml");
    let run = validate(&manifest, false);
    assert_eq!(
        run.code, 0,
        "validate-krew-manifest:\n{}{}",
        run.stdout, run.stderr
    );
    let rendered = yaml(&manifest);
    assert_eq!(rendered["spec"]["version"], "v9.8.7");
    for p in rendered["spec"]["platforms"].as_sequence().unwrap() {
        let labels = &p["selector"]["matchLabels"];
        let name = format!(
            "kubectl-reconcile_v9.8.7_{}_{}.tar.gz",
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap()
        );
        assert_eq!(
            p["uri"].as_str().unwrap(),
            format!("https://example.com/rel/{name}")
        );
        let sha = Command::new("sha256sum")
            .arg(out.join(&name))
            .output()
            .unwrap();
        let sha = String::from_utf8(sha.stdout).unwrap();
        assert_eq!(
            p["sha256"].as_str().unwrap(),
            sha.split_whitespace().next().unwrap(),
            "{name}"
        );
    }
    // Everything but version, uri and sha256 is the committed manifest's.
    let mut template = yaml(&root().join("krew-manifest.yaml"));
    let mut rendered = rendered;
    for doc in [&mut template, &mut rendered] {
        doc["spec"]["version"] = "".into();
        for p in doc["spec"]["platforms"].as_sequence_mut().unwrap() {
            p["uri"] = "".into();
            p["sha256"] = "".into();
        }
    }
    assert_eq!(template, rendered);

    // A missing archive: an error with --all-platforms, else left out.
    std::fs::remove_file(out.join("kubectl-reconcile_v9.8.7_darwin_arm64.tar.gz")).unwrap();
    let run = render(true);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("kubectl-reconcile_v9.8.7_darwin_arm64.tar.gz is missing"),
        "{}",
        run.stderr
    );
    render(false).ok();
    assert_eq!(
        yaml(&manifest)["spec"]["platforms"]
            .as_sequence()
            .unwrap()
            .len(),
        5
    );
    let run = package(&[
        "--no-archive",
        "--version",
        "0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn krew_installs_it_and_kubectl_runs_and_completes_it() {
    // The archive and manifest, for this machine, served over HTTP.
    let dist = scratch("krew-dist");
    let (port, asked) = serve(dist.clone());
    let url = format!("http://127.0.0.1:{port}/");
    let built = package(&[
        "--bin-dir",
        bin_dir().to_str().unwrap(),
        "--out",
        dist.to_str().unwrap(),
        "--url-base",
        &url,
    ])
    .ok();
    let (os, arch) = platform();
    let name = format!("kubectl-reconcile_{}_{os}_{arch}.tar.gz", version());
    let archive = dist.join(&name);
    let manifest = dist.join("reconcile.yaml");
    assert!(
        built
            .stdout
            .contains(&format!("{}\t{os}/{arch}", manifest.display())),
        "{}",
        built.stdout
    );
    let listing = Command::new("tar")
        .arg("tzf")
        .arg(&archive)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(listing.stdout).unwrap(),
        "LICENSE\nkubectl-reconcile\nkubectl_complete-reconcile\n"
    );

    // krew's validator installs it (downloading it, checking the sha256 and
    // the LICENSE).
    let run = validate(&manifest, true);
    assert_eq!(
        run.code, 0,
        "validate-krew-manifest:\n{}{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("all 1 spec.platforms installed fine"),
        "{}",
        run.stderr
    );
    assert!(
        asked.lock().unwrap().contains(&name),
        "the validator downloaded {name}"
    );

    // The real krew, from the local manifest and archive.
    let krew_root = scratch("krew-root");
    let krew_bin = krew_root.join("bin");
    std::fs::create_dir_all(&krew_bin).unwrap();
    let path = path_of(&[&krew_bin, krew_dir(), kubectl_dir()]);
    let cache = cache_dir();
    let env: Vec<(&str, &Path)> = vec![
        ("KREW_ROOT", &krew_root),
        ("KREW_NO_UPGRADE_CHECK", Path::new("1")),
        ("KUBECONFIG", &cluster().kubeconfig),
        ("KUBECACHEDIR", &cache),
    ];
    let kubectl = |args: &[&str]| run_with("kubectl", args, &path, &env);
    let install = kubectl(&[
        "krew",
        "install",
        &format!("--manifest={}", manifest.display()),
        &format!("--archive={}", archive.display()),
    ]);
    assert_eq!(
        install.code, 0,
        "krew install:\n{}{}",
        install.stdout, install.stderr
    );
    let said = format!("{}{}", install.stdout, install.stderr);
    assert!(said.contains("Installed plugin: reconcile"), "{said}");
    assert!(
        said.contains("kubectl reconcile completion kubectl"),
        "the caveats are shown:\n{said}"
    );
    assert!(
        krew_root
            .join(format!("store/reconcile/{}/LICENSE", version()))
            .is_file()
    );

    let plugins = |when: &str| {
        let list = kubectl(&["plugin", "list"]);
        assert_eq!(
            list.code, 0,
            "{when}: kubectl plugin list:\n{}{}",
            list.stdout, list.stderr
        );
        assert!(
            !list.stderr.to_lowercase().contains("warning"),
            "{when}: {}",
            list.stderr
        );
        assert!(
            list.stdout
                .lines()
                .any(|l| l == krew_bin.join("kubectl-reconcile").to_str().unwrap()),
            "{when}: {}",
            list.stdout
        );
        assert!(
            !list.stdout.contains("kubectl_complete"),
            "the helper is not a plugin: {}",
            list.stdout
        );
    };
    plugins("after krew install");

    // kubectl runs it as a plugin against the real control plane.
    let ns = Namespace::new("pkg-krew");
    ns.apply(
        "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
",
    );
    wait_until("web available", Duration::from_secs(90), || {
        ns.jsonpath("deploy/web", "{.status.availableReplicas}") == "2"
    });
    let tree = kubectl(&["reconcile", "-n", &ns.name, "tree", "deploy/web"]);
    assert_eq!(tree.code, 0, "{}{}", tree.stdout, tree.stderr);
    let lines: Vec<&str> = tree.stdout.lines().collect();
    assert!(lines[0].starts_with("NAME "), "{}", tree.stdout);
    assert!(
        lines[1].starts_with("Deployment/web ") && lines[1].contains(" Converged "),
        "{}",
        tree.stdout
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("Pod/web-")).count(),
        2,
        "{}",
        tree.stdout
    );
    let versions = kubectl(&["reconcile", "--version"]).ok();
    assert!(
        versions.stdout.contains("\nServer Version: v1."),
        "{}",
        versions.stdout
    );

    // One command puts the helper next to the plugin, then kubectl completes.
    let helper = krew_bin.join("kubectl_complete-reconcile");
    let setup = kubectl(&["reconcile", "completion", "kubectl"]).ok();
    assert!(
        setup.stdout.starts_with(&format!(
            "installed {} (a copy of {})",
            helper.display(),
            krew_root
                .join(format!(
                    "store/reconcile/{}/kubectl_complete-reconcile",
                    version()
                ))
                .display()
        )),
        "{}",
        setup.stdout
    );
    let again = kubectl(&["reconcile", "completion", "kubectl"]).ok();
    assert_eq!(
        again.stdout.lines().next().unwrap(),
        format!("{} is already installed", helper.display())
    );
    let (names, directive) = parse_completion(&kubectl(&[
        "__complete",
        "reconcile",
        "-n",
        &ns.name,
        "tree",
        "deploy/",
    ]));
    assert_eq!(
        (names, directive.as_str()),
        (vec!["deploy/web".to_string()], ":4")
    );
    plugins("after the helper is installed");
}

#[test]
fn the_helper_survives_a_krew_upgrade() {
    // A local plugin index, as krew-index would serve it, with the archives
    // of two versions on a local HTTP server.
    let dist = scratch("krew-upgrade-dist");
    let (port, _) = serve(dist.clone());
    let url = format!("http://127.0.0.1:{port}/");
    let krew_root = scratch("krew-upgrade-root");
    let index = krew_root.join("index/default/plugins");
    std::fs::create_dir_all(&index).unwrap();
    let publish = |version: &str| {
        package(&[
            "--bin-dir",
            bin_dir().to_str().unwrap(),
            "--out",
            dist.to_str().unwrap(),
            "--url-base",
            &url,
            "--version",
            version,
        ])
        .ok();
        std::fs::copy(dist.join("reconcile.yaml"), index.join("reconcile.yaml")).unwrap();
    };
    let path = path_of(&[&krew_root.join("bin"), krew_dir(), kubectl_dir()]);
    let cache = cache_dir();
    let env: Vec<(&str, &Path)> = vec![
        ("KREW_ROOT", &krew_root),
        ("KREW_NO_UPGRADE_CHECK", Path::new("1")),
        ("KUBECONFIG", &cluster().kubeconfig),
        ("KUBECACHEDIR", &cache),
    ];
    let kubectl = |args: &[&str]| run_with("kubectl", args, &path, &env);

    publish("v1.0.0");
    kubectl(&["krew", "install", "--no-update-index", "reconcile"]).ok();
    kubectl(&["reconcile", "completion", "kubectl"]).ok();
    let complete = || {
        parse_completion(&kubectl(&[
            "__complete",
            "reconcile",
            "tree",
            "namespaces/kube-sys",
        ]))
    };
    assert_eq!(complete().0, vec!["namespaces/kube-system"]);

    // krew removes the old version's directory; the helper, a copy that runs
    // the plugin beside it, keeps working without being set up again.
    publish("v1.0.1");
    let upgrade = kubectl(&["krew", "upgrade", "--no-update-index", "reconcile"]).ok();
    assert!(
        upgrade.stderr.contains("Upgraded plugin: reconcile"),
        "{}",
        upgrade.stderr
    );
    assert!(!krew_root.join("store/reconcile/v1.0.0").exists());
    assert!(krew_root.join("store/reconcile/v1.0.1").is_dir());
    assert_eq!(complete().0, vec!["namespaces/kube-system"]);
}
