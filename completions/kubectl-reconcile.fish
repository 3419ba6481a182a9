# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_reconcile_global_optspecs
    string join \n V/version n/namespace= A/all-namespaces kubeconfig= context= cluster= user= as= as-group= request-timeout= o/output= color= snapshot= now= cache-dir= h/help
end

function __fish_kubectl_reconcile_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_reconcile_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_reconcile_using_subcommand
    set -l cmd (__fish_kubectl_reconcile_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -s V -l version -d 'Print the plugin\'s version, and the server\'s if the cluster answers within 2s'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "tree" -d 'Owner-reference tree under each target, with a verdict on every node'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "why" -d 'The root cause of non-convergence, with its evidence and a next step'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "status" -d 'One line per object: verdict, reason, age of the last change'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "wait" -d 'Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis)'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "completion" -d 'Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl\'s plugin completion helper'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s l -l selector -d 'Label selector, with a TYPE (e.g. -l app=web)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s f -l filename -d 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s w -l watch -d 'Keep watching: redraw (or print changes) as controllers act'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l owners -d 'Also show the chain of owners above each target, up to its root'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -l all -d 'List every node instead of grouping large fan-outs by verdict and reason'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand tree" -s h -l help -d 'Print help'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s l -l selector -d 'Label selector, with a TYPE (e.g. -l app=web)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s f -l filename -d 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s w -l watch -d 'Keep watching: redraw (or print changes) as controllers act'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -l verbose -d 'With no target: show each object\'s generation, conditions and events too, as for a single target'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand why" -s h -l help -d 'Print help'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s l -l selector -d 'Label selector, with a TYPE (e.g. -l app=web)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s f -l filename -d 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s w -l watch -d 'Keep watching: redraw (or print changes) as controllers act'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand status" -s h -l help -d 'Print help'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s l -l selector -d 'Label selector, with a TYPE (e.g. -l app=web)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s f -l filename -d 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l for -d 'What to wait for' -r -f -a "converged\t''
deleted\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l timeout -d 'Give up after this long (e.g. 90s, 5m, 1h)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand wait" -s h -l help -d 'Print help'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l install-dir -d 'With kubectl: the directory to install kubectl_complete-reconcile into (default: where kubectl-reconcile is on PATH)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -s n -l namespace -d 'Namespace of the targets (default: the kubeconfig context\'s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l as -d 'Username to impersonate' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l request-timeout -d 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l color -d 'When to colour text output; NO_COLOR turns colour off' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l snapshot -d 'Read cluster state from a snapshot (file, directory or -) instead of a server' -r -F
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l now -d 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot' -r
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -l cache-dir -d 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "tree" -d 'Owner-reference tree under each target, with a verdict on every node'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "why" -d 'The root cause of non-convergence, with its evidence and a next step'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "status" -d 'One line per object: verdict, reason, age of the last change'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "wait" -d 'Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis)'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "completion" -d 'Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl\'s plugin completion helper'
complete -c kubectl-reconcile -n "__fish_kubectl_reconcile_using_subcommand help; and not __fish_seen_subcommand_from tree why status wait completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
