//! Builds the kube client from the kubeconfig and kubectl's connection flags,
//! with the plugin's User-Agent, per-request timeouts and no hidden retries.

use std::time::Duration;

use anyhow::Context;
use http::{HeaderName, HeaderValue};
use kube::config::{KubeConfigOptions, Kubeconfig};

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
    let client = super::transport::client(config, conn.request_timeout)
        .context("cannot set up a client for this cluster")?;
    Ok(Connected {
        client,
        default_namespace,
        server,
    })
}
