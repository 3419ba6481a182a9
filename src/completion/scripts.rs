//! Completion scripts for bash, zsh, fish and PowerShell for the
//! `kubectl-reconcile` executable. Each one asks `kubectl-reconcile
//! __complete WORDS... PARTIAL` (the protocol kubectl's plugin completion
//! uses, see [`super::protocol`]) and so completes what kubectl reconcile
//! <TAB> does: subcommands, flags and their values, resource types, live
//! object names and namespaces. The answer is cobra's: one candidate a line
//! (`value` or `value<TAB>description`), then `:DIRECTIVE`. Copies are
//! committed under `completions/`; a test fails when they are stale.

use clap_complete::{Generator, Shell};

/// The executable the scripts complete.
pub const BIN: &str = "kubectl-reconcile";

/// Every shell with a script, in the order of the committed copies.
pub const SHELLS: [Shell; 4] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell];

/// The script for one shell.
pub fn generate(shell: Shell) -> String {
    match shell {
        Shell::Bash => BASH,
        Shell::Zsh => ZSH,
        Shell::Fish => FISH,
        Shell::PowerShell => POWERSHELL,
        _ => unreachable!("SHELLS lists the shells with a script"),
    }
    .to_string()
}

/// The conventional file name of a shell's script (`_kubectl-reconcile` for
/// zsh), as committed under `completions/`.
pub fn file_name(shell: Shell) -> String {
    shell.file_name(BIN)
}

// Directive bits (protocol::directive): 2 no space, 4 no file names,
// 16 directories only.

const BASH: &str = r#"# bash completion for kubectl-reconcile. It asks `kubectl-reconcile
# __complete`, which also answers kubectl's plugin completion, so live object
# names and namespaces complete here too.
#   source <(kubectl-reconcile completion bash)

