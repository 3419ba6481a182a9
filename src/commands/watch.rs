//! `--watch`: keep the answer live. The watches feed a cache; after every
//! change (gathered for a moment) the pure stages run again on a snapshot of
//! the cache and the new frame is shown: redrawn in place on a terminal,
//! as timestamped change lines off one, or as one document per change with
//! `-o json|yaml`.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use super::frame::{Frame, Shown, Subject};
use super::load::Loaded;
use super::{Outcome, UsageError};
use crate::model::{ObjectRef, Snapshot, Target};
use crate::settings::Settings;
use crate::source::live::Fetched;
use crate::source::offline;
use crate::source::watch::{Cache, Outage};
use crate::targets::failing_roots;
use crate::terminal::Console;
use crate::verdict::Judged;

/// How long changes are gathered before a redraw (`--watch`) or a new
/// look (`wait`).
pub const SETTLE: Duration = Duration::from_millis(150);

/// Which objects the answer is about, found again in every new snapshot:
/// objects come and go, and a recreated object has a new uid.
pub enum Retarget {
    Fixed(Vec<ObjectRef>),
    /// The scope's roots, all of them or only those not converged; only
    /// those with these labels when given (`-l` without a TYPE).
    Roots(Subject, Option<String>),
}

impl Retarget {
    pub fn new(fetched: &Fetched, subject: Subject, labels: Option<&str>) -> Retarget {
        if subject.is_sweep() {
            return Retarget::Roots(subject, labels.map(str::to_string));
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

    pub fn targets(&self, snap: &Judged<'_>) -> Vec<Target> {
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
            Retarget::Roots(subject, labels) => {
                let roots =
                    offline::resolve(snap, &[], None, labels.as_deref()).unwrap_or_default();
                match subject {
                    Subject::FailingRoots => failing_roots(snap, &roots),
                    Subject::Roots | Subject::Named => roots,
                }
            }
        }
    }
}

/// Shows a loaded answer once, or keeps it live with `--watch`, its
/// targets (its `subject`) found again on every change.
pub async fn show(
    settings: &Settings,
    loaded: Loaded,
    shown: Shown,
    subject: Subject,
    frame: impl Fn(&Settings, &Snapshot, &[Target], Shown) -> Frame,
) -> anyhow::Result<Outcome> {
    if shown == Shown::Live {
        let retarget = Retarget::new(&loaded.fetched, subject, settings.sweep_labels.as_deref());
        return watch(settings, loaded, retarget, frame).await;
    }
    let f = frame(
        settings,
        &loaded.fetched.snapshot,
        &loaded.fetched.targets,
        Shown::Once,
    );
    Ok(Outcome {
        stdout: f.output(settings),
        code: f.code,
    })
}

/// Watches until interrupted; the exit status is the last frame's.
async fn watch(
    settings: &Settings,
    mut loaded: Loaded,
    retarget: Retarget,
    frame: impl Fn(&Settings, &Snapshot, &[Target], Shown) -> Frame,
) -> anyhow::Result<Outcome> {
    let Some(live) = loaded.live else {
        return Err(
            UsageError("--watch needs a live cluster: a snapshot does not change".into()).into(),
        );
    };
    let mut cache = Cache::start(
        live.api(),
        std::mem::take(&mut loaded.fetched.watches),
        loaded.fetched.gaps.clone(),
    )
    .keeping_crds_of(&loaded.fetched.snapshot);
    let mut printer = Printer::new(settings, Console::process());
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
    let first = frame(&current, &last.0, &last.1, Shown::Live);
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
                if crate::terminal::stdout_closed() {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
                for notice in cache.notices() {
                    if !printer.notice(&notice) {
                        return Ok(Outcome { stdout: String::new(), code: 0 });
                    }
                }
                if !printer.outage(cache.outage()) {
                    return Ok(Outcome { stdout: String::new(), code: 0 });
                }
                if redraw && cache.outage().is_none() && drawn.elapsed() >= cost * 10 {
                    current.width = Some((printer.console.width)());
                    last.0.now = printer.console.now();
                    let started = Instant::now();
                    let f = frame(&current, &last.0, &last.1, Shown::Live);
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
                let snap = cache.snapshot(printer.console.now());
                if redraw {
                    current.width = Some((printer.console.width)());
                }
                let targets = retarget.targets(&settings.judge().on(&snap));
                let started = Instant::now();
                let f = frame(&current, &snap, &targets, Shown::Live);
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

/// Shows frames as they come, through a [`Console`]; `false` once stdout
/// is gone (`| head`).
struct Printer<O: Write, E: Write> {
    console: Console<O, E>,
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
    if let Some(ending) = &lost.ending {
        return format!(
            "{} as soon as it opens, again and again for {}s; retrying with a backoff; showing the last state seen",
            crate::render::escape(ending),
            lost.lasted.as_secs()
        );
    }
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

#[derive(Debug, PartialEq)]
enum Mode {
    Redraw,
    Lines,
    Documents,
}

impl<O: Write, E: Write> Printer<O, E> {
    fn new(settings: &Settings, console: Console<O, E>) -> Printer<O, E> {
        let mode = match &settings.view.output {
            shape if shape.is_document() => Mode::Documents,
            _ if settings.width.is_some() => Mode::Redraw,
            _ => Mode::Lines,
        };
        Printer {
            console,
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
        self.mode == Mode::Redraw
    }

    fn stamp(&self) -> String {
        self.console
            .now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    fn clock(&self) -> String {
        self.console.now().strftime("%H:%M:%S").to_string()
    }

    /// Says what happened to a watch that no frame shows: a line off a
    /// terminal, a line on stderr beside documents; on a terminal the next
    /// frame is news enough.
    fn notice(&mut self, text: &str) -> bool {
        let line = format!("{} {}\n", self.stamp(), crate::render::escape(text));
        match self.mode {
            Mode::Redraw => true,
            Mode::Lines => self.console.print(&line),
            Mode::Documents => {
                self.console.say(&line);
                true
            }
        }
    }

    /// Says when the API server stops answering and when it answers again:
    /// a footer kept current on a terminal, a line off one, a line on
    /// stderr beside JSON or YAML documents.
    fn outage(&mut self, lost: Option<Outage>) -> bool {
        let was = std::mem::replace(&mut self.lost, lost.clone());
        let out = match (&self.mode, was, lost.as_ref()) {
            (_, None, None) => return true,
            (Mode::Redraw, _, Some(lost)) => format!(
                "\x1b[H\x1b[2J{}\n{}; Ctrl-C to stop\n",
                self.last_text,
                outage_line(lost)
            ),
            (Mode::Redraw, Some(_), None) => format!(
                "\x1b[H\x1b[2J{}\nconnection restored at {}; watching, Ctrl-C to stop\n",
                self.last_text,
                self.clock()
            ),
            (Mode::Lines, None, Some(lost)) => format!("{} {}\n", self.stamp(), outage_line(lost)),
            (Mode::Lines, Some(_), None) => format!("{} connection restored\n", self.stamp()),
            (Mode::Documents, None, Some(lost)) => {
                let line = format!("{} {}\n", self.stamp(), outage_line(lost));
                self.console.say(&line);
                return true;
            }
            (Mode::Documents, Some(_), None) => {
                let line = format!("{} connection restored\n", self.stamp());
                self.console.say(&line);
                return true;
            }
            (_, Some(_), Some(_)) => return true,
        };
        self.console.print(&out)
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
                let stamp = self.clock();
                self.last_text = f.text.clone();
                self.last_states = states;
                format!("\x1b[H\x1b[2J{body}\nwatching, updated {stamp}; Ctrl-C to stop\n")
            }
            Mode::Lines => {
                let now = self.stamp();
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
        self.console.print(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn noon() -> jiff::Timestamp {
        "2026-12-01T12:00:07Z".parse().unwrap()
    }

    fn narrow() -> usize {
        80
    }

    /// The settings of `kubectl reconcile ARGS`, off a terminal unless a
    /// width is given.
    fn settings(args: &[&str], width: Option<usize>) -> Settings {
        let cli = crate::cli::Cli::try_parse_from(
            std::iter::once("kubectl-reconcile").chain(args.iter().copied()),
        )
        .unwrap();
        let mut settings = Settings::from_args(&cli.global).unwrap();
        settings.width = width;
        settings.color = width.is_some();
        settings
    }

    fn printer(settings: &Settings) -> Printer<Vec<u8>, Vec<u8>> {
        printing_to(settings, Vec::new())
    }

    /// A printer whose stdout is `out`, stderr a buffer, at a fixed time.
    fn printing_to<O: Write>(settings: &Settings, out: O) -> Printer<O, Vec<u8>> {
        let console = Console {
            out,
            err: Vec::new(),
            clock: noon,
            width: narrow,
            err_is_terminal: false,
        };
        Printer::new(settings, console)
    }

    /// Takes what the printer wrote so far: (stdout, stderr).
    fn written(p: &mut Printer<Vec<u8>, Vec<u8>>) -> (String, String) {
        (
            String::from_utf8(std::mem::take(&mut p.console.out)).unwrap(),
            String::from_utf8(std::mem::take(&mut p.console.err)).unwrap(),
        )
    }

    fn frame(text: &str, document: &str, states: &[(&str, &str)]) -> Frame {
        Frame {
            text: text.into(),
            document: document.into(),
            code: 1,
            states: states
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn off_a_terminal_each_change_is_a_stamped_line_and_a_gone_object_says_so() {
        let mut p = printer(&settings(&["status", "--watch"], None));
        assert!(!p.redraws());
        let web = "shop/Deployment/web";
        assert!(p.show(&frame(
            "",
            "",
            &[(
                web,
                "shop/Deployment/web Progressing NewReplicaSetCreated 0/1"
            )]
        )));
        assert_eq!(
            written(&mut p).0,
            "2026-12-01T12:00:07Z shop/Deployment/web Progressing NewReplicaSetCreated 0/1\n"
        );
        // Nothing changed: nothing said.
        assert!(p.show(&frame(
            "",
            "",
            &[(
                web,
                "shop/Deployment/web Progressing NewReplicaSetCreated 0/1"
            )]
        )));
        assert_eq!(written(&mut p).0, "");
        assert!(p.show(&frame(
            "",
            "",
            &[
                (web, "shop/Deployment/web Converged Available 1/1"),
                ("shop/Service/web", "shop/Service/web Converged Ready")
            ]
        )));
        assert_eq!(
            written(&mut p).0,
            "2026-12-01T12:00:07Z shop/Deployment/web Converged Available 1/1\n2026-12-01T12:00:07Z shop/Service/web Converged Ready\n"
        );
        assert!(p.show(&frame(
            "",
            "",
            &[("shop/Service/web", "shop/Service/web Converged Ready")]
        )));
        assert_eq!(
            written(&mut p),
            (
                "2026-12-01T12:00:07Z shop/Deployment/web gone\n".into(),
                String::new()
            )
        );
    }

    #[test]
    fn on_a_terminal_a_frame_is_redrawn_with_only_rows_whose_state_changed_highlighted() {
        let mut p = printer(&settings(&["status", "--watch"], Some(100)));
        assert!(p.redraws());
        let web = "shop/Deployment/web";
        let svc = "shop/Service/web";
        let first = frame(
            "NAME            VERDICT\nDeployment/web  Progressing\nService/web     Converged\n",
            "",
            &[(web, "Progressing"), (svc, "Converged")],
        );
        assert!(p.show(&first));
        // The first frame highlights nothing.
        assert_eq!(
            written(&mut p).0,
            "\x1b[H\x1b[2JNAME            VERDICT\nDeployment/web  Progressing\nService/web     Converged\n\nwatching, updated 12:00:07; Ctrl-C to stop\n"
        );
        // The same text is not drawn again.
        assert!(p.show(&first));
        assert_eq!(written(&mut p).0, "");
        let second = frame(
            "NAME            VERDICT\nDeployment/web  Converged\nService/web     Converged\n",
            "",
            &[(web, "Converged"), (svc, "Converged")],
        );
        assert!(p.show(&second));
        assert_eq!(
            written(&mut p).0,
            "\x1b[H\x1b[2JNAME            VERDICT\n\x1b[7mDeployment/web  Converged\x1b[0m\nService/web     Converged\n\nwatching, updated 12:00:07; Ctrl-C to stop\n"
        );
        // A row that only moved (a wider column) is not highlighted.
        let wider = frame(
            "NAME             VERDICT\nDeployment/web   Converged\nService/web      Converged\n",
            "",
            &[(web, "Converged"), (svc, "Converged")],
        );
        assert!(p.show(&wider));
        assert!(!written(&mut p).0.contains("\x1b[7m"));
    }

    #[test]
    fn yaml_documents_are_separated_and_json_lines_and_templates_are_not() {
        let mut p = printer(&settings(&["status", "--watch", "-o", "yaml"], None));
        assert!(p.show(&frame("", "kind: StatusReport\n", &[])));
        assert!(p.show(&frame("", "kind: StatusReport\n", &[])));
        assert!(p.show(&frame("", "kind: StatusReport\nitems: []\n", &[])));
        assert_eq!(
            written(&mut p).0,
            "---\nkind: StatusReport\n---\nkind: StatusReport\nitems: []\n"
        );
        for output in ["json", "jsonpath={.items[*].verdict}"] {
            let mut p = printer(&settings(&["status", "--watch", "-o", output], None));
            assert!(p.show(&frame("", "Converged\n", &[])));
            assert!(p.show(&frame("", "Progressing\n", &[])));
            assert_eq!(written(&mut p).0, "Converged\nProgressing\n", "-o {output}");
        }
    }

    #[test]
    fn a_half_open_watch_found_and_opened_again_is_said_off_a_terminal() {
        let text = "the watch of pods was silent for 270s, past the server's own end of a watch (a half-open connection); opened again";
        let mut p = printer(&settings(&["status", "--watch"], None));
        assert!(p.notice(text));
        assert_eq!(
            written(&mut p),
            (format!("2026-12-01T12:00:07Z {text}\n"), String::new())
        );
        let mut p = printer(&settings(&["status", "--watch", "-o", "json"], None));
        assert!(p.notice(text));
        assert_eq!(
            written(&mut p),
            (String::new(), format!("2026-12-01T12:00:07Z {text}\n"))
        );
    }

    #[test]
    fn an_outage_is_said_once_where_the_answer_goes_and_its_end_too() {
        let lost = |secs, cause: Option<&str>| Outage {
            ending: None,
            lasted: Duration::from_secs(secs),
            cause: cause.map(str::to_string),
        };
        let mut p = printer(&settings(&["status", "--watch"], None));
        assert!(p.outage(None));
        assert!(p.outage(Some(lost(7, None))));
        assert!(p.outage(Some(lost(8, None))));
        assert!(p.outage(None));
        assert_eq!(
            written(&mut p),
            (
                "2026-12-01T12:00:07Z connection to the API server lost 7s ago, retrying; showing the last state seen\n2026-12-01T12:00:07Z connection restored\n".into(),
                String::new()
            )
        );
        // Beside documents, on stderr; a failed credential plugin is named.
        let mut p = printer(&settings(&["status", "--watch", "-o", "json"], None));
        assert!(p.outage(Some(lost(
            3,
            Some("the credential plugin \"aws\" failed\x1b[31m")
        ))));
        assert_eq!(
            written(&mut p),
            (
                String::new(),
                "2026-12-01T12:00:07Z no request sent for 3s: the credential plugin \"aws\" failed\\x1b[31m; retrying; showing the last state seen\n".into()
            )
        );
        // On a terminal, a footer under the last frame, kept current.
        let mut p = printer(&settings(&["status", "--watch"], Some(100)));
        assert!(p.show(&frame("Deployment/web  Converged\n", "", &[])));
        written(&mut p);
        assert!(p.outage(Some(lost(2, None))));
        assert!(p.outage(Some(lost(3, None))));
        assert!(p.outage(None));
        assert_eq!(
            written(&mut p).0,
            "\x1b[H\x1b[2JDeployment/web  Converged\n\nconnection to the API server lost 2s ago, retrying; showing the last state seen; Ctrl-C to stop\n\x1b[H\x1b[2JDeployment/web  Converged\n\nconnection to the API server lost 3s ago, retrying; showing the last state seen; Ctrl-C to stop\n\x1b[H\x1b[2JDeployment/web  Converged\n\nconnection restored at 12:00:07; watching, Ctrl-C to stop\n"
        );
    }

    /// A stdout that is gone (`| head` ended).
    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_stdout_ends_the_watch() {
        let mut p = printing_to(&settings(&["status", "--watch"], None), Closed);
        assert!(!p.show(&frame(
            "",
            "",
            &[("shop/Pod/p", "shop/Pod/p Converged Ready")]
        )));
    }

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
