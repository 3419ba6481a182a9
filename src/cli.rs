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
  # Why is this Deployment not converged? Root cause, evidence, a next step
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
  kubectl set image deploy/web web=web:1.5 &&
    kubectl reconcile wait deploy/web --timeout 3m

  # In CI: fail within seconds when new pods cannot pull their image or crash
  kubectl apply -f k8s/ &&
    kubectl reconcile wait -f k8s/ --fail-fast --timeout 5m

  # Wait until objects are gone
  kubectl delete -f k8s/ --wait=false &&
    kubectl reconcile wait -f k8s/ --for deleted";

const EXAMPLES_COMPLETION: &str = "\
Examples:
  # kubectl reconcile <TAB> (kubectl 1.26 or later, its own completion loaded):
  # put the helper kubectl_complete-reconcile next to the plugin on PATH
  kubectl reconcile completion kubectl
  kubectl reconcile completion kubectl --install-dir ~/.local/bin

  # kubectl-reconcile <TAB> in bash: now, and in every new shell
  source <(kubectl-reconcile completion bash)
  mkdir -p ~/.local/share/bash-completion/completions
  kubectl-reconcile completion bash \\
    > ~/.local/share/bash-completion/completions/kubectl-reconcile

  # zsh: a directory of your own on $fpath, before compinit in ~/.zshrc:
  #   fpath=(~/.zfunc $fpath); autoload -U compinit; compinit
  mkdir -p ~/.zfunc
  kubectl-reconcile completion zsh > ~/.zfunc/_kubectl-reconcile

  # fish, PowerShell
  kubectl-reconcile completion fish \\
    > ~/.config/fish/completions/kubectl-reconcile.fish
  kubectl-reconcile completion powershell | Out-String | Invoke-Expression";

const EXAMPLES_RULES: &str = "\
Examples:
  # Every rule in effect: group, kind, checks, and the file it came from
  kubectl reconcile rules

  # With your own rules (see docs/health-rules.md), as YAML
  kubectl reconcile rules --health-rules my-rules.yaml -o yaml

  # What the CRD of a custom kind lets speak: its state columns and enums
  kubectl reconcile rules appliances.example.com";

const EXAMPLES_CONTROLLERS: &str = "\
Examples:
  # Each controller's Lease, holder, last renewal and workload, down ones first
  kubectl reconcile controllers

  # In a health check: exit 1 when any controller is down
  kubectl reconcile controllers -o json >/dev/null || page-the-platform-team";

const EXAMPLES_SNAPSHOT: &str = "\
Examples:
  # What why reads about a Deployment, to attach to an incident or a bug
  kubectl reconcile snapshot deploy/web > web-capture.yaml

  # Replayed anywhere, with the same answer
  kubectl reconcile --snapshot web-capture.yaml why deploy/web

  # The namespace's roots, and what is not converged below them
  kubectl reconcile -n shop snapshot --output-file shop-capture.yaml

  # The answer and its capture in one read
  kubectl reconcile why deploy/web --capture web-capture.yaml";

const EXAMPLES_OPTIONS: &str = "\
Examples:
  # Every flag any command takes
  kubectl reconcile options

  # They go before or after the command, as with kubectl
  kubectl reconcile status --context prod --as jane -v 6";

/// What `kubectl reconcile` alone prints, on stdout (exit 0): what the tool
/// is, the commands a newcomer runs first, and where help is.
pub const OVERVIEW: &str = "\
kubectl reconcile: is this Kubernetes object converged, and if not, why not?

Start here:
  kubectl reconcile status             one line per object in the namespace
  kubectl reconcile why deploy/web     the root cause, its evidence, a next step
  kubectl reconcile tree deploy/web    the owner tree, a verdict on every node
  kubectl reconcile wait -f k8s/       block until converged, or fail (for CI)
  kubectl reconcile controllers        is every controller alive?

More help:
  kubectl reconcile --help             every command, and the common flags
  kubectl reconcile COMMAND --help     a command's examples and flags
  kubectl reconcile options            the flags every command takes
                                       (kubeconfig, context, TLS, timeouts)
";

/// A command's help: what it does, how to call it, its examples, then its
/// flags; the connection flags are on their own page.
const COMMAND_HELP: &str = "\
{about-with-newline}
{usage-heading} {usage}{after-help}

