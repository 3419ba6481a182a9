//! The next step: what to check or change, with the commands to run.

use serde::Serialize;

use super::chain::{Cause, Link};
use super::findings::Finding;
use crate::model::{Object, ObjectRef};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextStep {
    pub text: String,
    pub commands: Vec<String>,
}

fn step(text: impl Into<String>, commands: Vec<String>) -> NextStep {
    NextStep {
        text: text.into(),
        commands,
    }
}

/// `kubectl -n NS` (or plain `kubectl` for cluster-scoped objects).
fn kubectl(id: &ObjectRef) -> String {
    match &id.namespace {
        Some(ns) => format!("kubectl -n {ns}"),
        None => "kubectl".into(),
    }
}

/// `-n NS ` for namespaced objects.
fn namespace_flag(id: &ObjectRef) -> String {
    id.namespace
        .as_deref()
        .map(|ns| format!("-n {ns} "))
        .unwrap_or_default()
}

/// `deployment/web`, as kubectl takes it.
fn arg(id: &ObjectRef) -> String {
    let group = id.group();
    if group.is_empty() || crate::catalog::is_builtin_group(group) {
        format!("{}/{}", id.kind.to_ascii_lowercase(), id.name)
    } else {
        format!("{}.{group}/{}", id.kind.to_ascii_lowercase(), id.name)
    }
}

