//! Fuzzed snapshots: documents shaped like Kubernetes objects (owners that
//! link, conditions, events) with odd types in metadata, missing fields,
//! deep nesting and huge strings. Through the real loader and every pure
//! stage, and through the binary for a few: no panic, exit 0, 1 or 2, a
//! bounded time per input, nothing raw on the terminal. 64 cases by
//! default; `PROPTEST_CASES=10000` for a long run.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

use kubectl_reconcile::pipeline::{
    self, Judged, StatusReport, Style, Target, TreeReport, WhyReport,
};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9-]{0,12}",
        2 => ".{0,24}",
        1 => Just(crate::network::HOSTILE.to_string()),
        1 => Just("\u{feff}\u{2028}\u{fff9}a\u{fffb}\u{e0041}\u{115f}".to_string()),
        1 => (1_000usize..150_000).prop_map(|n| "y".repeat(n)),
        1 => "20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z",
    ]
}

/// Any JSON, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        hostile_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,10}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `[[[ ... ]]]` or `{"a": {"a": ...}}`, deeper than a parser may like.
fn deep() -> impl Strategy<Value = Value> {
    (20usize..300, any::<bool>()).prop_map(|(depth, arrays)| {
        let mut v = json!(1);
        for _ in 0..depth {
            v = if arrays {
                json!([v])
            } else {
                json!({ "a": v })
            };
        }
        v
    })
}

/// A field's value: usually the right shape, sometimes anything.
fn or_odd<S: Strategy<Value = Value> + 'static>(right: S) -> BoxedStrategy<Value> {
    prop_oneof![6 => right, 1 => any_json()].boxed()
}

/// For identity fields (kind, name, uid), which the loader rightly refuses
/// when wrong: rarely odd, so most snapshots get past it.
fn rarely_odd<S: Strategy<Value = Value> + 'static>(right: S) -> BoxedStrategy<Value> {
    prop_oneof![40 => right, 1 => any_json()].boxed()
}

fn uid() -> impl Strategy<Value = Value> {
    (0u8..8).prop_map(|i| json!(format!("u{i}")))
}

fn time() -> impl Strategy<Value = Value> {
    (0u32..100_000).prop_map(|s| {
        json!(
            jiff::Timestamp::from_second(1_767_225_600 + i64::from(s))
                .unwrap()
                .to_string()
        )
    })
}

fn condition() -> impl Strategy<Value = Value> {
    (
        or_odd(prop_oneof![Just(json!("Ready")), Just(json!("Available")), Just(json!("Progressing")), Just(json!("Failed"))]),
        or_odd(prop_oneof![Just(json!("True")), Just(json!("False")), Just(json!("Unknown"))]),
        hostile_text(),
        hostile_text(),
        or_odd(time()),
    )
        .prop_map(|(t, s, reason, message, at)| {
            json!({"type": t, "status": s, "reason": reason, "message": message, "lastTransitionTime": at})
        })
}

const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("v1", "Service"),
    ("v1", "Secret"),
    ("v1", "ConfigMap"),
    ("v1", "PersistentVolumeClaim"),
    ("example.com/v1", "Widget"),
    ("v1", "Event"),
    ("events.k8s.io/v1", "Event"),
];

