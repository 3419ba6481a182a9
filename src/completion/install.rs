//! `completion kubectl`: puts `kubectl_complete-reconcile` on PATH, which
//! krew cannot do. The helper is copied, not linked, into the directory where
//! kubectl finds the plugin: a link into krew's store would dangle after
//! `kubectl krew upgrade` removes the old version, and Windows needs no
//! privilege for a copy. The helper finds the plugin next to itself.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// kubectl looks for this executable on PATH to complete `kubectl reconcile`.
pub const HELPER: &str = "kubectl_complete-reconcile";
/// The plugin executable kubectl runs for `kubectl reconcile`.
pub const PLUGIN: &str = "kubectl-reconcile";

/// A file name with the platform's executable suffix (`.exe` on Windows).
pub fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// What `install` did.
#[derive(Debug)]
pub struct Installed {
    /// Where the helper is now.
    pub path: PathBuf,
    /// The helper it was copied from (next to this executable).
    pub from: PathBuf,
    /// It was already there, identical.
    pub unchanged: bool,
    /// `path`'s directory is on PATH.
    pub on_path: bool,
}

/// Copies the helper that ships next to this executable into `dir`, by
/// default the directory of the first `kubectl-reconcile` on PATH (the one
/// kubectl runs).
pub fn install(dir: Option<&Path>) -> anyhow::Result<Installed> {
    let me = std::env::current_exe().context("cannot tell where this executable is")?;
    let me = me.canonicalize().unwrap_or(me);
    let from = me.with_file_name(exe(HELPER));
    if !from.is_file() {
        bail!(
            "{} is missing: it ships next to {} in the release archive, and `cargo install` installs both\nhint: reinstall the plugin, or build both with `cargo build --release --bins`",
            from.display(),
            exe(PLUGIN)
        );
    }
    let path_dirs: Vec<PathBuf> =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect();
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => path_dirs
            .iter()
            .find(|d| d.join(exe(PLUGIN)).is_file())
            .cloned()
            .context("kubectl-reconcile is not on PATH, so kubectl cannot run it as a plugin\nhint: put its directory on PATH, or pass --install-dir DIR with a directory on PATH")?,
    };
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    let path = dir.join(exe(HELPER));
    let on_path = path_dirs.iter().any(|d| same_dir(d, &dir));
    let new = std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?;
    if std::fs::read(&path).is_ok_and(|old| old == new) {
        return Ok(Installed {
            path,
            from,
            unchanged: true,
            on_path,
        });
    }
    // Write beside, then rename: a completion running meanwhile never sees half a file.
    let tmp = dir.join(format!(".{}.tmp.{}", exe(HELPER), std::process::id()));
    let written = std::fs::write(&tmp, &new)
        .and_then(|()| make_executable(&tmp))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(Installed {
        path,
        from,
        unchanged: false,
        on_path,
    })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}
