//! Bounded in memory: answers larger than any real one (an endless body, a
//! gzip bomb), a watch line that never ends, and a watch that ends at once.
//! Each ends with a clear error or the right verdict, never an abort, and
//! the peak memory stays far below what the answer would take.

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::fake_api::{self as fake, Fake};
use crate::{run, scratch, token_kubeconfig};

/// Peak memory a run may reach against these servers: the answer cap is
/// 128 MiB, and the answer is held once more while it is parsed.
const PEAK_KIB: u64 = 600 * 1024;

fn pod(ready: bool) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "u1", "resourceVersion": "5", "creationTimestamp": "2026-01-10T10:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
                   "containerStatuses": [{"name": "c", "ready": ready, "restartCount": 0, "state": {"running": {}}}]}})
    .to_string()
}

fn pod_list() -> String {
    format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"5"}},"items":[{}]}}"#,
        pod(false)
    )
}

/// A server whose pod answer is `body` (written by the closure); discovery
/// and events as usual.
fn pod_server(body: impl Fn(&str, &mut TcpStream) -> bool + Send + Sync + 'static) -> Fake {
    fake::serve(move |req, stream| {
        if let Some(doc) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &doc);
        }
        let path = req.path.split('?').next().unwrap_or("");
        if path.ends_with("/events") {
            let list = r#"{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}"#;
            return fake::reply(stream, 200, list);
        }
        if path.starts_with("/api/v1/namespaces/default/pods") {
            return body(&req.path, stream);
        }
        fake::reply(stream, 404, &fake::status(404, "NotFound", "not here"))
    })
}

fn status_of_p(server: &Fake, extra: &[&str]) -> crate::Run {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let mut args = vec![
        "status",
        "pods/p",
        "-n",
        "default",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ];
    args.extend(extra);
    run(dir.path(), &args, Duration::from_secs(60))
}

/// `wait pods/p --timeout 6s` against `server`: exit 1 (not converged)
/// within its timeout and a little more.
fn wait_6s(server: &Fake) -> crate::Run {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let out = run(
        dir.path(),
        &[
            "wait",
            "pods/p",
            "-n",
            "default",
            "--timeout",
            "6s",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    out.assert(1, Duration::from_secs(15));
    out
}

fn assert_bounded(out: &crate::Run) {
    assert!(
        out.peak_kib > 0 && out.peak_kib < PEAK_KIB,
        "peak memory {} MiB (bound {} MiB)\nstderr:\n{}",
        out.peak_kib / 1024,
        PEAK_KIB / 1024,
        out.stderr
    );
}

#[test]
fn an_endless_answer_stops_at_the_cap() {
    // 3 GB announced, zeros until the client stops reading.
    let server = pod_server(|_, stream| {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3000000000\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return false;
        }
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..3000 {
            if stream.write_all(&chunk).is_err() {
                break;
            }
        }
        false
    });
    let out = status_of_p(&server, &[]);
    out.assert(2, Duration::from_secs(30));
    assert!(out.stderr.contains("larger than 128 MiB"), "{}", out.stderr);
    assert_bounded(&out);
}

#[test]
fn a_gzip_bomb_stops_at_the_cap() {
    // 1 GiB of zeros, gzip-compressed to about a megabyte.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        gz.write_all(&zeros).unwrap();
    }
    let bomb = Arc::new(gz.finish().unwrap());
    let server = pod_server(move |_, stream| {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
            bomb.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&bomb);
        true
    });
    let out = status_of_p(&server, &[]);
    out.assert(2, Duration::from_secs(30));
    assert!(out.stderr.contains("larger than 128 MiB"), "{}", out.stderr);
    assert_bounded(&out);
}

#[test]
fn a_watch_line_that_never_ends_is_bounded() {
    // The list answers; every watch sends one line with no end.
    let server = pod_server(|path, stream| {
        if path.contains("watch=") {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
            if stream.write_all(head.as_bytes()).is_err() {
                return false;
            }
            let chunk = vec![b'x'; 1 << 20];
            let framed = [
                format!("{:x}\r\n", chunk.len()).into_bytes(),
                chunk,
                b"\r\n".to_vec(),
            ]
            .concat();
            for _ in 0..2000 {
                if stream.write_all(&framed).is_err() {
                    break;
                }
            }
            return false;
        }
        if path.contains("fieldSelector=metadata.name")
            || path.split('?').next() == Some("/api/v1/namespaces/default/pods")
        {
            return fake::reply(stream, 200, &pod_list());
        }
        fake::reply(stream, 200, &pod(false))
    });
    let out = wait_6s(&server);
    assert_bounded(&out);
}

