//! `--watch`: keep the answer live. The watches feed a cache; after every
//! change (gathered for a moment) the pure stages run again on a snapshot of
//! the cache and the new frame is shown: redrawn in place on a terminal,
//! as timestamped change lines off one, or as one document per change with
//! `-o json|yaml`.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use super::frame::Frame;
use super::load::Loaded;
use super::{Outcome, UsageError};
use crate::cli::OutputFormat;
use crate::model::{ObjectRef, Snapshot, Target};
use crate::settings::Settings;
use crate::source::live::Fetched;
use crate::source::offline;
use crate::source::watch::{Cache, Outage};
use crate::targets::failing_roots;

/// How long changes are gathered before a redraw.
const SETTLE: Duration = Duration::from_millis(150);

/// Which objects the answer is about, found again in every new snapshot:
/// objects come and go, and a recreated object has a new uid.
pub enum Retarget {
    Fixed(Vec<ObjectRef>),
    Roots { failing: bool },
}

impl Retarget {
    pub fn new(fetched: &Fetched, roots: bool, failing: bool) -> Retarget {
        if roots {
            return Retarget::Roots { failing };
        }
        Retarget::Fixed(
            fetched
                .targets
                .iter()
                .map(|t| match t {
                    Target::Found(uid) => ObjectRef {
                        uid: None,
                        ..fetched
                            .snapshot
                            .get(uid)
                            .expect("found targets are in the snapshot")
                            .id
                            .clone()
                    },
                    Target::Missing(id) => id.clone(),
                })
                .collect(),
        )
    }

    pub fn targets(&self, snap: &Snapshot) -> Vec<Target> {
        match self {
            Retarget::Fixed(ids) => ids
                .iter()
                .map(|id| {
                    match snap.find(id.group(), &id.kind, id.namespace.as_deref(), &id.name) {
                        Some(obj) => Target::Found(obj.uid.clone()),
                        None => Target::Missing(id.clone()),
                    }
                })
                .collect(),
            Retarget::Roots { failing } => {
                let roots = offline::resolve(snap, &[], None).unwrap_or_default();
                if *failing {
                    failing_roots(snap, &roots)
                } else {
                    roots
                }
            }
        }
    }
}

/// Shows a loaded answer once, or keeps it live with `--watch`.
/// `roots`: the targets are the namespace's root objects (no target was
/// named), found again on every change; `failing`: only those not converged.
pub async fn show(
    settings: &Settings,
    loaded: Loaded,
    watching: bool,
    roots: bool,
    failing: bool,
    frame: impl Fn(&Snapshot, &[Target], bool) -> Frame,
) -> anyhow::Result<Outcome> {
    if watching {
        let retarget = Retarget::new(&loaded.fetched, roots, failing);
        return watch(settings, loaded, retarget, frame).await;
    }
    let f = frame(&loaded.fetched.snapshot, &loaded.fetched.targets, false);
    Ok(Outcome {
        stdout: f.output(settings),
        code: f.code,
    })
}

/// Watches until interrupted; the exit status is the last frame's.
async fn watch(
    settings: &Settings,
    loaded: Loaded,
    retarget: Retarget,
    frame: impl Fn(&Snapshot, &[Target], bool) -> Frame,
) -> anyhow::Result<Outcome> {
    let Some(live) = loaded.live else {
        return Err(
            UsageError("--watch needs a live cluster: a snapshot does not change".into()).into(),
        );
    };
    let mut cache = Cache::start(
        live.api(),
        loaded.fetched.watches.clone(),
        loaded.fetched.gaps.clone(),
    );
    let mut printer = Printer::new(settings);
    let first = frame(&loaded.fetched.snapshot, &loaded.fetched.targets, true);
    let mut code = first.code;
    if !printer.show(&first) {
        return Ok(Outcome {
            stdout: String::new(),
            code: 0,
        });
    }
    // One listener for the whole watch: a Ctrl-C that arrives while a frame
    // is being built is kept, not lost between two listeners.
    let interrupted = interrupt();
    tokio::pin!(interrupted);
    // An outage is shown, and its clock kept running, once a second.
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            biased;
            () = &mut interrupted => break,
            _ = tick.tick() => {
                if !printer.outage(cache.outage()) {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
            }
            got = cache.changes.recv() => {
                if got.is_none() {
                    break;
                }
                tokio::select! {
                    biased;
                    () = &mut interrupted => break,
                    () = tokio::time::sleep(SETTLE) => {}
                }
                while cache.changes.try_recv().is_ok() {}
                if !cache.synced() {
                    continue;
                }
                let mut snap = cache.snapshot(jiff::Timestamp::now());
                snap.set_rules(settings.rules.clone());
                let f = frame(&snap, &retarget.targets(&snap), true);
                code = f.code;
                if !printer.show(&f) {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
            }
        }
    }
    Ok(Outcome {
        stdout: String::new(),
        code,
    })
}

