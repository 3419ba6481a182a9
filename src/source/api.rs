//! The only place that sends requests: GETs of JSON with a deadline each,
//! and API errors turned into a small set of causes a user can act on.

use std::time::Duration;

use serde_json::Value;

use super::read::{Page, Read, Reader};

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
            // The server's own words say which part failed (a conversion
            // webhook, an aggregated API); escaped where it is printed.
            ApiError::Other(code, message) if !message.is_empty() => {
                let message: String = message.chars().take(200).collect();
                format!("error {code}: {message}")
            }
            ApiError::Other(code, _) => format!("error {code}"),
        }
    }
}

/// A client with a deadline on every request.
#[derive(Clone)]
pub struct Api {
    client: kube::Client,
    /// Another client on a connection of its own (none in tests).
    another: Option<super::client::NewClient>,
    timeout: Duration,
}

/// Accept header for aggregated discovery.
pub const AGGREGATED_DISCOVERY: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// How often a request the server turned away for load (429, 503) is
/// tried again, and the longest wait between tries it will honour. Every
/// wait still counts against the command's own deadline.
const RETRIES: u32 = 3;
const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// A successful answer: its status (200 or 304), ETag and body.
pub struct Answer {
    pub status: u16,
    pub etag: Option<String>,
    pub body: bytes::Bytes,
}

impl Api {
    pub fn new(client: kube::Client, timeout: Duration) -> Api {
        Api {
            client,
            another: None,
            timeout,
        }
    }

    /// With a way to open more connections (see [`Api::on_another_connection`]).
    pub fn with_more_connections(mut self, another: super::client::NewClient) -> Api {
        self.another = Some(another);
        self
    }

    /// The same client on a connection of its own: an HTTP/2 connection
    /// carries at most 100 streams at once with kube-apiserver's defaults,
    /// and each watch holds one for minutes. Falls back to this one.
    pub fn on_another_connection(&self) -> Api {
        let client = self
            .another
            .as_ref()
            .and_then(|make| make().ok())
            .unwrap_or_else(|| self.client.clone());
        Api {
            client,
            ..self.clone()
        }
    }

    /// Opens a watch: `path_and_query` must carry `watch=1`. The stream ends
    /// when the server closes it or the connection breaks.
    pub async fn watch(
        &self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<
        impl futures::Stream<Item = Result<kube::core::WatchEvent<Value>, ApiError>> + use<>,
        ApiError,
    > {
        use futures::StreamExt;
        let request = http::Request::get(path_and_query)
            .header(http::header::ACCEPT, accept)
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
        let answer = self.fetch(path_and_query, accept, None).await?;
        parse(&answer.body)
    }

    /// GETs `path_and_query` with a deadline, and `If-None-Match` when an
    /// ETag is given (a 304 then has an empty body). 429 and 503 are tried
    /// again after the server's `Retry-After`, a few times at most.
    pub async fn fetch(
        &self,
        path_and_query: &str,
        accept: Option<&str>,
        etag: Option<&str>,
    ) -> Result<Answer, ApiError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let started = std::time::Instant::now();
            let result =
                tokio::time::timeout(self.timeout, self.send(path_and_query, accept, etag)).await;
            let status = match &result {
                Err(_) => crate::log::status_text(Some(&ApiError::Timeout)),
                Ok(Err(Failure::Busy(_, e) | Failure::Unprocessed(e) | Failure::Final(e))) => {
                    crate::log::status_text(Some(e))
                }
                Ok(Ok(a)) if a.status == 304 => "304 Not Modified".to_string(),
                Ok(Ok(_)) => crate::log::status_text(None),
            };
            crate::log::response_with("GET", path_and_query, accept, &status, started.elapsed());
            match result {
                Err(_) => return Err(ApiError::Timeout),
                Ok(Err(Failure::Busy(wait, _))) if tries <= RETRIES => {
                    tokio::time::sleep(wait.min(MAX_RETRY_WAIT)).await
                }
                // Every request here is a GET, and this one was not
                // processed: sent again at once, on a new connection.
                Ok(Err(Failure::Unprocessed(_))) if tries <= RETRIES => {}
                Ok(Err(Failure::Busy(_, e) | Failure::Unprocessed(e) | Failure::Final(e))) => {
                    return Err(e);
                }
                Ok(Ok(answer)) => return Ok(answer),
            }
        }
    }

    async fn send(
        &self,
        path_and_query: &str,
        accept: Option<&str>,
        etag: Option<&str>,
    ) -> Result<Answer, Failure> {
        use http_body_util::BodyExt;
        let mut request = http::Request::get(path_and_query);
        if let Some(accept) = accept {
            request = request.header(http::header::ACCEPT, accept);
        }
        if let Some(etag) = etag {
            request = request.header(http::header::IF_NONE_MATCH, etag);
        }
        let request = request
            .body(kube::client::Body::empty())
            .map_err(|e| Failure::Final(ApiError::Other(0, e.to_string())))?;
        let response = self.client.send(request).await.map_err(|e| {
            if unprocessed(&e) {
                Failure::Unprocessed(classify(e))
            } else {
                Failure::Final(classify(e))
            }
        })?;
        let status = response.status();
        let (etag, retry_after) = {
            let header = |name: http::header::HeaderName| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            (
                header(http::header::ETAG),
                header(http::header::RETRY_AFTER),
            )
        };
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| Failure::Final(classify(e)))?
            .to_bytes();
        if status.is_success() || status == http::StatusCode::NOT_MODIFIED {
            return Ok(Answer {
                status: status.as_u16(),
                etag,
                body,
            });
        }
        let error = status_error(status.as_u16(), &body);
        if matches!(status.as_u16(), 429 | 503) {
            let wait = retry_after
                .and_then(|s| s.trim().parse::<u64>().ok())
                .map_or(Duration::from_secs(1), Duration::from_secs);
            return Err(Failure::Busy(wait, error));
        }
        Err(Failure::Final(error))
    }
}

