//! kubectl-reconcile: is this Kubernetes object converged, and if not, why
//! not? The library behind the `kubectl-reconcile` binary. One module does
//! I/O with the cluster (`source`); everything else is pure and works on an
//! in-memory [`model::Snapshot`].

// Only `terminal` and the request log write to stdout and stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod catalog;
pub mod cli;
pub mod commands;
pub mod completion;
pub mod diagnose;
pub mod escape;
pub mod field_selector;
pub mod graph;
pub mod log;
pub mod model;
pub mod relations;
pub mod render;
pub mod report;
pub mod rules;
pub mod selector;
pub mod settings;
pub mod source;
pub mod targets;
pub mod terminal;
pub mod verdict;

#[cfg(test)]
mod testutil;
