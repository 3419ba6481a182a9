//! Namespaces (v1): deletion is step 1's business; a live one is Active.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::reason::Workload;
use crate::verdict::{Judgement, Verdict};

pub fn judge(obj: &Object, _snap: &Judged<'_>) -> Option<Judgement> {
    match obj.str("/status/phase") {
        Some("Active") | None => Some(Judgement::new(
            Verdict::Converged,
            Workload::Active,
            "namespace is active",
        )),
        // Terminating without a deletionTimestamp should not happen; let
        // the default answer rather than guess.
        Some(_) => None,
    }
}
