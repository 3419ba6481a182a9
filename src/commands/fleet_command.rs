//! A command asked of a fleet (`--contexts`, `--all-contexts`): `status`
//! as one table, `why`, `tree`, `wait` and `controllers` as a section per
//! context (those of `why`, `tree` and `controllers` printed as they come
//! in), and each of them live under `--watch` on one screen.

use std::future::Future;

use super::fleet::{self, each, each_section, exit_code};
use super::fleet_watch::{FleetScreen, Seat};
use super::frame::Shown;
use super::{Outcome, target_specs, wait};
use crate::cli::Command;
use crate::settings::Settings;

/// A command asked of every context of the fleet: `status` as one table,
/// the others a section per context. Commands that are not about the
/// cluster (`rules`, `completion`, `options`) run once.
pub async fn run(command: Command, mut settings: Settings) -> anyhow::Result<Outcome> {
    let deadline = settings.deadline;
    match command {
        Command::Status(args) => {
            let specs = target_specs(&args.targets, &mut settings)?;
            if args.watch {
                return watch(&settings, |one, seat| {
                    let specs = &specs;
                    async move { super::status::run(&one, specs, Shown::Live, seat).await }
                })
                .await;
            }
            super::status::fleet(&settings, &specs).await
        }
        Command::Tree(args) => {
            let flags = super::tree::TreeFlags {
                owners: args.owners,
                all: args.all,
                watch: args.watch,
            };
            let specs = target_specs(&args.targets, &mut settings)?;
            let run = |one: Settings, seat: Option<Seat>| {
                let specs = &specs;
                async move { super::tree::run(&one, specs, flags, seat).await }
            };
            if args.watch {
                return watch(&settings, run).await;
            }
            each_section(&settings, "tree", deadline, |one, _| run(one, None)).await
        }
        Command::Why(args) => {
            let specs = target_specs(&args.targets, &mut settings)?;
            let verbose = args.verbose;
            let shown = Shown::watching(args.watch);
            let run = |one: Settings, seat: Option<Seat>| {
                let specs = &specs;
                async move { super::why::run(&one, specs, shown, verbose, None, seat).await }
            };
            if args.watch {
                return watch(&settings, run).await;
            }
            each_section(&settings, "why", deadline, |one, _| run(one, None)).await
        }
        Command::Controllers => {
            each_section(&settings, "controllers", deadline, |one, _| async move {
                super::controllers::run(&one).await
            })
            .await
        }
        Command::Wait(args) => {
            let (timeout, failure_grace) = super::wait_flags(&args)?;
            let specs = target_specs(&args.targets, &mut settings)?;
            // One progress line for the fleet.
            let line = wait::FleetLine::shared();
            each(&settings, "wait", timeout + deadline, |one, member| {
                let specs = &specs;
                let seat = wait::LineSeat::at(&line, &member.name);
                let wait = wait::Wait {
                    want: args.for_,
                    timeout,
                    failure_grace,
                    capture: None,
                    seat: Some(seat),
                };
                async move { wait::run(&one, specs, wait).await }
            })
            .await
        }
        other => {
            settings.fleet = None;
            super::run_one(other, settings).await
        }
    }
}

/// `--watch` of a fleet: every context's watch at once (so at most
/// `--max-contexts` of them), each drawing on its seat of one screen,
/// until Ctrl-C. A context that gives no answer says so in its section.
async fn watch<F, Fut>(settings: &Settings, run: F) -> anyhow::Result<Outcome>
where
    F: Fn(Settings, Option<Seat>) -> Fut,
    Fut: Future<Output = anyhow::Result<Outcome>>,
{
    let (members, parallel) = fleet::members(settings)?;
    if members.len() > parallel {
        return Err(super::UsageError(format!(
            "--watch keeps every context's watches open at once: {} contexts match, more than --max-contexts {parallel}\nhint: name fewer contexts, or raise --max-contexts",
            members.len(),
        ))
        .into());
    }
    let screen = FleetScreen::new(settings, &members);
    let runs = members.into_iter().enumerate().map(|(index, member)| {
        let seat = Seat::at(&screen, index, &member.name);
        let answer = run(fleet::for_context(settings, &member), Some(seat.clone()));
        async move {
            let result = answer.await;
            if let Some(e) = result.as_ref().err().filter(|e| !fleet::is_usage(e)) {
                let e = fleet::unanswered(e);
                seat.unanswered(e.reason, &e.message);
            }
            (member, result)
        }
    });
    let answers = fleet::settle(futures::future::join_all(runs).await)?;
    Ok(Outcome {
        stdout: String::new(),
        code: exit_code(&answers, |o| o.code),
    })
}
