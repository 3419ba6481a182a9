//! Shell completion. Static scripts for bash, zsh, fish and PowerShell are
//! generated from the clap definitions ([`scripts`]); `kubectl reconcile
//! <TAB>` goes through kubectl's plugin completion, which runs the helper
//! `kubectl_complete-reconcile`, which runs `kubectl-reconcile __complete`:
//! [`respond`] answers it ([`protocol`] is the pure part), and [`install`]
//! puts the helper on PATH.

pub mod install;
pub mod protocol;
pub mod scripts;

use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches};

use crate::cli::{Cli, GlobalArgs};
use crate::source::completion as lookups;
use crate::targets::Asked;
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

/// The global flags on the line being completed, read by clap as a
/// command would read them (`$KUBECACHEDIR` included). A flag whose value
/// does not parse (a half-typed `-o`) is left out, not the whole line.
fn global_args(request: &Request) -> Option<GlobalArgs> {
    let cmd = GlobalArgs::augment_args(clap::Command::new("kubectl-reconcile"));
    let parses = |argv: &[String]| cmd.clone().try_get_matches_from(argv).ok();
    let mut argv = vec!["kubectl-reconcile".to_string()];
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else {
            continue;
        };
        for value in request.all_flag(arg.get_id().as_str()) {
            let word = if arg.get_action().takes_values() {
                format!("--{long}={value}")
            } else {
                format!("--{long}")
            };
            if parses(&[argv[0].clone(), word.clone()]).is_some() {
                argv.push(word);
            }
        }
    }
    GlobalArgs::from_arg_matches(&parses(&argv)?).ok()
}

async fn fetch(request: &Request) -> Vec<Candidate> {
    let Some(global) = global_args(request) else {
        return Vec::new();
    };
    let conn = crate::settings::connection(&global, lookups::REQUEST_TIMEOUT);
    let cache_dir = crate::settings::cache_dir(&global);
    let scope = Asked::from_flags(global.namespace.as_deref(), global.all_namespaces);
    let snapshot = request.flag("snapshot");
    let plain = |names: Vec<String>| names.into_iter().map(Candidate::plain).collect();
    match &request.source {
        Source::Namespaces => plain(lookups::namespaces(&conn).await),
        Source::Contexts => plain(lookups::kubeconfig_names(&conn).contexts),
        Source::ContextList => plain(context_list(
            &request.partial,
            lookups::kubeconfig_names(&conn).contexts,
        )),
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
            Some(path) => lookups::snapshot_names(path, type_, scope.named()),
            None => lookups::names(&conn, &cache_dir, type_, &scope).await,
        }),
        Source::Fixed(_) | Source::Files | Source::Dirs | Source::Nothing => Vec::new(),
    }
}

/// `--contexts a,b,c`: the words before the last comma as given, then
/// each context not among them.
fn context_list(partial: &str, contexts: Vec<String>) -> Vec<String> {
    let done = partial.rfind(',').map_or("", |i| &partial[..=i]);
    let given: Vec<&str> = done.split(',').collect();
    contexts
        .into_iter()
        .filter(|c| !given.contains(&c.as_str()))
        .map(|c| format!("{done}{c}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &[&str]) -> Request {
        let mut root = Cli::command();
        root.build();
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        protocol::parse(&root, &words)
    }

    #[test]
    fn context_lists_offer_the_contexts_not_given_yet() {
        let all = || vec!["dev".to_string(), "prod-eu".into(), "prod-us".into()];
        assert_eq!(
            super::context_list("", all()),
            ["dev", "prod-eu", "prod-us"]
        );
        assert_eq!(
            super::context_list("prod-eu,p", all()),
            ["prod-eu,dev", "prod-eu,prod-us"]
        );
    }

    #[test]
    fn completion_reads_the_connection_and_scope_as_a_command_does() {
        let request = line(&[
            "tree",
            "--context=kind-dev",
            "-n",
            "shop",
            "--insecure-skip-tls-verify",
            "--as-group=a",
            "--as-group=b",
            "--request-timeout=soon",
            "deploy/",
        ]);
        let global = global_args(&request).expect("the line parses");
        let conn = crate::settings::connection(&global, lookups::REQUEST_TIMEOUT);
        assert_eq!(conn.context.as_deref(), Some("kind-dev"));
        assert!(conn.insecure_skip_tls_verify);
        assert_eq!(conn.as_groups, ["a", "b"]);
        assert_eq!(conn.request_timeout, lookups::REQUEST_TIMEOUT);
        assert_eq!(
            Asked::from_flags(global.namespace.as_deref(), global.all_namespaces),
            Asked::Namespace("shop".into())
        );
        let all = global_args(&line(&["status", "-n", "shop", "-A", ""])).unwrap();
        assert_eq!(
            Asked::from_flags(all.namespace.as_deref(), all.all_namespaces),
            Asked::All
        );
    }
}
