//! Exec credential plugins (a kubeconfig user's `exec:`), run here under the
//! request deadline: kube would run them while building the client, where
//! nothing can stop one that never answers.
//!
//! The plugin protocol is client-go's: `KUBERNETES_EXEC_INFO` in the
//! environment, an `ExecCredential` (JSON or YAML) on stdout with a token or
//! a client certificate. Interactive only when stdin is a terminal and the
//! kubeconfig allows it; otherwise the plugin runs in its own process group,
//! so a plugin that hangs is killed with its children.

use std::process::Stdio;
use std::time::Duration;

use anyhow::{anyhow, bail};
use jiff::Timestamp;
use kube::config::{ExecConfig, ExecInteractiveMode};
use serde_json::{Value, json};

/// What a plugin answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    Token {
        token: String,
        expires: Option<Timestamp>,
    },
    /// PEM blocks.
    Certificate {
        cert: String,
        key: String,
        expires: Option<Timestamp>,
    },
}

/// A renewal of a plugin's token that failed: the plugin's error, whole.
/// Carried through the HTTP stack so that the answer names the plugin
/// instead of "unreachable".
#[derive(Debug)]
pub struct RenewalFailed(pub String);

impl std::fmt::Display for RenewalFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenewalFailed {}

/// A token from an exec plugin that is run again before the token expires,
/// at four fifths of its lifetime, so that a long `--watch` or `wait` keeps
/// working past a short-lived token (15 minutes on some clouds). A token
/// without an expiry is kept.
pub struct ExecToken {
    exec: ExecConfig,
    deadline: Duration,
    held: tokio::sync::Mutex<Held>,
}

struct Held {
    token: String,
    refresh_at: Option<Timestamp>,
}

/// A token is used at least this long before the plugin runs again, even
/// when it says it has already expired (a plugin with a wrong clock would
/// otherwise run on every request).
const MIN_TOKEN_REUSE: jiff::SignedDuration = jiff::SignedDuration::from_secs(1);

impl Held {
    fn new(token: String, expires: Option<Timestamp>, now: Timestamp) -> Held {
        let refresh_at = expires.map(|end| {
            let life = end.duration_since(now);
            let at = now.checked_add(life.mul_f64(0.8)).unwrap_or(end);
            at.max(now.checked_add(MIN_TOKEN_REUSE).unwrap_or(now))
        });
        Held { token, refresh_at }
    }
}

impl ExecToken {
    /// The token a first run of `exec` gave.
    pub fn new(
        exec: ExecConfig,
        deadline: Duration,
        token: String,
        expires: Option<Timestamp>,
    ) -> ExecToken {
        ExecToken {
            exec,
            deadline,
            held: tokio::sync::Mutex::new(Held::new(token, expires, Timestamp::now())),
        }
    }

    /// The token to send now, from a new run of the plugin when the held
    /// one is near its end.
    pub async fn token(&self) -> anyhow::Result<String> {
        let mut held = self.held.lock().await;
        let now = Timestamp::now();
        if held.refresh_at.is_some_and(|at| now >= at) {
            match run(&self.exec, self.deadline).await? {
                Credential::Token { token, expires } => *held = Held::new(token, expires, now),
                Credential::Certificate { .. } => bail!(
                    "the credential plugin gave a client certificate where it gave a token before; run the command again"
                ),
            }
        }
        Ok(held.token.clone())
    }
}

