//! Steps for claims and volumes: a class that provisions nothing, a claim
//! that cannot bind, a volume that is gone.

use super::{Cx, NextStep, describe, step};
use crate::verdict::reason::Volume;
use crate::verdict::{NO_PROVISIONER, class_provisioner};

pub(super) fn step_for(code: Volume, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    let claim = who.kind == "PersistentVolumeClaim";
    Some(match code {
        Volume::WaitingForFirstConsumer => step(
            "The claim binds when a pod that uses it is scheduled (volumeBindingMode WaitForFirstConsumer).",
            vec![describe(who)],
        ),
        Volume::NoMatchingVolume
            if claim
                && cx
                    .who_obj
                    .and_then(|c| class_provisioner(c, cx.snap))
                    .is_some_and(|p| p == NO_PROVISIONER) =>
        {
            step(
                "Nothing provisions volumes for the claim's class: create a PersistentVolume of that class with the size and access mode the claim asks for, on a node the pod may run on (local volumes need node affinity), or use a class with a provisioner (a claim's class cannot change: re-create the claim).",
                vec![
                    "kubectl get persistentvolumes".into(),
                    "kubectl get storageclass".into(),
                    describe(who),
                ],
            )
        }
        Volume::NoMatchingVolume | Volume::ProvisioningFailed | Volume::Pending if claim => step(
            "The claim cannot bind: set a storageClassName that exists, create a matching PersistentVolume, or fix the provisioner.",
            vec!["kubectl get storageclass".into(), describe(who)],
        ),
        Volume::Lost => step(
            "The claim's volume is gone: restore it from a backup, or delete and re-create the claim.",
            vec![describe(who)],
        ),
        Volume::NoMatchingVolume
        | Volume::ProvisioningFailed
        | Volume::Pending
        | Volume::Bound
        | Volume::NotBound
        | Volume::Provisioning
        | Volume::ProvisionerNotResponding
        | Volume::Resizing
        | Volume::FileSystemResizePending => return None,
    })
}
