//! The extra reads relations need, planned from what was already read.
//! Pure: the source runs the plan. Existence is enough for ConfigMaps,
//! Secrets and ServiceAccounts, so those are metadata-only reads, by name
//! (the namespace's list only once a name is missing, for its near miss); reads of
//! context (nodes, a pod's references, admission objects) are planned only
//! where something is failing.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::admission::{self, Admission};
use super::{Edge, Named, named, selector_of};
use crate::model::{Event, Object, ObjectRef};
use crate::selector;
use crate::verdict::reason::{Admission as Refused, Scheduling};

/// Which type to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Kind {
        api_version: String,
        kind: String,
    },
    /// Every listable namespaced type (a Terminating namespace's content).
    EveryNamespacedType,
}

/// Which objects of the type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Select {
    Name(String),
    Labels(String),
    /// By a field selector (query form).
    Fields(String),
    /// Those named one of the names, or the start of one before a `-`
    /// (the workload of pod `web-7d9f-x2x4z` is `web`), matched in memory
    /// after a list.
    NamedLike(Vec<String>),
    /// Workloads whose pod template the selector (query form) matches,
    /// matched in memory after a list: the workloads behind a Service.
    Template(String),
    All,
}

/// One read: a type, where (a cluster-scoped type ignores the namespace),
/// which objects, and whether metadata is enough. `expect` names the
/// objects the plan looks for: any not found is recorded as absent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelatedRead {
    pub resource: Resource,
    pub namespace: Option<String>,
    pub select: Select,
    pub metadata_only: bool,
    pub expect: Vec<String>,
    /// Keep the objects' managedFields: the keys of a ConfigMap or Secret
    /// a container waits on, named there (never read from its data).
    pub managed_fields: bool,
}

/// (apiVersion, kind, namespace): where named reads are gathered, with
/// the names and whether metadata is enough.
type TypeIn = (String, String, Option<String>);

/// The names to read of one type in one namespace.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    /// Whether metadata is enough: only whether they exist.
    existence: bool,
    /// Whether a container waits on a key of them (their managedFields).
    keys: bool,
    /// Whether one of them was found missing: the type's list is read for
    /// the name it may have meant ("did you mean").
    near: bool,
}

/// Per type and namespace, the names to read.
type NamedReads = BTreeMap<TypeIn, Names>;

/// Named reads of one type and namespace above this many become one list.
const LIST_ABOVE: usize = 2;
/// At most this many nodes are read for failing pods.
const MAX_NODES: usize = 8;

