//! The kubectl output shapes that work the same for every report: `-o name`,
//! `-o custom-columns`, `-o jsonpath` and `--sort-by`, all over the
//! report's JSON document so that what a path means is what `-o json` shows.

use serde::Serialize;
use serde_json::Value;

use super::layout::without_header;
use super::layout::{Cell, table};
use crate::jsonpath::{Template, select, text_of};
use crate::model::ObjectRef;

/// `-o`, parsed once (files read, templates and columns parsed): what
/// every renderer and the live modes go by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Shape {
    #[default]
    Text,
    Wide,
    Name,
    Json,
    Yaml,
    /// A kubectl JSONPath template, over the JSON document.
    JsonPath(Template),
    /// `HEADER:path` columns.
    CustomColumns(Vec<Column>),
    /// `tree` as a graph: Graphviz's DOT.
    Dot,
    /// `tree` as a graph: a Mermaid flowchart.
    Mermaid,
}

impl Shape {
    /// Whether the answer is the report as a document (JSON, YAML, or a
    /// template over the JSON), not text drawn from it.
    pub fn is_document(&self) -> bool {
        matches!(self, Shape::Json | Shape::Yaml | Shape::JsonPath(_))
    }
}

/// How text and documents are shaped: `-o` and kubectl's table flags.
#[derive(Debug, Clone, Default)]
pub struct View {
    pub output: Shape,
    pub no_headers: bool,
    pub show_labels: bool,
    pub label_columns: Vec<String>,
    /// A JSONPath over each item of the report, as `--sort-by` gave it.
    pub sort_by: Option<String>,
    /// `--verdict`, `--not-converged`: the verdicts shown; `None`, all.
    pub verdicts: Option<Vec<crate::verdict::Verdict>>,
}

impl View {
    /// Keeps the items `--verdict` shows; how many it hid.
    pub fn keep_verdicts<T>(
        &self,
        items: &mut Vec<T>,
        verdict: impl Fn(&T) -> crate::verdict::Verdict,
    ) -> usize {
        let Some(shown) = &self.verdicts else {
            return 0;
        };
        let before = items.len();
        items.retain(|i| shown.contains(&verdict(i)));
        before - items.len()
    }

    /// The line that says what `--verdict` hid, for text output.
    pub fn hidden_line(&self, hidden: usize, what: &str) -> String {
        use crate::verdict::Verdict;
        let Some(shown) = self.verdicts.as_ref().filter(|_| hidden > 0) else {
            return String::new();
        };
        let plural = if hidden == 1 { "" } else { "s" };
        if shown.len() == 6 && !shown.contains(&Verdict::Converged) {
            return format!("({hidden} Converged {what}{plural} not shown: --not-converged)\n");
        }
        let names: Vec<&str> = shown.iter().map(|v| v.as_str()).collect();
        format!(
            "({hidden} {what}{plural} not shown: --verdict {})\n",
            names.join(",")
        )
    }
}

