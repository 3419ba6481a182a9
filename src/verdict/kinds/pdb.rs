//! PodDisruptionBudgets (policy/v1): enough healthy pods or not, and
//! budgets that allow no disruption at all.

use crate::model::Object;
use crate::verdict::Judged;
use crate::verdict::conditions::find;
use crate::verdict::reason::Network;
use crate::verdict::words::{count, noun};
use crate::verdict::{Judgement, Verdict};

/// What a budget with no disruptions to spare does.
pub const BLOCKS: &str = "it blocks every voluntary eviction and node drain";

pub fn judge(obj: &Object, _snap: &Judged<'_>) -> Option<Judgement> {
    obj.status()?;
    let healthy = obj.int("/status/currentHealthy").unwrap_or(0);
    let needed = obj.int("/status/desiredHealthy").unwrap_or(0);
    let allowed = obj.int("/status/disruptionsAllowed").unwrap_or(0);
    let since = find(&obj.conditions(), "DisruptionAllowed").and_then(|c| c.last_transition_time);
    let disruptions = format!("{} allowed", count(allowed, "disruption"));
    let j = if healthy < needed {
        Judgement::new(
            Verdict::Progressing,
            Network::InsufficientPods,
            format!(
                "{healthy} of {needed} required {} healthy; {disruptions}",
                noun(needed, "pod")
            ),
        )
    } else if allowed == 0 {
        Judgement::new(
            Verdict::Converged,
            Network::NoDisruptionsAllowed,
            format!("{healthy} healthy, {needed} required; {disruptions}: {BLOCKS}"),
        )
    } else {
        Judgement::new(
            Verdict::Converged,
            Network::SufficientPods,
            format!("{healthy} healthy, {needed} required; {disruptions}"),
        )
    };
    Some(j.since(since))
}