/// What to read next, given the objects and events read so far, and the
/// named objects found missing.
pub fn reads_for(objects: &[Object], events: &[Event], absent: &[ObjectRef]) -> Vec<RelatedRead> {
    // Indexes, so that thousands of pods cost a pass each, not a pass each
    // per pod: what is present, and the only events read here.
    let mut here: HashSet<(&str, &str, Option<&str>, &str)> = HashSet::new();
    for o in objects {
        here.insert((o.group(), o.kind(), o.namespace(), o.name()));
    }
    let missing: HashSet<(&str, &str, Option<&str>, &str)> = absent
        .iter()
        .map(|a| {
            let ns = a.namespace.as_deref();
            (a.api_version.as_str(), a.kind.as_str(), ns, a.name.as_str())
        })
        .collect();
    let present = |n: &Named| {
        here.contains(&(
            n.group(),
            n.kind.as_str(),
            n.namespace.as_deref(),
            n.name.as_str(),
        )) || here.contains(&(n.group(), n.kind.as_str(), None, n.name.as_str()))
    };
    let failed_creates: Vec<Event> = events
        .iter()
        .filter(|e| e.reason == Refused::FailedCreate.as_str())
        .cloned()
        .collect();
    let events = failed_creates.as_slice();
    let mut named_reads = NamedReads::new();
    let mut out: Vec<RelatedRead> = Vec::new();
    let mut nodes = 0;
    // Managers that objects already read name by their labels: read for
    // their verdict, not for their whole inventory.
    let named_managers: HashSet<(String, String, Option<String>, String)> = objects
        .iter()
        .filter_map(super::manager_of)
        .map(|(m, _)| (m.group().to_string(), m.kind, m.namespace, m.name))
        .collect();
    let pinned = claims_pinned_away(objects);
    for obj in objects {
        let failing = needs_context(obj, events);
        let waits_on_keys = failing && !super::waiting_on_configuration(obj).is_empty();
        let is_manager = named_managers.contains(&(
            obj.group().to_string(),
            obj.kind().to_string(),
            obj.namespace().map(str::to_string),
            obj.name().to_string(),
        ));
        for (edge, n) in named(obj) {
            if present(&n) || (is_manager && edge == Edge::Manages) {
                continue;
            }
            let existence_only =
                matches!(n.kind.as_str(), "ConfigMap" | "Secret" | "ServiceAccount")
                    && n.group().is_empty();
            // A StatefulSet's governing Service: whether it exists, by name.
            let governing = edge == Edge::Uses && n.kind == "Service";
            let existence_only = existence_only || governing;
            let wanted = match (edge, n.kind.as_str()) {
                _ if governing => true,
                _ if existence_only => failing,
                (Edge::RunsOn, _) => failing && nodes < MAX_NODES,
                (Edge::Mounts, "StorageClass" | "PersistentVolume") => {
                    obj.str("/status/phase") != Some("Bound")
                        || (n.kind == "PersistentVolume"
                            && pinned.contains(&(obj.namespace(), obj.name())))
                }
                _ => true,
            };
            if !wanted {
                continue;
            }
            let entry = named_reads
                .entry((n.api_version.clone(), n.kind.clone(), n.namespace.clone()))
                .or_default();
            let absent = missing.contains(&(
                n.api_version.as_str(),
                n.kind.as_str(),
                n.namespace.as_deref(),
                n.name.as_str(),
            ));
            // A Secret found missing may be made by an operator's resource:
            // those of the namespace are read, of each kind that makes
            // Secrets. One the cached catalog lacks sends discovery to be
            // revalidated (its CRD may be new); none is read for a Secret
            // that exists, as only a missing one leads to its maker.
            if existence_only && n.kind == "Secret" && absent {
                for (api_version, kind) in super::secret_producer_types() {
                    out.push(RelatedRead {
                        resource: Resource::Kind {
                            api_version: api_version.into(),
                            kind: kind.into(),
                        },
                        namespace: n.namespace.clone(),
                        select: Select::All,
                        metadata_only: false,
                        expect: vec![],
                        managed_fields: false,
                    });
                }
            }
            if !entry.names.contains(&n.name) {
                entry.names.push(n.name.clone());
                // Distinct nodes count against the cap.
                if edge == Edge::RunsOn {
                    nodes += 1;
                }
            }
            entry.existence = existence_only;
            entry.keys |= existence_only && n.kind != "ServiceAccount" && waits_on_keys;
            entry.near |= existence_only && absent;
        }
        out.extend(selector_reads(obj, objects));
        out.extend(manager_reads(obj));
        // A status that lags its spec: the controller's lease, then the
        // lease holder's pod and the workloads of its namespace.
        out.extend(controller_reads(obj, objects));
        // An unschedulable pod: the nodes, to name what keeps it off them.
        if obj.kind() == "Pod"
            && obj.group().is_empty()
            && obj
                .condition("PodScheduled")
                .is_some_and(|c| c.is_false() && c.reason == Scheduling::Unschedulable.as_str())
        {
            out.push(read("v1", "Node", None, Select::All, false));
        }
        if obj.kind() == "Namespace" && obj.group().is_empty() && obj.deleted.is_some() {
            out.push(RelatedRead {
                resource: Resource::EveryNamespacedType,
                namespace: Some(obj.name().to_string()),
                select: Select::All,
                metadata_only: true,
                expect: vec![],
                managed_fields: false,
            });
        }
        for message in admission::create_failures(obj, events) {
            out.extend(admission_reads(
                obj,
                &admission::classify(&message),
                objects,
            ));
        }
    }
    out.extend(from_named(named_reads));
    out.sort();
    out.dedup();
    out
}

