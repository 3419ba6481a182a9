//! Exec credential plugins that hang, fail or answer: the plugin runs under
//! the request deadline, its failure is one clean line naming it, and
//! nothing it started outlives the command.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::fake_api as fake;
use crate::common::run::bin;
use crate::network::HOSTILE;
use crate::{kubeconfig, run};

/// An executable shell script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn exec_user(plugin: &Path) -> String {
    format!(
        "exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: {}\n  interactiveMode: Never",
        plugin.display()
    )
}

#[test]
fn a_plugin_that_hangs_ends_every_command_in_time() {
    let dir = crate::scratch();
    // Not `exec sleep`: the sleep is the plugin's child, and must die too.
    let pids = dir.path().join("sleep.pids");
    let plugin = script(
        dir.path(),
        "hanging-plugin",
        &format!(
            "sleep 300 &\necho $! >> {}\nwait\necho never",
            pids.display()
        ),
    );
    let server = fake::answering(|_| Some((500, fake::status(500, "InternalError", "unreached"))));
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let kc = kc.to_str().unwrap();
    for cmd in [
        &["status", "pods/p"][..],
        &["tree", "pods/p"],
        &["why"],
        &["wait", "pods/p", "--timeout", "10s"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--kubeconfig", kc, "--request-timeout", "2s"]);
        let out = run(dir.path(), &args, Duration::from_secs(30));
        out.assert(2, Duration::from_secs(5));
        assert!(
            out.stderr.starts_with(&format!(
                "error: the credential plugin \"{}\" did not answer within 2s\nhint: ",
                plugin.display()
            )),
            "{args:?}: {}",
            out.stderr
        );
    }
    assert!(
        server.seen.lock().unwrap().is_empty(),
        "nothing was sent without credentials"
    );
    let pids = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(pids.lines().count(), 4, "{pids}");
    for pid in pids.lines() {
        assert!(gone(pid), "the plugin's child {pid} still runs");
    }

    // --version still answers, within its own two seconds.
    let out = run(
        dir.path(),
        &["--version", "--kubeconfig", kc],
        Duration::from_secs(30),
    );
    out.assert(0, Duration::from_secs(4));
    assert!(
        out.stdout
            .contains("Server Version: unknown (the credential plugin"),
        "{}",
        out.stdout
    );

    // So does completion, with nothing to offer.
    let out = run(
        dir.path(),
        &["__complete", "status", "--kubeconfig", kc, "pods/"],
        Duration::from_secs(30),
    );
    out.assert(0, Duration::from_secs(5));
}

/// Whether process `pid` has ended (a zombie waiting to be reaped counts),
/// allowing a moment for the kill to land.
fn gone(pid: &str) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

#[test]
fn a_failing_plugin_says_so_in_one_clean_line() {
    let dir = crate::scratch();
    let plugin = script(
        dir.path(),
        "failing-plugin",
        &format!(
            "echo '{{\"partial\": ' \nprintf 'reading cache\\n{HOSTILE}: token expired\\n' >&2\nexit 3"
        ),
    );
    let server = fake::answering(|_| Some((500, fake::status(500, "InternalError", "unreached"))));
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(3));
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stderr);
    assert!(
        lines[0].starts_with(&format!(
            "error: the credential plugin \"{}\" failed (exit status: 3): ",
            plugin.display()
        )),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(r"\u{200b}end: token expired"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("hint: "), "{}", lines[1]);
    assert!(!out.stderr.contains("Output {"), "no debug output");
}

