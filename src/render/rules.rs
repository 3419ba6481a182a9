//! `kubectl reconcile rules`: the rules in effect and where each came from,
//! as a table or as a document for `-o json|yaml`. Pure.

use serde::Serialize;

use crate::escape::escape;
use crate::verdict::rules::file::Reason;
use crate::verdict::rules::{Origin, Rule, RuleSet};

/// The document of `rules -o json|yaml`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleList {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub rules: Vec<RuleEntry>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleEntry {
    pub group: String,
    pub kind: String,
    pub source: SourceEntry,
    /// The rule's position in its file, from 1.
    pub index: usize,
    pub checks: Vec<CheckEntry>,
    /// Earlier sources whose rule for the same group and kind this replaced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<SourceEntry>,
}

#[derive(Debug, Serialize)]
pub struct SourceEntry {
    /// `builtin`, `config`, `env` or `flag`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CheckEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    pub verdict: &'static str,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

impl RuleList {
    pub fn build(set: &RuleSet) -> RuleList {
        RuleList {
            api_version: "reconcile.kubectl.dev/v1alpha1",
            kind: "HealthRuleList",
            rules: set.rules().into_iter().map(entry).collect(),
        }
    }
}

fn source(origin: &Origin) -> SourceEntry {
    SourceEntry {
        kind: origin.kind(),
        path: origin.path().map(|p| p.display().to_string()),
    }
}

fn entry(rule: &Rule) -> RuleEntry {
    RuleEntry {
        group: rule.selector.group.clone(),
        kind: rule.selector.kind.clone(),
        source: source(&rule.origin),
        index: rule.index,
        checks: rule
            .checks
            .iter()
            .map(|c| CheckEntry {
                when: c.when.as_ref().map(|e| e.source.clone()),
                verdict: c.verdict.as_str(),
                reason: match &c.reason {
                    Reason::Word(w) => w.clone(),
                    Reason::Expr(e) => e.source.clone(),
                },
                message: c.message.as_ref().map(|e| e.source.clone()),
                since: c.since.as_ref().map(|e| e.source.clone()),
            })
            .collect(),
        overrides: rule.overrides.iter().map(source).collect(),
    }
}

/// Where a rule came from, for the table: a built-in rule names its
/// operator's folder (`builtin (flux)`, `rules/flux/`), a user's its file.
fn source_text(origin: &Origin) -> String {
    match origin {
        Origin::Builtin(operator) => format!("builtin ({operator})"),
        _ => origin.to_string(),
    }
}

/// One line per rule: group, kind, how many checks, where it came from.
pub fn render(set: &RuleSet) -> String {
    render_for(set, None)
}

/// [`render`], with `kinds` (group, kind) the rules that cover one of them
/// only; none for a kind no rule covers.
pub fn render_for(set: &RuleSet, kinds: Option<&[(String, String)]>) -> String {
    let rows: Vec<[String; 4]> = set
        .rules()
        .into_iter()
        .filter(|r| kinds.is_none_or(|kinds| kinds.iter().any(|(g, k)| r.selector.covers(g, k))))
        .map(|r| {
            let group = if r.selector.group.is_empty() {
                "(core)".to_string()
            } else {
                r.selector.group.clone()
            };
            let mut from = source_text(&r.origin);
            if !r.overrides.is_empty() {
                let over: Vec<String> = r.overrides.iter().map(source_text).collect();
                from.push_str(&format!(" (overrides {})", over.join(", ")));
            }
            [
                group,
                r.selector.kind.clone(),
                r.checks.len().to_string(),
                from,
            ]
        })
        .collect();
    let header = ["GROUP", "KIND", "CHECKS", "SOURCE"].map(String::from);
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        out.push_str(&escape(line.trim_end()));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use crate::verdict::rules::{Origin, RuleSet};

    #[test]
    fn the_listing_says_where_each_rule_came_from() {
        let mut rules = RuleSet::default();
        rules
            .add_source(
                "rules:\n  - kind: Pod\n    checks: [{verdict: Converged, reason: A}]\n  - group: apps\n    kind: Deployment\n    checks: [{verdict: Converged, reason: B}]\n",
                Origin::Builtin("example"),
            )
            .unwrap();
        rules
            .add_source(
                "rules:\n  - kind: Pod\n    checks: [{when: 'true', verdict: Failed, reason: C, message: '\"m\"'}]\n",
                Origin::Flag(PathBuf::from("my.yaml")),
            )
            .unwrap();
        assert_eq!(
            super::render(&rules),
            "GROUP   KIND        CHECKS  SOURCE\n\
             (core)  Pod         1       --health-rules my.yaml (overrides builtin (example))\n\
             apps    Deployment  1       builtin (example)\n"
        );
        let doc = serde_json::to_value(super::RuleList::build(&rules)).unwrap();
        assert_eq!(
            doc["rules"][0],
            json!({"group": "", "kind": "Pod", "index": 1,
                   "source": {"kind": "flag", "path": "my.yaml"},
                   "checks": [{"when": "true", "verdict": "Failed", "reason": "C", "message": "\"m\""}],
                   "overrides": [{"kind": "builtin"}]})
        );
    }
}
