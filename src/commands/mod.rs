//! Commands: each receives resolved settings, gets a snapshot from a source,
//! runs the pure stages, and returns the text to print and the exit status.

pub mod completion;
pub mod controllers;
mod fleet;
mod fleet_command;
pub(crate) mod fleet_watch;
mod frame;
mod load;
mod rule_files;
pub mod rules;
mod screen;
mod settled;
pub mod snapshot;
pub mod status;
pub mod tree;
pub mod version;
pub mod wait;
mod watch;
pub mod why;

use crate::cli::{Cli, Command, TargetArgs};
use crate::report::Item;
use crate::settings::{Settings, Shape};
use crate::targets::{self, TargetSpec};
use crate::verdict::Verdict;

pub use load::{load_keep, load_why_keep};

/// What a command produced: stdout text and the exit status (0 or 1; the
/// tool's own failures are errors, status 2).
pub struct Outcome {
    pub stdout: String,
    pub code: u8,
}

/// A failure the user can fix: wrong flags or targets.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub async fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let mut settings = Settings::from_args(&cli.global).map_err(UsageError)?;
    if cli.version {
        return Ok(version::run(&settings).await);
    }
    let Some(command) = cli.command else {
        return Ok(Outcome {
            stdout: crate::cli::OVERVIEW.into(),
            code: 0,
        });
    };

    // The whole command's deadline holds for CPU work too (discovery of a
    // huge catalog, a costly health rule over a huge object): I/O has its
    // timeouts, but work on the CPU does not yield to them.
    let watching = match &command {
        Command::Tree(a) => a.watch,
        Command::Status(a) => a.watch,
        Command::Why(a) => a.watch,
        _ => false,
    };
    settings.live = watching || matches!(command, Command::Wait(_));
    if matches!(settings.view.output, Shape::Dot | Shape::Mermaid)
        && (watching || settings.fleet.is_some() || !matches!(command, Command::Tree(_)))
    {
        return Err(UsageError(
            "-o dot and -o mermaid draw the trees of one answer: use them with tree, without --watch or --contexts, e.g. `kubectl reconcile tree deploy/web -o dot`".into(),
        )
        .into());
    }
    if settings.fleet.is_some() {
        fleet_refusals(&command)?;
    }
    if !watching {
        let limit = match &command {
            Command::Wait(a) => crate::settings::parse_duration(&a.timeout).unwrap_or_default(),
            Command::Completion(_) => std::time::Duration::from_secs(5),
            _ => std::time::Duration::ZERO,
        };
        watchdog(settings.deadline.max(limit) + WATCHDOG_MARGIN);
    }
    if !matches!(command, Command::Completion(_) | Command::Options) {
        let locations = rule_files::Locations::from_env(settings.health_rules.clone());
        settings.rules = rule_files::load(&locations)?;
    }
    if settings.fleet.is_some() {
        return fleet_command::run(command, settings).await;
    }
    run_one(command, settings).await
}

/// The command asked of one context (or a snapshot).
async fn run_one(command: Command, mut settings: Settings) -> anyhow::Result<Outcome> {
    match command {
        Command::Options => Ok(Outcome {
            stdout: crate::cli::options_page(),
            code: 0,
        }),
        Command::Tree(args) => {
            let flags = tree::TreeFlags {
                owners: args.owners,
                all: args.all,
                watch: args.watch,
            };
            let specs = target_specs(&args.targets, &mut settings)?;
            tree::run(&settings, &specs, flags, None).await
        }
        Command::Status(args) => {
            let specs = target_specs(&args.targets, &mut settings)?;
            status::run(&settings, &specs, frame::Shown::watching(args.watch), None).await
        }
        Command::Why(args) => {
            let specs = target_specs(&args.targets, &mut settings)?;
            settings.anonymize = args.anonymize;
            let capture = match &args.capture {
                Some(path) if settings.snapshot.is_none() => {
                    settings.capturing = true;
                    Some((
                        path.as_path(),
                        capture_command(&settings, "why", &args.targets),
                    ))
                }
                Some(_) => {
                    return Err(UsageError(
                        "--capture needs a live cluster: a --snapshot file is a capture already"
                            .into(),
                    )
                    .into());
                }
                None => None,
            };
            why::run(
                &settings,
                &specs,
                frame::Shown::watching(args.watch),
                args.verbose,
                capture,
                None,
            )
            .await
        }
        Command::Controllers => controllers::run(&settings).await,
        Command::Wait(args) => {
            let (timeout, grace) = wait_flags(&args)?;
            settings.anonymize = args.anonymize;
            let specs = target_specs(&args.targets, &mut settings)?;
            let capture = args
                .capture
                .clone()
                .map(|path| (path, capture_command(&settings, "wait", &args.targets)));
            wait::run(
                &settings,
                &specs,
                wait::Wait {
                    want: args.for_,
                    timeout,
                    failure_grace: grace,
                    capture,
                    seat: None,
                },
            )
            .await
        }
        Command::Snapshot(args) => {
            let specs = target_specs(&args.targets, &mut settings)?;
            settings.capturing = true;
            settings.anonymize = args.anonymize;
            let command = capture_command(&settings, "snapshot", &args.targets);
            snapshot::run(&settings, &specs, command, args.output_file.as_deref()).await
        }
        Command::Completion(args) => completion::run(&args),
        Command::Rules(args) => rules::run(&settings, &args.types).await,
    }
}

