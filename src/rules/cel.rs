//! The CEL side of health rules: compiling an expression, and the values and
//! helper functions an expression sees for one object.
//!
//! Variables: `object` (the whole object) and `now` (RFC 3339). Functions:
//! `condition(type)`, `isTrue(type)`, `isFalse(type)`, `cite(type)`,
//! `staleStatus()`, `lagMessage()` and `age(timestamp)` (seconds). Optional syntax (`object.status.?phase`,
//! `.orValue("")`) is on.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use ::cel::common::ast::{EntryExpr, Expr, IdedExpr, SourceInfo};
use ::cel::objects::{Key, Map};
use ::cel::{Context, Env, ExecutionError, ParseErrors, Program, Value};
use jiff::Timestamp;
use serde_json::Value as Json;

use crate::model::{Condition, Object, parse_time};
use crate::verdict::conditions::{cite, find as find_condition, lagging};

/// The standard library with optional values, shared by every expression.
fn env() -> &'static Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| Arc::new(Env::stdlib()))
}

/// Compiles one expression.
/// The longest expression a rule may have (the built-in ones are under 300
/// characters).
pub const MAX_EXPRESSION_LENGTH: usize = 4096;
/// How deep `(`, `[` and `{` may nest.
pub const MAX_NESTING: usize = 32;
/// How many operators and member accesses an expression may chain: each is
/// a level of recursion when it is parsed and evaluated.
pub const MAX_TERMS: usize = 256;
/// How many comprehensions (`all`, `exists`, `exists_one`, `map`,
/// `filter`) an expression may hold: nested, each multiplies the cost by
/// the length of a list (eight nested over ten elements took 18 s).
pub const MAX_COMPREHENSIONS: usize = 3;

/// Refuses, with the reason, an expression whose size alone could exhaust
/// the stack or the CPU, as Kubernetes bounds its own CEL rules.
pub fn within_limits(source: &str) -> Result<(), String> {
    if source.len() > MAX_EXPRESSION_LENGTH {
        return Err(format!(
            "the expression is {} characters long, more than {MAX_EXPRESSION_LENGTH}",
            source.len()
        ));
    }
    let (mut depth, mut deepest, mut terms) = (0usize, 0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => {
                    chars.next();
                }
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '.' | '+' | '-' | '*' | '/' | '%' | '<' | '>' | '=' | '!' | '&' | '|' | '?' => {
                terms += 1
            }
            _ => {}
        }
    }
    if deepest > MAX_NESTING {
        return Err(format!(
            "the expression nests {deepest} levels deep, more than {MAX_NESTING}"
        ));
    }
    if terms > MAX_TERMS {
        return Err(format!(
            "the expression has {terms} operators and member accesses, more than {MAX_TERMS}"
        ));
    }
    let comprehensions = ["all(", "exists(", "exists_one(", "map(", "filter("]
        .iter()
        .map(|m| source.matches(&format!(".{m}")).count())
        .sum::<usize>();
    if comprehensions > MAX_COMPREHENSIONS {
        return Err(format!(
            "the expression has {comprehensions} comprehensions (all, exists, map, filter), more than {MAX_COMPREHENSIONS}: nested, their cost multiplies"
        ));
    }
    Ok(())
}

pub fn compile(source: &str) -> Result<Program, ParseErrors> {
    env().compile(source)
}

/// Names an expression may use besides the helpers: the variables, and
/// CEL's type names and namespaces.
const DECLARED: &[&str] = &[
    "object",
    "now",
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "type",
    "null_type",
    "dyn",
    "optional",
];

/// The first name an expression uses that nothing declares, with its byte
/// offset in the source: a typo such as `objet.status` is an error when the
/// rule is loaded, not a surprise when an object matches. (Function names
/// are checked when they run: the library has no list of them.)
pub fn undeclared(program: &Program) -> Option<(String, usize)> {
    walk(program.expression(), &mut Vec::new(), program.source_info())
}

fn walk<'a>(
    e: &'a IdedExpr,
    bound: &mut Vec<&'a str>,
    info: &SourceInfo,
) -> Option<(String, usize)> {
    match &e.expr {
        Expr::Ident(name) => {
            let known = name.starts_with('@')
                || DECLARED.contains(&name.as_str())
                || bound.contains(&name.as_str());
            (!known).then(|| {
                let offset = info.offset_for(e.id).map_or(0, |(start, _)| start as usize);
                (name.clone(), offset)
            })
        }
        Expr::Call(call) => call
            .target
            .iter()
            .map(|t| &**t)
            .chain(&call.args)
            .find_map(|a| walk(a, bound, info)),
        Expr::Comprehension(c) => walk(&c.iter_range, bound, info)
            .or_else(|| walk(&c.accu_init, bound, info))
            .or_else(|| {
                let outer = bound.len();
                bound.push(&c.iter_var);
                bound.extend(c.iter_var2.as_deref());
                bound.push(&c.accu_var);
                let found = [&c.loop_cond, &c.loop_step, &c.result]
                    .into_iter()
                    .find_map(|x| walk(x, bound, info));
                bound.truncate(outer);
                found
            }),
        Expr::List(list) => list.elements.iter().find_map(|x| walk(x, bound, info)),
        Expr::Map(map) => map.entries.iter().find_map(|entry| match &entry.expr {
            EntryExpr::MapEntry(m) => {
                walk(&m.key, bound, info).or_else(|| walk(&m.value, bound, info))
            }
            EntryExpr::StructField(f) => walk(&f.value, bound, info),
        }),
        Expr::Struct(st) => st.entries.iter().find_map(|entry| match &entry.expr {
            EntryExpr::MapEntry(m) => {
                walk(&m.key, bound, info).or_else(|| walk(&m.value, bound, info))
            }
            EntryExpr::StructField(f) => walk(&f.value, bound, info),
        }),
        Expr::Select(select) => walk(&select.operand, bound, info),
        _ => None,
    }
}

