//! PersistentVolumeClaims (v1): bound, lost, or pending, and if pending, why,
//! from the events of the volume controllers.

use crate::model::{Event, Object, Snapshot, age};
use crate::verdict::Judged;
use crate::verdict::conditions::true_;
use crate::verdict::reason::Volume;
use crate::verdict::{Judgement, Verdict};

/// How long a claim may wait on an external provisioner that keeps being
/// asked (`ExternalProvisioning` events) and creates no volume before it is
/// Failed: the same ten minutes as a Deployment's progress deadline.
pub const PROVISION_GRACE: jiff::SignedDuration = jiff::SignedDuration::from_mins(10);

/// What the persistentvolume-controller says when no volume can match.
const NO_VOLUME: &str =
    "no persistent volumes available for this claim and no storage class is set";

pub fn judge(obj: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let volume = obj.str("/spec/volumeName").unwrap_or_default();
    match obj.str("/status/phase").unwrap_or_default() {
        "Bound" => Some(bound(obj, volume)),
        "Lost" => Some(Judgement::new(
            Verdict::Failed,
            Volume::Lost,
            format!("its volume {volume} no longer exists; the data is gone or must be restored"),
        )),
        "Pending" => Some(pending(obj, snap)),
        "" => Some(
            Judgement::new(
                Verdict::Progressing,
                Volume::Pending,
                "no phase yet: waiting for the volume controller",
            )
            .since(obj.created),
        ),
        phase => Some(Judgement::new(
            Verdict::Progressing,
            Volume::NotBound,
            format!("phase {phase}: converged only once Bound"),
        )),
    }
}

fn bound(obj: &Object, volume: &str) -> Judgement {
    let conds = obj.conditions();
    if let Some(c) = true_(&conds, "FileSystemResizePending") {
        return Judgement::new(
            Verdict::Progressing,
            Volume::FileSystemResizePending,
            format!("volume {volume} resized; the file system grows when a pod next mounts it"),
        )
        .since(c.last_transition_time);
    }
    if let Some(c) = true_(&conds, "Resizing") {
        return Judgement::new(
            Verdict::Progressing,
            Volume::Resizing,
            format!("volume {volume} is being resized"),
        )
        .since(c.last_transition_time);
    }
    let size = obj
        .str("/status/capacity/storage")
        .map(|s| format!(", {s}"))
        .unwrap_or_default();
    let class = obj
        .str("/spec/storageClassName")
        .filter(|c| !c.is_empty())
        .map(|c| format!(", storage class {c}"))
        .unwrap_or_default();
    Judgement::new(
        Verdict::Converged,
        Volume::Bound,
        format!("bound to volume {volume}{size}{class}"),
    )
}

/// What the scheduler's volume binding says when no volume can be bound
/// on any node for a claim of a WaitForFirstConsumer class.
const NO_VOLUME_TO_BIND: &str = "didn't find available persistent volumes to bind";

/// A claim that waits for its first consumer while that consumer waits for
/// it: the pod that mounts it is unschedulable because no volume matches.
/// The provisioner of a class that provisions nothing: its volumes are
/// created by hand.
pub const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// The provisioner of the claim's StorageClass, where the class was read.
pub fn class_provisioner<'a>(claim: &Object, snap: &'a Snapshot) -> Option<&'a str> {
    let class = claim.str("/spec/storageClassName")?;
    snap.find("storage.k8s.io", "StorageClass", None, class)
        .and_then(|c| c.str("/provisioner"))
}