#[test]
fn a_missing_plugin_names_it_with_its_install_hint() {
    let dir = crate::scratch();
    let user = "exec:\n  apiVersion: client.authentication.k8s.io/v1\n  command: no-such-credential-plugin\n  installHint: install it with your package manager\n  interactiveMode: Never";
    let kc = kubeconfig(dir.path(), "http://127.0.0.1:1", user);
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(3));
    assert!(
        out.stderr
            .starts_with("error: cannot run the credential plugin \"no-such-credential-plugin\""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("\nhint: install it with your package manager"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_working_plugin_token_is_sent() {
    let dir = crate::scratch();
    let plugin = script(
        dir.path(),
        "working-plugin",
        r#"case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) exit 9;; esac
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'"#,
    );
    let server = fake::answering(|_| Some((403, fake::status(403, "Forbidden", "no rights"))));
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(3));
    let seen = server.seen.lock().unwrap();
    assert!(!seen.is_empty(), "{}", out.stderr);
    for req in seen.iter() {
        assert!(
            req.headers
                .to_ascii_lowercase()
                .contains("authorization: bearer from-plugin\r\n"),
            "{}",
            req.headers
        );
    }
}

/// A plugin token that runs out while the command runs (a slow server and
/// a short-lived token) is asked for again before it ends: later requests
/// carry the new one, and the answer is whole.
#[test]
fn a_plugin_token_near_its_end_is_renewed() {
    let dir = crate::scratch();
    let count = dir.path().join("count");
    let plugin = script(
        dir.path(),
        "short-lived",
        &format!(
            r#"n=$(($(cat {count} 2>/dev/null || echo 0) + 1)); echo $n > {count}
end=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)
echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"t'$n'","expirationTimestamp":"'$end'"}}}}'"#,
            count = count.display()
        ),
    );
    let server = fake::serve(|req, stream| {
        if let Some(body) = fake::discovery(&req.path) {
            // Slow enough for the first token to near its end.
            std::thread::sleep(Duration::from_secs(3));
            return fake::reply(stream, 200, &body);
        }
        fake::reply(
            stream,
            404,
            &fake::status(404, "NotFound", "pods \"p\" not found"),
        )
    });
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    let seen = server.seen.lock().unwrap();
    let bearer = |wanted: &dyn Fn(&str) -> bool| -> Vec<String> {
        seen.iter()
            .filter(|r| wanted(r.path.split('?').next().unwrap_or("")))
            .filter_map(|r| {
                r.headers.lines().find_map(|l| {
                    let (name, value) = l.split_once(": ")?;
                    (name.eq_ignore_ascii_case("authorization"))
                        .then(|| value.trim_start_matches("Bearer ").to_string())
                })
            })
            .collect()
    };
    let discovery = bearer(&|p| p == "/api" || p == "/apis");
    assert_eq!(discovery, ["t1", "t1"], "{}", out.stderr);
    let later = bearer(&|p| p.starts_with("/api/v1/namespaces/"));
    assert!(!later.is_empty(), "{}", out.stderr);
    assert!(later.iter().all(|t| t == "t2"), "{later:?}\n{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&count).unwrap().trim(), "2");
}

#[test]
fn a_plugin_that_writes_without_end_is_cut_off() {
    // `yes` as a credential plugin: the output is bounded, the plugin is
    // stopped, and the command ends with one line naming it.
    let dir = crate::scratch();
    let plugin = script(dir.path(), "chatty-plugin", "exec yes");
    let server = fake::answering(|_| Some((500, fake::status(500, "InternalError", "unreached"))));
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out = run(
        dir.path(),
        &["status", "pods/p", "--kubeconfig", kc.to_str().unwrap()],
        Duration::from_secs(30),
    );
    out.assert(2, Duration::from_secs(5));
    assert!(
        out.stderr.contains("wrote more than 1024 KiB on stdout"),
        "{}",
        out.stderr
    );
    assert!(out.peak_kib < 200 * 1024, "peak {} KiB", out.peak_kib);
}

/// A plugin that starts a child, says where, and hangs; `before` runs first.
fn hanging(dir: &Path, before: &str) -> (PathBuf, PathBuf) {
    let pids = dir.join("sleep.pids");
    let plugin = script(
        dir,
        "hanging-plugin",
        &format!("{before}\nsleep 300 &\necho $! >> {}\nwait", pids.display()),
    );
    (plugin, pids)
}

#[test]
fn a_plugin_still_running_when_wait_times_out_is_stopped_with_its_children() {
    // `wait --timeout` ends the command before the plugin's own deadline
    // (--request-timeout, 20 s): what the plugin started ends with it.
    let dir = crate::scratch();
    let (plugin, pids) = hanging(dir.path(), "");
    let server = fake::answering(|_| Some((500, fake::status(500, "InternalError", "unreached"))));
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out = run(
        dir.path(),
        &[
            "wait",
            "pods/p",
            "--timeout",
            "3s",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ],
        Duration::from_secs(30),
    );
    assert!(out.took < Duration::from_secs(8), "{:?}", out.took);
    assert_ne!(out.code, 0, "{}", out.stderr);
    let pids = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(pids.lines().count(), 1, "{pids}");
    for pid in pids.lines() {
        assert!(gone(pid), "the plugin's child {pid} still runs");
    }
}

