//! The health rule file format (YAML), compiled into rules; and what one
//! check does with an object. Errors name the file, the rule, the check,
//! the field and the position in the expression.

use ::cel::{ExecutionError, Value};
use serde::Deserialize;

use super::cel::{Scope, compile, undeclared};
use super::{Origin, Rule, Selector};
use crate::model::parse_time;
use crate::verdict::reason::Reason as Code;
use crate::verdict::value::{Judgement, Verdict};

/// A health rule file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    #[serde(default)]
    rules: Vec<RuleDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDoc {
    /// The API group; empty (or left out) for the core group. `*.suffix`
    /// matches every group under a domain, `*` any group.
    #[serde(default)]
    group: String,
    kind: Option<String>,
    #[serde(default)]
    kinds: Vec<String>,
    checks: Vec<CheckDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckDoc {
    when: Option<String>,
    verdict: VerdictDoc,
    reason: String,
    message: Option<String>,
    since: Option<String>,
}

/// The verdicts a rule may give (Terminating and NotFound are the tool's).
#[derive(Deserialize, Clone, Copy)]
enum VerdictDoc {
    Converged,
    Progressing,
    Failed,
    Suspended,
    Unknown,
}

impl From<VerdictDoc> for Verdict {
    fn from(v: VerdictDoc) -> Verdict {
        match v {
            VerdictDoc::Converged => Verdict::Converged,
            VerdictDoc::Progressing => Verdict::Progressing,
            VerdictDoc::Failed => Verdict::Failed,
            VerdictDoc::Suspended => Verdict::Suspended,
            VerdictDoc::Unknown => Verdict::Unknown,
        }
    }
}

/// A compiled CEL expression and its text.
#[derive(Debug)]
pub struct Expr {
    pub source: String,
    /// The compiled expression with its comprehensions metered
    /// ([`super::cel::metered`]).
    program: ::cel::parser::Expression,
}

/// A reason: a CamelCase word as written, or an expression that yields one.
#[derive(Debug)]
pub enum Reason {
    Word(String),
    Expr(Expr),
}

/// One check of a rule: when `when` holds, the verdict.
#[derive(Debug)]
pub struct Check {
    pub when: Option<Expr>,
    pub verdict: Verdict,
    pub reason: Reason,
    pub message: Option<Expr>,
    pub since: Option<Expr>,
}

/// What is wrong with a rule source.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("cannot read health rules from {origin}: {message}\nhint: {hint}")]
    Read {
        origin: Origin,
        message: String,
        hint: &'static str,
    },
    #[error(
        "health rules in {origin}: {message}\nhint: the format is described in docs/health-rules.md"
    )]
    Format { origin: Origin, message: String },
    #[error(transparent)]
    Expression(Box<ExpressionError>),
}

/// An expression that does not compile, and where it is.
#[derive(Debug, thiserror::Error)]
#[error(
    "health rules in {origin}: rule {index} ({selector}), check {check}, `{field}`: {message}\n  | {source_line}\n  | {caret}\nhint: CEL syntax is described at https://cel.dev; the helpers in docs/health-rules.md"
)]
pub struct ExpressionError {
    origin: Origin,
    index: usize,
    selector: Selector,
    check: usize,
    field: &'static str,
    /// The parser's words, with the line and column.
    message: String,
    source_line: String,
    caret: String,
}

/// Parses and compiles one source. An empty file has no rules.
pub fn parse(text: &str, origin: &Origin) -> Result<Vec<Rule>, RulesError> {
    let format = |message: String| RulesError::Format {
        origin: origin.clone(),
        message,
    };
    // Aliases are bounded first (the typed parse below expands them
    // without a bound); a rules file is small, so reading it twice is cheap.
    crate::yaml::parse(text).map_err(|e| format(e.to_string()))?;
    let doc: Option<Doc> = serde_yaml_ng::from_str(text).map_err(|e| format(e.to_string()))?;
    let mut rules: Vec<Rule> = Vec::new();
    for (i, rule) in doc
        .map(|d| d.rules)
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let index = i + 1;
        let kinds: Vec<String> = rule.kind.into_iter().chain(rule.kinds).collect();
        if kinds.is_empty() {
            return Err(format(format!("rule {index} names no `kind` (or `kinds`)")));
        }
        if rule.checks.is_empty() {
            return Err(format(format!("rule {index} has no `checks`")));
        }
        for kind in kinds {
            let selector = Selector {
                group: rule.group.clone(),
                kind,
            };
            if let Some(earlier) = rules.iter().find(|r| r.selector == selector) {
                return Err(format(format!(
                    "rules {} and {index} are both for {selector}; keep one",
                    earlier.index
                )));
            }
            let at = |check: usize, field: &'static str| Place {
                origin,
                index,
                selector: &selector,
                check,
                field,
            };
            let checks = rule
                .checks
                .iter()
                .enumerate()
                .map(|(c, doc)| compile_check(doc, |field| at(c + 1, field)))
                .collect::<Result<Vec<_>, _>>()?;
            rules.push(Rule {
                selector: selector.clone(),
                origin: origin.clone(),
                index,
                checks,
                overrides: Vec::new(),
            });
        }
    }
    Ok(rules)
}

/// Where an expression is, for its error.
struct Place<'a> {
    origin: &'a Origin,
    index: usize,
    selector: &'a Selector,
    check: usize,
    field: &'static str,
}