#[test]
fn a_watch_that_ends_at_once_is_opened_again_with_backoff() {
    let watches = Arc::new(AtomicUsize::new(0));
    let counted = watches.clone();
    let server = pod_server(move |path, stream| {
        if path.contains("watch=") {
            counted.fetch_add(1, Ordering::SeqCst);
            return fake::reply(stream, 200, "");
        }
        if path.split('?').next() == Some("/api/v1/namespaces/default/pods") {
            return fake::reply(stream, 200, &pod_list());
        }
        fake::reply(stream, 200, &pod(false))
    });
    wait_6s(&server);
    // 0.5 s doubling to 8 s: a handful in 6 s, not hundreds.
    let opened = watches.load(Ordering::SeqCst);
    assert!((1..=12).contains(&opened), "{opened} watches in 6 s");
}

#[test]
fn an_answer_that_is_not_json_is_worded_as_such() {
    let server = pod_server(|_, stream| fake::reply(stream, 200, "<html>proxy login</html>"));
    let out = status_of_p(&server, &[]);
    out.assert(2, Duration::from_secs(20));
    assert!(out.stderr.contains("not valid JSON"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("error 0") && !out.stderr.contains("answered 0"),
        "{}",
        out.stderr
    );
}

/// Aggregated discovery for `/apis` with `n` namespaced types in one
/// group, and the core group with pods.
fn many_types(n: usize) -> Arc<String> {
    let resources: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({"resource": format!("widget{i}s"), "responseKind": {"group": "", "version": "", "kind": format!("Widget{i}")},
                "scope": "Namespaced", "singularResource": format!("widget{i}"), "verbs": ["get", "list", "watch"]})
        })
        .collect();
    Arc::new(
        serde_json::json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
            "items": [{"metadata": {"name": "example.com"}, "versions": [{"version": "v1", "resources": resources}]}]})
        .to_string(),
    )
}

#[test]
fn discovery_of_a_hundred_thousand_types_is_linear() {
    // 100,000 types took close to two minutes when each was compared with
    // every other; a pass each, they take a second or two.
    let apis = many_types(100_000);
    let server = fake::serve(move |req, stream| match req.path.split('?').next() {
        Some("/apis") => fake::reply(stream, 200, &apis),
        Some("/api") => fake::reply(stream, 200, &fake::discovery("/api").unwrap()),
        Some(p) if p.ends_with("/events") => fake::reply(
            stream,
            200,
            r#"{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}"#,
        ),
        _ => fake::reply(stream, 200, &pod(true)),
    });
    let out = status_of_p(&server, &[]);
    out.assert(0, Duration::from_secs(20));
    assert!(out.stdout.contains("Converged"), "{}", out.stdout);
}

/// A snapshot of one pod and `n` distinct Warning events about it, as
/// anyone allowed to create Events in its namespace can write.
fn pod_with_events(n: usize) -> String {
    let mut items = vec![serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "u-p", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}})];
    for i in 0..n {
        items.push(serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("p.{i}"), "namespace": "default", "uid": format!("e{i}")},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "uid": "u-p"},
            "type": "Warning", "reason": format!("Spam{i}"), "message": format!("message {i} \u{1b}[31m{}", i * 7919),
            "count": 1, "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z"}));
    }
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

/// `why` folds the events about an object in time linear in their number,
/// and its YAML costs about what its JSON does: 20,000 distinct events
/// (each with an escape sequence to quote) took minutes before.
#[test]
fn why_is_linear_in_the_events_about_one_object() {
    let dir = scratch();
    let snap = dir.path().join("events.json");
    std::fs::write(&snap, pod_with_events(20_000)).unwrap();
    let snap = snap.to_str().unwrap();
    for output in ["json", "yaml", "wide"] {
        let out = run(
            dir.path(),
            &[
                "why",
                "pod/p",
                "-n",
                "default",
                "--snapshot",
                snap,
                "-o",
                output,
            ],
            Duration::from_secs(120),
        );
        out.assert(1, Duration::from_secs(15));
        if output != "wide" {
            assert!(out.stdout.contains("Spam19999"), "-o {output}");
        }
    }
}