/// Runs the plugin and reads its credential, or says in one line why not;
/// a plugin still running after `deadline` is killed.
pub async fn run(exec: &ExecConfig, deadline: Duration) -> anyhow::Result<Credential> {
    let Some(program) = exec.command.as_deref().filter(|c| !c.is_empty()) else {
        bail!("the kubeconfig user's exec credential plugin has no command");
    };
    let name = format!("\"{program}\"");
    let interactive = exec.interactive_mode != Some(ExecInteractiveMode::Never)
        && std::io::IsTerminal::is_terminal(&std::io::stdin());
    if exec.interactive_mode == Some(ExecInteractiveMode::Always) && !interactive {
        bail!(
            "the credential plugin {name} needs a terminal to ask for credentials (interactiveMode: Always)\nhint: run it once in a terminal, or log in by other means"
        );
    }
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(exec.args.iter().flatten());
    for var in exec.env.iter().flatten() {
        if let (Some(k), Some(v)) = (var.get("name"), var.get("value")) {
            cmd.env(k, v);
        }
    }
    for var in exec.drop_env.iter().flatten() {
        cmd.env_remove(var);
    }
    cmd.env(
        "KUBERNETES_EXEC_INFO",
        exec_info(exec, interactive)?.to_string(),
    );
    cmd.stdout(Stdio::piped()).kill_on_drop(true);
    if interactive {
        cmd.stdin(Stdio::inherit()).stderr(Stdio::inherit());
    } else {
        cmd.stdin(Stdio::null()).stderr(Stdio::piped());
        #[cfg(unix)]
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|e| {
        let hint = exec
            .install_hint
            .as_deref()
            .map(|h| format!("\nhint: {}", h.trim()))
            .unwrap_or_else(|| {
                "\nhint: install it, or check the kubeconfig user's exec command".into()
            });
        anyhow!("cannot run the credential plugin {name}: {e}{hint}")
    })?;
    let mut running = Running::new(child.id(), interactive);
    let out = match tokio::time::timeout(deadline, bounded_output(&mut child)).await {
        Ok(Ok(Some(out))) => out,
        Ok(Ok(None)) => bail!(
            "the credential plugin {name} wrote more than {} KiB on stdout, more than any credential\nhint: run it yourself to see what it prints",
            MAX_PLUGIN_OUTPUT >> 10
        ),
        Ok(Err(e)) => bail!("the credential plugin {name} failed: {e}"),
        Err(_) => bail!(
            "the credential plugin {name} did not answer within {deadline:?}\nhint: run it yourself to see what it waits for (a login, a network), or raise --request-timeout"
        ),
    };
    running.ended();
    if !out.status.success() {
        let said = last_line(&out.stderr)
            .map(|l| format!(": {l}"))
            .unwrap_or_default();
        bail!(
            "the credential plugin {name} failed ({}){said}\nhint: run it yourself to see the whole message",
            out.status
        );
    }
    parse(&out.stdout).map_err(|why| anyhow!("the credential plugin {name} {why}"))
}

/// The most a credential plugin may write on stdout: an ExecCredential is
/// a token or a certificate, a few KiB.
pub const MAX_PLUGIN_OUTPUT: usize = 1 << 20;
/// What is kept of its stderr, for the last line of a failure.
const MAX_PLUGIN_STDERR: usize = 64 << 10;

/// The plugin's exit status and output, read up to the bounds; `None` when
/// stdout is larger than [`MAX_PLUGIN_OUTPUT`].
async fn bounded_output(
    child: &mut tokio::process::Child,
) -> std::io::Result<Option<std::process::Output>> {
    use tokio::io::AsyncReadExt;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read_out = async {
        let mut buf = Vec::new();
        if let Some(s) = stdout {
            s.take(MAX_PLUGIN_OUTPUT as u64 + 1)
                .read_to_end(&mut buf)
                .await?;
        }
        Ok::<_, std::io::Error>(buf)
    };
    let read_err = async {
        let mut buf = Vec::new();
        if let Some(s) = stderr {
            s.take(MAX_PLUGIN_STDERR as u64)
                .read_to_end(&mut buf)
                .await?;
        }
        Ok::<_, std::io::Error>(buf)
    };
    let (stdout, stderr) = tokio::join!(read_out, read_err);
    let stdout = stdout?;
    if stdout.len() > MAX_PLUGIN_OUTPUT {
        return Ok(None);
    }
    let status = child.wait().await?;
    Ok(Some(std::process::Output {
        status,
        stdout,
        stderr: stderr?,
    }))
}

