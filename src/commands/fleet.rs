//! Fleet answers (`--contexts`, `--all-contexts`): the same question asked
//! of many kubeconfig contexts at once, at most `--max-contexts` at a
//! time, each under its own deadline, and one answer made of theirs. A
//! context that gives no answer is a row (or a section) that says what
//! failed; the exit status is 0 only when every context answered 0, and 2
//! when none answered.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;

use super::Outcome;
use crate::render::{self, Style};
use crate::settings::{Settings, Shape};
use crate::source::contexts::{self, Member};

/// What a context gave: its answer, or why there is none.
pub type Answered<T> = (Member, Result<T, Unanswered>);

/// A context that gave no answer: a short reason and what failed, in the
/// words the one-context command would have printed.
#[derive(Debug, Clone, Serialize)]
pub struct Unanswered {
    pub reason: &'static str,
    pub message: String,
}

/// The contexts the fleet flags name, in the kubeconfig's order, and how
/// many may be asked at once (`--max-contexts`).
pub fn members(settings: &Settings) -> anyhow::Result<(Vec<Member>, usize)> {
    let ask = settings
        .fleet
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("no fleet was asked for"))?;
    Ok((
        contexts::members(&settings.connection, &ask.patterns)?,
        ask.parallel,
    ))
}

/// The settings of one context of the fleet.
pub fn for_context(settings: &Settings, member: &Member) -> Settings {
    let mut one = settings.clone();
    one.fleet = None;
    one.connection.context = Some(member.name.clone());
    one
}

/// A context's answer that did not come within its deadline.
#[derive(Debug, thiserror::Error)]
#[error(
    "no answer within {0}s\nhint: raise --request-timeout, or check that this context's API server answers"
)]
struct ContextTimedOut(u64);

/// Asks every context of the fleet, at most `--max-contexts` at once, in
/// the kubeconfig's order. `each` gets the settings of one context; it
/// runs under `deadline`, past which the context is `TimedOut`.
pub async fn ask<T, F, Fut>(
    settings: &Settings,
    deadline: Duration,
    each: F,
) -> anyhow::Result<Vec<Answered<T>>>
where
    F: Fn(Settings, &Member) -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    let mut out = Vec::new();
    answers(settings, deadline, each, |answered| {
        out.push(answered);
        true
    })
    .await?;
    Ok(out)
}

/// [`ask`], handing each context's answer to `take` as soon as it and
/// those before it (in the kubeconfig's order) are in; `take` says
/// whether to go on. A usage error is the command's own: it ends the
/// asking, said once.
pub async fn answers<T, F, Fut>(
    settings: &Settings,
    deadline: Duration,
    each: F,
    mut take: impl FnMut(Answered<T>) -> bool,
) -> anyhow::Result<()>
where
    F: Fn(Settings, &Member) -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    let (members, parallel) = members(settings)?;
    let asked = members.into_iter().map(|member| {
        let answer = each(for_context(settings, &member), &member);
        async move {
            let result = match tokio::time::timeout(deadline, answer).await {
                Ok(result) => result,
                Err(_) => Err(ContextTimedOut(deadline.as_secs()).into()),
            };
            (member, result)
        }
    });
    let mut answered = futures::stream::iter(asked).buffered(parallel);
    while let Some((member, result)) = answered.next().await {
        let result = match result {
            Err(e) if is_usage(&e) => return Err(e),
            result => result.map_err(|e| unanswered(&e)),
        };
        if !take((member, result)) {
            break;
        }
    }
    Ok(())
}

/// The contexts' answers, each failure told by its reason; a usage error
/// (a flag or target the command refuses, the same in every context) is
/// the command's own, said once.
pub fn settle<T>(answers: Vec<(Member, anyhow::Result<T>)>) -> anyhow::Result<Vec<Answered<T>>> {
    let mut out = Vec::with_capacity(answers.len());
    for (member, result) in answers {
        match result {
            Err(e) if is_usage(&e) => return Err(e),
            result => out.push((member, result.map_err(|e| unanswered(&e)))),
        }
    }
    Ok(out)
}

/// Whether `err` is a usage error rather than a context's failure.
pub fn is_usage(err: &anyhow::Error) -> bool {
    err.downcast_ref::<super::UsageError>().is_some()
}

