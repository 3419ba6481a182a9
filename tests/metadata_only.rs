//! No read of a Secret or a ConfigMap ever asks for its data: a fake API
//! server on 127.0.0.1 records the Accept header of every request while
//! the real binary runs `status`, `tree`, `why`, `status --watch` and
//! `wait` on a Secret and a ConfigMap. Every request for them must ask for
//! `PartialObjectMetadata` (or its list), whatever the mode.

mod common;

use std::time::Duration;

use serde_json::{Value, json};

use common::fake_api::{self, Fake};
use common::run::Cmd;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(common::root().join("tests/fixtures/discovery").join(name)).unwrap()
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

/// The fake server: [`answer`]s every request, a watch after a moment, as
/// one event (or none) and its end.
fn start() -> Fake {
    fake_api::serve(|req, stream| {
        let (code, body, stream_it) = answer(&req.path, req.header("accept").unwrap_or(""));
        if stream_it {
            // One event, then the watch ends as the server's timeout would.
            std::thread::sleep(Duration::from_millis(300));
            fake_api::reply_chunked(stream, code, &[&body])
        } else {
            fake_api::reply(stream, code, &body)
        }
    })
}

/// Runs the plugin; a run still going after `for_` (30 s unless given) is
/// ended, as a `--watch` is.
fn run(config: &std::path::Path, cache: &std::path::Path, args: &[&str], for_: Option<Duration>) {
    Cmd::reconcile()
        .env("KUBECONFIG", config)
        .env("NO_COLOR", "1")
        .args(["--cache-dir", cache.to_str().unwrap()])
        .args(args)
        .stop_after(for_.unwrap_or(Duration::from_secs(30)))
        .run();
}

#[test]
fn secrets_and_configmaps_are_asked_for_as_metadata_in_every_mode() {
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let config = fake_api::kubeconfig(dir.path(), &server.url(), "token: t", "shop");
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

    let seen = server.seen.lock().unwrap().clone();
    let data: Vec<&fake_api::Seen> = seen
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
        let encoding = s.header("accept-encoding").unwrap_or("");
        assert!(encoding.contains("gzip"), "{} without gzip", s.path);
    }
    for s in &data {
        let accept = s.header("accept").unwrap_or("");
        assert!(
            accept.contains("as=PartialObjectMetadata"),
            "a full read: {} with Accept {accept:?}",
            s.path,
        );
    }
}
