//! Status shapes that many operators share beyond conditions and one status
//! word: conditions nested per parent or per ingress point, replica counts
//! short of the spec, error fields, runs that end, and pause flags below
//! `spec`. Each reader is a small pure function over one object; the
//! conventions (`conventions.rs`) decide their order.

use serde_json::Value;

use crate::model::{Condition, Object, parse_conditions};

use super::words::list;

/// A list of conditions that belongs to one part of the object: a Gateway
/// API parent (`status.parents[]`), a policy's ancestor
/// (`status.ancestors[]`), a Gateway's listener (`status.listeners[]`), a
/// route's ingress point (`status.ingress[]`), or an entry of a map keyed
/// by namespace, cluster or member (`status.conditionsByNamespace.<ns>`,
/// `status.clusters.<name>.conditions`).
pub struct Part {
    /// `parent Gateway infra/main`, `listener https`, `ingress shop.example.com`.
    pub label: String,
    pub conditions: Vec<Condition>,
}

/// The lists of conditions nested under `status`, one [`Part`] each.
pub fn parts(obj: &Object) -> Vec<Part> {
    let mut out = Vec::new();
    for (field, reference, noun) in [
        ("parents", "parentRef", "parent"),
        ("ancestors", "ancestorRef", "ancestor"),
        ("listeners", "", "listener"),
        ("ingress", "", "ingress"),
    ] {
        let Some(items) = obj
            .at(&format!("/status/{field}"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let conditions = parse_conditions(item.get("conditions"));
            if conditions.is_empty() {
                continue;
            }
            let label = match item.get(reference) {
                Some(r) if !reference.is_empty() => format!("{noun} {}", reference_text(r)),
                _ => {
                    let name = ["name", "host", "routerName"]
                        .iter()
                        .find_map(|k| item.get(*k).and_then(Value::as_str));
                    match name {
                        Some(n) => format!("{noun} {n}"),
                        None => format!("{noun} {i}"),
                    }
                }
            };
            out.push(Part { label, conditions });
        }
    }
    out.extend(keyed_parts(obj));
    out
}

/// How many entries of the maps under `status` are looked at for
/// conditions of their own, at most: a map of thousands of members is read
/// in part.
const KEYED_ENTRIES_VISITED: usize = 256;

/// The entries of maps under `status` that are a list of conditions
/// (`conditionsByNamespace: {shop: [...]}`) or carry one (`clusters:
/// {east: {conditions: [...]}}`): one part each, labelled by the map and
/// its key.
fn keyed_parts(obj: &Object) -> Vec<Part> {
    let Some(status) = obj.status().and_then(Value::as_object) else {
        return Vec::new();
    };
    // Cluster API keeps its old conditions under `status.deprecated.v1beta1`
    // beside the current ones: a record, not a part.
    let maps = status
        .iter()
        .filter(|(field, _)| *field != "deprecated")
        .filter_map(|(field, v)| Some((field, v.as_object()?)));
    maps.flat_map(|(field, map)| map.iter().map(move |(key, entry)| (field, key, entry)))
        .take(KEYED_ENTRIES_VISITED)
        // `conditionedStatus.conditions` is the object's own conditions,
        // nested (see `Object::conditions`), not a keyed entry.
        .filter(|(_, key, _)| *key != "conditions")
        .filter_map(|(field, key, entry)| {
            let list = match entry {
                Value::Array(_) => Some(entry),
                Value::Object(o) => o.get("conditions"),
                _ => None,
            };
            let conditions = parse_conditions(list);
            (!conditions.is_empty()).then(|| Part {
                label: format!("{field} {key}"),
                conditions,
            })
        })
        .collect()
}

/// `Gateway infra/main` (with `:section` where the ref names one).
fn reference_text(r: &Value) -> String {
    let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default();
    let kind = match text("kind") {
        "" => "Gateway",
        k => k,
    };
    let name = match text("namespace") {
        "" => text("name").to_string(),
        ns => format!("{ns}/{}", text("name")),
    };
    match text("sectionName") {
        "" => format!("{kind} {name}"),
        s => format!("{kind} {name}:{s}"),
    }
}

/// A route that names parents in its spec and has no parent status yet: no
/// controller has accepted or refused it.
pub fn parents_unanswered(obj: &Object) -> bool {
    let named = obj
        .at("/spec/parentRefs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let answered = obj
        .at("/status/parents")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    named && !answered
}

/// A count short of what is wanted: `2/3 ready replicas`.
pub struct Shortfall {
    pub message: String,
}

/// Replica-shaped statuses: `spec.replicas` against `status.readyReplicas`,
/// `availableReplicas`, `updatedReplicas`, `updatedReadyReplicas` (and the
/// same names under `status.replicas` where an operator nests them);
/// DaemonSet-shaped counts (`desiredNumberScheduled` against `numberReady`,
/// `numberAvailable`, `updatedNumberScheduled`); `members`/`readyMembers`
/// and `size`/`ready`. The first short count is the shortfall.
pub fn shortfall(obj: &Object) -> Option<Shortfall> {
    let mut short: Vec<String> = counts(obj)
        .iter()
        .filter(|c| c.have < c.want)
        .map(Count::text)
        .chain(member_maps(obj))
        .collect();
    short.dedup();
    (!short.is_empty()).then(|| Shortfall {
        message: list(&short),
    })
}

/// Every count the status reports, each at its desired number, and at
/// least one that expects something: evidence the work is done
/// (`3/3 ready`). None when a count is short, or none is reported.
pub fn counts_complete(obj: &Object) -> Option<String> {
    if shortfall(obj).is_some() {
        return None;
    }
    // Only counts of members that work say the work is done: all of them
    // `updated` says nothing of whether they run.
    let mut done: Vec<String> = counts(obj)
        .iter()
        .filter(|c| c.want > 0 && c.says_well())
        .map(Count::text)
        .collect();
    done.dedup();
    (!done.is_empty()).then(|| list(&done))
}

/// One count a status reports against what it should be.
struct Count {
    have: i64,
    want: i64,
    noun: String,
}

impl Count {
    /// A count of members that are ready, available, healthy or current.
    fn says_well(&self) -> bool {
        ["ready", "available", "healthy", "current"]
            .iter()
            .any(|w| self.noun.contains(w))
    }

    fn text(&self) -> String {
        format!("{}/{} {}", self.have, self.want, self.noun)
    }
}

/// The counts of a replica-, DaemonSet-, member- or node-shaped status.
fn counts(obj: &Object) -> Vec<Count> {
    let int = |p: &str| obj.at(p).and_then(count);
    let mut out: Vec<Count> = Vec::new();
    let mut pairs = |want: i64, unit: &str, fields: &[(&str, &str)]| {
        for (field, noun) in fields {
            if let Some(have) = int(&format!("/status/{field}")) {
                out.push(Count {
                    have,
                    want,
                    noun: format!("{unit} {noun}"),
                });
            }
        }
    };
    if let Some(want) = int("/spec/replicas") {
        pairs(
            want,
            "replicas",
            &[
                ("readyReplicas", "ready"),
                ("availableReplicas", "available"),
                ("updatedReplicas", "updated"),
                ("updatedReadyReplicas", "updated and ready"),
            ],
        );
    }
    if let Some(want) = int("/status/desiredNumberScheduled") {
        pairs(
            want,
            "pods",
            &[
                ("numberReady", "ready"),
                ("numberAvailable", "available"),
                ("updatedNumberScheduled", "updated"),
            ],
        );
    }
    // Only a ready count reported as absent while others are present is
    // short: a controller that reports `replicas` but not `readyReplicas`
    // has none ready (as apps/v1 omits zeros).
    if let Some(want) = int("/spec/replicas")
        && want > 0
        && int("/status/replicas").is_some()
        && int("/status/readyReplicas").is_none()
        && int("/status/availableReplicas").is_none()
        && obj.at("/status/updatedReplicas").is_some()
        && !out.iter().any(|c| c.have < c.want)
    {
        out.push(Count {
            have: 0,
            want,
            noun: "replicas ready".into(),
        });
    }
    for (total, ready, noun) in [
        ("/status/members", "/status/readyMembers", "members ready"),
        ("/spec/members", "/status/readyMembers", "members ready"),
        ("/spec/size", "/status/ready", "ready"),
        ("/status/size", "/status/ready", "ready"),
        // Counts under other names: Cluster API's health checks, node
        // pools, desired/current/ready triples.
        (
            "/status/expectedMachines",
            "/status/currentHealthy",
            "machines healthy",
        ),
        ("/status/expectedNodes", "/status/readyNodes", "nodes ready"),
        (
            "/status/expectedNodes",
            "/status/availableNodes",
            "nodes available",
        ),
        ("/status/desiredNodes", "/status/readyNodes", "nodes ready"),
        ("/status/desired", "/status/ready", "ready"),
        ("/status/desired", "/status/current", "current"),
        ("/status/desired", "/status/available", "available"),
        (
            "/status/desiredReplicas",
            "/status/readyReplicas",
            "replicas ready",
        ),
    ] {
        if let (Some(want), Some(have)) = (int(total), int(ready)) {
            out.push(Count {
                have,
                want,
                noun: noun.into(),
            });
        }
    }
    out.extend(written_counts(obj));
    out
}

/// Counts an operator writes as text, as `kubectl get` would show them
/// (the OpenTelemetry operator's `scale.statusReplicas: "2/3"`, a `ready:
/// "1/1"`): a field named for readiness or replicas, in `status` or one
/// map below it, whose value is `HAVE/WANT`.
fn written_counts(obj: &Object) -> Vec<Count> {
    let names_a_count = |key: &str| {
        let key = key.to_ascii_lowercase();
        key.contains("ready") || key.contains("replicas") || key.contains("available")
    };
    status_entries(obj)
        .filter_map(|(path, v)| {
            let key = path.rsplit('.').next().unwrap_or(&path);
            let (have, want) = v.as_str()?.split_once('/')?;
            let (have, want) = (have.trim().parse().ok()?, want.trim().parse().ok()?);
            names_a_count(key).then(|| Count {
                have,
                want,
                noun: format!("ready (status.{path})"),
            })
        })
        .collect()
}

/// Per-member counts in a map keyed by member (`racks.<zone>.{members,
/// readyMembers}`, `pools.<name>.{size, ready}`), in `status` or one map
/// below it (`nodes.{total, ready}`), the total also named `total` or
/// `desired`: each short entry, named.
fn member_maps(obj: &Object) -> Vec<String> {
    let short = |path: &str, entry: &Value| -> Option<String> {
        let entry = entry.as_object()?;
        let get = |k: &str| entry.get(k).and_then(count);
        [
            ("members", "readyMembers", "members ready"),
            ("size", "ready", "ready"),
            ("total", "ready", "ready"),
            ("desired", "ready", "ready"),
            ("total", "available", "available"),
            ("desired", "available", "available"),
        ]
        .iter()
        .find_map(|(total, ready, noun)| {
            let (want, have) = (get(total)?, get(ready)?);
            (have < want).then(|| format!("{path}: {have}/{want} {noun}"))
        })
    };
    status_entries(obj)
        .filter_map(|(path, v)| short(&path, v))
        .collect()
}

/// The fields of `status` and of each map in it (`racks`, `racks.eu-1a`),
/// each with its path below `status`: where per-member maps and lists
/// are. At most 64 fields of each map.
fn status_entries(obj: &Object) -> impl Iterator<Item = (String, &Value)> {
    const ENTRIES: usize = 64;
    obj.at("/status")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|status| status.iter().take(ENTRIES))
        .flat_map(|(k, v)| {
            let below = v
                .as_object()
                .into_iter()
                .flat_map(|m| m.iter().take(ENTRIES))
                .map(move |(k2, v2)| (format!("{k}.{k2}"), v2));
            std::iter::once((k.clone(), v)).chain(below)
        })
}

/// A count: a number, or the length of a list of members.
fn count(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_array().map(|a| a.len() as i64))
}

