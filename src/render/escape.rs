//! Placeholder until the escaping module lands.
use std::borrow::Cow;

pub fn escape(s: &str) -> Cow<'_, str> {
    if s.chars().any(|c| c.is_control()) {
        Cow::Owned(s.chars().map(|c| if c.is_control() { '?' } else { c }).collect())
    } else {
        Cow::Borrowed(s)
    }
}
