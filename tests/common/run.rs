//! Running a program to its end, never waiting unbounded: this build's
//! plugin binary above all ([`Cmd::reconcile`]), and the tools the tests run
//! around it. A test says the arguments, the environment to set or remove,
//! the text on stdin and the deadline; it gets back the exit status, stdout
//! and stderr ([`Run`]). A test that must hold the child itself (signal a
//! `--watch`, run it under strace, tmux or script, link it onto a PATH)
//! starts it from [`bin`].

use std::ffi::OsStr;
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The plugin binary of this build.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
}

/// The directory of this build's binaries: the plugin and its completion
/// helper, `kubectl_complete-reconcile`.
pub fn bin_dir() -> &'static Path {
    bin().parent().expect("the binary is in a directory")
}

/// The test's PATH with [`bin_dir`] first, as a shell or kubectl finds this
/// build's plugin and its helper.
pub fn path_with_bin_dir() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(
        std::iter::once(bin_dir().to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .expect("PATH entries without a colon")
}

/// How long a [`Cmd`] may run unless the test says otherwise: far longer
/// than any test's command takes (the longest wait the tests ask for is 2
/// minutes), short enough that a hang fails the test instead of the CI job.
pub const DEADLINE: Duration = Duration::from_secs(300);

/// What becomes of a command still running at its deadline: it is killed,
/// and then the test fails, or it goes on with what the command printed.
#[derive(Clone, Copy)]
enum AtDeadline {
    Fail,
    Stop,
}

/// A command to run to its end: from the repository's root, stdin empty
/// unless [`Cmd::stdin`] gives it text, stdout and stderr read whole, and
/// killed at its deadline ([`DEADLINE`] unless [`Cmd::deadline`] or
/// [`Cmd::stop_after`] says otherwise).
pub struct Cmd {
    command: Command,
    stdin: Option<Vec<u8>>,
    limit: Duration,
    at_deadline: AtDeadline,
}

impl Cmd {
    /// `program` (a path, or a name looked up on the test's PATH).
    pub fn new(program: impl AsRef<OsStr>) -> Cmd {
        let mut command = Command::new(program);
        command.current_dir(super::root());
        Cmd {
            command,
            stdin: None,
            limit: DEADLINE,
            at_deadline: AtDeadline::Fail,
        }
    }

    /// This build's plugin binary. Its environment is the test's, but for
    /// what the test sets or removes.
    pub fn reconcile() -> Cmd {
        Cmd::new(bin())
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Cmd {
        self.command.arg(arg);
        self
    }

    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Cmd {
        self.command.args(args);
        self
    }

    /// Sets `key` to `value`; a later call for the same key wins, and so
    /// does an `env` after an [`Cmd::env_remove`] of it.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Cmd {
        self.command.env(key, value);
        self
    }

    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Cmd {
        self.command.envs(vars);
        self
    }

    /// Runs it without `key` in its environment.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Cmd {
        self.command.env_remove(key);
        self
    }

    /// `text` on stdin, then end of file.
    pub fn stdin(mut self, text: &str) -> Cmd {
        self.stdin = Some(text.as_bytes().to_vec());
        self
    }

    /// Fails the test (after killing the command) if it still runs after
    /// `limit`.
    pub fn deadline(mut self, limit: Duration) -> Cmd {
        self.limit = limit;
        self.at_deadline = AtDeadline::Fail;
        self
    }

    /// Ends the command (SIGKILL) if it still runs after `limit`, and
    /// returns what it printed (exit code -1), as a test ends a `--watch`.
    pub fn stop_after(mut self, limit: Duration) -> Cmd {
        self.limit = limit;
        self.at_deadline = AtDeadline::Stop;
        self
    }

    /// The program's file name and the arguments, for messages.
    fn describe(&self) -> String {
        let program = Path::new(self.command.get_program());
        let name = program.file_name().unwrap_or(program.as_os_str());
        let args: Vec<_> = self.command.get_args().collect();
        format!("{} {args:?}", name.to_string_lossy())
    }

    /// Runs the command to its end. What it writes must be read whole soon
    /// after it exits: output held open by something it started, which
    /// still runs, fails the test.
    pub fn run(mut self) -> Run {
        let what = self.describe();
        let started = Instant::now();
        let mut child = self
            .command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        // Written from a thread of its own, so that a child that answers
        // before it has read everything cannot block on a full pipe.
        let feeding = self.stdin.take().map(|text| {
            let mut pipe = child.stdin.take().unwrap();
            std::thread::spawn(move || pipe.write_all(&text))
        });
        let out = drain(child.stdout.take().unwrap());
        let err = drain(child.stderr.take().unwrap());
        let mut peak_kib = 0;
        let status = loop {
            peak_kib = peak_kib.max(high_water_kib(child.id()));
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > self.limit {
                let _ = child.kill();
                let status = child.wait().unwrap();
                match self.at_deadline {
                    AtDeadline::Fail => panic!("{what} still ran after {:?}", self.limit),
                    AtDeadline::Stop => break status,
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let took = started.elapsed();
        if let Some(feeding) = feeding {
            match feeding.join().unwrap() {
                Err(e) if e.kind() != ErrorKind::BrokenPipe => {
                    panic!("writing to the stdin of {what}: {e}")
                }
                _ => {}
            }
        }
        let text = |rx: Receiver<Vec<u8>>, which: &str| {
            let bytes = rx.recv_timeout(Duration::from_secs(3)).unwrap_or_else(|_| {
                panic!("{which} stayed open after {what} ended: something it started still runs")
            });
            String::from_utf8(bytes)
                .unwrap_or_else(|e| panic!("{which} of {what} is not UTF-8: {e}"))
        };
        Run {
            code: status.code().unwrap_or(-1),
            stdout: text(out, "stdout"),
            stderr: text(err, "stderr"),
            took,
            peak_kib,
        }
    }
}

/// Reads a pipe to its end on a thread of its own; the bytes arrive on the
/// channel.
fn drain(mut pipe: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx
}

/// A running process's peak resident memory (VmHWM), in KiB; 0 once gone.
fn high_water_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// What a finished command did.
pub struct Run {
    /// The exit status; -1 if a signal ended it.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
    /// The most memory it held (VmHWM), in KiB, as last read while it ran.
    pub peak_kib: u64,
}

impl Run {
    /// Panics with the whole output unless the command exited 0.
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "command failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// stdout as JSON, or a panic that shows it and stderr.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr)
        })
    }
}