/// Why a context gave no answer, told by the error's type.
pub fn unanswered(err: &anyhow::Error) -> Unanswered {
    use crate::source::live::FetchError;
    use crate::source::read::ApiError;
    if err.downcast_ref::<ContextTimedOut>().is_some() {
        return Unanswered {
            reason: "TimedOut",
            message: err.to_string(),
        };
    }
    let reason = match err.downcast_ref::<FetchError>() {
        Some(FetchError::Api { error, .. }) => match error {
            ApiError::Unreachable(_) => "Unreachable",
            ApiError::Tls(_) => "TLSFailed",
            ApiError::Unauthorized(_) | ApiError::Credential(_) => "Unauthorized",
            ApiError::Forbidden(_) => "Forbidden",
            ApiError::Timeout => "TimedOut",
            _ => "NoAnswer",
        },
        Some(FetchError::NothingRead {
            refused: Some(_), ..
        }) => "Forbidden",
        Some(FetchError::Connect(_)) => "CannotConnect",
        _ => "NoAnswer",
    };
    Unanswered {
        reason,
        message: crate::source::api::anyhow_chain(err),
    }
}

/// The fleet's exit status: 2 when no context answered, else the worst
/// answer, and at least 1 when a context gave none.
pub fn exit_code<T>(answers: &[Answered<T>], code: impl Fn(&T) -> u8) -> u8 {
    let codes: Vec<u8> = answers
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().map(&code))
        .collect();
    if codes.is_empty() {
        return 2;
    }
    let worst = codes.into_iter().max().unwrap_or(0);
    if answers.iter().any(|(_, r)| r.is_err()) {
        worst.max(1)
    } else {
        worst
    }
}

/// The fleet's document (`-o json|yaml|jsonpath`, and what custom columns
/// read): every item and gap of every context with its `context`, and a
/// line per context that says whether and how it answered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The command asked: `status`, `why`, `tree`, `wait`, `controllers`.
    pub command: &'static str,
    pub contexts: Vec<ContextAnswer>,
    pub items: Vec<Value>,
    pub incomplete: Vec<Value>,
}

/// How one context answered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextAnswer {
    pub context: String,
    pub server: String,
    pub answered: bool,
    /// The exit status its answer alone would have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What else the context's own document said (a tree's cut).
    #[serde(flatten)]
    pub more: serde_json::Map<String, Value>,
}

impl FleetReport {
    /// The fleet document of the contexts' own documents (`(document,
    /// exit status)` each).
    pub fn of(command: &'static str, answers: Vec<Answered<(Value, u8)>>) -> FleetReport {
        let mut report = FleetReport {
            api_version: crate::report::API_VERSION,
            kind: "FleetReport",
            command,
            contexts: Vec::new(),
            items: Vec::new(),
            incomplete: Vec::new(),
        };
        for (member, result) in answers {
            let context = Value::String(member.name.clone());
            let mut line = ContextAnswer {
                context: member.name,
                server: member.server,
                answered: result.is_ok(),
                exit_code: None,
                reason: None,
                message: None,
                more: serde_json::Map::new(),
            };
            match result {
                Ok((document, code)) => {
                    line.exit_code = Some(code);
                    let Value::Object(mut fields) = document else {
                        report.contexts.push(line);
                        continue;
                    };
                    for (key, into) in [
                        ("items", &mut report.items),
                        ("incomplete", &mut report.incomplete),
                    ] {
                        if let Some(Value::Array(values)) = fields.remove(key) {
                            into.extend(values.into_iter().map(|v| with_context(v, &context)));
                        }
                    }
                    fields.remove("apiVersion");
                    fields.remove("kind");
                    line.more = fields;
                }
                Err(e) => {
                    line.reason = Some(e.reason);
                    line.message = Some(e.message);
                }
            }
            report.contexts.push(line);
        }
        report
    }
}

/// `value` with `context` as its first field.
fn with_context(value: Value, context: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            let mut out = serde_json::Map::with_capacity(fields.len() + 1);
            out.insert("context".into(), context.clone());
            out.extend(fields);
            Value::Object(out)
        }
        other => other,
    }
}

/// How a command's own answer is asked of each context for the shape
/// the user wants: documents and custom columns are made from each
/// context's JSON document; `-o name` and text from its own text.
pub fn member_shape(settings: &Settings) -> Shape {
    match &settings.view.output {
        Shape::Json | Shape::Yaml | Shape::JsonPath(_) | Shape::CustomColumns(_) => Shape::Json,
        other => other.clone(),
    }
}

