//! Validated settings: the second stage of flag parsing. Turns what clap
//! parsed into the values commands use; no I/O besides asking whether stdout
//! is a terminal and reading a `-o jsonpath-file=`/`custom-columns-file=`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;

use crate::cli::{ColorChoice, GlobalArgs, Output};
pub use crate::render::shape::{Shape, View};
use crate::source::client::Connection;
use crate::verdict::rules::RuleSet;

/// The default per-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone)]
pub struct Settings {
    /// `-n`, `-A`.
    pub scope: crate::targets::Asked,
    pub connection: Connection,
    /// The whole command's deadline.
    pub deadline: Duration,
    /// `-o`, parsed once, and the table flags.
    pub view: View,
    pub color: bool,
    /// `--field-selector`, matched against the objects listed.
    pub field_selector: Option<crate::field_selector::FieldSelector>,
    /// `-l` with no TYPE: the sweep's roots are those with these labels.
    pub sweep_labels: Option<String>,
    /// The answer is captured (`snapshot`, `why --capture`): every root
    /// it reads is kept, not settled as its list arrives.
    pub capturing: bool,
    /// `--anonymize`: a capture's names are pseudonyms (`crate::anonymize`).
    pub anonymize: bool,
    /// Terminal width, when stdout is a terminal.
    pub width: Option<usize>,
    pub snapshot: Option<String>,
    /// `--snapshot-limit`: how many bytes a snapshot's files may hold.
    pub snapshot_limit: u64,
    pub now: Option<Timestamp>,
    pub cache_dir: PathBuf,
    /// `--health-rules`: the user's rule file given on the command line.
    pub health_rules: Option<PathBuf>,
    /// The health rules in effect: the built-in pack until a command loads
    /// the user's (`commands::rule_files::load`).
    pub rules: Arc<RuleSet>,
    /// The answer stays live (`--watch`, `wait`): the first reads are kept
    /// for the watches to start from.
    pub live: bool,
    /// `--contexts`, `--all-contexts`: the same question asked of many
    /// contexts (`commands/fleet.rs`).
    pub fleet: Option<FleetAsk>,
}

/// Which contexts a fleet answer asks, and how many at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetAsk {
    /// Names and shell globs; empty: every context of the kubeconfig.
    pub patterns: Vec<String>,
    /// `--max-contexts`: at most this many contexts are asked at once.
    pub parallel: usize,
}

/// The fleet the flags ask for, or `None` for one context.
fn fleet_of(args: &GlobalArgs) -> Result<Option<FleetAsk>, String> {
    let patterns: Vec<String> = args
        .contexts
        .iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    if !args.all_contexts && patterns.is_empty() {
        if !args.contexts.is_empty() {
            return Err(
                "--contexts needs at least one context name or glob, e.g. --contexts 'prod-*'"
                    .into(),
            );
        }
        return Ok(None);
    }
    let one_cluster = [
        ("--snapshot", args.snapshot.is_some()),
        ("--server", args.server.is_some()),
        ("--cluster", args.cluster.is_some()),
        ("--user", args.user.is_some()),
        ("--token", args.token.is_some()),
    ];
    if let Some((flag, _)) = one_cluster.iter().find(|(_, given)| *given) {
        return Err(format!(
            "{flag} names one cluster or user, and --contexts asks each context with its own: drop one of them"
        ));
    }
    if args.max_contexts == 0 {
        return Err("--max-contexts must be at least 1".into());
    }
    Ok(Some(FleetAsk {
        patterns,
        parallel: args.max_contexts,
    }))
}

/// kubectl's connection flags, each request bounded by `request_timeout`:
/// the one place they are read, for commands and for completion alike.
pub fn connection(args: &GlobalArgs, request_timeout: Duration) -> Connection {
    Connection {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        cluster: args.cluster.clone(),
        user: args.user.clone(),
        as_user: args.as_user.clone(),
        as_groups: args.as_group.clone(),
        as_uid: args.as_uid.clone(),
        server: args.server.clone(),
        token: args.token.clone(),
        certificate_authority: args.certificate_authority.clone(),
        client_certificate: args.client_certificate.clone(),
        client_key: args.client_key.clone(),
        insecure_skip_tls_verify: args.insecure_skip_tls_verify,
        tls_server_name: args.tls_server_name.clone(),
        disable_compression: args.disable_compression,
        request_timeout,
    }
}

/// The discovery cache: `--cache-dir`, `$KUBECACHEDIR` (clap reads it),
/// else `~/.kube/cache`, as kubectl's.
pub fn cache_dir(args: &GlobalArgs) -> PathBuf {
    args.cache_dir
        .as_deref()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(crate::source::discovery::default_cache_dir)
}

