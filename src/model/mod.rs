//! The in-memory snapshot of cluster state that every pure stage works on:
//! objects, events and the gaps the source could not read.

mod container;
pub mod edits;
mod event;
mod object;
mod pointer;
mod refs;
mod snapshot;
mod target;
mod time;
mod writers;

pub use container::Container;
#[cfg(test)]
pub use event::EventSource;
pub use event::{Event, dedupe_events};
pub use object::{
    Condition, Object, ObjectRef, OwnerRef, group_of, is_data_kind, names_controller,
    parse_conditions,
};
pub use pointer::pointer;
pub use refs::waits_on;
pub use snapshot::{Incomplete, KindFacts, Snapshot};
pub use target::Target;
pub use time::{age, human_duration, parse_time};
pub use writers::{KEPT as KEPT_WRITER_FIELDS, KEYED_PARTS, reduce_managed_fields};