{all-args}

Use \"kubectl reconcile options\" for the flags every command takes
(kubeconfig, context, impersonation, TLS, timeouts, logging).";

const ROOT_HELP: &str = "\
{about-with-newline}
{usage-heading} {usage}

{all-args}{after-help}

Use \"kubectl reconcile COMMAND --help\" for a command's examples, and
\"kubectl reconcile options\" for the flags every command takes (kubeconfig,
context, impersonation, TLS, timeouts, logging).";

/// Is this Kubernetes object converged, and if not, why not?
#[derive(Debug, Parser)]
#[command(name = "kubectl-reconcile", bin_name = "kubectl reconcile", version, about, long_about = None)]
#[command(
    after_help = "Exit status: 0 every target converged, 1 some target not converged, 2 the tool could not answer.",
    disable_version_flag = true,
    help_template = ROOT_HELP
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
    #[command(after_help = EXAMPLES_TREE, help_template = COMMAND_HELP)]
    Tree(TreeArgs),
    /// The root cause of non-convergence, with its evidence and a next step.
    #[command(after_help = EXAMPLES_WHY, help_template = COMMAND_HELP)]
    Why(WhyArgs),
    /// One line per object: verdict, reason, age of the last change.
    #[command(after_help = EXAMPLES_STATUS, help_template = COMMAND_HELP)]
    Status(WatchableArgs),
    /// Block until every target is converged (exit 0), or failed or timed out (exit 1, with the diagnosis).
    #[command(after_help = EXAMPLES_WAIT, help_template = COMMAND_HELP)]
    Wait(WaitArgs),
    /// Shell completion: a script for bash, zsh, fish or PowerShell, or kubectl's plugin completion helper.
    #[command(after_help = EXAMPLES_COMPLETION, help_template = COMMAND_HELP)]
    Completion(CompletionArgs),
    /// The health rules in effect (built-in and yours) and where each came from.
    #[command(after_help = EXAMPLES_RULES, help_template = COMMAND_HELP)]
    Rules(RulesArgs),
    /// Is every controller alive? Each leader-election Lease, its holder, its last renewal and the holder's workload (exit 1 when one is down).
    #[command(after_help = EXAMPLES_CONTROLLERS, help_template = COMMAND_HELP)]
    Controllers,
    /// Capture what why reads (objects, events, gaps), redacted, as a snapshot file anyone can replay with --snapshot.
    #[command(after_help = EXAMPLES_SNAPSHOT, help_template = COMMAND_HELP)]
    Snapshot(SnapshotArgs),
    /// The flags every command takes: kubeconfig, context, impersonation, TLS, timeouts, logging.
    #[command(
        after_help = EXAMPLES_OPTIONS,
        help_template = "{about-with-newline}\n{usage-heading} {usage}{after-help}\n\n{all-args}"
    )]
    Options,
}

/// `kubectl reconcile options`: the flags kept off every command's help, as
/// clap lays them out.
pub fn options_page() -> String {
    let root = <Cli as clap::CommandFactory>::command();
    let args = root
        .get_arguments()
        .filter(|a| a.is_hide_long_help_set())
        .map(|a| a.clone().hide_short_help(false).hide_long_help(false));
    let mut page = clap::Command::new("options")
        .help_template("The following flags can be passed to any command:\n\n{options}\n")
        .disable_help_flag(true)
        .args(args);
    page.render_help().to_string()
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
    /// Label selector (e.g. -l app=web): with a TYPE, the objects of that type; alone, the roots of the sweep
    #[arg(short = 'l', long)]
    pub selector: Option<String>,
    /// Manifest file, directory or - for stdin: only the identities are used; state comes from the cluster
    #[arg(short = 'f', long = "filename", value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,
    /// With -f DIR: also read the manifests in its subdirectories
    #[arg(short = 'R', long)]
    pub recursive: bool,
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

/// `snapshot`: targets, as for `why`, and where to write.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Write the capture to this file (or a file in this directory) instead of stdout
    #[arg(long, value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub output_file: Option<PathBuf>,
    /// Replace namespaces, names and label values with pseudonyms, the same throughout, so that the capture can be posted publicly
    #[arg(long)]
    pub anonymize: bool,
}