/// `status.error` (an object or string, as a VolumeSnapshot's) or a
/// non-empty `status.errors` list: what the error says.
pub fn error(obj: &Object) -> Option<String> {
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Object(m) if !m.is_empty() => Some(
                ["message", "reason", "error"]
                    .iter()
                    .find_map(|k| m.get(*k).and_then(Value::as_str))
                    .unwrap_or("an error is reported")
                    .to_string(),
            ),
            _ => None,
        }
    };
    if let Some(e) = obj.at("/status/error").and_then(text) {
        return Some(format!("status.error: {e}"));
    }
    if let Some(e) = error_message(obj) {
        return Some(e);
    }
    // A list of errors, or an operation's (`lastOperation.state:
    // Succeeded` with `lastErrors`: it did not succeed).
    let (field, errors) = [
        ("status.errors", "/status/errors"),
        ("status.lastErrors", "/status/lastErrors"),
        (
            "status.lastOperation.errors",
            "/status/lastOperation/errors",
        ),
    ]
    .into_iter()
    .find_map(|(field, p)| Some((field, obj.at(p)?.as_array().filter(|a| !a.is_empty())?)))?;
    let first = errors.iter().find_map(text)?;
    Some(format!(
        "{field} has {} {}: {first}",
        errors.len(),
        if errors.len() == 1 {
            "entry"
        } else {
            "entries"
        }
    ))
}

