//! A shell or a command in a tmux session of its own, driven as a user
//! would: keys typed, the screen read back. Used by the real-shell
//! completion tests and the terminal tests of `--watch`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails, saying what to install, when `tool` is not on PATH.
pub fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{tool}` is not installed: install it (apt-get install {tool}), or run tests/install-tools, which .ci/run runs"
    );
}

/// A session on its own tmux server; dropped, the server ends.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs `command` in a 200×40 window, with `path` as PATH, in the
    /// repository, with `env` set.
    pub fn start(name: &str, command: &str, home: &Path, path: &str, env: &[(&str, &str)]) -> Tmux {
        Tmux::start_sized(name, command, home, path, env, (200, 40))
    }

    /// [`Tmux::start`] in a window of `(columns, rows)`.
    pub fn start_sized(
        name: &str,
        command: &str,
        home: &Path,
        path: &str,
        env: &[(&str, &str)],
        (columns, rows): (u16, u16),
    ) -> Tmux {
        require("tmux");
        // Tests run in parallel in one process: a socket each.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let socket = format!("reconcile-{name}-{}-{n}", std::process::id());
        let mut cmd = Command::new("tmux");
        cmd.args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
        ])
        .arg(command)
        .env("PATH", path)
        .env("HOME", home)
        .env("TERM", "xterm-256color")
        .env_remove("KUBECONFIG")
        .current_dir(root());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let status = cmd.status().expect("run tmux");
        assert!(status.success(), "tmux new-session");
        Tmux { socket }
    }

    pub fn keys(&self, args: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "0"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Resizes the window, as a user dragging its corner.
    pub fn resize(&self, columns: u16, rows: u16) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "resize-window", "-t", "0", "-x"])
            .arg(columns.to_string())
            .arg("-y")
            .arg(rows.to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Everything the window has shown, its history included, with the
    /// lines the terminal wrapped joined again (so a line longer than the
    /// window shows as one).
    pub fn history(&self) -> String {
        let out = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "capture-pane",
                "-p",
                "-J",
                "-S",
                "-",
                "-t",
                "0",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until `done` holds for the screen; the screen either way.
    pub fn until(&self, limit: Duration, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) || started.elapsed() > limit {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `line` at the prompt `ready` and presses Tab; the screen once
    /// it shows `want` (or after a few seconds).
    pub fn complete(&self, ready: &str, line: &str, want: &str) -> String {
        let screen = self.until(Duration::from_secs(10), |s| s.contains(ready));
        assert!(screen.contains(ready), "no prompt:\n{screen}");
        self.keys(&["-l", line]);
        self.keys(&["Tab"]);
        let screen = self.until(Duration::from_secs(10), |s| s.contains(want));
        // Clear the line for the next one.
        self.keys(&["C-u"]);
        screen
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}
