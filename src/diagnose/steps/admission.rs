//! Steps for pods the API server refuses to create: a missing
//! ServiceAccount or class, a terminating namespace, a webhook, a policy,
//! a quota, a LimitRange, Pod Security.

use serde_json::Value;

use super::{Cx, NextStep, arg, kubectl, step};
use crate::model::{Object, ObjectRef};
use crate::relations::admission::{self, Admission};
use crate::verdict::Judged;
use crate::verdict::reason::Admission as Code;

pub(super) fn step_for(code: Code, cx: &Cx) -> Option<NextStep> {
    match code {
        Code::FailedCreate | Code::ReplicaFailure => Some(failed_create(cx.snap, &cx.who)),
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
            let (field, resource) = match kind {
                "PriorityClass" => ("priorityClassName", "priorityclasses"),
                _ => ("runtimeClassName", "runtimeclasses"),
            };
            step(
                format!(
                    "The pods ask for {kind} \"{name}\", which does not exist: create it, or fix spec.template.spec.{field} (the API server refuses every pod until then)."
                ),
                vec![format!("kubectl get {resource}"), describe],
            )
        }
        Admission::NamespaceTerminating { namespace } => step(
            format!(
                "Namespace {namespace} is being deleted, so nothing new may be created in it: wait for the deletion to finish and re-create the workload, or find what holds the namespace."
            ),
            vec![format!("kubectl reconcile why namespace/{namespace}")],
        ),
        Admission::Webhook { webhook, detail } => webhook_step(snap, &webhook, &detail, describe),
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

/// A webhook that rejects the pods or cannot be called: its configuration,
/// its failure policy and its Service's endpoints, as read.
fn webhook_step(snap: &Judged<'_>, webhook: &str, detail: &str, describe: String) -> NextStep {
    let objects = snap.objects();
    let mut text = format!(
        "The admission webhook \"{webhook}\" rejects the pods or cannot be called ({detail})"
    );
    let mut commands = Vec::new();
    if let Some((cfg, hook)) = admission::webhook_config(webhook, objects) {
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
    if let Some((ns, svc)) = admission::webhook_service(webhook, objects) {
        // An ExternalName Service has no endpoints by design: the webhook
        // is called at the name it points to.
        let external = snap
            .find("", "Service", Some(&ns), &svc)
            .filter(|s| s.str("/spec/type") == Some("ExternalName"))
            .and_then(|s| s.str("/spec/externalName"));
        match admission::has_endpoints(snap, &ns, &svc) {
            _ if external.is_some() => text.push_str(&format!(
                "; its Service {ns}/{svc} is an ExternalName for {}: the webhook is called there, and that name refuses or does not answer: check that the webhook runs at it",
                external.unwrap_or_default()
            )),
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
