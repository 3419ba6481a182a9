//! kubectl-reconcile: is this Kubernetes object converged, and if not, why
//! not? The library behind the `kubectl-reconcile` binary. One module does
//! I/O with the cluster (`source`); everything else is pure and works on an
//! in-memory [`model::Snapshot`].

// Only `terminal` and the request log write to stdout and stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod anonymize;
pub(crate) mod capture;
pub(crate) mod catalog;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod completion;
pub(crate) mod diagnose;
pub(crate) mod escape;
pub(crate) mod field_selector;
pub(crate) mod graph;
pub(crate) mod jsonpath;
pub(crate) mod log;
pub(crate) mod model;
pub(crate) mod relations;
pub(crate) mod render;
pub(crate) mod report;
pub(crate) mod selector;
pub(crate) mod settings;
pub(crate) mod source;
pub(crate) mod sync;
pub(crate) mod targets;
pub(crate) mod terminal;
pub(crate) mod verdict;
pub(crate) mod yaml;

#[cfg(test)]
mod testutil;

/// What the `kubectl-reconcile` binary calls (`main.rs`), and the few
/// facts the tests check it against: the discovery cache's file for a
/// server, the completion scripts' names.
pub mod app {
    pub use crate::cli::{Cli, usage_error};
    pub use crate::commands::run;
    pub use crate::completion::{PROTOCOL_ARG, respond, scripts};
    pub use crate::escape::escape_multiline;
    pub use crate::log::set_level;
    pub use crate::source::api::anyhow_chain;
    pub use crate::source::discovery::cache_path;
}

/// The pure pipeline over snapshot files, for the tests that drive it
/// without the binary (fuzzing, a golden, the reasons document): read,
/// resolve, judge, report, draw.
pub mod pipeline {
    pub use crate::model::{Event, Object, Snapshot, Target};
    pub use crate::render::{Style, json, status, tree, why, yaml};
    pub use crate::report::{StatusReport, TreeReport, WhyReport};
    pub use crate::source::file::{SourceText, build_snapshot, load_snapshot};
    pub use crate::source::local::MAX_SNAPSHOT_BYTES;
    pub use crate::source::offline::resolve;
    pub use crate::targets::TargetSpec;
    pub use crate::verdict::reason::FROM_KUBERNETES;
    pub use crate::verdict::{Judged, Reason, judge};
}