/// `wait`'s `--timeout`, and how long new pods may fail hard (`--fail-fast`,
/// `--failure-grace`; `None`: the default).
pub(super) fn wait_flags(
    args: &crate::cli::WaitArgs,
) -> Result<(std::time::Duration, Option<jiff::SignedDuration>), UsageError> {
    // 0 is kubectl's "check once": the state is read, judged, and
    // the wait ends at once (exit 1 with the diagnosis if pending).
    let timeout = crate::settings::parse_duration(&args.timeout)
        .map_err(|e| UsageError(format!("--timeout {e}")))?;
    let grace = match (&args.failure_grace, args.fail_fast) {
        (_, true) => Some(std::time::Duration::ZERO),
        (Some(g), false) => Some(
            crate::settings::parse_duration(g)
                .map_err(|e| UsageError(format!("--failure-grace {e}")))?,
        ),
        (None, false) => None,
    };
    let grace = grace
        .map(jiff::SignedDuration::try_from)
        .transpose()
        .map_err(|_| UsageError("--failure-grace is too long".into()))?;
    if args.targets.targets.is_empty() && args.targets.selector.is_some() {
        return Err(UsageError(
            "wait's selector (-l) needs a TYPE, e.g. `wait deployments -l app=web`".into(),
        ));
    }
    Ok((timeout, grace))
}

/// What a fleet answer (`--contexts`, `--all-contexts`) does not do, with
/// what to do instead.
fn fleet_refusals(command: &Command) -> Result<(), UsageError> {
    let refused = match command {
        Command::Snapshot(_) => {
            Some("a snapshot captures one context: run it per context with --context NAME")
        }
        Command::Why(a) if a.capture.is_some() => Some(
            "--capture captures one context: run `why --capture` per context with --context NAME",
        ),
        Command::Wait(a) if a.capture.is_some() => Some(
            "--capture captures one context: run `wait --capture` per context with --context NAME",
        ),
        _ => None,
    };
    match refused {
        Some(text) => Err(UsageError(text.into())),
        None => Ok(()),
    }
}

/// Past the command's own deadline, the margin the watchdog leaves for an
/// answer already being printed.
const WATCHDOG_MARGIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Ends the process with exit 2 once `after` has passed, whatever it is
/// doing: the bound of last resort on a command that computes too long.
fn watchdog(after: std::time::Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(after);
        crate::terminal::last_words(&format!(
            "error: gave up after {}s: the answer took too long to compute\nhint: narrow the question (a namespace, a target), or check the health rules in effect (kubectl reconcile rules)",
            after.as_secs()
        ));
        std::process::exit(2);
    });
}

/// The command a capture names in its header: the scope, the command and
/// its targets as typed; never a connection flag (server, user, token).
fn capture_command(settings: &Settings, command: &str, args: &TargetArgs) -> String {
    let mut words = vec!["kubectl reconcile".to_string()];
    match &settings.scope {
        targets::Asked::All => words.push("-A".into()),
        targets::Asked::Namespace(ns) => words.push(format!("-n {ns}")),
        targets::Asked::Context => {}
    }
    words.push(command.into());
    words.extend(args.targets.iter().cloned());
    if let Some(l) = &args.selector {
        words.push(format!("-l {l}"));
    }
    words.extend(args.files.iter().map(|f| format!("-f {f}")));
    words.join(" ")
}

