//! One container of a pod, as its status reports it: the one reader of
//! `status.containerStatuses` and `status.initContainerStatuses`, for the
//! verdicts and for `why`'s chain alike, so that a termination is worded
//! once.

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::{Object, parse_time};

/// One entry of `status.containerStatuses` or `status.initContainerStatuses`.
pub struct Container<'a> {
    pub init: bool,
    pub raw: &'a Value,
}

impl Object {
    /// A pod's containers as its status reports them, init containers
    /// first.
    pub fn containers(&self) -> impl Iterator<Item = Container<'_>> {
        self.container_statuses()
            .map(|(init, raw)| Container { init, raw })
    }
}

impl Container<'_> {
    pub fn name(&self) -> &str {
        self.text("/name")
    }

    pub fn text(&self, pointer: &str) -> &str {
        self.raw
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    pub fn int(&self, pointer: &str) -> i64 {
        self.raw
            .pointer(pointer)
            .and_then(Value::as_i64)
            .unwrap_or(0)
    }

    /// Why it waits (`ImagePullBackOff`), or empty.
    pub fn waiting(&self) -> &str {
        self.text("/state/waiting/reason")
    }

    pub fn time(&self, pointer: &str) -> Option<Timestamp> {
        parse_time(self.raw.pointer(pointer))
    }

    /// The back-off the kubelet waits out before the next restart, from a
    /// waiting message such as `back-off 5m0s restarting failed
    /// container=app pod=web-0`.
    pub fn back_off(&self) -> Option<SignedDuration> {
        let message = self.text("/state/waiting/message");
        let rest = &message[message.find("back-off ")? + "back-off ".len()..];
        rest.split_whitespace().next()?.parse().ok()
    }

    /// Whether the last termination was a failure (a non-zero exit, or a
    /// kill such as OOMKilled).
    pub fn last_failed(&self) -> bool {
        self.raw.pointer("/lastState/terminated").is_some()
            && (self.int("/lastState/terminated/exitCode") != 0
                || !matches!(self.text("/lastState/terminated/reason"), "" | "Completed"))
    }

    /// Whether it terminated now with a non-zero exit.
    pub fn exited_badly(&self) -> bool {
        self.raw.pointer("/state/terminated").is_some()
            && self.int("/state/terminated/exitCode") != 0
    }

    pub fn ready(&self) -> bool {
        self.raw.get("ready").and_then(Value::as_bool) == Some(true)
    }

    /// Running, and not ready.
    pub fn running_unready(&self) -> bool {
        self.raw.get("ready").and_then(Value::as_bool) == Some(false)
            && self.raw.pointer("/state/running").is_some()
    }

    /// `container app` or `init container migrate`.
    pub fn label(&self) -> String {
        let kind = if self.init {
            "init container"
        } else {
            "container"
        };
        format!("{kind} {}", self.name())
    }

    /// `OOMKilled, exit code 137: message` of the terminated state at
    /// `pointer` (`/state/terminated` or `/lastState/terminated`): the one
    /// wording of an exit.
    pub fn exit(&self, pointer: &str) -> Option<String> {
        let t = self.raw.pointer(pointer)?;
        let reason = t.get("reason").and_then(Value::as_str).unwrap_or("Error");
        let code = t.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
        let message = t
            .get("message")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        Some(format!("{reason}, exit code {code}{message}"))
    }
}
