//! Completion scripts for bash, zsh, fish and PowerShell, generated from the
//! clap definitions for the `kubectl-reconcile` executable. Copies are
//! committed under `completions/`; a test fails when they are stale.

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

use crate::cli::Cli;

/// The executable the scripts complete.
pub const BIN: &str = "kubectl-reconcile";

/// Every shell with a script, in the order of the committed copies.
pub const SHELLS: [Shell; 4] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell];

/// The script for one shell.
pub fn generate(shell: Shell) -> String {
    // clap_complete's bash script never completes past a subcommand when the
    // name has a hyphen (clap-rs/clap#6421): generate it for a name without
    // one, then register it for the real name. The function only compares
    // the first word with the name it is registered for.
    let name = if shell == Shell::Bash { BASH_NAME } else { BIN };
    // The usage lines say `kubectl reconcile`; the scripts complete the
    // executable, and a name with a space confuses the generators too.
    let mut cmd = Cli::command().bin_name(name);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    let script = String::from_utf8(out).expect("clap_complete writes UTF-8");
    if shell == Shell::Bash {
        script
            .lines()
            .map(|line| match line.trim_start().starts_with("complete -F ") {
                true => line.replace(&format!(" {BASH_NAME}"), &format!(" {BIN}")),
                false => line.to_string(),
            })
            .map(|line| line + "\n")
            .collect()
    } else {
        script
    }
}

const BASH_NAME: &str = "kubectl_reconcile";

/// The conventional file name of a shell's script (`_kubectl-reconcile` for
/// zsh), as committed under `completions/`.
pub fn file_name(shell: Shell) -> String {
    shell.file_name(BIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_knows_every_subcommand() {
        for shell in SHELLS {
            let script = generate(shell);
            for sub in ["tree", "status", "completion"] {
                assert!(script.contains(sub), "{shell}: {sub}");
            }
            assert!(script.contains("namespace"), "{shell}");
        }
        assert_eq!(file_name(Shell::Zsh), "_kubectl-reconcile");
        assert_eq!(file_name(Shell::Bash), "kubectl-reconcile.bash");
    }
}
