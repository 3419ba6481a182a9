//! Step 1 of the precedence: an object with a `deletionTimestamp` is
//! Terminating, and the message says what holds it: finalizers (and who
//! removes them), dependents under foreground deletion, or, for a Namespace,
//! the content the namespace controller is still deleting.

use crate::model::{Object, age};
use crate::verdict::Judged;

use super::conditions::{cite, true_};
use super::words::{count, list};
use super::{Judgement, Verdict};
use crate::verdict::reason::Lifecycle;

/// Judges an object being deleted; `None` when it is not.
pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let deleted = obj.deleted?;
    let ago = age(snap.now, deleted);
    let mut j = if obj.kind() == "Namespace" && obj.group().is_empty() {
        namespace(obj, &ago)
    } else if obj.finalizers.iter().any(|f| f == "foregroundDeletion") {
        dependents(obj, snap, &ago)
    } else if obj.finalizers.is_empty() {
        let grace = obj
            .int("/metadata/deletionGracePeriodSeconds")
            .filter(|s| *s > 0)
            .map(|s| format!(" (grace period {s}s)"))
            .unwrap_or_default();
        Judgement::new(
            Verdict::Terminating,
            Lifecycle::Deleting,
            format!(
                "deletion requested {ago} ago; no finalizers, waiting for the object to go{grace}"
            ),
        )
    } else {
        Judgement::new(
            Verdict::Terminating,
            Lifecycle::FinalizersPending,
            format!(
                "deletion requested {ago} ago; waiting for {}{}",
                finalizers(&obj.finalizers, obj.kind()),
                claim_users(obj, snap)
            ),
        )
    };
    j.since = Some(deleted);
    Some(j)
}

/// `finalizer x (removed by ...)` for each finalizer.
fn finalizers(names: &[String], kind: &str) -> String {
    let each: Vec<String> = names
        .iter()
        .map(|f| format!("finalizer {f} ({})", owner_of(f, kind)))
        .collect();
    list(&each)
}

/// Who removes a well-known finalizer.
fn owner_of(finalizer: &str, kind: &str) -> &'static str {
    match finalizer {
        "kubernetes.io/pvc-protection" => {
            "removed by kube-controller-manager's pvc-protection controller once no pod uses the claim"
        }
        "kubernetes.io/pv-protection" => {
            "removed by kube-controller-manager's pv-protection controller once no claim is bound to the volume"
        }
        "foregroundDeletion" => "the garbage collector removes it once the dependents are gone",
        "orphan" => "the garbage collector removes it once the dependents are orphaned",
        "kubernetes" if kind == "Namespace" => {
            "removed by the namespace controller once the content is deleted"
        }
        "batch.kubernetes.io/job-tracking" => {
            "removed by the Job controller once it counts the pod"
        }
        "service.kubernetes.io/load-balancer-cleanup" => {
            "removed by the cloud controller manager once the load balancer is deleted"
        }
        "customresourcecleanup.apiextensions.k8s.io" => {
            "removed by the API server once every custom resource of this type is deleted"
        }
        _ => "removed by the controller that added it",
    }
}

/// `; still used by pod web-0`: for a claim held by pvc-protection, the
/// pods of the snapshot that mount it.
fn claim_users(obj: &Object, snap: &Judged<'_>) -> String {
    if obj.kind() != "PersistentVolumeClaim"
        || !obj
            .finalizers
            .iter()
            .any(|f| f == "kubernetes.io/pvc-protection")
    {
        return String::new();
    }
    let users: Vec<&str> = snap
        .objects()
        .iter()
        .filter(|p| p.kind() == "Pod" && p.group().is_empty() && p.namespace() == obj.namespace())
        .filter(|p| !matches!(p.str("/status/phase"), Some("Succeeded" | "Failed")))
        .filter(|p| {
            p.at("/spec/volumes")
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
                .any(|v| {
                    v.pointer("/persistentVolumeClaim/claimName")
                        .and_then(|n| n.as_str())
                        == Some(obj.name())
                })
        })
        .map(|p| p.name())
        .collect();
    if users.is_empty() {
        String::new()
    } else {
        format!(
            "; still used by {} {}",
            super::words::noun(users.len() as i64, "pod"),
            list(&users)
        )
    }
}