/// The pods a selector names, where none of them was read: a Service's
/// pods' labels (metadata only, for the near miss) and the workloads whose
/// template it matches, once its EndpointSlices are read; else the pods
/// by the selector.
fn selector_reads(obj: &Object, objects: &[Object]) -> Vec<RelatedRead> {
    let mut out = Vec::new();
    if let Some(sel) = selector_of(obj)
        && !objects.iter().any(|p| {
            p.kind() == "Pod"
                && p.namespace() == obj.namespace()
                && selector::matches(&sel, &p.labels)
        })
    {
        if obj.kind() == "Service" {
            // The source lists a Service's pods with its EndpointSlices;
            // once those are read and no pod matched, every pod's labels
            // (metadata only) for the near miss.
            let slices_read = objects.iter().any(|o| {
                o.kind() == "EndpointSlice"
                    && o.namespace() == obj.namespace()
                    && o.labels
                        .get("kubernetes.io/service-name")
                        .map(String::as_str)
                        == Some(obj.name())
            });
            if slices_read {
                out.push(read("v1", "Pod", obj.namespace(), Select::All, true));
                // And the workloads that would make its pods.
                if let Some(query) = selector::to_query(&sel) {
                    for kind in ["Deployment", "StatefulSet", "DaemonSet"] {
                        let select = Select::Template(query.clone());
                        out.push(read("apps/v1", kind, obj.namespace(), select, false));
                    }
                }
            }
        } else if let Some(labels) = selector::to_query(&sel) {
            out.push(read(
                "v1",
                "Pod",
                obj.namespace(),
                Select::Labels(labels),
                false,
            ));
        }
    }
    out
}

/// Who manages it, named by its labels: the GitOps object, or a Helm
/// release's Secrets (metadata only, by Helm's labels).
fn manager_reads(obj: &Object) -> Vec<RelatedRead> {
    let mut out = Vec::new();
    // Its kind is read as named, not only if the cached catalog serves it:
    // the label says the tool runs here, so a kind missing from the cache
    // (a CRD installed since) sends discovery to be revalidated.
    if let Some((m, _)) = super::manager_of(obj) {
        out.push(RelatedRead {
            resource: Resource::Kind {
                api_version: m.api_version.clone(),
                kind: m.kind.clone(),
            },
            namespace: m.namespace.clone(),
            select: Select::Name(m.name.clone()),
            metadata_only: false,
            expect: vec![],
            managed_fields: false,
        });
    }
    if let Some((ns, release)) = super::helm_release(obj) {
        out.push(RelatedRead {
            resource: Resource::Kind {
                api_version: "v1".into(),
                kind: "Secret".into(),
            },
            namespace: Some(ns),
            select: Select::Labels(format!("owner=helm,name={release}")),
            metadata_only: true,
            expect: vec![],
            managed_fields: false,
        });
    }
    out
}

