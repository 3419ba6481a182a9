//! One read of cluster state (a list, or a get by name), the `Reader`
//! seam that both the API client and the in-memory reader implement, and
//! the seam's error (`ApiError`) with its words for the request log. A
//! read of Secrets or ConfigMaps is metadata-only whatever asked for it.

use std::future::Future;

use serde_json::Value;

use crate::catalog::ResourceType;

/// The most bytes one answer may have, on the wire and decompressed: far
/// above any real list page (500 objects), far below what would exhaust
/// memory. A gzip bomb or an endless body stops here.
pub const MAX_ANSWER: usize = 128 << 20;

/// Why a request did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    /// 404 for a whole type: the server does not serve it (any more).
    NotFound,
    /// 404 for one object by name: the type is served, the object is not
    /// there.
    Missing,
    Forbidden(String),
    Unauthorized(String),
    /// 410: a watch or continue token expired.
    Gone,
    Timeout,
    Unreachable(String),
    /// The TLS handshake failed: the server's certificate is not trusted,
    /// names another host, or the server refused ours.
    Tls(String),
    /// The answer was larger than [`MAX_ANSWER`] (on the wire or once
    /// decompressed): read no further, a gap in the answer.
    TooLarge(String),
    /// The credential plugin failed when the token was renewed: its own
    /// words, in kubectl's manner (with a hint).
    Credential(String),
    Other(u16, String),
}

impl ApiError {
    /// A short word for `incomplete` entries.
    pub fn short(&self) -> String {
        match self {
            ApiError::NotFound => "not found (the server does not serve it)".into(),
            ApiError::Missing => "not found".into(),
            ApiError::Forbidden(_) => "forbidden".into(),
            ApiError::Unauthorized(_) => "unauthorized".into(),
            ApiError::Gone => "expired".into(),
            ApiError::Timeout => "timeout".into(),
            ApiError::Unreachable(_) => "unreachable".into(),
            ApiError::Tls(_) => "TLS handshake failed".into(),
            ApiError::TooLarge(_) => format!("answer larger than {} MiB", MAX_ANSWER >> 20),
            ApiError::Credential(message) => message.lines().next().unwrap_or_default().to_string(),
            // The server's own words say which part failed (a conversion
            // webhook, an aggregated API); escaped where it is printed.
            // No HTTP status: the answer itself was wrong (not JSON).
            ApiError::Other(0, message) => message.chars().take(200).collect(),
            ApiError::Other(code, message) if !message.is_empty() => {
                let message: String = message.chars().take(200).collect();
                format!("error {code}: {message}")
            }
            ApiError::Other(code, _) => format!("error {code}"),
        }
    }
}

/// The HTTP status as kubectl prints it, or what stopped the request.
pub fn status_text(error: Option<&ApiError>) -> String {
    match error {
        None => "200 OK".into(),
        Some(ApiError::NotFound | ApiError::Missing) => "404 Not Found".into(),
        Some(ApiError::Forbidden(_)) => "403 Forbidden".into(),
        Some(ApiError::Unauthorized(_)) => "401 Unauthorized".into(),
        Some(ApiError::Gone) => "410 Gone".into(),
        Some(ApiError::Timeout) => "(timed out)".into(),
        Some(ApiError::Unreachable(why) | ApiError::Tls(why)) => format!("(failed: {why})"),
        Some(ApiError::TooLarge(_)) => "(answer too large)".into(),
        Some(ApiError::Credential(_)) => "(not sent: the credential plugin failed)".into(),
        Some(ApiError::Other(code, _)) => code.to_string(),
    }
}

/// Percent-encodes a query value (label and field selectors).
pub fn query_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// How many items one page of a list asks for, as kubectl's chunk size.
pub const PAGE: usize = 500;
/// The most pages one list may take: 2.5 million objects of one type at
/// [`PAGE`] each, past any real cluster. A server that hands out continue
/// tokens without end (empty pages, each with a new token) is cut here,
/// not at the command's deadline.
pub const MAX_PAGES: usize = 5_000;

/// One list (or get, when `name` is set) of one type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub rt: ResourceType,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub labels: Option<String>,
    pub fields: Option<String>,
    metadata_only: bool,
    /// Keep only objects without a controller (a sweep's roots): the
    /// others are dropped page by page, so that memory follows the roots.
    roots_only: bool,
    /// For a watch: only what happens from now on, not what is there
    /// (the events of a namespace whose past events were read otherwise).
    starting_now: bool,
    /// Keep `metadata.managedFields` (who wrote what): only `why`'s targets
    /// need it. Otherwise it is skipped while parsing.
    managed_fields: bool,
}

