//! `status`: one line per target, or per root object of the namespace.

use super::fleet_watch::Seat;
use super::frame::{Frame, Shown, Subject, document, selected, shaped_text, state_line};
use super::load::load_status_keep;
use super::{Outcome, sweep_exit_code, watch};
use crate::model::{Snapshot, Target};
use crate::render::{self, Style, status::StatusOptions};
use crate::report::StatusReport;
use crate::settings::Settings;
use crate::targets::TargetSpec;
use crate::verdict::Item;
use crate::verdict::Judged;
use std::sync::Arc;

pub async fn run(
    settings: &Settings,
    specs: &[TargetSpec],
    shown: Shown,
    seat: Option<Seat>,
) -> anyhow::Result<Outcome> {
    let (loaded, settled) = load_status_keep(settings, specs).await?;
    let subject = Subject::of(specs, Subject::Roots);
    watch::show(
        settings,
        loaded,
        (shown, seat),
        subject,
        |settings, snap, targets, shown| {
            // A one-shot answer draws one frame: its rows move into it
            // rather than being copied. A live one draws the rows of the
            // moment its snapshot was made.
            let rows = match (&settled, shown) {
                (None, _) => Vec::new(),
                (Some(settled), Shown::Live) => settled.frame_rows(snap),
                (Some(settled), Shown::Once) => settled.rows(),
            };
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
    settled: Vec<Arc<Item>>,
) -> Frame {
    let judge = settings.judge();
    let snap = &judge.on(snap);
    let Answer {
        report,
        code,
        hidden,
    } = answer(settings, snap, targets, subject, settled);
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
                let text = render::status::render(&report, &options(settings, snap));
                text + &settings.view.hidden_line(hidden, "row")
            })
        },
        || document(&report, settings, shown),
        || report.items.iter().map(|i| state_line(i)).collect(),
    )
}

/// A status answer: the report (its rows after `--verdict`), the exit
/// status (which follows every row), and how many rows `--verdict` hid.
pub struct Answer {
    pub report: StatusReport,
    pub code: u8,
    pub hidden: usize,
}

fn answer(
    settings: &Settings,
    snap: &Judged<'_>,
    targets: &[Target],
    subject: Subject,
    settled: Vec<Arc<Item>>,
) -> Answer {
    let sweep = subject.is_sweep();
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
        crate::report::with_troubled_children(snap, &mut report.items);
        // Runs that failed and are gone, known by their events.
        report.items.extend(
            crate::diagnose::failed_and_deleted(snap)
                .into_iter()
                .map(|d| Arc::new(d.item)),
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
    Answer {
        report,
        code,
        hidden,
    }
}

/// How the status table is drawn for these settings.
pub fn options<'a>(settings: &'a Settings, snap: &'a Snapshot) -> StatusOptions<'a> {
    StatusOptions {
        now: snap.now,
        snapshot: Some(snap),
        ..options_without_objects(settings)
    }
}

/// [`options`] with no objects to read labels from, judged now.
fn options_without_objects(settings: &Settings) -> StatusOptions<'_> {
    StatusOptions {
        style: Style {
            color: settings.color,
        },
        width: settings.width,
        now: jiff::Timestamp::now(),
        view: &settings.view,
        all_namespaces: settings.scope.is_all(),
        snapshot: None,
    }
}

/// One context's status answer for a fleet: the answer, and its rows
/// drawn with the context's own objects (labels), NAMESPACE first.
pub async fn member(
    settings: &Settings,
    specs: &[TargetSpec],
) -> anyhow::Result<(Answer, Vec<Vec<crate::render::layout::Cell>>)> {
    let (loaded, settled) = load_status_keep(settings, specs).await?;
    let judge = settings.judge();
    let snap = &judge.on(&loaded.fetched.snapshot);
    let answer = answer(
        settings,
        snap,
        &loaded.fetched.targets,
        Subject::of(specs, Subject::Roots),
        settled.map(|s| s.rows()).unwrap_or_default(),
    );
    let rows = render::status::rows(&answer.report, &options(settings, snap), true);
    Ok((answer, rows))
}

/// `status --contexts`: one table for the fleet, CONTEXT first, a row for
/// each context that gave no answer; documents carry the context on
/// every item.
pub async fn fleet(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Outcome> {
    use super::fleet::{self, FleetReport};
    use crate::render::layout::Cell;
    let answers = fleet::ask(settings, settings.deadline, |one, _| async move {
        member(&one, specs).await
    })
    .await?;
    let code = fleet::exit_code(&answers, |(a, _)| a.code);
    let output = &settings.view.output;
    if output.is_document() || matches!(output, crate::settings::Shape::CustomColumns(_)) {
        let documents = answers
            .into_iter()
            .map(|(m, r)| {
                let r = r.map(|(a, _)| {
                    let document = serde_json::to_value(&a.report).unwrap_or_default();
                    (document, a.code)
                });
                (m, r)
            })
            .collect();
        let stdout = fleet::document(settings, &FleetReport::of("status", documents));
        return Ok(Outcome { stdout, code });
    }
    if *output == crate::settings::Shape::Name {
        fleet::say_unanswered(&answers);
        let objects = answers.iter().flat_map(|(m, r)| {
            r.iter()
                .flat_map(|(a, _)| a.report.items.iter().map(|i| (m.name.as_str(), &i.object)))
        });
        let stdout = objects
            .map(|(context, object)| {
                format!(
                    "{}/{}",
                    render::escape(context),
                    render::shape::names([object])
                )
            })
            .collect();
        return Ok(Outcome { stdout, code });
    }
    let namespaces: std::collections::BTreeSet<Option<&str>> = answers
        .iter()
        .flat_map(|(_, r)| r.iter().flat_map(|(a, _)| a.report.items.iter()))
        .map(|i| i.object.namespace.as_deref())
        .collect();
    let show_ns = settings.scope.is_all() || namespaces.len() > 1;
    let opts = options_without_objects(settings);
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut gaps = Vec::new();
    let mut hidden = 0;
    for (member, result) in answers {
        let context = || Cell::plain(render::escape(&member.name).into_owned());
        match result {
            Ok((answer, member_rows)) => {
                hidden += answer.hidden;
                gaps.extend(
                    answer
                        .report
                        .incomplete
                        .into_iter()
                        .map(|g| (member.name.clone(), g)),
                );
                for row in member_rows {
                    let mut line = vec![context()];
                    line.extend(row.into_iter().skip(usize::from(!show_ns)));
                    rows.push(line);
                }
            }
            Err(e) => {
                let message = fleet::unanswered_line(&member, &e);
                let mut line = vec![context()];
                line.extend(render::status::unanswered_row(
                    &opts, show_ns, e.reason, &message,
                ));
                rows.push(line);
            }
        }
    }
    let mut stdout = if rows.is_empty() {
        "No objects found.\n".to_string()
    } else {
        render::status::lay_out_table(
            Some("CONTEXT"),
            render::status::columns(&opts, show_ns),
            rows,
            &opts,
        )
    };
    stdout.push_str(&render::footer_of(
        gaps.iter().map(|(c, g)| (Some(c.as_str()), g)),
        opts.style,
    ));
    stdout.push_str(&settings.view.hidden_line(hidden, "row"));
    Ok(Outcome { stdout, code })
}
