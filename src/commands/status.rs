//! `status`: one line per target, or per root object of the namespace.

use super::frame::{Frame, Shown, Subject, document, selected, shaped_text, state_line};
use super::load::load_status_keep;
use super::{Outcome, sweep_exit_code, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, status::StatusOptions};
use crate::report::StatusReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;
use crate::verdict::Item;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    shown: Shown,
) -> anyhow::Result<Outcome> {
    let (loaded, settled) = load_status_keep(settings, specs).await?;
    // Only a one-shot answer has settled rows, and it draws one frame:
    // the rows move into it rather than being copied.
    let settled = std::cell::RefCell::new(settled);
    let subject = if specs.is_empty() {
        Subject::Roots
    } else {
        Subject::Named
    };
    watch::show(
        settings,
        loaded,
        shown,
        subject,
        |settings, snap, targets, shown| {
            let rows = settled.take();
            frame(settings, snap, targets, shown, subject, rows)
        },
    )
    .await
}

/// `subject`: the named targets, or the namespace's roots, found by reading
/// it; `settled`: the rows of the roots the sweep judged as their lists
/// arrived and did not keep, merged in the sweep's order (namespace, kind,
/// name).
pub fn frame(
    settings: &Settings,
    snap: &Snapshot,
    targets: &[Target],
    shown: Shown,
    subject: Subject,
    settled: Vec<Item>,
) -> Frame {
    let sweep = subject.is_sweep();
    let judge = settings.judge();
    let snap = &judge.on(snap);
    let mut report = StatusReport::build(snap, &selected(settings, snap, targets));
    if !settled.is_empty() {
        report.items.extend(settled);
        fn key(i: &Item) -> (Option<&str>, &str, &str) {
            let o = &i.object;
            (o.namespace.as_deref(), &o.kind, &o.name)
        }
        report.items.sort_by(|a, b| key(a).cmp(&key(b)));
    }
    if sweep {
        // Runs that failed and are gone, known by their events.
        report.items.extend(
            crate::diagnose::failed_and_deleted(snap)
                .into_iter()
                .map(|d| d.item),
        );
    }
    if let Some(path) = &settings.view.sort_by {
        render::shape::sort_by(&mut report.items, path);
    }
    let code = sweep_exit_code(&report.items, &report.incomplete, sweep);
    // `--verdict` is a view: the exit status above follows every target.
    let hidden = settings
        .view
        .keep_verdicts(&mut report.items, |i| i.judgement.verdict);
    Frame::made(
        settings,
        shown,
        code,
        || {
            let objects: Vec<_> = report.items.iter().map(|i| &i.object).collect();
            shaped_text(settings, &report.items, &objects).unwrap_or_else(|| {
                if report.items.is_empty() && hidden > 0 {
                    return settings.view.hidden_line(hidden, "row");
                }
                let text = render::status::render(
                    &report,
                    &StatusOptions {
                        style: Style {
                            color: settings.color,
                        },
                        width: settings.width,
                        now: snap.now,
                        view: &settings.view,
                        all_namespaces: settings.scope.is_all(),
                        snapshot: Some(snap),
                    },
                );
                text + &settings.view.hidden_line(hidden, "row")
            })
        },
        || document(&report, settings, shown),
        || report.items.iter().map(state_line).collect(),
    )
}