impl Read {
    /// Every object of a type, in a namespace or everywhere.
    pub fn list(rt: &ResourceType, namespace: Option<&str>) -> Read {
        Read {
            rt: rt.clone(),
            namespace: namespace.filter(|_| rt.namespaced).map(str::to_string),
            name: None,
            labels: None,
            fields: None,
            metadata_only: false,
            roots_only: false,
            starting_now: false,
            managed_fields: false,
        }
    }

    /// One object by name.
    pub fn get(rt: &ResourceType, namespace: Option<&str>, name: &str) -> Read {
        Read {
            name: Some(name.to_string()),
            ..Read::list(rt, namespace)
        }
    }

    /// Only the objects a label selector matches (empty: all).
    pub fn labels(mut self, selector: impl Into<String>) -> Read {
        self.labels = Some(selector.into()).filter(|s: &String| !s.is_empty());
        self
    }

    /// Only the objects a field selector matches.
    pub fn fields(mut self, selector: impl Into<String>) -> Read {
        self.fields = Some(selector.into());
        self
    }

    /// Metadata only (`PartialObjectMetadata`): no spec, status or data.
    pub fn metadata_only(mut self) -> Read {
        self.metadata_only = true;
        self
    }

    /// The objects keep `metadata.managedFields`.
    pub fn with_managed_fields(mut self) -> Read {
        self.managed_fields = true;
        self
    }

    pub fn wants_managed_fields(&self) -> bool {
        self.managed_fields
    }

    /// What of its answers' managedFields is kept: all where asked for,
    /// none for metadata only, else who wrote which part when.
    pub fn writers(&self) -> super::trim::Writers {
        use super::trim::Writers;
        if self.managed_fields {
            Writers::All
        } else if self.metadata_only {
            Writers::Skipped
        } else {
            Writers::Reduced
        }
    }

    /// A watch of this read starts now: what is already there is not
    /// listed (only the list's resourceVersion is asked for).
    pub fn starting_now(mut self) -> Read {
        self.starting_now = true;
        self
    }

    pub fn is_starting_now(&self) -> bool {
        self.starting_now
    }

    /// Whether an object of this read's type is within its reach: a list
    /// in its namespace, or across every namespace.
    pub fn holds(&self, object: &crate::model::Object) -> bool {
        self.namespace.is_none() || self.namespace.as_deref() == object.namespace()
    }

    /// Only the objects without a controller are kept.
    pub fn roots_only(mut self) -> Read {
        self.roots_only = true;
        self
    }

    /// Whether an object of the answer is kept: always, or for a
    /// [`Read::roots_only`] read when no controller owns it.
    pub fn keeps(&self, object: &Value) -> bool {
        !self.roots_only || !crate::model::names_controller(object)
    }

    /// Whether the answer carries metadata only. Secrets and ConfigMaps
    /// always do: the tool never reads their data.
    pub fn is_metadata_only(&self) -> bool {
        self.metadata_only || is_data_type(&self.rt)
    }

    pub fn is_events(&self) -> bool {
        self.rt.kind == "Event" && matches!(self.rt.group.as_str(), "" | "events.k8s.io")
    }

    /// The same objects as a list: a get becomes a list by `metadata.name`,
    /// which is what a watch keeps current (and sees appear).
    pub fn as_list(&self) -> Read {
        match &self.name {
            None => self.clone(),
            Some(name) => Read {
                name: None,
                fields: Some(format!("metadata.name={name}")),
                ..self.clone()
            },
        }
    }

    /// The URL path: the collection, or the named object.
    pub fn path(&self) -> String {
        let base = self.rt.collection_path(self.namespace.as_deref());
        match &self.name {
            Some(name) => format!("{base}/{}", query_escape(name)),
            None => base,
        }
    }

    /// The selectors as query parameters.
    pub fn selector_query(&self) -> Vec<String> {
        let mut query = Vec::new();
        if let Some(l) = &self.labels {
            query.push(format!("labelSelector={}", query_escape(l)));
        }
        if let Some(f) = &self.fields {
            query.push(format!("fieldSelector={}", query_escape(f)));
        }
        query
    }

    /// The path and query of one page of this list.
    pub fn page_path(&self, limit: usize, continue_token: Option<&str>) -> String {
        let mut query = self.selector_query();
        query.push(format!("limit={limit}"));
        if let Some(token) = continue_token {
            query.push(format!("continue={}", query_escape(token)));
        }
        format!("{}?{}", self.path(), query.join("&"))
    }

    /// The Accept header: JSON, or the metadata-only form of it; a
    /// metadata-only list in protobuf first (half the server's CPU), JSON
    /// if the server cannot, and JSON alone where `managedFields` are kept.
    pub fn accept(&self) -> &'static str {
        match (self.is_metadata_only(), self.name.is_some()) {
            (false, _) => "application/json",
            (true, true) => METADATA,
            (true, false) if self.managed_fields => METADATA_LIST,
            (true, false) => METADATA_LIST_PROTOBUF,
        }
    }

    /// The Accept header of a watch of this read.
    pub fn watch_accept(&self) -> &'static str {
        if self.is_metadata_only() {
            METADATA
        } else {
            "application/json"
        }
    }
}