/// One object (or Event), some fields missing, some of the wrong type.
fn object() -> impl Strategy<Value = Value> {
    let owner = (0..KINDS.len(), or_odd((0u8..8).prop_map(|i| json!(format!("o{i}")))), or_odd(uid()), or_odd(any::<bool>().prop_map(Value::from)))
        .prop_map(|(k, name, uid, controller)| {
            json!({"apiVersion": KINDS[k].0, "kind": KINDS[k].1, "name": name, "uid": uid, "controller": controller})
        });
    let metadata = (
        rarely_odd((0u8..8).prop_map(|i| json!(format!("o{i}")))),
        prop::option::of(rarely_odd(prop_oneof![Just(json!("a")), Just(json!("b"))])),
        rarely_odd(uid()),
        prop::option::of(or_odd(
            prop::collection::vec(owner, 0..3).prop_map(Value::Array),
        )),
        prop::option::of(or_odd(any::<i64>().prop_map(Value::from))),
        prop::option::of(or_odd(time())),
        prop::option::of(or_odd(time())),
        prop::option::of(or_odd(
            prop::collection::btree_map("[a-z./]{1,12}", hostile_text(), 0..3)
                .prop_map(|m| json!(m)),
        )),
    )
        .prop_map(
            |(name, ns, uid, owners, generation, created, deleted, labels)| {
                let mut m = Map::new();
                m.insert("name".into(), name);
                m.insert("uid".into(), uid);
                for (k, v) in [
                    ("namespace", ns),
                    ("ownerReferences", owners),
                    ("generation", generation),
                    ("creationTimestamp", created),
                    ("deletionTimestamp", deleted),
                    ("labels", labels),
                ] {
                    if let Some(v) = v {
                        m.insert(k.into(), v);
                    }
                }
                Value::Object(m)
            },
        );
    let status = prop::option::of(or_odd(
        (
            prop_oneof![
                30 => prop::collection::vec(condition(), 0..4),
                // Ten thousand conditions, as anyone who writes a status
                // may: short ones (a huge text ten thousand times over is
                // the generator's memory, not the tool's), of a few types.
                1 => (0usize..4, any::<bool>()).prop_map(|(types, fals)| {
                    const TYPES: [&str; 4] = ["Ready", "Available", "Progressing", "Synced"];
                    (0..10_000)
                        .map(|i| json!({"type": TYPES[i % (types + 1)],
                            "status": if fals { "False" } else { "True" }, "reason": format!("R{i}"),
                            "message": format!("condition {i}"), "lastTransitionTime": "2026-01-10T10:00:00Z"}))
                        .collect::<Vec<_>>()
                }),
            ],
            prop::option::of(any::<i64>()),
            prop::option::of(0i64..5),
            prop::option::of(any_json()),
        )
            .prop_map(|(conditions, observed, ready, extra)| {
                json!({"conditions": conditions, "observedGeneration": observed,
                       "readyReplicas": ready, "replicas": 3, "phase": extra})
            }),
    ));
    (
        0..KINDS.len(),
        prop::option::of(prop_oneof![40 => Just(None), 1 => any_json().prop_map(Some)]),
        rarely_odd(metadata),
        prop::option::of(prop_oneof![12 => any_json(), 1 => deep()]),
        status,
        (or_odd(uid()), hostile_text(), hostile_text(), or_odd(time())),
    )
        .prop_map(|(k, odd_kind, metadata, spec, status, (involved, reason, message, at))| {
            let (api_version, kind) = KINDS[k];
            let mut o = json!({"apiVersion": api_version, "kind": kind, "metadata": metadata});
            if let Some(Some(odd)) = odd_kind {
                o["kind"] = odd;
            }
            if let Some(spec) = spec {
                o["spec"] = spec;
            }
            if let Some(status) = status {
                o["status"] = status;
            }
            if kind == "Event" {
                o["involvedObject"] = json!({"uid": involved.clone(), "kind": "Pod", "name": "o1", "namespace": "a"});
                o["regarding"] = json!({"uid": involved, "kind": "Pod", "name": "o1", "namespace": "a"});
                o["reason"] = json!(reason);
                o["message"] = json!(message.clone());
                o["note"] = json!(message);
                o["lastTimestamp"] = at.clone();
                o["eventTime"] = at;
                o["type"] = json!("Warning");
            }
            o
        })
}

/// A snapshot file's text: a List, concatenated JSON, or multi-document
/// YAML.
fn snapshot_text() -> impl Strategy<Value = (String, &'static str)> {
    (prop::collection::vec(object(), 1..10), 0u8..4, 0usize..30_000).prop_map(|(items, form, padding)| match form {
        0 => (
            json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "json",
        ),
        1 => (
            items
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
            "json",
        ),
        2 => (
            items
                .iter()
                .map(|i| serde_yaml_ng::to_string(i).unwrap())
                .collect::<Vec<_>>()
                .join("---\n"),
            "yaml",
        ),
        // The objects, then an alias ladder padded with ordinary nodes.
        _ => {
            let mut text: String = items
                .iter()
                .map(|i| serde_yaml_ng::to_string(i).unwrap())
                .collect::<Vec<_>>()
                .join("---\n");
            text.push_str("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb, namespace: a, uid: b}\npad:\n");
            for i in 0..padding {
                text.push_str(&format!("- {i}\n"));
            }
            text.push_str("l0: &l0 [lol]\n");
            for level in 1..10 {
                let refs = vec![format!("*l{}", level - 1); 9].join(", ");
                text.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
            }
            (text, "yaml")
        }
    })
}