pub fn next_steps(
    target: &Object,
    cause: Option<&Cause>,
    chain: &[Link],
    findings: &[Finding],
) -> Vec<NextStep> {
    let mut steps = Vec::new();
    let t = &target.id;
    let describe = |id: &ObjectRef| format!("{} describe {}", kubectl(id), arg(id));
    if let Some(cause) = cause {
        let who = cause.objects.first().cloned().unwrap_or_else(|| t.clone());
        let container = chain.iter().rev().find_map(|l| l.container.clone());
        let logs = |previous: bool| {
            let c = container
                .as_deref()
                .map(|c| format!(" -c {c}"))
                .unwrap_or_default();
            format!(
                "{} logs {}{c}{}",
                kubectl(&who),
                arg(&who),
                if previous { " --previous" } else { "" }
            )
        };
        let set_image = || {
            let c = container.clone().unwrap_or_else(|| "CONTAINER".into());
            format!("{} set image {} {c}=IMAGE", kubectl(t), arg(t))
        };
        let reason = cause.reason.as_str();
        let oom = chain.iter().any(|l| l.message.contains("OOMKilled"));
        match reason {
            "ImagePullBackOff" | "ErrImagePull" | "InvalidImageName" | "ErrImageNeverPull" | "RegistryUnavailable" => steps.push(step(
                "The image cannot be pulled: check its name and tag, that it exists in the registry, and the pull secret.",
                vec![describe(&who), set_image()],
            )),
            "CrashLoopBackOff" if oom => steps.push(step(
                "The container is killed for using more memory than its limit (OOMKilled): raise the memory limit, or find what uses the memory.",
                vec![logs(true), format!("{} set resources {} --limits=memory=LIMIT", kubectl(t), arg(t))],
            )),
            "CrashLoopBackOff" => steps.push(step(
                "The container keeps exiting and is restarted with back-off: read the logs of the last run for the error.",
                vec![logs(true), describe(&who)],
            )),
            "PodFailed" | "Error" | "RunContainerError" | "CreateContainerError" => steps.push(step(
                "The container exited with an error: read its logs.",
                vec![logs(false), describe(&who)],
            )),
            "CreateContainerConfigError" => steps.push(step(
                "The container's configuration refers to something missing (a Secret, ConfigMap or key): create it or fix the reference.",
                vec![describe(&who)],
            )),
            "ReadinessProbeFailed" | "NotReady" => steps.push(step(
                "The containers run but never pass their readiness probe: check the probe's path and port, and the application's health endpoint.",
                vec![describe(&who), logs(false)],
            )),
            "Unschedulable" => steps.push(step(
                "No node can run the pod (see the scheduler's message above): lower its requests, fix its node selector, affinity or tolerations, or add capacity.",
                vec![describe(&who), "kubectl describe nodes".into()],
            )),
            "FailedCreate" | "ReplicaFailure" => steps.push(step(
                "The controller cannot create pods, often because a ResourceQuota or LimitRange rejects them: raise the quota or lower the pods' requests.",
                vec![format!("{} describe resourcequota,limitrange", kubectl(&who)), describe(&who)],
            )),
            "ProgressDeadlineExceeded" => steps.push(step(
                "The rollout is stuck: fix the new pods (see the root cause), or roll back.",
                vec![format!("{} rollout undo {}", kubectl(t), arg(t))],
            )),
            "Paused" => steps.push(step("The Deployment is paused on purpose; resume it to roll out pending changes.", vec![format!("{} rollout resume {}", kubectl(t), arg(t))])),
            "PartitionedRollout" => steps.push(step(
                "The rollout is held by spec.updateStrategy.rollingUpdate.partition: lower the partition to update more pods.",
                vec![format!("{} patch {} -p '{{\"spec\":{{\"updateStrategy\":{{\"rollingUpdate\":{{\"partition\":0}}}}}}}}'", kubectl(t), arg(t))],
            )),
            "WaitingForPodDeletion" => steps.push(step("The update strategy is OnDelete: pods update only when deleted.", vec![format!("{} delete pod POD", kubectl(t))])),
            "BackoffLimitExceeded" | "DeadlineExceeded" => steps.push(step(
                "The Job has given up: read its pods' logs, fix the cause, then delete and re-create the Job.",
                vec![format!("{} logs {}", kubectl(&who), arg(&who)), describe(t)],
            )),
            "Suspended" => steps.push(step("It is suspended on purpose by spec.suspend.", vec![format!("{} patch {} -p '{{\"spec\":{{\"suspend\":false}}}}'", kubectl(t), arg(t))])),
            "WaitingForFirstConsumer" => steps.push(step("The claim binds when a pod that uses it is scheduled (volumeBindingMode WaitForFirstConsumer).", vec![describe(&who)])),
            "NoMatchingVolume" | "NoStorageClass" | "ProvisioningFailed" | "Pending" if who.kind == "PersistentVolumeClaim" => steps.push(step(
                "The claim cannot bind: set a storageClassName that exists, create a matching PersistentVolume, or fix the provisioner.",
                vec!["kubectl get storageclass".into(), describe(&who)],
            )),
            "NoEndpoints" => steps.push(step(
                "The Service's selector matches no pods: fix spec.selector or the pods' labels.",
                vec![describe(&who), format!("{} get pods --show-labels", kubectl(&who))],
            )),
            "FinalizersPending" | "WaitingForDependents" => steps.push(step(
                "Deletion waits for finalizers: the controller that owns each must remove it. If that controller is gone for good, removing the finalizer by hand skips its cleanup.",
                vec![format!("{} get {} -o jsonpath='{{.metadata.finalizers}}'", kubectl(&who), arg(&who))],
            )),
            "NoStatus" => steps.push(step("No controller has written status: check that the controller (operator) for this type is installed and running.", vec![describe(&who), "kubectl get pods -A".into()])),
            "ObservedGenerationLag" => steps.push(step(
                "The controller has not yet acted on the latest spec. A short lag is normal; if it lasts, check that the controller is running.",
                vec![describe(&who)],
            )),
            "Misscheduled" => steps.push(step(
                "Daemon pods run on nodes that no longer match the DaemonSet's node selector, affinity or tolerations; the controller removes them.",
                vec![describe(&who), format!("{} get pods -o wide", kubectl(&who))],
            )),
            "NodeNotReady" | "MemoryPressure" | "DiskPressure" | "PIDPressure" | "NetworkUnavailable" => steps.push(step(
                "The node reports a problem: check the kubelet and the node's resources.",
                vec![describe(&who)],
            )),
            "Cordoned" => steps.push(step("The node is cordoned on purpose; uncordon it to schedule pods on it again.", vec![format!("kubectl uncordon {}", who.name)])),
            "Evicted" => steps.push(step(
                "The kubelet evicted the pod, usually for node resource pressure (see the message); its controller makes a replacement. Delete the failed pod when done.",
                vec![describe(&who)],
            )),
            "FailedGetResourceMetric" | "FailedGetPodsMetric" | "FailedGetExternalMetric" | "FailedGetObjectMetric" => steps.push(step(
                "The autoscaler cannot read metrics: check that the metrics API is served (metrics-server) and that the pods have resource requests.",
                vec!["kubectl get apiservices | grep metrics".into(), describe(&who)],
            )),
            "NoAddress" | "PendingAddress" => steps.push(step(
                "No ingress controller has written an address: check that one is installed for this Ingress's class.",
                vec!["kubectl get ingressclass".into(), describe(&who)],
            )),
            "PendingLoadBalancer" => steps.push(step(
                "No load balancer has been provisioned: check that a cloud controller manager or a load balancer implementation runs in the cluster.",
                vec![describe(&who)],
            )),
            "NamesNotAccepted" => steps.push(step("Another CustomResourceDefinition claims the same names: rename one of them.", vec![describe(&who)])),
            "NoReadyEndpoints" => steps.push(step(
                "The Service's pods exist but none is ready: diagnose the pods.",
                vec![format!("{} get pods --show-labels", kubectl(&who))],
            )),
            "InsufficientPods" => steps.push(step("Fewer pods are healthy than the budget requires: diagnose the workload it protects.", vec![describe(&who)])),
            "Lost" => steps.push(step("The claim's volume is gone: restore it from a backup, or delete and re-create the claim.", vec![describe(&who)])),
            _ if who.kind == "Namespace" => steps.push(step(
                "The namespace waits for its content to be deleted or for finalizers to be removed (see its conditions).",
                vec![format!("kubectl api-resources --verbs=list --namespaced -o name | xargs -n 1 kubectl get --show-kind --ignore-not-found -n {}", who.name)],
            )),
            _ if cause.verdict == crate::verdict::Verdict::Progressing => steps.push(step(
                "The controller is working on it and nothing says it is stuck: watch it converge.",
                vec![format!("kubectl reconcile {}tree {}", namespace_flag(t), arg(t))],
            )),
            _ if !crate::catalog::is_builtin_group(who.group()) => steps.push(step(
                format!("The controller of {} reports the problem above: read its conditions and the controller's logs.", who.kind),
                vec![describe(&who)],
            )),
            _ => steps.push(step(format!("Look at {} {} in detail.", who.kind, who.name), vec![describe(&who)])),
        }
    }
    for f in findings {
        match f.reason.as_str() {
            "BarePod" => steps.push(step("Run the pod under a controller (a Deployment, StatefulSet or Job) so that it is recreated.", vec![])),
            "SelectorOverlap" => steps.push(step("Give each controller a selector that matches only its own pods.", vec![format!("{} get pods --show-labels", kubectl(t))])),
            "StaleStatus" => steps.push(step("The controller does not act on the latest spec: check that it is running and read its logs.", vec![])),
            "OwnerGone" => steps.push(step("The owner is gone: the garbage collector deletes its dependents; recreate the owner if that is not wanted.", vec![])),
            _ => {}
        }
    }
    steps
}
