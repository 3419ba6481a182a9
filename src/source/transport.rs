//! The HTTP stack under the kube client, built here rather than by kube so
//! that sockets set TCP_NODELAY (without it a small request written in two
//! parts waits ~40 ms for the peer's delayed ACK), TLS offers HTTP/2 (one
//! connection carries every concurrent request and watch, as kubectl's
//! does, instead of one TLS handshake per concurrent request) and answers
//! are compressed with gzip. Authentication, the base URL and extra headers
//! are kube's own layers; kube's retry layer is left out on purpose.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use tower::filter::{AsyncFilterLayer, AsyncPredicate};
use tower::{BoxError, ServiceBuilder};
use tower_http::decompression::DecompressionLayer;

use super::credential::ExecToken;

/// A kube client over a connector with TCP_NODELAY and gzip. `token`: a
/// token from an exec plugin, sent as the bearer token of every request and
/// renewed before it expires (see [`ExecToken`]).
pub fn client(
    config: kube::Config,
    connect_timeout: Duration,
    token: Option<Arc<ExecToken>>,
) -> kube::Result<kube::Client> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(connect_timeout));
    let mut builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config.rustls_client_config()?)
        .https_or_http();
    if let Some(name) = &config.tls_server_name {
        let name = rustls::pki_types::ServerName::try_from(name.clone()).map_err(|e| {
            kube::Error::Service(format!("invalid --tls-server-name {name:?}: {e}").into())
        })?;
        builder =
            builder.with_server_name_resolver(hyper_rustls::FixedServerNameResolver::new(name));
    }
    // Through the kubeconfig's proxy-url or the environment's proxy, as
    // kubectl goes.
    let route = super::proxy::Route::to(&config.cluster_url, config.proxy_url.as_ref(), |name| {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    })
    .map_err(|e| kube::Error::Service(e.into()))?;
    let connector = super::proxy::Connector::new(&route, http);
    let https = builder
        .enable_http1()
        .enable_http2()
        .wrap_connector(connector);
    let hyper: hyper_util::client::legacy::Client<_, kube::client::Body> =
        hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(https);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .layer(
            DecompressionLayer::new()
                .no_br()
                .no_deflate()
                .no_zstd()
                .gzip(!config.disable_compression),
        )
        .option_layer(config.auth_layer()?)
        .option_layer(token.map(|token| AsyncFilterLayer::new(Bearer(token))))
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .layer_fn(|inner| WireLimit { inner })
        .service(hyper);
    Ok(kube::Client::new(service, config.default_namespace))
}

/// Sets `Authorization: Bearer` from an exec plugin's token, renewed when
/// it nears its end.
#[derive(Clone)]
struct Bearer(Arc<ExecToken>);

impl AsyncPredicate<http::Request<kube::client::Body>> for Bearer {
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Request, BoxError>> + Send>,
    >;
    type Request = http::Request<kube::client::Body>;

    fn check(&mut self, mut request: Self::Request) -> Self::Future {
        let token = self.0.clone();
        Box::pin(async move {
            let token = token
                .token()
                .await
                .map_err(|e| BoxError::from(super::credential::RenewalFailed(format!("{e:#}"))))?;
            let mut value = http::HeaderValue::from_str(&format!("Bearer {token}"))?;
            value.set_sensitive(true);
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value);
            Ok(request)
        })
    }
}

/// Caps the bytes read from the wire for one answer at
/// [`super::read::MAX_ANSWER`], below decompression: a compressed body that
/// never ends (empty gzip blocks inflate to nothing) stops too. A watch is
/// a stream that lasts minutes; its events are bounded one by one instead
/// (`api.rs`, a line at a time).
#[derive(Clone)]
struct WireLimit<S> {
    inner: S,
}

impl<S, B> tower::Service<http::Request<B>> for WireLimit<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<hyper::body::Incoming>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<http_body_util::Limited<hyper::body::Incoming>>;
    type Error = S::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let watch = request
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p == "watch=1" || p == "watch=true"));
        let limit = if watch {
            usize::MAX
        } else {
            super::read::MAX_ANSWER
        };
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| http_body_util::Limited::new(body, limit)))
        })
    }
}