/// Every pure stage on one snapshot text; returns how long it took, and
/// whether the snapshot loaded.
fn pure_stages(text: &str) -> (Duration, bool) {
    let started = Instant::now();
    let source = pipeline::SourceText::new("fuzz.yaml", text);
    let Ok(snap) = pipeline::build_snapshot(&[source], None) else {
        return (started.elapsed(), false);
    };
    let style = Style { color: false };
    let now = snap.now;
    for namespace in [None, Some("a")] {
        let Ok(targets) = pipeline::resolve(&snap, &[], namespace, None) else {
            continue;
        };
        let found: Vec<Target> = targets.clone();
        let judged = Judged::builtin(&snap);
        let tree = TreeReport::build(&judged, &found, true);
        let status = StatusReport::build(&judged, &found);
        let why = WhyReport::build(&judged, &found);
        let texts = [
            pipeline::tree::render(
                &tree,
                &pipeline::tree::TreeOptions {
                    style,
                    width: Some(80),
                    all: false,
                    now,
                    no_headers: false,
                    all_namespaces: false,
                    labels: None,
                },
            ),
            pipeline::tree::render(
                &tree,
                &pipeline::tree::TreeOptions {
                    style,
                    width: None,
                    all: true,
                    now,
                    no_headers: true,
                    all_namespaces: true,
                    labels: Some(&snap),
                },
            ),
            pipeline::status::render(
                &status,
                &pipeline::status::StatusOptions {
                    style,
                    width: Some(60),
                    now,
                    view: &Default::default(),
                    all_namespaces: false,
                    snapshot: Some(&snap),
                },
            ),
            pipeline::why::render(
                &why,
                &pipeline::why::WhyOptions {
                    style,
                    width: None,
                    now,
                    full: true,
                },
            ),
        ];
        for t in &texts {
            crate::assert_inert(t);
        }
        for doc in [
            pipeline::json(&tree),
            pipeline::json(&why),
            pipeline::json(&status),
        ] {
            crate::assert_inert(&doc);
            serde_json::from_str::<Value>(&doc).expect("valid JSON");
        }
        for doc in [pipeline::yaml(&tree), pipeline::yaml(&status)] {
            crate::assert_inert(&doc);
            serde_yaml_ng::from_str::<Value>(&doc).expect("valid YAML");
        }
    }
    (started.elapsed(), true)
}

#[test]
fn fuzzed_snapshots_through_the_loader_and_the_pure_stages() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let loaded = std::sync::atomic::AtomicU32::new(0);
    runner
        .run(&snapshot_text(), |(text, _)| {
            let (took, ok) = pure_stages(&text);
            prop_assert!(took < Duration::from_secs(5), "took {took:?}");
            loaded.fetch_add(u32::from(ok), std::sync::atomic::Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
    // The generator must reach the stages after the loader, not only its
    // refusals.
    let loaded = loaded.into_inner();
    assert!(
        loaded >= cases() / 4,
        "only {loaded} of {} inputs loaded",
        cases()
    );
}

#[test]
fn fuzzed_snapshots_through_the_binary() {
    let dir = crate::scratch();
    let mut runner = TestRunner::new(Config {
        cases: (cases() / 8).max(4),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&snapshot_text(), |(text, ext)| {
            let path = dir.path().join(format!("fuzz.{ext}"));
            std::fs::write(&path, &text).unwrap();
            let path = path.to_str().unwrap();
            for args in [
                vec!["status", "-A", "--snapshot", path],
                vec!["why", "-n", "a", "--snapshot", path],
                vec![
                    "tree",
                    "pods/o1",
                    "-n",
                    "a",
                    "--owners",
                    "-o",
                    "yaml",
                    "--snapshot",
                    path,
                ],
                vec!["status", "-f", path, "-o", "json", "--snapshot", path],
            ] {
                let out = crate::run(dir.path(), &args, Duration::from_secs(60));
                prop_assert!(
                    matches!(out.code, 0..=2),
                    "{args:?}: exit {}\n{}",
                    out.code,
                    out.stderr
                );
                prop_assert!(
                    out.took < Duration::from_secs(10),
                    "{args:?}: {:?}",
                    out.took
                );
                crate::assert_inert(&out.stdout);
                crate::assert_inert(&out.stderr);
            }
            Ok(())
        })
        .unwrap();
}
