//! `rules`: the health rules in effect and where each came from; with
//! types, what each one's CRD lets speak (read live, one GET each, or
//! from the snapshot).

use super::Outcome;
use super::frame::document;
use crate::model::Object;
use crate::render::escape;
use crate::render::rules::{RuleList, render, render_for};
use crate::settings::Settings;
use crate::source::live::{Crd, Live};

/// At most this many types are looked up in one `rules` command.
const MAX_TYPES: usize = 32;

pub async fn run(settings: &Settings, types: &[String]) -> anyhow::Result<Outcome> {
    if settings.view.output.is_document() {
        let stdout = document(
            &RuleList::build(&settings.rules),
            settings,
            super::frame::Shown::Once,
        );
        return Ok(Outcome { stdout, code: 0 });
    }
    if types.is_empty() {
        return Ok(Outcome {
            stdout: render(&settings.rules) + &snapshot_crds(settings),
            code: 0,
        });
    }
    // The kinds named: their rules only, then what their CRDs let speak.
    let (crds, kinds) = named_crds(settings, types).await?;
    let table = render_for(&settings.rules, Some(&kinds));
    let table = if table.lines().count() <= 1 {
        "No health rule of the pack or yours covers these kinds.\n".to_string()
    } else {
        table
    };
    Ok(Outcome {
        stdout: table + &crds,
        code: 0,
    })
}

/// With `--snapshot` and no type: the kinds its CRDs let speak where no
/// convention reads them, and what of each is read (docs/verdicts.md).
fn snapshot_crds(settings: &Settings) -> String {
    let Some(snap) = snapshot(settings) else {
        return String::new();
    };
    let mut lines: Vec<String> = snap
        .objects()
        .iter()
        .filter(|o| is_crd(o))
        .filter_map(|crd| {
            let reads = crate::verdict::columns::reads(crd);
            (!reads.is_empty()).then(|| line(crd, &reads))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    lines.sort();
    format!("\n{HEADING}\n{}", lines.concat())
}

const HEADING: &str = "What CRDs let speak, where no rule or convention reads a kind's status:";

/// The types the user named: each one's CRD, read live (one GET) or found
/// in the snapshot, and what it lets speak; or why there is nothing. And
/// their group and kind, as resolved.
async fn named_crds(
    settings: &Settings,
    types: &[String],
) -> anyhow::Result<(String, Vec<(String, String)>)> {
    if types.len() > MAX_TYPES {
        anyhow::bail!("rules looks up at most {MAX_TYPES} types at once\nhint: name fewer types");
    }
    let mut lines = Vec::new();
    let mut kinds = Vec::new();
    match snapshot(settings) {
        Some(snap) => {
            let catalog = crate::source::offline::catalog_of(&snap);
            for spelling in types {
                let rt = catalog
                    .resolve(spelling)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let name = format!("{}.{}", rt.plural, rt.group);
                kinds.push((rt.group.clone(), rt.kind.clone()));
                let crd = snap
                    .objects()
                    .iter()
                    .find(|o| is_crd(o) && o.name() == name);
                lines.push(match crd {
                    _ if crate::catalog::is_builtin_group(&rt.group) => built_in(&rt.kind),
                    Some(crd) => found(crd),
                    None => unread(&rt.kind, &rt.group, "the snapshot holds no CRD of it"),
                });
            }
        }
        None => {
            let mut live = Live::connect(&settings.connection, settings.cache_dir.clone()).await?;
            for spelling in types {
                lines.push(match live.crd_of(spelling).await? {
                    Crd::Found(crd) => {
                        kinds.push((
                            crd.str("/spec/group").unwrap_or_default().to_string(),
                            crd.str("/spec/names/kind").unwrap_or_default().to_string(),
                        ));
                        found(&crd)
                    }
                    Crd::BuiltIn(rt) => {
                        kinds.push((rt.group.clone(), rt.kind.clone()));
                        built_in(&rt.kind)
                    }
                    Crd::Unread(rt, why) => {
                        kinds.push((rt.group.clone(), rt.kind.clone()));
                        unread(&rt.kind, &rt.group, &why)
                    }
                });
            }
        }
    }
    Ok((format!("\n{HEADING}\n{}", lines.concat()), kinds))
}

fn snapshot(settings: &Settings) -> Option<crate::model::Snapshot> {
    let path = settings.snapshot.as_ref()?;
    crate::source::file::load_snapshot(path, settings.now, settings.snapshot_limit).ok()
}

fn is_crd(o: &Object) -> bool {
    o.kind() == "CustomResourceDefinition" && o.group() == "apiextensions.k8s.io"
}

/// `  Kind.group: column X (.path), status.f (an enum of the CRD)`.
fn line(crd: &Object, reads: &[String]) -> String {
    format!(
        "  {}.{}: {}\n",
        escape(crd.str("/spec/names/kind").unwrap_or("?")),
        escape(crd.str("/spec/group").unwrap_or("?")),
        escape(&reads.join(", "))
    )
}

fn found(crd: &Object) -> String {
    let reads = crate::verdict::columns::reads(crd);
    if reads.is_empty() {
        return line(
            crd,
            &["its CRD declares no state column or enum: the conventions alone decide".into()],
        );
    }
    line(crd, &reads)
}

fn built_in(kind: &str) -> String {
    format!(
        "  {}: a kind of Kubernetes' own, judged by the tool's rules for it (docs/verdicts.md)\n",
        escape(kind)
    )
}

fn unread(kind: &str, group: &str, why: &str) -> String {
    format!(
        "  {}.{}: {}; the conventions alone decide\n",
        escape(kind),
        escape(group),
        escape(why)
    )
}
