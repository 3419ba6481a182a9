//! Metadata-only lists in the API server's protobuf encoding: the server
//! spends about half the CPU on a page of `PartialObjectMetadataList` in
//! protobuf that it spends on the same page in JSON (docs/performance.md).
//! Decoded here into the JSON values the rest of the source reads, the
//! same fields in the same shape, so nothing past this module knows which
//! encoding came (`managedFields` are never decoded: lists that keep them
//! ask for JSON).

use prost::Message;
use serde_json::{Map, Value, json};

use super::trim::ListBody;

/// The content type of a protobuf answer.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes before every protobuf answer of the API server.
const MAGIC: &[u8] = b"k8s\0";

/// `runtime.Unknown`: the envelope of an object in protobuf.
#[derive(Clone, PartialEq, Message)]
struct Unknown {
    #[prost(message, optional, tag = "1")]
    type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    raw: Option<Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    content_encoding: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct TypeMeta {
    #[prost(string, optional, tag = "1")]
    api_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    kind: Option<String>,
}

/// `meta.k8s.io/v1` `PartialObjectMetadataList`, its items still encoded:
/// counted before any is decoded (see [`MAX_ITEMS`]).
#[derive(Clone, PartialEq, Message)]
struct MetadataList {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ListMeta>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    items: Vec<Vec<u8>>,
}

/// Items of one page at most: ten times the page asked for. An item of a
/// few bytes in protobuf becomes a JSON object of a kilobyte or more, so
/// a page of tiny items, which no API server sends for a limit of
/// [`super::read::PAGE`], is refused before it is decoded, not grown a
/// thousandfold under the answer's size cap.
pub const MAX_ITEMS: usize = 10 * super::read::PAGE;

#[derive(Clone, PartialEq, Message)]
struct ListMeta {
    #[prost(string, optional, tag = "2")]
    resource_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    continue_token: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PartialObjectMetadata {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
}

/// `ObjectMeta`, without `managedFields` (17) and `selfLink` (4).
#[derive(Clone, PartialEq, Message)]
struct ObjectMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    generate_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    #[prost(string, optional, tag = "5")]
    uid: Option<String>,
    #[prost(string, optional, tag = "6")]
    resource_version: Option<String>,
    #[prost(int64, optional, tag = "7")]
    generation: Option<i64>,
    #[prost(message, optional, tag = "8")]
    creation_timestamp: Option<Time>,
    #[prost(message, optional, tag = "9")]
    deletion_timestamp: Option<Time>,
    #[prost(int64, optional, tag = "10")]
    deletion_grace_period_seconds: Option<i64>,
    #[prost(btree_map = "string, string", tag = "11")]
    labels: std::collections::BTreeMap<String, String>,
    /// Bytes: the API server does not require an annotation's value to be
    /// UTF-8 (its JSON answer writes U+FFFD for each byte that is not).
    #[prost(btree_map = "string, bytes", tag = "12")]
    annotations: std::collections::BTreeMap<String, Vec<u8>>,
    #[prost(message, repeated, tag = "13")]
    owner_references: Vec<OwnerReference>,
    #[prost(string, repeated, tag = "14")]
    finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Time {
    #[prost(int64, optional, tag = "1")]
    seconds: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
struct OwnerReference {
    #[prost(string, optional, tag = "1")]
    kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    name: Option<String>,
    #[prost(string, optional, tag = "4")]
    uid: Option<String>,
    #[prost(string, optional, tag = "5")]
    api_version: Option<String>,
    #[prost(bool, optional, tag = "6")]
    controller: Option<bool>,
    #[prost(bool, optional, tag = "7")]
    block_owner_deletion: Option<bool>,
}

/// Why a protobuf answer could not be read.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum Invalid {
    #[error("it does not start as the API server's protobuf answers do")]
    NoMagic,
    #[error("it is not a valid protobuf message: {0}")]
    Decode(String),
    #[error("it holds a {0}, not a PartialObjectMetadataList")]
    OtherKind(String),
    #[error("it is encoded as {0:?}, which is not read here")]
    Encoded(String),
    #[error("one page holds {0} items, more than {MAX_ITEMS}")]
    TooMany(usize),
}

impl From<prost::DecodeError> for Invalid {
    fn from(e: prost::DecodeError) -> Invalid {
        Invalid::Decode(e.to_string())
    }
}

/// One page of a metadata-only list in protobuf, as the JSON answer's
/// [`ListBody`] would hold it.
pub fn metadata_list(body: &[u8]) -> Result<ListBody, Invalid> {
    let inner = body.strip_prefix(MAGIC).ok_or(Invalid::NoMagic)?;
    let unknown = Unknown::decode(inner)?;
    let kind = unknown.type_meta.and_then(|t| t.kind).unwrap_or_default();
    if kind != "PartialObjectMetadataList" {
        return Err(Invalid::OtherKind(kind));
    }
    if let Some(encoding) = unknown.content_encoding.filter(|e| !e.is_empty()) {
        return Err(Invalid::Encoded(encoding));
    }
    let list = MetadataList::decode(unknown.raw.unwrap_or_default().as_slice())?;
    if list.items.len() > MAX_ITEMS {
        return Err(Invalid::TooMany(list.items.len()));
    }
    let meta = list.metadata.unwrap_or_default();
    let items = list
        .items
        .iter()
        .map(|item| {
            let item = PartialObjectMetadata::decode(item.as_slice())?;
            Ok(item_json(item.metadata.unwrap_or_default()))
        })
        .collect::<Result<Vec<Value>, Invalid>>()?;
    Ok(ListBody {
        resource_version: meta.resource_version.unwrap_or_default(),
        continue_token: meta.continue_token.filter(|t| !t.is_empty()),
        items,
    })
}

/// An item as the JSON answer has it: the fields the API server writes
/// (empty ones left out, as its `omitempty` does).
fn item_json(meta: ObjectMeta) -> Value {
    let mut m = Map::new();
    let mut text = |key: &str, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            m.insert(key.to_string(), Value::String(v));
        }
    };
    text("name", meta.name);
    text("generateName", meta.generate_name);
    text("namespace", meta.namespace);
    text("uid", meta.uid);
    text("resourceVersion", meta.resource_version);
    if let Some(g) = meta.generation.filter(|g| *g != 0) {
        m.insert("generation".into(), g.into());
    }
    m.insert(
        "creationTimestamp".into(),
        meta.creation_timestamp.map_or(Value::Null, time),
    );
    if let Some(t) = meta.deletion_timestamp {
        m.insert("deletionTimestamp".into(), time(t));
    }
    if let Some(s) = meta.deletion_grace_period_seconds {
        m.insert("deletionGracePeriodSeconds".into(), s.into());
    }
    if !meta.labels.is_empty() {
        m.insert("labels".into(), json!(meta.labels));
    }
    if !meta.annotations.is_empty() {
        let annotations: Map<String, Value> = meta
            .annotations
            .into_iter()
            .map(|(k, v)| (k, Value::String(lossy(&v))))
            .collect();
        m.insert("annotations".into(), Value::Object(annotations));
    }
    if !meta.owner_references.is_empty() {
        let owners: Vec<Value> = meta.owner_references.into_iter().map(owner).collect();
        m.insert("ownerReferences".into(), Value::Array(owners));
    }
    if !meta.finalizers.is_empty() {
        m.insert("finalizers".into(), json!(meta.finalizers));
    }
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": Value::Object(m),
    })
}