/// Accept header for a metadata-only object (and watch events of them).
pub const METADATA: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
/// Accept header for metadata-only lists: the server sends
/// `PartialObjectMetadataList`, so no spec, status or data travels.
pub const METADATA_LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/// [`METADATA_LIST`] in protobuf, or in JSON where the server cannot.
pub const METADATA_LIST_PROTOBUF: &str = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

/// Secrets and ConfigMaps are only ever read as metadata.
pub fn is_data_type(rt: &ResourceType) -> bool {
    rt.group.is_empty() && crate::model::is_data_kind(&rt.kind)
}

/// One page of a list.
#[derive(Debug, Default)]
pub struct Page {
    pub items: Vec<Value>,
    pub resource_version: String,
    /// Where the next page starts; `None` on the last page.
    pub continue_token: Option<String>,
}

/// A whole list: every page's items, and the version to watch from.
#[derive(Debug, Default)]
pub struct Listing {
    pub items: Vec<Value>,
    pub resource_version: String,
}

/// Reads cluster state. Implemented by the API client and, for tests, by
/// an in-memory cluster that records every request.
pub trait Reader: Sync {
    /// One page of a list, from `continue_token` on.
    fn page(
        &self,
        read: &Read,
        limit: usize,
        continue_token: Option<&str>,
    ) -> impl Future<Output = Result<Page, ApiError>> + Send;

    /// One object by name; `None` when it does not exist.
    fn get(&self, read: &Read) -> impl Future<Output = Result<Option<Value>, ApiError>> + Send;

    /// Every item of a list, page by page (items are moved, not copied). An
    /// expired continue token (410) starts the list again once.
    fn list(&self, read: &Read) -> impl Future<Output = Result<Listing, ApiError>> + Send {
        self.list_with(read, &Some)
    }

    /// [`Reader::list`], each item passed through `keep` as its page
    /// arrives: what it returns is kept, so that what it drops never adds
    /// up over the pages.
    fn list_with(
        &self,
        read: &Read,
        keep: &(dyn Fn(Value) -> Option<Value> + Sync),
    ) -> impl Future<Output = Result<Listing, ApiError>> + Send {
        async move {
            let mut out = Listing::default();
            let mut token: Option<String> = None;
            let mut restarted = false;
            let mut pages = 0usize;
            loop {
                pages += 1;
                if pages > MAX_PAGES {
                    return Err(ApiError::Other(
                        0,
                        format!("the list went on for more than {MAX_PAGES} pages of {PAGE}; cut"),
                    ));
                }
                let page = match self.page(read, PAGE, token.as_deref()).await {
                    Ok(page) => page,
                    Err(ApiError::Gone) if token.is_some() && !restarted => {
                        restarted = true;
                        token = None;
                        out = Listing::default();
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                // An item that is not a JSON object is no object: dropped
                // here, so that what `keep` hands back as text (a sweep's
                // cut identities) is only ever its own.
                out.items.extend(
                    page.items
                        .into_iter()
                        .filter(|v| v.is_object() && read.keeps(v))
                        .filter_map(keep),
                );
                out.resource_version = page.resource_version;
                match page.continue_token {
                    Some(next) if !next.is_empty() => token = Some(next),
                    _ => return Ok(out),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server whose one page holds what no API server sends: items
    /// that are not objects.
    struct Odd;

    impl Reader for Odd {
        async fn page(&self, _: &Read, _: usize, _: Option<&str>) -> Result<Page, ApiError> {
            Ok(Page {
                items: vec![
                    serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}),
                    Value::String(
                        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}"#.into(),
                    ),
                    Value::Null,
                    serde_json::json!([1]),
                ],
                resource_version: "7".into(),
                continue_token: None,
            })
        }
        async fn get(&self, _: &Read) -> Result<Option<Value>, ApiError> {
            Ok(None)
        }
    }

    #[test]
    fn a_list_keeps_only_items_that_are_objects() {
        let cat = crate::source::tests::catalog();
        let read = Read::list(cat.by_kind("", "Pod").unwrap(), Some("shop"));
        let listing = futures::executor::block_on(Odd.list(&read)).unwrap();
        assert_eq!(listing.items.len(), 1);
        assert_eq!(listing.items[0]["metadata"]["name"], "a");
    }

    #[test]
    fn selectors_are_escaped_for_the_query_string() {
        assert_eq!(
            query_escape("app=web,tier in (a,b),!canary"),
            "app%3Dweb%2Ctier%20in%20%28a%2Cb%29%2C%21canary"
        );
        assert_eq!(
            query_escape("kubernetes.io/service-name=web"),
            "kubernetes.io%2Fservice-name%3Dweb"
        );
    }
}
