//! Targets resolved against a snapshot file instead of a server: the types
//! come from the kinds the snapshot holds, named as a v1.36 server serves
//! the built-in ones (its recorded discovery, `catalog::builtin_types`) and
//! as a CRD in the snapshot declares a custom one. Pure.

use std::collections::BTreeMap;

use crate::catalog::{
    Catalog, ResourceType, builtin_has_status, builtin_types, is_builtin_group, is_swept,
};
use crate::model::{Object, ObjectRef, Snapshot, Target};
use crate::selector::matches_query;
use crate::targets::TargetSpec;

/// A guess at the plural of a custom kind no CRD in the snapshot names:
/// English rules, lowercase.
fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with("s")
        || lower.ends_with("x")
        || lower.ends_with("ch")
        || lower.ends_with("sh")
    {
        format!("{lower}es")
    } else if lower.ends_with('y')
        && !lower.ends_with("ay")
        && !lower.ends_with("ey")
        && !lower.ends_with("oy")
    {
        format!("{}ies", &lower[..lower.len() - 1])
    } else {
        format!("{lower}s")
    }
}

/// A custom kind's names as its CRD in the snapshot declares them.
fn from_crd(snap: &Snapshot, group: &str, kind: &str) -> Option<ResourceType> {
    let crd = snap.objects().iter().find(|o| {
        o.kind() == "CustomResourceDefinition"
            && o.group() == "apiextensions.k8s.io"
            && o.str("/spec/group") == Some(group)
            && o.str("/spec/names/kind") == Some(kind)
    })?;
    let strings = |p: &str| -> Vec<String> {
        crd.at(p)
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    Some(ResourceType {
        group: group.to_string(),
        version: String::new(),
        kind: kind.to_string(),
        plural: crd.str("/spec/names/plural")?.to_string(),
        singular: crd
            .str("/spec/names/singular")
            .map(str::to_string)
            .unwrap_or_else(|| kind.to_ascii_lowercase()),
        short_names: strings("/spec/names/shortNames"),
        categories: strings("/spec/names/categories"),
        namespaced: crd.str("/spec/scope") == Some("Namespaced"),
        verbs: vec!["get".into(), "list".into()],
        has_status: false,
    })
}

/// A kind as a capture recorded the server serving it.
fn captured(snap: &Snapshot, group: &str, kind: &str) -> Option<ResourceType> {
    let k = snap
        .kinds
        .iter()
        .find(|k| k.group == group && k.kind == kind)?;
    Some(ResourceType {
        group: k.group.clone(),
        version: k.version.clone(),
        kind: k.kind.clone(),
        plural: k.plural.clone(),
        singular: k.singular.clone(),
        short_names: k.short_names.clone(),
        categories: vec![],
        namespaced: k.namespaced,
        verbs: vec!["get".into(), "list".into()],
        has_status: k.has_status,
    })
}

/// The types present in a snapshot.
pub fn catalog_of(snap: &Snapshot) -> Catalog {
    let mut seen: BTreeMap<(String, String), ResourceType> = BTreeMap::new();
    for obj in snap.objects() {
        let key = (obj.group().to_string(), obj.kind().to_string());
        let entry = seen.entry(key).or_insert_with(|| {
            let version = obj
                .id
                .api_version
                .rsplit('/')
                .next()
                .unwrap_or("v1")
                .to_string();
            // A built-in kind's names as the server serves them, a custom
            // kind's as its CRD declares them, else a guess.
            let known = captured(snap, obj.group(), obj.kind())
                .or_else(|| builtin_types().by_kind(obj.group(), obj.kind()).cloned())
                .or_else(|| from_crd(snap, obj.group(), obj.kind()));
            let mut rt = known.unwrap_or_else(|| ResourceType {
                group: obj.group().to_string(),
                version: String::new(),
                kind: obj.kind().to_string(),
                plural: plural(obj.kind()),
                singular: obj.kind().to_ascii_lowercase(),
                short_names: vec![],
                categories: vec![],
                namespaced: false,
                verbs: vec!["get".into(), "list".into()],
                has_status: false,
            });
            // The version the snapshot's objects were written at; the
            // scope from where they are.
            rt.version = version;
            rt.namespaced = false;
            rt
        });
        entry.namespaced |= obj.namespace().is_some();
    }
    Catalog {
        types: seen.into_values().collect(),
        ..Catalog::default()
    }
}

/// Whether a sweep judges this object: one without a controller, of a type
/// a sweep reads ([`is_swept`]). Whether its type has a status subresource
/// is what the live catalog said when it was read, and for a snapshot file
/// what the built-in kinds are served with: a live sweep and a snapshot of
/// the same objects judge the same roots.
pub fn is_sweep_root(o: &Object) -> bool {
    let has_status = o
        .status_subresource
        .unwrap_or_else(|| builtin_has_status(o.group(), o.kind()));
    o.controller().is_none() && is_swept(o.group(), o.kind(), o.namespace().is_some(), has_status)
}

/// How many objects a built-in workload's own status says it has below
/// it: a Deployment's ReplicaSets' pods, a ReplicaSet's or StatefulSet's
/// pods, a DaemonSet's scheduled pods, a Job's active pods, a CronJob's
/// active Jobs. 0 where it says none, or for other kinds.
fn counted_below(o: &Object) -> i64 {
    let int = |p: &str| o.int(p).unwrap_or(0);
    match (o.group(), o.kind()) {
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") | ("", "ReplicationController") => {
            int("/status/replicas")
        }
        ("apps", "DaemonSet") => int("/status/currentNumberScheduled"),
        ("batch", "Job") => int("/status/active"),
        ("batch", "CronJob") => o
            .at("/status/active")
            .and_then(|a| a.as_array())
            .map_or(0, |a| a.len() as i64),
        _ => 0,
    }
}