/// A list of messages under `status` (Istio's `validationMessages`, any
/// `…messages`) one of whose entries is of level or severity `ERROR`: the
/// configuration was refused, in its words (the message, else its code).
fn error_message(obj: &Object) -> Option<String> {
    let status = obj.status()?.as_object()?;
    status
        .iter()
        .filter(|(k, _)| k.to_ascii_lowercase().ends_with("messages"))
        .find_map(|(field, v)| {
            let entries = v.as_array()?;
            let errors: Vec<&Value> = entries
                .iter()
                .take(64)
                .filter(|m| {
                    ["level", "severity"].iter().any(|k| {
                        m.get(*k)
                            .and_then(Value::as_str)
                            .is_some_and(|l| l.eq_ignore_ascii_case("error"))
                    })
                })
                .collect();
            let first = errors.first()?;
            let said = ["message", "description"]
                .iter()
                .find_map(|k| first.get(*k).and_then(Value::as_str))
                .or_else(|| {
                    first
                        .pointer("/type/code")
                        .or_else(|| first.get("code"))
                        .and_then(Value::as_str)
                })
                .unwrap_or("an error");
            Some(format!(
                "status.{field} has {} of level ERROR: {said}",
                errors.len()
            ))
        })
}

/// Members a status lists as failed, by name: a list under a key whose
/// last word is `failed` or `unhealthy` (`instancesStatus.failed`,
/// `failedMembers`, `unhealthyNodes`), in `status` or one map below it.
/// Counts (`failed: 2`, a Job's) are not lists and do not count. The field
/// as written, and the names (an entry's `name` or `id` when it is an
/// object).
pub fn failed_members(obj: &Object) -> Option<(String, Vec<String>)> {
    let named = |key: &str| {
        let words = crate::verdict::vocabulary::camel_words(key);
        words
            .last()
            .is_some_and(|w| w == "failed" || w == "unhealthy")
            || words
                .first()
                .is_some_and(|w| w == "failed" || w == "unhealthy")
    };
    let names = |v: &Value| -> Option<Vec<String>> {
        let list = v.as_array().filter(|a| !a.is_empty())?;
        let names: Vec<String> = list
            .iter()
            .filter_map(|m| match m {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Object(o) => ["name", "id", "instance", "pod"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))
                    .map(str::to_string),
                _ => None,
            })
            .collect();
        (!names.is_empty()).then_some(names)
    };
    status_entries(obj).find_map(|(path, v)| {
        let key = path.rsplit('.').next().unwrap_or(&path);
        named(key)
            .then(|| names(v))
            .flatten()
            .map(|n| (format!("status.{path}"), n))
    })
}

