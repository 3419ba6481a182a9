//! One event timeline for a whole subtree: identical events merged with
//! their counts, warnings first, each group in time order.

use std::collections::{BTreeSet, HashSet};

use jiff::Timestamp;
use serde::Serialize;

use crate::model::Snapshot;

/// One line of the timeline: one or more identical events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventLine {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    /// How many times it happened, over all the objects.
    pub count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Timestamp>,
    /// `Kind/name` of each object it is about.
    pub objects: Vec<String>,
}

/// What to say when there are no events: their absence is not health.
pub const NO_EVENTS: &str = "no events found for these objects; events expire after about an hour (the API server's --event-ttl), so their absence is not a sign of health";

/// The merged timeline of the events about `uids`.
pub fn timeline(snap: &Snapshot, uids: &HashSet<&str>) -> Vec<EventLine> {
    let mut lines: Vec<EventLine> = Vec::new();
    for e in snap
        .events
        .iter()
        .filter(|e| uids.contains(e.regarding_uid.as_str()))
    {
        let object = format!("{}/{}", e.regarding_kind, e.regarding_name);
        // Identical events about objects of the same kind are one line.
        let same = lines.iter_mut().find(|l| {
            l.type_ == e.type_
                && l.reason == e.reason
                && l.message == e.message
                && l.objects
                    .first()
                    .is_some_and(|o| o.split('/').next() == Some(e.regarding_kind.as_str()))
        });
        match same {
            Some(line) => {
                line.count += e.count;
                line.first_seen = min_time(line.first_seen, e.first_seen);
                line.last_seen = line.last_seen.max(e.last_seen);
                if !line.objects.contains(&object) {
                    line.objects.push(object);
                }
            }
            None => lines.push(EventLine {
                type_: e.type_.clone(),
                reason: e.reason.clone(),
                message: e.message.clone(),
                count: e.count,
                first_seen: e.first_seen,
                last_seen: e.last_seen,
                objects: vec![object],
            }),
        }
    }
    for line in &mut lines {
        let sorted: BTreeSet<String> = line.objects.drain(..).collect();
        line.objects = sorted.into_iter().collect();
    }
    // Warnings first; then oldest first, an event without any time first.
    lines.sort_by(|a, b| {
        (a.type_ != "Warning", a.last_seen, &a.reason, &a.message).cmp(&(
            b.type_ != "Warning",
            b.last_seen,
            &b.reason,
            &b.message,
        ))
    });
    lines
}

fn min_time(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, Object};
    use serde_json::json;

    fn event(
        uid: &str,
        pod: &str,
        type_: &str,
        reason: &str,
        message: &str,
        count: u32,
        last: Option<&str>,
    ) -> Event {
        Event::from_value(&json!({"apiVersion": "v1", "kind": "Event", "metadata": {"uid": format!("e-{pod}-{reason}-{last:?}")},
            "involvedObject": {"kind": "Pod", "name": pod, "uid": uid}, "type": type_, "reason": reason, "message": message,
            "count": count, "lastTimestamp": last}))
        .unwrap()
    }

    #[test]
    fn merged_counted_warnings_first_and_null_times_are_safe() {
        let obj = Object::from_value(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "uid": "a"}}),
        )
        .unwrap();
        let events = vec![
            event(
                "a",
                "web-a",
                "Normal",
                "Pulling",
                "Pulling image \"x\"",
                3,
                Some("2026-01-10T11:50:00Z"),
            ),
            event(
                "a",
                "web-a",
                "Warning",
                "Failed",
                "Error: ImagePullBackOff",
                5,
                Some("2026-01-10T11:58:00Z"),
            ),
            event(
                "b",
                "web-b",
                "Warning",
                "Failed",
                "Error: ImagePullBackOff",
                2,
                Some("2026-01-10T11:59:00Z"),
            ),
            event(
                "b",
                "web-b",
                "Warning",
                "FailedMount",
                "secret \"x\" not found",
                1,
                None,
            ),
            event(
                "z",
                "other",
                "Warning",
                "Failed",
                "Error: ImagePullBackOff",
                9,
                Some("2026-01-10T11:59:00Z"),
            ),
        ];
        let snap = Snapshot::new(
            vec![obj],
            events,
            vec![],
            "2026-01-10T12:00:00Z".parse().unwrap(),
        );
        let lines = timeline(&snap, &HashSet::from(["a", "b"]));
        let summary: Vec<(String, u32, usize)> = lines
            .iter()
            .map(|l| (l.reason.clone(), l.count, l.objects.len()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("FailedMount".into(), 1, 1),
                ("Failed".into(), 7, 2),
                ("Pulling".into(), 3, 1)
            ]
        );
        assert_eq!(lines[1].objects, vec!["Pod/web-a", "Pod/web-b"]);
        assert_eq!(
            lines[1].last_seen,
            Some("2026-01-10T11:59:00Z".parse().unwrap())
        );
        assert!(timeline(&snap, &HashSet::from(["nothing"])).is_empty());
    }
}
