# fish completion for kubectl-reconcile. It asks `kubectl-reconcile
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
