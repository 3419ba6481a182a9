//! Steps the judge's own reasons ask for, whatever the kind: a missing
//! object and what refers to it, deletion held by finalizers, a status not
//! written or behind the spec, a suspension, a controller that is down, and
//! the maker of a missing object.

use super::{Cx, NextStep, arg, describe, kubectl, step};
use crate::diagnose::chain::{Cause, Link};
use crate::model::ObjectRef;
use crate::verdict::Judged;
use crate::verdict::reason::Lifecycle;

pub(super) fn step_for(code: Lifecycle, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    let t = cx.t();
    Some(match code {
        Lifecycle::NotFound => missing_step(cx.snap, who, &cx.referrer()),
        // A container's exit reason.
        Lifecycle::Error if who.kind == "Pod" => super::pods::exited(cx),
        Lifecycle::Suspended => step(
            "It is suspended on purpose by spec.suspend.",
            vec![format!(
                "{} patch {} -p '{{\"spec\":{{\"suspend\":false}}}}'",
                kubectl(t),
                arg(t)
            )],
        ),
        Lifecycle::FinalizersPending | Lifecycle::WaitingForDependents
            if who.kind == "Namespace" =>
        {
            namespace_step(who)
        }
        Lifecycle::FinalizersPending | Lifecycle::WaitingForDependents => step(
            "Deletion waits for finalizers: the controller that owns each must remove it. If that controller is gone for good, removing the finalizer by hand skips its cleanup.",
            vec![format!(
                "{} get {} -o jsonpath='{{.metadata.finalizers}}'",
                kubectl(who),
                arg(who)
            )],
        ),
        Lifecycle::NoHealthSignal => step(
            format!(
                "No convention reads the status of {kind}: say what healthy means with a health rule in ~/.config/kubectl-reconcile/health-rules.yaml (docs/health-rules.md), e.g. `rules: [{{group: {group}, kind: {kind}, checks: [{{when: 'object.status.?someField.orValue(\"\") == \"Ready\"', verdict: Converged, reason: Ready, message: '\"ready\"'}}]}}]`.",
                kind = who.kind,
                group = who.group()
            ),
            vec![
                format!("{} get {} -o yaml", kubectl(who), arg(who)),
                "kubectl reconcile rules".into(),
            ],
        ),
        Lifecycle::NoStatus => step(
            "No controller has written status: check that the controller (operator) for this type is installed and running.",
            vec![describe(who), "kubectl get pods -A".into()],
        ),
        Lifecycle::SpecNotObserved => step(
            "The spec changed after the controller last wrote the status, and this kind reports no observedGeneration: wait a moment for the controller to act; if it does not, check that it is running (`kubectl reconcile controllers`).",
            vec![describe(who), "kubectl reconcile controllers".into()],
        ),
        Lifecycle::ControllerNotFound => step(
            "The spec changed after the status was last written, and no running controller was found to have seen it: check that the operator for this type is running and holds its lease (`kubectl reconcile controllers`).",
            vec![
                "kubectl reconcile controllers".into(),
                "kubectl get pods -A".into(),
            ],
        ),
        Lifecycle::ObservedGenerationLag => step(
            "The controller has not yet acted on the latest spec. A short lag is normal; if it lasts, check that the controller is running.",
            vec![describe(who)],
        ),
        Lifecycle::ReferenceNotFound | Lifecycle::ReferenceNotReady => reference_step(code, cx)?,
        Lifecycle::NamesNotAccepted => step(
            "Another CustomResourceDefinition claims the same names: rename one of them.",
            vec![describe(who)],
        ),
        Lifecycle::Error
        | Lifecycle::Exists
        | Lifecycle::Current
        | Lifecycle::WaitingForController
        | Lifecycle::HealthRuleError
        | Lifecycle::Stalled
        | Lifecycle::Reconciling
        | Lifecycle::InProgress
        | Lifecycle::NotReadyToUse
        | Lifecycle::Ready
        | Lifecycle::NoReadyCondition
        | Lifecycle::SuspendPending
        | Lifecycle::Deleting
        | Lifecycle::ContentRemaining
        | Lifecycle::DiscoveryFailed
        | Lifecycle::GroupVersionParsingFailed
        | Lifecycle::ContentDeletionFailed
        | Lifecycle::Failed
        | Lifecycle::Established
        | Lifecycle::NotEstablished => return None,
    })
}