/// `-o`, parsed once: files read, templates and columns parsed (and
/// refused now, before any request, rather than after reading).
fn shape_of(output: &Output) -> Result<Shape, String> {
    {
        let read = |flag: &str, path: &std::path::Path| {
            crate::source::local::read_small_text(path)
                .map(|t| t.trim_end_matches('\n').to_string())
                .map_err(|e| format!("cannot read the {flag} file {}: {e}", path.display()))
        };
        let template = |t: &str| {
            crate::jsonpath::Template::parse(t)
                .map(Shape::JsonPath)
                .map_err(|e| format!("-o jsonpath: {e}"))
        };
        let columns = |c: &str| crate::render::shape::parse_columns(c).map(Shape::CustomColumns);
        match output {
            Output::Text => Ok(Shape::Text),
            Output::Wide => Ok(Shape::Wide),
            Output::Name => Ok(Shape::Name),
            Output::Json => Ok(Shape::Json),
            Output::Yaml => Ok(Shape::Yaml),
            Output::Dot => Ok(Shape::Dot),
            Output::Mermaid => Ok(Shape::Mermaid),
            Output::JsonPath(t) => template(t),
            Output::JsonPathFile(p) => template(&read("-o jsonpath-file", p)?),
            Output::CustomColumns(c) => columns(c),
            Output::CustomColumnsFile(p) => {
                columns(&custom_columns_file(&read("-o custom-columns-file", p)?)?)
            }
        }
    }
}

/// kubectl's custom-columns file: a line of headers, then a line of paths
/// in the same columns; turned into the `HEADER:path,...` form.
fn custom_columns_file(text: &str) -> Result<String, String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let (Some(headers), Some(paths)) = (lines.next(), lines.next()) else {
        return Err(
            "a custom-columns file has two lines: the headers, then their JSONPaths".into(),
        );
    };
    let headers: Vec<&str> = headers.split_whitespace().collect();
    let paths: Vec<&str> = paths.split_whitespace().collect();
    if headers.len() != paths.len() {
        return Err(format!(
            "the custom-columns file has {} headers and {} paths",
            headers.len(),
            paths.len()
        ));
    }
    Ok(headers
        .iter()
        .zip(&paths)
        .map(|(h, p)| format!("{h}:{p}"))
        .collect::<Vec<_>>()
        .join(","))
}

impl Settings {
    /// The width text is laid out to: the terminal's, but none under
    /// `-o wide`, which prints every column whole.
    pub fn text_width(&self) -> Option<usize> {
        self.width
            .filter(|_| self.view.output != crate::render::shape::Shape::Wide)
    }

    /// What objects are judged by: the health rules in effect.
    pub fn judge(&self) -> crate::verdict::Judge {
        crate::verdict::Judge::new(self.rules.clone())
    }

    pub fn from_args(args: &GlobalArgs) -> Result<Settings, String> {
        let request_timeout = match parse_duration(&args.request_timeout)
            .map_err(|e| format!("--request-timeout {e}"))?
        {
            Duration::ZERO => DEFAULT_REQUEST_TIMEOUT,
            d => d,
        };
        let now = match (&args.now, &args.snapshot) {
            (Some(_), None) => return Err(
                "--now only applies to --snapshot; a live cluster is judged at the current time"
                    .into(),
            ),
            (Some(text), Some(_)) => Some(text.parse::<Timestamp>().map_err(|e| {
                format!("--now {text:?} is not an RFC 3339 time such as 2026-01-10T12:00:00Z: {e}")
            })?),
            (None, _) => None,
        };
        let terminal = crate::terminal::stdout_is_terminal();
        let color = use_color(args.color, crate::terminal::stdout_color_choice());
        let width = terminal.then(crate::terminal::width);
        Ok(Settings {
            scope: crate::targets::Asked::from_flags(
                args.namespace.as_deref(),
                args.all_namespaces,
            ),
            connection: connection(args, request_timeout),
            deadline: (request_timeout * 3).max(Duration::from_secs(30)),
            view: View {
                output: shape_of(&args.output)?,
                no_headers: args.no_headers,
                show_labels: args.show_labels,
                label_columns: args.label_columns.clone(),
                verdicts: crate::render::shape::verdicts_shown(&args.verdict, args.not_converged)?,
                sort_by: args
                    .sort_by
                    .as_deref()
                    .map(|p| {
                        crate::jsonpath::select(
                            &serde_json::Value::Null,
                            p.trim_matches(['{', '}']),
                        )
                        .map(|_| p.to_string())
                        .map_err(|e| format!("--sort-by: {e}"))
                    })
                    .transpose()?,
            },
            color,
            capturing: false,
            anonymize: false,
            sweep_labels: None,
            field_selector: args
                .field_selector
                .as_deref()
                .map(crate::field_selector::FieldSelector::parse)
                .transpose()?,
            width,
            snapshot: args.snapshot.clone(),
            snapshot_limit: match &args.snapshot_limit {
                Some(text) => crate::source::local::parse_size(text)
                    .map_err(|e| format!("--snapshot-limit {e}"))?,
                None => crate::source::local::MAX_SNAPSHOT_BYTES,
            },
            now,
            cache_dir: cache_dir(args),
            health_rules: args.health_rules.clone(),
            rules: RuleSet::builtin(),
            live: false,
            fleet: fleet_of(args)?,
        })
    }
}

