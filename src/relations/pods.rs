//! What a pod names: its claims, ConfigMaps and Secrets (volumes and env),
//! its ServiceAccount and its node; and what a workload's pod template
//! needs before a pod can even be created (its ServiceAccount).

use serde_json::Value;

use super::{Edge, Named};
use crate::model::Object;

/// The references of a pod, optional ones left out.
pub fn pod_refs(pod: &Object) -> Vec<(Edge, Named)> {
    refs(pod, false)
}

/// The references of a pod, optional ones too: what it reads when there.
pub fn pod_refs_all(pod: &Object) -> Vec<(Edge, Named)> {
    refs(pod, true)
}

fn refs(pod: &Object, with_optional: bool) -> Vec<(Edge, Named)> {
    let ns = pod.namespace();
    let mut out = Vec::new();
    let Some(spec) = pod.at("/spec") else {
        return out;
    };
    out.extend(service_account(spec, ns));
    // The Secrets its images are pulled with: one that does not exist is
    // why an image cannot be pulled (the kubelet only warns
    // FailedToRetrieveImagePullSecret).
    for s in array(spec.get("imagePullSecrets")) {
        if let Some(name) = s
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        {
            let named = Named::new("v1", "Secret", ns, name);
            if !out.iter().any(|(_, n)| *n == named) {
                out.push((Edge::Uses, named));
            }
        }
    }
    if let Some(node) = spec.get("nodeName").and_then(Value::as_str) {
        out.push((Edge::RunsOn, Named::new("v1", "Node", None, node)));
    }
    let mut push = |edge: Edge, kind: &str, name: Option<&str>, optional: Option<&Value>| {
        if let Some(name) = name.filter(|n| !n.is_empty())
            && (with_optional || optional.and_then(Value::as_bool) != Some(true))
        {
            let named = Named::new("v1", kind, ns, name);
            if !out.iter().any(|(_, n)| *n == named) {
                out.push((edge, named));
            }
        }
    };
    for v in array(spec.get("volumes")) {
        let s = |p: &str| v.pointer(p).and_then(Value::as_str);
        push(
            Edge::Mounts,
            "PersistentVolumeClaim",
            s("/persistentVolumeClaim/claimName"),
            None,
        );
        // A generic ephemeral volume's claim is named after the pod and the
        // volume, and made by the ephemeral volume controller.
        if v.get("ephemeral").is_some()
            && let Some(volume) = s("/name")
        {
            let claim = format!("{}-{volume}", pod.name());
            push(Edge::Mounts, "PersistentVolumeClaim", Some(&claim), None);
        }
        // Every other volume source that takes a Secret of the pod's
        // namespace (csi, cephfs, rbd, iscsi, flexVolume, azureFile, ...):
        // `secretRef`, `nodePublishSecretRef` or `secretName`.
        for (kind, source) in v.as_object().into_iter().flatten() {
            if matches!(kind.as_str(), "name" | "secret" | "projected") {
                continue;
            }
            for p in [
                "/secretRef/name",
                "/nodePublishSecretRef/name",
                "/secretName",
            ] {
                let name = source.pointer(p).and_then(Value::as_str);
                push(Edge::Mounts, "Secret", name, None);
            }
        }
        push(
            Edge::Mounts,
            "ConfigMap",
            s("/configMap/name"),
            v.pointer("/configMap/optional"),
        );
        push(
            Edge::Mounts,
            "Secret",
            s("/secret/secretName"),
            v.pointer("/secret/optional"),
        );
        // The token volume the ServiceAccount admission plugin injects
        // (kube-root-ca.crt, published in every namespace) is not the pod's own.
        let injected = v
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| n.starts_with("kube-api-access-"));
        for src in array(v.pointer("/projected/sources")).filter(|_| !injected) {
            let s = |p: &str| src.pointer(p).and_then(Value::as_str);
            push(
                Edge::Mounts,
                "ConfigMap",
                s("/configMap/name"),
                src.pointer("/configMap/optional"),
            );
            push(
                Edge::Mounts,
                "Secret",
                s("/secret/name"),
                src.pointer("/secret/optional"),
            );
        }
    }
    for c in array(spec.get("initContainers"))
        .chain(array(spec.get("containers")))
        .chain(array(spec.get("ephemeralContainers")))
    {
        for e in array(c.get("envFrom")) {
            let s = |p: &str| e.pointer(p).and_then(Value::as_str);
            push(
                Edge::Uses,
                "ConfigMap",
                s("/configMapRef/name"),
                e.pointer("/configMapRef/optional"),
            );
            push(
                Edge::Uses,
                "Secret",
                s("/secretRef/name"),
                e.pointer("/secretRef/optional"),
            );
        }
        for e in array(c.get("env")) {
            let s = |p: &str| e.pointer(p).and_then(Value::as_str);
            push(
                Edge::Uses,
                "ConfigMap",
                s("/valueFrom/configMapKeyRef/name"),
                e.pointer("/valueFrom/configMapKeyRef/optional"),
            );
            push(
                Edge::Uses,
                "Secret",
                s("/valueFrom/secretKeyRef/name"),
                e.pointer("/valueFrom/secretKeyRef/optional"),
            );
        }
    }
    out
}