/// Whether a member's boolean says it is not healthy (`healthy`,
/// `…Healthy`), or not ready yet (`ready`, `available`, `synced`,
/// `…Ready`), when false.
fn member_flag(key: &str) -> Option<MemberFlag> {
    match key {
        "healthy" => Some(MemberFlag::Unhealthy),
        "ready" | "available" | "synced" => Some(MemberFlag::NotReady),
        k if k.ends_with("Healthy") => Some(MemberFlag::Unhealthy),
        k if k.ends_with("Ready") || k.ends_with("Available") => Some(MemberFlag::NotReady),
        _ => None,
    }
}

/// What a member's false boolean says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberFlag {
    Unhealthy,
    NotReady,
}

/// Members of a map under `status` that say by a boolean they are not
/// well (`componentStatuses.worker.healthy: false`, `nodes.n-1.ready:
/// false`): the map, the flag as written, what it says, and the members
/// by key, those of the first such map and flag. At most 64 members of
/// each map are looked at.
pub fn unwell_members(obj: &Object) -> Option<(String, String, MemberFlag, Vec<String>)> {
    let mut found: Option<(String, String, MemberFlag, Vec<String>)> = None;
    for (path, v) in status_entries(obj) {
        let (Some((map, member)), Some(entry)) = (path.split_once('.'), v.as_object()) else {
            continue;
        };
        let Some((flag, says)) = entry.iter().find_map(|(k, b)| {
            (b.as_bool() == Some(false))
                .then(|| member_flag(k))
                .flatten()
                .map(|says| (k, says))
        }) else {
            continue;
        };
        match &mut found {
            Some((m, f, _, members)) if m == map && f == flag => members.push(member.to_string()),
            Some(_) => {}
            None => {
                found = Some((
                    map.to_string(),
                    flag.clone(),
                    says,
                    vec![member.to_string()],
                ))
            }
        }
    }
    found
}