/// What the expressions of one object's checks are evaluated in.
pub struct Scope {
    context: Context<'static, 'static>,
}

impl Scope {
    pub fn new(obj: &Object, now: Timestamp) -> Scope {
        let mut context = Context::with_env(env().clone());
        context.add_variable_from_value("object", to_cel(&obj.raw));
        context.add_variable_from_value("now", now.to_string());
        let conditions: Arc<Vec<Json>> = Arc::new(
            obj.at("/status/conditions")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        let status_of = {
            let conditions = conditions.clone();
            move |type_: &str| -> String {
                find(&conditions, type_)
                    .and_then(|c| c.get("status"))
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_string()
            }
        };
        let status_true = status_of.clone();
        let status_false = status_of;
        let lag = lag_message(obj);
        let stale = !lag.is_empty();
        let cited: Arc<Vec<Condition>> = Arc::new(obj.conditions());
        // Names are ours alone, so adding them cannot clash with the
        // standard library; a clash would be a bug caught by every test.
        let added = [
            context.add_function("condition", move |type_: Arc<String>| {
                condition(&conditions, &type_)
            }),
            context.add_function("isTrue", move |type_: Arc<String>| {
                status_true(&type_) == "True"
            }),
            context.add_function("isFalse", move |type_: Arc<String>| {
                status_false(&type_) == "False"
            }),
            context.add_function("staleStatus", move || stale),
            context.add_function("lagMessage", move || lag.clone()),
            context.add_function("cite", move |type_: Arc<String>| {
                find_condition(&cited, &type_).map(cite).unwrap_or_default()
            }),
            context.add_function("age", move |t: Arc<String>| age(now, &t)),
        ];
        for result in added {
            result.expect("helper names do not clash with CEL's standard library");
        }
        Scope { context }
    }

    pub fn eval(&self, program: &Program) -> Result<Value, ExecutionError> {
        program.execute(&self.context)
    }
}

/// How the controller lags behind the spec, in the conventions' words, or
/// empty: `status.observedGeneration`, else a condition's own.
fn lag_message(obj: &Object) -> String {
    if let (Some(generation), Some(observed)) = (obj.generation, obj.observed_generation())
        && observed < generation
    {
        return format!("controller has observed generation {observed} of {generation}");
    }
    match lagging(obj, &obj.conditions()) {
        Some((cond, observed, generation)) => format!(
            "condition {} reflects generation {observed} of {generation}; the controller has not caught up",
            cond.type_
        ),
        None => String::new(),
    }
}

fn find<'a>(conditions: &'a [Json], type_: &str) -> Option<&'a Json> {
    conditions
        .iter()
        .find(|c| c.get("type").and_then(Json::as_str) == Some(type_))
}

/// The condition of this type, with `status`, `reason` and `message` always
/// there (empty when the condition is absent).
fn condition(conditions: &[Json], type_: &str) -> Value {
    let mut map: HashMap<Key, Value> = HashMap::new();
    for field in ["status", "reason", "message"] {
        map.insert(field.into(), "".into());
    }
    map.insert("type".into(), type_.into());
    if let Some(Json::Object(fields)) = find(conditions, type_) {
        for (k, v) in fields {
            map.insert(k.as_str().into(), to_cel(v));
        }
    }
    Value::Map(Map { map: Arc::new(map) })
}

/// Seconds from an RFC 3339 timestamp to now.
fn age(now: Timestamp, t: &str) -> Result<Value, ExecutionError> {
    let then = parse_time(Some(&Json::String(t.to_string()))).ok_or_else(|| {
        ExecutionError::function_error("age", format!("{t:?} is not an RFC 3339 time"))
    })?;
    Ok(Value::Int(now.duration_since(then).as_secs()))
}

/// A JSON value as CEL sees it: whole numbers are ints, so
/// `object.spec.replicas == 3` holds.
pub fn to_cel(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => s.as_str().into(),
        Json::Array(items) => Value::List(Arc::new(items.iter().map(to_cel).collect())),
        Json::Object(fields) => Value::Map(Map {
            map: Arc::new(
                fields
                    .iter()
                    .map(|(k, v)| (Key::from(k.as_str()), to_cel(v)))
                    .collect(),
            ),
        }),
    }
}
