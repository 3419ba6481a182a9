//! Gets the snapshot for a command from its source: a snapshot file, or the
//! live cluster within the command's deadline. The live source is handed
//! back too, for commands that go on watching.

use anyhow::Context;

use std::sync::Arc;

use super::settled::Settled;
use crate::model::{ObjectRef, Target};
use crate::settings::Settings;
use crate::source::builder::SnapshotBuilder;
use crate::source::crawl::{Earlier, Settle};
use crate::source::live::{Fetched, Live, Mode};
use crate::source::{file, offline};
use crate::targets::Scope;
use crate::targets::TargetSpec;
use crate::targets::failing_roots;

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
    settings.scope.named()
}

/// Loads, reusing `live` when given, and hands the connection back.
pub async fn load_keep(
    settings: &Settings,
    specs: &[TargetSpec],
    mode: Mode,
    live: Option<Live>,
) -> anyhow::Result<Loaded> {
    load_more(settings, specs, mode, live, None, None).await
}

/// Loads; `earlier`: the events and sweep lists an earlier read of the
/// same question already has.
async fn load_more(
    settings: &Settings,
    specs: &[TargetSpec],
    mode: Mode,
    live: Option<Live>,
    earlier: Option<Earlier>,
    settle: Option<Arc<dyn Settle>>,
) -> anyhow::Result<Loaded> {
    if let Some(path) = &settings.snapshot {
        let mut snapshot = file::load_snapshot(path, settings.now, settings.snapshot_limit)?;
        let targets: Vec<Target> = offline::resolve(
            &snapshot,
            specs,
            offline_namespace(settings),
            settings.sweep_labels.as_deref(),
        )
        .map_err(super::UsageError)?;
        // A tree the snapshot does not hold is a gap, not an all clear.
        if matches!(mode, Mode::Tree { .. } | Mode::Why) && !specs.is_empty() {
            let missing = offline::missing_trees(&snapshot, &targets);
            snapshot.incomplete.extend(missing);
        }
        return Ok(Loaded {
            fetched: Fetched {
                snapshot,
                targets,
                watches: vec![],
                gaps: Default::default(),
                events_read: Default::default(),
                leaned_on_types: false,
                swept: Default::default(),
            },
            live: None,
        });
    }
    let work = async {
        let mut live = match live {
            Some(live) => live,
            None => Live::connect(&settings.connection, settings.cache_dir.clone()).await?,
        };
        live.live = settings.live;
        live.settle = settle;
        live.sweep_labels = settings.sweep_labels.clone();
        live.impersonation = settings.connection.identity_flags();
        let scope = scope(settings, &live);
        let mut fetched = live.fetch(specs, &scope, mode, earlier).await?;
        // Targets (named, or a sweep's roots) of kinds no convention
        // reads: their CRDs speak, one GET per kind, at most MAX_CRDS.
        live.read_crds(&mut fetched, &settings.judge()).await;
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
    settings.scope.resolve(&live.default_namespace)
}

pub async fn load_why(settings: &Settings, specs: &[TargetSpec]) -> anyhow::Result<Fetched> {
    Ok(load_why_keep(settings, specs).await?.0.fetched)
}

/// What `why` needs: the trees under the targets and the owners above
/// them. With no target, the roots of the namespace are judged first and
/// only those not converged are read in depth; a sweep does not keep the
/// roots it judges converged as their lists arrive ([`settles`]), and
/// hands back who kept their rows.
pub async fn load_why_keep(
    settings: &Settings,
    specs: &[TargetSpec],
) -> anyhow::Result<(Loaded, Option<Arc<Settled>>)> {
    if settings.snapshot.is_some() || !specs.is_empty() {
        let mut loaded = load_keep(settings, specs, Mode::Why, None).await?;
        if specs.is_empty() {
            loaded.fetched.targets = failing_roots(
                &settings.judge().on(&loaded.fetched.snapshot),
                &loaded.fetched.targets,
            );
        }
        return Ok((loaded, None));
    }
    let settled = settles(settings, specs).then(|| Arc::new(Settled::new(settings.judge())));
    let settler = settled.clone().map(|s| s as Arc<dyn Settle>);
    let mut roots = load_more(settings, specs, Mode::Roots, None, None, settler).await?;
    let settler = roots.live.as_mut().and_then(|live| live.settle.take());
    let failing = failing_specs(settings, &roots.fetched, |_| true);
    if failing.is_empty() {
        let loaded = Loaded {
            fetched: Fetched {
                targets: vec![],
                ..roots.fetched
            },
            live: roots.live,
        };
        return Ok((still_settling(loaded, settler), settled));
    }
    let loaded = deeper(settings, roots, &failing, Mode::Why, Answer::Deeper).await?;
    Ok((still_settling(loaded, settler), settled))
}

/// A sweep that stays live (`--watch`) settles its roots as they change,
/// as it did as they arrived: its watches are handed who keeps the rows.
/// The read in depth between, of the roots not converged, settles none.
fn still_settling(mut loaded: Loaded, settler: Option<Arc<dyn Settle>>) -> Loaded {
    if let Some(live) = loaded.live.as_mut().filter(|live| live.live) {
        live.settle = settler;
    }
    loaded
}

/// What `status` needs: the targets (or the roots of the namespace) and
/// their context; then, for those not converged, the trees below them, so
/// that a row can name the failing pod behind a workload. A snapshot has
/// everything already. Also who kept the rows of the roots a sweep
/// settled as their lists arrived ([`settles`]), whose objects were not
/// kept.
pub async fn load_status_keep(
    settings: &Settings,
    specs: &[TargetSpec],
) -> anyhow::Result<(Loaded, Option<Arc<Settled>>)> {
    let settled = settles(settings, specs).then(|| Arc::new(Settled::new(settings.judge())));
    let settler = settled.clone().map(|s| s as Arc<dyn Settle>);
    let mut first = load_more(settings, specs, Mode::Status, None, None, settler).await?;
    let settler = first.live.as_mut().and_then(|live| live.settle.take());
    if settings.snapshot.is_some() {
        return Ok((first, settled));
    }
    let failing = failing_specs(settings, &first.fetched, has_known_children);
    if failing.is_empty() {
        return Ok((still_settling(first, settler), settled));
    }
    let mode = Mode::Tree { owners: false };
    let loaded = deeper(settings, first, &failing, mode, Answer::First).await?;
    Ok((still_settling(loaded, settler), settled))
}

/// Whether a `status` or `why` sweep keeps only the rows of the roots it
/// can judge alone and finds converged: a read of the cluster, one-shot
/// or kept current by `--watch`, whose rows need nothing more of those
/// objects (no `--field-selector` over their fields, no label columns).
fn settles(settings: &Settings, specs: &[TargetSpec]) -> bool {
    specs.is_empty()
        && settings.snapshot.is_none()
        && !settings.capturing
        && settings.field_selector.is_none()
        && !settings.view.show_labels
        && settings.view.label_columns.is_empty()
}

/// Whose targets a deeper read answers about.
enum Answer {
    /// The first read's (`status`: every target, some read deeper).
    First,
    /// The deeper read's (`why` with no target: only the failing roots).
    Deeper,
}

/// The targets of a read that are not converged and pass `keep`, as
/// specs that name exactly them, most severe first.
fn failing_specs(
    settings: &Settings,
    fetched: &Fetched,
    keep: impl Fn(&crate::model::Object) -> bool,
) -> Vec<TargetSpec> {
    failing_roots(&settings.judge().on(&fetched.snapshot), &fetched.targets)
        .iter()
        .filter_map(|t| match t {
            Target::Found(uid) => fetched.snapshot.get(uid),
            Target::Missing(_) => None,
        })
        .filter(|o| keep(o))
        .map(|o| identity(&o.id))
        .collect()
}

/// Reads `specs` again in `mode`, on the same connection and without the
/// events already read, and joins the two reads.
async fn deeper(
    settings: &Settings,
    mut first: Loaded,
    specs: &[TargetSpec],
    mode: Mode,
    answer: Answer,
) -> anyhow::Result<Loaded> {
    let earlier = Earlier {
        events: first.fetched.events_read.clone(),
        // Taken: the first read's sweep is not needed after this one.
        swept: std::mem::take(&mut first.fetched.swept),
    };
    let deep = load_more(settings, specs, mode, first.live, Some(earlier), None).await?;
    let targets = match answer {
        Answer::First => first.fetched.targets.clone(),
        Answer::Deeper => deep.fetched.targets.clone(),
    };
    let fetched = merge(first.fetched, deep.fetched, targets);
    Ok(Loaded {
        fetched,
        live: deep.live,
    })
}

/// Workloads whose children (pods, Jobs) explain their verdict.
fn has_known_children(obj: &crate::model::Object) -> bool {
    crate::catalog::makes_pods(obj.group(), obj.kind())
}

/// The second read of a question joined to the first: the objects,
/// events, gaps and watches of both, about `targets`.
fn merge(first: Fetched, second: Fetched, targets: Vec<Target>) -> Fetched {
    let mut builder = SnapshotBuilder::new();
    let now = second.snapshot.now;
    let mut gaps = first.gaps;
    gaps.extend(second.gaps);
    for snap in [first.snapshot, second.snapshot] {
        builder.events(snap.events.iter().cloned());
        builder.objects(snap.into_objects());
    }
    builder.gaps(&gaps);
    let mut watches = first.watches;
    for w in second.watches {
        if !watches.iter().any(|had| had.read == w.read) {
            watches.push(w);
        }
    }
    Fetched {
        snapshot: builder.build(now),
        targets,
        watches,
        gaps,
        events_read: second.events_read,
        leaned_on_types: first.leaned_on_types || second.leaned_on_types,
        swept: Default::default(),
    }
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
