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

/// What one evaluation of an expression may build in its comprehensions:
/// each value a loop step yields costs one, and a string, list or map its
/// length. The static limits bound an expression's size, not what it
/// builds over an object whose size its writer chose (two nested `map`s
/// over a 1 MiB field reached 5.9 GB): past this, the evaluation stops
/// with an error that names the rule. Real rules spend hundreds.
pub const MAX_RULE_COST: u64 = 2_000_000;

/// The function [`metered`] calls in every loop step; its name is one the
/// parser never yields, so no expression can call it or clash with it.
const SPEND: &str = "@spend";

/// `expr` with every comprehension's step metered: the values each step
/// yields pass through [`SPEND`], which charges them to the evaluation's
/// budget. The shapes the interpreter runs fast (`@result + [x]` for
/// `map` and `filter`, `@result && p` for `all`) keep their shape: only
/// their payload is wrapped.
pub fn metered(expr: &IdedExpr) -> IdedExpr {
    use ::cel::common::ast::operators::{ADD, CONDITIONAL, LOGICAL_AND, LOGICAL_OR};
    let mut out = expr.clone();
    rewrite(&mut out, &mut |c| {
        let step = &mut c.loop_step;
        let appends = match &mut step.expr {
            Expr::Call(call) if call.func_name == CONDITIONAL && call.args.len() == 3 => {
                wrap(&mut call.args[0]);
                let appends = wrap_appended(&mut call.args[1], ADD);
                if !appends {
                    wrap(&mut call.args[1]);
                }
                appends
            }
            Expr::Call(call)
                if (call.func_name == LOGICAL_AND || call.func_name == LOGICAL_OR)
                    && call.args.len() == 2 =>
            {
                wrap(&mut call.args[1]);
                false
            }
            _ => {
                let appends = wrap_appended(step, ADD);
                if !appends {
                    wrap(step);
                }
                appends
            }
        };
        // `all` and `exists` defer a step's error while a later element
        // may decide the answer, so a spent budget in their step would not
        // stop them: their condition, checked each time round, does. The
        // appending loops (`map`, `filter`) stop at a step's error, and
        // keep their literal condition, which their fast path needs.
        if !appends {
            wrap(&mut c.loop_cond);
        }
    });
    out
}

/// Applies `f` to every comprehension below `e`, innermost first.
fn rewrite(e: &mut IdedExpr, f: &mut impl FnMut(&mut ::cel::common::ast::ComprehensionExpr)) {
    match &mut e.expr {
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                rewrite(t, f);
            }
            call.args.iter_mut().for_each(|a| rewrite(a, f));
        }
        Expr::Comprehension(c) => {
            for x in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                rewrite(x, f);
            }
            f(c);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(|x| rewrite(x, f)),
        Expr::Map(map) => map
            .entries
            .iter_mut()
            .for_each(|e| rewrite_entry(&mut e.expr, f)),
        Expr::Struct(st) => st
            .entries
            .iter_mut()
            .for_each(|e| rewrite_entry(&mut e.expr, f)),
        Expr::Select(select) => rewrite(&mut select.operand, f),
        _ => {}
    }
}

/// [`rewrite`] in a map's or a struct's entry.
fn rewrite_entry(
    entry: &mut ::cel::common::ast::EntryExpr,
    f: &mut impl FnMut(&mut ::cel::common::ast::ComprehensionExpr),
) {
    match entry {
        EntryExpr::MapEntry(m) => {
            rewrite(&mut m.key, f);
            rewrite(&mut m.value, f);
        }
        EntryExpr::StructField(field) => rewrite(&mut field.value, f),
    }
}

/// `@result + [x, ...]` with each element wrapped; false for other shapes.
fn wrap_appended(step: &mut IdedExpr, add: &str) -> bool {
    let Expr::Call(call) = &mut step.expr else {
        return false;
    };
    if call.func_name != add || call.target.is_some() || call.args.len() != 2 {
        return false;
    }
    let Expr::List(list) = &mut call.args[1].expr else {
        return false;
    };
    list.elements.iter_mut().for_each(wrap);
    true
}

/// `e` becomes `@spend(e)`, with `e`'s id (errors still point at it).
fn wrap(e: &mut IdedExpr) {
    let inner = std::mem::take(e);
    *e = IdedExpr {
        id: inner.id,
        expr: Expr::Call(::cel::common::ast::CallExpr {
            func_name: SPEND.to_string(),
            target: None,
            args: vec![inner],
        }),
    };
}