/// The targets as the user spelled them. `-l` alone (no TYPE, no `-f`)
/// filters a sweep's roots: kept in `settings.sweep_labels`.
pub(super) fn target_specs(
    args: &TargetArgs,
    settings: &mut Settings,
) -> Result<Vec<TargetSpec>, UsageError> {
    let mut specs = targets::parse(&args.targets, args.selector.as_deref()).map_err(UsageError)?;
    if args.targets.is_empty() {
        match (&args.selector, args.files.is_empty()) {
            (Some(_), false) => {
                return Err(UsageError(
                    "give either manifests (-f) or a selector (-l), not both".into(),
                ));
            }
            (selector, _) => settings.sweep_labels = selector.clone(),
        }
    }
    if settings.scope.is_all() && specs.iter().any(|s| matches!(s, TargetSpec::Name { .. })) {
        return Err(UsageError(
            "a resource cannot be retrieved by name across all namespaces".into(),
        ));
    }
    for path in &args.files {
        specs.extend(
            crate::source::manifests::identities(path, args.recursive)
                .map_err(|e| UsageError(format!("{e:#}")))?,
        );
    }
    Ok(specs)
}

/// A sweep's status: 0 only when every root found is converged and
/// nothing went unread; a partial sweep cannot say all is converged, so it
/// is 1 (the footer names what is missing).
fn sweep_exit_code(
    items: &[std::sync::Arc<Item>],
    incomplete: &[crate::model::Incomplete],
    sweep: bool,
) -> u8 {
    answer_exit_code(exit_code(items.iter().map(|i| &**i)), incomplete, sweep)
}

/// An answer with a gap that could hide a failure is not exit 0: in a
/// sweep, any gap (a root may be in it); for targets, any gap but the
/// reads that only explain ([`explains_only`]).
fn answer_exit_code(code: u8, incomplete: &[crate::model::Incomplete], sweep: bool) -> u8 {
    let hiding = if sweep {
        !incomplete.is_empty()
    } else {
        incomplete.iter().any(|gap| !explains_only(&gap.resource))
    };
    if code == 0 && hiding { 1 } else { code }
}

/// The reads whose gaps cannot hide a failure of the targets or their
/// trees: events (a timeline), and the context a diagnosis reads to say
/// why (nodes, the existence of ConfigMaps, Secrets and ServiceAccounts,
/// classes, admission objects, quotas, Leases). A list of a tree's own
/// children (pods, ReplicaSets, a custom resource's dependents) always can.
pub fn explains_only(resource: &str) -> bool {
    let plural = resource.split('.').next().unwrap_or(resource);
    matches!(
        plural,
        "events"
            | "nodes"
            | "configmaps"
            | "secrets"
            | "serviceaccounts"
            | "storageclasses"
            | "ingressclasses"
            | "priorityclasses"
            | "runtimeclasses"
            | "leases"
            | "resourcequotas"
            | "limitranges"
            | "validatingwebhookconfigurations"
            | "mutatingwebhookconfigurations"
            | "validatingadmissionpolicies"
            | "validatingadmissionpolicybindings"
            | "namespaces"
            | "persistentvolumes"
    )
}

/// 0 when every target is converged, else 1.
fn exit_code<'a>(items: impl IntoIterator<Item = &'a Item>) -> u8 {
    u8::from(
        items
            .into_iter()
            .any(|i| i.judgement.verdict != Verdict::Converged),
    )
}

#[cfg(test)]
mod exit_tests {
    use super::answer_exit_code;
    use crate::model::Incomplete;

    fn gap(resource: &str) -> Incomplete {
        Incomplete {
            resource: resource.into(),
            namespace: Some("shop".into()),
            error: "forbidden".into(),
        }
    }

    #[test]
    fn a_gap_that_could_hide_a_failure_is_not_exit_0() {
        // Targets: the tree's own children could hide one; events and
        // context only explain.
        assert_eq!(answer_exit_code(0, &[gap("pods")], false), 1);
        assert_eq!(answer_exit_code(0, &[gap("replicasets.apps")], false), 1);
        assert_eq!(answer_exit_code(0, &[gap("widgets.example.com")], false), 1);
        assert_eq!(
            answer_exit_code(
                0,
                &[
                    gap("events"),
                    gap("nodes"),
                    gap("leases.coordination.k8s.io")
                ],
                false
            ),
            0
        );
        // A sweep: any gap.
        assert_eq!(answer_exit_code(0, &[gap("events")], true), 1);
        // A failure stays what it is.
        assert_eq!(answer_exit_code(1, &[], false), 1);
        assert_eq!(answer_exit_code(0, &[], true), 0);
    }
}
