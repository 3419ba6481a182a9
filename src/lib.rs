//! kubectl-reconcile: is this Kubernetes object converged, and if not, why
//! not? The library behind the `kubectl-reconcile` binary. One module does
//! I/O with the cluster (`source`); everything else is pure and works on an
//! in-memory [`model::Snapshot`].

pub mod model;
pub mod render;
pub mod source;
pub mod verdict;
