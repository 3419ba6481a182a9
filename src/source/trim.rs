//! Parses API answers without `metadata.managedFields`: the field is
//! skipped while parsing, never built and then dropped. It is the largest
//! part of most objects (a pod's is larger than the rest of the pod), and
//! only `why` reads it, on its targets. Skipping it keeps a paged list of
//! thousands of objects from passing through memory twice.

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

/// Parses one object; `managed_fields`: keep `metadata.managedFields`.
pub fn object(body: &[u8], managed_fields: bool) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = Item { managed_fields }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Parses one page of a list; `managed_fields` as in [`object`].
pub fn list(body: &[u8], managed_fields: bool) -> serde_json::Result<ListBody> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let list = List { managed_fields }.deserialize(&mut de)?;
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
    managed_fields: bool,
}

impl<'de> DeserializeSeed<'de> for Item {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        if self.managed_fields {
            return serde::Deserialize::deserialize(de);
        }
        de.deserialize_any(Fields(Level::Object))
    }
}

/// A map at `Level`; anything else is parsed as usual.
struct Fields(Level);

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
                (Level::Object, "metadata") => map.next_value_seed(Fields(Level::Metadata))?,
                (Level::Metadata, "managedFields") => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                _ => map.next_value::<Value>()?,
            };
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// A list: `metadata.resourceVersion`, `metadata.continue` and `items`.
struct List {
    managed_fields: bool,
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
                            managed_fields: self.managed_fields,
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
    managed_fields: bool,
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
            managed_fields: self.managed_fields,
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
                "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {"f:phase": {}}}}]},
            "spec": {"managedFields": "a field of the spec is not metadata", "nodeName": "n1"},
            "status": {"phase": "Running", "ratio": 0.5, "count": -3, "big": 18446744073709551615u64,
                "none": null, "flags": [true, false]}})
    }

    #[test]
    fn managed_fields_are_skipped_only_in_metadata_and_the_rest_is_exact() {
        let body = serde_json::to_vec(&pod()).unwrap();
        let mut want = pod();
        want["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        assert_eq!(object(&body, false).unwrap(), want);
        assert_eq!(object(&body, true).unwrap(), pod());
    }

    #[test]
    fn a_list_page_keeps_its_continue_token_and_items() {
        let page = json!({"kind": "PodList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "42", "continue": "abc", "remainingItemCount": 7},
            "items": [pod(), pod()]});
        let list = list(&serde_json::to_vec(&page).unwrap(), false).unwrap();
        assert_eq!(list.resource_version, "42");
        assert_eq!(list.continue_token.as_deref(), Some("abc"));
        assert_eq!(list.items.len(), 2);
        assert!(list.items[0].pointer("/metadata/managedFields").is_none());
        assert_eq!(list.items[1]["metadata"]["labels"]["app"], "web");

        let empty =
            super::list(br#"{"kind":"PodList","metadata":{},"items":null}"#, false).unwrap();
        assert!(empty.items.is_empty() && empty.continue_token.is_none());
        assert!(super::list(b"{\"items\": [1, 2", false).is_err());
        assert!(object(b"{} trailing", false).is_err());
    }
}
