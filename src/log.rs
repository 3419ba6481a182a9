//! `-v N`: what the tool asked the server, on stderr, in kubectl's manner.
//! Level 6 logs each request (method, URL, status, milliseconds); level 8
//! adds the request headers the tool sets, with credentials masked. The
//! level is set once by `main`; nothing is logged at 0 (the default).

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

static LEVEL: AtomicU8 = AtomicU8::new(0);

/// What the log says of every request on one connection: the server's
/// base URL and the headers the client adds (credentials masked when
/// logged). Each client has its own: a fleet answer talks to many servers.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub base: String,
    pub headers: Vec<(String, String)>,
}

impl Connection {
    pub fn new(base: &str, headers: Vec<(String, String)>) -> Connection {
        Connection {
            base: base.trim_end_matches('/').to_string(),
            headers,
        }
    }
}

/// Requests: method, URL, status and time.
pub const REQUESTS: u8 = 6;
/// Request headers too.
pub const HEADERS: u8 = 8;

pub fn set_level(level: u8) {
    LEVEL.store(level, Ordering::Relaxed);
}

pub fn enabled(level: u8) -> bool {
    LEVEL.load(Ordering::Relaxed) >= level
}

/// After a request: the round-trip line at level 6 (`status`: the HTTP
/// status as kubectl prints it, or what stopped the request), then at level 8 the
/// headers it was sent with (printed together, so that concurrent requests
/// do not interleave).
pub fn response(
    connection: &Connection,
    method: &str,
    path: &str,
    accept: Option<&str>,
    (status, content_type): (&str, Option<&str>),
    took: Duration,
) {
    if !enabled(REQUESTS) {
        return;
    }
    let (base, fixed) = (connection.base.as_str(), connection.headers.as_slice());
    let mut lines = vec![request_line(method, &format!("{base}{path}"), status, took)];
    if enabled(HEADERS) {
        let accept = accept.unwrap_or("application/json");
        lines.extend(
            std::iter::once(("Accept", accept))
                .chain(fixed.iter().map(|(n, v)| (n.as_str(), v.as_str())))
                .map(|(n, v)| header_line(n, v)),
        );
        // Which encoding came (a metadata-only list's protobuf, or JSON).
        if let Some(t) = content_type {
            let line = format!("Response Header: \"Content-Type: {t}\"");
            lines.push(crate::escape::escape(&line).into_owned());
        }
    }
    // The request log is stderr's, as kubectl's `-v` is.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{}", lines.join("\n"));
    }
}

/// At level 6, beside the requests, why the tool makes the ones that
/// follow (escaped: it names objects from the cluster).
pub fn why_requests(message: &str) {
    if !enabled(REQUESTS) {
        return;
    }
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{}", crate::escape::escape(message));
    }
}

/// `GET https://host/api/v1/pods 200 OK in 12 milliseconds`, kubectl's
/// round-trip line. `status` is the HTTP status, or what went wrong.
pub fn request_line(method: &str, url: &str, status: &str, took: Duration) -> String {
    crate::escape::escape(&format!(
        "{method} {url} {status} in {} milliseconds",
        took.as_millis()
    ))
    .into_owned()
}

/// `Request Header: "Accept: application/json"`, credentials masked.
pub fn header_line(name: &str, value: &str) -> String {
    crate::escape::escape(&format!(
        "Request Header: \"{name}: {}\"",
        masked(name, value)
    ))
    .into_owned()
}

/// Credentials never reach the log: `Authorization: Bearer <masked>`, as
/// kubectl prints it, and the whole value of other secret headers.
pub fn masked(name: &str, value: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        return match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} <masked>"),
            None => "<masked>".into(),
        };
    }
    if lower.contains("token") || lower.contains("cookie") || lower.contains("secret") {
        return "<masked>".into();
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_masked() {
        assert_eq!(masked("Authorization", "Bearer abc.def"), "Bearer <masked>");
        assert_eq!(
            masked("authorization", "Basic dXNlcjpwdw=="),
            "Basic <masked>"
        );
        assert_eq!(masked("X-Auth-Token", "abc"), "<masked>");
        assert_eq!(masked("Cookie", "session=abc"), "<masked>");
        assert_eq!(masked("Accept", "application/json"), "application/json");
        assert_eq!(
            header_line("Authorization", "Bearer abc"),
            "Request Header: \"Authorization: Bearer <masked>\""
        );
    }

    #[test]
    fn request_lines_read_like_kubectl() {
        assert_eq!(
            request_line(
                "GET",
                "https://h/api/v1/pods?limit=500",
                "200 OK",
                Duration::from_millis(12)
            ),
            "GET https://h/api/v1/pods?limit=500 200 OK in 12 milliseconds"
        );
    }
}
