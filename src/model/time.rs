//! Timestamps from the API and how old they are, with an injected "now".

use jiff::{SignedDuration, Timestamp};

/// Parses an RFC 3339 timestamp as the API server writes it. Anything else,
/// including null and the empty string, is no timestamp.
pub fn parse_time(value: Option<&serde_json::Value>) -> Option<Timestamp> {
    value?.as_str().and_then(|s| s.parse().ok())
}

/// A short human age like kubectl's: `45s`, `12m`, `3h`, `5d`. A time in the
/// future (clock skew) reads as `0s`.
pub fn age(now: Timestamp, then: Timestamp) -> String {
    let secs = now.duration_since(then).max(SignedDuration::ZERO).as_secs();
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 2 * 3600 => format!("{}m", s / 60),
        s if s < 2 * 86400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn ages_read_like_kubectl() {
        let now = t("2026-01-10T12:00:00Z");
        assert_eq!(age(now, t("2026-01-10T11:59:15Z")), "45s");
        assert_eq!(age(now, t("2026-01-10T11:48:00Z")), "12m");
        assert_eq!(age(now, t("2026-01-10T09:00:00Z")), "3h");
        assert_eq!(age(now, t("2026-01-05T12:00:00Z")), "5d");
        assert_eq!(age(now, t("2026-01-10T12:00:09Z")), "0s");
    }

    #[test]
    fn null_and_garbage_are_no_time() {
        assert_eq!(parse_time(Some(&serde_json::Value::Null)), None);
        assert_eq!(parse_time(Some(&serde_json::json!("yesterday"))), None);
        assert_eq!(parse_time(None), None);
    }
}
