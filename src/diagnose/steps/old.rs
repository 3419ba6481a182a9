//! The next step: what to check or change, with the commands to run.

use crate::verdict::Judged;
use serde::Serialize;

use serde_json::Value;

use super::chain::{Cause, Link};
use super::findings::Finding;
use crate::model::{Object, ObjectRef};
use crate::relations::admission::{self, Admission};

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
    snap: &Judged<'_>,
    target: &Object,
    cause: Option<&Cause>,
    chain: &[Link],
    findings: &[Finding],
) -> Vec<NextStep> {
    let mut steps = Vec::new();
    let t = &target.id;
    if let Some(cause) = cause {
        // One step per failing container, the one that matches the cause
        // first; containers that fail alike share a step.
        let mut containers: Vec<&Link> = chain.iter().filter(|l| l.container.is_some()).collect();
        containers.sort_by_key(|l| l.reason != cause.reason);
        let first = containers.first().and_then(|l| l.container.clone());
        steps.push(cause_step(snap, target, cause, &cause.reason, first, chain));
        for link in containers.iter().skip(1) {
            let reason = match link.reason.as_str() {
                "OOMKilled" => "CrashLoopBackOff",
                r => r,
            };
            let s = cause_step(snap, target, cause, reason, link.container.clone(), chain);
            if !steps.contains(&s) {
                steps.push(s);
            }
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

/// The step for a cause, with `reason` read for `container` (the pod's
/// cause, or one more failing container's own reason).
fn cause_step(
    snap: &Judged<'_>,
    target: &Object,
    cause: &Cause,
    reason: &str,
    container: Option<String>,
    chain: &[Link],
) -> NextStep {
    let t = &target.id;
    let describe = |id: &ObjectRef| format!("{} describe {}", kubectl(id), arg(id));
    let who = cause.objects.first().cloned().unwrap_or_else(|| t.clone());
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
    // What `set image` changes: the topmost workload with a pod template on
    // the chain (the Deployment, not a GitOps object above it).
    let workload = chain
        .iter()
        .filter_map(|l| l.object.as_ref())
        .find(|o| crate::catalog::makes_pods(o.group(), &o.kind))
        .unwrap_or(t);
    let set_image = || {
        let c = container.clone().unwrap_or_else(|| "CONTAINER".into());
        format!(
            "{} set image {} {c}=IMAGE",
            kubectl(workload),
            arg(workload)
        )
    };
    let named = container
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    let who_obj = who.uid.as_deref().and_then(|u| snap.get(u));
    let oom = who_obj.is_some_and(|p| oom_killed(p, container.as_deref()));
    // The object above the cause in the chain: what refers to a missing one.
    let referrer = chain
        .iter()
        .rev()
        .filter_map(|l| l.object.as_ref())
        .nth(1)
        .cloned()
        .unwrap_or_else(|| t.clone());
    if let Some(made) = made_by(cause, chain) {
        return made;
    }
    if let Some(node) = who_obj.and_then(|p| node_not_ready(snap, p, reason)) {
        return node;
    }
    match reason {
        "NotFound" => missing_step(snap, &who, &referrer),
        "ImagePullBackOff"
        | "ErrImagePull"
        | "InvalidImageName"
        | "ErrImageNeverPull"
        | "RegistryUnavailable" => step(
            "The image cannot be pulled: check its name and tag, that it exists in the registry, and the pull secret.",
            vec![describe(&who), set_image()],
        ),
        "CrashLoopBackOff" if oom => {
            let current = who_obj.and_then(|p| memory_limit(p, container.as_deref()));
            let c = container
                .as_deref()
                .map(|c| format!(" -c {c}"))
                .unwrap_or_default();
            let (text, limit) = match &current {
                Some(limit) => (
                    format!(
                        "The container{named} is killed for using more than its memory limit of {limit} (OOMKilled): raise the limit (e.g. to {}), or find what uses the memory.",
                        doubled(limit)
                    ),
                    doubled(limit),
                ),
                None => (
                    format!(
                        "The container{named} is killed for using more memory than it may (OOMKilled, no memory limit of its own: a LimitRange default or the node's memory): set a memory limit and request that fit, or find what uses the memory."
                    ),
                    "LIMIT".to_string(),
                ),
            };
            step(
                text,
                vec![
                    logs(true),
                    format!(
                        "{} set resources {}{c} --limits=memory={limit}",
                        kubectl(t),
                        arg(t)
                    ),
                ],
            )
        }
        "CrashLoopBackOff" => step(
            "The container keeps exiting and is restarted with back-off: read the logs of the last run for the error.",
            vec![logs(true), describe(&who)],
        ),
        "PodFailed" | "Error" | "RunContainerError" | "CreateContainerError" => step(
            "The container exited with an error: read its logs.",
            vec![logs(false), describe(&who)],
        ),
        "CreateContainerConfigError" => step(
            "The container's configuration refers to something missing (a Secret, ConfigMap or key): create it or fix the reference.",
            vec![describe(&who)],
        ),
        "ReadinessProbeFailed" | "NotReady" => step(
            "The containers run but never pass their readiness probe: check the probe's path and port, and the application's health endpoint.",
            vec![describe(&who), logs(false)],
        ),
        "Unschedulable" => unschedulable(snap, &who, describe(&who)),
        "FailedCreate" | "ReplicaFailure" => failed_create(snap, &who),
        // The object with the reason: the target, or a workload a GitOps
        // object above it applies.
        "ProgressDeadlineExceeded" => rollback(snap, &who),
        "Paused" => step(
            "The Deployment is paused on purpose; resume it to roll out pending changes.",
            vec![format!("{} rollout resume {}", kubectl(&who), arg(&who))],
        ),
        "WaitingForPodDeletion" => step(
            "The update strategy is OnDelete: pods update only when deleted.",
            vec![format!("{} delete pod POD", kubectl(&who))],
        ),
        "BackoffLimitExceeded" | "DeadlineExceeded" => job_gave_up(snap, &who, t),
        "Suspended" => step(
            "It is suspended on purpose by spec.suspend.",
            vec![format!(
                "{} patch {} -p '{{\"spec\":{{\"suspend\":false}}}}'",
                kubectl(t),
                arg(t)
            )],
        ),
        "WaitingForFirstConsumer" => step(
            "The claim binds when a pod that uses it is scheduled (volumeBindingMode WaitForFirstConsumer).",
            vec![describe(&who)],
        ),
        "NoMatchingVolume"
            if who.kind == "PersistentVolumeClaim"
                && cause.message.contains("kubernetes.io/no-provisioner") =>
        {
            step(
                "Nothing provisions volumes for the claim's class: create a PersistentVolume of that class with the size and access mode the claim asks for, on a node the pod may run on (local volumes need node affinity), or use a class with a provisioner (a claim's class cannot change: re-create the claim).",
                vec![
                    "kubectl get persistentvolumes".into(),
                    "kubectl get storageclass".into(),
                    describe(&who),
                ],
            )
        }
        "NoMatchingVolume" | "NoStorageClass" | "ProvisioningFailed" | "Pending"
            if who.kind == "PersistentVolumeClaim" =>
        {
            step(
                "The claim cannot bind: set a storageClassName that exists, create a matching PersistentVolume, or fix the provisioner.",
                vec!["kubectl get storageclass".into(), describe(&who)],
            )
        }
        "NoEndpoints" => step(
            "The Service's selector matches no pods: fix spec.selector or the pods' labels.",
            vec![
                describe(&who),
                format!("{} get pods --show-labels", kubectl(&who)),
            ],
        ),
        "FinalizersPending" | "WaitingForDependents" if who.kind == "Namespace" => {
            namespace_step(&who)
        }
        "FinalizersPending" | "WaitingForDependents" => step(
            "Deletion waits for finalizers: the controller that owns each must remove it. If that controller is gone for good, removing the finalizer by hand skips its cleanup.",
            vec![format!(
                "{} get {} -o jsonpath='{{.metadata.finalizers}}'",
                kubectl(&who),
                arg(&who)
            )],
        ),
        "NoHealthSignal" => step(
            format!(
                "No convention reads the status of {kind}: say what healthy means with a health rule in ~/.config/kubectl-reconcile/health-rules.yaml (docs/health-rules.md), e.g. `rules: [{{group: {group}, kind: {kind}, checks: [{{when: 'object.status.?someField.orValue(\"\") == \"Ready\"', verdict: Converged, reason: Ready, message: '\"ready\"'}}]}}]`.",
                kind = who.kind,
                group = who.group()
            ),
            vec![
                format!("{} get {} -o yaml", kubectl(&who), arg(&who)),
                "kubectl reconcile rules".into(),
            ],
        ),
        "NoStatus" => step(
            "No controller has written status: check that the controller (operator) for this type is installed and running.",
            vec![describe(&who), "kubectl get pods -A".into()],
        ),
        "ObservedGenerationLag" => step(
            "The controller has not yet acted on the latest spec. A short lag is normal; if it lasts, check that the controller is running.",
            vec![describe(&who)],
        ),
        "Misscheduled" => step(
            "Daemon pods run on nodes that no longer match the DaemonSet's node selector, affinity or tolerations; the controller removes them.",
            vec![
                describe(&who),
                format!("{} get pods -o wide", kubectl(&who)),
            ],
        ),
        "NodeNotReady" | "MemoryPressure" | "DiskPressure" | "PIDPressure"
        | "NetworkUnavailable" => step(
            "The node reports a problem: check the kubelet and the node's resources.",
            vec![describe(&who)],
        ),
        "Cordoned" => step(
            "The node is cordoned on purpose; uncordon it to schedule pods on it again.",
            vec![format!("kubectl uncordon {}", who.name)],
        ),
        "Evicted" => step(
            "The kubelet evicted the pod, usually for node resource pressure (see the message); its controller makes a replacement. Delete the failed pod when done.",
            vec![describe(&who)],
        ),
        "FailedGetResourceMetric"
        | "FailedGetPodsMetric"
        | "FailedGetExternalMetric"
        | "FailedGetObjectMetric" => step(
            "The autoscaler cannot read metrics: check that the metrics API is served (metrics-server) and that the pods have resource requests.",
            vec![
                "kubectl get apiservices | grep metrics".into(),
                describe(&who),
            ],
        ),
        "NoAddress" | "PendingAddress" => step(
            "No ingress controller has written an address: check that one is installed for this Ingress's class.",
            vec!["kubectl get ingressclass".into(), describe(&who)],
        ),
        "PendingLoadBalancer" => step(
            "No load balancer has been provisioned: check that a cloud controller manager or a load balancer implementation runs in the cluster.",
            vec![describe(&who)],
        ),
        "NamesNotAccepted" => step(
            "Another CustomResourceDefinition claims the same names: rename one of them.",
            vec![describe(&who)],
        ),
        "ScaledToZero" => {
            let svc = who.uid.as_deref().and_then(|u| snap.get(u));
            let scale: Vec<String> = svc
                .map(|s| crate::relations::backing_workloads(snap, s))
                .unwrap_or_default()
                .iter()
                .map(|w| format!("{} scale {} --replicas=1", kubectl(&w.id), arg(&w.id)))
                .collect();
            step(
                "The Service has no endpoints because the workload behind it runs no pods: scale it up (to as many replicas as it should run), unless it is scaled down on purpose (an autoscaler such as KEDA scales idle workloads to 0).",
                scale,
            )
        }
        "NamedPortNotFound" => step(
            "The Service targets a container port by a name its pods do not declare: set spec.ports[].targetPort to a port name (or number) the containers declare, or name the container port so in the pod template.",
            vec![
                format!(
                    "{} get {} -o jsonpath='{{.spec.ports}}'",
                    kubectl(&who),
                    arg(&who)
                ),
                format!(
                    "{} get pods -o jsonpath='{{range .items[*]}}{{.metadata.name}}{{\"\\t\"}}{{.spec.containers[*].ports}}{{\"\\n\"}}{{end}}'",
                    kubectl(&who)
                ),
            ],
        ),
        "NoReadyEndpoints" => step(
            "The Service's pods exist but none is ready: diagnose the pods.",
            vec![format!("{} get pods --show-labels", kubectl(&who))],
        ),
        "InsufficientPods" => step(
            "Fewer pods are healthy than the budget requires: diagnose the workload it protects.",
            vec![describe(&who)],
        ),
        "Lost" => step(
            "The claim's volume is gone: restore it from a backup, or delete and re-create the claim.",
            vec![describe(&who)],
        ),
        _ if who.kind == "Namespace" => namespace_step(&who),
        _ if cause.verdict == crate::verdict::Verdict::Progressing => step(
            "The controller is working on it and nothing says it is stuck: watch it converge.",
            vec![format!(
                "kubectl reconcile {}tree {}",
                namespace_flag(t),
                arg(t)
            )],
        ),
        _ if !crate::catalog::is_builtin_group(who.group()) => step(
            format!(
                "The controller of {} reports the problem above: read its conditions and the controller's logs.",
                who.kind
            ),
            vec![describe(&who)],
        ),
        _ => step(
            format!("Look at {} {} in detail.", who.kind, who.name),
            vec![describe(&who)],
        ),
    }
}

/// No node can run the pod: each blocking constraint named, with its fix.
fn unschedulable(snap: &Judged<'_>, who: &ObjectRef, describe: String) -> NextStep {
    let pod = who.uid.as_deref().and_then(|u| snap.get(u));
    let nodes: Vec<&Object> = snap
        .objects()
        .iter()
        .filter(|o| o.kind() == "Node" && o.group().is_empty())
        .collect();
    let message = pod
        .and_then(|p| p.condition("PodScheduled"))
        .map(|c| c.message)
        .unwrap_or_default();
    let blockers = pod
        .map(|p| super::scheduling::blockers(p, &nodes, &message))
        .unwrap_or_default();
    if blockers.is_empty() {
        return step(
            "No node can run the pod (see the scheduler's message above): lower its requests, fix its node selector, affinity or tolerations, or add capacity.",
            vec![describe, "kubectl describe nodes".into()],
        );
    }
    let what: Vec<&str> = blockers.iter().map(|b| b.text.as_str()).collect();
    let fix: Vec<&str> = blockers.iter().map(|b| b.fix.as_str()).collect();
    let mut commands: Vec<String> = Vec::new();
    for c in blockers.iter().flat_map(|b| b.commands.iter()) {
        if !commands.contains(c) {
            commands.push(c.clone());
        }
    }
    commands.push(describe);
    step(
        format!(
            "No node can run the pod: {}. To fix: {}.",
            what.join("; "),
            fix.join("; ")
        ),
        commands,
    )
}

/// The container's lastState or state says OOMKilled (read from the field).
fn oom_killed(pod: &Object, container: Option<&str>) -> bool {
    pod.container_statuses()
        .map(|(_, c)| c)
        .filter(|c| container.is_none_or(|n| c.get("name").and_then(Value::as_str) == Some(n)))
        .any(|c| {
            ["/lastState/terminated/reason", "/state/terminated/reason"]
                .iter()
                .any(|p| c.pointer(p).and_then(Value::as_str) == Some("OOMKilled"))
        })
}

/// The container's memory limit as written in its spec.
fn memory_limit(pod: &Object, container: Option<&str>) -> Option<String> {
    ["/spec/initContainers", "/spec/containers"]
        .iter()
        .filter_map(|p| pod.at(p).and_then(Value::as_array))
        .flatten()
        .find(|c| container.is_none_or(|n| c.get("name").and_then(Value::as_str) == Some(n)))?
        .pointer("/resources/limits/memory")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Twice a quantity, in its own unit (`64Mi` → `128Mi`); `2×Q` when it
/// cannot be read.
fn doubled(quantity: &str) -> String {
    let split = quantity
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(quantity.len());
    match quantity[..split].parse::<u64>() {
        Ok(n) if !quantity[split..].contains('.') => format!("{}{}", n * 2, &quantity[split..]),
        _ => format!("2x{quantity}"),
    }
}

/// The controller that should act on the target is down: fix it, not the
/// target (a stopped kube-controller-manager is a control-plane outage).
pub fn controller_down(c: &super::controller::ControllerCheck) -> NextStep {
    let lease = c.lease.as_ref();
    let control_plane = lease.is_some_and(|l| {
        l.namespace.as_deref() == Some(super::controller::CONTROL_PLANE_NAMESPACE)
            && matches!(
                l.name.as_str(),
                "kube-controller-manager" | "kube-scheduler"
            )
    });
    if control_plane {
        let name = lease.map(|l| l.name.as_str()).unwrap_or_default();
        let renewed = c
            .renewed
            .map(|t| format!("its Lease kube-system/{name} has not been renewed since {t}"))
            .unwrap_or_else(|| format!("its Lease kube-system/{name} is not renewed"));
        return step(
            format!(
                "{name} is not running ({renewed}): this is a control-plane outage, not a fault of this object; nothing acts on it until {name} runs again. Check the control plane ({name}'s process or static pod and its logs)."
            ),
            vec![
                format!("kubectl -n kube-system get lease {name} -o yaml"),
                format!("kubectl -n kube-system get pods -l component={name}"),
            ],
        );
    }
    let mut commands = Vec::new();
    if let Some(w) = &c.workload {
        commands.push(format!("{} describe {}", kubectl(w), arg(w)));
        commands.push(format!("{} logs {} --previous", kubectl(w), arg(w)));
    }
    if let Some(l) = lease {
        commands.push(format!("{} get lease {} -o yaml", kubectl(l), l.name));
    }
    let who = c
        .workload
        .as_ref()
        .map(|w| format!("{}/{}", w.kind, w.name))
        .unwrap_or_else(|| "its controller".into());
    let state = match (&c.workload_verdict, &c.workload_reason) {
        _ if c.pod_failure.is_some() => {
            format!("{} ({who})", c.pod_failure.clone().unwrap_or_default())
        }
        (Some(v), Some(r)) if *v != crate::verdict::Verdict::Converged => {
            format!("{who} is {v} ({r})")
        }
        _ if c.expired => format!("the lease {who} holds is not renewed"),
        _ => format!("{who} is not healthy"),
    };
    step(
        format!(
            "The controller that should act on it is down: {state}. Nothing updates this object until it runs again: fix {who} first (its own verdict, events and logs)."
        ),
        commands,
    )
}

/// A pod that is not ready, with a NodeNotReady event from the node
/// controller while its node could not be read (partial RBAC): the events
/// are the evidence, so the step is about the node, not the probes.
fn node_not_ready(snap: &Judged<'_>, pod: &Object, reason: &str) -> Option<NextStep> {
    let container_failure = matches!(
        reason,
        "CrashLoopBackOff"
            | "ImagePullBackOff"
            | "ErrImagePull"
            | "InvalidImageName"
            | "CreateContainerConfigError"
            | "CreateContainerError"
            | "RunContainerError"
            | "PodFailed"
            | "Unschedulable"
    );
    if pod.kind() != "Pod" || container_failure {
        return None;
    }
    let node = pod.str("/spec/nodeName")?;
    if snap.find("", "Node", None, node).is_some() {
        return None; // read: the chain reaches it by its runs-on edge
    }
    let event = snap
        .events
        .iter()
        .filter(|e| e.regarding_uid == pod.uid && e.is_warning() && e.reason == "NodeNotReady")
        .max_by_key(|e| e.last_seen)?;
    let when = event
        .last_seen
        .map(|t| format!(" {} ago", crate::model::age(snap.now, t)))
        .unwrap_or_default();
    Some(step(
        format!(
            "The pod's node {node} is not ready: the node controller said so{when} (NodeNotReady: {}), and the node itself could not be read. Its pods stay not ready until the kubelet reports again, and are evicted once their not-ready toleration runs out (5 minutes by default): check the node and its kubelet, or ask someone who may read nodes.",
            event.message
        ),
        vec![
            format!("kubectl describe node {node}"),
            format!(
                "{} get pods --field-selector spec.nodeName={node}",
                kubectl(&pod.id)
            ),
        ],
    ))
}

/// The cause is the resource that should make a missing object (the chain
/// reached it by a `made-by` edge): fix that, not the object it makes.
fn made_by(cause: &Cause, chain: &[Link]) -> Option<NextStep> {
    let objects: Vec<&Link> = chain.iter().filter(|l| l.object.is_some()).collect();
    let (maker, made) = match objects.as_slice() {
        [.., made, maker] if maker.edge == Some(crate::relations::Edge::MadeBy) => (maker, made),
        _ => return None,
    };
    let (maker, made) = (maker.object.as_ref()?, made.object.as_ref()?);
    Some(step(
        format!(
            "{} \"{}\" is missing because {}/{}, which makes it, is {} ({}): fix {}/{} (see its message); creating the {} by hand would fight its controller.",
            made.kind,
            made.name,
            maker.kind,
            maker.name,
            cause.verdict,
            cause.reason,
            maker.kind,
            maker.name,
            made.kind
        ),
        vec![
            format!("{} describe {}", kubectl(maker), arg(maker)),
            format!(
                "{} get events --field-selector involvedObject.name={}",
                kubectl(maker),
                maker.name
            ),
        ],
    ))
}

/// A missing object that something in the chain refers to.
fn missing_step(snap: &Judged<'_>, who: &ObjectRef, referrer: &ObjectRef) -> NextStep {
    let by = format!("{}/{}", referrer.kind, referrer.name);
    let place = who
        .namespace
        .as_deref()
        .map(|ns| format!(" in namespace {ns}"))
        .unwrap_or_default();
    let list = format!("{} get {}", kubectl(who), who.kind.to_ascii_lowercase());
    match who.kind.as_str() {
        "StorageClass" => step(
            format!(
                "{by} asks for StorageClass \"{}\", which does not exist: set spec.storageClassName to a class that exists (claims cannot change it once created: re-create the claim), or create the class.",
                who.name
            ),
            vec![
                list,
                format!("{} describe {}", kubectl(referrer), arg(referrer)),
            ],
        ),
        "IngressClass" => step(
            format!(
                "{by} names IngressClass \"{}\", which does not exist: install the ingress controller that provides it, or set spec.ingressClassName to an existing class.",
                who.name
            ),
            vec![list],
        ),
        "ServiceAccount" => step(
            format!(
                "{} as ServiceAccount \"{}\", which does not exist{place}: create it, or fix serviceAccountName.",
                if referrer.kind == "Pod" {
                    format!("{by} runs")
                } else {
                    format!("The pods of {by} run")
                },
                who.name
            ),
            vec![
                format!("{} create serviceaccount {}", kubectl(who), who.name),
                list,
            ],
        ),
        "Service" if referrer.kind == "StatefulSet" => step(
            format!(
                "{by} names \"{}\" as its governing Service (spec.serviceName), which does not exist{place}: its pods get no stable network names ({}-0.{}). Create a headless Service of that name that selects its pods.",
                who.name, referrer.name, who.name
            ),
            vec![
                format!(
                    "{} create service clusterip {} --clusterip=None",
                    kubectl(who),
                    who.name
                ),
                format!(
                    "{} get {} -o jsonpath='{{.spec.selector}}'",
                    kubectl(referrer),
                    arg(referrer)
                ),
            ],
        ),
        "Secret" if !crate::relations::producers(snap, who).is_empty() => {
            let makers = crate::relations::producers(snap, who);
            let maker = &makers[0].id;
            step(
                format!(
                    "{by} needs Secret \"{}\", which does not exist{place}. {}/{} makes it and reports no failure: check that its controller runs and can write Secrets here; do not create the Secret by hand.",
                    who.name, maker.kind, maker.name
                ),
                vec![format!("{} describe {}", kubectl(maker), arg(maker))],
            )
        }
        "ConfigMap" | "Secret" => step(
            format!(
                "{by} needs {} \"{}\", which does not exist{place}: create it, or fix the reference (or mark it optional).",
                who.kind, who.name
            ),
            vec![
                list,
                format!("{} describe {}", kubectl(referrer), arg(referrer)),
            ],
        ),
        _ => step(
            format!(
                "{by} refers to {} \"{}\", which does not exist{place}: create it, or fix the reference.",
                who.kind, who.name
            ),
            vec![list],
        ),
    }
}

/// A refused pod creation: the admission cause and its own commands.
fn failed_create(snap: &Judged<'_>, who: &ObjectRef) -> NextStep {
    let obj = who.uid.as_deref().and_then(|u| snap.get(u));
    let message = obj
        .map(|o| admission::create_failures(o, &snap.events))
        .and_then(|m| m.into_iter().next())
        .unwrap_or_default();
    let k = kubectl(who);
    let describe = format!("{k} describe {}", arg(who));
    match admission::classify(&message) {
        Admission::MissingServiceAccount { name } => step(
            format!(
                "The pods run as ServiceAccount \"{name}\", which does not exist: create it, or fix spec.template.spec.serviceAccountName."
            ),
            vec![
                format!("{k} create serviceaccount {name}"),
                format!("{k} get serviceaccounts"),
            ],
        ),
        Admission::MissingClass { kind, name } => {
            let field = match kind {
                "PriorityClass" => "priorityClassName",
                _ => "runtimeClassName",
            };
            step(
                format!(
                    "The pods ask for {kind} \"{name}\", which does not exist: create it, or fix spec.template.spec.{field} (the API server refuses every pod until then)."
                ),
                vec![format!("kubectl get {}", plural(kind)), describe],
            )
        }
        Admission::NamespaceTerminating { namespace } => step(
            format!(
                "Namespace {namespace} is being deleted, so nothing new may be created in it: wait for the deletion to finish and re-create the workload, or find what holds the namespace."
            ),
            vec![format!("kubectl reconcile why namespace/{namespace}")],
        ),
        a @ Admission::Webhook { .. } => {
            let Admission::Webhook { webhook, detail } = &a else {
                unreachable!()
            };
            let objects = snap.objects();
            let config = admission::webhook_config(&a, objects);
            let mut text = format!(
                "The admission webhook \"{webhook}\" rejects the pods or cannot be called ({detail})"
            );
            let mut commands = Vec::new();
            if let Some((cfg, hook)) = config {
                text.push_str(&format!(
                    " — it is declared by {}/{}",
                    cfg.kind(),
                    cfg.name()
                ));
                let policy = hook
                    .get("failurePolicy")
                    .and_then(Value::as_str)
                    .unwrap_or("Fail");
                text.push_str(&format!(" with failurePolicy {policy}"));
                commands.push(format!(
                    "kubectl get {} {} -o yaml",
                    cfg.kind().to_ascii_lowercase(),
                    cfg.name()
                ));
            }
            if let Some((ns, svc)) = admission::webhook_service(&a, objects) {
                match admission::has_endpoints(snap, &ns, &svc) {
                    Some(false) => text.push_str(&format!(
                        "; its Service {ns}/{svc} has no ready endpoints: start the webhook's pods"
                    )),
                    Some(true) => text.push_str(&format!(
                        "; its Service {ns}/{svc} has endpoints: read the webhook's logs"
                    )),
                    None => text.push_str(&format!("; its Service {ns}/{svc} does not exist")),
                }
                commands.push(format!(
                    "kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={svc}"
                ));
            }
            text.push_str(". Fix the webhook, or change its configuration (failurePolicy, namespaceSelector) if it should not apply here.");
            commands.push(describe);
            step(text, commands)
        }
        Admission::Policy {
            policy,
            binding,
            detail,
        } => {
            let mut commands = vec![format!(
                "kubectl get validatingadmissionpolicy {policy} -o yaml"
            )];
            let by = match &binding {
                Some(b) => {
                    commands.push(format!(
                        "kubectl get validatingadmissionpolicybinding {b} -o yaml"
                    ));
                    format!(" through binding \"{b}\"")
                }
                None => String::new(),
            };
            step(
                format!(
                    "ValidatingAdmissionPolicy \"{policy}\"{by} denies the pods: {detail}. Change the pod template to satisfy it, or the policy or its binding if it should not apply here."
                ),
                commands,
            )
        }
        Admission::Quota { quota, detail } => {
            let found = quota
                .as_deref()
                .and_then(|q| snap.find("", "ResourceQuota", who.namespace.as_deref(), q));
            let usage = found.map(quota_usage).unwrap_or_default();
            let name = quota.clone().unwrap_or_default();
            step(
                format!(
                    "ResourceQuota {name} refuses the pods ({detail}){usage}: raise the quota, lower the pods' requests, or free what uses it."
                ),
                vec![
                    format!("{k} describe resourcequota {name}")
                        .trim_end()
                        .to_string(),
                    describe,
                ],
            )
        }
        Admission::LimitRange { side, detail } => step(
            format!(
                "A LimitRange refuses the pods because a container's {side} is out of its range ({detail}): change the container's resources {side}s in the pod template, or the LimitRange."
            ),
            vec![format!("{k} describe limitrange"), describe],
        ),
        Admission::PodSecurity { level, violations } => {
            let ns = who.namespace.clone().unwrap_or_default();
            step(
                format!(
                    "Pod Security Admission enforces level \"{level}\" on namespace {ns} and the pods violate it: {violations}. Fix the pod template's securityContext, or lower the namespace's pod-security.kubernetes.io/enforce label."
                ),
                vec![
                    format!("kubectl get namespace {ns} --show-labels"),
                    describe,
                ],
            )
        }
        Admission::Other => step(
            "The API server refuses to create the pods (see the message above): fix what it names in the pod template, or the policy that refuses them.",
            vec![
                describe,
                format!("{k} get events --field-selector reason=FailedCreate"),
            ],
        ),
    }
}

/// The plural kubectl takes for a kind (`PriorityClass` → `priorityclasses`).
fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// `; used requests.memory 512Mi of 1Gi` for each resource the quota limits.
fn quota_usage(q: &Object) -> String {
    let Some(hard) = q.at("/status/hard").and_then(Value::as_object) else {
        return String::new();
    };
    let used = q.at("/status/used");
    let parts: Vec<String> = hard
        .iter()
        .map(|(res, limit)| {
            let u = used
                .and_then(|u| u.get(res))
                .and_then(Value::as_str)
                .unwrap_or("0");
            format!("{res} {u} used of {}", limit.as_str().unwrap_or("?"))
        })
        .collect();
    format!("; {}", parts.join(", "))
}

/// Going back to the revision before a change that broke the rollout,
/// beside the forward fix; none when a step already rolls back.
pub fn undo_change(target: &Object, previous: i64, steps: &[NextStep]) -> Option<NextStep> {
    if steps
        .iter()
        .any(|s| s.commands.iter().any(|c| c.contains(" rollout undo ")))
    {
        return None;
    }
    let t = &target.id;
    Some(step(
        format!(
            "Or go back to revision {previous}, which ran before the change (see Also), while the new revision is fixed:"
        ),
        vec![format!(
            "{} rollout undo {} --to-revision={previous}",
            kubectl(t),
            arg(t)
        )],
    ))
}

/// A stuck rollout: roll back to the revision before the newest, when
/// there is one.
fn rollback(snap: &Judged<'_>, t: &ObjectRef) -> NextStep {
    let workload = t.uid.as_deref().and_then(|u| snap.get(u));
    // The newest revision is the Deployment's own annotation (its
    // ReplicaSet may not be read), else the newest kept.
    let previous = workload.and_then(|w| {
        let kept = super::rollout::revisions(snap, w);
        let current = w
            .str("/metadata/annotations/deployment.kubernetes.io~1revision")
            .and_then(|r| r.parse::<i64>().ok())
            .or_else(|| kept.first().map(|(n, _, _)| *n))?;
        match super::rollout::way_back(snap, w) {
            Some((n, _, _)) if n < current => Some(n),
            _ => kept.iter().map(|(n, _, _)| *n).find(|n| *n < current),
        }
    });
    match previous {
        Some(n) => step(
            "The rollout is stuck: fix the new pods (see the root cause), or roll back to the previous revision.",
            vec![
                format!("{} rollout undo {} --to-revision={n}", kubectl(t), arg(t)),
                format!("{} rollout history {}", kubectl(t), arg(t)),
            ],
        ),
        None if t.kind != "Deployment" => step(
            "The rollout is stuck: fix the new pods (see the root cause), or roll back to the previous revision.",
            vec![
                format!("{} rollout undo {}", kubectl(t), arg(t)),
                format!("{} rollout history {}", kubectl(t), arg(t)),
            ],
        ),
        None => step(
            "The rollout is stuck and there is no earlier revision to roll back to: fix the pod template (see the root cause).",
            vec![format!("{} describe {}", kubectl(t), arg(t))],
        ),
    }
}

/// A Job that gave up: its pods' logs while they exist, else its events.
fn job_gave_up(snap: &Judged<'_>, who: &ObjectRef, t: &ObjectRef) -> NextStep {
    let pods = snap
        .objects()
        .iter()
        .any(|o| o.kind() == "Pod" && o.owners.iter().any(|r| Some(&r.uid) == who.uid.as_ref()));
    if pods {
        step(
            "The Job has given up: read its pods' logs, fix the cause, then delete and re-create the Job.",
            vec![
                format!("{} logs {}", kubectl(who), arg(who)),
                format!("{} describe {}", kubectl(t), arg(t)),
            ],
        )
    } else {
        step(
            "The Job has given up and its pods are gone (the Job controller deletes them), so their logs are too: read the Job's events, fix the cause, then delete and re-create the Job.",
            vec![
                format!("{} describe {}", kubectl(who), arg(who)),
                format!(
                    "{} get events --field-selector involvedObject.name={}",
                    kubectl(who),
                    who.name
                ),
            ],
        )
    }
}

/// A Namespace that stays Terminating with nothing found holding it.
fn namespace_step(who: &ObjectRef) -> NextStep {
    step(
        "The namespace waits for its content to be deleted or for finalizers to be removed (see its conditions). Its own finalizer is in spec.finalizers and is removed last by the namespace controller; the usual blocker is an object inside it whose finalizer no controller removes.",
        vec![
            format!(
                "kubectl get namespace {} -o jsonpath='{{.spec.finalizers}}'",
                who.name
            ),
            format!(
                "kubectl api-resources --verbs=list --namespaced -o name | xargs -n 1 kubectl get --show-kind --ignore-not-found -n {}",
                who.name
            ),
        ],
    )
}
