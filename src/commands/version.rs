//! `--version`: the plugin's version, and the server's when the cluster
//! answers within two seconds. It never fails and never hangs: an unreachable
//! cluster is one line of the answer, and the exit status is 0.

use std::time::Duration;

use super::Outcome;
use crate::settings::Settings;
use crate::source::api::Api;
use crate::source::client::connect;
use crate::source::read::ApiError;

/// How long `--version` waits for the server, all told.
pub const SERVER_DEADLINE: Duration = Duration::from_secs(2);

pub async fn run(settings: &Settings) -> Outcome {
    let server = if settings.snapshot.is_some() {
        "none (--snapshot: nothing is sent to a server)".to_string()
    } else {
        match tokio::time::timeout(SERVER_DEADLINE, server_version(settings)).await {
            Ok(Ok(version)) => version,
            Ok(Err(why)) => format!("unknown ({why})"),
            Err(_) => format!(
                "unknown (the cluster did not answer within {}s)",
                SERVER_DEADLINE.as_secs()
            ),
        }
    };
    Outcome {
        stdout: text(&server),
        code: 0,
    }
}

fn text(server: &str) -> String {
    // One line each, whatever the server or the error says, and inert.
    let server = crate::render::escape(&server.replace(['\n', '\r'], " ")).into_owned();
    format!(
        "kubectl-reconcile {}\nServer Version: {server}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `gitVersion` from the server's `/version`.
async fn server_version(settings: &Settings) -> Result<String, String> {
    let mut conn = settings.connection.clone();
    // Inside the overall deadline, so that a credential plugin or request
    // that does not answer is named, not just timed out.
    conn.request_timeout = conn
        .request_timeout
        .min(SERVER_DEADLINE - Duration::from_millis(400));
    let connected = connect(&conn)
        .await
        .map_err(|e| crate::source::api::anyhow_chain(&e))?;
    let api = Api::of(&connected, conn.request_timeout);
    let version = api.get("/version", None).await.map_err(|e| match e {
        ApiError::Unreachable(text) => {
            format!("cannot reach {}: {text}", connected.server)
        }
        ApiError::Tls(text) => {
            format!("the TLS handshake with {} failed: {text}", connected.server)
        }
        ApiError::Timeout => format!("{} did not answer in time", connected.server),
        other => format!("{}: {}", connected.server, other.short()),
    })?;
    version
        .get("gitVersion")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| format!("{} answered /version without gitVersion", connected.server))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_lines_whatever_the_error() {
        let out = text("unknown (cannot reach a:\nb)");
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(out.starts_with("kubectl-reconcile "));
        assert!(out.ends_with("Server Version: unknown (cannot reach a: b)\n"));
    }

    #[test]
    fn a_hostile_git_version_is_inert() {
        let out = text("v1.30.0\x1b]52;c;cHduZWQ=\x07\x1b]0;t\x07\x1b[2J\u{202e}x");
        assert!(!out.contains(['\x1b', '\x07', '\u{202e}']), "{out:?}");
        assert!(out.contains(r"v1.30.0\x1b]52;c;cHduZWQ=\x07"), "{out}");
    }
}
