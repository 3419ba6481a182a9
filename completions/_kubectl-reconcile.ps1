# PowerShell completion for kubectl-reconcile. It asks `kubectl-reconcile
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
