//! One rendering of a command's answer: the text, the document for `-o
//! json|yaml`, the exit status, and a line per object for change logs.

use crate::render;
use crate::settings::{Settings, Shape};

/// How an answer is shown: once, or live under `--watch` (JSON lines and
/// change lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Once,
    Live,
}

impl Shown {
    /// Live when `--watch` was given.
    pub fn watching(watch: bool) -> Shown {
        if watch { Shown::Live } else { Shown::Once }
    }
}

/// What an answer is about, found again in every new snapshot of a
/// `--watch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// The targets the user named.
    Named,
    /// Every root object in scope: no target was named (`status`).
    Roots,
    /// The root objects in scope that are not converged (`why`).
    FailingRoots,
}

impl Subject {
    /// `sweep` when no target is named, else the named targets.
    pub fn of(specs: &[crate::targets::TargetSpec], sweep: Subject) -> Subject {
        if specs.is_empty() {
            sweep
        } else {
            Subject::Named
        }
    }

    /// The answer is a sweep of the scope's roots.
    pub fn is_sweep(self) -> bool {
        self != Subject::Named
    }
}

pub struct Frame {
    pub text: String,
    /// The `-o json` (compact, one line) or `-o yaml` document.
    pub document: String,
    pub code: u8,
    /// `(key, line)` per object, for "what changed" lines off a terminal.
    pub states: Vec<(String, String)>,
}

impl Frame {
    /// A frame of what `settings` prints, each part made only where it is
    /// read: the document for `-o json|yaml|jsonpath`, the text otherwise,
    /// and the change lines only for a `--watch` of the text; a watch off
    /// a terminal (no width), which prints only change lines, makes no
    /// text. A sweep of 60,000 roots then does not also make a 40 MB
    /// document, or a table, nobody prints.
    pub fn made(
        settings: &Settings,
        shown: Shown,
        code: u8,
        text: impl FnOnce() -> String,
        document: impl FnOnce() -> String,
        states: impl FnOnce() -> Vec<(String, String)>,
    ) -> Frame {
        let is_document = settings.view.output.is_document();
        let lines_only = shown == Shown::Live && settings.width.is_none();
        Frame {
            text: if is_document || lines_only {
                String::new()
            } else {
                text()
            },
            document: if is_document {
                document()
            } else {
                String::new()
            },
            code,
            states: if shown == Shown::Live && !is_document {
                states()
            } else {
                Vec::new()
            },
        }
    }

    /// What to print once, for a command run without `--watch`.
    pub fn output(&self, settings: &Settings) -> String {
        if settings.view.output.is_document() {
            self.document.clone()
        } else {
            self.text.clone()
        }
    }
}

/// The document of a report in the chosen format, as JSON lines when
/// live. `-o jsonpath` is the template applied to the JSON document.
pub fn document<T: serde::Serialize>(report: &T, settings: &Settings, shown: Shown) -> String {
    match &settings.view.output {
        Shape::JsonPath(template) => {
            render::shape::jsonpath(report, template).unwrap_or_else(|e| format!("{e}\n"))
        }
        Shape::Yaml => render::yaml(report),
        Shape::Json if shown == Shown::Live => format!("{}\n", crate::escape::json_compact(report)),
        _ => render::json(report),
    }
}

/// `Kind/name  Verdict  Reason  ready` for a change line.
pub fn state_line(item: &crate::report::Item) -> (String, String) {
    let ns = item
        .object
        .namespace
        .as_deref()
        .map(|n| format!("{n}/"))
        .unwrap_or_default();
    let key = format!("{ns}{}/{}", item.object.kind, item.object.name);
    let ready = item
        .judgement
        .ready
        .map(|r| format!(" {}/{}", r.ready, r.desired))
        .unwrap_or_default();
    let line = format!(
        "{key} {} {}{ready}",
        item.judgement.verdict, item.judgement.reason
    );
    (key, render::escape(&line).into_owned())
}

/// The text of `-o name` and `-o custom-columns`, which every report
/// draws the same way from its items; `None` for the command's own text.
pub fn shaped_text<T: serde::Serialize>(
    settings: &Settings,
    items: &[T],
    objects: &[&crate::model::ObjectRef],
) -> Option<String> {
    match &settings.view.output {
        Shape::Name => Some(render::shape::names(objects.iter().copied())),
        Shape::CustomColumns(columns) => Some(render::shape::custom_columns(
            items,
            columns,
            settings.view.no_headers,
        )),
        _ => None,
    }
}

/// The targets left by `--field-selector`.
pub fn selected(
    settings: &Settings,
    snap: &crate::model::Snapshot,
    targets: &[crate::model::Target],
) -> Vec<crate::model::Target> {
    match &settings.field_selector {
        Some(sel) => sel.filter(snap, targets),
        None => targets.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::settings;

    /// Which parts a frame made, for these settings, shown once or live.
    fn made(args: &[&str], shown: Shown) -> (bool, bool, bool) {
        let f = Frame::made(
            &settings(args),
            shown,
            1,
            || "text".into(),
            || "document".into(),
            || vec![("k".into(), "line".into())],
        );
        assert_eq!(f.code, 1);
        (
            !f.text.is_empty(),
            !f.document.is_empty(),
            !f.states.is_empty(),
        )
    }

    #[test]
    fn a_frame_makes_only_what_is_printed() {
        // (text, document, change lines)
        assert_eq!(made(&["status"], Shown::Once), (true, false, false));
        // Off a terminal a watch prints change lines only; on one, the
        // text is redrawn.
        assert_eq!(made(&["status"], Shown::Live), (false, false, true));
        let mut on_a_terminal = settings(&["status"]);
        on_a_terminal.width = Some(80);
        let f = Frame::made(
            &on_a_terminal,
            Shown::Live,
            0,
            || "text".into(),
            || "document".into(),
            || vec![("k".into(), "line".into())],
        );
        assert_eq!((f.text.as_str(), f.states.len()), ("text", 1));
        assert_eq!(
            made(&["status", "-o", "name"], Shown::Once),
            (true, false, false)
        );
        for shape in ["json", "yaml", "jsonpath={.items}"] {
            assert_eq!(
                made(&["status", "-o", shape], Shown::Once),
                (false, true, false)
            );
            assert_eq!(
                made(&["status", "-o", shape], Shown::Live),
                (false, true, false)
            );
        }
        let f = Frame::made(
            &settings(&["status", "-o", "yaml"]),
            Shown::Once,
            0,
            String::new,
            || "a: 1\n".into(),
            Vec::new,
        );
        assert_eq!(f.output(&settings(&["status", "-o", "yaml"])), "a: 1\n");
    }
}
