//! The fake API server of the tests, on 127.0.0.1, std only: a listener
//! that never answers, a port that refuses connections, one that sends
//! headers and then stalls, and one that answers each request as the test
//! says (whole, or in chunks as a watch), recording every request it was
//! sent (path and headers); with the pieces of answers the tests share
//! (discovery, a `Status`) and a kubeconfig that points at it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the fake server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    /// The request line and the headers, as sent (CRLF line ends).
    pub headers: String,
}

impl Seen {
    /// The value of the header `name` (any case), trimmed; the first if it
    /// was sent more than once.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// A server on 127.0.0.1; it lives as long as the test process.
pub struct Fake {
    pub port: u16,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn listen() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1")
}

/// Accepts connections and never reads or writes a byte.
pub fn silent() -> Fake {
    let listener = listen();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    Fake {
        port,
        seen: Arc::default(),
    }
}

/// A port nothing listens on: connections are refused.
pub fn refusing() -> Fake {
    let port = listen().local_addr().unwrap().port();
    Fake {
        port,
        seen: Arc::default(),
    }
}

/// Reads the request, sends a 200's headers and the first byte of the
/// body, then nothing more.
pub fn stalls_after_headers() -> Fake {
    serve(|_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
        );
        let _ = stream.flush();
        std::thread::sleep(Duration::from_secs(600));
        false
    })
}

/// Answers every request with `respond(path)`: (status, JSON body), or
/// never, for `None`.
pub fn answering(respond: impl Fn(&str) -> Option<(u16, String)> + Send + Sync + 'static) -> Fake {
    serve(move |req, stream| {
        let Some((status, body)) = respond(&req.path) else {
            std::thread::sleep(Duration::from_secs(600));
            return false;
        };
        reply(stream, status, &body)
    })
}

/// Writes one whole response; whether the connection still works.
pub fn reply(stream: &mut TcpStream, status: u16, body: &str) -> bool {
    let reply = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).is_ok()
}

/// Writes one whole response in chunks, one for each of `chunks` that is
/// not empty, then the last chunk, as a watch ends when the server's
/// timeout comes; whether the connection still works.
pub fn reply_chunked(stream: &mut TcpStream, status: u16, chunks: &[&str]) -> bool {
    let mut reply = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    for chunk in chunks.iter().filter(|c| !c.is_empty()) {
        reply.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    reply.push_str("0\r\n\r\n");
    stream.write_all(reply.as_bytes()).is_ok()
}

/// Runs `handle` for every request on every connection; it returns whether
/// the connection may carry another request.
pub fn serve(handle: impl Fn(&Seen, &mut TcpStream) -> bool + Send + Sync + 'static) -> Fake {
    let listener = listen();
    let port = listener.local_addr().unwrap().port();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let handle = Arc::new(handle);
    let record = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let handle = handle.clone();
            let record = record.clone();
            std::thread::spawn(move || {
                while let Some(req) = read_request(&mut stream) {
                    record.lock().unwrap().push(req.clone());
                    if !handle(&req, &mut stream) {
                        break;
                    }
                }
            });
        }
    });
    Fake { port, seen }
}

/// The request line's path and the headers; the client sends no bodies.
fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
        if buf.len() > 64 * 1024 {
            return None;
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let path = text.split_whitespace().nth(1)?.to_string();
    Some(Seen {
        path,
        headers: text,
    })
}

/// A kubeconfig for `server` whose user authenticates with `user` (YAML of
/// the kubeconfig `user:` field) in `namespace`, written as `dir/kubeconfig`.
/// An `https://` server's certificate is not checked (the fake servers
/// have none worth checking).
pub fn kubeconfig(dir: &Path, server: &str, user: &str, namespace: &str) -> PathBuf {
    let user: String = user.lines().map(|l| format!("    {l}\n")).collect();
    let tls = if server.starts_with("https://") {
        "\n    insecure-skip-tls-verify: true"
    } else {
        ""
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {server}{tls}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: u\n    namespace: {namespace}\ncurrent-context: fake\nusers:\n- name: u\n  user:\n{user}"
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path
}

/// A `metav1.Status` failure, as the API server writes it.
pub fn status(code: u16, reason: &str, message: &str) -> String {
    serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code,
    })
    .to_string()
}

/// Aggregated discovery for `/api` and `/apis`: the core group with pods,
/// and example.com/v1 with namespaced Widgets.
pub fn discovery(path: &str) -> Option<String> {
    match path.split('?').next()? {
        "/api" => Some(group_discovery("", "v1", &[("pods", "Pod")])),
        "/apis" => Some(group_discovery(
            "example.com",
            "v1",
            &[("widgets", "Widget")],
        )),
        _ => None,
    }
}

/// Aggregated discovery of one group version whose namespaced types (plural,
/// kind) have a status and may be listed and watched.
pub fn group_discovery(group: &str, version: &str, types: &[(&str, &str)]) -> String {
    let resources: Vec<serde_json::Value> = types
        .iter()
        .map(|(plural, kind)| {
            serde_json::json!({"resource": plural, "responseKind": {"group": "", "version": "", "kind": kind},
                "scope": "Namespaced", "singularResource": kind.to_ascii_lowercase(),
                "verbs": ["get", "list", "watch"], "subresources": [{"subresource": "status", "verbs": ["get"]}]})
        })
        .collect();
    serde_json::json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
        "items": [{"metadata": {"name": group}, "versions": [{"version": version, "resources": resources}]}]})
    .to_string()
}