/// What a workload's pod template needs before the API server admits a pod.
pub fn template_refs(workload: &Object) -> Vec<(Edge, Named)> {
    workload
        .at("/spec/template/spec")
        .map(|spec| service_account(spec, workload.namespace()))
        .into_iter()
        .flatten()
        .collect()
}

/// A StatefulSet's governing Service (`spec.serviceName`), which gives its
/// pods their stable network names; the controller does not create it.
pub fn governing_service(sts: &Object) -> Option<(Edge, Named)> {
    if sts.kind() != "StatefulSet" {
        return None;
    }
    let name = sts.str("/spec/serviceName").filter(|n| !n.is_empty())?;
    Some((
        Edge::Uses,
        Named::new("v1", "Service", sts.namespace(), name),
    ))
}

/// The claims a StatefulSet's volumeClaimTemplates make, one per ordinal
/// (`<template>-<statefulset>-<ordinal>`), for the first ordinals.
pub fn claim_templates(sts: &Object) -> Vec<(Edge, Named)> {
    const MAX_ORDINALS: i64 = 16;
    if sts.kind() != "StatefulSet" {
        return Vec::new();
    }
    let replicas = sts
        .int("/spec/replicas")
        .unwrap_or(1)
        .clamp(0, MAX_ORDINALS);
    let start = sts.int("/spec/ordinals/start").unwrap_or(0);
    let mut out = Vec::new();
    for t in array(sts.at("/spec/volumeClaimTemplates")) {
        let Some(name) = t.pointer("/metadata/name").and_then(Value::as_str) else {
            continue;
        };
        for i in start..start + replicas {
            out.push((
                Edge::Mounts,
                Named::new(
                    "v1",
                    "PersistentVolumeClaim",
                    sts.namespace(),
                    &format!("{name}-{}-{i}", sts.name()),
                ),
            ));
        }
    }
    out
}

/// Whether `claim` is a StatefulSet's claim for an ordinal its controller
/// has not made yet: under OrderedReady (the default) ordinal N's claim is
/// made with its pod, after N-1 is ready, so its absence is not a fault.
/// Under Parallel every ordinal is made at once.
pub fn claim_not_made_yet(sts: &Object, claim: &Named) -> bool {
    if sts.kind() != "StatefulSet"
        || claim.kind != "PersistentVolumeClaim"
        || sts.str("/spec/podManagementPolicy") == Some("Parallel")
    {
        return false;
    }
    let Some(ordinal) = claim
        .name
        .rsplit_once('-')
        .and_then(|(_, n)| n.parse::<i64>().ok())
    else {
        return false;
    };
    let start = sts.int("/spec/ordinals/start").unwrap_or(0);
    // The ordinals made so far: as many as its pods, and always the first
    // once the controller has acted.
    let made = sts.int("/status/replicas").unwrap_or(0).max(1);
    ordinal >= start + made
}

fn service_account(spec: &Value, ns: Option<&str>) -> Option<(Edge, Named)> {
    let name = spec
        .get("serviceAccountName")
        .or_else(|| spec.get("serviceAccount"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .unwrap_or("default");
    Some((Edge::Uses, Named::new("v1", "ServiceAccount", ns, name)))
}

fn array(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    v.and_then(Value::as_array).into_iter().flatten()
}
