//! Gets the snapshot for a command from its source: a snapshot file, or the
//! live cluster within the command's deadline.

use anyhow::Context;

use crate::model::{ObjectRef, Target};
use crate::report::failing_roots;
use crate::settings::Settings;
use crate::source::live::{Fetched, Live, Mode, Scope};
use crate::source::{file, offline};
use crate::targets::TargetSpec;

pub async fn load(
    settings: &Settings,
    specs: &[TargetSpec],
    mode: Mode,
) -> anyhow::Result<Fetched> {
    if let Some(path) = &settings.snapshot {
        let snapshot = file::load_snapshot(path, settings.now)?;
        let namespace = if settings.all_namespaces {
            None
        } else {
            settings.namespace.as_deref()
        };
        let targets: Vec<Target> =
            offline::resolve(&snapshot, specs, namespace).map_err(super::UsageError)?;
        return Ok(Fetched { snapshot, targets });
    }
    let work = async {
        let mut live = Live::connect(&settings.connection, settings.cache_dir.clone()).await?;
        let scope = match (&settings.namespace, settings.all_namespaces) {
            (_, true) => Scope::AllNamespaces,
            (Some(ns), false) => Scope::Namespace(ns.clone()),
            (None, false) => Scope::Namespace(live.default_namespace.clone()),
        };
        live.fetch(specs, &scope, mode)
            .await
            .map_err(anyhow::Error::from)
    };
    tokio::time::timeout(settings.deadline, work)
        .await
        .ok()
        .with_context(|| {
            format!(
                "gave up after {}s: the API server answered too slowly\nhint: raise --request-timeout, or check the cluster's health",
                settings.deadline.as_secs()
            )
        })?
}

/// What `why` needs: the trees under the targets and the owners above
/// them. With no target, the roots of the namespace are judged first and
/// only those not converged are read in depth.
pub async fn load_why(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Fetched> {
    if settings.snapshot.is_some() {
        let mut fetched = load(settings, specs, Mode::Tree { owners: true }).await?;
        if specs.is_empty() {
            fetched.targets = failing_roots(&fetched.snapshot, &fetched.targets);
        }
        return Ok(fetched);
    }
    if !specs.is_empty() {
        return load(settings, specs, Mode::Tree { owners: true }).await;
    }
    let roots = load(settings, specs, Mode::Status).await?;
    let failing: Vec<TargetSpec> = failing_roots(&roots.snapshot, &roots.targets)
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => roots.snapshot.get(uid).map(|o| identity(&o.id)),
            Target::Missing(_) => None,
        })
        .collect();
    if failing.is_empty() {
        return Ok(Fetched {
            snapshot: roots.snapshot,
            targets: vec![],
        });
    }
    let mut deep = load(settings, &failing, Mode::Tree { owners: true }).await?;
    deep.snapshot.incomplete.extend(roots.snapshot.incomplete);
    deep.snapshot.incomplete.sort();
    deep.snapshot.incomplete.dedup();
    Ok(deep)
}

fn identity(id: &ObjectRef) -> TargetSpec {
    TargetSpec::Manifest {
        api_version: id.api_version.clone(),
        kind: id.kind.clone(),
        namespace: id.namespace.clone(),
        name: id.name.clone(),
    }
}