/// Kinds that run to completion, by name: `…Run`, `…Job`, backups,
/// restores, snapshots, workflows, experiments, analyses, migrations.
const RUN_KIND_SUFFIXES: &[&str] = &[
    "Run",
    "Job",
    "Backup",
    "Restore",
    "Snapshot",
    "Workflow",
    "Experiment",
    "Analysis",
    "Migration",
    "Build",
    "Test",
];

/// Whether the object is a run: something that runs to completion, from
/// its kind's name, a `Succeeded` or `Complete` condition, or a
/// `completionTime` in its status. A run's `Running` is work under way, not
/// a steady state, and a failed run is final. A schedule of runs
/// (`CronWorkflow`, `ScheduledBackup`, `BackupSchedule`) is no run: its
/// `Active` is its steady state. A `startTime` alone says nothing: a Pod
/// has one, and runs for ever.
pub fn is_run(obj: &Object, conds: &[Condition]) -> bool {
    let kind = obj.kind();
    let schedule =
        kind.starts_with("Cron") || kind.starts_with("Scheduled") || kind.ends_with("Schedule");
    !schedule
        && (RUN_KIND_SUFFIXES.iter().any(|s| kind.ends_with(s))
            || conds
                .iter()
                .any(|c| matches!(c.type_.as_str(), "Succeeded" | "Complete"))
            || obj.at("/status/completionTime").is_some())
}

/// A pause flag below `spec`: `spec.updateStrategy.paused`,
/// `spec.strategy.<any>.paused`, hibernation (`spec.hibernation.enabled`,
/// `spec.hibernate`), `spec.disabled`, or a non-empty
/// `status.pauseConditions`, or an annotation that pauses reconciling
/// (Crossplane, Cluster API, KEDA, Strimzi). Returns the field that says so.
pub fn pause_flag(obj: &Object) -> Option<String> {
    let yes = |p: &str| obj.bool(p) == Some(true);
    for p in [
        "/spec/updateStrategy/paused",
        "/spec/hibernation/enabled",
        "/spec/hibernate",
        "/spec/hibernated",
        "/spec/disabled",
    ] {
        if yes(p) {
            return Some(p[1..].replace('/', "."));
        }
    }
    if let Some(strategy) = obj.at("/spec/strategy").and_then(Value::as_object) {
        for (name, v) in strategy {
            if v.get("paused").and_then(Value::as_bool) == Some(true) {
                return Some(format!("spec.strategy.{name}.paused"));
            }
        }
    }
    if let Some(key) = pause_annotation(obj) {
        return Some(format!("annotation {key}"));
    }
    if let Some(field) = stop_field(obj) {
        return Some(field);
    }
    let pauses = obj
        .at("/status/pauseConditions")
        .and_then(Value::as_array)?;
    let first = pauses.first()?;
    let reason = first
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("paused");
    Some(format!("status.pauseConditions ({reason})"))
}

/// The words that say a deliberate stop, as the last word of a field's or
/// an annotation's name: `spec.suspend`, `spec.runPolicy.suspend`,
/// `spec.stop`, `spec.shutdown`, `…/paused-replicas`' `paused`.
const STOP_WORDS: &[&str] = &[
    "stop",
    "stopped",
    "suspend",
    "suspended",
    "pause",
    "paused",
    "shutdown",
    "hibernate",
    "hibernated",
];

