//! Gets the snapshot for a command from its source: a snapshot file, or the
//! live cluster within the command's deadline. The live source is handed
//! back too, for commands that go on watching.

use anyhow::Context;

use crate::model::{ObjectRef, Target};
use crate::report::failing_roots;
use crate::settings::Settings;
use crate::source::live::{Fetched, Live, Mode, Scope};
use crate::source::{file, offline};
use crate::targets::TargetSpec;

/// A read, and the live connection it came from (none for snapshot files).
pub struct Loaded {
    pub fetched: Fetched,
    pub live: Option<Live>,
}

pub async fn load(
    settings: &Settings,
    specs: &[TargetSpec],
    mode: Mode,
) -> anyhow::Result<Fetched> {
    Ok(load_keep(settings, specs, mode, None).await?.fetched)
}

/// The namespace targets are looked for in, offline.
pub fn offline_namespace(settings: &Settings) -> Option<&str> {
    if settings.all_namespaces {
        None
    } else {
        settings.namespace.as_deref()
    }
}

/// Loads, reusing `live` when given, and hands the connection back.
pub async fn load_keep(
    settings: &Settings,
    specs: &[TargetSpec],
    mode: Mode,
    live: Option<Live>,
) -> anyhow::Result<Loaded> {
    if let Some(path) = &settings.snapshot {
        let snapshot = file::load_snapshot(path, settings.now)?;
        let targets: Vec<Target> = offline::resolve(&snapshot, specs, offline_namespace(settings))
            .map_err(super::UsageError)?;
        return Ok(Loaded {
            fetched: Fetched {
                snapshot,
                targets,
                watches: vec![],
            },
            live: None,
        });
    }
    let work = async {
        let mut live = match live {
            Some(live) => live,
            None => Live::connect(&settings.connection, settings.cache_dir.clone()).await?,
        };
        let scope = scope(settings, &live);
        let fetched = live.fetch(specs, &scope, mode).await?;
        Ok::<_, anyhow::Error>(Loaded {
            fetched,
            live: Some(live),
        })
    };
    tokio::time::timeout(settings.deadline, work).await.ok().with_context(|| {
        format!(
            "gave up after {}s: the API server answered too slowly\nhint: raise --request-timeout, or check the cluster's health",
            settings.deadline.as_secs()
        )
    })?
}

pub fn scope(settings: &Settings, live: &Live) -> Scope {
    match (&settings.namespace, settings.all_namespaces) {
        (_, true) => Scope::AllNamespaces,
        (Some(ns), false) => Scope::Namespace(ns.clone()),
        (None, false) => Scope::Namespace(live.default_namespace.clone()),
    }
}

pub async fn load_why(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Fetched> {
    Ok(load_why_keep(settings, specs).await?.fetched)
}

/// What `why` needs: the trees under the targets and the owners above
/// them. With no target, the roots of the namespace are judged first and
/// only those not converged are read in depth.
pub async fn load_why_keep(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Loaded> {
    if settings.snapshot.is_some() || !specs.is_empty() {
        let mut loaded = load_keep(settings, specs, Mode::Tree { owners: true }, None).await?;
        if specs.is_empty() {
            loaded.fetched.targets =
                failing_roots(&loaded.fetched.snapshot, &loaded.fetched.targets);
        }
        return Ok(loaded);
    }
    let roots = load_keep(settings, specs, Mode::Status, None).await?;
    let failing: Vec<TargetSpec> = failing_roots(&roots.fetched.snapshot, &roots.fetched.targets)
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => roots.fetched.snapshot.get(uid).map(|o| identity(&o.id)),
            Target::Missing(_) => None,
        })
        .collect();
    if failing.is_empty() {
        return Ok(Loaded {
            fetched: Fetched {
                targets: vec![],
                ..roots.fetched
            },
            live: roots.live,
        });
    }
    let mut deep = load_keep(settings, &failing, Mode::Tree { owners: true }, roots.live).await?;
    // The converged roots stay in the snapshot, so the sweep can say "N of M".
    let snap = &deep.fetched.snapshot;
    // Read later, the deep copies win.
    let mut objects = roots.fetched.snapshot.objects().to_vec();
    objects.extend(snap.objects().iter().cloned());
    let mut incomplete = snap.incomplete.clone();
    incomplete.extend(roots.fetched.snapshot.incomplete);
    let mut merged =
        crate::model::Snapshot::new(objects, snap.events.clone(), incomplete, snap.now);
    merged.absent = snap.absent.clone();
    deep.fetched.snapshot = merged;
    deep.fetched.watches.extend(roots.fetched.watches);
    Ok(deep)
}

/// A target spec that names exactly this object.
pub fn identity(id: &ObjectRef) -> TargetSpec {
    TargetSpec::Manifest {
        api_version: id.api_version.clone(),
        kind: id.kind.clone(),
        namespace: id.namespace.clone(),
        name: id.name.clone(),
    }
}