/// Resolves at the first Ctrl-C. The handler is installed at once, so a
/// Ctrl-C that comes before the first poll, or between two polls, counts.
fn interrupt() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
    async move {
        #[cfg(unix)]
        match sigint {
            Ok(mut sigint) => {
                sigint.recv().await;
            }
            // No handler: Ctrl-C keeps its default action, ending the process.
            Err(_) => std::future::pending().await,
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Shows frames as they come; `false` once stdout is gone (`| head`).
struct Printer {
    mode: Mode,
    /// YAML documents are separated by `---`; JSON lines and templates
    /// (`-o jsonpath`) are not.
    yaml: bool,
    color: bool,
    last_text: String,
    last_document: String,
    last_states: BTreeMap<String, String>,
    /// How long the API server had not answered, at the last notice.
    lost: Option<Outage>,
}

/// The line that says the API server does not answer, and since when.
fn outage_line(lost: &Outage) -> String {
    match &lost.cause {
        // Not the server's fault: the plugin's own words say what to do.
        Some(cause) => format!(
            "no request sent for {}s: {}; retrying; showing the last state seen",
            lost.lasted.as_secs(),
            crate::render::escape(cause)
        ),
        None => format!(
            "connection to the API server lost {}s ago, retrying; showing the last state seen",
            lost.lasted.as_secs()
        ),
    }
}

enum Mode {
    Redraw,
    Lines,
    Documents,
}

impl Printer {
    fn new(settings: &Settings) -> Printer {
        let mode = match settings.output {
            OutputFormat::Text if settings.width.is_some() => Mode::Redraw,
            OutputFormat::Text => Mode::Lines,
            _ => Mode::Documents,
        };
        Printer {
            mode,
            yaml: settings.output == OutputFormat::Yaml
                && !matches!(settings.view.output, crate::settings::Shape::JsonPath(_)),
            color: settings.color,
            last_text: String::new(),
            last_document: String::new(),
            last_states: BTreeMap::new(),
            lost: None,
        }
    }

    /// Says when the API server stops answering and when it answers again:
    /// a footer kept current on a terminal, a line off one, a line on
    /// stderr beside JSON or YAML documents.
    fn outage(&mut self, lost: Option<Outage>) -> bool {
        let was = std::mem::replace(&mut self.lost, lost.clone());
        let stamp = || {
            jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        };
        let out = match (&self.mode, was, lost.as_ref()) {
            (_, None, None) => return true,
            (Mode::Redraw, _, Some(lost)) => format!(
                "\x1b[H\x1b[2J{}\n{}; Ctrl-C to stop\n",
                self.last_text,
                outage_line(lost)
            ),
            (Mode::Redraw, Some(_), None) => {
                let stamp = jiff::Timestamp::now().strftime("%H:%M:%S");
                format!(
                    "\x1b[H\x1b[2J{}\nconnection restored at {stamp}; watching, Ctrl-C to stop\n",
                    self.last_text
                )
            }
            (Mode::Lines, None, Some(lost)) => format!("{} {}\n", stamp(), outage_line(lost)),
            (Mode::Lines, Some(_), None) => format!("{} connection restored\n", stamp()),
            (Mode::Documents, None, Some(lost)) => {
                eprintln!("{} {}", stamp(), outage_line(lost));
                return true;
            }
            (Mode::Documents, Some(_), None) => {
                eprintln!("{} connection restored", stamp());
                return true;
            }
            (_, Some(_), Some(_)) => return true,
        };
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .is_ok()
    }

    fn show(&mut self, f: &Frame) -> bool {
        let out = match self.mode {
            Mode::Documents => {
                if f.document == self.last_document {
                    return true;
                }
                self.last_document = f.document.clone();
                if self.yaml {
                    format!("---\n{}", f.document)
                } else {
                    f.document.clone()
                }
            }
            Mode::Redraw => {
                if f.text == self.last_text {
                    return true;
                }
                let old: std::collections::HashSet<&str> = self.last_text.lines().collect();
                let first = self.last_text.is_empty();
                let body: String = f
                    .text
                    .lines()
                    .map(|l| {
                        if !first && self.color && !old.contains(l) {
                            format!("\x1b[7m{l}\x1b[0m\n")
                        } else {
                            format!("{l}\n")
                        }
                    })
                    .collect();
                let stamp = jiff::Timestamp::now().strftime("%H:%M:%S");
                self.last_text = f.text.clone();
                format!("\x1b[H\x1b[2J{body}\nwatching, updated {stamp}; Ctrl-C to stop\n")
            }
            Mode::Lines => {
                let now = jiff::Timestamp::now()
                    .strftime("%Y-%m-%dT%H:%M:%SZ")
                    .to_string();
                let states: BTreeMap<String, String> = f.states.iter().cloned().collect();
                let mut lines = String::new();
                for (key, line) in &f.states {
                    if self.last_states.get(key) != Some(line) {
                        lines.push_str(&format!("{now} {line}\n"));
                    }
                }
                for key in self.last_states.keys().filter(|k| !states.contains_key(*k)) {
                    lines.push_str(&format!("{now} {} gone\n", crate::render::escape(key)));
                }
                self.last_states = states;
                lines
            }
        };
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .is_ok()
    }
}
