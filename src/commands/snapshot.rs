//! `snapshot`: what `why` reads about its targets (or the namespace's
//! roots), written as a capture (see [`crate::capture`]) that
//! `--snapshot` replays with the same answer. `why --capture` writes the
//! same beside its answer, from the same read.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use super::{Outcome, UsageError, load_why_keep};
use crate::capture::{self, Header};
use crate::model::Snapshot;
use crate::render::shape::Shape;
use crate::settings::Settings;
use crate::source::live::Live;
use crate::targets::TargetSpec;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    command: String,
    output_file: Option<&Path>,
) -> anyhow::Result<Outcome> {
    if settings.snapshot.is_some() {
        return Err(UsageError(
            "snapshot captures from a live cluster: a --snapshot file is a capture already".into(),
        )
        .into());
    }
    let (loaded, _) = load_why_keep(settings, specs).await?;
    let json = settings.view.output == Shape::Json;
    let sink = match output_file {
        None => Sink::Stdout,
        Some(path) => Sink::File(path),
    };
    let snap = &loaded.fetched.snapshot;
    let written = capture(settings, snap, loaded.live.as_ref(), command, json, sink).await?;
    Ok(Outcome {
        stdout: written.map_or_else(String::new, |w| {
            format!("captured to {}\n", crate::render::escape(&w))
        }),
        code: 0,
    })
}

/// Where a capture is written.
pub enum Sink<'a> {
    /// Standard output, a document at a time as it is made.
    Stdout,
    /// A file (or a new file in a directory), whole or not at all.
    File(&'a Path),
}

/// Writes the capture of what `snap` read (`live`, the connection that
/// read it, says its kinds) as YAML documents (or, `json`, a `List`),
/// streamed a document at a time and stopped past `--snapshot-limit`: a
/// capture must replay without a flag of its own. Returns where a file
/// went.
pub async fn capture(
    settings: &Settings,
    snap: &Snapshot,
    live: Option<&Live>,
    command: String,
    json: bool,
    sink: Sink<'_>,
) -> anyhow::Result<Option<String>> {
    let docs = documents(settings, snap, live, command).await;
    let limit = settings.snapshot_limit;
    match sink {
        Sink::Stdout => {
            let mut out = std::io::BufWriter::new(crate::terminal::Console::process().out);
            match stream(&mut out, docs, json, limit) {
                // A closed pipe (`| head`) is not an error, as for any answer.
                Err(e) if is_broken_pipe(&e) => Ok(None),
                done => done.map(|()| None),
            }
        }
        Sink::File(path) => {
            let name = format!(
                "capture-{}.yaml",
                jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ")
            );
            let written = crate::source::local::write_whole(path, &name, |out| {
                stream(out, docs, json, limit)
            })?;
            Ok(Some(written.display().to_string()))
        }
    }
}

/// The documents of the capture: its header, then every object and event,
/// pseudonymous with `--anonymize`.
async fn documents<'a>(
    settings: &Settings,
    snap: &'a Snapshot,
    live: Option<&Live>,
    command: String,
) -> Box<dyn Iterator<Item = Value> + 'a> {
    let (kinds, server_version) = match live {
        Some(live) => (live.kinds_of(snap), live.server_version().await),
        None => (Vec::new(), None),
    };
    let header = Header::of(snap, command, server_version, kinds);
    if settings.anonymize {
        // Every name must be known before the first is replaced.
        let mut all: Vec<Value> = capture::documents(snap, &header).collect();
        crate::anonymize::anonymize(&mut all);
        Box::new(all.into_iter())
    } else {
        Box::new(capture::documents(snap, &header))
    }
}

/// Writes `docs` to `out` a document at a time, counting the bytes; stops
/// with an error before the document that would pass `limit`. Pure but
/// for `out`.
fn stream(
    out: &mut dyn Write,
    docs: impl Iterator<Item = Value>,
    json: bool,
    limit: u64,
) -> anyhow::Result<()> {
    let mut size = 0u64;
    let mut put = |out: &mut dyn Write, text: &str| -> anyhow::Result<()> {
        size += text.len() as u64;
        if size > limit {
            anyhow::bail!(
                "the capture is larger than {}: it stops here\nhint: capture fewer targets (a name, -l), or raise --snapshot-limit (a replay then needs the same flag)",
                crate::source::local::show_size(limit)
            );
        }
        out.write_all(text.as_bytes())
            .context("cannot write the capture")
    };
    if !json {
        for doc in docs {
            put(out, "---\n")?;
            put(out, &crate::render::yaml(&doc))?;
        }
        return out.flush().context("cannot write the capture");
    }
    // The `List` that `-o json` prints whole, written an item at a time.
    put(out, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [")?;
    for (i, doc) in docs.enumerate() {
        let mut item = String::from(if i == 0 { "\n" } else { ",\n" });
        for (j, line) in crate::escape::json_pretty(&doc).lines().enumerate() {
            if j > 0 {
                item.push('\n');
            }
            item.push_str("    ");
            item.push_str(line);
        }
        put(out, &item)?;
    }
    put(out, "\n  ],\n  \"kind\": \"List\"\n}\n")?;
    out.flush().context("cannot write the capture")
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::settings;

    /// Many objects, each with a long annotation: far past a small limit.
    fn big() -> Snapshot {
        let objects = (0..2_000)
            .map(|i| {
                crate::model::Object::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": format!("web-{i}"), "namespace": "shop", "uid": format!("u{i}"),
                        "annotations": {"note": "x".repeat(1_000)}}}))
                .unwrap()
            })
            .collect();
        Snapshot::new(objects, vec![], vec![], jiff::Timestamp::UNIX_EPOCH)
    }

    fn capture(args: &[&str], json: bool) -> anyhow::Result<String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let settings = settings(args);
        let snap = big();
        let docs = rt.block_on(documents(
            &settings,
            &snap,
            None,
            "kubectl reconcile snapshot".into(),
        ));
        let mut out = Vec::new();
        stream(&mut out, docs, json, settings.snapshot_limit)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_capture_stops_past_its_size_limit_in_either_format() {
        for json in [false, true] {
            let err = capture(&["--snapshot-limit", "64Ki"], json)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("the capture is larger than 64 KiB"),
                "{err}"
            );
        }
        // The default holds it: about 2 MB.
        let text = capture(&[], false).unwrap();
        assert!(
            text.len() > 2_000_000 && text.starts_with("---\n"),
            "{}",
            text.len()
        );
        let header: serde_json::Value =
            serde_yaml_ng::from_str(text.split("---\n").nth(1).unwrap()).unwrap();
        assert_eq!(header["documents"], 2_000);
    }

    #[test]
    fn a_streamed_list_is_the_list_printed_whole() {
        let text = capture(&[], true).unwrap();
        let list: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(list["items"].as_array().unwrap().len(), 2_001);
        assert_eq!(text, crate::render::json(&list));
    }

    #[test]
    fn a_capture_to_a_file_is_written_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture.yaml");
        std::fs::write(&file, "what was there").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let snap = big();
        let to_file = |args: &[&str]| {
            rt.block_on(super::capture(
                &settings(args),
                &snap,
                None,
                "kubectl reconcile snapshot".into(),
                false,
                Sink::File(&file),
            ))
        };
        let err = to_file(&["--snapshot-limit", "64Ki"]).unwrap_err();
        assert!(
            err.to_string().starts_with("the capture is larger"),
            "{err}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no partial file is left beside it");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "what was there");
        let written = to_file(&[]).unwrap().unwrap();
        assert_eq!(written, file.display().to_string());
        assert!(std::fs::read_to_string(&file).unwrap().len() > 2_000_000);
    }
}
