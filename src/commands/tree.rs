//! `tree`: the owner-reference tree under each target.

use super::frame::{Frame, Shown, Subject, document, selected, shaped_text, state_line};
use super::{Outcome, exit_code, load_keep, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, shape::Shape, tree::TreeOptions};
use crate::report::{Node, TreeReport};
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

#[derive(Debug, Clone, Copy)]
pub struct TreeFlags {
    pub owners: bool,
    pub all: bool,
    pub watch: bool,
}

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    flags: TreeFlags,
    seat: Option<super::fleet_watch::Seat>,
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
        (Shown::watching(flags.watch), seat),
        Subject::Named,
        |settings, snap, targets, shown| frame(settings, snap, targets, &flags, shown),
    )
    .await
}

pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    flags: &TreeFlags,
    shown: Shown,
) -> Frame {
    let judge = settings.judge();
    let snap = &judge.on(snap);
    let mut report = TreeReport::build(snap, &selected(settings, snap, targets), flags.owners);
    if let Some(path) = &settings.view.sort_by {
        render::shape::sort_by(&mut report.items, path);
    }
    let opts = TreeOptions {
        style: Style {
            color: settings.color,
        },
        width: settings.text_width(),
        all: flags.all,
        now: snap.now,
        no_headers: settings.view.no_headers,
        all_namespaces: settings.scope.is_all(),
        labels: settings.view.show_labels.then_some(snap),
    };
    fn walk<'a>(node: &'a Node, out: &mut Vec<&'a Node>) {
        out.push(node);
        for c in &node.children {
            walk(c, out);
        }
    }
    let code = super::answer_exit_code(
        exit_code(report.items.iter().map(|t| &t.node.item)),
        &report.incomplete,
        false,
    );
    // `--verdict` is a view: the exit status above follows every target.
    let hidden = settings
        .view
        .keep_verdicts(&mut report.items, |t| t.node.item.judgement.verdict);
    // `-o name` lists every object in the trees.
    let mut nodes = Vec::new();
    for item in &report.items {
        walk(&item.node, &mut nodes);
    }
    Frame::made(
        settings,
        shown,
        code,
        || {
            let objects: Vec<_> = nodes.iter().map(|n| &n.item.object).collect();
            shaped_text(settings, &report.items, &objects).unwrap_or_else(|| {
                match settings.view.output {
                    Shape::Dot => return render::graph::dot(&report),
                    Shape::Mermaid => return render::graph::mermaid(&report),
                    _ => {}
                }
                let text = match (report.items.is_empty(), hidden) {
                    (true, 0) => "No objects found.\n".to_string(),
                    (true, _) => String::new(),
                    (false, _) => render::tree::render(&report, &opts),
                };
                text + &settings.view.hidden_line(hidden, "tree")
            })
        },
        || document(&report, settings, shown),
        || nodes.iter().map(|n| state_line(&n.item)).collect(),
    )
}
