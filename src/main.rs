//! The `kubectl-reconcile` binary: parse flags, run the command, print, and
//! map the outcome to an exit status (0 converged, 1 not, 2 could not answer).
//! A closed pipe (`| head`) is not an error.
//!
//! main prints the answer: with `src/terminal.rs` and the request log, the
//! only code that touches stdout and stderr (see clippy.toml).
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use kubectl_reconcile::app::Cli;

fn main() -> ExitCode {
    // kubectl's plugin completion (through kubectl_complete-reconcile) comes
    // before clap: a partial command line is not a valid one.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == kubectl_reconcile::app::PROTOCOL_ARG)
    {
        let words: Vec<String> = std::env::args_os()
            .skip(2)
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        return print(&kubectl_reconcile::app::respond(&words), 0);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(&e),
    };
    kubectl_reconcile::app::set_level(cli.global.verbosity);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&anyhow::anyhow!("cannot start: {e}")),
    };
    let result = runtime.block_on(kubectl_reconcile::app::run(cli));
    // Nothing left running (a watch's tasks, a blocking read) may hold up
    // the answer or Ctrl-C.
    runtime.shutdown_background();
    match result {
        Ok(outcome) => print(&outcome.stdout, outcome.code),
        Err(e) => fail(&e),
    }
}

/// Help and bare `kubectl reconcile` print clap's help; a usage error is
/// one kubectl-like line and where to read more (exit 2).
fn usage(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        err.exit();
    }
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let _ = writeln!(
        std::io::stderr(),
        "error: {}",
        kubectl_reconcile::app::usage_error(err, &argv)
    );
    ExitCode::from(2)
}

fn print(stdout: &str, code: u8) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(stdout.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&anyhow::anyhow!("cannot write the output: {e}")),
    }
}

fn fail(err: &anyhow::Error) -> ExitCode {
    // Errors carry the server's words (an API status message, a webhook's
    // failure): escaped here, the one place every error is printed, with
    // the line breaks before `hint:` kept.
    let text = kubectl_reconcile::app::anyhow_chain(err);
    let _ = writeln!(
        std::io::stderr(),
        "error: {}",
        kubectl_reconcile::app::escape_multiline(&text)
    );
    ExitCode::from(2)
}
