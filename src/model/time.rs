//! Timestamps from the API and how old they are, with an injected "now".

use jiff::{SignedDuration, Timestamp};

/// Parses an RFC 3339 timestamp as the API server writes it. Anything else,
/// including null and the empty string, is no timestamp.
pub fn parse_time(value: Option<&serde_json::Value>) -> Option<Timestamp> {
    value?.as_str().and_then(|s| s.parse().ok())
}

/// How long ago `then` was, as kubectl's AGE column prints it.
pub fn age(now: Timestamp, then: Timestamp) -> String {
    human_duration(now.duration_since(then))
}

/// apimachinery's `duration.HumanDuration`: two or three significant
/// figures. `2m57s` below 10 minutes, `3h20m` below 8 hours, `2d4h` below 8
/// days, `1y30d` below 8 years; whole units between. Up to a second in the
/// future (clock skew) is `0s`; further is `<invalid>`.
pub fn human_duration(d: SignedDuration) -> String {
    // Go's int(d.Seconds()) truncates toward zero, as as_secs does.
    let seconds = d.as_secs();
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return with_rest(minutes, "m", seconds % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return with_rest(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    let days = hours / 24;
    if hours < 24 * 8 {
        return with_rest(days, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{days}d");
    }
    let years = days / 365;
    if hours < 24 * 365 * 8 {
        return with_rest(years, "y", days % 365, "d");
    }
    format!("{years}y")
}

/// `3h` or `3h20m`: the smaller unit only when it is not zero.
fn with_rest(big: i64, big_unit: &str, small: i64, small_unit: &str) -> String {
    if small == 0 {
        format!("{big}{big_unit}")
    } else {
        format!("{big}{big_unit}{small}{small_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn hd(secs: i64) -> String {
        human_duration(SignedDuration::from_secs(secs))
    }

    const M: i64 = 60;
    const H: i64 = 60 * M;
    const D: i64 = 24 * H;
    const Y: i64 = 365 * D;

    /// Every boundary of apimachinery's rules, on both sides.
    #[test]
    fn human_duration_matches_apimachinery_at_every_boundary() {
        let cases: &[(i64, &str)] = &[
            (-2, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (45, "45s"),
            (2 * M - 1, "119s"),
            (2 * M, "2m"),
            (2 * M + 57, "2m57s"),
            (10 * M - 1, "9m59s"),
            (10 * M, "10m"),
            (150 * M, "150m"),
            (3 * H - 1, "179m"),
            (3 * H, "3h"),
            (3 * H + 20 * M, "3h20m"),
            (3 * H + 20 * M + 59, "3h20m"),
            (8 * H - 1, "7h59m"),
            (8 * H, "8h"),
            (47 * H + 59 * M, "47h"),
            (48 * H, "2d"),
            (2 * D + 4 * H, "2d4h"),
            (8 * D - 1, "7d23h"),
            (8 * D, "8d"),
            (2 * Y - 1, "729d"),
            (2 * Y, "2y"),
            (2 * Y + 30 * D, "2y30d"),
            (8 * Y - 1, "7y364d"),
            (8 * Y, "8y"),
            (20 * Y + 100 * D, "20y"),
        ];
        for &(secs, want) in cases {
            assert_eq!(hd(secs), want, "{secs}s");
        }
    }

    #[test]
    fn fractions_truncate_toward_zero_like_go() {
        assert_eq!(human_duration(SignedDuration::from_millis(-1999)), "0s");
        assert_eq!(
            human_duration(SignedDuration::from_millis(-2000)),
            "<invalid>"
        );
        assert_eq!(human_duration(SignedDuration::from_millis(119_999)), "119s");
    }

    #[test]
    fn ages_are_measured_from_now() {
        let now = t("2026-01-10T12:00:00Z");
        assert_eq!(age(now, t("2026-01-10T11:57:03Z")), "2m57s");
        assert_eq!(age(now, t("2026-01-10T08:40:00Z")), "3h20m");
        assert_eq!(age(now, t("2026-01-08T08:00:00Z")), "2d4h");
        assert_eq!(age(now, t("2026-01-10T12:00:01Z")), "0s");
        assert_eq!(age(now, t("2026-01-10T12:00:09Z")), "<invalid>");
    }

    #[test]
    fn null_and_garbage_are_no_time() {
        assert_eq!(parse_time(Some(&serde_json::Value::Null)), None);
        assert_eq!(parse_time(Some(&serde_json::json!("yesterday"))), None);
        assert_eq!(parse_time(None), None);
    }
}
