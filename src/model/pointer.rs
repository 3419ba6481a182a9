//! JSON Pointer lookups (RFC 6901) without allocating: `serde_json`'s own
//! `Value::pointer` makes a `String` of every segment, and the verdicts look
//! up a handful of paths in every object of a sweep.

use serde_json::Value;

/// The value at `path` ("" is the whole document), as
/// [`Value::pointer`] finds it: `~1` and `~0` unescaped, array indexes
/// without a sign or leading zeros.
pub fn pointer<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(root);
    }
    let rest = path.strip_prefix('/')?;
    rest.split('/').try_fold(root, |at, token| {
        if token.contains('~') {
            step(at, &token.replace("~1", "/").replace("~0", "~"))
        } else {
            step(at, token)
        }
    })
}

fn step<'a>(at: &'a Value, token: &str) -> Option<&'a Value> {
    match at {
        Value::Object(map) => map.get(token),
        Value::Array(items) => index(token).and_then(|i| items.get(i)),
        _ => None,
    }
}

fn index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_what_serde_json_finds() {
        let doc = json!({
            "metadata": {"name": "web", "annotations": {"example.com/a~b": "x", "": "empty"}},
            "status": {"conditions": [{"type": "Ready"}, {"type": "Available"}], "n": null},
            "list": [[1, 2], [3]],
        });
        for path in [
            "",
            "/",
            "/metadata",
            "/metadata/name",
            "/metadata/annotations/example.com~1a~0b",
            "/metadata/annotations/",
            "/status/conditions/1/type",
            "/status/conditions/01/type",
            "/status/conditions/+1/type",
            "/status/conditions/-1/type",
            "/status/conditions/2",
            "/status/n",
            "/status/n/deeper",
            "/list/0/1",
            "/metadata/name/x",
            "metadata",
            "/missing/path",
        ] {
            assert_eq!(pointer(&doc, path), doc.pointer(path), "{path:?}");
        }
    }
}
