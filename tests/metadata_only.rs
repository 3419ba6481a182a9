//! No read of a Secret or a ConfigMap ever asks for its data: a fake API
//! server on 127.0.0.1 records the Accept header of every request while
//! the real binary runs `status`, `tree`, `why`, `status --watch` and
//! `wait` on a Secret and a ConfigMap. Every request for them must ask for
//! `PartialObjectMetadata` (or its list), whatever the mode.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[derive(Debug, Clone)]
struct Seen {
    path: String,
    accept: String,
    encoding: String,
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/discovery/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn metadata(kind: &str, name: &str) -> Value {
    json!({"name": name, "namespace": "shop", "uid": format!("{kind}-{name}"), "resourceVersion": "7",
           "creationTimestamp": "2026-01-10T10:00:00Z"})
}

/// What the fake server answers: metadata when asked for it, else the
/// whole object with its data, so that a full read would be visible.
fn answer(path: &str, accept: &str) -> (u16, String, bool) {
    let meta = accept.contains("as=PartialObjectMetadata");
    let (base, query) = path.split_once('?').unwrap_or((path, ""));
    let kind = if base.contains("/secrets") {
        "Secret"
    } else if base.contains("/configmaps") {
        "ConfigMap"
    } else {
        ""
    };
    match base {
        "/api" => return (200, fixture("api.json"), false),
        "/apis" => return (200, fixture("apis.json"), false),
        _ => {}
    }
    if base.ends_with("/events") {
        if query.contains("watch=1") {
            return (200, String::new(), true);
        }
        return (200, json!({"kind": "EventList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []}).to_string(), false);
    }
    if kind.is_empty() {
        let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404, "message": "not here"});
        return (404, status.to_string(), false);
    }
    let object = |name: &str| -> Value {
        if meta {
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata(kind, name)})
        } else {
            json!({"kind": kind, "apiVersion": "v1", "metadata": metadata(kind, name), "data": {"password": "c2VjcmV0"}})
        }
    };
    let name = if kind == "Secret" { "db" } else { "cfg" };
    if query.contains("watch=1") {
        let event = json!({"type": "ADDED", "object": object(name)});
        return (200, format!("{event}\n"), true);
    }
    if base.ends_with("/secrets") || base.ends_with("/configmaps") {
        let list_kind = if meta {
            "PartialObjectMetadataList".to_string()
        } else {
            format!("{kind}List")
        };
        return (200, json!({"kind": list_kind, "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": [object(name)]}).to_string(), false);
    }
    (200, object(name).to_string(), false)
}

fn serve(stream: TcpStream, seen: Arc<Mutex<Vec<Seen>>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_string();
        let mut accept = String::new();
        let mut encoding = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("accept") {
                    accept = v.trim().to_string();
                } else if k.eq_ignore_ascii_case("accept-encoding") {
                    encoding = v.trim().to_string();
                }
            }
        }
        seen.lock().unwrap().push(Seen {
            path: path.clone(),
            accept: accept.clone(),
            encoding,
        });
        let (code, body, stream_it) = answer(&path, &accept);
        let reason = if code == 200 { "OK" } else { "Not Found" };
        let written = if stream_it {
            // One event, then the watch ends as the server's timeout would.
            let chunk = if body.is_empty() {
                String::new()
            } else {
                format!("{:x}\r\n{body}\r\n", body.len())
            };
            std::thread::sleep(Duration::from_millis(300));
            write!(
                out,
                "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{chunk}0\r\n\r\n"
            )
        } else {
            write!(
                out,
                "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        if written.is_err() {
            return;
        }
    }
}

fn start() -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorder = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let recorder = recorder.clone();
            std::thread::spawn(move || serve(stream, recorder));
        }
    });
    (port, seen)
}

fn kubeconfig(dir: &std::path::Path, port: u16) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: fake, cluster: {{server: \"http://127.0.0.1:{port}\"}}}}]\n\
             users: [{{name: u, user: {{token: t}}}}]\ncontexts: [{{name: fake, context: {{cluster: fake, user: u, namespace: shop}}}}]\ncurrent-context: fake\n"
        ),
    )
    .unwrap();
    path
}

/// Runs the plugin; a `--watch` run is ended after `for_`.
fn run(config: &std::path::Path, cache: &std::path::Path, args: &[&str], for_: Option<Duration>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
        .env("KUBECONFIG", config)
        .env("NO_COLOR", "1")
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let limit = Instant::now() + for_.unwrap_or(Duration::from_secs(30));
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.wait();
}

#[test]
fn secrets_and_configmaps_are_asked_for_as_metadata_in_every_mode() {
    let (port, seen) = start();
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(dir.path(), port);
    let cache = dir.path().join("cache");
    let targets = ["secret/db", "configmap/cfg"];
    for cmd in ["status", "tree", "why"] {
        let mut args = vec![cmd];
        args.extend(targets);
        run(&config, &cache, &args, None);
    }
    let mut watch = vec!["status", "--watch"];
    watch.extend(targets);
    run(&config, &cache, &watch, Some(Duration::from_secs(3)));
    let mut wait = vec!["wait", "--timeout", "3s"];
    wait.extend(targets);
    run(&config, &cache, &wait, Some(Duration::from_secs(6)));

    let seen = seen.lock().unwrap().clone();
    let data: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.path.contains("/secrets") || s.path.contains("/configmaps"))
        .collect();
    assert!(
        data.iter()
            .any(|s| s.path.contains("watch=1") && s.path.contains("/secrets")),
        "the watch of the Secret was opened: {seen:#?}"
    );
    assert!(data.len() >= 8, "{seen:#?}");
    // Every read but a watch asks for a compressed answer (watches opt out:
    // kube's decoder reads one gzip member only).
    for s in seen.iter().filter(|s| !s.path.contains("watch=1")) {
        assert!(s.encoding.contains("gzip"), "{} without gzip", s.path);
    }
    for s in &data {
        assert!(
            s.accept.contains("as=PartialObjectMetadata"),
            "a full read: {} with Accept {:?}",
            s.path,
            s.accept
        );
    }
}