/// `KUBERNETES_EXEC_INFO`: what the plugin is told about the call.
fn exec_info(exec: &ExecConfig, interactive: bool) -> anyhow::Result<Value> {
    let mut spec = json!({ "interactive": interactive });
    if exec.provide_cluster_info {
        let Some(cluster) = &exec.cluster else {
            bail!(
                "the kubeconfig asks to give the credential plugin the cluster's details, but the context has no cluster"
            );
        };
        spec["cluster"] = serde_json::to_value(cluster)?;
    }
    Ok(json!({
        "apiVersion": exec.api_version.as_deref().unwrap_or("client.authentication.k8s.io/v1"),
        "kind": "ExecCredential",
        "spec": spec,
    }))
}

/// The credential in an `ExecCredential` (JSON, or YAML as client-go
/// accepts). The error completes "the credential plugin X ...".
fn parse(stdout: &[u8]) -> Result<Credential, String> {
    let doc: Value = serde_yaml_ng::from_slice(stdout)
        .ok()
        .filter(Value::is_object)
        .ok_or("did not print an ExecCredential (a JSON or YAML object)")?;
    let Some(status) = doc.get("status") else {
        return Err("printed an ExecCredential without a status".into());
    };
    let text = |k: &str| {
        status
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let expires = match text("expirationTimestamp") {
        Some(t) => Some(t.parse::<Timestamp>().map_err(|_| {
            format!(
                "gave an expirationTimestamp that is not a time: {}",
                crate::escape::escape(&t)
            )
        })?),
        None => None,
    };
    match (
        text("token"),
        text("clientCertificateData"),
        text("clientKeyData"),
    ) {
        (_, Some(cert), Some(key)) => Ok(Credential::Certificate { cert, key, expires }),
        (Some(token), _, _) => Ok(Credential::Token { token, expires }),
        _ => Err("printed an ExecCredential with neither a token nor a client certificate".into()),
    }
}

/// The last line a failed plugin wrote on stderr, escaped and cut short.
fn last_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    let line: String = line.chars().take(200).collect();
    Some(crate::escape::escape(&line).into_owned())
}

/// Kills what the plugin started: it leads its own process group unless it
/// runs interactively (then it shares the terminal's, and only it is killed).
/// A plugin's processes while it runs. Unless it ended by itself, they are
/// all killed when this drops: at the plugin's deadline, past its output
/// bound, or when the command's own deadline (`wait --timeout`) drops the
/// read. Declared after the child, so it drops first, while the child's
/// descendants still know their parent. A terminal it had is restored.
struct Running {
    pid: Option<u32>,
    interactive: bool,
    ended: bool,
    #[cfg(unix)]
    terminal: Option<rustix::termios::Termios>,
}

impl Running {
    fn new(pid: Option<u32>, interactive: bool) -> Running {
        Running {
            pid,
            interactive,
            ended: false,
            // A plugin that asks for a password turns echo off.
            #[cfg(unix)]
            terminal: interactive
                .then(|| rustix::termios::tcgetattr(std::io::stdin()).ok())
                .flatten(),
        }
    }

    fn ended(&mut self) {
        self.ended = true;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        #[cfg(unix)]
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            use rustix::process::{Pid, Signal, kill_process, kill_process_group};
            if self.interactive {
                // In the terminal's process group, so not a group of its own:
                // its descendants, then itself.
                for p in descendants(pid).into_iter().chain([pid]) {
                    if let Some(p) = Pid::from_raw(p) {
                        let _ = kill_process(p, Signal::KILL);
                    }
                }
            } else if let Some(group) = Pid::from_raw(pid) {
                let _ = kill_process_group(group, Signal::KILL);
            }
            if let Some(saved) = &self.terminal {
                let _ = rustix::termios::tcsetattr(
                    std::io::stdin(),
                    rustix::termios::OptionalActions::Now,
                    saved,
                );
            }
        }
    }
}

