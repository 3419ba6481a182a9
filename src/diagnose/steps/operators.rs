//! Steps in an operator's own verbs, where it ships a CLI its users have:
//! Argo Rollouts' `kubectl argo rollouts` (promote, abort, retry, undo,
//! set image). Read from the object's fields (`status.abort`,
//! `status.pauseConditions`, `spec.paused`), never from a message.

use serde_json::Value;

use super::{Cx, NextStep, step};
use crate::model::ObjectRef;

/// `kubectl argo rollouts -n NS` for an Argo Rollout; none for any other
/// object.
pub(super) fn argo_rollouts(id: &ObjectRef) -> Option<String> {
    (id.kind == "Rollout" && id.group() == "argoproj.io").then(|| match &id.namespace {
        Some(ns) => format!("kubectl argo rollouts -n {ns}"),
        None => "kubectl argo rollouts".into(),
    })
}

/// The step for a cause that an operator's state says more about than its
/// reason: an aborted, paused or stepped Rollout.
pub(super) fn step_for(cx: &Cx) -> Option<NextStep> {
    let rollouts = argo_rollouts(&cx.who)?;
    let rollout = cx.who_obj?;
    let name = rollout.name();
    let get = format!("{rollouts} get rollout {name}");
    if rollout.bool("/status/abort") == Some(true) {
        return Some(step(
            "The rollout was aborted: the stable revision serves again and the new one is scaled down. Fix what failed in the new revision (its pods, its analysis), then retry it; or go back to the stable revision for good.",
            vec![
                format!("{rollouts} retry rollout {name}"),
                format!("{rollouts} undo {name}"),
                get,
            ],
        ));
    }
    if rollout.bool("/spec/paused") == Some(true) {
        return Some(step(
            "The rollout is paused on purpose (spec.paused): promote it to go on.",
            vec![format!("{rollouts} promote {name}"), get],
        ));
    }
    let paused_at = rollout
        .at("/status/pauseConditions")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("reason"))
        .and_then(Value::as_str)?;
    Some(step(
        format!(
            "The rollout waits at a pause ({paused_at}): check the new revision, then promote it to the next step, or abort it to go back to the stable revision."
        ),
        vec![
            format!("{rollouts} promote {name}"),
            format!("{rollouts} abort {name}"),
            get,
        ],
    ))
}
