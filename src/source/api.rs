//! The only place that sends requests: GETs of JSON with a deadline each,
//! and API errors turned into a small set of causes a user can act on.

use std::time::Duration;

use serde_json::Value;

use super::read::{ApiError, MAX_ANSWER};
use super::read::{Page, Read, Reader, status_text};

/// One event of a watch, or why it could not be read.
pub type WatchItem = Result<kube::core::WatchEvent<Value>, ApiError>;

/// The most bytes one watch event may have: an object is at most 1.5 MiB
/// in etcd, and a line that never ends stops here.
pub const MAX_WATCH_LINE: usize = 16 << 20;

/// A client with a deadline on every request.
#[derive(Clone)]
pub struct Api {
    client: kube::Client,
    /// Another client on a connection of its own (none in tests).
    another: Option<super::client::NewClient>,
    timeout: Duration,
    /// What `-v` says of each request.
    logged: std::sync::Arc<crate::log::Connection>,
    /// How fresh each group version's lists must be (see
    /// [`super::freshness`]): shared by every clone, one per command.
    floors: std::sync::Arc<super::freshness::Floors>,
    /// Whether lists may ask for a floor: not those of a watch, which
    /// lists again minutes later (see [`Api::consistent`]).
    floored: bool,
}

/// Accept header for aggregated discovery.
pub const AGGREGATED_DISCOVERY: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// How often a request the server turned away for load (429, 503) is
/// tried again, and the longest wait between tries it will honour. Every
/// wait still counts against the command's own deadline.
const RETRIES: u32 = 3;
const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// A successful answer: its status (200 or 304), ETag, content type and
/// body.
pub struct Answer {
    pub status: u16,
    pub etag: Option<String>,
    pub content_type: Option<String>,
    pub body: bytes::Bytes,
}

impl Api {
    pub fn new(client: kube::Client, timeout: Duration) -> Api {
        Api {
            client,
            another: None,
            timeout,
            logged: Default::default(),
            floors: Default::default(),
            floored: true,
        }
    }

    /// The client of a connection made from a kubeconfig, its requests
    /// logged with its server's URL.
    pub fn of(connected: &super::client::Connected, timeout: Duration) -> Api {
        Api {
            logged: connected.logged.clone(),
            ..Api::new(connected.client.clone(), timeout)
        }
    }

    /// With a way to open more connections (see [`Api::on_another_connection`]).
    pub fn with_more_connections(mut self, another: super::client::NewClient) -> Api {
        self.another = Some(another);
        self
    }