/// Asks a command of every context in [`member_shape`], and makes one
/// answer of theirs ([`combine`]).
pub async fn each<F, Fut>(
    settings: &Settings,
    command: &'static str,
    deadline: Duration,
    run: F,
) -> anyhow::Result<Outcome>
where
    F: Fn(Settings, &Member) -> Fut,
    Fut: Future<Output = anyhow::Result<Outcome>>,
{
    let shape = member_shape(settings);
    let answers = ask(settings, deadline, |mut one, member| {
        one.view.output = shape.clone();
        run(one, member)
    })
    .await?;
    combine(settings, command, answers)
}

/// One answer of the contexts' own outcomes (each asked in
/// [`member_shape`]): the fleet document, `-o name` lines prefixed with
/// the context, or a section per context headed by its name and server.
pub fn combine(
    settings: &Settings,
    command: &'static str,
    answers: Vec<Answered<Outcome>>,
) -> anyhow::Result<Outcome> {
    let code = exit_code(&answers, |o| o.code);
    let style = Style {
        color: settings.color,
    };
    let stdout = match &settings.view.output {
        Shape::Json | Shape::Yaml | Shape::JsonPath(_) | Shape::CustomColumns(_) => {
            let documents = answers
                .into_iter()
                .map(|(member, result)| {
                    let result = result.and_then(|o| {
                        serde_json::from_str::<Value>(&o.stdout)
                            .map(|v| (v, o.code))
                            .map_err(|e| Unanswered {
                                reason: "NoAnswer",
                                message: format!("its answer was not a document: {e}"),
                            })
                    });
                    (member, result)
                })
                .collect();
            document(settings, &FleetReport::of(command, documents))
        }
        Shape::Name => {
            say_unanswered(&answers);
            answers
                .iter()
                .filter_map(|(member, result)| Some((member, result.as_ref().ok()?)))
                .flat_map(|(member, o)| {
                    o.stdout
                        .lines()
                        .map(|l| format!("{}/{l}\n", render::escape(&member.name)))
                        .collect::<Vec<_>>()
                })
                .collect()
        }
        _ => answers
            .iter()
            .map(|(member, result)| section(member, result, style))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    Ok(Outcome { stdout, code })
}

/// One context's section: its heading, then its answer, or why it gave
/// none.
fn section(member: &Member, result: &Result<Outcome, Unanswered>, style: Style) -> String {
    let body = match result {
        Ok(o) => o.stdout.clone(),
        Err(e) => format!(
            "{} ({}): {}\n",
            style.verdict(crate::verdict::Verdict::Unknown, "Unknown"),
            e.reason,
            crate::escape::escape_multiline(&e.message)
        ),
    };
    format!("{}{body}", super::fleet_watch::heading(member, style))
}

/// [`each`] for the commands that answer a section per context (`why`,
/// `tree`, `controllers`): as text, each section is printed as soon as it
/// and those before it are in, in the kubeconfig's order, so that a slow
/// context holds up only the sections after its own. Other shapes are one
/// document, made once every context has answered.
pub async fn each_section<F, Fut>(
    settings: &Settings,
    command: &'static str,
    deadline: Duration,
    run: F,
) -> anyhow::Result<Outcome>
where
    F: Fn(Settings, &Member) -> Fut,
    Fut: Future<Output = anyhow::Result<Outcome>>,
{
    if !matches!(settings.view.output, Shape::Text | Shape::Wide) {
        return each(settings, command, deadline, run).await;
    }
    let shape = member_shape(settings);
    let style = Style {
        color: settings.color,
    };
    let mut console = crate::terminal::Console::process();
    let mut codes: Vec<Answered<u8>> = Vec::new();
    answers(
        settings,
        deadline,
        |mut one, member| {
            one.view.output = shape.clone();
            run(one, member)
        },
        |(member, result)| {
            let gap = if codes.is_empty() { "" } else { "\n" };
            let text = section(&member, &result, style);
            codes.push((member, result.map(|o| o.code)));
            // A reader that has gone (`| head`) ends the asking.
            console.print(&format!("{gap}{text}"))
        },
    )
    .await?;
    Ok(Outcome {
        stdout: String::new(),
        code: exit_code(&codes, |c| *c),
    })
}

/// Under `-o name`, whose lines have no room for them, the contexts that
/// gave no answer are said on stderr, as kubectl says an error beside its
/// names.
pub fn say_unanswered<T>(answers: &[Answered<T>]) {
    let mut console = crate::terminal::Console::process();
    for (member, result) in answers {
        if let Err(e) = result {
            console.say(&format!(
                "error: context {}: {} ({})\n",
                render::escape(&member.name),
                unanswered_line(member, e),
                e.reason
            ));
        }
    }
}

/// What failed in a context that gave no answer, in one line that names
/// its server.
pub fn unanswered_line(member: &Member, e: &Unanswered) -> String {
    let first = e.message.lines().next().unwrap_or_default();
    let host = member
        .server
        .split_once("://")
        .map_or(member.server.as_str(), |(_, rest)| rest);
    if host.is_empty() || first.contains(host) {
        first.to_string()
    } else {
        format!("{}: {first}", member.server)
    }
}

/// The fleet document in the chosen shape; custom columns read its items.
pub fn document(settings: &Settings, report: &FleetReport) -> String {
    match &settings.view.output {
        Shape::CustomColumns(columns) => {
            render::shape::custom_columns(&report.items, columns, settings.view.no_headers)
        }
        _ => super::frame::document(report, settings, super::frame::Shown::Once),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str) -> Member {
        Member {
            name: name.into(),
            server: format!("https://{name}.example:6443"),
        }
    }

    fn refused() -> Unanswered {
        Unanswered {
            reason: "Unreachable",
            message: "cannot reach the API server".into(),
        }
    }

    #[test]
    fn the_fleet_is_converged_only_when_every_context_answered_converged() {
        let all_well: Vec<Answered<u8>> = vec![(member("a"), Ok(0)), (member("b"), Ok(0))];
        assert_eq!(exit_code(&all_well, |c| *c), 0);
        let one_failed = vec![(member("a"), Ok(0)), (member("b"), Ok(1))];
        assert_eq!(exit_code(&one_failed, |c| *c), 1);
        let one_silent = vec![(member("a"), Ok(0)), (member("b"), Err(refused()))];
        assert_eq!(exit_code(&one_silent, |c| *c), 1);
        let none: Vec<Answered<u8>> = vec![(member("a"), Err(refused()))];
        assert_eq!(exit_code(&none, |c| *c), 2);
    }

    #[test]
    fn a_usage_error_is_the_commands_own_and_a_timeout_is_named() {
        let refused: Vec<(Member, anyhow::Result<u8>)> = vec![
            (member("a"), Ok(0)),
            (
                member("b"),
                Err(super::super::UsageError("tree needs a target".into()).into()),
            ),
        ];
        let e = settle(refused).unwrap_err();
        assert_eq!(e.to_string(), "tree needs a target");
        let slow: Vec<(Member, anyhow::Result<u8>)> =
            vec![(member("a"), Err(ContextTimedOut(30).into()))];
        let answers = settle(slow).unwrap();
        let e = answers[0].1.as_ref().unwrap_err();
        assert_eq!(e.reason, "TimedOut");
        assert!(
            e.message.starts_with("no answer within 30s"),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_fleet_document_carries_the_context_on_every_item() {
        let doc = |name: &str| {
            serde_json::json!({
                "apiVersion": crate::report::API_VERSION,
                "kind": "StatusReport",
                "items": [{"object": {"kind": "Deployment", "name": name}, "verdict": "Converged"}],
                "incomplete": [{"resource": "pods", "error": "forbidden"}],
                "cut": {"limit": 1}
            })
        };
        let report = FleetReport::of(
            "status",
            vec![
                (member("eu"), Ok((doc("web"), 0))),
                (member("us"), Ok((doc("api"), 1))),
                (member("down"), Err(refused())),
            ],
        );
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(v["kind"], "FleetReport");
        assert_eq!(v["items"][0]["context"], "eu");
        assert_eq!(v["items"][1]["context"], "us");
        assert_eq!(v["items"][1]["object"]["name"], "api");
        assert_eq!(v["incomplete"][1]["context"], "us");
        assert_eq!(v["contexts"][0]["exitCode"], 0);
        assert_eq!(v["contexts"][0]["cut"]["limit"], 1);
        assert_eq!(v["contexts"][2]["answered"], false);
        assert_eq!(v["contexts"][2]["reason"], "Unreachable");
        assert!(v["contexts"][2].get("exitCode").is_none());
    }
}
