//! `--watch`: keep the answer live. The watches feed a cache; after every
//! change (gathered for a moment) the pure stages run again on a snapshot of
//! the cache and the new frame is shown: redrawn in place on a terminal,
//! as timestamped change lines off one, or as one document per change with
//! `-o json|yaml`.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use super::frame::Frame;
use super::load::Loaded;
use super::{Outcome, UsageError};
use crate::model::{ObjectRef, Snapshot, Target};
use crate::settings::Settings;
use crate::source::live::Fetched;
use crate::source::offline;
use crate::source::watch::{Cache, Outage};
use crate::targets::failing_roots;

/// How long changes are gathered before a redraw (`--watch`) or a new
/// look (`wait`).
pub const SETTLE: Duration = Duration::from_millis(150);

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
                        ..fetched.snapshot.id_of(uid)
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
    frame: impl Fn(&Settings, &Snapshot, &[Target], bool) -> Frame,
) -> anyhow::Result<Outcome> {
    if watching {
        let retarget = Retarget::new(&loaded.fetched, roots, failing);
        return watch(settings, loaded, retarget, frame).await;
    }
    let f = frame(
        settings,
        &loaded.fetched.snapshot,
        &loaded.fetched.targets,
        false,
    );
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
    frame: impl Fn(&Settings, &Snapshot, &[Target], bool) -> Frame,
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
    // On a terminal the width is read again for every frame (a resized
    // window), and the last state is drawn again every second, so that
    // AGE and SINCE keep time between changes.
    let redraw = printer.redraws();
    let mut current = settings.clone();
    let mut last = (loaded.fetched.snapshot, loaded.fetched.targets);
    // What a frame costs: a large answer is redrawn for its clock less
    // often (at most a tenth of the time goes to it), never more than once
    // a second.
    let started = Instant::now();
    let first = frame(&current, &last.0, &last.1, true);
    let mut cost = started.elapsed();
    let mut drawn = Instant::now();
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
                if redraw && cache.outage().is_none() && drawn.elapsed() >= cost * 10 {
                    current.width = Some(crate::settings::terminal_width());
                    last.0.now = jiff::Timestamp::now();
                    let started = Instant::now();
                    let f = frame(&current, &last.0, &last.1, true);
                    (cost, drawn) = (started.elapsed(), Instant::now());
                    code = f.code;
                    if !printer.show(&f) {
                        return Ok(Outcome { stdout: String::new(), code: 0 });
                    }
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
                if redraw {
                    current.width = Some(crate::settings::terminal_width());
                }
                let targets = retarget.targets(&snap);
                let started = Instant::now();
                let f = frame(&current, &snap, &targets, true);
                (cost, drawn) = (started.elapsed(), Instant::now());
                last = (snap, targets);
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

/// Whether a drawn row shows one of these objects (`ns/Kind/name` keys):
/// its `Kind/name`, after the tree's branches and an edge mark.
fn shows_any(line: &str, keys: &[&str]) -> bool {
    line.split_whitespace().any(|cell| {
        let cell = cell.trim_start_matches(['├', '└', '│', '─', ' ']);
        keys.iter().any(|k| {
            let mut parts = k.rsplitn(3, '/');
            let (name, kind) = (parts.next(), parts.next());
            matches!((kind, name), (Some(kind), Some(name)) if cell == format!("{kind}/{name}"))
        })
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
        let mode = match &settings.view.output {
            shape if shape.is_document() => Mode::Documents,
            _ if settings.width.is_some() => Mode::Redraw,
            _ => Mode::Lines,
        };
        Printer {
            mode,
            yaml: settings.view.output == crate::settings::Shape::Yaml,
            color: settings.color,
            last_text: String::new(),
            last_document: String::new(),
            last_states: BTreeMap::new(),
            lost: None,
        }
    }

    /// Whether frames are drawn over the last one (a terminal).
    fn redraws(&self) -> bool {
        matches!(self.mode, Mode::Redraw)
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
                // Rows whose object changed state are highlighted: not
                // those that only moved with a column's width, or whose
                // age ticked.
                let states: BTreeMap<String, String> = f.states.iter().cloned().collect();
                let first = self.last_text.is_empty();
                let changed: Vec<&str> = states
                    .iter()
                    .filter(|(k, v)| self.last_states.get(*k) != Some(*v))
                    .map(|(k, _)| k.as_str())
                    .collect();
                let body: String = f
                    .text
                    .lines()
                    .map(|l| {
                        if !first && self.color && shows_any(l, &changed) {
                            format!("\x1b[7m{l}\x1b[0m\n")
                        } else {
                            format!("{l}\n")
                        }
                    })
                    .collect();
                let stamp = jiff::Timestamp::now().strftime("%H:%M:%S");
                self.last_text = f.text.clone();
                self.last_states = states;
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

#[cfg(test)]
mod tests {
    use super::shows_any;

    #[test]
    fn a_row_is_found_by_its_object_under_branches_and_edge_marks() {
        let keys = ["shop/Pod/web-7d9-x2x4z", "Node/kwok-node-1"];
        assert!(shows_any(
            "│ └─Pod/web-7d9-x2x4z   Failed  CrashLoopBackOff  0/1  2m",
            &keys
        ));
        assert!(shows_any(
            "shop  ├─[runs-on] Node/kwok-node-1  NotReady",
            &keys
        ));
        assert!(shows_any("Pod/web-7d9-x2x4z  Failed", &keys));
        // Not another object whose name starts the same, nor a message.
        assert!(!shows_any("Pod/web-7d9-x2x4z-2  Failed", &keys));
        assert!(!shows_any(
            "Deployment/web  Progressing  0/1 replicas: Pod web-7d9-x2x4z",
            &keys
        ));
    }
}
