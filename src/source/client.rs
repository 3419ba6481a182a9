//! Builds the kube client from the kubeconfig and kubectl's connection flags,
//! with the plugin's User-Agent, per-request timeouts and no hidden retries.
//! An exec credential plugin runs before the client is built, within the
//! request deadline (`credential.rs`).

use std::time::Duration;

use anyhow::Context;
use http::{HeaderName, HeaderValue};
use kube::config::{KubeConfigOptions, Kubeconfig};
use secrecy::SecretString;

use super::credential::Credential;

/// kubectl's connection flags, as given.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    pub request_timeout: Duration,
}

/// A kube error with its causes, each said once.
fn cause(e: impl std::error::Error + Send + Sync + 'static) -> String {
    super::api::anyhow_chain(&anyhow::Error::new(e))
}

/// The identity every request carries.
pub fn user_agent() -> String {
    format!("kubectl-reconcile/{}", env!("CARGO_PKG_VERSION"))
}

/// A connected client, the kubeconfig context's namespace, and the server's
/// address (which keys the discovery cache).
pub struct Connected {
    pub client: kube::Client,
    pub default_namespace: String,
    pub server: String,
}

pub async fn connect(conn: &Connection) -> anyhow::Result<Connected> {
    let kubeconfig = match &conn.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| {
            anyhow::anyhow!("cannot read the kubeconfig {path}: {}\nhint: check the path given to --kubeconfig", cause(e))
        })?,
        None => Kubeconfig::read().map_err(|e| {
            anyhow::anyhow!(
                "cannot read a kubeconfig from $KUBECONFIG or ~/.kube/config: {}\nhint: pass --kubeconfig PATH, set KUBECONFIG, or use --snapshot to work offline",
                cause(e)
            )
        })?,
    };
    let options = KubeConfigOptions {
        context: conn.context.clone(),
        cluster: conn.cluster.clone(),
        user: conn.user.clone(),
    };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .context("the kubeconfig does not describe a usable cluster and user (check --context, --cluster and --user)")?;
    // An exec credential plugin runs here, under the request deadline;
    // left in the config, kube would run it (twice) while building the
    // client, where nothing stops one that hangs. Its credential goes in
    // as a plain token or certificate, so kube runs nothing; the client is
    // valid until the credential expires.
    let mut valid_until = None;
    let auth = &config.auth_info;
    // kube's precedence: a password, token or token file wins over exec.
    let other_auth = (auth.username.is_some() && auth.password.is_some())
        || auth.token.is_some()
        || auth.token_file.is_some();
    if let Some(exec) = config.auth_info.exec.take().filter(|_| !other_auth) {
        use base64::Engine as _;
        let credential = super::credential::run(&exec, conn.request_timeout).await?;
        valid_until = credential.expires();
        match credential {
            Credential::Token { token, .. } => {
                config.auth_info.token = Some(SecretString::from(token));
            }
            Credential::Certificate { cert, key, .. } => {
                let b64 = base64::engine::general_purpose::STANDARD;
                config.auth_info.client_certificate_data = Some(b64.encode(cert));
                config.auth_info.client_key_data = Some(SecretString::from(b64.encode(key)));
            }
        }
    }
    // Each request has its own deadline (source::api); watches are long
    // reads, so the client itself has no read timeout.
    config.connect_timeout = Some(conn.request_timeout);
    // Retries are the caller's business: hidden ones could stall for minutes.
    config.default_retry = false;
    config.headers.push((
        HeaderName::from_static("user-agent"),
        HeaderValue::from_str(&user_agent())?,
    ));
    if let Some(user) = &conn.as_user {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !conn.as_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(conn.as_groups.clone());
    }
    let server = config
        .cluster_url
        .authority()
        .map(|a| a.to_string())
        .unwrap_or_else(|| config.cluster_url.to_string());
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config)
        .context("cannot set up a client for this cluster")?
        .with_valid_until(valid_until);
    Ok(Connected {
        client,
        default_namespace,
        server,
    })
}
