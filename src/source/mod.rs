//! All I/O that reads cluster state: the live API server, and snapshot
//! files. Each produces the same [`crate::model::Snapshot`], through one
//! [`builder::SnapshotBuilder`]. Live reads go through one seam,
//! [`read::Reader`], so the crawl runs as well over an in-memory cluster.

pub mod api;
pub mod builder;
pub mod client;
pub mod completion;
pub mod contexts;
pub mod crawl;
pub mod credential;
pub mod discovery;
pub mod file;
mod freshness;
pub mod live;
pub mod local;
pub mod manifests;
#[cfg(test)]
pub mod memory;
pub mod offline;
pub mod plan;
mod protobuf;
mod proxy;
pub mod read;
mod transport;
mod trim;
pub mod watch;

#[cfg(test)]
mod tests;
