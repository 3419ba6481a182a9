//! What the operator itself says matters, read from its CRD when the
//! answer holds it: the printer columns it chose for `kubectl get`
//! (`STATUS`, `PHASE`, `READY`, `SYNCED`, `HEALTH` and their JSONPaths),
//! and the state fields its schema declares with an `enum` of words. Used
//! only where no convention reads the object's status: a custom resource
//! is then judged as a person reading `kubectl get` would judge it. Pure.

use serde_json::Value;

use super::reason::{Lifecycle, Reason};
use super::vocabulary::{Word, status_word};
use super::{Judged, Judgement, Verdict};
use crate::model::Object;

/// Column names that carry a state word, whole or as their last word
/// (`SYNC STATUS`, `Cluster State`).
const STATE_COLUMNS: &[&str] = &[
    "STATUS",
    "STATE",
    "PHASE",
    "HEALTH",
    "RESULT",
    "CONDITION",
    "STAGE",
    "LIFECYCLE",
];

/// Whether a column's name says it carries a state word.
fn state_column(upper: &str) -> bool {
    let last = upper
        .rsplit(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or(upper);
    STATE_COLUMNS.contains(&upper) || STATE_COLUMNS.contains(&last)
}

/// Column names that carry a True/False (or true/false) of health.
const TRUTH_COLUMNS: &[&str] = &["READY", "SYNCED", "AVAILABLE", "HEALTHY", "VALID"];

/// The most a CRD's columns and enums are looked through.
const MAX_READ: usize = 32;

/// The object's CRD in the snapshot: by group and kind.
fn crd_of<'s>(snap: &'s Judged<'_>, obj: &Object) -> Option<&'s Object> {
    snap.objects().iter().find(|o| {
        o.kind() == "CustomResourceDefinition"
            && o.group() == "apiextensions.k8s.io"
            && o.str("/spec/group") == Some(obj.group())
            && o.str("/spec/names/kind") == Some(obj.kind())
    })
}

/// The CRD's entry for the object's version.
fn version<'c>(crd: &'c Object, obj: &Object) -> Option<&'c Value> {
    let wanted = obj.id.api_version.rsplit('/').next()?;
    crd.at("/spec/versions")?
        .as_array()?
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(wanted))
}

/// One reading of a column or an enum field.
struct Said {
    verdict: Verdict,
    what: String,
    value: String,
}

/// The object judged by what its CRD points at; None when the CRD is not
/// in the answer or says nothing about this object.
pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let crd = crd_of(snap, obj)?;
    let version = version(crd, obj)?;
    let mut said: Vec<Said> = Vec::new();
    for column in version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(MAX_READ)
    {
        let (Some(name), Some(path)) = (
            column.get("name").and_then(Value::as_str),
            column.get("jsonPath").and_then(Value::as_str),
        ) else {
            continue;
        };
        let upper = name.to_ascii_uppercase();
        let truth = TRUTH_COLUMNS.contains(&upper.as_str());
        if !truth && !state_column(&upper) {
            continue;
        }
        let Some(value) = crate::jsonpath::select(&obj.raw, path)
            .ok()
            .and_then(|v| v.first().map(|v| text(v)))
            .filter(|v| !v.is_empty())
        else {
            continue;
        };
        let verdict = if truth {
            match value.to_ascii_lowercase().as_str() {
                "true" => Some(Verdict::Converged),
                "false" => Some(Verdict::Progressing),
                _ => word(&value),
            }
        } else {
            word(&value)
        };
        if let Some(verdict) = verdict {
            said.push(Said {
                verdict,
                what: format!("column {name} ({path})"),
                value,
            });
        }
    }
    let props = version
        .pointer("/schema/openAPIV3Schema/properties/status/properties")
        .and_then(Value::as_object);
    for (field, prop) in props.into_iter().flatten().take(MAX_READ) {
        if prop.get("enum").is_none() {
            continue;
        }
        let Some(value) = obj.str(&format!("/status/{field}")) else {
            continue;
        };
        if let Some(verdict) = word(value) {
            said.push(Said {
                verdict,
                what: format!("status.{field} (an enum of the CRD)"),
                value: value.to_string(),
            });
        }
    }
    // The worst reading decides: a failure anywhere is not hidden by a
    // column that says Ready.
    let worst = said.into_iter().min_by_key(|s| rank(s.verdict))?;
    let reason = if worst.value.chars().all(|c| c.is_ascii_alphanumeric()) {
        Reason::of(&capitalised(&worst.value))
    } else {
        Lifecycle::InProgress.into()
    };
    Some(Judgement::new(
        worst.verdict,
        reason,
        format!("{} is {}", worst.what, worst.value),
    ))
}

/// What `judge` reads of objects of `crd`'s kind, for `rules`: the state
/// columns and enum fields of its first served version.
pub fn reads(crd: &Object) -> Vec<String> {
    let Some(version) = crd
        .at("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|v| {
            v.iter()
                .find(|v| v.get("served").and_then(Value::as_bool) != Some(false))
        })
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(MAX_READ)
        .filter_map(|c| {
            let name = c.get("name")?.as_str()?;
            let path = c.get("jsonPath")?.as_str()?;
            let upper = name.to_ascii_uppercase();
            (state_column(&upper) || TRUTH_COLUMNS.contains(&upper.as_str()))
                .then(|| format!("column {name} ({path})"))
        })
        .collect();
    out.extend(
        version
            .pointer("/schema/openAPIV3Schema/properties/status/properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .take(MAX_READ)
            .filter(|(_, p)| p.get("enum").is_some())
            .map(|(f, _)| format!("enum status.{f}")),
    );
    out
}

fn word(value: &str) -> Option<Verdict> {
    status_word(value).map(|w| match w {
        Word::Failed => Verdict::Failed,
        Word::Progressing => Verdict::Progressing,
        Word::Converged => Verdict::Converged,
        Word::Suspended => Verdict::Suspended,
    })
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Failed => 0,
        Verdict::Suspended => 1,
        Verdict::Progressing => 2,
        _ => 3,
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .chain(chars)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::state_column;

    #[test]
    fn state_columns_by_their_whole_name_or_last_word() {
        for yes in [
            "STATUS",
            "PHASE",
            "SYNC STATUS",
            "CLUSTER STATE",
            "LIFECYCLE",
            "HEALTH",
        ] {
            assert!(state_column(yes), "{yes}");
        }
        for no in ["AGE", "TYPE", "STATUS CODE", "MODE", "REASON"] {
            assert!(!state_column(no), "{no}");
        }
    }
}