/// Foreground deletion: the garbage collector deletes the dependents that
/// block their owner's deletion first.
fn dependents(obj: &Object, snap: &Judged<'_>, ago: &str) -> Judgement {
    let blocking: Vec<String> = snap
        .objects()
        .iter()
        .filter(|o| {
            o.owners
                .iter()
                .any(|r| r.uid == obj.uid && r.block_owner_deletion)
        })
        .map(|o| format!("{}/{}", o.kind(), o.name()))
        .collect();
    let waiting = if blocking.is_empty() {
        "its dependents".to_string()
    } else {
        format!(
            "{} {}",
            count(blocking.len() as i64, "dependent"),
            list(&blocking)
        )
    };
    let others: Vec<String> = obj
        .finalizers
        .iter()
        .filter(|f| *f != "foregroundDeletion")
        .cloned()
        .collect();
    let also = if others.is_empty() {
        String::new()
    } else {
        format!("; also waiting for {}", finalizers(&others, obj.kind()))
    };
    Judgement::new(
        Verdict::Terminating,
        Lifecycle::WaitingForDependents,
        format!(
            "foreground deletion requested {ago} ago; the garbage collector is waiting for {waiting} to be deleted first{also}"
        ),
    )
}

/// A Namespace's deletion conditions name what remains: discovery or
/// deletion failures first, then finalizers on content, then content.
fn namespace(obj: &Object, ago: &str) -> Judgement {
    let conds = obj.conditions();
    let failure = [
        (
            "NamespaceDeletionDiscoveryFailure",
            Lifecycle::DiscoveryFailed,
        ),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            Lifecycle::GroupVersionParsingFailed,
        ),
        (
            "NamespaceDeletionContentFailure",
            Lifecycle::ContentDeletionFailed,
        ),
    ]
    .into_iter()
    .find_map(|(type_, reason)| true_(&conds, type_).map(|c| (reason, c)));
    if let Some((reason, cond)) = failure {
        return Judgement::new(
            Verdict::Terminating,
            reason,
            format!(
                "deletion requested {ago} ago; the namespace controller cannot delete its content: {}",
                cite(cond)
            ),
        );
    }
    let remaining =
        true_(&conds, "NamespaceContentRemaining").map(|c| remaining_content(&c.message));
    if let Some(cond) = true_(&conds, "NamespaceFinalizersRemaining") {
        let content = remaining
            .map(|r| format!("; remaining: {r}"))
            .unwrap_or_default();
        return Judgement::new(
            Verdict::Terminating,
            Lifecycle::FinalizersPending,
            format!(
                "deletion requested {ago} ago; content is held by finalizers: {}{content}",
                remaining_finalizers(&cond.message)
            ),
        );
    }
    if let Some(content) = remaining {
        return Judgement::new(
            Verdict::Terminating,
            Lifecycle::ContentRemaining,
            format!(
                "deletion requested {ago} ago; the namespace controller is still deleting: {content}"
            ),
        );
    }
    let mut names = obj.finalizers.clone();
    if let Some(spec) = obj.at("/spec/finalizers").and_then(|v| v.as_array()) {
        names.extend(spec.iter().filter_map(|v| v.as_str().map(str::to_string)));
    }
    if names.is_empty() {
        Judgement::new(
            Verdict::Terminating,
            Lifecycle::Deleting,
            format!("deletion requested {ago} ago; no finalizers remain"),
        )
    } else {
        Judgement::new(
            Verdict::Terminating,
            Lifecycle::FinalizersPending,
            format!(
                "deletion requested {ago} ago; waiting for {}",
                finalizers(&names, "Namespace")
            ),
        )
    }
}

/// `Some resources are remaining: configmaps. has 1 resource instances,
/// pods. has 2 resource instances` → `configmaps (1), pods (2)`.
fn remaining_content(message: &str) -> String {
    let body = message
        .strip_prefix("Some resources are remaining: ")
        .unwrap_or(message);
    body.split(", ")
        .map(|item| match item.split_once(" has ") {
            Some((resource, rest)) => {
                let n = rest.split_whitespace().next().unwrap_or("?");
                format!("{} ({n})", resource.trim_end_matches('.'))
            }
            None => item.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Some content in the namespace has finalizers remaining: example.com/x in
/// 1 resource instances` → `example.com/x on 1 object`.
fn remaining_finalizers(message: &str) -> String {
    let body = message
        .strip_prefix("Some content in the namespace has finalizers remaining: ")
        .unwrap_or(message);
    body.split(", ")
        .map(|item| match item.rsplit_once(" in ") {
            Some((name, rest)) => match rest.split_whitespace().next().map(str::parse::<i64>) {
                Some(Ok(n)) => format!("{name} on {}", count(n, "object")),
                _ => item.to_string(),
            },
            None => item.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_condition_messages_are_transformed() {
        assert_eq!(
            remaining_content(
                "Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances"
            ),
            "configmaps (1), widgets.example.com (2)"
        );
        assert_eq!(
            remaining_finalizers(
                "Some content in the namespace has finalizers remaining: example.com/cleanup in 1 resource instances"
            ),
            "example.com/cleanup on 1 object"
        );
        assert_eq!(remaining_finalizers("odd text"), "odd text");
    }
}