/// The named objects to read, per type and namespace: a GET each, or one
/// list where that is cheaper and not the whole cluster. Whether one
/// exists is asked by name first; the namespace's list (metadata only) is
/// read only once a name was found missing, for the name it may have meant.
fn from_named(named_reads: NamedReads) -> Vec<RelatedRead> {
    let mut out = Vec::new();
    for ((api_version, kind, namespace), wanted) in named_reads {
        let Names {
            names,
            existence: metadata_only,
            keys,
            near,
        } = wanted;
        // Nodes are read one by one: a list of them is the whole cluster.
        // So are Services whose existence is enough (governing Services):
        // a list of them would be every Service of the namespace.
        let list = match kind.as_str() {
            "Node" => false,
            "Service" if metadata_only => false,
            _ => names.len() > LIST_ABOVE || near,
        };
        if list {
            out.push(RelatedRead {
                resource: Resource::Kind { api_version, kind },
                namespace,
                select: Select::All,
                metadata_only,
                expect: names,
                managed_fields: keys,
            });
        } else {
            for name in names {
                out.push(RelatedRead {
                    resource: Resource::Kind {
                        api_version: api_version.clone(),
                        kind: kind.clone(),
                    },
                    namespace: namespace.clone(),
                    select: Select::Name(name.clone()),
                    metadata_only,
                    expect: vec![name],
                    managed_fields: keys,
                });
            }
        }
    }
    out
}

fn read(
    api_version: &str,
    kind: &str,
    ns: Option<&str>,
    select: Select,
    metadata_only: bool,
) -> RelatedRead {
    let expect = match &select {
        Select::Name(n) => vec![n.clone()],
        _ => vec![],
    };
    RelatedRead {
        resource: Resource::Kind {
            api_version: api_version.into(),
            kind: kind.into(),
        },
        namespace: ns.map(str::to_string),
        select,
        metadata_only,
        expect,
        managed_fields: false,
    }
}

