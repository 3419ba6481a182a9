//! kubectl's JSONPath templates (`-o jsonpath=...`) over a report document:
//! literal text, `{.path}`, `{"\n"}`, and `{range .path}...{end}`. Each path
//! is evaluated by `jsonpath-rust` (RFC 9535, so `[*]`, `[0]`, `[?@.x=="y"]`
//! and `..` work); only the template around the paths is parsed here.
//! Below both its readers: the renderer (`-o jsonpath`, `--sort-by`) and the
//! judge (a CRD's printer columns, `verdict::columns`).

use jsonpath_rust::JsonPath;
use serde_json::Value;

use crate::escape::escape;

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Vec<Part>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Path(String),
    Range(String, Vec<Part>),
}

impl Template {
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut rest = text;
        let parts = parse_parts(&mut rest, false)?;
        Ok(Template(parts))
    }

    /// The template applied to `doc`. Strings print as they are (escaped for
    /// a terminal), other values as compact JSON; several matches of one
    /// path are separated by a space, as kubectl does.
    pub fn render(&self, doc: &Value) -> Result<String, String> {
        let mut out = String::new();
        render_parts(&self.0, doc, &mut out)?;
        Ok(out)
    }
}

fn parse_parts(rest: &mut &str, in_range: bool) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            parts.push(Part::Text(rest.to_string()));
            *rest = "";
            break;
        };
        if open > 0 {
            parts.push(Part::Text(rest[..open].to_string()));
        }
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("unclosed action in the template at {:?}", &rest[open..]))?;
        let action = rest[open + 1..close].trim();
        *rest = &rest[close + 1..];
        if action == "end" {
            if in_range {
                return Ok(parts);
            }
            return Err("{end} without a {range ...} before it".into());
        }
        if let Some(path) = action.strip_prefix("range ") {
            let body = parse_parts(rest, true)?;
            parts.push(Part::Range(path.trim().to_string(), body));
            continue;
        }
        parts.push(match literal(action) {
            Some(text) => Part::Text(text),
            None => Part::Path(action.to_string()),
        });
    }
    if in_range {
        return Err("a {range ...} has no {end}".into());
    }
    Ok(parts)
}

/// `"\n"` or `'x'`: a quoted string with `\n`, `\t`, `\\` and `\"`.
fn literal(action: &str) -> Option<String> {
    let inner = action
        .strip_prefix('"')
        .and_then(|a| a.strip_suffix('"'))
        .or_else(|| action.strip_prefix('\'').and_then(|a| a.strip_suffix('\'')))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// kubectl's relative spellings (`.items`, `items`, `@.x`) as RFC 9535.
fn rooted(path: &str) -> String {
    if path.starts_with('$') {
        path.to_string()
    } else if let Some(p) = path.strip_prefix('@') {
        format!("${p}")
    } else if path.starts_with('.') || path.starts_with('[') {
        format!("${path}")
    } else {
        format!("$.{path}")
    }
}

/// The values a path selects in `doc`.
pub fn select<'a>(doc: &'a Value, path: &str) -> Result<Vec<&'a Value>, String> {
    if path == "." || path == "@" || path == "$" {
        return Ok(vec![doc]);
    }
    doc.query(&rooted(path))
        .map_err(|e| format!("{path} is not a JSONPath: {e}"))
}

/// A value as one cell of text: strings bare, the rest compact JSON.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => escape(s).into_owned(),
        Value::Null => String::new(),
        other => escape(&other.to_string()).into_owned(),
    }
}

fn render_parts(parts: &[Part], doc: &Value, out: &mut String) -> Result<(), String> {
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(t),
            Part::Path(p) => {
                let values = select(doc, p)?;
                let texts: Vec<String> = values.into_iter().map(text_of).collect();
                out.push_str(&texts.join(" "));
            }
            Part::Range(p, body) => {
                for value in select(doc, p)? {
                    // `{range .items[*]}` visits each item; a range over
                    // one array visits its elements.
                    match value {
                        Value::Array(items) if !p.ends_with("[*]") => {
                            for item in items {
                                render_parts(body, item, out)?;
                            }
                        }
                        _ => render_parts(body, value, out)?,
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "kind": "StatusReport",
            "items": [
                {"object": {"kind": "Deployment", "name": "web"}, "verdict": "Converged", "ready": {"ready": 3, "desired": 3}},
                {"object": {"kind": "Job", "name": "migrate"}, "verdict": "Failed"},
            ]
        })
    }

    fn run(t: &str) -> String {
        Template::parse(t).unwrap().render(&doc()).unwrap()
    }

    #[test]
    fn paths_print_values_separated_by_spaces() {
        assert_eq!(run("{.items[*].object.name}"), "web migrate");
        assert_eq!(run("{.kind}"), "StatusReport");
        assert_eq!(run("{$.items[0].verdict}"), "Converged");
        assert_eq!(run("{.items[0].ready}"), r#"{"desired":3,"ready":3}"#);
        assert_eq!(
            run("{.items[5].verdict}"),
            "",
            "a missing key prints nothing"
        );
    }

    #[test]
    fn range_literals_and_filters() {
        assert_eq!(
            run(r#"{range .items[*]}{.object.kind}/{.object.name}{"\t"}{.verdict}{"\n"}{end}"#),
            "Deployment/web\tConverged\nJob/migrate\tFailed\n"
        );
        assert_eq!(
            run(r#"{.items[?@.verdict=="Failed"].object.name}"#),
            "migrate"
        );
        assert_eq!(
            run("names: {.items[*].object.name}!"),
            "names: web migrate!"
        );
    }

    #[test]
    fn broken_templates_say_what_is_wrong() {
        assert!(
            Template::parse("{range .items[*]}{.x}")
                .unwrap_err()
                .contains("no {end}")
        );
        assert!(
            Template::parse("{.x}{end}")
                .unwrap_err()
                .contains("without a {range")
        );
        assert!(Template::parse("{.items").unwrap_err().contains("unclosed"));
    }

    #[test]
    fn cluster_strings_are_escaped() {
        let d = json!({"name": "evil\u{1b}[2J"});
        let out = Template::parse("{.name}").unwrap().render(&d).unwrap();
        assert!(!out.contains('\u{1b}'));
    }
}