/// `rules`: the kinds whose CRDs to read.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Custom resource types (widgets, widgets.example.com): also show what each one's CRD lets speak (its state columns and enums), read from the cluster or the snapshot
    #[arg(value_name = "TYPE")]
    pub types: Vec<String>,
}

/// `why`: targets, `--watch` and `--verbose`.
#[derive(Debug, Args)]
pub struct WhyArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Also write what the answer read, redacted, as a snapshot file (see `snapshot`)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::AnyPath, conflicts_with = "watch")]
    pub capture: Option<PathBuf>,
    /// With --capture: replace namespaces, names and label values in the capture with pseudonyms
    #[arg(long, requires = "capture")]
    pub anonymize: bool,
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
    /// Give up after this long, as Go spells durations (90s, 1m30s, 1h); 0: check once and do not wait
    #[arg(long, default_value = "5m", value_name = "DURATION")]
    pub timeout: String,
    /// Fail as soon as a workload's new pods fail hard (image pull, crash loop, unschedulable, missing config), without the 3m grace; for CI
    #[arg(long, conflicts_with = "failure_grace")]
    pub fail_fast: bool,
    /// How long a workload's new pods may fail hard before the wait fails (default 3m)
    #[arg(long, value_name = "DURATION")]
    pub failure_grace: Option<String>,
    /// When the wait fails or times out, write what its diagnosis read, redacted, as a snapshot file (a CI artefact; see `snapshot`)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub capture: Option<PathBuf>,
    /// With --capture: replace namespaces, names and label values in the capture with pseudonyms
    #[arg(long, requires = "capture")]
    pub anonymize: bool,
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

/// `-o` as kubectl spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Text,
    /// Text with more columns.
    Wide,
    /// `kind.group/name`, one a line.
    Name,
    Json,
    Yaml,
    /// A kubectl JSONPath template over the report document.
    JsonPath(String),
    JsonPathFile(PathBuf),
    /// `HEADER:.path,HEADER:.path` over each item of the report document.
    CustomColumns(String),
    CustomColumnsFile(PathBuf),
    /// `tree` as a Graphviz graph.
    Dot,
    /// `tree` as a Mermaid flowchart.
    Mermaid,
}

impl Output {
    /// The formats `-o` accepts, for help and completion.
    pub const NAMES: [&'static str; 11] = [
        "text",
        "wide",
        "name",
        "json",
        "yaml",
        "dot",
        "mermaid",
        "jsonpath=",
        "jsonpath-file=",
        "custom-columns=",
        "custom-columns-file=",
    ];

    pub fn parse(text: &str) -> Result<Output, String> {
        let (name, arg) = match text.split_once('=') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        let needs = |a: Option<&str>| -> Result<String, String> {
            match a {
                Some(a) if !a.is_empty() => Ok(a.to_string()),
                _ => Err(format!(
                    "{name} needs a value after '=', e.g. -o {name}={}",
                    match name {
                        "jsonpath" => "'{.items[*].object.name}'",
                        "custom-columns" => "NAME:.object.name,VERDICT:.verdict",
                        _ => "FILE",
                    }
                )),
            }
        };
        Ok(match (name, arg) {
            ("text", None) => Output::Text,
            ("wide", None) => Output::Wide,
            ("name", None) => Output::Name,
            ("json", None) => Output::Json,
            ("yaml", None) => Output::Yaml,
            ("dot", None) => Output::Dot,
            ("mermaid", None) => Output::Mermaid,
            ("jsonpath", a) => Output::JsonPath(needs(a)?),
            ("jsonpath-file", a) => Output::JsonPathFile(needs(a)?.into()),
            ("custom-columns", a) => Output::CustomColumns(needs(a)?),
            ("custom-columns-file", a) => Output::CustomColumnsFile(needs(a)?.into()),
            _ => {
                return Err(format!(
                    "unable to match a printer suitable for the output format \"{text}\", the allowed formats are: {}",
                    Output::NAMES.map(|n| n.trim_end_matches('=')).join(",")
                ));
            }
        })
    }
}

/// clap's view of `-o`: parses with [`Output::parse`] and offers the names
/// to completion.
#[derive(Clone)]
pub struct OutputParser;

