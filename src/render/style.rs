//! Colour, only when asked for: the text reads the same without it.

use owo_colors::OwoColorize;

use crate::verdict::Verdict;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn verdict(&self, verdict: Verdict, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        match verdict {
            Verdict::Converged => text.green().to_string(),
            Verdict::Progressing => text.yellow().to_string(),
            Verdict::Failed => text.red().bold().to_string(),
            Verdict::Suspended => text.blue().to_string(),
            Verdict::Terminating => text.magenta().to_string(),
            Verdict::Unknown | Verdict::NotFound => text.bright_black().to_string(),
        }
    }

    pub fn dim(&self, text: &str) -> String {
        if self.color {
            text.bright_black().to_string()
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }
}
