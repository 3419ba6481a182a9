//! Shell completion. Static scripts for bash, zsh, fish and PowerShell are
//! generated from the clap definitions ([`scripts`]); `kubectl reconcile
//! <TAB>` goes through kubectl's plugin completion, which runs the helper
//! `kubectl_complete-reconcile`, which runs `kubectl-reconcile __complete`:
//! [`respond`] answers it ([`protocol`] is the pure part), and [`install`]
//! puts the helper on PATH.

pub mod install;
pub mod protocol;
pub mod scripts;

use std::path::PathBuf;
use std::time::Duration;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::source::client::Connection;
use crate::source::completion::{self as lookups, Scope};
use protocol::{Candidate, Request, Source};

pub use protocol::PROTOCOL_ARG;

/// The longest a completion that asks the cluster may take, all told.
pub const DEADLINE: Duration = Duration::from_millis(2500);

/// The answer to `kubectl-reconcile __complete WORDS...`: candidates, then
/// cobra's directive. Never fails: what cannot be read in time is left out.
pub fn respond(words: &[String]) -> String {
    let mut root = Cli::command();
    root.build();
    let request = protocol::parse(&root, words);
    let candidates = match &request.source {
        Source::Fixed(fixed) => fixed.clone(),
        Source::Files | Source::Dirs | Source::Nothing => Vec::new(),
        _ => lookup(&request),
    };
    protocol::answer(&request, &candidates)
}

fn lookup(request: &Request) -> Vec<Candidate> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    runtime.block_on(async {
        tokio::time::timeout(DEADLINE, fetch(request))
            .await
            .unwrap_or_default()
    })
}

async fn fetch(request: &Request) -> Vec<Candidate> {
    let flag = |id: &str| request.flag(id).map(str::to_string);
    let conn = Connection {
        kubeconfig: flag("kubeconfig"),
        context: flag("context"),
        cluster: flag("cluster"),
        user: flag("user"),
        as_user: flag("as_user"),
        as_groups: request.all_flag("as_group").to_vec(),
        as_uid: flag("as_uid"),
        server: flag("server"),
        token: flag("token"),
        certificate_authority: flag("certificate_authority"),
        client_certificate: flag("client_certificate"),
        client_key: flag("client_key"),
        insecure_skip_tls_verify: request.flag("insecure_skip_tls_verify").is_some(),
        tls_server_name: flag("tls_server_name"),
        disable_compression: request.flag("disable_compression").is_some(),
        request_timeout: lookups::REQUEST_TIMEOUT,
    };
    let cache_dir = flag("cache_dir")
        .or_else(|| std::env::var("KUBECACHEDIR").ok())
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(crate::source::discovery::default_cache_dir);
    let scope = match (request.flag("all_namespaces"), flag("namespace")) {
        (Some(_), _) => Scope::All,
        (None, Some(ns)) => Scope::Namespace(ns),
        (None, None) => Scope::Default,
    };
    let snapshot = request.flag("snapshot");
    let plain = |names: Vec<String>| names.into_iter().map(Candidate::plain).collect();
    match &request.source {
        Source::Namespaces => plain(lookups::namespaces(&conn).await),
        Source::Contexts => plain(lookups::kubeconfig_names(&conn).contexts),
        Source::Clusters => plain(lookups::kubeconfig_names(&conn).clusters),
        Source::Users => plain(lookups::kubeconfig_names(&conn).users),
        Source::Types => {
            let catalog = match snapshot {
                Some(path) => lookups::snapshot_types(path),
                None => lookups::types(&conn, &cache_dir).await,
            };
            catalog
                .map(|c| protocol::type_names(&c, &request.partial))
                .unwrap_or_default()
        }
        Source::Names { type_ } => plain(match snapshot {
            Some(path) => {
                let ns = match &scope {
                    Scope::Namespace(ns) => Some(ns.as_str()),
                    _ => None,
                };
                lookups::snapshot_names(path, type_, ns)
            }
            None => lookups::names(&conn, &cache_dir, type_, &scope).await,
        }),
        Source::Fixed(_) | Source::Files | Source::Dirs | Source::Nothing => Vec::new(),
    }
}
