//! The route to the API server, as kubectl takes it: through the
//! kubeconfig cluster's `proxy-url` when it has one, else through
//! `HTTPS_PROXY`/`HTTP_PROXY` (`ALL_PROXY`), minus `NO_PROXY`, and never
//! through a proxy for `localhost` or a loopback address found in the
//! environment (Go's rule, which kubectl follows). An `http://` proxy is
//! asked with `CONNECT`; `socks5://` and `socks5h://` go through SOCKS5
//! (names resolved by the proxy).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::Uri;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tower::BoxError;

/// How requests reach the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    Direct,
    /// An HTTP proxy, asked with `CONNECT`; its basic credentials, if any.
    Connect {
        proxy: Uri,
        auth: Option<http::HeaderValue>,
    },
    Socks {
        proxy: Uri,
        auth: Option<(String, String)>,
    },
}

impl Route {
    /// The route to `server`: `proxy_url` (the kubeconfig's) first, else
    /// the environment as `env` reads it.
    pub fn to(
        server: &Uri,
        proxy_url: Option<&Uri>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Route, String> {
        if let Some(proxy) = proxy_url {
            return Route::through(proxy.clone(), None);
        }
        let host = server.host().unwrap_or_default();
        if is_local(host) {
            return Ok(Route::Direct);
        }
        let var = |upper: &str| env(upper).or_else(|| env(&upper.to_ascii_lowercase()));
        let mut matcher = Matcher::builder();
        if let Some(v) = var("ALL_PROXY") {
            matcher = matcher.all(v);
        }
        if let Some(v) = var("HTTP_PROXY") {
            matcher = matcher.http(v);
        }
        if let Some(v) = var("HTTPS_PROXY") {
            matcher = matcher.https(v);
        }
        if let Some(v) = var("NO_PROXY") {
            matcher = matcher.no(v);
        }
        match matcher.build().intercept(server) {
            None => Ok(Route::Direct),
            Some(found) => {
                let auth = found.basic_auth().cloned();
                Route::through(found.uri().clone(), auth)
            }
        }
    }

    fn through(proxy: Uri, auth: Option<http::HeaderValue>) -> Result<Route, String> {
        let userinfo = proxy
            .authority()
            .and_then(|a| a.as_str().rsplit_once('@'))
            .map(|(user, _)| user.to_string());
        match proxy.scheme_str() {
            Some("http") => {
                let auth = auth.or_else(|| userinfo.as_deref().and_then(basic));
                Ok(Route::Connect {
                    proxy: without_userinfo(&proxy),
                    auth,
                })
            }
            Some("socks5" | "socks5h") => Ok(Route::Socks {
                proxy: without_userinfo(&proxy),
                auth: userinfo.and_then(|u| {
                    let (user, pass) = u.split_once(':')?;
                    Some((user.to_string(), pass.to_string()))
                }),
            }),
            other => Err(format!(
                "the proxy {} is not supported (scheme {}): use an http:// or socks5:// proxy",
                without_userinfo(&proxy),
                other.unwrap_or("none")
            )),
        }
    }
}

/// `localhost` and loopback addresses are never proxied by the environment.
fn is_local(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn basic(userinfo: &str) -> Option<http::HeaderValue> {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(userinfo);
    let mut value = http::HeaderValue::from_str(&format!("Basic {encoded}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

fn without_userinfo(uri: &Uri) -> Uri {
    let Some((_, host)) = uri.authority().and_then(|a| a.as_str().rsplit_once('@')) else {
        return uri.clone();
    };
    let mut parts = uri.clone().into_parts();
    parts.authority = host.parse().ok();
    Uri::from_parts(parts).unwrap_or_else(|_| uri.clone())
}

/// Connects to the server directly or through the route's proxy.
#[derive(Clone)]
pub enum Connector {
    Direct(HttpConnector),
    Tunnel(Tunnel<HttpConnector>),
    Socks(SocksV5<HttpConnector>),
}

impl Connector {
    pub fn new(route: &Route, http: HttpConnector) -> Connector {
        match route {
            Route::Direct => Connector::Direct(http),
            Route::Connect { proxy, auth } => {
                let tunnel = Tunnel::new(proxy.clone(), http);
                Connector::Tunnel(match auth {
                    Some(auth) => tunnel.with_auth(auth.clone()),
                    None => tunnel,
                })
            }
            Route::Socks { proxy, auth } => {
                let socks = SocksV5::new(proxy.clone(), http).local_dns(false);
                Connector::Socks(match auth {
                    Some((user, pass)) => socks.with_auth(user.clone(), pass.clone()),
                    None => socks,
                })
            }
        }
    }
}

type Connecting = Pin<Box<dyn Future<Output = Result<TokioIo<TcpStream>, BoxError>> + Send>>;

impl tower::Service<Uri> for Connector {
    type Response = TokioIo<TcpStream>;
    type Error = BoxError;
    type Future = Connecting;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        match self {
            Connector::Direct(c) => c.poll_ready(cx).map_err(Into::into),
            Connector::Tunnel(c) => c.poll_ready(cx).map_err(Into::into),
            Connector::Socks(c) => c.poll_ready(cx).map_err(Into::into),
        }
    }

    fn call(&mut self, dst: Uri) -> Connecting {
        match self {
            Connector::Direct(c) => {
                let f = c.call(dst);
                Box::pin(async move { f.await.map_err(Into::into) })
            }
            Connector::Tunnel(c) => {
                let f = c.call(dst);
                Box::pin(async move { f.await.map_err(Into::into) })
            }
            Connector::Socks(c) => {
                let f = c.call(dst);
                Box::pin(async move { f.await.map_err(Into::into) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn routes_follow_kubectls_rules() {
        let server: Uri = "https://kube.example:6443".parse().unwrap();
        let local: Uri = "https://127.0.0.1:6443".parse().unwrap();
        let proxied = env(&[("HTTPS_PROXY", "http://u:p@proxy:3128")]);
        let Ok(Route::Connect { proxy, auth }) = Route::to(&server, None, &proxied) else {
            panic!("HTTPS_PROXY is used");
        };
        assert_eq!(proxy.to_string(), "http://proxy:3128/");
        assert!(auth.is_some());
        assert_eq!(Route::to(&local, None, &proxied), Ok(Route::Direct));
        let lower = env(&[("https_proxy", "http://proxy:3128")]);
        assert!(matches!(
            Route::to(&server, None, lower),
            Ok(Route::Connect { .. })
        ));
        let excluded = env(&[
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("NO_PROXY", ".example"),
        ]);
        assert_eq!(Route::to(&server, None, excluded), Ok(Route::Direct));
        assert_eq!(Route::to(&server, None, env(&[])), Ok(Route::Direct));
        // The kubeconfig's proxy-url is used even for a loopback server.
        let given: Uri = "socks5://a:b@127.0.0.1:1080".parse().unwrap();
        let Ok(Route::Socks { proxy, auth }) = Route::to(&local, Some(&given), env(&[])) else {
            panic!("proxy-url is used");
        };
        assert_eq!(proxy.to_string(), "socks5://127.0.0.1:1080/");
        assert_eq!(auth, Some(("a".into(), "b".into())));
        let https: Uri = "https://proxy:443".parse().unwrap();
        assert!(Route::to(&server, Some(&https), env(&[])).is_err());
    }
}
