//! `tree`: the owner-reference tree under each target.

use super::frame::{Frame, document, state_line};
use super::{Outcome, exit_code, load_keep, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, tree::TreeOptions};
use crate::report::{Node, TreeReport};
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

pub struct TreeFlags {
    pub owners: bool,
    pub all: bool,
    pub watch: bool,
}

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    flags: TreeFlags,
) -> anyhow::Result<Outcome> {
    if specs.is_empty() {
        return Err(super::UsageError(
            "tree needs a target, e.g. `tree deploy/web` or `tree deployments -l app=web`".into(),
        )
        .into());
    }
    let loaded = load_keep(
        settings,
        specs,
        Mode::Tree {
            owners: flags.owners,
        },
        None,
    )
    .await?;
    watch::show(
        settings,
        loaded,
        flags.watch,
        false,
        false,
        |snap, targets, compact| frame(settings, snap, targets, &flags, compact),
    )
    .await
}

pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    flags: &TreeFlags,
    compact: bool,
) -> Frame {
    let report = TreeReport::build(snap, targets, flags.owners);
    let opts = TreeOptions {
        style: Style {
            color: settings.color,
        },
        width: settings.width,
        all: flags.all,
        now: snap.now,
    };
    let text = if report.items.is_empty() {
        "No objects found.\n".to_string()
    } else {
        render::tree::render(&report, &opts)
    };
    let mut states = Vec::new();
    fn walk(node: &Node, out: &mut Vec<(String, String)>) {
        out.push(state_line(&node.item));
        for c in &node.children {
            walk(c, out);
        }
    }
    for item in &report.items {
        walk(&item.node, &mut states);
    }
    Frame {
        document: document(&report, settings, compact),
        code: exit_code(report.items.iter().map(|t| &t.node.item)),
        states,
        text,
    }
}
