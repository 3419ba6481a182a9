//! Who wrote which part of an object, and when: `metadata.managedFields`
//! reduced to what the judge and the diagnosis read (each entry's manager,
//! operation, subresource, time, and the top-level parts it touched).
//! The whole field sets are the largest part of most objects; they are
//! kept only where `why` reads them in depth, and reduced everywhere else,
//! as an answer is parsed (`source/trim.rs`) and in captures.

use serde_json::{Map, Value};

/// The parts of a ConfigMap or Secret whose keys (never their values) an
/// entry keeps: they tell a key a container waits for from one the map has.
pub const KEYED_PARTS: &[&str] = &["f:data", "f:binaryData", "f:stringData"];

/// The fields of an entry that are kept.
pub const KEPT: &[&str] = &["manager", "operation", "subresource", "time"];

/// Each managedFields entry keeps who wrote, how and when (the [`KEPT`]
/// fields), and of the
/// fields only the top-level parts it touched (`f:spec`, `f:status`,
/// `f:metadata`): all the diagnosis reads. The field sets themselves name
/// env variables, labels and containers, and are most of an entry's size.
/// A ConfigMap's or Secret's keys (`f:data`'s names, never values) stay:
/// they tell a key a container waits for from the one the map has.
pub fn reduce_managed_fields(v: &mut Value) {
    let keyed = v.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && matches!(
            v.get("kind").and_then(Value::as_str),
            Some("ConfigMap" | "Secret")
        );
    let Some(entries) = v
        .pointer_mut("/metadata/managedFields")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
        entry.retain(|k, _| KEPT.contains(&k.as_str()) || k == "fieldsV1");
        if let Some(Value::Object(fields)) = entry.get_mut("fieldsV1") {
            for (name, part) in fields.iter_mut() {
                let keys = keyed && KEYED_PARTS.contains(&name.as_str());
                *part = match part {
                    Value::Object(set) if keys => Value::Object(
                        set.keys()
                            .map(|k| (k.clone(), Value::Object(Map::new())))
                            .collect(),
                    ),
                    _ => Value::Object(Map::new()),
                };
            }
        }
    }
}
