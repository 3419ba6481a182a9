//! Where a live answer is shown: the [`Screen`] a watch draws on, and the
//! [`Printer`] that draws on the process's stdout: frames redrawn in place
//! on a terminal, timestamped change lines off one, one document per change
//! with `-o json|yaml`, and the notices and outages of the watches.

use std::collections::BTreeMap;
use std::io::Write;

use super::frame::Frame;
use crate::settings::Settings;
use crate::source::watch::Outage;
use crate::terminal::Console;

/// Where a live answer's frames, notices and outages go: the process's
/// own stdout ([`Printer`]), or one context's place on a fleet's screen
/// (`super::fleet_watch::Seat`).
pub trait Screen {
    /// Shows a frame; `false` once stdout is gone (`| head`).
    fn show(&mut self, f: &Frame) -> bool;
    /// Says what happened to a watch that no frame shows.
    fn notice(&mut self, text: &str) -> bool;
    /// Says when the API server stops answering and when it answers again.
    fn outage(&mut self, lost: Option<Outage>) -> bool;
    /// Whether frames are drawn over the last one (a terminal).
    fn redraws(&self) -> bool;
    /// The terminal's width now.
    fn width(&self) -> usize;
    /// The time now, by the screen's clock.
    fn now(&self) -> jiff::Timestamp;
}

impl<O: Write, E: Write> Screen for Printer<O, E> {
    fn show(&mut self, f: &Frame) -> bool {
        Printer::show(self, f)
    }
    fn notice(&mut self, text: &str) -> bool {
        Printer::notice(self, text)
    }
    fn outage(&mut self, lost: Option<Outage>) -> bool {
        Printer::outage(self, lost)
    }
    fn redraws(&self) -> bool {
        Printer::redraws(self)
    }
    fn width(&self) -> usize {
        (self.console.width)()
    }
    fn now(&self) -> jiff::Timestamp {
        self.console.now()
    }
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

/// Shows frames as they come, through a [`Console`]; `false` once stdout
/// is gone (`| head`).
pub struct Printer<O: Write, E: Write> {
    console: Console<O, E>,
    mode: Mode,
    /// YAML documents are separated by `---`; JSON lines and templates
    /// (`-o jsonpath`) are not.
    yaml: bool,
    color: bool,
    last_text: String,
    last_document: String,
    /// The last frame's states, each line by its hash: what a change is
    /// told from, without a second copy of every line.
    last_states: BTreeMap<String, u64>,
    /// How long the API server had not answered, at the last notice.
    lost: Option<Outage>,
}

/// The line that says the API server does not answer, and since when.
pub fn outage_line(lost: &Outage) -> String {
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
    pub fn new(settings: &Settings, console: Console<O, E>) -> Printer<O, E> {
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
        // An outage whose cause changes (watches that end at once, then a
        // credential plugin that fails) is said again, as a new one.
        let was = was.filter(|w| {
            lost.as_ref()
                .is_none_or(|l| (&w.cause, &w.ending) == (&l.cause, &l.ending))
        });
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
                let first = self.last_text.is_empty();
                let states = hashed_states(&f.states);
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
                let states = hashed_states(&f.states);
                let mut lines = String::new();
                for (key, line) in &f.states {
                    if self.last_states.get(key) != states.get(key) {
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

/// A state line's hash: two lines that differ differ here but for one
/// chance in 2^64.
fn hashed(line: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    line.hash(&mut h);
    h.finish()
}

/// A frame's states as the next one is told from: each line's hash.
fn hashed_states(states: &[(String, String)]) -> BTreeMap<String, u64> {
    states
        .iter()
        .map(|(k, line)| (k.clone(), hashed(line)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn noon() -> jiff::Timestamp {
        "2026-12-01T12:00:07Z".parse().unwrap()
    }

    fn narrow() -> usize {
        80
    }

    /// The settings of `kubectl reconcile ARGS`, off a terminal unless a
    /// width is given.
    fn settings(args: &[&str], width: Option<usize>) -> Settings {
        let mut settings = crate::testutil::settings(args);
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
        // Watches that end at once, then a credential plugin that fails:
        // the new cause is said, once.
        let ending = Outage {
            ending: Some("the watch of pods ended with no event".into()),
            lasted: Duration::from_secs(0),
            cause: None,
        };
        assert!(p.outage(Some(ending)));
        assert!(p.outage(Some(lost(2, Some("the credential plugin \"aws\" failed")))));
        assert!(p.outage(Some(lost(3, Some("the credential plugin \"aws\" failed")))));
        let (out, _) = written(&mut p);
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(
            out.lines().nth(1).unwrap().ends_with("no request sent for 2s: the credential plugin \"aws\" failed; retrying; showing the last state seen"),
            "{out}"
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
