//! One event timeline for a whole subtree: events that differ only by a
//! generated name (`web-fb8f8-499wd`, a hash) merged into one line with
//! their count and first and last seen, warnings first, in time order.

use crate::verdict::Judged;
use std::collections::{BTreeSet, HashMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;

use crate::model::ObjectRef;

/// One line of the timeline: one or more identical events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventLine {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    /// The message; where the merged events' messages differ by generated
    /// names, those parts are written `*`.
    pub message: String,
    /// How many times it happened, over all the objects.
    pub count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Timestamp>,
    /// Each object it is about.
    pub objects: Vec<ObjectRef>,
    /// The grouping key: the message with generated names as `*`.
    #[serde(skip)]
    key: String,
}

/// What to say when there are no events: their absence is not health.
pub const NO_EVENTS: &str = "no events found for these objects; events expire after about an hour (the API server's --event-ttl), so their absence is not a sign of health";

/// The merged timeline of the events about `uids`.
pub fn timeline(snap: &Judged<'_>, uids: &HashSet<&str>) -> Vec<EventLine> {
    let mut lines: Vec<EventLine> = Vec::new();
    // Linear in the events: each line found by its key, each object of a
    // line kept once (anyone who may create Events writes as many as they
    // like about one object).
    let mut index: HashMap<(String, String, String, String), usize> = HashMap::new();
    let mut objects: Vec<BTreeSet<ObjectRef>> = Vec::new();
    for e in snap
        .events
        .iter()
        .filter(|e| uids.contains(e.regarding_uid.as_str()))
    {
        // An object that is gone is named as its events name it.
        let object = snap
            .get(&e.regarding_uid)
            .map(|o| o.id.clone())
            .unwrap_or_else(|| e.regarding());
        let key = generic(&e.message);
        // Events alike but for generated names, about objects of one kind, are one line.
        let id = (
            e.type_.clone(),
            e.reason.clone(),
            key,
            e.regarding_kind.clone(),
        );
        match index.get(&id) {
            Some(&i) => {
                let line = &mut lines[i];
                line.count = line.count.saturating_add(e.count);
                line.first_seen = min_time(line.first_seen, e.first_seen);
                line.last_seen = line.last_seen.max(e.last_seen);
                if line.message != e.message {
                    line.message = line.key.clone();
                }
                objects[i].insert(object);
            }
            None => {
                index.insert(id.clone(), lines.len());
                objects.push(BTreeSet::from([object]));
                lines.push(EventLine {
                    type_: e.type_.clone(),
                    reason: e.reason.clone(),
                    message: e.message.clone(),
                    count: e.count,
                    first_seen: e.first_seen,
                    last_seen: e.last_seen,
                    objects: Vec::new(),
                    key: id.2,
                });
            }
        }
    }
    for (line, objects) in lines.iter_mut().zip(objects) {
        line.objects = objects.into_iter().collect();
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

/// The alphabet of generated name suffixes (apimachinery's rand.String
/// and SafeEncodeString): no vowels, no 0, 1 or 3.
const GENERATED: &str = "bcdfghjklmnpqrstvwxz2456789";

/// The message with generated parts as `*`: the dash-separated segments
/// of a name that are 5 to 10 characters of the generated alphabet (a
/// pod's suffix, a pod-template hash), and hex runs of 8 or more
/// characters with a digit (hashes, uids' parts).
pub fn generic(message: &str) -> String {
    // The event correlator's prefix for aggregated events is not the event's own text.
    let message = message
        .strip_prefix("(combined from similar events): ")
        .unwrap_or(message);
    let mut out = String::with_capacity(message.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let parts: Vec<&str> = word.split('-').collect();
        let generated =
            |p: &str| (5..=10).contains(&p.len()) && p.chars().all(|c| GENERATED.contains(c));
        let hex = |p: &str| {
            p.len() >= 8
                && p.chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
                && p.chars().any(|c| c.is_ascii_digit())
        };
        let mut rewritten: Vec<&str> = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            if hex(p) || (i > 0 && generated(p)) {
                if rewritten.last() != Some(&"*") {
                    rewritten.push("*");
                }
            } else {
                rewritten.push(p);
            }
        }
        out.push_str(&rewritten.join("-"));
        word.clear();
    };
    for c in message.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
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
    use crate::model::Snapshot;
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
        let pod = |name: &str| {
            Object::from_value(
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "shop", "uid": name}}),
            )
            .unwrap()
        };
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
            vec![pod("a"), pod("b")],
            events,
            vec![],
            "2026-01-10T12:00:00Z".parse().unwrap(),
        );
        let lines = timeline(&Judged::builtin(&snap), &HashSet::from(["a", "b"]));
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
        let names: Vec<&str> = lines[1].objects.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec!["a", "b"]);
        assert_eq!(
            lines[1].last_seen,
            Some("2026-01-10T11:59:00Z".parse().unwrap())
        );
        assert!(timeline(&Judged::builtin(&snap), &HashSet::from(["nothing"])).is_empty());
    }

    #[test]
    fn generated_names_and_hashes_become_a_star() {
        assert_eq!(
            generic(
                "Error creating: pods \"web-fb8f8-499wd\" is forbidden: exceeded quota: compute"
            ),
            "Error creating: pods \"web-*\" is forbidden: exceeded quota: compute"
        );
        assert_eq!(
            generic("Created pod: web-7d4b9c8f6d-x2x9z"),
            "Created pod: web-*"
        );
        // Words, ordinals and short suffixes stay.
        assert_eq!(
            generic("Back-off restarting failed container web in pod db-0_shop"),
            "Back-off restarting failed container web in pod db-0_shop"
        );
        assert_eq!(
            generic("pulling image nginx:1.27"),
            "pulling image nginx:1.27"
        );
    }

    #[test]
    fn events_differing_by_a_generated_name_are_one_line() {
        let rs = Object::from_value(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-fb8f8", "namespace": "shop", "uid": "rs"}}))
        .unwrap();
        let failed = |pod: &str, at: &str| {
            Event::from_value(&json!({"apiVersion": "v1", "kind": "Event", "metadata": {"uid": format!("e-{pod}")},
                "involvedObject": {"kind": "ReplicaSet", "name": "web-fb8f8", "namespace": "shop", "uid": "rs"},
                "type": "Warning", "reason": "FailedCreate", "count": 1, "firstTimestamp": at, "lastTimestamp": at,
                "message": format!("Error creating: pods \"{pod}\" is forbidden: error looking up service account shop/builder: serviceaccount \"builder\" not found")}))
            .unwrap()
        };
        let snap = Snapshot::new(
            vec![rs],
            vec![
                failed("web-fb8f8-499wd", "2026-01-10T11:50:00Z"),
                failed("web-fb8f8-kq2xs", "2026-01-10T11:55:00Z"),
                failed("web-fb8f8-7bz4n", "2026-01-10T11:58:00Z"),
            ],
            vec![],
            "2026-01-10T12:00:00Z".parse().unwrap(),
        );
        let lines = timeline(&Judged::builtin(&snap), &HashSet::from(["rs"]));
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].count, 3);
        assert_eq!(
            lines[0].first_seen,
            Some("2026-01-10T11:50:00Z".parse().unwrap())
        );
        assert_eq!(
            lines[0].last_seen,
            Some("2026-01-10T11:58:00Z".parse().unwrap())
        );
        assert!(
            lines[0]
                .message
                .starts_with("Error creating: pods \"web-*\" is forbidden"),
            "{}",
            lines[0].message
        );
        assert_eq!(lines[0].objects[0].kind, "ReplicaSet");
    }
}
