//! `snapshot`: what `why` reads about its targets (or the namespace's
//! roots), written as a capture (see [`crate::capture`]) that
//! `--snapshot` replays with the same answer. `why --capture` writes the
//! same beside its answer, from the same read.

use std::path::Path;

use anyhow::Context;

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
    let text = capture_text(
        settings,
        &loaded.fetched.snapshot,
        loaded.live.as_ref(),
        command,
        json,
    )
    .await?;
    match output_file {
        None => Ok(Outcome {
            stdout: text,
            code: 0,
        }),
        Some(path) => {
            let written = write(path, &text)?;
            Ok(Outcome {
                stdout: format!("captured to {}\n", crate::render::escape(&written)),
                code: 0,
            })
        }
    }
}

/// Writes a capture to `path` (a file, or a new file in a directory);
/// where it went.
pub fn write(path: &Path, text: &str) -> anyhow::Result<String> {
    let name = format!(
        "capture-{}.yaml",
        jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ")
    );
    let written = crate::source::local::write_text(path, &name, text)
        .with_context(|| format!("cannot write the capture to {}", path.display()))?;
    Ok(written.display().to_string())
}

/// The capture of what `loaded` read, as YAML documents (or, `json`, a
/// `List`), refused past `--snapshot-limit`: a capture must replay
/// without a flag of its own.
pub async fn capture_text(
    settings: &Settings,
    snap: &Snapshot,
    live: Option<&Live>,
    command: String,
    json: bool,
) -> anyhow::Result<String> {
    let (kinds, server_version) = match live {
        Some(live) => (live.kinds_of(snap), live.server_version().await),
        None => (Vec::new(), None),
    };
    let header = Header::of(snap, command, server_version, kinds);
    let limit = settings.snapshot_limit;
    let too_big = || {
        anyhow::anyhow!(
            "the capture is larger than {}: it stops here\nhint: capture fewer targets (a name, -l), or raise --snapshot-limit (a replay then needs the same flag)",
            crate::source::local::show_size(limit)
        )
    };
    let documents: Box<dyn Iterator<Item = serde_json::Value>> = if settings.anonymize {
        // Every name must be known before the first is replaced.
        let mut all: Vec<serde_json::Value> = capture::documents(snap, &header).collect();
        crate::anonymize::anonymize(&mut all);
        Box::new(all.into_iter())
    } else {
        Box::new(capture::documents(snap, &header))
    };
    let mut text = String::new();
    if json {
        // Counted as each document is added, so that a huge answer stops
        // before the whole List is built.
        let mut items: Vec<serde_json::Value> = Vec::new();
        let mut size = 0u64;
        for doc in documents {
            size += serde_json::to_vec(&doc).map_or(0, |b| b.len() as u64);
            if size > limit {
                return Err(too_big());
            }
            items.push(doc);
        }
        text = crate::render::json(
            &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}),
        );
        if text.len() as u64 > limit {
            return Err(too_big());
        }
        return Ok(text);
    }
    for doc in documents {
        text.push_str("---\n");
        text.push_str(&crate::render::yaml(&doc));
        if text.len() as u64 > limit {
            return Err(too_big());
        }
    }
    Ok(text)
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
        rt.block_on(capture_text(
            &settings(args),
            &big(),
            None,
            "kubectl reconcile snapshot".into(),
            json,
        ))
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
    }
}
