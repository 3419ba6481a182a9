//! All I/O that reads cluster state: the live API server, and snapshot
//! files. Each produces the same [`crate::model::Snapshot`].

pub mod api;
pub mod client;
pub mod completion;
pub mod credential;
pub mod discovery;
pub mod file;
pub mod live;
pub mod manifests;
pub mod offline;
pub mod watch;
