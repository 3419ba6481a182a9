//! Parses API answers with `metadata.managedFields` reduced while parsing
//! (never built whole and then cut): each entry keeps who wrote, how, when
//! and the top-level parts it touched (`model::reduce_managed_fields`'s
//! shape), which the judge reads to tell a spec newer than its status.
//! The field sets are the largest part of most objects (a pod's is larger
//! than the rest of the pod), and only `why` reads them in depth, on its
//! targets. Reducing them as they are read keeps a paged list of
//! thousands of objects from passing through memory twice.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// One page of a list: its `metadata` fields and its items.
#[derive(Debug, Default)]
pub struct ListBody {
    pub resource_version: String,
    pub continue_token: Option<String>,
    pub items: Vec<Value>,
}

/// What of `metadata.managedFields` a parse keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writers {
    /// Every entry whole (`why`'s targets).
    All,
    /// Each entry reduced to who wrote which part when (full objects).
    Reduced,
    /// None (metadata-only lists: nothing judges who wrote them, and their
    /// protobuf pages decode without them).
    Skipped,
}

/// Parses one object, keeping what `writers` says of its managedFields.
pub fn object(body: &[u8], writers: Writers) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = Item { writers }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Parses one page of a list; `writers` as in [`object`].
pub fn list(body: &[u8], writers: Writers) -> serde_json::Result<ListBody> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let list = List { writers }.deserialize(&mut de)?;
    de.end()?;
    Ok(list)
}

/// Where in an object a map is.
#[derive(Clone, Copy)]
enum Level {
    Object,
    Metadata,
}

/// An object, or its metadata, read key by key.
#[derive(Clone, Copy)]
struct Item {
    writers: Writers,
}

impl<'de> DeserializeSeed<'de> for Item {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        if self.writers == Writers::All {
            return serde::Deserialize::deserialize(de);
        }
        de.deserialize_any(Fields(Level::Object, self.writers))
    }
}

/// A map at `Level`; anything else is parsed as usual.
struct Fields(Level, Writers);

impl<'de> DeserializeSeed<'de> for Fields {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Fields {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element::<Value>()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match (self.0, key.as_str()) {
                (Level::Object, "metadata") => {
                    map.next_value_seed(Fields(Level::Metadata, self.1))?
                }
                (Level::Metadata, "managedFields") if self.1 == Writers::Skipped => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                (Level::Metadata, "managedFields") => map.next_value_seed(Entries)?,
                _ => map.next_value::<Value>()?,
            };
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// The visits of a scalar that read it as null: a field that is not the
/// shape it should be says nothing.
macro_rules! scalars_as_null {
    () => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    };
}

/// `metadata.managedFields`, each entry reduced as it is read: its
/// manager, operation, subresource and time, and of `fieldsV1` the
/// top-level parts (with the keys of a map's data parts). Anything but a
/// list of entries reads as null.
struct Entries;

impl<'de> DeserializeSeed<'de> for Entries {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Entries {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of managedFields entries")
    }
    scalars_as_null!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(entry) = seq.next_element_seed(Entry)? {
            out.push(entry);
        }
        Ok(Value::Array(out))
    }
}

/// One managedFields entry, reduced (see [`Entries`]).
struct Entry;