_kubectl_reconcile() {
    local line=${COMP_LINE:0:$COMP_POINT}
    local -a words
    read -ra words <<<"$line"
    [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=("")
    local cur=${words[${#words[@]}-1]}
    local out
    out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return
    local directive=${out##*:}
    [[ $directive =~ ^[0-9]+$ ]] || return
    local -a values=()
    local entry
    while IFS= read -r entry; do
        [[ -z $entry || $entry == :* ]] && continue
        values+=("${entry%%$'\t'*}")
    done <<<"$out"
    COMPREPLY=()
    local IFS=$'\n'
    if (( directive & 16 )); then
        COMPREPLY=($(compgen -d -- "$cur"))
        return
    fi
    if (( ${#values[@]} == 0 )); then
        (( directive & 4 )) || COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    # After `--flag=`, the values are bare (as cobra answers them).
    local match=$cur
    [[ $cur == --*=* ]] && match=${cur#*=}
    local value
    for value in "${values[@]}"; do
        [[ $value == "$match"* ]] && COMPREPLY+=("$value")
    done
    # bash replaces only the part of the word after its last = or :.
    if [[ $match == *[=:]* ]]; then
        local keep=${match%"${match##*[=:]}"}
        COMPREPLY=("${COMPREPLY[@]#"$keep"}")
    fi
}

complete -o default -F _kubectl_reconcile kubectl-reconcile
"#;

const ZSH: &str = r#"#compdef kubectl-reconcile
# zsh completion for kubectl-reconcile. It asks `kubectl-reconcile
# __complete`, which also answers kubectl's plugin completion, so live object
# names and namespaces complete here too. Put this file on $fpath as
# _kubectl-reconcile, or: source <(kubectl-reconcile completion zsh)

_kubectl-reconcile() {
    setopt localoptions extendedglob
    local -a lines values described
    local out directive entry value
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    [[ $directive == <-> ]] || return 1
    for entry in "${(@)lines[1,-2]}"; do
        [[ -z $entry ]] && continue
        value=${entry%%$'\t'*}
        values+=("$value")
        # _describe's "value:description", the value's colons escaped:
        # it aligns the descriptions in a column, as kubectl's list is.
        if [[ $entry == *$'\t'* ]]; then
            described+=("${value//:/\\:}:${entry#*$'\t'}")
        else
            described+=("${value//:/\\:}")
        fi
    done
    if (( directive & 16 )); then
        _path_files -/
        return
    fi
    if (( ${#values} == 0 )); then
        (( directive & 4 )) && return 1
        _files
        return
    fi
    local -a suffix
    (( directive & 2 )) && suffix=(-S '')
    # After `--flag=`, the values are bare (as cobra answers them): the
    # `--flag=` part stays as typed.
    [[ $PREFIX == --[^=]##=* ]] && compset -P '--[^=]##='
    _describe -t values 'value' described "${suffix[@]}"
}

if [[ $funcstack[1] == _kubectl-reconcile ]]; then
    _kubectl-reconcile "$@"
else
    compdef _kubectl-reconcile kubectl-reconcile
fi
"#;

const FISH: &str = r#"# fish completion for kubectl-reconcile. It asks `kubectl-reconcile
# __complete`, which also answers kubectl's plugin completion, so live object
# names and namespaces complete here too.
#   kubectl-reconcile completion fish > ~/.config/fish/completions/kubectl-reconcile.fish

function __kubectl_reconcile_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l program $words[1]
    set -e words[1]
    set -l out (command $program __complete $words "$current" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive; or return
    set -e out[-1]
    if test (math "bitand($directive, 16)") -ne 0
        __fish_complete_directories "$current"
        return
    end
    if test (count $out) -eq 0
        if test (math "bitand($directive, 4)") -eq 0
            __fish_complete_path "$current"
        end
        return
    end
    # After `--flag=`, the values are bare (as cobra answers them); fish
    # matches candidates against the whole token, so they get the prefix.
    set -l flag (string match -r -- '^--[^=]+=' "$current")
    printf "$flag%s\n" $out
end

complete -c kubectl-reconcile -f -a '(__kubectl_reconcile_complete)'
"#;

const POWERSHELL: &str = r#"# PowerShell completion for kubectl-reconcile. It asks `kubectl-reconcile
# __complete`, which also answers kubectl's plugin completion, so live object
# names and namespaces complete here too.
#   kubectl-reconcile completion powershell | Out-String | Invoke-Expression

Register-ArgumentCompleter -Native -CommandName 'kubectl-reconcile' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements |
        Where-Object { $_.Extent.StartOffset -lt $cursorPosition } |
        ForEach-Object { $_.Extent.Text })
    $arguments = @($words | Select-Object -Skip 1)
    if ($wordToComplete -eq '') {
        # An empty argument must survive native argument passing.
        $arguments += '""'
    }
    $out = @(& $words[0] __complete @arguments 2>$null)
    # After `--flag=`, the values are bare (as cobra answers them).
    $flag = ''
    if ($wordToComplete -match '^(--[^=]+=)') { $flag = $Matches[1] }
    if ($out.Count -eq 0) { return }
    $directive = 0
    if (-not [int]::TryParse($out[-1].TrimStart(':'), [ref]$directive)) { return }
    $candidates = @($out | Select-Object -SkipLast 1 | Where-Object { $_ -ne '' })
    if ($candidates.Count -eq 0 -and ($directive -band 4) -eq 0) {
        # Nothing from the plugin: let PowerShell complete paths.
        return
    }
    foreach ($entry in $candidates) {
        $value, $description = $entry -split "`t", 2
        if (-not $description) { $description = $value }
        [System.Management.Automation.CompletionResult]::new(
            "$flag$value", $value, 'ParameterValue', $description)
    }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_asks_the_plugin_and_registers_for_the_executable() {
        for shell in SHELLS {
            let script = generate(shell);
            assert!(script.contains("__complete"), "{shell}");
            assert!(script.contains("kubectl-reconcile"), "{shell}");
        }
        assert_eq!(file_name(Shell::Zsh), "_kubectl-reconcile");
        assert_eq!(file_name(Shell::Bash), "kubectl-reconcile.bash");
    }
}