    /// The same client, its every list a consistent read: for a watch,
    /// whose lists after an expiry (or every few seconds, where it may not
    /// watch) must not go back to the command's first version.
    pub fn consistent(&self) -> Api {
        Api {
            floored: false,
            ..self.clone()
        }
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
    /// when the server closes it or the connection breaks. Each event is one
    /// line of at most [`MAX_WATCH_LINE`] bytes: a line that never ends is
    /// an error, not a buffer that grows.
    pub async fn watch(
        &self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<impl futures::Stream<Item = WatchItem> + use<>, ApiError> {
        let started = std::time::Instant::now();
        let result =
            match tokio::time::timeout(self.timeout, self.open_watch(path_and_query, accept)).await
            {
                Err(_) => Err(ApiError::Timeout),
                Ok(r) => r,
            };
        let error = result.as_ref().err();
        // The Accept that was sent (a metadata-only watch's, for one).
        crate::log::response(
            &self.logged,
            "GET",
            path_and_query,
            Some(accept),
            (&status_text(error), None),
            started.elapsed(),
        );
        result
    }

    async fn open_watch(
        &self,
        path_and_query: &str,
        accept: &str,
    ) -> Result<impl futures::Stream<Item = WatchItem> + use<>, ApiError> {
        use futures::{StreamExt, TryStreamExt};
        use http_body_util::BodyExt;
        use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};
        // Uncompressed, as kube asks: newer servers gzip a watch one member
        // per event, which the decompression layer reads only the first of.
        let request = http::Request::get(path_and_query)
            .header(http::header::ACCEPT, accept)
            .header(http::header::ACCEPT_ENCODING, "identity")
            .body(kube::client::Body::empty())
            .map_err(|e| ApiError::Other(0, e.to_string()))?;
        let response = self.client.send(request).await.map_err(classify)?;
        let status = response.status();
        if !status.is_success() {
            let body = http_body_util::Limited::new(response.into_body(), MAX_ANSWER)
                .collect()
                .await
                .map_err(|e| body_error(e, path_and_query))?
                .to_bytes();
            return Err(status_error(status.as_u16(), &body));
        }
        let bytes = response.into_body().into_data_stream().map_err(|e| {
            // A watch the server or the network ended: resumable.
            std::io::Error::new(std::io::ErrorKind::UnexpectedEof, e)
        });
        let lines = FramedRead::new(
            tokio_util::io::StreamReader::new(bytes),
            LinesCodec::new_with_max_length(MAX_WATCH_LINE),
        );
        Ok(lines.filter_map(|line| async move {
            match line {
                Ok(line) => match serde_json::from_str::<kube::core::WatchEvent<Value>>(&line) {
                    Ok(event) => Some(Ok(event)),
                    Err(e) if e.is_eof() => None,
                    Err(e) => Some(Err(
                        match serde_json::from_str::<kube::core::Status>(&line) {
                            Ok(status) => classify(kube::Error::Api(status.boxed())),
                            Err(_) => ApiError::Other(0, format!("a watch event is not JSON: {e}")),
                        },
                    )),
                },
                Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    None
                }
                Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => None,
                Err(LinesCodecError::Io(e)) => Some(Err(ApiError::Unreachable(e.to_string()))),
                Err(LinesCodecError::MaxLineLengthExceeded) => {
                    Some(Err(ApiError::TooLarge(format!(
                        "a watch event is longer than {} MiB, the most read from a server",
                        MAX_WATCH_LINE >> 20
                    ))))
                }
            }
        }))
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
                Err(_) => status_text(Some(&ApiError::Timeout)),
                Ok(Err(Failure::Busy(_, e) | Failure::Unprocessed(e) | Failure::Final(e))) => {
                    status_text(Some(e))
                }
                Ok(Ok(a)) if a.status == 304 => "304 Not Modified".to_string(),
                Ok(Ok(_)) => status_text(None),
            };
            let content_type = match &result {
                Ok(Ok(a)) => a.content_type.as_deref(),
                _ => None,
            };
            crate::log::response(
                &self.logged,
                "GET",
                path_and_query,
                accept,
                (&status, content_type),
                started.elapsed(),
            );
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
        let (etag, retry_after, content_type) = {
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
                header(http::header::CONTENT_TYPE),
            )
        };
        let body = http_body_util::Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| {
                // An answer cut off as the connection went (a GOAWAY, a
                // reset): the GET is sent again, as one never sent is.
                if unprocessed(e.as_ref()) {
                    Failure::Unprocessed(body_error(e, path_and_query))
                } else {
                    Failure::Final(body_error(e, path_and_query))
                }
            })?
            .to_bytes();
        if status.is_success() || status == http::StatusCode::NOT_MODIFIED {
            return Ok(Answer {
                status: status.as_u16(),
                etag,
                content_type,
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

impl Api {
    /// A first page asked no older than `floor`; asked again without it
    /// (and its group version never floored again) when the answer is one
    /// the floor may have caused. The answer, and the path that got it.
    async fn fetch_floored(
        &self,
        read: &Read,
        path: String,
        floor: &str,
    ) -> Result<(Answer, String), ApiError> {
        let floored = format!("{path}&{floor}");
        match self.fetch(&floored, Some(read.accept()), None).await {
            Ok(answer) => Ok((answer, floored)),
            Err(e) if super::freshness::may_be_refused(&e) => {
                self.floors.refuse(read);
                Ok((self.fetch(&path, Some(read.accept()), None).await?, path))
            }
            Err(e) => Err(e),
        }
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
        // A first page: no older than its group version's first list.
        let floor = (self.floored && continue_token.is_none())
            .then(|| self.floors.query(read))
            .flatten();
        let (answer, path) = match &floor {
            None => (self.fetch(&path, Some(read.accept()), None).await?, path),
            Some(floor) => self.fetch_floored(read, path, floor).await?,
        };
        let decoded = is_protobuf(&answer).then(|| super::protobuf::metadata_list(&answer.body));
        let list = match decoded {
            None => super::trim::list(&answer.body, read.writers()).map_err(not_json)?,
            Some(Ok(list)) => list,
            // What is not read here (text that is not UTF-8 in a field
            // other than an annotation, another kind of list, a page far
            // past its limit) is asked for again in JSON, once.
            Some(Err(e)) => {
                let again = self
                    .fetch(&path, Some(super::read::METADATA_LIST), None)
                    .await?;
                if is_protobuf(&again) {
                    return Err(ApiError::Other(
                        0,
                        format!("the server's protobuf answer cannot be read: {e}"),
                    ));
                }
                super::trim::list(&again.body, read.writers()).map_err(not_json)?
            }
        };
        if continue_token.is_none() && floor.is_none() {
            self.floors.learn(read, &list.resource_version);
        }
        Ok(Page {
            items: list.items,
            resource_version: list.resource_version,
            continue_token: list.continue_token.filter(|t| !t.is_empty()),
        })
    }

    async fn get(&self, read: &Read) -> Result<Option<Value>, ApiError> {
        match self.fetch(&read.path(), Some(read.accept()), None).await {
            Ok(answer) => super::trim::object(&answer.body, read.writers())
                .map(Some)
                .map_err(not_json),
            Err(ApiError::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Whether an answer is in the API server's protobuf.
fn is_protobuf(answer: &Answer) -> bool {
    answer
        .content_type
        .as_deref()
        .is_some_and(|t| t.starts_with(super::protobuf::CONTENT_TYPE))
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
    from_status(code, status.as_ref(), || {
        String::from_utf8_lossy(body)
            .trim()
            .chars()
            .take(300)
            .collect()
    })
}

/// The one mapping from an HTTP status (and the `metav1.Status` the server
/// sent, if any) to an [`ApiError`], for answers and watches alike.
/// `raw`: the message when there is no Status.
fn from_status(
    code: u16,
    status: Option<&kube::core::Status>,
    raw: impl FnOnce() -> String,
) -> ApiError {
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
    let message = status.map(|s| s.message.clone()).unwrap_or_else(raw);
    match code {
        403 => ApiError::Forbidden(message),
        401 => ApiError::Unauthorized(message),
        410 => ApiError::Gone,
        504 => ApiError::Timeout,
        code => ApiError::Other(code, message),
    }
}

/// A body that could not be read whole: too large (here or on the wire,
/// see `transport.rs`), or the connection's error.
fn body_error(err: tower::BoxError, path: &str) -> ApiError {
    let too_large = |e: &(dyn std::error::Error + 'static)| {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(c) = cause {
            if c.is::<http_body_util::LengthLimitError>() {
                return true;
            }
            cause = c.source();
        }
        false
    };
    if too_large(err.as_ref()) {
        return ApiError::TooLarge(format!(
            "the answer to {path} is larger than {} MiB, the most read from a server",
            MAX_ANSWER >> 20
        ));
    }
    // The server answered: a body cut off is this read's gap, not a
    // cluster out of reach.
    match err.downcast::<kube::Error>() {
        Ok(e) => match classify(*e) {
            ApiError::Unreachable(why) => {
                ApiError::Other(0, format!("the answer was cut off: {why}"))
            }
            other => other,
        },
        Err(e) => ApiError::Other(
            0,
            format!("the answer was cut off: {}", error_chain(e.as_ref())),
        ),
    }
}

fn classify(err: kube::Error) -> ApiError {
    match err {
        kube::Error::Api(status) => from_status(status.code, Some(&status), String::new),
        other => {
            let text = error_chain(&other);
            if let Some(failed) = cause::<super::credential::RenewalFailed>(&other) {
                ApiError::Credential(failed.0.clone())
            } else if is_tls(&other) {
                ApiError::Tls(text)
            } else if is_timeout(&other) {
                ApiError::Timeout
            } else if stream_reset(&other) {
                // One request reset, the connection alive: a gap in this
                // read, as a timeout on it is, not the end of the answer.
                ApiError::Other(0, format!("the server reset the request: {text}"))
            } else {
                ApiError::Unreachable(text)
            }
        }
    }
}

/// Whether HTTP/2 reset this one stream (not a GOAWAY of the connection).
fn stream_reset(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(h2) = e.downcast_ref::<h2::Error>() {
            return h2.is_reset() && !h2.is_go_away();
        }
        next = e.source();
    }
    false
}

/// Whether a time limit ended the request (a connect timeout is an I/O
/// error of kind `TimedOut`; a deadline of our own is tokio's `Elapsed`):
/// found by the causes' types, not their wording.
fn is_timeout(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(err);
    while let Some(e) = next {
        if e.is::<tokio::time::error::Elapsed>() {
            return true;
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::TimedOut {
                return true;
            }
            if let Some(inner) = io.get_ref()
                && is_timeout(inner)
            {
                return true;
            }
        }
        next = e.source();
    }
    false
}

/// Whether a TLS error (from rustls, possibly inside an I/O error) is
/// among the causes: found by its type, not its wording.
fn is_tls(err: &(dyn std::error::Error + 'static)) -> bool {
    cause::<rustls::Error>(err).is_some()
}

/// The first cause of type `T`, looking inside I/O errors too (an I/O
/// error's `source` skips the error it wraps).
fn cause<'a, T: std::error::Error + 'static>(
    err: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    if let Some(found) = err.downcast_ref::<T>() {
        return Some(found);
    }
    if let Some(io) = err.downcast_ref::<std::io::Error>()
        && let Some(inner) = io.get_ref()
        && let Some(found) = cause::<T>(inner)
    {
        return Some(found);
    }
    err.source().and_then(cause::<T>)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_and_a_watch_map_the_same_status_alike() {
        // A 404 that names its object is a missing object; one that does
        // not, a type the server does not serve: whichever path read it.
        let named = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"p\" not found","reason":"NotFound","details":{"name":"p","kind":"pods"},"code":404}"#;
        let bare = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}"#;
        for (body, want) in [(named, ApiError::Missing), (bare, ApiError::NotFound)] {
            assert_eq!(status_error(404, body.as_bytes()), want);
            let status: kube::core::Status = serde_json::from_str(body).unwrap();
            assert_eq!(classify(kube::Error::Api(status.boxed())), want);
        }
        let forbidden = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","reason":"Forbidden","code":403}"#;
        let status: kube::core::Status = serde_json::from_str(forbidden).unwrap();
        assert_eq!(
            classify(kube::Error::Api(status.boxed())),
            status_error(403, forbidden.as_bytes())
        );
    }

    #[test]
    fn a_time_limit_is_told_by_the_error_type_not_its_words() {
        // hyper-util's connect timeout: an I/O error of kind TimedOut,
        // inside another I/O error, whatever it says.
        let connect = std::io::Error::other(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "tcp connect error",
        ));
        assert!(is_timeout(&connect));
        // Words alone are not a timeout.
        let refused = std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "upstream deadline timed out",
        );
        assert!(!is_timeout(&refused));
        assert_eq!(
            classify(kube::Error::Service(Box::new(refused))),
            ApiError::Unreachable("ServiceError: upstream deadline timed out".into())
        );
        assert_eq!(
            classify(kube::Error::Service(Box::new(connect))),
            ApiError::Timeout
        );
    }

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
}