impl Reader for Api {
    async fn page(
        &self,
        read: &Read,
        limit: usize,
        continue_token: Option<&str>,
    ) -> Result<Page, ApiError> {
        let path = read.page_path(limit, continue_token);
        let answer = self.fetch(&path, Some(read.accept()), None).await?;
        let list =
            super::trim::list(&answer.body, read.wants_managed_fields()).map_err(not_json)?;
        Ok(Page {
            items: list.items,
            resource_version: list.resource_version,
            continue_token: list.continue_token.filter(|t| !t.is_empty()),
        })
    }

    async fn get(&self, read: &Read) -> Result<Option<Value>, ApiError> {
        match self.fetch(&read.path(), Some(read.accept()), None).await {
            Ok(answer) => super::trim::object(&answer.body, read.wants_managed_fields())
                .map(Some)
                .map_err(not_json),
            Err(ApiError::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A failed request: worth another try after a wait, at once, or not.
enum Failure {
    Busy(Duration, ApiError),
    /// The server did not process it: it closed the connection first (an
    /// HTTP/2 GOAWAY, as kube-apiserver sends to a client whose credentials
    /// it refused, or a kept-alive connection closed as it was reused).
    Unprocessed(ApiError),
    Final(ApiError),
}

/// Whether an error says the request never reached the server's handler,
/// found by the types of its causes, not their wording.
fn unprocessed(err: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(h2) = err.downcast_ref::<h2::Error>()
        && (h2.is_go_away() || h2.reason() == Some(h2::Reason::REFUSED_STREAM))
    {
        return true;
    }
    if let Some(hyper) = err.downcast_ref::<hyper::Error>()
        && (hyper.is_canceled() || hyper.is_incomplete_message())
    {
        return true;
    }
    err.source().is_some_and(unprocessed)
}

/// Parses a JSON body.
pub fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(not_json)
}

fn not_json(e: serde_json::Error) -> ApiError {
    ApiError::Other(0, format!("the server's answer is not valid JSON: {e}"))
}

/// An error status and the server's `Status` message, if it sent one. A
/// 404 names the object when the object is missing; a 404 for a type the
/// server does not serve names nothing ("the server could not find the
/// requested resource").
fn status_error(code: u16, body: &[u8]) -> ApiError {
    let status = serde_json::from_slice::<kube::core::Status>(body).ok();
    if code == 404 {
        let names_object = status
            .as_ref()
            .and_then(|s| s.details.as_ref())
            .is_some_and(|d| !d.name.is_empty());
        return if names_object {
            ApiError::Missing
        } else {
            ApiError::NotFound
        };
    }
    let message = status.map(|s| s.message).unwrap_or_else(|| {
        String::from_utf8_lossy(body)
            .trim()
            .chars()
            .take(300)
            .collect()
    });
    match code {
        403 => ApiError::Forbidden(message),
        401 => ApiError::Unauthorized(message),
        410 => ApiError::Gone,
        504 => ApiError::Timeout,
        code => ApiError::Other(code, message),
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
            if is_tls(&other) {
                ApiError::Tls(text)
            } else if text.contains("timed out") || text.contains("deadline") {
                ApiError::Timeout
            } else {
                ApiError::Unreachable(text)
            }
        }
    }
}

/// Whether a TLS error (from rustls, possibly inside an I/O error) is
/// among the causes: found by its type, not its wording.
fn is_tls(err: &(dyn std::error::Error + 'static)) -> bool {
    if err.downcast_ref::<rustls::Error>().is_some() {
        return true;
    }
    // An I/O error's `source` skips the error it wraps: look inside.
    if let Some(io) = err.downcast_ref::<std::io::Error>()
        && let Some(inner) = io.get_ref()
        && is_tls(inner)
    {
        return true;
    }
    err.source().is_some_and(is_tls)
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
