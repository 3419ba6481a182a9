//! `controllers`: is every controller alive? Each leader-election Lease
//! (the kubelets' and the API servers' own left out), its holder, when it
//! was last renewed, the workload that runs the holder pod and its verdict.
//! Exit 1 when any controller is down, for a health check.

use serde::Serialize;

use super::Outcome;
use super::load::load;
use crate::diagnose::controller::{self, ControllerCheck};
use crate::model::{Object, Snapshot, age};
use crate::render::escape;
use crate::render::layout::{Cell, table};
use crate::settings::Settings;
use crate::source::live::Mode;
use crate::targets::TargetSpec;

/// The document of `controllers -o json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllersReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub items: Vec<ControllerCheck>,
    pub incomplete: Vec<crate::model::Incomplete>,
}

/// A Lease that is a controller's: not a kubelet's heartbeat nor an API
/// server's identity.
fn is_controller(lease: &Object) -> bool {
    lease.namespace() != Some(crate::verdict::controller::NODE_LEASE_NAMESPACE)
        && !lease
            .labels
            .contains_key("apiserver.kubernetes.io/identity")
}

fn is_control_plane(lease: &Object) -> bool {
    lease.namespace() == Some(controller::CONTROL_PLANE_NAMESPACE)
        && matches!(lease.name(), "kube-controller-manager" | "kube-scheduler")
}

pub async fn run(settings: &Settings) -> anyhow::Result<Outcome> {
    // Every namespace's Leases when the user may, else the namespace's.
    let mut scope = settings.clone();
    if settings.scope.named().is_none() {
        scope.scope = crate::targets::Asked::All;
    }
    let leases = TargetSpec::Type {
        type_: "leases.coordination.k8s.io".into(),
        selector: None,
    };
    let first = match load(&scope, std::slice::from_ref(&leases), Mode::Status).await {
        Ok(f) => f,
        Err(e)
            if scope.scope.is_all()
                && !settings.scope.is_all()
                && e.downcast_ref::<crate::source::live::FetchError>()
                    .is_some_and(|e| e.is_forbidden()) =>
        {
            load(settings, std::slice::from_ref(&leases), Mode::Status).await?
        }
        Err(e) => return Err(e),
    };
    let found: Vec<Object> = first
        .snapshot
        .objects()
        .iter()
        .filter(|o| o.kind() == "Lease" && is_controller(o))
        .cloned()
        .collect();
    // The holder pods, with their owners up to the workload.
    let pods: Vec<TargetSpec> = found
        .iter()
        .filter(|l| !is_control_plane(l))
        .filter_map(|l| {
            Some(TargetSpec::Manifest {
                api_version: "v1".into(),
                kind: "Pod".into(),
                namespace: l.namespace().map(str::to_string),
                name: crate::verdict::controller::holder_pod(l)?.to_string(),
            })
        })
        .collect();
    let mut objects = found.clone();
    let mut incomplete = first.snapshot.incomplete.clone();
    let mut absent = Vec::new();
    if !pods.is_empty() {
        // Pods the user may not read leave the holders unknown: a gap, and
        // the Leases are still judged by their renewals.
        match load(settings, &pods, Mode::Tree { owners: true }).await {
            Ok(holders) => {
                absent.extend(holders.targets.iter().filter_map(|t| match t {
                    crate::model::Target::Missing(id) => Some(id.clone()),
                    crate::model::Target::Found(_) => None,
                }));
                objects.extend(holders.snapshot.objects().iter().cloned());
                incomplete.extend(holders.snapshot.incomplete.iter().cloned());
            }
            Err(e) => incomplete.push(crate::model::Incomplete {
                resource: "pods".into(),
                namespace: None,
                error: format!("{e:#}").lines().next().unwrap_or("").to_string(),
            }),
        }
    }
    // A holder pod that is gone (an operator scaled to 0): the
    // Deployments and StatefulSets of its namespace, where one named like
    // it is the workload `why` names too.
    objects.extend(workloads_of_gone_holders(settings, &absent, &mut incomplete).await);
    let mut snap = Snapshot::new(objects, vec![], incomplete.clone(), first.snapshot.now);
    snap.absent = absent;
    let judge = settings.judge();
    let mut items: Vec<ControllerCheck> = found
        .iter()
        .map(|l| controller::judge_lease(&judge.on(&snap), l, None, is_control_plane(l)))
        .collect();
    items.sort_by_key(|c| {
        (
            !c.down,
            c.lease
                .as_ref()
                .map(|l| (l.namespace.clone(), l.name.clone())),
        )
    });
    let report = ControllersReport {
        api_version: crate::report::API_VERSION,
        kind: "ControllersReport",
        items,
        incomplete,
    };
    // A health check never passes on what it could not read.
    let code = u8::from(report.items.iter().any(|c| c.down) || !report.incomplete.is_empty());
    let stdout = match settings.view.output {
        crate::render::shape::Shape::Yaml => crate::render::yaml(&report),
        crate::render::shape::Shape::Json | crate::render::shape::Shape::JsonPath(_) => {
            crate::render::json(&report)
        }
        _ => text(&report, &snap, settings),
    };
    Ok(Outcome { stdout, code })
}

