//! Builds the kube client from the kubeconfig and kubectl's connection flags,
//! with the plugin's User-Agent, per-request timeouts and no hidden retries.
//! An exec credential plugin runs before the client is built, within the
//! request deadline (`credential.rs`).

use std::time::Duration;

use anyhow::Context;
use http::{HeaderName, HeaderValue};
use kube::config::{KubeConfigOptions, Kubeconfig};
use secrecy::SecretString;

use super::credential::{Credential, ExecToken};

/// kubectl's connection flags, as given.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    pub as_uid: Option<String>,
    /// `-s/--server`: overrides the kubeconfig's cluster address; with
    /// `--token` it needs no kubeconfig at all.
    pub server: Option<String>,
    pub token: Option<String>,
    pub certificate_authority: Option<String>,
    pub client_certificate: Option<String>,
    pub client_key: Option<String>,
    pub insecure_skip_tls_verify: bool,
    pub tls_server_name: Option<String>,
    pub disable_compression: bool,
    pub request_timeout: Duration,
}

impl Connection {
    /// The flags that say whose rights a request uses, as the user gave
    /// them (`--context=prod`, `--as=jane`, `--as-group=dev`,
    /// `--as-uid=…`), to repeat in a hint (a fleet's context included).
    pub fn identity_flags(&self) -> Vec<String> {
        let quote = |v: &str| {
            if v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:@/".contains(c))
            {
                v.to_string()
            } else {
                format!("'{}'", v.replace('\'', "'\\''"))
            }
        };
        self.context
            .iter()
            .map(|c| format!("--context={}", quote(c)))
            .chain(self.as_user.iter().map(|u| format!("--as={}", quote(u))))
            .chain(
                self.as_groups
                    .iter()
                    .map(|g| format!("--as-group={}", quote(g))),
            )
            .chain(self.as_uid.iter().map(|u| format!("--as-uid={}", quote(u))))
            .collect()
    }
}

/// The identity every request carries.
pub fn user_agent() -> String {
    format!("kubectl-reconcile/{}", env!("CARGO_PKG_VERSION"))
}

/// A connected client, the kubeconfig context's namespace, and the server's
/// address (which keys the discovery cache).
pub struct Connected {
    pub client: kube::Client,
    /// Makes another client like `client`, on a connection of its own.
    pub another: NewClient,
    pub default_namespace: String,
    pub server: String,
    /// What `-v` logs of this client's requests.
    pub logged: std::sync::Arc<crate::log::Connection>,
}

/// Builds a client with the same settings and credentials, and a pool of
/// connections of its own.
pub type NewClient = std::sync::Arc<dyn Fn() -> kube::Result<kube::Client> + Send + Sync>;