/// The claim is then the cause, not the pod: name what it asks for, and
/// whether anything can ever provision it.
fn no_volume_for_consumer(claim: &Object, snap: &Judged<'_>) -> Option<Judgement> {
    let consumer = snap.objects().iter().find(|p| {
        p.kind() == "Pod"
            && p.group().is_empty()
            && p.namespace() == claim.namespace()
            && p.at("/spec/volumes")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .any(|v| {
                    v.pointer("/persistentVolumeClaim/claimName")
                        .and_then(serde_json::Value::as_str)
                        == Some(claim.name())
                })
            && p.condition("PodScheduled")
                .is_some_and(|c| c.is_false() && c.message.contains(NO_VOLUME_TO_BIND))
    })?;
    let class = claim.str("/spec/storageClassName").unwrap_or_default();
    let size = claim.str("/spec/resources/requests/storage").unwrap_or("?");
    let modes: Vec<&str> = claim
        .at("/spec/accessModes")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let why = match class_provisioner(claim, snap) {
        Some(NO_PROVISIONER) => format!(
            "; class {class} has no provisioner (kubernetes.io/no-provisioner), so such a volume must be created by hand"
        ),
        Some(p) => format!("; class {class}'s provisioner {p} did not provide one"),
        None => String::new(),
    };
    Some(Judgement::new(
        Verdict::Failed,
        Volume::NoMatchingVolume,
        format!(
            "no PersistentVolume matches it (class {class}, {size}, {}) on any node pod {} may run on{why}",
            modes.join(","),
            consumer.name()
        ),
    ))
}

fn pending(obj: &Object, snap: &Judged<'_>) -> Judgement {
    let latest = snap
        .events_for(&obj.uid)
        .filter(|e| {
            matches!(
                e.reason.as_str(),
                "ProvisioningFailed"
                    | "FailedBinding"
                    | "WaitForFirstConsumer"
                    | "ExternalProvisioning"
                    | "WaitForPodScheduled"
            )
        })
        .max_by_key(|e| e.last_seen);
    let Some(e) = latest else {
        return Judgement::new(
            Verdict::Progressing,
            Volume::Pending,
            "waiting for a volume to be bound",
        )
        .since(obj.created);
    };
    let seen = seen(e, snap);
    match e.reason.as_str() {
        "ProvisioningFailed" => Judgement::new(
            Verdict::Failed,
            Volume::ProvisioningFailed,
            format!("the provisioner cannot create a volume: {}{seen}", e.message),
        ),
        "FailedBinding" if e.message.contains(NO_VOLUME) => Judgement::new(
            Verdict::Failed,
            Volume::NoMatchingVolume,
            format!("no volume matches and no storage class is set, so none will be provisioned{seen}"),
        ),
        "WaitForFirstConsumer" | "WaitForPodScheduled" => no_volume_for_consumer(obj, snap)
            .unwrap_or_else(|| {
                Judgement::new(
                    Verdict::Progressing,
                    Volume::WaitingForFirstConsumer,
                    "the storage class binds on first use: waiting for a pod that uses this claim to be scheduled",
                )
            }),
        "ExternalProvisioning"
            if e
                .first_seen
                .is_some_and(|t| snap.now.duration_since(t) > PROVISION_GRACE) =>
        {
            let since = e.first_seen.map(|t| age(snap.now, t)).unwrap_or_default();
            Judgement::new(
                Verdict::Failed,
                Volume::ProvisionerNotResponding,
                format!(
                    "no volume after {since} of waiting for the external provisioner, longer than {}m: {}{seen}; is the provisioner running?",
                    PROVISION_GRACE.as_mins(),
                    e.message
                ),
            )
        }
        "ExternalProvisioning" => Judgement::new(
            Verdict::Progressing,
            Volume::Provisioning,
            format!("waiting for the external provisioner: {}", e.message),
        ),
        _ => Judgement::new(
            Verdict::Progressing,
            Volume::Pending,
            format!("waiting for a volume to be bound: {}{seen}", e.message),
        ),
    }
    .since(e.first_seen)
}

/// ` (12 times, last 3m ago)`: how often the controller said it.
fn seen(e: &Event, snap: &Judged<'_>) -> String {
    let last = e
        .last_seen
        .map(|t| format!(", last {} ago", age(snap.now, t)))
        .unwrap_or_default();
    format!(
        " ({}{last})",
        crate::verdict::words::count(e.count as i64, "time")
    )
}