impl clap::builder::TypedValueParser for OutputParser {
    type Value = Output;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Output, clap::Error> {
        let text = value.to_str().ok_or_else(|| {
            clap::Error::raw(clap::error::ErrorKind::InvalidUtf8, "-o is not UTF-8")
        })?;
        Output::parse(text).map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, e))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Output::NAMES.iter().map(clap::builder::PossibleValue::new),
        ))
    }
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
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<String>,
    /// The kubeconfig context to use
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true)]
    pub context: Option<String>,
    /// Ask these kubeconfig contexts at once, one answer for the fleet (comma-separated, repeatable; shell globs such as 'prod-*')
    #[arg(
        long,
        global = true,
        value_name = "CONTEXTS",
        value_delimiter = ',',
        conflicts_with = "context"
    )]
    pub contexts: Vec<String>,
    /// Ask every context of the kubeconfig at once
    #[arg(long, global = true, conflicts_with_all = ["context", "contexts"])]
    pub all_contexts: bool,
    /// With --contexts or --all-contexts: how many contexts are asked at once
    #[arg(long, global = true, value_name = "N", default_value_t = 8)]
    pub max_contexts: usize,
    /// The kubeconfig cluster to use
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true)]
    pub user: Option<String>,
    /// Username to impersonate
    #[arg(
        long = "as",
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "USER"
    )]
    pub as_user: Option<String>,
    /// Group to impersonate (repeatable)
    #[arg(
        long = "as-group",
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "GROUP"
    )]
    pub as_group: Vec<String>,
    /// UID to impersonate
    #[arg(
        long = "as-uid",
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "UID"
    )]
    pub as_uid: Option<String>,
    /// The address and port of the API server (overrides the kubeconfig's)
    #[arg(
        short = 's',
        long,
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "URL"
    )]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server
    #[arg(
        long,
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "TOKEN"
    )]
    pub token: Option<String>,
    /// Path to a CA certificate file for the server
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub certificate_authority: Option<String>,
    /// Path to a client certificate file for TLS
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub client_certificate: Option<String>,
    /// Path to a client key file for TLS
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub client_key: Option<String>,
    /// Do not check the server's certificate (insecure)
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true)]
    pub insecure_skip_tls_verify: bool,
    /// Server name to check the server's certificate against (default: the host of --server)
    #[arg(
        long,
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "NAME"
    )]
    pub tls_server_name: Option<String>,
    /// Ask the server not to compress responses
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true)]
    pub disable_compression: bool,
    /// Timeout of each request, as Go spells durations (10s, 1m30s, 500ms) or a number of seconds; 0: the default, 20s
    #[arg(
        long,
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "DURATION",
        default_value = "20s"
    )]
    pub request_timeout: String,
    /// Log level: 6 prints each request (method, URL, status, time) on stderr, 8 adds the headers (credentials masked)
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        hide_short_help = true,
        hide_long_help = true,
        value_name = "LEVEL",
        default_value_t = 0
    )]
    pub verbosity: u8,
    /// Output format: text, wide, name, json, yaml, jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE; for tree, dot or mermaid (a graph)
    #[arg(short = 'o', long, global = true, value_name = "FORMAT", default_value = "text", value_parser = OutputParser)]
    pub output: Output,
    /// Field selector over the objects listed, e.g. status.phase=Running or metadata.name!=web (=, ==, !=; comma-separated)
    #[arg(long, global = true, value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// Text output without the header line
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Text output: a LABELS column with every label
    #[arg(long, global = true)]
    pub show_labels: bool,
    /// Text output: a column for each of these labels (comma-separated, repeatable)
    #[arg(
        short = 'L',
        long = "label-columns",
        global = true,
        value_name = "KEY",
        value_delimiter = ','
    )]
    pub label_columns: Vec<String>,
    /// Show only the rows (status) or trees (tree) whose verdict is one of these, e.g. Failed,Progressing; the exit status still follows every target
    #[arg(
        long,
        global = true,
        value_name = "VERDICTS",
        value_delimiter = ',',
        conflicts_with = "not_converged"
    )]
    pub verdict: Vec<String>,
    /// Show only what is not converged: --verdict with every verdict but Converged
    #[arg(long, global = true)]
    pub not_converged: bool,
    /// Sort the status table by a JSONPath over each item, e.g. '{.since}' or .object.name
    #[arg(long, global = true, value_name = "JSONPATH")]
    pub sort_by: Option<String>,
    /// When to colour text output; NO_COLOR turns colour off
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Read cluster state from a snapshot (file, directory or -) instead of a server
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub snapshot: Option<String>,
    /// With --snapshot: how many bytes its files may hold in all (e.g. 1Gi); default 256Mi
    #[arg(long, global = true, value_name = "SIZE")]
    pub snapshot_limit: Option<String>,
    /// With --snapshot: the instant to judge at (RFC 3339); default the newest timestamp in the snapshot
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Health rules file (YAML, CEL expressions); overrides $KUBECTL_RECONCILE_HEALTH_RULES, ~/.config/kubectl-reconcile/health-rules.yaml and the built-in rules
    #[arg(long, global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub health_rules: Option<PathBuf>,
    /// Discovery cache directory (default: $KUBECACHEDIR, then ~/.kube/cache)
    #[arg(long, global = true, hide_short_help = true, hide_long_help = true, value_name = "DIR", env = "KUBECACHEDIR", value_hint = ValueHint::DirPath)]
    pub cache_dir: Option<String>,
}