/// Colour only when asked for: `--color always|never` wins; `auto` is
/// anstream's decision for stdout (a terminal that supports colour, unless
/// `NO_COLOR` is set; `CLICOLOR=0` turns it off, `CLICOLOR_FORCE` on even
/// on a pipe).
pub fn use_color(choice: ColorChoice, auto: anstream::ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !matches!(auto, anstream::ColorChoice::Never),
    }
}

/// A duration as Go's `time.ParseDuration` spells it (`1m30s`, `500ms`,
/// `2h`, `1.5h`, `300us`), or a whole number of seconds as kubectl's
/// `--request-timeout` also takes (`30`). Parsed by jiff's friendly format;
/// only Go's units are let through, so `1 day` or `P1D` are refused.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    parse_unbounded(text).map(|d| d.min(LONGEST))
}

/// The longest duration a flag means: anything longer is as good as
/// forever, and the clock's arithmetic could not hold it (it overflowed to
/// a crash).
pub const LONGEST: Duration = Duration::from_secs(365 * 24 * 3600);

fn parse_unbounded(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration such as 30s, 1m30s, 2h or 500ms");
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    if !is_go_duration(text) {
        return Err(bad());
    }
    let span: jiff::SignedDuration = text.parse().map_err(|_| bad())?;
    Duration::try_from(span).map_err(|_| format!("{text:?} is negative"))
}

/// Go's grammar: `[-+]?(DIGITS[.DIGITS]?UNIT)+` with UNIT one of ns, us,
/// µs, ms, s, m, h.
fn is_go_duration(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let mut rest = body;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        if digits == 0 || rest[..digits].matches('.').count() > 1 {
            return false;
        }
        rest = &rest[digits..];
        let Some(unit) = ["ns", "us", "µs", "ms", "s", "m", "h"]
            .into_iter()
            .find(|u| rest.starts_with(u) && !(*u == "m" && rest.starts_with("ms")))
        else {
            return false;
        };
        rest = &rest[unit.len()..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_colour_flag_wins_over_the_environment() {
        use ColorChoice::*;
        assert!(use_color(Auto, anstream::ColorChoice::Always));
        assert!(!use_color(Auto, anstream::ColorChoice::Never));
        assert!(use_color(Always, anstream::ColorChoice::Never));
        assert!(!use_color(Never, anstream::ColorChoice::Always));
    }

    #[test]
    fn durations_as_go_spells_them() {
        let ok = |t: &str| parse_duration(t).unwrap();
        assert_eq!(ok("30s"), Duration::from_secs(30));
        assert_eq!(ok("2m"), Duration::from_secs(120));
        assert_eq!(ok("1m30s"), Duration::from_secs(90));
        assert_eq!(ok("2h"), Duration::from_secs(7200));
        assert_eq!(ok("1h2m3s"), Duration::from_secs(3723));
        assert_eq!(ok("1.5h"), Duration::from_secs(5400));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("300us"), Duration::from_micros(300));
        assert_eq!(ok("7"), Duration::from_secs(7), "kubectl's bare seconds");
        assert_eq!(ok("0"), Duration::ZERO);
        assert_eq!(ok("0s"), Duration::ZERO);
        for bad in [
            "soon", "5d", "1 hour", "P1D", "1m30", "m", "", "1..5s", "-5s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} is refused");
        }
        assert!(parse_duration("soon").unwrap_err().contains("1m30s"));
    }

    #[test]
    fn output_formats_like_kubectl() {
        assert_eq!(Output::parse("wide"), Ok(Output::Wide));
        assert_eq!(
            Output::parse("jsonpath={.items[*].object.name}"),
            Ok(Output::JsonPath("{.items[*].object.name}".into()))
        );
        assert!(
            Output::parse("jsonpath=")
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(
            Output::parse("table")
                .unwrap_err()
                .contains("allowed formats are")
        );
        assert_eq!(
            custom_columns_file("NAME  VERDICT\n.object.name  .verdict\n"),
            Ok("NAME:.object.name,VERDICT:.verdict".into())
        );
    }
}
