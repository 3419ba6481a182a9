//! Test helpers shared by the unit tests: settings from a command line,
//! and the YAML fixtures of real objects in `tests/fixtures/verdict/`,
//! loaded as snapshots.

use std::path::Path;

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{Event, Object, Snapshot};

/// The settings of `kubectl reconcile ARGS`, as `main` makes them.
pub fn settings(args: &[&str]) -> crate::settings::Settings {
    use clap::Parser;
    let cli = crate::cli::Cli::try_parse_from(
        std::iter::once("kubectl-reconcile").chain(args.iter().copied()),
    )
    .unwrap();
    crate::settings::Settings::from_args(&cli.global).unwrap()
}

pub fn fixture_dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/verdict"
    ))
}

/// Loads a fixture into a snapshot; returns it and the object under test.
pub fn load(name: &str, now: &str) -> (Snapshot, Object) {
    let path = fixture_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut objects = Vec::new();
    let mut events = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
        let value = Value::deserialize(doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        let is_event = value.get("kind").and_then(Value::as_str) == Some("Event");
        if is_event && !objects.is_empty() {
            events.push(Event::from_value(&value).unwrap_or_else(|| panic!("{name}: bad event")));
        } else {
            objects.push(Object::from_value(value).unwrap_or_else(|| panic!("{name}: bad object")));
        }
    }
    let subject = objects
        .first()
        .cloned()
        .unwrap_or_else(|| panic!("{name}: empty fixture"));
    let now: Timestamp = now.parse().unwrap();
    (Snapshot::new(objects, events, Vec::new(), now), subject)
}

/// The objects real operators wrote (`tests/fixtures/operators/`, captured
/// by the scripts there): the files named, relative to that folder, as one
/// snapshot at `now`. Events after the first object are events.
pub fn operators(files: &[&str], now: &str) -> Snapshot {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/operators"
    ));
    let mut objects = Vec::new();
    let mut events = Vec::new();
    for name in files {
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for doc in serde_yaml_ng::Deserializer::from_str(&text) {
            let value = Value::deserialize(doc).unwrap_or_else(|e| panic!("{name}: {e}"));
            if value.get("kind").and_then(Value::as_str) == Some("Event") {
                events.extend(Event::from_value(&value));
            } else {
                objects.push(
                    Object::from_value(value).unwrap_or_else(|| panic!("{name}: bad object")),
                );
            }
        }
    }
    Snapshot::new(objects, events, Vec::new(), now.parse().unwrap())
}