/// At most this many namespaces of gone holder pods are searched for
/// their workloads, two lists each.
const MAX_NAMESPACES_SEARCHED: usize = 8;

/// The Deployments and StatefulSets of the namespaces whose holder pods
/// are gone; a namespace whose lists fail is a gap.
async fn workloads_of_gone_holders(
    settings: &Settings,
    gone: &[crate::model::ObjectRef],
    incomplete: &mut Vec<crate::model::Incomplete>,
) -> Vec<Object> {
    let mut namespaces: Vec<&str> = gone
        .iter()
        .filter(|g| g.kind == "Pod")
        .filter_map(|g| g.namespace.as_deref())
        .collect();
    namespaces.sort();
    namespaces.dedup();
    let workloads: Vec<TargetSpec> = ["deployments.apps", "statefulsets.apps"]
        .map(|t| TargetSpec::Type {
            type_: t.into(),
            selector: None,
        })
        .to_vec();
    let mut out = Vec::new();
    for ns in namespaces.into_iter().take(MAX_NAMESPACES_SEARCHED) {
        let mut scoped = settings.clone();
        scoped.scope = crate::targets::Asked::Namespace(ns.to_string());
        match load(&scoped, &workloads, Mode::Status).await {
            Ok(found) => {
                out.extend(found.snapshot.objects().iter().cloned());
                incomplete.extend(found.snapshot.incomplete.iter().cloned());
            }
            Err(e) => incomplete.push(crate::model::Incomplete {
                resource: "deployments.apps".into(),
                namespace: Some(ns.to_string()),
                error: format!("{e:#}").lines().next().unwrap_or("").to_string(),
            }),
        }
    }
    out
}

fn text(report: &ControllersReport, snap: &Snapshot, settings: &Settings) -> String {
    if report.items.is_empty() {
        return format!(
            "No leader-election Leases found.\n{}",
            crate::render::footer(
                &report.incomplete,
                crate::render::Style {
                    color: settings.color
                }
            )
        );
    }
    let e = |s: &str| escape(s).into_owned();
    let rows = report
        .items
        .iter()
        .map(|c| {
            let lease = c
                .lease
                .as_ref()
                .map(|l| format!("{}/{}", l.namespace.as_deref().unwrap_or(""), l.name))
                .unwrap_or_default();
            let workload = c
                .workload
                .as_ref()
                .map(|w| format!("{}/{}", w.kind, w.name))
                .unwrap_or_else(|| "-".into());
            let state = if c.down {
                "Down"
            } else if c.expired {
                "Expired"
            } else {
                "Running"
            };
            let verdict = c
                .workload_verdict
                .map(|v| {
                    format!(
                        "{v} ({})",
                        c.workload_reason
                            .as_ref()
                            .map(|r| r.as_str())
                            .unwrap_or_default()
                    )
                })
                .unwrap_or_else(|| "-".into());
            vec![
                Cell::plain(e(&lease)),
                Cell::plain(state),
                Cell::plain(e(c.holder.as_deref().unwrap_or("-"))),
                Cell::plain(
                    c.renewed
                        .map(|t| age(snap.now, t))
                        .unwrap_or_else(|| "never".into()),
                ),
                Cell::plain(e(&workload)),
                Cell::plain(e(&verdict)),
            ]
        })
        .collect();
    let mut out = table(
        &["LEASE", "STATE", "HOLDER", "RENEWED", "WORKLOAD", "VERDICT"],
        rows,
        settings.text_width(),
    );
    out.push_str(&crate::render::footer(
        &report.incomplete,
        crate::render::Style {
            color: settings.color,
        },
    ));
    out
}
