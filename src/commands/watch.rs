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
use crate::report::failing_roots;
use crate::settings::Settings;
use crate::source::live::Fetched;
use crate::source::offline;
use crate::source::watch::Cache;

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
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            got = cache.changes.recv() => {
                if got.is_none() {
                    break;
                }
                tokio::time::sleep(SETTLE).await;
                while cache.changes.try_recv().is_ok() {}
                if !cache.synced() {
                    continue;
                }
                let snap = cache.snapshot(jiff::Timestamp::now());
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

/// Shows frames as they come; `false` once stdout is gone (`| head`).
struct Printer {
    mode: Mode,
    color: bool,
    last_text: String,
    last_document: String,
    last_states: BTreeMap<String, String>,
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
            color: settings.color,
            last_text: String::new(),
            last_document: String::new(),
            last_states: BTreeMap::new(),
        }
    }

    fn show(&mut self, f: &Frame) -> bool {
        let out = match self.mode {
            Mode::Documents => {
                if f.document == self.last_document {
                    return true;
                }
                self.last_document = f.document.clone();
                if f.document.starts_with('{') {
                    f.document.clone()
                } else {
                    format!("---\n{}", f.document)
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
