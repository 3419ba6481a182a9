//! Where a snapshot comes from: the one place that does I/O. Everything
//! downstream works on the [`crate::model::Snapshot`] a source builds.

pub mod file;