pub async fn connect(conn: &Connection) -> anyhow::Result<Connected> {
    let mut config = match (read_kubeconfig(conn), &conn.server) {
        (Ok(kubeconfig), _) => {
            check_context(&kubeconfig, conn.context.as_deref())?;
            let options = KubeConfigOptions {
                context: conn.context.clone(),
                cluster: conn.cluster.clone(),
                user: conn.user.clone(),
            };
            match kube::Config::from_custom_kubeconfig(kubeconfig, &options).await {
                Ok(config) => config,
                // An empty or minimal kubeconfig (no current context) does
                // not stop `-s URL --token T`, as with kubectl.
                Err(_) if conn.server.is_some() && conn.context.is_none() => {
                    kube::Config::new(server_uri(conn.server.as_deref().unwrap_or_default())?)
                }
                Err(e) => return Err(anyhow::Error::new(e).context(
                    "the kubeconfig does not describe a usable cluster and user (check --context, --cluster and --user)",
                )),
            }
        }
        // kubectl works from flags alone: `-s URL --token T` in CI.
        (Err(_), Some(server)) if conn.kubeconfig.is_none() => {
            kube::Config::new(server_uri(server)?)
        }
        (Err(e), _) => return Err(e),
    };
    apply_flags(&mut config, conn)?;
    unsupported_auth_provider(&config)?;
    // An exec credential plugin runs here, under the request deadline;
    // left in the config, kube would run it (twice) while building the
    // client, where nothing stops one that hangs. A token is sent by our
    // own layer, which runs the plugin again before the token expires; a
    // certificate goes in as is, and the client is valid until it expires.
    let mut valid_until = None;
    let mut exec_token = None;
    let auth = &config.auth_info;
    // kube's precedence: a password, token or token file wins over exec.
    let other_auth = (auth.username.is_some() && auth.password.is_some())
        || auth.token.is_some()
        || auth.token_file.is_some();
    if let Some(exec) = config.auth_info.exec.take().filter(|_| !other_auth) {
        use base64::Engine as _;
        let credential = super::credential::run(&exec, conn.request_timeout).await?;
        match credential {
            Credential::Token { token, expires } => {
                exec_token = Some(std::sync::Arc::new(ExecToken::new(
                    exec,
                    conn.request_timeout,
                    token,
                    expires,
                )));
            }
            Credential::Certificate { cert, key, expires } => {
                valid_until = expires;
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
    if let Some(uid) = &conn.as_uid {
        config.auth_info.impersonate_uid = Some(uid.clone());
    }
    // A password in the server URL is never shown: not in errors, not in
    // `-v` logs, not in the discovery cache's path.
    let shown_url = without_userinfo(&config.cluster_url);
    let server = shown_url
        .authority()
        .map(|a| a.to_string())
        .unwrap_or_else(|| shown_url.to_string());
    let default_namespace = config.default_namespace.clone();
    let logged = std::sync::Arc::new(crate::log::Connection::new(
        &shown_url.to_string(),
        logged_headers(&config),
    ));
    let timeout = conn.request_timeout;
    let another: NewClient = std::sync::Arc::new(move || {
        Ok(
            super::transport::client(config.clone(), timeout, exec_token.clone())?
                .with_valid_until(valid_until),
        )
    });
    let client = another().context("cannot set up a client for this cluster")?;
    Ok(Connected {
        client,
        another,
        default_namespace,
        server,
        logged,
    })
}

pub(crate) fn read_kubeconfig(conn: &Connection) -> anyhow::Result<Kubeconfig> {
    match &conn.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| {
            anyhow::anyhow!(
                "cannot read the kubeconfig {path}: {}\nhint: check the path given to --kubeconfig",
                innermost(&e)
            )
        }),
        None => Kubeconfig::read().map_err(|e| {
            anyhow::anyhow!(
                "cannot read a kubeconfig from $KUBECONFIG or ~/.kube/config: {}\nhint: pass --kubeconfig PATH, set KUBECONFIG, pass --server and --token, or use --snapshot to work offline",
                innermost(&e)
            )
        }),
    }
}

/// The root cause alone: kube's own message repeats the path in Debug
/// quotes (`'"/path"'`), which the caller has already said plainly.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut root = e;
    while let Some(next) = root.source() {
        root = next;
    }
    root.to_string()
}

