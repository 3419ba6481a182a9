//! Turning verdicts and evidence into text for people and scripts. Every
//! string that came from the cluster goes through [`escape`] first.

pub mod escape;

pub use escape::{escape, escape_multiline};