/// A usage error as kubectl says it: one line, then where to read more.
/// `argv` is the command line without the program name. Close spellings
/// are suggested with strsim; clap's own multi-line block is not shown.
pub fn usage_error(err: &clap::Error, argv: &[String]) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let root = <Cli as clap::CommandFactory>::command();
    let sub = argv
        .iter()
        .take_while(|a| a.as_str() != "--")
        .find_map(|a| root.find_subcommand(a).map(|c| c.get_name().to_string()));
    let context = |kind: ContextKind| match err.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let first_line = || {
        let rendered = err.render().to_string();
        let line = rendered.lines().next().unwrap_or_default();
        line.strip_prefix("error: ").unwrap_or(line).to_string()
    };
    let mut line = match err.kind() {
        ErrorKind::UnknownArgument => match context(ContextKind::InvalidArg) {
            Some(arg) if arg.starts_with('-') => {
                let flag = arg.split('=').next().unwrap_or(&arg).to_string();
                let cmd = sub
                    .as_deref()
                    .and_then(|s| root.find_subcommand(s))
                    .unwrap_or(&root);
                let mut text = format!("unknown flag: {flag}");
                if let Some(close) = closest(&flag, &flag_names(&root, cmd)) {
                    text.push_str(&format!("\nhint: did you mean {close}?"));
                }
                text
            }
            Some(arg) => format!("unexpected argument \"{arg}\""),
            None => first_line(),
        },
        ErrorKind::InvalidSubcommand => {
            let word = context(ContextKind::InvalidSubcommand).unwrap_or_default();
            let names: Vec<String> = root
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let mut text = format!("unknown command \"{word}\" for \"kubectl reconcile\"");
            if let Some(close) = closest(&word, &names) {
                text.push_str(&format!("\nhint: did you mean {close}?"));
            }
            text
        }
        ErrorKind::InvalidValue => match (
            context(ContextKind::InvalidArg),
            context(ContextKind::InvalidValue),
            err.get(ContextKind::ValidValue),
        ) {
            (Some(arg), Some(value), Some(ContextValue::Strings(valid))) => {
                let flag = arg.split(' ').next().unwrap_or(&arg);
                format!(
                    "invalid argument \"{value}\" for \"{flag}\": must be one of {}",
                    valid.join(", ")
                )
            }
            _ => first_line(),
        },
        _ => first_line(),
    };
    let help = match &sub {
        Some(s) => format!("kubectl reconcile {s} --help"),
        None => "kubectl reconcile --help".into(),
    };
    line.push_str(&format!("\nSee '{help}' for usage."));
    line
}

/// Every long flag a command takes, its own and the global ones.
fn flag_names(root: &clap::Command, cmd: &clap::Command) -> Vec<String> {
    cmd.get_arguments()
        .chain(root.get_arguments().filter(|a| a.is_global_set()))
        .filter_map(|a| a.get_long())
        .map(|l| format!("--{l}"))
        .collect()
}

