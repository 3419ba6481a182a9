//! The values a judgement is made of: the verdict, the ready counts and
//! the judgement itself. A leaf: the judge, the health rules and every
//! later stage import it, and it imports nothing of theirs.

use jiff::Timestamp;
use serde::Serialize;

use super::reason::Reason;

/// The verdicts of the product contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Verdict {
    Converged,
    Progressing,
    Failed,
    Suspended,
    Terminating,
    Unknown,
    NotFound,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Converged => "Converged",
            Verdict::Progressing => "Progressing",
            Verdict::Failed => "Failed",
            Verdict::Suspended => "Suspended",
            Verdict::Terminating => "Terminating",
            Verdict::Unknown => "Unknown",
            Verdict::NotFound => "NotFound",
        }
    }

    /// Higher is worse; used to sort "most severe first".
    pub fn severity(self) -> u8 {
        match self {
            Verdict::Converged => 0,
            Verdict::Suspended => 1,
            Verdict::Progressing => 2,
            Verdict::Terminating => 3,
            Verdict::Unknown => 4,
            Verdict::NotFound => 5,
            Verdict::Failed => 6,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Ready counts where they mean something: `ready` of `desired`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ready {
    pub ready: i64,
    pub desired: i64,
}

/// A verdict with its stable CamelCase reason and a message citing evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judgement {
    pub verdict: Verdict,
    pub reason: Reason,
    pub message: String,
    /// Since when the object has been in this state, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<Ready>,
}

impl Judgement {
    pub fn new(
        verdict: Verdict,
        reason: impl Into<Reason>,
        message: impl Into<String>,
    ) -> Judgement {
        Judgement {
            verdict,
            reason: reason.into(),
            message: message.into(),
            since: None,
            ready: None,
        }
    }

    /// Sets since when the object has been in this state.
    pub fn since(mut self, since: Option<Timestamp>) -> Judgement {
        self.since = since;
        self
    }

    /// Sets the ready counts.
    pub fn ready(mut self, ready: i64, desired: i64) -> Judgement {
        self.ready = Some(Ready { ready, desired });
        self
    }
}
