//! Gets the snapshot for a command from its source: a snapshot file, or the
//! live cluster within the command's deadline.

use anyhow::Context;

use crate::model::Target;
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
