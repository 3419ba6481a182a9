//! Command-line definitions (clap). Parsing only: no I/O happens here; the
//! values are validated into [`crate::settings`] afterwards.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};

const EXAMPLES_TREE: &str = "\
Examples:
  # The owner tree of a Deployment, with a verdict on every node
  kubectl reconcile tree deploy/web

  # Several targets, and the owners above a pod
  kubectl reconcile tree deploy/web statefulset/db
  kubectl reconcile tree pod/web-7d876db474-2x2v5 --owners

  # Every Deployment with a label, as JSON
  kubectl reconcile tree deployments -l app=web -o json

  # Offline, from a saved snapshot
  kubectl get deploy,rs,pods,events -o yaml > snap.yaml
  kubectl reconcile tree deploy/web --snapshot snap.yaml

  # Live: redraw as the controllers act
  kubectl reconcile tree deploy/web --watch";

const EXAMPLES_STATUS: &str = "\
Examples:
  # One line per root object in the current namespace
  kubectl reconcile status

  # Specific objects, in a script: exit 0 only when all are converged
  kubectl reconcile status deploy/web job/migrate && echo converged

  # Everything a set of manifests declares
  kubectl reconcile status -f k8s/

  # All namespaces, as JSON
  kubectl reconcile status -A -o json";

const EXAMPLES_WHY: &str = "\
Examples:
  # Why is this Deployment not converged? The root cause, its evidence, a next step
  kubectl reconcile why deploy/web

  # Every root object in the namespace that is not converged, most severe first
  kubectl reconcile why

  # The same, offline, as JSON (adds rootCause, chain, conditions, events)
  kubectl reconcile why deploy/web --snapshot snap.yaml -o json";

const EXAMPLES_WAIT: &str = "\
Examples:
  # A complete deploy step: apply, then wait until the cluster has converged
  kubectl apply -f k8s/ && kubectl reconcile wait -f k8s/

  # Wait for a rollout, at most 3 minutes
  kubectl set image deploy/web web=web:1.5 && kubectl reconcile wait deploy/web --timeout 3m

  # Wait until objects are gone
  kubectl delete -f k8s/ --wait=false && kubectl reconcile wait -f k8s/ --for deleted";

const EXAMPLES_COMPLETION: &str = "\
Examples:
  # kubectl reconcile <TAB> (kubectl 1.26 or later, with kubectl's own completion loaded):
  # put the helper kubectl_complete-reconcile next to the plugin on PATH
  kubectl reconcile completion kubectl
  kubectl reconcile completion kubectl --install-dir ~/.local/bin

  # kubectl-reconcile <TAB> in bash: now, and in every new shell
  source <(kubectl-reconcile completion bash)
  kubectl-reconcile completion bash > ~/.local/share/bash-completion/completions/kubectl-reconcile

  # zsh (any directory on $fpath), fish, PowerShell
  kubectl-reconcile completion zsh > \"${fpath[1]}/_kubectl-reconcile\"
  kubectl-reconcile completion fish > ~/.config/fish/completions/kubectl-reconcile.fish
  kubectl-reconcile completion powershell | Out-String | Invoke-Expression";

/// Is this Kubernetes object converged, and if not, why not?
#[derive(Debug, Parser)]
#[command(name = "kubectl-reconcile", bin_name = "kubectl reconcile", version, about, long_about = None)]
#[command(
    after_help = "Exit status: 0 every target converged, 1 some target not converged, 2 the tool could not answer.",
    disable_version_flag = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// Print the plugin's version, and the server's if the cluster answers within 2s
    #[arg(short = 'V', long)]
    pub version: bool,
    // Optional only so that `--version` can go alone; see commands::run.
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Owner-reference tree under each target, with a verdict on every node.
    #[command(after_help = EXAMPLES_TREE)]
    Tree(TreeArgs),
    /// The root cause of non-convergence, with its evidence and a next step.
    #[command(after_help = EXAMPLES_WHY)]
    Why(WhyArgs),
    /// One line per object: verdict, reason, age of the last change.
    #[command(after_help = EXAMPLES_STATUS)]
    Status(WatchableArgs),
    /// Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis).
    #[command(after_help = EXAMPLES_WAIT)]
    Wait(WaitArgs),
    /// Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl's plugin completion helper.
    #[command(after_help = EXAMPLES_COMPLETION)]
    Completion(CompletionArgs),
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// bash, zsh, fish or powershell: print the script for `kubectl-reconcile`; kubectl: install the helper that completes `kubectl reconcile`
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: CompletionShell,
    /// With kubectl: the directory to install kubectl_complete-reconcile into (default: where kubectl-reconcile is on PATH)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub install_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    /// A bash completion script
    Bash,
    /// A zsh completion script
    Zsh,
    /// A fish completion script
    Fish,
    /// A PowerShell completion script
    Powershell,
    /// Install kubectl's plugin completion helper (kubectl 1.26 and later)
    Kubectl,
}

#[derive(Debug, Args)]
pub struct TargetArgs {
    /// TYPE/NAME..., or TYPE [NAME...] (kubectl's spellings: deploy/web, deployments.apps/web, Deployment.v1.apps/web)
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Label selector, with a TYPE (e.g. -l app=web)
    #[arg(short = 'l', long)]
    pub selector: Option<String>,
    /// Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster
    #[arg(short = 'f', long = "filename", value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,
}

/// Targets, and `--watch`.
#[derive(Debug, Args)]
pub struct WatchableArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Keep watching: redraw (or print changes) as controllers act
    #[arg(short = 'w', long)]
    pub watch: bool,
}

/// `why`: targets, `--watch` and `--verbose`.
#[derive(Debug, Args)]
pub struct WhyArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Keep watching: redraw (or print changes) as controllers act
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// With no target: show each object's generation, conditions and events too, as for a single target
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaitFor {
    Converged,
    Deleted,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// What to wait for
    #[arg(long = "for", value_enum, default_value_t = WaitFor::Converged)]
    pub for_: WaitFor,
    /// Give up after this long (e.g. 90s, 5m, 1h)
    #[arg(long, default_value = "5m", value_name = "DURATION")]
    pub timeout: String,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Keep watching: redraw (or print changes) as controllers act
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// Also show the chain of owners above each target, up to its root
    #[arg(long)]
    pub owners: bool,
    /// List every node instead of grouping large fan-outs by verdict and reason
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    Yaml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Flags that behave like kubectl's, accepted before or after the subcommand.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Namespace of the targets (default: the kubeconfig context's)
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    /// All namespaces
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<String>,
    /// The kubeconfig context to use
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// The kubeconfig cluster to use
    #[arg(long, global = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// Username to impersonate
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,
    /// Group to impersonate (repeatable)
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub as_group: Vec<String>,
    /// Timeout of each request, e.g. 10s or 1m (0: the default, 20s)
    #[arg(long, global = true, value_name = "DURATION", default_value = "20s")]
    pub request_timeout: String,
    /// Output format
    #[arg(short = 'o', long, global = true, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    /// When to colour text output; NO_COLOR turns colour off
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Read cluster state from a snapshot (file, directory or -) instead of a server
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub snapshot: Option<String>,
    /// With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)
    #[arg(long, global = true, value_name = "DIR", env = "KUBECACHEDIR", value_hint = ValueHint::DirPath)]
    pub cache_dir: Option<String>,
}
