//! Completion in real shells: zsh and fish (and bash through kubectl) run
//! interactively in tmux, a line is typed and Tab pressed, and the screen
//! is read back. No cluster: the values come from the plugin's own flags
//! and from a snapshot file. `.ci/run` installs zsh, fish and tmux from the
//! distribution's packages where they are missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// This build's directory first on PATH: `kubectl-reconcile` and
/// `kubectl_complete-reconcile`, as kubectl finds plugins.
fn path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_kubectl-reconcile"))
        .parent()
        .unwrap()
        .to_path_buf();
    std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap()
    .into_string()
    .unwrap()
}

fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{tool}` is not installed: install it (apt-get install {tool}), or run .ci/run, which does"
    );
}

/// A shell in a tmux session of its own; dropped, the session ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(name: &str, command: &str, home: &Path) -> Tmux {
        require("tmux");
        // Tests run in parallel in one process: a socket each.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let socket = format!("reconcile-{name}-{}-{n}", std::process::id());
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "200",
                "-y",
                "40",
            ])
            .arg(command)
            .env("PATH", path())
            .env("HOME", home)
            .env("TERM", "xterm-256color")
            .env_remove("KUBECONFIG")
            .current_dir(root())
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session");
        Tmux { socket }
    }

    fn keys(&self, args: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "0"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen holds `text`; the screen either way.
    fn until(&self, text: &str, limit: Duration) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) || started.elapsed() > limit {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `line` at the prompt `ready` and presses Tab; the screen once
    /// it shows `want` (or after a few seconds).
    fn complete(&self, ready: &str, line: &str, want: &str) -> String {
        let screen = self.until(ready, Duration::from_secs(10));
        assert!(screen.contains(ready), "no prompt:\n{screen}");
        self.keys(&["-l", line]);
        self.keys(&["Tab"]);
        let screen = self.until(want, Duration::from_secs(10));
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

fn zsh(home: &Path, rc: &str) -> Tmux {
    require("zsh");
    std::fs::write(home.join(".zshrc"), rc).unwrap();
    Tmux::start("zsh", "zsh -i", home)
}

#[test]
fn zsh_completes_flags_values_and_names() {
    let home = tempfile::tempdir().unwrap();
    let rc = format!(
        "PS1='zsh-ready%% '\nfpath=({}/completions $fpath)\nautoload -U compinit && compinit -u\n",
        root().display()
    );
    let shell = zsh(home.path(), &rc);
    // A flag's value after `=`: the value alone is added, `--output=` kept.
    let screen = shell.complete(
        "zsh-ready%",
        "kubectl-reconcile status --output=ya",
        "--output=yaml",
    );
    assert!(
        screen.contains("kubectl-reconcile status --output=yaml")
            && !screen.contains("--output=--output"),
        "{screen}"
    );
    // Names from a snapshot file.
    let screen = shell.complete(
        "zsh-ready%",
        "kubectl-reconcile --snapshot examples/shop.yaml -n shop tree deploy/w",
        "deploy/web",
    );
    assert!(screen.contains("tree deploy/web"), "{screen}");
}

#[test]
fn zsh_completes_the_plugin_through_kubectl() {
    let home = tempfile::tempdir().unwrap();
    let rc = "PS1='zsh-ready%% '\nautoload -U compinit && compinit -u\nsource <(kubectl completion zsh)\n";
    let shell = zsh(home.path(), rc);
    let screen = shell.complete(
        "zsh-ready%",
        "kubectl reconcile status --output=ya",
        "--output=yaml",
    );
    assert!(
        screen.contains("kubectl reconcile status --output=yaml")
            && !screen.contains("--output=--output"),
        "{screen}"
    );
    let screen = shell.complete(
        "zsh-ready%",
        "kubectl reconcile --snapshot examples/shop.yaml -n shop why deploy/a",
        "deploy/api",
    );
    assert!(screen.contains("why deploy/api"), "{screen}");
}

#[test]
fn fish_completes_flags_values_and_names() {
    require("fish");
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/fish");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.fish"),
        format!(
            "function fish_prompt; echo -n 'fish-ready> '; end\nset -g fish_greeting\nset -p fish_complete_path {}/completions\nkubectl completion fish | source\n",
            root().display()
        ),
    )
    .unwrap();
    let shell = Tmux::start("fish", "fish", home.path());
    let screen = shell.complete(
        "fish-ready>",
        "kubectl-reconcile status --output=ya",
        "--output=yaml",
    );
    assert!(
        screen.contains("kubectl-reconcile status --output=yaml")
            && !screen.contains("--output=--output"),
        "{screen}"
    );
    let screen = shell.complete(
        "fish-ready>",
        "kubectl-reconcile --snapshot examples/shop.yaml -n shop tree deploy/w",
        "deploy/web",
    );
    assert!(screen.contains("tree deploy/web"), "{screen}");
    // Through kubectl's own fish completion, which keeps `--output=` itself.
    let screen = shell.complete(
        "fish-ready>",
        "kubectl reconcile status --output=ya",
        "--output=yaml",
    );
    assert!(
        screen.contains("kubectl reconcile status --output=yaml")
            && !screen.contains("--output=--output"),
        "{screen}"
    );
}
