//! The process's own terminal, and the only place outside `main.rs` and
//! the request log (`log.rs`) that touches stdout and stderr: whether they
//! are terminals, the width, the colour choice, and the [`Console`] the
//! live modes (`--watch`, `wait`) write through. A console holds its
//! writers, its clock and its width, so that those modes' frames, change
//! lines, outage lines and progress line are tested against buffers and a
//! fixed clock, in milliseconds. clippy denies `print!` and friends and
//! `std::io::stdout`/`stderr` everywhere else (`clippy.toml`, `lib.rs`).
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

use jiff::Timestamp;

/// Where a live mode writes, and where it reads the time and the width.
pub struct Console<O: Write, E: Write> {
    pub out: O,
    pub err: E,
    /// The current time, as frames and change lines say it.
    pub clock: fn() -> Timestamp,
    /// The terminal's width now (a window can be resized between frames).
    pub width: fn() -> usize,
    /// Whether stderr is a terminal: a progress line is then rewritten in
    /// place.
    pub err_is_terminal: bool,
}

impl Console<std::io::Stdout, std::io::Stderr> {
    /// The process's stdout and stderr, the system clock, the real width.
    pub fn process() -> Self {
        Console {
            out: std::io::stdout(),
            err: std::io::stderr(),
            clock: Timestamp::now,
            width,
            err_is_terminal: std::io::stderr().is_terminal(),
        }
    }
}

impl<O: Write, E: Write> Console<O, E> {
    /// The time now, by this console's clock.
    pub fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// Writes to stdout at once; `false` once it is gone (`| head`).
    pub fn print(&mut self, text: &str) -> bool {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .is_ok()
    }

    /// Writes to stderr at once. A closed stderr is not worth failing for.
    pub fn say(&mut self, text: &str) {
        let _ = self
            .err
            .write_all(text.as_bytes())
            .and_then(|()| self.err.flush());
    }
}

/// Whether stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Whether whoever read stdout has gone (`--watch | head -1`): the pipe's
/// read end is closed. A watch with nothing new to write would otherwise
/// run on until its next frame fails to write.
#[cfg(unix)]
pub fn stdout_closed() -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&zero)).is_ok()
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

#[cfg(not(unix))]
pub fn stdout_closed() -> bool {
    false
}

/// What `anstream` makes of stdout for colour (`NO_COLOR`, `CLICOLOR`,
/// `CLICOLOR_FORCE`, a terminal or not).
pub fn stdout_color_choice() -> anstream::ColorChoice {
    anstream::AutoStream::choice(&std::io::stdout())
}

/// The terminal's width, 120 where it cannot be told.
pub fn width() -> usize {
    terminal_size::terminal_size()
        .map(|(w, _)| w.0 as usize)
        .unwrap_or(120)
}

/// The last words of a process that must end now (the watchdog's), on
/// stderr.
pub fn last_words(text: &str) {
    eprintln!("{text}");
}
