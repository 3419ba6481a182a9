//! CronJobs (batch/v1): suspended, or scheduled.

use crate::model::{Object, Snapshot, age};
use crate::verdict::words::count;
use crate::verdict::{Judgement, Verdict};

pub fn judge(obj: &Object, snap: &Snapshot) -> Option<Judgement> {
    let schedule = obj.str("/spec/schedule").unwrap_or("?");
    let last = obj.time("/status/lastScheduleTime");
    let last_text = match last {
        Some(t) => format!("last scheduled {} ago", age(snap.now, t)),
        None => "never scheduled".to_string(),
    };
    if obj.bool("/spec/suspend") == Some(true) {
        return Some(Judgement::new(
            Verdict::Suspended,
            "Suspended",
            format!("suspended by spec.suspend (schedule \"{schedule}\"); {last_text}"),
        ));
    }
    let active = obj
        .at("/status/active")
        .and_then(|v| v.as_array())
        .map_or(0, |a| a.len() as i64);
    let mut message = format!("schedule \"{schedule}\"; {last_text}");
    if let Some(t) = obj.time("/status/lastSuccessfulTime") {
        message.push_str(&format!(", last success {} ago", age(snap.now, t)));
    }
    if active > 0 {
        message.push_str(&format!("; {} active", count(active, "job")));
    }
    Some(Judgement::new(Verdict::Converged, "Scheduled", message).since(last))
}
