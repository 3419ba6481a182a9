//! Validated settings: the second stage of flag parsing. Turns what clap
//! parsed into the values commands use; no I/O besides asking whether stdout
//! is a terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;

use crate::cli::{ColorChoice, GlobalArgs, OutputFormat};
use crate::rules::RuleSet;
use crate::source::client::Connection;

/// The default per-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone)]
pub struct Settings {
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub connection: Connection,
    /// The whole command's deadline.
    pub deadline: Duration,
    pub output: OutputFormat,
    pub color: bool,
    /// Terminal width, when stdout is a terminal.
    pub width: Option<usize>,
    pub snapshot: Option<String>,
    pub now: Option<Timestamp>,
    pub cache_dir: PathBuf,
    /// `--health-rules`: the user's rule file given on the command line.
    pub health_rules: Option<PathBuf>,
    /// The health rules in effect: the built-in pack until a command loads
    /// the user's (`rules::sources::load`).
    pub rules: Arc<RuleSet>,
}

impl Settings {
    pub fn from_args(args: &GlobalArgs) -> Result<Settings, String> {
        let request_timeout = parse_duration(&args.request_timeout)?;
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
        let terminal = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        let color = use_color(args.color, terminal, no_color, dumb);
        let width = terminal.then(|| {
            terminal_size::terminal_size()
                .map(|(w, _)| w.0 as usize)
                .unwrap_or(120)
        });
        Ok(Settings {
            namespace: args.namespace.clone(),
            all_namespaces: args.all_namespaces,
            connection: Connection {
                kubeconfig: args.kubeconfig.clone(),
                context: args.context.clone(),
                cluster: args.cluster.clone(),
                user: args.user.clone(),
                as_user: args.as_user.clone(),
                as_groups: args.as_group.clone(),
                request_timeout,
            },
            deadline: (request_timeout * 3).max(Duration::from_secs(30)),
            output: args.output,
            color,
            width,
            snapshot: args.snapshot.clone(),
            now,
            cache_dir: args
                .cache_dir
                .clone()
                .map(PathBuf::from)
                .unwrap_or_else(crate::source::discovery::default_cache_dir),
            health_rules: args.health_rules.clone(),
            rules: RuleSet::builtin(),
        })
    }
}

/// Colour only when asked for, or on a terminal that wants it: `NO_COLOR`
/// (any non-empty value) and `TERM=dumb` turn `auto` off; `always` wins.
pub fn use_color(choice: ColorChoice, terminal: bool, no_color: bool, dumb: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color && !dumb,
    }
}

/// kubectl's `--request-timeout` forms: `30s`, `1m`, `1h`, `500ms`, a bare
/// number of seconds; `0` means the default.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("--request-timeout {text:?} is not a duration such as 10s, 1m or 500ms");
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().map_err(|_| bad())?;
    let secs = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(bad()),
    };
    Ok(if secs <= 0.0 {
        DEFAULT_REQUEST_TIMEOUT
    } else {
        Duration::from_secs_f64(secs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_terminal_and_no_color() {
        use ColorChoice::*;
        assert!(use_color(Auto, true, false, false));
        assert!(!use_color(Auto, false, false, false), "not on a pipe");
        assert!(!use_color(Auto, true, true, false), "NO_COLOR");
        assert!(!use_color(Auto, true, false, true), "TERM=dumb");
        assert!(
            use_color(Always, false, true, false),
            "an explicit flag wins"
        );
        assert!(!use_color(Never, true, false, false));
    }

    #[test]
    fn request_timeouts_like_kubectl() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert_eq!(parse_duration("0"), Ok(DEFAULT_REQUEST_TIMEOUT));
        assert!(
            parse_duration("soon")
                .unwrap_err()
                .contains("10s, 1m or 500ms")
        );
        assert!(parse_duration("5d").is_err());
    }
}
