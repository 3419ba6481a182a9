//! The targets of a command after resolution: found objects, or identities
//! that the source looked for and did not find.

use super::ObjectRef;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The uid of an object in the snapshot.
    Found(String),
    /// The object does not exist.
    Missing(ObjectRef),
}
