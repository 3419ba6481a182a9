//! Events from both Event APIs (core/v1 and events.k8s.io/v1), normalised to
//! one shape and deduplicated.

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::time::parse_time;

/// Which API an event was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSource {
    CoreV1,
    EventsV1,
}

/// One event about one object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The event's own uid; the same stored event has the same uid in both APIs.
    #[serde(skip)]
    pub uid: String,
    /// uid of the object the event is about.
    pub regarding_uid: String,
    pub regarding_kind: String,
    pub regarding_name: String,
    #[serde(skip)]
    pub regarding_namespace: String,
    #[serde(skip)]
    pub regarding_api_version: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    pub count: u32,
    /// The time the event was last seen: series last observed time, else
    /// lastTimestamp, else eventTime, else firstTimestamp, else creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen: Option<Timestamp>,
    pub reporter: String,
    #[serde(skip)]
    pub source: EventSource,
}

impl Event {
    /// Parses a `core/v1` Event or an `events.k8s.io/v1` Event.
    pub fn from_value(v: &Value) -> Option<Event> {
        let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("v1");
        let source = if api_version.starts_with("events.k8s.io/") {
            EventSource::EventsV1
        } else {
            EventSource::CoreV1
        };
        let text = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let time = |p: &str| parse_time(v.pointer(p));
        let (regarding, message, count, last, first, reporter) = match source {
            EventSource::CoreV1 => (
                v.get("involvedObject")?,
                text("/message"),
                v.get("count").and_then(Value::as_u64),
                time("/lastTimestamp"),
                time("/firstTimestamp"),
                [text("/reportingComponent"), text("/source/component")]
                    .into_iter()
                    .find(|s| !s.is_empty())
                    .unwrap_or_default(),
            ),
            EventSource::EventsV1 => (
                v.get("regarding")?,
                text("/note"),
                v.get("deprecatedCount").and_then(Value::as_u64),
                time("/deprecatedLastTimestamp"),
                time("/deprecatedFirstTimestamp"),
                [
                    text("/reportingController"),
                    text("/deprecatedSource/component"),
                ]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or_default(),
            ),
        };
        let field = |k: &str| {
            regarding
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let series_count = v.pointer("/series/count").and_then(Value::as_u64);
        let event_time = time("/eventTime");
        let created = time("/metadata/creationTimestamp");
        let last_seen = time("/series/lastObservedTime")
            .or(last)
            .or(event_time)
            .or(first)
            .or(created);
        Some(Event {
            uid: text("/metadata/uid"),
            regarding_uid: field("uid"),
            regarding_kind: field("kind"),
            regarding_name: field("name"),
            regarding_namespace: field("namespace"),
            regarding_api_version: field("apiVersion"),
            type_: Some(text("/type"))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "Normal".into()),
            reason: text("/reason"),
            message,
            count: series_count.or(count).unwrap_or(1).max(1) as u32,
            last_seen,
            first_seen: first.or(event_time).or(created),
            reporter,
            source,
        })
    }

    pub fn is_warning(&self) -> bool {
        self.type_ == "Warning"
    }

    /// The object the event is about, as the event names it.
    pub fn regarding(&self) -> super::ObjectRef {
        super::ObjectRef {
            api_version: self.regarding_api_version.clone(),
            kind: self.regarding_kind.clone(),
            namespace: Some(self.regarding_namespace.clone()).filter(|n| !n.is_empty()),
            name: self.regarding_name.clone(),
            uid: Some(self.regarding_uid.clone()).filter(|u| !u.is_empty()),
        }
    }
}

/// Removes events seen twice: the same stored event read through both APIs
/// (same uid), keeping the core/v1 copy.
pub fn dedupe_events(events: Vec<Event>) -> Vec<Event> {
    let mut seen = std::collections::HashSet::new();
    let mut sorted = events;
    sorted.sort_by_key(|e| e.source == EventSource::EventsV1);
    sorted.retain(|e| e.uid.is_empty() || seen.insert(e.uid.clone()));
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn core_backoff() -> Value {
        json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "web-1.17f", "namespace": "shop", "uid": "ev-1", "creationTimestamp": "2026-01-10T11:00:00Z"},
            "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop", "uid": "pod-1", "apiVersion": "v1"},
            "reason": "BackOff", "message": "Back-off pulling image \"nginx:nope\"", "type": "Warning",
            "count": 7, "firstTimestamp": "2026-01-10T11:00:00Z", "lastTimestamp": "2026-01-10T11:05:00Z",
            "source": {"component": "kubelet", "host": "node-1"}})
    }

    #[test]
    fn core_events_take_last_timestamp_and_count() {
        let e = Event::from_value(&core_backoff()).unwrap();
        assert_eq!(e.regarding_uid, "pod-1");
        assert_eq!(e.count, 7);
        assert_eq!(e.last_seen, Some("2026-01-10T11:05:00Z".parse().unwrap()));
        assert_eq!(e.reporter, "kubelet");
        assert!(e.is_warning());
    }

    #[test]
    fn events_v1_series_wins_and_nulls_are_safe() {
        let e = Event::from_value(&json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "x", "uid": "ev-2", "creationTimestamp": "2026-01-10T10:00:00Z"},
            "regarding": {"kind": "Pod", "name": "web-1", "uid": "pod-1"},
            "reason": "FailedScheduling", "note": "0/2 nodes are available", "type": "Warning",
            "eventTime": "2026-01-10T10:00:01.000000Z", "deprecatedLastTimestamp": null,
            "series": {"count": 12, "lastObservedTime": "2026-01-10T10:30:00.000000Z"},
            "reportingController": "default-scheduler"}))
        .unwrap();
        assert_eq!(e.count, 12);
        assert_eq!(e.last_seen, Some("2026-01-10T10:30:00Z".parse().unwrap()));
        assert_eq!(e.message, "0/2 nodes are available");

        let bare = Event::from_value(
            &json!({"involvedObject": {"uid": "p"}, "reason": "Pulled", "metadata": {}}),
        )
        .unwrap();
        assert_eq!(bare.last_seen, None);
        assert_eq!(bare.type_, "Normal");
        assert_eq!(bare.count, 1);
    }

    #[test]
    fn the_same_event_through_both_apis_counts_once() {
        let mut v1 = core_backoff();
        v1["apiVersion"] = json!("events.k8s.io/v1");
        v1["regarding"] = v1["involvedObject"].clone();
        let both = vec![
            Event::from_value(&v1).unwrap(),
            Event::from_value(&core_backoff()).unwrap(),
        ];
        let kept = dedupe_events(both);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].source, EventSource::CoreV1);
    }
}