/// The targets whose trees a snapshot does not hold: a workload whose own
/// status counts objects below it, none of which the snapshot has whole
/// (a capture of a sweep, which reads only roots): each a gap of the answer,
/// so that a replayed tree reads as incomplete, never as converged.
pub fn missing_trees(snap: &Snapshot, targets: &[Target]) -> Vec<crate::model::Incomplete> {
    targets
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => snap.get(uid),
            Target::Missing(_) => None,
        })
        .filter(|o| counted_below(o) > 0 && snap.controlled(&o.uid).all(|c| c.metadata_only))
        .map(|o| crate::model::Incomplete {
            resource: format!("the tree below {}/{}", o.kind(), o.name()),
            namespace: o.namespace().map(str::to_string),
            error: format!(
                "not in the snapshot (at most their metadata), though its status counts {} below it",
                counted_below(o)
            ),
        })
        .collect()
}

/// Resolves targets in a snapshot. Without `-n`, a name is looked for in
/// every namespace, and must be unambiguous. No target is a sweep of the
/// roots, only those with `labels` when given (`-l` without a TYPE).
pub fn resolve(
    snap: &Snapshot,
    specs: &[TargetSpec],
    namespace: Option<&str>,
    labels: Option<&str>,
) -> Result<Vec<Target>, String> {
    let catalog = catalog_of(snap);
    let in_scope = |o: &Object| namespace.is_none_or(|ns| o.namespace().is_none_or(|n| n == ns));
    let of_type = |rt: &ResourceType| {
        let rt = rt.clone();
        move |o: &&Object| o.group() == rt.group && o.kind() == rt.kind
    };
    if specs.is_empty() {
        let mut roots: Vec<&Object> = Vec::new();
        for o in snap.objects() {
            let labelled = match labels {
                Some(l) => crate::selector::matches_query(l, &o.labels)
                    .map_err(|e| format!("-l {l}: {e}"))?,
                None => true,
            };
            if in_scope(o) && is_sweep_root(o) && labelled {
                roots.push(o);
            }
        }
        roots.sort_by(|a, b| {
            (a.namespace(), a.kind(), a.name()).cmp(&(b.namespace(), b.kind(), b.name()))
        });
        return Ok(roots
            .into_iter()
            .map(|o| Target::Found(o.uid.clone()))
            .collect());
    }
    let mut out = Vec::new();
    for spec in specs {
        match spec {
            TargetSpec::Name { type_, name } => {
                let rt = catalog
                    .resolve(type_)
                    .map_err(|e| format!("{e} in the snapshot"))?;
                let found: Vec<&Object> = snap
                    .objects()
                    .iter()
                    .filter(of_type(rt))
                    .filter(|o| o.name() == name && in_scope(o))
                    .collect();
                out.push(pick(found, rt, namespace, name)?);
            }
            TargetSpec::Type { type_, selector } => {
                for rt in types_named(&catalog, type_)? {
                    for obj in snap
                        .objects()
                        .iter()
                        .filter(of_type(&rt))
                        .filter(|o| in_scope(o))
                    {
                        if selector
                            .as_deref()
                            .map(|q| matches_query(q, &obj.labels))
                            .transpose()?
                            .unwrap_or(true)
                        {
                            out.push(Target::Found(obj.uid.clone()));
                        }
                    }
                }
            }
            TargetSpec::Manifest {
                api_version,
                kind,
                namespace: ns,
                name,
            } => {
                let id = ObjectRef {
                    api_version: api_version.clone(),
                    kind: kind.clone(),
                    namespace: ns.clone().or(namespace.map(str::to_string)),
                    name: name.clone(),
                    uid: None,
                };
                match snap
                    .find(id.group(), kind, id.namespace.as_deref(), name)
                    .or_else(|| snap.find(id.group(), kind, None, name))
                {
                    Some(obj) => out.push(Target::Found(obj.uid.clone())),
                    None => out.push(Target::Missing(id)),
                }
            }
        }
    }
    Ok(out)
}

