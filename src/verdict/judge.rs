//! What objects are judged by, apart from the objects: the health rules in
//! effect and how long new pods may fail hard. A [`Judge`] is made once by
//! the command from its settings and passed to report and diagnose, which
//! see the snapshot through it ([`Judged`]); the snapshot is only data.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use jiff::SignedDuration;

use super::rules::RuleSet;
use crate::model::Snapshot;

/// The policy objects are judged by.
#[derive(Debug, Clone)]
pub struct Judge {
    /// The health rules: the built-in pack, or with the user's.
    pub rules: Arc<RuleSet>,
    /// How long a workload's new pods must fail hard before it is Failed,
    /// when a command shortens the default (`wait --fail-fast`,
    /// `--failure-grace`).
    pub failure_grace: Option<SignedDuration>,
}

impl Judge {
    /// Judges by these rules, with the default grace.
    pub fn new(rules: Arc<RuleSet>) -> Judge {
        Judge {
            rules,
            failure_grace: None,
        }
    }

    /// The built-in rules only: what a snapshot means without the user's.
    pub fn builtin() -> &'static Judge {
        static BUILTIN: OnceLock<Judge> = OnceLock::new();
        BUILTIN.get_or_init(|| Judge::new(RuleSet::builtin()))
    }

    /// A snapshot as this judge sees it.
    pub fn on<'a>(&'a self, snap: &'a Snapshot) -> Judged<'a> {
        Judged { snap, judge: self }
    }
}

/// A snapshot and the judge its objects are judged by: what every verdict,
/// report and diagnosis reads. It reads as the snapshot it holds.
#[derive(Clone, Copy)]
pub struct Judged<'a> {
    pub snap: &'a Snapshot,
    pub judge: &'a Judge,
}

impl<'a> Judged<'a> {
    /// The snapshot with the built-in rules only.
    pub fn builtin(snap: &'a Snapshot) -> Judged<'a> {
        Judge::builtin().on(snap)
    }
}

impl Deref for Judged<'_> {
    type Target = Snapshot;

    fn deref(&self) -> &Snapshot {
        self.snap
    }
}