#[test]
fn an_interactive_plugin_stopped_at_its_deadline_leaves_the_terminal_as_it_was() {
    // A plugin that asks for a password turns echo off; stopped at its
    // deadline, its children end with it and echo is on again.
    let dir = crate::scratch();
    let (plugin, pids) = hanging(dir.path(), "stty -echo");
    let user = exec_user(&plugin).replace("interactiveMode: Never", "interactiveMode: IfAvailable");
    let kc = kubeconfig(dir.path(), "http://127.0.0.1:1", &user);
    // `script` gives the command a terminal; `stty -a` then reads it.
    let command = format!(
        "{} status pods/p --kubeconfig {} --request-timeout 2s; echo exit=$?; stty -a",
        bin().display(),
        kc.display()
    );
    let started = std::time::Instant::now();
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("HOME", dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script (util-linux)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(started.elapsed() < Duration::from_secs(10), "{text}");
    assert!(
        text.contains("did not answer within 2s") && text.contains("exit=2"),
        "{text}"
    );
    let flags: Vec<&str> = text.split_whitespace().collect();
    assert!(
        flags.contains(&"echo") && !flags.contains(&"-echo"),
        "echo is still off:\n{text}"
    );
    let pids = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(pids.lines().count(), 1, "{pids}");
    for pid in pids.lines() {
        assert!(gone(pid), "the plugin's child {pid} still runs");
    }
}

#[test]
fn a_watch_names_the_plugin_when_its_token_cannot_be_renewed() {
    // The first token lasts 2 s; every later run of the plugin fails. The
    // watch goes on showing the last state and says which plugin failed,
    // and why, instead of "connection lost".
    let dir = crate::scratch();
    let count = dir.path().join("count");
    let plugin = script(
        dir.path(),
        "expiring-plugin",
        &format!(
            r#"n=$(($(cat {count} 2>/dev/null || echo 0) + 1)); echo $n > {count}
[ $n -gt 1 ] && {{ echo 'refresh token expired' >&2; exit 1; }}
end=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)
echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"t1","expirationTimestamp":"'$end'"}}}}'"#,
            count = count.display()
        ),
    );
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"5","creationTimestamp":"2026-01-10T10:00:00Z"},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#;
    let server = fake::serve(move |req, stream| {
        if let Some(doc) = fake::discovery(&req.path) {
            return fake::reply(stream, 200, &doc);
        }
        if req.path.contains("watch=") {
            // Ends at once: the watch is opened again, with a new token.
            return fake::reply(stream, 200, "");
        }
        let path = req.path.split('?').next().unwrap_or("");
        if path.ends_with("/pods/p") {
            return fake::reply(stream, 200, pod);
        }
        let items = if path.ends_with("/pods") { pod } else { "" };
        fake::reply(
            stream,
            200,
            &format!(
                r#"{{"kind":"List","apiVersion":"v1","metadata":{{"resourceVersion":"5"}},"items":[{items}]}}"#
            ),
        )
    });
    let kc = kubeconfig(dir.path(), &server.url(), &exec_user(&plugin));
    let out_file = dir.path().join("out");
    let mut child = std::process::Command::new(bin())
        .args([
            "status",
            "pods/p",
            "-n",
            "default",
            "--watch",
            "--kubeconfig",
            kc.to_str().unwrap(),
        ])
        .env("HOME", dir.path())
        .env("KUBECACHEDIR", dir.path().join("cache"))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    // The fake server's watches end at once, so a line may first say
    // that (after three in a row); the line that matters names the plugin.
    let said = loop {
        let text = std::fs::read_to_string(&out_file).unwrap_or_default();
        if text.contains("credential plugin") || started.elapsed() > Duration::from_secs(20) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(said.contains("Converged"), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("retrying") && l.contains("credential plugin"))
        .unwrap_or_else(|| panic!("no outage line names the plugin:\n{said}"));
    assert!(
        line.contains(&format!(
            "the credential plugin \"{}\" failed",
            plugin.display()
        )) && line.contains("refresh token expired")
            && !line.contains("connection to the API server lost"),
        "{line}"
    );
}
