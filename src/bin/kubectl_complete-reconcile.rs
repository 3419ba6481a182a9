//! kubectl's plugin completion helper. For `kubectl reconcile ARGS...
//! PARTIAL<TAB>`, kubectl 1.26 and later run `kubectl_complete-reconcile
//! ARGS... PARTIAL` from PATH; this runs `kubectl-reconcile __complete ARGS...
//! PARTIAL`, which prints the candidates in cobra's format.
//!
//! A separate program, not a shell script, so that it needs no shell and
//! works on Windows; std only, so that it stays small and can be copied
//! anywhere (`kubectl reconcile completion kubectl` does). It runs the plugin
//! next to itself (as invoked, then its real location), else the first on PATH.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let Some(plugin) = find_plugin() else {
        // kubectl then falls back to its default; a message here would land
        // in the middle of the user's command line.
        return ExitCode::FAILURE;
    };
    let mut command = Command::new(plugin);
    command.arg("__complete").args(std::env::args_os().skip(1));
    run(command)
}

#[cfg(unix)]
fn run(mut command: Command) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let _ = command.exec();
    ExitCode::FAILURE
}

#[cfg(not(unix))]
fn run(mut command: Command) -> ExitCode {
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

fn find_plugin() -> Option<PathBuf> {
    let name = format!("kubectl-reconcile{}", std::env::consts::EXE_SUFFIX);
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(arg0) = std::env::args_os().next().map(PathBuf::from)
        && arg0.components().count() > 1
        && let Some(dir) = arg0.parent()
    {
        dirs.push(dir.to_path_buf());
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            dirs.push(dir.to_path_buf());
        }
        if let Some(dir) = exe
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(PathBuf::from))
        {
            dirs.push(dir);
        }
    }
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    dirs.into_iter()
        .map(|d| d.join(&name))
        .find(|p| p.is_file())
}