/// The Leases that say whether the controllers of the objects whose
/// status lags are running, for an answer that follows no other relation
/// (`status`, `wait`): the control plane's by name, every other but the
/// nodes' in one list. None once any Lease was read.
pub fn lease_reads(objects: &[Object]) -> Vec<RelatedRead> {
    let leases_read = objects
        .iter()
        .any(|o| o.kind() == "Lease" && o.group() == "coordination.k8s.io");
    if leases_read {
        return Vec::new();
    }
    let mut out: Vec<RelatedRead> = objects
        .iter()
        .flat_map(|o| controller_reads(o, &[]))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The reads that find the controller of an object whose status lags:
/// the control plane's Lease by name for built-in kinds, every Lease but
/// the nodes' for custom resources; once read, the matching lease's
/// holder pod, in whatever namespace it runs, and the Deployments and
/// StatefulSets named like it or the status managers; with no lease that
/// matches (an operator that elects no leader), those workloads alone.
fn controller_reads(obj: &Object, objects: &[Object]) -> Vec<RelatedRead> {
    use crate::verdict::controller;
    if !controller::lags(obj) && !controller::unscheduled(obj) {
        return Vec::new();
    }
    let leases: Vec<&Object> = objects
        .iter()
        .filter(|o| o.kind() == "Lease" && o.group() == "coordination.k8s.io")
        .collect();
    let mut out = Vec::new();
    if leases.is_empty() {
        let lease = |select: Select, ns: Option<&str>| {
            read("coordination.k8s.io/v1", "Lease", ns, select, false)
        };
        out.push(match controller::control_plane_lease(obj) {
            Some(name) => lease(
                Select::Name(name.into()),
                Some(controller::CONTROL_PLANE_NAMESPACE),
            ),
            None => lease(
                Select::Fields(format!(
                    "metadata.namespace!={}",
                    controller::NODE_LEASE_NAMESPACE
                )),
                None,
            ),
        });
        return out;
    }
    if controller::control_plane_lease(obj).is_some() {
        return out; // static pods: no workload to read
    }
    let mut names = controller::manager_names(obj);
    if let Some((lease, _)) = controller::matching_leases(&leases, obj).into_iter().next()
        && let Some(pod) = controller::holder_pod(lease)
    {
        let mut by_name = read(
            "v1",
            "Pod",
            None,
            Select::Fields(format!("metadata.name={pod}")),
            false,
        );
        by_name.expect = vec![pod.to_string()];
        out.push(by_name);
        names.push(pod.to_string());
    }
    if names.is_empty() {
        return out;
    }
    for kind in ["Deployment", "StatefulSet"] {
        out.push(read(
            "apps/v1",
            kind,
            None,
            Select::NamedLike(names.clone()),
            false,
        ));
    }
    out
}

/// What a refused pod creation needs read to be explained.
fn admission_reads(obj: &Object, a: &Admission, objects: &[Object]) -> Vec<RelatedRead> {
    let ns = obj.namespace();
    match a {
        Admission::MissingServiceAccount { name } => {
            let mut r = read("v1", "ServiceAccount", ns, Select::All, true);
            r.expect = vec![name.clone()];
            vec![r]
        }
        Admission::Webhook { webhook, .. } => {
            let mut reads = vec![
                read(
                    "admissionregistration.k8s.io/v1",
                    "ValidatingWebhookConfiguration",
                    None,
                    Select::All,
                    false,
                ),
                read(
                    "admissionregistration.k8s.io/v1",
                    "MutatingWebhookConfiguration",
                    None,
                    Select::All,
                    false,
                ),
            ];
            // Once the configurations are read: the webhook's Service (the
            // source reads its EndpointSlices with it, as for any Service).
            if let Some((svc_ns, svc)) = admission::webhook_service(webhook, objects) {
                reads.push(read(
                    "v1",
                    "Service",
                    Some(&svc_ns),
                    Select::Name(svc.clone()),
                    false,
                ));
            }
            reads
        }
        Admission::Policy {
            policy, binding, ..
        } => {
            let mut reads = vec![read(
                "admissionregistration.k8s.io/v1",
                "ValidatingAdmissionPolicy",
                None,
                Select::Name(policy.clone()),
                false,
            )];
            if let Some(b) = binding {
                reads.push(read(
                    "admissionregistration.k8s.io/v1",
                    "ValidatingAdmissionPolicyBinding",
                    None,
                    Select::Name(b.clone()),
                    false,
                ));
            }
            reads
        }
        Admission::Quota { .. } => vec![read("v1", "ResourceQuota", ns, Select::All, false)],
        Admission::LimitRange { .. } => vec![read("v1", "LimitRange", ns, Select::All, false)],
        Admission::PodSecurity { .. } => match ns {
            Some(ns) => vec![read(
                "v1",
                "Namespace",
                None,
                Select::Name(ns.to_string()),
                false,
            )],
            None => vec![],
        },
        Admission::MissingClass { .. }
        | Admission::NamespaceTerminating { .. }
        | Admission::Other => {
            vec![]
        }
    }
}

/// The claims of pods the scheduler cannot place because a bound volume's
/// node affinity keeps them away: their volumes are read, to be named.
fn claims_pinned_away(objects: &[Object]) -> HashSet<(Option<&str>, &str)> {
    objects
        .iter()
        .filter(|o| o.kind() == "Pod" && o.group().is_empty())
        .filter(|pod| {
            pod.condition("PodScheduled").is_some_and(|c| {
                c.is_false()
                    && (c.message.contains("PersistentVolume's node affinity")
                        || c.message.contains("volume node affinity conflict"))
            })
        })
        .flat_map(|pod| {
            pod.at("/spec/volumes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(move |v| {
                    let claim = v.pointer("/persistentVolumeClaim/claimName")?.as_str()?;
                    Some((pod.namespace(), claim))
                })
        })
        .collect()
}

/// Whether an object is failing in a way its references may explain: a
/// pod that is not ready, a workload that could not create its pods.
fn needs_context(obj: &Object, events: &[Event]) -> bool {
    match (obj.group(), obj.kind()) {
        ("", "Pod") => {
            obj.deleted.is_none()
                && obj.str("/status/phase") != Some("Succeeded")
                && !obj
                    .at("/status/conditions")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|c| {
                        c.get("type") == Some(&Value::from("Ready"))
                            && c.get("status") == Some(&Value::from("True"))
                    })
        }
        _ => !admission::create_failures(obj, events).is_empty(),
    }
}