/// `--verdict` as typed (any case), or every verdict but Converged for
/// `--not-converged`.
pub fn verdicts_shown(
    names: &[String],
    not_converged: bool,
) -> Result<Option<Vec<crate::verdict::Verdict>>, String> {
    use crate::verdict::Verdict;
    const ALL: [Verdict; 7] = [
        Verdict::Converged,
        Verdict::Progressing,
        Verdict::Failed,
        Verdict::Suspended,
        Verdict::Terminating,
        Verdict::Unknown,
        Verdict::NotFound,
    ];
    if not_converged {
        return Ok(Some(
            ALL.into_iter()
                .filter(|v| *v != Verdict::Converged)
                .collect(),
        ));
    }
    if names.is_empty() {
        return Ok(None);
    }
    names
        .iter()
        .map(|n| {
            ALL.into_iter()
                .find(|v| v.as_str().eq_ignore_ascii_case(n.trim()))
                .ok_or_else(|| {
                    format!(
                        "--verdict: unknown verdict \"{n}\": must be one of {}",
                        ALL.map(Verdict::as_str).join(", ")
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `-o name`: `kind.group/name` a line, as kubectl prints it
/// (`deployment.apps/web`, `pod/web-1`).
pub fn names<'a>(objects: impl IntoIterator<Item = &'a ObjectRef>) -> String {
    objects
        .into_iter()
        .map(|o| {
            let kind = o.kind.to_lowercase();
            let name = super::escape(&o.name);
            match o.group() {
                "" => format!("{}/{name}\n", super::escape(&kind)),
                group => format!("{}.{}/{name}\n", super::escape(&kind), super::escape(group)),
            }
        })
        .collect()
}

/// `-o jsonpath=TEMPLATE` over the whole document.
pub fn jsonpath<T: Serialize>(report: &T, template: &Template) -> Result<String, String> {
    let doc = serde_json::to_value(report).expect("reports serialize");
    template.render(&doc)
}

/// One `HEADER:path` column of `-o custom-columns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub header: String,
    pub path: String,
}

/// Parses `NAME:.object.name,VERDICT:.verdict` (kubectl's spelling; the
/// path may be wrapped in `{}`).
pub fn parse_columns(spec: &str) -> Result<Vec<Column>, String> {
    spec.split(',')
        .map(|part| {
            let (header, path) = part.split_once(':').ok_or_else(|| {
                format!("custom-columns: {part:?} is not HEADER:JSONPATH, e.g. NAME:.object.name")
            })?;
            let path = path.trim();
            let path = path
                .strip_prefix('{')
                .and_then(|p| p.strip_suffix('}'))
                .unwrap_or(path);
            if header.is_empty() || path.is_empty() {
                return Err(format!(
                    "custom-columns: {part:?} needs a header and a path"
                ));
            }
            select(&Value::Null, path)?;
            Ok(Column {
                header: header.to_string(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// `-o custom-columns` over each item of a report (`<none>` where a path
/// selects nothing, as kubectl prints it).
pub fn custom_columns<T: Serialize>(items: &[T], columns: &[Column], no_headers: bool) -> String {
    let rows: Vec<Vec<Cell>> = items
        .iter()
        .map(|item| {
            let doc = serde_json::to_value(item).expect("reports serialize");
            columns
                .iter()
                .map(|c| {
                    let texts: Vec<String> = select(&doc, &c.path)
                        .unwrap_or_default()
                        .into_iter()
                        .map(text_of)
                        .collect();
                    Cell::plain(if texts.is_empty() {
                        "<none>".to_string()
                    } else {
                        texts.join(",")
                    })
                })
                .collect()
        })
        .collect();
    let header: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    without_header(table(&header, rows, None), no_headers)
}

/// `--sort-by PATH`: a stable sort of items by the value the path selects
/// in each one's JSON. Numbers compare as numbers, everything else as text;
/// items where the path selects nothing go first, as kubectl puts them.
pub fn sort_by<T: Serialize>(items: &mut Vec<T>, path: &str) {
    let path = path
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .unwrap_or(path);
    let keys: Vec<Key> = items
        .iter()
        .map(|item| {
            let doc = serde_json::to_value(item).expect("reports serialize");
            match select(&doc, path)
                .ok()
                .and_then(|v| v.first().cloned().cloned())
            {
                None | Some(Value::Null) => Key::Missing,
                Some(Value::Number(n)) => Key::Number(n.as_f64().unwrap_or(0.0)),
                Some(Value::String(s)) => Key::Text(s),
                Some(other) => Key::Text(other.to_string()),
            }
        })
        .collect();
    let mut keyed: Vec<(Key, T)> = keys.into_iter().zip(items.drain(..)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    items.extend(keyed.into_iter().map(|(_, item)| item));
}

#[derive(Debug, PartialEq, PartialOrd)]
enum Key {
    Missing,
    Number(f64),
    Text(String),
}

impl Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.partial_cmp(other).unwrap_or(std::cmp::Ordering::Equal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(api_version: &str, kind: &str, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: None,
            name: name.into(),
            uid: None,
        }
    }

    #[test]
    fn names_are_kind_dot_group_slash_name() {
        let out = names(&[id("apps/v1", "Deployment", "web"), id("v1", "Pod", "web-1")]);
        assert_eq!(out, "deployment.apps/web\npod/web-1\n");
    }

    #[test]
    fn custom_columns_over_each_item() {
        let items = vec![
            json!({"object": {"name": "web"}, "verdict": "Converged"}),
            json!({"object": {"name": "db"}}),
        ];
        let cols = parse_columns("NAME:.object.name,VERDICT:{.verdict}").unwrap();
        assert_eq!(
            custom_columns(&items, &cols, false),
            "NAME  VERDICT\nweb   Converged\ndb    <none>\n"
        );
        assert_eq!(
            custom_columns(&items, &cols, true),
            "web   Converged\ndb    <none>\n"
        );
        assert!(
            parse_columns("NAME")
                .unwrap_err()
                .contains("HEADER:JSONPATH")
        );
    }

    #[test]
    fn sorting_by_a_path_is_stable_and_numeric_where_it_can_be() {
        let mut items = vec![
            json!({"n": "c", "g": 10}),
            json!({"n": "a", "g": 9}),
            json!({"n": "b"}),
            json!({"n": "d", "g": 10}),
        ];
        sort_by(&mut items, "{.g}");
        let order: Vec<&str> = items.iter().map(|i| i["n"].as_str().unwrap()).collect();
        assert_eq!(order, ["b", "a", "c", "d"]);
        sort_by(&mut items, ".n");
        let order: Vec<&str> = items.iter().map(|i| i["n"].as_str().unwrap()).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
    }
}

#[cfg(test)]
mod verdict_filter_tests {
    use super::*;
    use crate::verdict::Verdict;

    #[test]
    fn verdicts_are_read_in_any_case_and_not_converged_is_every_other() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            verdicts_shown(&names(&["failed", "Progressing"]), false),
            Ok(Some(vec![Verdict::Failed, Verdict::Progressing]))
        );
        assert_eq!(verdicts_shown(&[], false), Ok(None));
        let others = verdicts_shown(&[], true).unwrap().unwrap();
        assert_eq!(others.len(), 6);
        assert!(!others.contains(&Verdict::Converged));
        let err = verdicts_shown(&names(&["Ready"]), false).unwrap_err();
        assert!(err.contains("must be one of Converged"), "{err}");
    }

    #[test]
    fn what_was_hidden_is_said() {
        let view = View {
            output: Shape::Text,
            no_headers: false,
            show_labels: false,
            label_columns: vec![],
            sort_by: None,
            verdicts: verdicts_shown(&[], true).unwrap(),
        };
        let mut verdicts = vec![Verdict::Converged, Verdict::Failed, Verdict::Converged];
        let hidden = view.keep_verdicts(&mut verdicts, |v| *v);
        assert_eq!(verdicts, [Verdict::Failed]);
        assert_eq!(
            view.hidden_line(hidden, "row"),
            "(2 Converged rows not shown: --not-converged)\n"
        );
        assert_eq!(view.hidden_line(0, "row"), "");
    }
}