/// The processes below `pid`, from `/proc` (none where there is no /proc).
#[cfg(unix)]
fn descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let child: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (comm) state ppid ...`; comm may hold spaces and parens.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((child, ppid))
        })
        .collect();
    let mut found = Vec::new();
    let mut todo = vec![pid];
    while let Some(parent) = todo.pop() {
        for &(child, ppid) in &parents {
            if ppid == parent && !found.contains(&child) {
                found.push(child);
                todo.push(child);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_token_already_expired_is_still_used_a_little_while() {
        let now: Timestamp = "2026-01-10T12:00:00Z".parse().unwrap();
        let past: Timestamp = "2026-01-10T11:00:00Z".parse().unwrap();
        let held = Held::new("t".into(), Some(past), now);
        assert_eq!(
            held.refresh_at,
            Some("2026-01-10T12:00:01Z".parse().unwrap())
        );
        let hour: Timestamp = "2026-01-10T13:00:00Z".parse().unwrap();
        let held = Held::new("t".into(), Some(hour), now);
        assert_eq!(
            held.refresh_at,
            Some("2026-01-10T12:48:00Z".parse().unwrap()),
            "four fifths of its life"
        );
    }

    use super::*;

    /// A plugin that answers `t1`, `t2`, ... each run, valid for `life`.
    fn counting_plugin(dir: &std::path::Path, life: &str) -> ExecConfig {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("plugin");
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nn=$(($(cat {count} 2>/dev/null || echo 0) + 1)); echo $n > {count}\nend=$(date -u -d '{life}' +%Y-%m-%dT%H:%M:%SZ)\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"t'$n'\",\"expirationTimestamp\":\"'$end'\"}}}}'\n",
                count = dir.join("count").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        serde_json::from_value(json!({
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": path.display().to_string(),
            "interactiveMode": "Never",
        }))
        .unwrap()
    }

    async fn first(exec: &ExecConfig) -> ExecToken {
        let Credential::Token { token, expires } =
            run(exec, Duration::from_secs(10)).await.unwrap()
        else {
            panic!("a token")
        };
        ExecToken::new(exec.clone(), Duration::from_secs(10), token, expires)
    }

    #[tokio::test]
    async fn a_token_near_its_end_is_asked_for_again_and_a_fresh_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        // Expired at once (its second is already past): run again.
        let short = counting_plugin(dir.path(), "now");
        let token = first(&short).await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert_eq!(token.token().await.unwrap(), "t2");

        let dir = tempfile::tempdir().unwrap();
        let long = counting_plugin(dir.path(), "+1 hour");
        let token = first(&long).await;
        assert_eq!(token.token().await.unwrap(), "t1");
        assert_eq!(token.token().await.unwrap(), "t1");
    }

    #[test]
    fn reads_tokens_and_certificates_in_json_or_yaml() {
        let token = br#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"abc","expirationTimestamp":"2026-01-01T00:00:00Z"}}"#;
        assert_eq!(
            parse(token),
            Ok(Credential::Token {
                token: "abc".into(),
                expires: Some("2026-01-01T00:00:00Z".parse().unwrap())
            })
        );
        let yaml = b"apiVersion: client.authentication.k8s.io/v1\nkind: ExecCredential\nstatus:\n  clientCertificateData: CERT\n  clientKeyData: KEY\n";
        assert_eq!(
            parse(yaml),
            Ok(Credential::Certificate {
                cert: "CERT".into(),
                key: "KEY".into(),
                expires: None
            })
        );
    }

    #[test]
    fn bad_answers_are_one_clean_line() {
        for (out, says) in [
            (
                &b"Traceback (most recent call last):\n  \x1b[31mboom"[..],
                "did not print an ExecCredential",
            ),
            (b"please log in", "did not print an ExecCredential"),
            (b"{\"kind\":\"ExecCredential\"}", "without a status"),
            (b"{\"status\":{}}", "neither a token"),
            (
                b"{\"status\":{\"token\":\"t\",\"expirationTimestamp\":\"soon\\u001b[2J\"}}",
                "not a time: soon\\x1b[2J",
            ),
        ] {
            let why = parse(out).unwrap_err();
            assert!(why.contains(says), "{why}");
            assert!(!why.contains(['\n', '\x1b']), "{why:?}");
        }
        assert_eq!(
            last_line(b"trying...\n\x1b]0;owned\x07 token expired \n\n"),
            Some(r"\x1b]0;owned\x07 token expired".into())
        );
    }
}