impl<'de> DeserializeSeed<'de> for Entry {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Entry {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a managedFields entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "fieldsV1" {
                let parts = map.next_value::<Option<BTreeMap<String, Parts>>>()?;
                let parts: Map<String, Value> = parts
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, p)| {
                        let part = if crate::model::KEYED_PARTS.contains(&k.as_str()) {
                            p.0
                        } else {
                            Value::Object(Map::new())
                        };
                        (k, part)
                    })
                    .collect();
                out.insert(key, Value::Object(parts));
            } else if crate::model::KEPT_WRITER_FIELDS.contains(&key.as_str()) {
                out.insert(key, map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Value::Object(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }
    scalars_as_null!();
}

/// A top-level part of an entry's `fieldsV1`: an empty map, or, for a
/// map's data parts, its keys (never anything below them).
struct Parts(Value);

impl<'de> serde::Deserialize<'de> for Parts {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Parts, D::Error> {
        let keys = Option::<BTreeMap<String, IgnoredAny>>::deserialize(de)?;
        Ok(Parts(Value::Object(
            keys.unwrap_or_default()
                .into_keys()
                .map(|k| (k, Value::Object(Map::new())))
                .collect(),
        )))
    }
}

/// A list: `metadata.resourceVersion`, `metadata.continue` and `items`.
struct List {
    writers: Writers,
}

impl<'de> DeserializeSeed<'de> for List {
    type Value = ListBody;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<ListBody, D::Error> {
        de.deserialize_map(self)
    }
}

#[derive(serde::Deserialize, Default)]
struct ListMeta {
    #[serde(default, rename = "resourceVersion")]
    resource_version: String,
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
}

impl<'de> Visitor<'de> for List {
    type Value = ListBody;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of objects")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ListBody, A::Error> {
        let mut out = ListBody::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "metadata" => {
                    let meta: Option<ListMeta> = map.next_value()?;
                    let meta = meta.unwrap_or_default();
                    out.resource_version = meta.resource_version;
                    out.continue_token = meta.continue_token;
                }
                "items" => {
                    out.items = map
                        .next_value_seed(Items {
                            writers: self.writers,
                        })?
                        .unwrap_or_default();
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

/// `items`: a sequence of objects, or null.
struct Items {
    writers: Writers,
}

impl<'de> DeserializeSeed<'de> for Items {
    type Value = Option<Vec<Value>>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items {
    type Value = Option<Vec<Value>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of objects")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let item = Item {
            writers: self.writers,
        };
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(item)? {
            out.push(v);
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "shop", "labels": {"app": "web"},
                "managedFields": [
                    {"manager": "kubectl-create", "operation": "Update", "apiVersion": "v1",
                     "time": "2026-12-01T10:00:00Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                                  "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}}}}}},
                    {"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                     "time": "2026-12-01T10:00:05Z", "fieldsType": "FieldsV1", "subresource": "status",
                     "fieldsV1": {"f:status": {"f:phase": {}}}}]},
            "spec": {"managedFields": "a field of the spec is not metadata", "nodeName": "n1"},
            "status": {"phase": "Running", "ratio": 0.5, "count": -3, "big": 18446744073709551615u64,
                "none": null, "flags": [true, false]}})
    }

    #[test]
    fn managed_fields_are_reduced_or_skipped_only_in_metadata_and_the_rest_is_exact() {
        let body = serde_json::to_vec(&pod()).unwrap();
        let mut skipped = pod();
        skipped["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        assert_eq!(object(&body, Writers::Skipped).unwrap(), skipped);
        assert_eq!(object(&body, Writers::All).unwrap(), pod());
        // Who wrote which part when: the shape a capture keeps.
        let mut reduced = pod();
        reduced["metadata"]["managedFields"] = json!([
            {"manager": "kubectl-create", "operation": "Update", "time": "2026-12-01T10:00:00Z",
             "fieldsV1": {"f:metadata": {}, "f:spec": {}}},
            {"manager": "kubelet", "operation": "Update", "time": "2026-12-01T10:00:05Z",
             "subresource": "status", "fieldsV1": {"f:status": {}}}]);
        assert_eq!(object(&body, Writers::Reduced).unwrap(), reduced);
        let mut captured = pod();
        crate::model::reduce_managed_fields(&mut captured);
        for (read, kept) in reduced["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .zip(captured["metadata"]["managedFields"].as_array().unwrap())
        {
            for key in ["manager", "operation", "time", "subresource", "fieldsV1"] {
                assert_eq!(read.get(key), kept.get(key), "{key}");
            }
        }
        // A ConfigMap's data keys stay (never its values); a field that
        // is not a list of entries reads as null.
        let cm = json!({"metadata": {"managedFields": [{"manager": "m",
            "fieldsV1": {"f:data": {"f:log_level": {}, ".": {}}}}]}});
        let read = object(&serde_json::to_vec(&cm).unwrap(), Writers::Reduced).unwrap();
        assert_eq!(
            read["metadata"]["managedFields"][0]["fieldsV1"]["f:data"],
            json!({".": {}, "f:log_level": {}})
        );
        let odd = object(br#"{"metadata": {"managedFields": "x"}}"#, Writers::Reduced).unwrap();
        assert_eq!(odd["metadata"]["managedFields"], Value::Null);
    }

    #[test]
    fn a_list_page_keeps_its_continue_token_and_items() {
        let page = json!({"kind": "PodList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "42", "continue": "abc", "remainingItemCount": 7},
            "items": [pod(), pod()]});
        let list = list(&serde_json::to_vec(&page).unwrap(), Writers::Skipped).unwrap();
        assert_eq!(list.resource_version, "42");
        assert_eq!(list.continue_token.as_deref(), Some("abc"));
        assert_eq!(list.items.len(), 2);
        assert!(list.items[0].pointer("/metadata/managedFields").is_none());
        assert_eq!(list.items[1]["metadata"]["labels"]["app"], "web");

        let empty = super::list(
            br#"{"kind":"PodList","metadata":{},"items":null}"#,
            Writers::Reduced,
        )
        .unwrap();
        assert!(empty.items.is_empty() && empty.continue_token.is_none());
        assert!(super::list(b"{\"items\": [1, 2", Writers::Reduced).is_err());
        assert!(object(b"{} trailing", Writers::Reduced).is_err());
    }
}
