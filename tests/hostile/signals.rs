//! Ctrl-C during `--watch` while the watch is busy: the first one ends it,
//! every time, promptly.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::fake_api as fake;
use crate::common::run::bin;

/// A pod whose Ready condition flips with every `n`.
fn pod(n: u64) -> serde_json::Value {
    let ready = if n.is_multiple_of(2) { "True" } else { "False" };
    serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "u-p", "resourceVersion": n.to_string(),
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": ready,
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    })
}

/// A server whose watches never stop sending changes.
fn churning() -> fake::Fake {
    fake::serve(|req, stream| {
        if let Some(doc) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &doc);
        }
        let path = req.path.split('?').next().unwrap();
        if req.path.contains("watch=") {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
            if stream.write_all(head.as_bytes()).is_err() {
                return false;
            }
            for n in 10.. {
                let line = format!(
                    "{}\n",
                    serde_json::json!({"type": "MODIFIED", "object": pod(n)})
                );
                let chunk = format!("{:x}\r\n{line}\r\n", line.len());
                if stream.write_all(chunk.as_bytes()).is_err() {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            return false;
        }
        if path.ends_with("/pods/p") {
            fake::reply(stream, 200, &pod(1).to_string())
        } else {
            let items = if path.ends_with("/pods") {
                vec![pod(1)]
            } else {
                vec![]
            };
            let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items});
            fake::reply(stream, 200, &list.to_string())
        }
    })
}

#[test]
fn the_first_ctrl_c_ends_a_busy_watch() {
    let server = churning();
    let dir = crate::scratch();
    let kc = crate::token_kubeconfig(dir.path(), &server.url());
    for attempt in 1..=5 {
        let mut child = Command::new(bin())
            .args([
                "status",
                "pods/p",
                "--watch",
                "--kubeconfig",
                kc.to_str().unwrap(),
            ])
            .env("HOME", dir.path())
            .env("KUBECACHEDIR", dir.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Until the watch is open and busy.
        let started = Instant::now();
        while !server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.path.contains("watch="))
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "no watch was opened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300 + 50 * attempt));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the watch ended by itself"
        );
        let sent = Instant::now();
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if sent.elapsed() > Duration::from_secs(3) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("attempt {attempt}: one Ctrl-C did not end the watch within 3s");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(
            status.code().is_some(),
            "attempt {attempt}: ended by the signal, not by itself: {status}"
        );
        server.seen.lock().unwrap().clear();
    }
}
