//! Steps for pods and their containers: images, crashes and memory,
//! exits, configuration, probes, evictions.

use serde_json::Value;

use super::{Cx, NextStep, arg, describe, kubectl, step};
use crate::model::Object;
use crate::verdict::reason::Pod;

pub(super) fn step_for(code: Pod, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    Some(match code {
        Pod::ImagePullBackOff
        | Pod::ErrImagePull
        | Pod::InvalidImageName
        | Pod::ErrImageNeverPull
        | Pod::RegistryUnavailable => step(
            format!(
                "The image cannot be pulled: check its name and tag, that it exists in the registry, and the pull secret.{}",
                cx.owned_note()
            ),
            vec![describe(who), cx.set_image()],
        ),
        Pod::CrashLoopBackOff
            if cx
                .who_obj
                .is_some_and(|p| oom_killed(p, cx.container.as_deref())) =>
        {
            out_of_memory(cx)
        }
        Pod::CrashLoopBackOff if killed_by_probe(cx).is_some() => {
            probe_step(cx, killed_by_probe(cx).unwrap_or("liveness"))
        }
        Pod::CrashLoopBackOff => step(
            "The container keeps exiting and is restarted with back-off: read the logs of the last run for the error.",
            vec![cx.logs(true), describe(who)],
        ),
        Pod::PodFailed | Pod::RunContainerError | Pod::CreateContainerError => exited(cx),
        Pod::CreateContainerConfigError => match missing_key(cx) {
            Some(step) => step,
            None => step(
                "The container's configuration refers to something missing (a Secret, ConfigMap or key): create it or fix the reference.",
                vec![describe(who)],
            ),
        },
        Pod::StartupProbeFailed => probe_step(cx, "startup"),
        Pod::InitContainerRunning | Pod::InitContainerStuck => step(
            format!(
                "The pod waits for its init container{} to exit, and it has not: read its logs for what it waits on (a database, a Service, a file), and fix that or the container's command.",
                cx.named()
            ),
            vec![cx.logs(false), describe(who)],
        ),
        Pod::ReadinessProbeFailed | Pod::NotReady => step(
            "The containers run but never pass their readiness probe: check the probe's path and port, and the application's health endpoint.",
            vec![describe(who), cx.logs(false)],
        ),
        Pod::Evicted => step(
            "The kubelet evicted the pod, usually for node resource pressure (see the message); its controller makes a replacement. Delete the failed pod when done.",
            vec![describe(who)],
        ),
        Pod::OOMKilled
        | Pod::ImageInspectError
        | Pod::SignatureValidationFailed
        | Pod::PreStartHookError
        | Pod::ContainerCreating
        | Pod::PodInitializing
        | Pod::Running
        | Pod::Completed
        | Pod::Succeeded
        | Pod::PodStatusUnknown
        | Pod::ReadinessGatesPending
        | Pod::ReadinessGateNotSet
        | Pod::Unhealthy => return None,
    })
}

/// A key the cause's container asks of a ConfigMap or Secret that lacks
/// it, as the object's managedFields name its keys: the near miss, the
/// command that lists its keys (names only), and the workload to fix.
fn missing_key(cx: &Cx) -> Option<NextStep> {
    let pod = cx.who_obj?;
    let found = crate::relations::missing_keys(cx.snap, pod);
    let m = found
        .iter()
        .find(|m| cx.container.as_deref().is_none_or(|c| c == m.container))?;
    let fix = match &m.close {
        Some(close) => format!(
            "it has {close}, a near miss: ask for {close} in the container's env (in {} {}), or add {} to the {}",
            cx.edited().kind,
            cx.edited().name,
            m.key,
            m.kind
        ),
        None => format!(
            "add the key to the {}, or ask for one it has in the container's env (in {} {})",
            m.kind,
            cx.edited().kind,
            cx.edited().name
        ),
    };
    let id = &cx.who;
    // Key names only: the template prints no value.
    let keys = format!(
        "{} get {} {} -o go-template='{{{{range $k, $v := .data}}}}{{{{println $k}}}}{{{{end}}}}'",
        kubectl(id),
        m.kind.to_ascii_lowercase(),
        m.name
    );
    let edited = cx.edited();
    Some(step(
        format!(
            "Container {} waits for key {} of {} {} (env {}), which it does not have: {fix}.",
            m.container, m.key, m.kind, m.name, m.env
        ),
        vec![keys, format!("{} edit {}", kubectl(&edited), arg(&edited))],
    ))
}