/// A `--context` the kubeconfig does not have is named with the ones it has.
fn check_context(kubeconfig: &Kubeconfig, context: Option<&str>) -> anyhow::Result<()> {
    let Some(wanted) = context else {
        return Ok(());
    };
    if kubeconfig.contexts.iter().any(|c| c.name == wanted) {
        return Ok(());
    }
    let known: Vec<&str> = kubeconfig
        .contexts
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    Err(anyhow::anyhow!(
        "context {wanted} does not exist in the kubeconfig\nhint: known contexts: {}",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// `uri` with any `user:password@` taken out of its authority.
fn without_userinfo(uri: &http::Uri) -> http::Uri {
    let Some(authority) = uri.authority() else {
        return uri.clone();
    };
    let Some((_, host)) = authority.as_str().rsplit_once('@') else {
        return uri.clone();
    };
    let mut parts = uri.clone().into_parts();
    parts.authority = host.parse().ok();
    http::Uri::from_parts(parts).unwrap_or_else(|_| uri.clone())
}

fn server_uri(server: &str) -> anyhow::Result<http::Uri> {
    // kubectl takes a bare host:port as https.
    let url = if server.contains("://") {
        server.to_string()
    } else {
        format!("https://{server}")
    };
    url.parse().map_err(|e| {
        anyhow::anyhow!(
            "--server {} is not a URL: {e}",
            without_userinfo_text(server)
        )
    })
}

/// A server address as typed, with any `user:password@` masked.
pub(crate) fn without_userinfo_text(server: &str) -> String {
    match server.split_once("://") {
        Some((scheme, rest)) => match rest.split('/').next().and_then(|a| a.rsplit_once('@')) {
            Some((_, host)) => format!(
                "{scheme}://{host}{}",
                &rest[rest.find('/').unwrap_or(rest.len())..]
            ),
            None => server.to_string(),
        },
        None => server.to_string(),
    }
}

/// A user whose only credential is an `auth-provider` (gcp, azure, oidc)
/// would be sent unauthenticated and told to "log in again": say instead
/// that it is not supported, and what replaces it, as kubectl 1.26+ does.
fn unsupported_auth_provider(config: &kube::Config) -> anyhow::Result<()> {
    let auth = &config.auth_info;
    let Some(provider) = &auth.auth_provider else {
        return Ok(());
    };
    let other = auth.token.is_some()
        || auth.token_file.is_some()
        || auth.exec.is_some()
        || (auth.username.is_some() && auth.password.is_some())
        || auth.client_certificate.is_some()
        || auth.client_certificate_data.is_some();
    if other {
        return Ok(());
    }
    let instead = match provider.name.as_str() {
        "gcp" => {
            "gke-gcloud-auth-plugin (`gcloud components install gke-gcloud-auth-plugin`, then `gcloud container clusters get-credentials`)"
        }
        "azure" => "kubelogin (`kubelogin convert-kubeconfig -l azurecli`)",
        "oidc" => "an OIDC exec plugin such as kubelogin (`kubectl oidc-login setup`)",
        _ => "the exec credential plugin your provider ships",
    };
    anyhow::bail!(
        "the kubeconfig's user authenticates with the auth-provider {:?}, which is not supported (kubectl removed auth-providers in 1.26)\nhint: switch the user to an exec credential plugin: {instead}",
        crate::escape::escape(&provider.name)
    )
}

/// kubectl's connection flags over what the kubeconfig said.
fn apply_flags(config: &mut kube::Config, conn: &Connection) -> anyhow::Result<()> {
    if let Some(server) = &conn.server {
        config.cluster_url = server_uri(server)?;
    }
    if let Some(path) = &conn.certificate_authority {
        std::fs::metadata(path)
            .map_err(|e| anyhow::anyhow!("cannot read --certificate-authority {path}: {e}"))?;
        config.root_cert_file = Some(path.into());
        config.root_cert = None;
    }
    if conn.insecure_skip_tls_verify {
        // As kubectl: the flag drops the kubeconfig's CA.
        config.accept_invalid_certs = true;
        config.root_cert = None;
        config.root_cert_file = None;
    }
    // kubectl refuses a CA beside skipping verification: a kubeconfig that
    // says both is a mistake, not a request to connect unverified.
    if config.accept_invalid_certs
        && (config.root_cert.is_some() || config.root_cert_file.is_some())
    {
        anyhow::bail!(
            "specifying a root certificates file with the insecure flag is not allowed\nhint: remove either certificate-authority or insecure-skip-tls-verify from the cluster in the kubeconfig"
        );
    }
    if let Some(name) = &conn.tls_server_name {
        config.tls_server_name = Some(name.clone());
    }
    if conn.disable_compression {
        config.disable_compression = true;
    }
    if let Some(token) = &conn.token {
        // As kubectl: a token given on the command line is the credential.
        config.auth_info.token = Some(token.clone().into());
        config.auth_info.token_file = None;
        config.auth_info.exec = None;
        config.auth_info.auth_provider = None;
        config.auth_info.username = None;
        config.auth_info.password = None;
    }
    if let Some(path) = &conn.client_certificate {
        config.auth_info.client_certificate = Some(path.clone());
        config.auth_info.client_certificate_data = None;
    }
    if let Some(path) = &conn.client_key {
        config.auth_info.client_key = Some(path.clone());
        config.auth_info.client_key_data = None;
    }
    Ok(())
}

/// The headers the client adds to every request, for `-v 8`. A token or a
/// credential plugin becomes `Authorization: Bearer`, masked when logged.
fn logged_headers(config: &kube::Config) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = config
        .headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("<binary>").to_string()))
        .collect();
    let auth = &config.auth_info;
    if auth.token.is_some() || auth.token_file.is_some() || auth.exec.is_some() {
        out.push(("Authorization".into(), "Bearer <masked>".into()));
    }
    if let Some(user) = &auth.impersonate {
        out.push(("Impersonate-User".into(), user.clone()));
    }
    for group in auth.impersonate_groups.iter().flatten() {
        out.push(("Impersonate-Group".into(), group.clone()));
    }
    if let Some(uid) = &auth.impersonate_uid {
        out.push(("Impersonate-Uid".into(), uid.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_in_server_urls_are_never_shown() {
        let uri: http::Uri = "https://alice:s3cr3tPW@127.0.0.1:6443/base"
            .parse()
            .unwrap();
        assert_eq!(
            without_userinfo(&uri).to_string(),
            "https://127.0.0.1:6443/base"
        );
        let plain: http::Uri = "https://127.0.0.1:6443".parse().unwrap();
        assert_eq!(without_userinfo(&plain), plain);
        assert_eq!(
            without_userinfo_text("https://alice:pw@h:1/x y"),
            "https://h:1/x y"
        );
        assert_eq!(without_userinfo_text("h:1"), "h:1");
    }

    #[test]
    fn a_hint_asks_as_the_same_context_and_user() {
        let connection = Connection {
            context: Some("prod east".into()),
            as_user: Some("jane".into()),
            as_groups: vec!["dev".into()],
            ..Connection::default()
        };
        assert_eq!(
            connection.identity_flags(),
            ["--context='prod east'", "--as=jane", "--as-group=dev"]
        );
        assert!(Connection::default().identity_flags().is_empty());
    }
}