fn compile_check<'a>(
    doc: &CheckDoc,
    at: impl Fn(&'static str) -> Place<'a>,
) -> Result<Check, RulesError> {
    let expr = |field: &'static str, text: &Option<String>| -> Result<Option<Expr>, RulesError> {
        text.as_deref()
            .map(|t| compile_expr(t, at(field)))
            .transpose()
    };
    let reason = if is_word(&doc.reason) {
        Reason::Word(doc.reason.clone())
    } else {
        Reason::Expr(compile_expr(&doc.reason, at("reason"))?)
    };
    Ok(Check {
        when: expr("when", &doc.when)?,
        verdict: doc.verdict.into(),
        reason,
        message: expr("message", &doc.message)?,
        since: expr("since", &doc.since)?,
    })
}

/// A CamelCase word, written as is.
fn is_word(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_uppercase())
        && text.chars().all(|c| c.is_ascii_alphanumeric())
}

fn compile_expr(text: &str, at: Place<'_>) -> Result<Expr, RulesError> {
    // Checked before parsing: the parser and the evaluator recurse, and a
    // deep enough expression overflows the stack (an abort, not an error).
    if let Err(why) = super::cel::within_limits(text) {
        return Err(expression_error(text, &at, why, 1, 1));
    }
    let program = match compile(text) {
        Ok(program) => program,
        Err(errors) => {
            let first = errors.errors.first();
            // The parser's line and column count from 1.
            let (line, column) = first.map_or((1, 1), |e| (e.pos.0.max(1), e.pos.1.max(1)));
            let message = first.map_or_else(|| errors.to_string(), |e| e.msg.clone());
            return Err(expression_error(
                text,
                &at,
                message,
                line as usize,
                column as usize,
            ));
        }
    };
    if let Some((name, offset)) = undeclared(&program) {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        let message = format!(
            "undeclared reference to '{name}'; expressions see `object`, `now` and the helpers"
        );
        return Err(expression_error(text, &at, message, line, column));
    }
    Ok(Expr {
        source: text.to_string(),
        program: super::cel::metered(program.expression()),
    })
}

fn expression_error(
    text: &str,
    at: &Place<'_>,
    message: String,
    line: usize,
    column: usize,
) -> RulesError {
    RulesError::Expression(Box::new(ExpressionError {
        origin: at.origin.clone(),
        index: at.index,
        selector: at.selector.clone(),
        check: at.check,
        field: at.field,
        message: format!("{message} (line {line}, column {column})"),
        caret: format!("{}^", " ".repeat(column - 1)),
        source_line: text.lines().nth(line - 1).unwrap_or_default().to_string(),
    }))
}

impl Check {
    /// Whether any of its expressions names the time (`now`, `age(...)`):
    /// its verdict may then change with no change to the object. Read
    /// from the words of the source, so a field named `age` counts too:
    /// a false yes only keeps an object whole.
    pub fn reads_the_time(&self) -> bool {
        let reason = match &self.reason {
            Reason::Expr(e) => Some(e),
            Reason::Word(_) => None,
        };
        [&self.when, &self.message, &self.since]
            .into_iter()
            .flatten()
            .chain(reason)
            .any(|e| {
                e.source
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|word| word == "now" || word == "age")
            })
    }

    /// Whether this check decides the object. A field that is not there
    /// does not match, so `object.status.phase == "Failed"` is false on an
    /// object without status.
    pub fn holds(&self, scope: &Scope) -> Result<bool, String> {
        let Some(when) = &self.when else {
            return Ok(true);
        };
        match scope.eval(&when.program) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => Err(format!(
                "`when: {}` gave {}, not true or false",
                when.source,
                other.type_of()
            )),
            Err(ExecutionError::NoSuchKey(_)) => Ok(false),
            Err(e) => Err(format!("`when: {}`: {e}", when.source)),
        }
    }

    /// The judgement this check gives. A reason or message that cannot be
    /// evaluated falls back to words that say so.
    pub fn judgement(&self, scope: &Scope) -> Judgement {
        let reason = match &self.reason {
            Reason::Word(w) => w.clone(),
            Reason::Expr(e) => match text(scope, e) {
                Ok(r) if !r.trim().is_empty() => r.trim().to_string(),
                _ => self.verdict.as_str().to_string(),
            },
        };
        let message = match &self.message {
            Some(e) => text(scope, e).unwrap_or_else(|err| format!("(message failed: {err})")),
            None => String::new(),
        };
        let since = self
            .since
            .as_ref()
            .and_then(|e| text(scope, e).ok())
            .and_then(|t| parse_time(Some(&serde_json::Value::String(t))));
        Judgement::new(self.verdict, Code::of(&reason), message).since(since)
    }
}

/// An expression's value as text.
fn text(scope: &Scope, expr: &Expr) -> Result<String, String> {
    match scope.eval(&expr.program) {
        Ok(Value::String(s)) => Ok(s.to_string()),
        Ok(Value::Int(i)) => Ok(i.to_string()),
        Ok(Value::UInt(u)) => Ok(u.to_string()),
        Ok(Value::Float(f)) => Ok(f.to_string()),
        Ok(Value::Bool(b)) => Ok(b.to_string()),
        Ok(Value::Null) => Ok(String::new()),
        Ok(other) => Err(format!(
            "`{}` gave {}, not text",
            expr.source,
            other.type_of()
        )),
        Err(e) => Err(format!("`{}`: {e}", expr.source)),
    }
}