/// The probe the kubelet restarts the cause's container for, from its
/// `Killing` event (`Container app failed startup probe, will be
/// restarted`): `startup` or `liveness`.
fn killed_by_probe(cx: &Cx) -> Option<&'static str> {
    let pod = cx.who_obj?;
    let container = cx.container.as_deref();
    cx.snap
        .events_for(&pod.uid)
        .filter(|e| e.reason == "Killing")
        .filter(|e| container.is_none_or(|c| e.message.contains(&format!("Container {c} "))))
        .find_map(|e| {
            ["startup", "liveness"]
                .into_iter()
                .find(|p| e.message.contains(&format!("failed {p} probe")))
        })
}

/// A probe that does not pass: which, what it asks, and its budget
/// (`failureThreshold` × `periodSeconds`, after `initialDelaySeconds`).
fn probe_step(cx: &Cx, which: &str) -> NextStep {
    let field = format!("{which}Probe");
    let probe = cx.who_obj.and_then(|pod| {
        pod.at("/spec/containers")?
            .as_array()?
            .iter()
            .filter(|c| {
                cx.container
                    .as_deref()
                    .is_none_or(|n| c.get("name").and_then(Value::as_str) == Some(n))
            })
            .find_map(|c| c.get(&field))
    });
    let what = probe.map(probe_text).unwrap_or_default();
    let restarts = if which == "readiness" {
        "keeps it out of its Services"
    } else {
        "restarts it"
    };
    step(
        format!(
            "The container{} does not pass its {which} probe{what}, and the kubelet {restarts}: check the probe against the application (its path and port, how long it takes to start), or give it the time it needs.",
            cx.named()
        ),
        vec![describe(&cx.who), cx.logs(which != "readiness")],
    )
}

/// ` (GET /healthz on port 8080, 30 × 10s = 300s allowed)`.
fn probe_text(probe: &Value) -> String {
    let int = |k: &str, default: i64| probe.get(k).and_then(Value::as_i64).unwrap_or(default);
    let port = |p: &Value| match p {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => "?".into(),
    };
    let asks = if let Some(get) = probe.get("httpGet") {
        format!(
            "GET {} on port {}",
            get.get("path").and_then(Value::as_str).unwrap_or("/"),
            get.get("port").map(port).unwrap_or_default()
        )
    } else if let Some(tcp) = probe.get("tcpSocket") {
        format!(
            "a TCP connection to port {}",
            tcp.get("port").map(port).unwrap_or_default()
        )
    } else if let Some(cmd) = probe.pointer("/exec/command").and_then(Value::as_array) {
        let words: Vec<&str> = cmd.iter().filter_map(Value::as_str).collect();
        format!("`{}`", words.join(" "))
    } else if probe.get("grpc").is_some() {
        "a gRPC health check".into()
    } else {
        String::new()
    };
    let (threshold, period) = (int("failureThreshold", 3), int("periodSeconds", 10));
    let delay = match int("initialDelaySeconds", 0) {
        0 => String::new(),
        d => format!(" after {d}s"),
    };
    format!(
        " ({asks}, {threshold} × {period}s = {}s allowed{delay})",
        threshold * period
    )
}

/// A container that exited with an error (the pod's own failure, a
/// container that could not be created or run): its logs.
pub(super) fn exited(cx: &Cx) -> NextStep {
    step(
        "The container exited with an error: read its logs.",
        vec![cx.logs(false), describe(&cx.who)],
    )
}

/// A container killed for its memory: the limit it has, and twice that.
fn out_of_memory(cx: &Cx) -> NextStep {
    let t = &cx.edited();
    let named = cx.named();
    let current = cx
        .who_obj
        .and_then(|p| memory_limit(p, cx.container.as_deref()));
    let c = cx
        .container
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
    let change = if crate::catalog::is_builtin_group(t.group()) {
        format!(
            "{} set resources {}{c} --limits=memory={limit}",
            kubectl(t),
            arg(t)
        )
    } else {
        format!("{} edit {}", kubectl(t), arg(t))
    };
    step(
        format!("{text}{}", cx.owned_note()),
        vec![cx.logs(true), change],
    )
}

/// The container's lastState or state says OOMKilled (read from the field).
fn oom_killed(pod: &Object, container: Option<&str>) -> bool {
    pod.containers()
        .filter(|c| container.is_none_or(|n| c.name() == n))
        .any(|c| {
            ["/lastState/terminated/reason", "/state/terminated/reason"]
                .iter()
                .any(|p| c.text(p) == Pod::OOMKilled.as_str())
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