/// A value that says yes: `true`, or the text `true`, `yes` or `on`.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => ["true", "yes", "on"]
            .iter()
            .any(|w| s.trim().eq_ignore_ascii_case(w)),
        _ => false,
    }
}

/// Whether a name ends in a stop word (`suspend`, `runPolicy`'s
/// `suspend`, `resource-stopped`), not one where the stop is conditional
/// or a setting of it (`suspendOnFailure`, `stopSignal`,
/// `shutdownGracePeriod`: the stop word is not last).
fn names_a_stop(name: &str) -> bool {
    crate::verdict::camel_words(name)
        .last()
        .is_some_and(|w| STOP_WORDS.contains(&w.as_str()))
}

/// A stop flag anywhere shallow under `spec` (the spec itself, or one map
/// below it, at most 64 keys each): a field whose name ends in a stop word
/// with a value that says yes (`spec.stop: "yes"`,
/// `spec.runPolicy.suspend: true`, `spec.shutdown: true`). Its path.
pub fn stop_field(obj: &Object) -> Option<String> {
    let spec = obj.at("/spec")?.as_object()?;
    for (name, v) in spec.iter().take(64) {
        if names_a_stop(name) && truthy(v) {
            return Some(format!("spec.{name}"));
        }
    }
    for (parent, v) in spec.iter().take(64) {
        let Some(map) = v.as_object() else { continue };
        for (name, v) in map.iter().take(64) {
            if names_a_stop(name) && truthy(v) {
                return Some(format!("spec.{parent}.{name}"));
            }
        }
    }
    None
}

/// The names operators give the annotation that pauses reconciling one
/// object, after its prefix: Crossplane's `crossplane.io/paused`, Cluster
/// API's `cluster.x-k8s.io/paused`, KEDA's `autoscaling.keda.sh/paused`,
/// Strimzi's `strimzi.io/pause-reconciliation`.
const PAUSE_ANNOTATIONS: &[&str] = &[
    "paused",
    "pause",
    "pause-reconciliation",
    "reconcile-paused",
];

/// Words after a stop word that make a name a record of the stop, not the
/// stop itself.
const RECORD_WORDS: &[&str] = &[
    "at",
    "time",
    "timestamp",
    "since",
    "until",
    "by",
    "reason",
    "message",
    "on",
    "after",
];