/// The controller that should act on the target is down: fix it, not the
/// target (a stopped kube-controller-manager is a control-plane outage).
pub fn controller_down(c: &crate::diagnose::controller::ControllerCheck) -> NextStep {
    let lease = c.lease.as_ref();
    let control_plane = lease.is_some_and(|l| {
        l.namespace.as_deref() == Some(crate::diagnose::controller::CONTROL_PLANE_NAMESPACE)
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
    // An operator scaled to 0 is not crashing: it was turned off.
    let scaled_down = c
        .workload_reason
        .as_ref()
        .is_some_and(|r| *r == crate::verdict::reason::Workload::ScaledDown);
    let mut commands = Vec::new();
    if let Some(w) = &c.workload {
        if scaled_down {
            commands.push(format!("{} scale {} --replicas=1", kubectl(w), arg(w)));
        } else {
            commands.push(format!("{} describe {}", kubectl(w), arg(w)));
            commands.push(format!("{} logs {} --previous", kubectl(w), arg(w)));
        }
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
        _ if scaled_down => format!("{who} is scaled to 0 replicas, so nothing runs it"),
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

/// An object whose operator waits on one it names: create that one, or
/// mend it first.
fn reference_step(code: Lifecycle, cx: &Cx) -> Option<NextStep> {
    let wanted = crate::model::waits_on(cx.who_obj?)?;
    let who = &cx.who;
    let list = format!(
        "{} get {}",
        kubectl(&wanted),
        format!("{}.{}", wanted.kind, wanted.group()).to_ascii_lowercase()
    );
    Some(if code == Lifecycle::ReferenceNotFound {
        step(
            format!(
                "{} {} waits on {} \"{}\", which does not exist: create it, or point {} at one that does (spec.issuerRef).",
                who.kind, who.name, wanted.kind, wanted.name, who.kind
            ),
            vec![list, describe(who)],
        )
    } else {
        step(
            format!(
                "{} {} waits on {} \"{}\", which is not ready: mend it first (its own conditions say why).",
                who.kind, who.name, wanted.kind, wanted.name
            ),
            vec![format!(
                "kubectl reconcile {}why {}",
                super::namespace_flag(&wanted),
                super::arg(&wanted)
            )],
        )
    })
}

/// The cause is the resource that should make a missing object (the chain
/// reached it by a `made-by` edge): fix that, not the object it makes.
pub(super) fn made_by(cause: &Cause, chain: &[Link]) -> Option<NextStep> {
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

/// Whether the object (a pod, or a workload's pod template) names the
/// Secret among its imagePullSecrets.
fn pulls_with(snap: &Judged<'_>, referrer: &ObjectRef, secret: &str) -> bool {
    let Some(obj) = referrer.uid.as_deref().and_then(|u| snap.get(u)) else {
        return false;
    };
    [
        "/spec/imagePullSecrets",
        "/spec/template/spec/imagePullSecrets",
    ]
    .iter()
    .filter_map(|p| obj.at(p).and_then(serde_json::Value::as_array))
    .flatten()
    .any(|s| s.get("name").and_then(serde_json::Value::as_str) == Some(secret))
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
        "Secret" if pulls_with(snap, referrer, &who.name) => step(
            format!(
                "{by} pulls its images with Secret \"{}\" (imagePullSecrets), which does not exist{place}: create it, or fix imagePullSecrets; until then the image cannot be pulled.",
                who.name
            ),
            vec![
                format!(
                    "{} create secret docker-registry {} --docker-server=REGISTRY --docker-username=USER --docker-password=PASSWORD",
                    kubectl(who),
                    who.name
                ),
                format!("{} describe {}", kubectl(referrer), arg(referrer)),
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

/// A Namespace that stays Terminating with nothing found holding it.
pub(super) fn namespace_step(who: &ObjectRef) -> NextStep {
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
