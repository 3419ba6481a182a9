//! The HTTP stack under the kube client, built here rather than by kube so
//! that sockets set TCP_NODELAY (without it a small request written in two
//! parts waits ~40 ms for the peer's delayed ACK) and answers are
//! compressed with gzip. Authentication, the base URL and extra headers
//! are kube's own layers; kube's retry layer is left out on purpose.

use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use tower::{BoxError, ServiceBuilder};
use tower_http::decompression::DecompressionLayer;

/// A kube client over a connector with TCP_NODELAY and gzip.
pub fn client(config: kube::Config, connect_timeout: Duration) -> kube::Result<kube::Client> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(connect_timeout));
    let https = config.rustls_https_connector_with_connector(http)?;
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
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(hyper);
    Ok(kube::Client::new(service, config.default_namespace))
}
