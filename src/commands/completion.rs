//! `completion SHELL`: a completion script for bash, zsh, fish or
//! PowerShell; `completion kubectl` installs kubectl's plugin completion
//! helper.

use clap_complete::Shell;

use super::{Outcome, UsageError};
use crate::cli::{CompletionArgs, CompletionShell};
use crate::completion::{install, scripts};

pub fn run(args: &CompletionArgs) -> anyhow::Result<Outcome> {
    let shell = match args.shell {
        CompletionShell::Kubectl => return install_helper(args),
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
        CompletionShell::Powershell => Shell::PowerShell,
    };
    if args.install_dir.is_some() {
        return Err(UsageError("--install-dir only goes with `completion kubectl`; a script is printed, redirect it where your shell reads completions".into()).into());
    }
    Ok(Outcome {
        stdout: scripts::generate(shell),
        code: 0,
    })
}

fn install_helper(args: &CompletionArgs) -> anyhow::Result<Outcome> {
    let done = install::install(args.install_dir.as_deref())?;
    let mut out = if done.unchanged {
        format!("{} is already installed\n", done.path.display())
    } else {
        format!(
            "installed {} (a copy of {})\n",
            done.path.display(),
            done.from.display()
        )
    };
    if done.on_path {
        out.push_str("kubectl reconcile <TAB> completes with kubectl 1.26 or later, once kubectl's own completion is loaded (e.g. source <(kubectl completion bash))\n");
    } else {
        out.push_str(&format!(
            "warning: {} is not on PATH, where kubectl looks for {}\n",
            done.path.parent().unwrap_or(&done.path).display(),
            install::HELPER
        ));
    }
    Ok(Outcome {
        stdout: out,
        code: 0,
    })
}