fn owner(r: OwnerReference) -> Value {
    let mut m = Map::new();
    for (key, value) in [
        ("apiVersion", r.api_version),
        ("kind", r.kind),
        ("name", r.name),
        ("uid", r.uid),
    ] {
        m.insert(key.into(), Value::String(value.unwrap_or_default()));
    }
    if let Some(c) = r.controller {
        m.insert("controller".into(), c.into());
    }
    if let Some(b) = r.block_owner_deletion {
        m.insert("blockOwnerDeletion".into(), b.into());
    }
    Value::Object(m)
}

/// `metav1.Time` as JSON: RFC 3339 in UTC, to the second. The zero time
/// is an empty message in protobuf and `null` in JSON.
fn time(t: Time) -> Value {
    let Some(seconds) = t.seconds else {
        return Value::Null;
    };
    match jiff::Timestamp::from_second(seconds) {
        Ok(ts) => Value::String(ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
        Err(_) => Value::Null,
    }
}

/// Text as Go's JSON encoder writes it: each byte that is not part of
/// valid UTF-8 becomes U+FFFD.
fn lossy(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len());
                out.extend(std::iter::repeat_n('\u{FFFD}', bad));
                bytes = &rest[bad..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/protobuf/");
        std::fs::read(format!("{dir}{name}")).unwrap()
    }

    /// Pages the test control plane answered in both encodings at the same
    /// resourceVersion: a ConfigMap with labels and annotations, one being
    /// deleted (finalizer, owner, deletion time), a ReplicaSet and its pod
    /// (generation, owners), a first page with its continue token.
    #[test]
    fn a_protobuf_page_reads_as_the_same_page_in_json() {
        for name in ["configmaps", "configmaps-page1", "replicasets", "pods"] {
            let pb = metadata_list(&fixture(&format!("{name}.pb"))).unwrap();
            let js = crate::source::trim::list(
                &fixture(&format!("{name}.json")),
                crate::source::trim::Writers::Skipped,
            )
            .unwrap();
            assert_eq!(pb.resource_version, js.resource_version, "{name}");
            assert_eq!(pb.continue_token, js.continue_token, "{name}");
            assert_eq!(pb.items.len(), js.items.len(), "{name}");
            for (p, j) in pb.items.iter().zip(&js.items) {
                assert_eq!(p, j, "{name}");
            }
        }
        let page1 = metadata_list(&fixture("configmaps-page1.pb")).unwrap();
        assert!(page1.continue_token.is_some());
        let all = metadata_list(&fixture("configmaps.pb")).unwrap();
        let leftover = &all.items[2]["metadata"];
        assert_eq!(leftover["finalizers"][0], "example.com/keep");
        assert_eq!(leftover["ownerReferences"][0]["controller"], true);
        assert!(leftover["deletionTimestamp"].is_string());
    }

    /// A page of `items` (encoded), as the API server wraps it.
    fn page(items: Vec<Vec<u8>>) -> Vec<u8> {
        let list = MetadataList {
            metadata: None,
            items,
        };
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("meta.k8s.io/v1".into()),
                kind: Some("PartialObjectMetadataList".into()),
            }),
            raw: Some(list.encode_to_vec()),
            content_encoding: None,
        };
        let mut body = MAGIC.to_vec();
        body.extend(unknown.encode_to_vec());
        body
    }

    #[test]
    fn bytes_that_are_not_utf8_and_the_zero_time_read_as_the_json_answer_has_them() {
        // An annotation's value need not be UTF-8 (a client writing
        // protobuf can store any bytes); the JSON answer writes U+FFFD for
        // each byte that is not, and null for the zero time.
        let meta = ObjectMeta {
            name: Some("web-0".into()),
            uid: Some("u1".into()),
            creation_timestamp: Some(Time { seconds: None }),
            annotations: [("note".to_string(), b"ok \xff\xe2\x82".to_vec())].into(),
            ..ObjectMeta::default()
        };
        let item = PartialObjectMetadata {
            metadata: Some(meta),
        };
        let read = metadata_list(&page(vec![item.encode_to_vec()])).unwrap();
        let metadata = &read.items[0]["metadata"];
        assert_eq!(
            metadata["annotations"]["note"],
            "ok \u{FFFD}\u{FFFD}\u{FFFD}"
        );
        assert_eq!(metadata["creationTimestamp"], Value::Null);
        assert_eq!(lossy("é ✓".as_bytes()), "é ✓");
    }

    #[test]
    fn a_page_of_more_items_than_any_limit_is_refused_before_it_is_decoded() {
        // Two bytes each: decoded, each would be a JSON object of a kilobyte.
        let tiny = PartialObjectMetadata {
            metadata: Some(ObjectMeta::default()),
        }
        .encode_to_vec();
        assert_eq!(tiny.len(), 2);
        let body = page(vec![tiny; MAX_ITEMS + 1]);
        assert_eq!(
            metadata_list(&body).unwrap_err(),
            Invalid::TooMany(MAX_ITEMS + 1)
        );
    }

    #[test]
    fn an_answer_that_is_not_a_metadata_list_is_refused() {
        assert_eq!(
            metadata_list(b"{\"kind\":\"List\"}").unwrap_err(),
            Invalid::NoMagic
        );
        let mut body = fixture("pods.pb");
        body.truncate(body.len() / 2);
        assert!(matches!(metadata_list(&body), Err(Invalid::Decode(_))));
        let other = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("v1".into()),
                kind: Some("PodList".into()),
            }),
            raw: Some(vec![]),
            content_encoding: None,
        };
        let mut body = MAGIC.to_vec();
        body.extend(other.encode_to_vec());
        assert_eq!(
            metadata_list(&body).unwrap_err(),
            Invalid::OtherKind("PodList".into())
        );
    }
}