/// Kinds in kubectl's `all` category.
const ALL_CATEGORY: &[&str] = &[
    "Pod",
    "Service",
    "DaemonSet",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "HorizontalPodAutoscaler",
];

/// `deploy,sts`, or the category `all`: every type named.
fn types_named(catalog: &Catalog, spelling: &str) -> Result<Vec<ResourceType>, String> {
    let mut out = Vec::new();
    for part in spelling.split(',').filter(|p| !p.is_empty()) {
        match catalog.resolve(part) {
            Ok(rt) => out.push(rt.clone()),
            Err(_) if part == "all" => out.extend(
                catalog
                    .types
                    .iter()
                    .filter(|t| {
                        is_builtin_group(&t.group) && ALL_CATEGORY.contains(&t.kind.as_str())
                    })
                    .cloned(),
            ),
            Err(e) => return Err(format!("{e} in the snapshot")),
        }
    }
    Ok(out)
}

fn pick(
    found: Vec<&Object>,
    rt: &ResourceType,
    namespace: Option<&str>,
    name: &str,
) -> Result<Target, String> {
    match found.as_slice() {
        [one] => Ok(Target::Found(one.uid.clone())),
        [] => Ok(Target::Missing(ObjectRef {
            api_version: rt.api_version(),
            kind: rt.kind.clone(),
            namespace: namespace.map(str::to_string).filter(|_| rt.namespaced),
            name: name.to_string(),
            uid: None,
        })),
        many => {
            let namespaces: Vec<&str> = many.iter().filter_map(|o| o.namespace()).collect();
            Err(format!(
                "{} {name:?} is in several namespaces of the snapshot ({}); choose one with -n",
                rt.kind,
                namespaces.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot() -> Snapshot {
        let o = |v: serde_json::Value| Object::from_value(v).unwrap();
        Snapshot::new(
            vec![
                o(
                    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "uid": "d1", "labels": {"app": "web"}}}),
                ),
                o(
                    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "blog", "uid": "d2"}}),
                ),
                o(
                    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop", "uid": "r1",
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]}}),
                ),
                o(
                    json!({"apiVersion": "example.com/v1", "kind": "Policy", "metadata": {"name": "p", "namespace": "shop", "uid": "c1"}}),
                ),
            ],
            vec![],
            vec![],
            "2026-01-01T00:00:00Z".parse().unwrap(),
        )
    }

    #[test]
    fn type_names_resolve_offline_as_the_server_serves_them() {
        let objects = vec![
            Object::from_value(json!({"apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": "web", "namespace": "shop", "uid": "e1"}}))
            .unwrap(),
            Object::from_value(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "gizmoes.example.com", "uid": "crd1"},
                "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"kind": "Gizmo", "plural": "gizmoes", "singular": "gizmo", "shortNames": ["gz"]}}}))
            .unwrap(),
            Object::from_value(json!({"apiVersion": "example.com/v1", "kind": "Gizmo",
                "metadata": {"name": "g", "namespace": "shop", "uid": "g1"}}))
            .unwrap(),
        ];
        let s = Snapshot::new(
            objects,
            vec![],
            vec![],
            "2026-01-10T12:00:00Z".parse().unwrap(),
        );
        let name = |t: &str, n: &str| TargetSpec::Name {
            type_: t.into(),
            name: n.into(),
        };
        // As kubectl spells them against a live server.
        for spelling in ["ep", "endpoints", "Endpoints"] {
            assert_eq!(
                resolve(&s, &[name(spelling, "web")], Some("shop"), None).unwrap(),
                vec![Target::Found("e1".into())],
                "{spelling}"
            );
        }
        assert!(resolve(&s, &[name("endpointses", "web")], Some("shop"), None).is_err());
        // A custom kind by its CRD's plural and short name.
        for spelling in ["gz", "gizmoes", "gizmoes.example.com"] {
            assert_eq!(
                resolve(&s, &[name(spelling, "g")], Some("shop"), None).unwrap(),
                vec![Target::Found("g1".into())],
                "{spelling}"
            );
        }
        assert!(builtin_has_status("apps", "Deployment"));
        assert!(!builtin_has_status("", "ConfigMap"));
    }

    #[test]
    fn names_resolve_with_short_names_and_namespaces() {
        let s = snapshot();
        let name = |t: &str, n: &str| TargetSpec::Name {
            type_: t.into(),
            name: n.into(),
        };
        assert_eq!(
            resolve(&s, &[name("deploy", "web")], Some("shop"), None).unwrap(),
            vec![Target::Found("d1".into())]
        );
        assert_eq!(
            resolve(&s, &[name("deployments.apps", "web")], Some("blog"), None).unwrap(),
            vec![Target::Found("d2".into())]
        );
        assert!(
            resolve(&s, &[name("deploy", "web")], None, None)
                .unwrap_err()
                .contains("choose one with -n")
        );
        assert_eq!(
            resolve(&s, &[name("policies", "p")], None, None).unwrap(),
            vec![Target::Found("c1".into())]
        );
        assert!(
            matches!(&resolve(&s, &[name("rs", "nope")], Some("shop"), None).unwrap()[..], [Target::Missing(r)] if r.kind == "ReplicaSet")
        );
        assert!(
            resolve(&s, &[name("statefulset", "x")], None, None)
                .unwrap_err()
                .contains("doesn't have a resource type")
        );
    }

    #[test]
    fn roots_are_objects_without_a_controller() {
        let s = snapshot();
        assert_eq!(
            resolve(&s, &[], Some("shop"), None).unwrap(),
            vec![Target::Found("d1".into()), Target::Found("c1".into())]
        );
        let sel = TargetSpec::Type {
            type_: "deploy".into(),
            selector: Some("app=web".into()),
        };
        assert_eq!(
            resolve(&s, &[sel], None, None).unwrap(),
            vec![Target::Found("d1".into())]
        );
    }
}