/// An annotation that pauses reconciling, set to anything but no: one of
/// [`PAUSE_ANNOTATIONS`] after its prefix, or a name whose words say a
/// stop (KEDA's `autoscaling.keda.sh/paused-replicas`, an operator's
/// `…/resource-stopped`), with a stop word among its words.
fn pause_annotation(obj: &Object) -> Option<&str> {
    let annotations = obj.at("/metadata/annotations").and_then(Value::as_object)?;
    annotations.iter().find_map(|(key, v)| {
        let name = key.rsplit_once('/').map_or(key.as_str(), |(_, n)| n);
        let value = v.as_str().unwrap_or_default().trim();
        let no = ["false", "no", "off"]
            .iter()
            .any(|w| value.eq_ignore_ascii_case(w));
        // The stop word, not followed by one that makes the name a record
        // of it (`pausedAt`, `stoppedBy`, `suspendedReason`).
        let words = crate::verdict::camel_words(name);
        let stop = PAUSE_ANNOTATIONS.contains(&name)
            || words.iter().enumerate().any(|(i, w)| {
                matches!(
                    w.as_str(),
                    "paused" | "stopped" | "suspended" | "hibernated"
                ) && words
                    .get(i + 1)
                    .is_none_or(|next| !RECORD_WORDS.contains(&next.as_str()))
            });
        (stop && !no).then_some(key.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_that_only_say_updated_are_no_evidence_of_health() {
        let o = |status: serde_json::Value| {
            Object::from_value(
                serde_json::json!({"apiVersion": "example.io/v1", "kind": "Gadget",
                "metadata": {"name": "g", "namespace": "a", "uid": "g"},
                "spec": {"replicas": 3}, "status": status}),
            )
            .unwrap()
        };
        assert_eq!(
            counts_complete(&o(serde_json::json!({"updatedReplicas": 3}))),
            None
        );
        assert_eq!(
            counts_complete(&o(
                serde_json::json!({"updatedReplicas": 3, "readyReplicas": 3})
            ))
            .as_deref(),
            Some("3/3 replicas ready")
        );
    }
    use serde_json::json;

    fn obj(v: Value) -> Object {
        Object::from_value(v).unwrap()
    }

    #[test]
    fn nested_conditions_are_read_per_parent_ancestor_listener_and_ingress() {
        let route = obj(
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "r", "namespace": "shop"},
            "spec": {"parentRefs": [{"name": "main", "namespace": "infra"}]},
            "status": {"parents": [{"parentRef": {"name": "main", "namespace": "infra", "sectionName": "https"},
                "controllerName": "example.com/gw",
                "conditions": [{"type": "Accepted", "status": "False", "reason": "NotAllowedByListeners"}]}]}}),
        );
        let parts = parts(&route);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].label, "parent Gateway infra/main:https");
        assert_eq!(parts[0].conditions[0].reason, "NotAllowedByListeners");
        assert!(!parents_unanswered(&route));

        let route = obj(
            json!({"apiVersion": "route.openshift.io/v1", "kind": "Route",
            "metadata": {"name": "r"},
            "status": {"ingress": [{"host": "shop.example.com", "conditions": [{"type": "Admitted", "status": "True"}]}]}}),
        );
        assert_eq!(parts_labels(&route), ["ingress shop.example.com"]);

        let policy = obj(
            json!({"apiVersion": "gateway.envoyproxy.io/v1alpha1", "kind": "BackendTrafficPolicy",
            "metadata": {"name": "p"},
            "status": {"ancestors": [{"ancestorRef": {"kind": "Gateway", "name": "eg"}, "conditions": [{"type": "Accepted", "status": "True"}]}]}}),
        );
        assert_eq!(parts_labels(&policy), ["ancestor Gateway eg"]);

        let gateway = obj(
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
            "metadata": {"name": "g"},
            "status": {"listeners": [{"name": "https", "conditions": [{"type": "ResolvedRefs", "status": "False", "reason": "InvalidCertificateRef"}]}]}}),
        );
        assert_eq!(parts_labels(&gateway), ["listener https"]);

        let fresh = obj(
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "r"}, "spec": {"parentRefs": [{"name": "main"}]}, "status": {"parents": []}}),
        );
        assert!(parents_unanswered(&fresh));
    }

    fn parts_labels(o: &Object) -> Vec<String> {
        parts(o).into_iter().map(|p| p.label).collect()
    }

    #[test]
    fn replica_shaped_counts_short_of_the_spec() {
        let cases = [
            (
                json!({"spec": {"replicas": 3}, "status": {"replicas": 3, "readyReplicas": 2, "availableReplicas": 2}}),
                Some("2/3 replicas ready and 2/3 replicas available"),
            ),
            (
                json!({"spec": {"replicas": 3}, "status": {"readyReplicas": 3, "updatedReplicas": 1}}),
                Some("1/3 replicas updated"),
            ),
            (
                json!({"spec": {"replicas": 2}, "status": {"replicas": 2, "updatedReplicas": 2}}),
                Some("0/2 replicas ready"),
            ),
            (
                json!({"status": {"desiredNumberScheduled": 4, "numberReady": 3, "updatedNumberScheduled": 4}}),
                Some("3/4 pods ready"),
            ),
            (
                json!({"status": {"members": ["a", "b", "c"], "readyMembers": ["a"]}}),
                Some("1/3 members ready"),
            ),
            (
                json!({"spec": {"size": 3}, "status": {"ready": 2}}),
                Some("2/3 ready"),
            ),
            (
                json!({"spec": {"replicas": 3}, "status": {"readyReplicas": 3, "availableReplicas": 3}}),
                None,
            ),
            (
                json!({"spec": {"size": 3}, "status": {"ready": true}}),
                None,
            ),
        ];
        for (body, want) in cases {
            let mut v =
                json!({"apiVersion": "example.com/v1", "kind": "Db", "metadata": {"name": "d"}});
            v.as_object_mut()
                .unwrap()
                .extend(body.as_object().unwrap().clone());
            let got = shortfall(&obj(v)).map(|s| s.message);
            assert_eq!(got.as_deref(), want, "{body}");
        }
    }

    #[test]
    fn error_fields_say_what_went_wrong() {
        let snap = obj(
            json!({"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
            "metadata": {"name": "s"},
            "status": {"readyToUse": false, "error": {"message": "failed to take snapshot: quota", "time": "2026-01-01T00:00:00Z"}}}),
        );
        assert_eq!(
            error(&snap).as_deref(),
            Some("status.error: failed to take snapshot: quota")
        );
        let errs = obj(
            json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "k"},
            "status": {"errors": ["bad field spec.x", "bad field spec.y"]}}),
        );
        assert_eq!(
            error(&errs).as_deref(),
            Some("status.errors has 2 entries: bad field spec.x")
        );
        let none = obj(
            json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "k"},
            "status": {"errors": [], "error": ""}}),
        );
        assert_eq!(error(&none), None);
    }

    #[test]
    fn runs_are_known_by_kind_conditions_or_times() {
        let run = |v: Value| {
            let o = obj(v);
            is_run(&o, &o.conditions())
        };
        assert!(run(
            json!({"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "metadata": {"name": "p"}})
        ));
        assert!(run(
            json!({"apiVersion": "velero.io/v1", "kind": "Backup", "metadata": {"name": "b"}})
        ));
        assert!(run(
            json!({"apiVersion": "x/v1", "kind": "Sync", "metadata": {"name": "s"}, "status": {"completionTime": "2026-01-01T00:00:00Z"}})
        ));
        assert!(!run(
            json!({"apiVersion": "x/v1", "kind": "Database", "metadata": {"name": "d"}, "status": {"phase": "Running"}})
        ));
        // A start time alone is no run: long-lived things have one too.
        assert!(!run(
            json!({"apiVersion": "x/v1", "kind": "Gateway", "metadata": {"name": "g"}, "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}})
        ));
        // Schedules of runs are not runs.
        for kind in ["CronWorkflow", "ScheduledBackup", "BackupSchedule"] {
            assert!(
                !run(
                    json!({"apiVersion": "x/v1", "kind": kind, "metadata": {"name": "s"}, "status": {"phase": "Active"}})
                ),
                "{kind}"
            );
        }
    }

    #[test]
    fn pause_flags_below_spec() {
        let flag = |v: Value| {
            let mut o = json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "k"}});
            o.as_object_mut()
                .unwrap()
                .extend(v.as_object().unwrap().clone());
            pause_flag(&obj(o))
        };
        assert_eq!(
            flag(json!({"spec": {"updateStrategy": {"paused": true}}})).as_deref(),
            Some("spec.updateStrategy.paused")
        );
        assert_eq!(
            flag(json!({"spec": {"strategy": {"canary": {"paused": true}}}})).as_deref(),
            Some("spec.strategy.canary.paused")
        );
        assert_eq!(
            flag(json!({"spec": {"hibernation": {"enabled": true}}})).as_deref(),
            Some("spec.hibernation.enabled")
        );
        assert_eq!(
            flag(json!({"spec": {"disabled": true}})).as_deref(),
            Some("spec.disabled")
        );
        assert_eq!(
            flag(json!({"status": {"pauseConditions": [{"reason": "CanaryPauseStep"}]}}))
                .as_deref(),
            Some("status.pauseConditions (CanaryPauseStep)")
        );
        assert_eq!(
            flag(json!({"spec": {"disabled": false}, "status": {"pauseConditions": []}})),
            None
        );
        for key in [
            "crossplane.io/paused",
            "cluster.x-k8s.io/paused",
            "autoscaling.keda.sh/paused",
            "strimzi.io/pause-reconciliation",
        ] {
            assert_eq!(
                flag(json!({"metadata": {"name": "k", "annotations": {key: "true"}}})),
                Some(format!("annotation {key}")),
                "{key}"
            );
        }
        assert_eq!(
            flag(
                json!({"metadata": {"name": "k", "annotations": {"crossplane.io/paused": "false", "example.com/pausedAt": "x"}}})
            ),
            None
        );
        // A name whose words say a stop (KEDA's, an operator's own).
        for key in [
            "autoscaling.keda.sh/paused-replicas",
            "example.org/resource-stopped",
        ] {
            assert_eq!(
                flag(json!({"metadata": {"name": "k", "annotations": {key: "2"}}})),
                Some(format!("annotation {key}")),
                "{key}"
            );
        }
    }
}