/// The nearest name within a small edit distance, or none: a suggestion
/// that is not close is worse than no suggestion.
pub fn closest(word: &str, names: &[String]) -> Option<String> {
    let limit = if word.chars().count() >= 12 { 3 } else { 2 };
    names
        .iter()
        .map(|n| (strsim::levenshtein(word, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(args: &[&str]) -> String {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let err =
            Cli::try_parse_from(std::iter::once("kubectl-reconcile").chain(args.iter().copied()))
                .expect_err("a usage error");
        usage_error(&err, &argv)
    }

    #[test]
    fn unknown_flags_are_one_line_with_a_close_suggestion_only() {
        assert_eq!(
            error_of(&["status", "--no-header"]),
            "unknown flag: --no-header\nhint: did you mean --no-headers?\nSee 'kubectl reconcile status --help' for usage."
        );
        assert_eq!(
            error_of(&["status", "--frobnicate"]),
            "unknown flag: --frobnicate\nSee 'kubectl reconcile status --help' for usage."
        );
        assert_eq!(
            error_of(&["tree", "deploy/x", "--ownrs"]),
            "unknown flag: --ownrs\nhint: did you mean --owners?\nSee 'kubectl reconcile tree --help' for usage."
        );
    }

    #[test]
    fn unknown_commands_and_bad_values() {
        assert_eq!(
            error_of(&["staus"]),
            "unknown command \"staus\" for \"kubectl reconcile\"\nhint: did you mean status?\nSee 'kubectl reconcile --help' for usage."
        );
        assert_eq!(
            error_of(&["wait", "deploy/x", "--for", "ready"]),
            "invalid argument \"ready\" for \"--for\": must be one of converged, deleted\nSee 'kubectl reconcile wait --help' for usage."
        );
        let out = error_of(&["status", "-o", "table"]);
        assert!(out.starts_with("unable to match a printer"), "{out}");
        assert_eq!(out.lines().count(), 2, "{out}");
    }

    /// Each command's help as a user at an 80-column terminal sees it.
    fn help_of(name: &str) -> String {
        let mut root = <Cli as clap::CommandFactory>::command().term_width(80);
        root.build();
        let mut sub = root
            .find_subcommand(name)
            .expect(name)
            .clone()
            .term_width(80);
        sub.render_help().to_string()
    }

    #[test]
    fn help_leads_with_examples_and_keeps_the_connection_flags_on_their_own_page() {
        for name in [
            "tree",
            "why",
            "status",
            "wait",
            "completion",
            "rules",
            "controllers",
        ] {
            let help = help_of(name);
            let examples = help.find("Examples:").expect(name);
            let flags = ["Arguments:", "Options:"]
                .iter()
                .filter_map(|h| help.find(h))
                .min()
                .expect(name);
            assert!(examples < flags, "{name}: examples after the flags\n{help}");
            assert!(!help.contains("--kubeconfig"), "{name}\n{help}");
            assert!(help.contains("kubectl reconcile options"), "{name}\n{help}");
            // At 80 columns no example line wraps, so none loses its `#`.
            for line in help[examples..flags].lines() {
                assert!(line.chars().count() < 80, "{name}: {line:?}");
            }
        }
        let page = options_page();
        for flag in [
            "--kubeconfig",
            "--context",
            "--as-group",
            "--request-timeout",
            "--v <LEVEL>",
        ] {
            assert!(page.contains(flag), "{flag}\n{page}");
        }
        assert!(!page.contains("--output"), "{page}");
    }

    #[test]
    fn the_overview_fits_80_columns_and_names_where_help_is() {
        for line in OVERVIEW.lines() {
            assert!(line.chars().count() <= 80, "{line:?}");
        }
        assert!(OVERVIEW.contains("kubectl reconcile options"));
    }

    #[test]
    fn suggestions_are_close_or_absent() {
        let names: Vec<String> = ["--cache-dir", "--no-headers", "--namespace"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            closest("--namespce", &names).as_deref(),
            Some("--namespace")
        );
        assert_eq!(
            closest("--no-headrs", &names).as_deref(),
            Some("--no-headers")
        );
        assert_eq!(closest("--cash", &names), None);
    }
}
