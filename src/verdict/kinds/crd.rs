//! CustomResourceDefinitions (apiextensions.k8s.io/v1): names rejected,
//! established, or not yet served.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::conditions::{cite, false_, find, true_};
use crate::verdict::reason::Lifecycle;
use crate::verdict::{Judgement, Verdict};

pub fn judge(obj: &Object, _snap: &Judged<'_>) -> Option<Judgement> {
    let conds = obj.conditions();
    if let Some(c) = false_(&conds, "NamesAccepted") {
        return Some(
            Judgement::new(
                Verdict::Failed,
                Lifecycle::NamesNotAccepted,
                format!("the API server rejected its names: {}", cite(c)),
            )
            .since(c.last_transition_time),
        );
    }
    if let Some(c) = true_(&conds, "Established") {
        let plural = obj.str("/spec/names/plural").unwrap_or(obj.name());
        let group = obj.str("/spec/group").unwrap_or_default();
        let versions: Vec<&str> = obj
            .at("/spec/versions")
            .and_then(|v| v.as_array())
            .map(|vs| {
                vs.iter()
                    .filter(|v| v.get("served").and_then(|s| s.as_bool()) != Some(false))
                    .filter_map(|v| v.get("name").and_then(|n| n.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        return Some(
            Judgement::new(
                Verdict::Converged,
                Lifecycle::Established,
                format!("serving {plural}.{group} ({})", versions.join(", ")),
            )
            .since(c.last_transition_time),
        );
    }
    let detail = find(&conds, "Established")
        .map(cite)
        .unwrap_or_else(|| "no Established condition yet".to_string());
    Some(Judgement::new(
        Verdict::Progressing,
        Lifecycle::NotEstablished,
        format!("waiting for the API server to serve it: {detail}"),
    ))
}
