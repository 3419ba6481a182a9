//! `--watch` of a fleet: every context's live answer on one screen. Each
//! context keeps its own watches and draws on its [`Seat`]; the
//! [`FleetScreen`] shows them as one frame: a section per context on a
//! terminal, change lines that start with the context off one, and each
//! context's documents with their `context` under `-o json|yaml`.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::frame::Frame;
use super::screen::{Printer, Screen, outage_line};
use crate::render::{self, Style};
use crate::settings::{Settings, Shape};
use crate::source::contexts::Member;
use crate::source::watch::Outage;
use crate::terminal::Console;

/// What one context last showed.
struct Section {
    heading: String,
    text: String,
    states: Vec<(String, String)>,
    /// The API server of this context does not answer: since when.
    outage: Option<String>,
}

/// The one screen of a fleet's watch.
pub struct FleetScreen {
    printer: Printer<std::io::Stdout, std::io::Stderr>,
    sections: Vec<Section>,
    output: Shape,
}

impl FleetScreen {
    /// A screen of a section per member, in their order.
    pub fn new(settings: &Settings, members: &[Member]) -> Rc<RefCell<FleetScreen>> {
        let style = Style {
            color: settings.color,
        };
        Rc::new(RefCell::new(FleetScreen {
            printer: Printer::new(settings, Console::process()),
            sections: members
                .iter()
                .map(|m| Section {
                    heading: heading(m, style),
                    text: "(reading)\n".into(),
                    states: Vec::new(),
                    outage: None,
                })
                .collect(),
            output: settings.view.output.clone(),
        }))
    }

    /// Shows every section as one frame, with `document` (a context's
    /// own, its context added) under `-o json|yaml`.
    fn draw(&mut self, document: String) -> bool {
        let text = self
            .sections
            .iter()
            .map(|s| {
                let outage = s
                    .outage
                    .as_ref()
                    .map(|o| format!("{o}\n"))
                    .unwrap_or_default();
                format!("{}{}{outage}", s.heading, s.text)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let states = self
            .sections
            .iter()
            .flat_map(|s| s.states.iter().cloned())
            .collect();
        Screen::show(
            &mut self.printer,
            &Frame {
                text,
                document,
                code: 0,
                states,
            },
        )
    }
}

/// One context's place on a fleet's screen.
#[derive(Clone)]
pub struct Seat {
    screen: Rc<RefCell<FleetScreen>>,
    index: usize,
    context: String,
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seat({})", self.context)
    }
}

impl Seat {
    pub fn at(screen: &Rc<RefCell<FleetScreen>>, index: usize, context: &str) -> Seat {
        Seat {
            screen: screen.clone(),
            index,
            context: context.to_string(),
        }
    }

    /// The context gave no answer: its section says why.
    pub fn unanswered(&self, reason: &str, message: &str) {
        let mut screen = self.screen.borrow_mut();
        screen.sections[self.index].text = format!(
            "Unknown ({reason}): {}\n",
            crate::escape::escape_multiline(message)
        );
        let document = match screen.output {
            Shape::Json | Shape::Yaml => with_context(
                &screen.output,
                &serde_json::json!({"answered": false, "reason": reason, "message": message})
                    .to_string(),
                &self.context,
            ),
            _ => String::new(),
        };
        if !Screen::redraws(&screen.printer) {
            Screen::notice(
                &mut screen.printer,
                &format!(
                    "{}: {reason}: {}",
                    self.context,
                    message.lines().next().unwrap_or_default()
                ),
            );
        }
        screen.draw(document);
    }
}

impl Screen for Seat {
    fn show(&mut self, f: &Frame) -> bool {
        let mut screen = self.screen.borrow_mut();
        let context = render::escape(&self.context).into_owned();
        let section = &mut screen.sections[self.index];
        section.text = f.text.clone();
        section.states = f
            .states
            .iter()
            .map(|(k, l)| (format!("{}/{k}", self.context), format!("{context} {l}")))
            .collect();
        let document = with_context(&screen.output, &f.document, &self.context);
        screen.draw(document)
    }

    fn notice(&mut self, text: &str) -> bool {
        let line = format!("{}: {text}", self.context);
        Screen::notice(&mut self.screen.borrow_mut().printer, &line)
    }

    fn outage(&mut self, lost: Option<Outage>) -> bool {
        let mut screen = self.screen.borrow_mut();
        let line = lost.as_ref().map(outage_line);
        let was = std::mem::replace(&mut screen.sections[self.index].outage, line.clone());
        if was.is_some() == line.is_some() {
            return true;
        }
        if !Screen::redraws(&screen.printer) {
            let said = line.unwrap_or_else(|| "connection restored".into());
            return Screen::notice(&mut screen.printer, &format!("{}: {said}", self.context));
        }
        screen.draw(String::new())
    }

    fn redraws(&self) -> bool {
        Screen::redraws(&self.screen.borrow().printer)
    }

    fn width(&self) -> usize {
        Screen::width(&self.screen.borrow().printer)
    }

    fn now(&self) -> jiff::Timestamp {
        Screen::now(&self.screen.borrow().printer)
    }
}

/// A context's section heading, as `tail` heads each of many files.
pub fn heading(member: &Member, style: Style) -> String {
    let server = if member.server.is_empty() {
        String::new()
    } else {
        format!(" ({})", render::escape(&member.server))
    };
    style.bold(&format!(
        "==> context {}{server} <==\n",
        render::escape(&member.name)
    ))
}

/// A context's JSON line or YAML document with its `context` first; other
/// shapes (a JSONPath template's text) as they are.
fn with_context(output: &Shape, document: &str, context: &str) -> String {
    let parsed: Option<Value> = match output {
        Shape::Json => serde_json::from_str(document).ok(),
        Shape::Yaml => serde_yaml_ng::from_str(document).ok(),
        _ => None,
    };
    let Some(Value::Object(fields)) = parsed else {
        return document.to_string();
    };
    let mut out = serde_json::Map::with_capacity(fields.len() + 1);
    out.insert("context".into(), Value::String(context.into()));
    out.extend(fields);
    let value = Value::Object(out);
    match output {
        Shape::Yaml => render::yaml(&value),
        _ => format!("{}\n", crate::escape::json_compact(&value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contexts_documents_carry_it_first() {
        let line = with_context(
            &Shape::Json,
            "{\"kind\":\"StatusReport\",\"items\":[]}\n",
            "eu",
        );
        assert_eq!(
            line,
            "{\"context\":\"eu\",\"items\":[],\"kind\":\"StatusReport\"}\n"
        );
        let yaml = with_context(&Shape::Yaml, "kind: StatusReport\nitems: []\n", "eu");
        assert!(yaml.starts_with("context: eu\n"), "{yaml}");
        assert_eq!(with_context(&Shape::Name, "web\n", "eu"), "web\n");
    }
}