/// What a value built by a loop step costs.
fn cost(v: &Value) -> u64 {
    1 + match v {
        Value::String(s) => s.len() as u64,
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.map.len() as u64,
        _ => 0,
    }
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
    /// What the current evaluation has built ([`MAX_RULE_COST`]).
    spent: Arc<std::sync::atomic::AtomicU64>,
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
        let spent = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let charged = spent.clone();
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
            context.add_function(SPEND, move |v: Value| -> Result<Value, ExecutionError> {
                let total = charged.fetch_add(cost(&v), std::sync::atomic::Ordering::Relaxed)
                    + cost(&v);
                if total > MAX_RULE_COST {
                    return Err(ExecutionError::function_error(
                        "the rule",
                        format!(
                            "stopped: its comprehensions built more than {MAX_RULE_COST} values and bytes over this object (the health rules' budget)"
                        ),
                    ));
                }
                Ok(v)
            }),
        ];
        for result in added {
            result.expect("helper names do not clash with CEL's standard library");
        }
        Scope { context, spent }
    }

    /// Evaluates a [`metered`] expression, with a budget of its own.
    pub fn eval(&self, expr: &IdedExpr) -> Result<Value, ExecutionError> {
        self.spent.store(0, std::sync::atomic::Ordering::Relaxed);
        Value::resolve(expr, &self.context)
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

#[cfg(test)]
mod metering {
    use super::*;

    fn eval(source: &str, status: Json) -> Result<Value, ExecutionError> {
        let obj = Object::from_value(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default", "uid": "u"},
            "status": status}))
        .unwrap();
        let scope = Scope::new(&obj, Timestamp::UNIX_EPOCH);
        scope.eval(&metered(compile(source).unwrap().expression()))
    }

    #[test]
    fn metered_comprehensions_mean_what_they_meant() {
        let status = serde_json::json!({"items": [1, 2, 3], "names": ["a", "bb"]});
        for (source, want) in [
            ("object.status.items.all(x, x > 0)", Value::Bool(true)),
            ("object.status.items.exists(x, x > 2)", Value::Bool(true)),
            (
                "object.status.items.exists_one(x, x > 2)",
                Value::Bool(true),
            ),
            (
                "object.status.items.map(x, x * 2) == [2, 4, 6]",
                Value::Bool(true),
            ),
            (
                "object.status.items.filter(x, x != 2) == [1, 3]",
                Value::Bool(true),
            ),
            (
                "object.status.names.map(n, n + '!') == ['a!', 'bb!']",
                Value::Bool(true),
            ),
            (
                "object.status.items.all(x, x / 0 > 0 || true)",
                Value::Bool(true),
            ),
        ] {
            assert_eq!(eval(source, status.clone()), Ok(want), "{source}");
        }
    }

    #[test]
    fn every_step_is_charged() {
        let obj = Object::from_value(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default", "uid": "u"},
            "status": {"items": [1, 2, 3]}}))
        .unwrap();
        let scope = Scope::new(&obj, Timestamp::UNIX_EPOCH);
        let e = metered(
            compile("object.status.items.all(a, object.status.items.all(b, b >= 0))")
                .unwrap()
                .expression(),
        );
        assert_eq!(scope.eval(&e), Ok(Value::Bool(true)), "{e:?}");
        assert_eq!(
            scope.spent.load(std::sync::atomic::Ordering::Relaxed),
            24,
            "{e:?}"
        );
    }

    #[test]
    fn what_a_rule_builds_is_bounded() {
        let items: Vec<u32> = (0..1000).collect();
        let big = "x".repeat(1 << 20);
        for (source, status) in [
            (
                "object.status.items.all(a, object.status.items.all(b, object.status.items.all(c, c >= 0)))",
                serde_json::json!({"items": items}),
            ),
            (
                "object.status.items.map(a, object.status.items.map(b, object.status.big + string(a))).size() > 0",
                serde_json::json!({"items": items, "big": big}),
            ),
        ] {
            let started = std::time::Instant::now();
            let err = eval(source, status).unwrap_err();
            assert!(err.to_string().contains("budget"), "{err}");
            assert!(started.elapsed() < std::time::Duration::from_secs(20));
        }
    }
}
