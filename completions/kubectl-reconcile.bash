# bash completion for kubectl-reconcile. It asks `kubectl-reconcile
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
