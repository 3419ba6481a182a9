//! The only place that sends requests: GETs of JSON with a deadline each,
//! and API errors turned into a small set of causes a user can act on.

use std::time::Duration;

use serde_json::Value;

/// Why a request did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    NotFound,
    Forbidden(String),
    Unauthorized(String),
    /// 410: a watch or continue token expired.
    Gone,
    Timeout,
    Unreachable(String),
    Other(u16, String),
}

impl ApiError {
    /// A short word for `incomplete` entries.
    pub fn short(&self) -> String {
        match self {
            ApiError::NotFound => "not found (the server does not serve it)".into(),
            ApiError::Forbidden(_) => "forbidden".into(),
            ApiError::Unauthorized(_) => "unauthorized".into(),
            ApiError::Gone => "expired".into(),
            ApiError::Timeout => "timeout".into(),
            ApiError::Unreachable(_) => "unreachable".into(),
            ApiError::Other(code, _) => format!("error {code}"),
        }
    }
}

/// A client with a deadline on every request.
#[derive(Clone)]
pub struct Api {
    client: kube::Client,
    timeout: Duration,
}

/// Accept header for metadata-only lists: the server sends
/// `PartialObjectMetadataList`, so no spec, status or data travels.
pub const METADATA_LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/// Accept header for aggregated discovery.
pub const AGGREGATED_DISCOVERY: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

impl Api {
    pub fn new(client: kube::Client, timeout: Duration) -> Api {
        Api { client, timeout }
    }

    /// Opens a watch: `path_and_query` must carry `watch=1`. The stream ends
    /// when the server closes it or the connection breaks.
    pub async fn watch(
        &self,
        path_and_query: &str,
    ) -> Result<
        impl futures::Stream<Item = Result<kube::core::WatchEvent<Value>, ApiError>> + use<>,
        ApiError,
    > {
        use futures::StreamExt;
        let request = http::Request::get(path_and_query)
            .body(Vec::new())
            .map_err(|e| ApiError::Other(0, e.to_string()))?;
        let started = std::time::Instant::now();
        let result =
            match tokio::time::timeout(self.timeout, self.client.request_events::<Value>(request))
                .await
            {
                Err(_) => Err(ApiError::Timeout),
                Ok(Ok(stream)) => Ok(stream.map(
                    |r: Result<kube::core::WatchEvent<Value>, kube::Error>| r.map_err(classify),
                )),
                Ok(Err(err)) => Err(classify(err)),
            };
        let error = result.as_ref().err();
        crate::log::response("GET", path_and_query, None, error, started.elapsed());
        result
    }

    /// GETs `path_and_query` and parses the JSON answer.
    pub async fn get(&self, path_and_query: &str, accept: Option<&str>) -> Result<Value, ApiError> {
        let mut request = http::Request::get(path_and_query);
        if let Some(accept) = accept {
            request = request.header(http::header::ACCEPT, accept);
        }
        let request = request
            .body(Vec::new())
            .map_err(|e| ApiError::Other(0, e.to_string()))?;
        let started = std::time::Instant::now();
        let result =
            match tokio::time::timeout(self.timeout, self.client.request::<Value>(request)).await {
                Err(_) => Err(ApiError::Timeout),
                Ok(Ok(value)) => Ok(value),
                Ok(Err(err)) => Err(classify(err)),
            };
        let error = result.as_ref().err();
        crate::log::response("GET", path_and_query, accept, error, started.elapsed());
        result
    }
}

fn classify(err: kube::Error) -> ApiError {
    match err {
        kube::Error::Api(status) => match status.code {
            404 => ApiError::NotFound,
            403 => ApiError::Forbidden(status.message.clone()),
            401 => ApiError::Unauthorized(status.message.clone()),
            410 => ApiError::Gone,
            504 => ApiError::Timeout,
            code => ApiError::Other(code, status.message.clone()),
        },
        other => {
            let text = error_chain(&other);
            if text.contains("timed out") || text.contains("deadline") {
                ApiError::Timeout
            } else {
                ApiError::Unreachable(text)
            }
        }
    }
}

/// An error and its causes, on one line.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// An error and its causes on one line, each cause said once (kube's
/// errors repeat their source in their own message).
pub fn anyhow_chain(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_said_once() {
        let io = std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "No such file or directory (os error 2)",
        );
        let err = anyhow::Error::new(io)
            .context("failed to read kubeconfig: No such file or directory (os error 2)")
            .context("cannot read a kubeconfig");
        assert_eq!(
            anyhow_chain(&err),
            "cannot read a kubeconfig: failed to read kubeconfig: No such file or directory (os error 2)"
        );
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
