
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-reconcile' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-reconcile'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-reconcile' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print the plugin''s version, and the server''s if the cluster answers within 2s')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print the plugin''s version, and the server''s if the cluster answers within 2s')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Owner-reference tree under each target, with a verdict on every node')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'The root cause of non-convergence, with its evidence and a next step')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One line per object: verdict, reason, age of the last change')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl''s plugin completion helper')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-reconcile;tree' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('--owners', '--owners', [CompletionResultType]::ParameterName, 'Also show the chain of owners above each target, up to its root')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'List every node instead of grouping large fan-outs by verdict and reason')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-reconcile;why' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'With no target: show each object''s generation, conditions and events too, as for a single target')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-reconcile;status' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep watching: redraw (or print changes) as controllers act')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-reconcile;wait' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, with a TYPE (e.g. -l app=web)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'What to wait for')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up after this long (e.g. 90s, 5m, 1h)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-reconcile;completion' {
            [CompletionResult]::new('--install-dir', '--install-dir', [CompletionResultType]::ParameterName, 'With kubectl: the directory to install kubectl_complete-reconcile into (default: where kubectl-reconcile is on PATH)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the targets (default: the kubeconfig context''s)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Timeout of each request, e.g. 10s or 1m (0: the default, 20s)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour text output; NO_COLOR turns colour off')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read cluster state from a snapshot (file, directory or -) instead of a server')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-reconcile;help' {
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Owner-reference tree under each target, with a verdict on every node')
            [CompletionResult]::new('why', 'why', [CompletionResultType]::ParameterValue, 'The root cause of non-convergence, with its evidence and a next step')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One line per object: verdict, reason, age of the last change')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl''s plugin completion helper')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-reconcile;help;tree' {
            break
        }
        'kubectl-reconcile;help;why' {
            break
        }
        'kubectl-reconcile;help;status' {
            break
        }
        'kubectl-reconcile;help;wait' {
            break
        }
        'kubectl-reconcile;help;completion' {
            break
        }
        'kubectl-reconcile;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
